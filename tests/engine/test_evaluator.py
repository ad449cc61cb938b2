"""Hand ranking H-1..H-6 (and G-2 Omaha): rank_hand, rank_omaha, best_five, describe."""

from __future__ import annotations

import itertools
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.engine.cards import FULL_DECK, SUITS, Card, parse_cards
from controller.engine.evaluator import (
    BEST_RANK,
    CATEGORIES,
    WORST_RANK,
    HandError,
    best_five,
    best_five_omaha,
    category,
    describe,
    describe_hand,
    rank_hand,
    rank_indices,
    rank_omaha,
)
from tests.conftest import shared_path

np = pytest.importorskip("numpy")
phevaluator = pytest.importorskip("phevaluator")


def _assert_same_order(ours, theirs) -> None:
    """Ours is higher-better, phevaluator lower-better: the orders must be exact mirrors."""
    ours = np.asarray(ours)
    theirs = np.asarray(theirs)
    order = np.argsort(ours, kind="stable")
    a, b = ours[order], theirs[order]
    tie = np.diff(a) == 0
    db = np.diff(b)
    bad_tie = np.flatnonzero(tie & (db != 0))
    bad_order = np.flatnonzero(~tie & (db >= 0))
    assert bad_tie.size == 0, f"H-3: ours ties, phevaluator does not at sorted pos {bad_tie[:5]}"
    assert bad_order.size == 0, f"H-4: order differs at sorted pos {bad_order[:5]}"


def test_h1_every_five_card_hand_agrees_with_phevaluator() -> None:
    """All 2,598,960 five-card hands: same ties and same strict order as phevaluator."""
    combos = itertools.combinations(range(52), 5)
    ours = np.fromiter(map(rank_indices, combos), dtype=np.int32, count=2598960)
    # phevaluator's C five-card function (the same one evaluate_cards calls), driven by
    # starmap to keep this exhaustive test quick
    five = getattr(getattr(phevaluator, "_pheval", None), "evaluate_5cards",
                   phevaluator.evaluate_cards)
    combos = itertools.combinations(range(52), 5)
    theirs = np.fromiter(itertools.starmap(five, combos), dtype=np.int32, count=2598960)
    assert len(np.unique(ours)) == 7462  # H-1..H-4: exactly 7,462 distinct hand values
    assert ours.min() == WORST_RANK and ours.max() == BEST_RANK
    _assert_same_order(ours, theirs)


@pytest.mark.parametrize("n", [6, 7])
def test_h3_random_six_and_seven_card_hands_agree_with_phevaluator(n: int) -> None:
    rng = random.Random(20261129 + n)
    hands = [rng.sample(range(52), n) for _ in range(200_000 if n == 7 else 50_000)]
    ours = [rank_indices(h) for h in hands]
    theirs = [phevaluator.evaluate_cards(*h) for h in hands]
    _assert_same_order(ours, theirs)


def test_rank_hand_matches_fast_path_and_accepts_cards_or_text() -> None:
    rng = random.Random(5)
    for _ in range(500):
        cards = rng.sample(FULL_DECK, rng.choice([5, 6, 7]))
        r = rank_hand(cards)
        assert r == rank_indices([c.index for c in cards])
        assert r == rank_hand([str(c) for c in cards]) == rank_hand(" ".join(map(str, cards)))
        five = best_five(cards)
        assert len(five) == 5 and set(five) <= set(cards)
        assert rank_hand(five) == r


def test_rank_omaha_reads_lists_of_cards_or_texts_as_its_text_form() -> None:
    rng = random.Random(6)
    for _ in range(300):
        cards = rng.sample(FULL_DECK, 4 + rng.choice([3, 4, 5]))
        hole, board = cards[:4], cards[4:]
        r = rank_omaha(" ".join(map(str, hole)), " ".join(map(str, board)))
        assert r == rank_omaha(hole, board) == rank_omaha([str(c) for c in hole], tuple(board))


def test_every_six_and_seven_card_rank_multiset_is_in_the_table_once_built() -> None:
    """The 6- and 7-card entries are derived when the tables are built (a lazy fill put
    up to a millisecond on a table's showdown steps, issue 21): 6,175 + 18,395 + 49,205."""
    from controller.engine.evaluator import tables

    t = tables()
    assert len(t.nonflush) == 73_775
    pow5 = t.pow5
    rng = random.Random(7)
    for _ in range(2000):
        ranks = [c.rank - 2 for c in rng.sample(FULL_DECK, 7)]
        key = sum(pow5[r] for r in ranks)
        parts = {key - pow5[r] for r in ranks}
        assert t.nonflush[key] == max(t.nonflush[k] for k in parts)


