"""``livetable room simulate``: a room of N simulated tables bridged to a room broker (issue 17).

Everything runs on this machine, each part the production one:

- the room broker: ``mosquitto -c`` on ``mosquitto/room.conf`` (free ports), its logins, ACL
  and every table's bridge written by :mod:`room.provision`;
- the room's store (``--store``: a SQLite file in the run's folder by default, or
  ``postgresql://...``) and the room service (:class:`room.service.RoomService`);
- per table: its own Mosquitto on ``mosquitto/livetable.conf`` plus its bridge to the room,
  its seat logins and its outbox's login (``tN-outbox``) from ``livetable tablets
  provision``, and ``livetable simulate --table tN --room-outbox`` in its own process (the
  simulated table of today, its journal and hand histories in the run's folder, the outbox
  sending the journal to the room with its own login).

With ``--hands M`` each table plays M hands and stops; the room then waits until it holds
every record of every table and prints a one-line JSON summary as its last line:
``tables``, ``hands`` (the hands the room's store holds), ``balanced`` (true only when the
store holds every hand of every table and its meters equal each table's to the chip),
``records``, ``per_table`` and ``seconds``. Without ``--headless`` the room, its console and
pages stay up after the tables finish, saying so, until Ctrl-C (then the summary). Exit 0
when balanced, 1 when not, 2 on bad options. Each table's log (warnings and errors) is ``<dir>/tN/table.log``. Without
``--headless`` the floor console is served and its address printed.

``--players P`` (issue 18, :mod:`room.simplayers`): the tables' own players stand up now and
then (``--leave-chance``, 0.05 a hand), P simulated players join the waiting lists, are
called (``--hold`` 3 s), accept (seated by the floor's ``seat`` request through the table's
bridge), pass or let the call lapse, play and leave; the summary grows ``players``
(``openings``, ``calls``, ``lapses``, ``passes``, ``seated``, ``seat_refused``, ``fair``: the
fairness check over the room's stored log, exit 1 when not fair). Needs ``--devices all``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from drivers.mqtt.broker import REPO, die_with_parent
from room.rig import ROOM_CONF, TABLE_CONF, TABLE_NAMES, RoomRig, balance, table_name

__all__ = ["main", "RoomRig", "balance", "table_name", "TABLE_NAMES", "ROOM_CONF", "TABLE_CONF"]

log = logging.getLogger("livetable.room.simulate")


def build_parser() -> argparse.ArgumentParser:
    """Return the ``livetable room simulate`` argument parser."""
    from controller.cli import help_text

    p = argparse.ArgumentParser(prog="livetable room simulate", description=help_text(__doc__))
    p.add_argument("--tables", type=int, default=4, help="simulated tables (1..60, default 4)")
    p.add_argument("--hands", type=int, default=None, help="hands per table (default: until Ctrl-C)")
    p.add_argument("--headless", action="store_true", help="no console page")
    p.add_argument("--store", default=None, help="postgresql://... or a SQLite file (default: in --dir)")
    p.add_argument("--dir", default=None, help="the run's folder (default: a new temporary one)")
    p.add_argument("--seed", type=int, default=int.from_bytes(os.urandom(3), "big"))
    p.add_argument("--timeout", type=float, default=120.0,
                   help="seconds the room waits, once the tables stopped, to hold all their records")
    p.add_argument("--devices", choices=("all", "none"), default="all",
                   help="the tables' devices: all (shuffler emulator, MQTT link; camera off) or none")
    p.add_argument("--http-port", type=int, default=0, help="the console's port (default: a free one)")
    p.add_argument("--players", type=int, default=0,
                   help="simulated players who join the waiting lists, are called, sit down and leave (issue 18)")
    p.add_argument("--leave-chance", type=float, default=None,
                   help="with --players: the chance (0..1) a seated player stands up after a hand (default 0.05)")
    p.add_argument("--hold", type=float, default=None,
                   help="seconds a call holds its seat (default 180; 3 with --players, the simulation's pace)")
    p.add_argument("--tournament", action="store_true",
                   help="a multi-table tournament run by the room to a winner (issue 19, docs/tournament.md)")
    p.add_argument("--entries", type=int, default=None, help="the tournament's entries (default: 8 a table)")
    from room.tournament_serve import add_entries_file

    add_entries_file(p)  # room serve's option (issue 19): the entries by name
    p.add_argument("--tournament-config", default=None,
                   help="the tournament's [tournament] TOML (default: a fast built-in one, room/tournament_sim.py)")
    p.add_argument("--speed", type=float, default=30.0,
                   help="the tournament clock runs this many times faster than real time (default 30)")
    p.add_argument("--tournament-timeout", type=float, default=1800.0,
                   help="seconds the tournament may take before the room gives up (exit 1)")
    return p


def keep_open(hands: int, balanced: bool) -> None:
    """Keep the room, its console and its pages up after the tables played their ``--hands``
    (issue 18: a newcomer opened the printed address and found the room gone), saying so,
    until Ctrl-C (SIGINT, or SIGTERM: both raise :class:`KeyboardInterrupt` here)."""
    print(f"room simulate: the tables played their hands ({hands} in the room's store, "
          f"{'balanced' if balanced else 'NOT balanced'}); the room, its console and pages stay up: "
          "Ctrl-C ends it (or --headless ends with the tables)", flush=True)
    try:
        while True:
            signal.pause()
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C does not cut the summary short
        signal.signal(signal.SIGTERM, signal.SIG_IGN)


def main(argv: list[str] | None = None) -> int:
    """Run ``livetable room simulate``; 0 balanced, 1 not, 2 bad options."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if not 1 <= args.tables <= 60:
        print(f"livetable room simulate: --tables must be 1..60, got {args.tables}", file=sys.stderr)
        return 2
    if args.hands is not None and args.hands < 1:
        print(f"livetable room simulate: --hands must be 1 or more, got {args.hands}", file=sys.stderr)
        return 2
    if not 0 <= args.players <= 999 or (args.players and args.devices != "all"):
        print("livetable room simulate: --players is 0..999 and needs --devices all (the floor seats them)",
              file=sys.stderr)
        return 2
    from room.tournament_serve import entries_file_refused

    if (why := entries_file_refused(args.entries, args.entries_file, args.tournament)) is not None:
        print(f"livetable room simulate: {why}", file=sys.stderr)
        return 2
    leave = args.leave_chance if args.leave_chance is not None else (0.05 if args.players else 0.0)
    hold = args.hold if args.hold is not None else (3.0 if args.players else 180.0)
    if not 0 <= leave <= 1 or not hold > 0:
        print("livetable room simulate: --leave-chance is 0..1, --hold more than 0", file=sys.stderr)
        return 2
    from room.service import RoomService
    from room.store import StoreError, open_store

    workdir = Path(args.dir or tempfile.mkdtemp(prefix="livetable-room-"))
    if workdir.exists() and not workdir.is_dir():
        print(f"livetable room simulate: --dir {workdir} is a file", file=sys.stderr)
        return 2
    try:
        store = open_store(args.store or workdir / "room.sqlite")
    except StoreError as exc:
        print(f"livetable room simulate: {exc}", file=sys.stderr)
        return 2
    tables = [f"t{i}" for i in range(1, args.tables + 1)]
    if args.tournament:
        from room.tournament_sim import run_tournament

        return run_tournament(args, store, workdir, tables)
    rig = RoomRig(workdir, tables).start()
    service = RoomService(store, host="127.0.0.1", port=rig.room_broker.mqtt_port, **rig.room_creds).start()
    from room.desk import PlayersDesk, serve_desk  # issue 18: lobby, waiting lists, phones

    from room.provision import login_maker

    desk = PlayersDesk(service, hold_seconds=hold,
                       logins=login_maker(rig.room_dir / "mosquitto", rig.room_broker.reload)).start()
    crowd = None
    if args.players:
        from room.simplayers import RoomPlayers

        # the tables are livetable simulate's (big blind 100: buy-ins of 20..100 big blinds, T-2)
        crowd = RoomPlayers(desk, service, players=args.players, seed=args.seed, buy_in=5000).start()
    desk_server = None
    console = None
    if not args.headless:
        from room.console import serve_console

        links: dict[str, int] = {}  # each page links to the other (issue 18)
        desk_server = serve_desk(desk, workdir / "room" / "floor-logins", port=0,
                                 ws_url=f"ws://127.0.0.1:{rig.room_broker.ws_port}", links=links)
        print(f"room simulate: the lobby {desk_server.url}lobby, phones {desk_server.url}phone, "
              f"the floor's lists {desk_server.url}floor", flush=True)

        console = serve_console(service, workdir / "room" / "floor-logins", port=args.http_port, links=links)
        links.update(console=console.server.server_address[1], floor=desk_server.server.server_address[1])
        print(f"room simulate: the floor console: {console.url} (login {console.login_hint})", flush=True)
        if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
            import webbrowser

            webbrowser.open(console.url)
    t0 = time.monotonic()
    env = dict(os.environ, PYTHONPATH=str(REPO))

    def interrupt(*_: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGINT, interrupt)
    procs = {t: subprocess.Popen(rig.table_command(t, args.hands if args.hands is not None else 10**9,
                                                   args.seed + i, devices=args.devices,
                                                   extra=["--leave-chance", str(leave)] if leave else None),
                                 stdout=subprocess.PIPE, stderr=(workdir / t / "table.log").open("ab"),
                                 env=env, cwd=str(REPO),
                                 preexec_fn=die_with_parent())  # no table left playing if the room dies
             for i, t in enumerate(tables)}
    summaries: dict[str, dict[str, Any]] = {}
    bad: list[str] = []

    def collect() -> None:
        for t, p in procs.items():
            if t in summaries or t in bad:
                continue
            out, _ = p.communicate()
            lines = out.decode(errors="replace").strip().splitlines()
            try:
                summaries[t] = json.loads(lines[-1])
            except (IndexError, ValueError):
                bad.append(t)
                log.error("table %s ended with %s and no summary", t, p.returncode)

    stopped = False  # Ctrl-C stopped the tables
    try:
        try:
            collect()
        except KeyboardInterrupt:  # Ctrl-C: every table stops (its summary), then the room
            stopped = True
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C does not cut it short
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            for p in procs.values():
                if p.poll() is None:
                    p.send_signal(signal.SIGTERM)
            collect()
        if crowd is not None:
            crowd.stop()
        for t, s in summaries.items():
            last = (s.get("room_link") or {}).get("last_seq") or 0
            if not service.wait_applied(t, last, args.timeout):
                log.error("table %s: the room holds up to %d of %d", t, service.room.ack(t).upto, last)
        result = balance(store, summaries, rig)
        figures = crowd.summary() if crowd is not None else None
        if console is not None and args.hands is not None and not stopped:
            keep_open(store.hand_count(), result["balanced"] and not bad)
    finally:
        if crowd is not None:
            crowd.stop()
        if console is not None:
            console.stop()
        if desk_server is not None:
            desk_server.stop()
        desk.stop()
        service.stop()
        rig.stop()
    code = 1 if bad else 0
    out = {"tables": len(tables), "hands": store.hand_count(), "balanced": result["balanced"] and not bad,
           "records": store.record_count(), "totals": store.totals(), "per_table": result["per_table"],
           "store": store.dialect, "dir": str(workdir), "seconds": round(time.monotonic() - t0, 2)}
    if figures is not None:
        out["players"] = figures
    store.close()
    print(json.dumps(out, separators=(",", ":")))
    fair = figures is None or figures["fair"]
    return 0 if result["balanced"] and code == 0 and fair else 1
