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

__all__ = ["BoardRegion", "CalibrationError", "calibrate_from_image", "load_region"]


class CalibrationError(ValueError):
    """A calibration file or image is unusable (names the file and the problem)."""


@dataclass(frozen=True)
class BoardRegion:
    """The board quad ``(4, 2)`` float32 in pixels of frames of size ``frame`` (w, h)."""

    quad: np.ndarray
    frame: tuple[int, int]

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
        return json.dumps({"frame": list(self.frame), "board": [[round(float(x), 1), round(float(y), 1)] for x, y in self.quad]})

    def save(self, path: str | os.PathLike) -> None:
        """Write the calibration file."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_json() + "\n")

    @classmethod
    def load(cls, path: str | os.PathLike) -> "BoardRegion":
        """Read a calibration file.

        Raises:
            CalibrationError: missing file, bad JSON, or a quad that is not 4 points.
        """
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            quad = np.asarray(data["board"], np.float32)
            frame = (int(data["frame"][0]), int(data["frame"][1]))
        except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
            raise CalibrationError(f"vision: calibration {path}: {e}") from e
        if quad.shape != (4, 2) or cv2.contourArea(quad) <= 0 or min(frame) <= 0:
            raise CalibrationError(f"vision: calibration {path}: board must be 4 [x, y] points of positive area")
        return cls(quad, frame)


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
