"""The simulated table in-process, its loop in a thread, for tests and demonstrations (issue 9, 16).

:class:`SimTable` runs ``livetable simulate``'s composition (its options, its players from
:mod:`controller.simdevices`) in the calling process: wait on conditions, inject device
faults (docs/faults.md). It sits above both :mod:`controller.simulate` (the command, whose
options and seating it reuses) and :mod:`controller.simdevices` (the simulated players),
which the command imports: it lived in simdevices, which made the two import each other.
"""

from __future__ import annotations

import random
import threading
from typing import Any

from controller.composition import TableRun
from controller.orchestrator import Orchestrator
from controller.simdevices import SimulatedPlayers, device_choice
from controller.simulate import _check, _seat_players, _settings, build_parser

__all__ = ["SimTable"]


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
                            clock=_clock, rebuy=set(bots), max_hands=max_hands, extras=[self.players],
                            result_seconds=self.args.result_seconds or 0.0)  # issue 20: fast unless asked
        self.rig.ports.observers.append(self._seen)
        self.recovery = self.rig.open()
        orch = self.rig.orch
        assert orch is not None
        self.orch: Orchestrator = orch
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
