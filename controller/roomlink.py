"""The table's outbox to the room (issue 17): the journal's records, sent until acknowledged.

The journal stays the truth (controller/journal.py); the outbox only reads it. It sends the
journal's records in order, each with the table's own ``seq``, to the table's Mosquitto on
``livetable/<t>/room/records``; the table's bridge (``livetable room provision``) carries
them to the room broker as ``room/tables/<t>/records``. The room stores them idempotently
and answers on ``room/tables/<t>/ack`` (retained, bridged back as ``livetable/<t>/room/ack``)
with the last seq it holds without a gap. The outbox:

- sends batches of at most ``batch`` records, never more than ``window`` records past the
  acknowledged one (a long outage does not fill the brokers' queues);
- sends again from the first record not acknowledged when the bridge comes back (Mosquitto
  publishes its state on ``livetable/<t>/room/link``: ``1`` up, ``0`` down), when its own
  connection to the table's broker comes back, when the room's acknowledgement goes back
  (a room store restored from a backup) and when nothing was acknowledged for
  ``resend_seconds`` while records were out;
- sends the journal's oldest snapshot (``base``: where the room's replay starts) while the
  room says it does not hold it;
- ignores an acknowledgement beyond the journal's last record: the room can hold only what
  this journal wrote, so it is another room's or journal's (a retained one of an old room).

It logs in to the table's broker with its own login, ``<table>-outbox`` (``livetable tablets
provision`` makes it; its ACL: write the records, read the acknowledgement and the bridge's
state), never the controller's: the table's broker gives each client its login as its
client id (mosquitto/livetable.conf), so a second client on the ``controller`` login would
end the controller's session, and the controller's reconnect would end the outbox's, over
and over.

It never blocks the table: it runs on its own thread with its own read-only connection to
the journal file (SQLite WAL lets one writer and many readers work at once); the
orchestrator only calls :meth:`RoomLink.wake` (as a listener) after each event. Nothing is
lost: a record leaves the outbox's concern only when the room has it; nothing is doubled:
the room keys records by ``(table, seq)``.

Messages (docs/room.md): ``{"table": t, "records": [{"seq", "at", "kind", "payload"}...],
"base": {"upto", "state"} (only when asked)}``; the acknowledgement ``{"table", "upto", "base"}``.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
import tomllib
import urllib.parse
from contextlib import closing
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from drivers.mqtt.provision import outbox_user
from controller.journal import payload_of
from drivers.mqtt.topics import ROOT, check_table

__all__ = ["RoomLink", "RoomLinkConfig", "read_only_uri", "room_config", "start_from_config", "records_topic",
           "ack_topic"]

log = logging.getLogger("livetable.roomlink")

#: A message's records stay well under the brokers' packet limit (262144 on the table's).
MAX_MESSAGE_BYTES = 180_000
#: Seconds: the longest wait before a resend for want of an acknowledgement (see _resend_wait).
RESEND_CAP = 60.0


def records_topic(table: str) -> str:
    """Return the table-side topic of the outbox's records: ``livetable/<t>/room/records``."""
    return f"{ROOT}/{check_table(table)}/room/records"


def ack_topic(table: str) -> str:
    """Return the table-side topic of the room's acknowledgement: ``livetable/<t>/room/ack``."""
    return f"{ROOT}/{check_table(table)}/room/ack"


def link_topic(table: str) -> str:
    """Return where the table's broker publishes its bridge's state (``1``/``0``)."""
    return f"{ROOT}/{check_table(table)}/room/link"


def read_only_uri(path: str | Path) -> str:
    """Return the SQLite URI that opens the file at ``path`` read-only (``mode=ro``): the
    absolute path percent-quoted, so a ``#``, ``?`` or ``%`` in a folder's name is part of
    the path, not the URI's fragment or query (breaker 2: ``/tmp/a#b/j.sqlite`` opened and
    created ``/tmp/a`` read-write)."""
    return f"file:{urllib.parse.quote(str(Path(path).resolve()))}?mode=ro"