@pytest.mark.parametrize(
    "cards, words, cat",
    [
        ("As Ks Qs Js Ts 2d 3c", "Royal flush", "straight flush"),
        ("9h 8h 7h 6h 5h Ah Kd", "Straight flush, nine high", "straight flush"),
        ("5d 4d 3d 2d Ad", "Straight flush, five high", "straight flush"),
        ("Ac Ad Ah As Kd", "Four of a kind, aces", "four of a kind"),
        ("Kc Kd Kh 5s 5d 5c 2h", "Full house, kings full of fives", "full house"),
        ("Ah 9h 6h 5h 3h Kd Kc", "Flush, ace high", "flush"),
        ("5c 4d 3h 2s Ac Kd Qh", "Straight, five high", "straight"),
        ("Ac Kd Qh Js Tc", "Straight, ace high", "straight"),
        ("7c 7d 7h Ks 2d", "Three of a kind, sevens", "three of a kind"),
        ("Kc Kd 5h 5s 9d 9c 2h", "Two pair, kings and nines", "two pair"),
        ("Kc Kd 5h 5s 2d", "Two pair, kings and fives", "two pair"),
        ("Ac Ad 9h 5s 2d", "Pair of aces", "one pair"),
        ("Ac Jd 9h 6s 2d 3c 4h", "High card, ace", "high card"),
        ("6c 6d 6h 6s 2d", "Four of a kind, sixes", "four of a kind"),
    ],
)
def test_h6_describe_and_h1_category(cards: str, words: str, cat: str) -> None:
    r = rank_hand(cards)
    assert describe(r) == words
    assert category(r) == cat


@pytest.mark.parametrize(
    "hole, board, game, words",
    [
        ("As Ad", "", "holdem", "Pair of aces"),
        ("As Kd", "", "holdem", "High card, ace"),
        ("7s 2d", "", "holdem", "High card, seven"),
        ("As Kd", "Ah Kc 2d", "holdem", "Two pair, aces and kings"),
        ("As Kd", "Ah Kc 2d Kh", "holdem", "Full house, kings full of aces"),
        ("Ks Qs", "Js Ts 9s 2d 2c", "holdem", "Straight flush, king high"),
        ("Qs Qd Jd Tc", "", "omaha", "Pair of queens"),
        ("As Kd Qh Jc", "", "omaha", "High card, ace"),
        ("Qh Qs Jd Tc", "Ah 9h 6h 2h Kc", "omaha", "Pair of queens"),
        ("5h 3h 8c 8d", "Ah 9h 6h 2h Kc", "omaha", "Flush, ace high"),
        ("Kh Kd 5c 5s 5d", "", "draw", "Full house, fives full of kings"),
        ("Kh Kd 5c", "", "draw", "Pair of kings"),
    ],
)
def test_h6_describe_hand_at_any_street(hole: str, board: str, game: str, words: str) -> None:
    assert describe_hand(hole, board, game) == words


def test_h6_describe_hand_rejects_bad_cards() -> None:
    with pytest.raises(HandError, match="G-5"):
        describe_hand("As Kd", "As 2c 3d")
    with pytest.raises(HandError, match="G-2"):
        describe_hand("As Kd Qh", "", "omaha")
    with pytest.raises(HandError, match="G-1"):
        describe_hand("As Kd", "", "stud")
    with pytest.raises(HandError, match="G-3"):
        describe_hand("As Kd 2c 3c 4c", "5d", "draw")


def test_h1_category_order() -> None:
    examples = [
        "Ac Jd 9h 5s 2d", "Ac Ad 9h 5s 2d", "Kc Kd 5h 5s 2d", "7c 7d 7h Ks 2d",
        "5c 4d 3h 2s Ac", "Ah 9h 6h 5h 3h", "Kc Kd Kh 5s 5d", "Ac Ad Ah As Kd",
        "5d 4d 3d 2d Ad",
    ]
    ranks = [rank_hand(h) for h in examples]
    assert ranks == sorted(ranks) and len(set(ranks)) == 9
    assert [category(r) for r in ranks] == list(CATEGORIES)


