"""A journal compaction that keeps failing: what the log says, and the deletion of the
compacted rows counted as compaction is (docs/faults.md, "A journal compaction that keeps
failing").

The log had an ERROR line at every hand (803 over an 800-hand run); now the first failure,
the floor's status taking it (``FAILING_AFTER`` in a row), at most one line per
``log_every`` failures or ``log_seconds`` after that, and the end ("works again after N
failures in a row"). A deletion step (:meth:`JournalKeeper.purge`) that kept failing was
only logged: it is now in the floor's status as a failing compaction is.
"""

from __future__ import annotations

import logging
import sqlite3
from typing import Any

import pytest

from controller.clock import ManualClock
from controller.compaction import FAILING_AFTER, LOG_EVERY_FAILURES, JournalKeeper
from controller.engine.table.settings import TableSettings
from controller.floor import FloorDesk
from controller.journal import JournalError

from tests.controller.test_history_support import Table

SETTINGS = TableSettings(id="log", name="Log", seats=4, small_blind=50, big_blind=100)
SEATS = [1, 2, 3, 4]
WAIT = 30.0  # seconds: a bound on waiting for the keeper's thread, never a synchronisation


def _lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.name == "livetable.compaction" and r.levelno >= logging.WARNING]


def test_a_compaction_failing_on_200_hands_logs_6_lines_not_200(tmp_path, caplog):
    broken = [True]
    t = Table(tmp_path / "j.sqlite", SETTINGS, seats=SEATS, seed=3)
    t.orch._snapshot(t.clock())  # noqa: SLF001 - as open_table does on a fresh journal
    wall = ManualClock(start=2_000_000_000.0)  # still: the lines here are the failures' count's
    keeper = JournalKeeper(t.journal, keep_hands=5, history_dir=tmp_path / "hands", every=5, wall=wall)
    real = keeper.plan

    def plan(journal: Any = None) -> Any:  # the journal's older pages, unreadable
        if broken[0]:
            raise sqlite3.DatabaseError("database disk image is malformed")
        return real(journal)

    keeper.plan = plan  # type: ignore[method-assign]
    t.orch.listeners.append(keeper)
    caplog.set_level(logging.INFO, logger="livetable.compaction")
    try:
        t.play(200)
        assert keeper.failures == 200 and keeper.health() is not None
        failing = _lines(caplog)
        # the first, the floor's status taking it (3 in a row), then one per 50: 53, 103, 153
        assert len(failing) == 5, failing
        assert failing[0].startswith("journal compaction failed: database disk image is malformed")
        assert failing[1].startswith(f"journal compaction has failed on {FAILING_AFTER} hands in a row")
        counts = [f"still failing: {n} hands in a row" for n in (53, 103, 153)]
        assert all(c in line for c, line in zip(counts, failing[2:])), failing[2:]
        assert all(f"{LOG_EVERY_FAILURES} since the last line" in line for line in failing[2:])
        broken[0] = False
        t.play(205)
        assert keeper.failures == 0 and keeper.health() is None and keeper.runs
        assert [line for line in _lines(caplog)[5:] if "no between-hands snapshot" not in line] == [
            "journal compaction works again after 200 failures in a row"]
    finally:
        t.close()


def test_a_compaction_still_failing_is_logged_once_per_half_hour_of_slow_hands(tmp_path, caplog):
    """Hands of 10 minutes: a line per 30 minutes (3 failures), not per 50 failures."""
    wall = ManualClock(start=2_000_000_000.0)
    keeper = JournalKeeper(object(), keep_hands=5, history_dir=tmp_path, wall=wall)  # type: ignore[arg-type]
    caplog.set_level(logging.INFO, logger="livetable.compaction")
    for _ in range(12):
        keeper._failed(OSError("No space left on device"))  # noqa: SLF001 - the counting alone
        wall.advance(600.0)
    said = _lines(caplog)
    # 1, 3 (the floor's status), then 30 minutes after each line: 6, 9, 12
    assert len(said) == 5, said
    assert [line.split(" hands in a row")[0][-2:].strip() for line in said[2:]] == ["6", "9", "12"]
    assert all("3 since the last line" in line for line in said[2:])


@pytest.mark.parametrize("background", [False, True])
def test_a_deletion_that_keeps_failing_is_in_the_floors_status_until_it_works(tmp_path, caplog, background):
    t = Table(tmp_path / "j.sqlite", SETTINGS, seats=SEATS, seed=5)
    t.orch._snapshot(t.clock())  # noqa: SLF001 - as open_table does on a fresh journal
    keeper = JournalKeeper(t.journal, keep_hands=5, history_dir=tmp_path / "hands", every=5,
                           background=background, wall=t.clock)
    t.orch.listeners.append(keeper)
    t.orch.journal_status = keeper.health  # as controller.composition.TableRun wires it
    desk = FloorDesk(t.orch, lambda *a: None, clock=t.clock)
    caplog.set_level(logging.INFO, logger="livetable.compaction")
    hand = [0]

    def play() -> None:
        hand[0] += 1
        t.play(hand[0])
        if background:
            assert keeper.wait_prepared(WAIT)

    def left_rows() -> int:  # rows of events that left the journal, not yet deleted
        return t.journal._db.execute(  # noqa: SLF001 - what the deletion is for
            "SELECT COUNT(*) FROM events WHERE seq <= ?", (t.journal.compacted_upto,)).fetchone()[0]

    real = t.journal.purge_step
    broken = [False]

    def purge_step(rows: int) -> int:
        if broken[0]:
            raise JournalError(f"journal {t.journal.path}: compaction failed: database disk image is malformed")
        return real(rows)

    t.journal.purge_step = purge_step  # type: ignore[method-assign]
    try:
        while not keeper.runs:
            play()
        while keeper.purging:  # the first compaction's rows deleted: the deletion works
            play()
        assert left_rows() == 0
        broken[0] = True
        compacted = t.journal.compacted_upto
        while t.journal.compacted_upto == compacted:  # the next compaction, whose rows stay
            play()
        seen = [keeper.deletion_failures]
        assert seen == [1]  # its first step and the hand's end: one failed hand
        while keeper.deletion_failures < FAILING_AFTER:
            assert desk.status()["journal"] is None  # one or two: not yet
            play()
            seen.append(keeper.deletion_failures)
        assert all(b - a <= 1 for a, b in zip(seen, seen[1:])), seen  # one a hand at most
        status = desk.status()
        jn = status["journal"]
        assert jn is not None and jn["compaction"] == "failing" and jn["failures"] == FAILING_AFTER
        assert "deletion" in jn["message"] and "database disk image is malformed" in jn["error"]
        assert status["paused"] is False and status["faults"] == [] and not t.orch.faults.paused
        assert left_rows() > 0
        for _ in range(4):
            play()
        assert keeper.deletion_failures == FAILING_AFTER + 4  # one a hand, however many steps
        broken[0] = False
        play()
        while keeper.purging:
            play()
        assert keeper.deletion_failures == 0 and desk.status()["journal"] is None and left_rows() == 0
        said = _lines(caplog)
        assert sum("deletion" in line and "works again after 7 failures" in line for line in said) == 1
        assert sum("deletion" in line for line in said) == 3  # the first, the status's, the end
    finally:
        keeper.close()
        t.close()
