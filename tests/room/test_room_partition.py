"""Partitions and a killed room service (issue 17): tables never pause, the room converges.

Simulated tables play (``livetable simulate --room-outbox``, each with its Mosquitto
bridged to the room broker) while the test, at moments drawn from a seeded random source
(after a random number of new journal records), either stops the room broker (every
bridge is cut), blocks some tables' links (a forwarder between each bridge and the room
broker, tests/room/forwarder.py: connections reset, or stalled with nothing moving) or
kills the room service with SIGKILL (``livetable room serve`` in its own
process), lets the tables play on, and heals. During each outage every table's journal must
grow (no table pauses); at the end no table has a fault, and once the tables stopped the
room holds every record of every table exactly once, every hand equal to its table's
history and its meters equal to the tables' to the chip.

A modest count with two tables in the normal suite (2 broker stops, 2 kills, 3 blocked
links); under ``slow``, 50 stops and 50 kills with three tables, and 50 blocked links.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from room.simulate import RoomRig
from room.store import open_store
from tests.room.conftest import REPO, need_mosquitto
from tests.room.forwarder import Forwarder

WAIT = 60.0  # seconds: the bound of every wait below


def wait_for(cond: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    """Poll ``cond`` until it holds; fail naming ``what`` after ``timeout`` s."""
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            pytest.fail(f"not within {timeout} s: {what}")
        time.sleep(0.05)  # polling a condition of other processes: there is nothing to wait on


def journal_seq(path: Path) -> int:
    """The newest seq of a table's journal (read only, as the outbox reads it)."""
    if not path.exists():
        return 0
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])
    except sqlite3.Error:
        return 0
    finally:
        db.close()


class Room:
    """The rig, the room service process and the tables' processes."""

    def __init__(self, tmp: Path, store_url: str, tables: int = 3) -> None:
        self.names = [f"t{i}" for i in range(1, tables + 1)]
        # each table's link to the room through a forwarder the test cuts (tests/room/forwarder.py)
        self.links = {t: Forwarder() for t in self.names}
        self.rig = RoomRig(tmp, self.names, restart_timeout=(1, 1),
                           link_ports={t: f.port for t, f in self.links.items()})
        for f in self.links.values():
            f.target = self.rig.room_broker.mqtt_port
        self.rig.start()
        self.store_url = store_url
        # A table that stops journalling is sent SIGABRT: faulthandler writes its threads'
        # stacks into its log (tN.log beside the run) for the failure's reader.
        self.env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONFAULTHANDLER="1")
        self.service: subprocess.Popen[bytes] | None = None
        self.service_log = tmp / "room-service.log"
        self.start_service()
        self.tables = {t: subprocess.Popen(
            self.rig.table_command(t, 10**6, 900 + i, resend=2.0, devices="none", extra=["--speed", "20"]),
            stdout=subprocess.PIPE, stderr=(tmp / f"{t}.log").open("wb"), env=self.env, cwd=str(REPO))
            for i, t in enumerate(self.names)}

    def start_service(self) -> None:
        self.service = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "room", "serve", "--store", self.store_url,
             "--broker-port", str(self.rig.room_broker.mqtt_port), "--http-port", "0", "--desk-port", "0",
             "--log-level", "info",
             "--provision-dir", str(self.rig.room_dir / "mosquitto")],
            stdout=subprocess.PIPE, stderr=self.service_log.open("ab"), env=self.env, cwd=str(REPO))
        line = self.service.stdout.readline()  # printed once connected (or after 30 s)
        assert json.loads(line)["serving"] is True

    def kill_service(self) -> None:
        assert self.service is not None
        self.service.send_signal(signal.SIGKILL)
        self.service.wait(10)
        self.service.stdout.close()

    def seqs(self) -> dict[str, int]:
        return {t: journal_seq(self.rig.journal(t)) for t in self.names}

    def tables_advance(self, records: int) -> None:
        """Wait until every table has journalled ``records`` more (they play on)."""
        start = self.seqs()
        try:
            wait_for(lambda: all(journal_seq(self.rig.journal(t)) >= start[t] + records for t in self.names),
                     f"every table journals {records} more records (a table paused?)")
        except BaseException:
            for t, p in self.tables.items():
                if journal_seq(self.rig.journal(t)) < start[t] + records and p.poll() is None:
                    p.send_signal(signal.SIGABRT)
            raise

    def finish(self) -> dict[str, dict[str, Any]]:
        """SIGTERM the tables; return their summaries (their outboxes drain first)."""
        for p in self.tables.values():
            p.send_signal(signal.SIGTERM)
        out = {}
        for t, p in self.tables.items():
            text, _ = p.communicate(timeout=120)
            out[t] = json.loads(text.decode().strip().splitlines()[-1])
        return out

    def close(self) -> None:
        for p in self.tables.values():
            if p.poll() is None:
                p.kill()
                p.wait()
        if self.service is not None and self.service.poll() is None:
            self.service.send_signal(signal.SIGTERM)
            self.service.wait(20)
        self.rig.stop()
        for f in self.links.values():
            f.stop()


