"""Read partly covered cards from their visible corner index (issue 6).

A card in a fan, a row or under another card often shows only its corner index: the rank
character(s) printed over a small suit pip on the light card face. The whole-card pass
(:mod:`vision.detect`, :meth:`vision.recognizer.Recognizer.read_quad`) cannot name it, because
it needs the card's whole outline. This module looks, in what that pass did not explain, for
index candidates and reads them:

1. **Ink on paper.** Dark (or red) marks clearly below the local paper level, on a light,
   low-saturation surface, as connected components (:func:`find_index_pairs`).
2. **Rank over pip.** A pair of components, the *pip* just under the *rank* at a plausible
   distance and size ratio (an index pip is a little smaller than its rank character), gives
   the index's "down" direction, so an index is read at any rotation, either way up.
3. **Reading.** The pair is warped upright from the full-size frame at a fixed scale, cut
   again into the rank glyph (with the other half of a "10") and the pip with the
   recognizer's own ink cut, at its level and lower, and every mask goes to the glyph
   classifier (:mod:`vision.index_net`: 13 ranks, 4 suits, "neither"). The ink colour must
   match the pip's.
4. **Naming.** A corner names a card only when the rank and the pip are the classifier's
   clear first choice at both ink cuts (:class:`CornerParams`) and the synthetic glyph bank
   (:mod:`vision.glyphs`, with the recognizer's matchers, so an enrolled deck counts) puts
   the same rank and suit first; without a pip count or a second index to back it, the bar
   is higher than for a whole card. The same card read at several spots is given once; a
   spot read as two different cards, or a card already named by the whole-card pass,
   gives nothing (a wrong reading is worse than none).

Nothing here is fitted to photographs: the classifier and the bank learn from drawn glyphs
only; the thresholds are set so that no dev photo gives a wrong card (docs/vision.md).
Frame coordinates are pixels, ``(x, y)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Sequence

import cv2
import numpy as np

from controller.engine.cards import parse_card
from vision.glyphs import glyph_feature
from vision.index_net import CLASSES, RANKS, SUITS, IndexNet
from vision.ink import _ink_cut, _ink_red, _inkness, _looks_like_ten, _white_balance
from vision.reading import INDEX_STRIP, PICTURE_SEEN, Reading

if TYPE_CHECKING:  # pragma: no cover
    from vision.recognizer import Recognizer

__all__ = ["CornerParams", "CornerReading", "IndexPair", "find_index_pairs", "cut_pair", "read_pairs", "read_corners",
           "add_corner_readings"]

#: the upright index cut: the rank-to-pip distance becomes this many pixels
_D = 30.0
_CW, _CH = 76, 96  # cut size (pixels); rank centre at (_AX, _AY), pip centre _D below it
_AX, _AY = 38.0, 30.0


@dataclass(frozen=True)
class CornerParams:
    """Thresholds of the corner reader (cosine similarities, margins, sizes in pixels).

    ``rank_score``/``rank_margin``: the rank glyph's best match and its lead over the best
    other rank; ``suit_score``/``suit_margin``: the same for the pip within its colour;
    ``min_size``/``max_size``: the rank character's extent in frame pixels.
    """

    rank_score: float = 0.98
    rank_margin: float = 0.95
    suit_score: float = 0.93
    suit_margin: float = 0.85
    bank_check: bool = True      # the glyph bank must put the same rank and suit first
    bank_suit_margin: float = 0.04  # ... the suit by this lead over the colour's other suit
    min_size: int = 10
    max_size_frac: float = 0.12  # of the frame's shorter side
    paper_frac: float = 0.55     # of the ring round a glyph that must be light paper
    pip_solidity: float = 0.6    # a pip's area over its convex hull's
    work_side: int = 600         # marks are looked for at this shorter side (speed), read at full size
    named_shrink: float = 0.12   # the middle of a named card's quad (shrunk by this) is not searched
    merged_shrink: float = 0.7   # ... of a named quad that is not card-shaped (may hold cards under it)
    card_ratio: tuple[float, float] = (1.25, 1.6)  # a card-shaped quad's long side over its short one


@dataclass(frozen=True)
class IndexPair:
    """A rank component with the pip under it, in frame pixels.

    ``rank``/``pip``: ``(x, y)`` centres; ``size``: the rank component's larger extent.
    """

    rank: tuple[float, float]
    pip: tuple[float, float]
    size: float


@dataclass(frozen=True)
class CornerReading:
    """What one corner index says.

    ``card``: ``"Td"``-style text or None (unsure); ``rank``/``suit`` and their scores and
    margins; ``red``: the ink colour; ``box``: the index's 4 corners in frame pixels
    (clockwise from its top-left as printed); ``why``: why no card was named.
    """

    card: str | None
    rank: str | None
    suit: str | None
    rank_score: float
    rank_margin: float
    suit_score: float
    suit_margin: float
    red: bool | None
    box: tuple[tuple[float, float], ...]
    why: str = ""

    @property
    def centre(self) -> tuple[float, float]:
        """The centre of the index box, frame pixels."""
        xs = [p[0] for p in self.box]
        ys = [p[1] for p in self.box]
        return (sum(xs) / len(xs), sum(ys) / len(ys))


def _components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """``cv2.connectedComponentsWithStats(mask, 8)`` (8-connected), with Grana's block-based
    algorithm: the same labels in the same order as the default (Spaghetti, whose decision
    forest follows the same 2x2 blocks), and with this OpenCV its statistics cost less than
    half (small index cuts: ~20 against ~50 us). Labels are 16-bit when they fit (a mask of
    fewer than 65535 ink pixels has fewer labels than that): the same labels and statistics,
    and on a frame-sized mask the statistics cost half again (~1.6 against ~3.1 ms)."""
    small = mask.size < 65535 or cv2.countNonZero(mask) < 65535
    return cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_16U if small else cv2.CV_32S, cv2.CCL_GRANA)


#: the darkness a frame pixel needs to be ink, by its local paper level (a table for cv2.LUT):
#: max(35, level // 4) on paper lighter than 110, else out of reach (a darkness is <= 255)
_INK_BAR = np.array([max(35, v // 4) if v > 110 else 255 for v in range(256)], np.uint8)
#: up to this many kept marks, each is traced alone (else the whole ink mask at once)
_FEW_MARKS = 120


def _ink_components(frame: np.ndarray, p: CornerParams, f: float = 1.0, ref: int | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(stats, centroids, solidity)`` of dark/red marks on light paper in ``frame``.

    ``stats`` rows are OpenCV's ``x, y, w, h, area``; ``solidity`` is each mark's area over
    its convex hull's. Only marks of index size whose surroundings are mostly paper are kept;
    ``f`` is the scale of ``frame`` against the camera frame (sizes are in frame pixels).
    """
    h, w = frame.shape[:2]
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    sat = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)[:, :, 1]
    ref_small = (ref or min(h, w) / f) * f
    k = max(9, int(ref_small / 40)) | 1
    paper_level = cv2.dilate(grey, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    dark = cv2.subtract(paper_level, grey)
    # ink (255): dark > max(35, paper_level // 4) where paper_level > 110 (a darkness above
    # 255 never is), one table look-up and one comparison (OpenCV's, cheaper than NumPy's)
    ink = cv2.compare(dark, cv2.LUT(paper_level, _INK_BAR), cv2.CMP_GT)
    n, lab, st, cen = _components(ink)
    empty = (np.zeros((0, 5), np.int32), np.zeros((0, 2), np.float64), np.zeros(0))
    if n <= 1:
        return empty
    size = np.maximum(st[:, 2], st[:, 3])
    max_size = p.max_size_frac * ref_small
    keep = (size >= p.min_size * 0.4 * f) & (size <= max_size) & (st[:, 4] >= 12 * f * f)
    keep &= st[:, 4] <= 0.8 * st[:, 2] * st[:, 3]  # not a solid block
    keep[0] = False
    if not keep.any():
        return empty
    # the ring round each mark (its box grown by half its size) must be mostly paper:
    # light and not strongly coloured, near the local paper level (1, else 0)
    paper = cv2.bitwise_and(cv2.bitwise_and(cv2.compare(sat, 80, cv2.CMP_LT), cv2.compare(grey, 100, cv2.CMP_GT)),  # type: ignore[call-overload]
                            cv2.compare(dark, 25, cv2.CMP_LT))  # type: ignore[call-overload]
    integ = cv2.integral(cv2.min(paper, 1))  # type: ignore[call-overload, unused-ignore]  # OpenCV 4's stubs (5's take it)
    s = size // 2 + 2
    x0 = np.clip(st[:, 0] - s, 0, w)
    y0 = np.clip(st[:, 1] - s, 0, h)
    x1 = np.clip(st[:, 0] + st[:, 2] + s, 0, w)
    y1 = np.clip(st[:, 1] + st[:, 3] + s, 0, h)
    outer = integ[y1, x1] - integ[y0, x1] - integ[y1, x0] + integ[y0, x0]
    bx0, by0 = st[:, 0], st[:, 1]
    bx1, by1 = st[:, 0] + st[:, 2], st[:, 1] + st[:, 3]
    inner = integ[by1, bx1] - integ[by0, bx1] - integ[by1, bx0] + integ[by0, bx0]
    ring_area = (x1 - x0) * (y1 - y0) - st[:, 2] * st[:, 3]
    keep &= (outer - inner) / np.maximum(ring_area, 1) >= p.paper_frac
    solidity = np.zeros(n)
    kept = np.flatnonzero(keep)
    if len(kept) <= _FEW_MARKS:
        # each kept mark's outer boundary, traced in its own box: the same points as in the
        # whole mask (no other mark touches it), at a fraction of the cost for a few marks
        for i in kept.tolist():
            x, y, bw, bh, area = st[i].tolist()
            cs, _ = cv2.findContours(cv2.compare(lab[y:y + bh, x:x + bw], i, cv2.CMP_EQ), cv2.RETR_EXTERNAL,  # type: ignore[call-overload]
                                     cv2.CHAIN_APPROX_SIMPLE)
            hull = cv2.contourArea(cv2.convexHull(cs[0]))  # a connected mark has one outer boundary
            solidity[i] = area / hull if hull > 0 else 0.0
        return st[keep], cen[keep], solidity[keep]
    # every mark's outer boundary (CCOMP: also of marks inside another mark's hole, such as
    # an index on a card that the table's dark surround encloses)
    cs, hier = cv2.findContours(ink, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is not None:
        outer = np.flatnonzero(hier[0][:, 3] < 0)  # not a hole
        first = np.array([cs[k][0, 0] for k in outer], np.intp).reshape(-1, 2)  # type: ignore[call-overload]
        ids = lab[first[:, 1], first[:, 0]]
        for k, i in zip(outer[keep[ids]], ids[keep[ids]]):
            hull = cv2.contourArea(cv2.convexHull(cs[k]))
            solidity[i] = st[i, 4] / hull if hull > 0 else 0.0
    return st[keep], cen[keep], solidity[keep]


def find_index_pairs(frame: np.ndarray, params: CornerParams | None = None,
                     mask: np.ndarray | None = None, ref_side: int | None = None) -> list[IndexPair]:
    """Find (rank, pip) component pairs that may be a card's corner index.

    ``frame``: ``(H, W, 3)`` uint8 BGR. ``mask``: optional ``(H, W)`` uint8; components whose
    centre falls where it is 0 are ignored (what the whole-card pass already explained).
    ``ref_side``: the camera frame's shorter side when ``frame`` is a crop of it (sizes and
    the working scale follow the whole frame).
    A pair is a rank component and a smaller one at 0.55-1.5 rank sizes from it; either
    component may also take part in other pairs (the reader sorts them out).
    """
    p = params or CornerParams()
    ref = ref_side or min(frame.shape[:2])
    f = min(1.0, p.work_side / ref)
    small = frame if f >= 1.0 else cv2.resize(frame, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    st, cen, solid = _ink_components(small, p, f, ref)
    if f < 1.0:
        st = (st / f).astype(np.int64)
        cen = (cen + 0.5) / f - 0.5
    if mask is not None and len(st):
        ci = np.clip(cen.round().astype(int), 0, [frame.shape[1] - 1, frame.shape[0] - 1])
        sel = mask[ci[:, 1], ci[:, 0]] > 0
        st, cen, solid = st[sel], cen[sel], solid[sel]
    if len(st) < 2:
        return []
    size = np.maximum(st[:, 2], st[:, 3]).astype(np.float64)
    area = st[:, 4].astype(np.float64)
    d = np.hypot(cen[:, None, 0] - cen[None, :, 0], cen[:, None, 1] - cen[None, :, 1])
    ratio = size[None, :] / size[:, None]  # pip size / rank size
    ok = (d >= 0.55 * size[:, None]) & (d <= 1.5 * size[:, None]) & (ratio >= 0.35) & (ratio <= 1.15)
    ok &= size[:, None] >= p.min_size
    ok &= area[None, :] <= 2.0 * area[:, None]
    ok &= solid[None, :] >= p.pip_solidity  # a pip is a solid shape, a rank a stroke
    np.fill_diagonal(ok, False)
    out = []
    for i, j in zip(*np.nonzero(ok)):
        out.append(IndexPair((float(cen[i, 0]), float(cen[i, 1])), (float(cen[j, 0]), float(cen[j, 1])),
                             float(size[i])))
    return out


def _cut(frame: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Warp the index with rank centre ``a`` and pip centre ``b`` upright; return (cut, M^-1)."""
    v = b - a
    dist = float(np.hypot(*v))
    u = v / dist  # "down" on the card
    r = np.array([u[1], -u[0]])  # "right" on the card (u = (0, 1) gives (1, 0))
    s = _D / dist
    # frame -> cut: x' = s * dot(p - a, r) + AX, y' = s * dot(p - a, u) + AY
    m = np.array([[s * r[0], s * r[1], 0.0], [s * u[0], s * u[1], 0.0]])
    m[:, 2] = np.array([_AX, _AY]) - m[:, :2] @ a
    cut = cv2.warpAffine(frame, m, (_CW, _CH), flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)
    return cut, cv2.invertAffineTransform(m)


def _glyph_cuts(cut: np.ndarray, scales: Sequence[float] = (1.0, 0.6), first: bool = False
                ) -> list[tuple[np.ndarray, np.ndarray, bool, tuple[float, float], float]]:
    """Cut an upright index into ``(rank mask, pip mask, red, rank centre, scale)`` per ink cut.

    The ink is cut at the whole-card reader's level (scale 1) and lower (pale or thin ink);
    each cut that separates a rank over a pip gives one entry; ``first``: stop at the first.
    A lower cut only adds ink (``_ink_cut``'s threshold grows with the scale), so its
    components hold the higher cut's: when the rank's and the pip's centre pixels are ink in
    one component, or the component under either already touches the cut's border, no
    lower cut can separate them (``scales`` in decreasing order) and none is tried.
    """
    inkness, chroma, otsu = _inkness(_white_balance(cut))  # once; each scale only re-cuts it
    out = []
    lower_only = all(a > b for a, b in zip(scales, scales[1:]))
    for scale in scales:
        ink = _ink_cut(inkness, otsu, scale)
        n, lab, st, cen = _components(ink)
        if n <= 1:
            continue
        ia, ib = int(lab[_IAY, _IAX]), int(lab[_IBY, _IAX])
        direct_a, direct_b = ia != 0, ib != 0
        if ia == 0:  # the centre pixel of a thin glyph may be paper: nearest component
            ia = _nearest(st, cen, (_AX, _AY), 9.0)
        if ib == 0:
            ib = _nearest(st, cen, (_AX, _AY + _D), 9.0)
        if not ia or not ib:
            continue
        if ia == ib:
            if direct_a and direct_b and lower_only:
                break  # one component at every lower cut too
            continue
        ax, ay, aw, ah, _ = st[ia].tolist()
        bx, by, bw, bh, _ = st[ib].tolist()
        if ah < 12 or ay + ah > by + 2 or ax <= 0 or ay <= 0 or ax + aw >= _CW or by + bh >= _CH:
            if lower_only and ((direct_a and (ax <= 0 or ay <= 0 or ax + aw >= _CW)) or (direct_b and by + bh >= _CH)):
                break  # a grown component touches the border as well
            continue  # touching the cut's border: part of something bigger
        # the other half of "10" (side by side, same height; of the rank's height, top and
        # bottom: a neighbour's big pip beside it is not)
        x, y, w, h, ar = st.T
        ov = np.minimum(ay + ah, y + h) - np.maximum(ay, y)
        gap = np.maximum(x - (ax + aw), ax - (x + w))
        half = ((ov > 0.6 * np.minimum(ah, h)) & (gap < 0.35 * ah) & (0.6 * ah < h) & (h < 1.25 * ah)
                & (ar >= 8) & (np.abs((y + h) - (ay + ah)) <= 0.2 * ah))
        half[[0, ia, ib]] = False
        rank = [ia] + [int(c) for c in np.flatnonzero(half)]
        if len(rank) > 2:
            continue
        rmask = cv2.compare(lab, ia, cv2.CMP_EQ)  # type: ignore[call-overload]
        if len(rank) == 2:
            rmask |= cv2.compare(lab, rank[1], cv2.CMP_EQ)  # type: ignore[call-overload]
        smask = cv2.compare(lab, ib, cv2.CMP_EQ)  # type: ignore[call-overload]
        red = _ink_red(chroma[(rmask | smask) > 0], 28)
        if red is None:  # blue or green ink: not a standard deck's colours
            continue
        if len(rank) == 1:  # OpenCV's centroid: the same exact pixel mean
            rc = (float(cen[ia, 0]), float(cen[ia, 1]))
        else:
            ys, xs = np.nonzero(rmask)
            rc = (float(xs.mean()), float(ys.mean()))
        out.append((rmask, smask, red, rc, scale))
        if first:
            break
    return out


_IAX, _IAY, _IBY = int(_AX), int(_AY), int(_AY + _D)  # the rank's and the pip's centre pixels in a cut


def _nearest(st: np.ndarray, cen: np.ndarray, pt: tuple[float, float], r: float) -> int:
    d = np.hypot(cen[1:, 0] - pt[0], cen[1:, 1] - pt[1])
    d[st[1:, 4] < 8] = 1e9
    if len(d) == 0 or d.min() > r:
        return 0
    return int(np.argmin(d)) + 1


def cut_pair(frame: np.ndarray, pair: IndexPair
             ) -> tuple[np.ndarray, np.ndarray, bool, tuple, np.ndarray, float] | None:
    """Cut one (rank, pip) pair upright: ``(rank mask, pip mask, red, box, cut, scale)`` or None.

    The masks are uint8 (ink 255) from the first ink cut that separates a rank over a pip
    (``scale`` 1 or the lower 0.6); ``box`` is the cut's 4 corners in frame pixels
    (clockwise from the index's top-left); ``cut`` is the upright ``(96, 76, 3)`` image. A
    "10" found from its "0" (or "1") is centred again over its pip and cut anew.
    """
    a = np.array(pair.rank, np.float64)
    b = np.array(pair.pip, np.float64)
    cut, inv = _cut(frame, a, b)
    cuts = _glyph_cuts(cut, first=True)
    if not cuts:
        return None
    rc = cuts[0][3]
    if abs(rc[0] - _AX) > 3.0:  # the rank's true centre gives the true "down"
        a = inv @ np.array([rc[0], rc[1], 1.0])
        cut, inv = _cut(frame, a, b)
        cuts = _glyph_cuts(cut, first=True)
        if not cuts:
            return None
    corners = np.array([[4, 4, 1], [_CW - 4, 4, 1], [_CW - 4, _CH - 4, 1], [4, _CH - 4, 1]], np.float64)
    box = tuple((float(x), float(y)) for x, y in (corners @ inv.T))
    rmask, smask, red, _, scale = cuts[0]
    return rmask, smask, red, box, cut, scale


def _net() -> IndexNet:
    global _NET
    if _NET is None:
        _NET = IndexNet()
    return _NET


_NET: IndexNet | None = None


def read_pairs(rec: "Recognizer", frame: np.ndarray, pairs: Sequence[IndexPair],
               params: CornerParams | None = None, named_only: bool = False
               ) -> list[tuple[IndexPair, CornerReading]]:
    """Read (rank, pip) pairs; return ``(pair, CornerReading)`` for each pair that cuts.

    The glyph classifier (:class:`vision.index_net.IndexNet`) names the rank and the pip;
    the recognizer's glyph bank (``rec``, so an enrolled house deck counts too) must put
    the same rank first. ``rank_score``/``suit_score`` are the classifier's probabilities,
    the margins their lead over the next class. ``named_only``: leave out every pair whose
    rank falls short of the bar (it could name no card), and so skip classifying its pip
    (the classifier's output for a glyph does not depend on the others in its batch); the
    readings left are the same as without it.
    """
    p = params or CornerParams()
    cuts = []
    for pair in pairs:
        c = cut_pair(frame, pair)
        if c is not None:
            cuts.append((pair, c))
    if not cuts:
        return []
    rank_probs = _net().probs([c[0] for _, c in cuts])
    ten = RANKS.index("10")
    ranks = []
    for k, (pair, c) in enumerate(cuts):
        pr = rank_probs[k]
        ri = int(np.argmax(pr))
        rs = float(pr[ri])
        rm = rs - float(np.sort(pr)[-2])
        rank = CLASSES[ri] if ri < len(RANKS) else None
        ten_shape = False
        if rank != "10" and int(np.argmax(pr[:len(RANKS)])) == ten and _looks_like_ten(c[0]):
            # a bar beside a ring (the whole-card reader's "10" shape) that the classifier
            # finds more like a 10 than any other rank: the mass not on other ranks
            rank, ten_shape = "10", True
            rs = float(pr[ten] + pr[-1])
            rm = rs - float(np.delete(pr[:len(RANKS)], ten).max())
        if named_only and (rank is None or rs < p.rank_score or rm < p.rank_margin):
            continue  # could name no card (the first checks below)
        ranks.append((pair, c, ri, rank, rs, rm, ten_shape))
    suit_probs = _net().probs([c[1] for _, c, *_ in ranks])
    out = []
    for k, (pair, (rmask, smask, red, box, cut, scale), ri, rank, rs, rm, ten_shape) in enumerate(ranks):
        ps = suit_probs[k]
        si = int(np.argmax(ps))
        ss = float(ps[si])
        sm = ss - float(np.sort(ps)[-2])
        suit = CLASSES[si] if len(RANKS) <= si < len(RANKS) + len(SUITS) else None
        why = ""
        if rank is None:
            why = "no rank character"
        elif suit is None:
            why = "no suit pip under the rank"
        elif (suit in "dh") != red:
            why = f"pip {suit} but the ink is {'red' if red else 'black'}"
        elif rs < p.rank_score or rm < p.rank_margin:
            why = f"rank {rank} not sure enough ({rs:.2f}/{rm:.2f})"
        elif ss < p.suit_score or sm < p.suit_margin:
            why = f"suit {suit} not sure enough ({ss:.2f}/{sm:.2f})"
        elif scale == 1.0 and not _lower_cut_agrees(cut, red, ten if ten_shape else ri, si, ten_shape, rmask):
            # the lower ink cut must name the same rank and pip (thin or pale ink cut too
            # thin changes shape: a 9 can look like a Q)
            why = "the ink cuts disagree"
        elif p.bank_check:
            bank_rank, _, _ = rec._ranks(rec.bank.project(glyph_feature(rmask)))
            bank_suit, _, bank_margin = rec._suits(glyph_feature(smask), ("d", "h") if red else ("c", "s"))
            if bank_rank != rank and not (rank == "10" and _looks_like_ten(rmask)):
                why = f"rank {rank}, the glyph bank says {bank_rank}"
            elif bank_suit != suit:
                why = f"pip {suit}, the glyph bank says {bank_suit}"
            elif bank_margin < p.bank_suit_margin:
                # one small pip blurred into a blob: the classifier may still be sure of it
                # (a defocused club read as a spade at 0.98); the bank barely prefers a suit
                why = f"pip {suit}, the glyph bank barely prefers it ({bank_margin:.3f})"
        card = None if why else ("T" if rank == "10" else rank) + suit  # type: ignore[operator]
        out.append((pair, CornerReading(card, rank, suit, rs, rm, ss, sm, red, box, why)))
    return out


def _lower_cut_agrees(cut: np.ndarray, red: bool, ri: int, si: int, ten_shape: bool,
                      rmask: np.ndarray | None = None) -> bool:
    """True when the lower ink cut of ``cut`` gives the same ink colour, rank and pip class
    (or does not separate the glyphs at all: then it has nothing to say).

    ``rmask``: the rank mask of the reader's cut. When the lower cut's rank reaches well
    beyond it (more than a fifth of the rank's height, or 3 px, on a side) the rank has
    merged with something else there (a card edge, a neighbour's ink): that cut's rank and
    ink colour say nothing, and only its pip class is checked.
    """
    lower = _glyph_cuts(cut, (0.6,))
    if not lower:
        return True
    rmask2, smask, red2, _, _ = lower[0]
    grew = rmask is not None and _grew(rmask, rmask2)
    if red2 != red and not grew:  # (a merged rank's colour is that of what it merged with too)
        return False
    pr, ps = _net().probs([rmask2, smask])
    if int(np.argmax(ps)) != si:
        return False
    if grew:
        return True
    if ten_shape:  # a "10" taken from its shape: the lower cut must find it likeliest of the ranks
        return int(np.argmax(pr[:len(RANKS)])) == ri
    return int(np.argmax(pr)) == ri


def _grew(a: np.ndarray, b: np.ndarray) -> bool:
    """True when mask ``b``'s ink box reaches beyond mask ``a``'s by more than
    ``max(3, 0.2 * a's height)`` pixels on some side (same coordinates)."""
    ax, ay, aw, ah = cv2.boundingRect(a)
    bx, by, bw, bh = cv2.boundingRect(b)
    tol = max(3.0, 0.2 * ah)
    return (ax - bx > tol or ay - by > tol or (bx + bw) - (ax + aw) > tol
            or (by + bh) - (ay + ah) > tol)


def read_corners(rec: "Recognizer", frame: np.ndarray, mask: np.ndarray | None = None,
                 params: CornerParams | None = None, ref_side: int | None = None) -> list[CornerReading]:
    """Read every corner index found in ``frame`` (outside ``mask``'s zeros); merged.

    Returns one :class:`CornerReading` per named card (the same card read at several spots
    is given once); a card read at a spot that is also read as another card is dropped.
    """
    p = params or CornerParams()
    reads = read_pairs(rec, frame, find_index_pairs(frame, p, mask, ref_side), p, named_only=True)
    named = [(pair, r) for pair, r in reads if r.card is not None]
    out: dict[str, CornerReading] = {}
    bad: set[str] = set()
    for pair, r in named:
        assert r.card is not None
        for pair2, r2 in named:
            if r2.card == r.card:
                continue
            if min(math.dist(pair.rank, pair2.rank), math.dist(pair.rank, pair2.pip),
                   math.dist(pair.pip, pair2.rank)) < 0.5 * pair.size:
                bad.add(r.card)
        if r.card not in out or r.rank_score + r.suit_score > out[r.card].rank_score + out[r.card].suit_score:
            out[r.card] = r
    return [r for c, r in out.items() if c not in bad]


def _paper_box(frame: np.ndarray, mask: np.ndarray, p: CornerParams) -> tuple[int, int, int, int] | None:
    """The box ``(x0, y0, x1, y1)`` round the light paper left open by ``mask``, or None.

    Looked at on a thumbnail (cheap): a frame whose cards were all named, on a table that
    is not light paper itself, has no paper left and costs no corner search.
    """
    h, w = frame.shape[:2]
    f = min(1.0, 160.0 / min(h, w))
    th = cv2.resize(frame, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    mk = cv2.resize(mask, (th.shape[1], th.shape[0]), interpolation=cv2.INTER_NEAREST)
    hsv = cv2.cvtColor(th, cv2.COLOR_BGR2HSV)
    paper = (hsv[:, :, 1] < 80) & (hsv[:, :, 2] > 110) & (mk > 0)
    if paper.sum() < 4:
        return None
    ys, xs = np.nonzero(paper)
    pad = 0.04 * min(h, w)
    x0 = max(0, int(xs.min() / f - pad))
    y0 = max(0, int(ys.min() / f - pad))
    x1 = min(w, int((xs.max() + 1) / f + pad))
    y1 = min(h, int((ys.max() + 1) / f + pad))
    if x1 - x0 < p.min_size * 2 or y1 - y0 < p.min_size * 2:
        return None
    return x0, y0, x1, y1


def _merged(q: np.ndarray, p: CornerParams, typical: float | None) -> bool:
    """True when a named card's quad ``q`` ``(4, 2)`` may have swallowed cards under it (a
    fan or row found as one blob): it has not a card's proportions (mean long side over
    mean short side outside ``p.card_ratio``) and, when the frame holds 3 or more named
    cards (``typical``: the median of their quads' areas, px^2), it is also 30% larger than
    they are (a frame stretched to another aspect distorts every card alike)."""
    a = float(np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[3] - q[2])) / 2
    b = float(np.linalg.norm(q[2] - q[1]) + np.linalg.norm(q[0] - q[3])) / 2
    ratio = max(a, b) / max(min(a, b), 1e-6)
    if p.card_ratio[0] <= ratio <= p.card_ratio[1]:
        return False
    return typical is None or abs(cv2.contourArea(q)) > 1.3 * typical


def add_corner_readings(rec: "Recognizer", frame: np.ndarray, readings: Sequence["Reading"],
                        region: np.ndarray | None = None, params: CornerParams | None = None) -> list["Reading"]:
    """Add the cards read from corner indices to the whole-card ``readings`` of ``frame``.

    Only what the whole-card pass did not name is searched (the quads of named cards are
    masked out but for their rim, ``named_shrink``; only the middle of a quad that may have
    swallowed cards under it, ``merged_shrink``; nothing of a card named from its index
    strip, ``why == "index strip"``, whose outline holds other cards' strips; ``region``, a
    ``(4, 2)`` board quad, limits the search). A corner naming a card the whole-card pass
    already named is left out; an unsure whole-card reading whose outline holds a named
    corner is replaced by it. Corner
    readings have the index's box as ``outline`` and ``why == "corner index"``. Returned
    left to right.
    """
    p = params or CornerParams()
    h, w = frame.shape[:2]
    mask = np.full((h, w), 255, np.uint8)
    if region is not None:
        mask[:] = 0
        cv2.fillPoly(mask, [np.asarray(region, np.float32).round().astype(np.int32).reshape(-1, 1, 2)], 255)
    named = set()
    areas = [abs(cv2.contourArea(np.asarray(r.outline, np.float32))) for r in readings
             if r.card is not None and r.why != INDEX_STRIP]
    typical = float(np.median(areas)) if len(areas) >= 3 else None
    for r in readings:
        if r.card is not None:
            named.add(str(r.card))
            if r.why == INDEX_STRIP:
                continue  # named from its index strip: the rest of its outline is other cards
            # a named card's face is explained; its rim is left open (a neighbour's index
            # may sit under a quad drawn a little too wide; the card's own index is
            # dropped by name below)
            q = np.asarray(r.outline, np.float32)
            q = q + (q.mean(axis=0) - q) * (p.merged_shrink if _merged(q, p, typical) else p.named_shrink)
            cv2.fillPoly(mask, [q.round().astype(np.int32).reshape(-1, 1, 2)], 0)
    box = _paper_box(frame, mask, p)
    if box is None:
        return list(readings)
    x0, y0, x1, y1 = box
    found = read_corners(rec, np.ascontiguousarray(frame[y0:y1, x0:x1]), mask[y0:y1, x0:x1], p, min(h, w))
    corners = [replace(c, box=tuple((x + x0, y + y0) for x, y in c.box)) for c in found if c.card not in named]
    if not corners:
        return list(readings)
    out = []
    for r in readings:
        if r.card is None:
            poly = np.asarray(r.outline, np.float32).reshape(-1, 1, 2)
            inside = [c for c in corners if cv2.pointPolygonTest(poly, c.centre, False) >= 0]
            if inside and r.why.endswith(PICTURE_SEEN):
                # a number read over a court picture (a "B" jack's index read 8): a corner
                # of the same card must not name it either
                corners = [c for c in corners if c not in inside]
            elif inside:
                continue
        out.append(r)
    for c in corners:
        conf = 0.5 + 0.25 * min(c.rank_margin / 0.3, 1.0) + 0.25 * min(c.suit_margin / 0.3, 1.0)
        out.append(Reading(parse_card(c.card), min(conf, 1.0), c.box, "corner index"))  # type: ignore[arg-type]
    out.sort(key=lambda r: sum(x for x, _ in r.outline) / len(r.outline))
    return out
