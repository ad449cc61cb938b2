"""``livetable room serve --tournament``: the room's multi-table tournament on the real room
service (issue 19, docs/tournament.md "Multi-table through the room").

Real Mosquittos (the room's and each table's, bridged: :class:`room.rig.RoomRig`), a real
``livetable room serve --tournament SETTINGS --tables t1,t2 --entries 10`` process and, as its
tables, two ``livetable simulate --tournament --tournament-room`` processes started by the
test (as a card room's tables are started on their own Pis, not by the room). The clock runs
30 times real time (``--tournament-speed``) so the tournament ends in seconds. Checked: the
result line's places and payouts (summing to the prize pool), the ``payouts`` kept in the
store, the console's ``GET /api/tournament`` while it plays and after; a ``kill -9`` of the
room mid-tournament and ``room serve`` started again with the same arguments, resuming from
the store while the tables play on; other settings, tables or entries refused (exit 2).
"""

from __future__ import annotations

import json
import os
import queue
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from drivers.mqtt.broker import free_port
from room.rig import RoomRig
from room.tournament_sim import ROOM_TOML  # 2000 chips, 8 seats a table, entry 100
from tests.room.conftest import need_mosquitto

REPO = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(REPO))
ENTRIES, PRICE = 10, 100


class Serve:
    """A ``livetable room serve`` process: its stdout lines queued, its log in a file."""

    def __init__(self, cmd: list[str], log: Path) -> None:
        self.log = log
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log.open("ab"), cwd=REPO, env=ENV,
                                     text=True)
        self.lines: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                self.lines.put(json.loads(line))
            except ValueError:
                pass

    def line(self, key: str, timeout: float) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                got = self.lines.get(timeout=0.2)
            except queue.Empty:
                assert self.proc.poll() is None, self.log.read_text()[-3000:]
                continue
            if key in got:
                return got
        pytest.fail(f"no {key!r} line from room serve within {timeout} s:\n{self.log.read_text()[-3000:]}")

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=30)


@pytest.fixture
def room(tmp_path: Path) -> Iterator[dict[str, Any]]:
    need_mosquitto()
    rig = RoomRig(tmp_path, ["t1", "t2"]).start()
    conf = tmp_path / "tournament.toml"
    conf.write_text(ROOM_TOML)
    pw = tmp_path / "room-password"
    pw.write_text(rig.room_creds["password"])
    logins = tmp_path / "floor-logins.json"
    out = subprocess.run([sys.executable, "-m", "controller.cli", "room", "serve", "--add-floor", "floor",
                          "--floor-logins", str(logins)], capture_output=True, text=True, cwd=REPO, env=ENV,
                         timeout=30, check=True)
    tables: dict[str, subprocess.Popen[bytes]] = {}
    cmd = [sys.executable, "-m", "controller.cli", "room", "serve", "--store", str(tmp_path / "room.sqlite"),
           "--broker-port", str(rig.room_broker.mqtt_port), "--user", rig.room_creds["username"],
           "--password-file", str(pw), "--floor-logins", str(logins), "--desk-port", "0",
           "--tournament", str(conf), "--tables", "t1,t2", "--entries", str(ENTRIES), "--tournament-seed", "5",
           "--tournament-speed", "30"]
    serves: list[Serve] = []
    try:
        yield {"rig": rig, "cmd": cmd, "serves": serves, "tables": tables, "tmp": tmp_path, "conf": conf,
               "floor_password": json.loads(out.stdout)["password"], "store": tmp_path / "room.sqlite"}
    finally:
        stop_tables(tables)
        for s in serves:
            if s.proc.poll() is None:
                s.proc.kill()
                s.proc.wait()
        rig.stop()


def start_tables(room: dict[str, Any]) -> None:
    """The two tables, once the room serves (as a card room's, started on their own Pis):
    records sent before the room's first subscription would wait for the tables' resend."""
    rig, tmp = room["rig"], room["tmp"]
    extra = ["--tournament", "--tournament-room", "--tournament-config", str(room["conf"]), "--seats", "8",
             "--result-seconds", "0"]
    for i, t in enumerate(["t1", "t2"]):
        login = ["--tournament-room-password-file", str(rig.tournament_password[t])]
        (tmp / t).mkdir(exist_ok=True)
        room["tables"][t] = subprocess.Popen(rig.table_command(t, 10**9, 40 + i, devices="none", extra=extra + login),
                                             stdout=subprocess.DEVNULL, stderr=(tmp / t / "table.log").open("ab"),
                                             cwd=REPO, env=ENV)


def stop_tables(tables: dict[str, subprocess.Popen[bytes]]) -> dict[str, int]:
    """SIGTERM the tables (each hands its last records to the room first); their exit codes."""
    for p in tables.values():
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    codes = {}
    for t, p in tables.items():
        try:
            codes[t] = p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            codes[t] = p.wait()
    return codes


def check_store_holds_every_hand(room: dict[str, Any]) -> None:
    """The tables stopped with the room up: its store holds every hand file of each table."""
    assert stop_tables(room["tables"]) == {"t1": 0, "t2": 0}
    with sqlite3.connect(room["store"], timeout=5) as c:
        held = dict(c.execute("SELECT table_id, COUNT(*) FROM room_hands GROUP BY table_id").fetchall())
    for t in ("t1", "t2"):
        files = len(list(room["rig"].history_dir(t).glob("hand-*.json")))
        assert files > 0 and held.get(t) == files, (t, held, files)


