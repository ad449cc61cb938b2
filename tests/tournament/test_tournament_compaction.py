"""Compaction of a tournament's journal (issue 19, docs/tournament.md "Compaction"): every
clock snapshot carries the tournament's events so far, and compaction never ends past the
newest one, so a long tournament compacted to its last hands, then killed, resumes with
nothing lost."""

from __future__ import annotations

import json
import signal
import sqlite3
from pathlib import Path

from .tourneyrun import check_finished, replay, simulate, summary_of

PLAYERS = 10


def _rows(journal: Path) -> tuple[int, list[dict]]:
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        upto = db.execute("SELECT value FROM meta WHERE key = 'compacted_upto'").fetchone()
        rows = [json.loads(p) for (p,) in db.execute("SELECT payload FROM events WHERE kind = 'tournament'")]
    finally:
        db.close()
    return int(upto[0]) if upto else 0, rows


def test_a_compacted_tournament_killed_resumes_with_nothing_lost(tmp_path) -> None:
    journal, hands = tmp_path / "journal.sqlite", tmp_path / "hands"
    keep = ("--keep-hands", "2", "--history-dir", str(hands))
    killed = simulate(journal, crash="level-change:4", seed=11, seats=PLAYERS, extra=keep)
    assert killed.returncode == -signal.SIGKILL, (killed.returncode, killed.stderr[-2000:])
    upto, rows = _rows(journal)
    assert upto > 0, "the journal was not compacted"
    kinds = [r["type"] for r in rows]
    assert "start" not in kinds and kinds.count("entry") < PLAYERS  # the beginning left the journal
    assert any(r["type"] == "clock" and "history" in r for r in rows)
    proc = simulate(journal, seed=11, seats=PLAYERS, extra=keep)
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = summary_of(proc)
    t = summary["tournament"]
    assert t["finished"] and t["problems"] == [] and summary["invariant_errors"] == []
    assert t["entries"] == PLAYERS and t["chips_in_play"] == PLAYERS * 2000
    everyone = {f"p{n}" for n in range(1, PLAYERS + 1)}
    assert sorted(summary["places"]) == sorted(everyone)  # nobody dropped or placed twice
    assert sum(summary["payouts"]) == summary["prize_pool"] == PLAYERS * 100
    r = replay(journal)  # chips checked after every event the compacted journal still holds
    assert r.compacted and r.problems == [], r.problems[:5]
    assert r.result is not None and r.result["places"] == summary["places"]
    check_finished(journal, summary, PLAYERS)  # the entries and busts held in the snapshot's history count
