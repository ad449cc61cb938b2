"""The room's multi-table tournament's moves on the seat tablet in Chromium (issue 19): a
public state whose ``tournament_view`` carries ``moves`` says them over the table (the
page's notice: "You move to Birch (t2) seat 6" on the mover's own tablet), at the four sizes
of the screens test with nothing overlapping, cut or scrolling (layout_checks.py), and once
only (the same moves published again are not said again)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from .conftest import SKIP, TABLE, TableRig, open_tablet, wait_js
from .layout_checks import LAYOUT_JS
from .test_tablet_screens_e2e import VIEWPORTS, Publisher, pub, rig  # noqa: F401 - the screens test's rig and publisher
from .test_tablet_tournament_e2e import _show, tournament_state
from . import screen_states as ss

pytestmark = [pytest.mark.broker, pytest.mark.skipif(SKIP is not None, reason=SKIP or "")]


@pytest.mark.parametrize("size", list(VIEWPORTS))
def test_the_tablet_says_a_move(browser: Any, rig: TableRig, pub: Publisher, size: str) -> None:
    w, h = VIEWPORTS[size]
    page = open_tablet(browser, rig.url(ss.ME))
    try:
        page.set_viewport_size({"width": w, "height": h})
        wait_js(page, "(t) => window.livetable.received.includes(t)", f"livetable/{TABLE}/presence/controller",
                timeout=10_000)
        state, private = tournament_state()
        until = time.time() + 12
        state["tournament_view"]["moves"] = [
            {"kind": "out", "player": "p17", "name": "Player 17", "seat": ss.ME, "table": "t2",
             "table_name": "Birch", "to_seat": 6, "until": until},
            {"kind": "in", "player": "p9", "name": "Player 9", "seat": 5, "table": "t1", "table_name": "Aspen",
             "until": until}]
        _show(page, pub, state, private)
        notice = page.locator("#notice")
        assert notice.is_visible()
        assert notice.inner_text() == "You move to Birch (t2) seat 6 · Player 9 from Aspen (t1)"
        problems = page.evaluate(LAYOUT_JS)
        assert problems == [], json.dumps(problems, indent=1)
        said = len(page.evaluate("() => window.livetable.notices"))
        _show(page, pub, state, private)  # published again (another event): not said twice
        assert len(page.evaluate("() => window.livetable.notices")) == said
        assert page.errors == []
    finally:
        page.context.close()
