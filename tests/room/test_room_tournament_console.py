"""The director at the floor console (issue 19): ``GET/POST /api/tournament`` (room/console.py)
over the room's tournament (room/tournament.py, its clock the test's) through the desk that
hands calls to the loop's thread (room/tournament_desk.py), and ``livetable room director``
(room/director_cli.py) against it: login, bad input, what is recorded, exit codes."""

from __future__ import annotations

import json
import os
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from room import director_cli
from room.console import CASH_REFUSED, serve_console
from room.store import open_store
from room.tournament import StoreJournal
from room.tournament_desk import NoTournament, TournamentDesk
from tests.room.test_room_tournament_director import exchange, room
from tests.tablet.conftest import CHROMIUM, CHROMIUM_FLAGS, SKIP, sync_playwright

STATUS_KEYS = {"level", "next_level", "seconds_left", "running", "paused", "on_break", "players_left", "entries",
               "average_stack", "prize_pool", "places_paid", "hand_for_hand", "finished", "clock_speed", "levels",
               "tables", "prizes_left", "unit", "problems", "moves", "broken_order", "busts", "deal"}


class Service:
    """What the console reads of the room service here: its store."""

    def __init__(self, store: Any) -> None:
        self.store, self.live, self.floor_status = store, {}, {}


class Loop:
    """The room's loop as far as the desk goes: serves its calls on a thread of its own."""

    def __init__(self, desk: TournamentDesk) -> None:
        self.desk, self.stop = desk, threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while not self.stop.wait(0.005):  # the room's loop turns every 50 ms; here faster
            self.desk.serve()


def _login(url: str, password: str) -> urllib.request.OpenerDirector:
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    opener.open(urllib.request.Request(url + "login", json.dumps({"name": "floor", "password": password}).encode(),
                                       {"Content-Type": "application/json"}), timeout=10)
    return opener


class _StoreJournal(StoreJournal):
    """The room's journal on the console's store, its events also kept in ``rows`` (the tests read them)."""

    def __init__(self, store: Any, rows: list[tuple[str, dict[str, Any]]]) -> None:
        super().__init__(store)
        self.rows = rows

    def append(self, kind: str, payload: dict[str, Any], also: Any = None) -> None:
        super().append(kind, payload, also)
        self.rows.append((kind, json.loads(json.dumps(payload))))


@pytest.fixture
def console(tmp_path: Path) -> Iterator[dict[str, Any]]:
    d, tables, sent, journal = room()
    now = [20.0]
    d.now = lambda: now[0]
    exchange(d, tables, sent, "t1", "t2")
    desk = TournamentDesk(d)
    store = open_store(tmp_path / "room.sqlite")
    d.journal = _StoreJournal(store, journal.rows)  # as the room's: the floor record in the clock event's transaction
    service = Service(store)
    served = serve_console(service, tmp_path / "floor-logins.json", tournament=desk)
    loop = Loop(desk)
    password = served.login_hint.split(" / ")[1]
    try:
        yield {"url": served.url, "password": password, "opener": _login(served.url, password), "store": store,
               "director": d, "journal": journal, "now": now, "tmp": tmp_path, "service": service}
    finally:
        loop.stop.set()
        loop.thread.join(5)
        served.stop()
        store.close()


