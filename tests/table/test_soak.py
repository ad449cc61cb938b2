"""Soak: random seeded sessions, audited after every event (issue 3).

The chip-conservation and ledger audit (controller/engine/table/audit.py) runs after every
event inside the bench; at the end the whole session is replayed from its journal and must
give the same state. 10,000 hands run in bench/bench_table.py.
"""

from __future__ import annotations

import json

import pytest

from controller.engine.table.settings import TableSettings
from controller.engine.table.step import run

from .soak import GAMES, Soak


# (16, 4): per-pot rake (R-1) changed seed 15's session, which then had no voluntary show
@pytest.mark.parametrize("seed,game", [(11, 0), (12, 1), (13, 2), (14, 3), (16, 4)])
def test_soak_random_session_keeps_the_books(seed: int, game: int) -> None:
    soak = Soak(seed, settings=GAMES[game])
    bench = soak.run(220)
    assert bench.state.hands >= 220
    for what in ("join", "leave", "timeout", "disconnect", "action", "sit-in", "show", "muck", "show-after",
                 "auto-muck"):
        assert soak.counts.get(what, 0) > 0, (what, soak.counts)
    # button and blinds: the big blind moves every hand (T-1) unless the hand was voided
    played = [h for h in bench.hands if not h["voided"]]
    assert len(played) > 150
    for a, b in zip(played, played[1:]):
        if b["hand"] == a["hand"] + 1:
            assert a["bb_seat"] != b["bb_seat"], (a["hand"], b["hand"])
    # replaying the journal from the start gives the same table
    again, _ = run(bench.initial, bench.log)
    assert json.dumps(again.to_json(), sort_keys=True) == json.dumps(bench.state.to_json(), sort_keys=True)


def test_soak_settings_are_tables_the_rules_allow() -> None:
    for s in GAMES:
        assert isinstance(s, TableSettings) and s.buy_in_min >= 1
