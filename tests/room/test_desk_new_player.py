"""The floor makes a player's login at the desk (issue 18): "new player" on the floor's list
view (``POST /api/lists`` ``{"op": "new-player", "player", "name", "card"}``, behind the
floor's login) writes the account and the player's room-broker login with a one-time
password through room/provision.py, and the broker (a real Mosquitto) takes it after its
SIGHUP: the phone logs in with it at once. Recorded in the lists' log with who did it,
never with the password; issuing again ends the old password."""

from __future__ import annotations

import base64
import json
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from drivers.mqtt.broker import BrokerProcess
from room.console import add_login
from room.desk import serve_desk
from room.provision import login_maker, room_credentials
from room.simulate import ROOM_CONF
from tests.room.conftest import need_mosquitto
from tests.room.qr import read_qr
from tests.room.test_desk import Rig, _fill


def logs_in(port: int, user: str, password: str) -> bool:
    """Whether the broker takes ``user``'s login (waits for its CONNACK)."""
    got: list[Any] = []
    done = threading.Event()
    c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
    c.username_pw_set(user, password)
    c.on_connect = lambda c_, u, f, reason, p=None: (got.append(reason), done.set())
    c.on_disconnect = lambda *a: done.set()
    c.connect("127.0.0.1", port)
    c.loop_start()
    try:
        assert done.wait(10), "the broker did not answer"
        return bool(got) and not got[0].is_failure
    finally:
        c.loop_stop()
        c.disconnect()


@pytest.fixture
def rig(tmp_path: Path, store_url: str) -> Any:
    r = Rig(tmp_path, store_url)
    yield r
    r.close()


@pytest.mark.broker
def test_the_floor_makes_a_players_login_and_the_broker_takes_it(rig: Rig, tmp_path: Path) -> None:
    need_mosquitto()
    _fill(rig)
    pdir = tmp_path / "prov"
    room_credentials(pdir)
    broker = BrokerProcess(tmp_path / "broker", passwd=pdir / "passwd", acl=pdir / "acl", config=ROOM_CONF).start()
    logins = tmp_path / "floor.json"
    pw = add_login(logins, "eve")
    srv = serve_desk(rig.desk, logins, port=0, public_url="http://room.local:8091/")

    def post(body: Any, auth: bool = True) -> tuple[int, Any]:  # a Host header the links never take
        req = urllib.request.Request(srv.url + "api/lists", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json", "Host": "evil.example:80"})
        if auth:
            req.add_header("Authorization", "Basic " + base64.b64encode(f"eve:{pw}".encode()).decode())
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, e.read()
    try:
        new = {"op": "new-player", "player": "zoe", "name": "Zoe Ng", "card": "C-77"}
        code, out = post(new)
        assert code == 400 and b"makes no player logins" in out  # a desk without logins says why
        rig.desk.logins = login_maker(pdir, broker.reload)
        assert post(new, auth=False)[0] == 401
        assert post(dict(new, player="Zoe Ng"))[0] == 400  # the phone's id rule
        assert not logs_in(broker.mqtt_port, "player-zoe", "guess")
        code, out = post(new)
        assert code == 200 and out["login"] == "player-zoe" and out["account"]["card"] == "C-77"
        assert out["phone_link"] == f"http://room.local:8091/phone#u=zoe&p={out['password']}"
        assert logs_in(broker.mqtt_port, "player-zoe", out["password"])  # taken after the SIGHUP
        # the QR code the player's phone reads is that link (OpenCV's detectors, tests/room/qr.py)
        assert read_qr(base64.b64decode(out["qr"].split(",", 1)[1])) == out["phone_link"]
        # recorded with who did it, without the password
        entry = [e for e in rig.desk.players.waitlist_log() if e["action"] == "login"]
        assert [(e["player"], e["by"]) for e in entry] == [("zoe", "floor:eve")]
        assert "C-77" in entry[0]["detail"] and out["password"] not in json.dumps(entry)
        # issued again: refused unless the floor says it is the same person (a second Zoe is not her)
        code, taken = post(new)
        assert code == 409 and b"has an account already" in taken
        code, again = post(dict(new, same_person=True))
        assert code == 200 and again["password"] != out["password"]
        assert logs_in(broker.mqtt_port, "player-zoe", again["password"])
        assert not logs_in(broker.mqtt_port, "player-zoe", out["password"])
        # a card another player holds is refused, nothing made
        code, _ = post({"op": "new-player", "player": "yan", "name": "Yan", "card": "C-77"})
        assert code == 400 and "player-yan" not in (pdir / "passwd").read_text()
    finally:
        srv.stop()
        broker.stop()
