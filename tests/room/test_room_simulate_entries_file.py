"""``livetable room simulate --tournament --entries-file FILE`` (issue 19): the entries by name,
as ``room serve --tournament`` takes them (the same option and reader, room/tournament_serve.py
:func:`~room.tournament_serve.add_entries_file`, :func:`~room.tournament_serve.read_entries`):
a bad file, too many players, ``--entries`` with it or no ``--tournament`` refused with exit 2
before anything starts; a good one plays its players, by name, to a winner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from room.simulate import main

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("extra, text, said", [
    (["--tournament"], "Ann\n\nBob\n", "entries.txt: line 2: empty (one player a line"),
    (["--tournament"], "".join(f"Player {i}\n" for i in range(9)), "--entries-file: 9 players; a tournament on 1 "
                                                                   "table of 8 seats takes 2..8"),
    (["--tournament", "--entries", "3"], "Ann\nBob\n", "--entries and --entries-file: one or the other"),
    ([], "Ann\nBob\n", "--entries-file goes with --tournament"),
])
def test_a_bad_entries_file_or_option_is_refused_with_exit_2(tmp_path: Path, capsys: Any, extra: list[str],
                                                              text: str, said: str) -> None:
    path = tmp_path / "entries.txt"
    path.write_text(text)
    run = tmp_path / "run"
    assert main([*extra, "--tables", "1", "--entries-file", str(path), "--dir", str(run), "--headless"]) == 2
    assert said in capsys.readouterr().err
    assert not (run / "t1").exists()  # no table started


@pytest.mark.timeout(300)
def test_the_entries_files_players_play_by_name_to_a_winner(tmp_path: Path) -> None:
    names = ["Ann Smith", "Bob Jones", "Chloé"]
    path = tmp_path / "entries.txt"
    path.write_text("# tonight\nAnn Smith\nbob,Bob Jones\nChloé\n", encoding="utf-8")
    cmd = [sys.executable, "-m", "controller.cli", "room", "simulate", "--tournament", "--tables", "1",
           "--entries-file", str(path), "--headless", "--seed", "5", "--dir", str(tmp_path / "room"),
           "--speed", "30", "--tournament-timeout", "240"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=290, cwd=REPO,
                         env=dict(os.environ, PYTHONPATH=str(REPO)))
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert out.returncode == 0 and summary["ok"], (summary, out.stderr[-2000:])
    assert summary["entries"] == 3 and sorted(summary["names"]) == sorted(names), summary
    assert sorted(summary["places"]) == ["bob", "p1", "p2"], summary
