"""The room's side of a table's records: store, replay, acknowledge (issue 17).

:class:`Room` takes what a table's outbox sends (:mod:`controller.roomlink`): an optional
*base* (the table's journal snapshot the records start after: its oldest, ``upto`` 0 for a
journal never compacted) and a batch of journal records ``(seq, at, kind, payload)``. In one
transaction of the store it keeps every record (idempotent by ``(table, seq)``), then
replays the records that follow the table's applied position without a gap through the same
rules engine the table runs (``controller.engine.table.step``), exactly as the table's own
recovery does (:meth:`controller.orchestrator.Orchestrator.recover`): a table event the
engine refuses is skipped, as the live table marked it ``rejected``. What the replay yields
is stored with it:

- every finished hand's record (as the table's history writes it: ``hand-<n>.json``), its
  players, its pot and rake; a hand shown after it ended (P-2) replaces its first record;
- every movement of chips in and out of the table, per player (buy-in, top-up: ``in``;
  cash-out: ``out``), from the ledger's change;
- every fault raised and ended (with who decided and the exit), and the open faults;
- the table's meters (``total_in``, ``total_out``, ``rake``: the ledger's) and its state.

The acknowledgement (:class:`Ack`) is the last seq applied: every record up to it is
committed; the table sends again from the one after it. A record beyond a gap is stored and
applied once the gap is filled. Nothing here reads a clock but the injected ``clock``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from controller.engine.table import effects as fx
from controller.engine.table.codec import from_json as event_from_json
from controller.engine.table.state import TableState
from controller.engine.table.step import step
from controller.faults import FaultBook, FaultError
from room.store import Record, Store

__all__ = ["Room", "Ack", "RecordError", "check_batch", "MAX_BATCH"]

log = logging.getLogger("livetable.room")

#: The most records one message may carry (the outbox sends far fewer).
MAX_BATCH = 2000


class RecordError(ValueError):
    """A table's message is not a batch of journal records (the message says what is wrong)."""


@dataclass(frozen=True, slots=True)
class Ack:
    """The room's answer to a table: ``upto`` (every record up to it is stored and applied)
    and whether it holds the table's ``base`` snapshot (if not, the table sends it)."""

    table: str
    upto: int
    base: bool

    def to_json(self) -> dict[str, Any]:
        """Return the ``room/tables/<t>/ack`` payload (docs/room.md)."""
        return {"table": self.table, "upto": self.upto, "base": self.base}


def _canonical(payload: Any) -> str:
    # The journal's own encoding (controller/journal.py), so the room's copy is byte-equal.
    return json.dumps(payload, separators=(",", ":"), sort_keys=True)


def check_batch(table: str, message: Any) -> tuple[dict[str, Any] | None, list[Record]]:
    """Check a table's message and return ``(base, records)``.

    ``message`` is the parsed JSON of ``room/tables/<table>/records``:
    ``{"table": T, "base": {"upto": int, "state": {...}} (optional), "records": [{"seq": int >= 1,
    "at": number, "kind": str, "payload": object}, ...]}``.

    Raises:
        RecordError: anything else (names the field); nothing of such a message is stored.
    """
    if not isinstance(message, dict):
        raise RecordError("a records message is a JSON object")
    if message.get("table") != table:
        raise RecordError(f"the message names table {message.get('table')!r}, its topic {table!r}")
    base = message.get("base")
    if base is not None:
        if (not isinstance(base, dict) or isinstance(base.get("upto"), bool) or not isinstance(base.get("upto"), int)
                or base["upto"] < 0 or not isinstance(base.get("state"), dict)
                or not isinstance(base["state"].get("table"), dict)):
            raise RecordError("base must be {upto: int >= 0, state: {table: {...}, faults: [...]}}")
    recs = message.get("records", [])
    if not isinstance(recs, list) or len(recs) > MAX_BATCH:
        raise RecordError(f"records must be a list of at most {MAX_BATCH}")
    out: list[Record] = []
    for i, r in enumerate(recs):
        if not isinstance(r, dict):
            raise RecordError(f"records[{i}] is not an object")
        seq, at, kind, payload = r.get("seq"), r.get("at"), r.get("kind"), r.get("payload")
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
            raise RecordError(f"records[{i}].seq must be an integer >= 1, got {seq!r}")
        if isinstance(at, bool) or not isinstance(at, (int, float)):
            raise RecordError(f"records[{i}].at must be a number, got {at!r}")
        if not isinstance(kind, str) or not kind or len(kind) > 64:
            raise RecordError(f"records[{i}].kind must be a short string")
        if not isinstance(payload, dict):
            raise RecordError(f"records[{i}].payload must be an object")
        out.append((seq, float(at), kind, _canonical(payload)))
    return base, out


