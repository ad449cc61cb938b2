"""``livetable room director``'s output in words (issue 19 usability): counts with their plural
(``1 player left``, not ``1 players left``)."""

from __future__ import annotations

from room import director_cli

STATUS = {"level": {"number": 9, "small_blind": 1000, "big_blind": 2000, "big_blind_ante": 2000},
          "next_level": None, "seconds_left": None, "players_left": 1, "entries": 2, "average_stack": 20000,
          "prize_pool": 200, "places_paid": 1, "finished": True,
          "tables": [{"table": "t1", "name": "t1", "players": 1, "hands": 1, "playing": False, "broken": False},
                     {"table": "t2", "name": "Birch", "players": 0, "hands": 2, "playing": False, "broken": False}]}


def test_status_counts_say_one_in_the_singular() -> None:
    head, t1, t2 = director_cli.status_lines(STATUS)
    assert "; 1 player left of 2 entries," in head and "(1 place paid)" in head
    assert t1 == "t1: 1 player, 1 hand"
    assert t2 == "t2 Birch: 0 players, 2 hands"
    many = director_cli.status_lines({**STATUS, "players_left": 12, "entries": 1, "places_paid": 3})[0]
    assert "12 players left of 1 entry," in many and "(3 places paid)" in many
