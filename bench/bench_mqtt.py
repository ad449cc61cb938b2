"""Bench (issue 7): action-to-state latency through a real Mosquitto on loopback.

Ten seat tablets and the controller's TableLink connect to a private broker started from the
repo's mosquitto/livetable.conf (users and ACL from provisioning). Each round one tablet sends
an action; the controller's loop (a thread fed by the link's events, as the orchestrator
will be) bumps the seq, publishes the new public state, the acting seat's private view and
the reply; we time from the tablet's publish to the state's arrival at each of the nine
other tablets. Prints median / p99 / max (ms), the ratio of p99 to the 10 ms goal (< 1 is
met), and the size of the state and private messages in bytes.

    .venv/bin/python bench/bench_mqtt.py [--actions 500] [--websockets | --c-receivers | --same-process]

Receivers: by default each tablet is our Python simulator in its own process (as on its own
device, but here ten Python processes share this machine's cores with the broker and the
controller); ``--c-receivers`` uses ``mosquitto_sub`` (C) logged in as each seat, stamping
arrival itself, which isolates what the Pi does (controller + broker); ``--same-process``
puts the ten simulators in the controller's process (one GIL: a worst case).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import queue
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import paho.mqtt.client as mqtt  # noqa: E402
from paho.mqtt.enums import CallbackAPIVersion  # noqa: E402

from drivers.mqtt import codec  # noqa: E402
from drivers.mqtt.broker import BrokerProcess  # noqa: E402
from drivers.mqtt.events import ActionReceived  # noqa: E402
from drivers.mqtt.link import TableLink  # noqa: E402
from drivers.mqtt.net import set_nodelay  # noqa: E402
from drivers.mqtt.provision import hash_password, provision  # noqa: E402
from drivers.mqtt.tablet import Tablet  # noqa: E402

GOAL_MS = 10.0
SEATS = 10
TABLE = "t1"


def state(seq: int, turn: int) -> dict[str, Any]:
    """A ten-handed no-limit hold'em state on the flop, following docs/state.md."""
    seats = [{"seat": n, "name": f"Player {n:02d}", "stack": 10_000 - 37 * n + seq, "bet": 200 if n < turn else 0,
              "status": "acting" if n == turn else "active", "missed": {"sb": False, "bb": False},
              "cards": 2, "shown": None, "drew": None, "connected": True, "posted_dead": 0}
             for n in range(1, SEATS + 1)]
    return {"schema": 1, "table": TABLE, "name": "Table 1", "seq": seq, "hand": 57 + seq // 40,
            "game": "holdem", "limit": "no-limit",
            "stakes": {"sb": 50, "bb": 100, "ante": 0, "small_bet": None, "big_bet": None},
            "max_seats": SEATS, "street": "flop", "button": 3, "sb_seat": 4, "bb_seat": 5,
            "board": ["Jh", "8c", "3d"], "pots": [{"amount": 2_150, "eligible": list(range(1, SEATS + 1))},
                                                  {"amount": 400, "eligible": [3, 5]}],
            "seats": seats, "turn": {"seat": turn, "started": 1_732_900_000.0 + seq,
                                     "deadline": 1_732_900_030.0 + seq, "seconds": 30},
            "showdown": None, "all_in_equity": None, "fault": None, "paused": False, "rake": 0}


def private(seat: int, seq: int) -> dict[str, Any]:
    """The acting seat's private view (docs/state.md)."""
    return {"schema": 1, "table": TABLE, "seat": seat, "seq": seq, "hand": 57, "cards": ["As", "Kd"],
            "hand_words": "High card, ace", "to_act": True,
            "legal": {"fold": True, "check": False, "call": 200, "bet": None, "raise": {"min": 400, "max": 9_800},
                      "all_in": 9_800, "draw": None}, "preselect": None}


def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))]


