"""Player accounts and sessions in the room's store (room/players.py, issue 18), fed from a
real table's journal records as the room replays them, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from controller.engine.table import events as ev
from controller.engine.table.settings import TableSettings
from controller.journal import payload_of
from controller.runtime import open_table
from room.apply import Room, check_batch
from room.players import PlayerError, Players
from room.store import open_store
from room.waitlist import ListKey


def _message(journal: Path, table: str) -> dict[str, Any]:
    db = sqlite3.connect(journal)
    upto, state = db.execute("SELECT upto, state FROM snapshots ORDER BY upto LIMIT 1").fetchone()
    recs = [{"seq": s, "at": a, "kind": k, "payload": payload_of(k, a, p)}
            for s, a, k, p in db.execute("SELECT seq, at, kind, payload FROM events ORDER BY seq")]
    db.close()
    return {"table": table, "base": {"upto": upto, "state": json.loads(state)}, "records": recs}


def test_sessions_from_joins_top_ups_and_cash_outs(store_url: str, tmp_path: Path) -> None:
    settings = TableSettings(id="t7", name="Table 7", game="holdem", limit="no-limit", seats=6,
                             small_blind=50, big_blind=100)
    orch, _ = open_table(tmp_path / "j.sqlite", settings, clock=lambda: 1000.0)
    for e in [ev.PlayerSatDown(at=1000.0, seat=1, player="ann", name="Ann"), ev.BoughtIn(at=1001.0, seat=1, amount=5000),
              ev.PlayerSatDown(at=1002.0, seat=2, player="bob", name="Bob"), ev.BoughtIn(at=1003.0, seat=2, amount=4000),
              ev.ToppedUp(at=5000.0, seat=2, amount=1000), ev.StoodUp(at=8200.0, seat=1),
              ev.PlayerSatDown(at=8300.0, seat=1, player="cat", name="Cat")]:
        orch.handle(e)
    orch.journal.close()
    store = open_store(store_url)
    room = Room(store, lambda: 1.0)
    players = Players(store, clock=lambda: 1002.0 + 7200).attach(room)
    msg = _message(tmp_path / "j.sqlite", "t7")
    # in two batches, the second sent twice (a resend): nothing counted twice
    half = len(msg["records"]) // 2
    room.receive("t7", *check_batch("t7", dict(msg, records=msg["records"][:half])))
    room.receive("t7", *check_batch("t7", dict(msg, records=msg["records"][half:])))
    room.receive("t7", *check_batch("t7", dict(msg, records=msg["records"][half:])))
    s = {x["player"]: x for x in players.sessions()}
    assert set(s) == {"ann", "bob", "cat"}
    assert (s["ann"]["started"], s["ann"]["ended"], s["ann"]["hours"]) == (1000.0, 8200.0, 2.0)
    assert (s["ann"]["buy_in"], s["ann"]["top_ups"], s["ann"]["cash_out"]) == (5000, 0, 5000)
    assert (s["bob"]["buy_in"], s["bob"]["top_ups"], s["bob"]["ended"]) == (4000, 1000, None)
    assert s["bob"]["hours"] == 2.0  # open: up to the clock (8202; he sat at 1002)
    assert [x["player"] for x in players.sessions(table="t7", open_only=True)] == ["cat", "bob"]
    # the waiting lists hear of it: the table's game, the seats taken, ann's seat opening
    seen = [p[:-1] for p in players.pending if p[0] != "state"]
    assert ("table", "t7", ListKey("no-limit holdem", "50/100")) in seen
    assert ("opened", "t7", 1, "ann") in seen
    assert seen.index(("opened", "t7", 1, "ann")) < seen.index(("taken", "t7", 1, "cat"))
    # accounts: made from the table's names; the floor adds a card number
    assert players.account("ann")["name"] == "Ann" and players.account("ann")["card"] is None
    assert players.register("ann", "Ann Smith", "C-100")["card"] == "C-100"
    assert [a["player"] for a in players.find("C-100")] == ["ann"]
    assert players.find("smi")[0]["hours"] == 2.0
    with pytest.raises(PlayerError, match="another player"):
        players.register("bob", "Bob", "C-100")
    with pytest.raises(PlayerError):
        players.register("", "x")
    store.close()


def test_a_played_table_sessions_add_up_to_its_meters(store_url: str, played: tuple[Path, dict]) -> None:
    d, _ = played
    store = open_store(store_url)
    room = Room(store, lambda: 1.0)
    players = Players(store).attach(room)
    room.receive("sim", *check_batch("sim", _message(d / "journal.sqlite", "sim")))
    row = store.table_row("sim")
    ss = players.sessions(table="sim")
    assert ss, "the simulated table seats players"
    # chips are conserved: every chip in and out of the table is in exactly one session
    assert sum(x["buy_in"] + x["top_ups"] for x in ss) == row["total_in"]
    assert sum(x["cash_out"] for x in ss) == row["total_out"]
    assert sum(x["hands"] for x in ss) >= row["hands"]
    store.close()


def test_players_schema_has_its_own_track(store_url: str) -> None:
    store = open_store(store_url)
    assert [r[0] for r in store.query("SELECT version FROM room_players_schema")] == [1]
    store.close()
    store = open_store(store_url)  # opening again applies nothing twice
    assert store.query("SELECT COUNT(*) FROM room_players_schema")[0][0] == 1
    store.close()
