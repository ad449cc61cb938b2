"""Synthetic corner-index glyphs: rank characters drawn from fonts, suit pips drawn as shapes.

Nothing here comes from photographs. Rank characters (``A 2..9 10 J Q K``) are drawn with
the OpenCV Hershey fonts and, when available, the TrueType fonts that ship with the system
or with pygame (DejaVu Sans/Serif in several weights and widths, Liberation Sans/Serif/Sans
Narrow from Debian's ``fonts-liberation``, FreeSans Bold; a flat-topped "3" is drawn as the
letter Ezh where a font has it); suit pips
are drawn from circles and polygons. Every drawing is augmented (stroke weight, rotation,
shear, blur) and reduced to a feature vector by :func:`glyph_feature`.

``tools/vision/make_glyphs.py`` writes the result to ``vision/data/glyphs.npz`` (a few
hundred kB) so the recognizer loads it without fonts, pygame or network;
:func:`build_glyph_bank` regenerates it (used when the file is missing).

Shapes: a glyph image is a ``uint8`` ``(h, w)`` array, ink = 255; a feature is a ``float32``
vector of length :data:`FEATURE_LEN`, zero-mean and unit-norm.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import cv2
import numpy as np

__all__ = [
    "RANK_LABELS",
    "SUIT_LABELS",
    "GLYPH_W",
    "GLYPH_H",
    "FEATURE_LEN",
    "GlyphBank",
    "glyph_feature",
    "draw_suit",
    "draw_rank",
    "build_glyph_bank",
    "load_glyph_bank",
]

#: Rank labels as written on cards, and the card-room rank letter each one means.
RANK_LABELS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
RANK_LETTER = {"10": "T"}
SUIT_LABELS = ["c", "d", "h", "s"]

PROJ_DIM = 200
GLYPH_W = 20
GLYPH_H = 28
FEATURE_LEN = 0  # set below from the HOG layout

BANK_PATH = Path(__file__).resolve().parent / "data" / "glyphs.npz"

_TTF_GLOBS = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans*.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif*.ttf",
    "/usr/share/fonts/truetype/liberation*/*.ttf",
    "/usr/share/fonts/truetype/freefont/*.ttf",
]


_HOG_INDEX: dict[tuple[int, int, int, int], tuple[np.ndarray, int, int, int]] = {}


def _hog_index(shape: tuple[int, int], cell: int, bins: int) -> tuple[np.ndarray, int, int, int]:
    """Cell index (times ``bins``) of every pixel, cached per image shape."""
    key = (shape[0], shape[1], cell, bins)
    if key not in _HOG_INDEX:
        ch, cw = shape[0] // cell, shape[1] // cell
        cy = np.minimum(np.arange(shape[0]) // cell, ch - 1)
        cx = np.minimum(np.arange(shape[1]) // cell, cw - 1)
        base = ((cy[:, None] * cw + cx[None, :]) * bins).ravel()
        _HOG_INDEX[key] = (np.concatenate([base, base]), ch, cw, ch * cw * bins)
    return _HOG_INDEX[key]


def _hog(img: np.ndarray, cell: int = 4, bins: int = 9) -> np.ndarray:
    """Histograms of oriented gradients (unsigned, ``bins`` bins) over ``cell`` px cells,
    each 2x2-cell block L2-normalised (Dalal-Triggs layout, no Gaussian window)."""
    gx = cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=3)
    mag = cv2.magnitude(gx, gy).ravel()
    ang = (np.arctan2(gy, gx).ravel() % np.pi) * (bins / np.pi)
    fl = np.floor(ang)
    b0 = fl.astype(np.int32) % bins
    w1 = ang - fl
    base2, ch, cw, n = _hog_index(img.shape, cell, bins)
    # both neighbouring bins of every pixel in one weighted count
    idx = base2 + np.concatenate([b0, (b0 + 1) % bins])
    hist = np.bincount(idx, np.concatenate([mag * (1 - w1), mag * w1]), n)
    hist = hist.reshape(ch, cw, bins).astype(np.float32)
    blocks = np.concatenate([hist[:-1, :-1], hist[:-1, 1:], hist[1:, :-1], hist[1:, 1:]], axis=-1)
    blocks /= np.linalg.norm(blocks, axis=-1, keepdims=True) + 1e-3
    return blocks.ravel()


def glyph_feature(ink: np.ndarray) -> np.ndarray:
    """Return the feature vector of a glyph image (ink > 0), cropped to its ink.

    The ink's bounding box is stretched to ``GLYPH_W x GLYPH_H`` (so stroke shapes, not
    sizes, are compared) and described by its gradient histograms (HOG) and its blurred
    pixels; the box's aspect ratio is appended. The vector has unit norm.

    Raises:
        ValueError: the image has no ink.
    """
    x0, y0, bw, bh = cv2.boundingRect(np.ascontiguousarray(ink, dtype=np.uint8))
    if bw == 0 or bh == 0:
        raise ValueError("vision: empty glyph")
    crop = ink[y0:y0 + bh, x0:x0 + bw].astype(np.float32)
    small = cv2.resize(crop, (GLYPH_W, GLYPH_H), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (3, 3), 0)
    padded = cv2.copyMakeBorder(small, 2, 2, 2, 2, cv2.BORDER_CONSTANT, value=0)
    h = _hog(padded.astype(np.uint8).astype(np.float32))
    h *= 0.8 / (float(np.sqrt(h.dot(h))) + 1e-6)
    v = small.ravel()
    v = v - v.mean()
    v *= 0.6 / (float(np.sqrt(v.dot(v))) + 1e-6)
    aspect = bw / float(bh)
    out = np.concatenate([h, v, np.array([min(aspect, 2.0) * 0.25], np.float32)]).astype(np.float32)
    return out / float(np.sqrt(out.dot(out)))


FEATURE_LEN = len(glyph_feature(np.pad(np.ones((10, 10), np.uint8) * 255, 2)))

# --- suits drawn as shapes ----------------------------------------------------------------

def draw_suit(suit: str, size: int = 96, variant: float = 0.0) -> np.ndarray:
    """Return a ``(size, size)`` uint8 image of a suit pip (ink = 255).

    ``variant`` in ``[-1, 1]`` changes the lobes' size and the stem's width so that the
    many printed styles are covered.
    """
    s = size
    im: np.ndarray = np.zeros((s, s), np.uint8)
    k = 1.0 + 0.12 * variant

    def p(x: float, y: float) -> tuple[int, int]:
        return int(round(x * s)), int(round(y * s))

    if suit == "d":
        w = 0.36 + 0.05 * variant
        pts = []
        for t in np.linspace(0, 1, 12):  # slightly concave sides
            pts.append((0.5 + w * t, 0.04 + 0.46 * t))
        for t in np.linspace(0, 1, 12):
            pts.append((0.5 + w * (1 - t), 0.5 + 0.46 * t))
        pts += [(1 - x, y) for x, y in reversed(pts)]
        arr = np.array([p(x, y) for x, y in pts], np.int32)
        cv2.fillPoly(im, [arr], 255)
    elif suit in ("h", "s"):
        r = 0.2 * k
        cy = 0.32
        for cx in (0.5 - r * 0.98, 0.5 + r * 0.98):
            cv2.circle(im, p(cx, cy), int(r * s), 255, -1)
        tri = np.array([p(0.5 - 2 * r * 0.98, cy + r * 0.25), p(0.5 + 2 * r * 0.98, cy + r * 0.25),
                        p(0.5, 0.92)], np.int32)
        cv2.fillPoly(im, [tri], 255)
        if suit == "s":
            im = cv2.flip(im, 0)
            im = cv2.resize(im, (s, int(s * 0.82)))
            im = np.vstack([im, np.zeros((s - im.shape[0], s), np.uint8)])
            sw = 0.06 + 0.03 * variant
            stem = np.array([p(0.5 - sw, 0.6), p(0.5 + sw, 0.6), p(0.5 + 0.16, 0.97), p(0.5 - 0.16, 0.97)], np.int32)
            cv2.fillPoly(im, [stem], 255)
    elif suit == "c":
        r = 0.17 * k
        cv2.circle(im, p(0.5, 0.25), int(r * s), 255, -1)
        cv2.circle(im, p(0.5 - 0.2, 0.56), int(r * s), 255, -1)
        cv2.circle(im, p(0.5 + 0.2, 0.56), int(r * s), 255, -1)
        cv2.fillPoly(im, [np.array([p(0.5, 0.3), p(0.62, 0.5), p(0.5, 0.62), p(0.38, 0.5)], np.int32)], 255)
        sw = 0.05 + 0.03 * variant
        stem = np.array([p(0.5 - sw, 0.5), p(0.5 + sw, 0.5), p(0.5 + 0.16, 0.97), p(0.5 - 0.16, 0.97)], np.int32)
        cv2.fillPoly(im, [stem], 255)
    else:
        raise ValueError(f"vision: unknown suit {suit!r}")
    return im


# --- ranks drawn from fonts ---------------------------------------------------------------

_HERSHEY = [
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_PLAIN,
]


def _hershey(text: str, font: int, thick: int) -> np.ndarray:
    scale = 3.0
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    im = np.zeros((th + base + 20, tw + 20), np.uint8)
    cv2.putText(im, text, (10, th + 10), font, scale, 255, thick, cv2.LINE_AA)
    return im


def _ttf_fonts() -> list[str]:
    paths: list[str] = []
    for g in _TTF_GLOBS:
        paths += sorted(glob.glob(g))
    try:  # pygame ships FreeSans Bold
        import pygame  # noqa: PLC0415

        paths.append(os.path.join(os.path.dirname(pygame.__file__), "freesansbold.ttf"))
    except ImportError:  # pragma: no cover
        pass
    keep = []
    for p in paths:
        name = os.path.basename(p).lower()
        if "mono" in name or "math" in name or "extralight" in name or "oblique" in name or "italic" in name:
            continue
        keep.append(p)
    return keep


#: Extra characters drawn for a rank: some card decks print a flat-topped "3", the shape
#: of the letter Ezh (U+01B7); drawn only from fonts that have that character.
_ALIKE = {"3": ["\u01b7"]}


def _ttf(text: str, path: str) -> np.ndarray | None:
    try:
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        import pygame  # noqa: PLC0415

        if not pygame.font.get_init():
            pygame.font.init()
        f = pygame.font.Font(path, 96)
        if f.metrics(text) == f.metrics("\ue000"):  # the font lacks it: its "missing" box
            return None
        surf = f.render(text, True, (255, 255, 255), (0, 0, 0))
        arr = pygame.surfarray.array3d(surf)[:, :, 0].T.copy()
        return np.pad(arr, 10)
    except Exception:  # a font that will not load is skipped
        return None


def draw_rank(label: str, style: int = 0, fonts: Sequence[str] | None = None) -> list[np.ndarray]:
    """Return drawings (ink = 255) of one rank label: the Hershey fonts at three weights and
    every TrueType face (``fonts``: their paths; the bank's own list by default).

    ``style`` 0 uses every font; 1 the Hershey fonts only (no pygame needed). A "10" also
    comes composed tight from its digits (cards print a condensed 10).
    """
    out = []
    for font in _HERSHEY:
        for thick in (3, 6, 9):
            out.append(_hershey(label, font, thick))
    if style == 0:
        for path in (_ttf_fonts() if fonts is None else fonts):
            for text in [label] + _ALIKE.get(label, []):
                im = _ttf(text, path)
                if im is not None and im.any():
                    out.append(im)
    if label == "10":  # cards print a tight, condensed "10": compose it from its digits
        ones = draw_rank("1", style, fonts)
        zeros = draw_rank("0", style, fonts)
        for one, zero in zip(ones, zeros):
            for gap in (-0.04, 0.03, 0.1):
                out.append(_compose(one, zero, gap))
    return out


def _tight(im: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(im)
    return im[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def _compose(a: np.ndarray, b: np.ndarray, gap: float) -> np.ndarray:
    a, b = _tight(a), _tight(b)
    h = max(a.shape[0], b.shape[0])
    a = cv2.resize(a, (max(1, int(a.shape[1] * h / a.shape[0])), h))
    b = cv2.resize(b, (max(1, int(b.shape[1] * h / b.shape[0] * 0.8)), h))  # condensed 0
    g = int(round(gap * h))
    w = a.shape[1] + max(g, -a.shape[1] // 3) + b.shape[1]
    out = np.zeros((h + 20, w + 20), np.uint8)
    out[10:10 + h, 10:10 + a.shape[1]] = a
    x = 10 + a.shape[1] + max(g, -a.shape[1] // 3)
    out[10:10 + h, x:x + b.shape[1]] = np.maximum(out[10:10 + h, x:x + b.shape[1]], b)
    return out


def _augment(im: np.ndarray, rng: np.random.Generator, n: int) -> list[np.ndarray]:
    out = [im]
    h, w = im.shape
    pad = max(h, w) // 4
    big = np.pad(im, pad)
    H, W = big.shape
    for _ in range(n):
        ang = rng.uniform(-6, 6)
        shear = rng.uniform(-0.12, 0.12)
        sx = rng.uniform(0.75, 1.25)
        m: np.ndarray = cv2.getRotationMatrix2D((W / 2, H / 2), ang, 1.0)
        m[0, 1] += shear
        m[0, :] *= sx
        m[0, 2] += (1 - sx) * W / 2
        warped = cv2.warpAffine(big, m, (W, H))
        k = int(rng.integers(-2, 3)) * max(1, max(h, w) // 60)
        if k > 0:
            warped = cv2.dilate(warped, np.ones((k, k), np.uint8))
        elif k < 0:
            warped = cv2.erode(warped, np.ones((-k, -k), np.uint8))
        if rng.random() < 0.5:  # a low-resolution look
            f = rng.uniform(0.1, 0.3)
            small = cv2.resize(warped, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
            warped = cv2.resize(small, (W, H), interpolation=cv2.INTER_LINEAR)
        warped = (warped > 110).astype(np.uint8) * 255
        if warped.any():
            out.append(warped)
    return out


@dataclass(frozen=True)
class GlyphBank:
    """Glyph features and their labels.

    ``rank_x``: ``(N, K)`` float32 rank features already mapped by :meth:`project`
    (``K = PROJ_DIM``, or ``FEATURE_LEN`` when ``proj`` is None); ``rank_y``: ``(N,)`` int
    (index in :data:`RANK_LABELS`); ``suit_x`` ``(M, FEATURE_LEN)``/``suit_y`` likewise for
    :data:`SUIT_LABELS`; ``proj``: ``(FEATURE_LEN, K)`` or None.
    """

    rank_x: np.ndarray
    rank_y: np.ndarray
    suit_x: np.ndarray
    suit_y: np.ndarray
    proj: np.ndarray | None = None

    def save(self, path: str | os.PathLike) -> None:
        """Write the bank to ``path`` (``.npz``, compressed)."""
        extra: dict[str, Any] = {} if self.proj is None else {"proj": self.proj.astype(np.float16)}
        np.savez_compressed(path, rank_x=self.rank_x.astype(np.float16), rank_y=self.rank_y.astype(np.int8),
                            suit_x=self.suit_x.astype(np.float16), suit_y=self.suit_y.astype(np.int8), **extra)

    def project(self, x: np.ndarray) -> np.ndarray:
        """Map rank features ``(N, FEATURE_LEN)`` to the bank's reduced space, unit rows."""
        if self.proj is None:
            return x
        y = np.einsum("...i,ij->...j", x, self.proj)  # no BLAS threads
        return (y / (np.linalg.norm(y, axis=-1, keepdims=True) + 1e-9)).astype(np.float32)


def build_glyph_bank(seed: int = 6, per_drawing: int = 6, style: int = 0) -> GlyphBank:
    """Draw and augment every rank and suit glyph; return the :class:`GlyphBank`."""
    rng = np.random.default_rng(seed)
    rx, ry = [], []
    for i, label in enumerate(RANK_LABELS):
        for im in draw_rank(label, style):
            for a in _augment(im, rng, per_drawing):
                rx.append(glyph_feature(a))
                ry.append(i)
    sx, sy = [], []
    rng = np.random.default_rng(seed + 1)  # suits do not change when a rank drawing is added
    for i, suit in enumerate(SUIT_LABELS):
        for v in np.linspace(-1, 1, 5):
            for a in _augment(draw_suit(suit, 96, float(v)), rng, 12):
                sx.append(glyph_feature(a))
                sy.append(i)
    rx_arr = np.array(rx, np.float32)
    # principal directions of the rank glyphs: matching in PROJ_DIM dimensions is ~10x faster
    _, _, vt = np.linalg.svd(rx_arr, full_matrices=False)
    proj = vt[:PROJ_DIM].T.astype(np.float32)
    bank = GlyphBank(rx_arr, np.array(ry, np.int16), np.array(sx, np.float32), np.array(sy, np.int16), proj)
    return GlyphBank(bank.project(rx_arr), bank.rank_y, bank.suit_x, bank.suit_y, proj)


def load_glyph_bank(path: str | os.PathLike | None = None) -> GlyphBank:
    """Load the shipped bank (``vision/data/glyphs.npz``); build a Hershey-only one if absent.

    Raises:
        ValueError: the file exists but is not a glyph bank.
    """
    p = Path(path) if path is not None else BANK_PATH
    if not p.exists():
        return build_glyph_bank(style=1)
    try:
        with np.load(p) as z:
            return GlyphBank(z["rank_x"].astype(np.float32), z["rank_y"].astype(np.int16),
                             z["suit_x"].astype(np.float32), z["suit_y"].astype(np.int16),
                             z["proj"].astype(np.float32) if "proj" in z.files else None)
    except (KeyError, OSError, ValueError) as e:
        raise ValueError(f"vision: {p} is not a glyph bank: {e}") from e


