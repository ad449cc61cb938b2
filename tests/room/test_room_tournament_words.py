"""What the room's tournament tells a person (issue 19, a newcomer's findings): players by name,
one line per move with its reason and TDA rule, levels with their antes, hand-for-hand on and
off, ``1 player left``; the summary's places by name beside their ids."""

from __future__ import annotations

import logging
import re

from controller.tournament.balancing import Move
from room.tournament import move_line

from tests.room.test_room_tournament_director import exchange, room


def test_a_move_reads_as_tables_seats_name_and_reason() -> None:
    assert move_line(Move("p17", "t3", 2, "t1", 6, "balance"), "Player 17") == \
        "t3 seat 2 Player 17 → t1 seat 6 (balancing, TDA 11)"
    assert move_line(Move("p4", "t2", 5, "t1", 3, "break+redraw"), "Player 4") == \
        "t2 seat 5 Player 4 → t1 seat 3 (table broken, TDA 10; final table redraw)"


def test_the_rooms_log_names_players_and_says_levels_and_hand_for_hand(caplog) -> None:
    caplog.set_level(logging.INFO, logger="livetable.room.tournament")
    d, tables, sent, _journal = room()
    exchange(d, tables, sent, "t1", "t2")
    t1, t2 = tables["t1"], tables["t2"]
    p1, s1 = next(iter(t1.seats.values()))
    p2, s2 = next(iter(t2.seats.values()))
    t1.play({p1: s1})
    t2.play({p2: s2})
    exchange(d, tables, sent, "t1", "t2")
    lines = [r.getMessage() for r in caplog.records]
    assert any(ln.startswith("seats drawn (TDA 7): Player ") for ln in lines), lines
    assert "level 1: blinds 25/50 (TDA 23)" in lines
    assert any(re.fullmatch(r"Player \d+, Player \d+ out; 10 players left", ln) for ln in lines), lines
    assert "hand-for-hand on (10 players left)" in lines  # nine paid of 12: the bubble
    assert not any(re.search(r"\bp\d+\b", ln) for ln in lines), lines
    # play it down at t1 and t2 to a winner: the summary's names follow its places
    while d.result is None:
        for t in (t1, t2):
            if t.go and len(t.seats) >= 2:
                loser = sorted(t.seats)[-1]
                p, stack = t.seats[loser]
                t.play({p: stack})
        exchange(d, tables, sent, "t1", "t2")
    lines = [r.getMessage() for r in caplog.records]
    assert any(ln.endswith("; 1 player left") for ln in lines) and not any("1 players" in ln for ln in lines)
    assert any(re.fullmatch(r"hand-for-hand off \([89] players left\)", ln) for ln in lines), lines
    s = d.summary()
    assert s["names"] == [d.names[p] for p in s["places"]] and s["names"][0].startswith("Player ")
    over = next(ln for ln in lines if ln.startswith("the tournament is over: 1st "))
    assert f"1st {s['names'][0]} {s['payouts'][0]}" in over
