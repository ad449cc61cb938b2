"""Tables offline in the lobby (issue 18): a table whose link to the room is down is shown
"offline since HH:MM" and no player is called to its seats until it is back.

The room learns it from the table's bridge itself: Mosquitto publishes the bridge's state on
the room broker too (``notifications_local_only false``: ``1`` at connect, a Last Will ``0``
when the link breaks; room/provision.py) and the controller's presence is bridged out (a
controller gone with its broker and link up is offline too)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from room.desk import PlayersDesk
from room.fairness import check_log
from room.lobby import lobby_view
from room.service import RoomService
from room.simulate import RoomRig
from room.store import open_store
from room.waitlist import ListKey, WaitingLists
from test_room_acl import Client  # tests/room is on sys.path
from tests.room.conftest import need_mosquitto
from tests.room.forwarder import Forwarder

KEY = ListKey("no-limit holdem", "1/2")


def _until(what: Callable[[], Any], timeout: float = 20.0) -> Any:
    end = time.monotonic() + timeout
    while not (got := what()):
        assert time.monotonic() < end, "timed out"
        time.sleep(0.05)  # polling the service's state (set by paho's thread): nothing to wait on
    return got


def test_an_offline_tables_seats_are_called_for_nobody() -> None:
    now = [100.0]
    lists = WaitingLists(lambda: now[0], 60)
    lists.table("t1", KEY)
    lists.table("t2", KEY)
    lists.join(KEY, "anna", "anna")
    lists.table_offline("t1")
    assert lists.seat_opened("t1", 3, "table:t1") == []  # the old lists called anna here
    calls = lists.seat_opened("t2", 5, "table:t2")
    assert [(c.player, c.table) for c in calls] == [("anna", "t2")]
    lists.join(KEY, "bo", "bo")
    assert lists.openings[("t1", 3)].call is None
    assert [(c.player, c.table, c.seat) for c in lists.table_online("t1")] == [("bo", "t1", 3)]
    assert check_log(lists.log, {"t1": KEY, "t2": KEY})["calls"] == 2
    assert [e.action for e in lists.log if e.table == "t1" and e.seat is None] == ["offline", "online"]


@pytest.mark.broker
@pytest.mark.timeout(90)
def test_the_room_sees_a_tables_link_break_and_come_back(tmp_path: Path) -> None:
    need_mosquitto()
    link = Forwarder()
    rig = RoomRig(tmp_path, ["t1", "t2"], restart_timeout=(1, 1), link_ports={"t1": link.port})
    link.target = rig.room_broker.mqtt_port
    rig.start()
    store = open_store(tmp_path / "room.sqlite")
    now = [1_800_000_000.0]
    service = RoomService(store, host="127.0.0.1", port=rig.room_broker.mqtt_port, clock=lambda: now[0],
                          **rig.room_creds).start()
    desk = PlayersDesk(service, clock=lambda: now[0], hold_seconds=120)  # not started: links() by hand
    try:
        _until(lambda: service.links.get("t1", (False,))[0] and service.links.get("t2", (False,))[0])
        assert service.offline() == {}
        for t in ("t1", "t2"):
            desk.lists.table(t, KEY)
        now[0] += 60
        link.cut("reset")  # the network between table t1 and the room fails
        assert _until(service.offline) == {"t1": now[0]}
        with desk.lock:
            desk.links()
            desk.lists.join(KEY, "anna", "anna")
            assert desk.lists.seat_opened("t1", 3, "table:t1") == []
        entries = {t: {"table": t, "name": t.upper(), "game": "holdem", "stakes": {"sb": 1, "bb": 2},
                       "key": KEY.to_json()} for t in ("t1", "t2")}
        view = {e["table"]: e for e in lobby_view(entries, desk.lists, store, now[0], desk.offline)["tables"]}
        assert (view["t1"]["online"], view["t1"]["offline_since"]) == (False, now[0])
        assert (view["t2"]["online"], view["t2"]["offline_since"]) == (True, None)
        # table t2's controller goes away (its Last Will, retained on its own broker, bridged out)
        ctl = Client(rig.brokers["t2"].mqtt_port, "controller", rig.controller_password["t2"].read_text())
        ctl.publish("livetable/t2/presence/controller", json.dumps({"schema": 1, "online": False}), retain=True)
        assert set(_until(lambda: set(service.offline()) == {"t1", "t2"} and service.offline())) == {"t1", "t2"}
        ctl.publish("livetable/t2/presence/controller", json.dumps({"schema": 1, "online": True}), retain=True)
        ctl.close()
        link.heal()
        _until(lambda: not service.offline())
        with desk.lock:
            desk.links()
        assert desk.lists.call_of("anna") is not None and desk.lists.call_of("anna").table == "t1"
        check_log(desk.lists.log, dict(desk.lists.table_key))
    finally:
        desk.stop()
        service.stop()
        store.close()
        rig.stop()
        link.stop()