class RoomLinkConfig:
    """The ``[room]`` section of a table's config: ``outbox`` (bool, default false),
    ``password_file`` (the outbox's password on the table's broker, login ``<table>-outbox``;
    needed when ``outbox`` is true: the broker refuses a client without a login), ``batch``
    (records per message, 1..1000, default 200), ``window`` (records out before an
    acknowledgement, 1..100000, default 5000), ``resend_seconds`` (1..600, default 10);
    ``tournament`` (bool, default false; issue 19): the table is one table of the room's
    multi-table tournament (``livetable run`` attaches
    :func:`controller.composition.room_tournament_seat`; ``--tournament-room`` overrides it);
    ``tournament_password_file`` (the tournament link's password on the table's broker,
    login ``<table>-tournament`` from ``livetable tablets provision``; needed when the table
    plays the room's tournament, checked by ``livetable run``: on the controller's login
    the link and the table's MQTT link end each other's session).

    Raises:
        ValueError: an unknown key or a value out of range (names the key).
    """

    def __init__(self, data: dict[str, Any]) -> None:
        known = {"outbox", "password_file", "batch", "window", "resend_seconds", "tournament",
                 "tournament_password_file"}
        for k in data:
            if k not in known:
                raise ValueError(f"room.{k}: unknown key (known: {', '.join(sorted(known))})")
        self.outbox = data.get("outbox", False)
        if not isinstance(self.outbox, bool):
            raise ValueError(f"room.outbox: true or false, got {self.outbox!r}")
        self.tournament = data.get("tournament", False)
        if not isinstance(self.tournament, bool):
            raise ValueError(f"room.tournament: true or false (a table of the room's multi-table tournament), "
                             f"got {self.tournament!r}")
        self.tournament_password_file: str | None = data.get("tournament_password_file")
        if self.tournament_password_file is not None and (not isinstance(self.tournament_password_file, str)
                                                          or not self.tournament_password_file):
            raise ValueError(f"room.tournament_password_file: a file name, got {self.tournament_password_file!r}")
        self.password_file: str | None = data.get("password_file")
        if self.password_file is not None and (not isinstance(self.password_file, str) or not self.password_file):
            raise ValueError(f"room.password_file: a file name, got {self.password_file!r}")
        if self.outbox and self.password_file is None:
            raise ValueError("room.password_file: the outbox logs in to the table's broker as <table>-outbox "
                             "(livetable tablets provision writes its password); needed with outbox = true")
        self.batch = self._int(data, "batch", 200, 1, 1000)
        self.window = self._int(data, "window", 5000, 1, 100_000)
        self.resend_seconds = float(self._int(data, "resend_seconds", 10, 1, 600))

    @staticmethod
    def _int(data: dict[str, Any], key: str, default: int, lo: int, hi: int) -> int:
        v = data.get(key, default)
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ValueError(f"room.{key}: a whole number in {lo}..{hi}, got {v!r}")
        return v


