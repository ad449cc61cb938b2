"""The table's outbox against a real Mosquitto (controller/roomlink.py, issue 17).

No room here: the test plays the room's side on the table's own broker (what the bridge
would deliver): it reads the outbox's records and answers acknowledgements, including
wrong ones, which must be refused without moving the outbox.
"""

from __future__ import annotations

import json
import queue
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from controller.roomlink import RoomLink, ack_topic, link_topic, records_topic
from drivers.mqtt.broker import BrokerProcess
from drivers.mqtt.provision import provision
from tests.room.conftest import need_mosquitto, run_simulate

WAIT = 10.0


@pytest.fixture
def table_broker(tmp_path: Path) -> Any:
    need_mosquitto()
    creds = provision(tmp_path / "prov", "sim", 6)
    broker = BrokerProcess(tmp_path / "broker", passwd=tmp_path / "prov" / "passwd",
                           acl=tmp_path / "prov" / "acl").start()
    yield broker, creds["controller"]["password"]
    broker.stop()


def test_records_until_acknowledged_and_a_wrong_ack_is_refused(tmp_path: Path, table_broker: Any) -> None:
    broker, password = table_broker
    summary = run_simulate(tmp_path / "t", hands=3, seed=3)
    journal = tmp_path / "t" / "journal.sqlite"
    got: "queue.Queue[dict[str, Any]]" = queue.Queue()
    room = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
    room.username_pw_set("controller", password)
    room.on_message = lambda c, u, m: got.put(json.loads(m.payload))
    room.connect("127.0.0.1", broker.mqtt_port)
    room.subscribe(records_topic("sim"), 1)
    room.loop_start()
    room.publish(link_topic("sim"), "1", qos=1, retain=True).wait_for_publish(WAIT)
    room.publish(ack_topic("sim"), json.dumps({"table": "sim", "upto": 0, "base": False}),
                 qos=1, retain=True).wait_for_publish(WAIT)
    link = RoomLink("sim", journal, port=broker.mqtt_port, username="controller", password=password,
                    batch=50, resend_seconds=1.0).start()
    try:
        first = got.get(timeout=WAIT)
        assert first["base"]["upto"] == 0 and first["records"][0]["seq"] == 1
        seen = {r["seq"] for r in first["records"]}
        last = link.last_seq()
        while max(seen) < last:
            msg = got.get(timeout=WAIT)
            assert msg["records"], "a message with nothing in it"
            seen |= {r["seq"] for r in msg["records"]}
        assert seen == set(range(1, last + 1))
        # wrong acknowledgements: another table's, a bad upto, not JSON; none moves the outbox
        for bad in (json.dumps({"table": "t9", "upto": last, "base": True}),
                    json.dumps({"table": "sim", "upto": "all", "base": True}), "not json"):
            room.publish(ack_topic("sim"), bad, qos=1).wait_for_publish(WAIT)
        # nothing acknowledged: after resend_seconds it sends again from record 1
        again = got.get(timeout=WAIT)
        while not again["records"] or again["records"][0]["seq"] != 1:
            again = got.get(timeout=WAIT)
        assert link.acked == 0 and link.resends >= 1
        room.publish(ack_topic("sim"), json.dumps({"table": "sim", "upto": last, "base": True}),
                     qos=1, retain=True).wait_for_publish(WAIT)
        assert link.wait_acked(last, WAIT)
    finally:
        stats = link.stop()
        room.disconnect()
        room.loop_stop()
    assert stats["acked"] == stats["last_seq"] == last and summary["hands"] == 3
