"""The room's store: PostgreSQL (psycopg 3) or SQLite, one schema, the same SQL (issue 17).

``open_store(url)`` takes ``postgresql://...`` (a card room's server) or a SQLite file path
(``sqlite:///path`` or a plain path; the embedded default, so a laptop runs a room with no
database server). Both get the schema of :mod:`room.migrations`. Every write the room makes
for one incoming batch happens in one transaction (:meth:`Store.transaction`): the records,
what applying them derived (hands, movements, faults) and the table's applied position
commit together or not at all, so a room service killed at any moment (kill -9) loses
nothing it acknowledged and, started again, carries on from its last commit.

Records are keyed by ``(table_id, seq)``: storing one twice is a no-op (``ON CONFLICT DO
NOTHING``), which is what makes the table's resends harmless.

SQL is written once with ``?`` placeholders; for psycopg they become ``%s``. JSON is kept as
text in both databases (records exactly as the table's journal wrote them; the searches the
room makes go through columns of their own, such as ``room_hand_players``).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from room.migrations import MigrationError, migrate

__all__ = ["Store", "StoreError", "open_store", "Record", "DEFAULT_SQLITE"]

DEFAULT_SQLITE = "/var/lib/livetable/room.sqlite"


class StoreError(RuntimeError):
    """The store cannot be opened, migrated or written (the message names the database)."""


Record = tuple[int, float, str, str]  # (seq, at, kind, payload as JSON text)


class Store:
    """One connection to the room's database, shared by the service's threads under a lock.

    Use :func:`open_store`. Methods raise :class:`StoreError` when the database fails.
    """

    def __init__(self, conn: Any, dialect: str, where: str) -> None:
        self._conn = conn
        self.dialect = dialect
        self.where = where
        self._lock = threading.RLock()
        self._ph = "?" if dialect == "sqlite" else "%s"

    # ------------------------------------------------------------------ plumbing
    def _sql(self, sql: str) -> str:
        return sql if self._ph == "?" else sql.replace("?", "%s")

    @contextmanager
    def transaction(self) -> Iterator["Tx"]:
        """Run the block in one transaction: committed at its end, rolled back on an error.

        Raises:
            StoreError: the database failed (the transaction is rolled back).
        """
        with self._lock:
            cur = self._conn.cursor()
            try:
                cur.execute("BEGIN IMMEDIATE" if self.dialect == "sqlite" else "BEGIN")
                yield Tx(self, cur)
                cur.execute("COMMIT")
            except BaseException as exc:
                try:
                    cur.execute("ROLLBACK")
                except Exception:  # the connection is gone: nothing was committed
                    pass
                if isinstance(exc, (sqlite3.Error,)) or type(exc).__module__.startswith("psycopg"):
                    raise StoreError(f"room store {self.where}: {exc}") from exc
                raise

    def query(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Return the rows of one read (``?`` placeholders).

        Raises:
            StoreError: the database failed.
        """
        with self._lock:
            try:
                cur = self._conn.cursor()
                cur.execute(self._sql(sql), tuple(args))
                return list(cur.fetchall())
            except Exception as exc:
                if isinstance(exc, sqlite3.Error) or type(exc).__module__.startswith("psycopg"):
                    raise StoreError(f"room store {self.where}: {exc}") from exc
                raise

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            try:
                self._conn.close()
            except Exception:  # pragma: no cover - closing a dead connection
                pass

    # ------------------------------------------------------------------ reads
    def table_ids(self) -> list[str]:
        """Return the ids of every table the room has heard from, sorted."""
        return [r[0] for r in self.query("SELECT table_id FROM room_tables ORDER BY table_id")]

    def table_row(self, table: str) -> dict[str, Any] | None:
        """Return the room's row for ``table`` (positions, meters, parsed state), or None."""
        rows = self.query(
            "SELECT table_id, base_upto, base_state, applied_upto, state, faults, total_in, total_out,"
            " rake, hands, first_at, last_at, name, game, stakes FROM room_tables WHERE table_id = ?",
            (table,))
        if not rows:
            return None
        r = rows[0]
        return {"table": r[0], "base_upto": r[1], "base_state": json.loads(r[2]) if r[2] else None,
                "applied_upto": int(r[3]), "state": json.loads(r[4]) if r[4] else None,
                "faults": json.loads(r[5] or "[]"), "total_in": int(r[6]), "total_out": int(r[7]),
                "rake": int(r[8]), "hands": int(r[9]), "first_at": r[10], "last_at": r[11],
                "name": r[12], "game": r[13], "stakes": json.loads(r[14]) if r[14] else None}

    def records(self, table: str, after: int, limit: int = 10_000) -> list[Record]:
        """Return ``table``'s stored records with ``seq > after``, in order (at most ``limit``)."""
        return [(int(s), float(a), str(k), str(p)) for s, a, k, p in self.query(
            "SELECT seq, at, kind, payload FROM room_records WHERE table_id = ? AND seq > ?"
            " ORDER BY seq LIMIT ?", (table, after, limit))]

    def record_count(self, table: str | None = None) -> int:
        """Return how many records the room holds (of one table, or of all)."""
        if table is None:
            return int(self.query("SELECT COUNT(*) FROM room_records")[0][0])
        return int(self.query("SELECT COUNT(*) FROM room_records WHERE table_id = ?", (table,))[0][0])

    def hand_count(self, table: str | None = None) -> int:
        """Return how many hands the archive holds (voided ones too; of one table, or all)."""
        if table is None:
            return int(self.query("SELECT COUNT(*) FROM room_hands")[0][0])
        return int(self.query("SELECT COUNT(*) FROM room_hands WHERE table_id = ?", (table,))[0][0])

    def hand(self, table: str, number: int) -> dict[str, Any] | None:
        """Return hand ``number`` of ``table``'s record (as the table's history wrote it), or None."""
        rows = self.query("SELECT record FROM room_hands WHERE table_id = ? AND number = ?", (table, number))
        return json.loads(rows[0][0]) if rows else None

    def search_hands(self, *, table: str | None = None, player: str | None = None,
                     since: float | None = None, until: float | None = None,
                     number: int | None = None, limit: int = 100) -> list[dict[str, Any]]:
        """Return the archive's hands matching every filter given, newest first.

        ``player`` matches a player id or name exactly (case-insensitive); ``since``/``until``
        bound the hand's end (Unix seconds); at most ``limit`` rows (1..1000).
        """
        where = ["1=1"]
        args: list[str | int | float] = []
        if table:
            where.append("h.table_id = ?")
            args.append(table)
        if number is not None:
            where.append("h.number = ?")
            args.append(int(number))
        if since is not None:
            where.append("h.ended_at >= ?")
            args.append(float(since))
        if until is not None:
            where.append("h.ended_at < ?")
            args.append(float(until))
        if player:
            where.append("EXISTS (SELECT 1 FROM room_hand_players p WHERE p.table_id = h.table_id"
                         " AND p.number = h.number AND (LOWER(p.player) = ? OR LOWER(p.name) = ?))")
            args += [player.lower(), player.lower()]
        args.append(max(1, min(int(limit), 1000)))
        rows = self.query(
            "SELECT h.table_id, h.number, h.started_at, h.ended_at, h.voided, h.pot, h.rake FROM room_hands h"
            f" WHERE {' AND '.join(where)} ORDER BY h.ended_at DESC, h.table_id LIMIT ?", args)
        return [{"table": r[0], "hand": int(r[1]), "started": r[2], "ended": r[3], "voided": bool(r[4]),
                 "pot": int(r[5]), "rake": int(r[6])} for r in rows]

    def report(self, since: float | None = None, until: float | None = None) -> list[dict[str, Any]]:
        """Return the report of every table over ``[since, until)`` (Unix seconds; None: no
        bound), then the room as one table (``table`` ``"room"``): ``hands`` (played, voided
        ones apart in ``voided``), ``rake``, ``chips_in`` (buy-ins and top-ups),
        ``chips_out`` (cash-outs), ``hours`` (from the first hand's start to the last hand's
        end). Chips are integers."""
        lo = -1e18 if since is None else float(since)
        hi = 1e18 if until is None else float(until)
        hands = {r[0]: r[1:] for r in self.query(
            "SELECT table_id, SUM(CASE WHEN voided = 0 THEN 1 ELSE 0 END), SUM(voided), COALESCE(SUM(rake), 0),"
            " MIN(COALESCE(started_at, ended_at)), MAX(ended_at) FROM room_hands"
            " WHERE ended_at >= ? AND ended_at < ? GROUP BY table_id", (lo, hi))}
        moves = {r[0]: r[1:] for r in self.query(
            "SELECT table_id, COALESCE(SUM(chips_in), 0), COALESCE(SUM(chips_out), 0) FROM room_movements"
            " WHERE at >= ? AND at < ? GROUP BY table_id", (lo, hi))}
        rows = []
        for t in sorted(set(hands) | set(moves)):
            played, voided, rake, first, last = hands.get(t, (0, 0, 0, None, None))
            cin, cout = moves.get(t, (0, 0))
            rows.append({"table": t, "hands": int(played or 0), "voided": int(voided or 0), "rake": int(rake or 0),
                         "chips_in": int(cin), "chips_out": int(cout),
                         "hours": round((last - first) / 3600, 3) if first is not None else 0.0})
        room = {"table": "room", **{k: sum(r[k] for r in rows) for k in ("hands", "voided", "rake", "chips_in",
                                                                          "chips_out")},
                "hours": round(sum(r["hours"] for r in rows), 3)}
        return rows + [room]

    def totals(self) -> dict[str, int]:
        """Return the room's meters: every table's ``total_in``, ``total_out``, ``rake`` and
        ``hands`` added up (chips, integers)."""
        r = self.query("SELECT COALESCE(SUM(total_in),0), COALESCE(SUM(total_out),0),"
                       " COALESCE(SUM(rake),0), COALESCE(SUM(hands),0) FROM room_tables")[0]
        return {"total_in": int(r[0]), "total_out": int(r[1]), "rake": int(r[2]), "hands": int(r[3])}