def partition_run(tmp: Path, store_url: str, broker_cuts: int, kills: int, seed: int, tables: int = 3,
                  blocks: int = 0) -> None:
    """``broker_cuts`` room broker stops, ``kills`` SIGKILLs of the room service and ``blocks``
    blocked links (some tables' links reset or stalled, tests/room/forwarder.py), in a seeded
    random order at random moments, while the tables play; then check the room converged."""
    need_mosquitto()
    rng = random.Random(seed)
    room = Room(tmp, store_url, tables)
    try:
        room.tables_advance(20)
        plan = ["cut"] * broker_cuts + ["kill"] * kills + ["block"] * blocks
        rng.shuffle(plan)
        for what in plan:
            room.tables_advance(rng.randint(1, 80))  # a random moment
            if what == "block":
                cut = rng.sample(room.names, rng.randint(1, len(room.names)))
                how = rng.choice(["reset", "stall"])
                for t in cut:
                    room.links[t].cut(how)
                room.tables_advance(rng.randint(5, 60))  # the tables play on, their links blocked
                for t in cut:
                    room.links[t].heal()
            elif what == "cut":
                room.rig.room_broker.stop()
                room.tables_advance(rng.randint(5, 60))  # the tables play on, the link down
                room.rig.room_broker.start()
            else:
                room.kill_service()
                room.tables_advance(rng.randint(5, 60))
                room.start_service()
        summaries = room.finish()
        store = open_store(store_url)
        try:
            def converged() -> bool:
                return all((store.table_row(t) or {}).get("applied_upto") == summaries[t]["room_link"]["last_seq"]
                           for t in room.names)
            wait_for(converged, "the room holds every record of every table")
            for t, s in summaries.items():
                assert s["faults"] == [], f"table {t} paused on {s['faults']}"
                assert s["hands"] > 0
                last = s["room_link"]["last_seq"]
                assert store.record_count(t) == last == journal_seq(room.rig.journal(t))
                files = sorted(room.rig.history_dir(t).glob("hand-*.json"))
                assert store.hand_count(t) == len(files)
                for f in files:
                    record = json.loads(f.read_text())
                    assert store.hand(t, record["hand"]) == record
                row = store.table_row(t)
                meters = ("total_in", "total_out", "rake")  # the summary also gives on_table
                assert {k: row[k] for k in meters} == {k: s["room"][k] for k in meters}
        finally:
            store.close()
    finally:
        room.close()


@pytest.mark.broker
@pytest.mark.timeout(600)
def test_cuts_and_kills_sqlite(tmp_path: Path) -> None:
    partition_run(tmp_path, str(tmp_path / "room.sqlite"), broker_cuts=2, kills=2, seed=11, tables=2, blocks=3)


@pytest.mark.broker
@pytest.mark.timeout(600)
def test_cuts_and_kills_postgresql(tmp_path: Path, pg_database: str) -> None:
    from tests.room.conftest import _empty_pg

    _empty_pg(pg_database)
    partition_run(tmp_path, pg_database, broker_cuts=2, kills=2, seed=12, tables=2, blocks=3)


@pytest.mark.slow
@pytest.mark.broker
@pytest.mark.timeout(3600)
def test_fifty_cuts_and_fifty_kills_postgresql(tmp_path: Path, pg_database: str) -> None:
    from tests.room.conftest import _empty_pg

    _empty_pg(pg_database)
    partition_run(tmp_path, pg_database, broker_cuts=50, kills=50, seed=50)


@pytest.mark.slow
@pytest.mark.broker
@pytest.mark.timeout(3600)
def test_fifty_blocked_links_postgresql(tmp_path: Path, pg_database: str) -> None:
    from tests.room.conftest import _empty_pg

    _empty_pg(pg_database)
    partition_run(tmp_path, pg_database, broker_cuts=0, kills=0, seed=53, blocks=50)


@pytest.mark.slow
@pytest.mark.broker
@pytest.mark.timeout(3600)
def test_fifty_blocked_links_sqlite(tmp_path: Path) -> None:
    partition_run(tmp_path, str(tmp_path / "room.sqlite"), broker_cuts=0, kills=0, seed=54, blocks=50)
