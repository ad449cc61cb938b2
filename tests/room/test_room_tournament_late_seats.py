"""The room keeps seats for late entries (issue 19, TDA 9): while late registration is open no
table is broken if the tables left would keep fewer free seats than ``late_registration_free_seats``
(default: one table's seats); balancing goes on (TDA 11); once registration closes the tables
that can break do, in the set order (TDA 10). Played with the harness of
test_room_tournament_register.py (three tables of eight, late registration until the end of
level 2: levels of 60 tournament seconds, a break of 60 after level 2)."""

from __future__ import annotations

from typing import Any

import pytest

from controller.tournament.errors import TournamentError

from room.tournament import StoreJournal
from room.store import open_store
from tests.room.test_room_tournament_register import LATE_TOML, TABLES, Room, seated

CLOSED = 190.0  # level 3: late registration closed at the end of level 2


def play_down(r: Room, left: int) -> None:
    """Play hands at every table the room dealt, a player busting at each table of 3 or more
    players, until ``left`` players are in."""
    for _ in range(200):
        if len(r.d.standings.alive) <= left:
            return
        out = len(r.d.standings.alive)
        for t in TABLES:
            ft = r.tables[t]
            if ft.go is None:
                continue
            if out > left and len(ft.seats) >= 3:
                seat = max(ft.seats)
                player, stack = ft.seats[seat]
                ft.play({player: stack})
                out -= 1
            else:
                ft.play()
        r.exchange(*TABLES)
    raise AssertionError(f"{len(r.d.standings.alive)} players left, wanted {left}")


def hands(r: Room, n: int) -> None:
    """Play ``n`` rounds of hands at every table dealt, nobody busting."""
    for _ in range(n):
        for t in TABLES:
            if r.tables[t].go is not None:
                r.tables[t].play()
        r.exchange(*TABLES)


def conserved(r: Room) -> None:
    """Every player the room holds sits at one table, once; the tables' chips are the
    standings' chips in play; the room's own check found nothing."""
    at = [v[0] for ft in r.tables.values() for v in ft.seats.values()]
    assert len(at) == len(set(at)) and set(at) == set(r.d.standings.alive)
    chips = sum(v[1] for ft in r.tables.values() for v in ft.seats.values())
    assert chips == r.d.standings.chips_in_play()
    r.d.check()
    assert not r.d.problems, r.d.problems


def broken(r: Room) -> list[str]:
    return [p["table"] for k, p in r.journal.events() if k == "broken"]


def test_tda_9_no_table_broken_while_late_registration_would_leave_no_seat() -> None:
    r = Room(21)
    r.exchange(*TABLES)
    play_down(r, 12)  # 12 fit at two tables of 8 (TDA 10), but only 4 seats would stay free (reserve: 8)
    hands(r, 3)
    assert r.d.clock.status(r.time[0]).level.number == 1 and r.d.late_reserve() == 8
    assert broken(r) == [] and not [m for m in r.d.moves.values() if m["reason"].startswith("break")]
    assert all(len(r.tables[t].seats) >= 2 for t in TABLES) and sorted(len(ft.seats) for ft in r.tables.values()) == [
        4, 4, 4]  # balancing goes on (TDA 11)
    conserved(r)
    # the late entry finds a seat at a table that plays on
    said = r.d.register("Lena", by="Anna")
    hands(r, 1)
    assert seated(r)[said.split("(")[1].split(")")[0]] in TABLES and broken(r) == []
    conserved(r)


def test_tda_10_the_break_is_carried_out_after_registration_closes_in_the_set_order() -> None:
    r = Room(21)
    r.exchange(*TABLES)
    play_down(r, 8)  # 8 players: breaking t3 leaves 8 free (the reserve): it breaks; t2 would leave none
    hands(r, 4)
    assert broken(r) == ["t3"] and len(r.d.standings.alive) == 8
    assert sorted(len(r.tables[t].seats) for t in ("t1", "t2")) == [4, 4] and not r.tables["t3"].seats
    conserved(r)
    r.time[0] = 70.0  # level 2: still open, t2 still kept
    hands(r, 2)
    assert broken(r) == ["t3"] and r.d.late_reserve() == 8
    r.time[0] = CLOSED  # level 3: registration closed, the reserve is 0: t2 breaks next (the set order)
    assert r.d.late_reserve() == 0
    hands(r, 4)
    assert broken(r) == ["t3", "t2"]
    assert len(r.tables["t1"].seats) == 8 and not r.tables["t2"].seats  # the final table, redrawn
    assert any("redraw" in m["reason"] for m in r.d.moves.values())
    conserved(r)


