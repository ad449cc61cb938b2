"""`livetable tablets provision`: per-seat users, Mosquitto password hashes and the ACL (issue 7)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from drivers.mqtt.provision import (ProvisionError, acl_text, check_password, hash_password, main,
                                    provision, read_passwd)


def acl_blocks(text: str) -> dict[str | None, list[str]]:
    """Parse an ACL file into {user or None (anonymous): [topic lines]}."""
    blocks: dict[str | None, list[str]] = {None: []}
    user = None
    for line in text.splitlines():
        if line.startswith("user "):
            user = line.split()[1]
            blocks[user] = []
        elif line.startswith("topic "):
            blocks[user].append(line)
    return blocks


def test_our_hash_is_mosquitto_passwds_format_both_ways(tmp_path: Path) -> None:
    if shutil.which("mosquitto_passwd") is None:
        pytest.skip("mosquitto_passwd is not installed")
    pw = tmp_path / "pw"
    subprocess.run(["mosquitto_passwd", "-c", "-b", str(pw), "seat", "s3cret pass"], check=True)
    theirs = read_passwd(pw)["seat"]
    assert check_password("s3cret pass", theirs) and not check_password("s3cret", theirs)
    salt_b64 = theirs.split("$")[3]
    import base64
    assert hash_password("s3cret pass", salt=base64.b64decode(salt_b64)) == theirs


def test_each_seat_gets_its_own_user_and_only_its_own_topics(tmp_path: Path) -> None:
    creds = provision(tmp_path, "t1", 9)
    users = read_passwd(tmp_path / "passwd")
    assert set(users) == {"controller", "display", "floor", "t1-outbox", "t1-tournament"} | {
        f"t1-seat{n}" for n in range(1, 10)}
    for n in range(1, 10):
        assert check_password(creds["seat_users"][str(n)]["password"], users[f"t1-seat{n}"])
    blocks = acl_blocks((tmp_path / "acl").read_text())
    seat3 = blocks["t1-seat3"]
    assert "topic read livetable/t1/seat/3/private" in seat3
    assert [line for line in seat3 if "seat/" in line and "/3/" not in line and "seat/3" not in line] == []
    assert [line for line in seat3 if line.startswith(("topic write", "topic readwrite"))] == [
        "topic write livetable/t1/seat/3/action", "topic write livetable/t1/seat/3/chat",
        "topic write livetable/t1/seat/3/lobby",  # its waiting-list requests (issue 18)
        "topic readwrite livetable/t1/presence/seat/3"]
    assert all("#" not in line or "lobby" in line for line in seat3)
    assert blocks[None] == []  # anonymous clients: no topic (the broker refuses them anyway)
    assert all(line.startswith("topic read") for line in blocks["display"])
    assert not any("private" in line or "seated" in line for line in blocks["display"])
    # the floor's command: writes only the tables' floor requests, reads nothing of a seat
    floor = blocks["floor"]
    assert [line for line in floor if line.startswith("topic write")] == ["topic write livetable/+/floor/request"]
    assert not any("seat" in line or "private" in line for line in floor)
    assert not any("floor" in line for line in seat3)
    assert not any("room" in line for line in seat3)


def test_the_tables_outbox_has_its_own_login_with_only_its_room_topics(tmp_path: Path) -> None:
    # controller/roomlink.py: its own login, never the controller's (each client's id is its
    # login: two clients on one login end each other's session)
    creds = provision(tmp_path, "t1", 6)
    assert creds["outbox"]["username"] == "t1-outbox"
    assert check_password(creds["outbox"]["password"], read_passwd(tmp_path / "passwd")["t1-outbox"])
    assert creds["outbox"]["password"] not in {creds["controller"]["password"]} | {
        s["password"] for s in creds["seat_users"].values()}
    assert acl_blocks((tmp_path / "acl").read_text())["t1-outbox"] == [
        "topic write livetable/t1/room/records", "topic read livetable/t1/room/ack",
        "topic read livetable/t1/room/link"]
    assert provision(tmp_path, "t1", 6)["outbox"] == creds["outbox"]
    assert provision(tmp_path, "t1", 6, rotate=True)["outbox"]["password"] != creds["outbox"]["password"]
    provision(tmp_path, "t2", 6)
    assert {"t1-outbox", "t2-outbox"} <= set(read_passwd(tmp_path / "passwd"))


def test_the_tables_room_tournament_link_has_its_own_login_with_only_its_two_topics(tmp_path: Path) -> None:
    # controller/tournament_link.py (issue 19): on the controller's login it ended the table's
    # MQTT link's session (the table paused, broker-lost) and the other way round
    creds = provision(tmp_path, "t1", 6)
    assert creds["tournament"]["username"] == "t1-tournament"
    assert check_password(creds["tournament"]["password"], read_passwd(tmp_path / "passwd")["t1-tournament"])
    assert creds["tournament"]["password"] not in {creds["controller"]["password"], creds["outbox"]["password"]}
    assert acl_blocks((tmp_path / "acl").read_text())["t1-tournament"] == [
        "topic read livetable/t1/tournament/order", "topic write livetable/t1/tournament/report"]
    assert provision(tmp_path, "t1", 6)["tournament"] == creds["tournament"]
    assert provision(tmp_path, "t1", 6, rotate=True)["tournament"]["password"] != creds["tournament"]["password"]


def test_rerunning_keeps_passwords_rotate_changes_them_and_shrinking_removes_seats(tmp_path: Path) -> None:
    first = provision(tmp_path, "t1", 9)
    again = provision(tmp_path, "t1", 9)
    assert again == first
    rotated = provision(tmp_path, "t1", 9, rotate=True)
    assert all(rotated["seat_users"][s] != first["seat_users"][s] for s in first["seat_users"])
    assert rotated["controller"] == first["controller"]
    provision(tmp_path, "t1", 6)
    assert "t1-seat7" not in read_passwd(tmp_path / "passwd")
    assert "user t1-seat7" not in (tmp_path / "acl").read_text()


def test_a_second_table_keeps_the_first_tables_users(tmp_path: Path) -> None:
    t1 = provision(tmp_path, "t1", 9)
    provision(tmp_path, "draw-1", 5)
    users = read_passwd(tmp_path / "passwd")
    assert check_password(t1["seat_users"]["9"]["password"], users["t1-seat9"])
    assert "draw-1-seat5" in users and "draw-1-seat6" not in users
    blocks = acl_blocks((tmp_path / "acl").read_text())
    assert "t1-seat9" in blocks and "draw-1-seat5" in blocks


def test_credentials_are_private_files(tmp_path: Path) -> None:
    provision(tmp_path, "t1", 2)
    for path in (tmp_path / "credentials" / "t1.json", tmp_path / "credentials" / "_shared.json"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another group needs root")
def test_provisioning_again_keeps_the_password_files_group_for_the_broker(tmp_path: Path) -> None:
    """scripts/install-pi.sh gives passwd (0640) to group mosquitto; a later run as root
    replaced it with a root-only file, and the broker could not read the logins on reload."""
    provision(tmp_path, "t1", 2)
    broker_gid = os.getgid() + 4242  # any group but ours stands for mosquitto's
    os.chown(tmp_path / "passwd", -1, broker_gid)
    provision(tmp_path, "t1", 3, rotate=True)
    st = (tmp_path / "passwd").stat()
    assert st.st_gid == broker_gid and stat.S_IMODE(st.st_mode) == 0o640
    assert "t1-seat3" in read_passwd(tmp_path / "passwd")


@pytest.mark.parametrize(("table", "seats"), [("T1", 9), ("lobby", 9), ("a/b", 9), ("t+", 9),
                                               ("t1", 1), ("t1", 11), ("t1", True)])
def test_bad_tables_and_seat_counts_are_refused_l2(tmp_path: Path, table: str, seats: int) -> None:
    with pytest.raises(ProvisionError):
        provision(tmp_path, table, seats)
    assert not (tmp_path / "passwd").exists()


def test_the_cli_writes_the_files_and_reports_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from controller.cli import main as livetable
    assert livetable(["tablets", "provision", "--table", "t2", "--seats", "6", "--dir", str(tmp_path), "--show"]) == 0
    out = capsys.readouterr().out
    shown = json.loads(out[out.index("{"):out.rindex("}") + 1])
    assert shown["seats"] == 6 and len(shown["seat_users"]) == 6
    assert main(["provision", "--table", "t2", "--seats", "12", "--dir", str(tmp_path)]) == 2
    assert "L-2" in capsys.readouterr().err
    assert main(["provision"]) == 2


def test_acl_text_refuses_a_bad_seat_count() -> None:
    with pytest.raises(ValueError):
        acl_text({"t1": 11})
