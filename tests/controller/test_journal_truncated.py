"""A journal file cut short at any length is refused as damaged (docs/faults.md, "A damaged
journal file"), never with the refusal that recommends ``livetable history --accept``, which
cannot read it.

Cut on a 4 KB page boundary, SQLite says ``database disk image is malformed``; cut inside a
page it reads the missing end as zeros (a payload cut short, rows out of order) and says
nothing, and the start-up's check then said "committed events missing" or "payload is not a
JSON object" with the --accept steps; cut to a few bytes, SQLite took the file for a new
database and wrote a new journal over it. The journal is a real one: ``livetable simulate``
plays 6 hands and stops cleanly (every event in the file, no ``-wal``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from controller.engine.table.settings import TableSettings
from controller.journal import Journal, JournalDamaged, JournalError, file_damage
from controller.journal_check import JournalRefused
from controller.runtime import open_table

REPO = Path(__file__).resolve().parents[2]
SIM = ["--devices", "none", "--headless", "--quiet", "--seed", "5", "--seats", "4"]
SETTINGS = TableSettings(id="sim", seats=4, small_blind=50, big_blind=100)
PAGE = 4096


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """The folder of a table that played 6 hands (``j.sqlite``, its mark, ``hands/``)."""
    folder = tmp_path_factory.mktemp("played")
    path = folder / "j.sqlite"
    res = subprocess.run([sys.executable, "-m", "controller", "simulate", *SIM, "--journal", str(path),
                          "--history-dir", str(folder / "hands"), "--hands", "6"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    assert not Path(f"{path}-wal").exists() and path.stat().st_size % PAGE == 0
    assert path.stat().st_size >= 8 * PAGE
    return folder


def _lengths(size: int) -> list[int]:
    """Cuts at the start, in the header, on and inside every page, and near the end."""
    out = {0, 1, 50, 99, 100, 101, 511, size - 1, size - 97}
    for k in range(size // PAGE):
        out |= {k * PAGE, k * PAGE + 1, k * PAGE + 1000, k * PAGE + 2048, k * PAGE + PAGE - 1}
    return sorted(n for n in out if 0 <= n < size)


def test_a_journal_cut_at_any_length_is_refused_as_damaged_with_the_floors_steps(played, tmp_path):
    size = (played / "j.sqlite").stat().st_size
    wrong = []
    for n in _lengths(size):
        folder = tmp_path / f"cut{n}"
        shutil.copytree(played, folder)
        path = folder / "j.sqlite"
        os.truncate(path, n)
        cut = path.read_bytes()
        try:
            orch, _ = open_table(path, SETTINGS, clock=lambda: 2e9, history_dir=folder / "hands")
        except JournalRefused as exc:
            text = str(exc)
        except JournalError as exc:  # not the refusal with the floor's steps (exit 3)
            wrong.append((n, f"{type(exc).__name__}: {exc}"[:200]))
            continue
        else:
            orch.journal.close()
            wrong.append((n, "started"))
            continue
        if (f"the journal file {path} is damaged" not in text or f"mkdir {path}.damaged" not in text
                or "settle the hands the journal lost" in text):
            wrong.append((n, text[:300]))
        if path.read_bytes() != cut:
            wrong.append((n, "the refusal wrote into the damaged file"))
    assert wrong == [], wrong


def test_the_files_shape_names_the_damage_before_sqlite_opens_it(played, tmp_path):
    path = tmp_path / "j.sqlite"
    shutil.copy(played / "j.sqlite", path)
    assert file_damage(path) is None
    size = path.stat().st_size
    os.truncate(path, size - PAGE + 1000)
    assert "not a whole number of its 4096-byte pages" in (file_damage(path) or "")
    # a -wal with frames may hold the cut page whole: the open leaves it to SQLite
    assert file_damage(path, wal=True) is None
    os.truncate(path, size - PAGE)
    assert "pages its header counts" in (file_damage(path) or "")
    os.truncate(path, 1)
    with pytest.raises(JournalDamaged, match="do not start with SQLite's 100-byte header"):
        Journal(path)
    assert path.read_bytes() == (played / "j.sqlite").read_bytes()[:1]  # no new journal written over it


def test_history_check_of_a_cut_file_gives_the_damaged_files_steps_not_accept(played, tmp_path):
    """``livetable history --check`` named the cut file damaged, then advised ``--accept``."""
    shutil.copytree(played, tmp_path / "t")
    path = tmp_path / "t" / "j.sqlite"
    os.truncate(path, path.stat().st_size - PAGE + 1000)
    res = subprocess.run([sys.executable, "-m", "controller", "history", "--journal", str(path),
                          "--history-dir", str(tmp_path / "t" / "hands"), "--check"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    out = res.stdout + res.stderr
    assert res.returncode == 3, out[-2000:]
    assert "is damaged: cut short inside a page" in out and f"mkdir {path}.damaged" in out
    assert "settle the hands the journal lost" not in out
