"""``livetable room serve``: the room service as systemd runs it (issue 17).

Opens the store (``--store``: ``postgresql://...`` or a SQLite file, default
``/var/lib/livetable/room.sqlite``), logs in to the room broker as ``room`` and stores and
acknowledges every table's records (:class:`room.service.RoomService`); serves the floor's
console on ``--http-host:--http-port`` (:mod:`room.console`). Reports ready to systemd once
connected; SIGTERM stops it (what it took is committed or not at all; kill -9 loses nothing
acknowledged either: see docs/room.md).

With ``--tournament SETTINGS.toml --tables t1,t2,...`` it also runs the room's multi-table
tournament (issue 19) on those tables, as ``livetable room simulate --tournament`` does on
simulated ones (:class:`room.tournament_serve.TournamentRunner`: the same director, loop and
journal in the store; the console's ``/api/tournament``): ``--entries N`` players (``p1``..``pN``,
``Player 1``..; default a full field) or ``--entries-file FILE``'s players by name
(:func:`room.tournament_serve.read_entries`; a bad line: exit 2, its number said) drawn to
seats with ``--tournament-seed``. Restarted with the same ``--tournament`` and ``--tables`` it
resumes the tournament from the store; other settings, tables or entries (another entries
file) are refused (exit 2). At the end the result (places, payouts) is
logged, printed as one JSON line ``{"tournament": {...}}`` and kept in the store (its
``payouts`` event); the service goes on serving.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import secrets
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from controller.sdnotify import notify
from room.store import DEFAULT_SQLITE, StoreError, open_store

__all__ = ["main", "build_parser"]

log = logging.getLogger("livetable.room.serve")


def build_parser() -> argparse.ArgumentParser:
    """Return the ``livetable room serve`` argument parser."""
    p = argparse.ArgumentParser(prog="livetable room serve", description=__doc__.split("\n\n")[0])
    p.add_argument("--store", default=DEFAULT_SQLITE, help="postgresql://... or a SQLite file (default %(default)s)")
    p.add_argument("--broker-host", default="127.0.0.1")
    p.add_argument("--broker-port", type=int, default=1884)
    p.add_argument("--user", default="room")
    p.add_argument("--password-file", default=None, help="the room login's password (provisioning writes "
                   "it to credentials/room.json under the provisioning folder)")
    p.add_argument("--provision-dir", default=None, help="read the room login from this provisioning folder")
    p.add_argument("--http-host", default="127.0.0.1")
    p.add_argument("--http-port", type=int, default=8090, help="the floor console (0: none)")
    p.add_argument("--floor-logins", default="/etc/livetable/room/floor-logins.json",
                   help="the floor's console logins (default %(default)s)")
    p.add_argument("--add-floor", metavar="NAME", default=None,
                   help="add (or give a new password to) the floor login NAME in --floor-logins, print "
                        "its password, and exit")
    p.add_argument("--desk-port", type=int, default=8091,
                   help="the players' desk: lobby TV, phone and floor list pages (0: none; issue 18)")
    p.add_argument("--ws-url", default=None, help="the room broker's MQTT over WebSockets as phones reach it "
                   "(default ws://<this host>:9002)")
    p.add_argument("--broker-pid-file", default="/run/mosquitto/mosquitto.pid",
                   help="the room broker's process id: a login the floor makes at the desk (with --provision-dir) "
                        "is taken by the broker after a SIGHUP to it")
    p.add_argument("--hold", type=float, default=180.0, help="seconds a called player's seat is held")
    p.add_argument("--public-url", default=None, help="the desk's address as phones reach it, for the lobby's "
                   "QR code (default: the address the TV asked)")
    p.add_argument("--client-id", default="room", help="ignored by the room broker, which uses the login")
    p.add_argument("--tournament", metavar="SETTINGS.toml", default=None,
                   help="run the room's multi-table tournament with these [tournament] settings (issue 19, "
                        "docs/tournament.md); needs --tables")
    p.add_argument("--tables", default=None, help="the tournament's tables, comma-separated (t1,t2,...): the "
                   "first is the final table, they break from the last")
    p.add_argument("--entries", type=int, default=None,
                   help="the tournament's entries, p1..pN (default: every seat of the tables); checked against "
                        "the stored tournament when given")
    from room.tournament_serve import add_entries_file

    add_entries_file(p)  # room simulate --tournament's too
    p.add_argument("--tournament-seed", type=int, default=None, help="the draw's seed (default: a random one; "
                   "a resumed tournament keeps its own)")
    p.add_argument("--tournament-speed", type=clock_speed, default=1.0,
                   help="the tournament clock runs this many times faster than real time (default 1; tests and "
                        "demonstrations only)")
    p.add_argument("--broker-wait", type=wait_seconds, default=10.0, metavar="SECONDS",
                   help="say on stderr (and in the log) that the room broker has not answered after this many "
                        "seconds, and again every minute while it does not (default %(default)s)")
    p.add_argument("--log-level", default="info")
    return p


def clock_speed(text: str) -> float:
    """``--tournament-speed``: a finite number above 0 (times real time).

    Raises:
        argparse.ArgumentTypeError: anything else (nan, inf, 0, negative, not a number): exit 2.
    """
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(v) or v <= 0:
        raise argparse.ArgumentTypeError(f"a finite number above 0 (times real time), not {text!r}")
    return v


def wait_seconds(text: str) -> float:
    """``--broker-wait``: a finite number of seconds, 0 or more.

    Raises:
        argparse.ArgumentTypeError: anything else: exit 2.
    """
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(v) or v < 0:
        raise argparse.ArgumentTypeError(f"a finite number of seconds, 0 or more, not {text!r}")
    return v


def _open_tournament(runner: Any, args: argparse.Namespace) -> int:
    """Resume or start the tournament and its loop's thread; return 0, or 2 when it cannot
    start (said on stderr and in the log, and by the console's ``/api/tournament``: 409 with
    the reason; the records service keeps running). Its result is printed as one JSON line
    when it is over."""
    from controller.tournament.errors import TournamentError
    from room.store import StoreError

    seed = args.tournament_seed if args.tournament_seed is not None else secrets.randbelow(2**24)
    try:
        resumed = runner.open(args.entries, seed, names=args.names)
    except (TournamentError, ValueError, KeyError, TypeError, StoreError) as exc:
        # the records service keeps running (the tables' hands are stored): the tournament does
        # not, and the console's /api/tournament says why (409) until a person looks
        print(f"livetable room serve: --tournament: {exc}", file=sys.stderr)
        log.error("the room's tournament did not start (the room's records are served): %s", exc)
        runner.desk.refused = f"the room's tournament did not start: {exc}"
        notify(f"STATUS=room service connected; the tournament did not start: {exc}"[:200])
        return 2
    d = runner.director
    log.info("the room's tournament: %d entries on %s; the clock runs %gx real time%s", len(d.standings.entries),
             ",".join(runner.tables), runner.speed, " (resumed from the store)" if resumed else "")

    runner.on_finished = lambda result: print(json.dumps({"tournament": result}, separators=(",", ":")), flush=True)
    runner.start()
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the room service until SIGTERM/SIGINT; 0 then, 2 on bad options (with
    ``--tournament``: also bad settings or entries, a store holding another tournament, or
    another process running this store's tournament: :func:`room.tournament_serve.lock_director`),
    3 when the store cannot be opened. A stored tournament that does not replay does not stop
    the records service: it serves on, and the console's ``/api/tournament`` says why (409)."""
    args = build_parser().parse_args(argv)
    args.names = None  # --entries-file's players (player id -> name), read before anything starts
    if args.add_floor is not None:
        from room.console import add_login

        try:
            password: str | None = add_login(Path(args.floor_logins), args.add_floor)
        except (ValueError, OSError) as exc:
            print(f"livetable room serve: --add-floor: {exc}", file=sys.stderr)
            return 2
        print(json.dumps({"floor_login": args.add_floor.strip(), "password": password,
                          "file": args.floor_logins}))
        return 0
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(name)s %(levelname)s %(message)s")
    password = None
    try:
        if args.password_file:
            password = Path(args.password_file).read_text().strip()
        elif args.provision_dir:
            password = json.loads((Path(args.provision_dir) / "credentials" / "room.json").read_text())[args.user]
    except (OSError, ValueError, KeyError) as exc:
        if isinstance(exc, OSError) and exc.filename:  # the absolute path: a relative one was read from here
            exc = OSError(f"{exc.strerror}: {Path(exc.filename).absolute()}")
        print(f"livetable room serve: the room login's password: {exc}", file=sys.stderr)
        return 2
    tournament = _tournament_args(args)
    if not isinstance(tournament, str):
        from room.tournament_serve import entries_file_refused

        tournament = entries_file_refused(args.entries, args.entries_file, tournament is not None) or tournament
    if isinstance(tournament, str):
        print(f"livetable room serve: {tournament}", file=sys.stderr)
        return 2
    try:
        store = open_store(args.store)
    except StoreError as exc:
        print(f"livetable room serve: {exc}", file=sys.stderr)
        return 3
    from room.service import RoomService

    service = RoomService(store, host=args.broker_host, port=args.broker_port, username=args.user,
                          password=password, client_id=args.client_id)
    runner, lock = None, None
    if tournament is not None:
        from room.tournament_serve import (DirectorLockHeld, StoredTournamentMismatch, TournamentRunner,
                                           check_entries_count, check_stored, lock_director, read_entries)

        text, tables = tournament
        try:  # one director a store (issue 19): before anything starts, a second room is refused
            lock = lock_director(store)
        except (DirectorLockHeld, StoreError, OSError) as exc:
            print(f"livetable room serve: --tournament: {exc}", file=sys.stderr)
            store.close()
            return 2
        try:  # before the service starts: a mismatch changes nothing and starts nothing
            runner = TournamentRunner(store, service, text, tables, speed=args.tournament_speed)
            if args.entries_file is not None:
                args.names = read_entries(args.entries_file)  # EntriesFileError (a ValueError): exit 2
            held = check_stored(store, runner.settings, tables, args.entries, args.names)
            seats = runner.settings.seats_per_table * len(tables)
            if not held and args.entries is not None and not 2 <= args.entries <= seats:
                raise ValueError(f"--entries must be 2..{seats} ({len(tables)} tables of "
                                 f"{runner.settings.seats_per_table} seats)")
            if not held and args.names is not None:
                check_entries_count(args.names, runner.settings, tables)
        except (StoredTournamentMismatch, ValueError, StoreError) as exc:
            print(f"livetable room serve: --tournament: {exc}", file=sys.stderr)
            lock.release()
            store.close()
            return 2
    done = threading.Event()  # SIGTERM/SIGINT: honoured at once, also while the broker is awaited
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    console_url = None
    if args.http_port:
        host = "127.0.0.1" if args.http_host in ("0.0.0.0", "::", "") else args.http_host
        console_url = f"http://{host}:{args.http_port}/"
    failed = first_floor_login(Path(args.floor_logins), console_url) if (args.http_port or args.desk_port) else None
    if failed:
        print(f"livetable room serve: {failed}", file=sys.stderr)
        if lock is not None:
            lock.release()
        store.close()
        return 2
    service.start()
    from room.desk import PlayersDesk, serve_desk

    logins = None
    if args.provision_dir:  # the floor's "new player" at the desk makes the player's login (issue 18)
        from room.provision import login_maker, sighup_pidfile

        logins = login_maker(Path(args.provision_dir), sighup_pidfile(Path(args.broker_pid_file)))
    desk = PlayersDesk(service, hold_seconds=args.hold, logins=logins).start()
    links: dict[str, int] = {}  # the console and the floor's lists link to each other (issue 18)
    desk_server = serve_desk(desk, Path(args.floor_logins), host=args.http_host, port=args.desk_port,
                             ws_url=args.ws_url, public_url=args.public_url, links=links) if args.desk_port else None
    console = None
    if args.http_port:
        from room.console import serve_console

        console = serve_console(service, Path(args.floor_logins), host=args.http_host, port=args.http_port,
                                links=links, tournament=runner.desk if runner is not None else None)
        links["console"] = console.server.server_address[1]
        log.info("the floor console: %s", console.url)
    if desk_server is not None:
        links["floor"] = desk_server.server.server_address[1]
    if not wait_for_broker(service, done, args):
        runner = None  # stopped before the room broker answered: no tournament was opened
    else:
        if runner is not None and _open_tournament(runner, args):
            runner = None  # no loop to stop; the records service goes on (docs/tournament.md)
        print(json.dumps({"serving": True, "store": store.dialect,
                          "console": console.url if console else None,
                          "desk": desk_server.url if desk_server else None}), flush=True)
        done.wait()
    notify("STOPPING=1")
    if runner is not None:
        runner.stop()
    if console is not None:
        console.stop()
    if desk_server is not None:
        desk_server.stop()
    desk.stop()
    service.stop()
    if lock is not None:
        lock.release()
    store.close()
    return 0


