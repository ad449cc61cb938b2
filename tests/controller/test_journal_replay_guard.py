"""A journal whose replay loses hands is refused, never started on silently (issue 16, round 2).

The breaker's attacks (report of 2026-12-02, 1 and 2 and 7): one event the table refuses
during replay (another seat, a copied event, an unknown kind, a forged ``rejected`` event, a
buy-in of 10^30) made recovery drop every later event while start-up said ``clean``; an
older backup put back, or the journal and its mark deleted with the ``-wal`` left, started
on fewer hands than the hand files hold. The mark now counts the table events the table
refused since its newest snapshot, and start-up compares the replay with it and with the
table's highest hand file; ``history --accept`` names the hands it gives up.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from controller.engine.table import events as ev
from controller.engine.table.settings import TableSettings
from controller.journal import Journal, read_mark
from controller.journal_check import JournalRefused
from controller.runtime import open_table

REPO = Path(__file__).resolve().parents[2]
SIM = ["--devices", "none", "--headless", "--quiet", "--seed", "1", "--table", "b16"]
SETTINGS = TableSettings(id="b16", seats=6)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """A table that played 10 hands (the breaker's J): its folder holds journal.sqlite, hands/."""
    folder = tmp_path_factory.mktemp("played")
    res = _cli("simulate", *SIM, "--journal", str(folder / "journal.sqlite"), "--history-dir",
               str(folder / "hands"), "--hands", "10")
    assert res.returncode == 0, res.stderr[-2000:]
    return folder


def _copy(played: Path, tmp_path: Path, sql: str | None = None) -> tuple[Path, Path]:
    d = tmp_path / "t"
    shutil.copytree(played, d, ignore=shutil.ignore_patterns("*.lock"))
    journal = d / "journal.sqlite"
    if sql:
        db = sqlite3.connect(journal)
        db.execute(sql)
        db.commit()
        db.close()
    return journal, d / "hands"


ATTACKS = {
    "another seat": ("UPDATE events SET payload='{\"action\":\"check\",\"kind\":\"action-taken\",\"seat\":5,"
                     "\"seq\":48}' WHERE seq=50", "event 50"),
    "copied event": ("UPDATE events SET payload=(SELECT payload FROM events WHERE seq=49) WHERE seq=50", "event 50"),
    "unknown kind": ("UPDATE events SET kind='zzz' WHERE seq=50", "event 50"),
    "forged rejected": ("UPDATE events SET kind='rejected', payload='{\"seq\":3,\"error\":\"x\"}' WHERE seq=50",
                        "event 50"),
    "buy-in 10^30": ("UPDATE events SET payload='{\"amount\":1000000000000000000000000000000,"
                     "\"kind\":\"bought-in\",\"seat\":1}' WHERE seq=3", "event 3"),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_an_event_the_replay_refuses_is_a_refused_journal(played, tmp_path, attack):
    sql, named = ATTACKS[attack]
    journal, hands = _copy(played, tmp_path, sql)
    with pytest.raises(JournalRefused) as refused:
        open_table(journal, SETTINGS, clock=lambda: 2e9, history_dir=hands)
    assert named in str(refused.value) and "--accept --by NAME" in str(refused.value)
    check = _cli("history", "--journal", str(journal), "--history-dir", str(hands), "--check")
    assert check.returncode == 3 and named in check.stdout, check.stdout + check.stderr


def test_the_table_command_exits_3_naming_the_event(played, tmp_path):
    journal, hands = _copy(played, tmp_path, ATTACKS["another seat"][0])
    res = _cli("simulate", *SIM, "--journal", str(journal), "--history-dir", str(hands), "--hands", "2")
    assert res.returncode == 3, res.stderr[-2000:]
    assert "event 50" in res.stderr and "Traceback" not in res.stderr


def test_accept_names_the_hands_it_gives_up_and_the_next_start_knows(played, tmp_path):
    """The breaker's floor path: seat "x" is set aside; hands 2-10 no longer replay."""
    journal, hands = _copy(played, tmp_path, "UPDATE events SET payload='{\"action\":\"check\","
                                             "\"kind\":\"action-taken\",\"seat\":\"x\",\"seq\":48}' WHERE seq=50")
    acc = _cli("history", "--journal", str(journal), "--history-dir", str(hands), "--accept",
               "--by", "floor:Anna", "--reason", "seat x")
    assert acc.returncode == 0, acc.stderr
    assert "events set aside (recovery skips them): [50]" in acc.stdout
    assert "hands given up" in acc.stdout and "2..10" in acc.stdout
    with Journal(journal) as j:
        accepted = [e.payload for e in j.entries(kinds=("journal-accepted",))]
    assert accepted[-1]["hands_given_up"] == {"first": 2, "last": 10}
    orch, rec = open_table(journal, SETTINGS, clock=lambda: 2e9, history_dir=hands)  # passes knowingly
    try:
        assert orch.state.hands == 1
    finally:
        orch.journal.close()


def test_an_older_backup_put_back_is_refused(tmp_path):
    """The breaker's 7: 5 hands, copy journal and mark, 5 more, put the copy back."""
    journal, hands = tmp_path / "journal.sqlite", tmp_path / "hands"
    args = [*SIM, "--journal", str(journal), "--history-dir", str(hands)]
    assert _cli("simulate", *args, "--hands", "5").returncode == 0
    backup = {p: p.read_bytes() for p in (journal, Path(str(journal) + ".mark"))}
    assert _cli("simulate", *args, "--hands", "5").returncode == 0
    for p, data in backup.items():
        p.write_bytes(data)
    with pytest.raises(JournalRefused) as refused:
        open_table(journal, SETTINGS, clock=lambda: 2e9, history_dir=hands)
    assert "hands 6..10 are missing" in str(refused.value)


def test_wal_and_mark_gone_with_the_journal_schema_only_is_refused(played, tmp_path):
    """The breaker's 2 (killed table: the events were in the -wal): -wal, -shm and mark deleted,
    the journal file holding its tables only. It looks like a fresh table; the guard fired only
    when journal, -wal and mark were all gone."""
    from controller.journal import _SCHEMA

    journal, hands = _copy(played, tmp_path)
    for suffix in ("", "-wal", "-shm", ".mark"):
        Path(str(journal) + suffix).unlink(missing_ok=True)
    db = sqlite3.connect(journal)
    db.executescript(_SCHEMA)
    db.close()
    with pytest.raises(JournalRefused) as refused:
        open_table(journal, SETTINGS, clock=lambda: 2e9, history_dir=hands)
    assert "hands 1..10 are missing" in str(refused.value)
    check = _cli("history", "--journal", str(journal), "--history-dir", str(hands), "--check")
    assert check.returncode == 3 and "hands 1..10 are missing" in check.stdout, check.stdout + check.stderr


def test_events_the_live_table_refused_replay_as_refused(tmp_path):
    """No false refusal: an action out of turn is journalled and refused live; a restart (also
    one killed between that event and the next append) replays the same refusal."""
    journal = tmp_path / "j.sqlite"
    orch, _ = open_table(journal, SETTINGS, clock=lambda: 2e9)
    orch.handle(ev.ActionTaken(at=2e9, seat=3, action="check"))  # no hand runs: refused
    assert read_mark(journal).untaken == 0  # written at the append, before the step
    killed = tmp_path / "killed"
    killed.mkdir()
    for suffix in ("", "-wal", ".mark"):
        shutil.copyfile(str(journal) + suffix, str(killed / "j.sqlite") + suffix)
    orch.handle(ev.BoughtIn(at=2e9, seat=1, amount=5000))  # nobody sits there: refused too
    orch.journal.close()
    assert read_mark(journal).untaken == 2
    for path in (journal, killed / "j.sqlite"):
        orch, rec = open_table(path, SETTINGS, clock=lambda: 2e9)
        assert rec.outcome == "clean"
        orch.journal.close()


def test_journal_and_mark_gone_with_the_wal_left_is_refused_without_hand_files(played, tmp_path):
    journal, hands = _copy(played, tmp_path)
    journal.unlink()
    Path(str(journal) + ".mark").unlink()
    Path(str(journal) + "-wal").write_bytes(b"left over")
    check = _cli("history", "--journal", str(journal), "--check")
    assert check.returncode == 3 and "is missing but its -wal (9 bytes) is there" in check.stdout, check.stdout
    with pytest.raises(JournalRefused, match="is missing but its -wal"):
        open_table(journal, SETTINGS, clock=lambda: 2e9)


def test_hands_played_after_an_accept_then_a_backup_put_back_are_refused(played, tmp_path):
    """A second breaker's finding: after ``--accept`` gave up hands 2..10 the table numbers its
    next hands 2, 3, ... inside the given-up range; a backup taken at the accept, put back after
    three more hands, started ``clean`` on the journal without them (the rake meter 975 -> 600)."""
    journal, hands = _copy(played, tmp_path, ATTACKS["another seat"][0])
    acc = _cli("history", "--journal", str(journal), "--history-dir", str(hands), "--accept",
               "--by", "floor:Anna", "--reason", "test")
    assert acc.returncode == 0, acc.stderr
    files = [journal, Path(str(journal) + ".mark"), Path(str(journal) + "-wal"), Path(str(journal) + "-shm")]
    backup = {p: p.read_bytes() for p in files if p.exists()}
    res = _cli("simulate", *SIM, "--journal", str(journal), "--history-dir", str(hands), "--hands", "3")
    assert res.returncode == 0, res.stderr[-2000:]
    for p in files:
        p.unlink(missing_ok=True)
    for p, data in backup.items():
        p.write_bytes(data)
    with pytest.raises(JournalRefused) as refused:
        open_table(journal, SETTINGS, clock=lambda: 2e9, history_dir=hands)
    assert "played after the floor accepted the journal" in str(refused.value)
    # without the backup trick, the table goes on from the accept as before
    journal2, hands2 = _copy(played, tmp_path / "b", ATTACKS["another seat"][0])
    assert _cli("history", "--journal", str(journal2), "--history-dir", str(hands2), "--accept",
                "--by", "floor:Anna", "--reason", "test").returncode == 0
    assert _cli("simulate", *SIM, "--journal", str(journal2), "--history-dir", str(hands2),
                "--hands", "3").returncode == 0
    orch, rec = open_table(journal2, SETTINGS, clock=lambda: 2e9, history_dir=hands2)
    try:
        assert orch.state.hands == 4
    finally:
        orch.journal.close()
