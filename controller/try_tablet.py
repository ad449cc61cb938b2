"""``livetable try-tablet``: a simulated table with seat tablets a browser can open (issue 10).

``livetable simulate`` alone talks to the machine's anonymous Mosquitto on 1883, which has
no WebSockets listener and no seat logins, so a seat tablet (``tablet/``, docs/tablet.md)
cannot join it. This command sets up what the Pi installer sets up, in a temporary folder:

1. seat logins, the password file and the ACL (``livetable tablets provision``:
   :func:`drivers.mqtt.provision.provision`);
2. a private Mosquitto from ``mosquitto/livetable.conf`` (:class:`drivers.mqtt.broker.BrokerProcess`:
   MQTT and WebSockets listeners on 127.0.0.1, free ports unless ``--mqtt-port``/``--ws-port``);
3. ``tablet/`` served over HTTP on 127.0.0.1 (``http.server``; free port unless ``--http-port``);
4. ``livetable simulate --headless`` against that broker with the ``controller`` login, every
   option this command does not know passed on to it;

and prints, per tablet seat, the address a browser opens and the command for the dealer
display. Ctrl-C (or SIGTERM) stops simulate first (it prints its JSON summary), then the web
server and the broker, and removes the temporary folder (the passwords). The exit code is
simulate's (0, 1 if an invariant broke, 2 on bad options), 2 when a fixed port is taken.

It is a command of its own, not a ``simulate`` option, so that simulate stays the one table
process ``run-table`` and the crash tests run (killed and restarted on its journal), and the
table reaches the broker as on the Pi: another process, over TCP, with its own login.
:class:`TabletRig` (broker + logins + web server) is also what the tablet e2e tests build on.
"""

from __future__ import annotations

import argparse
import errno
import functools
import http.server
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from controller.engine.table.settings import LANGUAGES
from drivers.mqtt.broker import BrokerProcess, die_with_parent
from drivers.mqtt.provision import ProvisionError, provision

__all__ = ["TabletRig", "PortTaken", "tablet_url", "serve_tablet", "main", "build_parser"]

REPO = Path(__file__).resolve().parents[1]
TABLET_DIR = REPO / "tablet"
HOST = "127.0.0.1"


