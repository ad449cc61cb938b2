"""Nonsense in a hand history's table keys is refused with the key named (issue 16, d): the
breaker's float stacks in a table's hand, a seat list of 1,999 entries and ``_rake = 10**50``
were accepted by ``livetable replay``."""

from __future__ import annotations

import re

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


# -- issue 16 round 2 (finding 9): what the breaker's second attack still passed ----------------

RAKED = """variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [50, 100, 0]
min_bet = 100
starting_stacks = [1000, 1000, 1000]
seats = [2, 3, 1]
actions = ["d dh p1 AsKs", "d dh p2 QdQc", "d dh p3 7h2c", "p3 cc", "p1 cc", "p2 cc", "d db 2h3h4d",
           "p1 cc", "p2 cc", "p3 cc", "d db 9s", "p1 cc", "p2 cc", "p3 cc", "d db Jc", "p1 cc", "p2 cc",
           "p3 cc", "p1 sm AsKs", "p2 sm QdQc", "p3 sm 7h2c"]
finishing_stacks = [900, 1185, 900]
table = "t1"
hand = 7
players = ["Ann", "Bob", "Cy"]
day = 2
month = 12
year = 2026
_player_ids = ["a", "b", "c"]
_button = 1
_small_blind_seat = 2
_big_blind_seat = 3
_started = 1796196403.5
_ended = 1796196404.0
_smallest_chip = 1
_rake = 15
_rake_percent = "5"
_rake_caps = [[2, 300]]
_no_flop_no_drop = true
_draw_counts_as_flop = true
_rake_paid = [0, 15, 0]
_shown = ["p1", "p2", "p3"]
_mucked = []
"""


def _replay(tmp_path, text: str) -> dict:
    f = tmp_path / "h.phh"
    f.write_text(text, encoding="utf-8")
    return replay_file(f)


def test_a_raked_table_hand_replays_as_written(tmp_path):
    out = _replay(tmp_path, RAKED)
    assert out["error"] is None, out
    assert sum(out["finishing_stacks"]) + 15 == 3000  # stacks + rake = the chips brought in


@pytest.mark.parametrize("rake", [0, 5, 300])
def test_a_rake_the_replay_does_not_take_is_reported(rake, tmp_path):
    text = RAKED.replace("_rake = 15", f"_rake = {rake}").replace("_rake_paid = [0, 15, 0]",
                                                               f"_rake_paid = [0, {rake}, 0]")
    out = _replay(tmp_path, text)
    assert out["error"] is not None and out["error"].startswith(f"PHH: _rake {rake} disagrees with the replay"), out
    assert "takes 15" in out["error"]


def test_finishing_stacks_that_disagree_with_the_replay_are_reported(tmp_path):
    out = _replay(tmp_path, RAKED.replace("finishing_stacks = [900, 1185, 900]",
                                          "finishing_stacks = [900, 319, 900]"))
    assert out["error"] == "PHH: finishing_stacks [900, 319, 900] disagree with the replay's [900, 1185, 900]"


@pytest.mark.parametrize("old,new,key", [
    ("starting_stacks = [1000, 1000, 1000]", "starting_stacks = [1000.0, 1000, 1000]",
     "starting_stacks must be whole chips"),
    ("seats = [2, 3, 1]", "seats = [2.0, 3, 1]", "seats must be seat numbers"),
    ("_rake = 15", "_rake = 15.0", "_rake must be whole chips"),
    ("_rake_caps = [[2, 300]]", "_rake_caps = [[2, 300.0]]", "_rake_caps (cap) must be whole chips"),
    ("finishing_stacks = [900, 1185, 900]", "finishing_stacks = [900.0, 1185, 900]",
     "finishing_stacks must be whole chips"),
    ("hand = 7", "hand = -1", "hand must be 1.."),
    ("hand = 7", "hand = 1.5", "hand must be a whole number"),
    ('table = "t1"', "table = 5", "table must be the table's id"),
    ('table = "t1"', 'table = ""', "table must be the table's id"),
    ("_button = 1", "_button = 99", "_button must be 1..10"),
    ("_button = 1", "_button = true", "_button must be a seat number"),
    ('_player_ids = ["a", "b", "c"]', '_player_ids = ["a", "a", "a"]', "_player_ids must be different players"),
    ('players = ["Ann", "Bob", "Cy"]\n', 'players = ["Ann", "Ann", "Ann"]\n', None),
    ('players = ["Ann", "Bob", "Cy"]', 'players = ["\\u202eAnn", "Bob", "Cy"]', "players: "),
    ("_started = 1796196403.5", "_started = nan", "_started must be Unix seconds"),
    ("_started = 1796196403.5", "_started = inf", "_started must be Unix seconds"),
    ("_ended = 1796196404.0", "_ended = 1.0", "_ended (1.0) is before _started"),
    ("day = 2", "day = 45", "day must be 1..31"),
    ("day = 2\nmonth = 12", "day = 31\nmonth = 11", "day/month/year is not a date"),
    ('_shown = ["p1", "p2", "p3"]', '_shown = ["p99", 5]', "_shown must list different players"),
])
def test_more_nonsense_in_a_table_hand_is_refused(old, new, key, tmp_path):
    assert old in RAKED
    text = RAKED.replace(old, new)
    if key is None:  # six identical names: refused only without different _player_ids
        assert _replay(tmp_path, text)["error"] is None
        text = text.replace('_player_ids = ["a", "b", "c"]\n', "")
        key = "players must be 3 different names"
    out = _replay(tmp_path, text)
    assert out["error"] is not None and out["error"].startswith(f"PHH: {key}"), out


