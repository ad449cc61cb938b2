"""Provisioning as root for a Mosquitto that drops to user ``mosquitto`` (newcomer finding F2):
``livetable room provision`` and ``livetable tablets provision`` say when that user cannot read
the password file and ACL they wrote (Mosquitto's "Unable to open pwfile") and what to run; the
note goes once the files are readable by it."""

from __future__ import annotations

import os
import pwd
import shutil
import tempfile
from pathlib import Path

import pytest

from drivers.mqtt.provision import broker_read_note
from drivers.mqtt.provision import main as tablets_main
from room.provision import main as room_main


@pytest.fixture()
def mosquitto_user() -> pwd.struct_passwd:
    if os.geteuid() != 0:
        pytest.skip("the note is for provisioning as root")
    try:
        return pwd.getpwnam("mosquitto")
    except KeyError:
        pytest.skip("no mosquitto user on this machine")


def test_room_provision_as_root_says_mosquitto_cannot_read_its_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], mosquitto_user: pwd.struct_passwd) -> None:
    d = tmp_path / "room"
    assert room_main(["--dir", str(d), "--table", "t1", "--room-host", "127.0.0.1", "--room-port", "1884"]) == 0
    out = capsys.readouterr().out
    note = out.split("who cannot read ")[1]
    assert f"{d / 'passwd'} (" in note and f"chgrp mosquitto {d / 'passwd'} {d / 'acl'}" in note, out
    assert "cannot read" in (broker_read_note(d) or "")
    open_dir = Path(tempfile.mkdtemp(prefix="livetable-provision-"))  # /tmp: a folder mosquitto may enter
    try:
        open_dir.chmod(0o755)
        room = open_dir / "room"
        shutil.copytree(d, room)
        assert "cannot read" in (broker_read_note(room) or "")
        for f in (room / "passwd", room / "acl"):
            shutil.chown(f, group=mosquitto_user.pw_gid)
        room.chmod(0o755)
        assert broker_read_note(room) is None  # readable now: nothing to say
    finally:
        shutil.rmtree(open_dir)


def test_tablets_provision_as_root_says_it_too(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               mosquitto_user: pwd.struct_passwd) -> None:
    d = tmp_path / "t1"
    assert tablets_main(["provision", "--table", "t1", "--seats", "6", "--dir", str(d)]) == 0
    assert f"{d / 'passwd'} (" in capsys.readouterr().out.split("who cannot read ")[1]


def test_no_note_for_a_user_that_does_not_exist(tmp_path: Path) -> None:
    assert broker_read_note(tmp_path, user="no-such-user-livetable") is None
