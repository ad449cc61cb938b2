"""The seat tablet end to end (issue 10): headless Chromium, the real broker with per-seat
credentials, and ``livetable simulate`` playing No Limit Hold'em with seats 2 and 5 left to
tablets (see conftest.py for the rig).

The tests run in file order on one table: joining, acting on the turn (A-1, S-4), a refused
action (M-4/A-1), a pre-selected action (A-3), the network dropping and coming back
(reconnect, catch up from retained state), chat (L-3), lobby (L-1), last hands (P-4), seat
management (T-5, T-7, T-8), and last that neither tablet ever received the other's cards.
Seat 5's tablet plays by itself (check, else call) through its own buttons; so does seat
2's between tests.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any, Iterator

import pytest

from .conftest import SKIP, TABLE, TableRig, open_tablet, shot, wait_js

pytestmark = [pytest.mark.broker, pytest.mark.skipif(SKIP is not None, reason=SKIP or "")]


# Plays through the page's own buttons while window.__auto is true: check, else call, else
# stand pat in the draw, else muck at the showdown (P-2), else fold. Used for seat 5
# throughout and seat 2 between tests.
AUTOPLAY = """() => {
  window.__auto = true;
  setInterval(() => {
    const lt = window.livetable;
    const p = lt && lt.private;
    if (!window.__auto || !p || !p.to_act || !p.legal || window.__autoSeq === p.seq) return;
    const pick = ['#actions button[data-act="check"]', '#actions button[data-act="call"]', '#draw-button',
                  '#showdown-box button[data-act="muck"]', '#actions button[data-act="fold"]']
                 .map((s) => document.querySelector(s))
                 .find((b) => b && b.offsetParent !== null);
    if (pick) { window.__autoSeq = p.seq; pick.click(); }
  }, 150);
}"""


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TableRig]:
    r = TableRig(tmp_path_factory.mktemp("tablet-e2e"), game="holdem", seats=6, tablet_seats=(2, 5))
    try:
        yield r.start()
    finally:
        r.stop()


@pytest.fixture(scope="module")
def pages(browser: Any, rig: TableRig) -> Iterator[tuple[Any, Any]]:
    p2 = open_tablet(browser, rig.url(2))
    p5 = open_tablet(browser, rig.url(5))
    p5.evaluate(AUTOPLAY)
    yield p2, p5
    for p in (p2, p5):
        assert p.errors == [], f"page errors: {p.errors}"
        p.context.close()


def screen(page: Any) -> str:
    return page.evaluate("document.body.dataset.screen")


def test_join_shows_the_table_from_the_seat_and_its_own_cards(rig: TableRig, pages: tuple[Any, Any]) -> None:
    """The page connects with its seat's credentials and draws the table, its cards, H-6 words."""
    p2, _ = pages
    assert screen(p2) in ("connecting", "catching-up", "playing", "your-turn")
    wait_js(p2, "() => ['playing', 'your-turn'].includes(document.body.dataset.screen)")
    mine = wait_js(p2, "() => { const p = window.livetable.private; return p && p.cards.length === 2 && p; }")
    oracle = rig.private_at(2, mine["seq"])  # the same view, as the broker delivered it
    assert oracle is not None and oracle["cards"] == mine["cards"]  # what the table dealt seat 2
    drawn = p2.locator("#my-cards .card").evaluate_all("els => els.map(e => e.dataset.card)")
    assert drawn == mine["cards"]
    assert p2.locator("#hand-words").inner_text().strip() != ""  # H-6 pre-flop words
    # our seat sits at the bottom; the others' hole cards are drawn face down
    me = p2.locator('#seats .seat[data-seat="2"]')
    assert "me" in me.get_attribute("class")
    # measured in one go: every new state draws the seats afresh
    box, felt = p2.evaluate("""() => [document.querySelector('#seats .seat[data-seat="2"]'),
        document.querySelector('#felt')].map((e) => e.getBoundingClientRect().toJSON())""")
    assert abs(box["bottom"] - felt["bottom"]) <= 2  # at the felt's bottom edge
    assert abs((box["left"] + box["right"]) / 2 - (felt["left"] + felt["right"]) / 2) <= 2  # in its middle
    state = p2.evaluate("window.livetable.state")
    for s in state["seats"]:
        if s["seat"] != 2 and s["cards"] and not s["shown"]:
            assert p2.locator(f'#seats .seat[data-seat="{s["seat"]}"] .card').count() == s["cards"]
            assert p2.locator(f'#seats .seat[data-seat="{s["seat"]}"] .card:not(.back)').count() == 0
    assert p2.locator("#table-name").inner_text() == state["name"]
    shot(p2, "01-table")
    p2.set_viewport_size({"width": 800, "height": 1280})  # a tablet held upright
    shot(p2, "01-table-portrait")
    p2.set_viewport_size({"width": 1280, "height": 800})


