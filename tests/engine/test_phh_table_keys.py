"""Nonsense in a hand history's table keys is refused with the key named (issue 16, d): the
breaker's float stacks in a table's hand, a seat list of 1,999 entries and ``_rake = 10**50``
were accepted by ``livetable replay``."""

from __future__ import annotations

import pytest

from controller.engine.phh import PHHError, load
from controller.engine.replay import replay_file

TABLE_HAND = """variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [1000, 1000, 1000]
seats = [2, 3, 1]
actions = ["d dh p1 AsKs", "d dh p2 QdQc", "d dh p3 7h2c", "p3 f", "p1 f"]
finishing_stacks = [950, 1050, 1000]
_smallest_chip = 1
_rake = 0
_rake_paid = [0, 0, 0]
"""


def test_a_sound_table_hand_loads_and_replays(tmp_path):
    assert load(TABLE_HAND).starting_stacks == [1000, 1000, 1000]
    f = tmp_path / "h.phh"
    f.write_text(TABLE_HAND)
    out = replay_file(f)
    assert out["error"] is None and out["finishing_stacks"] == [950, 1050, 1000]


@pytest.mark.parametrize("old,new,key", [
    ("starting_stacks = [1000, 1000, 1000]", "starting_stacks = [1000.5, 1000, 1000]", "starting_stacks"),
    ("min_bet = 100", "min_bet = 100.25", "min_bet"),
    ("seats = [2, 3, 1]", "seats = [" + ", ".join(str(k % 9 + 1) for k in range(1999)) + "]", "seats"),
    ("seats = [2, 3, 1]", "seats = [2, 3, 11]", "seats"),
    ("seats = [2, 3, 1]", "seats = [2, 2, 1]", "seats"),
    ("seats = [2, 3, 1]", "seats = [2, 3, 1]\nseat_count = 1999", "seat_count"),
    ("_rake = 0", "_rake = " + str(10**50), "_rake"),
    ("_rake = 0", "_rake = 3001", "_rake"),
    ("_rake = 0", "_rake = 1.5", "_rake"),
    ("_rake_paid = [0, 0, 0]", "_rake_paid = [0, 0, 5]", "_rake_paid"),
    ("_smallest_chip = 1", "_smallest_chip = 0.5", "_smallest_chip"),
    ("_rake = 0", '_rake = 0\n_rake_percent = "5"\n_rake_caps = [[2, 1e40]]', "_rake_caps"),
])
def test_nonsense_in_a_table_hand_is_refused_with_its_key(old, new, key, tmp_path):
    assert old in TABLE_HAND
    text = TABLE_HAND.replace(old, new)
    with pytest.raises(PHHError, match=f"PHH: {key}"):
        load(text)
    f = tmp_path / "h.phh"
    f.write_text(text)
    assert replay_file(f)["error"].startswith(f"PHH: {key}")


def test_decimal_amounts_from_elsewhere_still_scale():
    """A hand history written in currency units (PHH's Antonius-Blom) is not a table's hand."""
    text = TABLE_HAND.replace("_smallest_chip = 1\n_rake = 0\n_rake_paid = [0, 0, 0]\n", "").replace(
        "starting_stacks = [1000, 1000, 1000]", "starting_stacks = [1000.5, 1000, 1000]")
    assert load(text).scale == 10
