"""The systemd units verify cleanly, and the notify protocol reaches its socket (issue 9)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from controller.sdnotify import notify, watchdog_interval

REPO = Path(__file__).resolve().parents[2]
UNITS = sorted((REPO / "systemd").glob("*.service"))


def test_controller_unit_is_notify_with_watchdog():
    text = (REPO / "systemd" / "livetable.service").read_text()
    for line in ("Type=notify", "Restart=on-failure", "After=mosquitto.service", "User=livetable"):
        assert line in text
    assert "WatchdogSec=" in text and "DevicePolicy=closed" in text


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
@pytest.mark.parametrize("unit", UNITS, ids=[u.name for u in UNITS])
def test_systemd_analyze_verify(unit, tmp_path):
    # Point ExecStart at this checkout's livetable so verify can check it is executable.
    exe = Path(sys.executable).with_name("livetable")
    text = unit.read_text().replace("/opt/livetable/.venv/bin/livetable", str(exe))
    copy = tmp_path / unit.name
    copy.write_text(text)
    res = subprocess.run(
        ["systemd-analyze", "verify", str(copy)], capture_output=True, text=True, timeout=60
    )
    complaints = [ln for ln in (res.stdout + res.stderr).splitlines() if unit.name in ln]
    assert res.returncode == 0 and not complaints, res.stdout + res.stderr


def test_notify_sends_datagram(tmp_path):
    path = str(tmp_path / "notify.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(path)
        server.settimeout(5)
        assert notify("READY=1", env={"NOTIFY_SOCKET": path})
        assert server.recv(100) == b"READY=1"
    assert not notify("READY=1", env={})
    assert not notify("READY=1", env={"NOTIFY_SOCKET": str(tmp_path / "gone.sock")})


def test_watchdog_interval_is_half_the_period():
    assert watchdog_interval({"WATCHDOG_USEC": "10000000"}) == 5.0
    assert watchdog_interval({}) is None
    assert watchdog_interval({"WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "1"}) is None
