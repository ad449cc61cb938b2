"""The board region of the camera frame, set by calibration (issue 6).

A calibration file is JSON::

    {"frame": [1280, 720], "board": [[x, y], [x, y], [x, y], [x, y]]}

``frame`` is the frame size (width, height) the quad was drawn on; ``board`` the quad in
those pixels, clockwise. :func:`calibrate_from_image` finds the cards laid out on the board
in a photo and returns the quad around them with a margin.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

import cv2
import numpy as np

from vision.detect import find_cards

__all__ = ["BoardRegion", "CalibrationError", "calibrate_from_image", "check_board", "load_region"]


class CalibrationError(ValueError):
    """A calibration file or image is unusable (names the file and the problem)."""


MIN_AREA = 0.001  # a board smaller than this fraction of the frame holds no card


def check_board(quad: object, frame: object) -> tuple[np.ndarray, tuple[int, int]]:
    """Check a board quad and its frame size; return them as ``((4, 2) float32, (w, h))``.

    The frame is two positive whole numbers of pixels; the board four finite points, each
    inside the frame (edges included), forming a convex quad (either way round: no bow-tie,
    no three points in a line) that encloses at least ``MIN_AREA`` of the frame.

    Raises:
        CalibrationError: the first problem found, in words.
    """
    try:
        if isinstance(frame, (str, bytes)):
            raise TypeError
        fw, fh = (float(v) for v in frame)  # type: ignore[attr-defined]  # any pair; TypeError otherwise
    except (TypeError, ValueError):
        raise CalibrationError(f"frame size must be two numbers W,H, got {frame!r}") from None
    if not (np.isfinite(fw) and np.isfinite(fh)) or fw != int(fw) or fh != int(fh) or fw < 1 or fh < 1:
        raise CalibrationError(f"frame size must be two positive whole numbers of pixels, got {fw:g}x{fh:g}")
    w, h = int(fw), int(fh)
    try:
        q = np.asarray(quad, np.float64)
    except (TypeError, ValueError):
        raise CalibrationError("board must be 4 [x, y] points") from None
    if q.shape != (4, 2):
        raise CalibrationError(f"board must be 4 [x, y] points, got an array of shape {q.shape}")
    if not np.isfinite(q).all():
        raise CalibrationError("board points must be finite numbers (no NaN or infinity)")
    out = [f"({x:g}, {y:g})" for x, y in q if not (0 <= x <= w and 0 <= y <= h)]
    if out:
        raise CalibrationError(f"board point{'s' if len(out) > 1 else ''} {', '.join(out)} "
                               f"outside the {w}x{h} frame")
    edges = np.roll(q, -1, axis=0) - q
    turns = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
    area = abs(float(cv2.contourArea(q.astype(np.float32))))
    if not np.any(turns):
        raise CalibrationError("board has no area")
    if not ((turns > 0).all() or (turns < 0).all()):
        what = "has three points in a line" if not turns.all() else "crosses itself or is not convex"
        raise CalibrationError(f"board {what}: give its 4 corners in order round the board")
    if area < MIN_AREA * w * h:
        raise CalibrationError(f"board encloses {area:.0f} square pixels, less than {MIN_AREA:.1%} "
                               f"of the {w}x{h} frame: too small to hold a card")
    return q.astype(np.float32), (w, h)


@dataclass(frozen=True)
class BoardRegion:
    """The board quad ``(4, 2)`` float32 in pixels of frames of size ``frame`` (w, h).

    Raises:
        CalibrationError: the quad or frame size fails :func:`check_board`.
    """

    quad: np.ndarray
    frame: tuple[int, int]

    def __post_init__(self) -> None:
        quad, frame = check_board(self.quad, self.frame)
        object.__setattr__(self, "quad", quad)
        object.__setattr__(self, "frame", frame)

    def check_frame(self, image: object) -> None:
        """Raise :class:`CalibrationError` unless ``image`` has this region's frame size."""
        if not isinstance(image, np.ndarray) or image.ndim < 2:
            raise CalibrationError("vision: the frame is not an image")
        h, w = image.shape[:2]
        if (w, h) != tuple(self.frame):
            raise CalibrationError(f"vision: frame is {w}x{h} but the board was calibrated on "
                                   f"{self.frame[0]}x{self.frame[1]}: run `livetable vision calibrate` again")

    def to_json(self) -> str:
        """Return the calibration as JSON text."""
        board = [[round(float(x), 1), round(float(y), 1)] for x, y in self.quad]
        return json.dumps({"frame": list(self.frame), "board": board})

    def save(self, path: str | os.PathLike) -> None:
        """Write the calibration file."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_json() + "\n")

    @classmethod
    def load(cls, path: str | os.PathLike) -> "BoardRegion":
        """Read a calibration file.

        Raises:
            CalibrationError: missing file, bad JSON, or a board that fails
                :func:`check_board` (not 4 finite points, outside the frame, not convex,
                too small).
        """
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            raise CalibrationError(f"vision: calibration {path}: {e}") from e
        if not isinstance(data, dict) or "board" not in data or "frame" not in data:
            raise CalibrationError(f"vision: calibration {path}: want an object with \"frame\" and \"board\"")
        try:
            return cls(data["board"], data["frame"])
        except CalibrationError as e:
            raise CalibrationError(f"vision: calibration {path}: {e}") from e


def calibrate_from_image(image: np.ndarray, margin: float = 0.6) -> BoardRegion:
    """Return the board region around the cards laid out in ``image``.

    ``margin`` widens the box by that fraction of a card's size on each side.

    Raises:
        CalibrationError: no card found in the image.
    """
    quads = find_cards(image)
    if not quads:
        raise CalibrationError("vision: no card found: lay the board cards face up in view")
    pts = np.concatenate(quads)
    size = float(np.median([np.linalg.norm(q[2] - q[1]) for q in quads]))
    x0, y0 = pts.min(axis=0) - margin * size
    x1, y1 = pts.max(axis=0) + margin * size
    h, w = image.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w - 1, x1), min(h - 1, y1)
    quad = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    return BoardRegion(quad, (w, h))


def load_region(path: str | os.PathLike) -> BoardRegion:
    """Return the :class:`BoardRegion` of a calibration file (``BoardRegion.load``).

    Raises:
        CalibrationError: missing file, bad JSON, or a quad that is not 4 points.
    """
    return BoardRegion.load(path)
