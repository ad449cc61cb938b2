"""The room's planner (room/tournament.py ``RoomTournament._plan`` and the ``go`` in ``step``)
with some tables in a hand and some waiting, without processes (the fake tables of
tests/room/test_room_tournament_director.py). Every round the room journals is read against
tests/room/test_room_tournament.py's own reading of the rules (``check_rounds``: TDA 10
tables break in the set order, the spread of table sizes never grows, TDA 11A/11C).

A table "in a hand" is one whose last report the room took says it does not wait (it was
given ``go`` and has not reported the hand's end). Four tables of eight seats, 32 entries;
the break order is t4, t3, t2, t1 (t1 is the final table).
"""

from __future__ import annotations

import json
from typing import Any

from room.tournament import RoomTournament
from tests.room.test_room_tournament import check_rounds
from tests.room.test_room_tournament_breaks import bust, four_tables
from tests.room.test_room_tournament_director import FakeTable, Journal, exchange

TABLES = ["t1", "t2", "t3", "t4"]


def dealt() -> tuple[RoomTournament, dict[str, FakeTable], list[dict[str, Any]], Journal]:
    """Four tables of 8, each dealt its first hand (the room's ``go``)."""
    d, tables, sent, journal = four_tables()
    exchange(d, tables, sent, *TABLES)
    assert all(len(t.seats) == 8 and t.go for t in tables.values())
    return d, tables, sent, journal


def play(table: FakeTable, busts: int) -> None:
    """Play the table's hand: ``busts`` players (the last seats) lose everything."""
    if busts:
        bust(table, busts)
    else:
        table.play()


def tell_in_hand(d: RoomTournament, table: FakeTable) -> None:
    """Report ``table`` as the room sees a table that has started its next hand (not waiting)."""
    rep = json.loads(table.report())
    rep["waiting"] = False
    d.report(table.table, json.dumps(rep).encode())
    d.step()


def rounds(journal: Journal) -> list[dict[str, Any]]:
    """The rounds of moves journalled after the draw."""
    return [p for k, p in journal.rows if k == "round" and p["tables"]]


def breaking(journal: Journal) -> list[list[str]]:
    """For every round after the draw, the tables it breaks (TDA 10), in the order they break."""
    return [list(dict.fromkeys(m["from"] for m in p["moves"] if m["reason"].startswith("break")))
            for p in rounds(journal)]


def test_tda_10_two_tables_one_plan_breaks_wait_for_each_other_and_break_in_the_set_order() -> None:
    """t3 waits, t4 (to break first) is in a hand: t3 must not break before t4. Both are held
    (no ``go``) and break in one round, t4 then t3, once t4 waits too."""
    d, tables, sent, journal = dealt()
    t1, t2, t3, t4 = (tables[t] for t in TABLES)
    for t, n in ((t1, 4), (t2, 4), (t3, 6), (t4, 2)):
        play(t, n)
    exchange(d, tables, sent, "t4")  # 8 / 8 / 8 / 6 as the room sees them: t4 is dealt again
    assert t4.go, "t4, two players short (TDA 11D: fewer than 3), plays on"
    exchange(d, tables, sent, "t1", "t2", "t3")  # 4 / 4 / 2 / 6: 16 players fit at two tables
    check_rounds(journal.rows, TABLES)  # TDA 10: not t3 before t4
    assert breaking(journal) == [], "a table broke while t4, to break first, was in a hand"
    assert t3.go is None, "t3 must break (TDA 10): it is dealt no more"
    assert t1.go and t2.go, "t1 and t2 keep playing while the tables to break wait for each other"
    t4.play()
    exchange(d, tables, sent, "t4")
    assert t4.go is None
    check_rounds(journal.rows, TABLES)
    assert breaking(journal) == [["t4", "t3"]]
    t1.play()
    t2.play()
    exchange(d, tables, sent, "t1", "t2")
    assert sorted(p["table"] for k, p in journal.rows if k == "broken") == ["t3", "t4"]
    assert len(t1.seats) == len(t2.seats) == 8 and not t3.seats and not t4.seats
    assert not d.problems, d.problems


