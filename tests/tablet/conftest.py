"""End-to-end rig for the seat tablet (issue 10): a real broker, `livetable simulate`, the
tablet served over HTTP and driven in headless Chromium with Playwright.

- Broker, logins and web server: :class:`controller.try_tablet.TabletRig`, what
  ``livetable try-tablet`` runs for a newcomer: :class:`drivers.mqtt.broker.BrokerProcess`
  from the repo's config with users and ACL from :func:`drivers.mqtt.provision.provision`,
  and ``tablet/`` over HTTP. The tablets log in with their seat's credentials, so the
  broker's ACL, not our code, keeps other seats' cards away; ``livetable simulate`` logs in
  as the provisioned ``controller`` user (``--mqtt-user``/``--mqtt-password-file``), as on
  the Pi, so the generated ACL is used unchanged.
- Table: ``livetable simulate --devices all`` (``--devices none`` has no MQTT link) with
  ``--tablet-seats``. simulate seats no one in tablet seats, so the journal it recovers is
  first given the tablet players (``PlayerSatDown`` + ``BoughtIn`` through ``open_table``,
  the same code path as a real start-up).
- Network drops: the browser reaches the broker's WebSockets listener through
  :class:`DropProxy`, a loopback TCP relay the test can cut and restore.
- Screenshots go to ``artifacts/tablet/`` (gitignored; CI keeps them as artefacts).

Skips, with the reason, when Chromium, the ``playwright`` Python package or mosquitto is
missing. Every wait is bounded (Playwright's ``wait_for_function`` or a condition).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from controller.try_tablet import TabletRig
from drivers.mqtt.broker import MOSQUITTO, BrokerProcess, free_port
from drivers.mqtt.provision import hash_password
from drivers.mqtt.tablet import Tablet

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "artifacts" / "tablet"
TABLE = "t1"
CHROMIUM = os.environ.get("LIVETABLE_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is not None and not Path(CHROMIUM).exists():
    CHROMIUM = None
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]

try:  # the Python package only: it never downloads a browser here (executable_path is given)
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None  # type: ignore[assignment]


def _skip_reason() -> str | None:
    if CHROMIUM is None:
        return "Chromium is not installed (apt-get install -y chromium) for the tablet's e2e tests"
    if sync_playwright is None:
        return "the playwright Python package is not installed (pip install playwright) for the tablet's e2e tests"
    if not Path(MOSQUITTO).exists() and shutil.which("mosquitto") is None:
        return "mosquitto is not installed"
    return None


SKIP = _skip_reason()


class DropProxy:
    """A loopback TCP relay to ``port`` whose connections the test can cut ("the network drops").

    :meth:`drop` closes every relayed connection and refuses new ones (accepted then closed
    at once, as a dead Wi-Fi would fail them) until :meth:`restore`.
    """

    def __init__(self, port: int) -> None:
        self.target = port
        self.port = free_port()
        self._srv = socket.create_server(("127.0.0.1", self.port))
        self._lock = threading.Lock()
        self._socks: list[socket.socket] = []
        self.dropped = threading.Event()
        self.connections = 0
        self._stop = False
        threading.Thread(target=self._accept, daemon=True, name="drop-proxy").start()

    def _accept(self) -> None:
        while not self._stop:
            try:
                conn, _ = self._srv.accept()
            except OSError:
                return
            if self.dropped.is_set():
                conn.close()
                continue
            try:
                up = socket.create_connection(("127.0.0.1", self.target), timeout=5)
            except OSError:
                conn.close()
                continue
            for s in (conn, up):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                self._socks += [conn, up]
                self.connections += 1
            threading.Thread(target=self._pump, args=(conn, up), daemon=True).start()
            threading.Thread(target=self._pump, args=(up, conn), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def drop(self) -> None:
        """Cut every connection now and refuse new ones."""
        self.dropped.set()
        with self._lock:
            socks, self._socks = self._socks, []
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def restore(self) -> None:
        """Let connections through again."""
        self.dropped.clear()

    def close(self) -> None:
        self._stop = True
        self.drop()
        self._srv.close()


def add_observer_login(workdir: Path) -> str:
    """Add a test-only ``observer`` login with the controller's rights (``livetable/#``, read
    and write: the oracle also publishes a history) to the passwd and acl files provisioning
    wrote in ``workdir``; return its password. The broker gives each client its login as its
    client id (issue 16), so the oracle cannot share the controller's login with
    ``livetable simulate``: each would end the other's session."""
    password = os.urandom(12).hex()
    with open(workdir / "passwd", "a") as f:
        f.write(f"observer:{hash_password(password)}\n")
    with open(workdir / "acl", "a") as f:
        f.write("\nuser observer\ntopic readwrite livetable/#\n")
    return password