@dataclass
class _Table:
    """What the room holds in memory of one table (as of its last commit)."""

    applied: int
    state: TableState  # every _Table starts from a base state
    book: FaultBook
    hands: int


class Room:
    """Store and replay the tables' records into one :class:`room.store.Store`.

    Args:
        store: the room's store.
        clock: Unix seconds (stamps ``received_at``).
        on_applied: ``f(table, ack)`` called after each commit (the service publishes the ack).

    Thread model: one caller at a time (the service's worker thread).
    """

    def __init__(self, store: Store, clock: Callable[[], float],
                 on_applied: Callable[[str, Ack], None] | None = None) -> None:
        self.store = store
        self.clock = clock
        self.on_applied = on_applied
        self._tables: dict[str, _Table] = {}
        #: ``batches``: transactions; ``held``: messages the room held all of already (no
        #: transaction); ``records_new``/``records_dup``: records stored / already held.
        self.stats = {"batches": 0, "held": 0, "records_new": 0, "records_dup": 0, "applied": 0, "skipped": 0}
        #: ``f(tx, table, seq, at, before, after)`` after each table event applied (issue 18's
        #: players and seats, room/players.py), in the batch's transaction.
        self.observers: list[Callable[..., None]] = []

    def _load(self, table: str) -> _Table | None:
        t = self._tables.get(table)
        if t is not None:
            return t
        row = self.store.table_row(table)
        if row is None or row["base_state"] is None:
            return None
        data = row["state"] or {"table": row["base_state"]["table"], "faults": row["base_state"].get("faults", [])}
        book = FaultBook()
        for f in row["faults"] if row["state"] else data.get("faults", []):
            book = book.raise_fault(f["kind"], f["message"], f["since"])
        t = _Table(row["applied_upto"], TableState.from_json(data["table"]), book, row["hands"])
        self._tables[table] = t
        return t

    def ack(self, table: str) -> Ack:
        """Return the room's acknowledgement for ``table`` as of its last commit."""
        t = self._load(table)
        if t is None:
            return Ack(table, 0, False)
        return Ack(table, t.applied, True)

    def receive(self, table: str, base: dict[str, Any] | None, records: Sequence[Record]) -> Ack:
        """Store ``records`` (and ``base``) of ``table``, apply what follows without a gap,
        commit, and return the acknowledgement.

        Records at or below the acknowledged seq are left out (they are committed); a message
        of nothing else is acknowledged again without a transaction. ``records`` may be several
        messages' records together, in any order, with duplicates.

        Raises:
            room.store.StoreError: the database failed; nothing of the batch was committed
                (the table sends it again).
        """
        now = self.clock()
        cur = self._load(table)
        if cur is not None:
            # What the room applied is committed: a table's resend of it costs no transaction (a
            # room that lags behind its tables gets their resends; each one must stay cheap).
            fresh = [r for r in records if r[0] > cur.applied]
            self.stats["records_dup"] += len(records) - len(fresh)
            records = fresh
            if not records:
                self.stats["held"] += 1
                ack = self.ack(table)
                if self.on_applied is not None:
                    self.on_applied(table, ack)
                return ack
        try:
            with self.store.transaction() as tx:
                tx.ensure_table(table)
                if base is not None and cur is None:
                    state = TableState.from_json(base["state"]["table"])
                    book = FaultBook()
                    for f in base["state"].get("faults", []):
                        book = book.raise_fault(f["kind"], f["message"], f["since"])
                    cur = _Table(int(base["upto"]), state, book, 0)
                    tx.execute("UPDATE room_tables SET base_upto = ?, base_state = ?, applied_upto = ?"
                               " WHERE table_id = ?", (cur.applied, _canonical(base["state"]), cur.applied, table))
                new = tx.insert_records(table, records, now) if records else 0
                self.stats["records_new"] += new
                self.stats["records_dup"] += len(records) - new
                work = None
                if cur is not None:
                    work = _Table(cur.applied, cur.state, cur.book, cur.hands)
                    self._apply_stored(tx, table, work, records)
            # committed: what is in memory now matches the store
            if work is not None:
                self._tables[table] = work
        except BaseException:
            self._tables.pop(table, None)  # reload from the store next time
            raise
        self.stats["batches"] += 1
        ack = self.ack(table)
        if self.on_applied is not None:
            self.on_applied(table, ack)
        return ack

    # ------------------------------------------------------------------ replay
    def _apply_stored(self, tx: Any, table: str, t: _Table, batch: Sequence[Record]) -> None:
        start = t.applied
        ordered = sorted({r[0]: r for r in batch}.values())
        if ordered and ordered[0][0] == t.applied + 1 and ordered[-1][0] - ordered[0][0] + 1 == len(ordered):
            seqs = ordered  # the usual case: the batch follows on, nothing beyond it was waiting
            more = tx.execute("SELECT 1 FROM room_records WHERE table_id = ? AND seq = ?",
                              (table, ordered[-1][0] + 1)).fetchone()
        else:
            more = True
        if more:
            # Records stored earlier beyond a gap: read all that follows the applied position.
            rows = tx.execute(
                "SELECT seq, at, kind, payload FROM room_records WHERE table_id = ? AND seq > ? ORDER BY seq",
                (table, t.applied)).fetchall()
            seqs = [(int(s), float(a), str(k), str(p)) for s, a, k, p in rows]
        first_at = last_at = None
        for seq, at, kind, payload in seqs:
            if seq <= t.applied:
                continue
            if seq != t.applied + 1:
                break  # a gap: wait for the resend
            self._apply_one(tx, table, t, seq, at, kind, json.loads(payload))
            t.applied = seq
            first_at = first_at if first_at is not None else at
            last_at = at
        if t.applied == start:
            return
        self.stats["applied"] += t.applied - start
        st = t.state
        assert st is not None
        led = st.ledger
        settings = st.settings
        tx.execute(
            "UPDATE room_tables SET applied_upto = ?, state = ?, faults = ?, total_in = ?, total_out = ?,"
            " rake = ?, hands = ?, first_at = COALESCE(first_at, ?), last_at = ?, name = ?, game = ?,"
            " stakes = ? WHERE table_id = ?",
            (t.applied, _canonical({"table": st.to_json(), "faults": [f.to_json() for f in t.book.open]}),
             _canonical([f.to_json() for f in t.book.open]), led.total_in, led.total_out, led.rake,
             t.hands, first_at, last_at, settings.name, settings.game,
             _canonical({"limit": settings.limit, "sb": settings.small_blind, "bb": settings.big_blind,
                         "ante": settings.ante, "seats": settings.seats}), table))

    def _apply_one(self, tx: Any, table: str, t: _Table, seq: int, at: float, kind: str,
                   payload: dict[str, Any]) -> None:
        if kind == "table":
            before = t.state
            try:
                t.state, effects = step(t.state, event_from_json(payload))
            except Exception as exc:  # the live table refused it too (its "rejected" record)
                self.stats["skipped"] += 1
                log.warning("table %s record %d (%s) not applied, as at the table: %s",
                            table, seq, payload.get("kind"), exc)
                return
            for e in effects:
                if isinstance(e, (fx.HandFinished, fx.HandShown)) and e.record:
                    self._hand(tx, table, t, seq, e.record, isinstance(e, fx.HandFinished))
            if before is not None and before.ledger is not t.state.ledger:
                self._movements(tx, table, seq, at, before.ledger, t.state.ledger)
            for observe in self.observers:
                observe(tx, table, seq, at, before, t.state)
        elif kind == "fault-raised":
            raised = t.book.raise_fault(payload["kind"], payload["message"], at)
            if raised is not t.book:
                t.book, t.state = raised, replace(t.state, seq=t.state.seq + 1)
            tx.execute("INSERT INTO room_faults(table_id, seq, at, event, kind, detail) VALUES (?,?,?,?,?,?)"
                       " ON CONFLICT (table_id, seq) DO NOTHING",
                       (table, seq, at, "raised", payload["kind"], _canonical(payload)))
        elif kind == "fault-ended":
            try:
                t.book, _ = t.book.end(payload["kind"], payload["exit"], by=payload["by"], at=payload["at"],
                                       note=payload.get("note", ""))
                t.state = replace(t.state, seq=t.state.seq + 1)
            except FaultError:
                pass
            tx.execute("INSERT INTO room_faults(table_id, seq, at, event, kind, detail) VALUES (?,?,?,?,?,?)"
                       " ON CONFLICT (table_id, seq) DO NOTHING",
                       (table, seq, at, "ended", payload["kind"], _canonical(payload)))

    def _hand(self, tx: Any, table: str, t: _Table, seq: int, record: dict[str, Any], first: bool) -> None:
        res = record.get("result") or {}
        number = int(record.get("hand") or 0)
        pot = sum(int(a.get("amount") or 0) for a in res.get("awards") or [])
        if first:
            exists = tx.execute("SELECT 1 FROM room_hands WHERE table_id = ? AND number = ?",
                                (table, number)).fetchone()
            if exists is None:
                t.hands += 1
        tx.execute(
            "INSERT INTO room_hands(table_id, number, seq, started_at, ended_at, voided, pot, rake, record)"
            " VALUES (?,?,?,?,?,?,?,?,?) ON CONFLICT (table_id, number) DO UPDATE SET seq = excluded.seq,"
            " ended_at = excluded.ended_at, voided = excluded.voided, pot = excluded.pot,"
            " rake = excluded.rake, record = excluded.record",
            (table, number, seq, record.get("started"), float(record.get("ended") or 0.0),
             1 if record.get("voided") else 0, pot, int(res.get("rake") or 0), _canonical(record)))
        for s in record.get("seats") or []:
            tx.execute("INSERT INTO room_hand_players(table_id, number, seat, player, name) VALUES (?,?,?,?,?)"
                       " ON CONFLICT (table_id, number, seat) DO NOTHING",
                       (table, number, int(s.get("seat") or 0), str(s.get("player") or ""), str(s.get("name") or "")))

    def _movements(self, tx: Any, table: str, seq: int, at: float, old: Any, new: Any) -> None:
        if old.total_in == new.total_in and old.total_out == new.total_out:
            return
        for player, acct in new.accounts.items():
            prev = old.accounts.get(player)
            chips_in = acct.bought_in + acct.topped_up - ((prev.bought_in + prev.topped_up) if prev else 0)
            chips_out = acct.cashed_out - (prev.cashed_out if prev else 0)
            if chips_in or chips_out:
                tx.execute("INSERT INTO room_movements(table_id, seq, player, at, chips_in, chips_out)"
                           " VALUES (?,?,?,?,?,?) ON CONFLICT (table_id, seq, player) DO NOTHING",
                           (table, seq, player, at, chips_in, chips_out))
