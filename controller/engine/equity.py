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

Three implementations give identical answers (tests/engine/test_equity.py):

- the compiled module ``_equity_c`` (controller/engine/_equity_c.c, built by the normal
  install, ``pip install -e .``), the default: the same grouping pre-flop (under 1 ms
  for Hold'em heads-up on the development machine), and on the flop, turn and river
  groups by the ranks dealt with the flush boards dealt one by one (microseconds). It
  reads the usual question forms itself; anything else, and every question to refuse,
  goes through the checked Python parse. At least as fast as phevaluator's native
  brute force in every case, see bench/bench_equity.py and docs/performance.md;
- numpy arrays (``use_numpy=True``, and the default where the module was not built):
  about 5 ms for a heads-up pre-flop spot, but a fixed cost of some 0.1 ms per call
  on the flop;
- plain Python (``use_numpy=False``): about 0.6 s heads-up pre-flop.

numpy and the compiled module are set up lazily, on the first call or by :func:`prepare`.
"""

from __future__ import annotations

import sys
import threading
import types
from array import array
from collections.abc import Iterable, Sequence
from fractions import Fraction
from functools import lru_cache
from itertools import combinations, combinations_with_replacement
from math import comb
from typing import Any

from .cards import FULL_DECK, Card, CardError, CardLike, format_cards, parse_cards
from .evaluator import tables

__all__ = [
    "EquityError",
    "MAX_PLAYERS",
    "equity",
    "equity_fractions",
    "clear_cache",
    "parse_equity_input",
    "prepare",
    "prepare_default",
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
        self.dead = [c.index for c in dead]
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
        others: dict[int, list[Any]] = {k: [] for k in range(pr.m + 1)}
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
    """numpy tables, built on first use (about 0.1 s) and kept in memory."""

    ready = False
    # set by _np_setup (numpy arrays, typed Any: the engine is checked without numpy's types)
    pow5: Any
    flush: Any
    mask_key: Any
    masks_by_pop: list[Any]
    multi: list[tuple[Any, Any, Any, Any, Any]]
    nf: dict[int, Any]
    trio_keys: Any
    combt: Any
    omaha_flush: dict[int, Any]
    join: dict[tuple[int, int], Any]


def _np_all_counts(np: Any, most: int) -> Any:
    """Every 13-rank count vector (counts 0..4) with at most ``most`` cards, (N, 13)."""
    rows = np.zeros((1, 0), dtype=np.int64)
    for _ in range(13):
        total = rows.sum(1)
        parts = [np.hstack([rows[total + c <= most], np.full(((total + c <= most).sum(), 1), c)])
                 for c in range(5)]
        rows = np.vstack(parts)
    return rows


_NP_LOCK = threading.Lock()


def _np_setup() -> Any:
    import numpy as np

    if _NP.ready:
        return np
    with _NP_LOCK:  # two threads asking at once build once
        if not _NP.ready:
            _np_build(np)
    return np


def _np_build(np: Any) -> None:
    t = tables()
    pow5 = np.array(t.pow5, dtype=np.int64)
    _NP.pow5 = pow5
    _NP.flush = np.asarray(t.flush, dtype=np.int32)
    masks = np.arange(8192, dtype=np.int64)
    bits = (masks[:, None] >> np.arange(13)) & 1
    _NP.mask_key = bits @ pow5
    pop = bits.sum(1)
    _NP.masks_by_pop = [masks[pop == j] for j in range(14)]
    # multi[n] = (sorted ranks, counts, keys, argsort of keys, sorted keys)
    every = _np_all_counts(np, 7)
    sizes = every.sum(1)
    _NP.multi = []
    for n in range(8):
        counts = every[sizes == n]
        keys = counts @ pow5
        order = np.argsort(keys)
        arr = np.repeat(np.tile(np.arange(13), counts.shape[0]), counts.ravel()).reshape(counts.shape[0], n)
        _NP.multi.append((arr, counts, keys, order, keys[order]))
    # non-flush rank of every 5-, 6- and 7-rank multiset, in multi[n] order: the best
    # five of n cards is the best five of one of its (n-1)-card parts
    nf = {5: np.array([t.nonflush[int(k)] for k in _NP.multi[5][2]], dtype=np.int32)}
    for n in (6, 7):
        _, counts, keys, _, _ = _NP.multi[n]
        _, _, _, order_prev, sorted_prev = _NP.multi[n - 1]
        row, col = np.nonzero(counts)
        parts = keys[row] - pow5[col]
        vals = nf[n - 1][order_prev[np.searchsorted(sorted_prev, parts)]]
        best = np.zeros(keys.size, dtype=np.int32)
        np.maximum.at(best, row, vals)
        nf[n] = best
    _NP.nf = nf
    arr5 = _NP.multi[5][0]
    _NP.trio_keys = np.stack(
        [pow5[arr5[:, a]] + pow5[arr5[:, b]] + pow5[arr5[:, c]]
         for a, b, c in combinations(range(5), 3)], axis=1)
    _NP.combt = np.array([[comb(a, c) for c in range(5)] for a in range(5)], dtype=np.int64)
    _NP.omaha_flush = {}
    _NP.join = {}
    _NP.ready = True


def _np_index(np: Any, n: int, keys: Any) -> Any:
    """Positions in multi[n] order of the multisets with the given keys (all valid)."""
    _, _, _, order, sorted_keys = _NP.multi[n]
    return order[np.minimum(np.searchsorted(sorted_keys, keys), sorted_keys.size - 1)]


def _np_join(np: Any, j: int, n: int) -> Any:
    """J[f, o]: index in multi[j+n] of (j distinct ranks masks_by_pop[j][f]) + multi[n][o]."""
    got = _NP.join.get((j, n))
    if got is None:
        keys = _NP.mask_key[_NP.masks_by_pop[j]][:, None] + _NP.multi[n][2][None, :]
        got = _np_index(np, j + n, keys).astype(np.int32)
        _NP.join[(j, n)] = got
    return got


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


def _np_units(np: Any, ranks: Any, w: Any) -> Any:
    """Per player, the sum over groups of w * (pot share in 1/2520 units).

    ``ranks`` is (P, G) (player-major: reductions run over contiguous rows), ``w`` (G,).
    """
    best = ranks[0].copy()
    for row in ranks[1:]:
        np.maximum(best, row, out=best)
    win = ranks == best
    k = win[0].astype(np.int64)
    for row in win[1:]:
        k += row
    share = (_UNITS // k) * w
    return np.array([np.dot(row, share) for row in win], dtype=np.int64)


def _units_numpy(pr: _Problem) -> list[int]:
    """As :func:`_units_python`, with the groups evaluated as numpy arrays."""
    np = _np_setup()
    P = len(pr.holes)
    m = pr.m
    _, counts_m, keys_m, _, _ = _NP.multi[m]
    avail = np.array(pr.avail, dtype=np.int64)
    combt = _NP.combt

    # T[p, g]: player p's non-flush rank when the dealt ranks are multiset g of multi[m]
    T = np.empty((P, keys_m.size), dtype=np.int32)
    if not pr.omaha:
        nf7 = _NP.nf[7]
        for p in range(P):
            T[p] = nf7[_np_index(np, 7, keys_m + (pr.board_key + pr.hole_keys[p]))]
    else:
        pow5 = tables().pow5
        nf5 = _NP.nf[5]
        trios = _NP.trio_keys[_np_index(np, 5, keys_m + pr.board_key)]
        for p, h in enumerate(pr.holes):
            best = np.zeros(keys_m.size, dtype=np.int32)
            for a, b in combinations(h, 2):
                v = nf5[_np_index(np, 5, trios + (pow5[a >> 2] + pow5[b >> 2]))].max(1)
                np.maximum(best, v, out=best)
            T[p] = best

    w = combt[avail[None, :], counts_m].prod(1)
    keep = np.flatnonzero(w)
    acc = _np_units(np, T[:, keep], w[keep])

    for s in range(4):
        js = pr.dealt_suited_range(s)
        if not js:
            continue
        avs = pr.suit_avail[s]
        av_ns = avail - ((avs >> np.arange(13)) & 1)
        b0m = pr.board_suit[s]
        if pr.omaha:
            tabs = [[_np_omaha_flush_table(np, (1 << (a >> 2)) | (1 << (b >> 2)))
                     for a, b in combinations(h, 2) if a & 3 == s and b & 3 == s]
                    for h in pr.holes]
        for j in js:
            fsel = np.flatnonzero((_NP.masks_by_pop[j] & ~avs) == 0)
            ow = combt[av_ns[None, :], _NP.multi[m - j][1]].prod(1)
            osel = np.flatnonzero(ow)
            if fsel.size == 0 or osel.size == 0:
                continue
            board_masks = _NP.masks_by_pop[j][fsel] | b0m
            fl = np.zeros((P, fsel.size), dtype=np.int32)
            for p in range(P):
                if pr.omaha:
                    for tab in tabs[p]:
                        np.maximum(fl[p], tab[board_masks], out=fl[p])
                else:
                    fl[p] = _NP.flush[board_masks | pr.hole_suit[p][s]]
            flushers = [p for p in range(P) if fl[p].any()]
            if not flushers:
                continue
            live = np.flatnonzero(np.any(fl[flushers], axis=0))
            fsel, fl = fsel[live], fl[:, live]
            groups = _np_join(np, j, m - j)[fsel][:, osel].ravel()  # (F*O,) into multi[m]
            base = T[:, groups]  # (P, F*O)
            nO = osel.size
            flb = np.repeat(fl[flushers], nO, axis=1)  # (len(flushers), F*O)
            changed = flb[0] > base[flushers[0]]
            for i, p in enumerate(flushers[1:], 1):
                changed |= flb[i] > base[p]
            rows = np.flatnonzero(changed)
            if rows.size == 0:
                continue
            b = base[:, rows]
            a = b.copy()
            for i, p in enumerate(flushers):
                np.maximum(a[p], flb[i, rows], out=a[p])
            ww = np.tile(ow[osel], fsel.size)[rows]
            acc += _np_units(np, a, ww) - _np_units(np, b, ww)
    return [int(x) for x in acc]


# --------------------------------------------------------------------------- compiled


class _C:
    """The compiled counter (``_equity_c``, built by the install), set up on first use."""

    tried = False
    module: Any = None


_C_LOCK = threading.Lock()


def _c_setup() -> Any:
    """Return the set-up ``_equity_c`` module, or None where it was not built."""
    if _C.tried:
        return _C.module
    with _C_LOCK:
        if not _C.tried:
            try:
                from . import _equity_c  # type: ignore[attr-defined, unused-ignore]  # absent if not built
            except ImportError:
                module = None
            else:
                t = tables()
                nf5 = array("h", [0]) * comb(17, 5)
                for ranks in combinations_with_replacement(range(13), 5):
                    if ranks[0] != ranks[4]:  # five of a rank is no hand
                        colex = sum(comb(r + k, k + 1) for k, r in enumerate(ranks))
                        nf5[colex] = t.nonflush[sum(t.pow5[r] for r in ranks)]
                _equity_c.setup(nf5.tobytes(), array("h", t.flush).tobytes(), Card)
                module = _equity_c
            _C.module = module
            _C.tried = True
    return _C.module


def _units_c(pr: _Problem) -> list[int]:
    """As :func:`_units_python`, counted by the compiled module."""
    acc, total = _C.module.units(pr.holes, pr.board, pr.dead, pr.omaha)
    if total != pr.total:  # pragma: no cover - the two counts are of the same boards
        raise RuntimeError(f"equity: counted {total} boards, expected {pr.total}")
    return list(acc)


# --------------------------------------------------------------------------- public


def _units(hole_cards: Any, board: Any, dead: Any, game: str | None,
           use_numpy: bool | None) -> tuple[tuple[int, ...], int]:
    holes, b, d, g = parse_equity_input(hole_cards, board, dead, game)
    if use_numpy is None:
        if _c_setup() is not None:
            path = "c"
        else:  # pragma: no cover - the install builds the compiled module
            try:
                import numpy  # noqa: F401
                path = "numpy"
            except ImportError:  # numpy is a dependency, the fallback is spare
                path = "python"
    else:
        path = "numpy" if use_numpy else "python"
    # The same question is asked again and again while the table is all-in (every
    # published state shows it, S-8): answers are kept for the last 64 questions.
    # Dead cards are a set; the players' order and their cards' order are kept.
    key = (tuple(tuple(c.index for c in h) for h in holes), tuple(c.index for c in b),
           tuple(sorted(c.index for c in d)), g, path)
    return _units_cached(key)


@lru_cache(maxsize=64)
def _units_cached(key: tuple[Any, ...]) -> tuple[tuple[int, ...], int]:
    holes, board, dead, game, path = key
    pr = _Problem([tuple(FULL_DECK[i] for i in h) for h in holes],
                  tuple(FULL_DECK[i] for i in board), tuple(FULL_DECK[i] for i in dead),
                  game == "omaha")
    count = {"c": _units_c, "numpy": _units_numpy, "python": _units_python}[path]
    acc = count(pr)
    return tuple(acc), pr.total


def clear_cache() -> None:
    """Forget the remembered answers (benchmarks call it so that every run computes)."""
    _units_cached.cache_clear()


def prepare() -> bool:
    """Build every table equity needs now (numpy import and the compiled module's tables
    included; about 0.3 s), so the first all-in of a session (S-8) does not wait for it.
    Returns True when the numpy path is available. Safe to call any number of times."""
    tables(complete=False)
    _c_setup()
    try:
        _np_setup()
    except ImportError:  # pragma: no cover - numpy is a dependency
        return False
    return True


def prepare_default() -> str:
    """Set up only what :func:`equity` uses by default (S-8), so that the table's first all-in
    waits for none of it: the compiled module's tables where it was built (``"c"``, some
    30 ms), else numpy's (``"numpy"``, 0.1-0.3 s and some 30 MB; ``"python"`` without numpy).
    Unlike :func:`prepare`, numpy is not set up beside the compiled module. Thread-safe (the
    table's start-up calls it on a thread of its own); returns the path set up."""
    tables(complete=False)
    if _c_setup() is not None:
        return "c"
    try:
        _np_setup()
    except ImportError:  # pragma: no cover - numpy is a dependency
        return "python"
    return "numpy"


def equity_fractions(
    hole_cards: Sequence[str | Iterable[CardLike]],
    board: str | Iterable[CardLike] = (),
    dead: str | Iterable[CardLike] = (),
    *,
    game: str | None = None,
    use_numpy: bool | None = None,
) -> list[Fraction]:
    """As :func:`equity`, but exact: one :class:`fractions.Fraction` per player, sum 1.

    ``use_numpy``: None = the fastest path there is (the compiled module, else numpy);
    True forces numpy, False the pure-Python path (the answers are identical).
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
        use_numpy: None = the fastest path there is (the compiled module, else numpy);
            True = numpy; False = pure Python. The answers are identical.

    Returns:
        A list of floats, one per player in the given order: win share plus split
        shares (a two-way tie counts half, H-3/H-5) over every possible board; they
        sum to 1 (up to float rounding; :func:`equity_fractions` is exact).

    Raises:
        EquityError (ValueError): bad cards, a card twice ("G-5: card As appears
        twice"), wrong hole-card counts (G-1/G-2), fewer than 2 or more than 10
        players, more than 5 board cards.
    """
    if use_numpy is None and (_C.module if _C.tried else _c_setup()) is not None:
        # counted in C at once (microseconds after the flop, under a few ms pre-flop:
        # no cache needed); a question in another form, or one to refuse, goes the
        # checked way below
        got: list[float] | None = _C.module.equity(hole_cards, board, dead, game, 5)
        if got is not None:
            return got
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

