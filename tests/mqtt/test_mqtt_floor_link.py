"""The floor's request topic on a private broker with the repo's ACL (docs/mqtt.md "Floor").

Only the ``floor`` login (and the controllers) may write ``livetable/<t>/floor/request``: a
seat's tablet login that tries is dropped by the broker and never reaches the controller's
link. The link refuses malformed and replayed requests itself, on the floor reply topic.
"""

from __future__ import annotations

import json
import queue
import threading

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from drivers.mqtt import codec
from drivers.mqtt.events import FloorRequestReceived
from drivers.mqtt.topics import Kind, topic

from .conftest import TABLE, WAIT, drain, next_event

REQ, REPLY = topic(Kind.FLOOR_REQUEST, TABLE), topic(Kind.FLOOR_REPLY, TABLE)


class Client:
    """A bare paho client logged in as ``user``, keeping the floor replies it reads."""

    def __init__(self, rig, user: str, password: str | None) -> None:
        self.replies: "queue.Queue[dict]" = queue.Queue()
        self._ready = threading.Event()
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        self.c.username_pw_set(user, password)
        self.c.on_connect = lambda c, *a: c.subscribe(REPLY, qos=1)
        self.c.on_subscribe = lambda *a: self._ready.set()
        self.c.on_message = lambda c, u, m: self.replies.put(json.loads(m.payload))
        self.c.connect("127.0.0.1", rig.broker.mqtt_port)
        self.c.loop_start()
        assert self._ready.wait(WAIT)
        rig._stops.append(self.stop)

    def send(self, payload: bytes) -> None:
        self.c.publish(REQ, payload, qos=1).wait_for_publish(WAIT)

    def reply(self) -> dict:
        return self.replies.get(timeout=WAIT)

    def stop(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


def test_only_the_floor_login_reaches_the_controller_a_seat_login_is_dropped(rig):
    link, q = rig.link()
    seat3 = Client(rig, f"{TABLE}-seat3", rig.password(3))
    floor = Client(rig, "floor", rig.creds["floor"]["password"])
    seat3.send(codec.floor_request_payload(request_id="forged", command="void", by="Mallory", fault="jam"))
    floor.send(codec.floor_request_payload(request_id="real", command="void", by="Anna", fault="jam"))
    got = next_event(q, FloorRequestReceived)
    # the broker handled the tablet's publish first (it was acknowledged), and dropped it
    assert (got.request_id, got.command, got.by, got.fault) == ("real", "void", "Anna", "jam")
    assert drain(q, FloorRequestReceived) == []
    # the tablet cannot read the floor's replies either
    link.floor_reply("real", "void", True, None, detail="done")
    assert floor.reply()["id"] == "real"
    assert seat3.replies.empty()
    link.floor_reply("x", "status", True, None)  # a later reply: the tablet got neither
    assert floor.reply()["id"] == "x" and seat3.replies.empty()


def test_malformed_and_replayed_requests_are_refused_by_the_link_and_never_posted(rig):
    link, q = rig.link()
    floor = Client(rig, "floor", rig.creds["floor"]["password"])
    floor.send(b'{"schema": 1, "id": "f-1", "command": "void", "by": "Anna"}')
    r = floor.reply()
    assert (r["id"], r["accepted"]) == ("f-1", False) and r["reason"].startswith("M-2: 'fault'")
    ok = codec.floor_request_payload(request_id="f-2", command="status")
    floor.send(ok)
    assert next_event(q, FloorRequestReceived).request_id == "f-2"
    floor.send(ok)  # a QoS 1 duplicate or a replay
    r = floor.reply()
    assert (r["id"], r["accepted"]) == ("f-2", False) and r["reason"].startswith("M-5")
    assert drain(q, FloorRequestReceived) == [] and link.refused == 2
