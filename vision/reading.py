"""What the board recognizer returns, and the frames it takes (issue 6).

:class:`Reading` is one card-shaped object of a frame (named, or unsure); :class:`CornerRead`
and :class:`PipRead` what one corner index and the centre pips of a card say, which
:func:`vision.decide.decide` weighs; :func:`as_frame` checks a frame (:class:`FrameError`).
Moved out of :mod:`vision.recognizer` (issue 22): :mod:`vision.corners` needs them too, and
the recognizer imports that module.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from controller.engine.cards import Card

__all__ = ["Reading", "FrameError", "CornerRead", "PipRead", "as_frame", "INDEX_STRIP", "PICTURE_SEEN"]


#: ``Reading.why`` of a card named on half of a row of overlapping cards from its index strip
#: alone: its outline also covers other cards (see ``Recognizer._half_is_whole``)
INDEX_STRIP = "index strip"


#: ``Reading.why`` ending of a card whose index names a number card over a court picture
#: (a foreign jack's "B" read as 8): a corner inside it must not name it either
PICTURE_SEEN = "picture seen"


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
    rank_scores: np.ndarray | None = field(default=None, repr=False)  # per RANK_LABELS
    rank_feat: np.ndarray | None = field(default=None, repr=False)
    suit_feat: np.ndarray | None = field(default=None, repr=False)
    #: the suit whose shape the pip matches best of all four, whatever the ink colour
    shape_suit: str | None = None
    suit_mask: np.ndarray | None = field(default=None, repr=False)  # the pip's ink, uint8
    rank_mask: np.ndarray | None = field(default=None, repr=False)  # the rank's ink, uint8

    def card(self) -> str | None:
        """Return ``"Td"``-style text, or None if rank or suit is missing."""
        if self.rank is None or self.suit is None:
            return None
        return ("T" if self.rank == "10" else self.rank) + self.suit


@dataclass
class PipRead:
    """The centre pips: how many equal large pips, their area (fraction of the card), suit."""

    count: int = 0
    area: float = 0.0
    suit: str | None = None
    suit_margin: float = 0.0
    red: bool | None = None
    picture: float = 0.0  # fraction of the card's centre in non-red colours (court cards)
    shape_suit: str | None = None  # the suit the pip's shape matches best of all four


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
