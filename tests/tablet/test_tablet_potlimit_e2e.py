"""The tablet's pot-size amount against the table's own pot limit (S-5), end to end.

``livetable simulate --limit pot-limit`` with seat 2 left to the tablet (conftest.py's rig).
On each of the seat's turns with a raise range, the page's "Pot" shortcut (tablet/js/logic.js
``potSizeTo``: call, then raise by the pot after the call) must equal the largest raise the
table allows, unless the stack caps it; the page then raises the pot and the table takes it.
"""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from .conftest import SKIP, TableRig, open_tablet, shot

pytestmark = [pytest.mark.broker, pytest.mark.skipif(SKIP is not None, reason=SKIP or "")]


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TableRig]:
    r = TableRig(tmp_path_factory.mktemp("tablet-pl"), game="holdem", limit="pot-limit", seats=4,
                 tablet_seats=(2,), seed=5)
    try:
        yield r.start()
    finally:
        r.stop()


def test_pot_shortcut_is_the_tables_pot_limit_maximum(rig: TableRig, browser: Any) -> None:
    """S-5: "Pot" = the table's maximum raise; the raise to it is accepted."""
    page = open_tablet(browser, rig.url(2))
    try:
        checked = 0
        for _ in range(10):
            page.wait_for_function("() => document.body.dataset.screen === 'your-turn'", timeout=45_000)
            legal = page.evaluate("window.livetable.private.legal")
            kind = "raise" if legal.get("raise") else "bet" if legal.get("bet") else None
            # all_in is null when the stack is beyond the pot limit (S-5)
            capped_by_pot = (kind is not None and legal[kind]["min"] < legal[kind]["max"]
                             and (legal.get("all_in") is None or legal[kind]["max"] < legal["all_in"]))
            if capped_by_pot:
                shortcuts = page.locator("#shortcuts button").evaluate_all(
                    "els => els.map(e => [e.textContent, Number(e.dataset.amount)])")
                pot = [(i, amt) for i, (text, amt) in enumerate(shortcuts)
                       if text.startswith("Pot") or text.startswith("Max (pot)")]
                assert pot, shortcuts
                index, amount = pot[0]
                assert amount == legal[kind]["max"], (shortcuts, legal, page.evaluate("window.livetable.state"))
                checked += 1
            if capped_by_pot and checked == 1:  # raise the pot once: the table takes it
                shot(page, "14-pot-limit")
                page.locator("#shortcuts button").nth(index).click()
                page.locator("#bet-button").click()
                sent = page.evaluate("window.livetable.sent.at(-1)")
                assert sent["action"] == kind and sent["amount"] == amount
                reply = page.wait_for_function("(id) => window.livetable.replies[id]", arg=sent["id"],
                                               timeout=10_000).json_value()
                assert reply["accepted"] is True, reply
            elif legal.get("muck"):  # a losing hand at the showdown (P-2)
                page.locator('#showdown-box button[data-act="muck"]').click()
            else:  # play on without risking the stack
                act = "check" if legal.get("check") else "call" if legal.get("call") else "fold"
                page.locator(f'#actions button[data-act="{act}"]').click()
            if checked >= 3:
                break
            page.wait_for_function("() => document.body.dataset.screen !== 'your-turn'", timeout=10_000)
        assert checked >= 2, f"only {checked} turns with a pot-limited bet or raise came to seat 2"
        assert page.errors == []
    finally:
        page.context.close()
