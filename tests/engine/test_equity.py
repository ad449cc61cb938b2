"""Exact equity (S-8; G-1 Hold'em, G-2 Omaha): numbers, oracles and errors."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.engine.cards import FULL_DECK, SUITS, Card, parse_cards
from controller.engine.equity import EquityError, equity_fractions

phevaluator = pytest.importorskip("phevaluator")

SPADES_HEARTS = [c for c in FULL_DECK if c.suit in "hs"]


def brute_force(holes, board, dead=()) -> list[Fraction]:
    """Deal every board one by one and rank with phevaluator (the test oracle)."""
    H = [[c.index for c in h] for h in holes]
    B = [c.index for c in board]
    used = {i for h in H for i in h} | set(B) | {c.index for c in dead}
    deck = [i for i in range(52) if i not in used]
    acc = [0] * len(H)
    n = 0
    omaha = len(H[0]) == 4
    for rest in itertools.combinations(deck, 5 - len(B)):
        b = B + list(rest)
        n += 1
        if omaha:
            v = [phevaluator.evaluate_omaha_cards(*b, *h) for h in H]
        else:
            v = [phevaluator.evaluate_cards(*b, *h) for h in H]
        best = min(v)
        winners = [i for i in range(len(H)) if v[i] == best]
        for i in winners:
            acc[i] += Fraction(1, len(winners))
    return [a / n for a in acc]


def test_s8_ak_suited_vs_queens_preflop_is_0_462145() -> None:
    from controller.engine import equity

    e = equity(["AsKs", "QdQh"])
    assert round(e[0], 6) == 0.462145
    assert round(e[1], 6) == round(1 - 0.462145, 6)


def test_equity_importable_from_the_package_even_after_the_module() -> None:
    import controller.engine as engine
    import controller.engine.equity as module  # rebinds the package attribute to the module

    assert callable(module)
    from controller.engine import equity

    assert equity(["AsKs", "QdQh"], board="Jh 8c 3d") == engine.equity(
        [["As", "Ks"], ["Qd", "Qh"]], board=["Jh", "8c", "3d"])


@pytest.mark.parametrize("use_numpy", [None, True, False])
def test_random_flop_turn_river_spots_match_brute_force(use_numpy: bool | None) -> None:
    rng = random.Random(20261129)
    for trial in range(60):
        omaha = trial % 3 == 0
        players = rng.randint(2, 4 if omaha else 6)
        k = 4 if omaha else 2
        nb = rng.choice([3, 4, 5])
        pool = SPADES_HEARTS if trial % 2 else list(FULL_DECK)  # odd trials: flush-heavy
        cards = rng.sample(pool, players * k + nb)
        rest = [c for c in FULL_DECK if c not in cards]
        dead = rng.sample(rest, rng.randint(0, 4))
        holes = [cards[i * k:(i + 1) * k] for i in range(players)]
        board = cards[players * k:]
        got = equity_fractions(holes, board, dead, use_numpy=use_numpy)
        assert got == brute_force(holes, board, dead), (holes, board, dead)
        assert sum(got) == 1


@pytest.mark.parametrize("omaha", [False, True])
def test_preflop_with_many_dead_cards_matches_brute_force(omaha: bool) -> None:
    """Pre-flop (whole board enumerated) on a reduced deck, both implementations."""
    rng = random.Random(7 + omaha)
    k = 4 if omaha else 2
    cards = rng.sample(SPADES_HEARTS, 3 * k)
    holes = [cards[i * k:(i + 1) * k] for i in range(3)]
    rest = [c for c in FULL_DECK if c not in cards]
    dead = rng.sample(rest, 52 - 3 * k - 22)  # 22 cards left: 26,334 boards
    expected = brute_force(holes, (), dead)
    assert equity_fractions(holes, (), dead) == expected
    assert equity_fractions(holes, (), dead, use_numpy=True) == expected
    assert equity_fractions(holes, (), dead, use_numpy=False) == expected


@pytest.mark.parametrize(
    "hands, board",
    [(["AhAd", "KsKc", "8h7h"], ""), (["AhKh", "QcQd", "JsTc", "9d9s"], ""),
     (["AhKhQdJd", "8s8c7s6c", "9h9d2c3c"], "Th 4h 4c")],
)
def test_numpy_and_pure_python_agree_exactly(hands: list[str], board: str) -> None:
    a = equity_fractions(hands, board)
    assert a == equity_fractions(hands, board, use_numpy=True)
    assert a == equity_fractions(hands, board, use_numpy=False)
    assert sum(a) == 1 and all(0 < x < 1 for x in a)


def test_river_is_the_showdown() -> None:
    from controller.engine import equity

    assert equity(["AsKs", "QdQh"], board="Jh 8c 3d 2s 4c") == [0.0, 1.0]
    # H-5: the board plays, everyone splits
    assert equity(["2c3d", "2h3s", "AhKd"], board="5c 6d 7h 8s 9c") == pytest.approx(
        [1 / 3, 1 / 3, 1 / 3])
    # R38 (G-2): one heart in hand is no flush in Omaha
    e = equity(["QhQsJdTc", "5h3h8c8d", "KdKs7c7d"], board="Ah 9h 6h 2h Kc")
    assert e == [0.0, 1.0, 0.0]


def test_detects_omaha_from_four_hole_cards_and_game_can_be_forced() -> None:
    hands = ["AsKsQsJs", "2c2d3c3d"]
    board = "Ts 9s 4h"
    assert equity_fractions(hands, board) == equity_fractions(hands, board, game="omaha")
    with pytest.raises(EquityError, match="G-1"):
        equity_fractions(hands, board, game="holdem")


@pytest.mark.parametrize(
    "hands, board, dead, message",
    [
        (["AsKs", "AsQh"], (), (), "G-5: card As appears twice"),
        (["AsKs", "QdQh"], "Jh 8c As", (), "G-5: card As appears twice"),
        (["AsKs", "QdQh"], (), "Qh", "G-5: card Qh appears twice"),
        (["AsKs", "QdQh"], "Jh 8c 3d 2s 4c 5c", (), "at most 5"),
        (["AsKs"], (), (), "2 to 10 players"),
        ([f"{r}c{r}d" for r in "23456789TJQ"], (), (), "2 to 10 players"),
        (["AsKsQs", "QdQh"], (), (), "G-1"),
        (["AsKsQsJs", "QdQh"], (), (), "G-1"),
        (["AsKsQsJs", "QdQhTc"], (), (), "G-2"),
        (["AsKx", "QdQh"], (), (), "G-5"),
        ("AsKs QdQh", (), (), "one hand"),
        ([f"{r}c{r}d{r}h{r}s" for r in "23456789TJ"], "Qc Qd Qh",
         "Ac Ad Ah Kc Kd Kh Ks Qs", "left to deal"),
    ],
)
def test_bad_input_raises_value_error_with_rule_id(hands, board, dead, message) -> None:
    from controller.engine import equity

    with pytest.raises(EquityError, match=message) as info:
        equity(hands, board, dead)
    assert isinstance(info.value, ValueError)


# ----------------------------------------------------------------------------- properties

flop_spots = st.lists(st.sampled_from(FULL_DECK), min_size=7, max_size=11, unique=True)


@settings(max_examples=40, deadline=None)
@given(flop_spots, st.permutations(SUITS), st.randoms(use_true_random=False))
def test_equity_sums_to_one_and_ignores_suit_names_and_seat_order(
    cards: list[Card], perm: list[str], rnd: random.Random
) -> None:
    players = (len(cards) - 3) // 2
    holes = [cards[2 * i:2 * i + 2] for i in range(players)]
    board = cards[2 * players:2 * players + 3]
    base = equity_fractions(holes, board)
    assert sum(base) == 1
    mapping = dict(zip(SUITS, perm))
    moved = equity_fractions(
        [[Card(c.rank, mapping[c.suit]) for c in h] for h in holes],
        [Card(c.rank, mapping[c.suit]) for c in board],
    )
    assert moved == base
    order = list(range(players))
    rnd.shuffle(order)
    shuffled = equity_fractions([holes[i] for i in order], board)
    assert shuffled == [base[i] for i in order]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(FULL_DECK), min_size=9, max_size=9, unique=True))
def test_turn_equity_is_the_average_of_the_rivers(cards: list[Card]) -> None:
    holes = [cards[0:2], cards[2:4]]
    board = cards[4:8]
    dead = cards[8:]
    turn = equity_fractions(holes, board, dead)
    rivers = [equity_fractions(holes, board + [c], dead)
              for c in FULL_DECK if c not in cards]
    assert turn == [sum(r[p] for r in rivers) / len(rivers) for p in range(2)]


def test_first_calls_from_several_threads_build_the_tables_once() -> None:
    """A fresh process; four threads ask at once while the tables are being built."""
    import subprocess
    import sys
    from pathlib import Path

    code = """
