"""The seat held for a called player, shown and kept at the table (issue 18).

The room holds a seat for the player it called (room/waitlist.py); it tells the table on
``room/tables/<t>/holds`` (retained), which the table's bridge brings in as
``livetable/<t>/room/holds``. The table shows "held for Anna" in its public state, refuses a
walk-up's *Take this seat* there (T-3) but not the called player's, and lets the hold lapse at
its time by its own clock (controller/holds.py)."""

from __future__ import annotations

import json
import queue
from pathlib import Path
from typing import Any

import pytest

from controller.devices.mqtt import MqttAdapter
from controller.devices.ports import DevicePorts
from controller.engine.table import events as ev
from controller.engine.table.settings import TableSettings
from controller.runtime import open_table
from drivers.mqtt.codec import PayloadError, decode_holds
from drivers.mqtt.events import ActionReceived, HeldSeat, SeatHoldsReceived
from drivers.mqtt.link import TableLink
from room.desk import PlayersDesk
from room.simulate import RoomRig
from room.waitlist import ListKey
from test_room_acl import Client  # tests/room is on sys.path
from tests.mqtt.conftest import next_event
from tests.room.conftest import need_mosquitto

NOW = 1_800_000_000.0


def _holds(*holds: dict[str, Any], table: str = "t1") -> bytes:
    return json.dumps({"schema": 1, "table": table, "holds": list(holds)}).encode()


def test_the_holds_message_is_checked() -> None:
    anna = {"seat": 3, "player": "anna", "name": "Anna", "until": NOW + 120}
    assert decode_holds(_holds(anna), "t1", 6) == (HeldSeat(3, "anna", "Anna", NOW + 120),)
    assert decode_holds(b"", "t1", 6) == ()  # the retained message cleared
    for bad in (_holds(anna, table="t2"), _holds(dict(anna, seat=7)), _holds(anna, anna), b"[]", b"{",
                _holds(dict(anna, name="")), _holds(dict(anna, until="soon")), _holds(dict(anna, seat=True))):
        with pytest.raises(PayloadError):
            decode_holds(bad, "t1", 6)


def test_the_table_shows_the_hold_and_seats_only_the_called_player(tmp_path: Path) -> None:
    now = [NOW]
    ports = DevicePorts()
    views: list[dict[str, Any]] = []
    ports.observers.append(views.append)
    s = TableSettings(id="t1", name="Birch", seats=6, small_blind=1, big_blind=2, buy_in_min=40, buy_in_max=200)
    orch, _ = open_table(tmp_path / "t1.sqlite", s, clock=lambda: now[0], ports=ports)
    adapter = MqttAdapter(orch, ports, clock=lambda: now[0])

    def take(seat: int, name: str) -> list[Any]:
        e = ActionReceived(seat, "take_seat", 100, f"a{len(ports.replies)}{seat}", orch.state.seq, now[0],
                           name=name, post=False)
        return adapter.translate(e)

    assert orch.public_view()["holds"] == []
    adapter.translate(SeatHoldsReceived((HeldSeat(3, "anna", "Anna", NOW + 150),), NOW))
    assert views[-1]["holds"] == [{"seat": 3, "name": "Anna", "until": NOW + 150}]  # published at once
    now[0] += 30
    assert take(3, "Walk Up") == []  # the old table seated the walk-up
    seat, _, accepted, reason = ports.replies[-1]
    assert (seat, accepted) == (3, False) and reason == "T-3: seat 3 is held for Anna, called from the waiting list (2:00 left)"
    assert [type(x) for x in take(4, "Walk Up")] == [ev.PlayerJoined]  # another seat is free
    assert [x.name for x in take(3, " anna ")] == [" anna "]  # the called player, by her name
    now[0] = NOW + 150  # the hold lapses at its time, by the table's clock: the room may be gone
    assert orch.public_view()["holds"] == []
    assert [type(x) for x in take(3, "Walk Up")] == [ev.PlayerJoined]


@pytest.mark.broker
@pytest.mark.timeout(60)
def test_the_rooms_holds_reach_the_table_over_its_bridge(tmp_path: Path) -> None:
    need_mosquitto()
    rig = RoomRig(tmp_path, ["t1"]).start()
    q: "queue.Queue[Any]" = queue.Queue()
    link = TableLink("t1", host="127.0.0.1", port=rig.brokers["t1"].mqtt_port, username="controller",
                     password=rig.controller_password["t1"].read_text(), post=q.put, backoff=(0.05, 0.5), max_seats=6)
    published: list[tuple[str, str, bool]] = []
    desk = PlayersDesk(_NoService(tmp_path), publish=lambda *a: published.append(a), clock=lambda: NOW)
    room = Client(rig.room_broker.mqtt_port, rig.room_creds["username"], rig.room_creds["password"])
    try:
        link.start()
        link.wait_connected(10)
        key = ListKey("no-limit holdem", "1/2")
        desk.lists.table("t1", key)
        desk.lists.join(key, "anna", "anna")
        desk.lists.seat_opened("t1", 3, "table:t1")
        with desk.lock:
            desk._flush()  # noqa: SLF001 - what the desk's tick does after each change
        topic, text, retain = next(p for p in published if p[0] == "room/tables/t1/holds")
        assert retain and json.loads(text)["holds"] == [{"seat": 3, "player": "anna", "name": "anna",
                                                         "until": NOW + desk.lists.hold_seconds}]
        room.publish(topic, text, retain=True)  # as the room service publishes it
        got = next_event(q, SeatHoldsReceived)
        assert got.holds == (HeldSeat(3, "anna", "anna", NOW + desk.lists.hold_seconds),)
    finally:
        room.close()
        link.stop()
        rig.stop()


class _NoService:
    """A room service with a store and nothing else (the desk publishes through ``publish``)."""

    def __init__(self, tmp: Path) -> None:
        from room.apply import Room
        from room.store import open_store

        self.store = open_store(tmp / "room.sqlite")
        self.room = Room(self.store, lambda: NOW)
