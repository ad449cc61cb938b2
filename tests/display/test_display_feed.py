"""The display's feed: seq ordering, malformed payloads, presence; then against a real Mosquitto."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

import display_states as S
from display.feed import NO_BROKER, OFFLINE, FeedState, MqttFeed, load_credentials
from display.state import StateError, check_state
from display_checks import BROKER, broker



def payload(state: dict) -> bytes:
    return json.dumps(state).encode()


def with_seq(seq: int) -> dict:
    state = S.preflop_blinds()
    state["seq"] = seq
    return state


def test_newer_states_replace_older_and_stale_ones_are_dropped() -> None:
    feed = FeedState()
    assert feed.snapshot().state is None
    assert feed.on_state_payload(payload(with_seq(5)))
    v = feed.snapshot().version
    assert not feed.on_state_payload(payload(with_seq(5))), "same seq is not newer"
    assert not feed.on_state_payload(payload(with_seq(3)))
    assert feed.snapshot().state["seq"] == 5 and feed.snapshot().version == v
    assert feed.on_state_payload(payload(with_seq(9)))
    assert feed.snapshot().state["seq"] == 9 and feed.snapshot().version > v
    assert (feed.accepted, feed.dropped_stale, feed.rejected) == (2, 2, 0)


@pytest.mark.parametrize("bad", [
    b"{not json", b"\xff\xfe", b"[1, 2]", b'"state"', json.dumps({"schema": 2, "seq": 99}).encode(),
    json.dumps({**S.preflop_blinds(), "seq": "99"}).encode(),
    json.dumps({**S.preflop_blinds(), "seq": 99, "max_seats": 11}).encode(),
    json.dumps({**S.preflop_blinds(), "seq": 99, "seats": [{"seat": 1, "stack": "lots"}]}).encode(),
    json.dumps({**S.preflop_blinds(), "seq": 99, "board": "AhKh"}).encode(),
    json.dumps({**S.preflop_blinds(), "seq": 99, "pots": [{"amount": 1.5}]}).encode(),
    b"[" * 100_000,
])
def test_malformed_payloads_keep_the_last_good_state(bad: bytes, caplog) -> None:
    feed = FeedState()
    feed.on_state_payload(payload(with_seq(5)))
    before = feed.snapshot()
    assert not feed.on_state_payload(bad)
    after = feed.snapshot()
    assert after.state == before.state and after.version == before.version and after.notices == ()
    assert feed.rejected == 1
    assert "malformed" in caplog.text


def test_an_empty_retained_payload_keeps_the_state() -> None:
    feed = FeedState()
    feed.on_state_payload(payload(with_seq(5)))
    assert not feed.on_state_payload(b"")
    assert feed.snapshot().state["seq"] == 5 and feed.rejected == 0


def test_presence_offline_shows_table_offline_and_a_restart_resets_seq() -> None:
    feed = FeedState()
    feed.on_state_payload(payload(with_seq(500)))
    feed.on_presence_payload(json.dumps({"schema": 1, "online": False}).encode())
    assert feed.snapshot().notices == (OFFLINE,)
    feed.on_presence_payload(b"online")
    assert feed.snapshot().notices == ()
    # the controller came back (restarted): its first state counts even with a lower seq
    assert feed.on_state_payload(payload(with_seq(1)))
    assert not feed.on_state_payload(payload(with_seq(1)))
    feed.on_presence_payload(b"offline")
    assert feed.snapshot().notices == (OFFLINE,)
    v = feed.snapshot().version
    feed.on_presence_payload(b"{garbage")
    assert feed.snapshot().version == v and feed.snapshot().notices == (OFFLINE,)


def test_losing_the_broker_shows_a_notice_only_after_a_connection() -> None:
    feed = FeedState()
    feed.on_connection(False)
    assert feed.snapshot().notices == ()
    feed.on_connection(True)
    feed.on_connection(False)
    assert feed.snapshot().notices == (NO_BROKER,)


def test_check_state_names_the_bad_field() -> None:
    with pytest.raises(StateError, match="seq"):
        check_state({"schema": 1})
    with pytest.raises(ValueError, match="seat 3 appears twice"):
        check_state({**S.preflop_blinds(), "seats": [S.seat(3), S.seat(3)]})
    assert check_state(S.split_showdown())["seq"] == 420


def test_credentials_from_the_provisioning_file(tmp_path) -> None:
    path = tmp_path / "t1.json"
    path.write_text(json.dumps({"display": {"username": "display", "password": "pw"}}))
    assert load_credentials(path) == ("display", "pw")
    path.write_text(json.dumps({"controller": {}}))
    with pytest.raises(ValueError, match="display"):
        load_credentials(path)


# ------------------------------------------------------------------ real broker


class Publisher:
    """A test client playing the controller: publishes retained state and presence."""

    def __init__(self, table: str) -> None:
        self.table = table
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"test-pub-{uuid.uuid4().hex[:8]}")
        self.client.connect(*BROKER)
        self.client.loop_start()

    def publish(self, tail: str, data: bytes, retain: bool = True) -> None:
        self.client.publish(f"livetable/{self.table}/{tail}", data, qos=1, retain=retain).wait_for_publish(5)

    def close(self) -> None:
        """Clear every retained message a table can leave (state, presence, lobby, private views)."""
        tails = ["state", "presence/controller", "history", "chat"] + [f"seat/{n}/private" for n in range(1, 11)]
        for tail in tails:
            self.publish(tail, b"")
        self.client.publish(f"livetable/lobby/{self.table}", b"", qos=1, retain=True).wait_for_publish(5)
        self.client.loop_stop()
        self.client.disconnect()


@pytest.fixture
def table():
    name = f"disp{uuid.uuid4().hex[:10]}"
    pub = Publisher(name)
    yield name, pub
    pub.close()


@broker
@pytest.mark.broker
def test_a_started_display_catches_up_from_the_retained_state(table) -> None:
    name, pub = table
    pub.publish("state", payload(with_seq(41)))
    pub.publish("presence/controller", json.dumps({"schema": 1, "online": True}).encode())
    feed = MqttFeed(name, *BROKER)
    feed.start()
    try:
        assert feed.feed.wait_for(lambda s: s.state is not None, 10), "retained state not received"
        assert feed.feed.snapshot().state["seq"] == 41
        pub.publish("state", payload(with_seq(40)))  # stale: dropped
        pub.publish("state", b"{broken")              # malformed: ignored
        pub.publish("state", payload(with_seq(42)))
        assert feed.feed.wait_for(lambda s: s.state["seq"] == 42, 10)
        assert feed.feed.dropped_stale == 1 and feed.feed.rejected == 1
        pub.publish("presence/controller", json.dumps({"schema": 1, "online": False}).encode())
        assert feed.feed.wait_for(lambda s: OFFLINE in s.notices, 10)
    finally:
        feed.stop()


@broker
@pytest.mark.broker
def test_the_controllers_last_will_shows_table_offline(table) -> None:
    name, pub = table
    controller = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"test-ctl-{uuid.uuid4().hex[:8]}")
    topic = f"livetable/{name}/presence/controller"
    controller.will_set(topic, json.dumps({"schema": 1, "online": False}), qos=1, retain=True)
    controller.connect(*BROKER, keepalive=5)
    controller.loop_start()
    controller.publish(topic, json.dumps({"schema": 1, "online": True}), qos=1, retain=True).wait_for_publish(5)
    controller.publish(f"livetable/{name}/state", payload(with_seq(7)), qos=1, retain=True).wait_for_publish(5)
    feed = MqttFeed(name, *BROKER)
    feed.start()
    try:
        assert feed.feed.wait_for(lambda s: s.state is not None and s.notices == (), 10)
        controller.loop_stop()
        controller.socket().close()  # die without DISCONNECT: the broker sends the will
        assert feed.feed.wait_for(lambda s: OFFLINE in s.notices, 20), "Last Will not shown"
        assert feed.feed.snapshot().state["seq"] == 7, "the last state stays on screen"
    finally:
        feed.stop()


# ------------------------------------------------------------------ private broker with the ACLs


@pytest.fixture
def acl_broker(tmp_path):
    """A private Mosquitto with the repo's config, users and ACL (table t7, 6 seats)."""
    from drivers.mqtt.broker import MOSQUITTO, BrokerProcess
    from drivers.mqtt.provision import provision

    if not Path(MOSQUITTO).exists() and shutil.which("mosquitto") is None:
        pytest.skip("mosquitto is not installed (scripts/setup.sh installs it)")
    creds = provision(tmp_path, "t7", 6)
    broker = BrokerProcess(tmp_path).start()
    try:
        yield broker, creds, tmp_path / "credentials" / "t7.json"
    finally:
        broker.stop()


