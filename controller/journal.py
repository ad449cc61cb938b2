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
- ``meta(key TEXT PRIMARY KEY, value TEXT)``: format version, table id.

A torn or partial write can only lose the last, uncommitted event: SQLite's WAL guarantees
a committed transaction is whole. A damaged file is reported by :meth:`Journal.check` and
never silently repaired.
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
        except sqlite3.Error as exc:
            self._unlock()
            raise JournalError(f"journal {self.path}: {exc}") from exc
        except OSError as exc:
            self._unlock()
            if isinstance(exc, JournalError):
                raise
            raise JournalError(f"journal {self.path}: {exc.strerror or exc}") from exc
        self._last_seq = int(last or 0)

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

        Checks SQLite's ``quick_check``, that seqs have no gaps, and that every payload is
        JSON (in SQL, so a long journal does not slow start-up down in Python).
        """
        problems: list[str] = []
        try:
            res = [r[0] for r in self._db.execute("PRAGMA quick_check")]
            if res != ["ok"]:
                problems += [f"sqlite: {r}" for r in res]
            count, first, last = self._db.execute(
                "SELECT COUNT(*), MIN(seq), MAX(seq) FROM events").fetchone()
            if count and (first != 1 or last - first + 1 != count):
                expected = 1
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
