"""Bench (issues 7 and 21): a tablet's action to the next table state, end to end.

    .venv/bin/python bench/bench_mqtt.py [--actions 400] [--seats 10] [--seed 1] [--websockets]
                                         [--native-dir DIR] [--send-yield on|off|alternate]
                                         [--segments]

Everything real but the shuffler: a private Mosquitto on free loopback ports, configured from
the repo's ``mosquitto/livetable.conf`` with the logins and ACL of provisioning; the
controller in a process of its own, composed as ``livetable run`` composes it
(:class:`controller.composition.TableRun`: the orchestrator, the journal on disk (durable:
each event is committed before the table steps), the MQTT link, the hand pacer; the internal
seeded dealer stands for the shuffler, as in ``livetable simulate --devices none``) with a
player in every seat; and one seat tablet per seat (:class:`drivers.mqtt.tablet.Tablet`,
paho), each in a process of its own, as each real tablet is a device of its own.

Each round the tablet whose turn it is acts on its private view (call or check mostly,
sometimes a minimum bet or raise or a fold; at the showdown show, P-2; the choice is this
process's, seeded), and the time is taken in the tablet's process, from its publish to the
arrival on its own state topic of the first public state with a higher ``seq``: the action
applied by the real engine, after the journal has it.

Why a process per tablet (issue 21): until 2026-12-03 the ten tablets were ten paho clients
in this one process, each with its network thread, all woken by every state. The bench then
timed its own process's GIL as much as the table: its bare paho round trip (no table at all)
went from a median 1.1 ms, p99 3.2 ms with two tablets in the process to 2.9 ms and 13 ms
with ten, in the same session on a quiet machine. Real tablets share no interpreter with
each other, nor with the bench's clock.

The anchor is the fastest real peer, native code (issue 21): ``bench/native/mqtt_rtt.c``, two
libmosquitto clients (the broker's own C client library, what a native tablet or controller
would use; Debian's ``libmosquitto-dev``) built with gcc at bench time into a temporary
directory (``--native-dir`` to build there and reuse it, as bench/all.py does), timing a
round trip through the same broker: a ping the size of a tablet's action, echoed by the
other client as a retained message the size of the table's public state, QoS 1 both ways,
TCP_NODELAY, MQTT 5 -- the same two hops as action -> controller -> state, with no table
and no Python behind them. Also measured, as an extra column: the same round trip with two
paho clients (a ping from this process to an echo client in a process of its own), what
Python's MQTT client costs. The three are interleaved one for one in the same run: each
action, then one paho round trip, then one native round trip. Where the native anchor cannot
be built (no gcc or no libmosquitto-dev: ``bash scripts/setup.sh --bench`` installs it) the
bench says so and the paho round trip is the anchor, named so on the last line.

``--send-yield`` (measuring the controller's ``os.sched_yield()`` after it queues the public
state, drivers/mqtt/link.py): ``on`` as shipped, ``off`` without it, ``alternate`` with it on
a random half of the states (drawn by ``seq``), the two halves reported apart from the same
run (``off`` reports the same halves: the control).

``--segments`` also says where each action's time went, on the machine's monotonic clock
(``time.perf_counter``, CLOCK_MONOTONIC: one clock for every process of one machine): from the
tablet's publish to the action's arrival in the controller's MQTT thread; from there to the
loop taking it; from there to the public state being handed to the MQTT link (the journal's
commit, the step, the views); and from there to the state's arrival at the acting tablet (the
hand-over: encoding, paho's queue, the yield; paho's network thread, the broker's fan-out to
every tablet, the tablet's read). The hand-over is not a leg of its own: its yield lets the
state travel, and it often ends after the state has arrived (a newcomer's run at load 7 gave
that leg a median of -0.35 ms). The controller's timestamps come from wrappers the bench
puts around ``TableLink._handle``, ``Orchestrator.handle`` and ``TableLink.publish_state`` in
its own controller process; the table runs unchanged.

The goal is issue 2's for issue 7: p99 under 10 ms from an action to the new state. The last
line gives the anchor, the goal and the ratio (p99 / goal: <= 1 meets it); the line before
it, the load average before and after. The goal is an absolute time: on a shared machine the
p99 grows with the load (measure it with the load average below 1).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import paho.mqtt.client as mqtt  # noqa: E402
from paho.mqtt.enums import CallbackAPIVersion  # noqa: E402

GOAL_MS = 10.0  # issue 2 (issue 7's section): p99 from an action to the new state
TABLE = "t1"
STACK = 10_000  # 100 big blinds


def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))]


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:  # pragma: no cover - not Linux
        return "?"


# ---------------------------------------------------------------------------- the controller

def yield_half(seq: int) -> bool:
    """``--send-yield alternate``: whether the state of this ``seq`` gets the yield -- half of
    the states, drawn at random by their seq (not by its parity, which goes with the betting
    order and so with the kind of action: a run with no yield at all differed by 0.6 ms
    median between even and odd seqs)."""
    return random.Random(seq).random() < 0.5


def watch_segments(out: list[Any]) -> None:
    """``--segments``: wrap the controller's MQTT input, loop step and state hand-over so each
    appends its times (``time.perf_counter``) to ``out``: ``["in", seat, seq, t]`` for an action
    read by paho's thread, ``["step", t0, t1]`` for each input the loop handles, ``["state", seq,
    t0, t1]`` for each public state handed to the link."""
    from controller.orchestrator import Orchestrator
    from drivers.mqtt import link
    from drivers.mqtt.topics import Kind

    handle_input, handle, publish_state = link.TableLink._handle, Orchestrator.handle, link.TableLink.publish_state

    def timed_input(self: Any, kind: Kind, seat: int, payload: bytes, now: float) -> None:
        if kind is Kind.ACTION:
            try:
                seq = json.loads(payload).get("seq")
            except (ValueError, AttributeError):
                seq = None
            out.append(["in", seat, seq, time.perf_counter()])
        handle_input(self, kind, seat, payload, now)

    def timed_handle(self: Any, item: Any) -> None:
        t0 = time.perf_counter()
        try:
            handle(self, item)
        finally:
            out.append(["step", t0, time.perf_counter()])

    def timed_publish(self: Any, view: dict[str, Any]) -> None:
        t0 = time.perf_counter()
        publish_state(self, view)
        out.append(["state", view["seq"], t0, time.perf_counter()])

    link.TableLink._handle = timed_input  # type: ignore[method-assign]
    Orchestrator.handle = timed_handle  # type: ignore[method-assign]
    link.TableLink.publish_state = timed_publish  # type: ignore[method-assign]


def serve_controller(workdir: Path, port: int, seats: int, seed: int, send_yield: str = "on",
                     segments: bool = False) -> int:
    """Run the table (``livetable run``'s composition, internal dealer) until SIGTERM; with
    ``segments``, its times (:func:`watch_segments`) go to ``workdir/segments.json`` at the end."""
    from controller.composition import TableRun
    from controller.devices import DeviceChoice
    from controller.engine.table import events as ev
    from controller.engine.table.settings import TableSettings

    creds = json.loads((workdir / "creds.json").read_text())
    settings = TableSettings(id=TABLE, game="holdem", limit="no-limit", seats=seats, small_blind=50,
                             big_blind=100)
    choice = DeviceChoice(table=TABLE, seats=seats, shuffler=None, internal_seed=seed, pins=None,
                          mqtt=True, mqtt_host="127.0.0.1", mqtt_port=port, mqtt_user="controller",
                          mqtt_password=creds["controller"]["password"], camera=None, display=False)
    everyone = set(range(1, seats + 1))
    # rebuy: a busted player buys in again; bots: nobody shows after an uncontested pot, so
    # the pacer deals the next hand at once (no P-2 show window)
    if send_yield != "on":
        from drivers.mqtt import link

        publish_state = link.TableLink.publish_state

        def switched(self: Any, view: dict[str, Any]) -> None:
            link.YIELD_AFTER_STATE = send_yield == "alternate" and yield_half(view["seq"])
            publish_state(self, view)

        link.TableLink.publish_state = switched  # type: ignore[method-assign]
    times: list[Any] = []
    if segments:
        watch_segments(times)
    run = TableRun(settings, workdir / "journal.sqlite", choice, clock=time.time, rebuy=everyone,
                   bots=everyone)
    signal.signal(signal.SIGTERM, lambda *_: run.stop())
    run.open()
    orch = run.orch
    assert orch is not None
    for s in sorted(everyone):
        orch.post(ev.PlayerSatDown(at=time.time(), seat=s, player=f"tablet{s}", name=f"Tablet {s}"))
        orch.post(ev.BoughtIn(at=time.time(), seat=s, amount=STACK))
    try:
        run.run(poll=0.01)
    finally:
        run.close()
        if segments:
            (workdir / "segments.json").write_text(json.dumps(times))
    return 0


def padded(key: bytes, size: int) -> bytes:
    """``key|xxx...``: a round trip's payload of ``size`` bytes (at least the key and the bar)."""
    head = key + b"|"
    return head + b"x" * max(0, size - len(head))


def serve_echo(port: int, password: str, pong_bytes: int) -> int:
    """The paho round trip's far end: answer every ``bench/ping`` on ``bench/pong`` (retained,
    ``pong_bytes`` long, as the table's state) until SIGTERM; print ``ready`` once subscribed."""
    from drivers.mqtt.net import set_nodelay

    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-echo", protocol=mqtt.MQTTv5)
    client.username_pw_set("bench-echo", password)
    client.on_socket_open = set_nodelay
    client.on_connect = lambda c, *_: c.subscribe("bench/ping", qos=1)
    client.on_subscribe = lambda *_: print("ready", flush=True)
    client.on_message = lambda c, _u, msg: c.publish(
        "bench/pong", padded(msg.payload.partition(b"|")[0], pong_bytes), qos=1, retain=True)
    client.connect("127.0.0.1", port)
    client.loop_start()
    done.wait()
    client.disconnect()
    client.loop_stop()
    return 0


def serve_tablet(port: int, seat: int, password: str, websockets: bool) -> int:
    """One seat's tablet in a process of its own, as a real tablet is a device of its own:
    paho (:class:`drivers.mqtt.tablet.Tablet`) and nothing else in the process.

    JSON lines on stdout: ``{"ready": true}`` once subscribed; ``{"turn": seq, "hand": h,
    "legal": {...}, "sizes": [action_bytes, state_bytes]}`` once per state on which this
    seat's private view says it is to act; after an ``{"act": name, "amount": a, "seq": s}``
    line on stdin, ``{"timed": ms, "seq": first_seq}`` (from its publish to the arrival, on
    its own state topic, of the first public state with a higher seq, both read on this
    process's ``perf_counter``), ``{"refused": reply}`` or ``{"lost": why}``. Stops at EOF
    on stdin or SIGTERM."""
    from drivers.mqtt import codec
    from drivers.mqtt.tablet import Tablet

    arrived: dict[int, float] = {}
    inbox: list[dict[str, Any] | None] = []
    told = -1  # the last seq a turn was announced for
    tab: Tablet
    # The main thread sleeps on its own event, set only when this seat is to act or the bench
    # writes a line: not on the Tablet's condition, which paho's thread notifies on every
    # message. Woken by every state and private view, the ten tablets' main threads cost CPU on
    # the two cores the controller and the broker run on (a real tablet's work is done on its
    # own device): the ten tablets' CPU in a 400-action run went from 8.6 and 8.9 s to 7.9 and
    # 8.2 s (interleaved runs, load 4-7).
    wake = threading.Event()

    def my_turn() -> bool:  # under tab.cond
        st, pv = tab.state, tab.private
        return bool(st is not None and pv is not None and pv.get("to_act") and pv.get("legal")
                    and pv["seq"] == st["seq"] and st["seq"] > told
                    and (st.get("turn") or {}).get("seat") == seat)

    def look(*_: Any) -> None:  # paho's thread, after a state or this seat's private view
        with tab.cond:
            if my_turn():
                wake.set()

    def record(view: dict[str, Any], at: float) -> None:
        with tab.cond:
            arrived[view["seq"]] = at
        look()

    tab = Tablet(TABLE, seat, host="127.0.0.1", port=port, username=f"{TABLE}-seat{seat}",
                 password=password, on_state=record, on_private=look,
                 transport="websockets" if websockets else "tcp")

    def read_stdin() -> None:
        for line in sys.stdin:
            with tab.cond:
                inbox.append(json.loads(line))
            wake.set()
        with tab.cond:
            inbox.append(None)
        wake.set()

    def say(obj: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    signal.signal(signal.SIGTERM, lambda *_: sys.stdin.close())
    tab.start()
    try:
        tab.wait_connected(20)
        say({"ready": True})
        threading.Thread(target=read_stdin, daemon=True).start()
        while True:
            with tab.cond:
                pending = bool(inbox) or my_turn()
            if not pending:
                wake.wait(1.0)
            wake.clear()  # then look: what sets it from here on is seen at the next look
            with tab.cond:
                cmd = inbox.pop(0) if inbox else False
                turn = None if cmd is not False else (tab.state, tab.private) if my_turn() else None
            if cmd is None:
                return 0
            if turn is not None:
                st, pv = turn
                told = st["seq"]
                say({"turn": st["seq"], "hand": st["hand"], "legal": pv["legal"],
                     "sizes": [len(codec.action_payload(seat=seat, seq=st["seq"], action="call",
                                                        action_id=tab.new_id(), amount=None)),
                               len(codec.encode(st))]})
            if not cmd:
                continue
            seq = cmd["seq"]
            t0 = time.perf_counter()
            aid = tab.send_action(cmd["act"], cmd["amount"], seq=seq)
            with tab.cond:
                def done() -> bool:
                    reply = tab.replies.get(aid)
                    return any(s > seq for s in arrived) or (reply is not None and not reply.get("accepted", True))
                if not tab.cond.wait_for(done, 10):
                    say({"lost": f"no state after seq {seq} reached seat {seat} within 10 s"})
                    continue
                later = [(at, s) for s, at in arrived.items() if s > seq]
                for s in [s for s in arrived if s <= seq]:
                    del arrived[s]
                tab.messages.clear()  # the bench reads none of them; keep the process small
            if later and min(later)[0] >= t0:
                at, first = min(later)
                say({"timed": (at - t0) * 1000, "seq": first, "sent": t0, "at": at})
            elif later:  # a newer state came before the action went: the turn moved on
                say({"refused": f"stale: state {min(later)[1]} arrived before the action on {seq} was sent"})
            else:
                say({"refused": tab.replies.get(aid)})
    finally:
        tab.stop()


# ---------------------------------------------------------------------------- the bench

def add_bench_logins(workdir: Path) -> dict[str, str]:
    """Add the anchors' logins (paho's ``bench-ping``, ``bench-echo``, the native
    ``bench-nping``, ``bench-necho``: ``bench/#`` only) to the provisioned passwd and ACL;
    return their passwords. The broker makes each client's id its login (issue 16), so the
    anchors cannot borrow a seat's or the controller's, nor each other's."""
    from drivers.mqtt.provision import hash_password

    out = {}
    with open(workdir / "passwd", "a") as pw, open(workdir / "acl", "a") as acl:
        for user in ("bench-ping", "bench-echo", "bench-nping", "bench-necho"):
            out[user] = secrets.token_urlsafe(12)
            pw.write(f"{user}:{hash_password(out[user])}\n")
            acl.write(f"\nuser {user}\ntopic readwrite bench/#\n")
    return out


class Pinger:
    """The paho round trip's near end: one QoS 1 ping, timed until its echo comes back."""

    def __init__(self, port: int, password: str) -> None:
        from drivers.mqtt.net import set_nodelay

        self.cond = threading.Condition()
        self.back: dict[str, float] = {}
        self.ready = False
        c = self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-ping",
                                      protocol=mqtt.MQTTv5)
        c.username_pw_set("bench-ping", password)
        c.on_socket_open = set_nodelay
        c.on_connect = lambda cl, *_: cl.subscribe("bench/pong", qos=1)
        c.on_subscribe = self._subscribed
        c.on_message = self._message
        c.connect("127.0.0.1", port)
        c.loop_start()

    def _subscribed(self, *_: Any) -> None:
        with self.cond:
            self.ready = True
            self.cond.notify_all()

    def _message(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        now = time.perf_counter()
        if not msg.payload:
            return
        with self.cond:
            self.back[msg.payload.partition(b"|")[0].decode()] = now
            self.cond.notify_all()

    def round_trip(self, n: int, size: int, timeout: float = 10.0) -> float | None:
        """Return one round trip in ms, a ping of ``size`` bytes (None when the echo did not
        come back in ``timeout``)."""
        key = f"p{n}"
        payload = padded(key.encode(), size)
        t0 = time.perf_counter()
        self.client.publish("bench/ping", payload, qos=1)
        with self.cond:
            if not self.cond.wait_for(lambda: key in self.back, timeout):
                return None
            return (self.back.pop(key) - t0) * 1000

    def stop(self) -> None:
        """Disconnect."""
        self.client.disconnect()
        self.client.loop_stop()


class NativePinger:
    """The native anchor: ``bench/native/mqtt_rtt.c`` in stdin mode, one round trip per line."""

    def __init__(self, exe: Path, port: int, passwords: dict[str, str], ping_bytes: int,
                 pong_bytes: int) -> None:
        env = {**os.environ, "MQTT_RTT_PING_USER": "bench-nping",
               "MQTT_RTT_PING_PASS": passwords["bench-nping"], "MQTT_RTT_ECHO_USER": "bench-necho",
               "MQTT_RTT_ECHO_PASS": passwords["bench-necho"]}
        self.proc = subprocess.Popen([str(exe), "127.0.0.1", str(port), "0", str(ping_bytes),
                                      str(pong_bytes)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
        if self.stdout.readline().strip() != "ready":  # mqtt_rtt gives up itself after 20 s
            raise RuntimeError(f"mqtt_rtt did not start (exit {self.proc.wait()})")

    def round_trip(self) -> float | None:
        """One round trip in ms, timed inside C (None when it failed: mqtt_rtt says why)."""
        self.stdin.write("\n")
        self.stdin.flush()
        line = self.stdout.readline().split()
        return float(line[1]) / 1000 if len(line) == 2 and line[0] == "rtt_us" else None

    def stop(self) -> None:
        """Close its input: it disconnects and exits."""
        try:
            self.stdin.close()
            self.proc.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


def choose(legal: dict[str, Any], rng: random.Random) -> tuple[str, int | None]:
    """A player's action from the private view's ``legal`` (docs/state.md): mostly call or
    check so hands go on to the river and showdowns, sometimes a minimum bet or raise, a fold."""
    if legal.get("show"):
        return "show", None
    if legal.get("muck"):
        return "muck", None
    r = rng.random()
    if r < 0.10 and legal.get("fold") and not legal.get("check"):
        return "fold", None
    if r < 0.20:
        for name in ("bet", "raise"):
            if legal.get(name):
                return name, legal[name]["min"]
    if legal.get("check"):
        return "check", None
    if legal.get("call"):
        return "call", None
    return ("all_in", None) if legal.get("all_in") else ("fold", None)


def main(argv: list[str] | None = None) -> int:
    """Run the bench; print the figures and the anchor, goal and ratio last; 1 on a lost state."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--actions", type=int, default=400)
    ap.add_argument("--seats", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--websockets", action="store_true", help="tablets use the WebSockets listener")
    ap.add_argument("--native-dir", default=None,
                    help="build the native anchor there and reuse it (default: a temp dir)")
    ap.add_argument("--send-yield", choices=("on", "off", "alternate"), default="on",
                    help="the controller's sched_yield after queueing the state: on (as shipped), "
                         "off, or on for even seqs only (both reported)")
    ap.add_argument("--segments", action="store_true",
                    help="also say where each action's time went (tablet to controller, the "
                         "controller's queue and step, the state's hand-over, back to the tablet)")
    ap.add_argument("--serve-controller", nargs=2, metavar=("WORKDIR", "PORT"), help=argparse.SUPPRESS)
    ap.add_argument("--serve-echo", nargs=2, metavar=("PORT", "BYTES"), help=argparse.SUPPRESS)
    ap.add_argument("--serve-tablet", nargs=2, metavar=("PORT", "SEAT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.serve_controller:
        return serve_controller(Path(args.serve_controller[0]), int(args.serve_controller[1]),
                                args.seats, args.seed, args.send_yield, args.segments)
    if args.serve_tablet:
        return serve_tablet(int(args.serve_tablet[0]), int(args.serve_tablet[1]),
                            os.environ["BENCH_PASSWORD"], args.websockets)
    if args.serve_echo:
        return serve_echo(int(args.serve_echo[0]), os.environ["BENCH_PASSWORD"], int(args.serve_echo[1]))

    import _native

    try:
        exe, how = _native.build_program("mqtt_rtt.c", ("mosquitto", "pthread"),
                                         build_dir=args.native_dir)
        native: tuple[Path | None, str] = (exe, how)
        print(f"native anchor: {how}")
    except RuntimeError as exc:
        why = ("libmosquitto-dev is not installed" if "mosquitto.h" in str(exc)
               else str(exc).splitlines()[0])
        native = (None, why)
        print(f"native anchor: NOT BUILT ({why}; bash scripts/setup.sh --bench installs it): the "
              f"anchor falls back to the bare paho round trip\n{exc}", file=sys.stderr)

    from drivers.mqtt.broker import BrokerProcess
    from drivers.mqtt.provision import provision

    load_before = _load()
    with tempfile.TemporaryDirectory(prefix="bench-mqtt-") as tmp:
        work = Path(tmp)
        creds = provision(work, TABLE, args.seats)
        (work / "creds.json").write_text(json.dumps(creds))
        extra = add_bench_logins(work)
        with BrokerProcess(work) as broker:
            result = drive(work, broker, creds, extra, args, native[0])
        journal_bytes = sum(p.stat().st_size for p in work.glob("journal.sqlite*") if p.is_file()) \
            if work.exists() else 0
    if isinstance(result, str):
        print(f"bench_mqtt: {result}", file=sys.stderr)
        return 1
    report(result, args, load_before, _load(), journal_bytes, native)
    return 0


class TabletProcs:
    """The seat tablets, each a process of its own (:func:`serve_tablet`), read with one
    selector: ``next_message(timeout)`` returns ``(seat, message)``."""

    def __init__(self, here: list[str], env: dict[str, str], port: int, creds: dict[str, Any],
                 seats: int, websockets: bool) -> None:
        import selectors

        self.sel = selectors.DefaultSelector()
        self.procs: dict[int, subprocess.Popen] = {}
        self.pending: dict[int, str] = {}
        for n in range(1, seats + 1):
            # the password in the environment: a token_urlsafe may start with "-", which argparse
            # takes for an option
            argv = here + ["--serve-tablet", str(port), str(n)] + (["--websockets"] if websockets else [])
            p = subprocess.Popen(argv, env={**env, "BENCH_PASSWORD": creds["seat_users"][str(n)]["password"]},
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
            self.procs[n] = p
            assert p.stdout is not None
            os.set_blocking(p.stdout.fileno(), False)
            self.sel.register(p.stdout, selectors.EVENT_READ, n)
            self.pending[n] = ""

    def next_message(self, timeout: float) -> tuple[int, dict[str, Any]] | None:
        """The next line any tablet printed, parsed (None after ``timeout`` s with none)."""
        deadline = time.monotonic() + timeout
        while True:
            for n, buf in self.pending.items():
                if "\n" in buf:
                    line, self.pending[n] = buf.split("\n", 1)
                    return n, json.loads(line)
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            for key, _ in self.sel.select(left):
                chunk = key.fileobj.read()  # type: ignore[union-attr]
                if chunk == "":
                    self.sel.unregister(key.fileobj)
                    raise RuntimeError(f"tablet {key.data} exited ({self.procs[key.data].wait()})")
                self.pending[key.data] += chunk or ""

    def send(self, seat: int, obj: dict[str, Any]) -> None:
        """One command line to a tablet."""
        stdin = self.procs[seat].stdin
        assert stdin is not None
        stdin.write(json.dumps(obj) + "\n")
        stdin.flush()

    def stop(self) -> None:
        """Close their inputs (each says goodbye and exits); kill those that do not."""
        for p in self.procs.values():
            try:
                if p.stdin is not None:
                    p.stdin.close()
            except OSError:
                pass
        for p in self.procs.values():
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()


def drive(work: Path, broker: Any, creds: dict[str, Any], extra: dict[str, str],
          args: argparse.Namespace, native_exe: Path | None) -> dict[str, Any] | str:
    """Start the tablets, the controller and, at the first turn (once a state's size is
    known), the anchors; time the actions and the anchors."""
    here = [sys.executable, str(Path(__file__).resolve())]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    procs: list[subprocess.Popen] = []
    nping: NativePinger | None = None
    sizes: tuple[int, int] | None = None  # (action, state) bytes
    port = broker.ws_port if args.websockets else broker.mqtt_port
    tablets = TabletProcs(here, env, port, creds, args.seats, args.websockets)
    pinger = Pinger(broker.mqtt_port, extra["bench-ping"])
    rng = random.Random(args.seed)
    actions: list[float] = []
    seqs: list[int] = []  # the seq of the state each action's time was taken on
    sent: list[tuple[int, int, float, float]] = []  # (seat, seq acted on, sent, state arrived)
    anchor: list[float] = []
    native: list[float] = []
    hands: set[int] = set()
    kinds: dict[str, int] = {}
    refusals: list[str] = []
    last_sent: dict[int, float] = {}
    turns: dict[int, dict[str, Any]] = {}  # seat -> its newest turn
    try:
        ready: set[int] = set()
        while len(ready) < args.seats:
            got = tablets.next_message(20)
            if got is None:
                return f"tablets {sorted(set(range(1, args.seats + 1)) - ready)} did not subscribe within 20 s"
            ready.add(got[0])
        with pinger.cond:
            if not pinger.cond.wait_for(lambda: pinger.ready, 20):
                return "the anchor's ping client did not subscribe within 20 s"
        procs.append(subprocess.Popen(here + ["--serve-controller", str(work), str(broker.mqtt_port),
                                              "--seats", str(args.seats), "--seed", str(args.seed),
                                              "--send-yield", args.send_yield]
                                      + (["--segments"] if args.segments else []),
                                      env=env))
        done_seq = 0  # the turns up to this seq are spent
        while len(actions) < args.actions:
            # whose turn: the tablet whose private view says so for the newest public state
            deadline = time.monotonic() + 60
            while not any(t["turn"] > done_seq for t in turns.values()):
                if procs[-1].poll() is not None:
                    return f"the controller exited ({procs[-1].returncode})"
                got = tablets.next_message(max(0.0, min(0.5, deadline - time.monotonic())))
                if got is None:
                    if time.monotonic() > deadline:
                        return f"no turn came within 60 s ({len(actions)} actions timed)"
                    continue
                if "turn" in got[1]:
                    turns[got[0]] = got[1]
            n, turn = max(turns.items(), key=lambda kv: kv[1]["turn"])
            seq = done_seq = turn["turn"]
            name, amount = choose(turn["legal"], rng)
            if sizes is None:
                # the anchors' messages: a state's size as the table publishes it now (10 seats,
                # a hand under way), an action's as this tablet is about to send it
                sizes = (turn["sizes"][0], turn["sizes"][1])
                echo = subprocess.Popen(here + ["--serve-echo", str(broker.mqtt_port), str(sizes[1])],
                                        env={**env, "BENCH_PASSWORD": extra["bench-echo"]},
                                        stdout=subprocess.PIPE, text=True)
                procs.insert(0, echo)
                assert echo.stdout is not None
                if echo.stdout.readline().strip() != "ready":
                    return "the paho round trip's echo client did not start"
                if native_exe is not None:
                    try:
                        nping = NativePinger(native_exe, broker.mqtt_port, extra, *sizes)
                    except RuntimeError as exc:
                        return str(exc)
            # M-9 allows a seat 10 actions a second; heads-up the bench would act faster than
            # that (a person never does): a seat waits 0.12 s after its own last action
            wait = last_sent.get(n, 0.0) + 0.12 - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            last_sent[n] = time.monotonic()
            tablets.send(n, {"act": name, "amount": amount, "seq": seq})
            while True:  # its answer; other tablets' turns meanwhile are kept
                got = tablets.next_message(15)
                if got is None:
                    return f"action {len(actions)}: seat {n} did not answer within 15 s"
                if "turn" in got[1]:
                    turns[got[0]] = got[1]
                elif got[0] == n:
                    break
            said = got[1]
            if "lost" in said:
                return f"action {len(actions)}: {said['lost']}"
            if "refused" in said:  # the turn moved on meanwhile (a timer, a stale view): not timed
                refusals.append(f"seat {n} {name}: {said['refused']}")
                continue
            actions.append(said["timed"])
            seqs.append(said["seq"])
            sent.append((n, seq, said["sent"], said["at"]))
            kinds[name] = kinds.get(name, 0) + 1
            hands.add(turn["hand"])
            rt = pinger.round_trip(len(anchor), sizes[0])
            if rt is None:
                return "the paho round trip's echo did not come back within 10 s"
            anchor.append(rt)
            if nping is not None:
                rt = nping.round_trip()
                if rt is None:
                    return "the native round trip failed (mqtt_rtt's message above)"
                native.append(rt)
    except RuntimeError as exc:
        return str(exc)
    finally:
        if nping is not None:
            nping.stop()
        for p in reversed(procs):
            p.send_signal(signal.SIGTERM)
        for p in reversed(procs):
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
        pinger.stop()
        tablets.stop()
    segments = work / "segments.json"
    return {"actions": actions, "seqs": seqs, "anchor": anchor, "native": native, "hands": len(hands),
            "kinds": kinds, "refusals": refusals, "sizes": sizes, "sent": sent,
            "segments": json.loads(segments.read_text()) if segments.exists() else None}


SEGMENTS = ("tablet -> controller's MQTT thread", "-> the loop takes it", "-> state handed to the link "
            "(journal, step, views)", "-> arrival at the acting tablet (hand-over, paho, broker fan-out, tablet)")


def split_segments(sent: list[tuple[int, int, float, float]], times: list[Any]) -> list[list[float]]:
    """Each timed action's four segments (ms, in :data:`SEGMENTS` order), joined from the
    tablets' ``(seat, seq acted on, sent, arrived)`` and the controller's times
    (:func:`watch_segments`): the action read for that seat and seq, the loop step during which
    the first newer state was handed over, and that hand-over. Actions with a part missing are
    left out."""
    import bisect

    got = {(seat, seq): t for kind, *rest in times if kind == "in" for seat, seq, t in [rest]}
    states = sorted((t0, t1, seq) for kind, *rest in times if kind == "state" for seq, t0, t1 in [rest])
    steps = sorted((t0, t1) for kind, *rest in times if kind == "step" for t0, t1 in [rest])
    starts = [s[0] for s in steps]
    out = []
    for seat, seq, t_sent, t_at in sent:
        t_in = got.get((seat, seq))
        first = next((s for s in states if s[2] > seq and t_in is not None and s[0] >= t_in), None)
        if t_in is None or first is None:
            continue
        i = bisect.bisect_right(starts, first[0]) - 1
        if i < 0 or steps[i][1] < first[0]:
            continue
        t_step = steps[i][0]
        out.append([(t_in - t_sent) * 1e3, (t_step - t_in) * 1e3, (first[0] - t_step) * 1e3,
                    (t_at - first[0]) * 1e3])
    return out


def _figures(values: list[float]) -> str:
    return (f"median {statistics.median(values):.2f} ms, p99 {percentile(values, 99):.2f} ms, "
            f"max {max(values):.2f} ms")


def report(r: dict[str, Any], args: argparse.Namespace, before: str, after: str, journal: int,
           native_built: tuple[Path | None, str]) -> None:
    """Print the figures; the last line: anchor, goal, ratio."""
    a, b, c = r["actions"], r["anchor"], r["native"]
    med, p99 = statistics.median(a), percentile(a, 99)
    bmed, bp99 = statistics.median(b), percentile(b, 99)
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(r["kinds"].items()))
    action_bytes, state_bytes = r["sizes"]
    print(f"bench_mqtt: {len(a)} actions in {r['hands']} hands at {args.seats} seats ({kinds}); "
          f"{'websockets' if args.websockets else 'mqtt'} on loopback, mosquitto from "
          f"mosquitto/livetable.conf on a private port; controller's sched_yield after the state: "
          f"{args.send_yield}")
    print("  path: tablet (paho, a process per tablet) -> broker -> controller process (TableRun: MQTT link, "
          "orchestrator, durable journal on disk, table step, views) -> broker -> the tablet's state topic")
    print(f"  action -> next state at the acting tablet: {_figures(a)}")
    if args.send_yield != "on":  # "off": the same split with no yield at all, the control
        yes = "with sched_yield" if args.send_yield == "alternate" else "no sched_yield"
        for label, half in ((f"{yes} (the half of the states drawn for it)", True),
                            ("no sched_yield (the other half)", False)):
            part = [t for t, s in zip(a, r["seqs"]) if yield_half(s) is half]
            if part:
                print(f"    {label}, {len(part)} actions: {_figures(part)}")
    print(f"  round trips, one of each after each action, a {action_bytes}-byte ping and a retained "
          f"{state_bytes}-byte echo (a state's size), QoS 1 both ways:")
    if c:
        print(f"    native, libmosquitto (C, two clients in one process; the anchor): {_figures(c)}")
    else:
        print(f"    native: not measured ({native_built[1]})")
    print(f"    bare paho (this process -> broker -> echo process -> broker): {_figures(b)}")
    if r.get("segments") is not None:
        parts = split_segments(r["sent"], r["segments"])
        if parts:
            worst = sorted(parts, key=sum)[-max(1, len(parts) // 100):]  # the slowest 1 %
            print(f"  where the time went ({len(parts)} of {len(a)} actions joined; the slowest 1 %: "
                  f"{len(worst)} actions, their mean per segment):")
            for k, label in enumerate(SEGMENTS):
                col = [p[k] for p in parts]
                print(f"    {label}: {_figures(col)}; slowest 1 % {statistics.mean(p[k] for p in worst):.2f} ms")
        else:
            print("  where the time went: no action could be joined with the controller's times")
    if r["refusals"]:
        print(f"  refused, not timed: {len(r['refusals'])} ({r['refusals'][0]})")
    print(f"  journal on disk at the end: {journal / 1024:.0f} KB; load {before} -> {after}")
    if c:
        cmed, cp99 = statistics.median(c), percentile(c, 99)
        anchor = (f"libmosquitto (C) round trip p99 {cp99:.2f} ms, median {cmed:.2f} ms (same broker, "
                  f"same run, QoS 1, {action_bytes} B ping / {state_bytes} B retained echo)")
        versus = f"p99/anchor {p99 / cp99:.1f}x"
        also = f"bare paho round trip p99 {bp99:.2f} ms, median {bmed:.2f} ms, ours p99/paho {p99 / bp99:.1f}x"
    else:
        anchor = (f"bare paho round trip p99 {bp99:.2f} ms, median {bmed:.2f} ms (FALLBACK: the native "
                  f"libmosquitto anchor was not built: {native_built[1]}; same broker, same run)")
        versus = f"p99/anchor {p99 / bp99:.1f}x"
        also = "native anchor not measured"
    # the last line: "; " separates anchor, goal, ratio (bench/all.py splits on it)
    print(f"mqtt: anchor {anchor}; goal p99 <= {GOAL_MS:.0f} ms from an action to the new state (issue "
          f"2, issue 7's goal), end to end through the real engine and journal; ratio p99/goal "
          f"{p99 / GOAL_MS:.2f} ({p99:.2f} ms, {'meets' if p99 <= GOAL_MS else 'does NOT meet'} the "
          f"goal), median {med:.2f} ms, {versus}; {also}")


if __name__ == "__main__":
    sys.exit(main())
