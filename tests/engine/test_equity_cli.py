"""``livetable equity``: JSON on stdout, exit 2 with the reason on stderr."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.engine.equity import equity_fractions
from controller.engine.equity_cli import main

REPO = Path(__file__).resolve().parents[2]


def test_flop_equity_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["AsKs", "QdQh", "--board", "Jh 8c 3d"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["players"] == ["AsKs", "QdQh"]
    assert out["board"] == ["Jh", "8c", "3d"]
    assert out["game"] == "holdem"
    expected = equity_fractions(["AsKs", "QdQh"], "Jh 8c 3d")
    assert out["equity"] == [float(x) for x in expected]
    assert sum(out["equity"]) == pytest.approx(1.0)


def test_omaha_detected_and_dead_cards(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["Ah Kh Qd Jd", "8s8c7s6c", "--board", "Ts 9s 2d", "--dead", "7h"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "omaha" and out["dead"] == ["7h"]
    assert out["players"] == ["AhKhQdJd", "8s8c7s6c"]
    expected = equity_fractions(["AhKhQdJd", "8s8c7s6c"], "Ts 9s 2d", "7h")
    assert out["equity"] == [float(x) for x in expected]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["AsKs", "AsQh"], "G-5: card As appears twice"),
        (["AsKs"], "2 to 10 players"),
        (["AsKs", "QdQh", "--board", "Jh 8c Xx"], "G-5"),
        (["AsKsQsJs", "QdQh", "--game", "omaha"], "G-2"),
        ([], "required"),
        (["AsKs", "QdQh", "--game", "stud"], "invalid choice"),
    ],
)
def test_bad_input_exit_2_with_reason_on_stderr(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err


def test_livetable_command_dispatches_to_equity() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from controller.cli import main; "
         "sys.exit(main(sys.argv[1:]))", "equity", "AsKs", "QdQh",
         "--board", "Jh 8c 3d 2s 4c"],
        cwd=REPO, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["equity"] == [0.0, 1.0]


def test_importing_the_engine_stays_light() -> None:
    """``import controller.engine`` loads neither numpy nor the evaluator tables."""
    code = (
        "import sys, controller.engine as e; "
        "print('numpy' in sys.modules, 'controller.engine.evaluator' in sys.modules, "
        "'controller.engine.equity' in sys.modules, callable(e.equity))"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "False", "False", "True"]