def test_a_reserve_of_0_breaks_as_soon_as_the_players_fit() -> None:
    r = Room(21, toml=LATE_TOML.replace("seats_per_table = 8", "seats_per_table = 8\nlate_registration_free_seats = 0"))
    r.exchange(*TABLES)
    play_down(r, 12)
    hands(r, 3)
    assert r.d.late_reserve() == 0 and broken(r) == ["t3"]
    conserved(r)


def test_a_room_restarted_during_late_registration_plans_as_before_and_breaks_once_it_closes(
        store_url: str) -> None:
    store = open_store(store_url)  # SQLite and PostgreSQL (tests/room/conftest.py)
    try:
        r = Room(21, journal=StoreJournal(store))
        r.exchange(*TABLES)
        play_down(r, 12)
        hands(r, 2)
        r.d = r.director()  # killed (-9): a new director replays the store, the tables report again
        assert r.d.restore() and r.d.late_reserve() == 8
        hands(r, 3)
        assert broken(r) == [] and not [m for m in r.d.moves.values() if m["reason"].startswith("break")]
        conserved(r)
        at_t3 = len(r.tables["t3"].seats)
        r.time[0] = CLOSED
        hands(r, 3)
        r.d = r.director()  # and again, after t3 broke: nobody is seated twice, no break planned again
        assert r.d.restore()
        hands(r, 3)
        assert broken(r) == ["t3"] and sorted(len(r.tables[t].seats) for t in ("t1", "t2")) == [6, 6]
        rounds: list[dict[str, Any]] = [p for k, p in StoreJournal(store).events() if k == "round"]
        assert sum(1 for p in rounds for m in p["moves"] if m["reason"].startswith("break")) == at_t3 == 4
        conserved(r)
    finally:
        store.close()


def test_tda_9_a_late_entry_that_finds_every_seat_taken_is_refused_with_the_reason() -> None:
    # a reserve of 0: t3 breaks as soon as 16 fit at t1 and t2, leaving no seat for a late entry
    r = Room(21, toml=LATE_TOML.replace("seats_per_table = 8", "seats_per_table = 8\nlate_registration_free_seats = 0"))
    r.exchange(*TABLES)
    play_down(r, 16)
    hands(r, 3)
    assert broken(r) == ["t3"] and [len(r.tables[t].seats) for t in ("t1", "t2")] == [8, 8]
    # t3's process no longer reports, so it cannot be reopened (test_room_tournament_reopen.py: it can)
    r.d.heard["t3"] -= 60
    rows, entries = len(r.journal.rows), len(r.d.standings.entries)
    with pytest.raises(TournamentError) as info:
        r.d.register("Nora", by="Anna")
    assert str(info.value) == (
        "F-3: no seat is free at the tables that play on: every seat is taken (late_registration_free_seats = 0: "
        "the seats kept for late entries are filled, none were kept); no broken table can be reopened (none was "
        "broken, or none reported ended and empty in the last 5 s: its table process is not running): register "
        "again after a bust frees a seat")
    assert (len(r.journal.rows), len(r.d.standings.entries)) == (rows, entries)  # nothing journalled
    conserved(r)


def test_a_room_killed_after_the_closing_break_is_journalled_before_the_tables_report_seats_nobody_twice(
        store_url: str) -> None:
    store = open_store(store_url)
    try:
        r = Room(21, journal=StoreJournal(store))
        r.exchange(*TABLES)
        play_down(r, 12)
        hands(r, 2)
        at_t3 = sorted(v[0] for v in r.tables["t3"].seats.values())
        assert broken(r) == [] and len(at_t3) == 4
        r.time[0] = CLOSED
        for t in TABLES:  # every table finishes its hand and reports; the room plans the break
            if r.tables[t].go is not None:
                r.tables[t].play()
            r.d.report(t, r.tables[t].report())
        n = len(r.sent)
        r.d.step()
        outs = [o for o in r.sent[n:] if o["out"]]
        assert [o["table"] for o in outs] == ["t3"] and sorted(m["player"] for m in outs[0]["out"]) == at_t3
        for o in r.sent[n:]:  # the tables carry out the orders; the room dies (-9) before their reports
            r.tables[o["table"]].carry_out(o)
        r.d = r.director()
        assert r.d.restore()
        hands(r, 4)
        assert broken(r) == ["t3"] and not r.tables["t3"].seats
        at = [v[0] for t in ("t1", "t2") for v in r.tables[t].seats.values()]
        assert sorted(at) == sorted(r.d.standings.alive) and len(at) == len(set(at)) == 12
        rounds = [p for k, p in StoreJournal(store).events() if k == "round"]
        assert sorted(m["player"] for p in rounds for m in p["moves"] if m["reason"].startswith("break")) == at_t3
        conserved(r)
    finally:
        store.close()
