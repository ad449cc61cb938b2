"""The button at the room's redrawn final table (issue 19, "Multi-table, still missing").

When the final table is formed its seats are redrawn (``balancing.final_table_redraw``) and
its button is drawn again by cards: one card face up to each of its players, seat 1 upwards,
the highest card (rank, then suit) wins (``button.button_draw``; seeded: the same on a
restart, the cards journalled with the round), its first ``go`` carries the winner's seat as
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
    n_rows = len(d.journal.rows)
    t1, t2 = tables["t1"], tables["t2"]
    t1.play({p: s for p, s in list(t1.seats.values())[1:3]})
    t2.play({p: s for p, s in list(t2.seats.values())[1:3]})
    n = len(sent)
    exchange(d, tables, sent, "t1", "t2")
    rounds = [p for k, p in d.journal.rows[n_rows:] if k == "round" and p.get("buttons")]
    assert len(rounds) == 1, "one redraw round, with its button"
    assert all("redraw" in m["reason"] for m in rounds[0]["moves"])
    (button,) = rounds[0]["buttons"]
    assert button["why"] == "final" and button["table"] == "t1"
    return n, button["player"]


def final_draw(journal: Any) -> dict[str, Any]:
    """The final table's draw for the button as journalled with its round."""
    return next(b for k, p in journal.rows if k == "round" for b in p.get("buttons", []) if b["why"] == "final")


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
    assert d2._buttons["t1"]["player"] == player
    assert d2._buttons["t1"]["draw"] == final_draw(journal)["draw"]  # the same cards
    d3, _ = restored(journal)  # the go with its button was journalled: never given twice
    assert d3._buttons == {}
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
    link.orch = mock.Mock(state=b.state)  # the link reads the seats to log where the button goes
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


# ---------------------------------------------------------------- the draw for the button by cards

def start_draws(journal: Any) -> dict[str, dict[str, Any]]:
    """The start's draws for the button by table, as journalled with the start's round."""
    (first,) = [p for k, p in journal.rows if k == "round"][:1]
    return {b["table"]: b for b in first.get("buttons", [])}


def assert_highest_card_wins(b: dict[str, Any], seats: dict[int, Any]) -> None:
    """``b``'s button is its highest card by rank, then suit (spades, hearts, diamonds, clubs),
    and its player holds that seat in ``seats`` (seat -> [player, stack])."""
    from controller.tournament.chiprace import card_order

    cards = {int(s): c for s, c in b["draw"]["cards"].items()}
    best = max(cards, key=lambda s: card_order(cards[s]))
    assert b["seat"] == b["draw"]["button"] == best
    assert sorted(cards) == sorted(seats), "one card to each player at the table, absent or not"
    assert seats[best][0] == b["player"]


def test_wsop_85_each_table_of_the_rooms_start_draw_draws_for_the_button_by_cards(caplog) -> None:
    """At the start every table's players are dealt a card each; the highest card's seat is
    the button of that table's first hand (its first go); later gos carry none (T-1)."""
    caplog.set_level("INFO", logger="livetable.room.tournament")
    d, tables, sent, journal = room()
    draws = start_draws(journal)
    assert set(draws) == {"t1", "t2"} and all(b["why"] == "start" for b in draws.values())
    exchange(d, tables, sent, "t1", "t2")
    for t in ("t1", "t2"):
        assert_highest_card_wins(draws[t], tables[t].seats)
        gos = [o["go"] for o in sent if o["table"] == t and o["go"]]
        assert gos[0]["hand"] == 1 and gos[0]["button"] == draws[t]["seat"]
    said = [r.getMessage() for r in caplog.records if "button draw" in r.getMessage()]
    assert len(said) == 2 and all("— button seat" in m and "WSOP 85" in m for m in said), said
    assert f"seat {draws['t1']['seat']} {draws['t1']['draw']['cards'][str(draws['t1']['seat'])]}" in said[0]
    for t in ("t1", "t2"):
        tables[t].play()
    n = len(sent)
    exchange(d, tables, sent, "t1", "t2")
    later = [o["go"] for o in sent[n:] if o["go"]]
    assert later and all("button" not in g for g in later)


