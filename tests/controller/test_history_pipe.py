"""``livetable history ... | head``: the reader goes away; the command ends with 141 (as a
Unix tool on SIGPIPE, and as ``livetable replay``) and no traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from controller import simulate

REPO = Path(__file__).resolve().parents[2]


def test_history_into_a_pipe_closed_early_ends_with_141(tmp_path, capsys):
    journal = tmp_path / "j.sqlite"
    assert simulate.main(["--devices", "none", "--headless", "--quiet", "--hands", "40", "--seed", "4",
                          "--journal", str(journal)]) == 0
    capsys.readouterr()
    proc = subprocess.Popen([sys.executable, "-m", "controller", "history", "--journal", str(journal),
                             "--hands", "40"], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read(5) == b"Hand "  # what head -c 5 reads
    proc.stdout.close()  # ... and goes away
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141, err
    assert "Traceback" not in err, err
