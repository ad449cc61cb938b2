"""The board recognizer: one frame in, a list of :class:`Reading` out (no camera here).

Pipeline (docs/vision.md):

1. :func:`vision.detect.find_cards` finds card-face quads on any table.
2. Each quad is warped to an upright canonical card; both upright orientations are tried
   (a card lies either way up; its two indices are printed 180 degrees apart).
3. The corner index is cut into the rank (one or two characters) and the suit pip below it;
   each is matched against synthetic glyphs (:mod:`vision.glyphs`) or, when a deck was
   enrolled, against that deck's own glyphs (:mod:`vision.enroll`). The ink colour (red or
   black) decides between the suits' two colour groups.
4. A card is named only when the rank and the suit each win by a margin and both readings
   of the card agree; otherwise the reading has ``card=None`` (*unsure*): the table asks the
   dealer rather than guess (issue 6).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

import cv2
import numpy as np

from controller.engine.cards import Card, parse_card
from vision.detect import find_cards, order_quad
from vision.glyphs import RANK_LABELS, SUIT_LABELS, GlyphBank, glyph_feature, load_glyph_bank

__all__ = ["Reading", "Recognizer", "FrameError", "CornerRead", "as_frame"]

W, H = 240, 336  # canonical card size for reading (portrait, ratio 1.4)


class FrameError(ValueError):
    """A frame is not an image the recognizer can read (empty, wrong type, corrupt)."""


@dataclass(frozen=True)
class Reading:
    """One card-shaped object found in a frame.

    ``card`` is the card named, or ``None`` when the recognizer would not name it (unsure);
    ``confidence`` is in ``[0, 1]``; ``outline`` is the card's quad in frame pixels,
    four ``(x, y)`` float pairs clockwise from the card's top-left corner.
    """

    card: Card | None
    confidence: float
    outline: tuple[tuple[float, float], ...]
    why: str = ""

    @property
    def unsure(self) -> bool:
        """True when the object looks like a card but was not named."""
        return self.card is None


@dataclass
class CornerRead:
    """What one corner index says: the best rank/suit, their margins, and the glyph masks."""

    rank: str | None = None
    suit: str | None = None
    rank_score: float = 0.0
    rank_margin: float = 0.0
    suit_score: float = 0.0
    suit_margin: float = 0.0
    red: bool | None = None
    rank_feat: np.ndarray | None = field(default=None, repr=False)
    suit_feat: np.ndarray | None = field(default=None, repr=False)

    def card(self) -> str | None:
        """Return ``"Td"``-style text, or None if rank or suit is missing."""
        if self.rank is None or self.suit is None:
            return None
        return ("T" if self.rank == "10" else self.rank) + self.suit


def as_frame(image: object) -> np.ndarray:
    """Return ``image`` as a ``(H, W, 3)`` uint8 BGR array.

    Accepts BGR, BGRA and greyscale uint8 arrays.

    Raises:
        FrameError: not an image (``None``, empty, wrong dtype or shape).
    """
    if image is None or not isinstance(image, np.ndarray) or image.size == 0:
        raise FrameError("vision: empty frame")
    if image.dtype != np.uint8:
        raise FrameError(f"vision: frame dtype must be uint8, got {image.dtype}")
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.ndim == 3 and image.shape[2] == 3:
        return image
    raise FrameError(f"vision: frame shape {image.shape} is not an image")


def _white_balance(card: np.ndarray) -> np.ndarray:
    grey = cv2.cvtColor(card, cv2.COLOR_BGR2GRAY)
    thr = np.percentile(grey, 75)
    paper = card[grey >= thr].reshape(-1, 3).astype(np.float32)
    ref = np.median(paper, axis=0) if len(paper) else np.array([200, 200, 200], np.float32)
    ref = np.maximum(ref, 30)
    out = card.astype(np.float32) * (230.0 / ref)
    return np.clip(out, 0, 255).astype(np.uint8)


def _ink(card_wb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (ink mask uint8 0/255, red chroma int16) of a white-balanced card."""
    b, g, r = (card_wb[:, :, i].astype(np.int16) for i in range(3))
    grey = (b + g + r) // 3
    chroma = r - np.maximum(g, b)
    dark = grey < 135
    red = (chroma > 55) & (grey < 200)
    ink = (dark | red).astype(np.uint8) * 255
    return ink, chroma


