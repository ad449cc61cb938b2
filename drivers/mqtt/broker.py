"""Run a private Mosquitto from the repo's ``mosquitto/livetable.conf`` (tests, bench, simulate).

:func:`render_config` keeps every setting of the repo's file and swaps only what must differ
on a developer machine: the listeners' ports (bound to 127.0.0.1), the password/ACL files,
the persistence folder, the log file, and ``user`` (Mosquitto run as root otherwise drops to
the ``mosquitto`` user, which cannot read a temporary folder). :class:`BrokerProcess` starts
``mosquitto -c`` on that config, waits for both listeners, and stops or restarts it.
"""

from __future__ import annotations

import ctypes
import getpass
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "mosquitto" / "livetable.conf"
MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


class BrokerError(RuntimeError):
    """The broker would not start or stop in time (see its log)."""


class BrokerTimeout(BrokerError, TimeoutError):
    """The broker's listeners did not answer within the timeout."""


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that is free right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def render_config(text: str, *, mqtt_port: int, ws_port: int, passwd: Path, acl: Path,
                  data_dir: Path, log_file: Path, host: str = "127.0.0.1") -> str:
    """Return ``text`` (a livetable.conf) with ports, files and folders swapped.

    The first ``listener`` becomes ``mqtt_port``, the second ``ws_port``, both bound to
    ``host``. Raises ``ValueError`` when the file does not have exactly two listeners.
    """
    out, listeners = [], 0
    swaps = {"password_file": str(passwd), "acl_file": str(acl),
             "persistence_location": str(data_dir).rstrip("/") + "/"}
    for line in text.splitlines():
        key = line.split(" ", 1)[0]
        if key == "listener":
            listeners += 1
            port = mqtt_port if listeners == 1 else ws_port
            line = f"listener {port} {host}"
        elif key in swaps:
            line = f"{key} {swaps[key]}"
        elif key == "log_dest":
            line = f"log_dest file {log_file}"
        out.append(line)
    if listeners != 2:
        raise ValueError(f"expected an MQTT and a WebSockets listener, found {listeners}")
    return "\n".join([f"user {getpass.getuser()}", *out]) + "\n"


class BrokerProcess:
    """A Mosquitto process on free loopback ports, configured from the repo's config.

    ``workdir`` holds ``mosquitto.conf``, ``data/`` (persistence) and ``mosquitto.log``;
    ``passwd`` and ``acl`` default to ``workdir/passwd`` and ``workdir/acl`` (what
    :func:`drivers.mqtt.provision.provision` writes there). Use as a context manager.
    With ``own_session`` the broker runs in a session of its own, so a Ctrl-C at the terminal
    (SIGINT to the foreground process group) does not reach it and its owner stops it last
    (``livetable try-tablet`` stops the table before the broker the table talks to); on
    Linux it is then also sent SIGTERM when its owner dies without stopping it (SIGKILL),
    so no broker is left behind. ``extra``: configuration appended as is after the rendered
    file (a further listener, e.g. the room broker's TLS one).
    """

    def __init__(self, workdir: Path, *, passwd: Path | None = None, acl: Path | None = None,
                 mqtt_port: int | None = None, ws_port: int | None = None,
                 config: Path = CONFIG, own_session: bool = False, extra: str = "") -> None:
        self.workdir = Path(workdir)
        self.mqtt_port = mqtt_port or free_port()
        self.ws_port = ws_port or free_port()
        self.data_dir = self.workdir / "data"
        self.log_file = self.workdir / "mosquitto.log"
        self.conf_file = self.workdir / "mosquitto.conf"
        self._passwd = passwd or self.workdir / "passwd"
        self._acl = acl or self.workdir / "acl"
        self._config = config
        self._own_session = own_session
        self._extra = extra  # appended as is (e.g. the room broker's TLS listener)
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 10.0) -> "BrokerProcess":
        """Write the config and start ``mosquitto -c``; return once both ports answer.

        Raises :class:`BrokerTimeout` (with the log's tail) when they do not in ``timeout`` s.
        """
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.conf_file.write_text(render_config(
            self._config.read_text(), mqtt_port=self.mqtt_port, ws_port=self.ws_port,
            passwd=self._passwd, acl=self._acl, data_dir=self.data_dir, log_file=self.log_file) + self._extra)
        self._proc = subprocess.Popen([MOSQUITTO, "-c", str(self.conf_file)],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                      start_new_session=self._own_session,
                                      preexec_fn=die_with_parent() if self._own_session else None)
        deadline = time.monotonic() + timeout
        for port in (self.mqtt_port, self.ws_port):
            while not _answers(port):
                if self._proc.poll() is not None or time.monotonic() > deadline:
                    stderr = self._proc.stderr
                    err = stderr.read().decode(errors="replace") if stderr and self._proc.poll() is not None else ""
                    self.stop()
                    raise BrokerTimeout(f"mosquitto did not listen on {port}: {err}{self.log_tail()}")
                time.sleep(0.02)  # polling a port: nothing to wait on but the socket
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the broker with SIGTERM (it saves its persistence), SIGKILL after ``timeout``."""
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout)
        if proc.stderr:
            proc.stderr.close()

    def restart(self, timeout: float = 10.0) -> None:
        """Stop and start again on the same ports and persistence folder."""
        self.stop(timeout)
        self.start(timeout)

    def reload(self) -> None:
        """Send SIGHUP: Mosquitto rereads the password and ACL files."""
        if self._proc is not None:
            self._proc.send_signal(signal.SIGHUP)

    @property
    def running(self) -> bool:
        """True while the process runs."""
        return self._proc is not None and self._proc.poll() is None

    def log_tail(self, lines: int = 20) -> str:
        """Return the last ``lines`` lines of the broker's log ('' when none)."""
        if not self.log_file.exists():
            return ""
        return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])

    def __enter__(self) -> "BrokerProcess":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def die_with_parent(parent: int | None = None) -> Callable[[], None] | None:
    """A ``preexec_fn`` asking Linux to SIGTERM the child when its parent dies
    (``prctl(PR_SET_PDEATHSIG)``), or None where there is no such call.

    A parent that died between the fork and the ``prctl`` is never signalled for: the child
    then finds another parent (``os.getppid()`` is no longer ``parent``, by default the
    process calling this) and SIGTERMs itself, rather than run on orphaned (a table holding
    its journal, a broker its ports, for good)."""
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig = 1
    expected = os.getpid() if parent is None else parent

    def preexec() -> None:
        prctl(pr_set_pdeathsig, int(signal.SIGTERM))
        if os.getppid() != expected:  # the parent died before the prctl: no signal will come
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's handler, inherited
            os.kill(os.getpid(), signal.SIGTERM)

    return preexec


def _answers(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0
