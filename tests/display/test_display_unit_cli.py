"""The display's systemd unit and command-line settings (issue 8)."""

from __future__ import annotations

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