class Recognizer:
    """Name the cards in a frame, or say it is unsure (issue 6).

    Args:
        bank: synthetic glyphs; the shipped ``vision/data/glyphs.npz`` by default.
        enrollment: a :class:`vision.enroll.Enrollment` of the house deck, or None.
        min_rank_margin / min_suit_margin: how far the best class must beat the second
            (cosine similarity) before the card is named.
    """

    def __init__(self, bank: GlyphBank | None = None, enrollment: object | None = None,
                 min_rank_margin: float = 0.06, min_suit_margin: float = 0.05,
                 min_rank_score: float = 0.85, min_suit_score: float = 0.85) -> None:
        self.bank = bank or load_glyph_bank()
        self.enrollment = enrollment
        self.min_rank_margin = min_rank_margin
        self.min_suit_margin = min_suit_margin
        self.min_rank_score = min_rank_score
        self.min_suit_score = min_suit_score
        self._rank_x = self.bank.rank_x
        self._rank_y = self.bank.rank_y.astype(np.int64)
        self._suit_x = self.bank.suit_x
        self._suit_y = self.bank.suit_y.astype(np.int64)
        if enrollment is not None:
            ex, ey, sx, sy = enrollment.features(self.bank)  # type: ignore[attr-defined]
            self._rank_x, self._rank_y = ex, ey.astype(np.int64)
            self._suit_x, self._suit_y = sx, sy.astype(np.int64)

    # -- public ---------------------------------------------------------------------------

    def recognize(self, image: np.ndarray, region: np.ndarray | None = None) -> list[Reading]:
        """Return one :class:`Reading` per card-shaped object in ``image``.

        ``image``: ``(H, W, 3)`` uint8 BGR (greyscale/BGRA accepted). ``region``: an
        optional ``(4, 2)`` board quad in frame pixels; only cards whose centre lies inside
        are returned. Readings are ordered left to right.

        Raises:
            FrameError: the image is not an image (see :func:`as_frame`).
        """
        frame = as_frame(image)
        out = []
        for quad in find_cards(frame):
            if region is not None:
                c = quad.mean(axis=0)
                if cv2.pointPolygonTest(np.asarray(region, np.float32).reshape(-1, 1, 2),
                                        (float(c[0]), float(c[1])), False) < 0:
                    continue
            out.append(self.read_quad(frame, quad))
        return out

    def read_quad(self, frame: np.ndarray, quad: np.ndarray) -> Reading:
        """Read the card inside ``quad`` ``(4, 2)`` of ``frame``; return its :class:`Reading`."""
        q = order_quad(quad)
        outline = tuple((float(x), float(y)) for x, y in q)
        q = _shrink(q, 0.012)  # keep the table's edge out of the corner
        reads = []
        for k in (0, 2):
            card = self._warp(frame, np.roll(q, -k, axis=0))
            reads.append(self.read_corner(card))
        names = [r.card() for r in reads]
        good = [r for r in reads if self._confident(r)]
        if not good:
            best = max(reads, key=lambda r: r.rank_score + r.suit_score)
            return Reading(None, _conf(best), outline, "no confident corner")
        named = {r.card() for r in good}
        if len(named) > 1:
            return Reading(None, 0.0, outline, f"corners disagree: {sorted(n for n in names if n)}")
        other = [r for r in reads if r not in good]
        name = good[0].card()
        assert name is not None
        for r in other:  # a weak corner that reads a different card is a warning
            if r.card() is not None and r.card() != name and r.rank_margin > 0.03 and r.rank_score > 0.85:
                return Reading(None, 0.0, outline, f"corners disagree: {names}")
        conf = max(_conf(r) for r in good)
        if len(good) == 2:
            conf = min(1.0, conf + 0.1)
        return Reading(parse_card(name), conf, outline)

    # -- internals ------------------------------------------------------------------------

    def _confident(self, r: CornerRead) -> bool:
        return (r.rank is not None and r.suit is not None
                and r.rank_score >= self.min_rank_score and r.rank_margin >= self.min_rank_margin
                and r.suit_score >= self.min_suit_score and r.suit_margin >= self.min_suit_margin)

    @staticmethod
    def _warp(frame: np.ndarray, q: np.ndarray) -> np.ndarray:
        dst = np.array([[0, 0], [W - 1, 0], [W - 1, H - 1], [0, H - 1]], dtype=np.float32)
        m = cv2.getPerspectiveTransform(q.astype(np.float32), dst)
        return cv2.warpPerspective(frame, m, (W, H), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)

    def corner_glyphs(self, card: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None, bool | None]:
        """Cut the top-left index of an upright card ``(H, W, 3)`` into glyph masks.

        Returns ``(rank_mask, suit_mask, red)``: uint8 masks (ink 255) of the rank
        character(s) and of the suit pip under them (None when not found), and whether the
        ink is red (None when unknown).
        """
        wb = _white_balance(card)
        cw, ch = int(W * 0.24), int(H * 0.36)
        crop = wb[:ch, :cw]
        ink, chroma = _ink(crop)
        # a strip of table left in the warp: ignore a border band
        ink[:, :3] = 0
        ink[:3, :] = 0
        n, lab, st, cen = cv2.connectedComponentsWithStats(ink, 8)
        comps = []
        for i in range(1, n):
            x, y, w, h, a = st[i]
            if a < 15 or h < 6:
                continue
            if h > 0.7 * ch or w > 0.8 * cw:  # frame lines of a face card, edges
                continue
            if x + w >= cw - 1 and w > 0.35 * cw:  # runs out of the index zone: a pip or picture
                continue
            comps.append((i, x, y, w, h, a))
        if not comps:
            return None, None, None
        # rank: the topmost component of index height in the left part of the corner
        cand = [c for c in comps if c[4] >= 0.045 * H and c[4] <= 0.16 * H and c[1] + c[3] / 2 < 0.15 * W]
        if not cand:
            return None, None, None
        top = min(cand, key=lambda c: c[2])
        rank = [top]
        for c in comps:  # the other half of "10", or a broken stroke
            if c is top:
                continue
            ov = min(top[2] + top[4], c[2] + c[4]) - max(top[2], c[2])
            gap = max(c[1] - (top[1] + top[3]), top[1] - (c[1] + c[3]))
            if ov > 0.6 * min(top[4], c[4]) and gap < 0.35 * top[4] and c[4] > 0.5 * top[4]:
                rank.append(c)
        rx0 = min(c[1] for c in rank)
        rx1 = max(c[1] + c[3] for c in rank)
        ry1 = max(c[2] + c[4] for c in rank)
        rh = max(c[4] for c in rank)
        rmask = np.isin(lab, [c[0] for c in rank]).astype(np.uint8) * 255
        # suit: the nearest component below the rank, under it
        below = [c for c in comps if c not in rank and c[2] >= ry1 - 2 and c[2] - ry1 < 0.8 * rh
                 and rx0 - 0.4 * rh <= c[1] + c[3] / 2 <= rx1 + 0.4 * rh
                 and 0.3 * rh <= c[4] <= 1.3 * rh]
        smask = None
        if below:
            s = min(below, key=lambda c: c[2])
            smask = (lab == s[0]).astype(np.uint8) * 255
        pix = (rmask > 0) | (smask > 0 if smask is not None else False)
        red = None
        if pix.sum() >= 10:
            red = bool(np.median(chroma[pix]) > 45)
        return rmask, smask, red

    def read_corner(self, card: np.ndarray) -> CornerRead:
        """Read the top-left index of an upright card image ``(H, W, 3)``."""
        rmask, smask, red = self.corner_glyphs(card)
        out = CornerRead(red=red)
        if rmask is None:
            return out
        f = glyph_feature(rmask)
        out.rank_feat = f
        out.rank, out.rank_score, out.rank_margin = _classify(f, self._rank_x, self._rank_y, RANK_LABELS)
        if smask is not None and red is not None:
            g = glyph_feature(smask)
            out.suit_feat = g
            allowed = ("d", "h") if red else ("c", "s")
            out.suit, out.suit_score, out.suit_margin = _classify(g, self._suit_x, self._suit_y, SUIT_LABELS, allowed)
        return out

    def timed(self, image: np.ndarray) -> tuple[list[Reading], float]:
        """Return ``(readings, milliseconds)`` for one frame."""
        t = time.perf_counter()
        r = self.recognize(image)
        return r, (time.perf_counter() - t) * 1000.0


