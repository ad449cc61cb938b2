"""Journal compaction (controller.compaction, Journal.compact): the live journal keeps its last
hands, older hands leave it only with their histories safely written, recovery and recall
are unchanged, and a kill -9 at any stage recovers (issue 9).

Tables are played in-process on a manual clock (tests/controller/test_history_support.py):
the production orchestrator, journal, internal dealer and simulated players.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import tomllib

import pytest

from controller import compaction
from controller.devices import HistoryWriter
from controller.compaction import JournalKeeper, history_files
from controller.engine.table.audit import audit
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import TableState
from controller.history import HistoryError, recall
from controller.journal import Journal
from controller.orchestrator import Orchestrator
from controller.runtime import open_table

from tests.controller.test_history_support import Table

SETTINGS = TableSettings(id="keep", name="Keep", seats=4, small_blind=50, big_blind=100,
                         rake_percent=5.0, rake_caps=((2, 300),))


def _table(tmp_path, *, keep: int | None = None, every: int = 5, writer: bool = False) -> tuple[Table, JournalKeeper | None]:
    t = Table(tmp_path / "j.sqlite", SETTINGS, seats=[1, 2, 3, 4], seed=11)
    t.orch._snapshot(t.clock())  # noqa: SLF001 - as open_table does on a fresh journal
    if writer:  # the live table's history writer, as livetable run has it
        hw = HistoryWriter(tmp_path / "hands")
        t.orch.listeners.insert(0, lambda orch, effects: [hw.write(e.hand, e.record) for e in effects
                                                         if type(e).__name__ == "HandFinished"])
    keeper = None
    if keep is not None:
        keeper = JournalKeeper(t.journal, keep_hands=keep, history_dir=tmp_path / "hands", every=every)
        t.orch.listeners.append(keeper)
    return t, keeper


def _hands_in_journal(path) -> list[int]:
    return [h.number for h in recall(path, hands=10_000).hands]


def _file_record(tmp_path, n: int) -> dict:
    js, phh = history_files(tmp_path / "hands", n)
    tomllib.loads(phh.read_text())  # the PHH file is whole
    return json.loads(js.read_text())


def test_the_journal_keeps_its_last_hands_and_older_ones_are_in_history_files(tmp_path):
    t, keeper = _table(tmp_path, keep=10, every=5)
    records = t.play(40)
    assert keeper.runs, "nothing was compacted"
    kept = _hands_in_journal(t.journal.path)
    assert kept == list(range(kept[0], 41)) and 10 <= len(kept) < 10 + 5
    # Every hand that left the journal is in history_dir exactly as the table recorded it
    # (rebuilt by replaying the journal: no history writer ran in this table).
    by_hand = {r["hand"]: r for r in records}
    for n in range(1, kept[0]):
        assert _file_record(tmp_path, n) == json.loads(json.dumps(by_hand[n], sort_keys=True))
    assert t.journal.compacted_upto == keeper.runs[-1].upto
    assert t.journal.check() == []
    with pytest.raises(HistoryError, match="compacted: see hand-000003.phh"):
        recall(t.journal.path, hand=3)
    # The seqs go on where they were.
    last = t.journal.last_seq
    assert t.journal.append("x", {}, 0) == last + 1
    t.close()


def test_recovery_from_a_compacted_journal_is_the_live_table(tmp_path):
    t, keeper = _table(tmp_path, keep=6, every=3)
    t.play(25)
    t.play_until(lambda o: o.state.hand is not None and o.state.hand.street.value == "flop")
    live = t.orch.state.to_json()
    path = t.journal.path
    t.close()
    with Journal(path) as j:
        assert j.compacted_upto > 0 and j.check() == []
        orch = Orchestrator.recover(j, lambda: TableState.new(SETTINGS), clock=t.clock)
        assert orch.state.to_json() == live
        assert audit(orch.state) == []


def test_start_up_counts_the_events_it_replayed_not_the_journals_last_seq(tmp_path):
    """After compaction the journal's seqs go on while recovery replays only the events after
    its newest snapshot: start-up logged "70,798 events replayed" for a few hands' replay."""
    t, keeper = _table(tmp_path, keep=6, every=3)
    t.orch.snapshot_every = 5
    t.play(40)
    t.play_until(lambda o: o.state.hand is not None and o.state.hand.street.value == "flop")
    path = t.journal.path
    t.close()
    with Journal(path) as j:
        since, _snap = j.latest_snapshot()
        after = [e.seq for e in j.entries(after=since)]
        last = j.last_seq
    assert keeper.runs and j.compacted_upto > 0
    orch, rec = open_table(path, SETTINGS, clock=t.clock, history_dir=tmp_path / "hands")
    try:
        assert (rec.events, rec.since, rec.upto) == (len(after), since, last)
        assert 0 < rec.events < last // 4  # a few hands, the journal's last seq far above it
        assert f"({len(after)} events replayed from the snapshot at event {since:,})" in str(rec)
        entry = list(orch.journal.entries(after=last))[0]  # the restart's own journal entry
        assert (entry.kind, entry.payload["events_replayed"]) == ("recovery", len(after))
    finally:
        orch.journal.close()


