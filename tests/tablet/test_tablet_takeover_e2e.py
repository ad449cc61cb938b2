"""Two devices on one seat (issue 20): the broker gives each login one session, so the second
device takes the seat's session over (docs/mqtt.md). Before, both pages showed "Connection
lost — reconnecting…" for ever, each reconnect knocking the other off. The replaced page must
say "This seat is open on another device", stop reconnecting, and offer to take the seat back.

Headless Chromium, the real broker with the seat's login (no table needed: conftest.py's rig
with ``table=False``).
"""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from .conftest import SKIP, TableRig, open_tablet, shot, wait_js

pytestmark = [pytest.mark.broker, pytest.mark.skipif(SKIP is not None, reason=SKIP or "")]

REPLACED = "() => document.body.dataset.screen === 'replaced' && window.livetable.replaced"
ONLINE = "() => window.livetable.connected && !window.livetable.replaced"
#: the page's client is ended: no reconnect timer that would take the session back
ENDED = "() => { const c = window.livetable.client; return c.disconnected && !c.connected && !c.reconnectTimer; }"


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TableRig]:
    r = TableRig(tmp_path_factory.mktemp("tablet-takeover"), seats=6, tablet_seats=(2,))
    try:
        yield r.start(table=False)
    finally:
        r.stop()


def test_a_second_device_on_the_seat_replaces_the_first_which_can_take_it_back(browser: Any, rig: TableRig) -> None:
    first = open_tablet(browser, rig.url(2, through_proxy=False))
    second = None
    try:
        wait_js(first, ONLINE, timeout=15_000)
        second = open_tablet(browser, rig.url(2, through_proxy=False))
        wait_js(second, ONLINE, timeout=15_000)
        wait_js(first, REPLACED, timeout=15_000)
        wait_js(first, ENDED, timeout=5_000)
        assert first.locator("#banner").inner_text() == "This seat is open on another device"
        assert first.locator("#conn").inner_text() == "On another device"
        assert first.locator("#take-back").is_visible()
        shot(first, "takeover-replaced")
        # the second device keeps the seat (the first's one reconnect, which read the seat's
        # presence, may have dropped it once): the first does not come back by itself
        wait_js(second, ONLINE, timeout=15_000)
        wait_js(second, "() => document.body.dataset.screen !== 'replaced'", timeout=5_000)
        assert first.evaluate(REPLACED) and first.evaluate(ENDED)
        # the player takes the seat back on the first device: now the second says so
        first.locator("#take-back").click()
        wait_js(first, ONLINE, timeout=15_000)
        wait_js(second, REPLACED, timeout=15_000)
        wait_js(second, ENDED, timeout=5_000)
        wait_js(first, ONLINE, timeout=15_000)
        assert first.locator("#replaced").is_hidden()
        assert not first.errors and not second.errors  # type: ignore[attr-defined]
    finally:
        for p in (first, second):
            if p is not None:
                p.context.close()
