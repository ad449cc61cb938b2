"""The seat tablet in Five Card Draw (G-3), then the table going offline, end to end.

``livetable simulate --game draw`` with seat 2 left to the tablet (conftest.py's rig). The
page plays its betting turns through its own buttons, picks two cards on the draw, and the
table deals it two new ones. Last, the controller stops: the page says the table is offline.
"""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from .conftest import SKIP, WAIT_MS, TableRig, open_tablet, shot

pytestmark = [pytest.mark.broker, pytest.mark.skipif(SKIP is not None, reason=SKIP or "")]



@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TableRig]:
    r = TableRig(tmp_path_factory.mktemp("tablet-draw"), game="draw", seats=5, tablet_seats=(2,), seed=11)
    try:
        yield r.start()
    finally:
        r.stop()


@pytest.fixture(scope="module")
def page(browser: Any, rig: TableRig) -> Iterator[Any]:
    p = open_tablet(browser, rig.url(2))
    yield p
    assert p.errors == [], f"page errors: {p.errors}"
    p.context.close()


def test_draw_picks_cards_to_discard_and_gets_new_ones(rig: TableRig, page: Any) -> None:
    """G-3: on the draw the seat taps two cards, "Discard 2"; it keeps three and gets two new."""
    # Betting before the draw: check or call through the buttons until the draw comes.
    for _ in range(6):
        page.wait_for_function("() => document.body.dataset.screen === 'your-turn'", timeout=WAIT_MS)
        legal = page.evaluate("window.livetable.private.legal")
        if legal.get("draw") is not None:
            break
        if legal.get("muck"):  # the last hand's showdown (P-2): muck and wait for the draw
            page.locator('#showdown-box button[data-act="muck"]').click()
        else:
            act = "check" if legal.get("check") else "call"
            page.locator(f'#actions button[data-act="{act}"]').click()
        page.wait_for_function("() => !(window.livetable.private && window.livetable.private.to_act)",
                               timeout=10_000)
    else:
        pytest.fail("the draw never came to seat 2")
    assert page.locator("#draw-box").is_visible()
    assert page.locator("#actions button").count() == 0  # no betting buttons on the draw
    assert page.locator("#draw-button").inner_text().startswith("Stand pat")
    before = page.evaluate("window.livetable.private.cards")
    assert len(before) == 5
    hand = page.evaluate("window.livetable.state.hand")
    cards = page.locator("#my-cards .card.selectable")
    cards.nth(0).click()
    cards.nth(3).click()
    assert page.locator("#my-cards .card.selected").count() == 2
    assert page.locator("#draw-button").inner_text().startswith("Discard 2")
    cards.nth(3).click()  # changed our mind: toggles off
    assert page.locator("#my-cards .card.selected").count() == 1
    cards.nth(4).click()
    discards = [before[0], before[4]]
    shot(page, "11-draw")
    page.locator("#draw-button").click()
    sent = page.evaluate("window.livetable.sent.at(-1)")
    assert sent["action"] == "draw" and sorted(sent["cards"]) == sorted(discards)
    # the public state says seat 2 drew two (G-3: shown to everyone); the page holds 5 cards,
    # the three kept and two new ones
    page.wait_for_function("""(hand) => { const s = window.livetable.state;
        return s.hand === hand && s.seats.find((x) => x.seat === 2).drew === 2; }""", arg=hand, timeout=15_000)
    page.wait_for_function("""(old) => { const p = window.livetable.private;
        return p && p.cards.length === 5 && p.cards.every((c) => c !== '??')
            && p.cards.filter((c) => old.includes(c)).length === 3; }""", arg=before, timeout=15_000)
    after = page.evaluate("window.livetable.private.cards")
    assert not set(discards) & set(after)
    assert set(before) - set(discards) <= set(after)
    drawn = page.locator("#my-cards .card").evaluate_all("els => els.map(e => e.dataset.card)")
    assert drawn == after
    assert "drew 2" in page.locator('#seats .seat[data-seat="2"] .status').inner_text()
    reply = page.wait_for_function("(id) => window.livetable.replies[id]", arg=sent["id"], timeout=10_000).json_value()
    assert reply["accepted"] is True
    shot(page, "12-after-draw")


def test_table_offline_when_the_controller_stops(rig: TableRig, page: Any) -> None:
    """The controller's presence goes offline (clean stop): the page says "Table offline"."""
    assert rig.sim is not None
    rig.sim.terminate()
    rig.sim.wait(20)
    page.wait_for_function("() => document.body.dataset.screen === 'offline'", timeout=15_000)
    assert "Table offline" in page.locator("#banner").inner_text()
    assert page.locator("#conn").inner_text() == "Table offline"
    shot(page, "13-table-offline")
