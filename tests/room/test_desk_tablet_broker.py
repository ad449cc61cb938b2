"""A seated player joins a waiting list from the seat's tablet through real brokers (issue 18):
seat 3's login publishes on its own ``seat/3/lobby``; the table's link and MQTT adapter
forward it with the player seated there; the table's bridge (made by ``livetable room
provision``) takes it to the room broker, where the room service's desk (its own subscription,
its own login) applies it; the room's answer comes back over the bridge and reaches seat 3's
tablet only. The broker drops seat 3's write to
seat 4's topic and never gives seat 4 seat 3's lists."""

from __future__ import annotations

import json
import queue
import time
from pathlib import Path
from typing import Any

import pytest

from controller.devices.mqtt import MqttAdapter
from controller.devices.ports import DevicePorts
from controller.engine.table import events as ev
from controller.engine.table.settings import TableSettings
from controller.runtime import open_table
from drivers.mqtt.codec import lobby_request_payload
from drivers.mqtt.events import LobbyRequestReceived, SeatListsReceived
from drivers.mqtt.link import TableLink
from room.desk import PlayersDesk
from room.rig import RoomRig
from room.service import RoomService
from room.store import open_store
from room.waitlist import ListKey
from test_room_acl import Client  # tests/room is on sys.path
from tests.mqtt.conftest import next_event
from tests.room.conftest import need_mosquitto

WAIT = 10.0
KEY = ListKey("no-limit holdem", "1/2")


def _message(c: Client, topic: str, timeout: float = WAIT) -> dict[str, Any]:
    end = time.monotonic() + timeout
    while True:
        try:
            t, payload = c.q.get(timeout=max(0.01, end - time.monotonic()))
        except queue.Empty:
            pytest.fail(f"nothing on {topic} within {timeout} s")
        if t == topic and payload:
            return dict(json.loads(payload))


@pytest.mark.broker
@pytest.mark.timeout(90)
def test_a_tablet_joins_a_list_through_the_table_and_the_room(tmp_path: Path) -> None:
    need_mosquitto()
    rig = RoomRig(tmp_path, ["t1"]).start()
    seats = json.loads((tmp_path / "t1" / "mosquitto" / "credentials" / "t1.json").read_text())["seat_users"]
    events: "queue.Queue[Any]" = queue.Queue()
    ports = DevicePorts()
    link = TableLink("t1", host="127.0.0.1", port=rig.brokers["t1"].mqtt_port, username="controller",
                     password=rig.controller_password["t1"].read_text(), post=events.put, backoff=(0.05, 0.5),
                     max_seats=6)
    ports.link = link
    s = TableSettings(id="t1", name="Birch", seats=6, small_blind=1, big_blind=2, buy_in_min=40, buy_in_max=200)
    orch, _ = open_table(tmp_path / "t1.sqlite", s, clock=time.time, ports=ports)
    adapter = MqttAdapter(orch, ports, clock=time.time)
    orch.listeners.append(adapter.after_step)
    store = open_store(tmp_path / "room.sqlite")
    service = RoomService(store, host="127.0.0.1", port=rig.room_broker.mqtt_port, **rig.room_creds).start()
    desk = PlayersDesk(service).start()
    clients: list[Client] = []
    try:
        link.start()
        link.wait_connected(WAIT)
        assert service.wait_connected(WAIT)
        orch.handle(ev.PlayerSatDown(at=time.time(), seat=3, player="anna", name="Anna"))
        with desk.lock:  # the room's replay of the table: Birch plays NLHE 1/2, anna sits in seat 3
            desk.lists.table("t1", KEY)
            desk.lists.seated["anna"] = ("t1", 3)
            desk.lists.join(KEY, "zoe", "zoe")
        tab3 = Client(rig.brokers["t1"].mqtt_port, seats["3"]["username"], seats["3"]["password"],
                      ["livetable/t1/seat/3/lists", "livetable/t1/seat/3/reply"])
        tab4 = Client(rig.brokers["t1"].mqtt_port, seats["4"]["username"], seats["4"]["password"],
                      ["livetable/t1/seat/+/lists"])
        clients += [tab3, tab4]
        # seat 3 cannot ask for seat 4 (the broker drops it); its own request gets through
        tab3.publish("livetable/t1/seat/4/lobby",
                     lobby_request_payload(seat=4, op="join", list_id=str(KEY), request_id="x4").decode())
        tab3.publish("livetable/t1/seat/3/lobby",
                     lobby_request_payload(seat=3, op="join", list_id=str(KEY), request_id="l3-1").decode())
        got = next_event(events, LobbyRequestReceived, WAIT)
        assert (got.seat, got.op, got.list, got.request_id) == (3, "join", str(KEY), "l3-1")
        adapter.translate(got)
        assert _message(tab3, "livetable/t1/seat/3/reply")["accepted"] is True
        # over the bridge to the room, with the player as the table knows her; the desk puts her
        # down, then back over the bridge to the table, which gives it to seat 3
        adapter.translate(next_event(events, SeatListsReceived, WAIT))
        assert [(e.action, e.by, e.detail) for e in desk.lists.log if e.player == "anna"] == [
            ("join", "anna", "place 2, via table t1 seat 3")]
        shown = _message(tab3, "livetable/t1/seat/3/lists")
        assert shown["name"] == "Anna" and shown["id"] == "l3-1" and "player" not in shown
        assert (shown["lists"][0]["list"], shown["lists"][0]["place"], shown["lists"][0]["waiting"]) == (
            str(KEY), 2, 2)
        # a bad payload: a clear refusal to that tablet, nothing lost
        tab3.publish("livetable/t1/seat/3/lobby", '{"schema": 1, "id": "l3-2", "seat": 3, "op": "dance"}')
        refused = _message(tab3, "livetable/t1/seat/3/reply")
        assert refused["accepted"] is False and refused["reason"].startswith("M-2") and refused["id"] == "l3-2"
        assert desk.status("anna")["lists"][0]["place"] == 2
        # seat 4's tablet never saw seat 3's lists, and no request for seat 4 ever reached the table
        assert all(t != "livetable/t1/seat/3/lists" for t, _ in list(tab4.q.queue))
        assert all(not (isinstance(e, LobbyRequestReceived) and e.seat == 4) for e in list(events.queue))
    finally:
        for c in clients:
            c.close()
        link.stop()
        desk.stop()
        service.stop()
        orch.journal.close()
        store.close()
        rig.stop()
