"""No retained input is ever acted on (issue 16, 2), on a private broker restarted between rounds.

A tablet may publish its chat line (or action, or a floor client its request) with the
retain flag. The broker then keeps it and hands it over again every time the controller
subscribes, so before issue 16 a retained chat line was posted to the public chat again on
every controller reconnect (3 copies after 2 broker restarts). Now the link refuses every
input with the retain flag (M-10), live or handed over, and clears it from the broker.

Ordering argument (no sleeps): retained messages are sent to a subscriber right after its
SUBACK, before any message published later; one client's messages reach a subscriber in
order. So once a marker sent after the link is subscribed has arrived, anything retained
would have arrived before it.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from drivers.mqtt import codec
from drivers.mqtt.events import ActionReceived, ChatReceived, FloorRequestReceived
from drivers.mqtt.tablet import Tablet
from drivers.mqtt.topics import Kind, topic

from .conftest import TABLE, WAIT, Rig, events_until, next_connection, state_view

pytestmark = pytest.mark.broker

ACTED = (ActionReceived, ChatReceived, FloorRequestReceived)


def publish_retained(tab: Tablet, topic_str: str, payload: bytes) -> None:
    """Publish ``payload`` retained from ``tab`` and wait for the broker's acknowledgement."""
    tab._client.publish(topic_str, payload, qos=1, retain=True).wait_for_publish(WAIT)


class FloorClient:
    """The ``floor`` login: publishes requests (retained if asked) and keeps the replies."""

    def __init__(self, rig: Rig) -> None:
        self.replies: list[dict[str, Any]] = []
        self.cond = threading.Condition()
        subscribed = threading.Event()
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        self.c.username_pw_set("floor", rig.creds["floor"]["password"])
        self.c.on_connect = lambda c, *a: c.subscribe(topic(Kind.FLOOR_REPLY, TABLE), qos=1)
        self.c.on_subscribe = lambda *a: subscribed.set()
        self.c.on_message = self._on_message
        self.c.connect("127.0.0.1", rig.broker.mqtt_port)
        self.c.loop_start()
        rig._stops.append(self.stop)
        assert subscribed.wait(WAIT)

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        with self.cond:
            self.replies.append(json.loads(msg.payload))
            self.cond.notify_all()

    def reply(self, request_id: str) -> dict[str, Any]:
        with self.cond:
            assert self.cond.wait_for(lambda: any(r["id"] == request_id for r in self.replies), WAIT)
            return next(r for r in self.replies if r["id"] == request_id)

    def stop(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


def marker(rig: Rig, events: Any, seat: int) -> list[Any]:
    """Chat once from a fresh tablet at ``seat``; return every event up to that line."""
    tab = rig.tablet(seat)
    cid = tab.send_chat("marker")
    got = events_until(events, ChatReceived)
    assert got[-1].chat_id == cid
    return got[:-1]


def restart_broker(rig: Rig, events: Any, link: Any) -> None:
    """Stop and start the broker (its store kept); wait until the link has resubscribed."""
    rig.broker.restart()
    next_connection(events, False)
    next_connection(events, True)
    link.wait_connected(WAIT)


def test_a_retained_chat_line_is_never_posted_not_even_after_broker_restarts(rig: Rig) -> None:
    link, events = rig.link(chat_rate=(1000, 1.0))
    link.publish_state(state_view(1))
    seat3 = rig.tablet(3)
    seat3.wait_seq(1, WAIT)
    publish_retained(seat3, topic(Kind.SEAT_CHAT, TABLE, 3),
                     codec.chat_input_payload(seat=3, text="gl all", chat_id="kept-1"))
    reply = seat3.wait_reply("kept-1", WAIT)  # sent after the link cleared the retained copy
    assert reply["accepted"] is False and reply["reason"].startswith("M-10")
    assert [e for e in marker(rig, events, 4) if isinstance(e, ACTED)] == []
    for seat in (6, 7):  # a new tablet each round: one client per login, and seat 4's reconnects
        restart_broker(rig, events, link)
        assert [e for e in marker(rig, events, seat) if isinstance(e, ACTED)] == []
    assert link.refused_retained == 1  # cleared at once: the restarted broker had nothing to hand over


PLANTED = {
    "take_seat": lambda: (topic(Kind.ACTION, TABLE, 3), codec.action_payload(
        seat=3, seq=1, action="take_seat", action_id="kept-seat", amount=5000, name="Mallory", post=False)),
    "top_up": lambda: (topic(Kind.ACTION, TABLE, 3), codec.action_payload(
        seat=3, seq=1, action="top_up", action_id="kept-topup", amount=5000)),
    "fold": lambda: (topic(Kind.ACTION, TABLE, 3), codec.action_payload(
        seat=3, seq=1, action="fold", action_id="kept-fold")),
    "chat": lambda: (topic(Kind.SEAT_CHAT, TABLE, 3), codec.chat_input_payload(
        seat=3, text="old news", chat_id="kept-chat")),
    "floor": lambda: (topic(Kind.FLOOR_REQUEST, TABLE), codec.floor_request_payload(
        request_id="kept-floor", command="void", by="Anna", fault="jam")),
}


@pytest.mark.parametrize("kind", sorted(PLANTED))
def test_inputs_retained_while_the_controller_was_away_are_refused_and_cleared(rig: Rig, kind: str) -> None:
    topic_str, payload = PLANTED[kind]()
    request_id = json.loads(payload)["id"]
    if kind == "floor":
        floor = FloorClient(rig)
        floor.c.publish(topic_str, payload, qos=1, retain=True).wait_for_publish(WAIT)
    else:
        seat3 = rig.tablet(3)
        publish_retained(seat3, topic_str, payload)
    link, events = rig.link(chat_rate=(1000, 1.0))  # the controller starts after the plant
    link.publish_state(state_view(1))
    reply = floor.reply(request_id) if kind == "floor" else seat3.wait_reply(request_id, WAIT)
    assert reply["accepted"] is False and reply["reason"].startswith("M-10")
    assert [e for e in marker(rig, events, 4) if isinstance(e, ACTED)] == []
    restart_broker(rig, events, link)
    assert [e for e in marker(rig, events, 6) if isinstance(e, ACTED)] == []
    assert link.refused_retained == 1


def test_a_live_action_sent_retained_is_refused_and_a_plain_one_is_taken(rig: Rig) -> None:
    link, events = rig.link()
    link.publish_state(state_view(1))
    seat3 = rig.tablet(3)
    seat3.wait_seq(1, WAIT)
    publish_retained(seat3, topic(Kind.ACTION, TABLE, 3),
                     codec.action_payload(seat=3, seq=1, action="fold", action_id="r-1"))
    assert seat3.wait_reply("r-1", WAIT)["reason"].startswith("M-10")
    aid = seat3.send_action("fold")
    got = events_until(events, ActionReceived)
    assert [e.action_id for e in got if isinstance(e, ActionReceived)] == [aid]
