"""``late_registration_free_seats``: the seats a table break keeps for late entries (TDA 9, 10)."""

from __future__ import annotations

import pytest

from controller.tournament.errors import SettingsError
from controller.tournament.settings import load_settings

from .helpers import TOML


def test_tda_9_the_late_entry_seat_reserve_defaults_to_one_tables_seats() -> None:
    s = load_settings(TOML)
    assert s.late_registration_free_seats is None and s.late_free_seats == s.seats_per_table == 9
    s = load_settings(TOML.replace("seats_per_table = 9", "seats_per_table = 9\nlate_registration_free_seats = 0"))
    assert s.late_free_seats == 0
    s = load_settings(TOML.replace("seats_per_table = 9", "seats_per_table = 9\nlate_registration_free_seats = 4"))
    assert s.late_free_seats == 4


@pytest.mark.parametrize("value", ["-1", "2.5", "true", '"nine"', "[3]", "1000001"])
def test_tda_9_a_bad_late_entry_seat_reserve_is_one_settings_problem_naming_the_key(value: str) -> None:
    with pytest.raises(SettingsError) as info:
        load_settings(TOML.replace("seats_per_table = 9", f"seats_per_table = 9\nlate_registration_free_seats = {value}"))
    (problem,) = info.value.problems
    assert problem.startswith("late_registration_free_seats: the seats kept free for late entries")
    assert "a whole number 0..1000000, got " in problem