class TableRig:
    """A private broker, ``livetable simulate`` with tablet seats, and tablet/ over HTTP.

    Args:
        workdir: a temporary folder (broker files, journal, simulate's log).
        game: ``holdem`` | ``omaha`` | ``draw``; ``limit``: ``no-limit`` | ``pot-limit`` |
            ``fixed-limit``; ``seats``: seats at the table.
        tablet_seats: seats left for tablets; their players sit down with ``buy_in`` chips.
        speed: the simulated players' pace (2: 0.2..0.8 s per decision).
        result_seconds: how long a finished hand's result stays while a page is online (None:
            the table's 5 s; a test of many hands asks less, or it is minutes longer).
    """

    def __init__(self, workdir: Path, *, game: str = "holdem", seats: int = 6, tablet_seats: tuple[int, ...] = (2, 5),
                 buy_in: int = 6000, speed: float = 2.0, seed: int = 7, limit: str = "no-limit",
                 result_seconds: float | None = None) -> None:
        self.workdir, self.game, self.seats, self.limit = workdir, game, seats, limit
        self.result_seconds = result_seconds
        self.tablet_seats, self.buy_in, self.speed, self.seed = tablet_seats, buy_in, speed, seed
        self.creds: dict[str, Any] = {}
        self.site = TabletRig(workdir, TABLE, seats)
        self.broker: BrokerProcess | None = None
        self.proxy: DropProxy | None = None
        self.sim: subprocess.Popen[bytes] | None = None
        self.observer: Tablet | None = None
        self.states: list[dict[str, Any]] = []  # every public state the oracle received, in order
        self.journal = workdir / "journal.sqlite"

    # ---------------------------------------------------------------- start / stop
    def start(self, *, table: bool = True) -> "TableRig":
        """Start the broker, relay and web server; with ``table``, the oracle and simulate too."""
        self.site.provision()
        observer = add_observer_login(self.workdir)  # before the broker reads passwd and acl
        self.site.start()
        self.creds, self.broker = self.site.creds, self.site.broker
        assert self.broker is not None
        self.proxy = DropProxy(self.broker.ws_port)
        if not table:
            return self
        # An oracle reading what the controller reads: every seat's private view, every state.
        self.observer = Tablet(TABLE, None, host="127.0.0.1", port=self.broker.mqtt_port,
                               username="observer", password=observer,
                               on_state=lambda view, _at: self.states.append(view))
        self.observer.subscribe(f"livetable/{TABLE}/seat/+/private")
        self.observer.subscribe(f"livetable/{TABLE}/presence/seat/+")
        self.observer.start().wait_connected(10)
        self._seed_journal()
        args = self.sim_args()
        log = open(self.workdir / "simulate.log", "wb")  # noqa: SIM115 - closed in stop()
        self._log = log
        self.sim = subprocess.Popen([sys.executable, "-m", "controller", "simulate", *args,
                                     "--journal", str(self.journal)], cwd=REPO, stdout=log, stderr=log)
        return self

    def sim_args(self) -> list[str]:
        assert self.broker is not None
        return [*self.site.controller_login_args(), "--game", self.game, "--limit", self.limit,
                "--seats", str(self.seats), "--headless", "--devices", "all", "--camera", "off",
                "--speed", str(self.speed), "--seed", str(self.seed),
                *(["--result-seconds", str(self.result_seconds)] if self.result_seconds is not None else []),
                "--tablet-seats", ",".join(map(str, self.tablet_seats)), "--quiet"]

    def _seed_journal(self) -> None:
        from controller.engine.table import events as ev
        from controller.runtime import open_table
        from controller.simulate import _settings, build_parser

        settings = _settings(build_parser().parse_args(self.sim_args()))
        orch, _ = open_table(self.journal, settings, clock=time.time)
        for s in self.tablet_seats:
            orch.post(ev.PlayerSatDown(at=time.time(), seat=s, player=f"tablet{s}", name=f"Tablet {s}"))
            orch.post(ev.BoughtIn(at=time.time(), seat=s, amount=self.buy_in))
        orch.pump()
        assert all(orch.state.seat(s) is not None for s in self.tablet_seats), "tablet players not seated"
        orch.journal.close()

    def stop(self) -> None:
        if self.sim is not None and self.sim.poll() is None:
            self.sim.terminate()
            try:
                self.sim.wait(15)
            except subprocess.TimeoutExpired:
                self.sim.kill()
                self.sim.wait(5)
        if getattr(self, "_log", None):
            self._log.close()
        if self.observer is not None:
            self.observer.stop()
        if self.proxy is not None:
            self.proxy.close()
        self.site.stop()

    # ---------------------------------------------------------------- helpers
    def url(self, seat: int, *, through_proxy: bool = True) -> str:
        assert self.proxy is not None
        return self.site.url(seat, ws_port=self.proxy.port if through_proxy else None)

    def private_of(self, seat: int) -> dict[str, Any] | None:
        """The last private view of ``seat`` the broker delivered (the oracle's copy)."""
        assert self.observer is not None
        want = f"livetable/{TABLE}/seat/{seat}/private"
        with self.observer.cond:
            for topic, payload, _ in reversed(self.observer.messages):
                if topic == want:
                    return json.loads(payload) if payload else None
        return None

    def private_at(self, seat: int, seq: int, timeout: float = 10.0) -> dict[str, Any] | None:
        """The private view of ``seat`` with ``seq`` as the broker delivered it to the oracle.

        The page and the oracle are separate clients: either may get a view first, so this
        waits (bounded) until the oracle holds that view or a later one of the seat. Returns
        None when the oracle saw a later view but not this one (a test then fails on it).
        """
        assert self.observer is not None
        want = f"livetable/{TABLE}/seat/{seat}/private"

        def views() -> list[dict[str, Any]]:
            return [json.loads(pl) for tp, pl, _ in self.observer.messages if tp == want and pl]

        self.observer.wait_for(lambda _t: any(v.get("seq", -1) >= seq for v in views()), timeout)
        with self.observer.cond:
            return next((v for v in views() if v.get("seq") == seq), None)

    def journal_entries(self, kind: str) -> list[dict[str, Any]]:
        """The payloads of the journal's table events of ``kind`` (e.g. ``topped-up``)."""
        import sqlite3

        db = sqlite3.connect(f"file:{self.journal}?mode=ro", uri=True)  # read only: simulate writes
        try:
            rows = db.execute("SELECT at, kind, payload FROM events ORDER BY seq").fetchall()
        finally:
            db.close()
        from controller.engine.table import codec
        from controller.journal import payload_of

        out = []
        for at, row_kind, text in rows:
            p = payload_of(row_kind, at, text)
            if isinstance(p, dict) and p.get("kind") == kind:
                # journal format 2 leaves out fields at their defaults: the event as it was
                out.append(codec.to_json(codec.from_json(p)) if row_kind == "table" else p)
        return out

    def sim_log(self) -> str:
        path = self.workdir / "simulate.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Debian Chromium through Playwright (never a downloaded browser)."""
    if SKIP:
        pytest.skip(SKIP)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield b
        b.close()


def open_tablet(browser: Any, url: str) -> Any:
    """A new page (its own context: cookies, storage) on ``url``; records WebSocket frames
    received into ``page.frames_in`` (bytes) and page errors into ``page.errors``."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = ctx.new_page()
    page.frames_in = []  # type: ignore[attr-defined]
    page.errors = []  # type: ignore[attr-defined]

    def on_ws(ws: Any) -> None:
        ws.on("framereceived", lambda payload: page.frames_in.append(
            payload if isinstance(payload, bytes) else payload.encode()))

    page.on("websocket", on_ws)
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(url)
    return page


def shot(page: Any, name: str) -> Path:
    """Save a screenshot of ``page`` as artifacts/tablet/<name>.png."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


#: how long a page may take to show what a test waits for: a hand with four simulated
#: players and two tablets fits well inside this
WAIT_MS = 45_000


def wait_js(page: Any, expr: str, arg: Any = None, timeout: int = WAIT_MS) -> Any:
    """Wait until ``expr`` (a JS function body of ``arg``) is truthy in the page; return it."""
    return page.wait_for_function(expr, arg=arg, timeout=timeout).json_value()
