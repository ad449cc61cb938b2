"""The seat tablet's screens at the sizes a card room uses (issue 20): a phone in portrait
(390x844), a 10" tablet in both orientations (810x1080, 1080x810) and a 1280x800 seat screen.

A private broker with provisioned logins and tablet/ over HTTP (conftest.py), no controller:
the test publishes, as the ``controller`` user, public states and seat 3's private view that
take the page through what a hand shows (tests/tablet/screen_states.py: our turn with the
slider, a call that is all-in, pre-selections, the showdown with side pots and rake, busted,
the free seat, a paused table, the longest seat status lines), and checks each screen in the browser: nothing overlaps,
nothing is cut, touch targets and text sizes (layout_checks.py), and no rule id in what a
player reads. Screenshots: artifacts/tablet/screens-<size>-<screen>.png.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import paho.mqtt.client as mqtt
import pytest

from . import screen_states as ss
from .conftest import SKIP, TABLE, TableRig, open_tablet, shot, wait_js
from .layout_checks import LAYOUT_JS, LEFT_BEHIND_JS, RULE_IDS_JS

pytestmark = [pytest.mark.broker, pytest.mark.skipif(SKIP is not None, reason=SKIP or "")]

VIEWPORTS = {"phone": (390, 844), "tablet-portrait": (810, 1080), "tablet-landscape": (1080, 810),
             "seat-screen": (1280, 800)}


class Publisher:
    """Publishes the table's topics as the provisioned ``controller`` user (QoS 1, waited for)."""

    def __init__(self, rig: TableRig) -> None:
        assert rig.broker is not None
        ctl = rig.creds["controller"]
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="screens-test",
                                  protocol=mqtt.MQTTv5)
        self.client.username_pw_set(ctl["username"], ctl["password"])
        self.client.connect("127.0.0.1", rig.broker.mqtt_port)
        self.client.loop_start()
        self.seq = 1000

    def publish(self, topic: str, body: Any, *, retain: bool = False) -> None:
        payload = b"" if body is None else json.dumps(body).encode()
        self.client.publish(f"livetable/{TABLE}/{topic}", payload, qos=1, retain=retain).wait_for_publish(10)

    def show(self, state: dict[str, Any], private: dict[str, Any] | None) -> int:
        """Publish ``private`` then ``state`` with a new seq; return that seq."""
        self.seq += 1
        state = ss.numbered(state, self.seq)
        if private is not None:
            private = {**private, "seq": self.seq}
        self.publish(f"seat/{ss.ME}/private", private)
        self.publish("state", state)
        return self.seq

    def close(self) -> None:
        for topic in ("state", f"seat/{ss.ME}/private", "presence/controller"):
            self.publish(topic, None, retain=True)
        self.client.loop_stop()
        self.client.disconnect()


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TableRig]:
    r = TableRig(tmp_path_factory.mktemp("tablet-screens"), seats=10, tablet_seats=(ss.ME,))
    try:
        yield r.start(table=False)
    finally:
        r.stop()


@pytest.fixture(scope="module")
def pub(rig: TableRig) -> Iterator[Publisher]:
    p = Publisher(rig)
    p.publish("presence/controller", {"schema": 1, "online": True}, retain=True)
    try:
        yield p
    finally:
        p.close()


def _show(page: Any, pub: Publisher, screen: str) -> None:
    state, private = ss.SCREENS[screen]()
    seq = pub.show(state, private)
    wait_js(page, "(seq) => window.livetable.state && window.livetable.state.seq === seq", seq, timeout=10_000)
    if private is not None:
        wait_js(page, "(seq) => window.livetable.private && window.livetable.private.seq === seq", seq,
                timeout=10_000)
    else:
        wait_js(page, "() => window.livetable.private === null", timeout=10_000)


