"""The chip race of a colour-up: odd chips raced off, nobody raced out, the delta reported."""

from __future__ import annotations

import pytest
from hypothesis import given, settings as hsettings
from hypothesis import strategies as st

from controller.tournament.chiprace import chip_race
from controller.tournament.errors import TournamentError


def test_chip_race_odd_chips_rounded_up_at_half_and_nobody_raced_out():
    stacks = {"a": 1025, "b": 50, "c": 3075, "d": 2000}
    # odd 25s: a 25, b 50, c 75 = 150: one 100 and a half-chip rest: two 100s are raced;
    # b's whole stack is odd chips, so b gets one first; the other goes to the best card
    new, delta = chip_race(stacks, removed=25, next_chip=100, ranking=["a", "c", "b"])
    assert new == {"a": 1100, "b": 100, "c": 3000, "d": 2000}
    assert delta == sum(new.values()) - sum(stacks.values()) == 50


def test_chip_race_less_than_half_a_chip_left_is_removed():
    new, delta = chip_race({"a": 1025, "b": 2000}, removed=25, next_chip=100, ranking=["a"])
    assert new == {"a": 1000, "b": 2000} and delta == -25


def test_chip_race_refuses_a_ranking_that_misses_a_player_with_odd_chips():
    with pytest.raises(TournamentError, match="exactly the players with odd chips"):
        chip_race({"a": 1025, "b": 1050}, removed=25, next_chip=100, ranking=["a"])


@hsettings(max_examples=200, deadline=None)
@given(odd=st.lists(st.integers(0, 3), min_size=1, max_size=10), big=st.lists(st.integers(0, 50), min_size=10, max_size=10),
       data=st.data())
def test_chip_race_leaves_stacks_of_the_next_chip_and_keeps_everyone_in(odd, big, data):
    stacks = {f"p{i}": o * 25 + big[i] * 100 for i, o in enumerate(odd) if o or big[i]}
    if not stacks:
        return
    with_odd = [p for p, s in stacks.items() if s % 100]
    ranking = data.draw(st.permutations(with_odd))
    new, delta = chip_race(stacks, 25, 100, ranking)
    assert all(v % 100 == 0 for v in new.values())
    assert all(v > 0 for v in new.values())
    assert delta == sum(new.values()) - sum(stacks.values())
    # each player changes by less than one chip of the next denomination
    assert all(abs(new[p] - stacks[p]) < 100 for p in stacks)


def test_tda_chip_race_one_card_per_odd_chip_dealt_round_the_table_highest_card_by_rank_then_suit():
    from controller.tournament.chiprace import race_cards

    # seat order from the button's left: c, a, b; c holds 3 odd 25-chips, a 1, b 2
    cards, ranking = race_cards({"a": 1, "b": 2, "c": 3}, ["c", "a", "b"],
                                ["Kh", "2c", "Ks", "9d", "7h", "Ad", "3s"])
    assert cards == {"c": ["Kh", "9d", "Ad"], "a": ["2c"], "b": ["Ks", "7h"]}  # round by round
    assert ranking == ["c", "b", "a"]  # the ace; then the king of spades beats the king of hearts


def test_tda_chip_race_with_dealt_cards_nobody_raced_out_and_chips_accounted():
    from controller.tournament.chiprace import race_cards

    stacks = {"a": 1025, "b": 25, "c": 3075, "d": 2000}
    odd = {p: (s % 100) // 25 for p, s in stacks.items() if s % 100}
    cards, ranking = race_cards(odd, ["a", "b", "c"], ["As", "Kd", "2c", "3d", "4h"])
    assert cards["c"] == ["2c", "3d", "4h"] and ranking == ["a", "b", "c"]
    new, delta = chip_race(stacks, removed=25, next_chip=100, ranking=ranking)
    # 25 + 25 + 75 = 125: one 100 (rest 25 < half): b would be raced out, so b gets it
    assert new == {"a": 1000, "b": 100, "c": 3000, "d": 2000} and delta == sum(new.values()) - sum(stacks.values())


def test_race_cards_refuses_a_short_or_doubled_deck():
    from controller.tournament.chiprace import race_cards

    with pytest.raises(TournamentError, match="twice"):
        race_cards({"a": 1}, ["a"], ["As", "As"])
    with pytest.raises(TournamentError, match="2 cards are needed"):
        race_cards({"a": 2}, ["a"], ["As"])
    with pytest.raises(TournamentError, match="no card"):
        race_cards({"a": 1}, ["a"], ["Xx"])
