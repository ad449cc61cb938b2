"""Over the real broker: a request a seat's tablet left pending (Wi-Fi down) from before the
seat changed hands never reaches the new stay, even when the same player sat down again
(the seat scope's A-B-A, found by a second breaker).

The page resends every pending payload, same id and same seq, when it reconnects (tablet/js
app.js); the seat scope (drivers.mqtt.guard) refuses it (M-4) when the seat's stay changed
since that seq.
"""

from __future__ import annotations

from controller.engine.table import events as ev
from controller.engine.table.audit import audit

from .conftest import WAIT, Rig
from .test_mqtt_late_preselect import _controller, _reply_while_handling


def test_a_stand_up_pending_from_before_a_stand_up_and_sit_down_does_not_end_the_new_stay(rig: Rig, tmp_path) -> None:
    orch, clock = _controller(rig, tmp_path)
    tab = rig.tablet(3)
    for seat in (1, 2):  # hand 1 ends: between hands, a stand-up is at once
        orch.post(ev.ActionTaken(at=clock(), seat=seat, action="fold"))
        orch.pump()
    assert orch.state.hand is None
    seen = tab.wait_seq(orch.state.seq, WAIT)["seq"]  # P3 taps "stand up"; the Wi-Fi drops first
    orch.post(ev.StoodUp(at=clock(), seat=3))  # she asks the floor instead
    orch.pump()
    assert orch.state.seat(3) is None or not orch.state.seat(3).player
    orch.post(ev.PlayerSatDown(at=clock(), seat=3, player="p3", name="P3"))  # later she comes back
    orch.post(ev.BoughtIn(at=clock(), seat=3, amount=2000))
    orch.pump()
    tab.wait_seq(orch.state.seq, WAIT)
    aid = tab.send_action("stand_up", seq=seen)  # the page reconnects: same payload, old seq
    reply = _reply_while_handling(orch, tab, aid)
    assert audit(orch.state) == []
    seat3 = orch.state.seat(3)
    assert not reply["accepted"] and reply["reason"].startswith("M-4"), (reply, seat3)


def test_a_take_seat_pending_from_before_another_players_stay_does_not_seat_her(rig: Rig, tmp_path, monkeypatch) -> None:
    real = _controller.__globals__["TableSettings"]

    def direct(**kw):  # the rig's table, with tablet joins seating and buying in at once (T-3)
        return real(**kw, tablet_join="direct", buy_in_min=1000, buy_in_max=10000)

    monkeypatch.setitem(_controller.__globals__, "TableSettings", direct)
    orch, clock = _controller(rig, tmp_path)
    for seat in (1, 2):
        orch.post(ev.ActionTaken(at=clock(), seat=seat, action="fold"))
        orch.pump()
    orch.post(ev.StoodUp(at=clock(), seat=3))  # seat 3 is free
    orch.pump()
    tab = rig.tablet(3)
    seen = tab.wait_seq(orch.state.seq, WAIT)["seq"]  # Dee taps "take seat, 3000"; the Wi-Fi drops first
    orch.post(ev.PlayerSatDown(at=clock(), seat=3, player="pb", name="Bob"))  # the floor seats Bob there
    orch.post(ev.BoughtIn(at=clock(), seat=3, amount=2000))
    orch.pump()
    orch.post(ev.StoodUp(at=clock(), seat=3))  # an hour later Bob leaves
    orch.pump()
    tab.wait_seq(orch.state.seq, WAIT)
    aid = tab.send_action("take_seat", 3000, seq=seen, name="Dee", post=False)  # the page reconnects
    reply = _reply_while_handling(orch, tab, aid)
    assert audit(orch.state) == []
    seat3 = orch.state.seat(3)
    assert not reply["accepted"] and reply["reason"].startswith("M-4"), (reply, seat3)
