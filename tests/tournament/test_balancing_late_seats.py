"""Breaking tables during late registration: :func:`rebalance`'s ``reserve`` keeps seats for
late entries (TDA 9); tables still break in the set order (TDA 10) and balancing goes on (TDA 11)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings as hsettings
from hypothesis import strategies as st

from controller.tournament.balancing import Table, free_seats_after_break, rebalance, tables_needed
from controller.tournament.errors import BalancingError

from .test_balancing import _room, _table


def test_tda_9_no_table_broken_while_late_registration_would_leave_too_few_seats() -> None:
    # 12 players at three tables of 8: they fit at two (TDA 10), leaving 4 seats free
    tables = [_table("T1", range(1, 5), seats=8), _table("T2", range(1, 5), seats=8),
              _table("T3", range(1, 5), seats=8)]
    assert free_seats_after_break(tables, "T3") == 4
    moves, after = rebalance(tables, ["T3", "T2", "T1"], 8, random.Random(1), reserve=8)
    assert (moves, after) == ([], tables)  # the default reserve (one table's seats): nothing breaks
    moves, after = rebalance(tables, ["T3", "T2", "T1"], 8, random.Random(1), reserve=5)
    assert moves == [] and [t.table_id for t in after] == ["T1", "T2", "T3"]
    # the reserve met exactly, or none (registration closed): T3 breaks, as before
    for reserve in (4, 0):
        moves, after = rebalance(tables, ["T3", "T2", "T1"], 8, random.Random(1), reserve=reserve)
        assert [t.table_id for t in after] == ["T1", "T2"] and {m.from_table for m in moves} == {"T3"}
        assert sum(t.count for t in after) == 12 and sorted(t.count for t in after) == [6, 6]


def test_tda_11_balancing_goes_on_while_the_reserve_keeps_a_table() -> None:
    tables = [_table("T1", range(1, 7), seats=8), _table("T2", range(1, 3), seats=8),
              _table("T3", range(1, 3), seats=8)]  # 6 / 2 / 2: 10 fit at two tables, 6 seats would stay free
    moves, after = rebalance(tables, ["T3", "T2", "T1"], 8, random.Random(2), reserve=8)
    assert [t.table_id for t in after] == ["T1", "T2", "T3"] and all(m.reason == "balance" for m in moves)
    assert sorted(t.count for t in after) == [3, 3, 4] and moves


def test_tda_10_the_reserve_never_makes_a_later_table_break_first() -> None:
    # T3 (first to break) is a table of ten: breaking T1 (a later one) would leave 6 free, T3 only 4
    tables = [_table("T1", {1}, seats=8), _table("T2", range(1, 7), seats=8), _table("T3", range(1, 6), seats=10)]
    assert free_seats_after_break(tables, "T1") == 6 > free_seats_after_break(tables, "T3") == 4
    moves, after = rebalance(tables, ["T3", "T1", "T2"], 8, random.Random(3), reserve=6)
    assert [t.table_id for t in after] == ["T1", "T2", "T3"] and not any(m.reason == "break" for m in moves)


def test_the_reserve_keeps_no_table_that_would_deal_no_hand() -> None:
    # two tables of 8: 2 / 2 (heads-up at each) is kept for late entries; 2 / 1 or 1 / 1 is not
    # (a table of one is dealt no hand): the players meet at the table that breaks last
    order = ["T2", "T1"]
    kept = [_table("T1", {1, 2}, seats=8), _table("T2", {3, 4}, seats=8)]
    assert rebalance(kept, order, 8, random.Random(4), reserve=8) == ([], kept)
    for t1, t2 in (({1, 2}, {3}), ({1}, {5})):
        tables = [_table("T1", t1, seats=8), _table("T2", t2, seats=8)]
        moves, after = rebalance(tables, order, 8, random.Random(4), reserve=8)
        assert [t.table_id for t in after] == ["T1"] and after[0].count == sum(t.count for t in tables)


def test_a_negative_reserve_is_refused() -> None:
    with pytest.raises(BalancingError, match="reserve must be >= 0 seats, got -1"):
        rebalance([_table("T1", {1, 2}), _table("T2", {1, 2})], ["T2", "T1"], 9, random.Random(0), reserve=-1)


@hsettings(max_examples=300, deadline=None)
@given(room=_room(), seed=st.integers(0, 2**32 - 1), reserve=st.integers(0, 25))
def test_with_a_reserve_no_player_is_lost_breaks_keep_the_order_and_leave_the_seats(room, seed, reserve) -> None:
    tables, order, seats = room
    before = Counter(p for t in tables for p in t.players)
    moves, after = rebalance(tables, order, seats, random.Random(seed), reserve=reserve)
    after_players = Counter(p for t in after for p in t.players)
    assert after_players == before and all(c == 1 for c in after_players.values())
    kept = [t.table_id for t in after]
    gone = [t for t in order if t not in kept]
    assert gone == order[:len(gone)]  # TDA 10: the set order, never a later table first
    total = sum(before.values())
    if gone and total >= 2 * (len(after) + 1):  # the last break kept the reserve (two players a table)
        assert sum(len(t.seats) - t.count for t in after) >= reserve
    assert len(after) >= tables_needed(sum(before.values()), seats)
    if reserve == 0:  # registration closed: what rebalance always did
        assert (moves, after) == rebalance(tables, order, seats, random.Random(seed))


def test_free_seats_after_break_counts_the_broken_tables_players() -> None:
    tables = [Table("A", ("a", None, None)), Table("B", ("b", "c", None))]
    assert free_seats_after_break(tables, "B") == 0 and free_seats_after_break(tables, "A") == 0
    assert free_seats_after_break([Table("A", ("a", "x", "y")), Table("B", ("b", "c", None))], "A") == -2
