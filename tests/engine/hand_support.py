"""Test helpers for the hand engine: a slow reference ranker and a rule-case driver.

The reference ranker (:func:`ref_rank`) is a plain best-five-of-N scorer kept as an
independent check of ``controller.engine.evaluator`` in the hand tests.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations


def _five(cards) -> tuple:
    ranks = sorted((c.rank for c in cards), reverse=True)
    flush = len({c.suit for c in cards}) == 1
    uniq = sorted(set(ranks), reverse=True)
    straight = 0
    if len(uniq) == 5:
        if uniq[0] - uniq[4] == 4:
            straight = uniq[0]
        elif uniq == [14, 5, 4, 3, 2]:
            straight = 5
    cnt = Counter(ranks)
    groups = sorted(cnt.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    shape = [g[1] for g in groups]
    order = [g[0] for g in groups]
    if straight and flush:
        return (8, straight)
    if shape[0] == 4:
        return (7, *order)
    if shape[:2] == [3, 2]:
        return (6, *order)
    if flush:
        return (5, *ranks)
    if straight:
        return (4, straight)
    if shape[0] == 3:
        return (3, *order)
    if shape[:2] == [2, 2]:
        return (2, *order)
    if shape[0] == 2:
        return (1, *order)
    return (0, *ranks)


def _encode(t: tuple) -> int:
    v = t[0]
    for x in t[1:] + (0,) * (6 - len(t)):
        v = v * 16 + x
    return v


def ref_rank(hole, board) -> int:
    """Return a comparable int for the best five of hole + board (hold'em, draw)."""
    cards = list(hole) + list(board)
    return max(_encode(_five(c)) for c in combinations(cards, 5))


def ref_rank_omaha(hole, board) -> int:
    """Return a comparable int for the best Omaha hand: exactly 2 hole + 3 board (G-2)."""
    return max(
        _encode(_five(h + b)) for h in combinations(hole, 2) for b in combinations(board, 3)
    )


def ref_describe(rank: int) -> str:
    """Return the category name of a :func:`ref_rank` value."""
    names = ["High card", "One pair", "Two pair", "Three of a kind", "Straight", "Flush",
             "Full house", "Four of a kind", "Straight flush"]
    return names[rank >> 20]