def test_broker_never_delivers_another_seats_cards_even_when_asked(rig: TableRig, pages: tuple[Any, Any]) -> None:
    """Seat 2's login subscribes to seat 5's private topic and to the whole table (``#``):
    the broker's ACL delivers neither seat 5's retained view nor the next ones."""
    p2, _ = pages
    assert rig.observer is not None
    p2.evaluate("""() => new Promise((resolve) => window.livetable.client.subscribe(
        ['livetable/t1/seat/5/private', 'livetable/t1/#'], {qos: 1}, () => resolve()))""")
    topic5 = f"livetable/{TABLE}/seat/5/private"
    count = lambda t: sum(1 for tp, pl, _ in t.messages if tp == topic5 and pl)  # noqa: E731
    n = count(rig.observer)
    rig.observer.wait_for(lambda t: count(t) > n, 60)  # seat 5 got a new view since the probe
    with rig.observer.cond:
        newest = json.loads(next(pl for tp, pl, _ in reversed(rig.observer.messages) if tp == topic5 and pl))
    # messages from one publisher reach a subscriber in order: once a later state arrived,
    # seat 5's view would have arrived before it, had the broker let it through
    wait_js(p2, "(seq) => window.livetable.state.seq > seq", newest["seq"])
    assert [t for t in p2.evaluate("window.livetable.received") if "/seat/5/" in t] == []
    assert any(t == f"livetable/{TABLE}/seat/2/private" for t in p2.evaluate("window.livetable.received"))


def test_acts_on_its_turn_with_the_legal_buttons_only(rig: TableRig, pages: tuple[Any, Any]) -> None:
    """A-1: on the turn only the legal actions show; a raise from the slider is taken (S-4)."""
    p2, _ = pages
    # a betting turn (a show-or-muck turn at the showdown, P-2, is left to its clock)
    wait_js(p2, "() => document.body.dataset.screen === 'your-turn' && !window.livetable.private.legal.muck")
    legal = p2.evaluate("window.livetable.private.legal")
    shown = set(p2.locator("#actions button").evaluate_all("els => els.map(e => e.dataset.act)"))
    kind = "raise" if legal.get("raise") else "bet" if legal.get("bet") else None
    slider = kind is not None and legal[kind]["max"] > legal[kind]["min"]
    assert all(legal.get(a) for a in shown), (shown, legal)  # nothing illegal is offered
    assert {a for a in ("fold", "check", "call") if legal.get(a)} <= shown, (shown, legal)
    assert (kind in shown or slider) if kind else True
    assert p2.locator("#slider-box").is_visible() == slider
    assert p2.locator("#my-timer").is_visible()  # A-2 bar on our turn
    shot(p2, "02-your-turn")
    if slider:
        p2.locator("#shortcuts button").first.click()  # "Min"
        amount = legal[kind]["min"]
        assert p2.locator("#bet-button").inner_text().endswith(f"{amount:,}")
        p2.locator("#bet-button").click()
    else:
        act = "check" if legal.get("check") else "call"
        p2.locator(f'#actions button[data-act="{act}"]').click()
        amount = None
    sent = p2.evaluate("window.livetable.sent")[-1]
    reply = wait_js(p2, "(id) => window.livetable.replies[id]", sent["id"], timeout=10_000)
    assert reply["accepted"] is True, reply
    assert sent["seq"] == reply["seq"] or reply["seq"] > sent["seq"]
    if amount is not None:
        assert sent["action"] == kind and sent["amount"] == amount
        # the table took the street total "to" for seat 2
        deadline = time.monotonic() + 10
        while not any(s["seq"] > sent["seq"] and next(x for x in s["seats"] if x["seat"] == 2)["bet"] == amount
                      for s in list(rig.states)):
            assert time.monotonic() < deadline, "the raise never showed in the public state"
            p2.wait_for_timeout(100)
    wait_js(p2, "() => document.body.dataset.screen !== 'your-turn'", timeout=10_000)


