"""Poker hand ranking, exact to rules H-1..H-6 (and G-2 for Omaha).

A hand's strength is one integer, its *rank*: ``1`` (seven-five-four-three-two,
the worst high-card hand) to ``7462`` (royal flush). Higher is better; two hands
tie exactly when their ranks are equal (H-3: suits never break ties, only the best
five cards count, H-4: ties within a category are decided by the deciding ranks in
order). There are exactly 7,462 distinct five-card hand values in a 52-card deck.

Public API (cards may be :class:`~controller.engine.cards.Card` objects or card
texts such as ``"As"``):

- :func:`rank_hand` -- best five of 5..7 cards (Hold'em, G-1).
- :func:`rank_omaha` -- exactly two of four hole cards and three of the board (G-2).
- :func:`best_five`, :func:`best_five_omaha` -- the five cards that play.
- :func:`describe` -- the hand in words for H-6 (``"Two pair, kings and fives"``).
- :func:`describe_hand` -- the words for any number of cards (pre-flop too).
- :func:`category` -- the H-1 category (``"full house"``).
- :func:`rank_indices` -- the fast path over dense card indices 0..51.

How it works: every card index has a weight ``5**rank + 16**suit << 32``. The sum
of the weights of a hand carries, in its low 32 bits, a base-5 count of each rank
(a perfect key for the rank multiset, looked up in a table of the 73,775 multisets
of five to seven cards) and in its high bits a count per suit, from which a flush
is detected with one addition and one mask; flushes are then looked up by the
13-bit rank mask of the flush suit. The five-card tables are built from the rules
on first use, and the six- and seven-card entries derived from them at once (the best
five of n cards is the best five of one of its n-1 card parts): about 0.25 s on the
development machine, once per process. Filling them lazily instead, when first met,
put up to a millisecond on the showdown steps of a table's first hundreds of hands
(issue 21: table step p99). Standard library only.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from itertools import combinations, combinations_with_replacement

from .cards import Card, CardError, CardLike, parse_cards

__all__ = [
    "HandError",
    "CATEGORIES",
    "WORST_RANK",
    "BEST_RANK",
    "rank_hand",
    "rank_omaha",
    "rank_indices",
    "best_five",
    "best_five_omaha",
    "describe",
    "describe_hand",
    "category",
    "category_index",
]

#: H-1 categories, worst first; ``category_index(rank)`` indexes this tuple.
CATEGORIES: tuple[str, ...] = (
    "high card",
    "one pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)

_HIGH, _PAIR, _TWO_PAIR, _TRIPS, _STRAIGHT, _FLUSH, _FULL, _QUADS, _SF = range(9)

_SINGULAR = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
             "jack", "queen", "king", "ace")
_PLURAL = ("twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines",
           "tens", "jacks", "queens", "kings", "aces")


class HandError(CardError):
    """The cards cannot be ranked as asked (a ValueError, e.g. G-1/G-2 card counts, G-5)."""


# --------------------------------------------------------------------------- packing
# Internal "packed" value: category << 20 | up to five deciding ranks (0..12 = 2..A),
# four bits each, most significant first (H-4 order). Packed values order hands
# exactly like the rules; the public rank is the position of the packed value in the
# sorted list of all 7,462 of them.


def _pack(cat: int, ranks: Sequence[int]) -> int:
    v = cat
    for i in range(5):
        v = (v << 4) | (ranks[i] if i < len(ranks) else 0)
    return v


def _straight_top(mask: int) -> int:
    """Top rank (0..12) of the best straight in a 13-bit rank mask, or -1 (H-2)."""
    for top in range(12, 3, -1):
        m = 0b11111 << (top - 4)
        if mask & m == m:
            return top
    if mask & 0x100F == 0x100F:  # A-2-3-4-5, the wheel: five high (H-2)
        return 3
    return -1


def _nonflush_packed(counts: Sequence[int]) -> int:
    """Packed value of the best five ignoring suits; ``counts[r]`` = cards of rank r."""
    order = [r for r in range(12, -1, -1) if counts[r]]
    for r in order:
        if counts[r] >= 4:
            kicker = next(x for x in order if x != r)
            return _pack(_QUADS, (r, kicker))
    trips = [r for r in order if counts[r] == 3]
    if trips:
        t = trips[0]
        rest = [r for r in order if r != t and counts[r] >= 2]
        if rest:
            return _pack(_FULL, (t, rest[0]))
    mask = 0
    for r in order:
        mask |= 1 << r
    top = _straight_top(mask)
    if top >= 0:
        return _pack(_STRAIGHT, (top,))
    if trips:
        t = trips[0]
        return _pack(_TRIPS, [t] + [r for r in order if r != t][:2])
    pairs = [r for r in order if counts[r] == 2]
    if len(pairs) >= 2:
        hi, lo = pairs[0], pairs[1]
        kicker = next(r for r in order if r != hi and r != lo)
        return _pack(_TWO_PAIR, (hi, lo, kicker))
    if pairs:
        p = pairs[0]
        return _pack(_PAIR, [p] + [r for r in order if r != p][:3])
    return _pack(_HIGH, order[:5])


def _flush_packed(mask: int) -> int:
    """Packed value of the best flush or straight flush in a suit's 13-bit rank mask."""
    top = _straight_top(mask)
    if top >= 0:
        return _pack(_SF, (top,))
    return _pack(_FLUSH, [r for r in range(12, -1, -1) if mask >> r & 1][:5])


