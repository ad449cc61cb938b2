"""Late registration and re-entries through the room (issue 19, TDA 9):
:meth:`room.tournament.RoomTournament.register` against tables played by this test (the
harness of test_room_tournament_director.py), its journal replayed after a restart, the
floor console's ``register`` command and ``livetable room director register``, and one
late entry through real processes (``room serve --tournament`` and two table processes)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.tournament.errors import TournamentError
from controller.tournament.settings import load_settings
from room import director_cli
from room.console import serve_console
from room.store import open_store
from room.tournament import RoomTournament, StoreJournal
from room.tournament_desk import TournamentDesk
from room.tournament_sim import ROOM_TOML
from tests.room.test_room_tournament_console import Loop, Service, _login, call
from drivers.mqtt.broker import free_port
from tests.room.test_room_serve_tournament import (  # noqa: F401 - room: that module's fixture
    ENV, REPO, check_store_holds_every_hand, events, room, serve, start_tables)
from tests.room.test_room_tournament_director import FakeTable, Journal, exchange

STACK = 2000  # ROOM_TOML's starting stack; an entry's price is 100
#: ROOM_TOML with late registration until the end of level 2 and one re-entry a player
LATE_TOML = ROOM_TOML.replace("late_registration_until_level = 0",
                              "late_registration_until_level = 2\nreentry = { max = 1 }")
TABLES = ("t1", "t2", "t3")


class Room:
    """A room of three tables played by the test, its clock the test's (tournament seconds)."""

    def __init__(self, entries: int = 21, journal: Any = None, toml: str = LATE_TOML) -> None:
        self.sent: list[dict[str, Any]] = []
        self.journal = journal if journal is not None else Journal()
        self.tables = {t: FakeTable(t) for t in TABLES}
        self.time = [0.0]
        self.toml = toml
        self.d = self.director()
        if entries:
            self.d.start(entries, 7)

    def director(self) -> RoomTournament:
        return RoomTournament(load_settings(self.toml), self.toml, list(TABLES), self.journal,
                              lambda t, p: self.sent.append(json.loads(p)), lambda: self.time[0])

    def exchange(self, *names: str) -> None:
        exchange(self.d, self.tables, self.sent, *names)

    def hand(self, *names: str) -> None:
        """Each of ``names`` plays the hand it has the go for, nobody busts; all report."""
        for t in names:
            if self.tables[t].go is not None:
                self.tables[t].play()
        self.exchange(*names)

    def bust(self, table: str, player: str) -> None:
        """``player`` busts in ``table``'s next hand (the hand the room gave the go for)."""
        t = self.tables[table]
        stack = next(v[1] for v in t.seats.values() if v[0] == player)
        t.play({player: stack})
        self.exchange(table)


def seated(r: Room) -> dict[str, str]:
    return {v[0]: t for t, ft in r.tables.items() for v in ft.seats.values()}


def test_tda9_a_late_entry_gets_a_full_stack_at_the_shortest_table_and_chips_stay_conserved() -> None:
    r = Room(21)
    r.exchange(*TABLES)
    assert sorted(len(t.seats) for t in r.tables.values()) == [7, 7, 7]
    victim = next(iter(r.tables["t2"].seats.values()))[0]
    r.bust("t2", victim)  # t2: 6 players, the others 7 (no balancing: one apart)
    assert [len(r.tables[t].seats) for t in TABLES] == [7, 6, 7] and victim not in r.d.standings.alive
    free = {n for n in range(1, 9)} - set(r.tables["t2"].seats)
    checks = r.d.checks
    said = r.d.register("Ann Smith", by="Anna", reason="arrived late")
    assert said.startswith("Ann Smith (p22) enters at level 1: t2 seat ") and said.endswith("2,000 chips (Anna)")
    # the books at once: one more entry, its price in the pool, its stack in play, in transit
    st = r.d.standings
    assert (len(st.entries), st.prize_pool(), st.chips_in_play()) == (22, 2200, 44000)
    r.d.check()
    assert r.d.checks == checks + 1 and not r.d.problems, r.d.problems
    n = len(r.sent)
    r.exchange("t2")
    assert not [o for o in r.sent[n:] if o["in"]], "seated during a hand"
    r.hand("t2")  # between hands: the order seats him
    orders = [o for o in r.sent[n:] if o["in"]]
    assert [(o["table"], [(m["player"], m["name"], m["chips"]) for m in o["in"]]) for o in orders] == [
        ("t2", [("p22", "Ann Smith", STACK)])]
    seat = orders[0]["in"][0]["seat"]
    assert seat in free and r.tables["t2"].seats[seat] == ["p22", STACK]
    assert [len(r.tables[t].seats) for t in TABLES] == [7, 7, 7]
    assert r.d.moves[max(r.d.moves)]["state"] == "in" and not r.d.problems, r.d.problems
    assert "p22" in r.d.standings.alive and r.d.names["p22"] == "Ann Smith"
    assert r.d.director_status()["entries"] == 22 and r.d.director_status()["prize_pool"] == 2200
    # a second one: every table has 7, one of them gets him; never a seat taken
    r.d.register("Bob", by="Anna")
    r.hand(*TABLES)
    assert sorted(len(t.seats) for t in r.tables.values()) == [7, 7, 8] and "p23" in seated(r)
    assert not r.d.problems


