"""The deal offered to the final players on the seat tablet in Chromium (issue 19): a public
state whose ``tournament_view.deal_offer`` lists every player shows each one's name, stack
and share, the prizes if play goes on and how many accepted; Accept sends ``deal_accept``
with the offer's number (the seat is the page's own); once agreed the buttons go and "Deal
agreed — the director confirms" shows; an offer ended says why. At the phone's and the
seat screen's sizes nothing overlaps, is cut or scrolls (layout_checks.py), axe finds
nothing. The same private broker and page as the screens test (conftest.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from . import screen_states as ss
from .conftest import SKIP, TABLE, TableRig, open_tablet, shot, wait_js
from .layout_checks import LAYOUT_JS
from .test_tablet_screens_e2e import AXE, AXE_RUN, VIEWPORTS, Publisher, pub, rig  # noqa: F401 - the screens test's rig and publisher
from .test_tablet_tournament_e2e import tournament_state

pytestmark = [pytest.mark.broker, pytest.mark.skipif(SKIP is not None, reason=SKIP or "")]

SEATS = (1, ss.ME, 6, 8)


def deal_state(*, accepted: tuple[int, ...] = (), ended: dict[str, Any] | None = None) -> dict[str, Any]:
    """Four players left between hands, a deal offered (number 3) unless ``ended``."""
    state, _private = tournament_state()
    state.update(street="waiting", turn=None, board=[], pots=[], hand=77)
    for s in state["seats"]:
        live = s["seat"] in SEATS
        s.update(bet=0, cards=0, last_action=None, status="active" if live else "empty",
                 missed={"sb": False, "bb": False})
        if not live:
            s.update(name=None, stack=0)
    players = [{"seat": n, "name": ss.NAMES[n - 1], "stack": 250_000 * (5 - i), "share": 40_000 - 5_000 * i,
                "accepted": n in accepted} for i, n in enumerate(SEATS)]
    agreed = len(accepted) == len(SEATS)
    tv = state["tournament_view"]
    tv["players_left"] = 4
    tv["deal_offer"] = None if ended else {
        "offer": 3, "method": "icm", "unit": 1, "total": 130_000, "prizes": [50_000, 35_000, 25_000, 20_000],
        "players": players, "accepted": len(accepted), "of": 4, "agreed": agreed, "words": ""}
    tv["deal_ended"] = ended
    return state


def _show(page: Any, pub: Publisher, state: dict[str, Any]) -> None:
    seq = pub.show(state, None)
    wait_js(page, "(seq) => window.livetable.state && window.livetable.state.seq === seq", seq, timeout=10_000)


@pytest.mark.parametrize("size", ["phone", "seat-screen"])
def test_the_deal_offer_on_the_tablet(browser: Any, rig: TableRig, pub: Publisher, size: str) -> None:
    w, h = VIEWPORTS[size]
    page = open_tablet(browser, rig.url(ss.ME))
    try:
        page.set_viewport_size({"width": w, "height": h})
        wait_js(page, "(t) => window.livetable.received.includes(t)", f"livetable/{TABLE}/presence/controller",
                timeout=10_000)
        _show(page, pub, deal_state(accepted=(1,)))
        box = page.locator("#deal-box")
        assert box.is_visible()
        assert page.locator("#deal-title").inner_text() == "Deal offered: ICM"
        rows = page.locator("#deal-table tbody tr")
        assert rows.count() == 4
        assert rows.nth(0).inner_text().split("\t") == ["Annemarie", "1,250,000", "40,000", "\u2713"]
        assert page.locator("#deal-table tbody tr.me").inner_text().split("\t")[:3] == ["Chris", "1,000,000", "35,000"]
        assert page.locator("#deal-prizes").inner_text() == \
            "If play goes on: 1st 50,000 \u00b7 2nd 35,000 \u00b7 3rd 25,000 \u00b7 4th 20,000"
        assert page.locator("#deal-status").inner_text() == "1 of 4 accepted"
        shot(page, f"deal-offer-{size}")
        problems = page.evaluate(LAYOUT_JS)
        assert problems == [], json.dumps(problems, indent=1)
        if AXE.exists():
            page.add_script_tag(path=str(AXE))
            assert page.evaluate(AXE_RUN) == []
        accept = page.locator('#deal-buttons button[data-act="deal_accept"]')
        assert accept.inner_text() == "Accept the deal"
        b = accept.bounding_box()
        assert b is not None and b["y"] + b["height"] <= h  # in reach
        accept.click()
        sent = wait_js(page, "() => window.livetable.sent.find((p) => p.action === 'deal_accept')", timeout=5_000)
        assert sent["amount"] == 3 and sent["seat"] == ss.ME
        _show(page, pub, deal_state(accepted=SEATS))
        assert page.locator("#deal-status").inner_text() == "Deal agreed \u2014 the director confirms"
        assert page.locator("#deal-buttons button").count() == 0
        _show(page, pub, deal_state(ended={"offer": 3, "reason": "a hand is dealt: the stacks change"}))
        assert page.locator("#deal-title").inner_text() == "Deal offer 3 is over: a hand is dealt: the stacks change"
        assert not page.locator("#deal-table").is_visible()
        _show(page, pub, tournament_state()[0])
        assert not box.is_visible()
        assert page.errors == []
    finally:
        page.context.close()
