"""Exact all-in equity by enumeration of every remaining board (S-8, G-1, G-2).

``equity(hole_cards, board=(), dead=())`` returns each player's share of the pot:
the fraction of all possible completions of the board that the player wins, a tie
counting as an equal share (H-3, H-5). The result is exact (an enumeration, not a
simulation); :func:`equity_fractions` gives the same numbers as Fractions.

How: boards are not dealt one by one. A hand's strength is the larger of a
*non-flush* value, which depends only on the multiset of ranks, and a *flush*
value, which depends only on the ranks of one suit. So

1. every multiset of ranks the remaining deck can deal is evaluated once, weighted
   by how many boards carry it (product of binomials over ranks): about 6,200
   groups pre-flop instead of 1.7 million boards;
2. then, suit by suit, the boards on which somebody can make a flush (three or
   more board cards of the suit; at most one suit per board) are grouped by the set
   of that suit's ranks dealt and the multiset of the other ranks, and their
   outcome is corrected from the non-flush one.

The arithmetic is in integers (shares in units of 1/2520, the least common multiple
of 1..10 ways to split a pot), so the result is exact until the final division.

With numpy available the groups are evaluated as arrays (the fast path, about
20 ms heads-up pre-flop on the development machine); without numpy the same
algorithm runs in plain Python (slower, same results). numpy is imported lazily.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterable, Sequence
from fractions import Fraction
from itertools import combinations, combinations_with_replacement
from math import comb
from typing import Any

from .cards import Card, CardError, CardLike, format_cards, parse_cards
from .evaluator import tables

__all__ = [
    "EquityError",
    "MAX_PLAYERS",
    "equity",
    "equity_fractions",
    "parse_equity_input",
]

#: Largest number of players (G-1, G-2: 2..10 at a table).
MAX_PLAYERS = 10
_UNITS = 2520  # lcm(1..10): a pot split k ways is 2520 // k units each


class EquityError(CardError):
    """Equity asked for impossible cards (a ValueError; G-1, G-2, G-5 in the message)."""


# --------------------------------------------------------------------------- input


def _hand(cards: Any, what: str) -> tuple[Card, ...]:
    try:
        return parse_cards(cards)
    except CardError as exc:
        raise EquityError(f"{exc} ({what})") from None


def parse_equity_input(
    hole_cards: Sequence[str | Iterable[CardLike]],
    board: str | Iterable[CardLike] = (),
    dead: str | Iterable[CardLike] = (),
    game: str | None = None,
) -> tuple[list[tuple[Card, ...]], tuple[Card, ...], tuple[Card, ...], str]:
    """Check and parse an equity question; return ``(holes, board, dead, game)``.

    ``game`` is ``"holdem"`` (two hole cards each, G-1) or ``"omaha"`` (four, G-2);
    ``None`` detects it from the hole-card count.

    Raises:
        EquityError (ValueError): fewer than 2 or more than MAX_PLAYERS players (G-1),
            wrong or mixed hole-card counts (G-1/G-2), a board of more than 5 cards,
            a card that is not a card or appears twice (G-5: "card As appears twice").
    """
    if isinstance(hole_cards, (str, Card)):
        raise EquityError("G-1: give one hand of hole cards per player, e.g. ['AsKs', 'QdQh']")
    holes = [_hand(h, f"player {i + 1}") for i, h in enumerate(hole_cards)]
    b = _hand(board, "board")
    d = _hand(dead, "dead cards")
    if not 2 <= len(holes) <= MAX_PLAYERS:
        raise EquityError(f"G-1: equity needs 2 to {MAX_PLAYERS} players, got {len(holes)}")
    sizes = {len(h) for h in holes}
    if game is None:
        if len(sizes) > 1:
            raise EquityError(
                "G-1: Hold'em players have 2 hole cards each, Omaha players 4 (G-2); got "
                + ", ".join(str(len(h)) for h in holes))
        game = "omaha" if sizes == {4} else "holdem"
    if game not in ("holdem", "omaha"):
        raise EquityError(f"G-1: game must be 'holdem' or 'omaha', got {game!r}")
    need = 4 if game == "omaha" else 2
    for i, h in enumerate(holes):
        if len(h) != need:
            rule = "G-2" if game == "omaha" else "G-1"
            raise EquityError(
                f"{rule}: every {game} player has {need} hole cards; player {i + 1} has "
                f"{len(h)} ({format_cards(h) or 'none'})"
            )
    if len(b) > 5:
        raise EquityError(f"G-1: the board has at most 5 cards, got {len(b)}")
    seen: set[Card] = set()
    for c in [c for h in holes for c in h] + list(b) + list(d):
        if c in seen:
            raise EquityError(f"G-5: card {c} appears twice")
        seen.add(c)
    return holes, b, d, game


# --------------------------------------------------------------------------- shared setup


class _Problem:
    """The question in dense form (rank 0..12, suit 0..3, 13-bit rank masks per suit)."""

    def __init__(self, holes: list[tuple[Card, ...]], board: tuple[Card, ...],
                 dead: tuple[Card, ...], omaha: bool) -> None:
        self.omaha = omaha
        self.holes = [[c.index for c in h] for h in holes]
        self.board = [c.index for c in board]
        used = {i for h in self.holes for i in h} | set(self.board) | {c.index for c in dead}
        self.deck = [i for i in range(52) if i not in used]
        self.m = 5 - len(self.board)
        if len(self.deck) < self.m:
            raise EquityError(
                f"G-5: only {len(self.deck)} cards left to deal {self.m} board cards")
        pow5 = tables().pow5
        self.avail = [0] * 13
        self.suit_avail = [0] * 4  # rank mask of the deck's cards per suit
        for i in self.deck:
            self.avail[i >> 2] += 1
            self.suit_avail[i & 3] |= 1 << (i >> 2)
        self.board_key = sum(pow5[i >> 2] for i in self.board)
        self.hole_keys = [sum(pow5[i >> 2] for i in h) for h in self.holes]
        self.board_suit = [0] * 4
        for i in self.board:
            self.board_suit[i & 3] |= 1 << (i >> 2)
        self.hole_suit = [[0] * 4 for _ in self.holes]
        for p, h in enumerate(self.holes):
            for i in h:
                self.hole_suit[p][i & 3] |= 1 << (i >> 2)
        self.total = comb(len(self.deck), self.m)

    def dealt_suited_range(self, s: int) -> range:
        """Numbers j of dealt cards of suit s for which somebody can make a flush."""
        b0 = self.board_suit[s].bit_count()
        if self.omaha:
            if not any(hs[s].bit_count() >= 2 for hs in self.hole_suit):
                return range(0)
            jmin = 3 - b0
        else:
            jmin = min(5 - b0 - hs[s].bit_count() for hs in self.hole_suit)
        jmin = max(jmin, 0)
        jmax = min(self.m, self.suit_avail[s].bit_count())
        return range(jmin, jmax + 1)


_STRAIGHTS = [0b11111 << k for k in range(8, -1, -1)] + [0x100F]


def _omaha_flush_value(pair_mask: int, board_mask: int, flush: list[int]) -> int:
    """Best flush rank with the two suited hole ranks and three of the suited board ranks."""
    best = 0
    for w in _STRAIGHTS:
        if w & pair_mask == pair_mask and board_mask & (w ^ pair_mask) == w ^ pair_mask:
            return flush[w]  # straight flushes are listed best first
    if board_mask.bit_count() < 3:
        return 0
    top3 = 0
    m = board_mask
    for _ in range(3):
        hb = 1 << (m.bit_length() - 1)
        top3 |= hb
        m ^= hb
    best = flush[pair_mask | top3]
    return best


def _rank_multisets(n: int) -> list[tuple[int, ...]]:
    return [c for c in combinations_with_replacement(range(13), n)
            if all(c[i] != c[i + 4] for i in range(n - 4))]


# --------------------------------------------------------------------------- pure Python


def _units_python(pr: _Problem) -> list[int]:
    """Each player's pot share in units of 1/2520, summed over all boards (no numpy)."""
    t = tables(complete=not pr.omaha)
    nf, flush, pow5 = t.nonflush, t.flush, t.pow5
    P = len(pr.holes)
    acc = [0] * P
    hole_pairs = [list(combinations(h, 2)) for h in pr.holes]
    pair_keys = [[pow5[a >> 2] + pow5[b >> 2] for a, b in hp] for hp in hole_pairs]
    board_ranks = [i >> 2 for i in pr.board]

    def nf_ranks(dealt: tuple[int, ...], dkey: int) -> list[int]:
        if not pr.omaha:
            base = pr.board_key + dkey
            return [nf[base + hk] for hk in pr.hole_keys]
        ranks5 = board_ranks + list(dealt)
        trios = {pow5[a] + pow5[b] + pow5[c] for a, b, c in combinations(ranks5, 3)}
        return [max(nf[pk + tk] for pk in pks for tk in trios) for pks in pair_keys]

    def add(ranks: list[int], w: int, sign: int = 1) -> None:
        best = max(ranks)
        winners = [p for p in range(P) if ranks[p] == best]
        share = sign * w * (_UNITS // len(winners))
        for p in winners:
            acc[p] += share

    avail = pr.avail
    for dealt in _rank_multisets(pr.m):
        w = 1
        for r in set(dealt):
            w *= comb(avail[r], dealt.count(r))
        if w:
            add(nf_ranks(dealt, sum(pow5[r] for r in dealt)), w)

    for s in range(4):
        js = pr.dealt_suited_range(s)
        if not js:
            continue
        avs = pr.suit_avail[s]
        av_ns = [avail[r] - (avs >> r & 1) for r in range(13)]
        s_ranks = [r for r in range(13) if avs >> r & 1]
        b0m = pr.board_suit[s]
        pair_masks = [[(1 << (a >> 2)) | (1 << (b >> 2)) for a, b in hp if a & 3 == s and b & 3 == s]
                      for hp in hole_pairs]
        others = {k: [] for k in range(pr.m + 1)}
        for k in others:
            for dealt in _rank_multisets(k):
                w = 1
                for r in set(dealt):
                    w *= comb(av_ns[r], dealt.count(r))
                if w:
                    others[k].append((dealt, sum(pow5[r] for r in dealt), w))
        for j in js:
            for fr in combinations(s_ranks, j):
                fmask = b0m
                for r in fr:
                    fmask |= 1 << r
                if pr.omaha:
                    fl = [max((_omaha_flush_value(pm, fmask, flush) for pm in pms), default=0)
                          for pms in pair_masks]
                else:
                    fl = [flush[hs[s] | fmask] for hs in pr.hole_suit]
                if not any(fl):
                    continue
                fkey = sum(pow5[r] for r in fr)
                for dealt, okey, w in others[pr.m - j]:
                    base = nf_ranks(fr + dealt, fkey + okey)
                    actual = [max(a, b) for a, b in zip(base, fl)]
                    if actual != base:
                        add(base, w, -1)
                        add(actual, w)
    return acc


# --------------------------------------------------------------------------- numpy


class _NP:
    """numpy tables, built on first use."""

    ready = False


def _np_setup() -> Any:
    import numpy as np

    if _NP.ready:
        return np
    t = tables(complete=True)
    keys = np.fromiter(t.nonflush.keys(), dtype=np.int64, count=len(t.nonflush))
    vals = np.fromiter(t.nonflush.values(), dtype=np.int32, count=len(t.nonflush))
    order = np.argsort(keys)
    _NP.nf_keys = keys[order]
    _NP.nf_vals = vals[order]
    _NP.flush = np.asarray(t.flush, dtype=np.int32)
    pow5 = np.array(t.pow5, dtype=np.int64)
    _NP.pow5 = pow5
    masks = np.arange(8192, dtype=np.int64)
    bits = (masks[:, None] >> np.arange(13)) & 1
    _NP.mask_key = bits @ pow5
    pop = bits.sum(1)
    _NP.masks_by_pop = [masks[pop == j] for j in range(14)]
    _NP.multi = []
    for n in range(6):
        ms = _rank_multisets(n)
        counts = np.zeros((len(ms), 13), dtype=np.int64)
        for row, combo in enumerate(ms):
            for r in combo:
                counts[row, r] += 1
        _NP.multi.append((counts, counts @ pow5, ms))
    # trio keys of every five-rank board multiset (for Omaha), in multi[5] order
    ms5 = _NP.multi[5][2]
    _NP.board5_keys = _NP.multi[5][1]
    order5 = np.argsort(_NP.board5_keys)
    _NP.board5_sorted = _NP.board5_keys[order5]
    _NP.board5_order = order5
    _NP.trio_keys = np.array(
        [[t.pow5[a] + t.pow5[b] + t.pow5[c] for a, b, c in combinations(combo, 3)]
         for combo in ms5], dtype=np.int64)
    _NP.combt = np.array([[comb(a, c) for c in range(5)] for a in range(5)], dtype=np.int64)
    _NP.omaha_flush: dict[int, Any] = {}
    _NP.ready = True
    return np


def _np_omaha_flush_table(np: Any, pair_mask: int) -> Any:
    """OF[board_mask] for a suited hole pair: best flush rank with three board ranks."""
    got = _NP.omaha_flush.get(pair_mask)
    if got is not None:
        return got
    fl = tables().flush
    table = np.array([_omaha_flush_value(pair_mask, bm, fl) if not bm & pair_mask else 0
                      for bm in range(8192)], dtype=np.int32)
    _NP.omaha_flush[pair_mask] = table
    return table


def _units_numpy(pr: _Problem) -> list[int]:
    """As :func:`_units_python`, with the groups evaluated as numpy arrays."""
    np = _np_setup()
    nf_keys, nf_vals = _NP.nf_keys, _NP.nf_vals
    P = len(pr.holes)
    hole_pairs = [list(combinations(h, 2)) for h in pr.holes]
    pow5 = tables().pow5
    pair_keys = [[pow5[a >> 2] + pow5[b >> 2] for a, b in hp] for hp in hole_pairs]

    def lookup(keys: Any) -> Any:
        return nf_vals[np.searchsorted(nf_keys, keys)]

    def nf_ranks(dkeys: Any) -> Any:
        out = np.empty((dkeys.shape[0], P), dtype=np.int32)
        if not pr.omaha:
            base = dkeys + pr.board_key
            for p in range(P):
                out[:, p] = lookup(base + pr.hole_keys[p])
            return out
        bkeys = dkeys + pr.board_key
        idx = _NP.board5_order[np.searchsorted(_NP.board5_sorted, bkeys)]
        trios = _NP.trio_keys[idx]
        for p in range(P):
            pk = np.array(pair_keys[p], dtype=np.int64)
            out[:, p] = lookup(trios[:, :, None] + pk).reshape(len(dkeys), -1).max(1)
        return out

    def units(ranks: Any, w: Any) -> Any:
        win = ranks == ranks.max(1)[:, None]
        share = (_UNITS // win.sum(1)) * w
        return (win * share[:, None]).sum(0)

    avail = np.array(pr.avail, dtype=np.int64)
    combt = _NP.combt

    def weighted(n: int, av: Any) -> tuple[Any, Any]:
        counts, keys, _ = _NP.multi[n]
        w = combt[av[None, :], counts].prod(1)
        keep = w > 0
        return keys[keep], w[keep]

    dkeys, w = weighted(pr.m, avail)
    acc = units(nf_ranks(dkeys), w).astype(np.int64)

    for s in range(4):
        js = pr.dealt_suited_range(s)
        if not js:
            continue
        avs = pr.suit_avail[s]
        av_ns = avail - ((avs >> np.arange(13)) & 1)
        b0m = pr.board_suit[s]
        if pr.omaha:
            tabs = [[_np_omaha_flush_table(np, (1 << (a >> 2)) | (1 << (b >> 2)))
                     for a, b in hp if a & 3 == s and b & 3 == s] for hp in hole_pairs]
        for j in js:
            fm = _NP.masks_by_pop[j]
            fm = fm[(fm & ~avs) == 0]
            okeys, ow = weighted(pr.m - j, av_ns)
            if fm.size == 0 or okeys.size == 0:
                continue
            board_masks = fm | b0m
            fl = np.zeros((fm.size, P), dtype=np.int32)
            for p in range(P):
                if pr.omaha:
                    for tab in tabs[p]:
                        np.maximum(fl[:, p], tab[board_masks], out=fl[:, p])
                else:
                    fl[:, p] = _NP.flush[board_masks | pr.hole_suit[p][s]]
            live = fl.any(1)
            if not live.any():
                continue
            fm, fl = fm[live], fl[live]
            nO = okeys.size
            dk = (_NP.mask_key[fm][:, None] + okeys[None, :]).ravel()
            base = nf_ranks(dk)
            flb = np.repeat(fl, nO, axis=0)
            changed = (flb > base).any(1)
            if not changed.any():
                continue
            base, flb = base[changed], flb[changed]
            ww = np.tile(ow, fm.size)[changed]
            acc += units(np.maximum(base, flb), ww) - units(base, ww)
    return [int(x) for x in acc]


# --------------------------------------------------------------------------- public


def _units(hole_cards: Any, board: Any, dead: Any, game: str | None,
           use_numpy: bool | None) -> tuple[list[int], int]:
    holes, b, d, g = parse_equity_input(hole_cards, board, dead, game)
    pr = _Problem(holes, b, d, g == "omaha")
    if use_numpy is None:
        try:
            import numpy  # noqa: F401
            use_numpy = True
        except ImportError:  # pragma: no cover - numpy is a dependency, the fallback is spare
            use_numpy = False
    acc = _units_numpy(pr) if use_numpy else _units_python(pr)
    return acc, pr.total


def equity_fractions(
    hole_cards: Sequence[str | Iterable[CardLike]],
    board: str | Iterable[CardLike] = (),
    dead: str | Iterable[CardLike] = (),
    *,
    game: str | None = None,
    use_numpy: bool | None = None,
) -> list[Fraction]:
    """As :func:`equity`, but exact: one :class:`fractions.Fraction` per player, sum 1.

    ``use_numpy``: None = numpy when importable; False forces the pure-Python path.
    """
    acc, total = _units(hole_cards, board, dead, game, use_numpy)
    return [Fraction(a, total * _UNITS) for a in acc]


def equity(
    hole_cards: Sequence[str | Iterable[CardLike]],
    board: str | Iterable[CardLike] = (),
    dead: str | Iterable[CardLike] = (),
    *,
    game: str | None = None,
    use_numpy: bool | None = None,
) -> list[float]:
    """Return each player's share of the pot by exact enumeration of the board (S-8).

    Args:
        hole_cards: one hand per player, 2..10 players (G-1, G-2): ``["AsKs", "QdQh"]``,
            ``[["As", "Ks"], ...]`` or Card objects. Two cards each is Hold'em (best five
            of seven, G-1), four each is Omaha (exactly two hole + three board, G-2).
        board: 0..5 known board cards (``"Jh 8c 3d"``); the rest is enumerated.
        dead: cards known to be out of the deck (mucked, burned and shown...).
        game: ``"holdem"`` / ``"omaha"``; None detects it from the hole-card count.
        use_numpy: None = use numpy if importable (fast); False = pure Python.

    Returns:
        A list of floats, one per player in the given order: win share plus split
        shares (a two-way tie counts half, H-3/H-5) over every possible board; they
        sum to 1 (up to float rounding; :func:`equity_fractions` is exact).

    Raises:
        EquityError (ValueError): bad cards, a card twice ("G-5: card As appears
        twice"), wrong hole-card counts (G-1/G-2), fewer than 2 or more than 10
        players, more than 5 board cards.
    """
    acc, total = _units(hole_cards, board, dead, game, use_numpy)
    denom = total * _UNITS
    return [a / denom for a in acc]


class _CallableModule(types.ModuleType):
    """``controller.engine.equity`` is both this module and the function: importing the
    module (``import controller.engine.equity``) rebinds the package attribute to the
    module, so the module itself answers ``equity(...)`` too."""

    def __call__(self, *args: Any, **kwargs: Any) -> list[float]:
        return equity(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

