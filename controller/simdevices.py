"""Simulation only: players in-process and the in-process simulated table (issue 9, 16).

``livetable simulate`` is ``livetable run`` with simulated devices
(:class:`controller.composition.TableRun` with a :class:`controller.devices.DeviceChoice`):
the shuffler emulator on a pty (or the internal seeded dealer, ``--devices none``), gpiozero's
MockFactory pins, the MQTT link on the local broker, the simulated camera
(``controller/simcamera.py``), the display process. What this module adds is simulation only:

- :class:`SimulatedPlayers`: random legal players in-process, acting through the
  orchestrator's inbox after a thinking time scaled by ``--speed``; with the camera on they
  wait until it has read the board just dealt, so every street's board is checked. After a
  fault ends they decide again on the state as it is (an action refused while paused is not
  lost). (Simulated players as tablets on the broker: ``controller/simtablets.py``.)
- :class:`SimTable`: the same composition in-process with its loop in a thread, for tests
  and demonstrations: wait on conditions, inject device faults (docs/faults.md).
"""

from __future__ import annotations

import heapq
import itertools
import logging
import random
from typing import Any

from controller.bots import SimPlayers
from controller.orchestrator import Orchestrator

__all__ = ["SimulatedPlayers", "SimTable", "journal_seed", "device_choice"]


def journal_seed(journal: Any) -> int | None:
    """Return the seed a simulation keeps in ``journal`` (its meta table, which compaction
    keeps; journals of before in their ``simulate`` entry), or None (a new journal, none)."""
    if journal is None:
        return None
    seed = journal.meta("simulate_seed")
    if seed is not None:
        return int(seed)
    stored = next(journal.entries(kinds=("simulate",)), None)
    seed = None if stored is None else stored.payload.get("seed")
    return seed if isinstance(seed, int) else None


log = logging.getLogger("livetable.simulate")


def device_choice(args: Any, settings: Any, *, seed: int) -> Any:
    """Return the :class:`controller.devices.DeviceChoice` of ``livetable simulate``'s options:
    ``--devices all``: the emulator, mock pins, the broker, the simulated camera (``--camera``),
    the display unless ``--headless``; ``--devices none``: the internal dealer only."""
    from pathlib import Path

    from controller.devices import DeviceChoice

    history = getattr(args, "history_dir", None)
    if args.devices == "none":
        return DeviceChoice(table=settings.id, seats=settings.seats, shuffler=None, internal_seed=seed,
                            mqtt=False, history_dir=history)
    password = None
    if getattr(args, "mqtt_password_file", None):
        password = Path(args.mqtt_password_file).read_text().strip()
    return DeviceChoice(
        table=settings.id, seats=settings.seats, shuffler="emulator", emulator_seed=seed, pins="mock",
        mqtt=True, mqtt_host=args.mqtt_host, mqtt_port=args.mqtt_port, mqtt_user=getattr(args, "mqtt_user", None),
        mqtt_password=password, camera="simulated" if getattr(args, "camera", "on") == "on" else None,
        display=not args.headless, history_dir=history)


class SimulatedPlayers:
    """Random legal players in ``bot_seats``, in-process: an extra device of a ``TableRun``.

    Args:
        bot_seats: seats they play; ``seed``: their choices; ``clock``: the injected clock;
        speed: 0 = instant players; 1 = a live pace (about a second per decision).
    """

    def __init__(self, bot_seats: list[int], *, seed: int, clock: Any, speed: float) -> None:
        self.bot_seats, self.seed, self.clock, self.speed = bot_seats, seed, clock, speed
        self.rng = random.Random(seed)
        self.run: Any = None
        self.orch: Orchestrator | None = None
        self.players: SimPlayers | None = None
        self._later: list[tuple[float, int, Any, Any]] = []  # (due, n, event, done)
        self._n = itertools.count()
        self._was_paused = False

    def attach(self, run: Any) -> None:
        """Start playing at ``run``'s table (:class:`controller.composition.TableRun`)."""
        self.run, self.orch = run, run.orch
        self.players = SimPlayers(self.bot_seats, self._post_later, self.clock, seed=self.seed)
        run.orch.listeners.append(self.players)

    def _camera_waiting(self) -> bool:
        adapter = self.run.adapter if self.run is not None else None
        return adapter is not None and not adapter.board_settled

    def _post_later(self, item: Any, *, done: Any = None) -> None:
        # Players look at the board before they act: while the camera has not yet read the
        # cards just dealt, their decisions wait (so every street's board is checked).
        if self.speed <= 0 and not self._camera_waiting():
            assert self.orch is not None
            self.orch.post(item, done=done)
            return
        think = self.rng.uniform(0.4, 1.6) / self.speed if self.speed > 0 else 0.0
        heapq.heappush(self._later, (self.clock() + think, next(self._n), item, done))

    def tick(self, orch: Orchestrator) -> None:
        """Release decisions whose thinking time is over (and, with the camera, once it has
        read the board). When a fault ends, decisions held during the pause are dropped and
        the players decide again on the state as it is now (a refused or unjournalled action
        is not lost: the player acts again, as at a live table)."""
        paused = orch.faults.paused
        if self._was_paused and not paused:
            self._later.clear()
            if self.players is not None:
                self.players.forget(orch)  # the held decisions are gone: decide again
        self._was_paused = paused
        now = self.clock()
        while self._later and self._later[0][0] <= now and not paused and not self._camera_waiting():
            _, _, item, done = heapq.heappop(self._later)
            orch.post(item, done=done)


