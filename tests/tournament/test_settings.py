"""Tournament settings from TOML: a valid file loads; every problem of a bad one is reported."""

from __future__ import annotations

import pytest

from controller.tournament.errors import SettingsError
from controller.tournament.settings import Break, Level, load_settings

from .helpers import TOML, settings


def test_valid_file_loads_levels_breaks_and_purchases():
    s = settings()
    assert s.starting_stack == 10000
    assert [type(x) for x in s.schedule] == [Level, Level, Break, Level]
    assert [lv.number for lv in s.levels] == [1, 2, 3]
    assert s.levels[1].ante == 25 and s.levels[2].big_blind_ante == 200
    assert s.schedule[2] == Break(after_level=2, minutes=10, colour_up=(25,))
    assert s.reentries == 1 and s.rebuy.chips == 10000 and s.addon.at_break == 2
    assert s.payouts.percents_for(9) == (65, 35) and s.payouts.places_paid(12) == 3
    # after the colour-up the 25s are gone
    assert s.chips_in_play_at(3) == (100, 500, 1000)
    assert s.level(99) == s.levels[-1]


def _problems(text: str) -> list[str]:
    with pytest.raises(SettingsError) as info:
        load_settings(text)
    return info.value.problems


def test_every_problem_of_the_file_is_reported_each_naming_its_field():
    bad = (
        TOML.replace("starting_stack = 10000", "starting_stack = 10010")
        .replace("big_blind = 100\nante = 25", "big_blind = 100\nante = 25\nbig_blind_ante = 100")
        .replace("percent = [65, 35]", "percent = [65, 30]")
        .replace("minutes = 20\n\n[[tournament.levels]]\nbreak", "minutes = 0\n\n[[tournament.levels]]\nbreak")
        .replace("seats_per_table = 9", "seats_per_table = 9\ncolour = 3")
    )
    problems = _problems(bad)
    joined = "\n".join(problems)
    assert "starting_stack: must be a multiple of the smallest chip 25" in joined
    assert "levels[1]: give an ante or a big_blind_ante, not both" in joined
    assert "levels[1].minutes: must be >= 1, got 0" in joined
    assert "payouts.brackets[1].percent: must sum to 100, got 95" in joined
    assert "colour: unknown key" in joined
    assert len(problems) == 5


def test_blinds_must_be_made_of_the_chips_in_play_after_a_colour_up():
    # level 3 comes after the 25s are raced off: a 150 big blind cannot be made of 100s
    problems = _problems(TOML.replace("small_blind = 100\nbig_blind = 200", "small_blind = 100\nbig_blind = 150"))
    assert problems == ["levels[3].big_blind: 150 is not a multiple of the smallest chip in play (100)"]


@pytest.mark.parametrize(
    "change, expected",
    [
        (("minutes = 20", "minutes = 20.5"), "levels[0].minutes: must be a whole number, got 20.5"),
        (("small_blind = 25\n", "small_blind = 75\n"), "levels[0].small_blind: must not exceed the big blind 50, got 75"),
        (("colour_up = [25]", "colour_up = [5]"), "levels[2].colour_up: 5 is not a denomination in play then [25, 100, 500, 1000]"),
        (("at_break = 2", "at_break = 1"), "addon.at_break: there is no break after level 1"),
        (("late_registration_until_level = 2", "late_registration_until_level = 7"),
         "late_registration_until_level: only 3 levels, the last never ends (registration must close): "
             "at most 2, got 7"),
        (("min_entries = 6", "min_entries = 2"), "payouts.brackets[1].min_entries: must grow from bracket to bracket, got 2 after 2"),
        (("percent = [50, 30, 20]", "percent = [20, 30, 50]"),
         "payouts.brackets[2].percent: a place must not pay more than a better one, got [20, 30, 50]"),
        (("entry = { price = 50, fee = 5 }", "entry = { price = -50, fee = 5 }"), "entry.price: must be >= 0, got -50"),
    ],
)
def test_one_bad_value_gives_one_message_naming_the_field(change, expected):
    assert _problems(TOML.replace(*change, 1)) == [expected]


def test_a_file_that_does_not_parse_reports_tomllibs_position():
    problems = _problems("[tournament]\nstarting_stack = = 3\n")
    assert len(problems) == 1 and problems[0].startswith("TOML:") and "line 2" in problems[0]


def test_missing_table_and_missing_keys_are_named():
    assert _problems("[other]\n") == ["tournament: the file needs a [tournament] table"]
    problems = _problems("[tournament]\n")
    for key in ("starting_stack", "levels", "entry", "payouts"):
        assert f"{key}: missing" in problems


def test_fixed_payouts_or_brackets_not_both():
    text = TOML.replace("unit = 5\n", "unit = 5\nfixed = [300, 200]\n")
    assert "payouts: give either brackets of percents or fixed prizes" in _problems(text)


def test_the_example_in_the_modules_docstring_loads():
    import textwrap

    import controller.tournament.settings as module

    doc = module.__doc__
    example = textwrap.dedent(doc[doc.index("::\n") + 3:])
    s = load_settings(example)
    assert [lv.number for lv in s.levels] == [1, 2] and s.schedule[1].colour_up == (25,)
    assert s.payouts.percents_for(10) == (50, 30, 20)
