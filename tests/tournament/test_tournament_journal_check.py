"""The start-up check replays a tournament's events, read-only (breaker).

``livetable history --check`` (and ``livetable run``'s start-up check,
:func:`controller.journal_check.problems`) knew nothing about tournaments: a journal whose
tournament events cannot be replayed was called sound, then the table stopped on a
traceback (``TournamentError: journal event N: a tournament 'bust' event cannot be
replayed``). The check now replays them as the table does, and writes nothing: the
entries a crash left unjournalled are the table's to write, not the check's.
"""

from __future__ import annotations

import hashlib
import json
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from .tourneyrun import REPO, simulate


def _check(journal: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller", "history", "--journal", str(journal), "--check"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)


def _digests(journal: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(journal.parent.iterdir()) if p.name.startswith(journal.name)}


def test_a_bust_naming_a_player_with_no_entry_is_refused_naming_the_event(tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite"
    ran = simulate(journal, seed=3)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert _check(journal).returncode == 0  # the real journal is sound
    db = sqlite3.connect(journal)
    try:
        seq, payload = db.execute("SELECT seq, payload FROM events WHERE kind = 'tournament' "
                                  "AND json_extract(payload, '$.type') = 'bust' ORDER BY seq LIMIT 1").fetchone()
        bust = json.loads(payload)
        bust["busted"] = {"p99": 1000}  # nobody of that name entered
        db.execute("UPDATE events SET payload = ? WHERE seq = ?", (json.dumps(bust), seq))
        db.commit()
    finally:
        db.close()
    before = _digests(journal)
    res = _check(journal)
    assert res.returncode == 3, (res.stdout, res.stderr[-2000:])
    assert f"journal event {seq}: a tournament 'bust' event cannot be replayed" in res.stdout, res.stdout
    assert "p99" in res.stdout
    assert "Traceback" not in res.stderr
    assert _digests(journal) == before  # the check wrote nothing


def test_the_check_does_not_journal_the_entries_a_crash_left_out(tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite"
    killed = simulate(journal, crash="entry:1", seed=3)  # killed after the start and one entry
    assert killed.returncode == -signal.SIGKILL, (killed.returncode, killed.stderr[-2000:])
    before = _digests(journal)
    res = _check(journal)
    assert res.returncode == 0, (res.stdout, res.stderr[-2000:])
    assert _digests(journal) == before
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        entries = db.execute("SELECT count(*) FROM events WHERE kind = 'tournament' "
                             "AND json_extract(payload, '$.type') = 'entry'").fetchone()[0]
    finally:
        db.close()
    assert entries == 1