def room_config(path: str | Path) -> RoomLinkConfig:
    """Return the ``[room]`` section of the table config at ``path`` (defaults when absent).

    Raises:
        ValueError: the file cannot be read as TOML, or the section is wrong.
    """
    from controller.config import MAX_CONFIG_BYTES, read_small_text  # a FIFO never read, a BOM left out

    try:
        data = tomllib.loads(read_small_text(path, limit=MAX_CONFIG_BYTES, what="config file"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: {exc}") from exc
    section = data.get("room", {})
    if not isinstance(section, dict):
        raise ValueError("room: must be a table ([room])")
    return RoomLinkConfig(section)


class RoomLink:
    """The outbox of one table (see the module's doc).

    Args:
        table: the table id.
        journal_path: the table's journal file (read only here).
        host, port, username, password: the table's own Mosquitto and the outbox's own login
            (``<table>-outbox``; never the controller's, see the module's doc).
        batch, window, resend_seconds: as in :class:`RoomLinkConfig`.
        linger: seconds the outbox waits after a new record for more to send with it.

    Use :meth:`start`, add the instance to ``orch.listeners`` (it wakes on every event), and
    :meth:`stop` at the end. :attr:`acked` is the room's last acknowledgement.
    """

    def __init__(self, table: str, journal_path: str | Path, *, host: str = "127.0.0.1", port: int = 1883,
                 username: str | None = None, password: str | None = None, batch: int = 200,
                 window: int = 5000, resend_seconds: float = 10.0, linger: float = 0.1) -> None:
        self.table = check_table(table)
        self.journal_path = str(journal_path)
        self.batch, self.window, self.resend_seconds = batch, window, resend_seconds
        self.linger = linger
        self._halt = threading.Event()
        self.acked = 0
        self.room_has_base = False
        self._ack_seen = False
        self._link_up: bool | None = None
        self._connected = False
        self._next = 1
        self._deadline = 0.0
        self._rewind = True
        self._rewind_why = "start"  # why the next turn sends from the first record not acknowledged
        self._fruitless = 0  # resends for want of an acknowledgement since the room's last one
        self._known_last = 0  # the journal's newest seq as last read (an acknowledgement beyond it: another's)
        self._stale_ack = -1  # the last acknowledgement ignored as another room's or journal's (logged once)
        self.progress_every = 30.0  # seconds between the outbox's progress lines (info)
        self._progress_at = time.monotonic()
        self._progress_sent = 0
        self._lock = threading.Condition()
        self._wake = threading.Event()
        self._stopping = False
        self._connected_at = 0.0
        self._base_sent = -1e9  # when the base went last (monotonic seconds)
        self.sent_records = 0
        self.sent_batches = 0
        self.resends = 0
        self.disconnects = 0  # connections to the table's broker lost (or taken over)
        self._db: sqlite3.Connection | None = None
        self._thread = threading.Thread(target=self._run, name=f"roomlink-{table}", daemon=True)
        self._client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=outbox_user(table),
                                   protocol=mqtt.MQTTv311, clean_session=True)
        if username:
            self._client.username_pw_set(username, password)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message
        # paho annotates int seconds, but it only compares and sleeps them: 0.2 s is what we mean
        self._client.reconnect_delay_set(0.2, 5)  # type: ignore[arg-type]
        self._host, self._port = host, port

    # ------------------------------------------------------------------ life cycle
    def start(self) -> "RoomLink":
        """Connect to the table's broker (retrying in the background) and start sending."""
        self._client.connect_async(self._host, self._port, keepalive=30)
        self._client.loop_start()
        self._thread.start()
        return self

    def __call__(self, orch: Any, effects: list[Any]) -> None:
        """The orchestrator's listener: a new event is in the journal."""
        self._wake.set()

    def wake(self) -> None:
        """Look at the journal now (new records)."""
        self._wake.set()

    def last_seq(self) -> int:
        """Return the journal's newest seq as this reader sees it (0 when empty)."""
        db = self._open()
        rows = db.execute("SELECT MAX(seq) FROM events").fetchall()  # read whole: no snapshot held
        return int(rows[0][0] or 0)

    def wait_acked(self, upto: int, timeout: float) -> bool:
        """Wait until the room acknowledged ``upto``; return whether it did within ``timeout``."""
        end = time.monotonic() + timeout
        with self._lock:
            while self.acked < upto:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
            return True

    def _drain(self, upto: int, timeout: float) -> bool:
        """Wait until the room acknowledged ``upto``, within ``timeout``, while an
        acknowledgement can come: connected to the table's broker (a bridge down may come back
        within the drain; a broker gone at a stop is gone with its machine or its parent)."""
        end = time.monotonic() + timeout
        with self._lock:
            while self.acked < upto:
                left = end - time.monotonic()
                if left <= 0 or not self._connected:
                    return False
                self._lock.wait(left)
            return True

    def stop(self, drain: float = 0.0) -> dict[str, Any]:
        """Stop (after waiting up to ``drain`` seconds for the room to acknowledge everything
        journalled, while an acknowledgement can come: not once the table's broker is gone —
        the tables of a killed ``room simulate``, whose brokers die with it, stop at once);
        return :meth:`stats`."""
        if drain > 0 and self._thread.is_alive():
            self._wake.set()
            if not self._drain(self.last_seq(), drain):
                log.warning("table %s: the room acknowledged up to %d of %d when the outbox stopped; "
                            "the rest is sent when the table runs again", self.table, self.acked, self.last_seq())
        self._stopping = True
        self._halt.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(5)
        self._client.disconnect()
        self._client.loop_stop()
        stats = self.stats()
        if self._db is not None:
            self._db.close()
            self._db = None
        return stats

    def stats(self) -> dict[str, Any]:
        """Return ``acked``, ``last_seq``, ``sent_records``, ``sent_batches``, ``resends``,
        ``disconnects`` (connections to the table's broker lost while running)."""
        try:
            last = self.last_seq()
        except sqlite3.Error:
            last = None
        return {"acked": self.acked, "last_seq": last, "sent_records": self.sent_records,
                "sent_batches": self.sent_batches, "resends": self.resends, "disconnects": self.disconnects}

    # ------------------------------------------------------------------ paho's thread
    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any = None) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("table %s outbox: the table's broker refused the login: %s", self.table, reason)
            return
        client.subscribe([(ack_topic(self.table), 1), (link_topic(self.table), 1)])
        with self._lock:
            self._connected = True
            self._connected_at = time.monotonic()
            self._rewind, self._rewind_why = True, "connected to the table's broker again"
        self._wake.set()

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any = None) -> None:
        with self._lock:
            if self._connected and not self._stopping:
                self.disconnects += 1
                log.warning("table %s outbox: the connection to the table's broker was lost: %s", self.table, reason)
            self._connected = False
            self._lock.notify_all()  # a drain at stop() waits no more

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        if msg.topic == link_topic(self.table):
            up = msg.payload.strip() == b"1"
            with self._lock:
                if up and self._link_up is not True:
                    self._rewind, self._rewind_why = True, "the bridge is up again"
                self._link_up = up
            log.info("table %s: the bridge to the room is %s", self.table, "up" if up else "down")
            self._wake.set()
            return
        try:
            ack = json.loads(msg.payload)
            upto, base = ack["upto"], ack["base"]
            if ack.get("table") != self.table or isinstance(upto, bool) or not isinstance(upto, int) \
                    or upto < 0 or not isinstance(base, bool):
                raise ValueError("not this table's {table, upto, base}")
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("table %s: an acknowledgement from the room was refused (%s): %r",
                        self.table, exc, msg.payload[:200])
            return
        if upto > self._known_last and upto > self._journal_last():
            # Another room's or another journal's: the room can hold only records this journal
            # wrote. A retained acknowledgement of an old room (or of this table id's earlier
            # journal) took a new table's outbox past records the room never had (and let
            # compaction drop them) until the room answered its next records with "0".
            if upto != self._stale_ack:
                log.warning("table %s: an acknowledgement up to %d is ignored: this journal's last record is %d, "
                            "so it is another room's or another journal's (a retained one of an old room, or "
                            "of an earlier journal of this table id); sending from %d", self.table, upto,
                            self._known_last, self.acked + 1)
                self._stale_ack = upto
            return
        with self._lock:
            if upto < self.acked:
                log.warning("table %s: the room went back to %d (from %d): sending again from there",
                            self.table, upto, self.acked)
                self._rewind, self._rewind_why = True, "the room went back"
            if upto != self.acked:
                self._fruitless = 0
                self._deadline = time.monotonic() + self.resend_seconds
            self.acked = upto
            self.room_has_base = base
            self._ack_seen = True
            self._lock.notify_all()
        self._wake.set()

    def _journal_last(self) -> int:
        """Return the journal's newest seq, read on a connection of its own (paho's thread; the
        sender's is the sender's); remembered in :attr:`_known_last`. Unreadable: a seq above
        any, so that an acknowledgement is taken as before."""
        try:
            uri = read_only_uri(self.journal_path)
            with closing(sqlite3.connect(uri, uri=True, timeout=2.0)) as db:
                last = int(db.execute("SELECT MAX(seq) FROM events").fetchall()[0][0] or 0)
        except (sqlite3.Error, OSError, ValueError):
            return 2**62
        self._known_last = max(self._known_last, last)
        return self._known_last

    # ------------------------------------------------------------------ the sender
    def _open(self) -> sqlite3.Connection:
        if self._db is None:
            uri = read_only_uri(self.journal_path)
            self._db = sqlite3.connect(uri, uri=True, check_same_thread=False)
        return self._db

    def _run(self) -> None:
        while not self._stopping:
            self._wake.wait(0.5)
            # Let the records of one burst (a hand's actions come close together) go as one
            # message: one publish and one transaction at the room instead of dozens.
            self._halt.wait(self.linger)
            self._wake.clear()
            if self._stopping:
                break
            try:
                self._send_due()
            except sqlite3.Error as exc:
                log.error("table %s outbox: the journal cannot be read: %s", self.table, exc)
                if self._db is not None:
                    self._db.close()
                    self._db = None
            except Exception:  # the outbox must never stop: log and try again on the next turn
                log.exception("table %s outbox failed; trying again", self.table)
            self._log_progress()

    def _log_progress(self) -> None:
        """Log a line of what was sent and acknowledged, every :attr:`progress_every` s while
        records go out (info)."""
        now = time.monotonic()
        if now - self._progress_at < self.progress_every or self.sent_records == self._progress_sent:
            return
        log.info("table %s outbox: %d records sent in %.0f s; the room acknowledged %d, sent "
                 "up to %d; %d resends, %d sent in all", self.table, self.sent_records - self._progress_sent,
                 now - self._progress_at, self.acked, self._next - 1, self.resends, self.sent_records)
        self._progress_at, self._progress_sent = now, self.sent_records

    def _send_due(self) -> None:
        now = time.monotonic()
        with self._lock:
            if not self._connected or self._link_up is False:
                return
            if not self._ack_seen and now - self._connected_at < 2.0:
                return  # the retained acknowledgement usually comes at once: avoid a full resend
            acked, has_base = self.acked, self.room_has_base
            rewound = self._rewind or self._next <= acked
            if self._rewind or self._next <= acked:
                if self._rewind and self._next > acked + 1:
                    self.resends += 1
                    log.info("table %s: %s: sending again from %d (%d sent past it)", self.table,
                             self._rewind_why, acked + 1, self._next - acked - 1)
                self._next, self._rewind = acked + 1, False
                self._deadline = now + self._resend_wait()
            elif self._next > acked + 1 and now > self._deadline:
                waited = self._resend_wait()
                self._fruitless += 1
                log.info("table %s: nothing acknowledged for %.0f s: sending again from %d (%d sent past it); "
                         "the next time after %.0f s", self.table, waited, acked + 1, self._next - acked - 1,
                         self._resend_wait())
                self.resends += 1
                self._next = acked + 1
                self._deadline = now + self._resend_wait()
                rewound = True
        db = self._open()
        base = None
        if not has_base and (rewound or time.monotonic() - self._base_sent > self.resend_seconds):
            rows = db.execute("SELECT upto, state FROM snapshots ORDER BY upto LIMIT 1").fetchall()
            row = rows[0] if rows else None
            if row is None:
                return  # the journal's first snapshot is not written yet
            base = {"upto": int(row[0]), "state": json.loads(row[1])}
            if self._next <= base["upto"]:
                self._next = base["upto"] + 1
        while not self._stopping:
            with self._lock:
                if self._next - self.acked > self.window or not self._connected:
                    return
                start = self._next
                if start == self.acked + 1:
                    self._deadline = time.monotonic() + self._resend_wait()
            rows = db.execute("SELECT seq, at, kind, payload FROM events WHERE seq >= ? ORDER BY seq LIMIT ?",
                              (start, self.batch)).fetchall()
            if not rows:
                if base is not None and self._publish({"table": self.table, "base": base, "records": []}):
                    self._base_sent = time.monotonic()  # nothing to send but the room needs the base
                return
            if rows[0][0] != start:
                log.error("table %s: the journal no longer holds record %d (compacted before the room "
                          "had it); sending from %d", self.table, start, rows[0][0])
            records: list[dict[str, Any]] = []
            size = 0
            for seq, at, kind, payload in rows:
                size += len(payload) + 64
                if records and size > MAX_MESSAGE_BYTES:
                    break
                records.append({"seq": int(seq), "at": float(at), "kind": kind,
                                "payload": payload_of(kind, at, payload)})  # as it was appended
            msg: dict[str, Any] = {"table": self.table, "records": records}
            if base is not None:
                msg["base"], base = base, None
            if not self._publish(msg):
                return
            if "base" in msg:
                self._base_sent = time.monotonic()
            with self._lock:
                self._next = records[-1]["seq"] + 1
                self._known_last = max(self._known_last, int(rows[-1][0]))  # in the journal: no need to ask
            self.sent_records += len(records)
            self.sent_batches += 1

    def _resend_wait(self, fruitless: int | None = None) -> float:
        """Seconds without an acknowledgement before the outbox sends again from the first
        record not acknowledged: ``resend_seconds``, doubled after each such resend that the
        room did not answer (``fruitless``, default the current count), at most
        ``max(resend_seconds, 60)``. A room that lags behind its tables by more than
        ``resend_seconds`` (a queue of their messages) is thus not sent the whole backlog
        again every ``resend_seconds`` — which only deepened its queue (issue 17)."""
        n = self._fruitless if fruitless is None else fruitless
        return min(self.resend_seconds * 2 ** min(n, 16), max(self.resend_seconds, RESEND_CAP))

    def _publish(self, msg: dict[str, Any]) -> bool:
        info = self._client.publish(records_topic(self.table), json.dumps(msg, separators=(",", ":")), qos=1)
        if info.rc != mqtt.MQTT_ERR_SUCCESS:
            with self._lock:
                self._rewind, self._rewind_why = True, f"a publish failed ({mqtt.error_string(info.rc)})"
            return False
        return True


