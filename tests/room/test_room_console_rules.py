"""The floor's console on a room service stand-in (brief L, item 3): what it refuses and how
its page reads, without tables or brokers.

The console (``room/console.py``) is served over a real SQLite store; the service around it
is :class:`FakeRoom`: the tables' live states and floor statuses are set by the test, and the
floor's requests are recorded instead of published. A floor decision for a table the room
does not know is refused (404); stakes that are no stakes are refused (S-1); a hand number in
the path that is no number is a 400, never a dropped connection; the page (Debian's Chromium,
Playwright) writes chips with thousands separators, a paused table as "Paused by floor:Anna",
offers no "Pause table" while paused and ends the pause with "Resume table".
"""

from __future__ import annotations

import contextlib
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from room.console import serve_console
from room.store import open_store
from tests.tablet.conftest import CHROMIUM, CHROMIUM_FLAGS, SKIP, sync_playwright

WAIT_MS = 20_000


class FakeRoom:
    """What the console reads of :class:`room.service.RoomService`: ``store``, ``live``,
    ``floor_status``; :meth:`floor_request` records the request in ``sent``."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.live: dict[str, dict[str, Any]] = {}
        self.floor_status: dict[str, dict[str, Any]] = {}
        self.sent: list[tuple[str, str, dict[str, Any]]] = []

    def floor_request(self, table: str, command: str, **kw: Any) -> str:
        self.sent.append((table, command, kw))
        return f"room-{len(self.sent)}"


PAUSED = {"id": 1, "kind": "paused", "message": "paused by floor:Anna: dealer change", "since": 1.0,
          "exits": ["resume", "misdeal", "void"]}


@pytest.fixture
def room(tmp_path: Path) -> Iterator[dict[str, Any]]:
    store = open_store(tmp_path / "room.sqlite")
    service = FakeRoom(store)
    service.live["t1"] = {"name": "Table 1", "game": "holdem", "hand": 1234, "street": "flop", "paused": False,
                          "seats": [{"seat": 1, "name": "Ann", "stack": 1250000, "status": "playing"},
                                    {"seat": 2, "name": "Bob", "stack": 980, "status": "playing"}]}
    service.floor_status["t1"] = {"faults": [], "buy_ins": [{"seat": 4, "name": "Cy", "amount": 25000}],
                                  "stakes": {"small_blind": 2500, "big_blind": 5000, "ante": 500},
                                  "received": 0.0}
    service.live["t2"] = {"name": "Table 2", "game": "omaha", "hand": 7, "paused": True,
                          "seats": [{"seat": 3, "name": "Dee", "stack": 40000, "status": "playing"}]}
    service.floor_status["t2"] = {"faults": [PAUSED], "buy_ins": [], "received": 0.0,
                                  "stakes": {"small_blind": 50, "big_blind": 100, "ante": 0}}
    console = serve_console(service, tmp_path / "floor-logins.json")
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    password = console.login_hint.split(" / ")[1]
    opener.open(urllib.request.Request(console.url + "login", json.dumps({"name": "floor", "password": password})
                                       .encode(), {"Content-Type": "application/json"}), timeout=10)
    try:
        yield {"console": console, "service": service, "opener": opener, "password": password}
    finally:
        console.stop()
        store.close()


def _call(room: dict[str, Any], path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(room["console"].url + path, data, {"Content-Type": "application/json"})
    try:
        with room["opener"].open(req, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_a_floor_decision_for_an_unknown_table_is_refused(room: dict[str, Any]) -> None:
    """It was recorded and sent with no table behind it."""
    code, body = _call(room, "api/floor", {"table": "t9", "command": "pause", "reason": "dealer change"})
    assert code == 404 and "no table t9 in this room" in body["error"], body
    assert room["service"].sent == []
    assert room["service"].store.query("SELECT COUNT(*) FROM room_floor_actions")[0][0] == 0
    code, _ = _call(room, "api/floor", {"table": "t1", "command": "pause", "reason": "dealer change"})
    assert code == 200 and room["service"].sent[0][:2] == ("t1", "pause")


@pytest.mark.parametrize("stakes, words", [
    ({"big_blind": 200, "ante": 10**9}, "S-1: the ante (1,000,000,000) must be at most the big blind (200)"),
    ({"big_blind": 200, "small_blind": 300}, "S-1: the small blind (300) must be at most the big blind (200)"),
    ({"big_blind": 200, "small_blind": 0}, "'small_blind' must be an integer in 1..1000000000"),
    ({"big_blind": 0}, "'big_blind' must be an integer in 1..1000000000"),
    ({"big_blind": 200.5}, "'big_blind' must be an integer"),
    ({"big_blind": "200"}, "'big_blind' must be an integer"),
    # t1's small blind is 2,500 and its ante 500 now: a big blind of 1,000 alone would leave them above it
    ({"big_blind": 1000}, "S-1: the table's small blind now (2,500) would be above the new big blind (1,000)"),
    ({"big_blind": 400, "small_blind": 200}, "S-1: the table's ante now (500) would be above the new big blind (400)"),
])
def test_stakes_that_are_no_stakes_are_refused(room: dict[str, Any], stakes: dict[str, Any], words: str) -> None:
    code, body = _call(room, "api/floor", {"table": "t1", "command": "stakes", "stakes": stakes, "reason": "up"})
    assert code == 400 and words in body["error"], body
    assert room["service"].sent == []


def test_sane_stakes_are_sent(room: dict[str, Any]) -> None:
    code, _ = _call(room, "api/floor", {"table": "t1", "command": "stakes", "reason": "the game goes up",
                                        "stakes": {"small_blind": 5000, "big_blind": 10000, "ante": 10000}})
    assert code == 200
    assert room["service"].sent[0][2]["stakes"] == {"small_blind": 5000, "big_blind": 10000, "ante": 10000}


@pytest.mark.parametrize("path", [
    "api/hands/t1/" + "9" * 30, "api/hands/t1/" + "9" * 30 + ".phh", "api/hands/t1/" + "9" * 30 + "/steps",
    "api/hands?hand=" + "9" * 30, "api/hands/t1/x", "api/hands/t1/-1", "api/hands/t1/1e3", "api/hands/t1/%D9%A1",
    "api/hands/t1/" + "9" * 5000, "api/hands?limit=0",
])
def test_a_number_in_the_path_that_is_no_number_is_a_400(room: dict[str, Any], path: str) -> None:
    """30 nines went to SQLite as an integer: OverflowError in the handler's thread, the
    connection dropped without an answer."""
    code, body = _call(room, path)
    assert code == 400 and "must be a whole number 1.." in body["error"], (code, body)
    assert _call(room, "api/hands/t1/12")[0] == 404  # a real number still asks the archive


@contextlib.contextmanager
def _console_page(room: dict[str, Any]) -> Iterator[tuple[Any, list[str]]]:
    """The console's page in Chromium, the floor logged in; yields ``(page, errors)``: the
    page's uncaught errors, which the tests expect empty."""
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_context(viewport={"width": 1280, "height": 860}).new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(room["console"].url)
            page.fill("#name", "floor")
            page.fill("#password", room["password"])
            page.click("#login button")
            yield page, errors
        finally:
            browser.close()


