"""A table whose journal is gone never writes over its old hand files (issue 16 b).

The journal, its ``-wal`` and its mark all deleted: nothing of the journal says a table was
there, but the history folder's hand files do. The table refuses to start (exit 3) with what
is missing and the floor's ways on (a backup, a new history folder, or ``livetable history
--accept --history-dir``, after which the hands are numbered after the folder's); and the
history writer never writes over another hand's files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from controller.devices.history import HistoryWriter
from controller.engine.table.settings import TableSettings
from controller.journal_check import JournalRefused, journal_missing
from controller.runtime import open_table

REPO = Path(__file__).resolve().parents[2]
SIM = ["--devices", "none", "--headless", "--quiet", "--seed", "5", "--seats", "4"]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=120)


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> tuple[Path, Path]:
    """A table that played 3 hands into a history folder (journal path, history folder)."""
    folder = tmp_path_factory.mktemp("played")
    journal, hands = folder / "j.sqlite", folder / "hands"
    res = _cli("simulate", *SIM, "--journal", str(journal), "--history-dir", str(hands), "--hands", "3")
    assert res.returncode == 0, res.stderr[-2000:]
    assert {"hand-000001.phh", "hand-000003.json"} <= set(os.listdir(hands))
    return journal, hands


def _lose_the_journal(played: tuple[Path, Path], tmp_path: Path) -> tuple[Path, Path]:
    import shutil

    hands = tmp_path / "hands"
    shutil.copytree(played[1], hands)
    return tmp_path / "j.sqlite", hands  # no journal, -wal or mark there


def test_hand_files_but_no_journal_is_refused_and_nothing_is_written(played, tmp_path):
    journal, hands = _lose_the_journal(played, tmp_path)
    before = _files(hands)
    with pytest.raises(JournalRefused) as refused:
        open_table(journal, TableSettings(id="sim", seats=4), clock=lambda: 2e9, history_dir=hands)
    text = str(refused.value)
    assert "hands up to 3" in text and f"--history-dir {hands} --accept --by NAME" in text
    assert "new history folder" in text
    assert journal_missing(journal)  # nothing created
    assert _files(hands) == before
    # The command: exit 3, no traceback, and the hand files as they were.
    res = _cli("simulate", *SIM, "--journal", str(journal), "--history-dir", str(hands), "--hands", "2")
    assert res.returncode == 3, res.stderr[-2000:]
    assert "Traceback" not in res.stderr and "hands up to 3" in res.stderr
    assert _files(hands) == before


def test_the_floor_accepts_a_new_journal_and_hands_go_on_after_the_folders(played, tmp_path):
    journal, hands = _lose_the_journal(played, tmp_path)
    before = _files(hands)
    check = _cli("history", "--journal", str(journal), "--history-dir", str(hands), "--check")
    assert check.returncode == 3 and "hands up to 3" in check.stdout
    acc = _cli("history", "--journal", str(journal), "--history-dir", str(hands), "--accept",
               "--by", "floor:Anna", "--reason", "SD card replaced")
    assert acc.returncode == 0, acc.stderr
    res = _cli("simulate", *SIM, "--journal", str(journal), "--history-dir", str(hands), "--hands", "2")
    assert res.returncode == 0, res.stderr[-2000:]
    after = _files(hands)
    assert {k: after[k] for k in before} == before  # not one old file written over
    assert {"hand-000004.json", "hand-000005.phh"} <= set(after)
    assert json.loads(after["hand-000004.json"])["hand"] == 4


def _record(hand: int, started: float, table: str = "t1") -> dict:
    return {"hand": hand, "table": table, "started": started, "ended": started + 60, "voided": True}


def test_the_writer_keeps_another_hands_files_aside(tmp_path):
    old = HistoryWriter(tmp_path)
    old.write(1, _record(1, 1000.0))
    first = _files(tmp_path)
    new = HistoryWriter(tmp_path)  # another journal's table, numbering from 1 again
    new.write(1, _record(1, 5000.0))
    kept = {p.name: p.read_bytes() for p in tmp_path.glob("hand-000001.json.kept-*")}
    assert list(kept.values()) == [first["hand-000001.json"]]
    assert json.loads((tmp_path / "hand-000001.json").read_text())["started"] == 5000.0
    # The same hand written again (P-2: the winner showed after it ended) replaces its files.
    again = HistoryWriter(tmp_path)
    again.write(1, {**_record(1, 5000.0), "voided": False})
    assert len(list(tmp_path.glob("hand-000001.json.kept-*"))) == 1
    assert json.loads((tmp_path / "hand-000001.json").read_text())["voided"] is False