def _subscribed_page(browser: Any, rig: TableRig, size: str) -> Any:
    """Our seat's page at ``size``, subscribed (the retained controller presence came)."""
    w, h = VIEWPORTS[size]
    page = open_tablet(browser, rig.url(ss.ME))
    page.set_viewport_size({"width": w, "height": h})
    wait_js(page, "(t) => window.livetable.received.includes(t)", f"livetable/{TABLE}/presence/controller",
            timeout=10_000)
    return page


@pytest.mark.parametrize(("size", "lang"), [(v, lang) for v in VIEWPORTS for lang in ("en", "nl")])
def test_every_screen_fits_without_overlap(browser: Any, rig: TableRig, pub: Publisher, size: str, lang: str) -> None:
    """Issue 20: at phone width the seats overlapped each other and the board. Dutch words are
    longer: every size is checked in Dutch too (the table's language in the page's address,
    ``lang=nl``); the 10" tablet in portrait cut "Wacht op de button · SB gemist" (T-4, T-6:
    screen ``waits-missed-sb``) after two of its three lines. A box the page empties leaves
    nothing (LEFT_BEHIND_JS: after buying in again an empty bar stayed where the form was)."""
    w, h = VIEWPORTS[size]
    page = open_tablet(browser, rig.url(ss.ME) + ("&lang=nl" if lang == "nl" else ""))
    try:
        page.set_viewport_size({"width": w, "height": h})
        # subscribed: the retained presence came (one SUBSCRIBE holds every topic of the page)
        wait_js(page, "(t) => window.livetable.received.includes(t)", f"livetable/{TABLE}/presence/controller",
                timeout=10_000)
        found: dict[str, list[str]] = {}
        for screen in ss.SCREENS:
            _show(page, pub, screen)
            shot(page, f"screens-{size}-{screen}" + ("-nl" if lang == "nl" else ""))
            if screen == "rebuy-waits":  # T-3: the dealer confirms the buy-in again (issue 20)
                words = page.locator("#hand-words").inner_text()
                assert ("10.000" if lang == "nl" else "10,000") in words and page.locator("#rebuy-form").is_hidden()
                assert page.locator("#sit-in").is_disabled() and page.locator("#topup-button").is_disabled()
            if screen == "held":  # issue 18: the room holds the seat for a called player
                tile = page.locator(f'#seats .seat.held[data-seat="{ss.ME}"]')
                assert tile.locator(".who").inner_text() == "Annemarie"
                held = tile.locator(".status").inner_text()
                assert held.startswith("Vrijgehouden (" if lang == "nl" else "Held ("), held
                assert tile.locator(".status").get_attribute("title").startswith(
                    "Vrijgehouden voor Annemarie (" if lang == "nl" else "Held for Annemarie (")
                assert page.locator('#seats .seat.held[data-seat="7"]').count() == 1
                assert "Annemarie" in page.locator("#seat-info").inner_text()
            if screen == "missed-both":  # T-6: owes both blinds, and says so (it read "missed BB")
                both, bb = ("SB+BB gemist", "BB gemist") if lang == "nl" else ("missed SB+BB", "missed BB")
                for n in (ss.ME, 6):
                    assert both in page.locator(f'#seats .seat[data-seat="{n}"] .status').inner_text()
                assert bb in page.locator('#seats .seat[data-seat="9"] .status').inner_text()
                assert both not in page.locator('#seats .seat[data-seat="9"] .status').inner_text()
                # My seat offers Post the big blind now / Wait (its tab may be closed: offered, not shown)
                assert page.locator("#bb-choice").get_attribute("hidden") is None
            if lang == "nl" and screen == "turn":
                assert page.locator('#actions button[data-act="fold"]').inner_text() == "Passen"
                assert page.locator("#pots .pot").first.inner_text() == "Hoofdpot: 123.400"
                assert page.locator("#hand-words").inner_text() == "Hoge kaart, aas"  # the table's H-6 words
            if screen == "bought-in-again":  # T-2: seated with the chips, the form gone without a trace
                assert page.locator("#rebuy-form").is_hidden() and page.locator("#me").is_hidden()
            problems = page.evaluate(LAYOUT_JS) + page.evaluate(LEFT_BEHIND_JS)
            ids = page.evaluate(RULE_IDS_JS)
            if problems or ids:
                found[screen] = problems + [f"rule id shown: {t}" for t in ids]
        assert found == {}, json.dumps(found, indent=1)
        assert page.errors == []
    finally:
        page.context.close()


