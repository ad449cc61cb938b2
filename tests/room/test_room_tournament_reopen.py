"""A late entry who finds every seat taken reopens a broken table (issue 19, TDA 9: a late
entry draws a seat from the seats open to new players; house policy where the TDA is silent:
card rooms open a table when late entries outrun the seats kept for them,
``late_registration_free_seats``). The room reopens the table it broke last whose process
still reports (ended, empty); the table takes the room's ``reopen`` order after its ``end``;
the entry sits there and the next plans balance players into it (TDA 11: the table with the
fewest players gets the moved players). With no such table the entry is refused as before.

Played with the harness of test_room_tournament_register.py (three tables of eight, late
registration until the end of level 2), its tables refusing every order after ``end`` but a
``reopen``, as :class:`controller.tournament_link.RoomTournamentSeat` does
(tests/tournament/test_tournament_link_reopen.py). Chips and players are checked after every
step: every player the room holds is seated once or on his way (an entry in transit), and the
tables' chips plus the chips in transit are the chips in play."""

from __future__ import annotations

import time
from typing import Any

import pytest

from drivers.mqtt.broker import free_port
from room.tournament_sim import ROOM_TOML
from tests.room.test_room_serve_tournament import (  # noqa: F401 - room: that module's fixture
    check_store_holds_every_hand, events, room, serve, start_tables)
from tests.room.test_room_tournament_console import _login, call

from controller.tournament.errors import TournamentError
from room.store import open_store
from room.tournament import StoreJournal
from tests.room.test_room_tournament_director import FakeTable
from tests.room.test_room_tournament_late_seats import broken, hands, play_down
from tests.room.test_room_tournament_register import LATE_TOML, TABLES, Room

NO_RESERVE = LATE_TOML.replace("seats_per_table = 8", "seats_per_table = 8\nlate_registration_free_seats = 0")


class EndedTable(FakeTable):
    """A test table that, once ended, takes no order but a ``reopen`` (as the real table's link)."""

    def carry_out(self, order: dict[str, Any]) -> None:
        if self.ended and not order.get("reopen") and order["id"] > self.applied:
            return  # refused: the table answers with its report only
        super().carry_out(order)


def late_room(toml: str = NO_RESERVE, journal: Any = None) -> Room:
    r = Room(21, journal=journal, toml=toml)
    r.tables = {t: EndedTable(t) for t in TABLES}
    r.exchange(*TABLES)
    return r


def conserved(r: Room) -> None:
    """Each player the room holds is seated at one table, once, or is an entry on his way to
    his seat; the tables' chips and the entries' in transit are the chips in play; the room's
    own check found nothing."""
    at = [v[0] for ft in r.tables.values() for v in ft.seats.values()]
    coming = [m for m in r.d.moves.values() if m["state"] == "planned" and not m["from"]]
    assert len(at) == len(set(at)) and not set(at) & {m["player"] for m in coming}
    assert set(at) | {m["player"] for m in coming} == set(r.d.standings.alive)
    chips = sum(v[1] for ft in r.tables.values() for v in ft.seats.values())
    assert chips + sum(int(m["chips"]) for m in coming) == r.d.standings.chips_in_play()
    r.d.check()
    assert not r.d.problems, r.d.problems


def full_at_two_tables(r: Room) -> None:
    """A reserve of 0: t3 breaks as soon as 16 fit at t1 and t2, every seat there taken."""
    play_down(r, 16)
    hands(r, 3)
    assert broken(r) == ["t3"] and [len(r.tables[t].seats) for t in ("t1", "t2")] == [8, 8]
    assert r.tables["t3"].ended and not r.tables["t3"].seats
    conserved(r)


