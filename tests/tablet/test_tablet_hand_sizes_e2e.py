"""A hand played on a phone (390x844) against ``livetable simulate`` (issue 20): the player
takes the free seat, is dealt in, goes all-in with the page's own button, sees the hand to
its end as the dealer announces it, busts and buys in again from the page; at each step the
screen passes the layout check (nothing overlapping or cut, touch targets, text size, no
rule ids; layout_checks.py). Screenshots artifacts/tablet/phone-*.png.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import SKIP, WAIT_MS, open_tablet, shot, wait_js
from .layout_checks import LAYOUT_JS, RULE_IDS_JS
from .test_tablet_join_e2e import SEAT, JoinRig, _summary

pytestmark = [pytest.mark.broker, pytest.mark.skipif(SKIP is not None, reason=SKIP or "")]

#: every turn: all-in (or the call that is all-in), so the hand reaches its end with our cards
ALL_IN = """() => {
  setInterval(() => {
    const lt = window.livetable;
    const p = lt && lt.private;
    if (window.__stop || !p || !p.to_act || !p.legal || window.__autoSeq === p.seq) return;
    const pick = ['#actions button[data-act="all_in"]', '#actions button[data-act="call"]',
                  '#actions button[data-act="check"]', '#showdown-box button[data-act="show"]']
                 .map((s) => document.querySelector(s)).find((b) => b && b.offsetParent !== null && !b.disabled);
    if (pick) { window.__autoSeq = p.seq; window.__clicked = (window.__clicked || []).concat(pick.textContent); pick.click(); }
  }, 150);
}"""


def _check(page: Any, name: str) -> list[str]:
    shot(page, f"phone-{name}")
    return [f"{name}: {p}" for p in page.evaluate(LAYOUT_JS)] + \
        [f"{name}: rule id shown: {t}" for t in page.evaluate(RULE_IDS_JS)]


def test_a_hand_on_a_phone_from_taking_the_seat_to_busting_and_buying_in_again(browser: Any, tmp_path: Path) -> None:
    rig = JoinRig(tmp_path, game="holdem", seats=5, tablet_seats=(), speed=2.0)
    page = None
    problems: list[str] = []
    try:
        rig.start()
        page = open_tablet(browser, rig.url(SEAT))
        page.set_viewport_size({"width": 390, "height": 844})
        wait_js(page, "() => !document.querySelector('#join-form').hidden")
        problems += _check(page, "join")
        page.fill("#join-name", "Ann")
        page.click("#join-min")
        page.click("#join-button")
        wait_js(page, f"() => window.livetable.state.seats[{SEAT - 1}].name === 'Ann'")
        problems += _check(page, "seated")
        # dealt in: our turn, with our buttons
        wait_js(page, "() => document.body.dataset.screen === 'your-turn'", timeout=3 * WAIT_MS)
        problems += _check(page, "turn")
        buttons = page.locator("#actions button").all_inner_texts()
        assert any(b.startswith(("All-in", "Call all-in")) for b in buttons), buttons
        start_hand = page.evaluate("window.livetable.state.hand")
        page.evaluate(ALL_IN)
        # the hand ends: the awards are on the felt as the dealer announces them
        # (read in one go: the next hand clears them about 3 s later)
        seen = wait_js(page, """(h) => { const s = window.livetable.state;
            const lines = [...document.querySelectorAll('#showdown .line')].map((e) => e.textContent);
            if (!(s.hand >= h && lines.length)) return null;
            return { lines, problems: (%s)(), ids: (%s)() }; }""" % (LAYOUT_JS.strip(), RULE_IDS_JS.strip()),
                       start_hand, timeout=3 * WAIT_MS)
        shot(page, "phone-hand-over")
        problems += [f"hand-over: {p}" for p in seen["problems"]] + [f"hand-over: rule id {t}" for t in seen["ids"]]
        pots = [t for t in seen["lines"] if not t.startswith("Rake ")]
        assert pots[0].startswith("Main pot ") and all(" wins " in t or " split: " in t for t in pots), seen["lines"]
        # all-in every hand: she busts (seed 7: in the first one) and buys in again from the page
        wait_js(page, "() => !document.querySelector('#rebuy-form').hidden", timeout=3 * WAIT_MS)
        problems += _check(page, "busted")
        assert page.locator("#sit-in").is_disabled() and page.locator("#topup-button").is_disabled()
        page.evaluate("window.__stop = true")
        page.click("#rebuy-min")
        page.click("#rebuy-button")
        sent = wait_js(page, "() => window.livetable.sent.find((p) => p.action === 'buy_in')")
        reply = wait_js(page, "(id) => window.livetable.replies[id]", sent["id"])
        assert reply["accepted"], reply
        wait_js(page, f"() => window.livetable.state.seats[{SEAT - 1}].stack > 0 || "
                      f"window.livetable.state.seats[{SEAT - 1}].bet > 0", timeout=WAIT_MS)
        assert page.locator("#rebuy-form").is_hidden()
        problems += _check(page, "bought-in-again")
        bought = [b for b in rig.journal_entries("bought-in") if b.get("seat") == SEAT]
        assert [b["amount"] for b in bought] == [sent["amount"]]
        clicked = page.evaluate("window.__clicked || []")
        assert clicked, "the page's own all-in button was used"
        assert page.errors == [], f"page errors: {page.errors}"
    finally:
        if page is not None:
            page.context.close()
        rig.stop()
    assert problems == [], json.dumps(problems, indent=1)
    summary = _summary(rig.sim_log())
    assert summary["invariant_errors"] == [], summary["invariant_errors"]
