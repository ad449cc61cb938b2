"""``livetable room serve-local`` (``scripts/run-room ... --local``, newcomer finding F2): the
room's tournament of ``room serve`` with its brokers and real table processes on one machine,
one command. Checked: the tournament is played to a winner; SIGTERM stops the tables, the
room and the brokers (nothing of the rig left running, exit 0); options it sets itself are
refused."""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from drivers.mqtt.broker import free_port
from room.serve import first_floor_login
from room.serve_local import director_words
from room.tournament_sim import ROOM_TOML
from tests.room.conftest import need_mosquitto

REPO = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(REPO))


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except OSError:
        return False
    return True


def test_serve_local_plays_the_tournament_and_stops_everything_on_sigterm(tmp_path: Path) -> None:
    need_mosquitto()
    conf = tmp_path / "t.toml"
    conf.write_text(ROOM_TOML)
    run = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "room", "serve-local", "--tournament", str(conf),
                             "--tables", "t1,t2", "--entries", "6", "--tournament-speed", "30", "--table-speed", "0",
                             "--http-port", str(free_port()), "--desk-port", "0", "--dir", str(run)],
                            stdout=subprocess.PIPE, stderr=(tmp_path / "err.log").open("w"), text=True, cwd=REPO,
                            env=ENV)
    lines: queue.Queue[dict[str, Any]] = queue.Queue()

    def read() -> None:
        for line in proc.stdout or ():
            if line.startswith("{"):
                lines.put(json.loads(line))

    threading.Thread(target=read, daemon=True).start()
    got: dict[str, Any] = {}
    try:
        while "tournament" not in got:
            try:
                got.update(lines.get(timeout=90))
            except queue.Empty:
                raise AssertionError((tmp_path / "err.log").read_text()[-3000:]) from None
        assert got["serving"] and got["local"]["dir"] == str(run), got
        assert got["tournament"]["ok"] and len(got["tournament"]["places"]) == 6, got
        ports = [got["local"]["room_broker"]] + [t["broker"] for t in got["local"]["tables"].values()]
        assert all(_listening(p) for p in ports)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=90) == 0, (tmp_path / "err.log").read_text()[-3000:]
        assert not [p for p in ports if _listening(p)]  # the brokers are stopped
        assert (run / "room.sqlite").exists() and (run / "t1" / "table.log").exists()
        err = (tmp_path / "err.log").read_text()
        assert (f"livetable room director status --console {got['console']} --password-file "
                f"{run / 'floor-logins.json.floor-password'}") in err, err[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_serve_local_refuses_the_options_it_sets_itself(tmp_path: Path) -> None:
    conf = tmp_path / "t.toml"
    conf.write_text(ROOM_TOML)
    out = subprocess.run([sys.executable, "-m", "controller.cli", "room", "serve-local", "--tournament", str(conf),
                          "--tables", "t1,t2", "--broker-port", "1884"], capture_output=True, text=True, cwd=REPO,
                         env=ENV, timeout=30)
    assert out.returncode == 2 and "--broker-port" in out.stderr, out
    out = subprocess.run([sys.executable, "-m", "controller.cli", "room", "serve-local", "--tournament",
                          str(tmp_path / "none.toml"), "--tables", "t1,t2"], capture_output=True, text=True,
                         cwd=REPO, env=ENV, timeout=30)
    assert out.returncode == 2 and str(tmp_path / "none.toml") in out.stderr, out


def test_the_director_line_names_the_password_file_room_serve_wrote(tmp_path: Path) -> None:
    """The line serve-local prints is the director's command as it is: the file ``room serve``
    wrote (``first_floor_login``); without it, how to make a login; without a console, the option."""
    logins = tmp_path / "floor-logins.json"
    assert first_floor_login(logins) is None
    line = director_words("http://127.0.0.1:8090/", logins)
    note = tmp_path / "floor-logins.json.floor-password"
    assert f"livetable room director status --console http://127.0.0.1:8090/ --password-file {note} " in line
    note.unlink()
    assert "--add-floor NAME --floor-logins " + str(logins) in director_words("http://127.0.0.1:8090/", logins)
    assert "--http-port" in director_words(None, logins)
