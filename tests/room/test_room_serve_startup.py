"""``livetable room serve``'s start-up as a newcomer meets it (newcomer finding F1): no room
broker answering, a first start without floor logins, SIGTERM while it waits.

A real ``room serve`` process against a port nobody listens on: within ``--broker-wait`` it
says on stderr which broker does not answer and what to do; the room's tournament (its
clock) is not opened while the broker is silent; SIGTERM stops it at once; the floor's
first console login is written to a 0600 file the message names.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from drivers.mqtt.broker import free_port
from drivers.mqtt.provision import check_password
from room.tournament_sim import ROOM_TOML

REPO = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(REPO))


class Proc:
    """A ``room serve`` process; its stderr and stdout lines queued as they come."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "room", "serve", *argv],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, env=ENV)
        self.lines: queue.Queue[tuple[str, str]] = queue.Queue()
        self.seen: list[tuple[str, str]] = []
        self.readers = [threading.Thread(target=self._read, args=(name, stream), daemon=True)
                        for name, stream in (("out", self.proc.stdout), ("err", self.proc.stderr))]
        for r in self.readers:
            r.start()

    def _read(self, name: str, stream: object) -> None:
        for line in stream:  # type: ignore[attr-defined]
            self.lines.put((name, line))

    def wait_for(self, text: str, timeout: float) -> str:
        """The first line holding ``text`` within ``timeout`` s (the lines before it kept)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                got = self.lines.get(timeout=max(0.01, end - time.monotonic()))
            except queue.Empty:
                break
            self.seen.append(got)
            if text in got[1]:
                return got[1]
        raise AssertionError(f"no {text!r} within {timeout} s: {self.seen}")

    def all_lines(self) -> list[tuple[str, str]]:
        """Every line, once the process has ended (its pipes read to their end)."""
        for r in self.readers:
            r.join(10)
        while not self.lines.empty():
            self.seen.append(self.lines.get())
        return self.seen

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def _argv(tmp: Path, port: int, *extra: str) -> list[str]:
    pw = tmp / "room-password"
    pw.write_text("secret\n")
    return ["--store", str(tmp / "room.sqlite"), "--broker-port", str(port), "--password-file", str(pw),
            "--floor-logins", str(tmp / "floor-logins.json"), "--http-port", "0", "--desk-port", "0",
            "--broker-wait", "0.5", *extra]


def test_a_silent_room_broker_is_named_the_clock_waits_and_sigterm_stops_it_at_once(tmp_path: Path) -> None:
    conf = tmp_path / "tournament.toml"
    conf.write_text(ROOM_TOML)
    port = free_port()  # nobody listens there
    p = Proc(_argv(tmp_path, port, "--tournament", str(conf), "--tables", "t1,t2", "--entries", "4"))
    try:
        line = p.wait_for("no answer from the room broker", 20)
        assert f"127.0.0.1:{port} (login room)" in line and "livetable room provision" in line, line
        assert "mosquitto/room.conf" in line and "--broker-port" in line, line
        assert "tournament and its clock start once it answers" in line, line
        assert not any("serving" in text or "seats drawn" in text for _, text in p.seen), p.seen
        started = time.monotonic()
        p.proc.send_signal(signal.SIGTERM)
        assert p.proc.wait(timeout=10) == 0
        assert time.monotonic() - started < 5  # not at the end of a 30 s wait
        everything = p.all_lines()
        assert not any(w in text for _, text in everything for w in ("serving", "seats drawn", "level 1")), everything
    finally:
        p.kill()


def test_the_first_floor_login_is_written_to_a_0600_file_the_message_names(tmp_path: Path) -> None:
    p = Proc(_argv(tmp_path, free_port(), "--http-port", str(free_port())))
    try:
        line = p.wait_for("made the floor console's login 'floor'", 20)
        note = tmp_path / "floor-logins.json.floor-password"
        assert str(note) in line and "--add-floor" in line, line
        assert note.stat().st_mode & 0o777 == 0o600
        password = note.read_text().strip()  # the password alone: the director's --password-file as it is
        assert password and " " not in password
        assert f"--password-file {note}" in line
        assert password not in line  # not a terminal: the password is not in the log
        assert check_password(password, json.loads((tmp_path / "floor-logins.json").read_text())["floor"])
    finally:
        p.proc.send_signal(signal.SIGTERM)
        assert p.proc.wait(timeout=10) == 0
        p.kill()


def test_floor_logins_that_cannot_be_written_are_refused_with_the_path(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("")
    argv = _argv(tmp_path, free_port(), "--http-port", str(free_port()))
    argv[argv.index("--floor-logins") + 1] = str(tmp_path / "afile" / "floor-logins.json")
    out = subprocess.run([sys.executable, "-m", "controller.cli", "room", "serve", *argv], capture_output=True,
                         text=True, cwd=REPO, env=ENV, timeout=30)
    assert out.returncode == 2, out
    assert str(tmp_path / "afile" / "floor-logins.json") in out.stderr and "--floor-logins" in out.stderr


def test_a_missing_password_file_is_named_by_its_absolute_path(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "controller.cli", "room", "serve", "--password-file", "nope/room.pw",
                          "--store", str(tmp_path / "s.sqlite")], capture_output=True, text=True, cwd=tmp_path,
                         env=ENV, timeout=30)
    assert out.returncode == 2
    assert str(tmp_path / "nope" / "room.pw") in out.stderr, out.stderr
