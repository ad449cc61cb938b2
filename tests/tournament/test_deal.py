"""The deal calculator: ICM (Malmuth-Harville, exact) and chip chop, to the money unit."""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations

import pytest
from hypothesis import given, settings as hsettings
from hypothesis import strategies as st

from controller.tournament.deal import chip_chop, icm_deal, icm_equities, place_probabilities
from controller.tournament.errors import TournamentError


def _brute_force_icm(stacks, prizes):
    """Malmuth-Harville by enumerating every finishing order (the definition)."""
    eq = [Fraction(0)] * len(stacks)
    for order in permutations(range(len(stacks))):
        p, left = Fraction(1), sum(stacks)
        for i in order:
            p *= Fraction(stacks[i], left)
            left -= stacks[i]
        for place, i in enumerate(order):
            if place < len(prizes):
                eq[i] += p * prizes[place]
    return eq


def test_icm_two_players_is_chip_share_of_the_difference():
    # heads-up: P(1st) = chips share exactly
    eq = icm_equities([3000, 1000], [700, 300])
    assert eq == [Fraction(300) + Fraction(3, 4) * 400, Fraction(300) + Fraction(1, 4) * 400]


def test_icm_three_players_by_hand():
    # 50/30/20 for 500/300/200: P(A 2nd) = .3*5/7 + .2*5/8 = 0.339285...
    eq = icm_equities([5000, 3000, 2000], [500, 300, 200])
    a2 = Fraction(3, 10) * Fraction(5, 7) + Fraction(2, 10) * Fraction(5, 8)
    a1 = Fraction(1, 2)
    assert eq[0] == a1 * 500 + a2 * 300 + (1 - a1 - a2) * 200
    assert sum(eq) == 1000


@hsettings(max_examples=60, deadline=None)
@given(stacks=st.lists(st.integers(1, 10**6), min_size=1, max_size=6), data=st.data())
def test_icm_matches_enumerating_every_finishing_order(stacks, data):
    prizes = sorted(data.draw(st.lists(st.integers(0, 10**5), min_size=0, max_size=len(stacks))), reverse=True)
    assert icm_equities(stacks, prizes) == _brute_force_icm(stacks, prizes)
    probs = place_probabilities(stacks)
    assert all(sum(row) == 1 for row in probs)
    assert all(sum(probs[i][k] for i in range(len(stacks))) == 1 for k in range(len(stacks)))


@hsettings(max_examples=100, deadline=None)
@given(
    stacks=st.lists(st.integers(1, 10**6), min_size=2, max_size=7),
    unit=st.sampled_from([1, 5, 100]),
    data=st.data(),
)
def test_deals_sum_to_the_prizes_to_the_unit_and_more_chips_never_get_less(stacks, unit, data):
    prizes = sorted(data.draw(st.lists(st.integers(0, 10**6), min_size=1, max_size=len(stacks))), reverse=True)
    for deal in (icm_deal(stacks, prizes, unit), chip_chop(stacks, prizes, unit),
                 chip_chop(stacks, prizes, unit, guarantee_last=False)):
        assert sum(deal) == sum(prizes)
        order = sorted(range(len(stacks)), key=lambda i: stacks[i])
        # a bigger stack gets at least as much, but for the rounding: one unit, plus the
        # sub-unit rest of a total that is not a multiple of the unit
        for lo, hi in zip(order, order[1:]):
            assert deal[hi] > deal[lo] - 2 * unit


def test_chip_chop_guarantees_the_last_prize_then_shares_by_chips():
    assert chip_chop([6000, 3000, 1000], [500, 300, 200]) == [200 + 240, 200 + 120, 200 + 40]
    assert chip_chop([6000, 3000, 1000], [500, 300, 200], guarantee_last=False) == [600, 300, 100]


def test_rounding_to_the_unit_goes_to_the_largest_remainders():
    # exact ICM for equal stacks is 1000/3 each: 330 each by 10s, the 10 left to the first
    assert icm_deal([100, 100, 100], [500, 300, 200], unit=10) == [340, 330, 330]
    # 101 for two equal stacks by 100s: a unit to the first, the 1 left to the one below his 50.5
    assert chip_chop([1, 1], [101], unit=100, guarantee_last=False) == [100, 1]


@pytest.mark.parametrize(
    "stacks, prizes, message",
    [([], [1], "no players"), ([100, 0], [1], "stack must be chips > 0"), ([1], [2, 1], "2 prizes for 1 players"),
     ([1] * 13, [1], "limited to 12")],
)
def test_bad_deals_are_refused(stacks, prizes, message):
    with pytest.raises(TournamentError, match=message):
        icm_deal(stacks, prizes)
