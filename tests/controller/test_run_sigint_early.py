"""Ctrl-C in the first moments of ``livetable run`` (issue 16 round 2, finding 11): a SIGINT
that comes while the command's modules import (paho, dataclasses), before the table sets its
handlers, ends the process quietly with exit 130 (128 + SIGINT), never a KeyboardInterrupt
traceback. The signal is real: a module imported by the command sends it to its own process
while it is being imported, as the breaker's Ctrl-C at 0.05..0.4 s did."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from controller import cli

REPO = Path(__file__).resolve().parents[2]
WAIT = 60.0

CHILD = """
import sys
import controller.cli as cli
cli.COMMANDS["run"] = ("interrupts_on_import", "a command whose import is interrupted")
sys.exit(cli.main(["run", "--config", "x.toml"]))
"""


def test_sigint_while_the_command_imports_exits_130_without_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "interrupts_on_import.py").write_text(
        "import os, signal\nos.kill(os.getpid(), signal.SIGINT)\n"
        "import dataclasses  # noqa: E402 - the import the signal interrupts\n"
        "def main(argv):\n    return 0\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)])}
    done = subprocess.run([sys.executable, "-c", CHILD], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=WAIT)
    assert "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr, done.stderr
    assert done.returncode == 130, (done.returncode, done.stderr)


def test_a_keyboard_interrupt_before_the_handlers_is_exit_130(monkeypatch, capsys) -> None:
    from controller import app

    def interrupted(path):  # Ctrl-C while the config is read: before app sets its handlers
        raise KeyboardInterrupt

    monkeypatch.setattr(app, "load_config", interrupted)
    try:
        code = cli.main(["run", "--config", "x.toml"])
    except KeyboardInterrupt:
        pytest.fail("the KeyboardInterrupt came out of livetable's main (a traceback)")
    assert code == 130
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out


@pytest.mark.parametrize("argv", [["--help"], ["nope"]])
def test_other_exits_are_unchanged(argv, capsys) -> None:
    assert cli.main(argv) in (0, 2)