# --------------------------------------------------------------------------- tables


class _Tables:
    """Lookup tables, built once on first use (see module docstring)."""

    built = False
    complete = False  # every 6- and 7-card key present in nonflush
    packed_of_rank: list[int] = []  # rank -> packed (index 0 unused)
    rank_of_packed: dict[int, int] = {}
    nonflush: dict[int, int] = {}  # base-5 rank-count key -> rank (5..7 cards)
    flush: list[int] = []  # 13-bit mask -> rank of best flush, 0 if < 5 bits
    weight: list[int] = []  # card index -> 5**rank + (1 << 32 + 4*suit)
    pow5: list[int] = [5**r for r in range(13)]


def _rank_multisets(n: int) -> Iterable[tuple[int, ...]]:
    """Yield every multiset of n ranks (0..12, at most four of each), descending."""
    for combo in combinations_with_replacement(range(12, -1, -1), n):
        ok = True
        for i in range(n - 4):
            if combo[i] == combo[i + 4]:
                ok = False
                break
        if ok:
            yield combo


def _key(ranks: Iterable[int]) -> int:
    pow5 = _Tables.pow5
    return sum(pow5[r] for r in ranks)


def _build() -> None:
    if _Tables.built:
        return
    packed_nf: dict[int, int] = {}
    for combo in _rank_multisets(5):
        counts = [0] * 13
        for r in combo:
            counts[r] += 1
        packed_nf[_key(combo)] = _nonflush_packed(counts)
    flush_packed = [0] * 8192
    for mask in range(8192):
        if mask.bit_count() >= 5:
            flush_packed[mask] = _flush_packed(mask)
    values = set(packed_nf.values())
    values.update(v for v in flush_packed if v)
    ordered = sorted(values)
    if len(ordered) != 7462:  # pragma: no cover - a broken build must not pass silently
        raise RuntimeError(f"H-1: expected 7462 distinct hand values, built {len(ordered)}")
    rank_of = {p: i + 1 for i, p in enumerate(ordered)}
    _Tables.packed_of_rank = [0] + ordered
    _Tables.rank_of_packed = rank_of
    _Tables.nonflush.update({k: rank_of[p] for k, p in packed_nf.items()})
    _Tables.flush = [rank_of[p] if p else 0 for p in flush_packed]
    _Tables.weight = [_Tables.pow5[i >> 2] + (1 << (32 + 4 * (i & 3))) for i in range(52)]
    # six and seven cards: each (n-1)-card multiset hands its value up to the n-card
    # multisets it is a part of (a rank it holds four of cannot be added)
    pow5 = _Tables.pow5
    prev: dict[int, int] = dict(_Tables.nonflush)
    for _n in (6, 7):
        cur: dict[int, int] = {}
        get = cur.get
        for key, v in prev.items():
            for p in pow5:
                if key // p % 5 != 4:
                    k2 = key + p
                    if v > get(k2, 0):
                        cur[k2] = v
        _Tables.nonflush.update(cur)
        prev = cur
    _Tables.complete = True
    _Tables.built = True


