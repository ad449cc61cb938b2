"""The journal's checkpoints run on a thread of their own, never inside a commit of the
table's loop (issue 21: SQLite's automatic checkpoint ran in the append that crossed 1,000
pages, with two more syncs, on the loop), and the ``-wal`` is written over from its start
after each; the loop's appends stay durable (``synchronous=FULL``)."""

from __future__ import annotations

import sqlite3
import threading

from controller import journal as journal_mod
from controller.journal import Journal

WAIT = 30.0  # seconds: a bound on waiting for the checkpointer's thread, never a synchronisation


def _wal_frames(path) -> int:
    """Frames in the -wal since its last restart (a passive checkpoint of nothing new)."""
    db = sqlite3.connect(path)
    try:
        return db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()[0][1]
    finally:
        db.close()


def test_the_checkpoint_runs_on_its_own_thread_and_the_wal_starts_over(tmp_path, monkeypatch):
    monkeypatch.setattr(journal_mod, "CHECKPOINT_EVERY", 40)
    path = tmp_path / "j.sqlite"
    j = Journal(path)
    try:
        assert j._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0  # noqa: SLF001 - none in a commit
        assert j._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # noqa: SLF001 - FULL: durable
        threads: list[str] = []
        real = sqlite3.connect

        def spy(*args, **kwargs):  # the checkpointer's connection is made on its own thread
            threads.append(threading.current_thread().name)
            return real(*args, **kwargs)

        monkeypatch.setattr(journal_mod.sqlite3, "connect", spy)
        for n in range(40):  # the 40th asks for a checkpoint
            j.append("table", {"kind": "x", "n": n}, float(n))
        assert j.checkpointer is not None and j.checkpointer.wait_done(1, WAIT)
        assert threads == ["journal-checkpoint"]
        for n in (40, 41):  # the writer's next commits start the -wal over (it had every frame)
            j.append("table", {"kind": "x", "n": n}, float(n))
        assert _wal_frames(path) <= 2  # written over from its start, not grown past 40 frames
        assert j._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # noqa: SLF001
        assert [e.payload["n"] for e in j.entries()] == list(range(42))
    finally:
        j.close()
    with Journal(path) as again:
        assert again.check() == [] and again.last_seq == 42


def test_appends_back_to_back_never_let_the_wal_grow_without_end(tmp_path, monkeypatch):
    """No pause for the checkpointer's thread: the loop checkpoints itself after 3/2 x
    CHECKPOINT_EVERY pages with no whole checkpoint (what SQLite's own would have done)."""
    monkeypatch.setattr(journal_mod, "CHECKPOINT_EVERY", 20)
    path = tmp_path / "j.sqlite"
    with Journal(path, durable=False) as j:
        assert j.checkpointer is not None
        monkeypatch.setattr(j.checkpointer, "request", lambda: None)  # a thread that never gets to run
        for n in range(200):
            j.append("table", {"kind": "x", "n": n}, float(n))
        assert _wal_frames(path) <= 41


def test_the_wal_is_written_ahead_before_the_first_append_and_written_over_after(tmp_path):
    """Appends write over blocks the -wal already has (their sync flushes no file-size change)."""
    path = tmp_path / "j.sqlite"
    wal = tmp_path / "j.sqlite-wal"
    with Journal(path) as j:
        j.append("table", {"kind": "x", "n": 0}, 0.0)
        size = wal.stat().st_size
        assert size >= journal_mod.WAL_PREALLOC
        for n in range(1, 200):
            j.append("table", {"kind": "x", "n": n}, float(n))
        assert wal.stat().st_size == size  # written over, never grown
    with Journal(path) as j:  # the zeros after its frames are never read as events
        assert j.check() == [] and [e.payload["n"] for e in j.entries()] == list(range(200))



class _CountingDb:
    """The loop's connection, counting the checkpoints it runs (sqlite3.Connection's methods
    cannot be patched on an instance)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db, self.checkpoints = db, 0

    def execute(self, sql: str, *args):
        self.checkpoints += "wal_checkpoint" in sql
        return self.db.execute(sql, *args)

    def __getattr__(self, name: str):
        return getattr(self.db, name)


def test_a_wal_grown_past_its_write_ahead_is_cut_back_when_it_starts_over(tmp_path, monkeypatch):
    """journal_size_limit: the loop's own whole checkpoint starts the -wal over at the next write,
    and SQLite truncates it back to the write-ahead's size (issue 21/16, breaker J)."""
    frame = 24 + 4096
    monkeypatch.setattr(journal_mod, "CHECKPOINT_EVERY", 10)
    monkeypatch.setattr(journal_mod, "WAL_PREALLOC", 8 * frame)
    path = tmp_path / "j.sqlite"
    wal = tmp_path / "j.sqlite-wal"
    with Journal(path) as j:
        assert j.checkpointer is not None
        monkeypatch.setattr(j.checkpointer, "request", lambda: None)  # the loop's own bound only
        sizes = []
        for n in range(60):
            j.append("table", {"kind": "x", "n": n}, float(n))
            sizes.append(wal.stat().st_size)
        grown = sizes.index(max(sizes))
        # grew past it, bounded: the open's frames (schema, meta) + 3/2 x CHECKPOINT_EVERY and a commit
        assert 8 * frame + 32 < max(sizes) <= sizes[0] + 21 * frame
        assert min(sizes[grown:]) <= 8 * frame + 32  # and cut back to it
        assert [e.payload["n"] for e in j.entries()] == list(range(60))


def test_the_loop_does_not_checkpoint_while_the_checkpointer_keeps_up(tmp_path, monkeypatch):
    """Pauses between bursts (a table's hands): the checkpointer's whole checkpoints start the
    -wal over and the loop's own bound never fires (its hold stays off the loop)."""
    monkeypatch.setattr(journal_mod, "CHECKPOINT_EVERY", 10)
    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        cp = j.checkpointer
        assert cp is not None
        counting = _CountingDb(j._db)  # noqa: SLF001
        j._db = counting  # type: ignore[assignment]  # noqa: SLF001
        for n in range(100):
            j.append("table", {"kind": "x", "n": n}, float(n))
            if (n + 1) % 10 == 0:  # the pause: the checkpointer has its moment
                assert cp.wait_done((n + 1) // 10, WAIT)
        assert counting.checkpoints == 0
        assert _wal_frames(path) <= 12
        j._db = counting.db  # noqa: SLF001
