"""A small glyph classifier for corner indices: rank characters, suit pips, or neither.

The network (three 3x3 convolutions, ~60k weights, ``vision/data/index_net.onnx``, ~250 kB)
is trained by ``tools/vision/train_index_net.py`` with torch on synthetic glyphs only (the
fonts and pip shapes of :mod:`vision.glyphs`, heavily augmented; never a photograph) and
exported to ONNX, so the table runs it with OpenCV's ``cv2.dnn`` and needs no torch.

Classes (:data:`CLASSES`): the 13 ranks as printed (``A 2..9 10 J Q K``), the 4 suits
(``c d h s``), and ``-`` for anything else (pieces of pips, a character upside down or on
its side, blobs); that last class lets the corner reader refuse what is not an index.

Shapes: a glyph mask is a ``uint8`` ``(h, w)`` array, ink > 0; :func:`net_input` turns it
into a ``(SIZE, SIZE)`` float32 image in ``[0, 1]`` (the ink's box scaled to fit, aspect
kept, centred).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

__all__ = ["CLASSES", "SIZE", "NET_PATH", "IndexNet", "net_input"]

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = ["c", "d", "h", "s"]
#: the network's output classes, in order
CLASSES = RANKS + SUITS + ["-"]
SIZE = 32
_FIT = 28  # the glyph's longer side in the input, pixels
NET_PATH = Path(__file__).resolve().parent / "data" / "index_net.onnx"


def net_input(mask: np.ndarray) -> np.ndarray:
    """Return the network input for one glyph mask ``(h, w)`` uint8 (ink > 0).

    The ink's bounding box is scaled (aspect kept) so its longer side is 28 px and centred
    in a 32x32 float32 image, ink 1.0.

    Raises:
        ValueError: the mask has no ink.
    """
    # the box of the non-zero pixels (OpenCV's, for uint8, is cheaper than np.nonzero)
    x, y, w, h = cv2.boundingRect(mask if mask.dtype == np.uint8 else (mask != 0).astype(np.uint8))
    if w == 0:
        raise ValueError("vision: empty glyph")
    crop = (mask[y:y + h, x:x + w] > 0).astype(np.float32)
    k = _FIT / max(h, w)
    nw, nh = max(1, int(round(w * k))), max(1, int(round(h * k)))
    small = cv2.resize(crop, (nw, nh), interpolation=cv2.INTER_AREA)
    out = np.zeros((SIZE, SIZE), np.float32)
    x0, y0 = (SIZE - nw) // 2, (SIZE - nh) // 2
    out[y0:y0 + nh, x0:x0 + nw] = small
    return out


class IndexNet:
    """Run the shipped glyph classifier with ``cv2.dnn`` (no torch at run time).

    Args:
        path: the ONNX file; ``vision/data/index_net.onnx`` by default.

    Raises:
        ValueError: the file is missing or is not a network OpenCV can load.
    """

    def __init__(self, path: str | os.PathLike | None = None) -> None:
        p = Path(path) if path is not None else NET_PATH
        if not p.exists():
            raise ValueError(f"vision: {p} is missing (tools/vision/train_index_net.py writes it)")
        try:
            self.net = cv2.dnn.readNetFromONNX(str(p))
        except cv2.error as e:
            raise ValueError(f"vision: {p} is not a network OpenCV can load: {e}") from e

    def probs(self, masks: Sequence[np.ndarray]) -> np.ndarray:
        """Return ``(len(masks), len(CLASSES))`` class probabilities (rows sum to 1)."""
        if not masks:
            return np.zeros((0, len(CLASSES)), np.float32)
        x = np.stack([net_input(m) for m in masks])[:, None, :, :]
        self.net.setInput(x)
        logits = self.net.forward().reshape(len(masks), len(CLASSES)).astype(np.float64)
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
