"""The dealer console's confirm button also confirms a tablet player's buy-in (T-3,
``tablet_join = "confirm"``): legal when a fault waits or, with none, a buy-in waits."""

from __future__ import annotations

from drivers.seats import ConsoleButton
from drivers.seats.lights import project


def _state(*, pending: int = 0, fault: bool = False) -> dict:
    seats = [{"seat": 1, "name": "P1", "stack": 5000, "status": "active", "buy_in_pending": 0},
             {"seat": 2, "name": "Ann", "stack": 0, "status": "waiting", "buy_in_pending": pending},
             {"seat": 3, "name": None, "stack": 0, "status": "empty", "buy_in_pending": 0}]
    return {"seq": 7, "street": "waiting", "paused": False, "turn": None, "seats": seats,
            "fault": {"kind": "jam", "message": "jam", "since": 1.0} if fault else None}


def test_confirm_is_legal_when_a_buy_in_waits_for_the_dealer():
    assert project(_state(pending=2000)).console_legal(ConsoleButton.CONFIRM)
    assert not project(_state(pending=0)).console_legal(ConsoleButton.CONFIRM)
    assert project(_state(fault=True)).console_legal(ConsoleButton.CONFIRM)
    # a state from before the field existed, or a malformed value, confirms nothing
    old = _state()
    for s in old["seats"]:
        del s["buy_in_pending"]
    assert not project(old).console_legal(ConsoleButton.CONFIRM)
    bad = _state()
    bad["seats"][1]["buy_in_pending"] = "2000"
    assert not project(bad).console_legal(ConsoleButton.CONFIRM)
