"""A busted player's buy-in again at a table where the dealer confirms chips (T-2, T-3,
``tablet_join = "confirm"``; issue 20): the tablet's ``buy_in`` waits for the dealer like a
new seat's buy-in does; the dealer display shows it on the seat; the dealer's console
confirm button (gpiozero's mock pins) or ``livetable floor confirm-buyin SEAT`` (the real
command over a private Mosquitto with the repo's ACL) brings the chips, and the player is
dealt in again. Chips are conserved at every step (audit) and the journal recovers the
same table."""

from __future__ import annotations

import json
import time

from controller.clock import ManualClock
from controller.dealer import InternalDealer
from controller.engine.table import events as ev
from controller.engine.table.audit import audit
from controller.engine.table.state import TableState
from controller.orchestrator import Orchestrator
from controller.views import public_view
from display.fontmetrics import approx_measure
from display.layout import layout
from drivers.mqtt.events import ActionReceived
from drivers.seats.events import ConsoleButton
from drivers.seats.factory import mock_pin_factory
from drivers.seats.panel import SeatPanel
from drivers.seats.pinmap import DEFAULT_PIN_MAP
from drivers.seats.simulated import SimulatedHands
from tests.controller.test_floor import Table, floor  # noqa: F401 - the floor command fixture
from tests.controller.test_join_adapter import _table
from tests.mqtt.conftest import rig  # noqa: F401 - the private broker fixture


def bust_one(orch: Orchestrator, clock: ManualClock) -> int:
    """All-in every hand until one of the two players has no chips left; return that seat."""
    for _ in range(20):
        busted = [s.seat for s in orch.state.seats if s is not None and s.stack == 0]
        if busted:
            return busted[0]
        orch.post(ev.HandStartRequested(at=clock()))
        orch.pump()
        for _ in range(60):
            hand = orch.state.hand
            if hand is None:
                break
            if hand.seat_to_act is not None:
                act = "all_in" if hand.legal().all_in else "call"
                orch.post(ev.ActionTaken(at=clock(), seat=hand.seat_to_act, action=act))
            orch.pump()
            clock.advance(1)
    raise AssertionError("nobody busted in 20 all-in hands")


def _ask(orch: Orchestrator, clock: ManualClock, seat: int, action: str, amount: int, action_id: str) -> list:
    orch.post(ActionReceived(seat, action, amount, action_id, orch.state.seq, clock()))
    orch.pump()
    return [r for r in orch.ports.replies if r[1] == action_id]


def _display_info(state: dict, seat: int) -> str:
    lay = layout(state, (1280, 720), measure=approx_measure)
    return next((t.text for t in lay.seat(seat).texts if t.role == "info"), "")