#: where every control of the page is: [what it is, left, top, width, height] (px, rounded
#: to a tenth) of each visible button and input, the radio buttons too
CONTROLS_JS = """() => [...document.querySelectorAll('button, input')].filter((e) => {
  if (e.closest('[hidden]')) return false;
  const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0;
}).map((e) => { const r = e.getBoundingClientRect();
  return [e.id || e.value || e.dataset.tab || e.dataset.lang || e.textContent.trim()].concat(
    [r.left, r.top, r.width, r.height].map((v) => Math.round(v * 10) / 10)); })"""


#: widths between the card room's sizes at which one hint of Take this seat took two lines and
#: the other one (a tablet in portrait narrower than 810, a screen just wide enough for the
#: side column): the buttons below moved there, in English and in Dutch
BETWEEN_SIZES = {"narrow-portrait": (640, 1000), "narrow-landscape": (1001, 800)}


@pytest.mark.parametrize("lang", ["en", "nl"])
def test_take_this_seat_keeps_its_buttons_still_when_post_now_comes_and_goes(
        browser: Any, rig: TableRig, pub: Publisher, lang: str) -> None:
    """T-4: the free seat's *Post the big blind now* is offered in some hands and not in
    others, and the hint under it says which (two texts of different length). On a fast
    table that is every hand: the buttons below the hint (Take this seat, the tabs) moved
    under the player's finger (the bust/rebuy e2e had to tap them from script). At every
    size (and at two widths between them where the old page moved them), in English and
    Dutch, each control is where it was in the other state, and both screens pass the layout
    checks."""
    page = open_tablet(browser, rig.url(ss.ME) + ("&lang=nl" if lang == "nl" else ""))
    try:
        wait_js(page, "(t) => window.livetable.received.includes(t)", f"livetable/{TABLE}/presence/controller",
                timeout=10_000)
        moved = {}
        for size, (w, h) in {**VIEWPORTS, **BETWEEN_SIZES}.items():
            page.set_viewport_size({"width": w, "height": h})
            where = {}
            for screen, post_now in (("join", True), ("join-between-blinds", False), ("join", True)):
                state, private = ss.join_free_seat() if post_now else ss.join_between_blinds()
                seq = pub.show(state, private)
                wait_js(page, "(seq) => window.livetable.state && window.livetable.state.seq === seq", seq,
                        timeout=10_000)
                assert page.locator("#join-post").is_disabled() is not post_now
                hint = page.locator("#join-blind-hint").inner_text()
                if size != "phone":  # the phone leaves the hint out: the two choices say it
                    assert ("Zet" if lang == "nl" else "Post") in hint if post_now else (
                        "button" in hint and ("Zet" if lang == "nl" else "Post") not in hint), hint
                shot(page, f"screens-{size}-{screen}" + ("-nl" if lang == "nl" else ""))
                problems = page.evaluate(LAYOUT_JS) + page.evaluate(LEFT_BEHIND_JS)
                assert problems == [], f"{size} {screen}: {json.dumps(problems, indent=1)}"
                where[post_now] = page.evaluate(CONTROLS_JS)
                assert any(c[0] == "join-button" for c in where[post_now])
            if where[True] != where[False]:
                moved[size] = [(a, b) for a, b in zip(where[True], where[False]) if a != b]
        assert moved == {}, json.dumps(moved, indent=1)
        assert page.errors == []
    finally:
        page.context.close()


AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"

