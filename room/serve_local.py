"""``livetable room serve-local`` (``bash scripts/run-room --tournament FILE --tables t1,t2 --local``):
the room's tournament of ``room serve`` with real table processes, all on this machine, to try
it before the card room's Pis (newcomer finding F2).

In ``--dir`` (default: a new ``/tmp/livetable-room-local-XXXX``, kept and named): the room
broker and each table's Mosquitto from the repo's ``mosquitto/room.conf`` and
``mosquitto/livetable.conf``, provisioned and bridged as ``livetable room provision`` and
``livetable tablets provision`` do (:class:`room.rig.RoomRig`, as ``room simulate`` and the
tests set them up); then ``livetable room serve --tournament FILE --tables ...`` on that room
broker (its store, floor logins and room password in the folder; every other option passed on,
e.g. ``--entries 10 --tournament-speed 10``); once it serves, each table as
``livetable simulate --tournament --tournament-room`` (a simulated player in every seat, at
``--table-speed``, logging to ``<dir>/<table>/table.log``). Ctrl-C or SIGTERM stops the tables
(each hands its last records to the room), then the room, then the brokers. Exit: room serve's
code (0 when stopped), 2 on bad options or settings, 3 when Mosquitto is missing.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO, Any

__all__ = ["main", "build_parser", "director_words"]

#: room serve's options this command sets itself (the rig's room broker and its login).
OWN = ("--broker-host", "--broker-port", "--user", "--password-file", "--provision-dir", "--tables")


def build_parser() -> argparse.ArgumentParser:
    """Return the ``livetable room serve-local`` argument parser (other options go to room serve)."""
    p = argparse.ArgumentParser(prog="livetable room serve-local", description=__doc__.split("\n\n")[0],
                                epilog="Every other option goes to `livetable room serve` (e.g. --entries 10 "
                                       "--tournament-speed 10 --http-port 8090).")
    p.add_argument("--tournament", required=True, metavar="SETTINGS.toml", help="the tournament's settings")
    p.add_argument("--tables", required=True, help="the tables, comma-separated (t1,t2,...)")
    p.add_argument("--dir", default=None, help="the run's folder (default: a new one under /tmp, kept)")
    p.add_argument("--table-speed", type=float, default=1.0,
                   help="the simulated players' pace at the tables: 1 a live table (default), 0 instant "
                        "(a 10-entry tournament is then over in seconds, too fast to direct)")
    p.add_argument("--seed", type=int, default=1, help="the tables' dealers' seed (default 1)")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the rig, ``room serve`` and the tables until Ctrl-C/SIGTERM or room serve ends."""
    args, rest = build_parser().parse_known_args(argv)
    own = [o for o in OWN if any(a == o or a.startswith(o + "=") for a in rest)]
    if own:
        print(f"livetable room serve-local: {', '.join(own)}: set by serve-local itself (its own room broker); "
              "leave them out", file=sys.stderr)
        return 2
    from room.serve import _tournament_args

    checked = _tournament_args(argparse.Namespace(tournament=args.tournament, tables=args.tables, entries=None,
                                                  tournament_seed=None))
    if not isinstance(checked, tuple):
        print(f"livetable room serve-local: {checked}", file=sys.stderr)
        return 2
    text, tables = checked
    from controller.tournament.settings import load_settings

    try:
        seats = load_settings(text).seats_per_table
    except (ValueError, KeyError, TypeError) as exc:
        print(f"livetable room serve-local: --tournament {Path(args.tournament).absolute()}: {exc}", file=sys.stderr)
        return 2
    if shutil.which("mosquitto") is None:
        print("livetable room serve-local: mosquitto is not installed (bash scripts/setup.sh installs it)",
              file=sys.stderr)
        return 3
    workdir = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="livetable-room-local-"))
    workdir.mkdir(parents=True, exist_ok=True)
    from room.rig import RoomRig

    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    rig = RoomRig(workdir, tables).start()
    tables_run: dict[str, subprocess.Popen[bytes]] = {}
    serve: subprocess.Popen[str] | None = None
    try:
        pw = workdir / "room-password"
        pw.write_text(rig.room_creds["password"] + "\n")
        pw.chmod(0o600)
        defaults = {"--store": str(workdir / "room.sqlite"), "--floor-logins": str(workdir / "floor-logins.json")}
        extra = [x for o, v in defaults.items() if not any(a == o or a.startswith(o + "=") for a in rest)
                 for x in (o, v)]
        cmd = [sys.executable, "-m", "controller.cli", "room", "serve", "--broker-port", str(rig.room_broker.mqtt_port),
               "--user", rig.room_creds["username"], "--password-file", str(pw), *extra,
               "--tournament", args.tournament, "--tables", ",".join(tables), *rest]
        serve = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        serving = threading.Event()
        served: dict[str, Any] = {}
        threading.Thread(target=_relay, args=(serve.stdout, serving, served), daemon=True).start()
        threading.Thread(target=_when_ended, args=(serve, done), daemon=True).start()
        while not done.is_set() and not serving.wait(0.2):
            pass  # room serve says when its broker answered (and the floor's login)
        if not done.is_set():
            for i, t in enumerate(tables):
                link = ["--tournament", "--tournament-room", "--tournament-config", args.tournament,
                        "--seats", str(seats), "--speed", str(args.table_speed),
                        "--tournament-room-password-file", str(rig.tournament_password[t])]
                log = (workdir / t / "table.log").open("ab")
                tables_run[t] = subprocess.Popen(rig.table_command(t, 10**9, args.seed + i, devices="none",
                                                                   extra=link),
                                                 stdout=subprocess.DEVNULL, stderr=log)
                log.close()
            print(json.dumps({"local": {
                "dir": str(workdir), "room_broker": rig.room_broker.mqtt_port,
                "tables": {t: {"broker": rig.brokers[t].mqtt_port, "log": str(workdir / t / "table.log")}
                           for t in tables}}}), flush=True)
            print(f"room serve-local: {len(tables)} tables playing; Ctrl-C stops the tables, the room and the "
                  f"brokers (the folder {workdir} is kept)", file=sys.stderr, flush=True)
            given = argparse.ArgumentParser(add_help=False)
            given.add_argument("--floor-logins", default=str(workdir / "floor-logins.json"))
            logins = Path(given.parse_known_args(rest)[0].floor_logins)
            print(director_words(served.get("console"), logins), file=sys.stderr, flush=True)
            done.wait()
    finally:
        _stop(list(tables_run.values()))
        code = _stop([serve])[0] if serve is not None else 2
        rig.stop()
    return code


