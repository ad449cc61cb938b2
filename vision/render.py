"""Synthetic board frames: what ``livetable simulate`` shows the recognizer (issue 6).

:func:`render_board` draws the given cards face up in a row on a plain table colour, each
with its rank and suit index in two opposite corners (Hershey font, drawn pips) and a centre
pip (number cards and aces) or a framed coloured picture (J, Q, K). The recognizer reads
these back; nothing here comes from a photograph.
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

import cv2
import numpy as np

from controller.engine.cards import CardLike, parse_card
from vision.glyphs import draw_suit

__all__ = ["render_board", "render_card", "TABLES"]

#: Named table colours (BGR).
TABLES = {
    "green": (60, 120, 30),
    "blue": (130, 70, 20),
    "red": (40, 30, 140),
    "dark": (30, 30, 30),
    "wood": (60, 105, 160),
    "light": (180, 205, 220),
}

_RED = (40, 30, 200)
_BLACK = (25, 25, 25)


def _paste(dst: np.ndarray, src: np.ndarray, x: int, y: int) -> None:
    h = min(src.shape[0], dst.shape[0] - y)
    w = min(src.shape[1], dst.shape[1] - x)
    if h > 0 and w > 0:
        dst[y:y + h, x:x + w] = np.maximum(dst[y:y + h, x:x + w], src[:h, :w])


def render_card(card: CardLike, width: int = 180) -> np.ndarray:
    """Return an upright card face ``(round(width * 1.4), width, 3)`` uint8 BGR.

    Raises:
        CardError: ``card`` is not a card (G-5).
    """
    c = parse_card(card)
    w, h = width, int(round(width * 1.4))
    im = np.full((h, w, 3), 245, np.uint8)
    color = _RED if c.suit in "dh" else _BLACK
    label = "10" if c.rank == 10 else str(c)[0]
    corner = np.full((int(h * 0.3), int(w * 0.2)), 0, np.uint8)
    fs = w / 150.0
    thick = max(2, int(round(w / 60)))
    (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_DUPLEX, fs, thick)
    scale_x = min(1.0, (corner.shape[1] - 4) / max(tw, 1))
    txt: np.ndarray = np.zeros((th + 8, tw + 8), np.uint8)
    cv2.putText(txt, label, (4, th + 4), cv2.FONT_HERSHEY_DUPLEX, fs, 255, thick, cv2.LINE_AA)
    txt = cv2.resize(txt, (max(1, int(txt.shape[1] * scale_x)), txt.shape[0]))
    _paste(corner, txt, 2, 2)
    ps = int(w * 0.13)
    pip = cv2.resize(draw_suit(c.suit, 96), (ps, ps), interpolation=cv2.INTER_AREA)
    y0 = 2 + txt.shape[0] + int(w * 0.02)
    x0 = max(0, (txt.shape[1] - ps) // 2 + 2)
    _paste(corner, pip, x0, y0)
    ox, oy = int(w * 0.04), int(h * 0.03)
    for flip in (False, True):
        target = im if not flip else im[::-1, ::-1]
        region = target[oy:oy + corner.shape[0], ox:ox + corner.shape[1]]
        a = (corner.astype(np.float32) / 255.0)[:, :, None]
        region[:] = (region * (1 - a) + np.array(color, np.float32) * a).astype(np.uint8)
    if 11 <= c.rank <= 13:  # a court card: a framed picture in yellow, blue and the suit's colour
        x0, y0, x1, y1 = int(w * 0.24), int(h * 0.16), int(w * 0.76), int(h * 0.84)
        panel = np.zeros((y1 - y0, x1 - x0, 3), np.uint8)
        panel[:] = (40, 190, 235)
        ph, pw = panel.shape[:2]
        step = max(4, w // 12)
        for k in range(-ph, pw, step):  # a busy robe: diagonal stripes
            cv2.line(panel, (k, ph), (k + ph, 0), (170, 90, 30), max(1, w // 40))
        im[y0:y1, x0:x1] = panel
        cv2.circle(im, ((x0 + x1) // 2, y0 + int(h * 0.14)), int(w * 0.1), color, -1)
        cv2.circle(im, ((x0 + x1) // 2, y1 - int(h * 0.14)), int(w * 0.1), color, -1)
        cv2.rectangle(im, (x0, y0), (x1, y1), (30, 30, 30), max(1, w // 100))
    else:
        big = int(w * 0.4)
        bp = cv2.resize(draw_suit(c.suit, 96), (big, big), interpolation=cv2.INTER_AREA)
        cy, cx = (h - big) // 2, (w - big) // 2
        reg = im[cy:cy + big, cx:cx + big]
        a = (bp.astype(np.float32) / 255.0)[:, :, None]
        reg[:] = (reg * (1 - a) + np.array(color, np.float32) * a).astype(np.uint8)
    cv2.rectangle(im, (0, 0), (w - 1, h - 1), (200, 200, 200), 1)
    return im


def render_board(cards: Iterable[CardLike], size: Sequence[int] = (1280, 720),
                 background: str | Sequence[int] = "green", angle: float = 0.0,
                 noise: float = 0.0, seed: int = 0, gap: float = 0.3,
                 face: Callable[[CardLike, int], np.ndarray] = render_card) -> np.ndarray:
    """Return a frame ``(height, width, 3)`` uint8 BGR with ``cards`` face up in a row.

    ``size`` is ``(width, height)`` pixels; ``background`` a :data:`TABLES` name or a BGR
    triple; ``angle`` rotates each card by that many degrees; ``noise`` adds Gaussian noise
    of that standard deviation (grey levels); ``gap`` is the space between cards as a
    fraction of a card's width (0 = touching); ``face(card, width)`` draws a card's face
    (:func:`render_card`, or a cache of its faces: the simulated camera's, issue 21).

    Memory: the frame and, while a card is laid, two frame-sized buffers (some 3 frames in
    all, 8 MB at 1280x720); the felt's light is computed for one row (issue 21: a grid of
    the whole frame in float64 took some 60 MB at 1280x720 while a frame was drawn).

    Raises:
        CardError: a card is not a card. ValueError: unknown table name.
    """
    cs = [parse_card(c) for c in cards]
    wpx, hpx = int(size[0]), int(size[1])
    if isinstance(background, str):
        if background not in TABLES:
            raise ValueError(f"vision: unknown table colour {background!r}; one of {sorted(TABLES)}")
        bg = TABLES[background]
    else:
        bg = tuple(int(v) for v in background)  # type: ignore[assignment]  # (B, G, R) as given
    rng = np.random.default_rng(seed)
    # gentle uneven light, left to right: one row, repeated down the frame
    light = 0.85 + 0.15 * (np.arange(wpx) / max(wpx - 1, 1))
    row = np.clip(np.array(bg, np.uint8)[None, :] * light[:, None], 0, 255).astype(np.uint8)
    frame = np.empty((hpx, wpx, 3), np.uint8)
    frame[:] = row[None, :, :]
    if cs:
        n = max(len(cs), 3)
        cw = int(min(wpx / (n * 1.35), hpx / 1.4 / 1.5))
        gap = int(cw * gap)
        total = len(cs) * cw + (len(cs) - 1) * gap
        x = (wpx - total) // 2
        ch = int(round(cw * 1.4))
        y = (hpx - ch) // 2
        for c in cs:
            img = face(c, cw)
            src = np.array([[0, 0], [cw - 1, 0], [cw - 1, ch - 1], [0, ch - 1]], np.float32)
            ctr = np.array([x + cw / 2, y + ch / 2], np.float32)
            t = np.deg2rad(angle)
            rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]], np.float32)
            dst = (src - np.array([cw / 2, ch / 2], np.float32)) @ rot.T + ctr
            m = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
            warped = cv2.warpPerspective(img, m, (wpx, hpx))
            mask = cv2.warpPerspective(np.full((ch, cw), 255, np.uint8), m, (wpx, hpx))
            frame[mask > 127] = warped[mask > 127]
            x += cw + gap
    if noise > 0:
        frame = np.clip(frame.astype(np.float32) + rng.normal(0, noise, frame.shape), 0, 255).astype(np.uint8)
    return frame
