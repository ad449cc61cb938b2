"""The floor's list view in Debian's Chromium (Playwright), issue 18: "new player" makes the
account and the player's login (the one-time password and its QR code on screen), the
must-move control marks a list as feeding a main game, and a player is moved between lists
with a reason; all of it in the log the page shows. The login's broker side is
tests/room/test_desk_new_player.py; here the desk's ``logins`` is a stand-in that records.

Screenshot: ``artifacts/players/floor-new-player.png``."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from room.console import add_login, serve_console
from room.desk import serve_desk
from room.waitlist import ListKey
from tests.room.conftest import REPO
from tests.room.test_desk import KEY, Rig, _fill
from tests.tablet.conftest import CHROMIUM, CHROMIUM_FLAGS, SKIP, sync_playwright

SHOTS = REPO / "artifacts" / "players"
WAIT_MS = 15_000
PLO = {"game": "pot-limit omaha", "stakes": "50/100"}


@pytest.mark.timeout(180)
def test_floor_page_new_player_must_move_and_move(tmp_path: Path) -> None:
    if SKIP:
        pytest.skip(SKIP)
    rig = Rig(tmp_path, str(tmp_path / "room.sqlite"))
    made: list[str] = []

    def logins(player: str) -> dict[str, str]:
        made.append(player)
        return {"username": f"player-{player}", "password": "pw-one-time-123"}
    rig.desk.logins = logins
    _fill(rig)
    rig.desk.lists.table("t8", ListKey(**PLO))
    for p in ("zed", "yan"):
        assert rig.desk.request(p, {"op": "join", **KEY}, by="floor:eve")["ok"]
    pw = add_login(tmp_path / "floor.json", "eve")
    srv = serve_desk(rig.desk, tmp_path / "floor.json", port=0, links={"console": 4321})
    try:
        with sync_playwright() as play:
            browser = play.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            page = browser.new_context(viewport={"width": 1280, "height": 1100},
                                       http_credentials={"username": "eve", "password": pw}).new_page()
            page.goto(srv.url + "floor")
            page.wait_for_selector("[data-list='no-limit holdem 50/100'] li", timeout=WAIT_MS)
            # issue 18: one game label (the tablets' header words), and a link to the console
            assert page.inner_text("[data-list='no-limit holdem 50/100'] h3").startswith("NL Hold'em 50/100 — ")
            assert page.get_attribute("#console-link", "href") == "http://127.0.0.1:4321/"
            assert page.is_visible("#console-link")
            # a new player: refused name first, then the login with its QR code
            page.fill("#new-player", "zoe")
            page.fill("#new-name", "Zoe Ng")
            page.fill("#new-card", "C-77")
            page.click("#new button")
            page.wait_for_selector("#new-out img", timeout=WAIT_MS)
            assert "pw-one-time-123" in page.inner_text("#new-out") and made == ["zoe"]
            assert page.get_attribute("#new-out img", "src").startswith("data:image/png;base64,")
            # must-move: the 50/100 Hold'em list feeds the Omaha game; a reason is required
            page.select_option("#mm-list", label="NL Hold'em 50/100")
            page.select_option("#mm-main", label="PL Omaha 50/100")
            page.fill("#mm-why", "Omaha is the main game tonight")
            page.click("#mm button")
            page.wait_for_function("document.querySelector('#log').innerText.includes('Omaha is the main game')",
                                   timeout=WAIT_MS)
            assert rig.desk.lists.feeds == {"t7": ListKey(**PLO)}
            # a move with a reason; the lists and the log show it
            page.fill("#move-player", "yan")
            page.select_option("#move-from", label="NL Hold'em 50/100")
            page.select_option("#move-to", label="PL Omaha 50/100")
            page.fill("#move-why", "wants Omaha")
            page.click("#move button")
            page.wait_for_selector("[data-list='pot-limit omaha 50/100'] li", timeout=WAIT_MS)
            assert "moved to pot-limit omaha 50/100: wants Omaha" in page.inner_text("#log")
            assert page.inner_text("#mm-msg") == ""
            # a refusal is said on the page: yan is on the Omaha list already
            page.click("#move button")
            page.wait_for_function("document.querySelector('#mm-msg').innerText.includes('already on')",
                                   timeout=WAIT_MS)
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / "floor-new-player.png"), full_page=True)
            # the room's 24-hour time, as the lobby TV (issue 18: "2:43:57 PM")
            times = page.locator("#log td:first-child").all_inner_texts()
            assert times and all(re.fullmatch(r"\d\d:\d\d:\d\d", t) for t in times), times
            # the floor walks the room with a phone: the list view fits 390 px (it was 767 px wide)
            phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                        http_credentials={"username": "eve", "password": pw}).new_page()
            phone.goto(srv.url + "floor")
            phone.wait_for_selector("[data-list='pot-limit omaha 50/100'] li", timeout=WAIT_MS)
            phone.fill("#why-player", "yan")
            phone.click("#why button")
            phone.wait_for_selector("#why-table td", timeout=WAIT_MS)
            assert phone.evaluate("document.documentElement.scrollWidth") <= 390
            phone.screenshot(path=str(SHOTS / "floor-phone.png"), full_page=True)
            browser.close()
    finally:
        srv.stop()
        rig.close()


@pytest.mark.timeout(180)
def test_console_and_lists_link_each_other_with_one_game_label(tmp_path: Path) -> None:
    """Issue 18: the console wrote "holdem 50/100 no-limit" where the lists said "no-limit
    holdem 50/100" and the lobby "No Limit Hold'em"; one label now ("NL Hold'em 50/100", the
    tablets' header words, room/phone/pages.js). The console and the floor's lists, on two
    ports, link to each other (each keeps its own login)."""
    if SKIP:
        pytest.skip(SKIP)
    rig = Rig(tmp_path, str(tmp_path / "room.sqlite"))
    _fill(rig)
    links: dict[str, int] = {}
    service = SimpleNamespace(store=rig.store, room=rig.room, live={}, floor_status={})
    console = serve_console(service, tmp_path / "floor.json", links=links)
    srv = serve_desk(rig.desk, tmp_path / "floor.json", port=0, links=links)
    links.update(console=console.server.server_address[1], floor=srv.server.server_address[1])
    pw = console.login_hint.split(" / ")[1]
    try:
        with sync_playwright() as play:
            browser = play.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            ctx = browser.new_context(viewport={"width": 1280, "height": 900},
                                      http_credentials={"username": "floor", "password": pw})
            page = ctx.new_page()
            page.goto(console.url)
            page.fill("#name", "floor")
            page.fill("#password", pw)
            page.click("#login button")
            page.wait_for_selector(".table h2 .game", timeout=WAIT_MS)
            assert page.inner_text(".table h2 .game") == "NL Hold'em 50/100"
            lists = page.get_attribute("#floor-link", "href")
            assert lists == f"{srv.url}floor" and page.is_visible("#floor-link")
            page.click("#floor-link")  # the lists, behind their own login (HTTP basic)
            page.wait_for_selector("#console-link", timeout=WAIT_MS)
            assert page.get_attribute("#console-link", "href") == console.url
            browser.close()
    finally:
        srv.stop()
        console.stop()
        rig.close()
