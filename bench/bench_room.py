"""Bench (issue 17): the room service's store rate, end-to-end latency and memory.

1. **Store rate.** Journals of real simulated tables (``livetable simulate --devices none``)
   are fed to :class:`room.apply.Room` a hand's burst at a time (about 50 records per
   message, as the outbox sends them), for ``--tables`` table ids, into PostgreSQL and into
   SQLite: records stored, replayed and committed per second. Anchor: what a 60-table room
   needs at a live pace: 60 tables x 30 hands an hour x ~50 records a hand = 25 records/s;
   the ratio printed is measured / needed (> 1 is met).
2. **Latency.** One simulated table at a brisk pace (``--speed 20``) with its Mosquitto
   bridged to the room broker and the room service storing into SQLite: for every record,
   from the table's journal time to the room's commit (when the console can show it), through
   both brokers. Prints p50 / p99 / max; anchor: 1 s (a floor manager's "at once").
3. **Memory.** The room service's resident memory after taking 60 tables' records (each
   table a real journal, sent through the room broker as the bridges would): RSS before and
   after, and per table.

    .venv/bin/python bench/bench_room.py [--tables 60] [--hands 20] [--pg postgresql://...]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from room.apply import Room, check_batch  # noqa: E402
from room.store import open_store  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
NEED_PER_S = 60 * 30 * 50 / 3600  # 25 records/s for 60 tables at a live pace
LATENCY_GOAL_S = 1.0


def journal(workdir: Path, hands: int, seed: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Play ``hands`` hands; return the journal's base and records."""
    subprocess.run([sys.executable, "-m", "controller.cli", "simulate", "--hands", str(hands), "--headless",
                    "--devices", "none", "--quiet", "--seed", str(seed), "--journal", str(workdir / "j.sqlite")],
                   check=True, capture_output=True, cwd=str(REPO))
    db = sqlite3.connect(workdir / "j.sqlite")
    upto, state = db.execute("SELECT upto, state FROM snapshots ORDER BY upto LIMIT 1").fetchone()
    from controller.journal import payload_of  # the rows as appended: format 3's short names made long

    recs = [{"seq": s, "at": a, "kind": k, "payload": payload_of(k, a, p)}
            for s, a, k, p in db.execute("SELECT seq, at, kind, payload FROM events ORDER BY seq")]
    return {"upto": upto, "state": json.loads(state)}, recs