def start_from_config(config_path: str | Path, cfg: Any, orch: Any) -> RoomLink | None:
    """Start the outbox of ``livetable run`` when the config's ``[room] outbox = true``.

    ``cfg`` is the table's :class:`controller.config.Config` (its broker's ``mqtt`` host and
    port, its journal path); the outbox logs in as ``<table>-outbox`` with the password in
    ``[room] password_file``; it is added to ``orch.listeners``. Returns None when the outbox
    is off.

    Raises:
        ValueError: the ``[room]`` section is wrong, or its password file cannot be read.
    """
    rc = room_config(config_path)
    if not rc.outbox:
        return None
    assert rc.password_file is not None  # RoomConfig requires it with the outbox
    try:
        from controller.config import read_small_text  # never blocks on a FIFO, never reads /dev/zero

        password = read_small_text(rc.password_file, what="password file").strip()
    except (OSError, ValueError) as exc:
        raise ValueError(f"room.password_file: {exc}") from exc
    link = RoomLink(cfg.table.id, cfg.journal.path, host=cfg.mqtt.host, port=cfg.mqtt.port,
                    username=outbox_user(cfg.table.id), password=password, batch=rc.batch, window=rc.window,
                    resend_seconds=rc.resend_seconds)
    orch.listeners.append(link)
    return link.start()


def start_for_simulate(args: Any, orch: Any, journal: str) -> RoomLink:
    """Start the outbox of ``livetable simulate --room-outbox`` on the simulation's broker
    (``--mqtt-host/--mqtt-port``) with its own login, ``<table>-outbox``, and the password in
    ``--room-outbox-password-file`` (none: no login)."""
    # The outbox's progress and resends stay in the log even of a --quiet simulation: they are
    # what tells a room run's reader a room too slow from a batch lost (docs/room.md).
    log.setLevel(min(log.getEffectiveLevel(), logging.INFO))
    pw_file = getattr(args, "room_outbox_password_file", None)
    password = Path(pw_file).read_text().strip() if pw_file else None
    link = RoomLink(args.table, journal, host=args.mqtt_host, port=args.mqtt_port,
                    username=outbox_user(args.table) if password is not None else None, password=password,
                    resend_seconds=float(getattr(args, "room_resend", 10.0)))
    orch.listeners.append(link)
    return link.start()