def test_tda9_registration_is_refused_after_the_late_registration_level() -> None:
    r = Room(21)
    r.exchange(*TABLES)
    r.time[0] = 70.0  # level 2: still open
    assert "enters at level 2" in r.d.register("Carl", by="Anna")
    r.time[0] = 190.0  # level 3 (after the break): closed
    rows, entries = len(r.journal.rows), len(r.d.standings.entries)
    with pytest.raises(TournamentError, match="TDA 9: late registration closed at the end of level 2"):
        r.d.register("Dora", by="Anna")
    assert (len(r.journal.rows), len(r.d.standings.entries)) == (rows, entries)
    # a freezeout that takes entries before the start only (ROOM_TOML): refused at level 1
    f = Room(10, toml=ROOM_TOML)
    with pytest.raises(TournamentError, match="entries before the start only"):
        f.d.register("Eve", by="Anna")


@pytest.mark.parametrize("name, words", [("", "name is one line"), ("  ", "name is one line"),
                                         ("Ann\nSmith", "no control characters"), ("A\x1b[2J", "control"),
                                         ("Ann\u2028Smith", "control"), ("Ann\x85", "control"),
                                         ("x" * 41, "1..40 characters")])
def test_a_bad_name_is_refused_and_nothing_is_journalled(name: str, words: str) -> None:
    r = Room(21)
    rows = len(r.journal.rows)
    with pytest.raises(TournamentError, match=words):
        r.d.register(name, by="Anna")
    with pytest.raises(TournamentError, match="player id"):
        r.d.register("Fine Name", by="Anna", player="Not An Id")
    assert len(r.journal.rows) == rows and len(r.d.standings.entries) == 21


def test_tda9_a_re_entry_only_after_the_bust_and_within_reentry_max() -> None:
    r = Room(21)
    r.exchange(*TABLES)
    player = next(iter(r.tables["t1"].seats.values()))[0]
    name = r.d.names[player]
    with pytest.raises(TournamentError, match=f"{name} is still in the tournament"):
        r.d.register(name, by="Anna")
    with pytest.raises(TournamentError, match="still in the tournament"):
        r.d.register("Somebody", by="Anna", player=player)  # by his id, under a new name: the same player
    other = next(p for p in r.d.names if p != player)
    with pytest.raises(TournamentError, match=f"is the name of player {other}"):
        r.d.register(r.d.names[other].upper(), by="Anna", player=player)  # someone else's name
    r.bust("t1", player)
    said = r.d.register(f"  {name.lower()}. ", by="Anna")  # the name as a table compares it
    assert f"({player}) re-enters at level 1" in said
    st = r.d.standings
    assert st.entries_of(player) == 2 and len(st.entries) == 22 and st.entries[-1].reentry and st.prize_pool() == 2200
    r.hand(*TABLES)
    where = seated(r)
    assert where[player] == "t1" and not r.d.problems, r.d.problems  # t1 was the short one
    r.bust("t1", player)
    assert player not in r.d.standings.alive and not r.d.problems, r.d.problems
    with pytest.raises(TournamentError, match="has used all 1 re-entries"):
        r.d.register(name, by="Anna")
    # a freezeout: no re-entry at all, though late registration is open
    f = Room(21, toml=LATE_TOML.replace("reentry = { max = 1 }", ""))
    f.exchange(*TABLES)
    p = next(iter(f.tables["t3"].seats.values()))[0]
    f.bust("t3", p)
    with pytest.raises(TournamentError, match="out of a freezeout"):
        f.d.register(f.d.names[p], by="Anna")


