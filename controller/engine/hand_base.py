"""Shared pieces of the hand engine: phases, card encoding, default ranker (G-5, H-1..H-5).

Cards are kept as dense indexes 0..51 (``None`` = a card the engine was not told);
text and :class:`~controller.engine.cards.Card` only at the edges.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Callable

from .cards import FULL_DECK, Card, CardError, parse_card
from .errors import IllegalDeal
from .settings import Game, Limit, Street

# phases (ints for speed)
_DEAL_HOLE, _BET, _DEAL_BOARD, _DRAW, _DEAL_DRAW, _SHOWDOWN, _COMPLETE = range(7)
_FLOP_STREETS = (Street.PREFLOP, Street.FLOP, Street.TURN, Street.RIVER)
_DRAW_STREETS = (Street.PREDRAW, Street.DRAW, Street.POSTDRAW)
_BOARD_COUNTS = (3, 1, 1)
_NL, _PL, _FL = Limit.NO_LIMIT, Limit.POT_LIMIT, Limit.FIXED_LIMIT

# cards are kept as dense indexes 0..51 (None = unknown); text and Card only at the edges
_STR = [str(c) for c in FULL_DECK]
_BY_ID = {id(c): k for k, c in enumerate(FULL_DECK)}
_BY_TEXT = {str(c): k for k, c in enumerate(FULL_DECK)}

Ranker = Callable[[Sequence[Card], Sequence[Card]], int]
_setattr = object.__setattr__


def _idx(c: Any) -> int | None:
    """Return the dense index of a card given as Card, text or index; None if unknown."""
    k = _BY_ID.get(id(c))
    if k is not None:
        return k
    if c is None or c == "??":
        return None
    if isinstance(c, str):
        k = _BY_TEXT.get(c)
        if k is not None:
            return k
    if isinstance(c, Card):
        return c.index
    if isinstance(c, int) and not isinstance(c, bool) and 0 <= c < 52:
        return c
    return _BY_ID[id(parse_card(c))]


def _parse(cards: Any) -> list[int | None]:
    """Return card indexes from ``"As Kd"``, ``"AsKd"`` or an iterable of cards.

    Raises:
        IllegalDeal: not a card (G-5).
    """
    if isinstance(cards, str):
        words = cards.replace(",", " ").split()
        if len(words) == 1 and len(words[0]) > 3:
            w = words[0]
            words = [w[k:k + 2] for k in range(0, len(w), 2)]
        cards = words
    try:
        return [_idx(c) for c in cards]
    except CardError as exc:
        raise IllegalDeal(str(exc)) from None


def _txt(cards: Iterable[int | None]) -> str:
    return " ".join("??" if c is None else _STR[c] for c in cards)


def _default_ranker(game: Game) -> Callable[[list[int], list[int]], int]:
    """Return ``rank(hole, board)`` over card indexes using the evaluator (H-1..H-5, G-2)."""
    from itertools import combinations

    from . import evaluator

    fast = evaluator.rank_indices
    if game is Game.OMAHA:
        def omaha(hole: list[int], board: list[int]) -> int:
            trios = list(combinations(board, 3))
            best = 0
            for pair in combinations(hole, 2):
                for trio in trios:
                    v = fast(pair + trio)
                    if v > best:
                        best = v
            return best
        return omaha
    return lambda hole, board: fast(hole + board)


def _default_describe(rank: int) -> str:
    from . import evaluator

    return evaluator.describe(rank)