def test_refused_action_shows_the_reason(pages: tuple[Any, Any]) -> None:
    """An action out of turn comes back refused; the page shows the reason in plain words: the
    rule id stays in the refusals the floor reads from the console (issue 20)."""
    p2, _ = pages
    wait_js(p2, "() => window.livetable.state && !(window.livetable.private && window.livetable.private.to_act)")
    before = len(p2.evaluate("window.livetable.refusals"))
    p2.evaluate("window.livetable.send('check')")
    wait_js(p2, "(n) => window.livetable.refusals.length > n", before, timeout=10_000)
    text = p2.locator("#notice").inner_text()
    assert p2.locator("#notice").is_visible()
    reason = p2.evaluate("window.livetable.refusals").pop()["reason"]
    assert re.match(r"[A-Z]-\d+: \S", reason), reason
    assert text.startswith("Refused: ") and not re.search(r"\b[A-Z]-\d+\b", text), text
    shot(p2, "03-refused")


def test_preselected_fold_is_taken_when_the_turn_comes(rig: TableRig, pages: tuple[Any, Any]) -> None:
    """A-3: "Fold" picked while others act; the table folds for the seat when its turn comes."""
    p2, _ = pages
    p2.evaluate(AUTOPLAY)
    topic2 = f"livetable/{TABLE}/seat/2/private"

    def echo_after(seq: int) -> dict[str, Any] | None:  # the table's own echo of the choice
        assert rig.observer is not None
        with rig.observer.cond:
            views = [json.loads(pl) for tp, pl, _ in rig.observer.messages if tp == topic2 and pl]
        return next((v for v in views if v["seq"] > seq and (v["preselect"] or {}).get("choice") == "fold"), None)

    echo = None
    for _ in range(4):  # the turn may reach the seat before the choice reaches the table: try again
        p2.evaluate("window.__auto = true")
        wait_js(p2, """() => { const b = document.querySelector('#preselects button[data-choice="fold"]');
                               return b && b.offsetParent !== null; }""")
        # in one go inside the page: stop the autoplayer and tap "Fold" while it is shown
        seq0 = p2.evaluate("""() => { const b = document.querySelector('#preselects button[data-choice="fold"]');
            if (!b || b.offsetParent === null) return null;
            window.__auto = false; b.click(); return window.livetable.state.seq; }""")
        if seq0 is None:
            continue
        deadline = time.monotonic() + 10
        while (echo := echo_after(seq0)) is None and time.monotonic() < deadline:
            if p2.evaluate("!!(window.livetable.private && window.livetable.private.to_act)"):
                break  # too late for this round: play on and pick again on a later one
            p2.wait_for_timeout(50)
        if echo is not None:
            break
    else:
        pytest.fail("the table never echoed the pre-selected fold")
    lit = p2.evaluate("""() => { const p = window.livetable.private;
        const b = document.querySelector('#preselects button[data-choice="fold"]');
        return !(p && p.preselect && p.preselect.choice === 'fold') || (b && b.getAttribute('aria-pressed'));}""")
    assert lit in (True, "true")  # while the choice stands, its button is lit
    shot(p2, "04-preselect")
    hand = echo["hand"]
    # the seat folds without a tap: its status turns "folded" in this hand
    wait_js(p2, """(hand) => { const s = window.livetable.state;
        return s.hand === hand && s.seats.find((x) => x.seat === 2).status === 'folded'; }""", hand)
    sent = [a for a in p2.evaluate("window.livetable.sent") if a["seq"] >= seq0]
    # the page sent the choice (never resent with a newer seq: a stale one is told, M-4) and no fold
    assert sent and all(a["action"] == "preselect" and a["choice"] == "fold" for a in sent), sent
    between = [s for s in list(rig.states) if s["seq"] >= echo["seq"] and s["hand"] == hand]
    assert between and not any(s["turn"] and s["turn"]["seat"] == 2 for s in between)
    p2.evaluate("window.__auto = true")