AXE_RUN = """async () => {
  const r = await axe.run(document, { resultTypes: ['violations'] });
  return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) =>
    `${v.id} (${v.impact}): ${v.help}: ` + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', '));
}"""


@pytest.mark.parametrize("size", ["phone", "seat-screen"])
def test_axe_finds_no_serious_violation(browser: Any, rig: TableRig, pub: Publisher, size: str) -> None:
    """Issue 20: contrast and labels checked with axe-core (npm, tests/tablet/package.json)."""
    if not AXE.exists():
        pytest.skip("axe-core is not installed: npm ci --prefix tests/tablet (scripts/setup.sh --test does)")
    w, h = VIEWPORTS[size]
    page = open_tablet(browser, rig.url(ss.ME))
    try:
        page.set_viewport_size({"width": w, "height": h})
        page.emulate_media(reduced_motion="reduce")  # the "Your turn" pulse stops: colours measured still
        wait_js(page, "(t) => window.livetable.received.includes(t)", f"livetable/{TABLE}/presence/controller",
                timeout=10_000)
        page.add_script_tag(path=str(AXE))
        found = {}
        for screen in ss.SCREENS:
            _show(page, pub, screen)
            bad = page.evaluate(AXE_RUN)
            if bad:
                found[screen] = bad
        assert found == {}, json.dumps(found, indent=1)
    finally:
        page.context.close()


def test_the_player_chooses_the_language_over_the_tables(browser: Any, rig: TableRig, pub: Publisher) -> None:
    """Issue 20: English and Dutch chosen per table (lang= in the kiosk's address) and per
    player (My seat; kept on this tablet until the seat is given up)."""
    page = open_tablet(browser, rig.url(ss.ME) + "&lang=nl")
    try:
        wait_js(page, "(t) => window.livetable.received.includes(t)", f"livetable/{TABLE}/presence/controller",
                timeout=10_000)
        _show(page, pub, "turn")
        assert page.evaluate("document.documentElement.lang") == "nl"
        assert page.locator('#tabs button[data-tab="seat"]').inner_text() == "Mijn stoel"
        page.locator('#tabs button[data-tab="seat"]').click()
        page.locator('#lang-pick button[data-lang="en"]').click()
        wait_js(page, "() => document.documentElement.lang === 'en'", timeout=10_000)
        assert page.locator('#actions button[data-act="fold"]').inner_text() == "Fold"
        assert page.locator('#lang-pick button[data-lang="en"]').get_attribute("aria-pressed") == "true"
        page.reload()  # the player's choice stays on this tablet
        wait_js(page, "(t) => window.livetable && window.livetable.received.includes(t)",
                f"livetable/{TABLE}/presence/controller", timeout=10_000)
        assert page.evaluate("document.documentElement.lang") == "en"
        _show(page, pub, "turn")
        assert page.locator('#actions button[data-act="fold"]').inner_text() == "Fold"
        # the player gives up the seat: the next one starts in the table's language
        _show(page, pub, "join")
        wait_js(page, "() => document.documentElement.lang === 'nl'", timeout=10_000)
        assert page.locator("#join-button").inner_text() == "Neem deze stoel"
        assert page.errors == []
    finally:
        page.context.close()


def test_the_tables_config_language_is_the_tablets_default(browser: Any, rig: TableRig, pub: Publisher) -> None:
    """Issue 20: ``[table] language = "nl"`` reaches the state (``language``); a tablet whose
    address names no language speaks it, and the player's own choice still wins."""
    page = open_tablet(browser, rig.url(ss.ME))
    try:
        wait_js(page, "(t) => window.livetable.received.includes(t)", f"livetable/{TABLE}/presence/controller",
                timeout=10_000)
        state, private = ss.SCREENS["turn"]()
        pub.show({**state, "language": "nl"}, private)
        wait_js(page, "() => document.documentElement.lang === 'nl'", timeout=10_000)
        wait_js(page, """() => document.querySelector('#actions button[data-act="fold"]').innerText === 'Passen'""",
                timeout=10_000)
        page.locator('#tabs button[data-tab="seat"]').click()
        page.locator('#lang-pick button[data-lang="en"]').click()
        wait_js(page, "() => document.documentElement.lang === 'en'", timeout=10_000)
        pub.show({**state, "language": "nl"}, private)  # a new state does not undo the player's choice
        wait_js(page, "(s) => window.livetable.state && window.livetable.state.seq === s", pub.seq, timeout=10_000)
        assert page.evaluate("document.documentElement.lang") == "en"
        assert page.errors == []
    finally:
        page.evaluate("localStorage.clear()")
        page.context.close()


