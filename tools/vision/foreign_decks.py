"""Score the recognizer on table frames composed from deck designs it has never seen.

Usage: .venv/bin/python tools/vision/foreign_decks.py DECK_DIR [DECK_DIR...]
       [--boards 80] [--singles 60] [--seed 7] [--no-corners] [--width LO,HI] [--save DIR]
       [--wrong DIR] [-v]

Each DECK_DIR holds one design's card faces as images named by card, ``As.png``,
``Td.png``, ``9h.png`` ... (any format OpenCV reads; PNG with alpha for rounded corners
is best). The user brings the faces (rendered from a freely licensed SVG deck, say); this
tool downloads nothing and ships no faces. For each design it composes, seeded,
``--boards`` frames of a board row (3-5 cards) and ``--singles`` frames of one card:
1280x720, a felt- or wood-like table (green, blue, red, brown or grey, with a gradient,
blotches and noise), cards 110-180 px wide (``--width LO,HI``: 40,70 checks that small,
far cards are never read wrong), each turned up to +-8 degrees and half of them
upside down, a soft shadow, uneven light, a mild perspective of the whole frame, blur,
sensor noise and sometimes JPEG (quality 60-95). A face drawn without its paper (ink on a
transparent canvas) is laid on a white card the size of its canvas.

The recognizer reads every frame as ``livetable recognize`` does (``Recognizer()`` with the
corner pass on; ``--no-corners`` turns it off) and each frame is scored as
``tools/vision/evaluate.py`` scores a photo (multiset match: correct, wrong, missed).
Prints one line per design and a total; ``--wrong DIR`` writes each frame holding a wrong
card there with a JSON line per wrong frame (truth, readings, their ``why``) on stdout
under ``-v``; ``--save DIR`` writes every frame and a ``labels.csv`` (file,cards).
The frames are a stress check of "never a wrong card" on other index fonts and pip
shapes, not a measure of how many cards a real camera will name.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from tools.vision.evaluate import score_image  # noqa: E402
from vision.recognizer import Recognizer  # noqa: E402

CARDS = [r + s for s in "cdhs" for r in "A23456789TJQK"]
#: table colours (BGR): greens, blues, reds, wood browns, grey
FELTS = [(40, 110, 35), (30, 90, 30), (120, 70, 25), (95, 40, 20), (35, 35, 140), (30, 60, 130),
         (60, 100, 150), (40, 70, 100), (70, 70, 70)]
FRAME = (720, 1280)


def load_face(path: Path) -> np.ndarray:
    """Read one card face; return it as BGRA uint8 cropped to the card, on white paper.

    Alpha is the card's filled outline (the convex hull of the drawn pixels; the whole
    canvas with rounded corners when the hull covers less than 85% of it, a face drawn
    without its paper). Raises ``ValueError`` when the file is not an image.
    """
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise ValueError(f"{path}: not an image")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
    if img.shape[2] == 3:
        img = np.dstack([img, np.full(img.shape[:2], 255, np.uint8)])
    a = img[:, :, 3]
    mask = np.zeros_like(a)
    pts = cv2.findNonZero((a > 10).astype(np.uint8))
    if pts is not None:
        cv2.fillConvexPoly(mask, cv2.convexHull(pts), 255)
    if cv2.countNonZero(mask) < 0.85 * a.size:
        h, w = a.shape
        r = max(2, int(0.05 * min(h, w)))
        mask[:] = 0
        cv2.rectangle(mask, (r, 0), (w - 1 - r, h - 1), 255, -1)
        cv2.rectangle(mask, (0, r), (w - 1, h - 1 - r), 255, -1)
        for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
            cv2.circle(mask, (cx, cy), r, 255, -1)
    af = a.astype(np.float32)[..., None] / 255
    bgr = img[:, :, :3].astype(np.float32) * af + 255 * (1 - af)
    x, y, w, h = cv2.boundingRect(cv2.findNonZero(mask))
    return np.dstack([bgr.astype(np.uint8), mask])[y:y + h, x:x + w]


def load_deck(folder: Path) -> dict[str, np.ndarray]:
    """Faces of one design: ``{"As": BGRA, ...}`` for every ``<card>.<ext>`` in ``folder``.

    Raises ``ValueError`` when the folder holds no face named by a card.
    """
    faces = {p.stem: load_face(p) for p in sorted(folder.iterdir()) if p.stem in CARDS and p.is_file()}
    if not faces:
        raise ValueError(f"{folder}: no card faces named like As.png, Td.png")
    return faces


def table(rng: random.Random, size: tuple[int, int] = FRAME) -> np.ndarray:
    """A table top ``size`` (h, w) as float32 BGR: a colour of :data:`FELTS`, a gradient,
    low-frequency blotches, sometimes wood-like streaks, and noise."""
    h, w = size
    base = np.array(rng.choice(FELTS), np.float32) * rng.uniform(0.75, 1.25)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, 2 * np.pi)
    grad = 1 + rng.uniform(0.1, 0.35) * (np.cos(ang) * (xx / w - .5) + np.sin(ang) * (yy / h - .5))
    nr = np.random.default_rng(rng.randrange(1 << 30))
    low = cv2.resize(nr.normal(0, 1, (h // 40, w // 40)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    img = base[None, None, :] * (grad * (1 + 0.06 * low))[..., None]
    if rng.random() < 0.3:
        streak = cv2.resize(nr.normal(0, 1, (h // 3, 4)).astype(np.float32), (w, h))
        img *= (1 + 0.08 * streak)[..., None]
    img += nr.normal(0, rng.uniform(3, 9), img.shape)
    return np.clip(img, 0, 255).astype(np.float32)


def paste(frame: np.ndarray, face: np.ndarray, cx: float, cy: float, width: float, angle: float,
          shade: float) -> None:
    """Lay ``face`` (BGRA) on ``frame`` (float32 BGR, in place) centred at ``(cx, cy)`` px,
    ``width`` px wide, turned ``angle`` degrees, its paper dimmed by ``shade`` (0..1), with a
    soft shadow down and right."""
    h0, w0 = face.shape[:2]
    s = width / w0
    m = cv2.getRotationMatrix2D((w0 / 2, h0 / 2), angle, s)
    m[:, 2] += (cx - w0 / 2, cy - h0 / 2)
    hh, ww = frame.shape[:2]
    warped = cv2.warpAffine(face, m, (ww, hh), flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
                            borderValue=(0, 0, 0, 0))
    a = warped[:, :, 3].astype(np.float32) / 255
    shadow = cv2.GaussianBlur(np.roll(np.roll(a, 4, 0), 3, 1), (0, 0), 4)
    frame *= (1 - 0.45 * shadow)[..., None]
    frame[:] = frame * (1 - a[..., None]) + warped[:, :, :3].astype(np.float32) * shade * a[..., None]


def finish(frame: np.ndarray, rng: random.Random) -> np.ndarray:
    """Uneven light, a mild perspective (corners moved up to 4%), blur, noise and maybe
    JPEG; return the uint8 BGR frame."""
    hh, ww = frame.shape[:2]
    yy, xx = np.mgrid[0:hh, 0:ww].astype(np.float32)
    lx, ly = rng.uniform(0, ww), rng.uniform(0, hh)
    fall = 1 - rng.uniform(0.05, 0.3) * (((xx - lx) / ww) ** 2 + ((yy - ly) / hh) ** 2)
    frame = frame * fall[..., None] * rng.uniform(0.8, 1.05)
    j = 0.04
    src = np.float32([[0, 0], [ww, 0], [ww, hh], [0, hh]])
    dst = src + np.float32([[rng.uniform(-j, j) * ww, rng.uniform(-j, j) * hh] for _ in range(4)])
    out = cv2.warpPerspective(np.clip(frame, 0, 255).astype(np.uint8), cv2.getPerspectiveTransform(src, dst),
                              (ww, hh), borderMode=cv2.BORDER_REFLECT)
    nr = np.random.default_rng(rng.randrange(1 << 30))
    if rng.random() < 0.5:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.0))
    out = np.clip(out.astype(np.float32) + nr.normal(0, rng.uniform(1, 4), out.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        _, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(60, 95)])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


WIDTH = (110.0, 180.0)  # the cards' width in the frame, px (default of --width)


def compose(faces: dict[str, np.ndarray], cards: list[str], rng: random.Random,
            width_range: tuple[float, float] = WIDTH) -> np.ndarray:
    """One 1280x720 uint8 BGR frame with ``cards`` laid left to right as a board row (half
    of them upside down, at the caller's choice: ``faces`` are laid as given), each
    ``width_range`` (low, high) px wide."""
    frame = table(rng)
    n = len(cards)
    width = rng.uniform(*width_range)
    ratio = float(np.mean([faces[c].shape[0] / faces[c].shape[1] for c in cards]))
    gap = width * rng.uniform(0.08, 0.35)
    total = n * width + (n - 1) * gap
    x0 = rng.uniform(80, 1200 - total) if total < 1120 else 640 - total / 2
    cy = rng.uniform(100 + width * ratio / 2, 620 - width * ratio / 2)
    shade = rng.uniform(0.85, 1.0)
    for i, c in enumerate(cards):
        cx = x0 + width / 2 + i * (width + gap) + rng.uniform(-6, 6)
        paste(frame, faces[c], cx, cy + rng.uniform(-8, 8), width, rng.uniform(-8, 8), shade)
    return finish(frame, rng)


def frames(faces: dict[str, np.ndarray], boards: int, singles: int, seed: str,
           width_range: tuple[float, float] = WIDTH):
    """Yield ``(index, cards, frame)``: ``boards`` board rows of 3-5 cards, then ``singles``
    single cards; the deck is dealt through shuffled, so every card shows about equally often."""
    rng = random.Random(seed)
    pool: list[str] = []
    for i in range(boards + singles):
        k = rng.randint(3, min(5, len(faces))) if i < boards else 1
        cards: list[str] = []
        while len(cards) < k:
            if not pool:
                pool = sorted(faces)
                rng.shuffle(pool)
            c = pool.pop()
            if c not in cards:
                cards.append(c)
        laid = {c: cv2.rotate(faces[c], cv2.ROTATE_180) if rng.random() < 0.5 else faces[c] for c in cards}
        yield i, cards, compose(laid, cards, rng, width_range)


def score_deck(folder: Path, rec: Recognizer, boards: int, singles: int, seed: int,
               save: Path | None = None, wrong_dir: Path | None = None, verbose: bool = False,
               width_range: tuple[float, float] = WIDTH) -> Counter:
    """Compose and read one design's frames; return a Counter of cards, correct, wrong,
    missed, unsure and frames. Raises ``ValueError`` for a folder without faces."""
    faces = load_deck(folder)
    name = folder.resolve().name
    tot: Counter = Counter()
    rows = []
    for i, truth, img in frames(faces, boards, singles, f"{name}-{seed}", width_range):
        fname = f"{name}_{i:03d}.png"
        reads = rec.recognize(img)
        named = [str(r.card) for r in reads if r.card is not None]
        c, w, m = score_image(named, truth)
        tot.update(cards=len(truth), correct=c, wrong=w, missed=m, frames=1,
                   unsure=sum(r.card is None for r in reads))
        if save is not None:
            save.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(save / fname), img)
            rows.append({"file": fname, "cards": " ".join(truth)})
        if w and wrong_dir is not None:
            wrong_dir.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(wrong_dir / fname), img)
        if w and verbose:
            print(json.dumps({"file": fname, "truth": truth, "reads": [
                {"card": str(r.card) if r.card else None, "confidence": round(r.confidence, 3), "why": r.why,
                 "outline": [[round(x), round(y)] for x, y in r.outline]} for r in reads]}))
    if save is not None:
        with open(save / "labels.csv", "a", newline="") as f:
            wr = csv.DictWriter(f, ["file", "cards"])
            if f.tell() == 0:
                wr.writeheader()
            wr.writerows(rows)
    return tot


def _row(name: str, s: Counter) -> str:
    n = max(s["cards"], 1)
    return (f"{name:24s} frames={s['frames']:4d} cards={s['cards']:5d} correct={s['correct']:5d} "
            f"({100 * s['correct'] / n:5.1f}%) wrong={s['wrong']:3d} ({100 * s['wrong'] / n:4.2f}%) "
            f"missed={s['missed']:5d} unsure={s['unsure']}")


def main(argv: list[str] | None = None) -> int:
    """Command line; returns 0, or 2 for a folder without faces."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("decks", nargs="+", help="folders of card faces named As.png, Td.png ...")
    ap.add_argument("--boards", type=int, default=80, help="board-row frames per design (3-5 cards)")
    ap.add_argument("--singles", type=int, default=60, help="single-card frames per design")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--no-corners", action="store_true", help="read without the corner-index pass")
    ap.add_argument("--width", default="110,180", help="the cards' width in the frame, px: LO,HI")
    ap.add_argument("--save", type=Path, help="write every frame and labels.csv here")
    ap.add_argument("--wrong", type=Path, help="write the frames holding a wrong card here")
    ap.add_argument("-v", "--verbose", action="store_true", help="a JSON line per frame with a wrong card")
    a = ap.parse_args(argv)
    try:
        lo, hi = (float(v) for v in a.width.split(","))
        if not 0 < lo <= hi:
            raise ValueError
    except ValueError:
        ap.error(f"--width wants LO,HI px with 0 < LO <= HI, not {a.width!r}")
    rec = Recognizer(corners=not a.no_corners)
    total: Counter = Counter()
    for d in a.decks:
        try:
            s = score_deck(Path(d), rec, a.boards, a.singles, a.seed, a.save, a.wrong, a.verbose, (lo, hi))
        except (ValueError, OSError) as e:
            print(f"foreign_decks: {e}", file=sys.stderr)
            return 2
        print(_row(Path(d).resolve().name, s), flush=True)
        total.update(s)
    if len(a.decks) > 1:
        print(_row("all", total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