def test_a_registration_in_the_store_is_replayed_after_a_restart_and_seated_once(store_url: str) -> None:
    store = open_store(store_url)  # SQLite and PostgreSQL (tests/room/conftest.py)
    try:
        r = Room(21, journal=StoreJournal(store))
        r.exchange(*TABLES)
        r.d.register("Gina", by="Anna", reason="late")
        # the room dies before any table hears of it; a new director replays the store
        r.d = r.director()
        assert r.d.restore()
        st = r.d.standings
        assert (len(st.entries), st.prize_pool(), r.d.names["p22"]) == (22, 2200, "Gina")
        move = r.d.moves[max(r.d.moves)]
        assert (move["player"], move["state"], move["chips"], move["reason"]) == ("p22", "planned", STACK, "late")
        n = len(r.sent)
        r.hand(*TABLES)
        ins = [m for o in r.sent[n:] for m in o["in"]]
        assert [(m["player"], m["chips"]) for m in ins] == [("p22", STACK)]
        assert seated(r)["p22"] == move["to"] and not r.d.problems, r.d.problems
        # killed again after the seat: the entry is seated, counted once, never sent again
        r.d = r.director()
        assert r.d.restore()
        n = len(r.sent)
        r.hand(*TABLES)
        assert not [m for o in r.sent[n:] for m in o["in"]] and len(r.d.standings.entries) == 22
        assert r.d.moves[max(r.d.moves)]["state"] == "in" and not r.d.problems, r.d.problems
        kinds = [k for k, _ in StoreJournal(store).events()]
        assert kinds.count("register") == 1
    finally:
        store.close()


def test_a_room_killed_after_the_table_seated_the_entry_but_before_its_report_does_not_seat_him_twice(
        store_url: str) -> None:
    store = open_store(store_url)
    try:
        r = Room(21, journal=StoreJournal(store))
        r.exchange(*TABLES)
        said = r.d.register("Ivy", by="Anna")
        target = said.split(": ")[1].split()[0]
        r.tables[target].play()
        r.d.report(target, r.tables[target].report())
        n = len(r.sent)
        r.d.step()
        order = next(o for o in r.sent[n:] if o["table"] == target and o["in"])
        r.tables[target].carry_out(order)  # seated at the table; the room dies before the report
        r.d = r.director()
        assert r.d.restore() and r.d.moves[max(r.d.moves)]["state"] == "planned"
        n = len(r.sent)
        r.exchange(*TABLES)  # the table's report: he is seated, the move is done
        assert r.d.moves[max(r.d.moves)]["state"] == "in" and not r.d.problems, r.d.problems
        assert not [m for o in r.sent[n:] for m in o["in"]], "sent to a table again"
        assert sum(v[0] == "p22" for ft in r.tables.values() for v in ft.seats.values()) == 1
        assert len(r.d.standings.entries) == 22
        r.d.check()
        assert not r.d.problems, r.d.problems
    finally:
        store.close()


def test_no_free_seat_and_a_tournament_over_are_refused() -> None:
    r = Room(24)  # every seat of three tables of eight
    r.exchange(*TABLES)
    with pytest.raises(TournamentError, match="no seat is free"):
        r.d.register("Hank", by="Anna")
    assert len(r.d.standings.entries) == 24
    # a break being held (TDA 10: its tables wait for each other): the reason says to come back
    h = Room(21)
    h.exchange(*TABLES)
    h.d._held = {"t1", "t2", "t3"}  # the final redraw's hold (test: no table plays on meanwhile)
    with pytest.raises(TournamentError, match="final table redraw is under way"):
        h.d.register("Hank", by="Anna")
    h.d._held = {"t3"}  # one table held: the others take him
    assert " t3 " not in h.d.register("Hank", by="Anna")
    r.d.result = {"places": [], "payouts": [], "prize_pool": 0}
    with pytest.raises(TournamentError, match="the tournament is over"):
        r.d.register("Hank", by="Anna")


# ---------------------------------------------------------------- the floor console and the command line
@pytest.fixture
def console(tmp_path: Path) -> Iterator[dict[str, Any]]:
    store = open_store(tmp_path / "room.sqlite")
    r = Room(21, journal=StoreJournal(store))  # the room's journal: an entry and its floor record, one transaction
    r.time[0] = 20.0
    r.exchange(*TABLES)
    desk = TournamentDesk(r.d)
    served = serve_console(Service(store), tmp_path / "floor-logins.json", tournament=desk)
    loop = Loop(desk)
    password = served.login_hint.split(" / ")[1]
    try:
        yield {"url": served.url, "password": password, "opener": _login(served.url, password), "store": store,
               "room": r}
    finally:
        loop.stop.set()
        loop.thread.join(5)
        served.stop()
        store.close()