def broker_words(args: argparse.Namespace) -> str:
    """What a technician does when the room broker does not answer (F1): its address and login,
    and how it is set up."""
    return (f"no answer from the room broker at {args.broker_host}:{args.broker_port} (login {args.user}): "
            "is it running and provisioned? `livetable room provision --dir DIR --table t1 ...`, then Mosquitto "
            "with mosquitto/room.conf (docs/room.md \"Setting up the room\"); or give --broker-host/--broker-port "
            "and --provision-dir/--password-file of the room broker you run; to try it on one machine: "
            "bash scripts/run-room --tournament FILE --tables t1,t2 --local")


def wait_for_broker(service: Any, done: threading.Event, args: argparse.Namespace) -> bool:
    """Wait until ``service`` is connected to the room broker (True: READY is told to systemd)
    or ``done`` is set (SIGTERM/SIGINT: False, at once). After ``--broker-wait`` seconds, and
    every minute after, says on stderr and in the log which broker does not answer and what
    to do; the room's tournament (its clock) is opened only once the broker answers."""
    next_warning, warned = time.monotonic() + max(0.0, args.broker_wait), False
    while not done.is_set():
        # short slices: a signal's handler sets ``done`` while the main thread waits here
        if service.wait_connected(0.2):
            notify("READY=1\nSTATUS=room service connected")
            if warned:
                log.info("the room broker at %s:%d answered", args.broker_host, args.broker_port)
            return True
        if time.monotonic() >= next_warning:
            words = broker_words(args) + ("; the room's tournament and its clock start once it answers"
                                          if args.tournament else "; still trying")
            print(f"livetable room serve: {words}", file=sys.stderr, flush=True)
            log.warning("%s", words)
            notify(f"STATUS=waiting for the room broker at {args.broker_host}:{args.broker_port}")
            next_warning, warned = time.monotonic() + 60.0, True
    return False