class PortTaken(OSError):
    """A fixed port (``--mqtt-port``, ``--ws-port``, ``--http-port``) is already in use."""


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves a folder without logging every request to stderr."""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


def serve_tablet(directory: Path = TABLET_DIR, *, host: str = HOST, port: int = 0) -> http.server.ThreadingHTTPServer:
    """Serve ``directory`` over HTTP on ``host:port`` (0: a free port) from a daemon thread.

    Returns the server (``server_address[1]`` is the port; ``shutdown()`` and
    ``server_close()`` stop it). Raises :class:`PortTaken` when ``port`` is in use.
    """
    handler = functools.partial(QuietHandler, directory=str(directory))
    try:
        server = http.server.ThreadingHTTPServer((host, port), handler)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise PortTaken(f"port {port} on {host} is taken (another web server?): give another "
                            "--http-port, or leave it out for a free one") from None
        raise
    threading.Thread(target=server.serve_forever, daemon=True, name="tablet-http").start()
    return server


def tablet_url(http_base: str, table: str, seat: int, password: str, ws: str, *, user: str | None = None) -> str:
    """The address a seat tablet's browser opens (docs/tablet.md's URL parameters).

    ``http_base`` e.g. ``http://127.0.0.1:8080``; ``ws`` the broker's WebSockets listener
    (``ws://127.0.0.1:9001``); ``user`` defaults to ``<table>-seat<seat>``.
    """
    query = {"table": table, "seat": seat, "user": user or f"{table}-seat{seat}", "pass": password, "ws": ws}
    return f"{http_base}/index.html?{urlencode(query, safe=':/')}"


def _check_free(port: int, option: str) -> None:
    with socket.socket() as s:
        try:
            s.bind((HOST, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise PortTaken(f"port {port} on {HOST} is taken (another broker?): give another {option}, "
                                "or leave it out for a free one") from None
            raise


class TabletRig:
    """Seat logins, a private broker from the repo's config, and ``tablet/`` over HTTP.

    Args:
        workdir: a folder for the broker's files and the logins (``passwd``, ``acl``,
            ``credentials/<table>.json``, ``mosquitto.conf``, ``data/``, ``mosquitto.log``).
        table: the table id; ``seats``: 2..10 (L-2), one login per seat.
        mqtt_port, ws_port, http_port: fixed ports on 127.0.0.1, or None for free ones.
        own_session: run the broker in a session of its own (a terminal's Ctrl-C does not
            reach it; :meth:`stop` does).

    :meth:`start` raises :class:`PortTaken` for a fixed port in use,
    :class:`drivers.mqtt.provision.ProvisionError` for a bad table id or seat count and
    :class:`drivers.mqtt.broker.BrokerError` when Mosquitto does not start.
    """

    def __init__(self, workdir: Path, table: str = "t1", seats: int = 6, *, mqtt_port: int | None = None,
                 ws_port: int | None = None, http_port: int | None = None, own_session: bool = False) -> None:
        self.workdir, self.table, self.seats = Path(workdir), table, seats
        self._ports = {"--mqtt-port": mqtt_port, "--ws-port": ws_port}
        self._http_port = http_port or 0
        self._own_session = own_session
        self.creds: dict[str, Any] = {}
        self.broker: BrokerProcess | None = None
        self.http: http.server.ThreadingHTTPServer | None = None

    def provision(self) -> dict[str, Any]:
        """Write the logins and ACL into ``workdir`` (without starting anything); return them."""
        self.creds = provision(self.workdir, self.table, self.seats)
        return self.creds

    def start(self) -> "TabletRig":
        """Provision (unless done), start the broker, then the web server; return self."""
        for option, port in self._ports.items():
            if port:
                _check_free(port, option)
        if not self.creds:
            self.provision()
        self.broker = BrokerProcess(self.workdir, mqtt_port=self._ports["--mqtt-port"],
                                    ws_port=self._ports["--ws-port"], own_session=self._own_session).start()
        try:
            self.http = serve_tablet(port=self._http_port)
        except OSError:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop the web server and the broker (either may not have started)."""
        if self.http is not None:
            self.http.shutdown()
            self.http.server_close()
            self.http = None
        if self.broker is not None:
            self.broker.stop()

    @property
    def credentials_file(self) -> Path:
        """``credentials/<table>.json``: every login of the table in clear (mode 0600)."""
        return self.workdir / "credentials" / f"{self.table}.json"

    @property
    def ws(self) -> str:
        """The broker's WebSockets address, ``ws://127.0.0.1:<port>``."""
        assert self.broker is not None, "start() first"
        return f"ws://{HOST}:{self.broker.ws_port}"

    def url(self, seat: int, *, ws_port: int | None = None) -> str:
        """The address of ``seat``'s tablet page; ``ws_port`` swaps the broker's WebSockets port
        (the tests' network-drop relay)."""
        assert self.http is not None and self.broker is not None, "start() first"
        ws = f"ws://{HOST}:{ws_port}" if ws_port else self.ws
        pw = self.creds["seat_users"][str(seat)]["password"]
        return tablet_url(f"http://{HOST}:{self.http.server_address[1]}", self.table, seat, pw, ws)

    def controller_login_args(self) -> list[str]:
        """``livetable simulate`` options for this broker with the ``controller`` login
        (its password written to ``workdir/controller-password``, mode 0600)."""
        assert self.broker is not None, "start() first"
        pw_file = self.workdir / "controller-password"
        pw_file.touch(mode=0o600)
        pw_file.write_text(self.creds["controller"]["password"] + "\n")
        return ["--table", self.table, "--mqtt-host", HOST, "--mqtt-port", str(self.broker.mqtt_port),
                "--mqtt-user", self.creds["controller"]["username"], "--mqtt-password-file", str(pw_file)]

    def display_command(self) -> list[str]:
        """The dealer display following this table as the read-only ``display`` user."""
        assert self.broker is not None, "start() first"
        exe = Path(sys.executable).with_name("livetable")
        cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "controller"]
        return [*cmd, "display", "--table", self.table, "--host", HOST, "--port", str(self.broker.mqtt_port),
                "--credentials", str(self.credentials_file)]


