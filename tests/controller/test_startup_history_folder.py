"""Start-up does not read the whole history folder (issue 21, the breaker's READY finding).

After 50,000 hands ``journal.history_dir`` holds 100,000 files; start-up listed it twice
(the newest hand file, and the temporary files a kill leaves), 160-330 ms of READY on a
loaded 2-core x86. The hands a journal lost are now looked for by name after its last hand
(:func:`controller.journal_check.later_hand_file`), and the temporary files are removed by
a thread of the history writer after the first hand it writes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from controller.devices import HistoryWriter
from controller.engine.table.settings import TableSettings
from controller.journal_check import JournalRefused, later_hand_file
from controller.runtime import open_table

REPO = Path(__file__).resolve().parents[2]
SETTINGS = TableSettings(id="b21", seats=6)


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """A table that played 6 hands: its folder holds journal.sqlite and hands/."""
    folder = tmp_path_factory.mktemp("played")
    res = subprocess.run([sys.executable, "-m", "controller", "simulate", "--devices", "none", "--headless",
                          "--quiet", "--seed", "1", "--table", "b21", "--journal", str(folder / "journal.sqlite"),
                          "--history-dir", str(folder / "hands"), "--hands", "6"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    return folder


def _copy(played: Path, tmp_path: Path) -> tuple[Path, Path]:
    d = tmp_path / "t"
    shutil.copytree(played, d, ignore=shutil.ignore_patterns("*.lock"))
    return d / "journal.sqlite", d / "hands"


def _listed(monkeypatch) -> list[str]:
    """Record every folder os.listdir and os.scandir are asked for (Path.glob uses scandir)."""
    seen: list[str] = []
    listdir, scandir = os.listdir, os.scandir

    def spy_listdir(path: object = ".") -> list[str]:
        seen.append(os.path.realpath(os.fspath(path)))  # type: ignore[arg-type]  # a path as os takes it
        return listdir(path)  # type: ignore[arg-type]  # as above

    def spy_scandir(path: object = ".") -> object:
        seen.append(os.path.realpath(os.fspath(path)))  # type: ignore[arg-type]  # as above
        return scandir(path)  # type: ignore[arg-type]  # as above

    monkeypatch.setattr(os, "listdir", spy_listdir)
    monkeypatch.setattr(os, "scandir", spy_scandir)
    return seen


def _hand_file(hands: Path, number: int, table: str = "b21") -> None:
    (hands / f"hand-{number:06d}.json").write_text(json.dumps({"hand": number, "table": table}))


def test_start_up_never_lists_the_history_folder(played, tmp_path, monkeypatch):
    """open_table and the history writer's construction (everything before READY) read the
    hand files they need by name; the old start-up listed the folder in both."""
    journal, hands = _copy(played, tmp_path)
    seen = _listed(monkeypatch)
    orch, rec = open_table(journal, SETTINGS, clock=lambda: 2e9, history_dir=hands)
    try:
        HistoryWriter(hands)
        assert rec.outcome == "clean" and orch.state.hands == 6
        assert os.path.realpath(hands) not in seen
    finally:
        orch.journal.close()


def test_a_hand_file_after_the_journals_last_hand_still_refuses_it(played, tmp_path):
    """Hands the journal lost (issue 16) are seen past hands with no file (7 and 8 here), and the
    message names the folder's highest hand, found by reading it whole once one is seen."""
    journal, hands = _copy(played, tmp_path)
    _hand_file(hands, 9)
    _hand_file(hands, 40)
    _hand_file(hands, 41, table="another")  # another table's: not this one's hands
    with pytest.raises(JournalRefused) as refused:
        open_table(journal, SETTINGS, clock=lambda: 2e9, history_dir=hands)
    assert "hands 7..40 are missing" in str(refused.value)


def test_later_hand_file_reads_records_not_names(tmp_path):
    """An empty file, another table's hand and a FIFO under a later hand's name are no hand."""
    (tmp_path / "hand-000011.json").write_bytes(b"")
    _hand_file(tmp_path, 12, table="another")
    os.mkfifo(tmp_path / "hand-000013.json")
    assert later_hand_file(tmp_path, 10, "b21") == 0
    assert later_hand_file(tmp_path, 10) == 12
    _hand_file(tmp_path, 10 + 64)  # the last number looked for
    assert later_hand_file(tmp_path, 10, "b21") == 74
    assert later_hand_file(tmp_path, 74, "b21") == 0
    assert later_hand_file(None, 0) == 0
