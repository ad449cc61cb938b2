"""Chips in and out of a table as the room counts them (issue 17): buy-ins, top-ups and
cash-outs from a real table's journal, per player, and the shift report built on them."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from controller.engine.table import events as ev
from controller.engine.table.settings import TableSettings
from controller.journal import payload_of
from controller.runtime import open_table
from room.apply import Room, check_batch
from room.store import open_store


def test_buy_ins_top_ups_and_cash_outs_reach_the_report(store_url: str, tmp_path: Path) -> None:
    settings = TableSettings(id="t7", name="Table 7", game="holdem", limit="no-limit", seats=6,
                             small_blind=50, big_blind=100, rake_percent=5.0, rake_caps=((2, 300),))
    now = [1000.0]
    orch, _ = open_table(tmp_path / "j.sqlite", settings, clock=lambda: now[0])
    for e in [ev.PlayerSatDown(at=1000.0, seat=1, player="ann", name="Ann"), ev.BoughtIn(at=1001.0, seat=1, amount=5000),
              ev.PlayerSatDown(at=1002.0, seat=2, player="bob", name="Bob"), ev.BoughtIn(at=1003.0, seat=2, amount=4000),
              ev.ToppedUp(at=5000.0, seat=2, amount=1000), ev.StoodUp(at=9000.0, seat=1),
              ev.BoughtIn(at=9001.0, seat=3, amount=999999)]:  # nobody sits there: refused
        orch.handle(e)
    led = orch.state.ledger
    assert (led.total_in, led.total_out) == (10000, 5000)
    orch.journal.close()

    db = sqlite3.connect(tmp_path / "j.sqlite")
    upto, state = db.execute("SELECT upto, state FROM snapshots ORDER BY upto LIMIT 1").fetchone()
    recs = [{"seq": s, "at": a, "kind": k, "payload": payload_of(k, a, p)}
            for s, a, k, p in db.execute("SELECT seq, at, kind, payload FROM events ORDER BY seq")]
    store = open_store(store_url)
    Room(store, lambda: 1.0).receive("t7", *check_batch(
        "t7", {"table": "t7", "base": {"upto": upto, "state": json.loads(state)}, "records": recs}))
    moves = store.query("SELECT player, at, chips_in, chips_out FROM room_movements ORDER BY seq")
    assert [(p, a, i, o) for p, a, i, o in moves] == [
        ("ann", 1001.0, 5000, 0), ("bob", 1003.0, 4000, 0), ("bob", 5000.0, 1000, 0), ("ann", 9000.0, 0, 5000)]
    row = store.table_row("t7")
    assert (row["total_in"], row["total_out"], row["rake"]) == (10000, 5000, 0)
    whole = store.report()
    assert whole[0]["table"] == "t7" and (whole[0]["chips_in"], whole[0]["chips_out"]) == (10000, 5000)
    assert whole[-1] == dict(whole[0], table="room")
    shift = store.report(since=2000.0, until=9000.0)  # the top-up only; the cash-out is at 9000
    assert (shift[0]["chips_in"], shift[0]["chips_out"]) == (1000, 0)
    store.close()
