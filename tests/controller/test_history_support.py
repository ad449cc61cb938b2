"""Tables played in-process for the history tests: the production orchestrator, journal,
internal dealer, simulated players and hand pacer, on a manual clock."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.bots import SimPlayers
from controller.clock import ManualClock
from controller.dealer import InternalDealer
from controller.engine.table import effects as fx
from controller.engine.table import events as ev
from controller.engine.table.audit import audit
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import TableState
from controller.journal import Journal
from controller.orchestrator import Orchestrator, Ports
from controller.runtime import HandPacer


class RecordingPorts(Ports):
    """Ports that keep every ``hand-finished`` record."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []

    def hand_finished(self, hand: int, record: dict[str, Any]) -> None:
        self.records.append(record)


class Table:
    """One table on a journal file, played by simulated players in ``seats``; ``humans`` are
    seated too but act only when a test posts for them (or their timer runs out)."""

    def __init__(self, path: Path, settings: TableSettings, *, seats: list[int], seed: int = 1,
                 stack: int | None = None, names: dict[int, str] | None = None,
                 between: Callable[["Table", int], None] | None = None,
                 humans: list[int] = ()) -> None:  # type: ignore[assignment]
        self.clock = ManualClock()
        self.ports = RecordingPorts()
        self.journal = Journal(path, durable=False)  # fsync per event is not what these tests check
        # A snapshot every hand: these tests recall and compact from any hand's end (production
        # snapshots every SNAPSHOT_EVERY hands, and the readers find the snapshot before a hand).
        self.orch = Orchestrator(TableState.new(settings), journal=self.journal, clock=self.clock,
                                 ports=self.ports, snapshot_every=1)
        self.ports.dealer = InternalDealer(self.orch.post, self.clock, seed=seed)
        self.players = SimPlayers(seats, self.orch.post, self.clock, seed=seed)
        self.pacer = HandPacer(self.orch.post, self.clock, rebuy=set(seats))
        self.between = between
        self.problems: list[str] = []
        self.orch.listeners += [self._between, self.players, self.pacer, self._audit]
        amount = stack or settings.buy_in_max or 20 * settings.big_blind
        for s in sorted([*seats, *humans]):
            name = (names or {}).get(s, f"Player {s}")
            self.orch.post(ev.PlayerSatDown(at=self.clock(), seat=s, player=f"p{s}", name=name))
            self.orch.post(ev.BoughtIn(at=self.clock(), seat=s, amount=amount))

    def _between(self, orch: Orchestrator, effects: list[Any]) -> None:
        for e in effects:
            if isinstance(e, fx.HandFinished) and self.between is not None:
                self.between(self, e.hand)

    def _audit(self, orch: Orchestrator, effects: list[Any]) -> None:
        self.problems += audit(orch.state)

    def play(self, hands: int) -> list[dict[str, Any]]:
        """Play until ``hands`` hands have finished in all; return every record so far."""
        self.pacer.max_hands = hands
        self.orch.nudge()
        for _ in range(100_000):
            self.clock.advance(0.5)
            # a timer that fired at the end of a pump may have posted more (the dealer's cards)
            if self.orch.pump() == 0 and not self.orch.timers.running and self.orch.inbox.empty():
                break
        assert self.orch.hands_finished >= hands, "the table stopped before the hands were played"
        assert not self.problems, self.problems[:3]
        return self.ports.records

    def play_until(self, cond: Callable[[Orchestrator], bool]) -> None:
        """Handle one input at a time, the clock moving 0.5 s per input (so action timers of
        players nobody acts for run out, A-2), until ``cond(orch)`` holds."""
        self.pacer.max_hands = None
        self.orch.nudge()
        for _ in range(100_000):
            if cond(self.orch):
                return
            self.clock.advance(0.5)
            if self.orch.pump(limit=1) == 0 and not self.orch.timers.running:
                break
        assert cond(self.orch), "the condition was never met"

    def close(self) -> None:
        self.journal.close()
