"""Over the real broker: a pre-selection made on hand 1 that reaches the controller in hand 2
(the tablet page resends every pending payload, same id and same seq, when it reconnects)
is refused M-4 (A-3: it lasts one betting round), and the seat does not go all in on hand 2
(found by a breaker)."""

from __future__ import annotations

import queue
import time

from controller.devices import DevicePorts, DriverAdapter
from controller.clock import ManualClock
from controller.dealer import InternalDealer
from controller.engine.table import events as ev
from controller.engine.table.audit import audit
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import TableState
from controller.journal import Journal
from controller.orchestrator import Orchestrator
from drivers.mqtt.link import TableLink

from .conftest import TABLE, WAIT, Rig


def _controller(rig: Rig, tmp_path):
    clock = ManualClock()
    ports = DevicePorts()
    settings = TableSettings(id=TABLE, seats=3, small_blind=50, big_blind=100, action_seconds=30)
    orch = Orchestrator(TableState.new(settings), journal=Journal(tmp_path / "j.sqlite"), clock=clock, ports=ports)
    link = TableLink(TABLE, host="127.0.0.1", port=rig.broker.mqtt_port, username="controller",
                     password=rig.creds["controller"]["password"], post=orch.post, backoff=(0.05, 0.5))
    rig._stops.append(link.stop)  # noqa: SLF001 - the rig stops it at the end
    link.start()
    link.wait_connected(WAIT)
    ports.link = link
    adapter = DriverAdapter(orch, ports, clock=clock)
    orch.translate = adapter.translate
    orch.listeners.append(adapter.after_step)
    ports.dealer = InternalDealer(orch.post, clock, seed=5)
    for s in (1, 2, 3):
        orch.post(ev.PlayerSatDown(at=clock(), seat=s, player=f"p{s}", name=f"P{s}"))
        orch.post(ev.BoughtIn(at=clock(), seat=s, amount=5000))
    orch.post(ev.HandStartRequested(at=clock(), button=1))
    orch.pump()
    return orch, clock


def _reply_while_handling(orch, tab, aid: str) -> dict:
    """Handle what the link posts (presence, an admitted action) until the tablet holds the
    reply to ``aid`` (the link answers an M-4 itself; the table answers what it admits)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        with tab.cond:
            if aid in tab.replies:
                return tab.replies[aid]
        try:
            orch.handle(orch.inbox.get(timeout=0.05))
        except queue.Empty:
            continue
        orch.pump()
    raise AssertionError(f"no reply to {aid} within {WAIT} s")


def test_a_preselect_resent_after_a_reconnect_does_not_act_in_the_next_hand(rig: Rig, tmp_path) -> None:
    orch, clock = _controller(rig, tmp_path)
    tab = rig.tablet(3)
    assert orch.state.hand is not None and orch.state.hand.seat_to_act == 1
    seen = tab.wait_seq(orch.state.seq, WAIT)["seq"]  # hand 1, seat 1 to act: seat 3 taps "all in"
    # ... the tablet's Wi-Fi drops before it publishes; hand 1 ends, hand 2 starts
    for seat in (1, 2):
        orch.post(ev.ActionTaken(at=clock(), seat=seat, action="fold"))
        orch.pump()
    assert orch.state.hand is None
    orch.post(ev.HandStartRequested(at=clock()))
    orch.pump()
    assert orch.state.hands == 2 and orch.state.hand is not None
    tab.wait_seq(orch.state.seq, WAIT)
    chips_before = orch.state.seat(3).stack
    # the page reconnects and resends its pending payload: same id, same (hand 1) seq
    aid = tab.send_action("preselect", seq=seen, choice="all_in")
    reply = _reply_while_handling(orch, tab, aid)
    while orch.state.hand is not None and orch.state.hand.seat_to_act not in (None, 3):
        orch.post(ev.ActionTaken(at=clock(), seat=orch.state.hand.seat_to_act, action="call"))
        orch.pump()
    auto3 = [a for a in orch.state.info.auto if a[0] == 3]
    assert audit(orch.state) == []  # chips are conserved either way
    assert not reply["accepted"] and reply["reason"].startswith("M-4"), (reply, auto3, chips_before)