def test_tda_9_a_late_entry_that_finds_every_seat_taken_reopens_the_broken_table() -> None:
    r = late_room()
    full_at_two_tables(r)
    said = r.d.register("Nora", by="Anna")
    assert " t3 (reopened: every other seat is taken) seat " in said
    reg = [p for k, p in r.journal.events() if k == "register"][-1]
    assert reg["reopen"] == "t3" and reg["move"]["to"] == "t3"
    assert r.d.director_status()["broken_order"] == []  # t3 plays on again
    conserved(r)  # Nora in transit, her starting stack counted
    n = len(r.sent)
    r.exchange(*TABLES)
    to_t3 = [o for o in r.sent[n:] if o["table"] == "t3"]
    assert to_t3[0]["reopen"] is True and not to_t3[0]["end"] and not to_t3[0]["in"]
    assert [m["player"] for o in to_t3 for m in o["in"]][:1] == ["p22"]
    assert not r.tables["t3"].ended and r.tables["t3"].seats and r.d.names["p22"] == "Nora"
    conserved(r)
    for _ in range(6):  # TDA 11: balancing fills the reopened table (the fewest players), a step at a time
        hands(r, 1)
        conserved(r)
    sizes = {t: len(r.tables[t].seats) for t in TABLES}
    assert sorted(sizes.values()) == [5, 6, 6], sizes
    balanced = [m for m in r.d.moves.values() if m["reason"] == "balance"]
    assert balanced and {m["to"] for m in balanced} == {"t3"} and all(m["state"] == "in" for m in balanced)
    assert r.tables["t3"].hands > 0  # dealt again once balanced (TDA 11D: it waited while 3+ short)
    assert broken(r) == ["t3"] and sum(1 for k, p in r.journal.events() if k == "order" and p.get("reopen")) == 1


def test_tda_10_the_last_broken_table_is_reopened_first_and_breaks_again_in_the_set_order() -> None:
    r = late_room()
    play_down(r, 8)
    hands(r, 3)
    assert broken(r) == ["t3", "t2"] and len(r.tables["t1"].seats) == 8  # the final table, redrawn
    conserved(r)
    assert " t2 (reopened" in r.d.register("Nora", by="Anna")
    r.exchange(*TABLES)
    conserved(r)
    assert " t2 seat " in r.d.register("Otto", by="Anna")  # t2 has seats now: no other table reopens
    hands(r, 4)
    conserved(r)
    assert sorted(len(r.tables[t].seats) for t in ("t1", "t2")) == [5, 5] and not r.tables["t3"].seats
    # two busts: 8 fit at one table again; registration still open, the reserve 0: t2 breaks (TDA 10)
    play_down(r, 8)
    hands(r, 3)
    assert broken(r) == ["t3", "t2", "t2"] and len(r.tables["t1"].seats) == 8 and r.tables["t2"].ended
    conserved(r)


def test_a_late_entry_is_refused_as_before_when_no_broken_table_still_reports() -> None:
    r = late_room()
    full_at_two_tables(r)
    r.d.heard["t3"] -= 60  # t3's process stopped reporting a minute ago
    rows, entries = len(r.journal.rows), len(r.d.standings.entries)
    with pytest.raises(TournamentError) as info:
        r.d.register("Nora", by="Anna")
    assert str(info.value) == (
        "F-3: no seat is free at the tables that play on: every seat is taken (late_registration_free_seats = 0: "
        "the seats kept for late entries are filled, none were kept); no broken table can be reopened (none was "
        "broken, or none reported ended and empty in the last 5 s: its table process is not running): register "
        "again after a bust frees a seat")
    assert (len(r.journal.rows), len(r.d.standings.entries)) == (rows, entries)  # nothing journalled
    r.exchange(*TABLES)  # it reports again: the next entry reopens it
    assert " t3 (reopened" in r.d.register("Nora", by="Anna")
    conserved(r)
    full = Room(24)  # every seat of three tables, none broken: refused
    full.exchange(*TABLES)
    with pytest.raises(TournamentError, match="no broken table can be reopened"):
        full.d.register("Hank", by="Anna")


