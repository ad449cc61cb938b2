"""The display's feed: the retained public state and the controller's presence over MQTT.

:class:`FeedState` is the part with no network: it takes payloads, keeps the newest good
state and the presence, and hands the display loop a consistent :class:`FeedSnapshot`. It
drops states whose ``seq`` is not higher than the last one (docs/state.md), keeps the last
good state when a payload is malformed (logged, never shown), and shows ``TABLE OFFLINE``
when the controller's Last Will says it is gone. When the controller comes back online
after being offline it may have restarted, so the next state is taken whatever its seq.

:class:`MqttFeed` is the paho-mqtt 2.x client (``CallbackAPIVersion.VERSION2``): it
subscribes in ``on_connect`` so every reconnect resubscribes and the broker resends the
retained state at once, reconnects with backoff 1..30 s, and only posts to the FeedState
from paho's thread.

Topics (docs/mqtt.md, ``drivers.mqtt.topics``): ``livetable/<table>/state`` (retained public
state) and ``livetable/<table>/presence/controller`` (retained ``{"schema":1,"online":bool}``;
the plain texts ``online``/``offline`` are accepted too).
"""

from __future__ import annotations

import json
import logging
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from display.i18n import N_
from display.state import StateError, check_state
from drivers.mqtt.topics import Kind, topic

__all__ = ["FeedState", "FeedSnapshot", "MqttFeed", "OFFLINE", "NO_BROKER", "load_credentials"]

log = logging.getLogger("livetable.display.feed")

#: banner notice when the controller's presence is offline (its Last Will)
OFFLINE = N_("TABLE OFFLINE")
#: banner notice when the display has lost the broker (what it shows may be stale)
NO_BROKER = N_("DISPLAY DISCONNECTED")
#: notice while the display has never reached the broker and its last try failed
UNREACHABLE = N_("CANNOT REACH THE BROKER")
MAX_PAYLOAD = 256 * 1024


@dataclass(frozen=True, slots=True)
class FeedSnapshot:
    """What the display should show: ``state`` (None until the first good one), banner
    ``notices``, and ``version`` which rises whenever either changes."""

    version: int
    state: dict[str, Any] | None
    notices: tuple[str, ...]
    connected: bool


