"""Config paths must be the kind of file the table needs there (issue 16 round 2, finding 8).

A FIFO where a file is read would block start-up for ever (before anything is created), a
device such as ``/dev/zero`` would be read without end, ``/dev/null`` as the journal loses
every event: each is refused by ``load_config`` with its key named, and nothing that is not
a regular file is ever read (:func:`controller.config.read_small_text`). A serial port is a
character device: a Pi's ``/dev/ttyUSB0`` or ``/dev/serial0`` (a symlink) and the shuffler
emulator's pty are taken; a FIFO or a regular file there is refused. A UTF-8 byte order mark
at the start of the TOML is left out.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from controller import app
from controller.config import ConfigError, load_config
from controller.devices.build import choice_from_config

BASE = '[table]\nid = "t1"\nseats = 6\nbig_blind = 100\nsmall_blind = 50\n[shuffler]\nport = "/dev/ttyUSB0"\n'
WAIT = 5.0


def _load(tmp_path: Path, text: str):
    """``load_config`` of ``text``, in a thread so that a reader blocked on a FIFO fails the
    test instead of hanging it."""
    cfg = tmp_path / "table.toml"
    cfg.write_text(text, encoding="utf-8")
    return _load_file(cfg)


def _load_file(cfg: Path):
    out: list = []

    def go() -> None:
        try:
            out.append(load_config(cfg))
        except Exception as exc:  # noqa: BLE001 - handed to the test
            out.append(exc)

    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join(WAIT)
    assert not t.is_alive(), "load_config blocked"
    return out[0]


def _errors(tmp_path: Path, text: str) -> list[str]:
    got = _load(tmp_path, text)
    assert isinstance(got, ConfigError), got
    return [e.removeprefix(f"{tmp_path / 'table.toml'}: ") for e in got.errors]


def _with(section: str, key: str, value: str) -> str:
    if section == "shuffler":
        return BASE.replace('port = "/dev/ttyUSB0"', f'port = "{value}"')
    extra = "source = 0\n" if section == "camera" and key != "source" else ""
    return BASE + f'[{section}]\n{extra}{key} = "{value}"\n'


PLACES = [("mqtt", "password_file"), ("camera", "calibration"), ("camera", "enrolment"),
          ("camera", "source"), ("shuffler", "port"), ("journal", "path")]


@pytest.mark.parametrize("section,key", PLACES)
def test_a_fifo_is_refused_wherever_a_file_or_port_is_needed(section, key, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    errors = _errors(tmp_path, _with(section, key, str(fifo)))
    assert len(errors) == 1 and errors[0].startswith(f"{section}.{key}: {fifo} is a FIFO"), errors


@pytest.mark.parametrize("section,key,device", [
    ("mqtt", "password_file", "/dev/zero"), ("camera", "calibration", "/dev/zero"),
    ("camera", "source", "/dev/zero"), ("journal", "path", "/dev/null"), ("shuffler", "port", "/dev/null/x"),
])
def test_a_device_is_refused_where_a_file_is_needed(section, key, device, tmp_path):
    if not os.path.exists("/dev/zero") or not os.path.exists("/dev/null"):
        pytest.skip("no /dev/zero or /dev/null here")
    errors = _errors(tmp_path, _with(section, key, device))
    assert len(errors) == 1 and errors[0].startswith(f"{section}.{key}: {device}"), errors
    if section != "shuffler":
        assert "character device" in errors[0]


def test_a_regular_file_is_not_a_serial_port(tmp_path):
    plain = tmp_path / "ttyUSB0"
    plain.write_text("")
    errors = _errors(tmp_path, _with("shuffler", "port", str(plain)))
    assert errors == [f"shuffler.port: {plain} is a regular file, not a serial port (a character device "
                      "such as /dev/ttyUSB0 or /dev/serial0)"]


def test_a_pty_and_a_symlink_to_it_are_serial_ports(tmp_path):
    """The emulator's pty (``/dev/pts/N``) and a Pi's ``/dev/serial0`` (a symlink to the UART)
    are character devices; a port not there yet (a USB adapter unplugged) is the driver's to
    report."""
    master, slave = os.openpty()
    try:
        name = os.ttyname(slave)
        link = tmp_path / "serial0"
        link.symlink_to(name)
        for port in (name, str(link), str(tmp_path / "ttyUSB9")):
            got = _load(tmp_path, _with("shuffler", "port", port))
            assert not isinstance(got, Exception), got
            assert got.shuffler.port == port
    finally:
        os.close(master)
        os.close(slave)


def test_regular_files_are_taken(tmp_path):
    pw = tmp_path / "controller.pw"
    pw.write_text("secret\n")
    video = tmp_path / "table.mp4"
    video.write_bytes(b"\x00")
    got = _load(tmp_path, BASE + f'[mqtt]\npassword_file = "{pw}"\n[camera]\nsource = "{video}"\n'
                f'[journal]\npath = "{tmp_path / "j.sqlite"}"\n')
    assert not isinstance(got, Exception), got
    assert choice_from_config(got).mqtt_password == "secret"


def test_a_utf8_bom_at_the_start_is_left_out(tmp_path):
    cfg = tmp_path / "table.toml"
    cfg.write_bytes(b"\xef\xbb\xbf" + BASE.encode())
    got = _load_file(cfg)
    assert not isinstance(got, Exception), got
    assert got.table.id == "t1"


@pytest.mark.parametrize("kind", ["fifo", "zero", "huge"])
def test_the_config_file_itself_must_be_a_small_regular_file(kind, tmp_path):
    cfg = tmp_path / "table.toml"
    if kind == "fifo":
        os.mkfifo(cfg)
    elif kind == "huge":
        cfg.write_text(BASE + "#" + "x" * (1 << 20) + "\n")
    else:
        if not os.path.exists("/dev/zero"):
            pytest.skip("no /dev/zero")
        cfg = Path("/dev/zero")
    got = _load_file(cfg)
    assert isinstance(got, ConfigError), got
    assert str(got).startswith(str(cfg)) and ("not a regular file" in str(got) or "over" in str(got)), got


def test_read_small_text_never_blocks_on_a_fifo_that_appears_after_the_check(tmp_path):
    from controller.config import read_small_text

    fifo = tmp_path / "pw"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="is a FIFO"):
        read_small_text(fifo, what="password file")


def test_run_check_exits_2_naming_a_fifo_password_file(tmp_path, capsys):
    fifo = tmp_path / "controller.pw"
    os.mkfifo(fifo)
    cfg = tmp_path / "table.toml"
    cfg.write_text(_with("mqtt", "password_file", str(fifo)), encoding="utf-8")
    assert app.main(["--config", str(cfg), "--check"]) == 2
    assert f"mqtt.password_file: {fifo} is a FIFO" in capsys.readouterr().err


def test_run_check_takes_a_config_with_a_utf8_bom(tmp_path, capsys):
    """Every reader of the config (the [room] section's too) leaves the BOM out."""
    cfg = tmp_path / "table.toml"
    cfg.write_bytes(b"\xef\xbb\xbf" + BASE.encode())
    assert app.main(["--config", str(cfg), "--check"]) == 0, capsys.readouterr().err