def controller_client(port: int, creds: dict) -> mqtt.Client:
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"test-ctl-{uuid.uuid4().hex[:8]}")
    c.username_pw_set(creds["controller"]["username"], creds["controller"]["password"])
    c.connect("127.0.0.1", port)
    c.loop_start()
    return c


@pytest.mark.broker
def test_the_display_user_reads_the_state_and_reconnects_after_a_broker_restart(acl_broker) -> None:
    broker, creds, cred_file = acl_broker
    ctl = controller_client(broker.mqtt_port, creds)
    state = with_seq(10)
    state["table"] = "t7"
    ctl.publish("livetable/t7/state", payload(state), qos=1, retain=True).wait_for_publish(5)
    user, password = load_credentials(cred_file)
    assert user == "display"
    feed = MqttFeed("t7", "127.0.0.1", broker.mqtt_port, username=user, password=password)
    feed.start()
    try:
        assert feed.feed.wait_for(lambda s: s.state is not None and s.connected, 10)
        ctl.loop_stop()
        broker.restart()
        assert feed.feed.wait_for(lambda s: s.connected and feed.feed.connections == 2, 20), \
            "no reconnect after the broker came back"
        ctl = controller_client(broker.mqtt_port, creds)
        state["seq"] = 11
        ctl.publish("livetable/t7/state", payload(state), qos=1, retain=True).wait_for_publish(5)
        assert feed.feed.wait_for(lambda s: s.state["seq"] == 11 and s.notices == (), 10)
    finally:
        feed.stop()
        ctl.loop_stop()


