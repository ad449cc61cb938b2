"""Holes found by attacking the room's multi-table tournament (issue 19, brk-m), each closed
(mfix); every test here failed before. The director is driven without processes
(tests/room/test_room_tournament_director.py's fake tables); the table's link with a fake
orchestrator."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from controller.tournament.settings import load_settings
from controller.tournament_link import RoomTournamentSeat
from room.tournament import RoomTournament
from room.tournament_sim import ROOM_TOML
from tests.room.test_room_tournament_director import FakeTable, Journal, exchange, room


def four_tables(entries: int = 32) -> tuple[RoomTournament, dict[str, FakeTable], list[dict[str, Any]], Journal]:
    sent: list[dict[str, Any]] = []
    journal = Journal()
    tables = {t: FakeTable(t) for t in ("t1", "t2", "t3", "t4")}
    d = RoomTournament(load_settings(ROOM_TOML), ROOM_TOML, list(tables), journal,
                       lambda t, p: sent.append(json.loads(p)), lambda: 0.0)
    d.start(entries, 4)
    return d, tables, sent, journal


def bust(table: FakeTable, n: int) -> None:
    """Play the table's hand: the last ``n`` seats lose everything to the first."""
    seats = sorted(table.seats)[-n:]
    table.play({table.seats[s][0]: table.seats[s][1] for s in seats})


def balance_move_ordered() -> tuple[RoomTournament, dict[str, FakeTable], list[dict[str, Any]], Journal,
                                    dict[str, Any]]:
    """Two tables 6 / 4: t1 waits and is ordered to move its next big blind to t2 (TDA 11A);
    return the room, tables, orders, journal and that order (not carried out yet)."""
    d, tables, sent, journal = room()
    exchange(d, tables, sent, "t1", "t2")
    bust(tables["t2"], 2)
    exchange(d, tables, sent, "t2")
    tables["t1"].play()
    d.report("t1", tables["t1"].report())
    d.step()
    return d, tables, sent, journal, next(o for o in sent if o["table"] == "t1" and o["out"])


def test_a_report_cannot_bust_a_player_seated_at_another_table() -> None:
    d, tables, sent, journal = room()
    exchange(d, tables, sent, "t1", "t2")
    victim, stack = tables["t2"].seats[sorted(tables["t2"].seats)[0]]
    forged = json.loads(tables["t1"].report())
    forged["busts"] = {"99": {victim: stack}}  # t1's login, t2's player
    d.report("t1", json.dumps(forged).encode())
    d.step()
    assert victim in d.standings.alive, f"{victim}, seated at t2 with {stack} chips, was busted by t1's report"
    assert not [p for k, p in journal.rows if k == "bust" and victim in p["busted"]]


def test_a_moved_out_report_cannot_send_more_chips_than_the_player_had() -> None:
    d, tables, sent, _, out = balance_move_ordered()
    m = out["out"][0]
    player, stack = tables["t1"].seats[m["seat"]]
    forged = json.loads(tables["t1"].report())  # t1's login: the move carried out with 100 times the chips
    forged.update(applied=out["id"], moved_out={str(m["move"]): stack * 100})
    d.report("t1", json.dumps(forged).encode())
    d.report("t2", tables["t2"].report())
    d.step()
    arriving = [x for o in sent if o["table"] == "t2" for x in o["in"] if x["move"] == m["move"]]
    assert arriving and arriving[0]["chips"] == stack, (
        f"t2 ordered to buy {player} in for {arriving[0]['chips']}, he had {stack}; problems: {d.problems}")


def test_two_tables_to_break_do_not_each_keep_dealing_while_the_other_plays() -> None:
    d, tables, sent, _ = four_tables()
    exchange(d, tables, sent, "t1", "t2", "t3", "t4")
    assert all(len(t.seats) == 8 and t.go for t in tables.values())
    for name, n in (("t1", 2), ("t2", 2), ("t3", 6)):  # 6 / 6 / 2 / 8
        bust(tables[name], n)
        exchange(d, tables, sent, name)
    t4 = tables["t4"]
    bust(t4, 6)  # 6 / 6 / 2 / 2 with t1..t3 in their next hand: t4 and t3 fit at t1 and t2 (16 seats)
    n = len(sent)
    exchange(d, tables, sent, "t4")
    to_t4 = [o for o in sent[n:] if o["table"] == "t4"]
    assert to_t4, "the room said nothing to t4"
    assert not to_t4[0]["go"], f"t4 (to break first, TDA 10) dealt again with {len(t4.seats)} players: {to_t4[0]}"


