"""A player joins from the seat tablet end to end (issue 10; T-3, T-2, T-4): headless
Chromium on the page, the real broker with this seat's credentials, and
``livetable simulate --join-seats 3`` with seat 3 left free (see conftest.py for the rig).

The page shows the empty seat with "Take this seat", checks the buy-in against the range,
takes the seat with a name and the maximum buy-in, shows it taken with its stack while it
waits for the next hand, is dealt into a following hand and acts through its own buttons.
At the end ``livetable simulate``'s own audit (chips brought to the table == stacks + pots +
rake, after every event) must have found nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import SKIP, TABLE, WAIT_MS, TableRig, open_tablet, shot, wait_js
from .test_tablet_e2e import AUTOPLAY

pytestmark = [pytest.mark.broker, pytest.mark.skipif(SKIP is not None, reason=SKIP or "")]

SEAT = 3
OTHER = 4  # also free: seat 3's login must not be able to take it


class JoinRig(TableRig):
    """The e2e rig with no pre-seated tablet players and seats 3 and 4 free for tablets."""

    def sim_args(self) -> list[str]:
        return super().sim_args() + ["--join-seats", f"{SEAT},{OTHER}"]


def _summary(log: str) -> dict[str, Any]:
    """The JSON summary ``livetable simulate`` prints when it stops (its last JSON line)."""
    for line in reversed(log.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise AssertionError(f"no summary in simulate's output: {log[-1500:]}")


def test_a_player_joins_from_the_tablet_is_dealt_in_and_acts(browser: Any, tmp_path: Path) -> None:
    # speed 6 (0.07..0.27 s per decision) and the result held 1 s, not the table's 5 s, while
    # she waits for the big blind (up to a round of hands)
    rig = JoinRig(tmp_path, game="holdem", seats=5, tablet_seats=(), speed=6.0, result_seconds=1.0)
    page = None
    try:
        rig.start()
        assert rig.observer is not None  # controller rights: sees what reaches the action topics
        rig.observer.subscribe(f"livetable/{TABLE}/seat/+/action")
        page = open_tablet(browser, rig.url(SEAT))
        wait_js(page, "() => !document.querySelector('#join-form').hidden")
        state = page.evaluate("window.livetable.state")
        assert state["seats"][SEAT - 1]["status"] == "empty" and state["join"]["mode"] == "direct"
        lo, hi = state["buy_in"]["min"], state["buy_in"]["max"]
        assert page.locator("#join-range").inner_text() == f"Buy-in {lo:,} to {hi:,}"  # no rule id (issue 20)
        assert page.locator("#join-amount").input_value() == str(lo)  # the minimum to start with
        shot(page, "20-join-form")

        # only this seat's login can take this seat: seat 3's credentials publishing a
        # take_seat on seat 4's topic are refused by the broker's ACL (never reach the table)
        page.evaluate("""([seat, seq, amount]) => new Promise((resolve) => window.livetable.client.publish(
            `livetable/t1/seat/${seat}/action`, JSON.stringify({schema: 1, id: 'steal-1', seat, seq,
            action: 'take_seat', amount, name: 'Mallory', post: false}), {qos: 1}, () => resolve()))""",
                      [OTHER, state["seq"], lo])

        # the page refuses a buy-in over the range itself (nothing is sent)
        page.fill("#join-name", "Ann")
        page.fill("#join-amount", str(hi + 1))
        page.click("#join-button")
        wait_js(page, "() => window.livetable.notices.some((n) => n.startsWith('T-2'))")
        assert not any(p["action"] == "take_seat" for p in page.evaluate("window.livetable.sent"))

        # Max fills the maximum; wait for the big blind (always allowed, T-4)
        page.click("#join-max")
        assert page.locator("#join-amount").input_value() == str(hi)
        post_allowed = not page.locator("#join-post").is_disabled()
        assert post_allowed == (SEAT in page.evaluate("window.livetable.state.join.post_now"))
        page.check('#join-blind input[value="wait"]')
        page.click("#join-button")
        sent = wait_js(page, "() => window.livetable.sent.find((p) => p.action === 'take_seat')")
        assert (sent["name"], sent["amount"], sent["post"]) == ("Ann", hi, False)
        reply = wait_js(page, "(id) => window.livetable.replies[id]", sent["id"])
        assert reply["accepted"], f"take_seat refused: {reply}\n{rig.sim_log()}"

        # the seat is shown taken with its stack; the form is gone
        wait_js(page, f"() => window.livetable.state.seats[{SEAT - 1}].name === 'Ann'")
        assert page.locator("#join-form").is_hidden()
        me = page.locator(f'#seats .seat[data-seat="{SEAT}"]')
        assert me.locator(".name").inner_text() == "Ann (you)"
        seat = page.evaluate(f"window.livetable.state.seats[{SEAT - 1}]")
        if seat["status"] == "waiting":  # until the next hand deals her in
            assert seat["stack"] == hi
            assert "Waiting" in me.locator(".status").inner_text()
            wait_js(page, "() => document.querySelector('#hand-words').textContent.startsWith('Seated')")
        shot(page, "21-joined-waiting")

        # dealt into a following hand: her cards are what the table dealt seat 3
        page.evaluate(AUTOPLAY)
        mine = wait_js(page, "() => { const p = window.livetable.private; return p && p.cards.length === 2 && p; }",
                       timeout=2 * WAIT_MS)
        assert mine["hand"] > state["hand"]
        oracle = rig.private_at(SEAT, mine["seq"])  # the same view, as the broker delivered it
        assert oracle is not None and (oracle["hand"], oracle["cards"]) == (mine["hand"], mine["cards"])
        # ... and acts on her turn through the page's own buttons (check, else call, else fold)
        acted = wait_js(page, """() => {
            const lt = window.livetable;
            const bet = lt.sent.find((p) => ['check', 'call', 'fold'].includes(p.action) && lt.replies[p.id]
                                              && lt.replies[p.id].accepted);
            return bet || null; }""", timeout=2 * WAIT_MS)
        assert acted["seat"] == SEAT
        shot(page, "22-joined-acted")
        assert page.errors == [], f"page errors: {page.errors}"
        joined = rig.journal_entries("player-joined")
        assert [(j["seat"], j["name"], j["amount"], j["post"]) for j in joined] == [(SEAT, "Ann", hi, False)]
        assert page.evaluate(f"window.livetable.state.seats[{OTHER - 1}].status") == "empty"
        with rig.observer.cond:
            actions = [(tp, json.loads(pl)) for tp, pl, _ in rig.observer.messages if tp.endswith("/action")]
        assert (f"livetable/{TABLE}/seat/{SEAT}/action", sent) in actions  # what got through is seen
        assert not [a for tp, a in actions if tp != f"livetable/{TABLE}/seat/{SEAT}/action"]
    finally:
        if page is not None:
            page.context.close()
        rig.stop()
    summary = _summary(rig.sim_log())
    assert summary["invariant_errors"] == [], summary["invariant_errors"]
    assert summary["room"]["total_in"] >= hi  # her buy-in came to the table
