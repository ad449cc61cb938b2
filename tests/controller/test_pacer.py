"""The hand pacer (controller.runtime.HandPacer): one deck per hand, one start per deck, the
start pending until the table has stepped it, refused it or dropped it while paused (issue 9).

The production orchestrator and journal on a manual clock; the "dealer" is a test double
that records each ``new_deck(hand)`` and is made ready by the test (as the shuffler's
``DeckReady`` would, on the loop thread). No sleeps: the loop is driven with ``pump``.
"""

from __future__ import annotations

from typing import Any

from controller.clock import ManualClock
from controller.engine.table import events as ev
from controller.engine.table.audit import audit
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import TableState
from controller.journal import Journal
from controller.orchestrator import FloorDecision, ManualPause, Orchestrator
from controller.runtime import HandPacer


class Table:
    """An orchestrator on a journal, ``players`` seated, and a pacer with a deck double."""

    def __init__(self, tmp_path: Any, players: int = 3) -> None:
        self.clock = ManualClock()
        self.journal = Journal(tmp_path / "j.sqlite", durable=False)
        settings = TableSettings(id="pace", seats=6, small_blind=50, big_blind=100)
        self.orch = Orchestrator(TableState.new(settings), journal=self.journal, clock=self.clock)
        self.decks: list[int] = []
        self.pacer = HandPacer(self.orch.post, self.clock, new_deck=self.decks.append)
        self.orch.listeners.append(self.pacer)
        for s in range(1, players + 1):
            self.sit(s)
        self.orch.pump()

    def sit(self, seat: int) -> None:
        self.orch.post(ev.PlayerSatDown(at=self.clock(), seat=seat, player=f"p{seat}"))
        self.orch.post(ev.BoughtIn(at=self.clock(), seat=seat, amount=10_000))

    def starts_journalled(self) -> int:
        return sum(1 for e in self.journal.entries(kinds=("table",))
                   if e.payload.get("kind") == "hand-start-requested")

    def idle_turns(self, n: int = 3) -> None:
        """What the loop does when nothing arrives: the clock moves, the pacer is kicked."""
        for _ in range(n):
            self.clock.advance(0.02)
            self.orch.pump()
            self.pacer.kick(self.orch)

    def close(self) -> None:
        assert audit(self.orch.state) == []
        self.journal.close()


def test_one_deck_per_hand_and_one_start_per_deck(tmp_path):
    t = Table(tmp_path)
    assert t.decks == [1] and t.pacer.waiting_deck  # seating the players asked for the first deck
    t.idle_turns()
    assert t.decks == [1], "a second deck was asked for while the first was on its way"
    t.pacer.deck_ready()
    t.pacer.deck_ready()  # a repeated deck-ready for the same deck starts nothing more
    assert t.pacer.start_pending
    t.pacer.kick(t.orch)  # the start is still in the inbox: no new deck
    assert t.decks == [1]
    t.orch.pump()
    assert t.orch.state.hand is not None and not t.pacer.start_pending
    assert t.starts_journalled() == 1
    t.idle_turns()
    assert t.decks == [1] and t.orch.state.hand is not None  # no deck during the hand
    t.close()


def test_pause_while_the_start_is_pending_drops_it_and_resume_asks_again(tmp_path):
    t = Table(tmp_path)
    # The dealer pauses the table; the deck comes ready behind the pause in the inbox.
    t.orch.post(ManualPause("dealer: cards on the floor"))
    t.pacer.deck_ready()
    assert t.pacer.start_pending
    t.orch.pump()
    assert t.orch.faults.paused and t.orch.state.hand is None
    assert not t.pacer.start_pending, "the start dropped while paused stays pending forever"
    assert t.starts_journalled() == 0
    t.idle_turns()
    assert t.decks == [1], "a deck was asked for while the table is paused"
    t.orch.post(FloorDecision("paused", "resume", "dealer"))
    t.idle_turns(1)
    assert t.decks == [1, 1], "after the pause the pacer must ask for the deck of hand 1 again"
    t.pacer.deck_ready()
    t.orch.pump()
    assert t.orch.state.hand is not None and t.orch.state.info.number == 1
    assert t.starts_journalled() == 1
    t.close()


