"""``livetable history --check`` on a journal file SQLite cannot read gives the damaged file's
steps (move it aside, a backup, or a new journal beside the hand files), not the refused
journal's ``--accept`` of the journal as it is, which cannot read a damaged file."""

from __future__ import annotations

import os

from tests.controller.test_journal_damage import SIM, _cli


def test_history_check_of_a_truncated_journal_says_what_to_do_with_a_damaged_file(tmp_path):
    path, hands = tmp_path / "j.sqlite", tmp_path / "hands"
    sim = _cli("simulate", *SIM, "--journal", str(path), "--history-dir", str(hands), "--hands", "3")
    assert sim.returncode == 0, sim.stderr[-2000:]
    os.truncate(path, path.stat().st_size // 2)
    cut = path.read_bytes()
    res = _cli("history", "--journal", str(path), "--history-dir", str(hands), "--check")
    assert res.returncode == 3, (res.stdout + res.stderr)[-2000:]
    out = res.stdout
    assert f"the journal file {path} is damaged" in out
    assert f"`mkdir {path}.damaged && mv " in out  # the damaged file's steps
    assert "accept the journal as it is" not in out  # not the refused journal's --accept
    assert path.read_bytes() == cut  # the check changed nothing
