"""The room's multi-table tournament on the tables' screens (issue 19): the room's orders
carry the view (room/tournament_view.py) and where moved players go; the table link turns
them into the public state's ``tournament_view`` with move notices
(controller/tournament_link_view.py). No processes: the director against the test's tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.tournament.clock import TournamentClock
from controller.tournament_link import OrderError, decode_order
from controller.tournament_link_view import NOTICE_SECONDS, LinkView
from display.tournament import move_texts, moves_banner
from tests.room.test_room_tournament import run_room
from tests.room.test_room_tournament_director import exchange, room


def public(stacks: dict[int, int]) -> dict[str, Any]:
    return {"seats": [{"seat": n, "stack": s, "status": "active"} for n, s in stacks.items()]
            + [{"seat": 9, "stack": 0, "status": "empty"}]}


def test_an_order_carries_the_view_and_the_link_counts_its_time_down() -> None:
    d, tables, sent, _ = room()
    d.table_names, d.clock_speed = {"t1": "Aspen", "t2": "Birch"}, 30
    exchange(d, tables, sent, "t1", "t2")
    order = next(o for o in sent if o["go"])
    v = order["view"]
    assert v["level"]["number"] == 1 and v["level"]["big_blind"] == order["go"]["stakes"]["big_blind"]
    assert (v["players_left"], v["entries"], v["places_paid"]) == (12, 12, 9)
    assert v["average_stack"] * 12 == d.standings.chips_in_play() and v["prize_pool"] == d.standings.prize_pool()
    assert v["running"] and not v["on_break"] and not v["hand_for_hand"] and v["clock_speed"] == 30
    assert v["next_level"]["number"] == 2 and v["seconds_left"] == d.clock.status(0.0).seconds_left

    got = decode_order(json.dumps(order).encode(), order["table"], 8)
    link = LinkView()
    assert link.json(public({1: 100}), 1000.0) is None  # nothing before the room's first view
    link.take(got, 1000.0)
    bb = v["level"]["big_blind"]
    tv = link.json(public({1: 25 * bb, 4: bb * 3 // 2}), 1001.0)  # one real second at 30x: 30 s of the level
    assert tv is not None
    assert tv["seconds_left"] == v["seconds_left"] - 30 and tv["at"] == 1001.0 and tv["running"]
    assert tv["seats_bb"] == {"1": 250, "4": 15} and tv["moves"] == []
    assert {k: tv[k] for k in ("players_left", "entries", "prize_pool", "places_paid", "hand_for_hand")} == {
        "players_left": 12, "entries": 12, "prize_pool": v["prize_pool"], "places_paid": 9, "hand_for_hand": False}
    paused = LinkView()
    paused.take(dict(got, view=dict(got["view"], running=False)), 1000.0)
    assert paused.json(public({}), 2000.0)["seconds_left"] == v["seconds_left"]  # type: ignore[index]


def test_a_move_is_said_at_both_tables_until_its_notice_ends() -> None:
    d, tables, sent, _ = room()
    d.table_names = {"t1": "Aspen", "t2": "Birch"}
    exchange(d, tables, sent, "t1", "t2")
    t1, t2 = tables["t1"], tables["t2"]
    gone = {p: s for p, s in list(t1.seats.values())[:2]}  # two busts at t1: 4 against 6, one moves
    t1.play(gone)
    t2.play()
    n = len(sent)
    exchange(d, tables, sent, "t1", "t2")
    out = next(o for o in sent[n:] if o["table"] == "t2" and o["out"])
    into = next(o for o in sent[n:] if o["table"] == "t1" and o["in"])
    m = out["out"][0]
    assert (m["to"], m["to_name"], m["reason"]) == ("t1", "Aspen", "balance")
    assert into["in"][0]["from"] == "t2" and into["in"][0]["from_name"] == "Birch"

    src, dst = LinkView(), LinkView()
    src.take(decode_order(json.dumps(out).encode(), "t2", 8), 50.0)
    dst.take(decode_order(json.dumps(into).encode(), "t1", 8), 50.0)
    at_src, at_dst = src.json(public({}), 51.0), dst.json(public({}), 51.0)
    assert at_src is not None and at_dst is not None
    name, seat = m["name"], into["in"][0]["seat"]
    assert move_texts(at_src) == [f"{name} moves to Aspen (t1) seat {seat}"]
    assert move_texts(at_dst) == [f"{name} from Birch (t2)"]
    assert moves_banner({"tournament_view": at_src}) == ("PLAYERS MOVE", f"{name} moves to Aspen (t1) seat {seat}")
    assert src.json(public({}), 50.0 + NOTICE_SECONDS)["moves"] == []  # type: ignore[index]


def test_a_table_break_names_the_tables_its_players_go_to() -> None:
    link = LinkView()
    view = {"level": {"number": 3, "small_blind": 100, "big_blind": 200}, "seconds_left": 10}
    link.take({"view": None, "out": [
        {"seat": 1, "player": "p1", "name": "Player 1", "to": "t1", "to_name": "Aspen", "to_seat": 2,
         "reason": "break"},
        {"seat": 2, "player": "p2", "name": "Player 2", "to": "t3", "to_name": "Cedar", "to_seat": 5,
         "reason": "break+redraw"}], "in": []}, 0.0)
    link.view = view | {k: None for k in ("next_level", "clock_speed")} | {
        k: 0 for k in ("players_left", "entries", "average_stack", "prize_pool", "places_paid")} | {
        "running": True, "on_break": False, "hand_for_hand": False, "finished": False}
    tv = link.json(public({}), 1.0)
    assert tv is not None
    assert move_texts(tv) == ["Table breaks: players move to Aspen (t1), Cedar (t3)",
                              "Player 1 moves to Aspen (t1) seat 2", "Player 2 moves to Cedar (t3) seat 5"]
    assert moves_banner({"tournament_view": tv})[0] == "TABLE BREAKS"


@pytest.mark.parametrize("view, why", [
    ("x", "'view' must be an object"),
    ({"level": {"number": 1, "big_blind": 0}}, "big_blind"),
    ({"level": {"number": 1, "big_blind": 2}, "players_left": -1}, "players_left"),
    ({"level": {"number": 1, "big_blind": 2}, "seconds_left": "soon"}, "seconds_left"),
])
def test_a_malformed_view_refuses_the_order(view: Any, why: str) -> None:
    raw = json.dumps({"schema": 1, "table": "t1", "id": 1, "out": [], "in": [], "go": None, "view": view}).encode()
    with pytest.raises(OrderError, match=why):
        decode_order(raw, "t1", 8)


def test_two_tables_through_the_room_show_the_tournament_and_its_moves(tmp_path: Path) -> None:
    """12 entries on two tables (room/tournament_sim.py): both tables published the
    tournament view, and every move between them was said at both (the table left and the
    table reached name each other), and the table that broke said so."""
    summary = run_room(tmp_path, 2, 12, 3, timeout=180)
    assert summary["ok"], summary["_stderr"][-3000:]
    screens = summary["screens"]
    assert set(screens) == {"t1", "t2"} and all(s["views"] > 0 for s in screens.values())
    outs = {(p, t, to) for t, s in screens.items() for kind, p, to in s["moves"] if kind == "out"}
    ins = {(p, frm, t) for t, s in screens.items() for kind, p, frm in s["moves"] if kind == "in"}
    assert outs and outs == ins, (outs, ins)
    assert any(kind == "break" for s in screens.values() for kind, _, _ in s["moves"])  # t2 broke (TDA 10)


def test_tables_waiting_on_a_break_hear_it_once() -> None:
    """A break gives no ``go``: the room sends each waiting table the view alone (its screens say
    BREAK), once; the break's end brings the ``go`` with the next level's view."""
    d, tables, sent, _ = room()
    exchange(d, tables, sent, "t1", "t2")
    probe = TournamentClock(d.settings)  # the room's clock started at 0: where its first break lies
    probe.start(0.0)
    start = next(x for x in range(0, 36_000, 5) if probe.status(float(x)).on_break)
    d.now = lambda: float(start + 1)
    for t in tables.values():
        t.play()
    n = len(sent)
    exchange(d, tables, sent, "t1", "t2")
    on_break = sent[n:]
    assert sorted(o["table"] for o in on_break) == ["t1", "t2"]
    assert all(o["go"] is None and not o["out"] and not o["in"] and o["view"]["on_break"] for o in on_break)
    n = len(sent)
    exchange(d, tables, sent, "t1", "t2")
    assert sent[n:] == []  # nothing new to show: nothing sent
    end = next(x for x in range(start, 36_000, 5) if not probe.status(float(x)).on_break)
    d.now = lambda: float(end + 1)
    exchange(d, tables, sent, "t1", "t2")
    assert all(o["go"] and not o["view"]["on_break"] for o in sent[n:]) and len(sent[n:]) == 2


def test_floor_deal_at_the_rooms_final_table_uses_the_rooms_prizes() -> None:
    """Issue 19 (deal calculator): the room's view carries the prizes of the places the players
    left will take and the payouts' unit, so ``livetable floor deal`` works at a room table once
    every player left sits there; refused while players are left at other tables."""
    from controller.deal_cli import DealError
    from controller.floor_cli import table_deal
    from controller.tournament.results import payout_amounts

    d, tables, sent, _ = room()
    exchange(d, tables, sent, "t1", "t2")
    order = next(o for o in sent if o["go"])
    v = order["view"]
    amounts = payout_amounts(d.settings.payouts, d.standings.prize_pool(), len(d.standings.entries))
    assert v["prizes_left"] == list(amounts[:12]) and v["unit"] == d.settings.payouts.unit
    got = decode_order(json.dumps(order).encode(), order["table"], 8)
    link = LinkView()
    link.take(got, 1000.0)
    six = {n: 2000 + 100 * n for n in range(1, 7)}
    tv = link.json(public(six), 1000.0)
    assert tv is not None and tv["deal"]["stacks"] == {str(n): c for n, c in six.items()}
    with pytest.raises(DealError, match="12 players are left, 6 of them at this table"):
        table_deal({"table": "t1", "tournament": tv, "street": None}, "chip-chop")
    # the final three, all at this table: the deal shares the three prizes left
    final = LinkView()
    final.take(dict(got, view=dict(got["view"], players_left=3, prizes_left=list(amounts[:3]))), 1000.0)
    tv = final.json(public({2: 9000, 5: 20000, 7: 7000}), 1000.0)
    assert tv is not None
    deal = table_deal({"table": "t1", "tournament": tv, "street": None}, "chip-chop")
    assert deal["total"] == sum(amounts[:3]) and len(deal["prizes"]) == 3 and deal["notes"] == []


def test_a_view_with_bad_prizes_is_refused() -> None:
    d, tables, sent, _ = room()
    exchange(d, tables, sent, "t1", "t2")
    order = next(o for o in sent if o["go"])
    for bad in ({"prizes_left": "lots"}, {"prizes_left": [-5]}, {"prizes_left": [1.5]}, {"unit": "x"}):
        with pytest.raises(OrderError):
            decode_order(json.dumps(dict(order, view=dict(order["view"], **bad))).encode(), order["table"], 8)