_BUILD_LOCK = threading.Lock()


def tables(complete: bool = False) -> type[_Tables]:
    """Return the built lookup tables (internal; used by the equity module).

    The non-flush table holds every 5-, 6- and 7-card rank multiset once built;
    ``complete`` is kept for callers that ask for that explicitly.
    """
    if not _Tables.built:
        with _BUILD_LOCK:  # two threads asking at once build once
            _build()
    return _Tables


# --------------------------------------------------------------------------- ranking

_LOW32 = 0xFFFFFFFF


def rank_indices(indices: Sequence[int]) -> int:
    """Return the rank (1..7462, higher better) of 5..7 cards given as dense indices.

    ``indices`` are distinct ``Card.index`` values 0..51 (``(rank-2)*4 + suit``). This
    is the fast path behind :func:`rank_hand`; it does not check its input (a repeated
    or out-of-range index gives a meaningless result or an IndexError/KeyError).
    """
    t = _Tables if _Tables.built else tables()
    w = t.weight
    s = 0
    for i in indices:
        s += w[i]
    v = t.nonflush[s & _LOW32]
    f = ((s >> 32) + 0x3333) & 0x8888  # a nibble reached 5: a flush (H-1)
    if f:
        suit = (f.bit_length() >> 2) - 1
        mask = 0
        for i in indices:
            if i & 3 == suit:
                mask |= 1 << (i >> 2)
        fv = t.flush[mask]
        if fv > v:
            v = fv
    return v


_SUIT_NO = {"c": 0, "d": 1, "h": 2, "s": 3}
_INDEX_OF_TEXT: dict[str, int] = {}


def _quick_indices(cards: object) -> list[int] | None:
    """Dense indices of a list or tuple of Cards or canonical texts (``"As"``), the forms
    the table passes; None for anything else (the checked parse then reads it)."""
    if type(cards) is not list and type(cards) is not tuple:
        return None
    if not _INDEX_OF_TEXT:
        _INDEX_OF_TEXT.update({str(Card.from_index(i)): i for i in range(52)})
    out = []
    for c in cards:
        if type(c) is Card:
            out.append((c.rank - 2) * 4 + _SUIT_NO[c.suit])
        elif type(c) is str and c in _INDEX_OF_TEXT:
            out.append(_INDEX_OF_TEXT[c])
        else:
            return None
    return out


def _cards(cards: str | Iterable[CardLike], what: str) -> tuple[Card, ...]:
    try:
        return parse_cards(cards)
    except CardError as exc:
        raise HandError(f"{exc} ({what})") from None


def rank_hand(cards: str | Iterable[CardLike]) -> int:
    """Return the rank of the best five of 5..7 cards: an int 1..7462, higher is better.

    ``cards``: Cards or texts (``["As", "Kd", ...]`` or ``"As Kd Qh Jc Ts"``). Any five,
    six or seven of them may play (G-1); equal ranks split the pot exactly (H-3, H-4,
    H-5). The ace is high, or low only in the wheel 5-4-3-2-A (H-2).

    Raises:
        HandError (ValueError): not a card, a card twice (G-5), or not 5..7 cards.
    """
    quick = _quick_indices(cards)
    if quick is not None and 5 <= len(quick) <= 7 and len(set(quick)) == len(quick):
        return rank_indices(quick)
    cs = _cards(cards, "hand")
    if not 5 <= len(cs) <= 7:
        raise HandError(f"G-1: a hand is ranked from 5 to 7 cards, got {len(cs)}")
    return rank_indices([c.index for c in cs])


