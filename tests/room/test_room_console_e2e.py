"""The floor's console in Debian's Chromium (Playwright), on a live room (issue 17).

Two simulated tables (shuffler emulator, their MQTT links, their Mosquittos bridged to the
room broker) and the room service with its console. The floor logs in (a wrong password is
refused), sees both tables, pauses one with a reason: the request goes through the room
broker and the table's bridge to the table, which opens the ``paused`` fault; the console
shows it with its exits; the floor ends it by ``resume`` with a reason and the table plays
on. Both decisions are recorded with name, reason and the table's answer. The archive finds
the table's hands, shows one step by step and exports its PHH (equal to the table's own);
the report and its CSV add up to the store's meters.

Screenshots go to ``artifacts/room/``; ``docs/room-console*.png`` are copies of them.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from room.console import serve_console
from room.service import RoomService
from room.simulate import RoomRig
from room.store import open_store
from tests.room.conftest import REPO, need_mosquitto
from tests.tablet.conftest import CHROMIUM, CHROMIUM_FLAGS, SKIP, sync_playwright

SHOTS = REPO / "artifacts" / "room"  # docs/room-console*.png are copies of these
WAIT_MS = 30_000


@pytest.fixture
def live_room(tmp_path: Path) -> Iterator[dict[str, Any]]:
    with running_room(tmp_path) as room:
        yield room


@contextlib.contextmanager
def running_room(tmp_path: Path, extra: dict[str, list[str]] | None = None) -> Iterator[dict[str, Any]]:
    """Two simulated tables bridged to a room, its service and console (``extra``: more
    ``livetable simulate`` options per table)."""
    need_mosquitto()
    if SKIP:
        pytest.skip(SKIP)
    rig = RoomRig(tmp_path, ["t1", "t2"]).start()
    store = open_store(tmp_path / "room.sqlite")
    service = RoomService(store, host="127.0.0.1", port=rig.room_broker.mqtt_port, **rig.room_creds)
    service.status_every = 0.5
    service.start()
    console = serve_console(service, tmp_path / "floor-logins.json")
    password = console.login_hint.split(" / ")[1]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    tables = [subprocess.Popen(rig.table_command(t, 10**6, 77 + i, extra=["--speed", "4", *(extra or {}).get(t, [])]),
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=str(REPO))
              for i, t in enumerate(["t1", "t2"])]
    try:
        yield {"rig": rig, "store": store, "service": service, "console": console, "password": password}
    finally:
        for p in tables:
            p.send_signal(signal.SIGTERM)
        for p in tables:
            try:
                p.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
                p.communicate()
        console.stop()
        service.stop()
        store.close()
        rig.stop()


def open_console(pw: Any, url: str, viewport: dict[str, int]) -> tuple[Any, Any, list[str]]:
    """Debian's Chromium on the console: (browser, page, the page's errors as they come)."""
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
    page = browser.new_context(viewport=viewport).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    return browser, page, errors


@pytest.mark.broker
@pytest.mark.timeout(300)
def test_the_floor_pauses_and_resumes_a_table_and_reads_the_archive(live_room: dict[str, Any]) -> None:
    console, store = live_room["console"], live_room["store"]
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser, page, errors = open_console(pw, console.url, {"width": 1280, "height": 860})
        page.fill("#name", "floor")
        page.fill("#password", "not the password")
        page.click("#login button")
        page.wait_for_selector("#login-error:has-text('wrong name or password')", timeout=WAIT_MS)
        assert page.request.get(console.url + "api/tables").status == 401  # nothing without a login
        page.fill("#password", live_room["password"])
        page.click("#login button")
        page.wait_for_selector("#table-t1", timeout=WAIT_MS)
        page.wait_for_selector("#table-t2", timeout=WAIT_MS)
        # hands reach the room: the card's count rises above 0
        page.wait_for_function("() => /[1-9]\\d* hands/.test(document.querySelector('#table-t1').textContent)",
                               timeout=WAIT_MS)
        page.screenshot(path=str(SHOTS / "room-console.png"))

        page.click("#table-t1 button.pause")  # no reason: refused, said on the page
        page.wait_for_selector("#flash:has-text('needs a reason')", timeout=WAIT_MS)
        page.fill("#table-t1 .pause-row input.reason", "dealer change")
        page.click("#table-t1 button.pause")
        page.wait_for_selector("#table-t1 .fault[data-fault='paused']", timeout=WAIT_MS)
        assert "PAUSED" in page.text_content("#table-t1")
        assert page.locator("#table-t1 .fault select.exit option").all_text_contents() == ["resume", "misdeal", "void"]
        page.screenshot(path=str(SHOTS / "room-console-fault.png"))
        page.select_option("#table-t1 .fault select.exit", "resume")
        page.fill("#table-t1 .fault input.reason", "new dealer seated")
        page.click("#table-t1 .fault button.end-fault")
        page.wait_for_function("() => !document.querySelector('#table-t1 .fault')", timeout=WAIT_MS)

        page.click("nav button[data-view='decisions']")
        page.wait_for_selector("#decisions tbody tr:nth-child(2) td.ok", timeout=WAIT_MS)
        rows = page.locator("#decisions tbody tr").all_inner_texts()
        assert "resume paused" in rows[0] and "new dealer seated" in rows[0] and "floor" in rows[0]
        assert "pause" in rows[1] and "dealer change" in rows[1]
        recorded = store.query("SELECT action, by_name, reason, outcome FROM room_floor_actions ORDER BY id")
        assert [(a, b, r, json.loads(o)["accepted"]) for a, b, r, o in recorded] == [
            ("pause", "floor", "dealer change", True), ("resume", "floor", "new dealer seated", True)]
        # the table journalled the floor's decisions under the name: they reach the room's store
        deadline = time.monotonic() + 30
        while not store.query("SELECT 1 FROM room_faults WHERE table_id = 't1' AND event = 'ended'"):
            assert time.monotonic() < deadline, "the fault's end never reached the room"
            time.sleep(0.1)  # polling the store another thread writes: nothing to wait on
        ended = json.loads(store.query("SELECT detail FROM room_faults WHERE table_id = 't1' AND event = 'ended'")[0][0])
        assert ended["by"] == "floor:floor" and ended["exit"] == "resume"

        page.click("nav button[data-view='archive']")
        page.fill("#search input[name='table']", "t1")
        page.click("#search button")
        page.wait_for_selector("#hands tbody tr a.show", timeout=WAIT_MS)
        first = page.locator("#hands tbody tr a.show").first
        hand = int(first.get_attribute("data-h"))
        first.click()
        page.wait_for_selector(f"#hand-detail:has-text('table t1 hand {hand}')", timeout=WAIT_MS)
        from room.archive import hand_steps

        assert hand_steps(store, "t1", hand)["text"] in page.text_content("#hand-detail")
        phh = page.request.get(console.url + f"api/hands/t1/{hand}.phh").text()
        assert phh == (live_room["rig"].history_dir("t1") / f"hand-{hand:06d}.phh").read_text()
        page.screenshot(path=str(SHOTS / "room-console-archive.png"))
        page.fill("#search input[name='table']", "")
        page.fill("#search input[name='player']", "nobody-at-all")
        page.click("#search button")
        page.wait_for_selector("#hands tbody td:has-text('no hand found')", timeout=WAIT_MS)

        page.click("nav button[data-view='report']")
        page.wait_for_selector("#report tbody tr:has-text('room')", timeout=WAIT_MS)
        report = list(csv.DictReader(io.StringIO(page.request.get(console.url + "api/report.csv").text())))
        assert [r["table"] for r in report] == ["t1", "t2", "room"]
        assert int(report[-1]["chips_in"]) == sum(int(r["chips_in"]) for r in report[:-1]) > 0
        assert int(report[-1]["hands"]) == sum(int(r["hands"]) for r in report[:-1]) > 0
        assert errors == []
        browser.close()
