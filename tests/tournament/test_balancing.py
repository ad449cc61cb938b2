"""Seating draws, balancing, breaking tables and the final-table redraw (TDA 7, 10, 11)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings as hsettings
from hypothesis import strategies as st

from controller.tournament.balancing import (
    Table,
    balance,
    break_table,
    next_big_blind,
    random_draw,
    rebalance,
    short_tables,
    tables_needed,
    worst_empty_seats,
)
from controller.tournament.errors import BalancingError


def _table(tid, occupied, seats=9, last_bb=None):
    """A table with players named ``<tid><seat>`` in the ``occupied`` seats."""
    return Table(tid, tuple(f"{tid}{s}" if s in occupied else None for s in range(1, seats + 1)), last_bb)


def test_tda_rule_11a_the_player_to_be_big_blind_next_moves_to_the_worst_position():
    a = _table("A", range(1, 10), last_bb=3)  # 9 players; seat 4 is the big blind next
    b = _table("B", {1, 3, 4, 5, 7}, last_bb=5)  # 5 players; empty 2, 6, 8, 9
    assert next_big_blind(a) == 4
    # seat 6 lies between the last big blind (5) and the next one (7): the single big blind
    assert worst_empty_seats(b) == [6, 8, 9, 2]
    moves, (a2, b2) = balance([a, b], order=["A", "B"])
    assert [(m.player, m.from_seat, m.to_table, m.to_seat) for m in moves] == [
        ("A4", 4, "B", 6),  # takes the single big blind at once
        ("A5", 5, "B", 8),  # then A's next big blind, to the next worst seat
    ]
    assert (a2.count, b2.count) == (7, 7)
    assert next_big_blind(b2) == 6  # the moved player is the big blind in B's next hand


def test_tda_rule_11a_worst_position_is_never_the_small_blind():
    # B's last big blind (seat 5) busted: seat 5 is the dead small blind's seat next hand
    b = _table("B", {1, 2, 3, 4, 6, 7}, last_bb=5)
    assert worst_empty_seats(b) == [8, 9, 5]
    a = _table("A", range(1, 10), last_bb=9)
    moves, _ = balance([a, b], order=["A", "B"])
    assert [(m.player, m.to_seat) for m in moves] == [("A1", 8)]


def test_tda_rule_11c_the_table_a_player_moves_from_is_set_in_advance():
    a = _table("A", range(1, 10), last_bb=1)
    b = _table("B", range(1, 10), last_bb=1)
    c = _table("C", {1, 2, 3, 4, 5, 6, 7}, last_bb=1)
    d = _table("D", {1, 2, 3, 4, 5, 6, 7}, last_bb=1)
    # break order D, C, B, A: take from the fullest that breaks first (B), give to the
    # shortest that breaks last (C); then 9, 8, 8, 7: from A (the only 9) to D (the only 7)
    moves, after = balance([a, b, c, d], order=["D", "C", "B", "A"])
    assert [(m.from_table, m.to_table) for m in moves] == [("B", "C"), ("A", "D")]
    assert [t.count for t in after] == [8, 8, 8, 8]


def test_tda_rule_11d_tables_three_short_halt_until_balanced():
    tables = [_table("A", range(1, 10)), _table("B", range(1, 9)), _table("C", range(1, 7))]
    assert short_tables(tables) == ["C"]
    _, after = balance(tables, ["A", "B", "C"])
    assert short_tables(after) == []


def test_tda_rule_10_breaking_a_table_draws_its_players_at_random_keeping_sizes_even():
    tables = [_table("A", range(1, 8)), _table("B", range(1, 8)), _table("C", {1, 2, 3, 4})]
    moves, after = break_table(tables, "C", random.Random(7))
    assert sorted(m.player for m in moves) == ["C1", "C2", "C3", "C4"]
    assert all(m.reason == "break" and m.from_table == "C" for m in moves)
    assert sorted(t.count for t in after) == [9, 9]
    # the draw is random: another seed seats them otherwise, the same seed the same way
    again, _ = break_table(tables, "C", random.Random(7))
    assert again == moves
    seatings = {tuple((m.player, m.to_table, m.to_seat) for m in break_table(tables, "C", random.Random(s))[0])
                for s in range(20)}
    assert len(seatings) > 1


def test_tda_rule_10_tables_break_in_the_set_order():
    tables = [_table("T1", range(1, 8)), _table("T2", range(1, 7)), _table("T3", range(1, 8)),
              _table("T4", range(1, 8))]  # 27 players fit at 3 tables of 9
    moves, after = rebalance(tables, break_order=["T3", "T1", "T4", "T2"], seats_per_table=9,
                             rng=random.Random(1))
    assert [t.table_id for t in after] == ["T1", "T2", "T4"]
    assert {m.from_table for m in moves} == {"T3"}


def test_final_table_redraw_seats_everyone_again_at_the_table_that_never_breaks():
    tables = [_table("T1", {1, 4, 7}), _table("T2", {2, 3, 5, 8, 9}, last_bb=3)]
    moves, after = rebalance(tables, break_order=["T1", "T2"], seats_per_table=9, rng=random.Random(3))
    (final,) = after
    assert final.table_id == "T2" and final.count == 8 and final.last_big_blind is None
    redraw = [m for m in moves if m.reason == "redraw"]
    assert sorted(m.player for m in redraw) == sorted(final.players)


def test_tda_rule_7_random_draw_is_balanced_and_random():
    players = [f"p{i}" for i in range(23)]
    tables = random_draw(players, ["A", "B", "C"], 9, random.Random(5))
    assert sorted(t.count for t in tables) == [7, 8, 8]
    assert sorted(p for t in tables for p in t.players) == sorted(players)
    other = random_draw(players, ["A", "B", "C"], 9, random.Random(6))
    assert [t.seats for t in other] != [t.seats for t in tables]
    with pytest.raises(BalancingError, match="28 players for 3 tables of 9"):
        random_draw([f"p{i}" for i in range(28)], ["A", "B", "C"], 9, random.Random(0))


def test_a_player_seated_twice_is_refused():
    with pytest.raises(BalancingError, match="seated at two tables"):
        balance([_table("A", {1}), Table("B", ("A1", None))], ["A", "B"])


@st.composite
def _room(draw):
    seats = draw(st.integers(6, 10))
    n_tables = draw(st.integers(1, 6))
    tables, k = [], 0
    for t in range(n_tables):
        occupied = draw(st.sets(st.integers(1, seats), min_size=1 if t == 0 else 0))
        names = {s: f"p{k + i}" for i, s in enumerate(sorted(occupied))}
        k += len(occupied)
        last_bb = draw(st.one_of(st.none(), st.integers(1, seats)))
        tables.append(Table(f"T{t}", tuple(names.get(s) for s in range(1, seats + 1)), last_bb))
    order = draw(st.permutations([t.table_id for t in tables]))
    return tables, list(order), seats


@hsettings(max_examples=300, deadline=None)
@given(room=_room(), seed=st.integers(0, 2**32 - 1))
def test_after_rebalancing_sizes_differ_by_at_most_one_and_no_player_is_lost_or_duplicated(room, seed):
    tables, order, seats = room
    before = Counter(p for t in tables for p in t.players)
    moves, after = rebalance(tables, order, seats, random.Random(seed))
    after_players = Counter(p for t in after for p in t.players)
    assert after_players == before and all(c == 1 for c in after_players.values())
    counts = [t.count for t in after]
    assert max(counts) - min(counts) <= 1
    assert len(after) == tables_needed(sum(before.values()), seats)
    # every player ends where his last move put him; who did not move did not change seat
    where = {p: (t.table_id, s + 1) for t in tables for s, p in enumerate(t.seats) if p}
    for m in moves:
        assert where[m.player] == (m.from_table, m.from_seat)
        where[m.player] = (m.to_table, m.to_seat)
    assert where == {p: (t.table_id, s + 1) for t in after for s, p in enumerate(t.seats) if p}


@hsettings(max_examples=200, deadline=None)
@given(room=_room())
def test_tda_rule_11_balancing_moves_only_the_next_big_blind_to_the_worst_seat(room):
    tables, order, _ = room
    state = {t.table_id: t for t in tables}
    moves, _ = balance(tables, order)
    for m in moves:
        src, dst = state[m.from_table], state[m.to_table]
        assert m.from_seat == next_big_blind(src)
        assert m.to_seat == worst_empty_seats(dst)[0]
        assert src.count - dst.count >= 2
        state[m.from_table] = src.with_seat(m.from_seat, None)
        state[m.to_table] = dst.with_seat(m.to_seat, m.player)


def test_balancing_stops_when_the_shortest_table_is_a_full_smaller_table():
    small = Table("S", ("a", "b", "c"))  # a full three-seat table
    big = _table("B", range(1, 10), last_bb=1)
    moves, after = balance([small, big], ["S", "B"])
    assert moves == [] and [t.count for t in after] == [3, 9]