class Tx:
    """The writes of one transaction (from :meth:`Store.transaction`)."""

    def __init__(self, store: Store, cur: Any) -> None:
        self.store, self.cur = store, cur

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Any:
        """Run one statement (``?`` placeholders); return the cursor."""
        self.cur.execute(self.store._sql(sql), tuple(args))  # noqa: SLF001
        return self.cur

    def insert_records(self, table: str, records: Sequence[Record], received_at: float) -> int:
        """Store ``records`` of ``table``; a ``(table, seq)`` already held is left as it is.
        Return how many were new."""
        before = self.execute("SELECT COUNT(*) FROM room_records WHERE table_id = ?", (table,)).fetchone()[0]
        self.cur.executemany(self.store._sql(  # noqa: SLF001
            "INSERT INTO room_records(table_id, seq, at, kind, payload, received_at) VALUES (?,?,?,?,?,?)"
            " ON CONFLICT (table_id, seq) DO NOTHING"),
            [(table, s, a, k, p, received_at) for s, a, k, p in records])
        after = self.execute("SELECT COUNT(*) FROM room_records WHERE table_id = ?", (table,)).fetchone()[0]
        return int(after) - int(before)

    def ensure_table(self, table: str) -> None:
        """Create ``table``'s row when the room first hears of it."""
        self.execute("INSERT INTO room_tables(table_id) VALUES (?) ON CONFLICT (table_id) DO NOTHING", (table,))


