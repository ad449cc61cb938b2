"""The table's outbox against a real Mosquitto (controller/roomlink.py, issue 17).

No room here: the test plays the room's side on the table's own broker (what the bridge
would deliver): it reads the outbox's records and answers acknowledgements, including
wrong ones, which must be refused without moving the outbox.
"""

from __future__ import annotations

import json
import queue
import threading
import time
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
    yield broker, creds["controller"]["password"], creds["outbox"]["password"]
    broker.stop()


def room_side(broker: Any, password: str, on_message: Any, *, base: bool) -> Any:
    """The room's side on the table's broker: reads the records (``on_message``), says the
    bridge is up and acknowledges nothing yet (``base``: whether the room holds the base)."""
    room = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
    room.username_pw_set("controller", password)
    room.on_message = on_message
    room.connect("127.0.0.1", broker.mqtt_port)
    room.subscribe(records_topic("sim"), 1)
    room.loop_start()
    room.publish(link_topic("sim"), "1", qos=1, retain=True).wait_for_publish(WAIT)
    room.publish(ack_topic("sim"), json.dumps({"table": "sim", "upto": 0, "base": base}),
                 qos=1, retain=True).wait_for_publish(WAIT)
    return room


def test_records_until_acknowledged_and_a_wrong_ack_is_refused(tmp_path: Path, table_broker: Any) -> None:
    broker, password, outbox_password = table_broker
    summary = run_simulate(tmp_path / "t", hands=3, seed=3)
    journal = tmp_path / "t" / "journal.sqlite"
    got: "queue.Queue[dict[str, Any]]" = queue.Queue()
    room = room_side(broker, password, lambda c, u, m: got.put(json.loads(m.payload)), base=False)
    link = RoomLink("sim", journal, port=broker.mqtt_port, username="sim-outbox", password=outbox_password,
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


def test_the_outbox_login_writes_its_records_and_reads_its_acks_only(table_broker: Any) -> None:
    # ``sim-outbox`` (livetable tablets provision): the outbox's own login, with only the
    # rights it needs on the table's broker. Mosquitto drops a refused publish silently and
    # keeps the order of one client's messages: each round ends with one that is allowed.
    broker, password, outbox_password = table_broker

    def client(user: str, pw: str, subs: list[str]) -> tuple[Any, "queue.Queue[str]"]:
        seen: "queue.Queue[str]" = queue.Queue()
        c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
        c.username_pw_set(user, pw)
        subscribed = threading.Event()
        c.on_message = lambda cl, u, m: seen.put(m.topic)
        c.on_subscribe = lambda *_: subscribed.set()
        c.connect("127.0.0.1", broker.mqtt_port)
        c.loop_start()
        c.subscribe([(s, 1) for s in subs])
        assert subscribed.wait(WAIT)
        return c, seen

    controller, at_controller = client("controller", password, ["livetable/#"])
    outbox, at_outbox = client("sim-outbox", outbox_password, ["livetable/#"])
    try:
        controller.publish("livetable/sim/room/link", "1", qos=1).wait_for_publish(WAIT)
        assert at_controller.get(timeout=WAIT) == "livetable/sim/room/link"
        assert at_outbox.get(timeout=WAIT) == "livetable/sim/room/link"
        for topic in ("livetable/sim/state", "livetable/sim/floor/request", "livetable/sim/room/ack",
                      "livetable/t2/room/records", "livetable/sim/seat/3/action"):
            outbox.publish(topic, "{}", qos=1).wait_for_publish(WAIT)
        outbox.publish(records_topic("sim"), "{}", qos=1).wait_for_publish(WAIT)
        assert at_controller.get(timeout=WAIT) == records_topic("sim")
        for topic in ("livetable/sim/state", "livetable/sim/seat/3/private", "livetable/t2/room/ack"):
            controller.publish(topic, "{}", qos=1).wait_for_publish(WAIT)
            assert at_controller.get(timeout=WAIT) == topic
        controller.publish(ack_topic("sim"), "{}", qos=1).wait_for_publish(WAIT)
        assert at_controller.get(timeout=WAIT) == ack_topic("sim")
        assert at_outbox.get(timeout=WAIT) == ack_topic("sim")
        assert at_controller.empty() and at_outbox.empty()
    finally:
        for c in (controller, outbox):
            c.disconnect()
            c.loop_stop()


def test_a_resend_for_want_of_an_acknowledgement_backs_off(tmp_path: Path, table_broker: Any) -> None:
    # A room that lags behind (its acknowledgement does not move): the outbox sends again from
    # the first record not acknowledged after resend_seconds, then after twice that, four
    # times... (controller/roomlink.py _resend_wait), not every resend_seconds: each resend is
    # the whole backlog, and a lagging room stores it again (issue 17, docs/room.md). The
    # waits are lower bounds: a loaded machine only makes them longer.
    broker, password, outbox_password = table_broker
    run_simulate(tmp_path / "t", hands=2, seed=5)
    starts: "queue.Queue[float]" = queue.Queue()  # when a message starting at record 1 came

    def on_message(c: Any, u: Any, m: Any) -> None:
        msg = json.loads(m.payload)
        if msg["records"] and msg["records"][0]["seq"] == 1:
            starts.put(time.monotonic())

    room = room_side(broker, password, on_message, base=True)
    link = RoomLink("sim", tmp_path / "t" / "journal.sqlite", port=broker.mqtt_port, username="sim-outbox",
                    password=outbox_password, batch=500, resend_seconds=0.5).start()
    try:
        times = [starts.get(timeout=WAIT) for _ in range(4)]  # the first send and three resends
        gaps = [b - a for a, b in zip(times, times[1:])]
        assert gaps[0] >= 0.45 and gaps[1] >= 0.95 and gaps[2] >= 1.95, gaps
        assert link.resends == 3
        # the room answers: the next wait is resend_seconds again
        room.publish(ack_topic("sim"), json.dumps({"table": "sim", "upto": 1, "base": True}),
                     qos=1, retain=True).wait_for_publish(WAIT)
        assert link.wait_acked(1, WAIT)
        assert link._resend_wait() == 0.5  # noqa: SLF001
    finally:
        link.stop()
        room.disconnect()
        room.loop_stop()


def test_a_stop_does_not_drain_into_a_dead_room(tmp_path: Path, table_broker: Any) -> None:
    """BRK-P: the tables of a killed ``room simulate`` (SIGTERM from PR_SET_PDEATHSIG) sat in
    stop()'s 30 s drain although no acknowledgement could come: their brokers died with
    ``room simulate``. A stop drains only while connected to the table's broker."""
    import threading

    broker, password, outbox_password = table_broker
    run_simulate(tmp_path / "t", hands=1, seed=3)
    sent = threading.Event()
    room = room_side(broker, password, lambda c, u, m: sent.set(), base=False)
    link = RoomLink("sim", tmp_path / "t" / "journal.sqlite", port=broker.mqtt_port, username="sim-outbox",
                    password=outbox_password, batch=50).start()
    done = threading.Event()
    try:
        assert sent.wait(WAIT)  # connected: it sends, the room acknowledges nothing
        broker.stop()  # the table's broker dies (with room simulate)
        threading.Thread(target=lambda: (link.stop(drain=600.0), done.set()), daemon=True).start()
        assert done.wait(WAIT), "stop() drained into a room that cannot answer"
    finally:
        room.disconnect()
        room.loop_stop()
        if not done.is_set():
            link.stop()


def test_an_acknowledgement_beyond_the_journal_is_another_rooms_and_is_ignored(tmp_path: Path,
                                                                                table_broker: Any) -> None:
    """A new table (a new journal) under an old room's retained acknowledgement (issue 19
    usability): the outbox took ``upto`` far past its own journal, sent nothing until the journal
    grew past it (about a minute) and let compaction drop what the room never had, until the
    room answered "0". The room can hold only records this journal wrote: it is ignored."""
    broker, password, outbox_password = table_broker
    run_simulate(tmp_path / "t", hands=2, seed=4)
    journal = tmp_path / "t" / "journal.sqlite"
    got: "queue.Queue[dict[str, Any]]" = queue.Queue()
    room = room_side(broker, password, lambda c, u, m: got.put(json.loads(m.payload)), base=False)
    room.publish(ack_topic("sim"), json.dumps({"table": "sim", "upto": 10**6, "base": True}),
                 qos=1, retain=True).wait_for_publish(WAIT)  # an old room's, retained
    link = RoomLink("sim", journal, port=broker.mqtt_port, username="sim-outbox", password=outbox_password,
                    batch=50, resend_seconds=1.0).start()
    try:
        first = got.get(timeout=WAIT)
        assert first["records"][0]["seq"] == 1 and first["base"]["upto"] == 0  # from the start, with the base
        assert link.acked == 0 and not link.room_has_base
        last = link.last_seq()
        room.publish(ack_topic("sim"), json.dumps({"table": "sim", "upto": last, "base": True}),
                     qos=1, retain=True).wait_for_publish(WAIT)  # the new room's
        assert link.wait_acked(last, WAIT)
    finally:
        stats = link.stop()
        room.disconnect()
        room.loop_stop()
    assert stats["acked"] == stats["last_seq"] == last


@pytest.mark.parametrize("folder", ["brk2#x", "what?mode=rw", "100%25"])
def test_the_journal_is_read_in_a_folder_whose_name_holds_uri_characters(tmp_path: Path, folder: str) -> None:
    """``#``, ``?`` and ``%`` in the journal's path are the path's, not the URI's (breaker 2,
    design note): the newest seq is read, and no file is created where the name was cut."""
    import sqlite3
    from contextlib import closing

    from controller.composition import _journal_last_seq

    path = tmp_path / folder / "t1.sqlite"
    path.parent.mkdir()
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("CREATE TABLE events(seq INTEGER PRIMARY KEY)")
        db.execute("INSERT INTO events(seq) VALUES (7)")
    before = sorted(p.name for p in tmp_path.iterdir())
    assert RoomLink("t1", path)._journal_last() == 7
    assert _journal_last_seq(path) == 7
    assert sorted(p.name for p in tmp_path.iterdir()) == before