class _Journal:
    def __init__(self) -> None:
        self.rows: list[tuple[str, dict[str, Any]]] = []

    def append(self, kind: str, payload: dict[str, Any], at: float) -> None:
        self.rows.append((kind, payload))


def _link() -> RoomTournamentSeat:
    link = RoomTournamentSeat("t1", host="127.0.0.1", port=1)  # never connected
    link.orch = SimpleNamespace(state=SimpleNamespace(seats=[None] * 8), journal=_Journal(), clock=lambda: 0.0)
    return link


def _order(oid: int, **kw: Any) -> bytes:
    base: dict[str, Any] = {"schema": 1, "table": "t1", "id": oid, "out": [], "in": [], "go": None, "end": False}
    base.update(kw)
    return json.dumps(base).encode()


def test_an_order_id_far_ahead_does_not_make_the_table_ignore_the_rooms_orders() -> None:
    link = _link()
    link._take(_order(10**12))
    link._pending = None  # carried out
    link._take(_order(5, go={"hand": 1, "stakes": {"small_blind": 25, "big_blind": 50}}))
    assert link.go is not None, "the room's order 5 was dropped: the table waits for ever"


class _Seat(SimpleNamespace):
    pass


class _Orch:
    """The orchestrator as the link's ``_carry_out`` uses it: seats, sit down, buy in, stand up."""

    def __init__(self, seats: dict[int, tuple[str, int]]) -> None:
        self.seats = {n: _Seat(seat=n, player=p, stack=c) for n, (p, c) in seats.items()}
        self.state = SimpleNamespace(seats=[None] * 8, seat=self.seats.get, occupied=lambda: list(self.seats.values()))
        self.journal, self.clock, self.handled = _Journal(), lambda: 0.0, []

    def handle(self, e: Any) -> None:
        e = getattr(e, "event", e)  # the link's own events come wrapped (TournamentOwn)
        self.handled.append(e)
        name = type(e).__name__
        if name == "PlayerSatDown":
            self.seats[e.seat] = _Seat(seat=e.seat, player=e.player, stack=0)
        elif name == "BoughtIn":
            self.seats[e.seat].stack += e.amount
        elif name == "StoodUp":
            del self.seats[e.seat]


@pytest.mark.parametrize("seat, player", [(3, "p9"), (5, "p1")])
def test_a_move_in_that_cannot_sit_is_not_reported_as_arrived(seat: int, player: str) -> None:
    link = RoomTournamentSeat("t1", host="127.0.0.1", port=1)  # never connected
    link.orch = orch = _Orch({3: ("p1", 4000), 4: ("p2", 6000)})
    order = json.loads(_order(7, **{"in": [{"move": 40, "seat": seat, "player": player, "name": "X", "chips": 5000}]}))
    link._carry_out(order)
    chips = sum(s.stack for s in orch.seats.values())
    assert 40 not in link.moved_in or chips == 15000, (
        f"move 40 reported arrived, the table holds {chips} chips (10000 + the 5000 that moved in)")
    assert link.refused_in == {40: seat} and 40 not in link.moved_in  # the room reseats him
    assert [e.player for e in orch.handled] == [], "somebody sat down"


def test_a_move_in_replayed_after_a_kill_between_sitting_down_and_buying_in_buys_in() -> None:
    link = RoomTournamentSeat("t1", host="127.0.0.1", port=1)  # never connected
    # the journal after the kill: move-in 40 journalled, PlayerSatDown applied, BoughtIn never happened
    link.orch = orch = _Orch({3: ("p1", 4000), 5: ("p9", 0)})
    link.moved_in.add(40)
    order = json.loads(_order(7, **{"in": [{"move": 40, "seat": 5, "player": "p9", "name": "X", "chips": 5000}]}))
    assert link._carry_out(order)
    assert orch.seats[5].stack == 5000, "p9 sits with no chips: the 5000 that moved in are gone"


