"""The deal offered on the players' tablets at the room's final table (issue 19):
:class:`room.tournament_deal.RoomDeal` against tables played by this test (the harness of
test_room_tournament_register.py / test_room_tournament_purchases.py), its journal replayed
after a restart, the console's and ``livetable room director``'s ``deal-offer`` body, and a
real table's side (:class:`controller.tournament_link.RoomTournamentSeat`: the offer shown in
the single table's shape, the seat's answer sent in its reports, the go held, a kill -9)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.tournament.errors import TournamentError
from room import director_cli
from room.console import deal_command
from room.tournament import StoreJournal
from room.tournament_sim import ROOM_TOML
from tests.room.test_room_tournament_console import call
from tests.room.test_room_tournament_purchases import BuyTable, _close, _Killed, _order, _table
from tests.room.test_room_tournament_register import TABLES, Room, console  # noqa: F401 - console: the fixture

#: the keys of the single table's ``deal_offer`` view (controller/tournament_run.py deal_offer_view)
OFFER_KEYS = {"offer", "method", "unit", "total", "prizes", "accepted", "of", "agreed", "players", "words"}
PLAYER_KEYS = {"seat", "name", "stack", "share", "accepted"}


class DealTable(BuyTable):
    """A :class:`BuyTable` that keeps the view of the orders it takes and, as the real link does,
    a ``go`` it has not dealt when an order carries none, dropped when an order's view shows a
    deal offered; it never deals while its view shows one (the link's ``hand_start``)."""

    view: dict[str, Any] | None = None
    held = 0

    def carry_out(self, order: dict[str, Any]) -> None:
        if order["id"] <= self.applied:
            return
        go = self.go
        super().carry_out(order)
        if order["go"] is None and not order["end"]:
            self.go = go
        if order.get("view") is not None:
            self.view = order["view"]
        if (order.get("view") or {}).get("deal_offer") is not None:
            self.go = None  # as the link: the go held is dropped, the room gives one after the offer

    def play(self, busts: dict[str, int] | None = None) -> None:
        if (self.view or {}).get("deal_offer"):
            self.held += 1  # the go is held: no hand while a deal is offered
            return
        super().play(busts)

    def answer(self, rid: int, seat: int, accept: bool, offer: int = 1, player: str | None = None) -> None:
        """The seat's tablet answers (the table names the player it seats there)."""
        self.requests[rid] = {"kind": "deal", "seat": seat, "player": player or self.seats[seat][0],
                              "by": f"seat {seat}", "reason": None, "offer": offer, "accept": accept}


def final_room(journal: Any = None) -> Room:
    """Six entries on three tables: the first turn redraws them at the final table t1."""
    r = Room(0, journal=journal, toml=ROOM_TOML)
    r.tables = {t: DealTable(t) for t in TABLES}
    r.d.start(6, 7)
    r.exchange(*TABLES)
    r.hand(*TABLES)
    assert r.d.deal.final_table() == "t1" and len(r.tables["t1"].seats) == 6
    return r


def deliver(r: Room, n: int) -> None:
    """The tables take the orders the room sent since ``n`` (a director's command's) and report."""
    for o in r.sent[n:]:
        r.tables[o["table"]].carry_out(o)
    r.exchange(*{o["table"] for o in r.sent[n:]})


def offer(r: Room, **kw: Any) -> str:
    """The director offers a deal; the final table holds the room's go, so it is made when that
    hand ends (played here): return the words of the offer made."""
    n = len(r.sent)
    said = r.d.deal.offer_deal(kw.pop("method", "icm"), by="Anna", **kw)
    deliver(r, n)
    if r.d.deal.pending is not None:
        assert "the deal will be offered when hand" in said
        r.hand("t1")
    return said


def deals(r: Room, pending: bool = False) -> list[tuple[str, dict[str, Any]]]:
    """The journal's deal events (``deal-pending`` too when ``pending``)."""
    return [(k, p) for k, p in r.journal.rows if k.startswith("deal-") and (pending or k != "deal-pending")]


def test_every_player_accepts_at_his_seat_no_hand_is_dealt_until_the_director_withdraws() -> None:
    r = final_room()
    t1 = r.tables["t1"]
    said = offer(r, reason="six left")  # the table held hand 2's go: offered when it ends
    assert said == ("deal offer 1 (icm) at t1: the deal will be offered when hand 2 ends; no next hand is dealt "
                    "meanwhile (Anna)")
    [(kind, ev)] = deals(r)
    assert kind == "deal-offer" and (ev["offer"], ev["table"], ev["method"], ev["by"], ev["reason"]) == (
        1, "t1", "icm", "Anna", "six left")
    assert sum(p["share"] for p in ev["players"]) == ev["total"] == r.d.standings.prize_pool()
    assert {p["player"]: p["stack"] for p in ev["players"]} == {v[0]: v[1] for v in t1.seats.values()}
    view = t1.view["deal_offer"]  # the table hears it in its order's view, the single table's shape
    assert set(view) == OFFER_KEYS and all(set(p) == PLAYER_KEYS | {"player"} for p in view["players"])
    assert view["words"] == "0 of 6 accepted" and view["prizes"] == r.d.director_status()["prizes_left"]
    seats = sorted(t1.seats)
    for n, seat in enumerate(seats, 1):
        t1.answer(n, seat, True)
        r.hand(*TABLES)  # the table waits: it is given no hand while the players answer
        assert t1.answers[n] == {"deal": 1} and t1.hands == 2 and t1.go is None  # no go while an offer is open
    assert t1.view["deal_offer"]["words"] == "Deal agreed \u2014 the director confirms"
    assert t1.view["deal_offer"]["agreed"] and [k for k, _ in deals(r)] == ["deal-offer"] + ["deal-accept"] * 6
    assert [p["request"] for k, p in deals(r)[1:]] == [f"t1:{n}" for n in range(1, 7)]
    st = r.d.director_status()["deal"]
    assert st["agreed"] and st["table"] == "t1"
    assert any("AGREED by every player" in line for line in director_cli.status_lines(r.d.director_status()))
    with pytest.raises(TournamentError, match="F-3: deal offer 1 is open already"):
        r.d.deal.offer_deal("icm", by="Anna")
    for _ in range(3):
        r.hand("t1")
    assert t1.hands == 2  # agreed: still no hand, the director confirms it
    n = len(r.sent)
    assert r.d.deal.withdraw(by="Anna", reason="they play on") == "deal offer 1 withdrawn (Anna)"
    deliver(r, n)
    assert deals(r)[-1] == ("deal-end", {"offer": 1, "reason": "withdrawn by the director: they play on",
                                         "by": "Anna", "hands": 2})
    assert t1.view["deal_offer"] is None and t1.view["deal_ended"]["offer"] == 1
    r.hand("t1")  # play goes on: the room gives a new go
    assert t1.hands == 3 and t1.view["deal_ended"] is None and not r.d.problems, r.d.problems


def test_a_decline_ends_it_for_everyone_and_play_goes_on() -> None:
    r = final_room()
    t1 = r.tables["t1"]
    offer(r)
    seats = sorted(t1.seats)
    t1.answer(1, seats[0], True)
    r.hand("t1")
    t1.answer(2, seats[0], False)  # a player who accepted may still decline until all have
    r.hand("t1")
    name = r.d.names[t1.seats[seats[0]][0]]
    assert deals(r)[-1][1] == {"offer": 1, "reason": f"{name} declined", "by": f"seat {seats[0]}", "hands": 2,
                               "request": "t1:2"}
    assert t1.answers[2] == {"deal": 1} and t1.view["deal_offer"] is None
    assert t1.view["deal_ended"] == {"offer": 1, "reason": f"{name} declined"}
    r.hand("t1")
    assert t1.hands == 3
    t1.answer(3, seats[1], True)  # an answer to an offer over: refused, nothing journalled
    rows = len(r.journal.rows)
    r.hand("t1")
    assert t1.answers[3] == {"why": "F-3: deal offer 1 is over"}
    assert [k for k, _ in r.journal.rows[rows:] if k.startswith("deal")] == []


def test_refused_before_the_final_table_during_a_hand_and_for_a_bad_unit_nothing_journalled() -> None:
    r = Room(0, toml=ROOM_TOML)
    r.tables = {t: DealTable(t) for t in TABLES}
    r.d.start(21, 7)
    r.exchange(*TABLES)
    with pytest.raises(TournamentError, match="F-3: a deal is offered at the final table: more than one table"):
        r.d.deal.offer_deal("icm", by="Anna")
    f = final_room()
    running = json.loads(f.tables["t1"].report())
    running["running"] = True
    f.d.report("t1", json.dumps(running).encode())
    # during a hand a bad unit or method is refused at once, not when the hand ends
    with pytest.raises(TournamentError, match="unit must be 1..the prize pool"):
        f.d.deal.offer_deal("icm", by="Anna", unit=10**6)
    with pytest.raises(TournamentError, match="F-3: unknown method"):
        f.d.deal.offer_deal("coin", by="Anna")
    f.exchange("t1")
    with pytest.raises(TournamentError, match="F-3: no deal is offered now"):
        f.d.deal.withdraw(by="Anna")
    assert deals(r) == deals(f) == []


def test_the_offer_ends_when_a_hand_is_dealt_or_a_stack_changes() -> None:
    r = final_room()
    t1 = r.tables["t1"]
    go = t1.go
    offer(r)
    assert t1.go is None  # made once hand 2 ended: the room holds hand 3's go
    t1.view, t1.go = None, {**go, "hand": 3}  # a table that deals a hand anyway (a fault)
    t1.play()
    r.exchange("t1")
    assert deals(r)[-1][1]["reason"] == "a hand is dealt: the stacks change"
    assert deals(r)[-1][1]["by"] == "room" and r.d.deal.offer is None
    r.hand("t1")
    offer(r)
    seat = sorted(t1.seats)[0]
    t1.seats[seat][1] += 0  # unchanged: nothing ends
    r.exchange("t1")
    assert r.d.deal.offer is not None
    other = sorted(t1.seats)[1]
    t1.seats[seat][1] += 100  # chips moved (a forged or faulty report): the figures are not the table's
    t1.seats[other][1] -= 100
    r.exchange("t1")
    assert "stack changed" in deals(r)[-1][1]["reason"] and r.d.deal.offer is None


def test_a_retry_or_a_room_restart_books_an_accept_once_and_another_seats_player_is_refused() -> None:
    r = final_room()
    t1 = r.tables["t1"]
    offer(r)
    seats = sorted(t1.seats)
    t1.answer(1, seats[0], True, player="p99")  # not the player the room has there
    t1.answer(2, seats[1], True, offer=7)  # another offer
    r.hand("t1")
    assert t1.answers[1] == {"why": f"F-3: seat {seats[0]} has no player in deal offer 1"}
    assert t1.answers[2]["why"].startswith("F-3: deal offer 7 is over")
    t1.answer(3, seats[0], True)
    r.hand("t1")
    t1.answer(3, seats[0], True)  # the table did not hear the answer: it sends the request again
    t1.answer(4, seats[0], True)  # a second tap
    r.hand("t1")
    assert t1.answers[3] == t1.answers[4] == {"deal": 1}
    assert [k for k, _ in deals(r)] == ["deal-offer", "deal-accept"]
    # the room is killed and restarts from its journal: the offer and the accept come back
    r.d = r.director()
    assert r.d.restore()
    assert r.d.deal.offer is not None and r.d.deal.offer["accepted"] == {seats[0]: "t1:3"}
    t1.applied = 0  # the restarted room numbers its orders on from its journal
    t1.answer(3, seats[0], True)
    r.exchange(*TABLES)
    assert t1.answers[3] == {"deal": 1} and [k for k, _ in deals(r)] == ["deal-offer", "deal-accept"]
    assert t1.view["deal_offer"]["words"] == "1 of 6 accepted" and t1.hands == 2
    n = len(r.sent)
    r.d.deal.withdraw(by="Anna")
    deliver(r, n)
    r.d = r.director()  # restarted after the withdrawal: the table plays on
    assert r.d.restore() and r.d.deal.offer is None and r.d.deal.offers_made == 1
    r.exchange(*TABLES)
    r.hand("t1")
    assert t1.hands >= 2 and not r.d.problems, r.d.problems


def test_deal_command_and_the_command_line_check_their_input() -> None:
    assert deal_command({"command": "deal-offer"}, "floor") == {
        "command": "deal-offer", "method": "icm", "unit": None, "by": "floor", "reason": None}
    assert deal_command({"command": "deal-offer", "method": "chip-chop", "unit": 5, "by": "Anna"}, "x")["unit"] == 5
    for body, words in [({"command": "deal-offer", "method": "coin"}, "icm or chip-chop"),
                        ({"command": "deal-offer", "unit": 0}, "a whole amount of money"),
                        ({"command": "deal-offer", "unit": True}, "a whole amount of money"),
                        ({"command": "deal"}, "deal-offer or deal-withdraw")]:
        with pytest.raises(ValueError, match=words):
            deal_command(body, "floor")
    assert director_cli.main(["deal-offer"]) == 2  # no --by
    assert director_cli.main(["deal-withdraw", "x", "--by", "Anna"]) == 2  # no value
    assert director_cli.main(["status", "--unit", "5"]) == 2


def _offer_view(players: list[tuple[str, int, int]], accepted: tuple[int, ...] = ()) -> dict[str, Any]:
    rows = [{"player": p, "seat": s, "name": f"Player {p[1:]}", "stack": st, "share": 100 * i,
             "accepted": s in accepted} for i, (p, s, st) in enumerate(players, 1)]
    n = len(accepted)
    return {"offer": 1, "method": "icm", "unit": 5, "total": sum(r["share"] for r in rows), "prizes": [200, 100],
            "accepted": n, "of": len(rows), "agreed": n == len(rows), "players": rows,
            "words": f"{n} of {len(rows)} accepted"}


def test_a_room_table_shows_the_offer_holds_its_go_and_sends_the_seats_answer_once(tmp_path: Any) -> None:
    from drivers.mqtt.events import ActionReceived
    from controller.devices.mqtt import MqttAdapter
    from tests.tournament.test_deal_offer import _Ports

    path = tmp_path / "t1.sqlite"
    r = final_room()
    base = dict(next(o for o in reversed(r.sent) if o["table"] == "t1")["view"])
    run, link = _table(path)
    players = [("p1", 1, 2000), ("p2", 2, 2000)]
    try:
        _order(link, run, 1, view=base, go={"hand": 1, "stakes": {"small_blind": 25, "big_blind": 50}},
               **{"in": [{"move": 1, "seat": 1, "player": "p1", "name": "Player 1", "chips": 2000},
                         {"move": 2, "seat": 2, "player": "p2", "name": "Player 2", "chips": 2000}]})
        assert link.hand_start() is not None  # the go: the table would deal
        link.go = {"hand": 1, "stakes": {"small_blind": 25, "big_blind": 50}}
        _order(link, run, 2, view=dict(base, deal_offer=_offer_view(players)))
        assert link.hand_start() is None  # offered: the go is dropped, none dealt
        shown = run.orch.public_view()["tournament_view"]["deal_offer"]
        assert set(shown) == OFFER_KEYS and all(set(p) == PLAYER_KEYS for p in shown["players"])  # no room ids
        ports = _Ports()
        adapter = MqttAdapter(run.orch, ports, clock=run.orch.clock)
        assert adapter.translate(ActionReceived(2, "deal_accept", 1, "a1", 0, run.orch.clock())) == []
        assert adapter.translate(ActionReceived(2, "deal_accept", 1, "a2", 0, run.orch.clock())) == []  # a 2nd tap
        assert adapter.translate(ActionReceived(1, "deal_accept", 2, "a3", 0, run.orch.clock())) == []
        assert [a[2] for a in ports.answers] == [True, True, False]
        assert ports.answers[-1][3] == "F-3: deal offer 2 is over: the offer now is number 1"
        assert link.report()["requests"] == {"1": {"kind": "deal", "seat": 2, "player": "p2", "by": "seat 2",
                                                   "reason": None, "offer": 1, "accept": True}}
    finally:
        _close(run, link)
    run, link = _table(path)  # killed and restarted: the request is sent again, the offer still held
    try:
        assert link.report()["requests"]["1"]["accept"] is True and link.hand_start() is None
        _order(link, run, 3, view=dict(base, deal_offer=_offer_view(players, (2,))), answers={"1": {"deal": 1}})
        assert link.report()["requests"] == {}
        assert run.orch.public_view()["tournament_view"]["deal_offer"]["words"] == "1 of 2 accepted"
        _order(link, run, 4, view=dict(base, deal_ended={"offer": 1, "reason": "Player 1 declined"}))
        assert run.orch.public_view()["tournament_view"]["deal_ended"] == {"offer": 1, "reason": "Player 1 declined"}
        assert link.hand_start() is None and link.report()["waiting"]  # over: it waits for the room's new go
    finally:
        _close(run, link)


@pytest.fixture
def deal_console(console: dict[str, Any]) -> dict[str, Any]:  # noqa: F811 - the register tests' fixture
    """The console fixture's room at its final table (six entries; its director replaced in place)."""
    r, store = console["room"], console["store"]
    with store.transaction() as tx:  # the room's journal in its store, started afresh
        tx.execute("DELETE FROM room_tournament")
    r.toml, r.journal, r.tables = ROOM_TOML, StoreJournal(store), {t: DealTable(t) for t in TABLES}
    d = r.director()
    r.d.__dict__.clear()
    r.d.__dict__.update(d.__dict__)  # the desk's director object stays the same
    r.time[0] = 0.0
    r.d.start(6, 7)
    r.exchange(*TABLES)
    r.hand(*TABLES)
    assert r.d.deal.final_table() == "t1"
    return console


def test_the_console_and_the_command_line_offer_and_withdraw_recorded_with_the_journal(
        deal_console: dict[str, Any], capsys: Any, monkeypatch: Any) -> None:
    r, store = deal_console["room"], deal_console["store"]
    got, answer = call(deal_console, {"command": "deal-offer", "method": "chip-chop", "by": "Anna",
                                      "reason": "six left"})
    # t1 holds the room's go for hand 2 (sent right after hand 1's report): offered when it ends
    assert got == 200 and answer["detail"] == ("deal offer 1 (chip-chop) at t1: the deal will be offered when "
                                               "hand 2 ends; no next hand is dealt meanwhile (Anna)")
    assert answer["status"]["deal"]["pending"] and answer["status"]["deal"]["table"] == "t1"
    got, answer = call(deal_console, {"command": "deal-offer", "by": "Anna"})
    assert got == 409 and "deal offer 1 is offered already when hand 2 ends" in answer["error"]
    got, answer = call(deal_console, {"command": "deal-offer", "unit": "5"})
    assert got == 400 and "a whole amount of money" in answer["error"]
    monkeypatch.setenv("LIVETABLE_ROOM_PASSWORD", deal_console["password"])

    def run(*argv: str) -> tuple[int, str, str]:
        code = director_cli.main(["--console", deal_console["url"], *argv])
        out = capsys.readouterr()
        return code, out.out, out.err

    code, out, _ = run("status")
    assert code == 0 and ("deal offer 1 (chip-chop) at t1: offered when hand 2 ends; no next hand is dealt "
                          "meanwhile") in out, out
    code, out, _ = run("deal-withdraw", "--by", "Anna", "--reason", "they play on")
    assert code == 0 and out.startswith("done: deal offer 1 (offered when hand 2 ends) withdrawn (Anna)"), out
    code, _, err = run("deal-withdraw", "--by", "Anna")
    assert code == 1 and "F-3: no deal is offered now" in err
    code, _, err = run("deal-offer", "--method", "coin", "--by", "Anna")
    assert code == 2
    rows = store.query("SELECT action, by_name, outcome FROM room_floor_actions ORDER BY id")
    assert [(a, b, json.loads(o)["accepted"]) for a, b, o in rows] == [
        ("deal-offer", "Anna", True), ("deal-offer", "Anna", False), ("deal-withdraw", "Anna", True),
        ("deal-withdraw", "Anna", False)]
    kinds = [k for k, _ in StoreJournal(store).events() if k.startswith("deal-")]
    assert kinds == ["deal-pending", "deal-end"] and r.d.deal.offer is None and r.d.deal.offers_made == 1


def test_a_table_killed_after_journalling_a_seats_answer_sends_it_once_at_the_restart(tmp_path: Any) -> None:
    from controller.devices.mqtt import MqttAdapter
    from drivers.mqtt.events import ActionReceived
    from tests.tournament.test_deal_offer import _Ports

    path = tmp_path / "t1.sqlite"
    base = dict(next(o for o in reversed(final_room().sent) if o["table"] == "t1")["view"])
    run, link = _table(path)
    try:
        _order(link, run, 1, view=dict(base, deal_offer=_offer_view([("p1", 1, 2000), ("p2", 2, 2000)])),
               **{"in": [{"move": 1, "seat": 1, "player": "p1", "name": "Player 1", "chips": 2000},
                         {"move": 2, "seat": 2, "player": "p2", "name": "Player 2", "chips": 2000}]})

        def killed(point: str) -> None:
            if point == "deal-answer":
                raise _Killed(point)

        link._crash_point = killed  # the kill -9's place: the answer journalled, not yet reported
        with pytest.raises(_Killed):
            link.answer_deal(1, 1, False)
    finally:
        _close(run, link)
    for _ in range(2):  # restarted (twice): the decline is sent, once, and a second tap adds none
        run, link = _table(path)
        try:
            assert link.report()["requests"] == {"1": {"kind": "deal", "seat": 1, "player": "p1", "by": "seat 1",
                                                       "reason": None, "offer": 1, "accept": False}}
            ports = _Ports()
            adapter = MqttAdapter(run.orch, ports, clock=run.orch.clock)
            assert adapter.translate(ActionReceived(1, "deal_decline", 1, "a9", 0, run.orch.clock())) == []
            assert ports.answers[-1][2] is True and len(link.report()["requests"]) == 1
        finally:
            _close(run, link)


def test_a_go_held_through_a_deal_offer_is_not_dealt_at_its_old_stakes_after_it(tmp_path: Any) -> None:
    """Breaker: the go a table held while a deal was offered was dealt once the offer was over,
    at the stakes of the level it was given in (the offer may last past a level's end, or into
    the tournament's break: a hand dealt during the break). The table drops it when the offer
    comes and waits for the room's go after it (the room's level then, none on a break); the
    same after a kill -9 (the journal's orders replayed)."""
    path = tmp_path / "t1.sqlite"
    base = dict(next(o for o in reversed(final_room().sent) if o["table"] == "t1")["view"])
    run, link = _table(path)
    players = [("p1", 1, 2000), ("p2", 2, 2000)]
    old = {"hand": 1, "stakes": {"small_blind": 25, "big_blind": 50}}
    try:
        _order(link, run, 1, view=base, go=old,
               **{"in": [{"move": 1, "seat": 1, "player": "p1", "name": "Player 1", "chips": 2000},
                         {"move": 2, "seat": 2, "player": "p2", "name": "Player 2", "chips": 2000}]})
        assert link.report()["waiting"] is False  # it holds the go (its pause between hands)
        _order(link, run, 2, view=dict(base, deal_offer=_offer_view(players)))
        assert link.hand_start() is None
        # an hour later the director withdraws it: the level (or a break) changed meanwhile
        _order(link, run, 3, view=dict(base, deal_ended={"offer": 1, "reason": "withdrawn by the director"}))
        assert link.hand_start() is None and link.report()["waiting"] is True  # the room's go, not the old one
    finally:
        _close(run, link)
    run, link = _table(path)  # killed and restarted: the orders replayed, the old go still not dealt
    try:
        assert link.hand_start() is None and link.report()["waiting"] is True
        _order(link, run, 4, go={"hand": 1, "stakes": {"small_blind": 50, "big_blind": 100}})
        assert link.hand_start() == {"level": {"small_blind": 50, "big_blind": 100}}
    finally:
        _close(run, link)


def test_the_final_tables_drawn_button_of_a_go_dropped_for_a_deal_offer_comes_with_the_next_go(
        tmp_path: Any) -> None:
    """The go a table drops when a deal is offered may be the redrawn final table's first, with
    the button the room drew by cards (the room gives it once): the room's next go after the
    offer comes without it, and the table puts the drawn button on it (live and after a kill -9)."""
    path = tmp_path / "t1.sqlite"
    base = dict(next(o for o in reversed(final_room().sent) if o["table"] == "t1")["view"])
    run, link = _table(path)
    players = [("p1", 1, 2000), ("p2", 2, 2000)]
    try:
        _order(link, run, 1, view=base, go={"hand": 1, "stakes": {"small_blind": 25, "big_blind": 50}, "button": 2},
               **{"in": [{"move": 1, "seat": 1, "player": "p1", "name": "Player 1", "chips": 2000},
                         {"move": 2, "seat": 2, "player": "p2", "name": "Player 2", "chips": 2000}]})
        _order(link, run, 2, view=dict(base, deal_offer=_offer_view(players)))
        _order(link, run, 3, view=dict(base, deal_ended={"offer": 1, "reason": "Player 1 declined"}))
    finally:
        _close(run, link)
    run, link = _table(path)
    try:
        assert link.hand_start() is None
        _order(link, run, 4, go={"hand": 1, "stakes": {"small_blind": 50, "big_blind": 100}})
        assert link.hand_start() == {"level": {"small_blind": 50, "big_blind": 100}, "button": 2, "redraw": True}
    finally:
        _close(run, link)


def test_a_seat_tapping_decline_again_and_again_sends_one_answer_not_one_a_tap(tmp_path: Any) -> None:
    """Breaker (high): a seat that accepted, then tapped decline again and again while the room
    did not answer (the room restarting, the network down), sent a new request each tap (only
    the seat's first request waiting was compared): over 64, the room's answers came in one
    order the table refuses (``answers``: at most 64), sent again for ever: the table stuck.
    Each answer of a seat to an offer is sent once while it waits."""
    path = tmp_path / "t1.sqlite"
    base = dict(next(o for o in reversed(final_room().sent) if o["table"] == "t1")["view"])
    run, link = _table(path)
    try:
        _order(link, run, 1, view=dict(base, deal_offer=_offer_view([("p1", 1, 2000), ("p2", 2, 2000)])),
               **{"in": [{"move": 1, "seat": 1, "player": "p1", "name": "Player 1", "chips": 2000},
                         {"move": 2, "seat": 2, "player": "p2", "name": "Player 2", "chips": 2000}]})
        link.answer_deal(1, 1, True)
        said: list[str] = []
        for accept in (False, True, False, False, True, False) * 12:
            try:
                said.append(link.answer_deal(1, 1, accept))
            except TournamentError as exc:
                said.append(str(exc))
        reqs = link.report()["requests"]
        assert [(r["seat"], r["accept"]) for _, r in sorted(reqs.items())] == [(1, True), (1, False)], reqs
        assert said[:3] == ["Player 1 declines deal offer 1: sent to the room",
                            "F-3: seat 1's answers to deal offer 1 wait for the room: answer again once it has "
                            "answered them",
                            "Player 1's answer to deal offer 1 is with the room already"], said
        _order(link, run, 2, view=dict(base, deal_ended={"offer": 1, "reason": "Player 1 declined"}),
               answers={"1": {"deal": 1}, "2": {"deal": 1}})
        assert link.report()["requests"] == {}
    finally:
        _close(run, link)


def test_the_room_answers_a_bounded_number_of_requests_an_order_the_rest_in_the_next() -> None:
    """Breaker (high): a table reporting more than 64 requests (an older table's seats tapping
    while the room was down) had them all answered in one order, which the table refuses
    (``answers``: at most 64, :func:`controller.tournament_link.decode_order`) and the room sent
    again for ever: the table stuck. The room answers ``MAX_ORDER_ANSWERS`` an order, the rest
    in the next ones."""
    from controller.tournament_link import decode_order
    from room.tournament import MAX_ORDER_ANSWERS

    r = final_room()
    t1 = r.tables["t1"]
    offer(r)
    seat = sorted(t1.seats)[0]
    for rid in range(1, 71):
        t1.answer(rid, seat, rid % 2 == 1)
    n = len(r.sent)
    for _ in range(3):
        r.hand("t1")
    for o in r.sent[n:]:  # every order is one the table takes
        decode_order(json.dumps(o).encode(), o["table"], 10)
        assert len(o.get("answers") or {}) <= MAX_ORDER_ANSWERS
    assert t1.requests == {} and sorted(t1.answers) == list(range(1, 71))
    assert t1.answers[1] == {"deal": 1} and t1.answers[2] == {"deal": 1}  # the accept, then the decline
    assert t1.answers[3]["why"].startswith("F-3: deal offer 1 is over") and r.d.deal.offer is None


def test_an_offer_given_after_the_go_was_sent_and_dealt_is_made_when_that_hand_ends() -> None:
    """Newcomer, issue 19 (blocker): the room sends the final table its next ``go`` right
    after each hand's report and the table deals it at once; an offer given then was ended
    200 ms later ("a hand is dealt"). Now it waits for that hand, the next go held."""
    r = final_room()
    t1 = r.tables["t1"]
    assert t1.go is not None and t1.go["hand"] == 2  # the room's go, carried out by the table
    n = len(r.sent)
    said = r.d.deal.offer_deal("icm", by="Anna")
    assert said == ("deal offer 1 (icm) at t1: the deal will be offered when hand 2 ends; no next hand is "
                    "dealt meanwhile (Anna)")
    [(kind, ev)] = deals(r, pending=True)
    assert kind == "deal-pending" and (ev["offer"], ev["hand"], ev["by"]) == (1, 2, "Anna")
    assert deals(r, pending=True) == [(kind, ev)]
    assert r.sent[n:] == []  # nothing told the table: it deals the go it holds
    assert r.d.director_status()["deal"]["pending"]
    t1.play()  # the table deals hand 2 (before any order could reach it) and reports it
    biggest = sorted(t1.seats)[0]
    t1.seats[biggest][1] += 40  # the hand moved chips: the offer's stacks are the ones after it
    t1.seats[sorted(t1.seats)[1]][1] -= 40
    r.exchange("t1")
    assert [k for k, _ in deals(r, pending=True)] == ["deal-pending", "deal-offer"]
    made = deals(r)[0][1]
    assert made["offer"] == 1 and made["hands"] == 2 and made["by"] == "Anna"
    assert {p["player"]: p["stack"] for p in made["players"]} == {v[0]: v[1] for v in t1.seats.values()}
    assert t1.view["deal_offer"]["offer"] == 1 and t1.go is None and t1.hands == 2  # no hand 3 meanwhile
    for _ in range(3):
        r.hand("t1")
    assert r.d.deal.offer is not None and t1.hands == 2  # the offer survives: no hand is dealt
    rows = len(r.journal.rows)
    r.d = r.director()  # a restart replays it: open, nothing twice
    assert r.d.restore() and r.d.deal.offer is not None and r.d.deal.pending is None
    assert r.d.deal.offer["hands"] == 2 and len(r.journal.rows) == rows


def test_a_pending_offer_survives_a_restart_is_withdrawn_or_dropped_when_the_players_change() -> None:
    r = final_room()
    t1 = r.tables["t1"]
    r.d.deal.offer_deal("chip-chop", by="Anna")
    with pytest.raises(TournamentError, match="F-3: deal offer 1 is offered already when hand 2 ends"):
        r.d.deal.offer_deal("icm", by="Anna")
    r2 = r
    r2.d = r.director()  # killed with it pending: pending still
    assert r2.d.restore() and r2.d.deal.pending is not None and r2.d.deal.holds("t1")
    n = len(r.sent)
    assert r2.d.deal.withdraw(by="Anna") == "deal offer 1 (offered when hand 2 ends) withdrawn (Anna)"
    assert deals(r)[-1][0] == "deal-end" and r2.d.deal.pending is None and r.sent[n:] == []
    r2.hand("t1")  # the hold is released: play goes on
    r2.hand("t1")
    assert t1.hands == 3 and r2.d.deal.offer is None
    r2.d.deal.offer_deal("icm", by="Anna")  # offer 2, pending for hand 4; a player busts in it
    loser = t1.seats[sorted(t1.seats)[-1]][0]
    r2.bust("t1", loser)
    assert deals(r)[-1][0] == "deal-end" and deals(r)[-1][1]["offer"] == 2
    assert deals(r)[-1][1]["reason"].startswith("the players left changed (5 left)")
    assert r2.d.deal.pending is None and r2.d.deal.offer is None and t1.go is not None  # play goes on


def test_a_pending_offer_is_dropped_when_its_hand_ends_the_tournament() -> None:
    r = final_room()
    t1 = r.tables["t1"]
    r.d.deal.offer_deal("icm", by="Anna")
    winner = sorted(t1.seats)[0]
    t1.play({p: stack for s, (p, stack) in t1.seats.items() if s != winner})  # hand 2: five bust
    r.exchange("t1")
    assert r.d.result is not None and r.d.deal.pending is None and r.d.deal.offer is None
    kind, end = deals(r, pending=True)[-1]
    assert kind == "deal-end" and end["offer"] == 1 and end["pending"] and end["by"] == "room"
    assert end["reason"] == "the tournament is over"
    assert [k for k, _ in deals(r, pending=True)] == ["deal-pending", "deal-end"]
