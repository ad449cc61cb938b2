"""The console's between-hands operations in Debian's Chromium (Playwright), on a live room
(issue 17, 2): close a table, change its stakes, open it again, seat a player.

Two simulated tables (t1 with 4 players at 6 seats, so seats 5 and 6 are free) bridged to
the room; the floor logs in and acts from each table's card. Each request goes through the
room broker and the table's bridge to the table's floor desk (controller/floor.py), which
carries it out between hands and answers; the console records it with name, reason and the
answer (the Decisions tab and ``room_floor_actions``), and the table journals it
(``settings-changed`` by ``floor:<name>``, the ``paused`` fault ``closed by floor:<name>``),
so it reaches the room's store too.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.room.test_room_console_e2e import SHOTS, WAIT_MS, open_console, running_room
from tests.tablet.conftest import sync_playwright


def wait_store(store: Any, sql: str, what: str, timeout: float = 60.0) -> list[Any]:
    """Rows of ``sql`` once there are any (the room service's thread writes the store)."""
    end = time.monotonic() + timeout
    while not (rows := store.query(sql)):
        assert time.monotonic() < end, f"not within {timeout} s: {what}"
        time.sleep(0.1)  # polling the store another thread writes: nothing to wait on
    return rows


@pytest.mark.broker
@pytest.mark.timeout(300)
def test_close_stakes_open_and_seat_from_the_console(tmp_path: Path) -> None:
    with running_room(tmp_path, {"t1": ["--players", "4"]}) as room:
        console, store, service = room["console"], room["store"], room["service"]
        service.status_every = 0.5
        SHOTS.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as pw:
            browser, page, errors = open_console(pw, console.url, {"width": 1280, "height": 900})
            page.fill("#name", "floor")
            page.fill("#password", room["password"])
            page.click("#login button")
            page.wait_for_selector("#table-t2 .ops-head:has-text('stakes now')", timeout=WAIT_MS)

            # close t2: it finishes its hand, then deals no more
            page.fill("#table-t2 .openclose-row input.reason", "game breaks")
            page.click("#table-t2 button.close")
            page.wait_for_selector("#table-t2 b.closed", timeout=WAIT_MS)
            hands = service.floor_status["t2"]["hand"]
            assert service.floor_status["t2"]["closed"] is True

            # its stakes while closed: at once
            page.fill("#table-t2 .f-sb", "100")
            page.fill("#table-t2 .f-bb", "200")
            page.fill("#table-t2 .f-ante", "25")
            page.click("#table-t2 button.stakes")  # no reason: refused on the page
            page.wait_for_selector("#flash:has-text('needs a reason')", timeout=WAIT_MS)
            page.fill("#table-t2 .stakes-row input.reason", "the game goes up")
            page.click("#table-t2 button.stakes")
            page.wait_for_selector("#table-t2 .ops-head:has-text('stakes now 100/200 ante 25')", timeout=WAIT_MS)
            assert service.floor_status["t2"]["hand"] == hands  # closed: no hand was dealt meanwhile
            page.screenshot(path=str(SHOTS / "room-console-closed.png"))

            # open it again: it deals at the new stakes
            page.fill("#table-t2 .openclose-row input.reason", "new game")
            page.click("#table-t2 button.open")
            page.wait_for_function("() => !document.querySelector('#table-t2 b.closed')", timeout=WAIT_MS)
            page.wait_for_function(
                f"() => /hand ([0-9]+)/.exec(document.querySelector('#table-t2').textContent)[1] > {hands}",
                timeout=WAIT_MS)

            # seat a player at t1 (seat 5 is free): a bad amount is refused on the page first
            page.fill("#table-t1 .f-seat", "5")
            page.fill("#table-t1 .f-player", "Carla")
            page.fill("#table-t1 .f-amount", "0")
            page.fill("#table-t1 .seat-row input.reason", "from the waiting list")
            page.click("#table-t1 button.seat")
            page.wait_for_selector("#flash:has-text('amount')", timeout=WAIT_MS)
            page.fill("#table-t1 .f-amount", "5000")
            page.click("#table-t1 button.seat")
            page.wait_for_selector("#table-t1 .seats span:has-text('Carla')", timeout=WAIT_MS)

            page.click("nav button[data-view='decisions']")
            page.wait_for_selector("#decisions tbody tr:nth-child(4) td.ok", timeout=WAIT_MS)
            rows = page.locator("#decisions tbody tr").all_inner_texts()
            assert "seat seat 5 Carla 5,000" in rows[0] and "from the waiting list" in rows[0]
            assert "open" in rows[1] and "the table is open" in rows[1]
            assert "stakes" in rows[2] and "the game goes up" in rows[2] and "now" in rows[2]
            assert "close" in rows[3] and "game breaks" in rows[3] and "no further hand" in rows[3]
            assert errors == []
            browser.close()

        recorded = store.query("SELECT table_id, action, by_name, reason, outcome FROM room_floor_actions ORDER BY id")
        assert [(t, a, b, r, json.loads(o)["accepted"]) for t, a, b, r, o in recorded] == [
            ("t2", "close", "floor", "game breaks", True), ("t2", "stakes", "floor", "the game goes up", True),
            ("t2", "open", "floor", "new game", True), ("t1", "seat", "floor", "from the waiting list", True)]
        # the table journalled them: through its outbox they reach the room's store
        rows = wait_store(store, "SELECT payload FROM room_records WHERE table_id = 't2' AND kind = 'table' "
                                 "AND payload LIKE '%settings-changed%'", "t2's stakes change in the store")
        assert json.loads(rows[-1][0])["by"] == "floor:floor"
        wait_store(store, "SELECT 1 FROM room_faults WHERE table_id = 't2' AND detail LIKE '%closed by floor:floor%'",
                   "t2's close in the store")