import threading
from controller.engine.equity import equity_fractions
from controller.engine.evaluator import rank_hand
start = threading.Barrier(4)
out = []
def work(i):
    start.wait()
    out.append((equity_fractions(["AsKs", "QdQh"], "Jh 8c 3d", use_numpy=i % 2 == 0),
                rank_hand("As Ks Qs Js Ts 2c 3d")))
threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
for t in threads: t.start()
for t in threads: t.join(60)
print(len(out), len(set(map(repr, out))), *out[0][0], out[0][1])
"""
    repo = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    n, distinct, eq0, eq1, royal = proc.stdout.split()
    assert (n, distinct) == ("4", "1")
    holes = [parse_cards("As Ks"), parse_cards("Qd Qh")]
    assert [Fraction(eq0), Fraction(eq1)] == brute_force(holes, parse_cards("Jh 8c 3d"))
    assert int(royal) == 7462


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(FULL_DECK), min_size=13, max_size=13, unique=True),
       st.integers(2, 4), st.booleans())
def test_river_equity_is_the_showdown_of_the_evaluator(cards: list[Card], players: int,
                                                       omaha: bool) -> None:
    """With five board cards, equity is exactly the pot split of rank_hand/rank_omaha."""
    from controller.engine.evaluator import rank_hand, rank_omaha

    k = 4 if omaha else 2
    players = min(players, (13 - 5) // k)
    holes = [cards[k * i:k * i + k] for i in range(players)]
    board = cards[8:13]
    ranks = [rank_omaha(h, board) if omaha else rank_hand(h + board) for h in holes]
    winners = [p for p in range(players) if ranks[p] == max(ranks)]
    expected = [Fraction(1, len(winners)) if p in winners else Fraction(0)
                for p in range(players)]
    assert equity_fractions(holes, board) == expected


def test_remembered_answers_are_fresh_lists_and_follow_the_question() -> None:
    from controller.engine.equity import clear_cache, equity

    clear_cache()
    first = equity(["AsKs", "QdQh"], "Jh 8c 3d", dead="2c 7d")
    first[0] = 99.0  # the caller's list is theirs to change
    again = equity(["As Ks", "Qd Qh"], ["Jh", "8c", "3d"], dead="7d 2c")
    assert again[0] != 99.0 and sum(again) == pytest.approx(1.0)
    swapped = equity(["QdQh", "AsKs"], "Jh 8c 3d", dead="2c 7d")
    assert swapped == again[::-1]
    no_dead = equity(["AsKs", "QdQh"], "Jh 8c 3d")
    assert no_dead != again  # dead cards change the answer here
    holes = [parse_cards("As Ks"), parse_cards("Qd Qh")]
    assert [float(x) for x in brute_force(holes, parse_cards("Jh 8c 3d"),
                                          parse_cards("2c 7d"))] == again


# ----------------------------------------------------------------------------- compiled


def test_the_install_built_the_compiled_counter() -> None:
    """scripts/setup.sh (pip install -e .) builds controller/engine/_equity_c.c; without it
    equity falls back to numpy, slower than native brute force after the flop (issue 21)."""
    from controller.engine.equity import _c_setup

    assert _c_setup() is not None, "controller.engine._equity_c was not built: rerun setup.sh"


def _random_spots(seed: int, n: int, streets=(0, 3, 4, 5)):
    rng = random.Random(seed)
    for trial in range(n):
        omaha = trial % 2 == 1
        k = 4 if omaha else 2
        players = rng.randint(2, 6 if omaha else 10)
        nb = streets[trial % len(streets)]
        pool = SPADES_HEARTS if trial % 3 == 0 and players * k + nb <= 20 else list(FULL_DECK)
        cards = rng.sample(pool, players * k + nb)
        rest = [c for c in FULL_DECK if c not in cards]
        dead = rng.sample(rest, rng.randint(0, 6))
        yield [cards[i * k:(i + 1) * k] for i in range(players)], cards[players * k:], dead


@pytest.mark.parametrize("seed", [1, 2])
def test_compiled_numpy_and_pure_python_give_identical_answers_on_every_street(seed) -> None:
    """Pre-flop, flop, turn and river; Hold'em 2..10 and Omaha 2..6; flush-heavy decks."""
    from controller.engine import equity

    for holes, board, dead in _random_spots(seed, 24):
        fast = equity_fractions(holes, board, dead)
        assert fast == equity_fractions(holes, board, dead, use_numpy=True), (holes, board)
        if len(board) >= 3 or len(holes) <= 3:  # the pure-Python path is slow pre-flop
            assert fast == equity_fractions(holes, board, dead, use_numpy=False), (holes, board)
        floats = equity([[str(c) for c in h] for h in holes], [str(c) for c in board],
                        [str(c) for c in dead])
        assert floats == [float(x) for x in fast]
        assert sum(fast) == 1


