"""No client of the room broker can end another's session (issue 17, 1).

A breaker took over the room service's session (id ``livetable-room``) and a table's bridge
(``bridge-<t>``) 12 times of 12 by connecting with those client ids: the room broker let
anonymous clients in and took the ids clients sent. ``mosquitto/room.conf`` now refuses
clients without a login and gives every client its login as its id
(``use_username_as_clientid``) on both listeners.

The rig is the production one (:class:`room.simulate.RoomRig`): the room broker on
``mosquitto/room.conf``, two tables' brokers on ``mosquitto/livetable.conf`` each with the
bridge ``livetable room provision`` wrote. The victims: the room service's login ``room``
(a client sending the old id ``livetable-room``) and table t1's real bridge. The attackers
connect over MQTT and WebSockets, anonymous and with every other login (t2's bridge login,
a player's, the lobby's), with each id the victims send or the broker knows them by.

How a kick would be seen without sleeping (as tests/mqtt/test_mqtt_takeover.py): the broker
closes the victim's connection while it handles the attacker's CONNECT, before it answers
it. So, once every attacker has had its answer, a message sent through each victim that
arrives with no disconnection reported (the room client's ``on_disconnect``; the bridge's
state ``0`` on ``livetable/t1/room/link`` at the table's broker) shows no victim was kicked.
"""

from __future__ import annotations

import json
import queue
import threading
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from room.provision import lobby_credentials, provision_player
from room.simulate import RoomRig
from tests.room.conftest import need_mosquitto
from tests.room.test_room_acl import Client

WAIT = 10.0
VICTIM_IDS = ["livetable-room", "room", "bridge-t1", "table-t1"]


def attack(port: int, client_id: str, login: str | None, password: str | None, *, ws: bool) -> bool:
    """Connect once with ``client_id`` as ``login`` (None: anonymous); return whether the
    broker accepted it (after its answer, the connection is closed again)."""
    answered = threading.Event()
    result: list[bool] = []

    def on_connect(client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        result.append(not reason.is_failure)
        answered.set()

    def on_disconnect(*a: Any) -> None:
        if not answered.is_set():
            result.append(False)
            answered.set()

    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311,
                    transport="websockets" if ws else "tcp", reconnect_on_failure=False)
    if login is not None:
        c.username_pw_set(login, password)
    c.on_connect = on_connect
    c.on_disconnect = on_disconnect
    c.connect("127.0.0.1", port)
    c.loop_start()
    try:
        assert answered.wait(WAIT), f"no answer to {client_id!r} as {login!r}"
    finally:
        c.disconnect()
        c.loop_stop()
    return result[0]


@pytest.fixture
def rig(tmp_path: Path) -> Any:
    need_mosquitto()
    r = RoomRig(tmp_path, ["t1", "t2"])
    pdir = r.room_dir / "mosquitto"
    provision_player(pdir, "anna")
    lobby_credentials(pdir)
    r.start()
    yield r, json.loads((pdir / "credentials" / "room.json").read_text())
    r.stop()


def test_no_client_takes_over_the_room_service_or_a_bridge(rig: Any) -> None:
    r, clear = rig
    room_port, ws_port = r.room_broker.mqtt_port, r.room_broker.ws_port
    # the victims: the room service's login (with the id the service used to send) and t1's bridge
    service = Client(room_port, "room", clear["room"], client_id="livetable-room", subs=["room/tables/t1/state"])
    table = Client(r.brokers["t1"].mqtt_port, "t1-outbox", r.outbox_password["t1"].read_text(),
                    subs=["livetable/t1/room/link", "livetable/t1/room/ack"])
    assert table.until(b"1")  # the bridge is up (its retained state)
    service.c.publish("room/tables/t1/ack", json.dumps({"marker": 0}), qos=1)
    table.until(json.dumps({"marker": 0}).encode())  # the bridge carries the room's messages
    try:
        accepted = []
        for ws in (False, True):
            for login in (None, "table-t2", "player-anna", "lobby"):
                for cid in VICTIM_IDS:
                    if attack(ws_port if ws else room_port, cid, login, clear.get(login) if login else None, ws=ws):
                        accepted.append((login, cid, ws))
        # every attacker had its answer: a kicked victim was closed before it; both still carry
        service.c.publish("room/tables/t1/ack", json.dumps({"marker": 1}), qos=1)
        got = table.until(json.dumps({"marker": 1}).encode())
        assert b"0" not in [p for t, p in got if t.endswith("/link")], "t1's bridge was thrown off"
        assert service.lost == 0, "the room service's session was taken over"
        assert table.lost == 0
        assert all(login is not None for login, _, _ in accepted), f"anonymous let in: {accepted}"
        assert len(accepted) == 3 * len(VICTIM_IDS) * 2  # every login got in, each as itself
    finally:
        service.close()
        table.close()


@pytest.mark.parametrize("ws", [False, True], ids=["mqtt", "websockets"])
def test_anonymous_is_refused_and_the_lobby_login_reads_the_lobby_only(rig: Any, ws: bool) -> None:
    r, clear = rig
    port = r.room_broker.ws_port if ws else r.room_broker.mqtt_port
    assert not attack(port, "", None, None, ws=ws)
    assert not attack(port, "x", "lobby", "wrong password", ws=ws)
    lobby = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311, transport="websockets" if ws else "tcp")
    got: "queue.Queue[tuple[str, bytes]]" = queue.Queue()
    subscribed = threading.Event()
    lobby.username_pw_set("lobby", clear["lobby"])
    lobby.on_message = lambda c, u, m: got.put((m.topic, bytes(m.payload)))
    lobby.on_subscribe = lambda *a: subscribed.set()
    lobby.connect("127.0.0.1", port)
    lobby.loop_start()
    svc = Client(r.room_broker.mqtt_port, "room", clear["room"])
    try:
        lobby.subscribe("room/#", 1)
        assert subscribed.wait(WAIT)
        svc.c.publish("room/tables/t1/ack", "not for the lobby", qos=1).wait_for_publish(WAIT)
        svc.c.publish("room/players/anna/notices/call", "anna's", qos=1).wait_for_publish(WAIT)
        lobby.publish("room/lobby/t1", "the lobby screen writes", qos=1).wait_for_publish(WAIT)
        svc.c.publish("room/lobby/t2", "lobby t2", qos=1).wait_for_publish(WAIT)
        seen = []
        while not seen or seen[-1] != b"lobby t2":
            seen.append(got.get(timeout=WAIT)[1])
        assert seen == [b"lobby t2"]
    finally:
        svc.close()
        lobby.disconnect()
        lobby.loop_stop()
