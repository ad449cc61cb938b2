"""The helpers between the tournament and the table session (controller/tournament/table.py)."""

from __future__ import annotations

import pytest

from controller.tournament.errors import TournamentError
from controller.tournament.settings import Level
from controller.tournament.table import busts_of, level_stakes


def test_tda_23_level_stakes_are_the_levels_blinds_and_antes() -> None:
    lv = Level(number=4, small_blind=100, big_blind=200, minutes=20, big_blind_ante=200)
    assert level_stakes(lv) == {"small_blind": 100, "big_blind": 200, "ante": 0, "big_blind_ante": 200}
    with pytest.raises(TournamentError):
        level_stakes("break")  # type: ignore[arg-type]


def test_tda_simultaneous_eliminations_busts_of_reads_the_starting_stacks() -> None:
    assert busts_of({"busted": {"ann": 300, "bob": 500}}) == {"ann": 300, "bob": 500}
    assert busts_of({"busted": {}}) == {}
    with pytest.raises(TournamentError, match="not a tournament table"):
        busts_of({"hand": 3})
    with pytest.raises(TournamentError, match="ann"):
        busts_of({"busted": {"ann": 0}})
