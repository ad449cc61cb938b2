"""Simulated players through the waiting lists (room/crowd.py, issue 18): over at least 200
seat openings every call goes to the first eligible player, no seat is offered to two
players at once and a lapsed call moves to the next (checked by room/fairness.py from the
lists' log)."""

from __future__ import annotations

import json

import pytest

from room.crowd import Crowd, main


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_200_openings_fair(seed: int) -> None:
    crowd = Crowd(seed=seed, tables=6, hold_seconds=120)
    out = crowd.run(220)
    assert out["fair"], out["problem"]
    assert out["openings"] >= 200
    # the run exercised what the invariants are about
    assert out["lapses"] >= 10 and out["passes"] >= 10 and out["calls"] >= 200
    sources = {e.detail.split(";")[0] for e in crowd.lists.log if e.action == "call"}
    assert sources == {"list", "change", "must-move"}
    # the log says, for every seat given, who was called and why
    assert sum(1 for e in crowd.lists.log if e.action == "seat" and e.detail.startswith("accepted")) >= 150


def test_cli_one_json_line(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    assert main(["--openings", "200", "--seed", "7", "--log", str(tmp_path / "log.jsonl")]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["fair"] is True and out["openings"] == 200
    assert (tmp_path / "log.jsonl").read_text().count("\n") == out["log_entries"]
    assert main(["--tables", "1"]) == 2
