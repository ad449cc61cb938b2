"""``livetable try-tablet`` (controller/try_tablet.py, ``scripts/try-tablet``) end to end: the
command runs as a newcomer runs it, a subprocess whose printed seat address is opened in
headless Chromium; the page logs in to the private broker with the seat's login and draws the
simulated table with "Take this seat"; SIGINT stops the table (its summary), the web server
and the broker, and removes the logins' folder.

Every wait reads the process's output (bounded by a queue timeout) or is Playwright's.
"""

from __future__ import annotations

import json
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from .conftest import REPO, SKIP, open_tablet, shot, wait_js

pytestmark = [pytest.mark.broker]

LINE_TIMEOUT = 60.0  # s: the broker and simulate start well inside this on a loaded machine


class Command:
    """``python -m controller try-tablet ARGS`` with its stdout read line by line into a queue."""

    def __init__(self, args: list[str], stderr_path: Path) -> None:
        self._err = open(stderr_path, "wb")  # noqa: SIM115 - closed in close()
        self.proc = subprocess.Popen([sys.executable, "-m", "controller", "try-tablet", *args], cwd=REPO,
                                     stdout=subprocess.PIPE, stderr=self._err, text=True)
        self.lines: list[str] = []
        self._q: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._q.put(line.rstrip("\n"))
        self._q.put(None)

    def wait_line(self, pattern: str, timeout: float = LINE_TIMEOUT) -> re.Match[str]:
        """The first line (from now on) matching ``pattern``; fails at EOF or after ``timeout`` s."""
        while True:
            try:
                line = self._q.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no line matching {pattern!r} in {timeout} s: {self.lines}") from None
            if line is None:
                raise AssertionError(f"exited ({self.proc.poll()}) before {pattern!r}: {self.lines}")
            self.lines.append(line)
            m = re.search(pattern, line)
            if m:
                return m

    def drain(self, timeout: float = LINE_TIMEOUT) -> list[str]:
        """Every further line until the output ends (fails after ``timeout`` s without one)."""
        while (line := self._q.get(timeout=timeout)) is not None:
            self.lines.append(line)
        return self.lines

    def close(self) -> None:
        """Stop the command if it still runs (SIGTERM: it stops its broker), SIGKILL after 30 s."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._err.close()


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.skipif(SKIP is not None, reason=SKIP or "")
def test_try_tablet_prints_a_seat_address_the_browser_opens_and_stops_cleanly(browser: Any, tmp_path: Path) -> None:
    cmd = Command(["--seats", "4", "--join-seats", "3", "--speed", "2", "--camera", "off", "--seed", "7"],
                  tmp_path / "stderr.log")
    page = None
    try:
        first = cmd.wait_line(r"broker mqtt://127\.0\.0\.1:(\d+) and ws://127\.0\.0\.1:(\d+) .*logins in (\S+)")
        mqtt_port, ws_port, creds_file = int(first[1]), int(first[2]), Path(first[3])
        url = cmd.wait_line(r"seat 3 \(free: Take this seat\): (http://127\.0\.0\.1:\d+/index\.html\?\S+)")[1]
        display = cmd.wait_line(r"dealer display: (.*)")[1]
        creds = json.loads(creds_file.read_text())
        assert f"pass={creds['seat_users']['3']['password']}" in url and f"ws=ws://127.0.0.1:{ws_port}" in url
        assert f"--port {mqtt_port} --credentials {creds_file}" in display

        page = open_tablet(browser, url)
        # the seat's login is accepted, the table's state arrives and is drawn with seat 3 free
        wait_js(page, "() => !document.querySelector('#join-form').hidden")
        state = page.evaluate("window.livetable.state")
        assert state["table"] == "t1" and len(state["seats"]) == 4
        assert state["seats"][2]["status"] == "empty" and state["join"]["mode"] == "direct"
        assert page.locator("#seats > *").count() == 4
        assert page.locator("#join-button").inner_text() == "Take this seat"
        assert page.evaluate("document.body.dataset.screen") in ("playing", "your-turn")
        assert not page.errors
        shot(page, "40-try-tablet")
        # P-4: "Last hands" says it is empty, then lists the hands played (issue 20: it stayed
        # empty under try-tablet, which ran simulate without a history folder)
        page.locator('#tabs button[data-tab="hands"]').click()
        if page.locator("#history li").count() == 0:
            assert page.locator("#history-empty").is_visible()
        wait_js(page, "() => document.querySelectorAll('#history li').length > 0")
        assert page.locator("#history-empty").is_hidden()
        shot(page, "40-try-tablet-last-hands")

        cmd.proc.send_signal(signal.SIGINT)
        summary = json.loads(cmd.wait_line(r"^\{.*\"hands\"").string)
        assert summary["invariant_errors"] == [] and summary["faults"] == []
        cmd.wait_line(r"^try-tablet: stopped \(simulate exited 0\)$")
        # brief L: it said the journal, in the folder it had just removed, opens the table again
        removed = cmd.wait_line(r"^try-tablet: removed (\S+): the logins, the table's journal and its hand files "
                                r"named above are gone \(--dir FOLDER keeps them for another run\)$")
        assert Path(removed[1]) == creds_file.parents[1]
        assert cmd.proc.wait(30) == 0
        assert "stays in the journal" not in (tmp_path / "stderr.log").read_text()
        # everything stopped: the broker's ports closed, the logins' folder gone
        assert not _listening(mqtt_port) and not _listening(ws_port)
        assert not creds_file.exists() and not creds_file.parents[1].exists()
    finally:
        if page is not None:
            page.context.close()
        cmd.close()


def test_try_tablet_refuses_a_fixed_port_that_is_taken(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        cmd = Command(["--ws-port", str(port)], tmp_path / "stderr.log")
        try:
            assert cmd.proc.wait(30) == 2
        finally:
            cmd.close()
    err = (tmp_path / "stderr.log").read_text()
    assert f"port {port} on 127.0.0.1 is taken" in err and "--ws-port" in err
    assert not any("index.html" in line for line in cmd.drain())


def _children(pid: int) -> list[tuple[int, str]]:
    """``(pid, command line)`` of the processes whose parent is ``pid``."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append((int(entry.name), cmdline))
    return out