class FeedState:
    """Thread-safe holder of the newest public state and the controller's presence.

    Any thread may call the ``on_*`` methods; the display loop reads :meth:`snapshot`.
    Counters ``accepted``, ``dropped_stale`` and ``rejected`` say what happened to payloads;
    ``connections`` counts connections to the broker (reconnects included).
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._state: dict[str, Any] | None = None
        self._seq: int | None = None
        self._online: bool | None = None
        self._connected = False
        self._ever_connected = False
        self._unreachable = False
        self._version = 0
        self.accepted = 0
        self.dropped_stale = 0
        self.rejected = 0
        self.connections = 0

    def on_state_payload(self, payload: bytes | bytearray) -> bool:
        """Take a payload from the state topic; return True if it became the shown state.

        An empty payload (the retained state cleared) changes nothing. Malformed JSON or a
        state failing :func:`display.state.check_state` is logged and counted in
        ``rejected``; a ``seq`` not above the last is counted in ``dropped_stale``.
        """
        if not payload:
            log.info("state topic cleared (empty retained message); keeping the last state")
            return False
        try:
            if len(payload) > MAX_PAYLOAD:
                raise StateError(f"state payload of {len(payload)} bytes is over {MAX_PAYLOAD}")
            state = check_state(json.loads(payload.decode("utf-8")))
        except (UnicodeDecodeError, json.JSONDecodeError, StateError, RecursionError) as exc:
            with self._cond:
                self.rejected += 1
            log.warning("ignoring a malformed state payload: %s", exc)
            return False
        with self._cond:
            if self._seq is not None and state["seq"] <= self._seq:
                self.dropped_stale += 1
                log.debug("dropping state seq %s (have %s)", state["seq"], self._seq)
                return False
            self._state, self._seq = state, state["seq"]
            self.accepted += 1
            self._bump()
        return True

    def on_presence_payload(self, payload: bytes | bytearray) -> None:
        """Take the controller's presence: ``{"online": bool}`` JSON or ``online``/``offline``.

        Back online after offline, the controller may have restarted with a new ``seq``
        count, so the next state is accepted whatever its ``seq``. Unreadable payloads are
        logged and ignored; an empty one (presence cleared) counts as unknown.
        """
        online: bool | None
        text = payload.decode("utf-8", "replace").strip() if payload else ""
        if not text:
            online = None
        elif text.lower() in ("online", "offline"):
            online = text.lower() == "online"
        else:
            try:
                obj = json.loads(text)
                online = obj["online"] if isinstance(obj, dict) and isinstance(obj.get("online"), bool) else None
                if online is None:
                    raise ValueError("no boolean 'online'")
            except (ValueError, TypeError) as exc:
                log.warning("ignoring a malformed presence payload %r: %s", text[:80], exc)
                return
        with self._cond:
            if online and self._online is False:
                self._seq = None
            if online != self._online:
                self._online = online
                self._bump()

    def on_connection(self, connected: bool) -> None:
        """Record whether the display is connected to the broker."""
        with self._cond:
            if connected != self._connected:
                self._connected = connected
                self.connections += connected
                self._ever_connected = self._ever_connected or connected
                self._unreachable = self._unreachable and not connected
                self._bump()

    def on_unreachable(self) -> None:
        """Record a failed try to reach the broker (no broker listening, no route)."""
        with self._cond:
            if not self._unreachable and not self._connected:
                self._unreachable = True
                self._bump()

    def _bump(self) -> None:
        self._version += 1
        self._cond.notify_all()

    def snapshot(self) -> FeedSnapshot:
        """Return the current state, notices and version in one consistent view."""
        with self._cond:
            return self._snapshot_locked()

    def wait_for(self, predicate: Any, timeout: float) -> bool:
        """Wait until ``predicate(snapshot)`` is true or ``timeout`` seconds pass; return which."""
        with self._cond:
            return self._cond.wait_for(lambda: predicate(self._snapshot_locked()), timeout)

    def _snapshot_locked(self) -> FeedSnapshot:
        notices = []
        if self._online is False:
            notices.append(OFFLINE)
        if self._ever_connected and not self._connected:
            notices.append(NO_BROKER)
        elif self._unreachable and not self._connected:
            notices.append(UNREACHABLE)
        return FeedSnapshot(self._version, self._state, tuple(notices), self._connected)


def load_credentials(path: Path) -> tuple[str, str]:
    """Return ``(username, password)`` of the ``display`` user from a provisioning JSON file.

    Reads ``credentials/<table>.json`` or ``_shared.json`` written by ``livetable tablets
    provision``. Raises ValueError when the file has no display credentials, OSError when
    it cannot be read.
    """
    obj = json.loads(Path(path).read_text())
    entry = obj.get("display") if isinstance(obj, dict) else None
    if isinstance(entry, dict) and entry.get("username") and entry.get("password"):
        return str(entry["username"]), str(entry["password"])
    if isinstance(entry, str):  # _shared.json: {"display": "<password>"}
        return "display", entry
    raise ValueError(f"{path}: no display credentials (expected {{'display': {{'username', 'password'}}}})")


class MqttFeed:
    """Subscribe to one table's public state and controller presence; fill a FeedState.

    ``start()`` connects in the background (paho's own thread, reconnecting with backoff
    1..30 s); ``stop()`` disconnects. Topic ids follow ``drivers.mqtt.topics`` (M-6:
    invalid table ids raise ``TopicError``, a ValueError).
    """

    def __init__(self, table: str, host: str = "127.0.0.1", port: int = 1883, *,
                 feed: FeedState | None = None, username: str | None = None,
                 password: str | None = None, keepalive: int = 30, client_id: str | None = None) -> None:
        self.table = table
        self.state_topic = topic(Kind.STATE, table)
        self.presence_topic = topic(Kind.CONTROLLER_PRESENCE, table)
        self.feed = feed or FeedState()
        self.host, self.port, self.keepalive = host, port, keepalive
        cid = client_id or f"livetable-display-{table}-{uuid.uuid4().hex[:8]}"
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=cid)
        if username:
            self.client.username_pw_set(username, password)
        self.client.reconnect_delay_set(min_delay=1, max_delay=30)
        self.client.on_connect = self._on_connect
        self.client.on_connect_fail = self._on_connect_fail
        self._fails = 0
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message

    def start(self) -> None:
        """Connect in the background; states arrive in :attr:`feed`."""
        self.client.connect_async(self.host, self.port, self.keepalive)
        self.client.loop_start()

    def stop(self) -> None:
        """Disconnect and stop paho's thread."""
        self.client.disconnect()
        self.client.loop_stop()

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason_code: Any,
                    properties: Any) -> None:
        if reason_code.is_failure:
            log.warning("broker %s:%s refused the display: %s", self.host, self.port, reason_code)
            return
        client.subscribe([(self.state_topic, 1), (self.presence_topic, 1)])
        self.feed.on_connection(True)
        log.info("connected to %s:%s, following %s", self.host, self.port, self.state_topic)

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        # no broker at all: said at once and then every tenth try (it said nothing for
        # seconds while "Waiting for the table" stayed on screen, issue 20)
        self._fails += 1
        self.feed.on_unreachable()
        if self._fails == 1 or self._fails % 10 == 0:
            log.warning("cannot reach the broker at %s:%s (try %d); retrying", self.host, self.port, self._fails)

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason_code: Any,
                       properties: Any) -> None:
        self.feed.on_connection(False)
        log.warning("lost the broker (%s); reconnecting", reason_code)

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        if msg.topic == self.state_topic:
            self.feed.on_state_payload(msg.payload)
        elif msg.topic == self.presence_topic:
            self.feed.on_presence_payload(msg.payload)
