"""``livetable run`` as one table of the room's multi-table tournament (issue 19).

The tournament's orders and reports travel ``livetable/<t>/tournament/order`` and
``.../report`` on the table's broker, bridged to ``room/tables/<t>/tournament/...`` on the
room's. ``room provision`` already wrote the bridge's ``tournament/order in`` and
``tournament/report out`` lines and lets ``table-<t>`` read the one and write the other
(room/provision.py). What was missing is on the table's broker: the link logged in as
``controller``, the login of the table's MQTT link too, and the broker takes a login as the
client's id (mosquitto/livetable.conf ``use_username_as_clientid``), so each ended the other's
session (the table paused ``broker-lost``, over and over). ``livetable tablets provision``
now makes the link's own login, ``<t>-tournament`` (drivers/mqtt/provision.py), allowed
only those two topics. Shown here on real Mosquittos with the provisioned files and logins,
then with a real ``livetable run`` (the shuffler emulator on a pty, its MQTT link up) as one
table of a two-table room tournament whose other table is ``livetable simulate``.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from room.rig import RoomRig
from tests.room.conftest import need_mosquitto

REPO = Path(__file__).resolve().parents[2]


class _Client:
    """A paho client on 127.0.0.1:``port`` that queues every message it gets."""

    def __init__(self, port: int, user: str, password: str, subs: list[str]) -> None:
        self.q: queue.Queue[tuple[str, bytes]] = queue.Queue()
        subscribed: queue.Queue[Any] = queue.Queue()
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
        self.c.username_pw_set(user, password)
        self.c.on_message = lambda c, u, m: self.q.put((m.topic, bytes(m.payload)))
        self.c.on_subscribe = lambda c, u, mid, codes, p: subscribed.put(codes)
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()
        for s in subs:
            self.c.subscribe(s, 1)
            codes = subscribed.get(timeout=5)
            assert all(not getattr(rc, "is_failure", False) for rc in codes), (s, codes)

    def send_until_heard(self, topic: str, payload: str, other: "_Client", timeout: float = 15.0) -> str:
        """Publish ``payload`` (numbered) on ``topic`` until ``other`` gets it (a bridge just
        connected may not have subscribed yet); return the topic it arrived on."""
        end, n = time.monotonic() + timeout, 0
        while time.monotonic() < end:
            n += 1
            mine = f"{payload} {n}".encode()
            self.c.publish(topic, mine, qos=1).wait_for_publish(5)
            t_end = time.monotonic() + 1.0
            while time.monotonic() < t_end:
                try:
                    t, p = other.q.get(timeout=0.2)
                except queue.Empty:
                    continue
                if p.startswith(payload.encode()):
                    return t
        pytest.fail(f"{payload!r} on {topic} never arrived")

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[RoomRig]:
    need_mosquitto()
    r = RoomRig(tmp_path, ["t1", "t2"]).start()
    yield r
    r.stop()


def test_the_provisioned_bridge_carries_orders_in_and_reports_out_on_the_links_own_login(rig: RoomRig) -> None:
    """``t1-tournament`` (``[room] tournament_password_file``) takes t1's orders and sends its
    reports through the provisioned bridge, with the table's ``controller`` connected on its
    own login all along (it is not thrown off)."""
    controller = _Client(rig.brokers["t1"].mqtt_port, "controller",
                         rig.controller_password["t1"].read_text().strip(), [])
    lost: list[Any] = []
    controller.c.on_disconnect = lambda *a: lost.append(a)
    pw = rig.tournament_password["t1"].read_text().strip()
    table = _Client(rig.brokers["t1"].mqtt_port, "t1-tournament", pw, ["livetable/t1/tournament/order"])
    room = _Client(rig.room_broker.mqtt_port, rig.room_creds["username"], rig.room_creds["password"],
                   ["room/tables/+/tournament/report"])
    try:
        assert room.send_until_heard("room/tables/t1/tournament/order", "order", table) \
            == "livetable/t1/tournament/order"
        assert table.send_until_heard("livetable/t1/tournament/report", "report", room) \
            == "room/tables/t1/tournament/report"
        assert lost == []  # the controller's session was not taken over
    finally:
        table.close()
        room.close()
        controller.close()


def test_the_links_login_reads_and_writes_nothing_else(rig: RoomRig) -> None:
    """``t1-tournament`` gets none of t1's state or t2's orders and cannot write t2's reports
    or t1's orders. The broker drops what the ACL refuses without a word, so each refusal is
    shown by a message on an allowed topic sent after it (one client's order is kept)."""
    port = rig.brokers["t1"].mqtt_port
    controller = _Client(port, "controller", rig.controller_password["t1"].read_text().strip(),
                         ["livetable/+/tournament/#"])
    link = _Client(port, "t1-tournament", rig.tournament_password["t1"].read_text().strip(),
                   ["livetable/t1/state", "livetable/t2/tournament/order", "livetable/t1/tournament/order"])
    try:
        for topic in ("livetable/t1/state", "livetable/t2/tournament/order"):
            controller.c.publish(topic, b"not for the link", qos=1).wait_for_publish(5)
        controller.c.publish("livetable/t1/tournament/order", b"control 1", qos=1).wait_for_publish(5)
        got = [link.q.get(timeout=5)]
        assert got == [("livetable/t1/tournament/order", b"control 1")]
        link.c.publish("livetable/t2/tournament/report", b"forged", qos=1).wait_for_publish(5)
        link.c.publish("livetable/t1/tournament/order", b"forged", qos=1).wait_for_publish(5)
        link.c.publish("livetable/t1/tournament/report", b"control 2", qos=1).wait_for_publish(5)
        seen = []
        while not seen or seen[-1][1] != b"control 2":
            seen.append(controller.q.get(timeout=5))
        assert [m for m in seen if m[1] == b"forged"] == [], seen
    finally:
        link.close()
        controller.close()


def _config(tmp_path: Path, rig: RoomRig, shuffler: str) -> Path:
    cfg = tmp_path / "t1-table.toml"
    cfg.write_text(f"""
[table]
id = "t1"
name = "Aspen"
seats = 8
big_blind = 100
action_seconds = 5

[shuffler]
port = "{shuffler}"

[mqtt]
host = "127.0.0.1"
port = {rig.brokers['t1'].mqtt_port}
username = "controller"
password_file = "{rig.controller_password['t1']}"

[journal]
path = "{rig.journal('t1')}"
history_dir = "{rig.history_dir('t1')}"

[room]
tournament = true
tournament_password_file = "{rig.tournament_password['t1']}"
""")
    return cfg


def test_livetable_run_is_a_table_of_a_two_table_room_tournament(tmp_path: Path, rig: RoomRig) -> None:
    """The draw's order reaches ``livetable run`` (its players sit down with their starting
    stacks) and its report reaches the room's director, who then gives it the first deal;
    the other table is ``livetable simulate --tournament --tournament-room``."""
    from drivers.shuffler.emulator import Emulator
    from room.service import RoomService
    from room.store import open_store
    from room.tournament import RoomTournament, StoreJournal
    from room.tournament_sim import ROOM_TOML  # 2000 chips, 8 seats a table

    from controller.tournament.settings import load_settings
    from controller.tournament_run import journal_plays

    conf = tmp_path / "tournament.toml"
    conf.write_text(ROOM_TOML)
    store = open_store(tmp_path / "room.sqlite")
    service = RoomService(store, host="127.0.0.1", port=rig.room_broker.mqtt_port, **rig.room_creds)
    reports: queue.SimpleQueue[tuple[str, bytes]] = queue.SimpleQueue()
    service.on_tournament_report = lambda t, p: reports.put((t, p))
    service.start()
    emu = Emulator(seed=5)
    pty = emu.start()
    env = dict(os.environ, PYTHONPATH=str(REPO))
    (tmp_path / "t2").mkdir(exist_ok=True)
    procs = {
        "t1": subprocess.Popen([sys.executable, "-m", "controller", "run", "--config",
                                str(_config(tmp_path, rig, pty))], cwd=REPO, env=env,
                               stdout=subprocess.PIPE, stderr=(tmp_path / "t1.log").open("wb")),
        "t2": subprocess.Popen(rig.table_command("t2", 10**9, 7, devices="none", extra=[
            "--tournament", "--tournament-room", "--tournament-config", str(conf), "--seats", "8",
            "--result-seconds", "0"]), cwd=REPO, env=env, stdout=subprocess.PIPE,
            stderr=(tmp_path / "t2.log").open("wb")),
    }
    t0 = time.monotonic()
    director = RoomTournament(load_settings(ROOM_TOML), ROOM_TOML, ["t1", "t2"], StoreJournal(store),
                              service.tournament_order, lambda: time.monotonic() - t0)
    seen: list[dict[str, Any]] = []
    try:
        director.start(6, 11)
        drawn = {m["player"]: m["to_seat"] for m in director.moves.values() if m["to"] == "t1"}
        assert drawn
        deadline = time.monotonic() + 45
        while time.monotonic() < deadline:
            try:
                t, payload = reports.get(timeout=0.05)
                director.report(t, payload)
                if t == "t1":
                    seen.append(json.loads(payload))
            except queue.Empty:
                pass
            director.step()
            if any(r["hands"] >= 1 or r["running"] for r in seen if r["applied"] >= 1):
                break
            for t, p in procs.items():
                assert p.poll() is None, (t, (tmp_path / f"{t}.log").read_text()[-3000:])
        log = (tmp_path / "t1.log").read_text()
        taken = [r for r in seen if r["applied"] >= 1 and not any(r["refused_in"].values())]
        assert taken, f"no report of the draw from t1: {seen[-3:]}\n{log[-3000:]}"
        assert {p: int(s) for s, (p, _chips) in taken[0]["seats"].items()} == drawn
        assert all(chips == 2000 for _p, chips in taken[0]["seats"].values())
        assert director.reports["t1"]["applied"] >= 1  # the room took t1's report
        # the room's go for the first hand: the run table deals it (the shuffler emulator's deck)
        assert any(r["running"] or r["hands"] >= 1 for r in taken), f"{seen[-3:]}\n{log[-3000:]}"
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        codes = {t: p.wait(timeout=30) for t, p in procs.items()}
        service.stop()
        store.close()
        emu.stop()
    log = (tmp_path / "t1.log").read_text()
    assert codes["t1"] == 0, log[-3000:]
    assert "broker-lost" not in log, log[-3000:]  # the link's login never threw off the table's MQTT link
    assert journal_plays(rig.journal("t1")) == "room-tournament"
    # TDA 23: the hand was dealt at the stakes of the room's go (level 1: 25/50), not the config's 100
    import sqlite3

    with sqlite3.connect(rig.journal("t1")) as db:
        from controller.journal import payload_of  # format 3 stores short names (issue 21)

        starts = [e for e in (payload_of("table", at, p) for at, p in db.execute(
            "SELECT at, payload FROM events WHERE kind = 'table' ORDER BY seq")) if e["kind"] == "hand-start-requested"]
    assert starts and starts[0]["level"] == {"small_blind": 25, "big_blind": 50, "ante": 0, "big_blind_ante": 0}
