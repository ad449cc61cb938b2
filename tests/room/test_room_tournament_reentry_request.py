"""A re-entry asked from the busted player's seat tablet at a table of the room's tournament
(issue 19, TDA 9): the room offers it at the seat he busted from (the view's ``reentry``)
while late registration is open and he has re-entries left; the table's request (a report's
``requests`` of kind ``reentry``, for the player the table saw bust there, sent once the
dealer took the money and confirmed the tablet's ask, T-3) is taken as
:meth:`room.tournament.RoomTournament.register` ``by`` the confirming dealer once, and
answered in the table's next order (``{"entry": {table, table_name, seat}}`` or ``{"why"}``).
A request by the player's own tablet (``player via table t seat n``: nobody took the money) is
refused, nothing booked.
The harness of test_room_tournament_register.py / test_room_tournament_purchases.py."""

from __future__ import annotations

import json
from typing import Any

from room.tournament_view import order_view
from tests.room.test_room_tournament_purchases import BuyTable
from tests.room.test_room_tournament_register import LATE_TOML, TABLES, Room


def busted_room() -> tuple[Room, str, int]:
    """Three tables of 7; the first player of t1 busts. Returns the room, him and his seat."""
    r = Room(0)
    r.tables = {t: BuyTable(t) for t in TABLES}
    r.d.start(21, 7)
    r.exchange(*TABLES)
    seat, (player, _) = next(iter(r.tables["t1"].seats.items()))
    r.bust("t1", player)
    assert player not in r.d.standings.alive
    return r, player, seat


def ask(r: Room, rid: int, seat: int, player: str, table: str = "t1") -> dict[str, Any]:
    """``table`` asks a re-entry for ``player`` at ``seat`` (its request ``rid``, the dealer
    Dee confirmed the tablet's ask); the room takes it between hands; return its answer (the
    order that carries it)."""
    t = r.tables[table]
    t.requests[rid] = {"kind": "reentry", "seat": seat, "player": player, "by": "floor:Dee",
                       "reason": f"asked at the tablet of table {table} seat {seat}"}
    n = len(r.sent)
    r.hand(table)
    answer = next(o["answers"][str(rid)] for o in r.sent[n:] if str(rid) in (o.get("answers") or {}))
    return answer


def registers(r: Room) -> list[dict[str, Any]]:
    return [p for k, p in r.journal.rows if k == "register"]


def test_tda9_the_busted_seat_is_offered_a_re_entry_and_the_request_books_one_entry() -> None:
    r, player, seat = busted_room()
    assert order_view(r.d, "t1")["reentry"] == {str(seat): {"left": 1, "until_level": 2}}
    assert r.sent[-1]["view"]["reentry"] == {str(seat): {"left": 1, "until_level": 2}}  # the table hears it
    assert order_view(r.d, "t2")["reentry"] == {}  # only at the seat he busted from
    answer = ask(r, 1, seat, player)
    entry = answer["entry"]
    assert set(entry) == {"table", "table_name", "seat"} and entry["table"] in TABLES
    st = r.d.standings
    assert st.entries_of(player) == 2 and len(st.entries) == 22 and player in st.alive
    [reg] = registers(r)
    assert (reg["player"], reg["by"], reg["request"], reg["reentry"]) == (player, "floor:Dee", "t1:1", True)
    r.hand(*TABLES)  # seated where the room drew, with a full starting stack
    assert [v for v in r.tables[entry["table"]].seats.values() if v[0] == player] == [[player, 2000]]
    assert r.tables[entry["table"]].seats[entry["seat"]][0] == player and not r.d.problems, r.d.problems
    assert order_view(r.d, "t1")["reentry"] == {}  # in again: nothing offered


def test_a_double_press_a_retry_or_a_room_restart_books_one_entry() -> None:
    r, player, seat = busted_room()
    # two presses in one report (two request ids): the first books him, the second is refused
    r.tables["t1"].requests[2] = {"kind": "reentry", "seat": seat, "player": player, "by": "x", "reason": None}
    first = ask(r, 1, seat, player)
    assert "entry" in first
    second = r.tables["t1"].answers[2]
    assert "still in the tournament" in second["why"] and "registered already" in second["why"]
    # the table did not hear the answer (a lost order): it sends request 1 again, same answer
    assert ask(r, 1, seat, player) == first
    # another press once he is seated again: refused, nothing booked
    assert "has no busted player" in ask(r, 3, seat, player)["why"]
    # the room restarts: request 1 is still answered with his entry, never booked again
    r.d = r.director()
    assert r.d.restore()
    assert ask(r, 1, seat, player) == first
    assert len(registers(r)) == 1 and r.d.standings.entries_of(player) == 2 and len(r.d.standings.entries) == 22
    r.d.check()
    assert not r.d.problems, r.d.problems


def test_refused_with_the_reason_closed_window_no_re_entries_left_not_his_seat() -> None:
    r, player, seat = busted_room()
    # a forged request: a player who did not bust from that seat (he sits at t2)
    other_seat, (other, _) = next(iter(r.tables["t2"].seats.items()))
    assert "has no busted player" in ask(r, 1, seat, other)["why"]
    assert "has no busted player" in ask(r, 2, other_seat, player, table="t2")["why"]
    # no re-entries left: re-entered once, busts again
    ask(r, 3, seat, player)
    r.hand(*TABLES)
    table, at = next((t, n) for t, ft in r.tables.items() for n, v in ft.seats.items() if v[0] == player)
    r.bust(table, player)
    assert order_view(r.d, table)["reentry"] == {}
    why = ask(r, 1, at, player, table=table)["why"]
    assert why.startswith("TDA 9:") and "has used all 1 re-entries" in why
    assert len(registers(r)) == 1
    # late registration closed (level 3): nothing offered, the request refused in words
    r2, p2, s2 = busted_room()
    r2.time[0] = 190.0
    assert order_view(r2.d, "t1")["reentry"] == {}
    assert "late registration closed at the end of level 2" in ask(r2, 1, s2, p2)["why"]
    assert registers(r2) == [] and r2.d.standings.entries_of(p2) == 1
    # a freezeout offers nothing
    f = Room(0, toml=LATE_TOML.replace("reentry = { max = 1 }", ""))
    f.d.start(21, 7)
    f.exchange(*TABLES)
    fseat, (fp, _) = next(iter(f.tables["t1"].seats.items()))
    f.bust("t1", fp)
    assert order_view(f.d, "t1")["reentry"] == {}