#: twelve characters each, as a player may type them (the join form takes up to 20)
LONG_NAMES = ["Bartholomeus", "Anne-Marieke", "Christoffel", "Frank v Dijk", "Wilhelmina B", "Maximiliaan",
              "Gerard-Jan W", "Hendrikus 12", "Ijsbrand_Bos", "Jan-Willem K"]

NAMES_JS = """() => [...document.querySelectorAll('#seats .seat')].map((seat) => {
  const n = seat.querySelector('.name'); const who = n.querySelector('.who') || n;
  return { seat: Number(seat.dataset.seat), text: who.textContent, px: parseFloat(getComputedStyle(n).fontSize),
           cut: n.scrollWidth > n.clientWidth + 1 || n.scrollHeight > n.clientHeight + 1 };
})"""


@pytest.mark.parametrize("size", ["phone", "tablet-portrait"])
def test_a_twelve_character_name_shows_whole(browser: Any, rig: TableRig, pub: Publisher, size: str) -> None:
    """Issue 20: at 390x844 names were cut ("Player…"). Each seat shows its player's whole
    name (smaller, or on two lines), never under 12 px, and the screen still passes the
    layout check."""
    w, h = VIEWPORTS[size]
    page = _subscribed_page(browser, rig, size)
    try:
        state, private = ss.SCREENS["turn"]()
        for seat in state["seats"]:
            seat["name"] = LONG_NAMES[seat["seat"] - 1]
        pub.show(state, private)
        wait_js(page, "(s) => window.livetable.state && window.livetable.state.seq === s", pub.seq, timeout=10_000)
        shot(page, f"screens-{size}-long-names")
        names = page.evaluate(NAMES_JS)
        assert [n["text"] for n in names] == LONG_NAMES, names
        assert [n for n in names if n["cut"] or n["px"] < 12] == [], names
        assert page.evaluate(LAYOUT_JS) == []
        if size == "phone":  # the side panels open from their tabs as a sheet, and close again
            tab = page.locator('#tabs button[data-tab="seat"]')
            tab.click()
            assert page.locator("#stand-up").is_visible() and page.locator("#auto-muck").is_visible()
            tab.click()
            assert not page.locator("#stand-up").is_visible()
            assert page.evaluate(LAYOUT_JS) == []
            # open while another seat acts, the sheet closes when the turn comes to us
            state, private = ss.SCREENS["preselect"]()
            pub.show(state, private)
            wait_js(page, "() => document.body.dataset.screen !== 'your-turn'", timeout=10_000)
            tab.click()
            assert page.locator("#stand-up").is_visible()
            state, private = ss.SCREENS["turn"]()
            pub.show(state, private)
            wait_js(page, "() => document.body.dataset.screen === 'your-turn'", timeout=10_000)
            assert not page.locator("#stand-up").is_visible() and page.locator("#actions button").first.is_visible()
    finally:
        page.context.close()


