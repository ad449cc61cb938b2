"""A hand of the room's archive replayed step by step, as ``livetable history`` does (issue 17).

The room holds every record of a table's journal and the journal's base snapshot, so it can
rebuild the journal's shape in memory (``events``, ``snapshots``, ``meta``) and ask the
table's own recall (:mod:`controller.history`) for the hand: the steps the floor reads at
the table (who did what, when, with the pot and the stacks) are the same at the room.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from controller.history import HistoryError, _recall, format_hand
from room.store import Store

__all__ = ["hand_steps"]

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE events (seq INTEGER PRIMARY KEY, at REAL NOT NULL, kind TEXT NOT NULL, payload TEXT NOT NULL);
CREATE TABLE snapshots (upto INTEGER PRIMARY KEY, at REAL NOT NULL, state TEXT NOT NULL);
"""


def hand_steps(store: Store, table: str, number: int, *, utc: bool = False) -> dict[str, Any] | None:
    """Return hand ``number`` of ``table`` step by step: ``{"text": str (as livetable history
    prints it), "hand": {...} (its JSON)}``, or None when the archive lacks the hand.

    Raises:
        controller.history.HistoryError: the records cannot be replayed.
    """
    row = store.table_row(table)
    found = store.query("SELECT seq FROM room_hands WHERE table_id = ? AND number = ?", (table, number))
    if row is None or row["base_state"] is None or not found:
        return None
    nxt = store.query("SELECT MIN(seq) FROM room_hands WHERE table_id = ? AND number > ?", (table, number))
    upto = int(nxt[0][0]) if nxt and nxt[0][0] is not None else row["applied_upto"]
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(_SCHEMA)
        db.execute("INSERT INTO meta VALUES ('format', '1')")
        if row["base_upto"]:
            db.execute("INSERT INTO meta VALUES ('compacted_upto', ?)", (str(row["base_upto"]),))
        db.execute("INSERT INTO snapshots VALUES (?, 0, ?)", (row["base_upto"], json.dumps(row["base_state"])))
        after = row["base_upto"]
        while after < upto:
            recs = store.records(table, after, limit=5000)
            recs = [r for r in recs if r[0] <= upto]
            if not recs:
                break
            db.executemany("INSERT INTO events VALUES (?, ?, ?, ?)", recs)
            after = recs[-1][0]
        try:
            rec = _recall(db, hands=1, hand=number, settings=None)
        except sqlite3.Error as exc:
            raise HistoryError(f"table {table} hand {number}: {exc}") from None
    finally:
        db.close()
    if not rec.hands:
        return None
    h = rec.hands[0]
    return {"text": format_hand(h, utc=utc), "hand": h.to_json()}
