"""The floor's between-hands requests (issue 17, the room's console): seat a player, change
the stakes, close and open the table, each from ``livetable floor`` over the real broker to
the controller's floor desk (controller/floor.py), as the room's console sends them
through the table's bridge. Never into a running hand: a player seated mid-hand is not in
it, new stakes wait for its end, a close waits for its end and then no hand starts.

The table, broker and ``floor`` fixtures are tests/controller/test_floor.py's.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from controller.dealer import InternalDealer
from controller.engine.errors import IllegalAction
from controller.engine.table import events as ev
from controller.engine.table.audit import audit
from controller.faults import FaultKind
from controller.floor_cli import FloorClient
from drivers.mqtt.events import FloorRequestReceived
from tests.controller.test_floor import floor, table  # noqa: F401 - fixtures
from tests.mqtt.conftest import TABLE, WAIT, rig  # noqa: F401 - the private broker fixture


def wait_for(cond: Callable[[], bool], what: str) -> None:
    """Poll ``cond`` (the loop runs in its own thread) until it holds; fail after WAIT s."""
    end = time.monotonic() + WAIT
    while not cond():
        assert time.monotonic() < end, f"not within {WAIT} s: {what}"
        time.sleep(0.01)  # another thread's state: nothing to wait on


def start_hand(table: Any) -> None:
    hands = table.orch.state.hands
    table.orch.post(ev.HandStartRequested(at=table.clock(), button=1))
    wait_for(lambda: table.orch.state.hand is not None and table.orch.state.hands == hands + 1, "a hand starts")


def finish_hand(table: Any) -> None:
    """Everyone to act folds until the hand is over."""
    end = time.monotonic() + WAIT
    while (hand := table.orch.state.hand) is not None:
        assert time.monotonic() < end, "the hand did not end"
        try:
            lg = hand.legal()
        except IllegalAction:  # the cards are still being dealt (the dealer's thread)
            time.sleep(0.01)  # another thread's state: nothing to wait on
            continue
        seq = table.orch.state.seq
        table.orch.post(ev.ActionTaken(at=table.clock(), seat=lg.seat, action="fold"))
        wait_for(lambda: table.orch.state.seq > seq, "the fold is taken")


def ask_async(rig: Any, request: dict[str, Any]) -> tuple[threading.Thread, list[dict[str, Any]]]:  # noqa: F811
    """Send a floor request from a thread (its answer may wait for the hand's end)."""
    out: list[dict[str, Any]] = []
    client = FloorClient(TABLE, host="127.0.0.1", port=rig.broker.mqtt_port, username="floor",
                         password=rig.creds["floor"]["password"], timeout=WAIT * 2)
    t = threading.Thread(target=lambda: out.append(client.ask(request)), daemon=True)
    t.start()
    return t, out


def test_stakes_change_waits_for_the_hand_and_is_journalled_with_the_name(rig, table, floor):  # noqa: F811
    table.ports.dealer = InternalDealer(table.orch.post, table.clock, seed=3)
    table.seat_players()
    table.start(rig)
    start_hand(table)
    code, out, _ = floor("stakes", "20", "--small-blind", "10", "--ante", "2", "--by", "Anna", "--reason", "level 2")
    assert code == 0 and "from the next hand" in out and "floor:Anna" in out
    s = table.orch.state.settings
    assert (s.small_blind, s.big_blind, s.ante) == (5, 10, 0)  # the running hand keeps its stakes
    finish_hand(table)
    s = table.orch.state.settings
    assert (s.small_blind, s.big_blind, s.ante) == (10, 20, 2)
    changed = [e.payload for e in table.orch.journal.entries(kinds=("table",))
               if e.payload.get("kind") == "settings-changed"]
    assert changed[-1]["by"] == "floor:Anna" and changed[-1]["changes"]["big_blind"] == 20
    code, out, err = floor("stakes", "20", "--small-blind", "30", "--by", "Anna")  # small above big: never sent
    assert code == 2 and "S-1: the small blind (30) must be at most the big blind (20)" in out + err
    code, out, _ = floor("stakes", "8", "--by", "Anna")  # the table's small blind (10) above it: the table refuses
    assert code == 1 and "refused: " in out
    code, out, _ = floor("status")
    assert "stakes 10/20, ante 2" in out
    assert audit(table.orch.state) == []


def test_seat_a_player_mid_hand_is_dealt_in_from_the_next_hand(rig, table, floor):  # noqa: F811
    table.ports.dealer = InternalDealer(table.orch.post, table.clock, seed=4)
    table.seat_players((1, 2))
    table.start(rig)
    start_hand(table)
    total = table.orch.state.ledger.total_in
    code, out, _ = floor("seat", "2", "Carl", "500", "--by", "Anna")
    assert code == 1 and "T-3: seat 2 is taken" in out
    code, out, _ = floor("seat", "3", "Carl", "5", "--by", "Anna")  # below the buy-in minimum
    assert code == 1 and "refused: T-2" in out
    wait_for(lambda: table.orch.state.seat(3) is None, "a refused buy-in leaves the seat free")
    code, out, _ = floor("seat", "3", "Carl", "500", "--by", "Anna", "--reason", "from the list")
    assert code == 0 and "Carl sits in seat 3 with 500 chips (dealt in from the next hand)" in out
    seat = table.orch.state.seat(3)
    assert (seat.name, seat.stack) == ("Carl", 500) and table.orch.state.ledger.total_in == total + 500
    assert 3 not in table.orch.state.hand.seats  # not in the running hand
    assert audit(table.orch.state) == []


def test_close_waits_for_the_hand_then_no_hand_starts_and_open_deals_again(rig, table, floor):  # noqa: F811
    table.ports.dealer = InternalDealer(table.orch.post, table.clock, seed=5)
    table.seat_players()
    table.start(rig)
    code, out, _ = floor("open", "--by", "Anna")
    assert code == 1 and "not closed" in out
    start_hand(table)
    thread, answer = ask_async(rig, {"command": "close", "by": "Anna", "reason": "end of the night"})
    wait_for(lambda: table.orch.closing is not None, "the close is taken")
    assert not table.orch.faults.paused and table.orch.state.hand is not None  # never mid-hand
    assert not answer
    finish_hand(table)
    thread.join(WAIT)
    assert answer and answer[0]["accepted"], answer
    assert "closed by floor:Anna: end of the night" in answer[0]["detail"]
    fault = table.orch.faults.current
    assert fault.kind is FaultKind.PAUSED and fault.message == "closed by floor:Anna: end of the night"
    hands = table.orch.state.hands
    table.orch.post(ev.HandStartRequested(at=table.clock()))  # no hand at a closed table
    code, out, _ = floor("status")
    assert "CLOSED" in out and table.orch.state.hands == hands
    code, out, _ = floor("close", "--by", "Anna")
    assert code == 1 and "closed already" in out
    code, out, _ = floor("open", "--by", "Ben", "--reason", "a new game")
    assert code == 0 and "the table is open" in out
    assert not table.orch.faults.paused and table.orch.faults.endings[-1].by == "floor:Ben"
    start_hand(table)
    assert audit(table.orch.state) == []


def test_open_calls_off_a_close_still_waiting_for_its_hand(rig, table, floor):  # noqa: F811
    table.ports.dealer = InternalDealer(table.orch.post, table.clock, seed=6)
    table.seat_players()
    table.start(rig)
    start_hand(table)
    answers: list[tuple[Any, ...]] = []
    desk = table.adapter.mqtt_part.floor
    send = desk._answer  # noqa: SLF001 - see the close's answer too (one floor client per login)
    desk._answer = lambda *a: (answers.append(a), send(*a))  # noqa: SLF001
    # the close as the link hands it over (a second floor client would end the first's session)
    table.orch.post(FloorRequestReceived("close-1", "close", "Anna", table.clock()))
    wait_for(lambda: table.orch.closing is not None, "the close is taken")
    code, out, _ = floor("open", "--by", "Ben")
    assert code == 0 and "called off" in out
    close = next(a for a in answers if a[0] == "close-1")
    assert close[2] is False and "opened again by floor:Ben" in close[3]
    finish_hand(table)
    assert not table.orch.faults.paused and table.orch.closing is None
    start_hand(table)


def test_the_codec_checks_the_between_hands_requests() -> None:
    import json

    import pytest

    from drivers.mqtt.codec import PayloadError, decode_floor_request, floor_request_payload

    req = decode_floor_request(floor_request_payload(request_id="a", command="seat", by="Anna", seat=4,
                                                     player="Carl", amount=500))
    assert (req.seat, req.player, req.amount) == (4, "Carl", 500)
    req = decode_floor_request(floor_request_payload(request_id="b", command="stakes", by="Anna",
                                                     stakes={"big_blind": 20, "ante": 0}))
    assert req.stakes == {"big_blind": 20, "ante": 0}
    assert decode_floor_request(floor_request_payload(request_id="c", command="close", by="Anna")).command == "close"
    bad = [{"command": "seat", "by": "A", "seat": 4, "player": "Carl"},  # no amount
           {"command": "seat", "by": "A", "seat": 4, "player": "", "amount": 5},
           {"command": "seat", "by": "A", "seat": 11, "player": "Carl", "amount": 5},
           {"command": "stakes", "by": "A", "stakes": {"small_blind": 5}},  # no big blind
           {"command": "stakes", "by": "A", "stakes": {"big_blind": 0}},
           {"command": "stakes", "by": "A", "stakes": {"big_blind": 10, "rake": 1}},
           {"command": "stakes", "by": "A", "stakes": {"big_blind": True}},
           {"command": "close"},  # who decides
           {"command": "pause", "by": "A", "amount": 5}]
    for b in bad:
        with pytest.raises(PayloadError) as exc:
            decode_floor_request(json.dumps({"schema": 1, "id": "x", **b}).encode())
        assert exc.value.code == "M-2", b