def test_real_tables_journal_the_seat_each_player_busted_from(tmp_path: Any) -> None:
    """The table names the player of a re-entry request by the seat he busted from: its
    ``bust`` journal entries keep ``seats`` (``{player: seat}``), the seat the hand's own
    record has him in, for every bust of a tournament played by real table processes."""
    import json as _json

    from tests.room.test_room_tournament import run_room, table_events

    summary = run_room(tmp_path, 2, 12, 3)
    assert summary["ok"], summary["_stderr"][-3000:]
    seen = 0
    for t in ("t1", "t2"):
        for e in table_events(tmp_path / "room" / t / "journal.sqlite"):
            if e["type"] != "bust":
                continue
            rec = next(r for f in (tmp_path / "room" / t / "hands").glob("hand-*.json")
                       if (r := _json.loads(f.read_text()))["hand"] == e["hand"])
            assert set(e["seats"]) == set(e["busted"])
            for player, seat in e["seats"].items():
                assert rec["players"][str(seat)]["player"] == player
                seen += 1
    assert seen == 11  # every player but the winner busted once, at a seat


def test_a_long_refusal_still_fits_the_order_the_table_takes(monkeypatch: Any) -> None:
    """A refusal's words longer than an order's answer may hold (300 characters: many tables
    named in "wait until t1, t2, ... report") are cut, so the table still takes the order."""
    from controller.tournament.errors import TournamentError
    from controller.tournament_link import decode_order

    r, player, seat = busted_room()

    def refuse(*a: Any, **k: Any) -> str:
        raise TournamentError("F-3: no seat is known to be free: wait until " + ", ".join(f"t{n}" for n in range(99)))

    monkeypatch.setattr(r.d, "register", refuse)
    why = ask(r, 1, seat, player)["why"]
    assert len(why) == 300 and why.startswith("F-3: no seat is known to be free")
    order = next(o for o in reversed(r.sent) if o.get("answers"))
    assert decode_order(json.dumps(order).encode(), order["table"], 10)["answers"][1] == {"why": why}


def test_a_request_before_the_room_took_the_bust_waits_for_it_not_refused_still_in() -> None:
    """Breaker: hand-for-hand, the room takes a hand's busts once every table finished it
    (TDA: one hand for places). A re-entry asked at the busted player's tablet as his table
    reports (the request in the same report as the bust) was refused at once "still in the
    tournament (a re-entry comes after a bust)": the seat showed the refusal though he was
    out. The request waits for the room to take the bust, then books his re-entry."""
    r = Room(0)
    r.tables = {t: BuyTable(t) for t in TABLES}
    r.d.start(21, 7)
    r.exchange(*TABLES)
    r.d.hand_for_hand = lambda: True  # type: ignore[method-assign] # the bubble, late registration open
    t1 = r.tables["t1"]
    seat, (player, stack) = next(iter(t1.seats.items()))
    for t in ("t1", "t3"):  # t2 is still playing its hand
        r.tables[t].play({player: stack} if t == "t1" else None)
    t1.requests[1] = {"kind": "reentry", "seat": seat, "player": player, "by": "floor:Dee", "reason": None}
    r.exchange("t1", "t3")
    assert player in r.d.standings.alive  # the bust waits for t2's hand
    assert 1 not in t1.answers, t1.answers.get(1)  # not refused: it waits
    r.hand("t2")
    r.exchange(*TABLES)
    assert player in r.d.standings.alive and r.d.standings.entries_of(player) == 2  # out, then in again
    assert "entry" in t1.answers[1], t1.answers[1]
    assert len(registers(r)) == 1 and not r.d.problems, r.d.problems


def test_a_re_entry_sent_by_the_players_tablet_itself_is_refused_and_nothing_is_booked() -> None:
    """Breaker (high, money): a re-entry pressed at an empty seat's tablet reached the room as
    it came (``by="player via table t1 seat 5"``) and the room registered him, his entry's
    price in the prize pool, though nobody took the money. The table now sends it only once
    the dealer confirmed (T-3); a request of the tablet's own (an older table) is refused:
    no entry, nothing into the prize pool."""
    r, player, seat = busted_room()
    t = r.tables["t1"]
    t.requests[1] = {"kind": "reentry", "seat": seat, "player": player,
                     "by": f"player via table t1 seat {seat}", "reason": None}
    n = len(r.sent)
    r.hand("t1")
    answer = next(o["answers"]["1"] for o in r.sent[n:] if "1" in (o.get("answers") or {}))
    assert answer["why"].startswith("T-3: a re-entry is paid to the dealer")
    # no entry: nothing into the prize pool (the pool is the entries' prices)
    assert registers(r) == [] and r.d.standings.entries_of(player) == 1 and len(r.d.standings.entries) == 21
    assert "entry" in ask(r, 2, seat, player)  # confirmed by the dealer: booked