@pytest.mark.parametrize("size", ["phone", "tablet-portrait"])
def test_a_seat_sat_out_by_its_clock_says_why_and_offers_sit_in_with_the_actions(
        browser: Any, rig: TableRig, pub: Publisher, size: str) -> None:
    """Issue 20: one missed turn sat the player out with no word why and no Sit in on the
    main screen (only under My seat)."""
    w, h = VIEWPORTS[size]
    page = _subscribed_page(browser, rig, size)
    try:
        _show(page, pub, "timed-out")
        assert page.locator("#hand-words").inner_text() == "You were sat out: your time ran out"
        sit_in = page.locator('#actions button[data-act="sit_in"]')
        assert sit_in.is_visible() and sit_in.inner_text() == "Sit in"
        box = sit_in.bounding_box()
        assert box is not None and box["y"] + box["height"] <= h  # in reach, not under a sheet
        sit_in.click()
        wait_js(page, "() => window.livetable.sent.some((p) => p.action === 'sit_in')", timeout=5_000)
        _show(page, pub, "preselect")  # dealt in again: the offer is gone
        assert page.locator('#actions button[data-act="sit_in"]').count() == 0
        assert page.errors == []
    finally:
        page.context.close()


#: the header line fits its box (nothing cut by the ellipsis)
HEADER_FITS = "() => { const t = document.querySelector('#table-title'); return t.scrollWidth <= t.clientWidth + 1; }"


def test_the_total_pot_before_the_flop_and_the_stakes_in_the_phones_header(
        browser: Any, rig: TableRig, pub: Publisher) -> None:
    """Issue 20: before the flop the tablet showed no pot (the display: "Total: 800"), and at
    390 px the header read "Simulated holdem  No Limi…": the blinds were cut off."""
    for size in ("phone", "tablet-portrait"):
        page = _subscribed_page(browser, rig, size)
        try:
            _show(page, pub, "preflop")
            assert page.locator("#pots .pot.total").inner_text() == "Total: 800"
            line = page.locator("#game-line")
            assert "50/100" in line.inner_text() and line.is_visible()
            assert page.evaluate(HEADER_FITS), page.locator("#topbar").inner_text()
            if size == "phone":  # the table's name goes first, then the short game words
                assert page.locator("#table-name").is_hidden()
                assert line.inner_text().startswith("NL Hold'em 50/100")
            else:  # room enough: every word
                assert page.locator("#table-name").inner_text() == "Simulated holdem"
                assert line.inner_text() == "No Limit Hold'em 50/100 · Seat 3"
            shot(page, f"preflop-{size}")
            assert page.errors == []
        finally:
            page.context.close()


STATUS_JS = """(n) => { const e = document.querySelector(`#seats .seat[data-seat="${n}"] .status`);
  return { text: e.textContent, title: e.title, px: parseFloat(getComputedStyle(e).fontSize) }; }"""


def test_a_long_status_is_shortened_on_the_phone_and_whole_again_when_turned(
        browser: Any, rig: TableRig, pub: Publisher) -> None:
    """The longest status lines (T-4, T-6) fit every seat: a phone's seat with a two-line name,
    cards and a raise says "offline" for "tablet offline" (the whole words its tooltip); the
    screen turned to 1080x810, the seat has the room and the whole words come back."""
    page = _subscribed_page(browser, rig, "phone")
    try:
        _show(page, pub, "longest-statuses")
        seat4 = page.evaluate(STATUS_JS, 4)
        assert seat4["text"] == "Raise to 25,000 offline" and seat4["px"] >= 12, seat4
        assert seat4["title"] == "Raise to 25,000 tablet offline", seat4
        assert page.evaluate(STATUS_JS, 2)["text"] == "Waits for the button · missed SB+BB · tablet offline"  # T-6: owes both
        assert page.evaluate(LAYOUT_JS) == []
        page.set_viewport_size({"width": 1080, "height": 810})
        wait_js(page, "() => !document.querySelector('#seats .seat[data-seat=\"4\"] .status').title", timeout=5_000)
        assert page.evaluate(STATUS_JS, 4)["text"] == "Raise to 25,000 tablet offline"
        assert page.evaluate(LAYOUT_JS) == []
        assert page.errors == []
    finally:
        page.context.close()