def test_the_console_registers_and_refuses_with_the_reason(console: dict[str, Any]) -> None:
    r = console["room"]
    for body, code, words in [
            ({"command": "register"}, 400, "register needs name"),
            ({"command": "register", "name": "  "}, 400, "register needs name"),
            ({"command": "register", "name": "Ann\x07"}, 400, "no control characters"),
            ({"command": "register", "name": "Ann\u2029"}, 400, "no control characters"),
            ({"command": "register", "name": ["Ann"]}, 400, "register needs name"),
            ({"command": "register", "name": "Ann", "player": "P 1"}, 400, "player id"),
            ({"command": "register", "name": "Ann", "by": "x" * 41}, 400, "by names who registers"),
            ({"command": "register", "name": "Player 3"}, 409, "Player 3 is still in the tournament")]:
        got, answer = call(console, body)
        assert got == code and words in answer["error"], (body, got, answer)
    assert len(r.d.standings.entries) == 21
    got, answer = call(console, {"command": "register", "name": "Ann Smith", "by": "Anna", "reason": "at the desk"})
    assert got == 200 and answer["detail"].startswith("Ann Smith (p22) enters at level 1"), answer
    assert answer["status"]["entries"] == 22 and answer["status"]["prize_pool"] == 2200
    rows = console["store"].query("SELECT action, by_name, reason, request, outcome FROM room_floor_actions "
                                  "ORDER BY id")
    assert tuple(rows[-1][:3]) == ("register", "Anna", "at the desk") and len(rows) == 2  # the 409 and this
    last = rows[-1]
    assert json.loads(last[3])["name"] == "Ann Smith" and json.loads(last[4])["accepted"] is True
    refused = [json.loads(o) for a, _, _, _, o in rows if not json.loads(o)["accepted"]]
    assert refused and "still in the tournament" in refused[0]["reason"]
    r.time[0] = 190.0  # level 3: closed
    got, answer = call(console, {"command": "register", "name": "Late Larry"})
    assert got == 409 and "late registration closed at the end of level 2" in answer["error"] and answer["refused"]


def test_the_director_command_line_registers(console: dict[str, Any], capsys: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("LIVETABLE_ROOM_PASSWORD", console["password"])

    def run(*argv: str) -> tuple[int, str, str]:
        code = director_cli.main(["--console", console["url"], *argv])
        out = capsys.readouterr()
        return code, out.out, out.err

    code, out, _ = run("register", "Bob Builder", "--by", "Anna")
    assert code == 0 and out.startswith("done: Bob Builder (p22) enters at level 1: t"), out
    assert "22 entries" in out and "p22" in console["room"].d.standings.alive
    code, out, _ = run("register", "Cleo", "--player", "cleo-7", "--by", "Anna", "--json")
    assert code == 0 and json.loads(out)["detail"].startswith("Cleo (cleo-7) enters")
    code, _, err = run("register", "Bob Builder", "--by", "Anna")
    assert code == 1 and "refused: F-3: Bob Builder is still in the tournament" in err
    for argv, words in [(["register", "--by", "Anna"], "register needs the player's NAME"),
                        (["register", "Dan"], "register needs --by"),
                        (["status", "--player", "p1"], "--player goes with register only")]:
        code, _, err = run(*argv)
        assert code == 2 and words in err, (argv, err)
    assert len(console["room"].d.standings.entries) == 23


# ---------------------------------------------------------------- end to end: real processes
@pytest.mark.timeout(180)
def test_room_serve_takes_a_late_entry_from_the_director_and_a_real_table_seats_him(
        room: dict[str, Any]) -> None:  # noqa: F811 - the fixture of test_room_serve_tournament
    """``livetable room serve --tournament`` with two ``livetable simulate --tournament-room``
    tables (10 entries drawn, 30x clock, late registration until level 4); ``livetable room
    director register`` (a process) registers ``Late Lena`` at level 1 before the tables
    report (they play at full speed: a few seconds later the field would fit one table, TDA 10,
    with no seat left for her); a table seats her from its order, she plays to a place, the
    books balance (``ok``)."""
    room["conf"].write_text(ROOM_TOML.replace("late_registration_until_level = 0", "late_registration_until_level = 4"))
    s = serve(room, free_port())
    url = s.line("serving", 30)["console"]
    env = dict(ENV, LIVETABLE_ROOM_PASSWORD=room["floor_password"])
    out = subprocess.run([sys.executable, "-m", "controller.cli", "room", "director", "register", "Late Lena",
                          "--by", "Anna", "--console", url], capture_output=True, text=True, cwd=REPO, env=env,
                         timeout=30)
    assert out.returncode == 0 and out.stdout.startswith("done: Late Lena (p11) enters at level "), out
    start_tables(room)
    result = s.line("tournament", 90)["tournament"]
    assert result["ok"], result
    assert sorted(result["places"]) == sorted(f"p{n}" for n in range(1, 12)) and "Late Lena" in result["names"]
    assert result["entries"] == 11 and result["prize_pool"] == 11 * 100 == sum(result["payouts"])
    kinds = [k for k, _ in events(room["store"])]
    assert kinds.count("register") == 1 and kinds.count("entry") == 10
    moved_in = [p for k, p in events(room["store"]) if k == "moved-in"]
    late = next(p["move"]["id"] for k, p in events(room["store"]) if k == "register")
    assert [p["move"] for p in moved_in].count(late) == 1  # seated once, by a table's report
    check_store_holds_every_hand(room)
    assert s.stop() == 0
