"""Ink on a card's paper: the cut between ink and paper, the ink's colour, and the shapes
the recognizer tells apart on an ink mask (a ring, the "10") (issue 6).

Pure functions of image arrays (OpenCV, NumPy). Moved out of :mod:`vision.recognizer`
(issue 22): :mod:`vision.corners` and :mod:`vision.enroll` cut and colour index glyphs the
same way, and the recognizer imports :mod:`vision.corners`.
"""

from __future__ import annotations

import cv2
import numpy as np


LOCAL_CUT = 0.6  # the ink cut of :func:`_local_ink`, a fraction of Otsu's threshold


def _white_balance(card: np.ndarray) -> np.ndarray:
    """Scale each channel so that the paper (the brightest quarter) becomes grey 230."""
    h, w = card.shape[:2]
    if h % 2 == 0 and w % 2 == 0 and h and w:  # every other pixel; NumPy's strided copy is slower
        small = cv2.resize(card, (w // 2, h // 2), interpolation=cv2.INTER_NEAREST)
    else:
        small = np.ascontiguousarray(card[::2, ::2])
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    hist = cv2.calcHist([grey], [0], None, [256], [0, 256]).ravel().cumsum()
    thr = int(np.searchsorted(hist, 0.75 * hist[-1]))
    sel = cv2.compare(grey, thr, cv2.CMP_GE)  # type: ignore[call-overload]  # OpenCV's stubs take no int scalar
    ref = np.array(cv2.mean(small, mask=sel)[:3], np.float32) if cv2.countNonZero(sel) \
        else np.array([200, 200, 200], np.float32)
    ref = np.maximum(ref, 30.0)
    ramp = np.arange(256, dtype=np.float32)
    lut = np.clip(ramp[:, None] * (230.0 / ref)[None, :], 0, 255).astype(np.uint8)
    return cv2.LUT(card, lut.reshape(256, 1, 3))


def _ink(card_wb: np.ndarray, scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Return (ink mask uint8 0/255, red chroma int16) of a white-balanced card crop.

    Ink is whatever is darker than the paper or redder than it; the cut between ink and
    paper is Otsu's on that "inkness" times ``scale``, never below a floor so blank paper
    stays blank.
    """
    inkness, chroma, otsu = _inkness(card_wb)
    return _ink_cut(inkness, otsu, scale), chroma


def _inkness(card_wb: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Return (inkness uint8, red chroma int16, Otsu's threshold of the inkness) of a crop.

    The part of :func:`_ink` that does not depend on the cut, so that several cuts of one
    corner share it.
    """
    b, g, r = (card_wb[:, :, i].astype(np.int16) for i in range(3))
    grey = (b + g + r) // 3
    chroma = r - np.maximum(g, b)
    inkness = np.clip(np.maximum(230 - grey, (chroma * 3) // 2), 0, 255).astype(np.uint8)
    t, _ = cv2.threshold(inkness, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return inkness, chroma, float(t)


def _local_ink(card_wb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Like :func:`_ink`, but the darkness is measured against the paper's local level.

    The local level is the brightest grey within a pip's size (a 41 px disc on the
    ``(H, W)`` card), smoothed: under glare the paper and the pips there are both lighter,
    and a single cut for the card breaks those pips up. The cut is 0.6 of Otsu's.
    """
    b, g, r = (card_wb[:, :, i].astype(np.int16) for i in range(3))
    grey = ((b + g + r) // 3).astype(np.uint8)
    chroma = r - np.maximum(g, b)
    paper = cv2.blur(cv2.dilate(grey, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (41, 41))), (21, 21))
    inkness = np.clip(np.maximum(paper.astype(np.int16) - grey, (chroma * 3) // 2), 0, 255).astype(np.uint8)
    t, _ = cv2.threshold(inkness, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return _ink_cut(inkness, float(t), LOCAL_CUT), chroma


def _ink_cut(inkness: np.ndarray, otsu: float, scale: float) -> np.ndarray:
    """The ink mask (uint8 0/255) of ``inkness`` cut at ``scale`` times Otsu's threshold."""
    t = max(otsu * scale, 45.0 * min(scale * 1.4, 1.0))
    # 8-bit thresholding compares with floor(t): the same mask as inkness > t
    return cv2.threshold(inkness, t, 255, cv2.THRESH_BINARY)[1]


#: ink whose red chroma (red minus the larger of green and blue) has a median below this is
#: neither red nor black: blue or green (a four-colour deck, or a camera that swaps red
#: and blue); never read as black (dev photos' black ink: down to -66; swapped red: -150)
COOL_INK = -100


def _colourless(frame: np.ndarray) -> bool:
    """True when ``frame`` ``(H, W, 3)`` is grey (every channel alike wherever sampled): a
    mono camera, which cannot tell red ink from black."""
    sub = frame[::8, ::8].astype(np.int16)
    return int(np.abs(sub[:, :, 0] - sub[:, :, 1]).max(initial=0)) < 4 and \
        int(np.abs(sub[:, :, 1] - sub[:, :, 2]).max(initial=0)) < 4


def _median(x: np.ndarray) -> float:
    """``float(np.median(x))``, cheaper for an integer array: the middle value by a partial
    sort, or the mean of the two middle values (exact: a sum of two integers halved)."""
    x = x.ravel()
    n = x.size
    if n == 0 or x.dtype.kind not in "iu":
        return float(np.median(x))
    k = n // 2
    if n % 2:
        return float(np.partition(x, k)[k])
    p = np.partition(x, (k - 1, k))
    return (float(p[k - 1]) + float(p[k])) / 2


def _ink_red(chroma: np.ndarray, red_at: float) -> bool | None:
    """The ink colour of a glyph from its pixels' red chroma (int16, any shape): True red,
    False black, None when it is neither (blue or green ink, :data:`COOL_INK`)."""
    med = _median(chroma)
    if med < COOL_INK:
        return None
    return med > red_at


def _colour_pixels(rmask: np.ndarray | None, smask: np.ndarray | None) -> np.ndarray | None:
    """The pixels (bool mask) whose red chroma gives an index's ink colour: the solid pip's
    when it has 30 or more (a pale red rank's thin strokes are diluted by the paper round
    them; dev cuts: pip medians stay >= 31 red, <= 20 black), else the rank's and the pip's
    together; None when fewer than 10 pixels."""
    if smask is not None and cv2.countNonZero(smask) >= 30:
        return smask > 0
    pix = (rmask > 0) if rmask is not None else None
    if smask is not None:
        pix = (smask > 0) if pix is None else (pix | (smask > 0))
    return pix if pix is not None and int(pix.sum()) >= 10 else None


def _has_hole(mask: np.ndarray, frac: float = 0.08) -> bool:
    """True when the ink of ``mask`` (uint8, ink > 0) encloses paper of more than ``frac``
    of its own area: a ring such as an "O" or a "0". A suit pip is solid."""
    area = cv2.countNonZero(mask)
    if area == 0:
        return False
    cs, hier = cv2.findContours((mask > 0).astype(np.uint8), cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is None:
        return False
    holes = sum(cv2.contourArea(c) for c, hh in zip(cs, hier[0]) if hh[3] >= 0)
    return holes > frac * area


def _looks_like_ten(rmask: np.ndarray) -> bool:
    """True when a rank mask is a narrow bar beside a ring of the same height ("10").

    No other rank prints as two side-by-side parts whose right part encloses a hole.
    """
    n, lab, st, _ = cv2.connectedComponentsWithStats(rmask, connectivity=8, ltype=cv2.CV_16U)
    parts = [st[i] for i in range(1, n) if st[i][4] >= 8]
    if len(parts) != 2:
        return False
    left, right = sorted(parts, key=lambda p: p[0])
    lx, ly, lw, lh, _ = left
    rx, ry, rw, rh, _ = right
    if min(lh, rh) < 0.75 * max(lh, rh) or lw > 0.45 * lh or rx < lx + lw - 1:
        return False
    if min(ly + lh, ry + rh) - max(ly, ry) < 0.7 * max(lh, rh):
        return False
    ring = (rmask[ry:ry + rh, rx:rx + rw] > 0).astype(np.uint8)
    cs, hier = cv2.findContours(ring, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is None:
        return False
    holes = [c for c, h in zip(cs, hier[0]) if h[3] >= 0 and cv2.contourArea(c) >= 0.12 * rw * rh]
    return len(holes) == 1 and rw <= 1.1 * rh
