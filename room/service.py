"""The room service (issue 17): the tables' records from the room broker into the store.

:class:`RoomService` logs in to the room broker as ``room`` with a persistent session (fixed
client id, ``clean_session`` false: records that arrive while the service is down wait in the
broker), subscribes to every table's ``room/tables/+/records`` (QoS 1) and ``.../state``
(the live public state the console shows), and hands each batch to one worker thread, which
checks it (:func:`room.apply.check_batch`), stores and applies it (:class:`room.apply.Room`)
and then publishes the table's acknowledgement, retained, on ``room/tables/<t>/ack``. The
worker takes everything waiting in its inbox at once (up to :attr:`RoomService.merge_messages`
messages) and stores each table's records of them in one transaction (at most
:data:`room.apply.MAX_BATCH` records): under load the tables' small messages pile up, and a
transaction each kept the room falling further behind (docs/room.md "A room behind its
tables"). At every (re)connect it publishes the acknowledgement of every
table it knows again, so a table whose bridge comes back, or that asks after a restart of
the room, hears where to go on from.

A batch that fails to store (the database away) is not acknowledged: the table sends it
again after its ``resend_seconds``. A malformed message is refused with a log line naming
the table and what is wrong, and counted in :attr:`RoomService.stats`; nothing else stops.

Progress (info, at most one line per table every :attr:`RoomService.progress_every` seconds,
only for a table that sent something): the batches and records received since the last
line, how many of those records were new and how many the room already held (a table's
resend), the batches that started at or before the acknowledged seq (resends seen), the
acknowledgement, the highest seq held (above the acknowledgement: records beyond a gap,
waiting for the table's resend), the worker's inbox (messages waiting) and the lag (how
long the batch just stored waited in the inbox). A run thus tells a room too slow (the lag
and the inbox grow) from a batch lost (a gap, and no resend seen).
"""

from __future__ import annotations

import json
import logging
import queue
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from drivers.mqtt.codec import decode_presence
from drivers.mqtt.topics import TopicError, check_table
from room.apply import MAX_BATCH, Ack, RecordError, Room, check_batch
from room.store import Store, StoreError

__all__ = ["RoomService"]

log = logging.getLogger("livetable.room.service")

#: Where the room broker carries the tables' bridge states (each bridge's ``notification_topic``,
#: ``livetable/<t>/room/link``, published on both brokers: room/provision.py).
LINK_FILTER = "livetable/+/room/link"


