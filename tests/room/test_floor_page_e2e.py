"""The floor's list view in Debian's Chromium (Playwright), issue 18: "new player" makes the
account and the player's login (the one-time password and its QR code on screen), the
must-move control marks a list as feeding a main game, and a player is moved between lists
with a reason; all of it in the log the page shows. The login's broker side is
tests/room/test_desk_new_player.py; here the desk's ``logins`` is a stand-in that records.

Screenshot: ``artifacts/players/floor-new-player.png``."""

from __future__ import annotations

from pathlib import Path

import pytest

from room.console import add_login
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
    srv = serve_desk(rig.desk, tmp_path / "floor.json", port=0)
    try:
        with sync_playwright() as play:
            browser = play.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            page = browser.new_context(viewport={"width": 1280, "height": 1100},
                                       http_credentials={"username": "eve", "password": pw}).new_page()
            page.goto(srv.url + "floor")
            page.wait_for_selector("[data-list='no-limit holdem 50/100'] li", timeout=WAIT_MS)
            # a new player: refused name first, then the login with its QR code
            page.fill("#new-player", "zoe")
            page.fill("#new-name", "Zoe Ng")
            page.fill("#new-card", "C-77")
            page.click("#new button")
            page.wait_for_selector("#new-out img", timeout=WAIT_MS)
            assert "pw-one-time-123" in page.inner_text("#new-out") and made == ["zoe"]
            assert page.get_attribute("#new-out img", "src").startswith("data:image/png;base64,")
            # must-move: the 50/100 Hold'em list feeds the Omaha game; a reason is required
            page.select_option("#mm-list", label="no-limit holdem 50/100")
            page.select_option("#mm-main", label="pot-limit omaha 50/100")
            page.fill("#mm-why", "Omaha is the main game tonight")
            page.click("#mm button")
            page.wait_for_function("document.querySelector('#log').innerText.includes('Omaha is the main game')",
                                   timeout=WAIT_MS)
            assert rig.desk.lists.feeds == {"t7": ListKey(**PLO)}
            # a move with a reason; the lists and the log show it
            page.fill("#move-player", "yan")
            page.select_option("#move-from", label="no-limit holdem 50/100")
            page.select_option("#move-to", label="pot-limit omaha 50/100")
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
            browser.close()
    finally:
        srv.stop()
        rig.close()
