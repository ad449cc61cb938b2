"""The broker, not just our code, keeps each seat's hole cards to that seat (issue 7).

A real Mosquitto started from the repo's mosquitto/livetable.conf with the users and ACL
made by ``livetable tablets provision``. Ordering argument used throughout: a QoS 1 message
is routed by the broker before it acknowledges it, and one publisher's messages reach one
subscriber in order; so once a later marker message has arrived, a forbidden earlier one
would have arrived before it.
"""

from __future__ import annotations

import json
import threading

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from drivers.mqtt import codec
from drivers.mqtt.codec import lobby_summary
from drivers.mqtt.events import ActionReceived, ChatReceived
from drivers.mqtt.tablet import Tablet
from drivers.mqtt.topics import Kind, topic

from .conftest import TABLE, WAIT, Rig, events_until, next_event, private_view, state_view

pytestmark = pytest.mark.broker

P5 = topic(Kind.PRIVATE, TABLE, 5)


def topics_seen(tab: Tablet) -> set[str]:
    with tab.cond:
        return {t for t, _, _ in tab.messages}


def test_seat3_cannot_read_seat5_private_retained_or_live(rig: Rig) -> None:
    link, _ = rig.link()
    link.publish_state(state_view(1))
    link.publish_private(5, private_view(5, 1, ["Qs", "Qd"]))
    link.publish_private(3, private_view(3, 1, ["As", "Kd"]))
    seat5 = rig.tablet(5)
    seat5.wait_for(lambda t: t.private is not None, WAIT)
    spy = rig.tablet(3)
    spy.subscribe(P5)
    spy.subscribe(f"livetable/{TABLE}/#")
    spy.wait_for(lambda t: any(x == topic(Kind.STATE, TABLE) for x, _, _ in t.messages), WAIT)
    link.publish_private(5, private_view(5, 2, ["Qs", "Qd"]))
    link.publish_state(state_view(2))
    spy.wait_for(lambda t: sum(x == topic(Kind.STATE, TABLE) for x, _, _ in t.messages) >= 2, WAIT)
    seat5.wait_for(lambda t: t.private is not None and t.private["seq"] == 2, WAIT)
    seen = topics_seen(spy)
    assert P5 not in seen
    assert topic(Kind.PRIVATE, TABLE, 3) in seen  # its own private view does arrive
    assert spy.private is not None and spy.private["cards"] == ["As", "Kd"]
    assert all("Qs" not in payload.decode() for _, payload, _ in spy.messages)


def test_seat3_cannot_act_chat_or_announce_for_seat5(rig: Rig) -> None:
    link, events = rig.link()
    link.publish_state(state_view(1))
    spy = rig.tablet(3)
    spy.wait_seq(1, WAIT)
    forged = {Kind.ACTION: codec.action_payload(seat=5, seq=1, action="fold", action_id="forged"),
              Kind.SEAT_CHAT: codec.chat_input_payload(seat=5, text="I fold", chat_id="forged-chat"),
              Kind.SEAT_PRESENCE: codec.presence_payload(False)}
    for kind, payload in forged.items():
        spy.send_raw(topic(kind, TABLE, 5), payload).wait_for_publish(WAIT)
    aid = spy.send_chat("gl")
    got = events_until(events, ChatReceived)
    assert got[-1].chat_id == aid
    seen = [e for e in got if getattr(e, "seat", None) == 5]
    assert seen == []  # valid payloads, but the broker dropped them: none reached the table
    assert spy.all_replies == []


def test_a_seat_cannot_forge_the_public_state(rig: Rig) -> None:
    link, _ = rig.link()
    link.publish_state(state_view(1))
    spy, victim = rig.tablet(3), rig.tablet(5)
    victim.wait_seq(1, WAIT)
    seqs: list[int] = []
    victim._on_state = lambda view, at: seqs.append(view["seq"])
    spy.send_raw(topic(Kind.STATE, TABLE), json.dumps(state_view(999)).encode()).wait_for_publish(WAIT)
    link.publish_state(state_view(2))
    victim.wait_seq(2, WAIT)
    assert seqs == [2]


def test_a_seat_sending_another_seats_payload_on_its_own_topic_is_refused_m6(rig: Rig) -> None:
    link, events = rig.link()
    link.publish_state(state_view(1))
    spy = rig.tablet(3)
    spy.wait_seq(1, WAIT)
    payload = json.dumps({"schema": 1, "id": "w1", "seat": 5, "seq": 1, "action": "fold", "amount": None})
    spy.send_raw(topic(Kind.ACTION, TABLE, 3), payload.encode())
    reply = spy.wait_reply("w1", WAIT)
    assert reply["accepted"] is False and reply["reason"].startswith("M-6")