def _classify(f: np.ndarray, x: np.ndarray, y: np.ndarray, labels: Sequence[str],
              allowed: Sequence[str] | None = None) -> tuple[str | None, float, float]:
    sims = x @ f
    best = np.full(len(labels), -1.0, np.float32)
    np.maximum.at(best, y, sims)
    if allowed is not None:
        for i, lab in enumerate(labels):
            if lab not in allowed:
                best[i] = -1.0
    order = np.argsort(-best)
    b, s = float(best[order[0]]), float(best[order[1]])
    if b <= -1.0:
        return None, 0.0, 0.0
    return labels[order[0]], b, b - max(s, -1.0) if s > -1.0 else b


def _conf(r: CornerRead) -> float:
    if r.rank is None:
        return 0.0
    m = min(r.rank_margin / 0.2, 1.0) * 0.5 + min(r.suit_margin / 0.2, 1.0) * 0.3
    return float(max(0.0, min(1.0, 0.2 * r.rank_score + m)))


def _shrink(q: np.ndarray, f: float) -> np.ndarray:
    """Move each corner of ``q`` towards the opposite one by ``f`` of the diagonal."""
    out = q.copy()
    for i in range(4):
        out[i] = q[i] + (q[(i + 2) % 4] - q[i]) * f
    return out.astype(np.float32)
