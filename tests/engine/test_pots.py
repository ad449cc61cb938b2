"""Pots, splits and rake as pure functions (pots.py, rake.py): P-1, P-3, S-9, R-1..R-3."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.engine.errors import HandSetupError
from controller.engine.pots import build_pots, split_pot, uncalled
from controller.engine.rake import rake_amount, rake_pots, take_rake
from controller.engine.settings import RakeSettings


def test_p1_side_pots_layer_by_all_in_levels() -> None:
    """R01's layering: 150 / 300 / 600 all-ins with a 1000 caller (who put in 600)."""
    pots = build_pots([600, 300, 600, 150], [True, True, True, True])
    assert pots == [(600, (0, 1, 2, 3)), (450, (0, 1, 2)), (600, (0, 2))]


def test_p1_folded_chips_stay_in_but_cannot_win() -> None:
    pots = build_pots([100, 100, 40, 100], [True, False, True, True], dead=5)
    assert pots == [(165, (0, 2, 3)), (180, (0, 3))]


def test_s9_uncalled() -> None:
    assert uncalled([100, 300, 0]) == (1, 200)
    assert uncalled([100, 100, 50]) == (-1, 0)
    assert uncalled([0, 0]) == (-1, 0)


def test_p3_split_one_odd_chip_each_clockwise() -> None:
    assert split_pot(9050, [4, 1, 2]) == [3017, 3017, 3016]
    assert split_pot(155, [3, 1]) == [78, 77]
    assert split_pot(130, [2, 3, 1]) == [44, 43, 43]
    assert split_pot(110, [0, 1], chip=5) == [55, 55]
    assert split_pot(115, [0, 1], chip=5) == [60, 55]
    with pytest.raises(ValueError, match="^P-3"):
        split_pot(10, [])


@given(st.integers(0, 10**7), st.integers(1, 10), st.sampled_from([1, 5, 25]))
def test_p3_split_properties(amount: int, k: int, chip: int) -> None:
    shares = split_pot(amount, list(range(k)), chip)
    assert sum(shares) == amount
    assert shares == sorted(shares, reverse=True)  # odd chips to the first winners
    assert max(shares) - min(shares) <= chip + amount % chip


@given(st.lists(st.integers(0, 1000), min_size=2, max_size=10), st.data())
def test_p1_pots_conserve_chips(committed: list[int], data) -> None:
    live = data.draw(st.lists(st.booleans(), min_size=len(committed), max_size=len(committed)))
    if not any(live):
        live[0] = True
    pots = build_pots(committed, live, dead=7)
    assert sum(a for a, _ in pots) == sum(committed) + 7
    for _, elig in pots:
        assert all(live[i] for i in elig)


def test_r1_r2_rake_amounts() -> None:
    r = RakeSettings(percent=10, cap=3)
    assert rake_amount(r, 13, players_dealt=3, flop_seen=True) == 1
    assert rake_amount(r, 500, players_dealt=3, flop_seen=True) == 3
    assert rake_amount(r, 500, players_dealt=3, flop_seen=False) == 0
    assert rake_amount(None, 500, players_dealt=3, flop_seen=True) == 0
    r2 = RakeSettings(percent="2.5", caps={2: 1, 5: 4}, no_flop_no_drop=False)
    assert r2.percent == Fraction(5, 2)
    assert rake_amount(r2, 100, players_dealt=2, flop_seen=False) == 1
    assert rake_amount(r2, 100, players_dealt=6, flop_seen=False) == 2
    assert rake_amount(r2, 1000, players_dealt=6, flop_seen=False, chip=5) == 4
    # a percentage of each pot, the cap shared in proportion (not main pot first)
    assert take_rake([5, 100], 8) == [0, 8]
    assert take_rake([10, 10, 20], 7) == [2, 1, 4]  # 1.75, 1.75, 3.5: the rest to the largest, then the main pot
    assert take_rake([10, 10], 5, chip=2) == [2, 2]  # whole chips: the odd 1 is not taken


def test_r1_each_pot_pays_its_own_percentage() -> None:
    """breaker15 F5: a 9-chip main pot of a short all-in paid 9 of the rake (main pot first)."""
    r = RakeSettings(percent=5, cap=30)
    assert rake_pots(r, [9, 2014], players_dealt=3, flop_seen=True) == [0, 30]
    assert rake_pots(r, [100, 200], players_dealt=3, flop_seen=True) == [5, 10]
    assert rake_pots(r, [400, 400], players_dealt=3, flop_seen=True) == [15, 15]
    assert rake_pots(r, [400, 400], players_dealt=3, flop_seen=False) == [0, 0]
    assert rake_pots(None, [400], players_dealt=3, flop_seen=True) == [0]
    assert rake_pots(RakeSettings(percent=10), [95, 15], players_dealt=2, flop_seen=True, chip=5) == [5, 0]


def test_rake_settings_errors() -> None:
    with pytest.raises(HandSetupError, match="^R-1"):
        RakeSettings(percent=150)
    with pytest.raises(HandSetupError, match="^R-1"):
        RakeSettings(percent="lots")