def test_h2_wheel_is_lowest_straight_and_no_around_the_corner() -> None:
    wheel = rank_hand("5c 4d 3h 2s Ac")
    six_high = rank_hand("6c 5d 4h 3s 2c")
    assert category(wheel) == "straight" and wheel < six_high
    assert category(rank_hand("Qc Kd Ah 2s 3c")) == "high card"
    assert category(rank_hand("Kc Ad 2h 3s 4c")) == "high card"
    # the ace-high straight beats every other straight
    assert rank_hand("Ac Kd Qh Js Tc") > rank_hand("Kc Qd Jh Ts 9c")
    assert best_five("5c 4d 3h 2s Ac Kd Qh") == parse_cards("5c 4d 3h 2s Ac")


def test_h3_sixth_card_and_suits_never_break_ties() -> None:
    assert rank_hand("Ac Ad Kh Qs Jd 3c 2h") == rank_hand("Ah As Kd Qc Js 9c 8h")
    assert rank_hand("Ah 9h 6h 5h 3h") == rank_hand("As 9s 6s 5s 3s")
    assert rank_hand("Kc Kd Kh Ks Qd Jc") == rank_hand("Kc Kd Kh Ks Qc 2d")


def test_h4_ties_within_a_category() -> None:
    # quads by kicker; full house by trips then pair; two pair by kicker; pair by 3rd kicker
    assert rank_hand("9c 9d 9h 9s Ad") > rank_hand("9c 9d 9h 9s Kd")
    assert rank_hand("3c 3d 3h 2s 2d") > rank_hand("2c 2d 2h As Ad")
    assert rank_hand("Kc Kd Kh 2s 2d") > rank_hand("Qc Qd Qh As Ad")
    assert rank_hand("Kc Kd 5h 5s 9d") > rank_hand("Kh Ks 5c 5d 8d")
    assert rank_hand("Ac Ad 9h 5s 3d") > rank_hand("Ah As 9c 5d 2d")
    assert rank_hand("Ah Jh 9h 4h 3h") > rank_hand("Ac Tc 9c 8c 4c")


def _rule_cases() -> list[dict]:
    data = json.loads(shared_path("data", "rule-cases", "cases.json").read_text())
    return [c for c in data if c["id"] in {"R32", "R33", "R34", "R36", "R37", "R38", "R40"}]


def test_rule_cases_hand_ranking_all_present() -> None:
    assert sorted(c["id"] for c in _rule_cases()) == [
        "R32", "R33", "R34", "R36", "R37", "R38", "R40"]


@pytest.mark.parametrize("case_id", ["R32", "R33", "R34", "R36", "R37", "R38", "R40"])
def test_rule_case_pot_winners(case_id: str) -> None:
    """Each pot goes to the best hand(s) among its eligible seats (H-1..H-5, G-2)."""
    case = next(c for c in _rule_cases() if c["id"] == case_id)
    board = case["board"]
    holes = {s["seat"]: s["hole_cards"] for s in case["seats"]}
    if case["variant"] == "omaha":
        ranks = {seat: rank_omaha(h, board) for seat, h in holes.items()}
    else:
        ranks = {seat: rank_hand(parse_cards(h) + parse_cards(board)) for seat, h in holes.items()}
    for pot in case["expected"]["pots"]:
        best = max(ranks[s] for s in pot["eligible_seats"])
        winners = sorted(s for s in pot["eligible_seats"] if ranks[s] == best)
        assert winners == sorted(pot["winners"]), (case_id, case["expected"]["text"])