def _omaha_cards(hole: str | Iterable[CardLike], board: str | Iterable[CardLike]
                 ) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    h = _cards(hole, "hole cards")
    b = _cards(board, "board")
    if len(h) != 4:
        raise HandError(f"G-2: an Omaha hand has 4 hole cards, got {len(h)}")
    if not 3 <= len(b) <= 5:
        raise HandError(f"G-2: an Omaha board has 3 to 5 cards, got {len(b)}")
    both = set(h) & set(b)
    if both:
        raise HandError(f"G-5: card {sorted(both)[0]} appears twice (hole cards and board)")
    return h, b


def rank_omaha(hole: str | Iterable[CardLike], board: str | Iterable[CardLike]) -> int:
    """Return the Omaha rank (1..7462): exactly two of the 4 hole cards and three of
    the 3..5 board cards (G-2); comparable with :func:`rank_hand` ranks.

    Raises:
        HandError (ValueError): not 4 hole cards, not 3..5 board cards, a card twice.
    """
    hi, bi = _quick_indices(hole), _quick_indices(board)
    if (hi is None or bi is None or len(hi) != 4 or not 3 <= len(bi) <= 5
            or len(set(hi + bi)) != len(hi) + len(bi)):
        h, b = _omaha_cards(hole, board)
        hi, bi = [c.index for c in h], [c.index for c in b]
    t = _Tables if _Tables.built else tables()
    w, nf, flush = t.weight, t.nonflush, t.flush
    trios = [(w[x] + w[y] + w[z], (x, y, z)) for x, y, z in combinations(bi, 3)]
    best = 0
    for x, y in combinations(hi, 2):
        pw = w[x] + w[y]
        for tw, trio in trios:
            s = pw + tw
            v = nf[s & _LOW32]
            if ((s >> 32) + 0x3333) & 0x8888:  # all five of one suit
                mask = 0
                for i in (x, y) + trio:
                    mask |= 1 << (i >> 2)
                v = flush[mask]
            if v > best:
                best = v
    return best


def _display_order(five: Sequence[Card], rank: int) -> tuple[Card, ...]:
    """Order five cards as the hand reads: groups by size then rank; wheel ends on the ace."""
    counts: dict[int, int] = {}
    for c in five:
        counts[c.rank] = counts.get(c.rank, 0) + 1
    ordered = sorted(five, key=lambda c: (counts[c.rank], c.rank, c.suit), reverse=True)
    cat = category_index(rank)
    if cat in (_STRAIGHT, _SF) and ordered[0].rank == 14 and ordered[1].rank == 5:
        ordered = ordered[1:] + ordered[:1]  # 5-4-3-2-A
    return tuple(ordered)


def best_five(cards: str | Iterable[CardLike]) -> tuple[Card, ...]:
    """Return the five cards that play from 5..7 cards, in reading order.

    Reading order: the biggest group first (quads, trips, pairs), higher ranks first,
    straights from the top card (the wheel reads 5-4-3-2-A). When several fives tie
    (H-3, suits do not count), the first in card order is returned.

    Raises:
        HandError (ValueError): as :func:`rank_hand`.
    """
    cs = _cards(cards, "hand")
    if not 5 <= len(cs) <= 7:
        raise HandError(f"G-1: a hand is ranked from 5 to 7 cards, got {len(cs)}")
    best, best_combo = 0, cs[:5]
    for combo in combinations(cs, 5):
        v = rank_indices([c.index for c in combo])
        if v > best:
            best, best_combo = v, combo
    return _display_order(best_combo, best)