def test_seats_are_not_called_chips():
    with pytest.raises(PHHError, match="PHH: seats must be seat numbers, got True"):
        load(TABLE_HAND.replace("seats = [2, 3, 1]", "seats = [true, 3, 1]"))


def test_a_hand_from_elsewhere_keeps_its_decimals_and_its_own_metadata(tmp_path):
    """PHH allows decimals and a numeric table; only a table's own hand is held to its rules."""
    text = ('variant = "NT"\nantes = [0, 0]\nblinds_or_straddles = [0.5, 1.0]\nmin_bet = 1.0\n'
            'starting_stacks = [100.0, 100.0]\nactions = ["d dh p1 AsKs", "d dh p2 QdQc", "p2 f"]\n'
            'table = 5\nhand = 3\nplayers = ["Hero", "Hero"]\nfinishing_stacks = [100.5, 99.5]\n')
    out = _replay(tmp_path, text)
    assert out["error"] is None and out["finishing_stacks"] == [100.5, 99.5], out


def test_rake_booked_to_a_player_who_won_nothing_is_reported(tmp_path):
    out = _replay(tmp_path, RAKED.replace("_rake_paid = [0, 15, 0]", "_rake_paid = [15, 0, 0]"))
    assert out["error"] == ("PHH: _rake_paid [15, 0, 0] disagrees with the replay, whose pots' winners paid "
                            "[0, 15, 0]"), out


# -- the lows left by issue 16 (brief L, item 1): fields that contradict each other ------------

@pytest.mark.parametrize("old,new,key", [
    ("_mucked = []", '_mucked = ["p3"]', "_mucked names p3, whom _shown lists too"),
    ("_mucked = []", '_mucked = []\n_auto = [["p7", "fold", "A-2"]]', "_auto names 'p7', not one of the players"),
    ("_mucked = []", '_mucked = []\n_auto = [["Ann", "fold", "A-2"]]', "_auto names 'Ann'"),
    ("_mucked = []", '_mucked = []\n_auto = [["p1", "fold"]]', "_auto must list [player, action, rule]"),
    ("_mucked = []", '_mucked = []\n_auto = [["p1", "fold", "A-2\\n"]]', "_auto entry"),
    ("year = 2026", 'year = 2026\ntime = 12:00:00\ntime_zone = "Mars/Olympus"', "time_zone must be a time zone"),
    ("year = 2026", 'year = 2026\ntime_zone = "../../etc/passwd"', "time_zone must be a time zone"),
    ("year = 2026", "year = 2026\ntime_zone = 5", "time_zone must be a time zone"),
    ("_small_blind_seat = 2", "_small_blind_seat = 1",
     "_small_blind_seat = 1 disagrees with the blinds posted: seat 2 (p1) posted the small blind"),
    ("_small_blind_seat = 2", "_small_blind_seat = 0", "_small_blind_seat = 0 disagrees"),
    ("_big_blind_seat = 3", "_big_blind_seat = 2",
     "_big_blind_seat = 2 disagrees with the blinds posted: seat 3 (p2) posted the big blind"),
])
def test_fields_that_contradict_each_other_are_refused_with_the_key(old, new, key, tmp_path):
    assert old in RAKED
    text = RAKED.replace(old, new)
    with pytest.raises(PHHError, match=re.escape(f"PHH: {key}")):
        load(text)
    out = _replay(tmp_path, text)
    assert out["error"] is not None and out["error"].startswith(f"PHH: {key}"), out


@pytest.mark.parametrize("extra", [
    '_auto = [["p3", "fold", "A-2"], ["p1", "fold", "absent"]]',
    'time = 12:00:00\ntime_zone = "UTC"',
    'time_zone = "Europe/Amsterdam"',
])
def test_consistent_fields_still_load(extra, tmp_path):
    out = _replay(tmp_path, RAKED.replace("year = 2026", "year = 2026\n" + extra))
    assert out["error"] is None, out


def test_a_dead_small_blind_is_seat_zero():
    """T-1: a dead small blind (small_blind_player = 0) is _small_blind_seat = 0; any seat is refused."""
    text = (TABLE_HAND.replace("blinds_or_straddles = [50, 100, 0]", "blinds_or_straddles = [0, 100, 0]")
            .replace('actions = ["d dh p1 AsKs", "d dh p2 QdQc", "d dh p3 7h2c", "p3 f", "p1 f"]',
                     'actions = ["d dh p1 AsKs", "d dh p2 QdQc", "d dh p3 7h2c", "p3 f", "p1 f"]\n'
                     "small_blind_player = 0\nbig_blind_player = 2")
            .replace("finishing_stacks = [950, 1050, 1000]", "finishing_stacks = [1000, 1000, 1000]"))
    assert load(text + "_small_blind_seat = 0\n_big_blind_seat = 3\n").extra["_small_blind_seat"] == 0
    with pytest.raises(PHHError, match="_small_blind_seat = 2 disagrees with the blinds posted: the small blind "
                                      r"is dead \(T-1\)"):
        load(text + "_small_blind_seat = 2\n_big_blind_seat = 3\n")
