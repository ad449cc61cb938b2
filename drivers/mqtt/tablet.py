"""A seat tablet simulator: a paho client that logs in as one seat (tests, bench, simulate).

It follows the table's public state and its own seat's private view and replies, sends
actions and chat as a real tablet would (docs/mqtt.md), and announces itself with a
retained birth message and a Last Will on ``livetable/<table>/presence/seat/<n>``. Waits
are on a condition with a timeout; nothing sleeps.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
import uuid
from typing import Any, Callable

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from drivers.mqtt import codec
from drivers.mqtt.net import set_nodelay
from drivers.mqtt.topics import Kind, TopicError, check_seat, check_table, parse, topic


class TabletTimeout(TimeoutError):
    """What the tablet waited for did not arrive in time."""


class Tablet:
    """One seat's tablet, or with ``seat`` None a viewer (display, lobby screen: public topics only).

    Callbacks, called from paho's thread: ``on_state(view, received_at)`` (``perf_counter``
    seconds) for each newer public state, ``on_private(view_or_None)`` for the private view.
    Public attributes, read under :attr:`cond` or after a wait: ``state`` (last public state
    dict or None), ``private`` (own private view, None when cleared), ``replies``
    (``{action_id: reply dict}``) and ``all_replies``, ``chat``, ``history``,
    ``seated_history`` (P-4, seat users only), ``controller_online``, ``states_received``,
    ``messages`` (every message: ``(topic, payload, retained)``), ``subacks``.
    ``transport="websockets"`` talks to the WebSockets listener as a browser tablet does.
    ``presence`` False (always for a viewer): no birth message and no Last Will.
    """

    def __init__(self, table: str, seat: int | None, *, host: str, port: int, username: str | None,
                 password: str | None, transport: str = "tcp", client_id: str | None = None,
                 on_state: Callable[[dict[str, Any], float], None] | None = None,
                 keepalive: int = 10, presence: bool = True,
                 on_private: Callable[[dict[str, Any] | None], None] | None = None) -> None:
        self.table, self.seat = check_table(table), None if seat is None else check_seat(seat)
        presence = presence and seat is not None
        self.cond = threading.Condition()
        self.state: dict[str, Any] | None = None
        self.private: dict[str, Any] | None = None
        self.replies: dict[str | None, dict[str, Any]] = {}
        self.chat: dict[str, Any] | None = None
        self.history: dict[str, Any] | None = None
        self.seated_history: dict[str, Any] | None = None
        self._on_private = on_private
        self.controller_online: bool | None = None
        self.states_received = 0
        self.connected = False
        self.all_replies: list[dict[str, Any]] = []
        self.messages: list[tuple[str, bytes, bool]] = []  # every message: (topic, payload, retained)
        self._extra: list[str] = []
        self.subacks: dict[int, list[int]] = {}  # SUBACK mid -> reason codes (135: not authorised)
        self._sub_mid: int | None = None
        self._on_state = on_state
        self._host, self._port, self._keepalive = host, port, keepalive
        self._ids = itertools.count(1)
        self._prefix = uuid.uuid4().hex[:8]
        self._client = mqtt.Client(CallbackAPIVersion.VERSION2,
                                   client_id=client_id or f"tablet-{table}-{seat or 'viewer'}-{self._prefix}",
                                   protocol=mqtt.MQTTv5, transport=transport)  # type: ignore[arg-type]
        if username is not None:
            self._client.username_pw_set(username, password)
        self._client.reconnect_delay_set(0.1, 2)  # type: ignore[arg-type]
        self._presence = presence
        if presence:
            self._client.will_set(topic(Kind.SEAT_PRESENCE, table, seat), codec.presence_payload(False),
                                  qos=1, retain=True)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message
        self._client.on_socket_open = set_nodelay
        self._client.on_subscribe = self._on_subscribe

    def start(self) -> "Tablet":
        """Start connecting in paho's thread; see :meth:`wait_connected`."""
        self._client.connect_async(self._host, self._port, keepalive=self._keepalive, clean_start=True)
        self._client.loop_start()
        return self

    def stop(self) -> None:
        """Say goodbye (retained "offline"), disconnect cleanly and stop paho's thread."""
        if self.connected and self._presence:
            self._client.publish(topic(Kind.SEAT_PRESENCE, self.table, self.seat),
                                 codec.presence_payload(False), qos=1, retain=True).wait_for_publish(5)
        self._client.disconnect()
        self._client.loop_stop()

    def crash(self) -> None:
        """Drop the connection without a goodbye, as a tablet whose battery dies (A-4).

        The broker then publishes this tablet's Last Will.
        """
        sock = self._client.socket()
        self._client.loop_stop()  # paho's thread ends without sending DISCONNECT
        if sock is not None:
            sock.close()
        with self.cond:
            self.connected = False
            self.cond.notify_all()

    # -- sending ---------------------------------------------------------------------------
    def new_id(self) -> str:
        """Return a fresh action id (unique per tablet instance)."""
        return f"s{self.seat}-{self._prefix}-{next(self._ids)}"

    def send_action(self, action: str, amount: int | None = None, *, seq: int | None = None,
                    action_id: str | None = None, choice: str | None = None,
                    cards: list[str] | None = None, name: str | None = None,
                    post: bool | None = None) -> str:
        """Send an action for this seat; return its id. ``seq`` defaults to the last state's.

        ``name`` and ``post`` go with ``take_seat`` (T-3, T-4; ``amount`` is the buy-in).

        Raises ``ValueError`` when ``seq`` is None and no state has arrived yet.
        """
        seat = self._own_seat()
        aid = action_id or self.new_id()
        if seq is None:
            with self.cond:
                if self.state is None:
                    raise ValueError("no table state received yet: wait_seq() first or pass seq")
                seq = self.state["seq"]
        self.send_raw(topic(Kind.ACTION, self.table, seat), codec.action_payload(
            seat=seat, seq=seq, action=action, action_id=aid, amount=amount, choice=choice, cards=cards,
            name=name, post=post))
        return aid

    def send_chat(self, text: str, *, chat_id: str | None = None) -> str:
        """Send a chat line (L-3); return its id."""
        seat = self._own_seat()
        cid = chat_id or self.new_id()
        self.send_raw(topic(Kind.SEAT_CHAT, self.table, seat),
                      codec.chat_input_payload(seat=seat, text=text, chat_id=cid))
        return cid

    def _own_seat(self) -> int:
        if self.seat is None:
            raise ValueError("a viewer (seat None) cannot act or chat")
        return self.seat

    def send_raw(self, topic_str: str, payload: bytes, *, qos: int = 1) -> mqtt.MQTTMessageInfo:
        """Publish any bytes on any topic (to test the broker's ACL and the driver's refusals)."""
        return self._client.publish(topic_str, payload, qos=qos)

    def subscribe(self, topic_filter: str) -> int | None:
        """Subscribe to one more topic (messages land in :attr:`messages`); return the SUBACK mid."""
        self._extra.append(topic_filter)
        return self._client.subscribe(topic_filter, qos=1)[1]

    # -- waiting ---------------------------------------------------------------------------
    def wait_for(self, predicate: Callable[["Tablet"], bool], timeout: float) -> None:
        """Wait until ``predicate(self)`` holds; raise :class:`TabletTimeout` after ``timeout`` s."""
        with self.cond:
            if not self.cond.wait_for(lambda: predicate(self), timeout):
                raise TabletTimeout(f"seat {self.seat}: condition not met within {timeout} s")

    def wait_connected(self, timeout: float) -> None:
        """Wait until connected and subscribed."""
        self.wait_for(lambda t: t.connected, timeout)

    def wait_seq(self, seq: int, timeout: float) -> dict[str, Any]:
        """Wait for a public state with ``seq`` at least ``seq``; return it."""
        self.wait_for(lambda t: t.state is not None and t.state["seq"] >= seq, timeout)
        assert self.state is not None
        return self.state

    def wait_reply(self, action_id: str, timeout: float) -> dict[str, Any]:
        """Wait for the controller's reply to ``action_id``; return it."""
        self.wait_for(lambda t: action_id in t.replies, timeout)
        return self.replies[action_id]

    # -- paho's thread ---------------------------------------------------------------------
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            return
        t, n = self.table, self.seat
        subs = [topic(Kind.STATE, t), topic(Kind.CHAT, t), topic(Kind.CONTROLLER_PRESENCE, t),
                topic(Kind.HISTORY, t)]
        if n is not None:
            subs += [topic(Kind.PRIVATE, t, n), topic(Kind.REPLY, t, n), topic(Kind.HISTORY_SEATED, t)]
        subs += self._extra
        with self.cond:
            self._sub_mid = client.subscribe([(s, 1) for s in subs])[1]
        if self._presence:
            client.publish(topic(Kind.SEAT_PRESENCE, t, n), codec.presence_payload(True), qos=1, retain=True)

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, codes: Any, props: Any) -> None:
        with self.cond:
            self.subacks[mid] = [int(c.value) for c in codes]
            if mid == self._sub_mid:
                self.connected = True
                self.cond.notify_all()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        with self.cond:
            self.connected = False
            self.cond.notify_all()

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        now = time.perf_counter()
        try:
            data = json.loads(msg.payload) if msg.payload else None
            ref = parse(msg.topic)
        except (ValueError, TopicError):
            data, ref = None, None
        kind = ref.kind if ref is not None and ref.table == self.table and ref.seat in (None, self.seat) else None
        fresh_state = False
        with self.cond:
            self.messages.append((msg.topic, bytes(msg.payload), bool(msg.retain)))  # bytes(b) is b
            if kind is Kind.STATE and isinstance(data, dict):
                # docs/state.md: drop a state whose seq is not higher (a retained copy on
                # resubscribing is taken as it is: it is the broker's current one).
                if self.state is None or data["seq"] > self.state["seq"] or msg.retain:
                    self.state, fresh_state = data, True
                    self.states_received += 1
            elif kind is Kind.PRIVATE:
                self.private = data
            elif kind is Kind.REPLY and isinstance(data, dict):
                self.replies[data.get("id")] = data
                self.all_replies.append(data)
            elif kind is Kind.CHAT:
                self.chat = data
            elif kind is Kind.HISTORY:
                self.history = data
            elif kind is Kind.HISTORY_SEATED:
                self.seated_history = data
            elif kind is Kind.CONTROLLER_PRESENCE:
                self.controller_online = bool(isinstance(data, dict) and data.get("online"))
            self.cond.notify_all()
        if fresh_state and self._on_state is not None:
            self._on_state(data, now)  # type: ignore[arg-type]
        if kind is Kind.PRIVATE and self._on_private is not None:
            self._on_private(data)
