"""A busted seat's place at the room's tables (issue 19, "Multi-table, still missing"): the
room sends each table, in its orders' ``view``, the places of the players who busted there by
the seat they left (``out``), once it has placed them; the table link shows them in the
public state's ``tournament_view`` while the seat stays empty, as a single table's view does
("OUT — 12th" on the display). No processes: the director against the test's tables."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.tournament.balancing import Move
from controller.tournament_link import OrderError, decode_order
from controller.tournament_link_view import LinkView
from display.tournament import out_text
from tests.room.test_room_tournament_director import STACK, exchange, restored, room


def last_view(sent: list[dict[str, Any]], table: str) -> dict[str, Any]:
    return next(o for o in reversed(sent) if o["table"] == table)["view"]


def places(d: Any) -> dict[str, tuple[int, int]]:
    return {f.player: (f.place, f.tied_to) for f in d.standings.finishes()}


def set_stack(table: Any, seat: int, chips: int) -> None:
    """Give ``seat`` ``chips`` at the start of the next hand, the difference to the table's
    lowest seat (the winner of :meth:`FakeTable.play`): chips conserved."""
    win = sorted(table.seats)[0]
    assert seat != win
    table.seats[win][1] += table.seats[seat][1] - chips
    table.seats[seat][1] = chips


def test_busts_of_one_hand_at_one_table_are_sent_to_it_with_their_places_by_starting_stacks() -> None:
    """TDA simultaneous eliminations: two players out in one hand at t1, the one who started
    it with fewer chips takes the worse place; t1's next order says both places by seat."""
    d, tables, sent, _ = room()
    exchange(d, tables, sent, "t1", "t2")
    t1, t2 = tables["t1"], tables["t2"]
    (sa, (a, _)), (sb, (b, _)) = sorted(t1.seats.items())[1:3]
    set_stack(t1, sa, 700)
    assert last_view(sent, "t1")["out"] == {} and last_view(sent, "t2")["out"] == {}
    t1.play({a: 700, b: STACK})
    t2.play()
    n = len(sent)
    exchange(d, tables, sent, "t1", "t2")
    assert places(d)[a] == (12, 12) and places(d)[b] == (11, 11)
    assert [o for o in sent[n:] if o["table"] == "t1"], "t1 heard nothing after its busts"
    out = last_view(sent, "t1")["out"]
    want = {str(sa): {"name": d.names[a], "place": 12, "tied_to": 12, "prize": 0},
            str(sb): {"name": d.names[b], "place": 11, "tied_to": 11, "prize": 0}}
    # a player moved to t1 to balance it (4 against 6) may take one of the seats: it says no place
    assert out == {s: o for s, o in want.items() if int(s) not in t1.seats} and out
    assert last_view(sent, "t2")["out"] == {}  # nobody busted there
    assert not d.problems


def test_tda_hand_for_hand_busts_at_two_tables_are_placed_as_one_hand_and_each_table_hears_its_own() -> None:
    """On the bubble (hand-for-hand) t1's bust is not placed until t2 finished the same hand:
    t1 hears no place before; then both are placed by their starting stacks as one hand
    (room/tournament.py ``_busts``, kept) and each table is sent its own player's place."""
    d, tables, sent, _ = room()
    exchange(d, tables, sent, "t1", "t2")
    t1, t2 = tables["t1"], tables["t2"]
    (s1, (p1, _)), (s2, (p2, _)) = sorted(t1.seats.items())[1], sorted(t2.seats.items())[1]
    t1.play({p1: STACK})
    t2.play({p2: STACK})
    exchange(d, tables, sent, "t1", "t2")
    assert d.hand_for_hand() and len(d.standings.alive) == 10
    # the first two busts, as the room placed them, each at its own table
    assert last_view(sent, "t1")["out"][str(s1)]["place"] == places(d)[p1][0]
    assert last_view(sent, "t2")["out"][str(s2)]["place"] == places(d)[p2][0]
    assert str(s1) not in last_view(sent, "t2")["out"] and str(s2) not in last_view(sent, "t1")["out"]
    (sa, (a, _)), (sb, (b, _)) = sorted(t1.seats.items())[1], sorted(t2.seats.items())[1]
    set_stack(t1, sa, 700)
    set_stack(t2, sb, 1500)
    t1.play({a: 700})
    n = len(sent)
    exchange(d, tables, sent, "t1")
    assert all(str(sa) not in o["view"]["out"] for o in sent[n:]), "placed before t2 finished the hand"
    t2.play({b: 1500})
    exchange(d, tables, sent, "t2")
    assert places(d)[a] == (10, 10) and places(d)[b] == (9, 9)
    # eight left for eight seats: t2 breaks, its players redrawn at t1 (the final table) with
    # t1's. t2's empty seats say their places while it breaks; every seat of t1 is taken
    out2 = last_view(sent, "t2")["out"]
    assert out2[str(sb)] == {"name": d.names[b], "place": 9, "tied_to": 9, "prize": out2[str(sb)]["prize"]}
    assert out2[str(sb)]["prize"] > 0  # nine places paid: 9th is in the money
    assert out2[str(s2)]["place"] == places(d)[p2][0]
    assert last_view(sent, "t1")["out"] == {} and len(d.out_seats("t1")) == 0
    assert any("redraw" in m["reason"] and m["to"] == "t1" and m["to_seat"] == sa for m in d.moves.values())
    assert not d.problems