def test_histories_the_table_wrote_are_kept_as_they_are_and_torn_ones_rebuilt(tmp_path):
    t, _ = _table(tmp_path, writer=True)
    records = t.play(12)
    js3, phh3 = history_files(tmp_path / "hands", 3)
    js3.write_text(js3.read_text()[:40])  # torn by a power cut while it was written
    phh5 = history_files(tmp_path / "hands", 5)[1]
    phh5.unlink()
    before = {n: history_files(tmp_path / "hands", n)[0].stat().st_mtime_ns for n in (1, 2, 4)}
    keeper = JournalKeeper(t.journal, keep_hands=4, history_dir=tmp_path / "hands", every=1)
    done = keeper.run()
    assert done is not None and (done.first, done.last) == (1, 8)
    assert done.rewritten == (3, 5)
    for n in (1, 2, 4):  # the writer's own files were recognised, not rewritten
        assert history_files(tmp_path / "hands", n)[0].stat().st_mtime_ns == before[n]
    assert _file_record(tmp_path, 3) == json.loads(json.dumps(records[2], sort_keys=True))
    assert _file_record(tmp_path, 5)["hand"] == 5
    assert _hands_in_journal(t.journal.path) == [9, 10, 11, 12]
    t.close()


def test_nothing_leaves_the_journal_when_its_histories_cannot_be_written(tmp_path):
    blocker = tmp_path / "hands"
    blocker.write_text("not a folder")
    t, keeper = _table(tmp_path, keep=3, every=1)
    t.play(8)  # the table plays on
    assert keeper.runs == [] and t.journal.compacted_upto == 0
    assert _hands_in_journal(t.journal.path) == list(range(1, 9))
    t.close()


def test_a_history_that_cannot_be_rebuilt_keeps_its_hands_in_the_journal(tmp_path):
    t, _ = _table(tmp_path)
    t.play(12)
    seq = next(e.seq for e in t.journal.entries(kinds=("table",)) if e.payload.get("kind") == "action-taken")
    t.journal._db.execute("UPDATE events SET payload = '{\"kind\": \"action-taken\"}' WHERE seq = ?",  # noqa: SLF001
                          (seq,))
    keeper = JournalKeeper(t.journal, keep_hands=4, history_dir=tmp_path / "hands", every=1)
    assert keeper.run() is None  # logged; the table's loop never sees an exception
    assert t.journal.compacted_upto == 0 and next(t.journal.entries()).seq == 1
    t.close()


def test_compact_refuses_a_point_that_is_not_between_hands(tmp_path):
    t, _ = _table(tmp_path)
    t.play(3)
    j = t.journal
    index = j.snapshot_index()
    with pytest.raises(ValueError, match="no between-hands snapshot"):
        j.compact(index[-1][0] - 1)
    with pytest.raises(ValueError, match="newest"):
        j.compact(j.last_seq + 1)
    assert j.compacted_upto == 0 and next(j.entries()).seq == 1
    t.close()


def test_compacted_right_after_its_last_event_the_seqs_go_on(tmp_path):
    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        for i in range(4):
            j.append("x", {"i": i}, i)
        j.snapshot({"table": {"hand": None, "hands": 0}}, 4)
        assert j.compact(4) == 4
    with Journal(path) as j:
        assert j.last_seq == 4 and j.check() == []
        assert j.append("x", {}, 5) == 5
    db = sqlite3.connect(path)
    db.execute("DELETE FROM snapshots")
    db.commit()
    db.close()
    with Journal(path) as j:
        assert any("snapshot there is missing" in p for p in j.check())


# ---------------------------------------------------------------------------- kill -9