def main(argv: list[str] | None = None) -> int:
    """Run the bench; print the figures and the ratio to the goal; return 0 (1 on a lost state)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--actions", type=int, default=500)
    ap.add_argument("--websockets", action="store_true", help="tablets use the WebSockets listener")
    ap.add_argument("--same-process", action="store_true",
                    help="run the tablets in the controller's process (they then share its GIL)")
    ap.add_argument("--c-receivers", action="store_true",
                    help="receive with mosquitto_sub (C) stamping %%U on arrival: the controller and broker "
                         "path without Python tablets competing for the CPU")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        creds = provision(Path(tmp), TABLE, SEATS)
        if args.c_receivers:
            add_receiver_logins(Path(tmp), creds)
        with BrokerProcess(Path(tmp)) as broker:
            port = broker.ws_port if args.websockets else broker.mqtt_port
            sizes: dict[str, list[int]] = {"state": [], "private": []}
            link, stop_loop = start_controller(broker.mqtt_port, creds, sizes)
            try:
                if args.c_receivers:
                    result = drive_c_receivers(broker.mqtt_port, creds, args.actions)
                elif args.same_process:
                    result = drive_tablets(port, creds, args.actions, args.websockets)
                else:
                    result = drive_tablet_processes(port, creds, args.actions, args.websockets)
            finally:
                stop_loop()
                link.stop()
    if isinstance(result, str):
        print(result, file=sys.stderr)
        return 1
    report(result, sizes, args)
    return 0


def start_controller(port: int, creds: dict[str, Any], sizes: dict[str, list[int]]):  # type: ignore[no-untyped-def]
    """Connect the TableLink and start the loop thread (the orchestrator's single writer, reduced
    to the bone: every action gets a new state, the acting seat's private view and a reply)."""
    events: queue.Queue[Any] = queue.Queue()
    link = TableLink(TABLE, host="127.0.0.1", port=port, username="controller",
                     password=creds["controller"]["password"], post=events.put,
                     action_rate=(10_000, 1.0))  # a bench tablet acts far faster than a player (M-9)

    def loop() -> None:
        seq = 1
        while (event := events.get()) is not None:
            if not isinstance(event, ActionReceived):
                continue
            seq += 1
            turn = event.seat % SEATS + 1
            view, pview = state(seq, turn), private(turn, seq)
            sizes["state"].append(len(codec.encode(view)))
            sizes["private"].append(len(codec.encode(pview)))
            link.publish_state(view)
            link.publish_private(event.seat, None)
            link.publish_private(turn, pview)
            link.reply(event.seat, event.action_id, True)

    link.publish_state(state(1, 1))
    link.start()
    link.wait_connected(10)
    worker = threading.Thread(target=loop, daemon=True)
    worker.start()
    return link, lambda: events.put(None)


def drive_tablets(port: int, creds: dict[str, Any], actions: int, websockets: bool) -> list[float] | str:
    """Connect ten tablets; each round one acts and we time the new state at the nine others.

    Returns the latencies in ms, or an error text when a state never arrived.
    """
    arrivals: dict[int, dict[int, float]] = {}
    cond = threading.Condition()

    def on_state(seat: int):  # type: ignore[no-untyped-def]
        def record(view: dict[str, Any], at: float) -> None:
            with cond:
                arrivals.setdefault(view["seq"], {})[seat] = at
                cond.notify_all()
        return record

    tablets = {n: Tablet(TABLE, n, host="127.0.0.1", port=port, username=f"{TABLE}-seat{n}",
                         password=creds["seat_users"][str(n)]["password"], on_state=on_state(n),
                         transport="websockets" if websockets else "tcp").start()
               for n in range(1, SEATS + 1)}
    latencies: list[float] = []
    try:
        for tab in tablets.values():
            tab.wait_seq(1, 10)
        seq = 1
        for i in range(actions):
            seat = i % SEATS + 1
            t0 = time.perf_counter()
            tablets[seat].send_action("call", seq=seq)
            seq += 1
            others = [n for n in tablets if n != seat]
            with cond:
                if not cond.wait_for(lambda: all(n in arrivals.get(seq, {}) for n in others), 10):
                    return f"round {i}: state {seq} did not reach every tablet within 10 s"
                latencies += [(arrivals[seq][n] - t0) * 1000 for n in others]
    finally:
        for tab in tablets.values():
            tab.stop()
    return latencies


def tablet_process(seat: int, port: int, creds: dict[str, Any], websockets: bool,
                   commands: Any, reports: Any) -> None:
    """One tablet in its own process, as on its own device: act on command, report arrivals.

    Reports ``("state", seat, seq, t)`` for every state, ``("sent", seat, seq, t0)`` when it
    acted; times are ``perf_counter`` (CLOCK_MONOTONIC on Linux: one clock for every process).
    """
    tab = Tablet(TABLE, seat, host="127.0.0.1", port=port, username=f"{TABLE}-seat{seat}",
                 password=creds["seat_users"][str(seat)]["password"],
                 on_state=lambda view, at: reports.put(("state", seat, view["seq"], at)),
                 transport="websockets" if websockets else "tcp").start()
    try:
        tab.wait_seq(1, 10)
        reports.put(("ready", seat, 0, 0.0))
        while (seq := commands.get()) is not None:
            t0 = time.perf_counter()
            tab.send_action("call", seq=seq)
            reports.put(("sent", seat, seq, t0))
    finally:
        tab.stop()


def drive_tablet_processes(port: int, creds: dict[str, Any], actions: int, websockets: bool) -> list[float] | str:
    """Like :func:`drive_tablets`, with each tablet in its own process."""
    ctx = multiprocessing.get_context("spawn")
    reports = ctx.Queue()
    commands = {n: ctx.Queue() for n in range(1, SEATS + 1)}
    procs = [ctx.Process(target=tablet_process, args=(n, port, creds, websockets, commands[n], reports), daemon=True)
             for n in range(1, SEATS + 1)]
    for proc in procs:
        proc.start()
    arrivals: dict[int, dict[int, float]] = {}
    sent: dict[int, float] = {}
    latencies: list[float] = []

    def collect(until: Callable[[], bool]) -> bool:
        deadline = time.monotonic() + 20
        while not until():
            try:
                kind, seat, seq, at = reports.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return False
            if kind == "state":
                arrivals.setdefault(seq, {})[seat] = at
            elif kind == "sent":
                sent[seq + 1] = at
            else:
                arrivals.setdefault(-1, {})[seat] = at
        return True

    try:
        if not collect(lambda: len(arrivals.get(-1, {})) == SEATS):
            return "tablets did not all connect within 20 s"
        seq = 1
        for i in range(actions):
            seat = i % SEATS + 1
            commands[seat].put(seq)
            seq += 1
            others = [n for n in commands if n != seat]
            if not collect(lambda: seq in sent and all(n in arrivals.get(seq, {}) for n in others)):
                return f"round {i}: state {seq} did not reach every tablet within 20 s"
            latencies += [(arrivals[seq][n] - sent[seq]) * 1000 for n in others]
    finally:
        for q in commands.values():
            q.put(None)
        for proc in procs:
            proc.join(10)
    return latencies


def add_receiver_logins(workdir: Path, creds: dict[str, Any]) -> None:
    """Add bench-only logins ``bench-sub<n>`` (read the public state) for the ``mosquitto_sub``
    receivers, their passwords in ``creds["receivers"]``: the broker makes each client's id its
    login (issue 16), so a receiver on seat n's login would end the session of seat n's sender."""
    creds["receivers"] = {}
    with open(workdir / "passwd", "a") as pw, open(workdir / "acl", "a") as acl:
        for n in range(1, SEATS + 1):
            password = secrets.token_urlsafe(12)
            creds["receivers"][n] = password
            pw.write(f"bench-sub{n}:{hash_password(password)}\n")
            acl.write(f"\nuser bench-sub{n}\ntopic read livetable/{TABLE}/state\n")


def drive_c_receivers(port: int, creds: dict[str, Any], actions: int) -> list[float] | str:
    """Each seat's state arrives at a ``mosquitto_sub`` logged in as that seat, which stamps it
    (``%U``, CLOCK_REALTIME); actions go out from plain paho clients stamped with time.time()."""
    subs = {}
    arrivals: dict[int, dict[int, float]] = {}
    cond = threading.Condition()

    def read(seat: int, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            stamp, _, payload = line.partition(" ")
            if payload.strip():
                with cond:
                    arrivals.setdefault(json.loads(payload)["seq"], {})[seat] = float(stamp)
                    cond.notify_all()

    senders = {}
    try:
        for n in range(1, SEATS + 1):
            subs[n] = subprocess.Popen(
                ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port), "-u", f"bench-sub{n}",
                 "-P", creds["receivers"][n], "-q", "1", "-t", f"livetable/{TABLE}/state",
                 "-F", "%U %p"], stdout=subprocess.PIPE, text=True)
            threading.Thread(target=read, args=(n, subs[n]), daemon=True).start()
            client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
            client.username_pw_set(f"{TABLE}-seat{n}", creds["seat_users"][str(n)]["password"])
            client.on_socket_open = set_nodelay
            client.connect("127.0.0.1", port)
            client.loop_start()
            senders[n] = client
        with cond:
            if not cond.wait_for(lambda: len(arrivals.get(1, {})) == SEATS, 10):
                return "mosquitto_sub receivers did not all get the first state"
        latencies: list[float] = []
        seq = 1
        for i in range(actions):
            seat = i % SEATS + 1
            payload = codec.action_payload(seat=seat, seq=seq, action="call", action_id=f"c{i}")
            t0 = time.time()
            senders[seat].publish(f"livetable/{TABLE}/seat/{seat}/action", payload, qos=1)
            seq += 1
            others = [n for n in senders if n != seat]
            with cond:
                if not cond.wait_for(lambda: all(n in arrivals.get(seq, {}) for n in others), 10):
                    return f"round {i}: state {seq} did not reach every receiver within 10 s"
                latencies += [(arrivals[seq][n] - t0) * 1000 for n in others]
        return latencies
    finally:
        for client in senders.values():
            client.disconnect()
            client.loop_stop()
        for proc in subs.values():
            proc.terminate()
            proc.wait(5)