def bust_last_of_t1(d: Any, tables: dict[str, Any], sent: list[dict[str, Any]]) -> tuple[int, str]:
    """The draw's orders carried out, the player at t1's last seat busts in a hand there while
    t2 plays one, and the room hears both; return that seat and player."""
    exchange(d, tables, sent, "t1", "t2")
    seat, (player, stack) = sorted(tables["t1"].seats.items())[-1]
    tables["t1"].play({player: stack})
    tables["t2"].play()
    exchange(d, tables, sent, "t1", "t2")
    return seat, player


def test_a_busted_seat_taken_by_a_moved_player_no_longer_says_a_place() -> None:
    d, tables, sent, journal = room()
    seat, _ = bust_last_of_t1(d, tables, sent)
    t2 = tables["t2"]
    assert str(seat) in d.out_seats("t1")
    d2, _ = restored(journal)  # a room started again on its store says the same places
    assert d2.out_seats("t1") == d.out_seats("t1")
    mover_seat, (mover, _) = sorted(t2.seats.items())[-1]
    d._round([], [Move(mover, "t2", mover_seat, "t1", seat, "balance")])  # on its way to that seat
    assert str(seat) not in d.out_seats("t1")


def public(taken: dict[int, int], empty: list[int]) -> dict[str, Any]:
    return {"seats": [{"seat": n, "stack": s, "status": "active"} for n, s in taken.items()]
            + [{"seat": n, "stack": 0, "status": "empty"} for n in empty]}


def test_the_table_link_shows_the_rooms_places_at_empty_seats_only() -> None:
    d, tables, sent, _ = room()
    seat, player = bust_last_of_t1(d, tables, sent)
    t1 = tables["t1"]
    order = next(o for o in reversed(sent) if o["table"] == "t1")
    link = LinkView()
    link.take(decode_order(json.dumps(order).encode(), "t1", 8), 100.0)
    tv = link.json(public({s: v[1] for s, v in t1.seats.items()}, [seat]), 101.0)
    assert tv is not None and tv["out"] == {str(seat): {"name": d.names[player], "place": 12, "tied_to": 12,
                                                        "prize": 0}}
    assert out_text(tv["out"][str(seat)]) == "OUT — 12th"
    # someone sat there since the order came: the seat is his, no place is said
    tv = link.json(public({**{s: v[1] for s, v in t1.seats.items()}, seat: 2000}, []), 102.0)
    assert tv is not None and tv["out"] == {}


@pytest.mark.parametrize("out", [
    [], {"0": {"name": "A", "place": 3}}, {"x": {"name": "A", "place": 3}}, {"3": {"name": "A", "place": 0}},
    {"3": {"name": "", "place": 3}}, {"3": {"name": "A", "place": 3, "tied_to": 2}},
    {"3": {"name": "A", "place": 3, "prize": -1}}, {"3": "12th"},
])
def test_a_view_with_a_malformed_out_refuses_the_order(out: Any) -> None:
    d, tables, sent, _ = room()
    exchange(d, tables, sent, "t1", "t2")
    order = dict(sent[-1], view=dict(sent[-1]["view"], out=out))
    with pytest.raises(OrderError):
        decode_order(json.dumps(order).encode(), order["table"], 8)
