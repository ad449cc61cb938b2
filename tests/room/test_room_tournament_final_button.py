"""The button at the room's redrawn final table (issue 19, "Multi-table, still missing").

When the final table is formed its seats are redrawn (``balancing.final_table_redraw``) and
its button is drawn again: the room draws one of its players (seeded: the same on a
restart, journalled with the round), its first ``go`` carries that player's new seat as
``button``, and the table starts the rotation afresh there (``HandStartRequested(button,
redraw=True)``: everyone dealt in, the blinds the next two players). The TDA Rules leave the
button at a redraw to the house; WSOP Rule 85 draws for the button with 3, 2 and 1 tables
remaining (docs/tournament.md). Before, the final table kept the blinds' order of the
table it was played at."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import pytest

from controller.engine.table import events as ev
from controller.engine.table.codec import CodecError, from_json, to_json
from controller.engine.table.settings import TableSettings
from controller.tournament_link import OrderError, RoomTournamentSeat, decode_order
from tests.room.test_room_tournament_director import exchange, restored, room
from tests.table.harness import Bench
from tests.table.test_tournament_table import fold_around, rotation, seated

TOUR = TableSettings(seats=8, small_blind=100, big_blind=200, tournament=True)


def to_final_table(d: Any, tables: dict[str, Any], sent: list[dict[str, Any]]) -> tuple[int, str]:
    """Two busts at each table in one hand: 8 left for 8 seats, the final table (t1) is
    redrawn. Return the number of orders sent before the hand's report and the button's player."""
    exchange(d, tables, sent, "t1", "t2")
    t1, t2 = tables["t1"], tables["t2"]
    t1.play({p: s for p, s in list(t1.seats.values())[1:3]})
    t2.play({p: s for p, s in list(t2.seats.values())[1:3]})
    n = len(sent)
    exchange(d, tables, sent, "t1", "t2")
    rounds = [p for k, p in d.journal.rows if k == "round" and p.get("button")]
    assert len(rounds) == 1, "one redraw round, with its button"
    assert all("redraw" in m["reason"] for m in rounds[0]["moves"])
    return n, rounds[0]["button"]["player"]


def test_house_rule_wsop_85_the_button_is_drawn_again_at_the_redrawn_final_table() -> None:
    d, tables, sent, journal = room()
    n, player = to_final_table(d, tables, sent)
    t1 = tables["t1"]
    assert len(t1.seats) == 8 and tables["t2"].seats == {} and len(d.standings.alive) == 8
    gos = [o for o in sent[n:] if o["table"] == "t1" and o["go"]]
    assert len(gos) == 1 and "button" in gos[0]["go"]
    seat = gos[0]["go"]["button"]
    assert t1.seats[seat][0] == player  # the drawn player's redrawn seat
    # later hands: no button, the table's rotation moves it (T-1)
    t1.play()
    m = len(sent)
    exchange(d, tables, sent, "t1")
    later = [o for o in sent[m:] if o["table"] == "t1" and o["go"]]
    assert later and all("button" not in o["go"] for o in later)
    assert not d.problems


def test_the_final_tables_button_is_the_same_drawn_again_by_a_restored_room() -> None:
    """Seeded by the tournament's seed and the round: a room killed after the redraw round
    but before the final table's first go gives the same button; killed after it, none."""
    d, tables, sent, journal = room()
    n, player = to_final_table(d, tables, sent)
    go = next(o for o in sent[n:] if o["table"] == "t1" and o["go"])
    k = next(i for i, (kind, p) in enumerate(journal.rows) if kind == "order" and p["id"] == go["id"]
             and p["table"] == "t1")
    before = type(journal)()
    before.rows = journal.rows[:k]  # killed just before the go was journalled
    d2, _ = restored(before)
    assert d2._button == {"table": "t1", "player": player}
    d3, _ = restored(journal)  # the go with its button was journalled: never given twice
    assert d3._button is None
    d4, tables4, sent4, _ = room()  # the same seed, the same play: the same draw
    assert to_final_table(d4, tables4, sent4)[1] == player


def test_a_go_with_a_button_out_of_the_tables_seats_refuses_the_order() -> None:
    order = {"schema": 1, "table": "t1", "id": 3, "out": [], "in": [], "end": False,
             "go": {"hand": 4, "stakes": {"small_blind": 25, "big_blind": 50}, "button": 9}}
    with pytest.raises(OrderError):
        decode_order(json.dumps(order).encode(), "t1", 8)
    order["go"]["button"] = 5  # type: ignore[index]
    assert decode_order(json.dumps(order).encode(), "t1", 8)["go"]["button"] == 5


def test_the_table_starts_its_rotation_afresh_at_the_rooms_button() -> None:
    """The link gives the button of the room's go with ``redraw``; the table, whose rotation
    ran on (button 1, blinds 2 and 3), deals the next hand with the button there and the
    blinds the next two players, everyone dealt in; the hand after, T-1 moves it on."""
    link = RoomTournamentSeat("t1", host="127.0.0.1", port=1)
    b = seated({1: 5000, 2: 5000, 3: 5000, 5: 5000, 7: 5000}, TOUR)
    b.do(ev.HandStartRequested, button=1)
    assert rotation(b) == (1, 2, 3)
    fold_around(b)
    link.orch = mock.Mock(state=mock.Mock(hands=b.state.hands))
    link.go = {"hand": b.state.hands + 1, "stakes": {"small_blind": 100, "big_blind": 200}, "button": 5}
    fields = link.hand_start()
    assert fields == {"level": {"small_blind": 100, "big_blind": 200}, "button": 5, "redraw": True}
    b.do(ev.HandStartRequested, **fields)
    assert rotation(b) == (5, 7, 1) and b.state.info.dealt == (1, 2, 3, 5, 7)
    fold_around(b)
    b.do(ev.HandStartRequested)
    assert rotation(b) == (7, 1, 2)


def test_a_button_without_redraw_is_ignored_after_the_first_hand_and_redraw_needs_a_button() -> None:
    b = seated({1: 5000, 2: 5000, 3: 5000, 5: 5000}, TOUR)
    b.do(ev.HandStartRequested, button=1)
    fold_around(b)
    b.do(ev.HandStartRequested, button=5)  # T-1: a later hand's button is the rotation's
    assert rotation(b) == (2, 3, 5)
    with pytest.raises(CodecError, match="redraw"):
        ev.HandStartRequested(at=1.0, redraw=True)
    e = ev.HandStartRequested(at=1.0, button=5, redraw=True)
    assert from_json(to_json(e, defaults=False)) == e
    assert "redraw" not in to_json(ev.HandStartRequested(at=1.0), defaults=False)  # old journals read the same


def test_redraw_at_a_cash_table_keeps_the_rotation() -> None:
    b = Bench(TableSettings(seats=6, small_blind=1, big_blind=2))
    for seat in (1, 2, 3, 4):
        b.do(ev.PlayerSatDown, seat=seat, player=f"p{seat}")
        b.do(ev.BoughtIn, seat=seat, amount=200)
    b.do(ev.HandStartRequested, button=1)
    fold_around(b)
    b.do(ev.HandStartRequested, button=4, redraw=True)
    assert rotation(b) == (2, 3, 4)