def test_r38_omaha_exactly_two_hole_cards() -> None:
    board = "Ah 9h 6h 2h Kc"
    r1 = rank_omaha("Qh Qs Jd Tc", board)
    assert category(r1) == "one pair"  # one heart is no flush; A-K-Q-J-T needs 3 hole cards
    five = best_five_omaha("Qh Qs Jd Tc", board)
    assert sorted(five) == sorted(parse_cards("Qh Qs Ah Kc 9h"))
    assert [c.rank for c in five] == [12, 12, 14, 13, 9]  # reading order: Q-Q-A-K-9
    assert describe(rank_omaha("5h 3h 8c 8d", board)) == "Flush, ace high"
    assert describe(rank_omaha("Kd Ks 7c 7d", board)) == "Three of a kind, kings"
    # four hole cards + one board card would be kings full; G-2 forbids it
    assert category(rank_hand("Kd Ks 7c 7d Kc")) == "full house"


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: rank_hand("As Ks Qs Js"), "G-1"),
        (lambda: rank_hand("As Ks Qs Js Ts 9s 8s 7s"), "G-1"),
        (lambda: rank_hand("As As Qs Js Ts"), "G-5"),
        (lambda: rank_hand("As Ks Qs Js Xx"), "G-5"),
        (lambda: rank_omaha("As Ks Qs", "Jh 8c 3d"), "G-2"),
        (lambda: rank_omaha("As Ks Qs Jd", "Jh 8c"), "G-2"),
        (lambda: rank_omaha("As Ks Qs Jd", "Jd 8c 3d"), "G-5"),
        (lambda: rank_hand(["As", "As", "Qs", "Js", "Ts"]), "G-5"),  # lists: the quick path
        (lambda: rank_hand(list(parse_cards("As Ks Qs Js"))), "G-1"),
        (lambda: rank_hand(["As", "Ks", "Qs", "Js", "Xx"]), "G-5"),
        (lambda: rank_omaha(["As", "Ks", "Qs"], ["Jh", "8c", "3d"]), "G-2"),
        (lambda: rank_omaha(list(parse_cards("As Ks Qs Jd")), ["Jd", "8c", "3d"]), "G-5"),
        (lambda: describe(0), "H-1"),
        (lambda: describe(7463), "H-1"),
    ],
)
def test_bad_input_raises_value_error_with_rule_id(call, message: str) -> None:
    with pytest.raises(HandError, match=message) as info:
        call()
    assert isinstance(info.value, ValueError)


# ----------------------------------------------------------------------------- properties

hands7 = st.lists(st.sampled_from(FULL_DECK), min_size=5, max_size=7, unique=True)


@settings(max_examples=300, deadline=None)
@given(hands7, st.permutations(SUITS))
def test_h3_rank_invariant_under_suit_permutation(cards: list[Card], perm: list[str]) -> None:
    mapping = dict(zip(SUITS, perm))
    moved = [Card(c.rank, mapping[c.suit]) for c in cards]
    assert rank_hand(moved) == rank_hand(cards)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FULL_DECK), min_size=6, max_size=7, unique=True))
def test_adding_a_card_never_lowers_the_hand(cards: list[Card]) -> None:
    assert rank_hand(cards) >= rank_hand(cards[:-1])
    assert rank_hand(cards) == max(rank_hand(c) for c in itertools.combinations(cards, 5))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(FULL_DECK), min_size=7, max_size=9, unique=True))
def test_g2_omaha_is_best_of_two_plus_three(cards: list[Card]) -> None:
    hole, board = cards[:4], cards[4:]
    expected = max(
        rank_hand(p + t)
        for p in itertools.combinations(hole, 2)
        for t in itertools.combinations(board, 3)
    )
    assert rank_omaha(hole, board) == expected
    assert rank_hand(best_five_omaha(hole, board)) == expected


@pytest.mark.parametrize(
    "cards, words",
    [
        ("Ac Qd 9h 8s 7d", "High card, ace, queen-nine-eight-seven kickers"),
        ("Ac Qd 9h 8s 6d", "High card, ace, queen-nine-eight-six kickers"),
        ("Ac Ad Kh 9s 4d", "Pair of aces, king-nine-four kickers"),
        ("Kc Kd 5h 5s Ad 2c", "Two pair, kings and fives, ace kicker"),
        ("7c 7d 7h Ks 2d", "Three of a kind, sevens, king-two kickers"),
        ("6c 6d 6h 6s Kd Qd", "Four of a kind, sixes, king kicker"),
        ("Ah Jh 9h 6h 3h 2h", "Flush, ace-jack-nine-six-three high"),
        ("Ah Kd Qc Js Th 2c", "Straight, ace high"),
        ("Kc Kd 5h 5s 5d", "Full house, fives full of kings"),
        ("Ks Qs Js Ts 9s", "Straight flush, king high"),
    ],
)
def test_h4_describe_with_kickers_names_every_deciding_rank(cards: str, words: str) -> None:
    """H-4: the floor's words name every rank that breaks a tie, and only those (H-3: a
    sixth card never plays); the H-6 call is unchanged."""
    r = rank_hand(cards)
    assert describe(r, kickers=True) == words
    assert words.split(",")[0] == describe(r).split(",")[0]  # the same category
    assert describe_hand(cards.split()[:2], cards.split()[2:], kickers=True) == words