def _seats(text: str, option: str) -> set[int]:
    try:
        return {int(x) for x in text.split(",") if x.strip()}
    except ValueError:
        raise argparse.ArgumentTypeError(f"{option}: seat numbers separated by commas, e.g. 3,5") from None


def _port(text: str) -> int:
    """A TCP port number 1..65535 (argparse type)."""
    try:
        port = int(text)
    except ValueError:
        port = 0
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is a number 1..65535, got {text!r}")
    return port


def build_parser() -> argparse.ArgumentParser:
    """Return the ``livetable try-tablet`` parser (unknown options go to ``livetable simulate``)."""
    p = argparse.ArgumentParser(
        prog="livetable try-tablet",
        description="A simulated table with a private broker and the seat tablet page: prints each tablet "
                    "seat's address. Other options are passed to `livetable simulate` (e.g. --bb 200 --speed 2).")
    p.add_argument("--table", default="t1", help="the table id (default %(default)s)")
    p.add_argument("--game", choices=("holdem", "omaha", "draw"), default="holdem")
    p.add_argument("--seats", type=int, default=None, help="seats at the table (default 6, draw 5)")
    p.add_argument("--join-seats", default=None,
                   help="seats left free for a player to take from its tablet (T-3; default 1 unless "
                        "--tablet-seats is given)")
    p.add_argument("--tablet-seats", default="", help="seats where a 'Tablet N' player already sits")
    p.add_argument("--mqtt-port", type=_port, default=None, help="the private broker's MQTT port (default: a free one)")
    p.add_argument("--ws-port", type=_port, default=None, help="its WebSockets port (default: a free one)")
    p.add_argument("--http-port", type=_port, default=None, help="the tablet page's HTTP port (default: a free one)")
    p.add_argument("--language", choices=LANGUAGES, default=None,
                   help="the table's language, as [table] language: the tablets' default and the dealer "
                        "display's (en, nl; default en)")
    p.add_argument("--dir", type=Path, default=None,
                   help="keep the logins, broker files and the table's journal and hand files in this folder "
                        "(run again, the table goes on; default: a temporary one, removed at the end)")
    return p


def main(argv: list[str]) -> int:
    """Run ``livetable try-tablet``; return simulate's exit code, or 2 for bad options or a port taken."""
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    seats = args.seats or (5 if args.game == "draw" else 6)
    try:
        tablet = _seats(args.tablet_seats, "--tablet-seats")
        join = _seats(args.join_seats, "--join-seats") if args.join_seats is not None else (set() if tablet else {1})
    except argparse.ArgumentTypeError as exc:
        print(f"livetable try-tablet: {exc}", file=sys.stderr)
        return 2
    bad = sorted(s for s in tablet | join if not 1 <= s <= seats)
    if bad:
        print(f"livetable try-tablet: seat {bad[0]} is not a seat of this table (1..{seats})", file=sys.stderr)
        return 2
    if any(a == "--headless" or a.startswith("--mqtt-") or a == "--table" for a in rest):
        print("livetable try-tablet: --headless, --table and --mqtt-* are set by try-tablet itself", file=sys.stderr)
        return 2
    if args.dir is not None and args.dir.exists() and not args.dir.is_dir():
        print(f"livetable try-tablet: --dir {args.dir} is a file, not a folder", file=sys.stderr)
        return 2
    sim: list[subprocess.Popen[bytes]] = []  # the simulate process, once started
    stopping = threading.Event()

    def _stop(*_: Any) -> None:
        stopping.set()
        if sim and sim[0].poll() is None:
            sim[0].send_signal(signal.SIGINT)  # simulate stops its table and prints its summary

    # Set before the folder with the logins exists, so that a Ctrl-C at start-up cleans up.
    signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    old = {s: signal.signal(s, _stop) for s in signals}
    workdir = args.dir or Path(tempfile.mkdtemp(prefix="livetable-try-tablet-"))
    rig = TabletRig(workdir, args.table, seats, mqtt_port=args.mqtt_port, ws_port=args.ws_port,
                    http_port=args.http_port, own_session=True)
    rc = 0
    try:
        rig.start()
        if not stopping.is_set():
            rc = _play(args, rest, seats, tablet, join, rig, sim, stopping, _stop)
    except (PortTaken, ProvisionError) as exc:
        print(f"livetable try-tablet: {exc}", file=sys.stderr)
        rc = 2
    finally:
        for s in signals:  # a second Ctrl-C must not cut the clean-up short
            signal.signal(s, signal.SIG_IGN)
        try:
            if sim and sim[0].poll() is None:
                sim[0].kill()
                sim[0].wait()
            rig.stop()
            _cleanup(args.dir, workdir, rest, ran=bool(sim))
        finally:
            for s, handler in old.items():
                signal.signal(s, handler)
    return rc


