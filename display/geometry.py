"""Boxes, text fitting and the seat ring: the geometry under the dealer display's layout.

Pure: no SDL. Text is measured by an injected ``measure(text, size) -> (w, h)`` in pixels.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "Box",
    "Text",
    "Measure",
    "MIN_FONT",
    "MAX_FONT",
    "ELLIPSIS",
    "RINGS",
    "fit_size",
    "clean_text",
    "frame_width",
    "clip_text",
    "place_text",
    "ring_geometry",
    "choose_ring",
    "parse_size",
]


def parse_size(text: str) -> tuple[int, int]:
    """Parse a screen size in pixels, ``"1280x720"``, into ``(1280, 720)`` (``[display] size``,
    ``--size``; the table config checks it with this too).

    Raises:
        ValueError: not ``WIDTHxHEIGHT`` with both at least 320x240.
    """
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"size must be WIDTHxHEIGHT, e.g. 1280x720, got {text!r}") from None
    if w < 320 or h < 240:
        raise ValueError(f"size {w}x{h} is too small (at least 320x240)")
    return w, h


#: ``measure(text, size_px) -> (width_px, height_px)``
Measure = Callable[[str, int], tuple[int, int]]

#: the smallest font size (px) the layout uses; longer texts are cut with an ellipsis
MIN_FONT = 10
#: the largest font size (px) the layout uses
MAX_FONT = 160
ELLIPSIS = "\u2026"

#: seat ring per number of seats: (seats on each side column, seats along the top),
#: in order of preference; the best for the screen shape wins (see choose_ring)
RINGS: dict[int, tuple[tuple[int, int], ...]] = {
    2: ((1, 0),),
    3: ((1, 1),),
    4: ((1, 2), (2, 0)),
    5: ((2, 1), (1, 3)),
    6: ((2, 2), (1, 4)),
    7: ((2, 3), (3, 1)),
    8: ((3, 2), (2, 4)),
    9: ((3, 3), (2, 5)),
    10: ((3, 4), (4, 2)),
}


@dataclass(frozen=True, slots=True)
class Box:
    """A rectangle in screen pixels: left ``x``, top ``y``, width ``w``, height ``h``."""

    x: int
    y: int
    w: int
    h: int

    @property
    def right(self) -> int:
        """Return the x just past the right edge (``x + w``)."""
        return self.x + self.w

    @property
    def bottom(self) -> int:
        """Return the y just past the bottom edge (``y + h``)."""
        return self.y + self.h

    def inside(self, other: "Box") -> bool:
        """Return True if this box lies wholly within ``other``."""
        return (
            self.x >= other.x and self.y >= other.y
            and self.right <= other.right and self.bottom <= other.bottom
        )

    def overlaps(self, other: "Box") -> bool:
        """Return True if the two boxes share any pixel."""
        return (
            self.x < other.right and other.x < self.right
            and self.y < other.bottom and other.y < self.bottom
        )

    def inset(self, d: int) -> "Box":
        """Return the box shrunk by ``d`` pixels on every side (never below 1x1)."""
        return Box(self.x + d, self.y + d, max(1, self.w - 2 * d), max(1, self.h - 2 * d))

    def rows(self, *fractions: float, gap: int = 0) -> list["Box"]:
        """Split top to bottom into boxes whose heights follow ``fractions`` (gap between)."""
        total = sum(fractions)
        usable = self.h - gap * (len(fractions) - 1)
        out, y = [], self.y
        for i, f in enumerate(fractions):
            h = self.bottom - y if i == len(fractions) - 1 else int(usable * f / total)
            out.append(Box(self.x, y, self.w, max(0, h)))
            y += h + gap
        return out

    def as_tuple(self) -> tuple[int, int, int, int]:
        """Return ``(x, y, w, h)`` (what ``pygame.Rect`` takes)."""
        return (self.x, self.y, self.w, self.h)


@dataclass(frozen=True, slots=True)
class Text:
    """One text to draw: ``text`` at font ``size`` px inside ``box``.

    ``align`` is ``left`` | ``center`` | ``right`` (vertically always centred); ``role``
    tells the renderer the colour (``name``, ``stack``, ``info``, ``pot``, ``banner`` ...).
    """

    box: Box
    text: str
    size: int
    align: str = "left"
    role: str = "body"


# ---------------------------------------------------------------- text fitting


def fit_size(texts: list[str], w: int, h: int, measure: Measure, *, hi: int = MAX_FONT) -> int:
    """Return the largest font size in ``MIN_FONT..hi`` at which every text fits ``w`` x ``h``.

    Returns ``MIN_FONT`` when even that does not fit (the caller then cuts the text).
    """
    def fits(size: int) -> bool:
        for t in texts:
            tw, th = measure(t, size)
            if tw > w or th > h:
                return False
        return True

    lo, hi = MIN_FONT, max(MIN_FONT, hi)
    if not fits(lo):
        return MIN_FONT
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def frame_width(box: Box) -> int:
    """Return the width in px of the thick frame round an acting or winning seat's box."""
    return max(3, min(box.w, box.h) // 20)


def clean_text(text: str) -> str:
    """Return ``text`` fit to draw: line breaks and tabs become spaces, other control,
    format, surrogate and private-use characters are dropped (pygame refuses NUL)."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch in "\n\r\t":
            out.append(" ")
        elif unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co", "Cn"):
            out.append(ch)
    return "".join(out)


def clip_text(text: str, size: int, w: int, measure: Measure) -> str:
    """Return ``text`` cut with an ellipsis so that it is at most ``w`` px wide at ``size``."""
    if measure(text, size)[0] <= w:
        return text
    for end in range(len(text) - 1, 0, -1):
        cut = text[:end].rstrip() + ELLIPSIS
        if measure(cut, size)[0] <= w:
            return cut
    return ""


def place_text(box: Box, text: str, size: int, measure: Measure, *, align: str, role: str) -> Text:
    """Return a Text at ``size`` cut to fit ``box``; a box too low for the font gets no text."""
    text = clean_text(text)
    if measure(text, size)[1] > box.h:
        text = ""
    return Text(box, clip_text(text, size, box.w, measure), size, align, role)


# ---------------------------------------------------------------- geometry


def ring_geometry(
    sides: int, top: int, area: Box, gap: int, *, strict: bool = True
) -> tuple[list[Box], Box, float] | None:
    """Return (seat boxes clockwise from seat 1, centre box, score) for a seat ring.

    ``sides`` seats on each side column, ``top`` along the top. With ``strict`` the ring is
    refused (None) when seats would be under 40 px or the centre too small for the board.
    """
    W, H = area.w, area.h
    if top > 0:
        sw = min((W - (top + 1) * gap) / (top + 2), 0.30 * W)
        tw = min((W - 2 * sw - (top + 1) * gap) / top, 1.3 * sw)
        sh = min((H - (sides - 1) * gap) / sides, 0.40 * H, sw)
    else:
        sw, tw = 0.28 * W, 0.0
        sh = min((H - (sides - 1) * gap) / sides, 0.62 * H, sw)
    sw_i, sh_i, tw_i = int(sw), max(1, int(sh)), int(tw)
    if strict and (sw_i < 40 or sh_i < 40):
        return None
    left_x, right_x = area.x, area.right - sw_i
    inner_x0, inner_x1 = left_x + sw_i + gap, right_x - gap
    lefts: list[Box] = []
    for j in range(sides):  # left column, bottom (seat 1) to top
        if sides > 1:
            y = area.y + H - sh_i - round(j * (H - sh_i) / (sides - 1))
        elif top:  # alone on its side: middle of the space below the top row
            y = area.y + sh_i + gap + max(0, (H - 2 * sh_i - gap) // 2)
            y = min(y, area.bottom - sh_i)
        else:
            y = area.y + (H - sh_i) // 2
        lefts.append(Box(left_x, y, sw_i, sh_i))
    tops = []
    for i in range(top):  # top row, left to right
        if top == 1:
            x = inner_x0 + (inner_x1 - inner_x0 - tw_i) // 2
        else:
            x = inner_x0 + round(i * (inner_x1 - inner_x0 - tw_i) / (top - 1))
        tops.append(Box(x, area.y, tw_i, sh_i))
    rights = [Box(right_x, b.y, sw_i, sh_i) for b in reversed(lefts)]  # top to bottom
    cy = area.y + (sh_i + gap if top else 0)
    center = Box(inner_x0, cy, max(1, inner_x1 - inner_x0), max(1, area.bottom - cy))
    if strict and (center.w < 0.38 * W or center.h < 0.42 * H):
        return None
    boxes = lefts + tops + rights
    score = min(min(b.w for b in boxes), sh_i * 1.35)
    return boxes, center, score


def choose_ring(n: int, area: Box, gap: int) -> tuple[int, int]:
    """Return the (side, top) seat ring for ``n`` seats that gives the biggest seats."""
    best, best_score = RINGS[n][0], -1.0
    for ring in RINGS[n]:
        got = ring_geometry(ring[0], ring[1], area, gap)
        if got is not None and got[2] > best_score + 0.5:
            best, best_score = ring, got[2]
    return best
