"""The players' desk on a real room broker (issue 18): a phone's login (``player-<p>``)
joins a list through its own requests topic, cannot write another player's, and is called
on its own notices when the table's records (published as the table's bridge does, with the
table's login) show a player standing up; it accepts and is seated."""

from __future__ import annotations

import json
import queue
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from controller.engine.table import events as ev
from controller.engine.table.settings import TableSettings
from controller.journal import payload_of
from controller.runtime import open_table
from drivers.mqtt.broker import BrokerProcess
from room.desk import PlayersDesk, notice_topic, request_topic
from room.provision import provision_player, provision_table, room_credentials
from room.service import RoomService
from room.simulate import ROOM_CONF
from room.store import open_store
from test_room_acl import Client  # tests/room is on sys.path
from tests.room.conftest import need_mosquitto

KEY = {"game": "no-limit holdem", "stakes": "50/100"}
WAIT = 10.0


def _status(c: Client, player: str, pred: Any) -> dict[str, Any]:
    end = time.monotonic() + WAIT
    while time.monotonic() < end:
        try:
            topic, payload = c.q.get(timeout=max(0.01, end - time.monotonic()))
        except queue.Empty:
            break
        if topic == notice_topic(player):
            st = json.loads(payload)
            if pred(st):
                return st
    pytest.fail(f"no status of {player} as expected within {WAIT} s")


def test_phone_joins_is_called_and_accepts_through_the_room_broker(tmp_path: Path) -> None:
    need_mosquitto()
    pdir = tmp_path / "prov"
    broker = BrokerProcess(tmp_path / "broker", passwd=pdir / "passwd", acl=pdir / "acl", config=ROOM_CONF)
    creds = room_credentials(pdir)
    provision_table(pdir, "t1", host="127.0.0.1", port=broker.mqtt_port)
    provision_player(pdir, "anna")
    provision_player(pdir, "ben")
    clear = json.loads((pdir / "credentials" / "room.json").read_text())
    broker.start()
    store = open_store(tmp_path / "room.sqlite")
    service = RoomService(store, host="127.0.0.1", port=broker.mqtt_port, **creds).start()
    desk = PlayersDesk(service, hold_seconds=120).start()
    clients: list[Client] = []
    orch = None
    try:
        assert service.wait_connected(WAIT)
        # the table: its journal, sent as its bridge would (login table-t1)
        settings = TableSettings(id="t1", name="Table 1", game="holdem", limit="no-limit", seats=3,
                                 small_blind=50, big_blind=100)
        journal = tmp_path / "j.sqlite"
        orch, _ = open_table(journal, settings, clock=time.time)
        table = Client(broker.mqtt_port, "table-t1", clear["table-t1"])
        clients.append(table)
        sent = [0]

        def send(*events: Any) -> int:
            for e in events:
                orch.handle(e)
            db = sqlite3.connect(journal)
            msg: dict[str, Any] = {"table": "t1", "records": [
                {"seq": s, "at": a, "kind": k, "payload": payload_of(k, a, p)}
                for s, a, k, p in db.execute("SELECT seq, at, kind, payload FROM events WHERE seq > ?", (sent[0],))]}
            if sent[0] == 0:
                upto, state = db.execute("SELECT upto, state FROM snapshots ORDER BY upto LIMIT 1").fetchone()
                msg["base"] = {"upto": upto, "state": json.loads(state)}
            db.close()
            sent[0] = msg["records"][-1]["seq"]
            table.publish("room/tables/t1/records", json.dumps(msg))
            return sent[0]

        now = time.time()
        last = send(*[e for n, p in enumerate(("x", "y", "z"), start=1)
                      for e in (ev.PlayerSatDown(at=now, seat=n, player=p, name=p.upper()),
                                ev.BoughtIn(at=now, seat=n, amount=5000))])
        assert service.wait_applied("t1", last, WAIT)
        anna = Client(broker.mqtt_port, "player-anna", clear["player-anna"],
                      ["room/lobby/lobby", "room/players/anna/notices/#", "room/players/ben/notices/#"])
        ben = Client(broker.mqtt_port, "player-ben", clear["player-ben"])
        clients += [anna, ben]
        # ben cannot put anna down (the ACL drops his write to her topic); anna can
        ben.publish(request_topic("anna"), json.dumps({"op": "join", **KEY}))
        ben.publish(request_topic("ben"), json.dumps({"op": "join", **KEY}))
        anna.publish(request_topic("anna"), json.dumps({"op": "join", **KEY}))
        st = _status(anna, "anna", lambda s: s["lists"])
        assert st["lists"][0]["place"] == 2 and st["call"] is None  # ben joined first, from his own topic
        assert [e.by for e in desk.lists.log if e.action == "join"] == ["ben", "anna"]
        # ben leaves; y stands up at the table: anna is called on her notices
        ben.publish(request_topic("ben"), json.dumps({"op": "leave", **KEY}))
        _status(anna, "anna", lambda s: s["lists"] and s["lists"][0]["place"] == 1)
        send(ev.StoodUp(at=time.time(), seat=2))
        st = _status(anna, "anna", lambda s: s["call"] is not None)
        assert (st["call"]["table"], st["call"]["seat"]) == ("t1", 2)
        anna.publish(request_topic("anna"), json.dumps({"op": "accept"}))
        st = _status(anna, "anna", lambda s: s["seated"] is not None)
        assert st["seated"] == {"table": "t1", "seat": 2} and st["call"] is None
        # she never read ben's notices (her login may not), only her own
        assert all(not t.startswith("room/players/ben/") for t, _ in list(anna.q.queue))
    finally:
        for c in clients:
            c.close()
        desk.stop()
        service.stop()
        if orch is not None:
            orch.journal.close()
        store.close()
        broker.stop()


def test_the_rooms_lobby_reaches_the_tables_broker_for_its_tablets(tmp_path: Path) -> None:
    """The bridge brings ``room/lobby/lobby`` in as ``livetable/lobby/lobby`` (the tablets'
    Lobby tab reads ``livetable/lobby/+``); the table's login on the room broker may read it."""
    need_mosquitto()
    from room.simulate import RoomRig

    rig = RoomRig(tmp_path, ["t1"], restart_timeout=(1, 1)).start()
    clients: list[Client] = []
    try:
        ctl = Client(rig.brokers["t1"].mqtt_port, "controller", rig.controller_password["t1"].read_text().strip(),
                     ["livetable/lobby/+"])
        clients.append(ctl)
        svc = Client(rig.room_broker.mqtt_port, "room", rig.room_creds["password"])
        clients.append(svc)
        lobby = json.dumps({"schema": 1, "tables": [], "lists": []})
        end = time.monotonic() + 20
        got = None
        while got is None and time.monotonic() < end:  # the bridge connects in its own time
            svc.publish("room/lobby/lobby", lobby, retain=True)
            try:
                topic, payload = ctl.q.get(timeout=1)
            except queue.Empty:
                continue
            if topic == "livetable/lobby/lobby":
                got = payload
        assert got == lobby.encode()
    finally:
        for c in clients:
            c.close()
        rig.stop()
