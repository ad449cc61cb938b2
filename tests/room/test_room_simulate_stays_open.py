"""``bash scripts/run-room --tables 4 --hands 20`` (issue 18, a newcomer's finding): the room
printed its console's address and login, then was gone seconds later when the tables had
played their hands. With ``--hands`` and without ``--headless`` the room, its console and its
pages now stay up after the tables finish, saying so, until Ctrl-C; then the summary."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from tests.room.conftest import REPO, need_mosquitto


def _answers(url: str) -> int:
    """The HTTP status ``url`` answers with (401 for a page behind the floor's login)."""
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_room_with_hands_stays_up_until_ctrl_c(tmp_path: Path) -> None:
    need_mosquitto()
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}  # no browser
    p = subprocess.Popen([sys.executable, "-m", "controller.cli", "room", "simulate", "--tables", "1", "--hands", "1",
                          "--devices", "none", "--dir", str(tmp_path / "run"), "--seed", "7"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(REPO), env=env)
    try:
        assert p.stdout is not None
        lines: list[str] = []
        for line in p.stdout:  # blocks on the process's own output: no sleeps
            lines.append(line)
            if "stay up" in line:
                break
        else:
            raise AssertionError("ended without keeping the room up: " + "".join(lines) + p.communicate()[1][-2000:])
        assert "Ctrl-C" in lines[-1] and "balanced" in lines[-1]
        assert p.poll() is None  # the tables finished, the room did not
        console = next(x for x in lines if "the floor console:" in x).split("console: ")[1].split()[0]
        lobby = next(x for x in lines if "the lobby " in x).split("the lobby ")[1].split(",")[0]
        assert _answers(lobby) == 200
        assert _answers(console) in (200, 401)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err[-2000:]
        summary = json.loads(out.strip().splitlines()[-1])
        assert summary["balanced"] is True and summary["tables"] == 1
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