def _play(args: argparse.Namespace, rest: list[str], seats: int, tablet: set[int], join: set[int],
          rig: "TabletRig", sim: list[subprocess.Popen[bytes]], stopping: threading.Event,
          stop: Any) -> int:
    """Print the addresses, run simulate against ``rig`` until it ends; return its exit code."""
    cmd = [sys.executable, "-m", "controller", "simulate", "--game", args.game, "--seats", str(seats),
           "--headless", *rig.controller_login_args()]
    if not any(a == "--speed" or a.startswith("--speed=") for a in rest):
        cmd += ["--speed", "1"]  # --headless alone means full speed: a person plays along here
    if args.language is not None:
        cmd += ["--language", args.language]
    if tablet:
        cmd += ["--tablet-seats", ",".join(map(str, sorted(tablet)))]
    if join - tablet:
        cmd += ["--join-seats", ",".join(map(str, sorted(join - tablet)))]
    if not any(a == "--history-dir" or a.startswith("--history-dir=") for a in rest):
        # P-4: the tablets' "Last hands" is published only with a history folder (it stayed empty)
        cmd += ["--history-dir", str(rig.workdir / "history")]
        if not any(a == "--journal" or a.startswith("--journal=") for a in rest):
            # The hand files' journal beside them: with --dir, a second run goes on with the same
            # table (a new journal beside hand files is refused, exit 3: issue 16 b).
            cmd += ["--journal", str(rig.workdir / "journal.sqlite")]
            if args.dir is None:  # it goes with the temporary folder: simulate must not say it stays
                cmd += ["--journal-removed"]
    cmd += rest
    say = functools.partial(print, "try-tablet:", flush=True)
    assert rig.broker is not None
    say(f"broker mqtt://{HOST}:{rig.broker.mqtt_port} and {rig.ws} (mosquitto/livetable.conf), "
        f"logins in {rig.credentials_file}")
    for seat in sorted(tablet | join):
        what = "a Tablet player sits here" if seat in tablet else "free: Take this seat"
        say(f"seat {seat} ({what}): {rig.url(seat)}")
    say("dealer display: " + " ".join(rig.display_command()))
    say("Ctrl-C stops the table (its summary), the web server and the broker")
    # simulate dies with this process too (a SIGKILL here must not leave a table playing)
    sim.append(subprocess.Popen(cmd, cwd=REPO, preexec_fn=die_with_parent()))
    if stopping.is_set():  # asked to stop while it was starting
        stop()
    rc = sim[0].wait()
    say(f"stopped (simulate exited {rc})")
    return rc if rc >= 0 else 128 - rc  # ended by a signal: as a shell reports it


def _cleanup(keep: Path | None, workdir: Path, rest: list[str], *, ran: bool = True) -> None:
    """Remove the temporary ``workdir`` (``keep`` None) and, when a table ``ran``, say what went
    with it (the logins; the journal and hand files simulate named, unless ``rest``, simulate's
    options, put them elsewhere), or what ``--dir`` keeps."""
    gave = [o for o in ("--history-dir", "--journal") if any(a == o or a.startswith(o + "=") for a in rest)]
    files = "the logins" + ("" if gave else ", the table's journal and its hand files named above") + (
        ", the hand files named above" if gave == ["--journal"] else "")
    say = functools.partial(print, "try-tablet:", flush=True)
    if keep is None:
        shutil.rmtree(workdir, ignore_errors=True)
        if ran:
            say(f"removed {workdir}: {files} are gone (--dir FOLDER keeps them for another run)")
    elif ran:
        say(f"kept in {keep}: {files} (livetable try-tablet --dir {keep} goes on with this table)")