def test_pause_and_resume_both_ahead_of_the_pending_start(tmp_path):
    t = Table(tmp_path)
    t.orch.post(ManualPause())
    t.orch.post(FloorDecision("paused", "resume", "dealer"))
    t.pacer.deck_ready()
    t.pacer.kick(t.orch)  # not yet handled: still pending, no second deck
    assert t.pacer.start_pending and t.decks == [1]
    t.orch.pump()
    assert t.orch.state.hand is not None and not t.orch.faults.paused
    t.idle_turns()
    assert t.decks == [1] and t.starts_journalled() == 1
    t.close()


def test_a_refused_start_waits_until_the_table_changes(tmp_path):
    t = Table(tmp_path, players=1)
    assert t.decks == [1]
    t.pacer.deck_ready()
    t.orch.pump()  # one player: the table refuses the start
    assert t.orch.state.hand is None and not t.pacer.start_pending
    t.idle_turns()
    assert t.decks == [1], "the pacer asked again although nothing changed at the table"
    t.sit(2)
    t.idle_turns(1)
    assert t.decks == [1, 1]
    t.pacer.deck_ready()
    t.orch.pump()
    assert t.orch.state.hand is not None
    t.close()


def test_the_console_start_wins_the_race_and_the_pacers_start_is_refused(tmp_path):
    t = Table(tmp_path)
    t.orch.post(ev.HandStartRequested(at=t.clock()))  # the dealer's start button
    t.pacer.deck_ready()
    t.orch.pump()
    assert t.orch.state.hand is not None and t.orch.state.info.number == 1
    assert not t.pacer.start_pending
    t.idle_turns()
    assert t.decks == [1], "a deck was asked for during the hand"
    t.close()


def test_a_failed_deck_is_asked_again_and_a_late_one_starts_nothing(tmp_path):
    t = Table(tmp_path)
    t.pacer.deck_failed()
    assert not t.pacer.waiting_deck
    t.idle_turns(1)
    assert t.decks == [1, 1]
    t.pacer.deck_failed()
    t.pacer.deck_ready()  # the late deck-ready of the failed shuffle
    assert not t.pacer.start_pending
    t.orch.pump()
    assert t.orch.state.hand is None and t.starts_journalled() == 0
    t.close()


def test_a_start_that_cannot_be_journalled_is_not_left_pending(tmp_path):
    t = Table(tmp_path)
    t.journal._db.execute("CREATE TRIGGER no_writes BEFORE INSERT ON events "  # noqa: SLF001
                          "BEGIN SELECT RAISE(ABORT, 'disk full'); END")
    t.pacer.deck_ready()
    t.orch.pump()
    assert t.orch.faults.paused and t.orch.state.hand is None
    assert not t.pacer.start_pending
    t.journal._db.execute("DROP TRIGGER no_writes")  # noqa: SLF001
    t.orch.post(FloorDecision("journal-error", "resume", "floor: Eva"))
    t.idle_turns(1)
    assert t.decks == [1, 1]
    t.pacer.deck_ready()
    t.orch.pump()
    assert t.orch.state.hand is not None
    t.close()


def test_a_busted_simulated_player_buys_in_once(tmp_path):
    """A re-buy is one ``bought-in`` in the journal: kicks and other steps while the first is
    still in the inbox post no second one (a newcomer found 24 for one re-buy)."""
    t = Table(tmp_path)
    t.pacer.rebuy = {4, 5}
    t.pacer.deck_failed()  # the first deck failed its check: the pacer is idle again
    bought = lambda: [e.payload for e in t.journal.entries(kinds=("table",))  # noqa: E731
                      if e.payload.get("kind") == "bought-in"]
    before = len(bought())
    for seat in (4, 5):  # seated with no chips, as a player who busted
        t.orch.post(ev.PlayerSatDown(at=t.clock(), seat=seat, player=f"p{seat}"))
    t.orch.pump()
    t.pacer.kick(t.orch)
    t.pacer.kick(t.orch)  # the loop's idle turn: the first re-buy is still in the inbox
    t.orch.post(ev.SatOut(at=t.clock(), seat=3))  # another step calls the pacer too
    t.orch.pump()
    t.idle_turns()
    rebuys = bought()[before:]
    assert sorted(p["seat"] for p in rebuys) == [4, 5]
    amount = t.orch.state.settings.buy_in_min or 20 * t.orch.state.settings.big_blind
    assert t.orch.state.seat(4).stack == amount and t.orch.state.seat(5).stack == amount
    t.close()