@pytest.mark.skipif(SKIP is not None, reason=SKIP or "")
@pytest.mark.timeout(120)
def test_the_page_reads_chips_pauses_and_resumes_as_the_floor_says(room: dict[str, Any]) -> None:
    with _console_page(room) as (page, errors):
        page.wait_for_selector("#table-t2 .fault[data-fault='paused']", timeout=WAIT_MS)
        t1, t2 = page.text_content("#table-t1"), page.text_content("#table-t2")
        # thousands separators on chips; hand numbers stay plain
        assert "1,250,000" in t1 and "Cy — 25,000" in t1 and "stakes now 2,500/5,000 ante 500" in t1, t1
        assert "hand 1234" in t1
        # a paused table: said once, no "Pause table", and its button says what it does
        assert "paused paused" not in t2.lower() and "Paused by floor:Anna: dealer change" in t2, t2
        assert page.locator("#table-t2 button.pause").count() == 0
        assert page.locator("#table-t1 button.pause").count() == 1
        assert page.text_content("#table-t2 button.end-fault") == "Resume table"
        page.select_option("#table-t2 .fault select.exit", "void")
        assert page.text_content("#table-t2 button.end-fault") == "Void the hand"
        page.select_option("#table-t2 .fault select.exit", "resume")
        page.fill("#table-t2 .fault input.reason", "new dealer seated")
        page.click("#table-t2 .fault button.end-fault")
        page.wait_for_selector("#table-t2 .fault button.end-fault:has-text('Sent')", timeout=WAIT_MS)
        assert room["service"].sent == [("t2", "resume", {"by": "floor", "reason": "new dealer seated",
                                                         "fault": "paused", "seat": None})]
        assert errors == []


JOURNAL_FAILING = {"compaction": "failing", "since": 1_800_000_000.0, "failures": 3,
                   "error": "database disk image is malformed",
                   "message": "journal compaction has failed on the last 3 hands: database disk image is malformed. "
                              "The table plays on and records every hand, but its journal is no longer trimmed"}


def test_a_journal_whose_compaction_keeps_failing_is_on_the_tables_row_not_a_fault(room: dict[str, Any]) -> None:
    """The table's status says its journal's compaction keeps failing (controller/compaction.py
    ``health``): the console's row carries it; the table is not paused by it."""
    from room.console import tables_view

    room["service"].floor_status["t1"]["journal"] = JOURNAL_FAILING
    rows = {r["table"]: r for r in tables_view(room["service"])}
    assert rows["t1"]["journal"] == JOURNAL_FAILING and rows["t1"]["paused"] is False
    assert rows["t2"]["journal"] is None  # a table (or an older controller) that says nothing


@pytest.mark.skipif(SKIP is not None, reason=SKIP or "")
@pytest.mark.timeout(120)
def test_the_page_shows_a_journal_whose_compaction_keeps_failing(room: dict[str, Any]) -> None:
    room["service"].floor_status["t1"]["journal"] = JOURNAL_FAILING
    with _console_page(room) as (page, errors):
        page.wait_for_selector("#table-t1 .journal-warning", timeout=WAIT_MS)
        warning = page.text_content("#table-t1 .journal-warning") or ""
        assert "Journal compaction failing" in warning and "(3 hands in a row)" in warning, warning
        assert "database disk image is malformed" in warning
        t1 = page.text_content("#table-t1") or ""
        assert "PAUSED" not in t1 and page.locator("#table-t1 button.pause").count() == 1  # plays on
        assert page.locator("#table-t2 .journal-warning").count() == 0
        assert errors == []
