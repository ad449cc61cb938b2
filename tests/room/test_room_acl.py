"""The room broker's ACL (issue 17): a table publishes only under its own id; a player's
login reads only the lobby and its own notices (anonymous clients are refused:
tests/room/test_room_takeover.py).

A real Mosquitto on ``mosquitto/room.conf`` with the files ``livetable room provision``
writes. A publish the ACL refuses is dropped by the broker without telling the sender, so
each refusal is shown by a control message sent after it on an allowed topic: the watcher
gets the control message and never the refused one (MQTT keeps one client's order).
"""

from __future__ import annotations

import json
import queue
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from drivers.mqtt.broker import BrokerProcess
from room.provision import main as provision_main
from room.provision import provision_player, provision_table, room_credentials
from room.simulate import ROOM_CONF
from tests.room.conftest import need_mosquitto

WAIT = 5.0


class Client:
    """A paho client that queues every message it gets and counts its disconnections
    (:attr:`lost`); connected on creation (``client_id``: the id it sends)."""

    def __init__(self, port: int, user: str | None, password: str | None, subs: list[str] = (),
                 *, client_id: str = "") -> None:
        self.q: "queue.Queue[tuple[str, bytes]]" = queue.Queue()
        self.subscribed: "queue.Queue[Any]" = queue.Queue()
        self.lost = 0
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311)
        if user:
            self.c.username_pw_set(user, password)
        self.c.on_message = lambda c, u, m: self.q.put((m.topic, bytes(m.payload)))
        self.c.on_subscribe = lambda c, u, mid, codes, p: self.subscribed.put(codes)
        self.c.on_disconnect = self._lost
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()
        for s in subs:
            self.c.subscribe(s, 1)
            self.subscribed.get(timeout=WAIT)

    def _lost(self, *a: Any) -> None:
        self.lost += 1

    def publish(self, topic: str, payload: str, *, retain: bool = False) -> None:
        self.c.publish(topic, payload, qos=1, retain=retain).wait_for_publish(WAIT)

    def until(self, payload: bytes) -> list[tuple[str, bytes]]:
        """Return every message up to the one with ``payload``."""
        got = []
        while True:
            try:
                m = self.q.get(timeout=WAIT)
            except queue.Empty:
                pytest.fail(f"no {payload!r} within {WAIT} s; got {got}")
            got.append(m)
            if m[1] == payload:
                return got

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


@pytest.fixture
def room(tmp_path: Path) -> Any:
    need_mosquitto()
    pdir = tmp_path / "prov"
    broker = BrokerProcess(tmp_path / "broker", passwd=pdir / "passwd", acl=pdir / "acl", config=ROOM_CONF)
    creds = room_credentials(pdir)
    for t in ("t1", "t2"):
        provision_table(pdir, t, host="127.0.0.1", port=broker.mqtt_port)
    players = {p: provision_player(pdir, p) for p in ("anna", "ben")}
    clear = json.loads((pdir / "credentials" / "room.json").read_text())
    broker.start()
    clients: list[Client] = []

    def client(user: str | None, subs: list[str] = ()) -> Client:
        c = Client(broker.mqtt_port, user, clear.get(user) if user else None, subs)
        clients.append(c)
        return c

    yield client, creds, players
    for c in clients:
        c.close()
    broker.stop()


def test_a_table_publishes_only_under_its_own_id(room: Any) -> None:
    client, _, _ = room
    watcher = client("room", ["room/#"])
    t1 = client("table-t1")
    t1.publish("room/tables/t2/records", "forged")
    t1.publish("room/tables/t2/ack", "forged ack")
    t1.publish("room/lobby/t2", "forged lobby")
    t1.publish("room/tables/t1/records", "own")
    got = watcher.until(b"own")
    assert [p for _, p in got] == [b"own"]


def test_a_table_forwards_waiting_list_requests_and_reads_answers_only_for_its_own_seats(room: Any) -> None:
    """Issue 18: a seated player's request from the tablet, named by the table: table t1's
    bridge cannot put down a player of t2, nor read t2's seats' answers; a player's login
    cannot forge a table's request."""
    client, _, _ = room
    watcher = client("room", ["room/tables/+/players/request"])
    t1 = client("table-t1", ["room/tables/t2/seats/+/lists", "room/tables/t1/seats/+/lists"])
    anna = client("player-anna")
    t1.publish("room/tables/t2/players/request", "forged by t1")
    anna.publish("room/tables/t1/players/request", "forged by anna")
    t1.publish("room/tables/t1/players/request", "own")
    assert [p for _, p in watcher.until(b"own")] == [b"own"]
    watcher.publish("room/tables/t2/seats/3/lists", "t2's")
    watcher.publish("room/tables/t1/seats/3/lists", "t1's")
    assert [p for _, p in t1.until(b"t1's")] == [b"t1's"]


