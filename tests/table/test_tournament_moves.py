"""A player moved to another table of the room's tournament (issue 19, TDA 10, 11):
``StoodUp(moved=True)`` at a tournament table, between hands only; the stack leaves with
the player (the ledger's cash-out) and arrives at the other table as its ``BoughtIn``.
Every event goes through :class:`tests.table.harness.Bench` (chips audited after each)."""

from __future__ import annotations

from controller.engine.table import effects as fx
from controller.engine.table import events as ev
from controller.engine.table.codec import from_json, to_json
from controller.engine.table.settings import TableSettings

from .test_tournament_table import seated


def test_tda_11_a_moved_player_leaves_a_tournament_table_with_his_stack_between_hands() -> None:
    b = seated({1: 5000, 2: 3000, 3: 4000})
    out = b.do(ev.StoodUp, seat=2, moved=True)
    assert not [e for e in out if isinstance(e, fx.Refuse)]
    assert [e.amount for e in out if isinstance(e, fx.PayOut)] == [3000]
    assert [e.reason for e in out if isinstance(e, fx.SeatFreed)] == ["moved"]
    assert b.state.seat(2) is None
    assert b.state.ledger.total_in == 12000 and b.state.ledger.total_out == 3000
    # the other table: the same chips come in as a BoughtIn of any size (no cash buy-in range)
    other = seated({4: 2500})
    other.do(ev.PlayerSatDown, seat=1, player="p2")
    other.do(ev.BoughtIn, seat=1, amount=3000)
    assert other.state.seat(1).stack == 3000


def test_tda_11_a_player_is_moved_only_between_hands_and_only_at_a_tournament_table() -> None:
    b = seated({1: 5000, 2: 3000})
    b.do(ev.HandStartRequested, button=1)
    out = b.do(ev.StoodUp, seat=2, moved=True)
    assert [e.rule for e in out if isinstance(e, fx.Refuse)] == ["T-8"]
    assert b.state.seat(2) is not None and not b.state.seat(2).leaving
    cash = seated({1: 5000, 2: 3000}, TableSettings(seats=6, small_blind=100, big_blind=200))
    out = cash.do(ev.StoodUp, seat=2, moved=True)
    assert [e.rule for e in out if isinstance(e, fx.Refuse)] == ["T-8"]
    assert cash.state.seat(2) is not None


def test_a_move_round_trips_through_the_journal_codec() -> None:
    e = ev.StoodUp(at=1.0, seat=3, moved=True)
    assert from_json(to_json(e)) == e
    assert from_json({k: v for k, v in to_json(e).items() if k != "moved"}).moved is False