def call(c: dict[str, Any], body: dict[str, Any] | None = None, opener: Any = None) -> tuple[int, Any]:
    req = urllib.request.Request(c["url"] + "api/tournament", None if body is None else json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    try:
        with (opener or c["opener"]).open(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_the_status_shows_the_clock_the_players_and_the_tables(console: dict[str, Any]) -> None:
    code, st = call(console)
    assert code == 200 and set(st) == STATUS_KEYS, st
    assert st["level"]["number"] == 1 and st["seconds_left"] == 40 and st["running"] and not st["paused"]
    assert (st["players_left"], st["entries"], st["places_paid"], st["levels"]) == (12, 12, 9, [1, 8])
    assert st["average_stack"] == 2000 and st["prize_pool"] == 1200
    assert [(t["table"], t["players"], t["broken"]) for t in st["tables"]] == [("t1", 6, False), ("t2", 6, False)]


def test_only_a_floor_login_reaches_the_tournament(console: dict[str, Any]) -> None:
    stranger = urllib.request.build_opener()
    assert call(console, opener=stranger)[0] == 401
    code, body = call(console, {"command": "clock-pause", "reason": "x"}, opener=stranger)
    assert code == 401 and body["error"] == "log in first"
    assert console["director"].clock.status(20.0).running


@pytest.mark.parametrize("body, words", [
    ({"command": "clock-stop", "reason": "r"}, "command must be one of clock-pause, clock-resume, clock-add, clock-level"),
    ({"command": "clock-add", "seconds": "60", "reason": "r"}, "clock-add needs seconds: a whole number"),
    ({"command": "clock-add", "seconds": 1.5, "reason": "r"}, "clock-add needs seconds: a whole number"),
    ({"command": "clock-add", "seconds": True, "reason": "r"}, "clock-add needs seconds: a whole number"),
    ({"command": "clock-add", "seconds": 0, "reason": "r"}, "not 0"),
    ({"command": "clock-add", "seconds": 10**9, "reason": "r"}, "-86,400..86,400"),
    ({"command": "clock-level", "reason": "r"}, "clock-level needs level: a level number"),
    ({"command": "clock-level", "level": "4", "reason": "r"}, "clock-level needs level: a level number"),
    ({"command": "clock-level", "level": 0, "reason": "r"}, "clock-level needs level: a level number"),
    ({"command": "clock-pause"}, "every floor decision needs a reason"),
    ({"command": "clock-pause", "reason": "two\nlines"}, "every floor decision needs a reason"),
    ({"command": "clock-pause", "reason": "r", "by": "x" * 41}, "by names who decides"),
])
def test_bad_input_is_refused_with_400_and_changes_nothing(console: dict[str, Any], body: dict[str, Any],
                                                           words: str) -> None:
    rows = len(console["journal"].rows)
    code, answer = call(console, body)
    assert code == 400 and words in answer["error"], answer
    assert len(console["journal"].rows) == rows
    assert console["store"].query("SELECT COUNT(*) FROM room_floor_actions")[0][0] == 0


def test_not_json_is_refused(console: dict[str, Any]) -> None:
    req = urllib.request.Request(console["url"] + "api/tournament", b"[1, 2]", {"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as err:
        console["opener"].open(req, timeout=10)
    assert err.value.code == 400 and "send a JSON object" in json.loads(err.value.read())["error"]


def test_pause_and_level_are_carried_out_and_recorded_with_name_and_reason(console: dict[str, Any]) -> None:
    code, answer = call(console, {"command": "clock-pause", "reason": "dispute at t1", "by": "Anna"})
    assert code == 200 and answer["detail"] == "the clock is paused at level 1 (0:40 left) (Anna)"
    assert answer["status"]["paused"] and answer["status"]["seconds_left"] == 40
    console["now"][0] = 300.0
    code, again = call(console, {"command": "clock-pause", "reason": "again"})
    assert code == 409 and again == {"error": "F-3: the clock is paused already", "refused": True}
    code, answer = call(console, {"command": "clock-level", "level": 4, "reason": "behind schedule"})
    assert code == 200 and answer["status"]["level"]["number"] == 4 and answer["status"]["paused"]
    rows = console["store"].query("SELECT table_id, action, by_name, reason, request, outcome FROM room_floor_actions"
                                  " ORDER BY id")
    got = [(r[0], r[1], r[2], r[3], json.loads(r[4]), json.loads(r[5])["accepted"]) for r in rows]
    assert got == [
        ("tournament", "clock-pause", "Anna", "dispute at t1", {"command": "clock-pause", "amount": None,
                                                               "login": "floor"}, True),
        ("tournament", "clock-pause", "floor", "again", {"command": "clock-pause", "amount": None, "login": "floor"},
         False),
        ("tournament", "clock-level", "floor", "behind schedule", {"command": "clock-level", "amount": 4,
                                                                  "login": "floor"}, True)]
    directed = [p["director"] for k, p in console["journal"].rows if k == "clock" and "director" in p]
    assert [(x["command"], x["by"], x["reason"]) for x in directed] == [
        ("clock-pause", "Anna", "dispute at t1"), ("clock-level", "floor", "behind schedule")]


def test_no_tournament_is_409(tmp_path: Path) -> None:
    store = open_store(tmp_path / "room.sqlite")
    served = serve_console(Service(store), tmp_path / "floor-logins.json")
    try:
        c = {"url": served.url, "opener": _login(served.url, served.login_hint.split(" / ")[1])}
        assert call(c) == (409, {"error": "no tournament is running in this room"})
        assert call(c, {"command": "clock-pause", "reason": "r"}) == (409, {"error": "no tournament is running in "
                                                                                     "this room"})
    finally:
        served.stop()
        store.close()


def test_a_call_the_loop_does_not_take_is_withdrawn_never_carried_out_later() -> None:
    ran: list[int] = []
    desk = TournamentDesk(object())
    with pytest.raises(NoTournament, match="did not answer within 0.01 s"):
        desk.call(lambda d: ran.append(1), timeout=0.01)
    assert desk.serve() == 0 and ran == []
    desk.close()
    with pytest.raises(NoTournament, match="no tournament is running"):
        desk.call(lambda d: 1)


# ---------------------------------------------------------------- livetable room director
def director(c: dict[str, Any], *argv: str, capsys: Any, monkeypatch: Any) -> tuple[int, str, str]:
    monkeypatch.setenv("LIVETABLE_ROOM_PASSWORD", c["password"])
    code = director_cli.main(["--console", c["url"], *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_director_command_line_exit_codes(console: dict[str, Any], capsys: Any, monkeypatch: Any) -> None:
    code, out, _ = director(console, "status", capsys=capsys, monkeypatch=monkeypatch)
    assert code == 0 and out.splitlines()[0].startswith("level 1 (25/50), 0:40 left; next level 2 (50/100, ante 25);"
                                                        " 12 players left of 12 entries, average stack 2,000")
    assert "t1: 6 players, 0 hands" in out
    code, out, _ = director(console, "clock-pause", "--reason", "dispute", "--by", "Anna", capsys=capsys,
                            monkeypatch=monkeypatch)
    assert code == 0 and out.startswith("done: the clock is paused at level 1 (0:40 left) (Anna)")
    assert "CLOCK PAUSED" in out
    code, _, err = director(console, "clock-pause", "--reason", "again", capsys=capsys, monkeypatch=monkeypatch)
    assert code == 1 and "refused: F-3: the clock is paused already" in err
    code, _, err = director(console, "clock-level", "99", "--reason", "r", capsys=capsys, monkeypatch=monkeypatch)
    assert code == 1 and "F-3: no level 99 (levels 1..8)" in err
    code, out, _ = director(console, "clock-add", "-10", "--reason", "r", "--json", capsys=capsys,
                            monkeypatch=monkeypatch)
    assert code == 0 and json.loads(out)["status"]["seconds_left"] == 30
    for argv, words in [(["clock-add", "ten", "--reason", "r"], "clock-add needs SECONDS as a whole number"),
                        (["clock-resume"], "clock-resume needs --reason"),
                        (["clock-stop", "--reason", "r"], "unknown command 'clock-stop'"),
                        (["status", "5"], "status takes no value")]:
        code, _, err = director(console, *argv, capsys=capsys, monkeypatch=monkeypatch)
        assert code == 2 and words in err, (argv, err)
    monkeypatch.setenv("LIVETABLE_ROOM_PASSWORD", "wrong")
    assert director_cli.main(["--console", console["url"], "status"]) == 2
    assert "refused the login 'floor'" in capsys.readouterr().err
    monkeypatch.delenv("LIVETABLE_ROOM_PASSWORD")
    assert director_cli.main(["--console", console["url"], "status"]) == 2
    assert "no password" in capsys.readouterr().err


def test_the_director_command_line_cannot_connect(console: dict[str, Any], capsys: Any, monkeypatch: Any) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("LIVETABLE_ROOM_PASSWORD", "x")
    assert director_cli.main(["--console", f"http://127.0.0.1:{port}/", "status"]) == 2
    assert "cannot reach the floor console at" in capsys.readouterr().err


def _three_tables(c: dict[str, Any]) -> None:
    """t1 of the room's tournament, s1 a single table's tournament (its live state says so), c1 a cash table."""
    seat = {"seat": 1, "name": "Ann", "stack": 2000, "status": "active"}
    c["service"].live.update({"t1": {"name": "Birch", "seats": [seat]},
                              "s1": {"name": "Solo", "seats": [seat], "tournament_view": {"level": {"number": 1}}},
                              "c1": {"name": "Cash", "seats": [seat]}})


def test_the_tables_say_which_play_a_tournament_and_why_the_floor_cannot_seat_stake_or_close_them(
        console: dict[str, Any]) -> None:
    """F-3 (docs/tournament.md "What the floor cannot do at a tournament table"): the console's
    rows say why, for the room's tournament tables (the room's list) and a table whose live
    state carries a tournament view; a cash table has none."""
    _three_tables(console)
    with console["opener"].open(console["url"] + "api/tables", timeout=10) as r:
        rows = {t["table"]: t for t in json.loads(r.read())["tables"]}
    assert rows["t1"]["tournament"] == CASH_REFUSED["room-tournament"] and "Register" in rows["t1"]["tournament"]
    assert rows["s1"]["tournament"] == CASH_REFUSED["tournament"]
    assert rows["c1"]["tournament"] is None


@pytest.mark.skipif(SKIP is not None, reason=SKIP or "")
@pytest.mark.timeout(120)
def test_the_console_page_shows_the_tournament_and_pauses_and_moves_its_clock(console: dict[str, Any]) -> None:
    shot = os.environ.get("LIVETABLE_SHOT")  # docs/room-console-tournament.png was taken with it
    _three_tables(console)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_context(viewport={"width": 1280, "height": 520}).new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(console["url"])
            page.fill("#name", "floor")
            page.fill("#password", console["password"])
            page.click("#login button")
            page.wait_for_selector("#tournament:not(.hidden)", timeout=20_000)
            text = page.text_content("#tournament") or ""
            assert "0:40" in text and "Level 1" in text and "25/50" in text and "next level 2: 50/100, ante 25" in text
            assert "12 players left of 12 entries" in text and "average stack 2,000" in text and "t1" in text
            # F-3: a tournament table offers no Seat player, Change stakes or Close table, and says why
            page.wait_for_selector("#table-c1 button.seat", timeout=20_000)
            for t in ("t1", "s1"):
                assert page.locator(f"#table-{t} button.seat, #table-{t} button.stakes, #table-{t} button.close"
                                    ).count() == 0, t
                assert "F-3: this table plays" in (page.text_content(f"#table-{t} .t-cash-note") or ""), t
            assert "Register" in (page.text_content("#table-t1 .t-cash-note") or "")
            assert page.locator("#table-c1 .t-cash-note").count() == 0
            assert page.locator("#table-c1 button.stakes, #table-c1 button.close").count() == 2
            page.fill("#tournament .reason", "dispute at t1")
            page.click("#tournament button[data-command='clock-pause']")
            page.wait_for_selector("#tournament .t-paused", timeout=20_000)
            assert "the clock is paused at level 1 (0:40 left) (floor)" in (page.text_content("#flash") or "")
            assert page.locator("#tournament button[data-command='clock-resume']").count() == 1
            page.fill("#tournament .reason", "behind schedule")
            page.fill("#tournament .t-level", "42")
            page.click("#tournament button[data-command='clock-level']")
            page.wait_for_selector("#flash:has-text('no level 42')", timeout=20_000)
            page.fill("#tournament .t-level", "4")
            page.click("#tournament button[data-command='clock-level']")
            page.wait_for_selector("#tournament:has-text('Level 4')", timeout=20_000)
            assert "CLOCK PAUSED" in (page.text_content("#tournament") or "")
            if shot:
                page.screenshot(path=shot)
            assert errors == []
        finally:
            browser.close()
    assert console["director"].clock.status(console["now"][0]).level.number == 4