def test_tda_10_11_a_break_is_not_cut_in_part_so_the_spread_never_grows() -> None:
    """One plan breaks t4 (waiting) and t3 (in a hand, 2 players): t4's players alone, sent to
    the seats the plan gives them after both breaks, would make the tables 8 / 6 / 2 or
    7 / 7 / 2 from 2 / 6 / 2 (the spread grows). t4 is held until t3 waits; then both break."""
    d, tables, sent, journal = dealt()
    t1, t2, t3, t4 = (tables[t] for t in TABLES)
    for t, n in ((t1, 6), (t2, 2), (t3, 6), (t4, 2)):
        play(t, n)
    tell_in_hand(d, t3)  # the room sees t3 with 2 players in its next hand
    exchange(d, tables, sent, "t1", "t2", "t4")  # 2 / 6 / 2 / 6: 16 players fit at two tables
    check_rounds(journal.rows, TABLES)  # the spread never grows
    assert breaking(journal) == [], "t4 broke while t3, breaking in the same plan, was in a hand"
    assert t4.go is None, "t4 must break (TDA 10): it is dealt no more"
    d.report("t3", t3.report())  # t3's hand ends
    exchange(d, tables, sent, "t3")
    check_rounds(journal.rows, TABLES)
    assert breaking(journal) == [["t4", "t3"]]
    assert not d.problems, d.problems


def test_tda_11d_a_table_three_short_gets_no_go_until_balanced() -> None:
    """t4 is 3 players short of the fullest (5 against 8; TDA 11D, full-table play): play
    halts there until a balancing move (TDA 11) brings it within 2; then it is dealt."""
    d, tables, sent, journal = dealt()
    t1, t2, t3, t4 = (tables[t] for t in TABLES)
    for t, n in ((t1, 0), (t2, 0), (t3, 0), (t4, 3)):
        play(t, n)
    exchange(d, tables, sent, "t4")  # 8 / 8 / 8 / 5; t3, the first to balance from, is in a hand
    assert not rounds(journal)
    assert t4.go is None, f"t4, 3 short (TDA 11D), was dealt with {len(t4.seats)} players"
    exchange(d, tables, sent, "t3")  # t3 waits: its next big blind goes to t4 (TDA 11A)
    check_rounds(journal.rows, TABLES)
    assert [[(m["from"], m["to"]) for m in p["moves"]] for p in rounds(journal)] == [[("t3", "t4")]]
    assert len(t4.seats) == 6 and t4.go, "t4, 2 short once the player arrived, is dealt again"
    assert t3.go, "t3 plays on with 7"
    assert not d.problems, d.problems


def test_tda_11d_a_table_two_short_plays_on() -> None:
    """Two short (6 against 8) is no halt (TDA 11D: 3 or more)."""
    d, tables, sent, journal = dealt()
    t4 = tables["t4"]
    for t in ("t1", "t2", "t3"):
        tables[t].play()
    play(t4, 2)
    exchange(d, tables, sent, "t4")
    assert t4.go and len(t4.seats) == 6 and not rounds(journal)


def test_the_final_table_redraw_waits_for_every_table() -> None:
    """A plan that ends in the final table redraw (every table breaks into t1, TDA 10 and the
    redraw) is decided only once every table waits; meanwhile no waiting table is dealt."""
    d, tables, sent, journal = dealt()
    t1, t2, t3, t4 = (tables[t] for t in TABLES)
    for t, n in ((t1, 6), (t2, 6), (t3, 6), (t4, 6)):
        play(t, n)
    tell_in_hand(d, t1)  # the room sees t1 with 2 players in its next hand
    exchange(d, tables, sent, "t2", "t3", "t4")  # 2 / 2 / 2 / 2: one table
    check_rounds(journal.rows, TABLES)
    assert not rounds(journal), "the redraw was decided while t1 was in a hand"
    assert not any(tables[t].go for t in ("t2", "t3", "t4"))
    d.report("t1", t1.report())  # t1's hand ends
    exchange(d, tables, sent, "t1")
    check_rounds(journal.rows, TABLES)
    assert breaking(journal) == [["t4", "t3", "t2"]]
    assert any(m["reason"].endswith("redraw") for m in rounds(journal)[0]["moves"])
    assert len(t1.seats) == 8 and t1.go and not d.problems, d.problems
