"""The journal as the recall reads it (issue 9): opened read-only, and the table state
to replay from (the newest snapshot between hands before the hands asked for).

Part of :mod:`controller.history` (which re-exports :class:`HistoryError` and
:func:`open_journal`); nothing here changes the journal.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from pathlib import Path
from typing import Any
from urllib.parse import quote

from controller.engine.table.settings import TableSettings
from controller.engine.table.state import TableState
from controller.journal import _kind_of

__all__ = ["HistoryError", "open_journal", "copy_journal"]


class HistoryError(Exception):
    """The journal cannot be read or does not hold what was asked (``livetable history`` exit 2)."""


def open_journal(path: str | Path) -> sqlite3.Connection:
    """Open the journal at ``path`` read-only (SQLite URI ``mode=ro``; a running table may
    keep writing it: WAL lets readers in).

    Raises:
        HistoryError: no such file; a FIFO, folder or device at ``path`` (named, never opened:
            a FIFO would block); not a SQLite database, or not a livetable journal.
    """
    p = Path(path)
    try:
        mode = os.stat(p).st_mode
    except FileNotFoundError:
        raise HistoryError(f"no journal at {p} (give --journal FILE or set $LIVETABLE_JOURNAL)") from None
    except OSError as exc:
        raise HistoryError(f"{p} cannot be read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        raise HistoryError(f"{p} is {_kind_of(mode)}, not a journal file: move it away")
    try:
        db = sqlite3.connect(f"file:{quote(str(p.resolve()))}?mode=ro", uri=True, timeout=5)
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.Error as exc:
        raise HistoryError(f"{p} is not a readable journal: {exc}") from None
    if not {"events", "snapshots"} <= names:
        db.close()
        raise HistoryError(f"{p} is not a livetable journal (no events/snapshots tables)")
    return db


#: Journals up to this many bytes (file and ``-wal``) are read from a copy in memory
#: (:func:`copy_journal`); a larger one (``keep_hands = 0`` keeps every event: some 3.8 KB a
#: hand, 190 MB at 50,000 hands) is read in place, in one read transaction.
COPY_LIMIT = 64 * 1024 * 1024


def copy_journal(path: str | Path, limit: int | None = None) -> sqlite3.Connection:
    """Return the journal at ``path`` as it is now, for reading as one moment: copied into
    memory (SQLite's backup API in one step: one read transaction, as short as the copy) on a
    connection of its own, the journal's file closed again; or, when the file and its ``-wal``
    hold more than ``limit`` bytes (default :data:`COPY_LIMIT`), the journal itself with a read transaction begun.

    The recall replays the copy: a reader stopped mid-replay (SIGSTOP, a full pipe) holds no
    read transaction on the journal, so the running table can reset its ``-wal`` file (a
    read transaction held through the replay kept it growing: 60.7 MB over 300 hands). The
    copy costs the journal's size in memory and one pass over its pages: on the 2-core
    development machine 1-3 ms for a journal compacted to 500 hands (2.0 MB), 40-51 ms of
    CPU (0.12-0.39 s at load 9) for 10,000 hands kept whole (38 MB). Past ``limit`` (bytes)
    the memory would cost more than a growing ``-wal`` while the reader runs: it is read in
    place, as before the copy.

    Raises:
        HistoryError: as :func:`open_journal`; or the copy fails (SQLite reports the file
            damaged, or memory runs out).
    """
    src = open_journal(path)
    size = sum(os.path.getsize(f) for f in (str(path), f"{path}-wal") if os.path.exists(f))
    if size > (COPY_LIMIT if limit is None else limit):
        src.execute("BEGIN")  # one moment of the journal for every read (WAL: the table never waits)
        return src
    dst = sqlite3.connect(":memory:")
    try:
        src.backup(dst)  # pages=-1: the whole journal in one step, one read transaction
    except (sqlite3.Error, MemoryError) as exc:
        dst.close()
        raise HistoryError(f"{path} cannot be read: {exc}") from None
    finally:
        src.close()
    return dst


def _snapshot_index(db: sqlite3.Connection) -> list[tuple[int, int, bool]]:
    """Return ``(upto, hands, between_hands)`` of every snapshot, oldest first, reading only
    those two fields of each (SQLite's JSON functions; the states can be large)."""
    try:
        rows = db.execute("SELECT upto, json_extract(state, '$.table.hands'), "
                          "json_type(state, '$.table.hand') FROM snapshots ORDER BY upto").fetchall()
        return [(int(u), int(h or 0), t in (None, "null")) for u, h, t in rows]
    except sqlite3.OperationalError as exc:
        if "malformed JSON" in str(exc):
            raise HistoryError(f"a journal snapshot is not JSON: {exc}") from None
        out = []  # an SQLite without JSON functions: read each state
        for upto, text in db.execute("SELECT upto, state FROM snapshots ORDER BY upto"):
            table = _load_snapshot_text(upto, text).get("table") or {}
            out.append((int(upto), int(table.get("hands", 0)), table.get("hand") is None))
        return out


def _load_snapshot_text(upto: int, text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise HistoryError(f"journal snapshot at event {upto} is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise HistoryError(f"journal snapshot at event {upto} is not a table state")
    return data


def _load_snapshot(db: sqlite3.Connection, upto: int) -> dict[str, Any]:
    row = db.execute("SELECT state FROM snapshots WHERE upto = ?", (upto,)).fetchone()
    return _load_snapshot_text(upto, row[0])


def _base(db: sqlite3.Connection, index: list[tuple[int, int, bool]], before_hand: int,
          settings: TableSettings | None) -> tuple[int, TableState, list[dict[str, Any]]]:
    """Return (after seq, state, open faults) to replay from so that hand ``before_hand + 1``
    and every later hand are rebuilt: the newest snapshot taken between hands with at most
    ``before_hand`` hands played, else an empty table (settings from ``settings`` or from
    the first snapshot when no change was logged before it)."""
    compacted = _compacted_upto(db)
    for upto, hands, between in reversed(index):
        # A compacted journal starts at its oldest snapshot: older hands are in history_dir.
        if between and (hands <= before_hand or (compacted and upto == compacted)):
            snap = _load_snapshot(db, upto)
            try:
                return upto, TableState.from_json(snap["table"]), list(snap.get("faults") or [])
            except (KeyError, TypeError, ValueError) as exc:
                raise HistoryError(f"journal snapshot at event {upto} cannot be read: {exc}") from None
    if compacted:
        raise HistoryError(f"the journal was compacted up to event {compacted} but its snapshot there is missing")
    if settings is None and index:
        first = _load_snapshot(db, index[0][0]).get("table") or {}
        if not first.get("settings_log"):
            try:
                settings = TableSettings.from_json(first["settings"])
            except (KeyError, TypeError, ValueError):
                settings = None
    if settings is None:
        raise HistoryError("the journal has no snapshot before these hands, so the table settings "
                           "are unknown: give --config FILE (the table's config)")
    return 0, TableState.new(settings), []


def _compacted_upto(db: sqlite3.Connection) -> int:
    """Return the seq the journal was compacted up to (``controller.compaction``), 0 if never."""
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'compacted_upto'").fetchone()
    except sqlite3.OperationalError:  # a journal without a meta table: never compacted
        return 0
    return int(row[0]) if row is not None else 0


def _set_aside(db: sqlite3.Connection, after: int) -> dict[int, dict[str, Any]]:
    """Return the events after ``after`` that a ``rejected`` event sets aside, read as the
    table's recovery reads them (``Orchestrator.recover``: every ``rejected`` event after the
    snapshot it starts from whose ``seq`` is a number), so that the recall skips the same ones.

    Returns ``{seq: {"by", "reason", "error", "rejected_seq"}}``: ``by`` who set it aside (the
    floor's name from ``livetable history --accept``; ``""`` when the live table could not take
    the event and set it aside itself), ``reason`` the floor's reason (from the
    ``journal-accepted`` event of the same decision: same ``by`` and time; ``""`` if none),
    ``error`` what was wrong, ``rejected_seq`` the ``rejected`` event's own seq. A ``rejected``
    event whose payload is not a JSON object is left to the recall, which names it.
    """
    accepted: dict[tuple[str, float], str] = {}
    out: dict[int, dict[str, Any]] = {}
    rows = db.execute("SELECT seq, at, kind, payload FROM events WHERE seq > ? "
                      "AND kind IN ('rejected', 'journal-accepted') ORDER BY seq", (after,)).fetchall()
    for seq, at, kind, payload in rows:
        try:
            data = json.loads(payload)
        except (TypeError, ValueError):
            continue
        if not isinstance(data, dict):
            continue
        who = data.get("by")
        by = who if isinstance(who, str) else ""
        if kind == "journal-accepted":
            accepted[(by, at)] = str(data.get("reason") or "")
        elif isinstance(target := data.get("seq"), int) and target not in out:
            out[target] = {"by": by, "at": at, "error": str(data.get("error") or ""), "rejected_seq": int(seq)}
    for entry in out.values():
        entry["reason"] = accepted.get((entry["by"], entry.pop("at")), "") if entry["by"] else ""
    return out