def report(latencies: list[float], sizes: dict[str, list[int]], args: argparse.Namespace) -> None:
    """Print the figures and the ratio of the p99 to the goal."""
    med, p99, worst = statistics.median(latencies), percentile(latencies, 99), max(latencies)
    where = ("mosquitto_sub (C) receivers" if args.c_receivers else
             "tablets in the controller's process" if args.same_process else "tablets in one process each")
    print(f"bench_mqtt: {args.actions} actions x {SEATS - 1} tablets = {len(latencies)} deliveries; "
          f"{'websockets' if args.websockets else 'mqtt'} on loopback, {where}, "
          f"mosquitto from mosquitto/livetable.conf")
    print(f"  action -> new state at the other tablets: median {med:.2f} ms, p99 {p99:.2f} ms, max {worst:.2f} ms")
    st, pv = sizes["state"], sizes["private"]
    print(f"  state message: {min(st)}..{max(st)} bytes (median {statistics.median(st):.0f}), "
          f"private view: {statistics.median(pv):.0f} bytes, per action: 1 state + 2 private + 1 reply")
    print(f"  p99 / goal {GOAL_MS:.0f} ms = {p99 / GOAL_MS:.2f}  ({'met' if p99 < GOAL_MS else 'NOT met'})")


if __name__ == "__main__":
    sys.exit(main())