def test_a_table_reads_only_its_own_acknowledgements(room: Any) -> None:
    client, _, _ = room
    t1 = client("table-t1", ["room/tables/t2/ack", "room/tables/t1/ack"])
    svc = client("room")
    svc.publish("room/tables/t2/ack", "t2's")
    svc.publish("room/tables/t1/ack", "t1's")
    assert [p for _, p in t1.until(b"t1's")] == [b"t1's"]


def test_a_player_reads_the_lobby_and_only_its_own_notices(room: Any) -> None:
    client, _, _ = room
    anna = client("player-anna", ["room/players/ben/notices/#", "room/tables/#", "room/lobby/#",
                                  "room/players/anna/notices/#"])
    svc = client("room")
    svc.publish("room/players/ben/notices/call", "ben is called")
    svc.publish("room/tables/t1/state", "a table's state")
    svc.publish("room/lobby/t1", "lobby t1")
    svc.publish("room/players/anna/notices/call", "anna is called")
    assert [p for _, p in anna.until(b"anna is called")] == [b"lobby t1", b"anna is called"]
    anna.publish("room/lobby/t1", "a player writes the lobby")
    anna.publish("room/players/anna/notices/call", "a player writes a notice")
    svc.c.subscribe("room/#", 1)  # one client per login: a second `room` client would end this one
    svc.subscribed.get(timeout=WAIT)
    svc.publish("room/lobby/t2", "control")
    assert [p for _, p in svc.until(b"control")] == [b"control"]


def test_provision_refuses_bad_ids_and_writes_a_bridge_per_table(tmp_path: Path, capsys: Any) -> None:
    assert provision_main(["--dir", str(tmp_path), "--table", "Bad Id"]) == 2
    assert "M-6" in capsys.readouterr().err
    assert provision_main(["--dir", str(tmp_path), "--table", "t9", "--room-port", "70000"]) == 2
    assert provision_main(["--dir", str(tmp_path), "--player", "Not OK"]) == 2
    assert provision_main(["--dir", str(tmp_path)]) == 2
    assert provision_main(["--dir", str(tmp_path), "--table", "t9", "--room-host", "room.local"]) == 0
    bridge = (tmp_path / "bridges" / "t9.conf").read_text()
    assert "address room.local:1884" in bridge and "remote_username table-t9" in bridge
    assert "topic records out 1 livetable/t9/room/ room/tables/t9/" in bridge
    assert oct((tmp_path / "bridges" / "t9.conf").stat().st_mode & 0o777) == "0o600"
    first = json.loads((tmp_path / "credentials" / "room.json").read_text())["table-t9"]
    assert provision_main(["--dir", str(tmp_path), "--table", "t9"]) == 0  # kept, not rotated
    assert json.loads((tmp_path / "credentials" / "room.json").read_text())["table-t9"] == first


def test_a_player_reads_and_writes_only_its_own_presence(room: Any) -> None:
    """Issue 18: which of a player's phones has the list (room/players/<p>/presence)."""
    client, _, _ = room
    watcher = client("room", ["room/players/+/presence"])
    anna = client("player-anna", ["room/players/ben/presence", "room/players/anna/presence"])
    ben = client("player-ben")
    ben.publish("room/players/ben/presence", "ben's own")
    assert [p for _, p in watcher.until(b"ben's own")] == [b"ben's own"]
    anna.publish("room/players/ben/presence", "forged by anna")
    anna.publish("room/players/anna/presence", "anna's own")
    assert [p for _, p in anna.until(b"anna's own")] == [b"anna's own"]  # not ben's
    assert [p for _, p in watcher.until(b"anna's own")] == [b"anna's own"]  # the forgery dropped


def test_a_table_reports_and_reads_tournament_orders_only_under_its_own_id(room: Any) -> None:
    """Issue 19: ``table-t1`` writes its own tournament reports (not t2's, not orders) and
    reads its own orders only (docs/tournament.md "Multi-table through the room")."""
    client, _, _ = room
    watcher = client("room", ["room/tables/+/tournament/#"])
    t1 = client("table-t1", ["room/tables/t2/tournament/order", "room/tables/t1/tournament/order"])
    t1.publish("room/tables/t2/tournament/report", "forged report")
    t1.publish("room/tables/t1/tournament/order", "forged order")
    t1.publish("room/tables/t1/tournament/report", "own report")
    assert [p for _, p in watcher.until(b"own report")] == [b"own report"]
    svc = client("room")
    svc.publish("room/tables/t2/tournament/order", "t2's order")
    svc.publish("room/tables/t1/tournament/order", "t1's order")
    assert [p for _, p in t1.until(b"t1's order")] == [b"t1's order"]
