"""Compaction in the background and behind the room's acknowledgements (issue 21).

The keeper's thread does the file work (history files checked, rebuilt, fsynced) on its own
read-only connection; the table's loop only deletes what was prepared. With an outbox to the
room, nothing after the room's last acknowledged seq leaves the journal.

Tables are played in-process on a manual clock (tests/controller/test_history_support.py):
the production orchestrator, journal, internal dealer and simulated players.
"""

from __future__ import annotations

import threading

from controller import compaction
from controller.compaction import JournalKeeper
from controller.engine.table.settings import TableSettings
from controller.history import recall

from tests.controller.test_history_support import Table

SETTINGS = TableSettings(id="bg", name="Bg", seats=4, small_blind=50, big_blind=100)
WAIT = 30.0  # seconds: a bound on waiting for the keeper's thread, never a synchronisation


def _table(tmp_path, **keeper_args) -> tuple[Table, JournalKeeper]:
    t = Table(tmp_path / "j.sqlite", SETTINGS, seats=[1, 2, 3, 4], seed=5)
    t.orch.snapshot_every = 5
    t.orch._snapshot(t.clock())  # noqa: SLF001 - as open_table does on a fresh journal
    keeper = JournalKeeper(t.journal, keep_hands=5, history_dir=tmp_path / "hands", every=5, **keeper_args)
    t.orch.listeners.append(keeper)
    return t, keeper


def _oldest_event(t: Table) -> int:
    return t.journal._db.execute("SELECT MIN(seq) FROM events").fetchone()[0]  # noqa: SLF001


def test_nothing_the_room_has_not_acknowledged_leaves_the_journal(tmp_path):
    acked = [0]
    t, keeper = _table(tmp_path, acked=lambda: acked[0])
    t.play(30)
    assert keeper.runs == [] and t.journal.compacted_upto == 0  # the room has acknowledged nothing
    # The room acknowledges part of the journal: compaction ends at or before it.
    acked[0] = t.journal.last_seq // 2
    t.play(31)  # (play(n): until n hands have finished in all)
    assert keeper.runs, "nothing was compacted once the room acknowledged"
    assert 0 < t.journal.compacted_upto <= acked[0]
    assert _oldest_event(t) <= acked[0] + 1  # every record after the first unacknowledged one stays
    kept_then = t.journal.compacted_upto
    t.play(41)
    assert t.journal.compacted_upto == kept_then  # no new acknowledgement: nothing more goes
    # Once the room has everything, the journal keeps its last hands only.
    acked[0] = t.journal.last_seq
    t.play(42)
    assert len(recall(t.journal.path, hands=10_000).hands) < 20
    assert t.journal.check() == []
    t.close()


def test_a_prepared_compaction_is_not_deleted_when_the_room_goes_back(tmp_path):
    acked = [10**9]
    t, keeper = _table(tmp_path, acked=lambda: acked[0])
    t.orch.listeners.remove(keeper)  # run by hand here
    t.play(20)
    assert keeper.run() is not None  # planned and deleted at once (the room had everything)
    t.play(35)
    planned = keeper._prepare(t.journal)  # noqa: SLF001 - the next one, prepared off the loop
    assert planned is not None
    acked[0] = planned.upto - 1  # a room store restored from a backup: its acknowledgement went back
    assert keeper.commit(planned) is None
    assert t.journal.compacted_upto < planned.upto
    t.close()


def test_the_file_work_runs_on_the_keepers_thread_and_the_table_plays_on_meanwhile(tmp_path, monkeypatch):
    t, keeper = _table(tmp_path, background=True)
    release, reached = threading.Event(), threading.Event()
    on: list[str] = []
    fsync = compaction._fsync  # noqa: SLF001

    def slow_fsync(path):
        on.append(threading.current_thread().name)
        reached.set()
        release.wait(WAIT)  # a slow disk: the keeper's thread waits here
        fsync(path)

    monkeypatch.setattr(compaction, "_fsync", slow_fsync)
    deleted_on: list[str] = []
    compact = t.journal.compact

    def spy(upto):
        deleted_on.append(threading.current_thread().name)
        return compact(upto)

    monkeypatch.setattr(t.journal, "compact", spy)
    t.play(15)  # due: the keeper's thread starts preparing and blocks on the disk
    assert reached.wait(WAIT)
    t.play(25)  # the table's loop does not wait for it (the old keeper ran on the loop: this hung)
    assert on and set(on) == {"journal-keeper"}
    assert keeper.runs == [] and t.journal.compacted_upto == 0
    release.set()
    assert keeper.wait_prepared(WAIT)
    t.play(26)  # the loop deletes what was prepared at its next event
    assert keeper.runs and deleted_on == [threading.current_thread().name] * len(deleted_on)
    assert t.journal.compacted_upto == keeper.runs[-1].upto
    # What left the journal is in the history files, whole.
    first_kept = recall(t.journal.path, hands=10_000).hands[0].number
    for n in range(1, first_kept):
        assert all(p.exists() for p in compaction.history_files(tmp_path / "hands", n))
    keeper.close()
    assert t.journal.check() == []
    t.close()


def test_in_the_background_the_journal_keeps_its_last_hands_and_shrinks(tmp_path):
    t, keeper = _table(tmp_path, background=True)
    for n in range(1, 9):
        t.play(5 * n)
        assert keeper.wait_prepared(WAIT)
    t.play(41)
    kept = [h.number for h in recall(t.journal.path, hands=10_000).hands]
    assert keeper.runs and kept[-1] == 41 and len(kept) <= 5 + 5 + 5
    assert t.journal.free_pages()[0] == 0 or keeper.shrink() >= 0  # vacuum steps run a hand at a time
    keeper.close()
    assert t.journal.check() == []
    t.close()


def test_livetable_run_compacts_in_the_background_behind_its_outbox(tmp_path):
    """The composition livetable run and simulate share (controller/composition.py): the
    keeper works in the background, and once the outbox starts it waits for the room."""
    from types import SimpleNamespace

    from controller.clock import ManualClock
    from controller.composition import TableRun
    from controller.devices.build import DeviceChoice

    choice = DeviceChoice(table="bg", seats=4, mqtt=False, history_dir=str(tmp_path / "hands"))
    run = TableRun(SETTINGS, tmp_path / "j.sqlite", choice, clock=ManualClock(), keep_hands=5)
    run.open()
    try:
        assert run.keeper in run.orch.listeners and run.keeper.background
        assert run.keeper.acked is None  # no room: nothing to wait for
        link = SimpleNamespace(acked=0)  # the outbox's acknowledged seq (RoomLink.acked)
        run.room_outbox(link)
        assert run.keeper.acked() == 0
        link.acked = 42  # the room acknowledges
        assert run.keeper.acked() == 42
    finally:
        run.close()
