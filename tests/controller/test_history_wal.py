"""``livetable history`` stopped mid-replay must not keep the table's WAL from being reset.

The recall read one moment of the journal in one read transaction held for its whole
replay: a reader SIGSTOPped (or blocked on a full pipe) mid-replay kept SQLite from
resetting the journal's ``-wal`` file, which grew to 60.7 MB over 300 hands of a live table.
The recall now copies the journal in one short read transaction (SQLite's backup API) and
replays the copy. The reader is paused mid-replay by a hook (no sleeps, no timing) while
the table commits and checkpoints.
"""

from __future__ import annotations

import os
import sqlite3

from controller import history
from controller.engine.table import events as ev
from controller.history import recall

from tests.controller.test_compaction import _table


def test_a_reader_paused_mid_replay_lets_the_table_reset_its_wal(tmp_path, monkeypatch):
    t, _ = _table(tmp_path)
    t.play(6)
    path = tmp_path / "j.sqlite"
    assert os.path.getsize(f"{path}-wal") > 0  # the hands are in the WAL, as on a live table
    real, seen = history.step, []

    def paused(state, event):  # the reader stopped here, mid-replay: the table goes on meanwhile
        if len(seen) == 40:
            t.orch.post(ev.SatOut(at=t.clock(), seat=2))  # the table commits an event
            t.orch.pump()
            db = sqlite3.connect(path, timeout=0)  # busy answers at once
            try:
                seen.append(db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone())
            finally:
                db.close()
            seen.append(os.path.getsize(f"{path}-wal"))
        seen.append(None)
        return real(state, event)

    monkeypatch.setattr(history, "step", paused)
    hands = recall(path, hands=6).hands
    assert [h.number for h in hands] == list(range(1, 7))  # the journal as it was when the recall began
    busy, _frames, _copied = seen[40]
    assert busy == 0 and seen[41] == 0, seen[40:42]  # the WAL was reset to nothing while the reader paused
    monkeypatch.setattr(history, "step", real)
    assert recall(path, hands=6).hands[-1].steps[-1].data.get("event") == "sat-out"  # the table's event, read after
    t.close()


def test_a_journal_over_the_copy_limit_is_read_in_place_as_one_moment(tmp_path, monkeypatch):
    """Past ``COPY_LIMIT`` bytes (a journal that keeps every event) the recall does not copy
    the journal into memory; it reads it in place, in one read transaction: an event the table
    commits mid-replay is not in this recall, and is in the next."""
    from controller import history_journal

    t, _ = _table(tmp_path)
    t.play(4)
    path = tmp_path / "j.sqlite"
    monkeypatch.setattr(history_journal, "COPY_LIMIT", 1)
    real, seen = history.step, []

    def paused(state, event):
        if len(seen) == 20:
            t.orch.post(ev.SatOut(at=t.clock(), seat=2))
            t.orch.pump()
        seen.append(None)
        return real(state, event)

    monkeypatch.setattr(history, "step", paused)
    db = history_journal.copy_journal(path)
    assert db.execute("PRAGMA database_list").fetchone()[2].endswith("j.sqlite")  # the file, not a copy
    db.close()
    hands = recall(path, hands=4).hands
    assert [h.number for h in hands] == [1, 2, 3, 4]
    assert all(s.data.get("event") != "sat-out" for s in hands[-1].steps)  # committed after the moment
    monkeypatch.setattr(history, "step", real)
    assert recall(path, hands=4).hands[-1].steps[-1].data.get("event") == "sat-out"
    t.close()