@pytest.mark.parametrize(
    "hands, board, dead",
    [
        (["AsKs", "QdQh"], "Jh 8c 3d", ""),
        (["as ks", "qd,qh"], "jh8c3d", ()),
        ([["As", "Ks"], ("Qd", "Qh")], ("Jh", "8c", "3d"), ["2c"]),
        ((parse_cards("As Ks"), parse_cards("Qd Qh")), parse_cards("Jh 8c 3d"), ()),
        (["AsKs", "QdQh"], "Jh 8c 3d", " 10c "),  # '10' is read as T by the checked parse
        (["AsKs", ["Qd", "Qh"]], ["Jh", Card(8, "c"), " 3d"], "2c 7d"),
    ],
)
def test_every_question_form_gets_the_same_answer_as_the_pure_python_path(hands, board, dead):
    """The compiled module reads the usual forms itself; the others go the checked way."""
    from controller.engine import equity

    want = equity(hands, board, dead, use_numpy=False)
    assert equity(hands, board, dead) == want
    assert equity_fractions(hands, board, dead) == equity_fractions(hands, board, dead,
                                                                    use_numpy=False)


def test_without_the_compiled_module_equity_answers_with_numpy(monkeypatch) -> None:
    from controller.engine import equity as module
    from controller.engine.equity import _C, clear_cache, equity

    want = equity(["AhKhQdJd", "8s8c7s6c"], "Th 4h 4c", use_numpy=False)
    monkeypatch.setattr(_C, "tried", True)
    monkeypatch.setattr(_C, "module", None)
    clear_cache()
    assert equity(["AhKhQdJd", "8s8c7s6c"], "Th 4h 4c") == want
    assert module._units(["AsKs", "QdQh"], "Jh 8c 3d", (), None, None)[1] == 990


def test_compiled_units_refuse_repeated_or_foreign_cards() -> None:
    from controller.engine.equity import _c_setup

    c = _c_setup()
    if c is None:
        pytest.skip("the compiled module was not built (see the test above)")
    with pytest.raises(ValueError, match="G-5"):
        c.units([(0, 1), (1, 2)], (), (), False)
    with pytest.raises(ValueError, match="G-5"):
        c.units([(0, 1), (2, 52)], (), (), False)
    acc, boards = c.units([(48, 44), (43, 42)], (), (), False)  # AcKc vs QsQh
    assert boards == 1_712_304 and sum(acc) == boards * 2520