def _ends_within(pid: int, timeout: float) -> bool:
    """Whether process ``pid`` ends within ``timeout`` s (waited on its pidfd, no polling)."""
    import os
    import select

    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], timeout)[0])
    finally:
        os.close(fd)


def _table_playing(first: re.Match[str]) -> dict[str, Any]:
    """Wait until the table publishes its state on try-tablet's broker (simulate is up), as
    the dealer display sees it (the read-only ``display`` login); ``first`` is the broker line.
    Return the state."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    creds = json.loads(Path(first[3]).read_text())
    got = threading.Event()
    states: list[dict[str, Any]] = []

    def on_message(_c: Any, _u: Any, msg: Any) -> None:
        if msg.payload:
            states.append(json.loads(msg.payload))
            got.set()

    client = mqtt.Client(CallbackAPIVersion.VERSION2)
    client.username_pw_set(creds["display"]["username"], creds["display"]["password"])
    client.on_connect = lambda c, *_: c.subscribe("livetable/t1/state", qos=1)
    client.on_message = on_message
    client.connect("127.0.0.1", int(first[1]))
    client.loop_start()
    try:
        assert got.wait(LINE_TIMEOUT), "the table never published its state"
    finally:
        client.loop_stop()
        client.disconnect()
    return states[0]


def test_the_table_dies_with_try_tablet_killed(tmp_path: Path) -> None:
    """SIGKILL (no clean-up possible): simulate and the broker must not play on as orphans."""
    cmd = Command(["--seats", "3", "--camera", "off", "--language", "nl"], tmp_path / "stderr.log")
    try:
        state = _table_playing(cmd.wait_line(r"broker mqtt://127\.0\.0\.1:(\d+) and ws://127\.0\.0\.1:(\d+) "
                                             r".*logins in (\S+)"))
        assert state["language"] == "nl"  # try-tablet --language: the table's, as [table] language
        sims = [p for p, line in _children(cmd.proc.pid) if " simulate " in line]
        assert len(sims) == 1, _children(cmd.proc.pid)
        cmd.proc.kill()
        assert _ends_within(sims[0], 30), "simulate played on after try-tablet was killed"
    finally:
        cmd.close()


def test_a_second_ctrl_c_does_not_cut_the_clean_up_short(tmp_path: Path) -> None:
    cmd = Command(["--seats", "3", "--camera", "off"], tmp_path / "stderr.log")
    try:
        first = cmd.wait_line(r"broker mqtt://127\.0\.0\.1:(\d+) and ws://127\.0\.0\.1:(\d+) .*logins in (\S+)")
        creds_file = Path(first[3])
        _table_playing(first)
        cmd.proc.send_signal(signal.SIGINT)
        cmd.wait_line(r"^try-tablet: stopped")
        cmd.proc.send_signal(signal.SIGINT)  # impatient: while the broker and web server stop
        assert cmd.proc.wait(30) == 0
    finally:
        cmd.close()
    err = (tmp_path / "stderr.log").read_text()
    assert "Traceback" not in err, err[-3000:]
    assert not creds_file.parents[1].exists()  # the logins' folder is gone


@pytest.mark.parametrize("args, words", [
    (["--http-port", "70000"], "a port is a number 1..65535"),
    (["--dir", "{file}"], "is a file, not a folder"),
])
def test_try_tablet_refuses_bad_options_with_a_message(tmp_path: Path, args: list[str], words: str) -> None:
    afile = tmp_path / "afile"
    afile.write_text("")
    proc = subprocess.run([sys.executable, "-m", "controller", "try-tablet",
                           *[a.replace("{file}", str(afile)) for a in args]],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and words in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