def test_reconnects_after_the_network_drops_and_catches_up(rig: TableRig, pages: tuple[Any, Any]) -> None:
    """The page shows "reconnecting", then catches up from the retained state and view."""
    p2, _ = pages
    assert rig.proxy is not None and rig.observer is not None
    wait_js(p2, "() => document.body.dataset.screen === 'playing' || document.body.dataset.screen === 'your-turn'")
    rig.proxy.drop()
    try:
        wait_js(p2, "() => document.body.dataset.screen === 'reconnecting'", timeout=10_000)
        assert p2.locator("#conn").inner_text() == "Reconnecting…"
        shot(p2, "05-reconnecting")
        # the broker saw the tablet go (its Last Will: A-4 starts), and the table moved on
        rig.observer.wait_for(lambda t: any(
            tp == f"livetable/{TABLE}/presence/seat/2" and pl and not json.loads(pl)["online"]
            for tp, pl, _ in t.messages), 15)
        seen = p2.evaluate("window.livetable.state.seq")
        rig.observer.wait_seq(seen + 1, 30)
        back_from = len(rig.observer.messages)  # the presence "online" comes after this
    finally:
        rig.proxy.restore()
    wait_js(p2, "() => ['playing', 'your-turn', 'paused'].includes(document.body.dataset.screen)", timeout=20_000)
    # caught up: the page holds the broker's current state and our seat's current view
    target = rig.observer.state["seq"]
    wait_js(p2, "(seq) => window.livetable.state.seq >= seq", target, timeout=10_000)
    # the seat's view is its own retained topic: it may land just after the state; wait for
    # the page to hold the view the broker last delivered (its seq), then compare the cards
    oracle = rig.private_of(2)
    if oracle is not None:
        wait_js(p2, "(seq) => window.livetable.private && window.livetable.private.seq >= seq",
                oracle["seq"], timeout=10_000)
        oracle = rig.private_of(2)
        mine = p2.evaluate("window.livetable.private")
        if oracle is not None and mine["seq"] == oracle["seq"]:
            assert mine["cards"] == oracle["cards"]
    assert p2.locator("#conn").inner_text() == "Connected"
    rig.observer.wait_for(lambda t: any(
        tp == f"livetable/{TABLE}/presence/seat/2" and pl and json.loads(pl)["online"]
        for tp, pl, _ in t.messages[back_from:]), 10)
    shot(p2, "06-reconnected")


def test_chat_reaches_the_table(pages: tuple[Any, Any]) -> None:
    """L-3: a line typed on seat 2 appears on both tablets with the player's name."""
    p2, p5 = pages
    p2.locator('#tabs button[data-tab="chat"]').click()
    p2.locator("#chat-input").fill("good luck all")
    p2.locator("#chat-input").press("Enter")
    for p in (p2, p5):
        wait_js(p, "() => [...document.querySelectorAll('#chat-lines li')].some((li) => "
                   "li.textContent === 'Tablet 2: good luck all')", timeout=10_000)
    assert p2.locator("#chat-input").input_value() == ""
    shot(p2, "07-chat")


def test_lobby_lists_the_table_with_its_players(pages: tuple[Any, Any]) -> None:
    """L-1: the room's lobby shows the table by game with stakes and seated players."""
    p2, _ = pages
    p2.locator('#tabs button[data-tab="lobby"]').click()
    row = p2.locator('#lobby .lobby-table[data-table="t1"]')
    row.wait_for(timeout=10_000)
    assert "No Limit Hold'em 50/100" in row.inner_text() and "6/6 seated" in row.inner_text()
    assert p2.locator("#lobby h3").first.inner_text() == "Hold'em"
    # no room service here (newcomer F3): the tab says why there are no waiting lists
    assert p2.locator("#lobby .lists-note").inner_text() == (
        "Waiting lists need the room service: this table is not linked to a running room")
    row.click()
    assert "Seat 2: Tablet 2" in row.locator(".players").inner_text()
    shot(p2, "08-lobby")


def test_last_hands_show_mucked_cards_to_the_seated(rig: TableRig, pages: tuple[Any, Any]) -> None:
    """P-4: the seated history (retained, seat users only) is listed newest first.

    ``livetable simulate`` publishes no history yet, so the oracle (controller rights)
    publishes one in the docs/mqtt.md format; the tablet reads it through the broker's ACL.
    """
    p2, _ = pages
    assert rig.observer is not None
    hands = [{"hand": 900 + i, "ended": 1.0 + i, "game": "holdem", "board": ["Jh", "8c", "3d", "2s", "Kc"],
              "seats": [{"seat": 2, "name": "Tablet 2", "cards": ["Qs", "Qd"], "showed": "mucked", "net": -600},
                        {"seat": 1, "name": "Player 1", "cards": ["As", "Ad"], "showed": "shown", "net": 600}],
              "pots": [{"amount": 1200, "winners": [1], "hand": "Three of a kind, aces"}], "actions": []}
             for i in range(2)]
    rig.observer.send_raw(f"livetable/{TABLE}/history/seated", json.dumps(
        {"schema": 1, "table": TABLE, "view": "seated", "hands": hands}).encode()).wait_for_publish(5)
    p2.locator('#tabs button[data-tab="hands"]').click()
    wait_js(p2, "() => document.querySelectorAll('#history li').length === 2", timeout=10_000)
    first = p2.locator("#history li").first.inner_text()
    assert first.startswith("Hand #901") and "-600" in first and "mucked Qs Qd" in first
    shot(p2, "09-last-hands")