def open_store(url: str | Path, *, now: float | None = None) -> Store:
    """Open (and migrate) the room's store.

    Args:
        url: ``postgresql://user@host:port/db`` (psycopg 3), or ``sqlite:///path`` / a path.

    Raises:
        StoreError: the database cannot be reached or opened, or its schema is newer than
            this code or a migration failed.
    """
    text = str(url)
    now = time.time() if now is None else now
    if text.startswith(("postgresql://", "postgres://")):
        try:
            import psycopg
        except ImportError as exc:  # pragma: no cover - psycopg is a dependency
            raise StoreError("psycopg is not installed: pip install 'psycopg[binary]'") from exc
        try:
            conn = psycopg.connect(text, autocommit=True, connect_timeout=10)
        except psycopg.Error as exc:
            raise StoreError(f"room store {_redact(text)}: cannot connect: {exc}") from exc
        store = Store(conn, "postgresql", _redact(text))
    else:
        path = text[len("sqlite://"):] if text.startswith("sqlite://") else text
        if path.startswith("//"):
            path = path[1:]
        try:
            if path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"room store {path}: cannot open: {exc}") from exc
        store = Store(db, "sqlite", path)
    try:
        with store._lock:  # noqa: SLF001
            migrate(store._conn, store.dialect, now=now)  # noqa: SLF001
            from room.players_schema import PLAYERS_MIGRATIONS, VERSION_TABLE  # issue 18's own track
            migrate(store._conn, store.dialect, now=now, steps=PLAYERS_MIGRATIONS,  # noqa: SLF001
                    version_table=VERSION_TABLE)
    except (MigrationError, sqlite3.Error) as exc:
        store.close()
        raise StoreError(f"room store {store.where}: {exc}") from exc
    except Exception as exc:
        store.close()
        if type(exc).__module__.startswith("psycopg"):
            raise StoreError(f"room store {store.where}: {exc}") from exc
        raise
    return store


def _redact(url: str) -> str:
    """Return ``url`` without a password (``postgresql://u:secret@h/db`` -> ``u:***@h/db``)."""
    head, sep, tail = url.partition("@")
    if not sep or ":" not in head.split("//", 1)[-1]:
        return url
    scheme, _, cred = head.partition("//")
    return f"{scheme}//{cred.split(':', 1)[0]}:***@{tail}"
