"""The table's journal: an append-only event log on SQLite in WAL mode (issue 9).

Every event the table acts on is appended here and flushed to disk *before* the table acts
on it (``PRAGMA synchronous=FULL`` makes each commit durable in WAL mode). After a crash or
a power cut the controller opens the journal, checks it, loads the newest snapshot and
replays the events after it; recovery is a replay, and so is debugging.

Layout (one SQLite file):

- ``events(seq INTEGER PRIMARY KEY, at REAL, kind TEXT, payload TEXT)``: ``seq`` rises by
  one per event; ``at`` is the event's time (Unix seconds, from the injected clock);
  ``payload`` is JSON.
- ``snapshots(upto INTEGER PRIMARY KEY, at REAL, state TEXT)``: the whole table state as
  JSON after applying every event with ``seq <= upto`` (written between hands).
- ``meta(key TEXT PRIMARY KEY, value TEXT)``: format version; ``compacted_upto`` (the seq
  the journal was compacted up to, see below); other small facts (:meth:`Journal.meta`).

A torn or partial write can only lose the last, uncommitted event: SQLite's WAL guarantees
a committed transaction is whole. A damaged file is reported by :meth:`Journal.check` and
never silently repaired.

**Compaction** (:meth:`Journal.compact`, driven by :class:`controller.compaction.JournalKeeper`
between hands): the events up to a between-hands snapshot and the older snapshots are
deleted in one transaction, and ``compacted_upto`` is set in the same transaction. The
journal then starts at event ``compacted_upto + 1`` and its oldest snapshot is the one at
``compacted_upto``: recovery (newest snapshot + the events after it) and the floor's recall
of the hands kept are unchanged; seqs keep rising. A kill or power cut during compaction
leaves the journal as it was before or after it, never in between.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Journal", "JournalError", "JournalEntry", "FORMAT_VERSION"]

FORMAT_VERSION = 1


class JournalError(OSError):
    """The journal cannot be opened, written or trusted (fault kind ``journal-error``)."""


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One journalled event: ``seq`` (1, 2, ...), ``at`` (Unix seconds), ``kind``, ``payload``."""

    seq: int
    at: float
    kind: str
    payload: dict[str, Any]


_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY, at REAL NOT NULL, kind TEXT NOT NULL, payload TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS snapshots (
    upto INTEGER PRIMARY KEY, at REAL NOT NULL, state TEXT NOT NULL);
