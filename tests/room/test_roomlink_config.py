"""The table's ``[room]`` section (controller/roomlink.py, issue 17): checked with the rest of
the config by ``livetable run --check``, every mistake named."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.app import main as run_main
from controller.roomlink import RoomLinkConfig

REPO = Path(__file__).resolve().parents[2]


def config_with(tmp_path: Path, room: str) -> Path:
    text = (REPO / "config" / "table.example.toml").read_text()
    path = tmp_path / "table.toml"
    path.write_text(text + "\n[room]\n" + room + "\n")
    return path


def test_defaults_leave_the_outbox_off() -> None:
    rc = RoomLinkConfig({})
    assert (rc.outbox, rc.batch, rc.window, rc.resend_seconds) == (False, 200, 5000, 10.0)


@pytest.mark.parametrize("data, key", [
    ({"outbox": "yes"}, "room.outbox"), ({"batch": 0}, "room.batch"), ({"batch": True}, "room.batch"),
    ({"window": 10**7}, "room.window"), ({"resend_seconds": 0}, "room.resend_seconds"),
    ({"host": "x"}, "room.host: unknown key"),
])
def test_a_wrong_room_key_is_named(data: dict, key: str) -> None:
    with pytest.raises(ValueError, match=key):
        RoomLinkConfig(data)


def test_the_outbox_needs_its_own_password_file() -> None:
    # the outbox logs in as <table>-outbox: the table's broker refuses a client without a login
    with pytest.raises(ValueError, match="room.password_file"):
        RoomLinkConfig({"outbox": True})
    with pytest.raises(ValueError, match="room.password_file"):
        RoomLinkConfig({"outbox": True, "password_file": 3})
    assert RoomLinkConfig({"outbox": True, "password_file": "/x"}).password_file == "/x"
    assert RoomLinkConfig({"password_file": "/x"}).outbox is False


def test_run_check_accepts_the_room_section_and_refuses_a_wrong_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pw = tmp_path / "outbox-password"
    pw.write_text("secret\n")
    good = f'outbox = true\npassword_file = "{pw}"\nbatch = 100'
    assert run_main(["--config", str(config_with(tmp_path, good)), "--check"]) == 0
    capsys.readouterr()
    assert run_main(["--config", str(config_with(tmp_path, "outbox = true")), "--check"]) == 2
    assert "room.password_file" in capsys.readouterr().err
    missing = f'outbox = true\npassword_file = "{tmp_path / "nowhere"}"'
    assert run_main(["--config", str(config_with(tmp_path, missing)), "--check"]) == 2
    assert "room.password_file" in capsys.readouterr().err
    assert run_main(["--config", str(config_with(tmp_path, "outbox = 1")), "--check"]) == 2
    assert "room.outbox" in capsys.readouterr().err


# ---------------------------------------------------------------------- [room] tournament (issue 19)
def test_room_tournament_is_a_boolean_off_by_default() -> None:
    assert RoomLinkConfig({}).tournament is False
    assert RoomLinkConfig({"tournament": True}).tournament is True
    for bad in ("yes", 1, 0, "true", [True]):
        with pytest.raises(ValueError, match=r"room\.tournament: true or false"):
            RoomLinkConfig({"tournament": bad})


def _check(tmp_path: Path, capsys: pytest.CaptureFixture[str], room: str, *argv: str,
           login: bool = True) -> tuple[int, str, str]:
    pw = tmp_path / "tournament-password"
    pw.write_text("secret\n")
    if login:
        room += f'\ntournament_password_file = "{pw}"'
    code = run_main(["--config", str(config_with(tmp_path, room)), "--check", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_run_check_joins_the_room_tournament_from_the_config_or_the_flag(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    code, out, _ = _check(tmp_path, capsys, "tournament = true")
    assert code == 0 and json.loads(out)["room_tournament"] is True
    code, out, _ = _check(tmp_path, capsys, "tournament = true", "--no-tournament-room")
    assert code == 0 and json.loads(out)["room_tournament"] is False  # the flag overrides the config
    code, out, _ = _check(tmp_path, capsys, "", "--tournament-room")
    assert code == 0 and json.loads(out)["room_tournament"] is True
    code, out, _ = _check(tmp_path, capsys, "")
    assert code == 0 and json.loads(out)["room_tournament"] is False


def test_run_check_names_a_wrong_room_tournament_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _check(tmp_path, capsys, 'tournament = "yes"')
    assert code == 2 and "room.tournament: true or false" in err
    code, _, err = _check(tmp_path, capsys, "tournament = 3\n", login=False)
    assert code == 2 and "room.tournament: true or false" in err
    # the link's own login (<t>-tournament): on the controller's it ends the MQTT link's session
    for argv, room in (((), "tournament = true"), (("--tournament-room",), "")):
        code, _, err = _check(tmp_path, capsys, room, *argv, login=False)
        assert code == 2 and "room.tournament_password_file" in err and "-tournament" in err, err
    code, _, err = _check(tmp_path, capsys, "tournament = true\ntournament_password_file = 7", login=False)
    assert code == 2 and "room.tournament_password_file: a file name" in err
    missing = f'tournament = true\ntournament_password_file = "{tmp_path / "nowhere"}"'
    code, _, err = _check(tmp_path, capsys, missing, login=False)
    assert code == 2 and "room.tournament_password_file" in err and "not readable" in err
    code, out, _ = _check(tmp_path, capsys, "", "--no-tournament-room", login=False)
    assert code == 0  # a cash table needs no tournament login
    # the room draws its tournament's players: no --tournament-players for a table of it
    code, _, err = _check(tmp_path, capsys, "tournament = true", "--tournament-players", "4")
    assert code == 2 and "--tournament-players" in err and "room" in err


def test_run_check_refuses_a_room_tournament_with_more_seats_a_table_than_the_table(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from room.tournament_sim import ROOM_TOML  # 8 seats a table

    conf = tmp_path / "room-tournament.toml"
    conf.write_text(ROOM_TOML)
    text = (REPO / "config" / "table.example.toml").read_text()
    assert "seats = 9" in text
    code, _, _ = _check(tmp_path, capsys, "tournament = true", "--tournament-config", str(conf))
    assert code == 0
    small = tmp_path / "small.toml"
    small.write_text(text.replace("seats = 9", "seats = 6") + "\n[room]\ntournament = true\n"
                     f'tournament_password_file = "{tmp_path / "tournament-password"}"\n')
    assert run_main(["--config", str(small), "--check", "--tournament-config", str(conf)]) == 2
    assert "seats_per_table 8 is more than table.seats 6" in capsys.readouterr().err
