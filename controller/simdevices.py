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
(The same composition in-process with its loop in a thread, for tests:
:class:`controller.simtable.SimTable`.)
"""

from __future__ import annotations

import heapq
import itertools
import logging
import random
from typing import Any

from controller.bots import SimPlayers
from controller.engine.table import events as ev
from controller.orchestrator import Orchestrator

__all__ = ["SimulatedPlayers", "journal_seed", "device_choice"]


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
        leave_chance: after each finished hand, the chance (0..1, seeded) that the player in
            each of ``bot_seats`` stands up (T-8) and leaves the seat free for the room's
            waiting list (issue 18, ``livetable room simulate --players``); never below two
            players seated. Whoever sits in a bot seat later (a player the floor seats) is
            played and may leave the same way. 0: nobody leaves.
        style: how they play, one of :data:`controller.bots.STYLES` (``random``; ``call``:
            they check or call every bet, ``livetable simulate --players-style call``).
    """

    def __init__(self, bot_seats: list[int], *, seed: int, clock: Any, speed: float,
                 leave_chance: float = 0.0, style: str = "random") -> None:
        self.bot_seats, self.seed, self.clock, self.speed = bot_seats, seed, clock, speed
        self.style = style
        self.rng = random.Random(seed)
        self.leave_chance = leave_chance
        self._leave_rng = random.Random(seed * 7919 + 1)  # its own: the players' choices stay as they were
        self._hands_seen: int | None = None
        self.run: Any = None
        self.orch: Orchestrator | None = None
        self.players: SimPlayers | None = None
        self._later: list[tuple[float, int, Any, Any]] = []  # (due, n, event, done)
        self._n = itertools.count()
        self._was_paused = False

    def attach(self, run: Any) -> None:
        """Start playing at ``run``'s table (:class:`controller.composition.TableRun`)."""
        self.run, self.orch = run, run.orch
        self.players = SimPlayers(self.bot_seats, self._post_later, self.clock, seed=self.seed, style=self.style)
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
        if self.leave_chance > 0 and not paused:
            self._leave(orch)
        now = self.clock()
        while self._later and self._later[0][0] <= now and not paused and not self._camera_waiting():
            _, _, item, done = heapq.heappop(self._later)
            orch.post(item, done=done)

    def _leave(self, orch: Orchestrator) -> None:
        """Once per hand dealt: stand up each bot seat's player with the chance
        ``leave_chance`` (T-8), keeping two players seated. Usually between hands; when the
        next hand was dealt at once, the player's hand is folded first (T-8)."""
        state = orch.state
        if state.hands == self._hands_seen:
            return
        first, self._hands_seen = self._hands_seen is None, state.hands
        if first:
            return  # the table just opened: nobody leaves before a hand
        seated = sum(1 for s in state.seats if s is not None)
        for s in state.seats:
            if seated <= 2:
                return
            if s is not None and s.seat in self.bot_seats and self._leave_rng.random() < self.leave_chance:
                orch.post(ev.StoodUp(at=self.clock(), seat=s.seat))
                seated -= 1
