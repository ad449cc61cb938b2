"""TLS on the bridge (issue 17, 4): a table's bridge to a room broker's TLS listener.

A throwaway CA is made at test time with ``openssl`` (in the test's folder; nothing secret is
in the repo): the room broker's certificate (127.0.0.1 in its subject alternative names) and
one client certificate per table. ``livetable room provision --tls-*`` writes the room
broker's TLS listener and the bridges' TLS options; the rig runs both brokers on them. The
table's outbox login publishes a records message on its own broker: it crosses the TLS
bridge to the room broker, and the room's acknowledgement comes back. A bridge that trusts
another CA never connects (the table's broker logs the failed certificate check).
"""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from drivers.mqtt.broker import free_port
from room.provision import main as provision_main
from room.provision import tls_listener_conf
from room.simulate import RoomRig
from tests.room.conftest import need_mosquitto

WAIT = 15.0


def openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)


def make_ca(d: Path, name: str) -> tuple[Path, Path]:
    """A self-signed CA in ``d``: (cert, key)."""
    d.mkdir(parents=True, exist_ok=True)
    key, crt = d / f"{name}.key", d / f"{name}.crt"
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(crt),
            "-days", "2", "-subj", f"/CN={name}")
    return crt, key


def issue(d: Path, name: str, ca: tuple[Path, Path], *, san: str | None = None) -> tuple[Path, Path]:
    """A certificate ``name`` signed by ``ca``: (cert, key)."""
    key, csr, crt = d / f"{name}.key", d / f"{name}.csr", d / f"{name}.crt"
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(csr), "-subj", f"/CN={name}")
    ext = d / f"{name}.ext"
    ext.write_text(f"subjectAltName={san}\n" if san else "basicConstraints=CA:FALSE\n")
    openssl("x509", "-req", "-in", str(csr), "-CA", str(ca[0]), "-CAkey", str(ca[1]), "-CAcreateserial",
            "-out", str(crt), "-days", "2", "-extfile", str(ext))
    return crt, key


@pytest.fixture
def pki(tmp_path: Path) -> dict[str, Any]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed (apt-get install openssl)")
    d = tmp_path / "pki"
    ca = make_ca(d, "room-ca")
    return {"ca": ca, "server": issue(d, "room-server", ca, san="IP:127.0.0.1,DNS:localhost"),
            "t1": issue(d, "t1", ca), "other_ca": make_ca(d / "other", "other-ca")}


def wait_log(path: Path, text: str, timeout: float = WAIT) -> bool:
    """Whether ``text`` shows in the log file ``path`` within ``timeout`` s."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if path.exists() and text in path.read_text(errors="replace"):
            return True
        time.sleep(0.1)  # polling another process's log file: nothing to wait on
    return False


def rig_with_tls(tmp: Path, pki: dict[str, Any], bridge_ca: Path) -> RoomRig:
    """A room of one table whose bridge connects through the room broker's TLS listener,
    provisioned by ``livetable room provision --tls-*`` (the bridge trusting ``bridge_ca``)."""
    tls_port = free_port()
    pdir = tmp / "room" / "mosquitto"
    assert provision_main(["--dir", str(pdir), "--table", "t1", "--room-host", "127.0.0.1",
                           "--tls-ca", str(bridge_ca), "--tls-port", str(tls_port),
                           "--tls-cert", str(pki["server"][0]), "--tls-key", str(pki["server"][1]),
                           "--bridge-cert-dir", str(pki["t1"][0].parent)]) == 0
    listener = (pdir / "tls-listener.conf").read_text()
    # the listener checks the bridges' certificates against the room's CA
    listener = listener.replace(f"cafile {bridge_ca}", f"cafile {pki['ca'][0]}")
    assert listener == tls_listener_conf(port=tls_port, cafile=str(pki["ca"][0]), certfile=str(pki["server"][0]),
                                         keyfile=str(pki["server"][1]), require_certificate=True)
    # RoomRig provisions again with the same options (the table's password is kept)
    from room.provision import BridgeTls

    tls = BridgeTls(str(bridge_ca), str(pki["t1"][0]), str(pki["t1"][1]))
    return RoomRig(tmp, ["t1"], link_ports={"t1": tls_port}, bridge_tls=tls, room_extra="\n" + listener)


def client(port: int, user: str, password: str, subs: list[str]) -> tuple[Any, "queue.Queue[tuple[str, bytes]]"]:
    q: "queue.Queue[tuple[str, bytes]]" = queue.Queue()
    c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
    c.username_pw_set(user, password)
    c.on_message = lambda cl, u, m: q.put((m.topic, bytes(m.payload)))
    acked = threading.Semaphore(0)
    c.on_subscribe = lambda *a: acked.release()
    c.connect("127.0.0.1", port)
    c.loop_start()
    for s in subs:
        c.subscribe(s, 1)
        assert acked.acquire(timeout=WAIT), f"no SUBACK for {s}"
    return c, q


def until(q: "queue.Queue[tuple[str, bytes]]", topic: str, want: Any) -> bytes:
    """The first payload on ``topic`` for which ``want(payload)`` holds (fails after WAIT s;
    the bridge's state may say 0 before it says 1, and topics interleave)."""
    end = time.monotonic() + WAIT
    while True:
        try:
            t, payload = q.get(timeout=max(0.0, end - time.monotonic()))
        except queue.Empty:
            pytest.fail(f"nothing wanted on {topic} within {WAIT} s")
        if t == topic and want(payload):
            return payload


def test_the_bridge_carries_records_and_acks_over_tls(tmp_path: Path, pki: dict[str, Any]) -> None:
    need_mosquitto()
    rig = rig_with_tls(tmp_path, pki, pki["ca"][0])
    bridge = (rig.room_dir / "mosquitto" / "bridges" / "t1.conf").read_text()
    assert f"bridge_cafile {pki['ca'][0]}" in bridge and "bridge_insecure false" in bridge
    assert f"bridge_certfile {pki['t1'][0]}" in bridge
    rig.start()
    room_pw = rig.room_creds["password"]
    room, room_q = client(rig.room_broker.mqtt_port, "room", room_pw, ["room/tables/t1/records"])
    table, table_q = client(rig.brokers["t1"].mqtt_port, "t1-outbox", rig.outbox_password["t1"].read_text(),
                            ["livetable/t1/room/link", "livetable/t1/room/ack"])
    try:
        until(table_q, "livetable/t1/room/link", lambda p: p == b"1")  # the bridge is up, over TLS
        table.publish("livetable/t1/room/records", '{"over": "tls"}', qos=1)
        until(room_q, "room/tables/t1/records", lambda p: p == b'{"over": "tls"}')
        room.publish("room/tables/t1/ack", json.dumps({"table": "t1", "upto": 0, "base": False}), qos=1)
        until(table_q, "livetable/t1/room/ack", lambda p: json.loads(p)["upto"] == 0)
        assert wait_log(rig.room_broker.log_file, "as table-t1")  # its login, through the TLS listener
    finally:
        for c in (room, table):
            c.disconnect()
            c.loop_stop()
        rig.stop()


def test_a_bridge_that_trusts_another_ca_does_not_connect(tmp_path: Path, pki: dict[str, Any]) -> None:
    need_mosquitto()
    rig = rig_with_tls(tmp_path, pki, pki["other_ca"][0]).start()
    try:
        assert wait_log(rig.brokers["t1"].log_file, "certificate verify failed")
        assert "as table-t1" not in rig.room_broker.log_file.read_text(errors="replace")
    finally:
        rig.stop()
