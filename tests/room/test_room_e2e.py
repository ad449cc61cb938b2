"""A room end to end (issue 17): ``livetable room simulate`` with real brokers bridged.

Each table is today's ``livetable simulate`` (shuffler emulator, its own Mosquitto) with its
outbox on; every table's Mosquitto bridges to the room broker; the room service stores into
PostgreSQL (and, in one run, the embedded SQLite). The test checks the room's store itself,
not only the command's own verdict: every hand in the archive equals its table's hand
history (JSON record and PHH), and the room's meters equal the tables' to the chip.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller.history import record_to_phh
from room.store import open_store
from tests.room.conftest import REPO, _empty_pg, need_mosquitto


def room_simulate(tmp_path: Path, store: str, tables: int, hands: int) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "controller.cli", "room", "simulate", "--tables", str(tables), "--hands", str(hands),
         "--headless", "--store", store, "--dir", str(tmp_path / "room-run"), "--seed", "4242"],
        capture_output=True, text=True, timeout=1500, cwd=str(REPO))
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def check_room(tmp_path: Path, store_url: str, summary: dict[str, Any], tables: int, hands: int) -> None:
    assert summary["tables"] == tables and summary["balanced"] is True
    # each outbox logs in with its own login: never thrown off its table's broker
    assert [p["outbox"]["disconnects"] for p in summary["per_table"]] == [0] * tables
    store = open_store(store_url)
    try:
        assert store.table_ids() == [f"t{i}" for i in range(1, tables + 1)]
        total = {"total_in": 0, "total_out": 0, "rake": 0}
        held = 0
        for t in store.table_ids():
            files = sorted((tmp_path / "room-run" / t / "hands").glob("hand-*.json"))
            assert len(files) >= hands  # every hand the table played (voided ones count too)
            assert store.hand_count(t) == len(files)
            held += len(files)
            for f in files:
                record = json.loads(f.read_text())
                assert store.hand(t, record["hand"]) == record, f
                assert record_to_phh(record) == f.with_suffix(".phh").read_text()
            meters = next(p["table_meters"] for p in summary["per_table"] if p["table"] == t)
            row = store.table_row(t)
            for k in total:
                assert row[k] == meters[k], (t, k)
                total[k] += meters[k]
        assert summary["hands"] == held == store.hand_count()
        room = store.totals()
        assert {k: room[k] for k in total} == total
    finally:
        store.close()


@pytest.mark.broker
@pytest.mark.timeout(600)
def test_four_tables_into_postgresql(tmp_path: Path, pg_database: str) -> None:
    need_mosquitto()
    _empty_pg(pg_database)
    summary = room_simulate(tmp_path, pg_database, 4, 8)
    assert summary["store"] == "postgresql"
    check_room(tmp_path, pg_database, summary, 4, 8)


@pytest.mark.broker
@pytest.mark.timeout(600)
def test_four_tables_into_the_embedded_sqlite(tmp_path: Path) -> None:
    need_mosquitto()
    url = str(tmp_path / "room.sqlite")
    summary = room_simulate(tmp_path, url, 4, 5)
    assert summary["store"] == "sqlite"
    check_room(tmp_path, url, summary, 4, 5)


@pytest.mark.slow
@pytest.mark.broker
@pytest.mark.timeout(3000)
def test_four_tables_200_hands_into_postgresql(tmp_path: Path, pg_database: str) -> None:
    need_mosquitto()
    _empty_pg(pg_database)
    summary = room_simulate(tmp_path, pg_database, 4, 200)
    check_room(tmp_path, pg_database, summary, 4, 200)


def test_balance_is_false_when_the_store_misses_a_hand_or_a_chip(tmp_path: Path) -> None:
    from room.simulate import balance

    class Rig:
        def history_dir(self, t: str) -> Path:
            return tmp_path / t

    (tmp_path / "t1").mkdir()
    (tmp_path / "t1" / "hand-000001.json").write_text("{}")

    class Store:
        def __init__(self, hands: int, rake: int) -> None:
            self.hands, self.rake = hands, rake

        def table_row(self, t: str) -> dict[str, Any]:
            return {"total_in": 100, "total_out": 0, "rake": self.rake, "applied_upto": 9}

        def hand_count(self, t: str) -> int:
            return self.hands

    table = {"t1": {"room": {"total_in": 100, "total_out": 0, "rake": 5}, "room_link": {"last_seq": 9}}}
    assert balance(Store(1, 5), table, Rig())["balanced"] is True
    assert balance(Store(0, 5), table, Rig())["balanced"] is False
    assert balance(Store(1, 4), table, Rig())["balanced"] is False
    assert balance(Store(1, 5), {}, Rig())["balanced"] is False


@pytest.mark.broker
@pytest.mark.timeout(300)
def test_the_outbox_never_throws_the_controller_off_its_broker(tmp_path: Path) -> None:
    """The table's broker gives each client its login as its id (mosquitto/livetable.conf):
    an outbox on the controller's login would end the controller's session (a ``broker-lost``
    fault at the table) and be ended by the controller's reconnect, over and over. The
    outbox has its own login: a table with its MQTT link and its outbox plays its hands
    without one lost connection on either side, and the room holds every record."""
    import os

    from room.service import RoomService
    from room.simulate import RoomRig

    need_mosquitto()
    rig = RoomRig(tmp_path, ["t1"]).start()
    store = open_store(tmp_path / "room.sqlite")
    service = RoomService(store, host="127.0.0.1", port=rig.room_broker.mqtt_port, **rig.room_creds).start()
    try:
        out = subprocess.run(rig.table_command("t1", 3, 31, resend=2.0), capture_output=True, text=True,
                             timeout=240, cwd=str(REPO), env=dict(os.environ, PYTHONPATH=str(REPO)))
        assert out.returncode == 0, out.stderr[-3000:]
        summary = json.loads(out.stdout.strip().splitlines()[-1])
        link = summary["room_link"]
        assert service.wait_applied("t1", link["last_seq"], 60)
    finally:
        service.stop()
        rig.stop()
    lost = [f for f in summary["faults"] if f.get("kind") == "broker-lost"]
    assert lost == [], lost
    assert link["disconnects"] == 0 and link["acked"] == link["last_seq"] > 0
    assert store.table_row("t1")["applied_upto"] == link["last_seq"]
    store.close()
