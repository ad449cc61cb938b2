"""The controller's link to the seat tablets through Mosquitto (issue 7): paho-mqtt 2.x.

One :class:`TableLink` per table. The loop's thread calls the ``publish_*`` methods and
:meth:`TableLink.reply`; paho's network thread only decodes, refuses what is malformed
(on the seat's reply topic, with an M- reason: the table is never bothered) and posts
frozen events from :mod:`drivers.mqtt.events` through ``post``.

Connection behaviour (DESIGN.md, paho / Home Assistant): MQTT 5 with a fixed client id and
``clean_start=False`` plus a session expiry, so QoS 1 actions sent while the controller was
away are queued by the broker and delivered once; subscriptions are made in ``on_connect``
so every reconnect resubscribes; paho reconnects with exponential backoff
(``reconnect_delay_set``); a retained "online" birth message and an "offline" Last Will on
``livetable/<table>/presence/controller``; on every connect the last public state, private
views, chat, history and lobby entry are republished (retained), so a broker that lost its
store is whole again at once.

Client id (paho-mqtt 2.x): the id sent is ``livetable-<table>-controller``, but the table's
broker replaces every client's id with its login (``use_username_as_clientid`` in
mosquitto/livetable.conf), so the session the broker keeps is the ``controller`` login's and
no other login can take it over (issue 16). ``clean_start=False`` is given explicitly, not
paho's default ``MQTT_CLEAN_START_FIRST_ONLY`` (a clean first connect would drop the actions
queued while a restarted controller was away), and the session expiry is sent on every
reconnect (paho reuses the CONNECT properties).

No retained input is ever acted on (issue 16): actions, chat lines and floor requests are
subscribed with MQTT 5's ``retainAsPublished`` (a live message keeps the retain flag its
sender set) and ``noLocal``; one with the retain flag, whether live or kept by the broker and
handed over on every resubscription, is refused (M-10, answered when its id can be read),
counted in ``refused``, and cleared from the broker (an empty retained message), so it does
not come back on the next reconnect. A seat's presence is the exception: its tablet keeps it
retained on purpose (birth message and Last Will).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from typing import Any, Callable

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.subscribeoptions import SubscribeOptions

from drivers.mqtt import codec
from drivers.mqtt.net import set_nodelay
from drivers.mqtt.codec import PayloadError
from drivers.mqtt.events import (ActionReceived, BrokerConnection, ChatReceived, FloorRequestReceived,
                                  LobbyRequestReceived, MqttEvent, SeatHoldsReceived, SeatListsReceived, TabletPresence)
from drivers.mqtt.guard import ActionGuard, RateLimit, scope_of, view_facts
from drivers.mqtt.topics import Kind, TopicError, check_seat, check_table, parse, seat_filter, topic

log = logging.getLogger(__name__)

QOS = 1
CHAT_KEEP = 30  # chat lines kept in the retained chat topic
LOBBY_IDS_PER_SEAT = 128  # waiting-list request ids remembered per seat (M-5)
# Inputs (actions, chat lines, floor requests): the retain flag as the sender set it, and
# none of the controller's own publishes (its clearing of a retained input) back.
INPUT = SubscribeOptions(qos=QOS, noLocal=True, retainAsPublished=True)
RETAINED_INPUT = "M-10"
#: Give up the CPU right after queueing the public state (see :meth:`TableLink.publish_state`).
#: bench/bench_mqtt.py's ``--send-yield`` switches it to measure what it is worth.
YIELD_AFTER_STATE = True


class LinkTimeout(TimeoutError):
    """The link did not connect (or publish) within the timeout given."""


class TableLink:
    """Publish one table's views to its tablets and take their actions and chat back.

    ``table_id``: the table (``t1``); ``host``/``port``: the broker; ``username``/``password``:
    the ``controller`` user from provisioning; ``post(event)``: called from paho's thread with
    :mod:`drivers.mqtt.events` records, must not block; ``clock()``: Unix seconds (float) for
    the events' ``at``; ``max_seats``: seats 1..N accepted on topics; ``chat_rate``: at most
    ``(count, seconds)`` chat lines per seat (L-3); ``action_rate``: at most that many actions
    per seat (M-9: a tablet stuck in a loop cannot flood the table); ``backoff``: paho's reconnect delay
    ``(min, max)`` seconds, doubling in between; ``session_expiry``: seconds the broker keeps
    the controller's session and queued actions while it is away; ``auto_lobby``: keep the
    lobby entry (L-1) in step with the public state.
    """

    def __init__(self, table_id: str, *, host: str, port: int, username: str | None,
                 password: str | None, post: Callable[[MqttEvent], None],
                 clock: Callable[[], float] = time.time, max_seats: int = 10,
                 client_id: str | None = None, transport: str = "tcp", keepalive: int = 15,
                 chat_rate: tuple[int, float] = (5, 10.0), action_rate: tuple[int, float] = (10, 1.0),
                 backoff: tuple[float, float] = (0.5, 30.0),
                 session_expiry: int = 3600, auto_lobby: bool = True,
                 lobby_rate: tuple[int, float] = (5, 10.0)) -> None:
        self.table = check_table(table_id)
        self._post, self._clock, self._max_seats = post, clock, max_seats
        self._host, self._port, self._keepalive = host, port, keepalive
        self._guard = ActionGuard()
        self._chat_rate = RateLimit(count=chat_rate[0], window=chat_rate[1])
        self._lobby_rate = RateLimit(count=lobby_rate[0], window=lobby_rate[1])  # waiting-list requests
        #: per seat, the waiting-list request ids taken (M-5): one seat's flood cannot push
        #: another seat's ids out (breaker 2 L1)
        self._lobby_ids: dict[int, deque[str]] = {}
        self._action_rate = RateLimit(count=action_rate[0], window=action_rate[1])
        self._lock = threading.Lock()
        self._retained: dict[str, bytes] = {}  # topic -> last retained payload, for republishing
        self._chat: deque[dict[str, Any]] = deque(maxlen=CHAT_KEEP)
        self._presence: dict[int, bool] = {}
        self._early: deque[tuple[int, bytes, float]] = deque(maxlen=256)  # actions before any state
        self._connected = threading.Event()
        self._ready = threading.Event()  # connected and the broker acknowledged our subscriptions
        self._sub_mid: int | None = None
        self._session_expiry = session_expiry
        self._auto_lobby = auto_lobby
        self.refused = 0  #: malformed payloads refused by the driver (count)
        self.refused_retained = 0  #: of which inputs sent retained (M-10, count)
        self._floor_ids: deque[str] = deque(maxlen=512)  # floor request ids seen (M-5)
        self._chat_ids: deque[tuple[int, str]] = deque(maxlen=512)  # (seat, chat id) seen (M-5)
        self._floor_rate = RateLimit(count=action_rate[0], window=action_rate[1])
        self._action_window = float(action_rate[1])
        #: Refusal windows (M-9 damping, issue 16): seat (0: the floor topic) -> [when the
        #: window's first refusal was answered, {rule id: refusals dropped unanswered since}].
        #: Every refusal on a seat's topics (malformed, too large, duplicate, too fast, sent
        #: retained...) goes through its seat's window: the first of a window is answered and
        #: logged, the rest of a flood costs neither a reply publish nor a log line; the count
        #: is logged when the window closes (:meth:`sweep`, run by the link's own timer).
        self._flood: dict[int, list[Any]] = {}
        self.flood_dropped = 0  #: refusals dropped unanswered (count, every seat)
        self._sweeper: threading.Thread | None = None
        self._sweep_stop = threading.Event()

        self._client = mqtt.Client(CallbackAPIVersion.VERSION2,
                                   client_id=client_id or f"livetable-{table_id}-controller",
                                   protocol=mqtt.MQTTv5, transport=transport)  # type: ignore[arg-type]
        if username is not None:
            self._client.username_pw_set(username, password)
        self._client.reconnect_delay_set(backoff[0], backoff[1])  # type: ignore[arg-type]
        self._client.max_queued_messages_set(10000)
        self._client.will_set(topic(Kind.CONTROLLER_PRESENCE, self.table), codec.presence_payload(False),
                              qos=QOS, retain=True)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message
        self._client.on_socket_open = set_nodelay
        self._client.on_connect_fail = self._on_connect_fail
        self._client.on_subscribe = self._on_subscribe
        self._down_posted = False
        self._ignored_since = float("-inf")  # the window of "ignored message" lines (_ignored)
        self._ignored_count = 0

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> None:
        """Start connecting in paho's thread (returns at once; see :meth:`wait_connected`)."""
        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = self._session_expiry
        self._client.connect_async(self._host, self._port, keepalive=self._keepalive,
                                   clean_start=False, properties=props)
        self._client.loop_start()
        if self._sweeper is None:
            self._sweep_stop.clear()
            self._sweeper = threading.Thread(target=self._sweep_loop, name=f"mqtt-{self.table}-sweep",
                                             daemon=True)
            self._sweeper.start()

    def wait_connected(self, timeout: float) -> None:
        """Block until connected and subscribed; raise :class:`LinkTimeout` after ``timeout`` s."""
        if not self._ready.wait(timeout):
            raise LinkTimeout(f"no broker connection for table {self.table} within {timeout} s")

    @property
    def connected(self) -> bool:
        """True while connected to the broker."""
        return self._connected.is_set()

    def stop(self, timeout: float = 5.0) -> None:
        """Say "offline" (retained), disconnect cleanly and stop paho's thread."""
        if self._connected.is_set():
            info = self._client.publish(topic(Kind.CONTROLLER_PRESENCE, self.table),
                                        codec.presence_payload(False), qos=QOS, retain=True)
            try:
                info.wait_for_publish(timeout)
            except (RuntimeError, ValueError):
                pass
        self._client.disconnect()
        self._client.loop_stop()
        self._sweep_stop.set()
        if self._sweeper is not None:
            self._sweeper.join(timeout)
            self._sweeper = None
        self.sweep(float("inf"))  # the last windows' counts
        self._connected.clear()
        self._ready.clear()

    # -- outbound (loop thread) ------------------------------------------------------------
    @property
    def seq(self) -> int | None:
        """The seq of the last public state published, or None."""
        return self._guard.seq

    def publish_state(self, view: dict[str, Any]) -> None:
        """Publish the public state (docs/state.md) retained on ``livetable/<table>/state``.

        Actions from then on must carry this ``seq`` (M-4). Unless ``auto_lobby`` is False,
        the lobby entry (L-1, :func:`drivers.mqtt.codec.lobby_summary`) is republished
        whenever it changes. Actions that arrived before the first state (a restarted
        controller's queued actions) are checked and posted now, from the caller's thread.
        Raises
        :class:`drivers.mqtt.codec.ViewError` for a view that is not this table's, has a lower
        seq than the last one, or carries hole cards.
        """
        seq = codec.check_state(view, self.table)
        payload = codec.encode(view)
        with self._lock:
            try:
                self._guard.published(seq, **view_facts(view))
            except ValueError as exc:
                raise codec.ViewError(str(exc)) from None
            early, self._early = list(self._early), deque(maxlen=256)
            self._retain(topic(Kind.STATE, self.table), payload)
            if self._auto_lobby:
                try:
                    lobby = codec.encode(codec.lobby_summary(view))
                except (KeyError, TypeError):  # a view without the L-1 fields: no lobby entry
                    lobby = None
                lobby_topic = topic(Kind.LOBBY, self.table)
                if lobby is not None and self._retained.get(lobby_topic) != lobby:
                    self._retain(lobby_topic, lobby)
        if YIELD_AFTER_STATE and self._connected.is_set():
            # paho only queues the state for its network thread, and this (the loop's)
            # thread goes straight on to the private views, keeping the GIL: the state's
            # socket write waited for it, a median 0.5-0.6 ms. sched_yield drops the GIL and
            # the CPU for a moment so paho's thread can write it now: a median 0.13-0.16 ms,
            # and the action -> state median 0.2-0.5 ms lower (issue 21, measured with
            # bench/bench_mqtt.py --send-yield alternate, 7 runs at load 5-8 on 2 cores). It
            # does not shorten the tail: p99 with it 19.6-36.5 ms, without 16.6-33.7 ms, no
            # steady difference (there paho's thread waits for a CPU, not for the GIL). One
            # system call per state.
            os.sched_yield()
        for seat, action, at in early:  # queued actions that arrived before this first state
            self._handle(Kind.ACTION, seat, action, at)

    def publish_private(self, seat: int, view: dict[str, Any] | None) -> None:
        """Publish ``seat``'s private view retained, or clear it when ``view`` is None.

        Raises :class:`drivers.mqtt.codec.ViewError` when the view names another table or
        seat, :class:`drivers.mqtt.topics.TopicError` for a seat outside 1..max_seats.
        """
        check_seat(seat, self._max_seats)
        if view is not None:
            codec.check_private(view, self.table, seat)
        payload = b"" if view is None else codec.encode(view)
        with self._lock:  # an empty payload is kept too: a reconnect clears a stale copy
            self._retain(topic(Kind.PRIVATE, self.table, seat), payload)

    def reply(self, seat: int, action_id: str | None, accepted: bool, reason: str | None = None) -> None:
        """Answer an action or chat line on ``.../seat/<seat>/reply`` (not retained).

        ``reason`` (refusals only) starts with the rule id, e.g. ``"A-1: not your turn"``.
        Raises ``ValueError`` when a refusal lacks a reason or an acceptance has one.
        """
        check_seat(seat, self._max_seats)
        payload = codec.reply_payload(table=self.table, seat=seat, action_id=action_id,
                                      accepted=accepted, reason=reason, seq=self._guard.seq)
        self._client.publish(topic(Kind.REPLY, self.table, seat), payload, qos=QOS)  # paho queues it while down

    def forward_lobby_request(self, request: dict[str, Any]) -> None:
        """Send a seat's waiting-list request to the room (issue 18) on
        ``livetable/<table>/room/players/request`` (QoS 1, not retained; the bridge takes it
        out as ``room/tables/<table>/players/request``). ``request``: ``{"schema": 1, "table",
        "seat", "player", "name", "op", "list", "id"}``, the player as the table knows them.
        Raises ``ValueError`` when it names another table."""
        if request.get("table") != self.table:
            raise ValueError(f"request for table {request.get('table')!r}, not {self.table!r}")
        self._client.publish(topic(Kind.ROOM_PLAYERS_REQUEST, self.table), codec.encode(request), qos=QOS)

    def publish_seat_lists(self, seat: int, answer: dict[str, Any] | None) -> None:
        """Publish the room's answer about ``seat``'s player retained on
        ``livetable/<table>/seat/<seat>/lists`` (only that seat's login reads it), or clear it
        (``None``: the player left the seat). Raises ``TopicError`` for a seat outside
        1..max_seats."""
        check_seat(seat, self._max_seats)
        payload = b"" if answer is None else codec.encode(answer)
        with self._lock:
            self._retain(topic(Kind.SEAT_LISTS, self.table, seat), payload)

    def floor_reply(self, request_id: str | None, command: str | None, accepted: bool,
                    reason: str | None = None, *, detail: str | None = None,
                    status: dict[str, Any] | None = None) -> None:
        """Answer a floor request on ``livetable/<table>/floor/reply`` (not retained).

        See :func:`drivers.mqtt.codec.floor_reply_payload`; raises ``ValueError`` when a
        refusal lacks a reason or an acceptance has one.
        """
        payload = codec.floor_reply_payload(table=self.table, request_id=request_id, command=command,
                                            accepted=accepted, reason=reason, detail=detail, status=status,
                                            seq=self._guard.seq)
        self._client.publish(topic(Kind.FLOOR_REPLY, self.table), payload, qos=QOS)

    def publish_chat(self, seat: int | None, name: str, text: str, *, chat_id: str | None = None,
                     at: float | None = None) -> None:
        """Add a chat line (L-3) and publish the last 30 lines retained on ``livetable/<table>/chat``.

        ``seat`` None is the floor or the dealer. ``text`` is checked again (M-7 ``PayloadError``
        for invalid text) since the loop may also post its own lines.
        """
        line = {"seat": seat, "name": str(name), "text": codec.clean_chat_text(text),
                "id": chat_id, "at": self._clock() if at is None else at}
        with self._lock:
            self._chat.append(line)
            self._retain(topic(Kind.CHAT, self.table), codec.encode(
                {"schema": codec.SCHEMA, "table": self.table, "messages": list(self._chat)}))

    def publish_history(self, hands: list[dict[str, Any]], *, keep: int = 10) -> None:
        """Publish the last ``keep`` hands: public (shown cards only) and seated (P-4) views.

        ``hands``: hand summaries oldest first (docs/mqtt.md); see
        :func:`drivers.mqtt.codec.history_views`. Raises ``ValueError`` for a bad ``showed``.
        """
        public, seated = codec.history_views(hands, keep=keep)
        pair = (codec.encode({**public, "table": self.table}), codec.encode({**seated, "table": self.table}))
        with self._lock:
            self._retain(topic(Kind.HISTORY, self.table), pair[0])
            self._retain(topic(Kind.HISTORY_SEATED, self.table), pair[1])

    def publish_lobby(self, summary: dict[str, Any]) -> None:
        """Publish the table's lobby entry (L-1) retained on ``livetable/lobby/<table>``.

        ``summary``: as :func:`drivers.mqtt.codec.lobby_summary` makes it. Raises
        ``ValueError`` when it names another table.
        """
        if summary.get("table") != self.table:
            raise ValueError(f"lobby summary is for {summary.get('table')!r}, not {self.table!r}")
        payload = codec.encode(summary)
        with self._lock:
            self._retain(topic(Kind.LOBBY, self.table), payload)

    def _retain(self, topic_str: str, payload: bytes) -> None:
        # Under self._lock, as is the republish in _on_connect: so a newer view is never
        # overtaken by an older one. While down the view is only cached (newest wins).
        self._retained[topic_str] = payload
        if self._connected.is_set():
            self._client.publish(topic_str, payload, qos=QOS, retain=True)

    # -- paho's thread ---------------------------------------------------------------------
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            self._post_down(str(reason))
            return
        self._down_posted = False
        t = self.table
        self._sub_mid = client.subscribe([(seat_filter(Kind.ACTION, t), INPUT), (seat_filter(Kind.SEAT_CHAT, t), INPUT),
                                          (seat_filter(Kind.SEAT_PRESENCE, t), SubscribeOptions(qos=QOS)),
                                          (topic(Kind.FLOOR_REQUEST, t), INPUT),
                                          (topic(Kind.ROOM_HOLDS, t), SubscribeOptions(qos=QOS)),
                                          (seat_filter(Kind.SEAT_LOBBY, t), INPUT),
                                          (seat_filter(Kind.ROOM_SEAT_LISTS, t), SubscribeOptions(qos=QOS))])[1]
        client.publish(topic(Kind.CONTROLLER_PRESENCE, t), codec.presence_payload(True), qos=QOS, retain=True)
        with self._lock:
            for topic_str, payload in self._retained.items():
                client.publish(topic_str, payload, qos=QOS, retain=True)
            self._connected.set()
        self._post(BrokerConnection(True, self._clock(), None))

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, codes: Any, props: Any) -> None:
        if mid == self._sub_mid:
            if any(c.is_failure for c in codes):
                log.error("broker refused the controller's subscriptions: %s", codes)
            else:
                self._ready.set()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        self._connected.clear()
        self._ready.clear()
        self._post_down(str(reason))

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        self._post_down("broker unreachable")

    def _post_down(self, reason: str) -> None:
        # One "down" event per outage, however many reconnect attempts fail.
        if not self._down_posted:
            self._down_posted = True
            self._post(BrokerConnection(False, self._clock(), reason))

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        # paho's network thread runs this: an exception escaping it ends that thread, and the
        # table would go on dealing deaf to every tablet with no fault. Whatever one message
        # does, it is logged and the next one is taken.
        try:
            self._take_message(msg)
        except Exception:  # noqa: BLE001 - the link must outlive any one message
            log.exception("a message on %r could not be handled; it was dropped", msg.topic[:120])

    def _ignored(self, topic_str: str, now: float) -> None:
        # Messages on topics outside the tree (a seat 99, "x", 03): one log line a second with
        # the count, not one per message (a flood wrote 14,000 lines in seconds).
        if now - self._ignored_since >= 1.0:
            if self._ignored_count:
                log.warning("ignored %d more messages on topics outside the table's tree", self._ignored_count)
            self._ignored_since, self._ignored_count = now, 0
            log.warning("ignored message on %r", topic_str[:120])
        else:
            self._ignored_count += 1

    def _take_message(self, msg: mqtt.MQTTMessage) -> None:
        now = self._clock()
        payload = bytes(msg.payload)  # paho gives bytes (typed bytes | bytearray); bytes(b) is b
        try:
            ref = parse(msg.topic, self._max_seats)
        except TopicError:
            self._ignored(msg.topic, now)
            return
        if ref.table != self.table:
            return
        if msg.retain and ref.kind in (Kind.ACTION, Kind.SEAT_CHAT, Kind.FLOOR_REQUEST, Kind.SEAT_LOBBY):
            self._refuse_retained(ref.kind, ref.seat, msg.topic, payload)
            return
        if ref.kind is Kind.FLOOR_REQUEST:
            self._take_floor(payload, now)
            return
        if ref.kind is Kind.ROOM_HOLDS:  # issue 18: written only by the room, through the bridge
            try:
                holds = codec.decode_holds(payload, self.table, self._max_seats)
            except PayloadError as exc:
                log.warning("the room's held seats were refused: %s", exc)
                return
            self._post(SeatHoldsReceived(holds, now))
            return
        if ref.seat is None:
            return
        if ref.kind is Kind.ROOM_SEAT_LISTS:  # issue 18: written only by the room, through the bridge
            try:
                answer = codec.decode_seat_lists(payload, self.table, ref.seat)
            except PayloadError as exc:
                log.warning("the room's lists for seat %s were refused: %s", ref.seat, exc)
                return
            self._post(SeatListsReceived(ref.seat, answer, now))
            return
        if ref.kind is Kind.ACTION:
            with self._lock:
                if self._guard.seq is None:
                    # Right after a controller restart the broker hands over queued actions
                    # before the loop has published the recovered state: keep them until it has.
                    self._early.append((ref.seat, payload, now))
                    return
        self._handle(ref.kind, ref.seat, payload, now)

    def _refuse_retained(self, kind: Kind, seat: int | None, topic_str: str, payload: bytes) -> None:
        # An input with the retain flag is never acted on, live or handed over again by the
        # broker on a resubscription: refuse it, clear it from the broker, answer if we can.
        if not payload:  # an empty retained message is a clearing: nothing was asked
            return
        self.refused += 1
        self.refused_retained += 1
        self._client.publish(topic_str, b"", qos=QOS, retain=True)
        if seat is not None and self._flooding(seat, self._clock(), RETAINED_INPUT):
            return  # this window's first refusal was answered: no reply, no log line
        log.warning("refused a retained %s on %s (cleared from the broker)", kind.name, topic_str)
        reason = f"{RETAINED_INPUT}: sent retained: the table never acts on a retained message, send it again without"
        what = codec.payload_id(payload)
        try:
            if kind is Kind.FLOOR_REQUEST:
                self.floor_reply(what, None, False, reason)
            elif seat is not None:
                self.reply(seat, what, False, reason)
        except (ValueError, TopicError):  # a seat beyond max_seats: nobody to answer
            pass

    def _handle(self, kind: Kind, seat: int, payload: bytes, now: float) -> None:
        try:
            if kind is Kind.ACTION:
                self._take_action(seat, payload, now)
            elif kind is Kind.SEAT_CHAT:
                self._take_chat(seat, payload, now)
            elif kind is Kind.SEAT_PRESENCE:
                self._take_presence(seat, payload, now)
            elif kind is Kind.SEAT_LOBBY:
                self._take_lobby(seat, payload, now)
        except PayloadError as exc:
            self.refused += 1
            if self._flooding(seat, now, exc.code):
                return  # this window's first refusal was answered: no reply, no log line
            log.info("refused seat %s %s: %s", seat, kind.name, exc)
            if kind is not Kind.SEAT_PRESENCE:
                self.reply(seat, exc.action_id, False, str(exc))
        except Exception:  # the table keeps running whatever a tablet sends
            self.refused += 1
            log.exception("error handling seat %s %s", seat, kind.name)

    def _flooding(self, key: int, now: float, code: str) -> bool:
        """A refusal (rule id ``code``, e.g. ``"M-1"``) on seat ``key``'s topics (0: the floor
        topic) at ``now``: return True when it is to be dropped unanswered and unlogged (a
        refusal was answered within the window, ``action_rate``'s seconds, that began then),
        False when it is the window's first (answer and log it). A window's dropped count is
        logged when it closes: by :meth:`sweep`, or here when the next refusal comes first."""
        with self._lock:
            state = self._flood.get(key)
            if state is not None and now - state[0] < self._action_window:
                state[1][code] = state[1].get(code, 0) + 1
                self.flood_dropped += 1
                return True
            self._flood[key] = [now, {}]
        if state is not None:
            self._log_dropped(key, state)
        return False

    def sweep(self, now: float | None = None) -> int:
        """Close every refusal window that ended by ``now`` (Unix seconds; default the
        link's clock) and log its count of refusals dropped unanswered, one line per seat.
        Run by the link's own timer every half window while started, so a flood's count is
        logged when its window closes, not at the next refusal. Returns the windows closed."""
        now = self._clock() if now is None else now
        with self._lock:
            closed = [(key, state) for key, state in self._flood.items() if now - state[0] >= self._action_window]
            for key, _ in closed:
                del self._flood[key]
        for key, state in closed:
            self._log_dropped(key, state)
        return len(closed)

    def _log_dropped(self, key: int, state: list[Any]) -> None:
        counts: dict[str, int] = state[1]
        if counts:
            where = "the floor topic" if key == 0 else f"seat {key}"
            detail = ", ".join(f"{code}: {n}" for code, n in sorted(counts.items()))
            log.info("M-9: %d more refusals on %s dropped unanswered in the %.0f s after %s (%s)",
                     sum(counts.values()), where, self._action_window,
                     time.strftime("%H:%M:%S", time.gmtime(state[0])), detail)

    def _sweep_loop(self) -> None:
        # Event.wait's timeout is a Condition wait (Lock.acquire), kept exactly.
        while not self._sweep_stop.wait(self._action_window / 2):
            try:
                self.sweep()
            except Exception:  # never let the timer die: the next turn tries again
                log.exception("closing the refusal windows failed")

    def _take_action(self, seat: int, payload: bytes, now: float) -> None:
        req = codec.decode_action(payload, seat=seat)
        if not self._action_rate.allow(seat, now):
            raise PayloadError("M-9", "actions too fast from this seat", req.action_id)
        self._guard.admit(seat, req.action_id, req.seq_seen, scope=scope_of(req.action))
        self._post(ActionReceived(seat, req.action, req.amount, req.action_id, req.seq_seen, now,
                                  req.choice, req.cards, req.name, req.post))

    def _take_floor(self, payload: bytes, now: float) -> None:
        # Only the floor user and the controllers may write this topic (the broker's ACL).
        try:
            req = codec.decode_floor_request(payload)
            with self._lock:
                if req.request_id in self._floor_ids:
                    raise PayloadError("M-5", f"request id {req.request_id!r} was already received",
                                       req.request_id)
                self._floor_ids.append(req.request_id)
            if not self._floor_rate.allow(0, now):
                raise PayloadError("M-9", "floor requests too fast", req.request_id)
        except PayloadError as exc:
            self.refused += 1
            # Only the floor's own login writes here: each of its refusals is answered (one
            # answer per request), but for M-9, a console stuck in a loop.
            if exc.code == "M-9" and self._flooding(0, now, exc.code):
                return  # this window's first refusal was answered: no reply, no log line
            log.info("refused floor request: %s", exc)
            self.floor_reply(exc.action_id, None, False, str(exc))
            return
        except Exception:  # the table keeps running whatever is sent
            self.refused += 1
            log.exception("error handling a floor request")
            return
        self._post(FloorRequestReceived(req.request_id, req.command, req.by, now, req.fault, req.seat,
                                        req.cards, req.reason, req.player, req.amount, req.stakes,
                                        req.method))

    def _take_chat(self, seat: int, payload: bytes, now: float) -> None:
        req = codec.decode_chat(payload, seat=seat)
        with self._lock:
            if (seat, req.chat_id) in self._chat_ids:
                # A QoS 1 line handed over again (the broker restarted before our PUBACK
                # reached it) or a replay: the line is in the chat already.
                raise PayloadError("M-5", f"chat id {req.chat_id!r} was already received", req.chat_id)
            self._chat_ids.append((seat, req.chat_id))
        if not self._chat_rate.allow(seat, now):
            raise PayloadError("M-8", "chat too fast: wait a few seconds (L-3)", req.chat_id)
        self._post(ChatReceived(seat, req.text, req.chat_id, now))

    def _take_lobby(self, seat: int, payload: bytes, now: float) -> None:
        req = codec.decode_lobby_request(payload, seat=seat)
        with self._lock:
            seen = self._lobby_ids.setdefault(seat, deque(maxlen=LOBBY_IDS_PER_SEAT))
            if req.request_id in seen:
                raise PayloadError("M-5", f"request id {req.request_id!r} was already received", req.request_id)
            if not self._lobby_rate.allow(seat, now):  # refused: not taken, so its id is not remembered
                raise PayloadError("M-9", "waiting-list requests too fast: wait a few seconds", req.request_id)
            seen.append(req.request_id)
        self._post(LobbyRequestReceived(seat, req.op, req.list, req.request_id, now))

    def _take_presence(self, seat: int, payload: bytes, now: float) -> None:
        online = codec.decode_presence(payload) if payload else False
        with self._lock:
            changed = self._presence.get(seat) != online
            self._presence[seat] = online
        if changed:
            self._post(TabletPresence(seat, online, now))