class RoomService:
    """Receive, store and acknowledge the tables' records.

    Args:
        store: the room's store.
        host, port, username, password: the room broker and the ``room`` login.
        clock: Unix seconds.
        client_id: the persistent session's id; the room broker replaces it with the login
            (``use_username_as_clientid``), so the session is the `room` login's.
    """

    def __init__(self, store: Store, *, host: str, port: int, username: str | None = None,
                 password: str | None = None, clock: Callable[[], float] = time.time,
                 client_id: str = "room") -> None:
        self.store = store
        self.room = Room(store, clock, on_applied=self._publish_ack)
        self.live: dict[str, dict[str, Any]] = {}  # table -> its latest public state
        self.floor_status: dict[str, dict[str, Any]] = {}  # table -> its last floor status
        self.floor_replies: dict[str, dict[str, Any]] = {}  # request id -> the table's answer
        self._asked: set[str] = set()  # request ids of the console's floor decisions, not answered yet
        #: (table, seat) -> (player, request id): the room's own ``seat`` requests not yet done
        #: (the players' desk takes the table's ``name:<player>`` there as the room's player)
        self.seating: dict[tuple[str, int], tuple[str, str]] = {}
        #: issue 19: ``f(table, payload)`` for each table's tournament report (paho's thread)
        self.on_tournament_report: Callable[[str, bytes], None] | None = None
        self.status_every = 3.0
        self.stats = {"messages": 0, "refused": 0, "store_errors": 0}
        self.clock = clock
        # issue 18: each table's link to the room (its bridge's state, ``1``/``0``, which
        # Mosquitto publishes on the room broker too, with a Last Will ``0``) and its
        # controller's presence (bridged out retained): table -> (up, since, Unix s)
        self.links: dict[str, tuple[bool, float]] = {}
        self.controllers: dict[str, tuple[bool, float]] = {}
        self.progress_every = 5.0  # seconds between a table's progress lines (info)
        self.merge_messages = 500  # messages the worker takes from its inbox at once (at most)
        self._progress: dict[str, dict[str, Any]] = {}  # table -> counts since its last line
        self.applied = threading.Condition()
        self._inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._connected = threading.Event()
        self._client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                                   protocol=mqtt.MQTTv311, clean_session=False)
        if username:
            self._client.username_pw_set(username, password)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = lambda *a, **k: self._connected.clear()
        self._client.on_message = self._on_message
        # paho annotates int seconds, but it only compares and sleeps them: 0.2 s is what we mean
        self._client.reconnect_delay_set(0.2, 5)  # type: ignore[arg-type]
        self._client.max_queued_messages_set(0)
        self._host, self._port = host, port
        self._worker = threading.Thread(target=self._work, name="room-worker", daemon=True)
        self._poller = threading.Thread(target=self._poll_status, name="room-status", daemon=True)
        self._stopping = threading.Event()

    def start(self) -> "RoomService":
        """Connect (retrying in the background) and start the worker."""
        self._worker.start()
        self._poller.start()
        self._client.connect_async(self._host, self._port, keepalive=30)
        self._client.loop_start()
        return self

    def wait_connected(self, timeout: float) -> bool:
        """Return whether the service is connected to the room broker within ``timeout`` s."""
        return self._connected.wait(timeout)

    def stop(self) -> None:
        """Disconnect and stop the worker (what it had taken is committed or not at all)."""
        self._stopping.set()
        self._inbox.put(None)
        self._worker.join(10)
        self._client.disconnect()
        self._client.loop_stop()

    def wait_applied(self, table: str, upto: int, timeout: float) -> bool:
        """Wait until ``table``'s records up to ``upto`` are stored and applied."""
        end = time.monotonic() + timeout
        with self.applied:
            while self.room.ack(table).upto < upto:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self.applied.wait(left)
        return True

    # ------------------------------------------------------------------ paho's thread
    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any = None) -> None:
        if getattr(reason, "is_failure", False):
            log.error("the room broker refused the room service's login: %s", reason)
            return
        client.subscribe([("room/tables/+/records", 1), ("room/tables/+/state", 0),
                          ("room/tables/+/floor/reply", 1), (LINK_FILTER, 1), ("room/tables/+/presence/controller", 1),
                          ("room/tables/+/tournament/report", 1)])
        self._connected.set()
        self._inbox.put(("reack", None, None, 0.0))

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        parts = msg.topic.split("/")
        if len(parts) == 4 and parts[0] == "livetable" and parts[2:] == ["room", "link"]:
            self._up(self.links, parts[1], msg.payload.strip() == b"1" if msg.payload else None)
            return
        if len(parts) == 5 and parts[3:] == ["presence", "controller"]:
            try:
                up = decode_presence(msg.payload) if msg.payload else None
            except ValueError:
                up = None
            self._up(self.controllers, parts[2], up)
            return
        if len(parts) == 5 and parts[3:] == ["floor", "reply"]:
            self._floor_reply(parts[2], msg.payload)
            return
        if len(parts) == 5 and parts[3:] == ["tournament", "report"]:
            if self.on_tournament_report is not None:  # issue 19: room/tournament.py
                self.on_tournament_report(parts[2], bytes(msg.payload))
            return
        if len(parts) != 4 or parts[0] != "room" or parts[1] != "tables":
            return
        try:
            table = check_table(parts[2])
        except TopicError:
            self.stats["refused"] += 1
            log.warning("a message on %s: not a table id", msg.topic)
            return
        if parts[3] == "state":
            try:
                view = json.loads(msg.payload) if msg.payload else None
            except ValueError:
                return
            if isinstance(view, dict):
                self.live[table] = view
            return
        if parts[3] == "records":
            self._inbox.put(("records", table, bytes(msg.payload), time.monotonic()))

    def _up(self, where: dict[str, tuple[bool, float]], table: str, up: bool | None) -> None:
        try:
            check_table(table)
        except TopicError:
            return
        if up is None:  # cleared, or not a state: nothing known
            where.pop(table, None)
        elif table not in where or where[table][0] != up:
            where[table] = (up, self.clock())

    def offline(self) -> dict[str, float]:
        """Return ``{table: since}`` (Unix s) of the tables the room has no link to (issue 18):
        the table's bridge is down (its state ``0``, published by the table's Mosquitto and,
        when the link breaks, by the room broker as the bridge's Last Will) or its controller
        is offline (its retained presence, bridged out). ``since``: when the room learnt it.
        A table whose bridge and controller never said (a bridge provisioned before issue
        18's ``notifications_local_only false``) counts as online."""
        out: dict[str, float] = {}
        for where in (self.links, self.controllers):
            for t, (up, since) in list(where.items()):
                if not up:
                    out[t] = min(out.get(t, since), since)
        return out

    def tournament_order(self, table: str, payload: bytes) -> None:
        """Send a tournament order to ``table`` (issue 19, controller/tournament_link.py; QoS 1).

        Raises:
            drivers.mqtt.topics.TopicError: ``table`` is not a table id.
        """
        self._client.publish(f"room/tables/{check_table(table)}/tournament/order", payload, qos=1)

    # ------------------------------------------------------------------ the floor
    def floor_request(self, table: str, command: str, *, by: str | None = None, fault: str | None = None,
                      seat: int | None = None, reason: str | None = None, **extra: Any) -> str:
        """Send a floor request to ``table`` through its bridge (docs/mqtt.md "Floor"); return
        its id. ``extra``: ``player``/``amount`` (``seat``), ``stakes`` (``stakes``). The
        table's answer arrives in :attr:`floor_replies` (and its status in :attr:`floor_status`).
        A ``seat`` request is remembered in :attr:`seating` until the table seats the player
        or refuses.

        Raises:
            drivers.mqtt.topics.TopicError: ``table`` is not a table id.
        """
        from drivers.mqtt.codec import floor_request_payload

        check_table(table)
        rid = f"room-{secrets.token_hex(8)}"
        if command != "status":
            self._asked.add(rid)
        if command == "seat" and isinstance(seat, int) and isinstance(extra.get("player"), str):
            self.seating[(table, seat)] = (extra["player"], rid)
        payload = floor_request_payload(request_id=rid, command=command, by=by, fault=fault, seat=seat,
                                        reason=reason, **extra)
        self._client.publish(f"room/tables/{table}/floor/request", payload, qos=1)
        return rid

    def _floor_reply(self, table: str, payload: bytes) -> None:
        try:
            reply = json.loads(payload)
        except ValueError:
            return
        if not isinstance(reply, dict) or reply.get("table") != table:
            return
        if isinstance(reply.get("status"), dict):
            self.floor_status[table] = dict(reply["status"], received=time.time())
        rid = reply.get("id")
        if not isinstance(rid, str) or rid not in self._asked:
            return  # not ours, or answered already: the first answer stands
        if reply.get("accepted") is not True and str(reply.get("reason") or "").startswith("M-5"):
            # a duplicate of the request (QoS 1 sends again) refused as such: it says nothing of
            # the request itself, whose own answer comes (or came) on its own
            log.info("table %s: request %s: a duplicate was refused (%s); waiting for its answer", table, rid,
                     reply.get("reason"))
            return
        self._asked.discard(rid)
        if reply.get("accepted") is not True:
            for where, (_, asked) in list(self.seating.items()):
                if asked == rid:
                    del self.seating[where]
        self.floor_replies[rid] = reply
        self._inbox.put(("outcome", table, reply, 0.0))

    def _poll_status(self) -> None:
        while not self._stopping.wait(self.status_every):
            if not self._connected.is_set():
                continue
            try:
                tables = set(self.store.table_ids()) | set(self.live)
            except StoreError:
                tables = set(self.live)
            for t in sorted(tables):
                self.floor_request(t, "status")

    # ------------------------------------------------------------------ the worker
    def _publish_ack(self, table: str, ack: Ack) -> None:
        # Not queued while the broker is away: old acknowledgements replayed after newer ones
        # would send tables back; every table's is published again at the next connect.
        if self._connected.is_set():
            self._client.publish(f"room/tables/{table}/ack", json.dumps(ack.to_json()), qos=1, retain=True)
        with self.applied:
            self.applied.notify_all()

    def _note(self, table: str, batch: "_Pending", before: int, upto: int, new: int) -> None:
        """Count ``table``'s stored messages and log its progress line when one is due."""
        now = time.monotonic()
        p = self._progress.get(table)
        if p is None:
            p = self._progress[table] = {"since": now, "batches": 0, "tx": 0, "records": 0, "new": 0,
                                         "resends": 0, "top": 0}
        p["batches"] += batch.messages
        p["tx"] += 1
        p["records"] += len(batch.records)
        p["new"] += new
        p["resends"] += sum(1 for first in batch.firsts if first <= before)  # sent again from what the room had
        if batch.records:
            p["top"] = max(p["top"], max(r[0] for r in batch.records))
        if now - p["since"] < self.progress_every:
            return
        log.info("table %s: %d batches in %d transactions, %d records (%d new, %d held already), %d resends "
                 "seen in %.0f s; acknowledged %d, highest held %d%s; inbox %d waiting, lag %.1f s",
                 table, p["batches"], p["tx"], p["records"], p["new"], p["records"] - p["new"], p["resends"],
                 now - p["since"], upto, max(p["top"], upto),
                 " (a gap: waiting for the table's resend)" if p["top"] > upto else "",
                 self._inbox.qsize(), now - batch.received)
        p.update(since=now, batches=0, tx=0, records=0, new=0, resends=0)

    def _work(self) -> None:
        stop = False
        while not stop:
            items = [self._inbox.get()]
            # Take what else waits: under load the tables' messages pile up here, and one
            # transaction per table for all of them keeps the room ahead (issue 17: a room that
            # stored message by message fell minutes behind its tables at a load average of 30).
            while len(items) < self.merge_messages:
                try:
                    items.append(self._inbox.get_nowait())
                except queue.Empty:
                    break
            pending: dict[str, _Pending] = {}
            for item in items:
                if item is None:
                    stop = True  # what was taken before it is still stored
                    break
                what, table, payload, received = item
                if what == "records":
                    self._take(pending, table, payload, received)
                    continue
                self._flush(pending)  # the floor's outcome and the re-acknowledgement in order
                self._other(what, table, payload)
            self._flush(pending)

    def _take(self, pending: dict[str, "_Pending"], table: str, payload: bytes, received: float) -> None:
        """Check one records message of ``table`` and add it to what is stored next."""
        self.stats["messages"] += 1
        try:
            base, records = check_batch(table, json.loads(payload))
        except (RecordError, ValueError) as exc:
            self.stats["refused"] += 1
            log.warning("table %s: a records message was refused: %s", table, exc)
            return
        batch = pending.get(table)
        if batch is not None and len(batch.records) + len(records) > MAX_BATCH:
            self._store(table, pending.pop(table))
            batch = None
        if batch is None:
            batch = pending[table] = _Pending(received)
        batch.add(base, records)

    def _flush(self, pending: dict[str, "_Pending"]) -> None:
        for table, batch in pending.items():
            self._store(table, batch)
        pending.clear()

    def _store(self, table: str, batch: "_Pending") -> None:
        try:
            before = self.room.ack(table).upto
            held = self.room.stats["records_new"]
            ack = self.room.receive(table, batch.base, batch.records)
            self._note(table, batch, before, ack.upto, self.room.stats["records_new"] - held)
        except StoreError as exc:
            self.stats["store_errors"] += 1
            log.error("table %s: not stored (the table sends it again): %s", table, exc)
        except Exception:  # a bug must not stop the room: the table sends it again
            self.stats["store_errors"] += 1
            log.exception("table %s: a batch failed", table)

    def _other(self, what: str, table: str | None, payload: Any) -> None:
        try:
            if what == "outcome":
                with self.store.transaction() as tx:
                    tx.execute("UPDATE room_floor_actions SET outcome = ? WHERE request_id = ?",
                               (json.dumps({k: payload.get(k) for k in ("accepted", "reason", "detail")}),
                                payload.get("id")))
            elif what == "reack":
                for t in self.store.table_ids():
                    self._publish_ack(t, self.room.ack(t))
        except StoreError as exc:
            self.stats["store_errors"] += 1
            log.error("table %s: %s not done: %s", table, what, exc)
        except Exception:  # a bug must not stop the room
            self.stats["store_errors"] += 1
            log.exception("table %s: %s failed", table, what)


class _Pending:
    """The records messages of one table taken from the inbox together (stored in one go)."""

    def __init__(self, received: float) -> None:
        self.received = received  # when the oldest of them arrived (monotonic seconds)
        self.base: dict[str, Any] | None = None
        self.records: list[Any] = []
        self.firsts: list[int] = []  # each message's first seq
        self.messages = 0

    def add(self, base: dict[str, Any] | None, records: list[Any]) -> None:
        self.messages += 1
        if base is not None and self.base is None:
            self.base = base
        if records:
            self.firsts.append(min(r[0] for r in records))
        self.records.extend(records)