@pytest.mark.parametrize("sent", [False, True])
def test_a_room_killed_between_journalling_the_reopen_and_the_tables_report_seats_her_once(
        store_url: str, sent: bool) -> None:
    """The room is killed (-9) after the ``register`` with ``reopen`` is journalled: before its
    ``reopen`` order was sent, or after the table carried it out but before the room took the
    report. The restored room sends the reopen (or hears it done) and seats the entry once."""
    store = open_store(store_url)  # SQLite and PostgreSQL (tests/room/conftest.py)
    try:
        r = late_room(journal=StoreJournal(store))
        full_at_two_tables(r)
        r.d.register("Nora", by="Anna")
        if sent:
            n = len(r.sent)
            r.d.step()
            order = next(o for o in r.sent[n:] if o["table"] == "t3")
            assert order["reopen"]
            r.tables["t3"].carry_out(order)  # carried out; its report lost with the room
        r.d = r.director()
        assert r.d.restore() and r.d.director_status()["broken_order"] == []
        conserved(r)
        hands(r, 6)
        conserved(r)
        reopens = [p for k, p in StoreJournal(store).events() if k == "order" and p.get("reopen")]
        assert len(reopens) == 1 and reopens[0]["table"] == "t3"
        assert sum(1 for ft in r.tables.values() for v in ft.seats.values() if v[0] == "p22") == 1
        assert sorted(len(ft.seats) for ft in r.tables.values()) == [5, 6, 6]
    finally:
        store.close()


def test_a_second_late_entry_before_the_reopen_is_sent_sits_at_the_reopened_table() -> None:
    r = late_room()
    full_at_two_tables(r)
    assert " t3 (reopened" in r.d.register("Nora", by="Anna")
    said = r.d.register("Otto", by="Anna")  # the room has not stepped: t3's last order is still its end
    assert " t3 seat " in said and "reopened" not in said
    seats = [m["to_seat"] for m in r.d.moves.values() if m["reason"] == "late"]
    assert len(seats) == len(set(seats)) == 2
    conserved(r)
    hands(r, 6)
    conserved(r)
    assert sorted(len(ft.seats) for ft in r.tables.values()) == [6, 6, 6]
    assert sum(1 for k, p in r.journal.events() if k == "order" and p.get("reopen")) == 1


def test_room_serve_reopens_a_real_broken_table_for_a_late_entry_and_plays_to_a_winner(
        room: dict[str, Any]) -> None:  # noqa: F811 - the fixture of test_room_serve_tournament
    """``livetable room serve --tournament`` with two real table processes (10 entries, 30x
    clock, late registration until level 6, no seats kept): once t2 has broken (TDA 10), the
    floor console registers late entries until one finds every seat of t1 taken; t2's
    process, ended but still reporting, takes the ``reopen`` and seats him; the tournament
    plays to a winner with the books balanced (``ok``), every entry placed once."""
    room["conf"].write_text(ROOM_TOML.replace(
        "late_registration_until_level = 0", "late_registration_until_level = 6\nlate_registration_free_seats = 0"))
    s = serve(room, free_port())
    url = s.line("serving", 30)["console"]
    start_tables(room)
    c = {"url": url, "opener": _login(url, room["floor_password"])}
    deadline = time.monotonic() + 60
    while call(c)[1].get("broken_order") != ["t2"]:
        assert time.monotonic() < deadline, call(c)
        time.sleep(0.05)  # polling a real process's status (no clock to inject across processes)
    said: list[str] = []
    # register until t1 is full: its hands go on meanwhile, and on a loaded machine busts free
    # seats between two registrations (twelve were not always enough), so by a deadline
    deadline = time.monotonic() + 60
    while not said or "reopened" not in said[-1]:
        assert time.monotonic() < deadline, said
        code, ans = call(c, {"command": "register", "name": f"Late {len(said) + 1}", "by": "Anna"})
        assert code == 200, ans
        said.append(ans["detail"])
    assert " t2 (reopened: every other seat is taken) seat " in said[-1], said
    result = s.line("tournament", 120)["tournament"]
    assert result["ok"], result
    assert result["entries"] == 10 + len(said) and len(result["places"]) == len(set(result["places"]))
    store = events(room["store"])
    reopens = [p for k, p in store if k == "register" and p.get("reopen")]
    assert [p["reopen"] for p in reopens] == ["t2"]
    assert sum(1 for k, p in store if k == "order" and p.get("reopen")) == 1
    moved_in = [p["move"] for k, p in store if k == "moved-in"]
    assert moved_in.count(reopens[0]["move"]["id"]) == 1  # seated once, by t2's report
    check_store_holds_every_hand(room)
    assert s.stop() == 0
