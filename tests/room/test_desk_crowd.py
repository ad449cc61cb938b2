"""Simulated players through the room service's replay (issue 18): two real tables (their
orchestrators and journals) send their records to the room (``Room.receive``), the players'
desk turns stand-ups into calls; random players join, accept (and then sit at the table),
pass or let the call lapse; players leave at random. Over at least 200 seat openings the
independent checker (room/fairness.py) reads the lists' log: every seat went to the first
eligible player, none to two at once, every lapse moved to the next."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from controller.engine.table import events as ev
from controller.engine.table.settings import TableSettings
from controller.journal import payload_of
from controller.runtime import open_table
from room.apply import Room, check_batch
from room.desk import PlayersDesk
from room.fairness import check_log
from room.store import open_store

KEY = {"game": "no-limit holdem", "stakes": "1/2"}


def test_200_openings_through_the_rooms_replay(tmp_path: Path) -> None:
    now = [10_000.0]
    rng = random.Random(18)
    store = open_store(":memory:")  # the tables' journals are files; the room's store need not be
    room = Room(store, lambda: now[0])
    desk = PlayersDesk(SimpleNamespace(store=store, room=room), hold_seconds=120, clock=lambda: now[0],
                       publish=lambda *a: None)
    tables: dict[str, Any] = {}
    sent: dict[str, int] = {}
    for t in ("t1", "t2"):
        s = TableSettings(id=t, name=t, game="holdem", limit="no-limit", seats=9, small_blind=1, big_blind=2)
        tables[t], _ = open_table(tmp_path / f"{t}.sqlite", s, clock=lambda: now[0])
        sent[t] = 0

    def play(t: str, *events: Any) -> None:
        for e in events:
            tables[t].handle(e)
        db = sqlite3.connect(tmp_path / f"{t}.sqlite")
        msg: dict[str, Any] = {"table": t, "records": [
            {"seq": s, "at": a, "kind": k, "payload": payload_of(k, a, p)}
            for s, a, k, p in db.execute("SELECT seq, at, kind, payload FROM events WHERE seq > ?", (sent[t],))]}
        if sent[t] == 0:
            upto, state = db.execute("SELECT upto, state FROM snapshots ORDER BY upto LIMIT 1").fetchone()
            msg["base"] = {"upto": upto, "state": json.loads(state)}
        db.close()
        if msg["records"]:
            sent[t] = msg["records"][-1]["seq"]
            room.receive(t, *check_batch(t, msg))

    counter = [0]

    def new_player() -> str:
        counter[0] += 1
        return f"p{counter[0]}"

    seated: dict[tuple[str, int], str] = {}
    for t in tables:
        for n in range(1, 10):
            p = new_player()
            play(t, ev.PlayerSatDown(at=now[0], seat=n, player=p, name=p))
            seated[(t, n)] = p
    answered: set[tuple[str, float]] = set()
    openings = 0
    while openings < 200:
        now[0] += rng.uniform(5, 40)
        r = rng.random()
        if r < 0.35:
            desk.request(new_player(), {"op": "join", **KEY})
        elif r < 0.6 and seated:
            (t, n), p = rng.choice(sorted(seated.items()))
            del seated[(t, n)]
            play(t, ev.StoodUp(at=now[0], seat=n))
            openings += 1
        with desk.lock:
            desk._handle(desk.lists.expire())  # the desk's tick
        for c in desk.lists.calls():
            if (c.player, c.at) in answered:
                continue
            answered.add((c.player, c.at))
            a = rng.random()
            if a < 0.7:
                assert desk.request(c.player, {"op": "accept"})["ok"]
                play(c.table, ev.PlayerSatDown(at=now[0], seat=c.seat, player=c.player, name=c.player))
                seated[(c.table, c.seat)] = c.player
            elif a < 0.85:
                assert desk.request(c.player, {"op": "pass"})["ok"]
            # else: no answer; it lapses at the tick after its hold
    counts = check_log(desk.lists.log, dict(desk.lists.table_key), dict(desk.lists.feeds))
    assert counts["openings"] >= 200 and counts["lapses"] >= 5 and counts["passes"] >= 5
    assert counts["calls"] >= 150
    # what the tables journalled and what the lists believe agree
    for (t, n), p in seated.items():
        assert desk.lists.seated[p] == (t, n)
    for orch in tables.values():
        orch.journal.close()
    store.close()