"""


class Journal:
    """An append-only, crash-safe event journal in one SQLite file.

    Args:
        path: the database file (created with its folder when missing), or ``":memory:"``.
        durable: ``True`` (default) fsyncs every append (``synchronous=FULL``); ``False``
            (``NORMAL``) is for benchmarks only.

    Raises:
        JournalError: the file cannot be opened, is not a journal, or has a newer format.
    """

    def __init__(self, path: str | Path, *, durable: bool = True) -> None:
        self.path = str(path)
        self._lock_fd: int | None = None
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
                self._lock()
                if os.path.exists(self.path) and os.path.getsize(self.path) == 0:
                    raise JournalError(
                        f"journal {self.path} is an empty file (truncated?): refusing to start a "
                        "new table on it; move it away to start afresh"
                    )
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
            self._db.executescript(_SCHEMA)
            row = self._db.execute("SELECT value FROM meta WHERE key='format'").fetchone()
            if row is None:
                self._db.execute(
                    "INSERT INTO meta(key, value) VALUES('format', ?)", (str(FORMAT_VERSION),)
                )
            elif int(row[0]) > FORMAT_VERSION:
                raise JournalError(
                    f"journal {self.path} has format {row[0]}, this livetable reads "
                    f"{FORMAT_VERSION}: upgrade livetable"
                )
            last = self._db.execute("SELECT MAX(seq) FROM events").fetchone()[0]
            row = self._db.execute("SELECT value FROM meta WHERE key='compacted_upto'").fetchone()
            compacted = int(row[0]) if row is not None else 0
        except sqlite3.Error as exc:
            self._unlock()
            raise JournalError(f"journal {self.path}: {exc}") from exc
        except OSError as exc:
            self._unlock()
            if isinstance(exc, JournalError):
                raise
            raise JournalError(f"journal {self.path}: {exc.strerror or exc}") from exc
        self._compacted_upto = compacted
        # Compacted right after its last event, the journal may hold no event: seqs go on.
        self._last_seq = max(int(last or 0), compacted)

    def _lock(self) -> None:
        """Hold ``<path>.lock`` exclusively: one controller per journal (two would fork it)."""
        fd = os.open(self.path + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = os.pread(fd, 32, 0).decode(errors="replace").strip() or "another process"
            os.close(fd)
            raise JournalError(f"journal {self.path} is in use by pid {owner}") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        self._lock_fd = fd

    def _unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing the descriptor releases the lock
            self._lock_fd = None

    @property
    def last_seq(self) -> int:
        """Return the seq of the newest event (0 for an empty journal)."""
        return self._last_seq

    @property
    def compacted_upto(self) -> int:
        """Return the seq the journal was compacted up to (0: never compacted); the oldest
        event kept is ``compacted_upto + 1`` and a snapshot at ``compacted_upto`` is kept."""
        return self._compacted_upto

    def meta(self, key: str) -> str | None:
        """Return the value stored under ``key`` in the journal's ``meta`` table, or None."""
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        """Store a small fact that must outlive compaction (``format`` and ``compacted_upto``
        are the journal's own).

        Raises:
            ValueError: ``key`` is one of the journal's own keys.
            JournalError: the write failed.
        """
        if key in ("format", "compacted_upto"):
            raise ValueError(f"meta key {key!r} belongs to the journal")
        try:
            self._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (key, value))
        except sqlite3.Error as exc:
            raise JournalError(f"journal {self.path}: meta write failed: {exc}") from exc

    def snapshot_index(self) -> list[tuple[int, int, bool]]:
        """Return ``(upto, hands, between_hands)`` of every snapshot, oldest first: ``hands``
        is how many hands the table had started (``table.hands``), ``between_hands`` whether
        no hand was running (read with SQLite's JSON functions, not by parsing each state).

        Raises:
            JournalError: a snapshot is not JSON.
        """
        try:
            rows = self._db.execute(
                "SELECT upto, json_extract(state, '$.table.hands'), json_type(state, '$.table.hand') "
                "FROM snapshots ORDER BY upto").fetchall()
        except sqlite3.Error as exc:
            raise JournalError(f"journal {self.path}: snapshots cannot be read: {exc}") from exc
        return [(int(u), int(h or 0), t in (None, "null")) for u, h, t in rows]

    def snapshot_at(self, upto: int) -> dict[str, Any] | None:
        """Return the snapshot taken at event ``upto`` (parsed), or None when there is none."""
        row = self._db.execute("SELECT state FROM snapshots WHERE upto = ?", (upto,)).fetchone()
        return None if row is None else json.loads(row[0])

    def compact(self, upto: int) -> int:
        """Delete every event with ``seq <= upto`` and every snapshot older than ``upto``, in
        one transaction; return how many events were deleted.

        ``upto`` must be the seq of a snapshot taken between hands (it becomes the journal's
        oldest snapshot, where recovery and recall can start). The caller makes sure what is
        deleted is kept elsewhere first (the hands' histories:
        :class:`controller.compaction.JournalKeeper`). The file does not shrink: SQLite reuses
        the freed pages for new events, so a compacted journal stops growing.

        Raises:
            ValueError: ``upto`` is older than the last compaction, newer than the newest
                event, or no between-hands snapshot was taken there.
            JournalError: the write failed (nothing was deleted).
        """
        if upto <= self._compacted_upto:
            return 0
        if upto > self._last_seq:
            raise ValueError(f"cannot compact up to event {upto}: the newest is {self._last_seq}")
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute(
                    "SELECT json_type(state, '$.table.hand') FROM snapshots WHERE upto = ?", (upto,)
                ).fetchone()
                if row is None or row[0] not in (None, "null"):
                    raise ValueError(f"cannot compact up to event {upto}: no between-hands snapshot there")
                deleted = self._db.execute("DELETE FROM events WHERE seq <= ?", (upto,)).rowcount
                self._db.execute("DELETE FROM snapshots WHERE upto < ?", (upto,))
                self._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES('compacted_upto', ?)",
                                 (str(upto),))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise JournalError(f"journal {self.path}: compaction failed: {exc}") from exc
        self._compacted_upto = upto
        return int(deleted)

    def append(self, kind: str, payload: dict[str, Any], at: float) -> int:
        """Append one event and make it durable before returning; return its seq.

        Raises:
            JournalError: the write failed (disk full, I/O error): the event is not recorded
                and the table must not act on it.
            TypeError: ``payload`` is not JSON-serialisable.
        """
        text = json.dumps(payload, separators=(",", ":"), sort_keys=True)
        seq = self._last_seq + 1
        try:
            self._db.execute(
                "INSERT INTO events(seq, at, kind, payload) VALUES(?, ?, ?, ?)",
                (seq, float(at), kind, text),
            )
        except sqlite3.Error as exc:
            raise JournalError(f"journal {self.path}: append failed: {exc}") from exc
        self._last_seq = seq
        return seq

    def snapshot(self, state: dict[str, Any], at: float) -> None:
        """Record the whole table state as of the newest event (a recovery starting point).

        Raises:
            JournalError: the write failed.
        """
        text = json.dumps(state, separators=(",", ":"), sort_keys=True)
        try:
            self._db.execute(
                "INSERT OR REPLACE INTO snapshots(upto, at, state) VALUES(?, ?, ?)",
                (self._last_seq, float(at), text),
            )
        except sqlite3.Error as exc:
            raise JournalError(f"journal {self.path}: snapshot failed: {exc}") from exc

    def latest_snapshot(self) -> tuple[int, dict[str, Any]] | None:
        """Return ``(upto, state)`` of the newest snapshot, or None when there is none."""
        row = self._db.execute(
            "SELECT upto, state FROM snapshots ORDER BY upto DESC LIMIT 1"
        ).fetchone()
        return None if row is None else (int(row[0]), json.loads(row[1]))

    def entries(self, after: int = 0, *, kinds: tuple[str, ...] = ()) -> Iterator[JournalEntry]:
        """Yield the events with ``seq > after`` in order, optionally only some kinds."""
        sql = "SELECT seq, at, kind, payload FROM events WHERE seq > ?"
        args: list[Any] = [after]
        if kinds:
            sql += f" AND kind IN ({','.join('?' * len(kinds))})"
            args += list(kinds)
        for seq, at, kind, payload in self._db.execute(sql + " ORDER BY seq", args):
            yield JournalEntry(int(seq), float(at), str(kind), json.loads(payload))

    def check(self) -> list[str]:
        """Check the file and the event sequence; return the problems found (empty = sound).

        Checks SQLite's ``quick_check``, that seqs have no gaps (from ``compacted_upto + 1``
        on), that a compacted journal kept its snapshot at ``compacted_upto``, and that every
        payload is JSON (in SQL, so a long journal does not slow start-up down in Python).
        """
        problems: list[str] = []
        base = self._compacted_upto
        try:
            res = [r[0] for r in self._db.execute("PRAGMA quick_check")]
            if res != ["ok"]:
                problems += [f"sqlite: {r}" for r in res]
            if base and self._db.execute("SELECT 1 FROM snapshots WHERE upto = ?", (base,)).fetchone() is None:
                problems.append(f"compacted up to event {base} but the snapshot there is missing")
            count, first, last = self._db.execute(
                "SELECT COUNT(*), MIN(seq), MAX(seq) FROM events").fetchone()
            if count and (first != base + 1 or last - first + 1 != count):
                expected = base + 1
                for (seq,) in self._db.execute("SELECT seq FROM events ORDER BY seq"):
                    if seq != expected:
                        problems.append(f"event seq {expected} missing (next is {seq})")
                        break
                    expected = seq + 1
            for (seq,) in self._db.execute(
                    "SELECT seq FROM events WHERE json_valid(payload) = 0 ORDER BY seq LIMIT 5"):
                problems.append(f"event {seq}: payload is not JSON")
        except sqlite3.Error as exc:
            problems.append(f"sqlite: {exc}")
        return problems

    def close(self) -> None:
        """Close the file (the WAL is checkpointed by SQLite) and release the lock."""
        try:
            self._db.close()
        except sqlite3.Error:  # pragma: no cover - closing twice or a dead file
            pass
        self._unlock()

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