@pytest.mark.broker
def test_a_wrong_password_never_connects(acl_broker) -> None:
    broker, creds, _ = acl_broker
    feed = MqttFeed("t7", "127.0.0.1", broker.mqtt_port, username="display", password="wrong")
    feed.start()
    try:
        assert not feed.feed.wait_for(lambda s: s.connected, 2)
        assert feed.feed.snapshot().state is None
    finally:
        feed.stop()


@broker
@pytest.mark.broker
@pytest.mark.parametrize("game", ["holdem", "draw"])
def test_every_state_the_simulated_table_publishes_is_accepted_and_drawn(game: str, renderer) -> None:
    """The contract with controller/views.py: real published states pass check_state and lay out."""
    import subprocess
    import sys

    from display.layout import layout
    from display_checks import check_invariants

    table = f"disp{uuid.uuid4().hex[:10]}"
    feed = MqttFeed(table, *BROKER)
    raw: list[bytes] = []
    feed.client.on_message = lambda c, u, m: (
        raw.append(m.payload) if m.topic == feed.state_topic else None, feed._on_message(c, u, m))
    feed.start()
    try:
        assert feed.feed.wait_for(lambda s: s.connected, 10)
        res = subprocess.run(
            [sys.executable, "-m", "controller.cli", "simulate", "--hands", "3", "--headless", "--quiet",
             "--table", table, "--game", game, "--camera", "off", "--mqtt-port", str(BROKER[1])],
            cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True, timeout=240)
        if res.returncode != 0:
            pytest.skip(f"livetable simulate failed (not the display's contract): {res.stderr[-300:]}")
        assert feed.feed.wait_for(lambda s: s.state is not None and s.state.get("street") == "waiting"
                                  and s.state.get("hand") == 3, 10)
    finally:
        feed.stop()
        Publisher(table).close()
    states = [json.loads(p) for p in raw if p]
    assert len(states) > 20 and feed.feed.rejected == 0
    for state in states[::5]:
        check_invariants(layout(check_state(state), (1280, 720), measure=renderer.measure), renderer.measure)