@pytest.mark.parametrize("how", ["stale", "forged"])
def test_a_report_seating_a_player_of_another_table_does_not_stop_the_room(how: str) -> None:
    d, tables, sent, _ = room()
    exchange(d, tables, sent, "t1", "t2")
    stale = tables["t1"].report()
    bust(tables["t2"], 2)  # 6 / 4: a balance move t1 -> t2 (TDA 11A), carried out
    exchange(d, tables, sent, "t2")
    tables["t1"].play()
    exchange(d, tables, sent, "t1")
    assert [m["state"] for m in d.moves.values() if m["reason"] == "balance"] == ["in"]
    if how == "stale":  # t1's report from before the move arrives again
        d.report("t1", stale)
    else:  # t1's login lists a player of t2 in an empty seat of t1
        forged = json.loads(tables["t1"].report())
        empty = next(str(s) for s in range(1, 9) if s not in tables["t1"].seats)
        forged["seats"][empty] = tables["t2"].seats[sorted(tables["t2"].seats)[0]]
        d.report("t1", json.dumps(forged).encode())
    d.report("t2", tables["t2"].report())
    d.step()  # raised BalancingError("a player seated at two tables")


def test_a_room_restarted_mid_level_keeps_the_levels_time_left() -> None:
    sent: list[dict[str, Any]] = []
    journal = Journal()
    tables = {t: FakeTable(t) for t in ("t1", "t2")}
    now = [0.0]
    d = RoomTournament(load_settings(ROOM_TOML), ROOM_TOML, list(tables), journal,
                       lambda t, p: sent.append(json.loads(p)), lambda: now[0])
    d.start(12, 4)
    exchange(d, tables, sent, "t1", "t2")
    now[0] = 45.0
    d.step()
    assert d.clock.status(45.0).seconds_left == 15
    again = RoomTournament(load_settings(ROOM_TOML), ROOM_TOML, list(tables), journal, lambda t, p: None,
                           lambda: 1000.0)  # a new process: its own monotonic clock
    assert again.restore()
    assert again.clock.status(1000.0).seconds_left <= 15, again.clock.status(1000.0)


def test_a_move_in_the_table_refused_is_reseated_with_its_chips() -> None:
    d, tables, sent, journal, out = balance_move_ordered()
    tables["t1"].carry_out(out)
    d.report("t1", tables["t1"].report())
    d.step()  # t2: he arrives
    order = [o for o in sent if o["table"] == "t2" and o["in"]][-1]  # not the draw
    m = order["in"][0]
    refused = json.loads(tables["t2"].report())  # t2's link: the seat was taken, nobody sat
    refused.update(applied=order["id"], refused_in={str(m["move"]): m["seat"]})
    d.report("t2", json.dumps(refused).encode())
    n = len(sent)
    exchange(d, tables, sent)
    again = [x for o in sent[n:] if o["table"] == "t2" for x in o["in"] if x["move"] == m["move"]]
    assert again and again[0]["seat"] != m["seat"] and again[0]["chips"] == m["chips"], sent[n:]
    assert ("reseat", {"move": m["move"], "to_seat": again[0]["seat"]}) in journal.rows
    assert d.moves[m["move"]]["state"] == "in" and tables["t2"].seats[again[0]["seat"]] == [m["player"], m["chips"]]
    assert not d.problems and d.checks


def test_a_refused_report_is_flagged_and_the_room_keeps_the_last_good_one() -> None:
    d, tables, sent, _ = room()
    exchange(d, tables, sent, "t1", "t2")
    good = d.reports["t1"]
    forged = json.loads(tables["t1"].report())
    forged["seats"]["8"] = tables["t2"].seats[sorted(tables["t2"].seats)[0]]
    d.report("t1", json.dumps(forged).encode())
    assert d.reports["t1"] is good and d.refused == 1 and "report refused" in d.problems[0]


def test_a_move_in_is_reported_arrived_only_once_its_order_is_carried_out() -> None:
    link = RoomTournamentSeat("t1", host="127.0.0.1", port=1)  # never connected
    link.orch = orch = _Orch({3: ("p1", 4000)})
    orch.state.__dict__.update(hand=None, hands=0, rotation=None, ledger=SimpleNamespace(total_in=0, total_out=0))
    order = json.loads(_order(7, **{"in": [{"move": 40, "seat": 5, "player": "p9", "name": "X", "chips": 5000}]}))
    link.moved_in.add(40)  # journalled (a kill before he sat down): the order is still pending
    link._pending = order
    assert link.report()["moved_in"] == []
    assert link._carry_out(order) and orch.seats[5].stack == 5000
    link._pending = None
    assert link.report()["moved_in"] == [40]