def bursts(recs: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Split records at each hand's end (a table's burst)."""
    out, cur = [], []
    for r in recs:
        cur.append(r)
        if r["kind"] == "table" and r["payload"].get("kind") in ("hand-start-requested",) and len(cur) > 1:
            out.append(cur)
            cur = []
    return out + ([cur] if cur else [])


def store_rate(url: str, base: dict[str, Any], recs: list[dict[str, Any]], tables: int) -> float:
    store = open_store(url)
    room = Room(store, time.time)
    chunks = bursts(recs)
    n = 0
    t0 = time.perf_counter()
    for i, chunk in enumerate(chunks):
        for t in range(tables):
            table = f"b{t}"
            msg = {"table": table, "records": chunk}
            if i == 0:
                msg["base"] = base
            room.receive(table, *check_batch(table, msg))
            n += len(chunk)
    dt = time.perf_counter() - t0
    store.close()
    return n / dt


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def latency(workdir: Path, hands: int) -> dict[str, float]:
    from room.service import RoomService
    from room.simulate import RoomRig

    rig = RoomRig(workdir / "lat", ["t1"], restart_timeout=(1, 2)).start()
    store = open_store(workdir / "lat" / "room.sqlite")
    applied_at: dict[int, float] = {}
    service = RoomService(store, host="127.0.0.1", port=rig.room_broker.mqtt_port, **rig.room_creds)
    orig = service.room.on_applied

    def stamp(table: str, ack: Any) -> None:
        now = time.time()
        for s in range(max(applied_at, default=0) + 1, ack.upto + 1):
            applied_at[s] = now
        orig(table, ack)

    service.room.on_applied = stamp
    service.start()
    try:
        subprocess.run(rig.table_command("t1", hands, 5, devices="none", extra=["--speed", "20"]),
                       check=True, capture_output=True, cwd=str(REPO), env=dict(os.environ, PYTHONPATH=str(REPO)))
    finally:
        service.stop()
        rig.stop()
    db = sqlite3.connect(rig.journal("t1"))
    rows = [(at, applied_at[s]) for s, at in db.execute("SELECT seq, at FROM events") if s in applied_at]
    first_commit = min(done for _, done in rows)
    lat = sorted(done - at for at, done in rows)
    # Steady state: records journalled once the room had committed the first batch (at start
    # the outbox waits up to 2 s for the room's retained acknowledgement before sending).
    steady = sorted(done - at for at, done in rows if at > first_commit)
    store.close()
    return {"records": len(lat), "p50": lat[len(lat) // 2], "p99": lat[int(len(lat) * 0.99)], "max": lat[-1],
            "steady": len(steady), "steady_p50": steady[len(steady) // 2],
            "steady_p99": steady[int(len(steady) * 0.99)], "steady_max": steady[-1]}


def memory(workdir: Path, base: dict[str, Any], recs: list[dict[str, Any]], tables: int) -> dict[str, float]:
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    from drivers.mqtt.broker import BrokerProcess
    from room.provision import provision_table, room_credentials
    from room.service import RoomService
    from room.simulate import ROOM_CONF

    pdir = workdir / "mem" / "prov"
    creds = room_credentials(pdir)
    broker = BrokerProcess(workdir / "mem" / "broker", passwd=pdir / "passwd", acl=pdir / "acl", config=ROOM_CONF)
    names = [f"m{i}" for i in range(tables)]
    for t in names:
        provision_table(pdir, t, host="127.0.0.1", port=broker.mqtt_port)
    clear = json.loads((pdir / "credentials" / "room.json").read_text())
    broker.start()
    store = open_store(workdir / "mem" / "room.sqlite")
    before = rss_mb()
    service = RoomService(store, host="127.0.0.1", port=broker.mqtt_port, **creds).start()
    service.wait_connected(10)
    clients = []
    try:
        for t in names:  # each table's bridge login publishes its records, a burst at a time
            c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
            c.username_pw_set(f"table-{t}", clear[f"table-{t}"])
            c.connect("127.0.0.1", broker.mqtt_port)
            c.loop_start()
            clients.append(c)
            for i, chunk in enumerate(bursts(recs)):
                msg: dict[str, Any] = {"table": t, "records": chunk}
                if i == 0:
                    msg["base"] = base
                c.publish(f"room/tables/{t}/records", json.dumps(msg), qos=1)
        last = recs[-1]["seq"]
        for t in names:
            assert service.wait_applied(t, last, 300), f"{t} not applied"
        after = rss_mb()
    finally:
        for c in clients:
            c.disconnect()
            c.loop_stop()
        service.stop()
        store.close()
        broker.stop()
    return {"before_mb": before, "after_mb": after, "per_table_kb": (after - before) * 1024 / tables}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=60)
    p.add_argument("--hands", type=int, default=20, help="hands per table journal")
    p.add_argument("--pg", default=os.environ.get("LIVETABLE_TEST_PG", "postgresql://livetable:livetable@127.0.0.1:5432/postgres"))
    args = p.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-room-"))
    base, recs = journal(work, args.hands, 7)
    print(f"journal: {len(recs)} records, {args.hands} hands; {len(bursts(recs))} messages per table")
    rate_sqlite = store_rate(str(work / "rate.sqlite"), base, recs, args.tables)
    print(f"store rate sqlite:     {rate_sqlite:8.0f} records/s  ratio {rate_sqlite / NEED_PER_S:6.1f} "
          f"x the 60-table need ({NEED_PER_S:.0f}/s)")
    try:
        import psycopg

        name = f"bench_room_{os.getpid()}"
        with psycopg.connect(args.pg, autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {name}")
        try:
            rate_pg = store_rate(args.pg.rsplit("/", 1)[0] + "/" + name, base, recs, args.tables)
            print(f"store rate postgresql: {rate_pg:8.0f} records/s  ratio {rate_pg / NEED_PER_S:6.1f} "
                  f"x the 60-table need")
        finally:
            with psycopg.connect(args.pg, autocommit=True) as admin:
                admin.execute(f"DROP DATABASE {name} WITH (FORCE)")
    except Exception as exc:  # no PostgreSQL here: say so, measure the rest
        print(f"store rate postgresql: not measured ({exc})")
    lat = latency(work, max(5, args.hands // 2))
    print(f"record -> room commit through both brokers ({lat['records']} records): p50 {lat['p50'] * 1000:.0f} ms, "
          f"p99 {lat['p99'] * 1000:.0f} ms, max {lat['max'] * 1000:.0f} ms; p99/goal {lat['p99'] / LATENCY_GOAL_S:.2f} "
          f"(goal {LATENCY_GOAL_S:.0f} s; includes the outbox's 0.1 s linger)")
    print(f"  steady state ({lat['steady']} records after the first commit): p50 {lat['steady_p50'] * 1000:.0f} ms, "
          f"p99 {lat['steady_p99'] * 1000:.0f} ms, max {lat['steady_max'] * 1000:.0f} ms; "
          f"p99/goal {lat['steady_p99'] / LATENCY_GOAL_S:.2f}")
    mem = memory(work, base, recs, args.tables)
    print(f"room service memory at {args.tables} tables' records: {mem['before_mb']:.0f} MB before, "
          f"{mem['after_mb']:.0f} MB after ({mem['per_table_kb']:.0f} KB per table)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
