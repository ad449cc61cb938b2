"""``livetable run`` with a tournament (issue 19): a real table on its own Pi runs a
single-table tournament from its config's ``[tournament]`` or ``--tournament-config``."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from controller.journal import payload_of
from controller.tournament_run import SIM_TOML

REPO = Path(__file__).resolve().parents[2]


def _config(tmp_path: Path, port: str, *, tournament: str = "", seats: int = 6) -> Path:
    cfg = tmp_path / "table.toml"
    cfg.write_text(f"""
[table]
id = "stt{os.getpid()}"
seats = {seats}
big_blind = 100
[shuffler]
port = "{port}"
[mqtt]
host = "127.0.0.1"
port = 1883
[journal]
path = "{tmp_path / 'journal.sqlite'}"
history_dir = "{tmp_path / 'hands'}"
{tournament}""")
    return cfg


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", "run", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=120)


def test_run_check_reads_the_configs_tournament_section(tmp_path) -> None:
    cfg = _config(tmp_path, "/dev/null", tournament=SIM_TOML)
    res = _run("--config", str(cfg), "--check", "--tournament-players", "4")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["tournament"] == {"source": str(cfg), "players": 4}
    cash = _config(tmp_path, "/dev/null")
    assert json.loads(_run("--config", str(cash), "--check").stdout)["tournament"] is None


def test_run_check_names_every_mistake_of_the_tournament(tmp_path) -> None:
    bad = SIM_TOML.replace("starting_stack = 2000", "starting_stack = 2010\nlate_reg = 1")
    cfg = _config(tmp_path, "/dev/null", tournament=bad)
    res = _run("--config", str(cfg), "--check")
    assert res.returncode == 2
    assert "tournament.late_reg: unknown key" in res.stderr
    assert "tournament.starting_stack" in res.stderr
    res = _run("--config", str(_config(tmp_path, "/dev/null", tournament=SIM_TOML)), "--check",
               "--tournament-players", "7")
    assert res.returncode == 2 and "2..6 players" in res.stderr


def test_run_check_takes_a_tournament_config_file(tmp_path) -> None:
    cash = _config(tmp_path, "/dev/null")
    t = tmp_path / "stt.toml"
    t.write_text(SIM_TOML)
    res = _run("--config", str(cash), "--check", "--tournament-config", str(t))
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["tournament"]["source"] == str(t)
    res = _run("--config", str(cash), "--check", "--tournament-config", str(tmp_path / "none.toml"))
    assert res.returncode == 2 and "none.toml" in res.stderr


@pytest.fixture
def emulator():
    from drivers.shuffler.emulator import Emulator

    emu = Emulator(seed=5)
    path = emu.start()
    yield path
    emu.stop()


def _tournament_rows(journal: Path) -> list[dict]:
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        return [json.loads(p) for (p,) in db.execute("SELECT payload FROM events WHERE kind = 'tournament' "
                                                    "ORDER BY seq")]
    finally:
        db.close()


def _run_until_dealt(cfg: Path, tmp_path: Path, while_running=None) -> None:
    """Start ``livetable run``, wait for READY and a first dealt hand, call ``while_running()``,
    stop it with SIGTERM."""
    sock_path = str(tmp_path / "notify.sock")
    if os.path.exists(sock_path):
        os.unlink(sock_path)
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(sock_path)
        server.settimeout(90)
        proc = subprocess.Popen([sys.executable, "-m", "controller", "run", "--config", str(cfg),
                                 "--tournament-players", "4"], cwd=REPO,
                                env=dict(os.environ, NOTIFY_SOCKET=sock_path),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            while "READY=1" not in server.recv(4096).decode():
                pass
            journal = tmp_path / "journal.sqlite"
            for _ in range(600):  # a clock snapshot with stakes: the first hand was given its level
                if any(r["type"] == "clock" and r.get("stakes") for r in _tournament_rows(journal)):
                    break
                server.settimeout(0.1)
                try:
                    server.recv(4096)
                except socket.timeout:
                    pass
            if while_running is not None:
                while_running()
        finally:
            proc.send_signal(signal.SIGTERM)
            _out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err.decode()[-3000:]


def test_run_with_a_tournament_draws_seats_and_deals_the_first_level_then_resumes(tmp_path, emulator) -> None:
    """TDA 7 (random seats) and TDA 23 (the deal's level) at ``livetable run``; a restart
    on the same journal carries the tournament on (no second start, nobody seated twice)."""
    cfg = _config(tmp_path, emulator, tournament=SIM_TOML)
    _run_until_dealt(cfg, tmp_path)
    rows = _tournament_rows(tmp_path / "journal.sqlite")
    assert [r["type"] for r in rows][:5] == ["start", "entry", "entry", "entry", "entry"]
    assert sorted(rows[0]["draw"]) == ["p1", "p2", "p3", "p4"]
    given = [r["stakes"] for r in rows if r["type"] == "clock" and r.get("stakes")]
    assert given and given[0]["big_blind"] == 50  # the first level, not the config's 100
    _run_until_dealt(cfg, tmp_path)
    rows = _tournament_rows(tmp_path / "journal.sqlite")
    assert [r["type"] for r in rows].count("start") == 1 and [r["type"] for r in rows].count("entry") == 4
    db = sqlite3.connect(f"file:{tmp_path / 'journal.sqlite'}?mode=ro", uri=True)
    sat = [e["player"] for e in (payload_of("table", at, p) for at, p in db.execute(  # format 3: short names
        "SELECT at, payload FROM events WHERE kind = 'table'")) if e["kind"] == "player-sat-down"]
    db.close()
    assert sorted(sat) == ["p1", "p2", "p3", "p4"]  # each seated once, by its draw


def test_the_director_pauses_the_clock_of_livetable_run_with_livetable_floor(tmp_path, emulator) -> None:
    """The director's request through the floor's own path (MQTT, the table's broker):
    ``livetable floor clock-pause`` is journalled with who and why; ``status`` shows it."""
    cfg = _config(tmp_path, emulator, tournament=SIM_TOML)
    table = f"stt{os.getpid()}"
    said: dict[str, subprocess.CompletedProcess[str]] = {}

    def floor() -> None:
        for name, args in (("pause", ["clock-pause", "--by", "Anna", "--reason", "a dispute"]),
                           ("status", ["status"])):
            said[name] = subprocess.run([sys.executable, "-m", "controller", "floor", *args, "--table", table,
                                         "--timeout", "20"], cwd=REPO, capture_output=True, text=True, timeout=60)

    _run_until_dealt(cfg, tmp_path, floor)
    assert said["pause"].returncode == 0, said["pause"].stdout + said["pause"].stderr
    assert "accepted: the clock is paused at level 1" in said["pause"].stdout
    assert "CLOCK PAUSED" in said["status"].stdout, said["status"].stdout
    rows = _tournament_rows(tmp_path / "journal.sqlite")
    paused = [r for r in rows if r["type"] == "clock" and "director" in r]
    assert paused and paused[-1]["paused"] and paused[-1]["director"]["by"] == "floor:Anna"
    assert paused[-1]["director"]["reason"] == "a dispute"
