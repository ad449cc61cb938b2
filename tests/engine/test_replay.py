"""`livetable replay FILE...` (controller/engine/replay.py): one JSON line per file; a bad
file reports its own error and the others still run."""

from __future__ import annotations

import json
from pathlib import Path

from controller.cli import main as cli_main
from controller.engine.replay import main
from tests.conftest import shared_path

GOOD = """variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [5, 10, 0]
min_bet = 10
starting_stacks = [100, 100, 100]
actions = ["d dh p1 AsKs", "d dh p2 QdQc", "d dh p3 7h2c", "p3 f", "p1 cbr 30", "p2 f"]
finishing_stacks = [110, 90, 100]
"""


def _lines(capsys) -> list[dict]:
    return [json.loads(x) for x in capsys.readouterr().out.splitlines()]


def test_replay_prints_one_json_line_per_file_and_keeps_going(tmp_path: Path, capsys) -> None:
    good = tmp_path / "good.phh"
    good.write_text(GOOD)
    broken = tmp_path / "broken.phh"
    broken.write_text("variant = 'NT'\nantes = [")
    cards = tmp_path / "cards.phh"
    cards.write_text(GOOD.replace("QdQc", "AsQc"))
    hilo = tmp_path / "hilo.phh"
    hilo.write_text(GOOD.replace('"NT"', '"FO/8"'))
    code = main([str(good), str(broken), str(cards), str(hilo), str(tmp_path / "missing.phh"), str(good)])
    out = _lines(capsys)
    assert code == 1
    assert [o["file"] for o in out] == [str(good), str(broken), str(cards), str(hilo),
                                        str(tmp_path / "missing.phh"), str(good)]
    assert out[0] == {"file": str(good), "finishing_stacks": [110, 90, 100], "error": None}
    assert out[1]["error"].startswith("PHH: broken TOML") and out[1]["finishing_stacks"] is None
    assert out[2]["error"].startswith("G-5: card As was already dealt")
    assert out[3]["error"] == "G-5: variant not supported: FO/8"
    assert out[4]["error"].startswith("PHH: cannot read")
    assert out[5] == out[0]


def test_replay_through_the_livetable_command(tmp_path: Path, capsys) -> None:
    good = tmp_path / "good.phh"
    good.write_text(GOOD)
    assert cli_main(["replay", "--check", str(good)]) == 0
    (line,) = _lines(capsys)
    assert line["matches_file"] is True and line["error"] is None


def test_replay_a_directory_of_dev_hands(capsys) -> None:
    base = shared_path("data", "phh", "dev", "wsop")
    code = main([str(base)])
    out = _lines(capsys)
    assert len(out) == 37 and code == 1  # the 19 hi/lo and 2-7 hands are refused
    refused = [o for o in out if o["error"]]
    assert all("variant not supported" in o["error"] for o in refused) and len(refused) == 19
    assert all(isinstance(x, int) for o in out if not o["error"] for x in o["finishing_stacks"])


def test_replay_usage_error(capsys) -> None:
    assert main([]) == 2


def test_replay_into_a_pipe_closed_early_ends_quietly(tmp_path: Path) -> None:
    """``livetable replay ... | head -1``: the reader goes away; the command ends with 141
    (as a Unix tool on SIGPIPE) and no traceback."""
    import subprocess
    import sys

    good = tmp_path / "good.phh"
    good.write_text(GOOD)
    repo = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-m", "controller", "replay", *[str(good)] * 3000],
                            cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    assert json.loads(proc.stdout.readline())["error"] is None  # what head -1 reads
    proc.stdout.close()  # ... and goes away
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141, err
    assert "Traceback" not in err and "BrokenPipe" not in err, err
