"""Show or muck at the showdown from the seat tablet (P-2, P-4), end to end: headless
Chromium, the real broker with per-seat credentials, ``livetable simulate`` (see conftest).

Three seats: a simulated player in seat 1 and tablets in seats 2 and 3, which check or call
through their own buttons. When seat 2's hand cannot beat a hand already shown the page
offers Show and Muck on the show-or-muck clock; the test taps Muck. Seat 3's page sees the
hand end with seat 2 holding no cards and never receives seat 2's mucked cards. Seat 3
taps Show whenever it is asked. Then the auto-muck preference is switched on from the page.
"""

from __future__ import annotations

import json
import time
from typing import Any, Iterator

import pytest

from .conftest import SKIP, TABLE, TableRig, open_tablet, shot, wait_js

pytestmark = [pytest.mark.broker, pytest.mark.skipif(SKIP is not None, reason=SKIP or "")]

SHOWDOWN_WAIT = 300  # seconds: seat 2 needs a showdown it loses after a hand was shown

# Betting through the page's buttons while window.__auto is true: check, else call, else
# fold. Flags: __show / __muck answer a show-or-muck turn; __fold folds (checks when free);
# __bet bets or raises the minimum from the slider.
AUTOPLAY = """() => {
  window.__auto = true;
  setInterval(() => {
    const lt = window.livetable;
    const p = lt && lt.private;
    if (!window.__auto || !p || !p.to_act || !p.legal || window.__autoSeq === p.seq) return;
    const order = [];
    if (window.__fold) order.push('#actions button[data-act="fold"]');
    if (window.__bet) order.push('#bet-button', '#actions button[data-act="raise"]', '#actions button[data-act="bet"]');
    order.push('#actions button[data-act="check"]', '#actions button[data-act="call"]');
    if (window.__show) order.push('#showdown-box button[data-act="show"]');
    if (window.__muck) order.push('#showdown-box button[data-act="muck"]');
    order.push('#actions button[data-act="fold"]');
    const pick = order.map((s) => document.querySelector(s)).find((b) => b && b.offsetParent !== null);
    if (pick) { window.__autoSeq = p.seq; pick.click(); }
  }, 150);
}"""


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TableRig]:
    r = TableRig(tmp_path_factory.mktemp("tablet-showmuck"), game="holdem", seats=3, tablet_seats=(2, 3),
                 seed=11)
    try:
        yield r.start()
    finally:
        r.stop()


@pytest.fixture(scope="module")
def pages(browser: Any, rig: TableRig) -> Iterator[tuple[Any, Any]]:
    p2 = open_tablet(browser, rig.url(2))
    p3 = open_tablet(browser, rig.url(3))
    for p in (p2, p3):
        p.evaluate(AUTOPLAY)
    p3.evaluate("window.__show = true")
    yield p2, p3
    for p in (p2, p3):
        assert p.errors == [], f"page errors: {p.errors}"
        p.context.close()


def test_a_losing_hand_is_mucked_from_the_page_and_stays_off_the_other_seats_page(
        rig: TableRig, pages: tuple[Any, Any]) -> None:
    p2, p3 = pages
    # seat 2's show-or-muck turn: Show and Muck, the turn's banner and clock
    asked = wait_js(p2, """() => { const p = window.livetable.private;
        const b = document.querySelector('#showdown-box button[data-act="muck"]');
        return p && p.to_act && p.legal && p.legal.muck && b && b.offsetParent !== null
            ? {hand: p.hand, cards: p.cards, seq: p.seq} : null; }""", timeout=SHOWDOWN_WAIT * 1000)
    assert p2.evaluate("document.body.dataset.screen") == "your-turn"
    assert "show or muck" in p2.locator("#banner").inner_text()
    assert p2.locator('#showdown-box button[data-act="show"]').is_visible()
    assert p2.locator("#actions button").count() == 0  # no betting buttons at the showdown
    assert p2.locator("#my-timer").is_visible()
    state = p2.evaluate("window.livetable.state")
    assert state["street"] == "showdown" and state["turn"]["seat"] == 2 and state["turn"]["showdown"] is True
    assert any(s["shown"] for s in state["seats"] if s["seat"] != 2)  # a hand seat 2 cannot beat
    shot(p2, "20-show-or-muck")
    p2.locator('#showdown-box button[data-act="muck"]').click()
    sent = p2.evaluate("window.livetable.sent.at(-1)")
    assert sent["action"] == "muck"
    reply = wait_js(p2, "(id) => window.livetable.replies[id]", sent["id"], timeout=10_000)
    assert reply["accepted"] is True, reply
    wait_js(p2, "() => document.querySelector('#showdown-box').hidden")
    hand = asked["hand"]
    # seat 3's page sees the result: seat 2 holds nothing any more and the pot is awarded
    wait_js(p3, """(hand) => { const s = window.livetable.state;
        return s.hand > hand || (s.hand === hand && s.street === 'waiting' && s.showdown); }""", hand)
    seen = [s for s in list(rig.states) if s["hand"] == hand and s["seq"] > asked["seq"]]
    assert seen and all(next(x for x in s["seats"] if x["seat"] == 2)["shown"] is None for s in seen)
    assert any(next(x for x in s["seats"] if x["seat"] == 2)["cards"] == 0 for s in seen)
    ended = [s for s in seen if s["street"] == "waiting" and s["showdown"]]
    assert ended and 2 not in {w for p in ended[-1]["showdown"] for w in p["winners"]}
    shot(p3, "21-other-seat-after-muck")
    # P-4: the table recorded the muck; the journal holds seat 2's own decision
    mucks = [e for e in rig.journal_entries("action-taken") if e["seat"] == 2 and e["action"] == "muck"]
    assert mucks
    # the mucked cards never reached seat 3's page (nor any public state)
    frames3 = b"".join(p3.frames_in).decode("utf-8", errors="replace")
    for text in (json.dumps(asked["cards"]), json.dumps(asked["cards"], separators=(",", ":"))):
        assert text not in frames3
    assert [t for t in p3.evaluate("window.livetable.received") if "/seat/2/" in t] == []
    assert not any(tuple(x["shown"] or ()) == tuple(asked["cards"]) for s in list(rig.states) for x in s["seats"])