def _kill_self() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _child(path, hands_dir, where: str) -> int:
    """Fork a child that opens the journal and compacts it, killed with SIGKILL at ``where``."""
    pid = os.fork()
    if pid == 0:
        try:
            j = Journal(path, durable=True)
            keeper = JournalKeeper(j, keep_hands=4, history_dir=hands_dir, every=1)
            if where.startswith("file-"):
                n, real = int(where.split("-")[1]), compaction._atomic_write
                count = [0]

                def write(p, text):
                    if count[0] == n:
                        with open(p, "w") as f:  # half a file, then the power goes
                            f.write(text[: len(text) // 2])
                        _kill_self()
                    count[0] += 1
                    real(p, text)
                compaction._atomic_write = write
            elif where == "commit":
                j._db.set_trace_callback(lambda sql: _kill_self() if sql.strip().upper() == "COMMIT" else None)
            elif where == "after":
                real_compact = j.compact
                j.compact = lambda upto: (real_compact(upto), _kill_self())
            keeper.run()
        finally:
            os._exit(3)
    _, status = os.waitpid(pid, 0)
    return status


@pytest.mark.parametrize("where", ["file-0", "file-5", "commit", "after"])
def test_kill_minus_nine_during_compaction_recovers(tmp_path, where):
    t, _ = _table(tmp_path)
    records = t.play(12)
    t.play_until(lambda o: o.state.hand is not None)
    live = t.orch.state.to_json()
    path = t.journal.path
    t.close()
    hands_dir = tmp_path / "hands"
    status = _child(path, hands_dir, where)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, status
    with Journal(path) as j:
        assert j.check() == []
        compacted = j.compacted_upto
        assert (compacted > 0) == (where == "after")  # before the commit nothing was deleted
        orch = Orchestrator.recover(j, lambda: TableState.new(SETTINGS), clock=t.clock)
        assert orch.state.to_json() == live
        # The next run finishes the job; every hand that left the journal has its history.
        again = JournalKeeper(j, keep_hands=4, history_dir=hands_dir, every=1).run()
        assert (again is None) == (where == "after")
        assert j.check() == []
        orch = Orchestrator.recover(j, lambda: TableState.new(SETTINGS), clock=t.clock)
        assert orch.state.to_json() == live
    kept = _hands_in_journal(path)
    assert kept[0] == 9
    for n in range(1, 9):
        assert _file_record(tmp_path, n) == json.loads(json.dumps(records[n - 1], sort_keys=True))
    assert not list(hands_dir.glob("*.tmp")) or where.startswith("file-")


def test_a_hand_file_is_replaced_whole_or_not_at_all(tmp_path, monkeypatch, caplog):
    """The live table's history writer rewrites a hand (P-2: the winner showed after the
    hand) through a temporary file: a write that fails half-way (a full SD card, a power
    cut before the data reached the card) leaves the old files whole and no stray file."""
    t, _ = _table(tmp_path, writer=True)
    t.play(2)
    t.close()
    before = {p.name: p.read_bytes() for p in (tmp_path / "hands").iterdir()}
    first = _file_record(tmp_path, 1)
    changed = {**first, "shown": {"9": ["As", "Kd"]}}

    def fail(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(compaction.os, "fsync", fail)
    HistoryWriter(tmp_path / "hands").write(1, changed)
    assert "could not write hand 1" in caplog.text and "No space left" in caplog.text
    assert {p.name: p.read_bytes() for p in (tmp_path / "hands").iterdir()} == before
    monkeypatch.undo()
    HistoryWriter(tmp_path / "hands").write(1, changed)
    assert _file_record(tmp_path, 1) == changed


def test_a_temporary_hand_file_left_by_a_kill_is_removed_after_start_once_a_minute_old(tmp_path):
    """kill -9 between writing a hand file's temporary copy and renaming it leaves the copy;
    the next run removes it, but not one a writer may still be filling (under a minute): on
    the writer's own thread after its first hand, never before READY (issue 21: the folder
    of 50,000 hands' files was listed at start-up)."""
    hands = tmp_path / "hands"
    hands.mkdir()
    old, fresh = hands / "hand-000007.json.123-456.tmp", hands / "hand-000008.json.123-456.tmp"
    kept = hands / "hand-000007.json"
    for p in (old, fresh, kept):
        p.write_text("{}")
    two_minutes_ago = os.stat(old).st_mtime - 120
    os.utime(old, (two_minutes_ago, two_minutes_ago))
    os.utime(kept, (two_minutes_ago, two_minutes_ago))
    writer = HistoryWriter(hands)
    assert old.exists() and not writer.tidied.is_set()  # start-up leaves the folder alone
    writer.write(9, {"hand": 9, "table": "t"})
    assert writer.tidied.wait(10)
    assert sorted(p.name for p in hands.iterdir()) == [kept.name, fresh.name, "hand-000009.json"]