def test_sit_out_sit_in_top_up_and_stand_up(rig: TableRig, pages: tuple[Any, Any]) -> None:
    """T-5 sit out and back in, T-7 top up within the buy-in maximum, T-8 stand up."""
    p2, _ = pages
    p2.locator('#tabs button[data-tab="seat"]').click()
    assert "Up to" in p2.locator("#topup-range").inner_text()
    # T-7 first, while the seat is below the maximum: the hands go on meanwhile, and a pot won
    # can take the stack to the maximum (the page then rightly disables "Add chips")
    room = p2.evaluate("Number(document.querySelector('#topup-amount').max)")
    assert room > 0
    # more than the room left under the maximum is refused by the page itself
    p2.locator("#topup-amount").fill(str(room + 1))
    n = len(p2.evaluate("window.livetable.sent"))
    notes = len(p2.evaluate("window.livetable.notices"))
    p2.locator("#topup-button").click()
    assert any("T-7" in t for t in p2.evaluate("window.livetable.notices")[notes:])
    assert [a for a in p2.evaluate("window.livetable.sent")[n:] if a["action"] == "top_up"] == []
    amount = min(500, room)
    p2.locator("#topup-amount").fill(str(amount))
    n = len(p2.evaluate("window.livetable.sent"))
    p2.locator("#topup-button").click()
    # The seat may also act in the hand meanwhile (a call): find the top-up among what was sent.
    sent = wait_js(p2, "(n) => window.livetable.sent.slice(n).find((a) => a.action === 'top_up')", n,
                   timeout=5_000)
    assert sent["action"] == "top_up" and sent["amount"] == amount
    wait_js(p2, "(id) => window.livetable.replies[id]", sent["id"], timeout=10_000)
    deadline = time.monotonic() + 15
    while not any(e["seat"] == 2 and e["amount"] == amount for e in rig.journal_entries("topped-up")):
        assert time.monotonic() < deadline, "the top-up never reached the table's journal"
        p2.wait_for_timeout(200)
    # T-5: sit out and back in
    p2.locator("#sit-out").click()
    wait_js(p2, "() => window.livetable.state.seats.find((x) => x.seat === 2).status === 'sitting-out'")
    assert p2.locator("#sit-in").is_enabled() and not p2.locator("#sit-out").is_enabled()
    shot(p2, "10-sitting-out")
    p2.locator("#sit-in").click()
    wait_js(p2, "() => window.livetable.state.seats.find((x) => x.seat === 2).status !== 'sitting-out'")
    # T-8: stand up (after a confirmation)
    p2.once("dialog", lambda d: d.accept())
    p2.locator("#stand-up").click()
    wait_js(p2, "() => window.livetable.state.seats.find((x) => x.seat === 2).status === 'empty'")
    assert "is free" in p2.locator("#seat-info").inner_text()
    assert [r for r in p2.evaluate("window.livetable.refusals") if r["id"] == sent["id"]] == []


def test_no_tablet_ever_received_another_seats_cards(rig: TableRig, pages: tuple[Any, Any]) -> None:
    """The WebSocket frames each page received hold its own seat's topics and no other's."""
    p2, p5 = pages
    for page, mine, other in ((p2, 2, 5), (p5, 5, 2)):
        frames = b"".join(page.frames_in)
        assert f"livetable/{TABLE}/seat/{mine}/private".encode() in frames  # it did get its own
        assert f"/seat/{other}/".encode() not in frames
        assert not [t for t in page.evaluate("window.livetable.received") if f"/seat/{other}/" in t]
    # and seat 5's hole cards of every hand stayed off seat 2's wire unless shown at showdown
    assert rig.observer is not None
    with rig.observer.cond:
        fives = [json.loads(p) for t, p, _ in rig.observer.messages if t == f"livetable/{TABLE}/seat/5/private" and p]
    fives = [v for v in fives if len(v["cards"]) == 2 and "??" not in v["cards"]]
    assert fives
    shown = {tuple(x["shown"]) for s in list(rig.states) for x in s["seats"] if x["seat"] == 5 and x["shown"]}
    frames2 = b"".join(p2.frames_in).decode("utf-8", errors="replace")
    for view in fives:
        if tuple(view["cards"]) not in shown:
            assert json.dumps(view["cards"]) not in frames2 and json.dumps(view["cards"], separators=(",", ":")) not in frames2