class SimTable:
    """One simulated table run in-process, its loop in a thread (tests, demonstrations).

    The same composition as ``livetable simulate`` and ``livetable run``
    (:class:`controller.composition.TableRun`, simulated players), with hooks to watch and
    disturb it:

    - :meth:`wait` ``(predicate, timeout)``: block until ``predicate(self)`` holds (checked
      on the loop thread's idle turns and after every public view), else ``TimeoutError``;
    - :attr:`views`: every public view published (docs/state.md), in order;
    - :attr:`replies`: every ``(seat, action_id, accepted, reason)`` sent to a tablet;
    - :attr:`stacks_before`: each seat's stack when the last hand started (before blinds);
    - :attr:`rig`: the :class:`~controller.composition.TableRun` (its ``adapter.emulator``,
      ``adapter.sim_camera``, ``ports.panel`` ...).

    Args:
        argv: ``livetable simulate`` options (``--devices all`` by default).
        journal: the journal file.
        max_hands: the pacer starts no hand after this many have finished (None: no limit).
        before_start: ``f(sim)`` called after the devices are built, before the first
            shuffle (inject device faults there).

    Raises:
        controller.journal.JournalError: the journal cannot be opened.
        ValueError: an option ``livetable simulate`` would refuse.
    """

    def __init__(self, argv: list[str], journal: str, *, max_hands: int | None = None,
                 before_start: Any = None) -> None:
        import threading

        from controller.composition import TableRun
        from controller.simulate import _check, _seat_players, _settings, build_parser

        self.args = build_parser().parse_args(argv)
        problem = _check(self.args)
        if problem:
            raise ValueError(f"livetable simulate: {problem}")
        if self.args.seed is None:
            self.args.seed = random.randrange(1 << 24)
        self.journal_path = journal
        self.settings = _settings(self.args)
        seats = list(range(1, self.settings.seats + 1))
        tablets = self.args.tablet_set | self.args.join_set  # left to tablets (T-3: join_set stays free)
        n = self.args.players if self.args.players is not None else len(seats) - len(tablets)
        bots = [s for s in seats if s not in tablets][:n]
        self.cond = threading.Condition()
        self.views: list[dict[str, Any]] = []
        self.stacks_before: dict[int, int] = {}
        self._idle_stacks: dict[int, int] | None = None
        self.players = SimulatedPlayers(bots, seed=self.args.seed, clock=_clock, speed=0.0)
        self.rig = TableRun(self.settings, journal, device_choice(self.args, self.settings, seed=self.args.seed),
                            clock=_clock, rebuy=set(bots), max_hands=max_hands, extras=[self.players])
        self.rig.ports.observers.append(self._seen)
        self.recovery = self.rig.open()
        self.orch = self.rig.orch
        assert self.orch is not None
        self.pacer = self.rig.pacer
        self.orch.listeners.append(self._after)
        if before_start is not None:
            before_start(self)
        _seat_players(self.orch, bots, _clock, self.settings)
        self._thread = threading.Thread(target=self._run, name="sim-table", daemon=True)
        self.error: BaseException | None = None

    @property
    def replies(self) -> list[tuple[int, str, bool, str | None]]:
        """Every reply sent to a tablet: ``(seat, action_id, accepted, reason)``."""
        return list(self.rig.ports.replies)

    def start(self) -> "SimTable":
        """Start the loop thread; return self."""
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            self.rig.run(poll=0.01, on_idle=self._idle)
        except BaseException as exc:  # reported by wait()
            self.error = exc
            with self.cond:
                self.cond.notify_all()

    def _idle(self) -> None:
        with self.cond:
            self.cond.notify_all()

    def _seen(self, view: dict[str, Any]) -> None:
        with self.cond:
            self.views.append(view)
            self.cond.notify_all()

    def _after(self, orch: Orchestrator, effects: list[Any]) -> None:
        if orch.state.hand is None:
            self._idle_stacks = {s.seat: s.stack for s in orch.state.seats if s is not None}
        elif self._idle_stacks is not None:
            self.stacks_before, self._idle_stacks = self._idle_stacks, None

    def wait(self, predicate: Any, timeout: float = 20.0, what: str = "") -> None:
        """Block until ``predicate(self)`` is true; raise ``TimeoutError`` after ``timeout`` s."""
        with self.cond:
            ok = self.cond.wait_for(lambda: self.error is not None or predicate(self), timeout)
        if self.error is not None:
            raise RuntimeError(f"the table loop failed: {self.error!r}") from self.error
        if not ok:
            fault = self.orch.faults.current
            raise TimeoutError(f"no {what or 'condition'} within {timeout} s (hand {self.orch.state.hands}, "
                               f"fault {fault}, street {getattr(self.orch.state.hand, 'street', None)})")

    def stop(self) -> None:
        """Stop the loop and every device; close the journal (idempotent)."""
        self.orch.stop()
        if self._thread.is_alive():
            self._thread.join(10)
        self.rig.close()

    def __enter__(self) -> "SimTable":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _clock() -> float:
    from controller.clock import system_clock

    return system_clock()
