"""Issue 21: a tournament table's ``clock`` entry at each deal carries the clock, not the
tournament's whole history and settings (13 KB a hand at 10 seats): what it journals a deal
does not grow with the hands played, and a killed table still resumes from it."""

from __future__ import annotations

import json
import signal
import sqlite3
from pathlib import Path

from controller.tournament_run import FULL_STATE_EVERY

from .tourneyrun import check_finished, simulate, summary_of

PLAYERS = 10


def _clocks(journal: Path) -> list[str]:
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        return [p for (p,) in db.execute("SELECT payload FROM events WHERE kind = 'tournament' "
                                         "AND json_extract(payload, '$.type') = 'clock' ORDER BY seq")]
    finally:
        db.close()


def test_the_clock_entry_of_a_deal_carries_the_clock_not_the_whole_history(tmp_path) -> None:
    journal = tmp_path / "journal.sqlite"
    proc = simulate(journal, seed=3, seats=PLAYERS)
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = summary_of(proc)
    hands = summary["hands"]
    assert summary["tournament"]["finished"] and hands >= 5, summary
    clocks = _clocks(journal)
    assert len(clocks) >= hands  # one a deal at least
    full = [c for c in clocks if "history" in json.loads(c)]
    assert len(full) <= hands // FULL_STATE_EVERY + 1
    others = [len(c) for c in clocks if "history" not in json.loads(c)]
    # the clock, the level and stakes: the same size at the first deal and the last
    assert max(others) < 400, max(others)
    assert sum(map(len, clocks)) / hands < 500  # some 2,300 bytes a hand before (the history each deal)
    check_finished(journal, summary, PLAYERS)


def test_a_tournament_killed_after_deals_without_the_history_resumes_to_a_winner(tmp_path) -> None:
    journal = tmp_path / "journal.sqlite"
    killed = simulate(journal, crash="bust:2", seed=3, seats=PLAYERS)
    assert killed.returncode == -signal.SIGKILL, (killed.returncode, killed.stderr[-2000:])
    assert sum("history" in json.loads(c) for c in _clocks(journal)) == 0  # only the start holds the state
    proc = simulate(journal, seed=3, seats=PLAYERS)
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = summary_of(proc)
    assert summary["tournament"]["finished"] and summary["tournament"]["problems"] == []
    assert summary["invariant_errors"] == [] and sum(summary["payouts"]) == summary["prize_pool"]
    assert sum("history" in json.loads(c) for c in _clocks(journal)) >= 1  # the restart wrote the state again
    check_finished(journal, summary, PLAYERS)
