"""The tournament on the seat tablet in Chromium (issue 19): a public state carrying
``tournament_view`` shows the level, the time left counting down, the next level, players
left, average stack and prize pool in a bar under the banner, and every seat's stack in
big blinds; at a phone's and a seat screen's size nothing overlaps or is cut
(layout_checks.py); a cash table's state shows no bar. The same private broker and page
as the screens test (conftest.py)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from . import screen_states as ss
from .conftest import SKIP, TABLE, TableRig, open_tablet, shot, wait_js
from .layout_checks import LAYOUT_JS
from .test_tablet_screens_e2e import VIEWPORTS, Publisher, pub, rig  # noqa: F401 - the screens test's rig and publisher

pytestmark = [pytest.mark.broker, pytest.mark.skipif(SKIP is not None, reason=SKIP or "")]


def tournament_state() -> tuple[dict[str, Any], dict[str, Any]]:
    state, private = ss.my_turn()
    state["tournament_view"] = {
        "level": {"number": 12, "small_blind": 10_000, "big_blind": 20_000, "ante": 0, "big_blind_ante": 20_000},
        "next_level": {"number": 13, "small_blind": 15_000, "big_blind": 30_000, "ante": 0, "big_blind_ante": 30_000},
        "seconds_left": 600, "running": True, "at": time.time(), "on_break": False, "players_left": 118,
        "entries": 1_024, "average_stack": 1_388_135, "prize_pool": 1_234_560, "finished": False,
        "seats_bb": {str(s["seat"]): s["stack"] * 10 // 20_000 for s in state["seats"]},
    }
    return state, private


def _show(page: Any, pub: Publisher, state: dict[str, Any], private: dict[str, Any]) -> None:
    seq = pub.show(state, private)
    wait_js(page, "(seq) => window.livetable.state && window.livetable.state.seq === seq", seq, timeout=10_000)


@pytest.mark.parametrize("size", ["phone", "seat-screen"])
def test_the_tablet_shows_the_tournament(browser: Any, rig: TableRig, pub: Publisher, size: str) -> None:
    w, h = VIEWPORTS[size]
    page = open_tablet(browser, rig.url(ss.ME))
    try:
        page.set_viewport_size({"width": w, "height": h})
        wait_js(page, "(t) => window.livetable.received.includes(t)", f"livetable/{TABLE}/presence/controller",
                timeout=10_000)
        state, private = tournament_state()
        _show(page, pub, state, private)
        bar = page.locator("#tourney")
        assert bar.is_visible()
        assert page.locator("#tourney-level").inner_text() == "Level 12 · 10,000/20,000 BB ante 20,000"
        assert page.locator("#tourney-next").inner_text() == "Next 15,000/30,000 BB ante 30,000"
        assert page.locator("#tourney-numbers").inner_text() == "Players 118/1,024 · Avg 1,388,135 · Pool 1,234,560"
        # the level's clock counts down on the tablet (published: 10:00 left)
        wait_js(page, "() => /^9:[0-5][0-9]$/.test(document.querySelector('#tourney-clock').textContent)",
                timeout=10_000)
        me = state["seats"][ss.ME - 1]
        tenths = me["stack"] * 10 // 20_000
        stack = page.locator(f'.seat[data-seat="{ss.ME}"] .stack').inner_text()
        bb = f"{tenths // 10}.{tenths % 10}" if tenths % 10 else f"{tenths // 10}"
        # the stack line carries the seat's marks too (in big blinds, D/SB/BB): the chips come first
        assert stack.split("\n")[0] == f"{me['stack']:,}"
        assert page.locator(f'.seat[data-seat="{ss.ME}"] .in-bb').inner_text() == f"{bb} BB"
        shot(page, f"tournament-{size}")
        problems = page.evaluate(LAYOUT_JS)
        assert problems == [], json.dumps(problems, indent=1)
        # a cash table's state: no bar, plain stacks
        cash, private = ss.my_turn()
        _show(page, pub, cash, private)
        assert not bar.is_visible()
        assert page.locator(".seat .in-bb").count() == 0
        assert page.errors == []
    finally:
        page.context.close()
