"""Rebuys and add-ons through the room (issue 19): :meth:`room.tournament.RoomTournament.purchase`
(the director's command and a table's request) against tables played by this test (the harness
of test_room_tournament_register.py), the rules as at a single table, the books (prize pool,
chips in play, chips in transit until the table reports them brought), the journal replayed
after a restart, the floor console's and ``livetable room director``'s ``rebuy`` / ``addon``,
and a real table's side (:class:`controller.tournament_link.RoomTournamentSeat`)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

import pytest

from controller.tournament.errors import TournamentError
from room import director_cli
from room.console import purchase_command
from room.store import open_store
from room.tournament import StoreJournal
from room.tournament_sim import ROOM_TOML
from drivers.mqtt.broker import free_port
from tests.room.test_room_serve_tournament import (  # noqa: F401 - room: that module's fixture
    ENV, REPO, check_store_holds_every_hand, events, room, serve, start_tables)
from tests.room.test_room_tournament_console import call
from tests.room.test_room_tournament_director import FakeTable
from tests.room.test_room_tournament_register import TABLES, Room, console  # noqa: F401 - console: the fixture

STACK = 2000
#: ROOM_TOML with rebuys (2 a player, until level 2, stack at most 2000) and an add-on at the
#: break after level 2 (the clock: level 1 0..60 s, level 2 60..120 s, the break 120..180 s)
BUY_TOML = ROOM_TOML.replace(
    "entry = { price = 100, fee = 10 }",
    "entry = { price = 100, fee = 10 }\n"
    "rebuy = { price = 100, fee = 10, chips = 2000, max = 2, until_level = 2, max_stack = 2000 }\n"
    "addon = { price = 150, fee = 10, chips = 3000, max = 1, at_break = 2 }")


class BuyTable(FakeTable):
    """A :class:`FakeTable` that brings the room's purchases (an order's ``buy``) to their seats,
    refuses those whose player is not there, and sends its purchase requests in its reports."""

    def __init__(self, table: str) -> None:
        super().__init__(table)
        self.bought: list[int] = []
        self.refused_buy: dict[int, str] = {}
        self.requests: dict[int, dict[str, Any]] = {}
        self.answers: dict[int, dict[str, Any]] = {}

    def carry_out(self, order: dict[str, Any]) -> None:
        if order["id"] <= self.applied:
            return
        super().carry_out(order)
        for b in order.get("buy", []):
            seat = self.seats.get(b["seat"])
            if seat is None or seat[0] != b["player"] or b["purchase"] in self.bought:
                self.refused_buy[b["purchase"]] = "not here"
                continue
            seat[1] += b["chips"]
            self.total_in += b["chips"]
            self.bought.append(b["purchase"])
        for rid, a in (order.get("answers") or {}).items():
            self.requests.pop(int(rid), None)
            self.answers[int(rid)] = a

    def report(self) -> bytes:
        rep = json.loads(super().report())
        rep.update(bought=self.bought, refused_buy={str(k): v for k, v in self.refused_buy.items()},
                   requests={str(k): v for k, v in self.requests.items()})
        return json.dumps(rep).encode()

    def ask(self, rid: int, kind: str, seat: int, by: str = "floor:Dee") -> None:
        self.requests[rid] = {"kind": kind, "seat": seat, "player": self.seats[seat][0], "by": by, "reason": None}


def buy_room(entries: int = 21, journal: Any = None) -> Room:
    r = Room(0, journal=journal, toml=BUY_TOML)
    r.tables = {t: BuyTable(t) for t in TABLES}
    if entries:
        r.d.start(entries, 7)
        r.exchange(*TABLES)
    return r


def at(r: Room, player: str) -> tuple[str, int, int]:
    """``(table, seat, stack)`` of ``player`` at the tables of the test."""
    return next((t, s, v[1]) for t, ft in r.tables.items() for s, v in ft.seats.items() if v[0] == player)


def chips_on_tables(r: Room) -> int:
    return sum(v[1] for ft in r.tables.values() for v in ft.seats.values())


def test_a_rebuy_is_booked_at_once_its_chips_in_transit_until_the_table_brings_them_between_hands() -> None:
    r = buy_room()
    table, seat, _ = at(r, "p5")
    checks, rows = r.d.checks, len(r.journal.rows)
    said = r.d.purchase("rebuy", "Player 5", by="Anna", reason="cash at the desk")  # by name
    assert said == (f"Player 5's rebuy at {table} seat {seat}: 2,000 chips, 100 to the prize pool; "
                    "the chips are brought between hands (Anna)")
    st = r.d.standings
    assert (st.rebuys, st.prize_pool(), st.chips_in_play()) == (1, 2200, 21 * STACK + 2000)
    assert [k for k, _ in r.journal.rows[rows:]] == ["purchase"]
    r.d.check()  # the chips are in transit: the books balance before the table has them
    assert r.d.checks == checks + 1 and not r.d.problems, r.d.problems
    assert at(r, "p5")[2] == STACK  # the table plays its hand first: nothing during a hand
    n = len(r.sent)
    r.hand(*TABLES)
    buys = [(o["table"], b) for o in r.sent[n:] for b in o.get("buy", [])]
    assert buys == [(table, {"purchase": 1, "seat": seat, "player": "p5", "kind": "rebuy", "chips": 2000})]
    assert at(r, "p5")[2] == STACK + 2000 and r.d.purchases[1]["state"] == "in"
    assert chips_on_tables(r) == r.d.standings.chips_in_play() and not r.d.problems, r.d.problems
    n = len(r.sent)
    r.hand(*TABLES)  # brought once
    assert not [b for o in r.sent[n:] for b in o.get("buy", [])]
    assert r.d.summary()["rebuys"] == 1
    # the tablets' buttons: the order's view offers a rebuy to every seat but p5's (4000 > max_stack)
    view = next(o for o in reversed(r.sent) if o["table"] == table)["view"]
    assert view["purchase_chips"] == {"rebuy": 2000, "addon": 3000}
    assert str(seat) not in view["offers"] and len(view["offers"]) == len(r.tables[table].seats) - 1
    assert set(map(tuple, view["offers"].values())) == {("rebuy",)}


def test_the_single_tables_rules_refuse_a_rebuy_and_nothing_is_journalled() -> None:
    r = buy_room()
    rows = len(r.journal.rows)
    r.d.purchase("rebuy", "p1", by="Anna")
    r.hand(*TABLES)
    # p1 has 4000 now: above max_stack (2000)
    with pytest.raises(TournamentError, match="rebuy: stack 4000 is above the 2000 allowed"):
        r.d.purchase("rebuy", "p1", by="Anna")
    # p2: the chips of his first rebuy on their way count for max_stack
    r.d.purchase("rebuy", "p2", by="Anna")
    with pytest.raises(TournamentError, match="rebuy: stack 4000 is above"):
        r.d.purchase("rebuy", "p2", by="Anna")
    assert [k for k, _ in r.journal.rows[rows:]].count("purchase") == 2
    r.time[0] = 130.0  # the break after level 2: past until_level
    with pytest.raises(TournamentError, match="rebuy: allowed until level 2, now level 2|rebuy: allowed until"):
        r.d.purchase("rebuy", "p3", by="Anna")
    with pytest.raises(TournamentError, match="no player 'Nobody'"):
        r.d.purchase("rebuy", "Nobody", by="Anna")
    with pytest.raises(TournamentError, match="is no purchase"):
        r.d.purchase("refund", "p3", by="Anna")
    assert r.d.standings.rebuys == 2


def lose(r: Room, player: str, chips: int) -> None:
    """``player`` loses ``chips`` to another player of his table (chips conserved)."""
    table, seat, _ = at(r, player)
    seats = r.tables[table].seats
    other = next(s for s in sorted(seats) if s != seat)
    seats[seat][1] -= chips
    seats[other][1] += chips
    r.d.report(table, r.tables[table].report())  # the room knows stacks by the tables' reports


def test_a_purchase_is_decided_on_a_report_between_hands_only() -> None:
    """Breaker 3 M2: p5 has 2500 (above max_stack 2000); his table reports while a hand runs
    with his 2500 all in the pot (the seat's stack: 0 behind). The director's rebuy is refused
    with "wait for the hand to end", nothing journalled; the tablet offers no rebuy from that
    report; once the table reports between hands again the rule is decided on the real stack."""
    r = buy_room()
    table, seat, _ = at(r, "p5")
    seats = r.tables[table].seats
    other = next(n for n in sorted(seats) if n != seat)
    seats[seat][1] += 500  # p5 won 500: 2500
    seats[other][1] -= 500
    between = r.tables[table].report()
    r.d.report(table, between)
    with pytest.raises(TournamentError, match="rebuy: stack 2500 is above the 2000 allowed"):
        r.d.purchase("rebuy", "p5", by="Anna")
    rows, pool = len(r.journal.rows), r.d.standings.prize_pool()
    mid = json.loads(between)
    mid["running"], mid["waiting"] = True, False
    mid["seats"][str(seat)][1] = 0  # all in: his chips are in the pot
    r.d.report(table, json.dumps(mid).encode())
    for player in ("p5", seats[other][0]):
        with pytest.raises(TournamentError, match=f"table {table} is playing a hand: wait for the hand to end"):
            r.d.purchase("rebuy", player, by="Anna")
    assert r.d.offers(table) == {}
    assert len(r.journal.rows) == rows and r.d.standings.rebuys == 0 and r.d.standings.prize_pool() == pool
    r.d.report(table, between)  # the hand over, the table waits between hands
    with pytest.raises(TournamentError, match="rebuy: stack 2500 is above"):
        r.d.purchase("rebuy", "p5", by="Anna")
    neighbour = seats[other][0]  # 1500: a rebuy for him is booked now
    assert "chips are brought between hands" in r.d.purchase("rebuy", neighbour, by="Anna")
    assert r.d.standings.rebuys == 1


def test_rebuys_left_and_the_add_on_at_its_break_only() -> None:
    r = buy_room()
    lose(r, "p4", 1500)  # 500 left: within max_stack
    for _ in range(2):
        r.d.purchase("rebuy", "p4", by="Anna")
        r.hand(*TABLES)
        assert at(r, "p4")[2] == 2500
        lose(r, "p4", 2000)
    with pytest.raises(TournamentError, match="rebuy: Player 4 has used all 2 rebuys"):
        r.d.purchase("rebuy", "p4", by="Anna")
    with pytest.raises(TournamentError, match="addon: offered at the break after level 2 only"):
        r.d.purchase("addon", "p4", by="Anna")  # level 1: no add-on
    r.time[0] = 130.0
    said = r.d.purchase("addon", "p6", by="Anna")
    assert "Player 6's add-on at " in said and "3,000 chips, 150 to the prize pool" in said
    with pytest.raises(TournamentError, match="add-on"):
        r.d.purchase("addon", "p6", by="Anna")
    assert r.d.standings.addons == 1


def test_a_player_who_busts_before_his_chips_came_is_refunded_in_the_busts_transaction() -> None:
    r = buy_room()
    table, seat, stack = at(r, "p7")
    r.d.purchase("rebuy", "p7", by="Anna")  # the director books it while the table plays a hand
    pool, chips = r.d.standings.prize_pool(), r.d.standings.chips_in_play()
    n = len(r.sent)
    r.bust(table, "p7")
    assert not [b for o in r.sent[n:] for b in o.get("buy", [])]
    assert r.d.purchases[1]["state"] == "refunded" and r.d.standings.rebuys == 0
    assert (r.d.standings.prize_pool(), r.d.standings.chips_in_play()) == (pool - 100, chips - 2000)
    kinds = [k for k, _ in r.journal.rows]
    assert kinds[kinds.index("bust"):].count("refund") == 1
    r.hand(*TABLES)
    assert chips_on_tables(r) == r.d.standings.chips_in_play() and not r.d.problems, r.d.problems


def test_a_table_that_cannot_bring_the_chips_says_so_and_the_room_refunds() -> None:
    r = buy_room()
    table, seat, _ = at(r, "p8")
    r.d.purchase("rebuy", "p8", by="Anna")
    del r.tables[table].seats[seat]  # gone from the seat (the test's table: a fault) before the order
    r.tables[table].total_out += STACK
    r.d.standings.bust({"p8": STACK})  # the room hears nothing of it: the table refuses the buy
    r.tables[table].play()
    r.d.report(table, r.tables[table].report())
    r.d.step()
    order = next(o for o in reversed(r.sent) if o["table"] == table)
    assert order["buy"][0]["purchase"] == 1
    r.tables[table].carry_out(order)
    r.d.report(table, r.tables[table].report())
    assert r.d.purchases[1]["state"] == "refunded" and r.d.standings.rebuys == 0
    assert ("refund", {"purchase": 1, "why": "not here"}) in r.journal.rows


def test_a_tables_request_is_booked_once_for_the_player_the_table_seats_or_refused_with_the_rule() -> None:
    r = buy_room()
    table, seat, _ = at(r, "p9")
    t = r.tables[table]
    t.ask(1, "rebuy", seat)
    t.ask(2, "addon", seat)  # level 1: refused
    n = len(r.sent)
    r.hand(table)
    order = next(o for o in r.sent[n:] if o.get("answers"))
    assert order["answers"]["1"] == {"purchase": 1} and "addon: offered at the break" in order["answers"]["2"]["why"]
    assert [b["player"] for b in order["buy"]] == ["p9"] and at(r, "p9")[2] == STACK + 2000
    assert r.d.purchases[1]["request"] == f"{table}:1" and r.d.purchases[1]["by"] == "floor:Dee"
    # a forged request: the player named is not the one the table seats there
    t.requests[3] = {"kind": "rebuy", "seat": seat, "player": "p1", "by": "x", "reason": None}
    n = len(r.sent)
    r.hand(table)
    order = next(o for o in r.sent[n:] if o.get("answers"))
    assert "seat" in order["answers"]["3"]["why"] and r.d.standings.rebuys == 1
    assert chips_on_tables(r) == r.d.standings.chips_in_play() and not r.d.problems, r.d.problems


def test_one_rebuy_between_two_hands_a_double_click_or_the_dealer_and_the_floor_both_book_one() -> None:
    """Breaker 3 M1 at the room's tables: two requests of one seat (the dealer's confirm and the
    floor's rebuy, a double-click) before the chips came, another after the room's answer and the
    director's command, all before the next hand: one purchase booked, its price in the prize pool
    once, the others refused with the F-3 reason the seat shows. After the next hand a deliberate
    second rebuy is booked. (max_stack high: only the new rule stops the second one.)"""
    toml = BUY_TOML.replace("max_stack = 2000", "max_stack = 9000")
    r = Room(0, toml=toml)
    r.tables = {tn: BuyTable(tn) for tn in TABLES}
    r.d.start(21, 7)
    r.exchange(*TABLES)
    table, seat, _ = at(r, "p9")
    t = r.tables[table]
    pool = r.d.standings.prize_pool()
    t.ask(1, "rebuy", seat, by="dealer:Dee")
    t.ask(2, "rebuy", seat, by="floor:Fay")
    r.hand(table)
    assert t.answers[1] == {"purchase": 1}
    assert "F-3: Player 9 has rebought since the last hand already: one rebuy between two hands" in t.answers[2]["why"]
    assert at(r, "p9")[2] == STACK + 2000
    t.ask(3, "rebuy", seat)  # the chips came, no hand dealt since: the next order refuses it
    r.d.report(table, t.report())
    r.d._take_requests(table)
    assert "one rebuy between two hands" in r.d._answers[table]["3"]["why"]
    with pytest.raises(TournamentError, match="F-3: Player 9 has rebought since the last hand already"):
        r.d.purchase("rebuy", "p9", by="Anna")  # the director's command: the same rule
    assert r.d.standings.rebuys == 1 and r.d.standings.prize_pool() == pool + 100
    assert [k for k, _ in r.journal.rows].count("purchase") == 1
    assert str(seat) not in r.d.offers(table)  # the tablet offers no second rebuy either
    t.requests.pop(3)  # its refusal reached the seat
    r.hand(table)  # the next hand: a deliberate second rebuy is booked
    t.ask(4, "rebuy", seat)
    r.hand(table)
    assert t.answers[4] == {"purchase": 2} and at(r, "p9")[2] == STACK + 4000
    assert r.d.standings.rebuys == 2 and r.d.standings.prize_pool() == pool + 200
    assert chips_on_tables(r) == r.d.standings.chips_in_play() and not r.d.problems, r.d.problems


def test_a_room_killed_after_booking_a_tables_request_answers_it_with_the_same_purchase() -> None:
    r = buy_room()
    table, seat, _ = at(r, "p12")
    t = r.tables[table]
    t.ask(1, "rebuy", seat)
    t.play()
    r.d.report(table, t.report())
    r.d._take_requests(table)  # booked and journalled; the room dies before its order
    assert r.d.standings.rebuys == 1
    r.d = r.director()
    assert r.d.restore() and r.d.purchases[1]["state"] == "planned"
    r.exchange(table)  # the table's report still carries the request: answered with the same purchase
    assert t.answers[1] == {"purchase": 1} and r.d.standings.rebuys == 1 and at(r, "p12")[2] == STACK + 2000
    assert [k for k, _ in r.journal.rows].count("purchase") == 1
    assert chips_on_tables(r) == r.d.standings.chips_in_play() and not r.d.problems, r.d.problems


def test_purchases_in_the_store_are_replayed_after_a_restart_and_brought_once(store_url: str) -> None:
    store = open_store(store_url)
    try:
        r = buy_room(journal=StoreJournal(store))
        r.d.purchase("rebuy", "p10", by="Anna")
        r.d.purchase("rebuy", "p11", by="Anna")
        # the room dies before any table hears of them
        r.d = r.director()
        assert r.d.restore()
        st = r.d.standings
        assert (st.rebuys, st.prize_pool(), st.chips_in_play()) == (2, 2300, 21 * STACK + 4000)
        assert [b["state"] for b in r.d.purchases.values()] == ["planned", "planned"]
        r.d.check()
        assert not r.d.problems, r.d.problems
        # a table brings p10's chips; the room dies before its report
        table, _, _ = at(r, "p10")
        r.tables[table].play()
        r.d.report(table, r.tables[table].report())
        n = len(r.sent)
        r.d.step()
        order = next(o for o in r.sent[n:] if o["table"] == table)
        r.tables[table].carry_out(order)
        r.d = r.director()
        assert r.d.restore()
        r.hand(*TABLES)
        assert [b["state"] for b in r.d.purchases.values()] == ["in", "in"]
        assert at(r, "p10")[2] == STACK + 2000 and at(r, "p11")[2] == STACK + 2000
        assert chips_on_tables(r) == r.d.standings.chips_in_play() and not r.d.problems, r.d.problems
        r.d = r.director()
        assert r.d.restore() and r.d.standings.rebuys == 2
        kinds = [k for k, _ in StoreJournal(store).events()]
        assert kinds.count("purchase") == 2 and kinds.count("purchase-in") == 2
    finally:
        store.close()


# ---------------------------------------------------------------- the floor console and the command line
def test_purchase_command_checks_the_body() -> None:
    assert purchase_command({"command": "rebuy", "player": " p3 "}, "floor") == {
        "command": "rebuy", "player": "p3", "by": "floor", "reason": None}
    for body, words in [({"command": "rebuy"}, "rebuy needs player"),
                        ({"command": "addon", "player": "a\nb"}, "addon needs player"),
                        ({"command": "rebuy", "player": "p3", "by": "x" * 41}, "by names who takes the money"),
                        ({"command": "rebuy", "player": "p3", "reason": "a\nb"}, "reason")]:
        with pytest.raises(ValueError, match=words):
            purchase_command(body, "floor")


def test_the_console_books_a_rebuy_and_refuses_with_the_rule(console: dict[str, Any]) -> None:  # noqa: F811
    r = console["room"]  # LATE_TOML: no rebuys
    got, answer = call(console, {"command": "rebuy", "player": "p3", "by": "Anna"})
    assert got == 409 and "rebuy: this tournament has no rebuys" in answer["error"], answer
    got, answer = call(console, {"command": "rebuy"})
    assert got == 400 and "rebuy needs player" in answer["error"]
    rows = console["store"].query("SELECT action, by_name, request, outcome FROM room_floor_actions ORDER BY id")
    assert [(a, b) for a, b, _, _ in rows] == [("rebuy", "Anna")]
    assert json.loads(rows[0][2])["player"] == "p3" and json.loads(rows[0][3])["accepted"] is False
    assert r.d.standings.rebuys == 0


@pytest.fixture
def buy_console(console: dict[str, Any]) -> dict[str, Any]:  # noqa: F811
    """The console fixture's room with rebuys and add-ons (its director replaced in place)."""
    r, store = console["room"], console["store"]
    with store.transaction() as tx:  # the room's journal in its store, as the service has it, started afresh
        tx.execute("DELETE FROM room_tournament")
    r.toml, r.journal, r.tables = BUY_TOML, StoreJournal(store), {t: BuyTable(t) for t in TABLES}
    d = r.director()
    r.d.__dict__.clear()
    r.d.__dict__.update(d.__dict__)  # the desk's director object stays the same
    r.d.start(21, 7)
    r.exchange(*TABLES)
    return console


def test_a_purchase_and_its_floor_record_are_written_together_or_not_at_all(
        buy_console: dict[str, Any]) -> None:
    """The floor record cannot be written (a store failure between the two writes): the
    director hears 503 and nothing was booked, so his retry books the rebuy once (as a
    registration, breaker 2 H2)."""
    r, store = buy_console["room"], buy_console["store"]
    pool = r.d.standings.prize_pool()
    with store.transaction() as tx:
        tx.execute("CREATE TRIGGER no_floor BEFORE INSERT ON room_floor_actions BEGIN SELECT RAISE(ABORT, 'full'); END")
    got, answer = call(buy_console, {"command": "rebuy", "player": "p3", "by": "Anna"})
    assert got == 503, (got, answer)
    assert (r.d.standings.rebuys, r.d.standings.prize_pool(), r.d.purchases) == (0, pool, {})
    assert not [k for k, _ in r.d.journal.events() if k == "purchase"]
    with store.transaction() as tx:
        tx.execute("DROP TRIGGER no_floor")
    got, answer = call(buy_console, {"command": "rebuy", "player": "p3", "by": "Anna"})
    assert got == 200 and answer["detail"].startswith("Player 3's rebuy at t"), answer
    rows = store.query("SELECT action, outcome FROM room_floor_actions")
    assert [(a, json.loads(o)["detail"]) for a, o in rows] == [("rebuy", answer["detail"])]
    assert [p["player"] for k, p in r.d.journal.events() if k == "purchase"] == ["p3"]
    assert r.d.standings.rebuys == 1


def test_the_console_and_the_command_line_book_rebuys_and_add_ons(
        buy_console: dict[str, Any], capsys: Any, monkeypatch: Any) -> None:
    r = buy_console["room"]
    got, answer = call(buy_console, {"command": "rebuy", "player": "Player 3", "reason": "at the desk"})
    assert got == 200 and answer["detail"].startswith("Player 3's rebuy at t"), answer
    assert answer["status"]["prize_pool"] == 2200
    monkeypatch.setenv("LIVETABLE_ROOM_PASSWORD", buy_console["password"])

    def run(*argv: str) -> tuple[int, str, str]:
        code = director_cli.main(["--console", buy_console["url"], *argv])
        out = capsys.readouterr()
        return code, out.out, out.err

    code, out, _ = run("rebuy", "p4", "--by", "Anna")
    assert code == 0 and out.startswith("done: Player 4's rebuy at t"), out
    code, _, err = run("addon", "p4", "--by", "Anna")
    assert code == 1 and "addon: offered at the break after level 2 only" in err, err
    for argv, words in [(["rebuy", "--by", "Anna"], "rebuy needs the PLAYER"),
                        (["addon", "p4"], "addon needs --by"),
                        (["rebuy", "p4", "--by", "A", "--player", "p5"], "--player goes with register only")]:
        code, _, err = run(*argv)
        assert code == 2 and words in err, (argv, err)
    rows = buy_console["store"].query("SELECT action, by_name, outcome FROM room_floor_actions ORDER BY id")
    assert [(a, b, json.loads(o)["accepted"]) for a, b, o in rows] == [
        ("rebuy", "floor", True), ("rebuy", "Anna", True), ("addon", "Anna", False)]
    assert r.d.standings.rebuys == 2


# ---------------------------------------------------------------- the table's side (controller/tournament_link.py)
class _Killed(Exception):
    pass


def _table(path: Any) -> tuple[Any, Any]:
    """A table of the room's tournament (its journal at ``path``) with its link, never connected."""
    from controller.clock import ManualClock
    from controller.composition import TableRun
    from controller.devices import DeviceChoice
    from controller.engine.table.settings import TableSettings
    from controller.tournament_link import RoomTournamentSeat

    run = TableRun(TableSettings(id="t1", seats=8, tournament=True), path,
                   DeviceChoice(table="t1", seats=8, shuffler=None, internal_seed=1, mqtt=False), clock=ManualClock())
    run.open()
    link = RoomTournamentSeat("t1", host="127.0.0.1", port=1)
    link.attach(run)
    return run, link


def _order(link: Any, run: Any, oid: int, **kw: Any) -> None:
    link._take(json.dumps({"schema": 1, "table": "t1", "id": oid, "out": [], "in": [], "go": None, "end": False,
                           **kw}).encode())
    link.tick(run.orch)


def _close(run: Any, link: Any) -> None:
    link._client.loop_stop()
    run.close()


def test_a_room_table_sends_the_request_of_the_player_it_seats_and_brings_the_chips_once(tmp_path: Any) -> None:
    from controller.floor import FloorDesk
    from drivers.mqtt.events import FloorRequestReceived

    path = tmp_path / "t1.sqlite"
    director = buy_room()
    view = dict(next(o for o in reversed(director.sent) if o["table"] == "t1")["view"], offers={"1": ["rebuy"]})
    run, link = _table(path)
    try:
        _order(link, run, 1, view=view,
               **{"in": [{"move": 1, "seat": 1, "player": "p1", "name": "Player 1", "chips": 500},
                         {"move": 2, "seat": 2, "player": "p2", "name": "Player 2", "chips": 2000}]})
        public = {"seats": [{"seat": 1, "status": "waiting", "stack": 500}, {"seat": 2, "status": "waiting",
                                                                                "stack": 2000}]}
        shown = link.view_json(public)
        assert shown["offers"] == {"1": ["rebuy"]} and shown["purchase_chips"] == {"rebuy": 2000, "addon": 3000}
        replies: list[tuple[Any, ...]] = []
        desk = FloorDesk(run.orch, lambda *a: replies.append(a), clock=run.orch.clock)
        desk.request(FloorRequestReceived("r1", "rebuy", "Dee", 0.0, reason="cash", seat=1))  # the floor books it
        assert replies[-1][2] is True and "sent to the room's director" in str(replies[-1]), replies
        link.ask_purchase("addon", 2)  # the tablet asks; the dealer confirms
        assert link.view_json(public)["asked"] == {"1": "rebuy", "2": "addon"}  # the tablets say what waits
        desk.request(FloorRequestReceived("r2", "confirm-buyin", "Dee", 0.0, seat=2))
        assert replies[-1][2] is True, replies
        desk.request(FloorRequestReceived("r3", "rebuy", "Dee", 0.0, seat=1))  # one at a time a seat
        assert replies[-1][2] is False and "waits for the room's director" in replies[-1][3]
        rep = link.report()
        assert rep["requests"] == {
            "1": {"kind": "rebuy", "seat": 1, "player": "p1", "by": "floor:Dee", "reason": "cash"},
            "2": {"kind": "addon", "seat": 2, "player": "p2", "by": "floor:Dee", "reason": None}}
        _order(link, run, 2, buy=[{"purchase": 7, "seat": 1, "player": "p1", "kind": "rebuy", "chips": 2000}],
               answers={"1": {"purchase": 7}, "2": {"why": "addon: offered at the break after level 2 only"}})
        rep = link.report()
        assert rep["seats"]["1"] == ["p1", 2500] and rep["bought"] == [7] and rep["requests"] == {}
        assert rep["ledger"]["in"] == 4500
        assert link.view_json(public)["purchase_refused"] == {"2": "addon: offered at the break after level 2 only"}
        assert link.view_json(public)["asked"] == {}
        # a buy for a player who is not in that seat: refused, the room refunds
        _order(link, run, 3, buy=[{"purchase": 8, "seat": 3, "player": "p9", "kind": "rebuy", "chips": 2000}])
        assert link.report()["refused_buy"] == {"8": "seat 3 has no p9 with chips now"}
    finally:
        _close(run, link)
    # restarted: the same order heard again brings nothing twice
    run, link = _table(path)
    try:
        _order(link, run, 2, buy=[{"purchase": 7, "seat": 1, "player": "p1", "kind": "rebuy", "chips": 2000}])
        rep = link.report()
        assert rep["seats"]["1"] == ["p1", 2500] and rep["bought"] == [7] and rep["ledger"]["in"] == 4500
        assert rep["refused_buy"] == {"8": "seat 3 has no p9 with chips now"} and rep["requests"] == {}
    finally:
        _close(run, link)


def test_a_table_killed_between_the_buy_and_its_chips_brings_them_once_at_the_restart(tmp_path: Any) -> None:
    path = tmp_path / "t1.sqlite"
    run, link = _table(path)
    try:
        _order(link, run, 1, **{"in": [{"move": 1, "seat": 1, "player": "p1", "name": "Player 1", "chips": 500},
                                       {"move": 2, "seat": 2, "player": "p2", "name": "Player 2", "chips": 2000}]})

        def killed(point: str) -> None:
            if point == "buy":
                raise _Killed(point)

        link._crash_point = killed  # the kill -9's place: the buy journalled, no chips yet
        with pytest.raises(_Killed):
            _order(link, run, 2, buy=[{"purchase": 3, "seat": 1, "player": "p1", "kind": "rebuy", "chips": 2000}])
        assert link.report()["seats"]["1"] == ["p1", 500]
    finally:
        _close(run, link)
    for _ in range(2):  # the restart carries the order out again: the chips come once
        run, link = _table(path)
        try:
            link.tick(run.orch)
            rep = link.report()
            assert rep["seats"]["1"] == ["p1", 2500] and rep["bought"] == [3] and rep["ledger"]["in"] == 4500
        finally:
            _close(run, link)


# ---------------------------------------------------------------- end to end: real processes
E2E_TOML = ROOM_TOML.replace(
    "entry = { price = 100, fee = 10 }",
    "entry = { price = 100, fee = 10 }\n"
    "rebuy = { price = 100, fee = 10, chips = 2000, max = 1, until_level = 4, max_stack = 1000000 }")


def _rebuy_once_seated(room: dict[str, Any], s: Any, url: str) -> int:  # noqa: F811 - room: the fixture's dict
    """Wait until the tables seated the draw (their reports), then ``livetable room director
    rebuy`` (a process) the first player still in and seated; return his number."""
    deadline = time.monotonic() + 60
    while sum(k == "moved-in" for k, _ in events(room["store"])) < 10:
        assert time.monotonic() < deadline and s.proc.poll() is None, s.log.read_text()[-3000:]
        time.sleep(0.05)  # polling another process's store
    env = dict(ENV, LIVETABLE_ROOM_PASSWORD=room["floor_password"])
    said: list[str] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # his table mid-hand: refused, asked again (breaker 3 M2)
        for n in range(1, 11):  # the tables play at full speed: the first one still in and seated
            out = subprocess.run([sys.executable, "-m", "controller.cli", "room", "director", "rebuy", f"Player {n}",
                                  "--by", "Anna", "--console", url], capture_output=True, text=True, cwd=REPO,
                                 env=env, timeout=30)
            said.append(out.stdout + out.stderr)
            if out.returncode == 0:
                assert out.stdout.startswith(f"done: Player {n}'s rebuy at t"), said
                return n
        if not any("wait for the hand to end" in x for x in said[-10:]):
            break
    raise AssertionError(said)


def _check_bought_once(room: dict[str, Any], result: dict[str, Any]) -> None:  # noqa: F811
    assert result["ok"], result
    kinds = [k for k, _ in events(room["store"])]
    refunded = kinds.count("refund")  # busted in the hand his table was playing: refunded, never brought
    assert kinds.count("purchase") == 1 and kinds.count("purchase-in") + refunded == 1
    bought = 1 - refunded
    assert result["rebuys"] == bought and result["prize_pool"] == 10 * 100 + bought * 100 == sum(result["payouts"])


@pytest.mark.timeout(180)
def test_room_serve_books_a_rebuy_from_the_director_and_a_real_table_brings_the_chips(
        room: dict[str, Any]) -> None:  # noqa: F811 - the fixture of test_room_serve_tournament
    """``livetable room serve --tournament`` (rebuys until level 4, one a player) with two
    ``livetable simulate --tournament-room`` tables; once the tables have seated the draw,
    ``livetable room director rebuy`` books one; his table brings the chips between hands,
    the tournament plays to its end and the books balance (``ok``: the conservation check
    after every report, payouts = prize pool with the rebuy's price)."""
    room["conf"].write_text(E2E_TOML)
    s = serve(room, free_port())
    url = s.line("serving", 30)["console"]
    start_tables(room)
    _rebuy_once_seated(room, s, url)
    _check_bought_once(room, s.line("tournament", 90)["tournament"])
    check_store_holds_every_hand(room)
    assert s.stop() == 0


@pytest.mark.timeout(180)
def test_room_killed_right_after_booking_a_rebuy_resumes_and_the_chips_come_once(
        room: dict[str, Any]) -> None:  # noqa: F811 - the fixture of test_room_serve_tournament
    """kill -9 of ``room serve`` as soon as the rebuy is booked (its order sent or not, the
    table's report heard or not); ``room serve`` again resumes from the store: the purchase
    is counted once and its chips reach the table once (or it is refunded at a bust)."""
    room["conf"].write_text(E2E_TOML)
    s = serve(room, free_port())
    url = s.line("serving", 30)["console"]
    start_tables(room)
    _rebuy_once_seated(room, s, url)
    s.proc.kill()
    s.proc.wait()
    again = serve(room, free_port())
    again.line("serving", 30)
    result = again.line("tournament", 90)["tournament"]
    assert result["resumed"]
    _check_bought_once(room, result)
    check_store_holds_every_hand(room)
    assert again.stop() == 0


@pytest.mark.parametrize("offers, ok", [({"3": ["rebuy", "addon"]}, True), ({"3": ["cashout"]}, False),
                                        ({"x": ["rebuy"]}, False), ({"65": ["rebuy"]}, False),
                                        ({"3": "rebuy"}, False), (["rebuy"], False)])
def test_a_views_offers_are_checked_at_the_table(offers: Any, ok: bool) -> None:
    from controller.tournament_link_view import decode_view

    r = buy_room()
    view = dict(r.sent[-1]["view"], offers=offers)
    if ok:
        assert decode_view(view)["offers"] == offers
    else:
        with pytest.raises(ValueError, match="view.offers"):
            decode_view(view)


def test_a_request_id_the_table_gives_again_for_another_player_or_kind_is_refused_not_answered_with_the_old_booking() -> None:
    """Breaker: the room answers a request id it has seen (``"t:1"``) with the purchase it
    booked for it (a retry is never booked twice). A table that numbers its requests afresh
    (a journal lost with its SD card and the table started on a new one; before the fix,
    compaction) sends id 1 again for another purchase: answered with the old purchase, the
    new one was never booked and the table took it as done. The retry of the same request
    (same player, same kind) still gets its booking; another is refused saying why."""
    r = buy_room()
    table, seat, _ = at(r, "p9")
    t = r.tables[table]
    t.ask(1, "rebuy", seat)
    r.hand(table)
    assert t.answers[1] == {"purchase": 1}
    other = next(s for s in t.seats if s != seat)
    t.ask(1, "rebuy", other)  # the same id, another player
    n = len(r.sent)
    r.hand(table)
    answer = next(o["answers"]["1"] for o in r.sent[n:] if o.get("answers"))
    assert "why" in answer and "request 1" in answer["why"], answer
    assert r.d.standings.rebuys == 1 and len(r.d.purchases) == 1
    t.ask(1, "rebuy", seat)  # the first request sent again (a lost answer): its booking
    n = len(r.sent)
    r.hand(table)
    assert next(o["answers"]["1"] for o in r.sent[n:] if o.get("answers")) == {"purchase": 1}
    assert r.d.standings.rebuys == 1 and chips_on_tables(r) == r.d.standings.chips_in_play()