def first_floor_login(path: Path, console: str | None = None) -> str | None:
    """Make the floor's first console login ``floor`` when ``path`` does not exist yet (F1):
    its password alone (one line) is written to ``<path>.floor-password`` (0600, the file and
    the login named on stderr; on a terminal the password is printed too), so the file is
    ``livetable room director --password-file FILE`` as it is; the message gives that command,
    with ``--console console`` when ``console`` (the console's address) is not the director's
    default. None when done or not needed; what is wrong (a message) when the file cannot be
    written."""
    if path.exists():
        return None
    from room.console import add_login

    note = path.with_name(path.name + ".floor-password")
    try:
        password = add_login(path, "floor")
        fd = os.open(note, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(password + "\n")
        os.chmod(note, 0o600)
    except OSError as exc:
        return (f"--floor-logins: cannot make the floor's first login in {path.absolute()}: {exc.strerror or exc} "
                "(give --floor-logins FILE in a folder you may write)")
    shown = f" password {password}," if sys.stderr.isatty() else ""
    where = f" --console {console}" if console and console != "http://127.0.0.1:8090/" else ""
    words = (f"made the floor console's login 'floor' in {path.absolute()}:{shown} its password is in "
             f"{note.absolute()} (0600; the director: livetable room director status{where} --login floor "
             f"--password-file {note.absolute()}; delete it once noted; another login or a new password: "
             "livetable room serve --add-floor NAME)")
    print(f"livetable room serve: {words}", file=sys.stderr, flush=True)
    log.warning("%s", words)
    return None


def _tournament_args(args: argparse.Namespace) -> tuple[str, list[str]] | str | None:
    """Return ``(settings TOML text, tables)`` of ``--tournament``/``--tables``, None without
    ``--tournament``, or what is wrong with them (a message)."""
    if args.tournament is None:
        if args.tables or args.entries is not None or args.tournament_seed is not None:
            return "--tables, --entries and --tournament-seed go with --tournament"
        return None
    if not (args.tables or "").strip():
        return "--tournament needs --tables t1,t2,..."
    tables = [t.strip() for t in args.tables.split(",")]
    if "" in tables:
        return f"--tables: an empty table name in {args.tables!r}: t1,t2,... with no empty names"
    from drivers.mqtt.topics import TopicError, check_table

    try:
        for t in tables:
            check_table(t)
    except TopicError as exc:
        return f"--tables: {exc}"
    twice = sorted({t for t in tables if tables.count(t) > 1})
    if twice:
        return f"--tables: {', '.join(twice)} named twice"
    from controller.config import read_small_text

    try:
        text = read_small_text(args.tournament, what="tournament's settings")
    except (OSError, ValueError) as exc:
        return f"--tournament: {exc}"
    return text, tables