def test_auto_muck_preference_is_set_from_the_page(rig: TableRig, pages: tuple[Any, Any]) -> None:
    p2, _ = pages
    p2.locator('#tabs button[data-tab="seat"]').click()  # a standing choice: under My seat (issue 20)
    button = p2.locator("#auto-muck")
    assert button.is_visible() and button.get_attribute("aria-pressed") == "false"
    n = len(p2.evaluate("window.livetable.sent"))
    button.click()
    # the seat may also act in the hand meanwhile: find the request among what was sent
    sent = wait_js(p2, "(n) => window.livetable.sent.slice(n).find((a) => a.action === 'auto_muck')", n,
                   timeout=5_000)
    assert sent["choice"] == "on"
    reply = wait_js(p2, "(id) => window.livetable.replies[id]", sent["id"], timeout=10_000)
    # taken, or refused as stale (M-4: the hand moved on meanwhile) and sent again by the page
    assert reply["accepted"] is True or reply["reason"].startswith("M-4"), reply
    wait_js(p2, "() => window.livetable.state.seats.find((x) => x.seat === 2).auto_muck === true")
    wait_js(p2, "() => document.querySelector('#auto-muck').getAttribute('aria-pressed') === 'true'")
    deadline = time.monotonic() + 10
    while not [e for e in rig.journal_entries("auto-muck-set") if e["seat"] == 2 and e["on"] is True]:
        assert time.monotonic() < deadline, "the preference never reached the table's journal"
        p2.wait_for_timeout(200)
    shot(p2, "22-auto-muck")
    button.click()  # and off again
    wait_js(p2, "() => window.livetable.state.seats.find((x) => x.seat === 2).auto_muck === false")
    assert TABLE == rig.states[-1]["table"]


def test_the_uncalled_winner_may_show_from_the_page(rig: TableRig, pages: tuple[Any, Any]) -> None:
    """P-2: seat 2 bets, seat 3 folds; when the simulated player folds too, seat 2's page
    offers Show alone until the next hand (the table waits a moment); tapped, the public
    state shows seat 2's cards face up and seat 3's page receives it."""
    p2, p3 = pages
    p2.evaluate("window.__bet = true; window.__muck = true")
    p3.evaluate("window.__fold = true")
    try:
        offer = wait_js(p2, """() => { const p = window.livetable.private;
            const b = document.querySelector('#showdown-box button[data-act="show"]');
            const m = document.querySelector('#showdown-box button[data-act="muck"]');
            if (!(p && !p.to_act && p.legal && p.legal.show && b && b.offsetParent !== null)) return null;
            return {hand: p.hand, cards: p.cards, muck: !!(m && m.offsetParent !== null),
                    hint: document.querySelector('#showdown-hint').textContent}; }""",
                        timeout=SHOWDOWN_WAIT * 1000)
        p2.locator('#showdown-box button[data-act="show"]').click()
    finally:
        p2.evaluate("window.__bet = false; window.__muck = false")
        p3.evaluate("window.__fold = false")
    assert offer["muck"] is False and "won uncalled" in offer["hint"]
    sent = wait_js(p2, "() => window.livetable.sent.findLast((a) => a.action === 'show')", timeout=5_000)
    reply = wait_js(p2, "(id) => window.livetable.replies[id]", sent["id"], timeout=10_000)
    assert reply["accepted"] is True, reply
    # the public state shows the cards face up on seat 2 until the next hand, and the other
    # seat's page received it (the next hand may start at once, so the wire is checked)
    deadline = time.monotonic() + 10
    want = json.dumps({"shown": offer["cards"]}, separators=(",", ":"))[1:-1]  # "shown":["..","..."]
    while not any(s["hand"] == offer["hand"] and next(x for x in s["seats"] if x["seat"] == 2)["shown"]
                  == offer["cards"] for s in list(rig.states)):
        assert time.monotonic() < deadline, "the shown hand never reached the public state"
        p2.wait_for_timeout(100)
    wait_js(p3, "(hand) => window.livetable.state.hand >= hand", offer["hand"], timeout=10_000)
    frames3 = b"".join(p3.frames_in).decode("utf-8", errors="replace")
    assert want in frames3, want
    shot(p3, "23-uncalled-winner-showed")
    shows = [e for e in rig.journal_entries("action-taken") if e["seat"] == 2 and e["action"] == "show"]
    assert shows
