"""``livetable run``: READY only after recovery, watchdog, clean stop, bad config and journal (issue 9)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from localbroker import needs_broker  # tests/controller is on sys.path

from controller.journal import Journal, JournalError

REPO = Path(__file__).resolve().parents[2]


def _config(tmp_path: Path, port: str, *, table: str) -> Path:
    cfg = tmp_path / "table.toml"
    cfg.write_text(f"""
[table]
id = "{table}"
seats = 6
big_blind = 100
[shuffler]
port = "{port}"
[mqtt]
host = "127.0.0.1"
port = 1883
[journal]
path = "{tmp_path / 'journal.sqlite'}"
history_dir = "{tmp_path / 'hands'}"
""")
    return cfg


def _start(cfg: Path, sock_path: str, env_extra: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    env = dict(os.environ, NOTIFY_SOCKET=sock_path, WATCHDOG_USEC="400000", **(env_extra or {}))
    return subprocess.Popen([sys.executable, "-m", "controller", "run", "--config", str(cfg)],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _messages(server: socket.socket, until: str, limit: int = 50) -> list[str]:
    got: list[str] = []
    for _ in range(limit):
        msg = server.recv(4096).decode()
        got.append(msg)
        if until in msg:
            break
    return got


@pytest.fixture
def emulator():
    from drivers.shuffler.emulator import Emulator

    emu = Emulator(seed=3)
    path = emu.start()
    yield path
    emu.stop()


def test_ready_after_recovery_then_watchdog_then_clean_stop(tmp_path, emulator):
    cfg = _config(tmp_path, emulator, table="runtest")
    sock_path = str(tmp_path / "notify.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(sock_path)
        server.settimeout(60)
        proc = _start(cfg, sock_path)
        try:
            msgs = _messages(server, "READY=1")
            assert any("READY=1" in m for m in msgs), msgs
            # READY comes after the journal was opened (and is held: one controller per journal).
            with pytest.raises(JournalError, match="in use by pid"):
                Journal(tmp_path / "journal.sqlite")
            assert any("WATCHDOG=1" in m for m in _messages(server, "WATCHDOG=1"))
        finally:
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err.decode()[-3000:]


def test_config_mistake_stops_before_any_device(tmp_path):
    cfg = tmp_path / "bad.toml"
    cfg.write_text("[table]\nbig_blind = 100\nseets = 6\n")
    res = subprocess.run([sys.executable, "-m", "controller", "run", "--config", str(cfg)],
                         cwd=REPO, capture_output=True, text=True, timeout=60)
    assert res.returncode == 2
    assert "table.seets: unknown key" in res.stderr


def test_damaged_journal_stops_start_up(tmp_path, emulator):
    cfg = _config(tmp_path, emulator, table="runtest2")
    with Journal(tmp_path / "journal.sqlite") as j:
        j.append("table", {"kind": "x"}, 0)
        j.append("table", {"kind": "y"}, 0)
    import sqlite3

    db = sqlite3.connect(tmp_path / "journal.sqlite")
    db.execute("DELETE FROM events WHERE seq = 1")
    db.commit()
    db.close()
    res = subprocess.run([sys.executable, "-m", "controller", "run", "--config", str(cfg)],
                         cwd=REPO, capture_output=True, text=True, timeout=60)
    assert res.returncode == 3
    assert "journal check failed" in res.stderr and "seq 1 missing" in res.stderr


@needs_broker
def test_a_fresh_table_publishes_its_state_and_answers_a_take_seat(tmp_path, emulator):
    """Issue 16 item 6: with nobody seated, a fresh ``livetable run`` published no public
    state, so a tablet's take-seat (which must carry the state's seq, M-4) went unanswered."""
    import uuid

    from drivers.mqtt.tablet import Tablet

    table = f"fresh{uuid.uuid4().hex[:8]}"
    cfg = _config(tmp_path, emulator, table=table)
    cfg.write_text(cfg.read_text().replace("big_blind = 100\n", 'big_blind = 100\ntablet_join = "direct"\n'))
    sock_path = str(tmp_path / "notify.sock")
    tablet = Tablet(table, 2, host="127.0.0.1", port=1883, username=None, password=None).start()
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(sock_path)
        server.settimeout(60)
        proc = _start(cfg, sock_path)
        try:
            assert any("READY=1" in m for m in _messages(server, "READY=1"))
            tablet.wait_for(lambda t: t.state is not None and t.state.get("table") == table, 15)
            aid = tablet.send_action("take_seat", 10000, name="Ann", post=False)
            reply = tablet.wait_reply(aid, 15)
            assert reply["accepted"] is True, reply
            tablet.wait_for(lambda t: any((s or {}).get("name") == "Ann" for s in t.state["seats"]), 15)
        finally:
            tablet.stop()
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err.decode()[-3000:]
