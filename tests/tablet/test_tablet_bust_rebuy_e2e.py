"""A player busts and buys in again from the page, on a live table, on every run (T-2, T-5).

Headless Chromium on the page, the real broker with this seat's credentials and
``livetable simulate --join-seats 3 --players-style call`` (see conftest.py for the rig): the
simulated players in the other five seats check or call every bet, so the page's player,
who buys in short (the minimum, 20 big blinds, against their 100) and goes all-in with the
page's own button at every turn, is called by all five and busts unless she wins or splits
the main pot (about one all-in in six against five callers): most runs bust her in her
first or second all-in, a win only makes her all-in the next hand bigger. The page then shows the busted screen (Buy in again, Sit in and Top
up disabled, "You have no chips left"); its own *Buy in* brings the maximum, the seat shows
the chips, and the page is dealt into a following hand (tapping *Post the big blind now*
when the seat owes missed blinds, T-6). The journal holds the seat's one ``bought-in`` with
that amount and simulate's own chip audit found nothing.

test_tablet_hand_sizes_e2e.py's ``[through-bust]`` run does the same at four sizes at once
against random simulated players, whose bust is luck (27-318 s): it is marked slow. This
test is the every-run one.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import SKIP, TableRig, open_tablet, shot, wait_js
from .layout_checks import LAYOUT_JS, LEFT_BEHIND_JS, RULE_IDS_JS
from .test_tablet_join_e2e import _summary

pytestmark = [pytest.mark.broker, pytest.mark.skipif(SKIP is not None, reason=SKIP or "")]

SEAT = 3
#: the bounded wait for each step (a whole run takes 9-17 s); the bust's leaves room for a
#: dozen hands at the table's pace (each held 1 s for the result)
STEP_MS = 60_000

#: the page's play: on its turn, all-in (or the call that is all-in, or a free check), and
#: show or muck when asked at the showdown; ``window.__mode = 'wait'`` stops it
ALL_IN = """() => {
  window.__mode = 'allin';
  setInterval(() => {
    const p = window.livetable && window.livetable.private;
    if (window.__mode !== 'allin' || !p || !p.to_act || !p.legal || window.__autoSeq === p.seq) return;
    const pick = ['all_in', 'call', 'check', 'show', 'muck'].map((a) => document.querySelector(
      `#actions button[data-act="${a}"], #showdown-box button[data-act="${a}"]`))
      .find((b) => b && b.offsetParent !== null && !b.disabled);
    if (pick) { window.__autoSeq = p.seq; window.__clicked = (window.__clicked || []).concat(pick.dataset.act); pick.click(); }
  }, 100);
}"""


class CallersRig(TableRig):
    """The e2e rig with seat 3 free for the page and calling stations in the other seats."""

    def sim_args(self) -> list[str]:
        return super().sim_args() + ["--join-seats", str(SEAT), "--players-style", "call"]


def test_a_player_busts_and_buys_in_again_from_the_page(browser: Any, tmp_path: Path) -> None:
    """Join short, all-in until busted, the busted screen, Buy in (the page's own button),
    seated with the chips, dealt into a following hand: every step from the page, on the
    real controller over the real broker (T-2, T-3, T-6)."""
    t0 = time.monotonic()
    times: dict[str, float] = {}

    def mark(step: str) -> None:
        times[step] = round(time.monotonic() - t0, 1)

    # speed 60: the callers take 7-27 ms a decision (at once, the page drew hundreds of
    # states a second and lagged seconds behind on a loaded machine); the result is held
    # 0.5 s while the page is online: a hand takes about 1.3 s, so a busted seat has over
    # 10 s before T-5 stands it up
    rig = CallersRig(tmp_path, game="holdem", seats=6, tablet_seats=(), speed=60.0, result_seconds=0.5)
    page = None
    me = f"window.livetable.state.seats[{SEAT - 1}]"
    try:
        rig.start()
        page = open_tablet(browser, rig.url(SEAT))
        page.set_viewport_size({"width": 810, "height": 1080})
        wait_js(page, "() => !document.querySelector('#join-form').hidden", timeout=STEP_MS)
        mark("page")
        lo, hi = page.evaluate("() => [window.livetable.state.buy_in.min, window.livetable.state.buy_in.max]")
        # a hand a second or so: the offer changes with each (post now or not, T-4; the hint
        # keeps its room, so the buttons stay still: test_tablet_screens_e2e.py)
        page.fill("#join-name", "Ann", force=True)
        page.evaluate(ALL_IN)
        # the page's own controls, tapped in one go (no state between the taps can change the
        # offer and undo the choice): Min (short: every caller covers her), Post the big blind
        # now where offered (T-4: dealt into the next hand; else she waits for it), Take this seat
        page.evaluate("""() => { document.querySelector('#join-min').click();
          const post = document.querySelector('#join-post');
          if (!post.disabled) post.click();
          document.querySelector('#join-button').click(); }""")
        sent = wait_js(page, "() => window.livetable.sent.find((p) => p.action === 'take_seat')")
        assert sent["amount"] == lo
        mark("sent")
        hands = {"joined": page.evaluate("window.livetable.state.hand")}
        reply = wait_js(page, "(id) => window.livetable.replies[id]", sent["id"], timeout=STEP_MS)
        assert reply["accepted"], f"take_seat refused: {reply}\n{rig.sim_log()}"
        mark("seated")

        # all-in at every turn until she has no chips: the busted screen
        try:
            wait_js(page, "() => !document.querySelector('#rebuy-form').hidden", timeout=STEP_MS)
        except Exception as exc:  # Playwright's timeout: say how far she got
            raise AssertionError(f"not busted in {STEP_MS // 1000} s: steps {times}, her taps "
                                 f"{page.evaluate('window.__clicked || []')}\n{rig.sim_log()}") from exc
        mark("busted")
        page.evaluate("() => { window.__mode = 'wait'; }")
        bust = page.evaluate(f"() => [{me}.stack, {me}.status, window.livetable.state.hand]")
        hands["busted"] = bust[2]
        assert bust[0] == 0 and bust[1] not in ("active", "acting", "all-in"), bust
        assert "all_in" in page.evaluate("window.__clicked || []")  # she went all-in with the page's button
        allins = page.evaluate("""() => window.livetable.sent.filter((p) => p.action === 'all_in'
            && window.livetable.replies[p.id] && window.livetable.replies[p.id].accepted).length""")
        assert allins >= 1
        assert page.locator("#sit-in").is_disabled() and page.locator("#topup-button").is_disabled()
        assert page.locator("#hand-words").inner_text() == "You have no chips left"
        shot(page, "23-busted")
        problems = page.evaluate(LAYOUT_JS) + [f"rule id shown: {t}" for t in page.evaluate(RULE_IDS_JS)]
        assert problems == [], json.dumps(problems, indent=1)

        # the page's own Buy in, for the maximum
        page.click("#rebuy-max")
        assert page.locator("#rebuy-amount").input_value() == str(hi)
        page.click("#rebuy-button")
        buy = wait_js(page, "() => window.livetable.sent.find((p) => p.action === 'buy_in')")
        assert buy["amount"] == hi
        reply = wait_js(page, "(id) => window.livetable.replies[id]", buy["id"], timeout=STEP_MS)
        assert reply["accepted"], f"buy_in refused: {reply}\n{rig.sim_log()}"
        wait_js(page, f"(hi) => {me}.stack + {me}.bet === hi", hi, timeout=STEP_MS)  # seated with the chips
        assert page.locator("#rebuy-form").is_hidden()
        mark("bought-in")
        shot(page, "24-bought-in-again")
        # nothing left of the form: no empty bar, no room kept for it (an empty #me stayed)
        problems = page.evaluate(LAYOUT_JS) + page.evaluate(LEFT_BEHIND_JS)
        assert problems == [], json.dumps(problems, indent=1)

        # dealt into a following hand; a seat marked for missed blinds posts them (T-6)
        page.locator('#tabs button[data-tab="seat"]').click()
        dealt = """(bust) => { const p = window.livetable.private;
            if (p && p.hand > bust && Array.isArray(p.cards) && p.cards.length === 2) return p;
            const post = document.querySelector('#post-bb');
            if (post && !document.querySelector('#bb-choice').hidden && !post.disabled && !window.__posted) {
              window.__posted = true; post.click(); }
            return null; }"""
        mine = wait_js(page, dealt, bust[2], timeout=STEP_MS)
        mark("dealt-in")
        hands["dealt-in"] = mine["hand"]
        posted = page.evaluate("window.__posted === true")
        oracle = rig.private_at(SEAT, mine["seq"])  # the cards the table dealt seat 3
        assert oracle is not None and (oracle["hand"], oracle["cards"]) == (mine["hand"], mine["cards"])
        status = page.evaluate(f"() => {me}.status")
        assert status in ("active", "acting", "all-in"), status
        assert page.errors == [], f"page errors: {page.errors}"
    finally:
        if page is not None:
            page.context.close()
        rig.stop()
    print(f"steps (s since the test began): {times}; hands {hands}; all-ins {allins}; missed blinds posted: {posted}")
    joined = rig.journal_entries("player-joined")
    assert [(j["seat"], j["amount"]) for j in joined] == [(SEAT, lo)]
    bought = [b for b in rig.journal_entries("bought-in") if b.get("seat") == SEAT]
    assert [b["amount"] for b in bought] == [hi], bought
    summary = _summary(rig.sim_log())
    assert summary["invariant_errors"] == [], summary["invariant_errors"]
    assert summary["room"]["total_in"] >= lo + hi
