"""decide(): naming a card from its index readings and pips, or refusing (issue 6)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.glyphs import RANK_LABELS
from vision.decide import Params, decide
from vision.reading import CornerRead, PipRead


def corner(rank: str, score: float, margin: float, suit: str | None, suit_margin: float) -> CornerRead:
    scores = np.full(len(RANK_LABELS), score - margin, np.float32)
    scores[RANK_LABELS.index(rank)] = score
    return CornerRead(rank=rank, suit=suit, rank_score=score, rank_margin=margin, suit_score=0.9,
                      suit_margin=suit_margin, red=suit in ("h", "d") if suit else None, rank_scores=scores)


P = Params()


def test_a_strong_index_read_twice_names_the_card():
    name, conf, why = decide([corner("7", 0.95, 0.3, "s", 0.2), corner("7", 0.93, 0.3, "s", 0.2)], PipRead(), P)
    assert name == "7s" and why == "" and 0.5 <= conf <= 1.0


def test_indices_naming_two_ranks_make_it_unsure():
    name, _, why = decide([corner("6", 0.95, 0.3, "h", 0.2), corner("9", 0.9, 0.2, "h", 0.2)], PipRead(), P)
    assert name is None and "disagree" in why


def test_a_pip_count_that_disagrees_vetoes_the_index():
    pips = PipRead(count=5, area=0.03, suit="h", suit_margin=0.3, red=True)
    name, _, why = decide([corner("7", 0.95, 0.3, "h", 0.2), corner("7", 0.95, 0.3, "h", 0.2)], pips, P)
    assert name is None and "5 pips" in why


@pytest.mark.parametrize("count", [11, 16, 40])
def test_more_pips_than_any_card_has_is_unsure_not_a_crash(count):
    pips = PipRead(count=count, area=0.02, suit="s", suit_margin=0.3, red=False)
    name, _, why = decide([corner("9", 0.7, 0.02, "s", 0.2), corner("9", 0.7, 0.02, "s", 0.2)], pips, P)
    assert name is None and f"{count} pips" in why


def test_weak_index_backed_by_the_pip_count_is_named():
    pips = PipRead(count=8, area=0.03, suit="d", suit_margin=0.3, red=True)
    reads = [corner("8", 0.7, 0.05, "d", 0.2), corner("8", 0.6, 0.02, "d", 0.1)]
    assert decide(reads, pips, P)[0] == "8d"
    assert decide(reads, PipRead(), P)[0] is None  # the same index alone is not enough


def test_red_pips_under_a_black_index_are_unsure():
    pips = PipRead(count=4, area=0.03, suit="h", suit_margin=0.3, red=True)
    name, _, why = decide([corner("4", 0.95, 0.3, "s", 0.2), corner("4", 0.95, 0.3, "s", 0.2)], pips, P)
    assert name is None and "colour" in why


def test_court_picture_pips_do_not_decide_the_suit():
    pips = PipRead(count=2, area=0.02, suit="h", suit_margin=0.3, red=True, picture=0.2)
    name, _, _ = decide([corner("J", 0.9, 0.2, "s", 0.15), corner("J", 0.88, 0.2, "s", 0.15)], pips, P)
    assert name == "Js"


def test_no_index_is_unsure():
    assert decide([CornerRead(), CornerRead()], PipRead(count=3), P) == (None, 0.0, "no index read")


def test_an_ace_index_backed_by_one_big_pip_is_named():
    reads = [corner("A", 0.72, 0.18, "c", 0.2), CornerRead()]
    assert decide(reads, PipRead(count=1, area=0.03, suit="c", suit_margin=0.3, red=False), P)[0] == "Ac"
    assert decide(reads, PipRead(), P)[0] is None
    # one pip on a court picture is no ace's pip
    assert decide(reads, PipRead(count=1, area=0.03, suit="c", suit_margin=0.3, red=False, picture=0.2), P)[0] is None


def test_a_court_picture_backs_a_weak_index_only_above_the_court_bar():
    """A picture says J, Q or K, not which: one weak index (a Q read K at 0.55 by a tilted
    camera, tools/vision/evaluate.py --perturb tilt) stays unsure; a little stronger is named."""
    pips = PipRead(count=2, area=0.018, suit="h", suit_margin=0.39, red=True, picture=0.041)
    weak = [corner("K", 0.553, 0.086, "h", 0.19), CornerRead(rank="A", rank_score=0.5, rank_margin=0.01)]
    name, _, why = decide(weak, pips, P)
    assert name is None and "not sure enough" in why
    assert P.pip_score <= 0.553 < P.court_pip_score  # a number card's pip count would have backed it
    firmer = [corner("K", 0.62, 0.086, "h", 0.19), CornerRead(rank="A", rank_score=0.5, rank_margin=0.01)]
    assert decide(firmer, pips, P)[0] == "Kh"


def test_ten_pips_back_a_weak_ten_index_as_they_back_a_weak_other_rank():
    pips = PipRead(count=10, area=0.028, suit="h", suit_margin=0.39, red=True)
    weak_ten = [corner("10", 0.53, 0.02, "h", 0.35), corner("10", 0.53, 0.01, "h", 0.35)]
    weak_queen = [corner("Q", 0.53, 0.02, "h", 0.35), corner("Q", 0.53, 0.01, "h", 0.35)]
    assert decide(weak_queen, pips, P)[0] == "Th"  # the pip count names the rank ...
    assert decide(weak_ten, pips, P)[0] == "Th"  # ... and an index agreeing with it is no worse
    assert decide(weak_ten, PipRead(count=9, area=0.028, suit="h", suit_margin=0.39, red=True), P)[0] is None
    assert decide(weak_ten, PipRead(count=10, area=0.005, suit="h", suit_margin=0.39, red=True), P)[0] is None


def test_pips_shaped_like_the_other_colours_suit_make_it_unsure():
    """Washed-out red ink can read black: the 4h's index and pips then match spades best of
    the black suits, but the big pips' shape, of all four suits, is a heart."""
    reads = [corner("4", 0.95, 0.3, "s", 0.1), corner("4", 0.95, 0.3, "s", 0.1)]
    for r in reads:
        r.red = False
    pale = PipRead(count=4, area=0.03, suit="s", suit_margin=0.1, red=False, shape_suit="h")
    name, _, why = decide(reads, pale, P)
    assert name is None and "shaped like h" in why
    black = PipRead(count=4, area=0.03, suit="s", suit_margin=0.1, red=False, shape_suit="s")
    assert decide(reads, black, P)[0] == "4s"