def test_wsop_85_the_rooms_start_draw_for_the_button_is_the_same_after_a_restart() -> None:
    """Killed after the start (its round journalled with the cards) before any table's first
    go: the restored room gives each table the same button and cards; the same seed draws the
    same cards again; once a table's go carried its button it is never given twice."""
    d, tables, sent, journal = room()
    draws = start_draws(journal)
    d2, sent2 = restored(journal)
    assert {t: b["draw"] for t, b in d2._buttons.items()} == {t: b["draw"] for t, b in draws.items()}
    tables2 = {t: type(tables[t])(t) for t in tables}
    exchange(d2, tables2, sent2, "t1", "t2")
    for t in ("t1", "t2"):
        go = next(o["go"] for o in sent2 if o["table"] == t and o["go"])
        assert go["button"] == draws[t]["seat"]
    d3, _ = restored(journal)  # the gos with their buttons are journalled now
    assert d3._buttons == {}
    _d4, _, _, journal4 = room()
    assert start_draws(journal4) == draws  # the tournament's seed: the same cards


def test_wsop_85_the_redrawn_final_tables_button_is_the_highest_card_dealt_at_its_new_seats() -> None:
    d, tables, sent, journal = room()
    n, player = to_final_table(d, tables, sent)
    b = final_draw(journal)
    assert b["player"] == player
    assert_highest_card_wins(b, tables["t1"].seats)
    go = next(o["go"] for o in sent[n:] if o["table"] == "t1" and o["go"])
    assert go["button"] == b["seat"]


def test_a_drawn_button_whose_player_left_the_table_is_said_and_not_given(caplog) -> None:
    """The room gives a drawn button only at the seat its winner holds at that table now;
    else (he left it before its first hand) it says so and the table's rotation places it."""
    d, tables, sent, journal = room()
    d._buttons["t1"]["player"] = "p999"  # as if the winner had left t1 before its first go
    exchange(d, tables, sent, "t1", "t2")
    go = next(o["go"] for o in sent if o["table"] == "t1" and o["go"])
    assert "button" not in go and "t1" not in d._buttons
    assert any("no longer sits there" in r.getMessage() for r in caplog.records)


def test_an_older_journals_final_table_button_drawn_at_random_is_still_given() -> None:
    """A round journalled before the draw by cards holds ``button`` ``{table, player}``."""
    d, tables, sent, journal = room()
    exchange(d, tables, sent, "t1", "t2")
    rows = [(k, dict(p)) for k, p in journal.rows]
    player = tables["t1"].seats[min(tables["t1"].seats)][0]
    rows.append(("round", {"tables": [], "moves": [], "button": {"table": "t1", "player": player}}))
    old = type(journal)()
    old.rows = rows
    d2, _ = restored(old)
    assert d2._buttons["t1"]["player"] == player and d2._buttons["t1"]["why"] == "final"


def test_tda_an_absent_player_keeps_the_button_the_room_drew_for_him_and_an_empty_seat_is_logged(caplog) -> None:
    """Absent players are dealt in and blinded in a tournament (TDA): the player who won the
    draw keeps the button while sitting out (his card was dealt as everyone's); a button seat
    with nobody left in it goes to the table's lowest seat with chips, now said in the log
    (before: silently)."""
    link = RoomTournamentSeat("t1", host="127.0.0.1", port=1)
    b = seated({1: 5000, 2: 5000, 3: 5000, 5: 5000, 7: 5000}, TOUR)
    b.do(ev.HandStartRequested, button=1)
    fold_around(b)
    b.do(ev.SatOut, seat=5)
    link.orch = mock.Mock(state=b.state)
    link.go = {"hand": b.state.hands + 1, "stakes": {"small_blind": 100, "big_blind": 200}, "button": 5}
    with caplog.at_level("INFO", logger="livetable.tournament.link"):
        fields = link.hand_start()
    assert any("away and keeps the button" in r.getMessage() for r in caplog.records)
    b.do(ev.HandStartRequested, **fields)
    assert rotation(b)[0] == 5 and 5 in b.state.info.dealt
    fold_around(b)
    caplog.clear()
    link.orch = mock.Mock(state=b.state)  # the table's state after that hand
    link.go = {"hand": b.state.hands + 1, "stakes": {"small_blind": 100, "big_blind": 200}, "button": 4}
    with caplog.at_level("INFO", logger="livetable.tournament.link"):
        fields = link.hand_start()
    warned = [r for r in caplog.records if r.levelname == "WARNING"]
    assert warned and "seat 4 finds no player with chips" in warned[0].getMessage()
    b.do(ev.HandStartRequested, **fields)
    assert rotation(b)[0] == 1  # the lowest seat with chips