def serve(room: dict[str, Any], port: int) -> Serve:
    s = Serve(room["cmd"] + ["--http-port", str(port)], room["tmp"] / "serve.log")
    room["serves"].append(s)
    return s


def status(url: str, password: str) -> tuple[int, dict[str, Any]]:
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    opener.open(urllib.request.Request(url + "login", json.dumps({"name": "floor", "password": password}).encode(),
                                       {"Content-Type": "application/json"}), timeout=10)
    with opener.open(url + "api/tournament", timeout=10) as r:
        return r.status, json.loads(r.read())


def events(db: Path) -> list[tuple[str, dict[str, Any]]]:
    with sqlite3.connect(db, timeout=5) as c:
        return [(k, json.loads(p)) for k, p in c.execute("SELECT type, payload FROM room_tournament ORDER BY id")]


def check_result(result: dict[str, Any], db: Path) -> None:
    assert result["ok"], result
    assert sorted(result["places"]) == sorted(f"p{n}" for n in range(1, ENTRIES + 1))
    assert result["prize_pool"] == ENTRIES * PRICE == sum(result["payouts"])
    assert result["payouts"] == sorted(result["payouts"], reverse=True) and result["payouts"][0] > 0
    kept = [p for k, p in events(db) if k == "payouts"]
    assert kept == [{k: result[k] for k in ("places", "payouts", "prize_pool")}]
    assert [k for k, _ in events(db)].count("start") == 1
    assert [k for k, _ in events(db)].count("entry") == ENTRIES  # nobody registered twice


def test_room_serve_runs_the_tournament_on_its_tables_to_a_winner(room: dict[str, Any]) -> None:
    s = serve(room, free_port())
    url = s.line("serving", 30)["console"]
    start_tables(room)
    code, st = status(url, room["floor_password"])  # while it plays: the director's status, not 409
    assert code == 200 and st["entries"] == ENTRIES and [t["table"] for t in st["tables"]] == ["t1", "t2"], st
    result = s.line("tournament", 60)["tournament"]
    check_result(result, room["store"])
    assert not result["resumed"]
    code, st = status(url, room["floor_password"])  # over: still answered, the service keeps serving
    assert code == 200 and st["finished"] and st["players_left"] == 1, st
    assert s.proc.poll() is None
    check_store_holds_every_hand(room)
    assert s.stop() == 0
    log = s.log.read_text()
    assert "the tournament is over" in log and "the tournament's result (kept in the room's store)" in log


def test_room_serve_killed_mid_tournament_resumes_from_the_store(room: dict[str, Any]) -> None:
    """kill -9 of the room after the first bust; the tables play on (their reports wait in
    the brokers); ``room serve`` again with the same arguments resumes and ends it."""
    s = serve(room, free_port())
    s.line("serving", 30)
    start_tables(room)
    deadline = time.monotonic() + 60
    while not any(k == "bust" for k, _ in events(room["store"])):
        assert time.monotonic() < deadline and s.proc.poll() is None, s.log.read_text()[-3000:]
        time.sleep(0.05)  # polling another process's store
    s.proc.kill()
    s.proc.wait()
    again = serve(room, free_port())
    again.line("serving", 30)
    result = again.line("tournament", 60)["tournament"]
    assert result["resumed"]
    check_result(result, room["store"])
    assert "resumed from the store" in again.log.read_text()
    check_store_holds_every_hand(room)  # what the tables sent while the room was down too
    assert again.stop() == 0


def test_room_serve_refuses_another_tournament_than_the_stored_one(tmp_path: Path) -> None:
    """Fast: a store holding a tournament (started here without brokers) and ``room serve``
    asked for other settings, tables or entries: exit 2 with the reason, nothing written."""
    from room.store import open_store
    from room.tournament_serve import TournamentRunner

    class Service:
        on_tournament_report = None

        def tournament_order(self, table: str, payload: bytes) -> None:
            pass

    db = tmp_path / "room.sqlite"
    store = open_store(db)
    TournamentRunner(store, Service(), ROOM_TOML, ["t1", "t2"]).open(8, 3)
    store.close()
    before = events(db)
    conf, other = tmp_path / "same.toml", tmp_path / "other.toml"
    conf.write_text(ROOM_TOML)
    other.write_text(ROOM_TOML.replace("starting_stack = 2000", "starting_stack = 3000"))
    pw = tmp_path / "pw"
    pw.write_text("x")
    base = [sys.executable, "-m", "controller.cli", "room", "serve", "--store", str(db), "--password-file", str(pw),
            "--http-port", "0", "--desk-port", "0", "--broker-port", str(free_port())]
    for args, said in [(["--tournament", str(other), "--tables", "t1,t2"], "other settings"),
                       (["--tournament", str(conf), "--tables", "t1,t3"], "on tables t1,t2, not t1,t3"),
                       (["--tournament", str(conf), "--tables", "t1,t2", "--entries", "6"], "of 8 entries, not 6"),
                       (["--tournament", str(conf)], "needs --tables"),
                       (["--tables", "t1,t2"], "go with --tournament")]:
        out = subprocess.run(base + args, capture_output=True, text=True, cwd=REPO, env=ENV, timeout=30)
        assert out.returncode == 2 and said in out.stderr, (args, out.stderr)
    assert events(db) == before
