"""An index pip merged with the big pip printed beside it (French designs: paris, gm-paris,
guyenne-classic; issue 6, unseen designs). The corner is drawn here, not taken from a deck."""

from __future__ import annotations

import cv2
import numpy as np

from vision.glyphs import draw_suit
from vision.recognizer import CH, CW, Recognizer


def _corner(gap: int) -> np.ndarray:
    """A CH x CW ink mask: a "4" at the top left, a small club under it, and a big club
    ``gap`` px to its right (negative: overlapping), cut by the corner's right edge."""
    ink = np.zeros((CH, CW), np.uint8)
    cv2.putText(ink, "4", (6, 38), cv2.FONT_HERSHEY_DUPLEX, 1.2, 255, 3, cv2.LINE_AA)
    small = cv2.resize(draw_suit("c", 96), (24, 24), interpolation=cv2.INTER_AREA)
    ink[44:68, 5:29] = np.maximum(ink[44:68, 5:29], small)
    big = cv2.resize(draw_suit("c", 96), (48, 48), interpolation=cv2.INTER_AREA)
    x = 29 + gap
    w = min(48, CW - x)
    ink[34:82, x:x + w] = np.maximum(ink[34:82, x:x + w], big[:, :w])
    return (ink > 127).astype(np.uint8) * 255


def test_an_index_pip_touching_a_big_pip_beside_it_is_cut_at_the_neck():
    ink = _corner(gap=-10)
    n, _, st, _ = cv2.connectedComponentsWithStats(ink)
    assert n == 3  # the rank, and the two clubs in one shape
    chroma = np.zeros(ink.shape, np.int16)
    rmask, smask, red = Recognizer._cut_index(ink.copy(), chroma, CW, CH)
    assert rmask is not None and smask is not None and red is False
    ys, xs = np.nonzero(smask)
    # the small club, not the big one: it ends near the join, well left of the big pip's middle
    assert xs.max() <= 32 and xs.min() <= 8 and 36 <= ys.min() and ys.max() <= 72


def test_one_broad_shape_under_the_rank_is_not_cut():
    # no narrow join: a broad block under the rank running out of the corner is no pip
    ink = np.zeros((CH, CW), np.uint8)
    cv2.putText(ink, "4", (6, 38), cv2.FONT_HERSHEY_DUPLEX, 1.2, 255, 3, cv2.LINE_AA)
    ink[44:72, 4:CW] = 255
    chroma = np.zeros(ink.shape, np.int16)
    _, smask, _ = Recognizer._cut_index(ink.copy(), chroma, CW, CH)
    assert smask is None
