"""A busted player buys in again from the seat's tablet (T-2, issue 20): the ``buy_in`` seat
request through the MQTT codec, the adapter and the orchestrator, on a two-seat table where
one player loses everything."""

from __future__ import annotations

import json

import pytest

from controller.devices import DevicePorts, DriverAdapter
from controller.clock import ManualClock
from controller.dealer import InternalDealer
from controller.engine.table import events as ev
from controller.engine.table.audit import audit
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import TableState
from controller.journal import Journal
from controller.orchestrator import Orchestrator
from drivers.mqtt.codec import PayloadError, decode_action
from drivers.mqtt.events import ActionReceived


def _busted_table(tmp_path, *, tablet_join: str = "direct"):
    """Two players with 5000 each (buy-in 2000..10000) go all-in pre-flop; one busts."""
    clock = ManualClock()
    ports = DevicePorts()
    settings = TableSettings(id="t", seats=4, action_seconds=30, tablet_join=tablet_join)
    orch = Orchestrator(TableState.new(settings), journal=Journal(tmp_path / "j.sqlite"), clock=clock, ports=ports)
    adapter = DriverAdapter(orch, ports, clock=clock)
    orch.translate = adapter.translate
    orch.listeners.append(adapter.after_step)
    ports.dealer = InternalDealer(orch.post, clock, seed=3)
    for s in (1, 2):
        orch.post(ev.PlayerSatDown(at=clock(), seat=s, player=f"p{s}", name=f"P{s}"))
        orch.post(ev.BoughtIn(at=clock(), seat=s, amount=5000))
    orch.post(ev.HandStartRequested(at=clock()))
    orch.pump()
    for _ in range(50):  # until both are all-in and the hand is over (a split leaves nobody busted)
        hand = orch.state.hand
        if hand is None:
            break
        if hand.seat_to_act is not None:
            legal = hand.legal()
            act = "all_in" if legal.all_in else "call"
            orch.post(ev.ActionTaken(at=clock(), seat=hand.seat_to_act, action=act))
        orch.pump()
        clock.advance(1)
    busted = [s.seat for s in orch.state.seats if s is not None and s.stack == 0]
    assert orch.state.hand is None and len(busted) == 1, "seed 3 must bust one player"
    return orch, clock, busted[0]


def _ask(orch, clock, seat, action, amount, action_id):
    orch.post(ActionReceived(seat, action, amount, action_id, orch.state.seq, clock()))
    orch.pump()
    return [r for r in orch.ports.replies if r[1] == action_id]


def test_buy_in_is_a_seat_request_with_an_amount():
    """The tablet's ``buy_in`` passes the codec like ``top_up``: an integer amount is required."""
    body = {"schema": 1, "id": "b1", "seat": 3, "seq": 4, "action": "buy_in", "amount": 4000}
    req = decode_action(json.dumps(body).encode(), seat=3)
    assert (req.action, req.amount) == ("buy_in", 4000)
    with pytest.raises(PayloadError, match="needs an integer 'amount'"):
        decode_action(json.dumps({**body, "amount": None}).encode(), seat=3)


def test_busted_tablet_player_buys_in_again_and_plays_on(tmp_path):
    """Issue 20: top-up and sit-in were refused after a bust and nothing else was offered."""
    orch, clock, seat = _busted_table(tmp_path)
    total_in = orch.state.ledger.total_in
    # what the newcomer met: the top-up is refused (the tablet now offers a buy-in instead)
    refused = _ask(orch, clock, seat, "top_up", 3000, "t1")
    assert refused[0][2] is False and "buy in again" in refused[0][3]
    # out of range is refused with the table's T-2 reason, nothing booked
    low = _ask(orch, clock, seat, "buy_in", 1000, "b0")
    assert low[0][2] is False and low[0][3].startswith("T-2:")
    assert orch.state.ledger.total_in == total_in
    assert _ask(orch, clock, seat, "buy_in", 3000, "b1") == [(seat, "b1", True, None)]
    s = orch.state.seat(seat)
    assert s.stack == 3000 and not s.sitting_out
    assert orch.state.ledger.total_in == total_in + 3000
    assert audit(orch.state) == []
    # journalled like any buy-in, so a restart keeps it
    bought = [e.payload for e in orch.journal.entries() if e.payload.get("kind") == "bought-in"]
    assert bought[-1].get("seat") == seat and bought[-1].get("amount") == 3000, bought[-1]
    # a second buy-in on a stack is refused (a top-up is the way to add chips)
    again = _ask(orch, clock, seat, "buy_in", 3000, "b2")
    assert again[0][2] is False and again[0][3].startswith("T-7:")


def test_buy_in_from_the_tablet_waits_for_the_dealer_where_the_table_confirms(tmp_path):
    """With ``tablet_join`` ``confirm`` chips asked for on a tablet reach the books only when
    the dealer confirms them (issue 20; the confirm itself: tests/controller/test_rebuy_confirm.py);
    with ``off`` the tablet cannot ask at all."""
    orch, clock, seat = _busted_table(tmp_path, tablet_join="confirm")
    total_in = orch.state.ledger.total_in
    assert _ask(orch, clock, seat, "buy_in", 3000, "b1") == [(seat, "b1", True, None)]
    assert orch.state.seat(seat).stack == 0 and orch.state.seat(seat).buy_in_pending == 3000
    assert orch.state.ledger.total_in == total_in


def test_buy_in_from_the_tablet_is_refused_where_only_the_floor_seats_players(tmp_path):
    orch, clock, seat = _busted_table(tmp_path, tablet_join="direct")
    orch.post(ev.SettingsChanged(at=clock(), changes={"tablet_join": "off"}, by="floor"))
    orch.pump()
    assert orch.state.settings.tablet_join == "off"
    total_in = orch.state.ledger.total_in
    reply = _ask(orch, clock, seat, "buy_in", 3000, "b1")
    assert reply[0][2] is False and reply[0][3].startswith("T-3:") and "floor" in reply[0][3]
    assert orch.state.seat(seat).stack == 0 and orch.state.seat(seat).buy_in_pending == 0
    assert orch.state.ledger.total_in == total_in
