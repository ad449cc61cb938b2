"""Shared pieces of the hand engine: phases, card encoding, default ranker (G-5, H-1..H-5).

Cards are kept as dense indexes 0..51 (``None`` = a card the engine was not told);
text and :class:`~controller.engine.cards.Card` only at the edges.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
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
    return " ".join(map(_TEXT_OF, cards))


# dense index (or None, a card the engine was not told) -> text, for :func:`_txt`
_TEXT_OF: Callable[[int | None], str] = {None: "??", **dict[int | None, str](enumerate(_STR))}.__getitem__


def _default_ranker(game: Game) -> Callable[[list[int], list[int]], int]:
    """Return ``rank(hole, board)`` over card indexes using the evaluator (H-1..H-5, G-2)."""
    ranker = _RANKERS.get(game)
    if ranker is None:
        ranker = _RANKERS[game] = _make_ranker(game)
    return ranker


_RANKERS: dict[Game, Callable[[list[int], list[int]], int]] = {}


def _make_ranker(game: Game) -> Callable[[list[int], list[int]], int]:
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


@lru_cache(maxsize=None)  # at most 7,462 ranks; a showdown describes every pot's winner
def _default_describe(rank: int) -> str:
    from . import evaluator

    return evaluator.describe(rank)


def _copy_value(v: Any) -> Any:
    """Copy one slot's value as :meth:`Hand.copy` does: lists (lists of lists two deep),
    sets and dicts copied; anything else (numbers, tuples, frozen objects) shared."""
    t = type(v)
    if t is list:
        return [x[:] for x in v] if v and type(v[0]) is list else v[:]
    if t is set or t is dict:
        return v.copy()
    return v


def _slot_copier(cls: type, *, nested: Iterable[str] = (), lists: Iterable[str] = (),
                 shared: Iterable[str] = ()) -> Callable[[Any], Any]:
    """Return ``copy(obj)`` for instances of the slotted class ``cls`` (issue 21: the table
    copies its hand once in every step, so this is on every action's path).

    The function is generated as straight-line code over ``cls.__slots__``: the names in
    ``nested`` are lists of lists (copied two deep), ``lists`` flat lists (sliced),
    ``shared`` immutable values (numbers, enums, tuples, frozen objects); every other slot
    is copied by its value's type at the time (:func:`_copy_value`), so a slot added later
    is still copied safely. The result equals the generic loop's, about three times faster.
    """
    nested, lists, shared = set(nested), set(lists), set(shared)
    body = ["def copy(self):", "    new = _new(cls)"]
    for name in cls.__slots__:  # type: ignore[attr-defined]  # a slotted class
        if name in nested:
            expr = f"[x[:] for x in self.{name}]"
        elif name in lists:
            expr = f"self.{name}[:]"
        elif name in shared:
            expr = f"self.{name}"
        else:
            expr = f"_copy_value(self.{name})"
        body.append(f"    new.{name} = {expr}")
    body.append("    return new")
    ns: dict[str, Any] = {"_new": object.__new__, "cls": cls, "_copy_value": _copy_value}
    exec("\n".join(body), ns)  # noqa: S102 - code built from the class's own slot names
    return ns["copy"]  # type: ignore[no-any-return]