def test_the_dealers_console_confirms_a_busted_players_buy_in_again(tmp_path) -> None:
    orch, ports, clock = _table(tmp_path, tablet_join="confirm")  # seats 1 and 2 with 5000 each
    settings = orch.state.settings
    seat = bust_one(orch, clock)
    total_in = orch.state.ledger.total_in

    # out of range: refused with the table's reason, nothing waits
    low = _ask(orch, clock, seat, "buy_in", 1000, "b0")
    assert low[0][2] is False and low[0][3].startswith("T-2:") and orch.state.seat(seat).buy_in_pending == 0
    # in range: taken, waiting for the dealer; nothing booked, the seat still sits out
    assert _ask(orch, clock, seat, "buy_in", 3000, "b1") == [(seat, "b1", True, None)]
    s = orch.state.seat(seat)
    assert (s.stack, s.buy_in_pending, s.sitting_out) == (0, 3000, True)
    assert orch.state.ledger.total_in == total_in and audit(orch.state) == []
    # asked twice: the first still waits
    again = _ask(orch, clock, seat, "buy_in", 4000, "b2")
    assert again[0][2] is False and "waits for the dealer" in again[0][3]
    # the dealer display shows it on the seat (as a new seat's buy-in)
    view = public_view(orch.state)
    assert view["seats"][seat - 1]["buy_in_pending"] == 3000
    assert _display_info(view, seat) == "BUY-IN 3,000 TO CONFIRM"
    # no hand deals the seat in before the chips are there
    orch.post(ev.HandStartRequested(at=clock()))
    orch.pump()
    assert orch.state.hand is None or seat not in orch.state.hand.index

    # the chips are handed over: the dealer presses the console's confirm (gpiozero mock pins)
    while orch.state.hand is not None:  # between hands (a hand of the others may be running)
        hand = orch.state.hand
        if hand.seat_to_act is not None:
            orch.post(ev.ActionTaken(at=clock(), seat=hand.seat_to_act,
                                     action="check" if hand.legal().check else "fold"))
        orch.pump()
        clock.advance(1)
    panel = SeatPanel(DEFAULT_PIN_MAP, mock_pin_factory(), orch.post, clock, auto_refresh=False)
    ports.panel = panel
    try:
        panel.update(public_view(orch.state))
        seq = orch.state.seq
        clock.advance(1)
        SimulatedHands(panel).press("console", ConsoleButton.CONFIRM)
        deadline = time.monotonic() + 5
        while orch.state.seq == seq and time.monotonic() < deadline:  # gpiozero's own thread posts it
            orch.pump()
            time.sleep(0.01)
    finally:
        panel.close()
    s = orch.state.seat(seat)
    assert (s.stack, s.buy_in_pending, s.sitting_out) == (3000, 0, False), s
    assert orch.state.ledger.total_in == total_in + 3000 and audit(orch.state) == []
    kinds = [e.payload.get("kind") for e in orch.journal.entries()]
    assert kinds.count("buy-in-confirmed") == 1
    confirmed = [e.payload for e in orch.journal.entries() if e.payload.get("kind") == "buy-in-confirmed"]
    assert confirmed[0].get("by") == "dealer" and confirmed[0].get("seat") == seat
    assert _display_info(public_view(orch.state), seat) != "BUY-IN 3,000 TO CONFIRM"
    # dealt in again at the next hand
    orch.post(ev.HandStartRequested(at=clock()))
    orch.pump()
    assert orch.state.hand is not None and seat in orch.state.hand.index
    # the history tells it as it went (livetable history)
    from controller.history import recall

    steps = [st for h in recall(tmp_path / "j.sqlite", hands=5).hands for st in h.steps]
    asked = [st for st in steps if st.data.get("event") == "bought-in" and st.data.get("pending")]
    assert asked and "asks to buy in again for 3000 from the tablet" in asked[0].text, [st.text for st in steps][-12:]
    assert any(st.data.get("event") == "buy-in-confirmed" and "confirmed by dealer" in st.text for st in steps)
    # the journal gives the same table back
    back = Orchestrator.recover(orch.journal, lambda: TableState.new(settings), clock=clock)
    assert json.dumps(back.state.to_json(), sort_keys=True) == json.dumps(orch.state.to_json(), sort_keys=True)


def test_the_floor_confirms_a_busted_players_buy_in_again(rig, tmp_path, floor) -> None:  # noqa: F811
    t = Table(tmp_path, seats=4, tablet_join="confirm")
    try:
        t.ports.dealer = InternalDealer(t.orch.post, t.clock, seed=1)
        t.seat_players((1, 2))
        seat = bust_one(t.orch, t.clock)
        lo = t.orch.state.settings.buy_in_min
        assert _ask(t.orch, t.clock, seat, "buy_in", lo, "b1") == [(seat, "b1", True, None)]
        total = t.orch.state.ledger.total_in
        t.start(rig)
        code, out, _ = floor("status")
        assert code == 0 and f"buy-in waiting: seat {seat} P{seat}, {lo} chips" in out, out
        code, out, _ = floor("confirm-buyin", str(seat), "--by", "Anna")
        assert code == 0 and f"{lo} chips" in out, out
        t.stop()
        s = t.orch.state.seat(seat)
        assert (s.stack, s.buy_in_pending, s.sitting_out) == (lo, 0, False)
        assert t.orch.state.ledger.total_in == total + lo and audit(t.orch.state) == []
    finally:
        t.stop()
