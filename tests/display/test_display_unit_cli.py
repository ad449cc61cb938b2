"""The display's systemd unit and command-line settings (issue 8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from display.app import DISABLED, _parser, _settings, main, parse_size

REPO = Path(__file__).resolve().parents[2]
UNIT = REPO / "systemd" / "livetable-display.service"

CONFIG = """
[table]
id = "{table}"
name = "Table 9"
game = "holdem"
limit = "no-limit"
seats = 9
big_blind = 100

[mqtt]
host = "10.0.0.5"
port = 1884
username = "display"
password_file = "{pw}"

[display]
enabled = {enabled}
size = "1024x600"
"""


def test_unit_runs_the_display_on_the_console_and_always_restarts() -> None:
    text = UNIT.read_text()
    lines = set(text.splitlines())
    exec_start = next(line for line in lines if line.startswith("ExecStart="))
    assert exec_start.split("=", 1)[1].split()[:2] == ["/opt/livetable/.venv/bin/livetable", "display"]
    for line in ("Restart=always", "Environment=SDL_VIDEODRIVER=kmsdrm", "User=livetable",
                 "SupplementaryGroups=video render input", "Wants=mosquitto.service",
                 "RestartPreventExitStatus=3"):
        assert line in lines, line
    assert any(line.startswith("After=") and "mosquitto.service" in line for line in lines)
    assert "Requires=livetable.service" not in text and "BindsTo" not in text, "never tied to the controller"


def parse(*argv: str):
    return _parser().parse_args(list(argv))


def write_config(tmp_path: Path, *, enabled: str = "true", table: str = "t9") -> Path:
    pw = tmp_path / "pw"
    pw.write_text("s3cret\n")
    path = tmp_path / "table.toml"
    path.write_text(CONFIG.format(table=table, pw=pw, enabled=enabled))
    return path


def test_settings_come_from_the_table_config_and_options_win(tmp_path) -> None:
    cfg = write_config(tmp_path)
    s = _settings(parse("--config", str(cfg)))
    assert s == {"table": "t9", "host": "10.0.0.5", "port": 1884, "size": (1024, 600),
                 "username": "display", "password": "s3cret"}
    s = _settings(parse("--config", str(cfg), "--table", "t2", "--host", "127.0.0.1", "--size", "800x480"))
    assert (s["table"], s["host"], s["port"], s["size"]) == ("t2", "127.0.0.1", 1884, (800, 480))
    assert _settings(parse("--table", "t1"))["host"] == "127.0.0.1"


def test_the_display_never_logs_in_as_the_controller(tmp_path, capsys) -> None:
    """The broker gives each client its login as its id: a display using the table config's
    controller login threw the controller off its broker (13 pauses in 20 s; issue 16)."""
    cfg = write_config(tmp_path)
    cfg.write_text(cfg.read_text().replace('username = "display"', 'username = "controller"')
                   .replace('host = "10.0.0.5"', 'host = "127.0.0.1"'))  # never a real address
    assert main(["--config", str(cfg)]) == 2
    assert "--credentials" in capsys.readouterr().err
    creds = tmp_path / "creds.json"
    creds.write_text(json.dumps({"display": {"username": "display", "password": "pw"}}))
    s = _settings(parse("--config", str(cfg), "--credentials", str(creds)))
    assert (s["username"], s["password"]) == ("display", "pw")


def test_a_disabled_display_exits_with_the_code_the_unit_does_not_restart(tmp_path) -> None:
    cfg = write_config(tmp_path, enabled="false")
    assert main(["--config", str(cfg)]) == DISABLED == 3


def test_bad_settings_are_clear_errors(tmp_path, capsys) -> None:
    assert main(["--config", str(tmp_path / "missing.toml")]) == 1
    assert "missing.toml" in capsys.readouterr().err
    assert main(["--fps", "5"]) == 2
    assert main(["--table", "t1", "--fps", "0"]) == 2
    with pytest.raises(ValueError):
        parse_size("640")
    with pytest.raises(ValueError):
        parse_size("100x100")


# ---------------------------------------------------------------- issue 20: errors a newcomer met

import os  # noqa: E402
import select  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

from drivers.mqtt.broker import free_port  # noqa: E402


def test_snapshot_of_a_file_that_is_not_utf8_is_a_message_not_a_traceback(tmp_path, capsys) -> None:
    bad = tmp_path / "state.json"
    bad.write_bytes(b'{"schema": 1, "name": "T\xe9ble"}')  # Latin-1, not UTF-8
    assert main(["--snapshot", str(bad), str(tmp_path / "out.png")]) == 1
    err = capsys.readouterr().err
    assert "not UTF-8" in err and str(bad) in err


def _display(env_over: dict[str, str | None], *args: str) -> subprocess.Popen[str]:
    env = dict(os.environ)
    for k, v in env_over.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return subprocess.Popen([sys.executable, "-m", "controller", "display", *args], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _read_until(proc: subprocess.Popen[str], needle: str, timeout: float) -> str:
    """stderr lines until one holds ``needle`` (bounded by ``timeout``); all read so far."""
    assert proc.stderr is not None
    seen = ""
    deadline = time.monotonic() + timeout
    while needle not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"no {needle!r} within {timeout} s; stderr so far:\n{seen}"
        ready, _, _ = select.select([proc.stderr], [], [], left)
        if ready:
            line = proc.stderr.readline()
            assert line, f"the display exited ({proc.poll()}) before {needle!r}:\n{seen}"
            seen += line
    return seen


def test_live_display_says_at_once_it_cannot_reach_the_broker_and_ctrl_c_stops_it_cleanly() -> None:
    """Issue 20: with no broker it logged nothing for seconds; Ctrl-C ended in a traceback."""
    # a port bound here and never listened on: refused, and no other test's server can take it
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    port = held.getsockname()[1]
    proc = _display({"SDL_VIDEODRIVER": "dummy"}, "--table", "t20", "--host", "127.0.0.1", "--port", str(port))
    try:
        seen = _read_until(proc, "cannot reach the broker", 20)
        assert f"127.0.0.1:{port}" in seen
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    finally:
        held.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
    assert proc.returncode == 0, err
    assert "Traceback" not in seen + err and "KeyboardInterrupt" not in seen + err
    assert "display stopped" in err


def test_live_display_with_no_screen_says_so_instead_of_drawing_for_nobody() -> None:
    """Issue 20: without a screen SDL fell back to drawing off-screen, silently."""
    proc = _display({"SDL_VIDEODRIVER": None, "DISPLAY": None, "WAYLAND_DISPLAY": None},
                    "--table", "t20", "--port", str(free_port()))
    try:
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
    if "no screen" not in err and proc.returncode == 0:
        pytest.skip("SDL found a real screen on this machine")
    assert proc.returncode == 1 and "no screen" in err and "SDL_VIDEODRIVER=kmsdrm" in err, err