def best_five_omaha(hole: str | Iterable[CardLike], board: str | Iterable[CardLike]
                    ) -> tuple[Card, ...]:
    """Return the five cards that play in Omaha (two hole + three board, G-2), in
    reading order (see :func:`best_five`).

    Raises:
        HandError (ValueError): as :func:`rank_omaha`.
    """
    h, b = _omaha_cards(hole, board)
    best, best_combo = 0, h[:2] + b[:3]
    for pair in combinations(h, 2):
        for trio in combinations(b, 3):
            combo = pair + trio
            v = rank_indices([c.index for c in combo])
            if v > best:
                best, best_combo = v, combo
    return _display_order(best_combo, best)


# --------------------------------------------------------------------------- words


def _unpack(rank: int) -> tuple[int, list[int]]:
    t = tables()
    if not (isinstance(rank, int) and 1 <= rank <= 7462):
        raise HandError(f"H-1: a hand rank is an int 1..7462, got {rank!r}")
    p = t.packed_of_rank[rank]
    return p >> 20, [(p >> (16 - 4 * i)) & 15 for i in range(5)]


def category_index(rank: int) -> int:
    """Return the H-1 category of a rank as 0 (high card) .. 8 (straight flush).

    Raises:
        HandError (ValueError): rank not in 1..7462.
    """
    return _unpack(rank)[0]


def category(rank: int) -> str:
    """Return the H-1 category of a rank: ``"straight flush"``, ``"four of a kind"``,
    ``"full house"``, ``"flush"``, ``"straight"``, ``"three of a kind"``,
    ``"two pair"``, ``"one pair"`` or ``"high card"``.

    Raises:
        HandError (ValueError): rank not in 1..7462.
    """
    return CATEGORIES[category_index(rank)]


def describe(rank: int, *, kickers: bool = False) -> str:
    """Return the hand in words as a card room says it (H-6).

    Examples: ``"Royal flush"``, ``"Straight flush, nine high"``,
    ``"Four of a kind, aces"``, ``"Full house, kings full of fives"``,
    ``"Flush, ace high"``, ``"Straight, five high"``, ``"Three of a kind, sevens"``,
    ``"Two pair, kings and fives"``, ``"Pair of aces"``, ``"High card, ace"``.
    Kickers are not named (they decide ties, H-4, but are not part of the call, H-6).

    ``kickers=True`` (the floor's words at a showdown, ``livetable history``) adds every
    rank that decides a tie under H-4 where the category does not fix all five cards:
    ``"Four of a kind, aces, king kicker"``, ``"Two pair, kings and fives, ace kicker"``,
    ``"Three of a kind, sevens, king-two kickers"``, ``"Pair of aces, nine-five-two
    kickers"``, ``"High card, ace, jack-nine-six-two kickers"``, ``"Flush,
    ace-jack-nine-six-three high"``. Straights, full houses and straight flushes read as
    without it (their call fixes all five cards).

    Raises:
        HandError (ValueError): rank not in 1..7462.
    """
    words = _describe(rank)
    if not kickers:
        return words
    cat, r = _unpack(rank)
    rest = {_QUADS: r[1:2], _TWO_PAIR: r[2:3], _TRIPS: r[1:3], _PAIR: r[1:4], _HIGH: r[1:5]}.get(cat)
    if cat == _FLUSH:
        return "Flush, " + "-".join(_SINGULAR[x] for x in r) + " high"
    if not rest:
        return words
    return f"{words}, {'-'.join(_SINGULAR[x] for x in rest)} kicker{'s' if len(rest) > 1 else ''}"


