"""The tournament on the seat tablet in Chromium (issue 19): a public state carrying
``tournament_view`` shows the level, the time left counting down, the next level, players
left, average stack and prize pool in a bar under the banner, and every seat's stack in
big blinds; at the four sizes of the screens test nothing overlaps, is cut or scrolls
(layout_checks.py); a cash table's state shows no bar and the cash layout. The same private broker and page
as the screens test (conftest.py)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from . import screen_states as ss
from .conftest import SKIP, TABLE, TableRig, open_tablet, shot, wait_js
from .layout_checks import LAYOUT_JS, LEFT_BEHIND_JS
from .test_tablet_screens_e2e import AXE, AXE_RUN, VIEWPORTS, Publisher, pub, rig  # noqa: F401 - the screens test's rig and publisher

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


def _show(page: Any, pub: Publisher, state: dict[str, Any], private: dict[str, Any] | None) -> None:
    seq = pub.show(state, private)
    wait_js(page, "(seq) => window.livetable.state && window.livetable.state.seq === seq", seq, timeout=10_000)


#: where the seats, my seat's block and the side panels are (a cash table's view is the same
#: before and after a tournament's state: nothing of the tournament's layout stays behind)
RECTS_JS = """() => Object.fromEntries(['#felt', '#me', '#side', ...[...document.querySelectorAll('.seat')]
  .map((e) => `.seat[data-seat="${e.dataset.seat}"]`)].map((s) => {
    const r = document.querySelector(s).getBoundingClientRect();
    return [s, [r.left, r.top, r.width, r.height].map(Math.round)];
  }))"""


@pytest.mark.parametrize("size", list(VIEWPORTS))
def test_the_tablet_shows_the_tournament(browser: Any, rig: TableRig, pub: Publisher, size: str) -> None:
    """Issue 19 in issue 20's layouts: at all four sizes the bar and every seat's stack in big
    blinds fit with no scrolling, nothing cut or overlapping (the merge scrolled 914 px on a
    844 px phone and cut "12,345 0.6 BB D"). A phone shows the bar on one line (level and
    clock; a tap shows the rest), a wide screen at the top of the side column."""
    w, h = VIEWPORTS[size]
    page = open_tablet(browser, rig.url(ss.ME))
    try:
        page.set_viewport_size({"width": w, "height": h})
        wait_js(page, "(t) => window.livetable.received.includes(t)", f"livetable/{TABLE}/presence/controller",
                timeout=10_000)
        cash, cash_private = ss.my_turn()
        _show(page, pub, cash, cash_private)
        cash_rects = page.evaluate(RECTS_JS)
        state, private = tournament_state()
        _show(page, pub, state, private)
        bar = page.locator("#tourney")
        assert bar.is_visible()
        assert page.locator("#tourney-level").inner_text() == "Level 12 · 10,000/20,000 BB ante 20,000"
        # the level's clock counts down on the tablet (published: 10:00 left)
        wait_js(page, "() => /^9:[0-5][0-9]$/.test(document.querySelector('#tourney-clock').textContent)",
                timeout=10_000)
        me = state["seats"][ss.ME - 1]
        stack = page.locator(f'.seat[data-seat="{ss.ME}"] .stack').inner_text()
        # the stack line carries the chips and the seat's D/SB/BB marks
        assert stack.split("\n")[0] == f"{me['stack']:,}"
        for seat in state["seats"]:  # every seat's stack in big blinds, with its cards
            tenths = seat["stack"] * 10 // 20_000
            bb = f"{tenths // 10}.{tenths % 10}" if tenths % 10 else f"{tenths // 10}"
            assert page.locator(f'.seat[data-seat="{seat["seat"]}"] .in-bb').inner_text() == f"{bb} BB"
        box = bar.bounding_box()
        felt = page.locator("#felt").bounding_box()
        assert box is not None and felt is not None
        if size == "phone":  # one line; the next level and the numbers while the bar is tapped
            assert box["height"] < 30, box
            assert not page.locator("#tourney-next").is_visible()
            shot(page, f"tournament-{size}")
            assert page.evaluate(LAYOUT_JS) == []
            bar.click()
            assert page.locator("#tourney-numbers").is_visible()
            shot(page, f"tournament-{size}-open")
        elif size in ("tablet-landscape", "seat-screen"):  # beside the table, which keeps its width
            assert box["x"] >= felt["x"] + felt["width"], (box, felt)
        assert page.locator("#tourney-next").inner_text() == "Next 15,000/30,000 BB ante 30,000"
        assert page.locator("#tourney-numbers").inner_text() == "Players 118/1,024 · Avg 1,388,135 · Pool 1,234,560"
        if size == "phone":
            bar.click()
            assert not page.locator("#tourney-numbers").is_visible()
        else:
            shot(page, f"tournament-{size}")
        problems = page.evaluate(LAYOUT_JS)
        assert problems == [], json.dumps(problems, indent=1)
        if AXE.exists():  # contrast and names of the bar and the stacks in big blinds (axe-core)
            page.add_script_tag(path=str(AXE))
            assert page.evaluate(AXE_RUN) == []
        # a cash table's state: no bar, plain stacks, the screens branch's layout as it was
        _show(page, pub, cash, cash_private)
        assert not bar.is_visible()
        assert page.locator(".seat .in-bb").count() == 0
        assert page.evaluate(RECTS_JS) == cash_rects
        assert page.errors == []
    finally:
        page.context.close()


def as_tournament(state: dict[str, Any], deep: int) -> dict[str, Any]:
    """``state`` at level 12 of :func:`tournament_state` with every stack ``deep`` times bigger
    (a tournament's stacks: 123,450 chips are 6.1 big blinds, 1,500,000 are 75)."""
    view = tournament_state()[0]["tournament_view"]
    for seat in state["seats"]:
        seat["stack"] *= deep
    # every seat taken has its figure, 0 for no chips, as the room's view gives (tournament_link_view.py);
    # the screen's own fields of the view (a tournament screen's ``out``) are kept
    return {**state, "tournament_view": {**view, "seats_bb": {str(s["seat"]): s["stack"] * 10 // 20_000
                                                                for s in state["seats"] if s["status"] != "empty"},
                                         **state.get("tournament_view", {})}}


@pytest.mark.parametrize(("size", "lang"), [(v, "en") for v in VIEWPORTS] + [("phone", "nl")])
def test_every_screen_of_a_tournament_fits(browser: Any, rig: TableRig, pub: Publisher, size: str, lang: str) -> None:
    """Issue 19 in issue 20's screens: each screen of the screens test (our turn, all-in,
    pre-selections, the showdown with its cards shown, busted, the free seat, paused) at a
    tournament with the view's stacks (six and seven digits beside one or two
    digits in big blinds), in Dutch too on the phone: nothing overlaps, is cut or scrolls,
    and an empty player's area leaves no box and no room (the tournament bar's rows too)."""
    w, h = VIEWPORTS[size]
    page = open_tablet(browser, rig.url(ss.ME) + ("&lang=nl" if lang == "nl" else ""))
    try:
        page.set_viewport_size({"width": w, "height": h})
        wait_js(page, "(t) => window.livetable.received.includes(t)", f"livetable/{TABLE}/presence/controller",
                timeout=10_000)
        found: dict[str, list[str]] = {}
        for screen, make in {**ss.SCREENS, **ss.TOURNAMENT_SCREENS}.items():
            if screen in ss.CASH_ONLY:  # missed blinds and a buy-in to confirm: no tournament shows them
                continue
            state, private = make()
            _show(page, pub, as_tournament(state, 10), private)
            assert page.locator("#tourney").is_visible()
            if screen == "tournament-out":  # a seat that is out shows no "0 BB" (it did beside its words)
                for n in (ss.ME, 4, 7):
                    assert page.locator(f'.seat[data-seat="{n}"] .in-bb').count() == 0, n
                assert page.locator('.seat[data-seat="1"] .in-bb').count() == 1
                out = page.locator('.seat[data-seat="7"] .status').inner_text()
                assert out == ("Uit — 5e" if lang == "nl" else "Out — 5th"), out
            shot(page, f"tournament-{size}-{screen}" + ("-nl" if lang == "nl" else ""))
            problems = page.evaluate(LAYOUT_JS) + page.evaluate(LEFT_BEHIND_JS)
            if problems:
                found[screen] = problems
        assert found == {}, json.dumps(found, indent=1)
        assert page.errors == []
    finally:
        page.context.close()


def test_a_turned_tablet_fits_the_stacks_again(browser: Any, rig: TableRig, pub: Publisher) -> None:
    """At the showdown a phone's seat with face-up cards has no room for the stack in big
    blinds (left to screen readers, fitStacks); the screen turned to 1080x810, the wide
    seat has the room again: every figure shows, and the layout check passes."""
    page = open_tablet(browser, rig.url(ss.ME))
    try:
        page.set_viewport_size({"width": 390, "height": 844})
        wait_js(page, "(t) => window.livetable.received.includes(t)", f"livetable/{TABLE}/presence/controller",
                timeout=10_000)
        state, private = ss.all_in_showdown()
        _show(page, pub, as_tournament(state, 10), private)
        wait_js(page, "() => window.livetable.private === null", timeout=10_000)
        hidden = "() => document.querySelectorAll('.seat .in-bb.sr-only').length"
        wait_js(page, f"() => ({hidden})() > 0", timeout=10_000)
        # a listener after the page's own: set once the page has handled the resize
        page.evaluate("() => addEventListener('resize', () => { window.resized = true; })")
        page.set_viewport_size({"width": 1080, "height": 810})
        wait_js(page, "() => window.resized === true && innerWidth === 1080", timeout=10_000)
        assert page.evaluate(hidden) == 0
        problems = page.evaluate(LAYOUT_JS)
        assert problems == [], json.dumps(problems, indent=1)
        assert page.errors == []
    finally:
        page.context.close()