def director_words(console: str | None, logins: Path) -> str:
    """The line that tells how to direct this run: ``livetable room director status --console
    URL --password-file <logins>.floor-password`` (the file ``room serve`` wrote for the first
    floor login, its password alone), or how to make a login when that file is not there (the
    logins were made before) or there is no console (``console`` None: ``--http-port 0``)."""
    if not console:
        return "room serve-local: no floor console (give --http-port PORT to direct the tournament)"
    note = logins.with_name(logins.name + ".floor-password").absolute()
    if note.exists():
        return (f"room serve-local: the director: livetable room director status --console {console} "
                f"--password-file {note}  (then clock-pause --reason TEXT, register NAME --by NAME, ...)")
    return (f"room serve-local: the director: livetable room director status --console {console} --login NAME "
            f"--password-file FILE  (no {note}: the logins in {logins.absolute()} were made before; a new "
            f"password: livetable room serve --add-floor NAME --floor-logins {logins.absolute()})")


def _relay(stream: IO[str] | None, serving: threading.Event, served: dict[str, Any] | None = None) -> None:
    """Copy room serve's stdout to ours; set ``serving`` at its ``{"serving": true}`` line (its
    fields into ``served``: the console's address)."""
    for line in stream or ():
        sys.stdout.write(line)
        sys.stdout.flush()
        if line.startswith('{"serving"'):
            if served is not None:
                try:
                    served.update(json.loads(line))
                except ValueError:
                    pass  # not one JSON object: the console's address is then not known
            serving.set()


def _when_ended(proc: subprocess.Popen[str], done: threading.Event) -> None:
    """Set ``done`` when ``proc`` (room serve) has ended: serve-local stops the rest then."""
    proc.wait()
    done.set()


def _stop(procs: list[Any]) -> list[int]:
    """SIGTERM each process still running, wait for all (kill after 30 s); their exit codes."""
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    codes = []
    for p in procs:
        try:
            codes.append(p.wait(timeout=30))
        except subprocess.TimeoutExpired:
            p.kill()
            codes.append(p.wait())
    return codes