def _describe(rank: int) -> str:
    """The H-6 call of ``rank`` (see :func:`describe`)."""
    cat, r = _unpack(rank)
    if cat == _SF:
        return "Royal flush" if r[0] == 12 else f"Straight flush, {_SINGULAR[r[0]]} high"
    if cat == _QUADS:
        return f"Four of a kind, {_PLURAL[r[0]]}"
    if cat == _FULL:
        return f"Full house, {_PLURAL[r[0]]} full of {_PLURAL[r[1]]}"
    if cat == _FLUSH:
        return f"Flush, {_SINGULAR[r[0]]} high"
    if cat == _STRAIGHT:
        return f"Straight, {_SINGULAR[r[0]]} high"
    if cat == _TRIPS:
        return f"Three of a kind, {_PLURAL[r[0]]}"
    if cat == _TWO_PAIR:
        return f"Two pair, {_PLURAL[r[0]]} and {_PLURAL[r[1]]}"
    if cat == _PAIR:
        return f"Pair of {_PLURAL[r[0]]}"
    return f"High card, {_SINGULAR[r[0]]}"


def describe_hand(hole: str | Iterable[CardLike], board: str | Iterable[CardLike] = (),
                  game: str = "holdem", *, kickers: bool = False) -> str:
    """Return a player's hand in words at any point of the hand (H-6).

    ``game``: ``"holdem"`` (G-1), ``"omaha"`` (G-2) or ``"draw"`` (G-3: the five hole
    cards, no board). With five or more cards this is ``describe`` of the best hand
    (Omaha: two hole and three board cards). With fewer cards (Hold'em pre-flop; Omaha before the
    flop) it names what the cards make so far: ``"Pair of aces"``, ``"High card, king"``
    (in Omaha only two hole cards can count, so a pair at most). ``kickers=True`` names
    the kickers of a five-card hand as :func:`describe` does.

    Raises:
        HandError (ValueError): bad cards, a card twice (G-5), more than 7 Hold'em
            cards, not 4 Omaha hole cards, an Omaha board of 1..2 or more than 5 cards,
            a board in draw (G-3), an unknown game.
    """
    h = _cards(hole, "hole cards")
    b = _cards(board, "board")
    if set(h) & set(b):
        raise HandError(f"G-5: card {sorted(set(h) & set(b))[0]} appears twice "
                        "(hole cards and board)")
    if game == "omaha":
        if b:
            return describe(rank_omaha(h, b), kickers=kickers)
        if len(h) != 4:
            raise HandError(f"G-2: an Omaha hand has 4 hole cards, got {len(h)}")
        ranks = sorted((c.rank for c in h), reverse=True)
        pairs = [r for r in set(ranks) if ranks.count(r) >= 2]
        if pairs:
            return f"Pair of {_PLURAL[max(pairs) - 2]}"
        return f"High card, {_SINGULAR[ranks[0] - 2]}"
    if game == "draw" and b:
        raise HandError("G-3: five card draw has no board")
    if game not in ("holdem", "draw"):
        raise HandError(f"G-1: game must be 'holdem', 'omaha' or 'draw', got {game!r}")
    cards = h + b
    if len(cards) >= 5:
        return describe(rank_hand(cards), kickers=kickers)
    if not cards:
        raise HandError("G-1: no cards to describe")
    counts: dict[int, int] = {}
    for c in cards:
        counts[c.rank] = counts.get(c.rank, 0) + 1
    groups = sorted(((n, r) for r, n in counts.items()), reverse=True)
    n, r = groups[0]
    if n == 4:
        return f"Four of a kind, {_PLURAL[r - 2]}"
    if n == 3:
        return f"Three of a kind, {_PLURAL[r - 2]}"
    if n == 2 and len(groups) > 1 and groups[1][0] == 2:
        return f"Two pair, {_PLURAL[r - 2]} and {_PLURAL[groups[1][1] - 2]}"
    if n == 2:
        return f"Pair of {_PLURAL[r - 2]}"
    return f"High card, {_SINGULAR[r - 2]}"


#: The worst and best ranks (7-5-4-3-2 offsuit; royal flush).
WORST_RANK = 1
BEST_RANK = 7462