def test_seats_and_the_display_read_the_lobby_l1(rig: Rig) -> None:
    """Anonymous clients are refused since issue 16 (test_mqtt_takeover.py); the room's
    lobby (L-1) is read with any login: a seat's tablet lists the tables, as the display."""
    link, _ = rig.link()
    link.publish_state(state_view(1))
    seat3, display = rig.tablet(3), rig.tablet(4, user="display")
    for tab in (seat3, display):
        tab.subscribe(topic(Kind.LOBBY, TABLE))
    view = state_view(2)
    view["seats"][0]["name"] = "Newcomer"
    link.publish_state(view)  # the lobby entry follows the state (L-1)
    for tab in (seat3, display):
        tab.wait_for(lambda t: any(x == topic(Kind.LOBBY, TABLE) and b"Newcomer" in p for x, p, _ in t.messages),
                     WAIT)
        entry = next(p for x, p, _ in tab.messages if x == topic(Kind.LOBBY, TABLE) and b"Newcomer" in p)
        assert json.loads(entry) == lobby_summary(view)


def test_display_reads_public_topics_but_no_hole_cards_or_mucked_hands(rig: Rig) -> None:
    link, _ = rig.link()
    link.publish_state(state_view(1))
    link.publish_private(3, private_view(3, 1, ["As", "Kd"]))
    hand = {"hand": 56, "seats": [{"seat": 2, "cards": ["Qs", "Qd"], "showed": "mucked"},
                                  {"seat": 4, "cards": ["Ah", "Ac"], "showed": "shown"}]}
    link.publish_history([hand])
    display = rig.tablet(3, user="display")
    display.subscribe(f"livetable/{TABLE}/#")
    display.wait_seq(1, WAIT)
    display.wait_for(lambda t: topic(Kind.HISTORY, TABLE) in topics_seen(t), WAIT)
    link.publish_state(state_view(2))
    display.wait_seq(2, WAIT)
    seen = topics_seen(display)
    assert topic(Kind.HISTORY_SEATED, TABLE) not in seen and topic(Kind.PRIVATE, TABLE, 3) not in seen
    assert display.private is None and display.seated_history is None
    assert [s["cards"] for s in display.history["hands"][0]["seats"]] == [None, ["Ah", "Ac"]]
    with pytest.raises(ValueError):
        display.send_action("fold")  # a viewer has no seat to act for
    history = next(json.loads(p) for t, p, _ in display.messages if t == topic(Kind.HISTORY, TABLE))
    assert [s["cards"] for s in history["hands"][0]["seats"]] == [None, ["Ah", "Ac"]]


def test_seated_players_review_mucked_hands_p4(rig: Rig) -> None:
    link, _ = rig.link()
    link.publish_state(state_view(1))
    link.publish_history([{"hand": 56, "seats": [{"seat": 2, "cards": ["Qs", "Qd"], "showed": "mucked"}]}])
    seat3 = rig.tablet(3)
    seat3.wait_for(lambda t: t.seated_history is not None and t.history is not None, WAIT)
    assert seat3.seated_history["hands"][0]["seats"][0]["cards"] == ["Qs", "Qd"]
    assert seat3.history["hands"][0]["seats"][0]["cards"] is None


def test_a_browser_tablet_over_websockets_gets_state_and_its_cards(rig: Rig) -> None:
    link, events = rig.link()
    link.publish_state(state_view(1))
    link.publish_private(4, private_view(4, 1, ["7c", "7d"]))
    tab = rig.tablet(4, ws=True)
    tab.wait_seq(1, WAIT)
    tab.wait_for(lambda t: t.private is not None, WAIT)
    assert tab.private["cards"] == ["7c", "7d"]
    aid = tab.send_action("check")
    assert next_event(events, ActionReceived).action_id == aid


@pytest.mark.parametrize("user,password", [("t1-seat3", "wrong"), ("nobody", "x"), ("controller", "")])
def test_wrong_credentials_are_refused_by_the_broker(rig: Rig, user: str, password: str) -> None:
    done = threading.Event()
    result: list[object] = []

    def on_connect(client, userdata, flags, reason, props):  # type: ignore[no-untyped-def]
        result.append(reason)
        done.set()

    client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    client.username_pw_set(user, password)
    client.on_connect = on_connect
    client.connect("127.0.0.1", rig.broker.mqtt_port)
    client.loop_start()
    try:
        assert done.wait(WAIT)
    finally:
        client.loop_stop()
    assert result[0].is_failure
