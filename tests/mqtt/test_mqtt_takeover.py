"""No login but the controller's may end the controller's session, nor another seat's (issue 16, 1).

MQTT lets a client that connects with the client id of a connected client take over that
client's session: the broker closes the first connection. Before issue 16 any client, even
anonymous, could connect as ``livetable-t1-controller`` and throw the controller off its
broker (the two kicked each other about 7 times in 5 s, each a ``broker-lost`` pause). The
repo's mosquitto/livetable.conf now sets ``use_username_as_clientid`` on both listeners: the
broker replaces every client's id with its login, and refuses clients without one.

Each attack below connects to a private broker run from that very config, with the logins
``livetable tablets provision`` makes, over MQTT and WebSockets, anonymous and logged in as
another user, with the victim's client id as it sends it and as the broker knows it. How a
kick would be seen, without sleeping: the broker closes the victim's connection while it
handles the attacker's CONNECT, before it answers it; a message sent to the victim after
that answer reaches it only through a new connection, and paho reports the lost one
(``on_disconnect``, the link's ``BrokerConnection(False)``) before it reconnects. So once
such a message has arrived with no disconnection reported, the victim was never kicked.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from drivers.mqtt.events import BrokerConnection, ChatReceived, TabletPresence

from .conftest import TABLE, WAIT, Rig, events_until, next_connection, private_view, state_view

pytestmark = pytest.mark.broker


@dataclass
class Outcome:
    """What the broker answered an attacker: ``accepted``, and its reason text."""

    accepted: bool
    reason: str


def attack(rig: Rig, client_id: str, *, login: str | None, ws: bool,
           protocol: int = mqtt.MQTTv5) -> Outcome:
    """Connect once as ``login`` (None: anonymous) with ``client_id``; wait for the broker's answer.

    The client never reconnects; it is disconnected again before returning.
    """
    answered = threading.Event()
    result: list[Outcome] = []

    def on_connect(client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        result.append(Outcome(not reason.is_failure, str(reason)))
        answered.set()

    def on_disconnect(client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if not answered.is_set():  # closed before any CONNACK: refused all the same
            result.append(Outcome(False, f"closed: {reason}"))
            answered.set()

    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=protocol,  # type: ignore[arg-type]
                         transport="websockets" if ws else "tcp", reconnect_on_failure=False)
    if login is not None:
        client.username_pw_set(login, login_password(rig, login))
    client.on_connect = on_connect
    client.on_disconnect = on_disconnect
    client.connect("127.0.0.1", rig.broker.ws_port if ws else rig.broker.mqtt_port)
    client.loop_start()
    try:
        assert answered.wait(WAIT), f"no answer to {client_id!r} as {login!r}"
    finally:
        client.disconnect()
        client.loop_stop()
    return result[0]


def login_password(rig: Rig, login: str) -> str:
    if login == f"{TABLE}-outbox":
        return str(rig.creds["outbox"]["password"])
    if login.startswith(f"{TABLE}-seat"):
        return rig.password(int(login.removeprefix(f"{TABLE}-seat")))
    return str(rig.creds[login]["password"])


# Logins that are not the victim's: anonymous, another seat, the display, the floor and the
# table's outbox to the room (controller/roomlink.py, which runs beside the controller).
ATTACKERS = [None, f"{TABLE}-seat4", "display", "floor", f"{TABLE}-outbox"]


def attacks(victim_ids: list[str]) -> list[tuple[str, str | None, bool, int]]:
    """Every (client id, login, over WebSockets, protocol) to try."""
    out = [(cid, login, ws, mqtt.MQTTv5) for cid in victim_ids for login in ATTACKERS for ws in (False, True)]
    out += [(cid, None, ws, mqtt.MQTTv311) for cid in victim_ids for ws in (False, True)]
    return out


def test_no_other_login_can_take_over_the_controllers_session(rig: Rig) -> None:
    # The controller's default client id (livetable-t1-controller); seat 3 chats to it after
    # each attack (chat: one event per line whatever the table's state).
    link, events = rig.link(chat_rate=(1000, 1.0))
    link.publish_state(state_view(1))
    seat3 = rig.tablet(3)
    seat3.wait_seq(1, WAIT)
    outcomes = []
    for cid, login, ws, protocol in attacks([f"livetable-{TABLE}-controller", "controller"]):
        outcome = attack(rig, cid, login=login, ws=ws, protocol=protocol)
        outcomes.append((cid, login, ws, protocol, outcome))
        cid_sent = seat3.send_chat("still there?")
        got = events_until(events, ChatReceived)
        downs = [e for e in got if isinstance(e, BrokerConnection) and not e.up]
        assert downs == [], f"{cid!r} as {login!r} (ws={ws}, {outcome.reason}) ended the controller's session"
        assert got[-1].chat_id == cid_sent and link.connected
    # Anonymous clients are refused outright; the others get their own login as their id.
    assert all(not o.accepted for _, login, _, _, o in outcomes if login is None)
    assert all(o.accepted for _, login, _, _, o in outcomes if login is not None)
    assert "already connected" not in rig.broker.log_file.read_text()


def test_no_other_login_can_take_over_a_seats_session(rig: Rig) -> None:
    link, events = rig.link()
    link.publish_state(state_view(1))
    victim = rig.tablet(5)
    victim.wait_seq(1, WAIT)
    drops: list[Any] = []
    on_disconnect = victim._client.on_disconnect

    def counting(*args: Any) -> None:
        drops.append(args[3])
        on_disconnect(*args)  # type: ignore[misc]

    victim._client.on_disconnect = counting
    own_id = victim._client._client_id.decode()
    seq = 1
    for cid, login, ws, protocol in attacks([own_id, f"{TABLE}-seat5"]):
        outcome = attack(rig, cid, login=login, ws=ws, protocol=protocol)
        seq += 1
        link.publish_private(5, private_view(5, seq, ["Qs", "Qd"]))
        victim.wait_for(lambda t: t.private is not None and t.private["seq"] == seq, WAIT)
        assert drops == [], f"{cid!r} as {login!r} (ws={ws}, {outcome.reason}) ended seat 5's session"
    offline = [e for e in events.queue if isinstance(e, TabletPresence) and e.seat == 5 and not e.online]
    assert offline == []  # the broker never published seat 5's Last Will


def test_a_client_without_a_login_is_refused_on_both_listeners(rig: Rig) -> None:
    for ws in (False, True):
        outcome = attack(rig, "lobby-screen", login=None, ws=ws)
        assert not outcome.accepted and "authori" in outcome.reason.lower(), outcome


def test_a_second_client_with_the_controllers_login_replaces_the_first(rig: Rig) -> None:
    """The one login that may end the controller's session is the controller's own (a
    restarted controller whose old connection the broker has not yet noticed is gone)."""
    link, events = rig.link()
    outcome = attack(rig, "anything", login="controller", ws=True)
    assert outcome.accepted
    assert next_connection(events, False).up is False
