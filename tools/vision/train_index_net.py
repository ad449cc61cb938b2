"""Train the corner-index glyph classifier and write vision/data/index_net.onnx.

Usage: .venv/bin/python tools/vision/train_index_net.py [OUT] [--seed 7] [--epochs 10] [--per-rank 6000]

Needs torch and onnx (training only; the table runs the ONNX file with OpenCV's cv2.dnn):
``.venv/bin/pip install torch==2.13.0 onnx`` (CPU build).

Fonts (training only; the table never needs them, the ONNX file is what ships). Card
indices are printed in many faces (condensed serif, slab, Courier-like typewriter faces,
Century-Schoolbook-like faces, bold and regular), so the more faces the classifier sees the
better it reads a deck it has never seen. :func:`find_fonts` takes every upright face found
under :data:`FONT_DIRS`; on Debian, install the faces it was trained with by::

    apt-get install -y fonts-dejavu-core fonts-dejavu-extra fonts-liberation fonts-liberation2 \
        fonts-freefont-ttf fonts-urw-base35 fonts-texgyre fonts-noto-core \
        fonts-crosextra-carlito fonts-crosextra-caladea fonts-courier-prime fonts-roboto-slab

Without them it still trains on what is there (at least the OpenCV Hershey fonts) and says
which faces it used. Suit pips are drawn with :func:`vision.glyphs.draw_suit` and taken from
the fonts' solid suit characters (U+2660, U+2663, U+2665, U+2666: DejaVu, FreeFont, URW,
Noto Sans Symbols 2).

Nothing here reads a photograph. Rank characters and pips are degraded the way a small
printed index seen by a camera and cut by the corner reader is (rotation, shear, condensed
or widened, stroke weight, thin serifs lost, down-sampling to 9-40 px, blur, noise, a
varying ink cut). The class ``-`` is taught with what is not an upright index glyph:
characters upside down or on their side, pips upside down, halves of glyphs, a rank merged
with its pip, bars and blobs. Deterministic for a seed (same fonts, same torch version).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.glyphs import _tight, _ttf, draw_rank, draw_suit  # noqa: E402
from vision.index_net import CLASSES, NET_PATH, RANKS, SIZE, SUITS, net_input  # noqa: E402

OTHER = CLASSES.index("-")

#: where :func:`find_fonts` looks (recursively) for TrueType/OpenType faces
FONT_DIRS = ["/usr/share/fonts", "/usr/share/texmf/fonts/opentype", "/usr/local/share/fonts"]
#: a face whose file name matches this is not drawn: slanted, hairline, symbol or script faces
_SKIP = re.compile(r"italic|oblique|ita\.|thin|extralight|hairline|math|symbol|dingbat|emoji|"
                   r"d050000l|z003|chorus|color|kufi|looped|nastaliq|naskh", re.I)
#: of Noto's many scripts and weights, the Latin families in regular and bold, four widths
_NOTO = re.compile(r"^Noto(Sans|Serif|SansMono)-(|Semi|Extra)(Condensed)?(Regular|Bold)?\.ttf$")
#: the solid suit characters, in :data:`vision.index_net.SUITS` order (c d h s)
SUIT_CHARS = {"c": "\u2663", "d": "\u2666", "h": "\u2665", "s": "\u2660"}


def find_fonts(dirs: list[str] | None = None) -> list[str]:
    """Return the upright text faces (``.ttf``/``.otf`` paths) under ``dirs``, sorted by file name.

    ``dirs`` defaults to :data:`FONT_DIRS`. Slanted, hairline, symbol and script faces are
    left out (:data:`_SKIP`), as are Noto faces other than Noto Sans/Serif/Sans Mono in
    regular and bold at their four widths; a file name found in two places (Debian ships
    Liberation twice) is taken once. Missing directories are skipped.
    """
    seen: dict[str, str] = {}
    for d in dirs if dirs is not None else FONT_DIRS:
        for root, _, files in os.walk(d):
            for f in files:
                if not f.lower().endswith((".ttf", ".otf")) or _SKIP.search(f):
                    continue
                if f.startswith("Noto") and not _NOTO.match(f):
                    continue
                seen.setdefault(f, os.path.join(root, f))
    try:  # pygame ships FreeSans Bold
        import pygame  # noqa: PLC0415

        seen.setdefault("freesansbold.ttf", os.path.join(os.path.dirname(pygame.__file__), "freesansbold.ttf"))
    except ImportError:  # pragma: no cover
        pass
    return [seen[k] for k in sorted(seen, key=str.lower)]


def _solid(im: np.ndarray | None, fill: float = 0.6) -> bool:
    """True for one solid shape (a filled pip, not an outline): ink over its hull's area."""
    if im is None or not im.any():
        return False
    cs, _ = cv2.findContours((im > 127).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    big = max(cs, key=cv2.contourArea)
    hull = cv2.contourArea(cv2.convexHull(big))
    return hull > 0 and float((im > 127).sum()) / hull >= fill


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two drawings, each cropped to its ink and scaled to 32x32."""
    a32 = cv2.resize(_tight(a), (32, 32)).astype(np.float32)
    b32 = cv2.resize(_tight(b), (32, 32)).astype(np.float32)
    return float(np.minimum(a32, b32).sum() / max(np.maximum(a32, b32).sum(), 1.0))


_PARTNER = {"c": "s", "s": "c", "d": "h", "h": "d"}  # the other suit of the same colour


def font_pips(fonts: list[str]) -> dict[str, list[np.ndarray]]:
    """Return the solid suit pips drawn from ``fonts`` that have all four suit characters.

    ``{suit: [uint8 (h, w) image, ink 255]}``, one image per such font. A font is dropped
    whole when a character is missing or outlined, or when one of its pips looks more like
    the drawn pip (:func:`vision.glyphs.draw_suit`) of the other suit of its colour than its
    own (FreeSerif Bold draws a club-like spade).
    """
    drawn = {s: draw_suit(s, 96, 0.0) for s in SUITS}
    out: dict[str, list[np.ndarray]] = {s: [] for s in SUITS}
    for path in fonts:
        ims = {s: _ttf(SUIT_CHARS[s], path) for s in SUITS}
        if all(_solid(im) for im in ims.values()) and all(
                _overlap(im, drawn[s]) > _overlap(im, drawn[_PARTNER[s]])  # type: ignore[arg-type]
                for s, im in ims.items()):
            for s, im in ims.items():
                out[s].append(im)  # type: ignore[arg-type]
    return out


def rank_drawings(label: str, fonts: list[str]) -> list[np.ndarray]:
    """Return drawings (ink 255) of one rank label: Hershey fonts at three weights, every face
    in ``fonts``, and for ``10`` also its digits composed tight (:func:`vision.glyphs.draw_rank`)."""
    return draw_rank(label, fonts=fonts)


def degrade(im: np.ndarray, rng: np.random.Generator, rot: float = 10.0) -> np.ndarray | None:
    """Turn a clean drawing (uint8, ink 255) into a mask as the corner reader would cut it.

    At the drawing's size: rotation (``rot`` degrees at most), shear, width 0.55-1.35 (condensed
    to widened faces), stroke weight (a blur cut at a random level, or a dilation/erosion),
    sometimes an opening that takes thin serifs and hairlines away. Then down-sampled to a
    9-40 px tall glyph (the camera), blurred, noised, scaled back to the reader's ~24 px and
    cut at a random level; specks below 15% of the largest part are dropped. Returns the
    ``uint8`` mask (ink 255) or None when nothing is left.
    """
    im = _tight(im)
    h, w = im.shape
    pad = max(h, w) // 2
    big = np.pad(im, pad)
    hh, ww = big.shape
    m = cv2.getRotationMatrix2D((ww / 2, hh / 2), rng.uniform(-rot, rot), 1.0)
    m[0, 1] += rng.uniform(-0.18, 0.18)
    sx = rng.uniform(0.55, 1.35)
    m[0, :] *= sx
    m[0, 2] += (1 - sx) * ww / 2
    warped = cv2.warpAffine(big, m, (ww, hh))
    unit = max(1, max(h, w) // 50)
    kind = rng.random()
    if kind < 0.45:  # stroke weight, continuous: blur and cut
        sig = rng.uniform(0.5, 2.5) * unit
        b = cv2.GaussianBlur(warped, (0, 0), sig)
        warped = (b > rng.uniform(70, 215)).astype(np.uint8) * 255
    elif kind < 0.8:
        k = int(rng.integers(-2, 3)) * unit
        if k > 0:
            warped = cv2.dilate(warped, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        elif k < 0:
            warped = cv2.erode(warped, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (-k, -k)))
    if rng.random() < 0.2:  # thin serifs and hairlines lost in print or at the cut
        k = int(rng.integers(2, 4)) * unit
        opened = cv2.morphologyEx(warped, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        if opened.sum() > 0.6 * warped.sum():
            warped = opened
    if not warped.any():
        return None
    target = rng.uniform(9, 40)  # the glyph's height in camera pixels
    f = target / max(h, 1)
    small = cv2.resize(warped.astype(np.float32) / 255.0, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    if rng.random() < 0.6:
        small = cv2.GaussianBlur(small, (0, 0), rng.uniform(0.3, 1.0))
    small = small + rng.normal(0, rng.uniform(0, 0.08), small.shape).astype(np.float32)
    up = 24.0 / target  # the reader's cut scales an index to a rank ~24 px tall
    grey = cv2.resize(small, None, fx=up, fy=up, interpolation=cv2.INTER_LINEAR)
    mask = (grey > rng.uniform(0.3, 0.65)).astype(np.uint8) * 255
    n, lab, st, _ = cv2.connectedComponentsWithStats(mask, 8)
    if n <= 1:
        return None
    big_a = st[1:, 4].max()
    keep = [i for i in range(1, n) if st[i, 4] >= 0.15 * big_a]
    mask = np.isin(lab, keep).astype(np.uint8) * 255
    return mask


def _pieces(im: np.ndarray, rng: np.random.Generator) -> np.ndarray | None:
    t = _tight(im)
    h, w = t.shape
    if rng.random() < 0.5:
        a = int(rng.uniform(0.3, 0.6) * h)
        part = t[:a] if rng.random() < 0.5 else t[a:]
    else:
        a = int(rng.uniform(0.3, 0.6) * w)
        part = t[:, :a] if rng.random() < 0.5 else t[:, a:]
    return part if part.any() else None


def _blob(rng: np.random.Generator) -> np.ndarray:
    im = np.zeros((100, 100), np.uint8)
    kind = rng.integers(0, 4)
    if kind == 0:
        cv2.ellipse(im, (50, 50), (int(rng.uniform(10, 45)), int(rng.uniform(10, 45))),
                    rng.uniform(0, 180), 0, 360, 255, -1)
    elif kind == 1:  # a bar (the "1" of a 10 alone is no rank)
        cv2.rectangle(im, (45, 5), (45 + int(rng.uniform(5, 20)), 95), 255, -1)
    elif kind == 2:  # a ring
        cv2.circle(im, (50, 50), int(rng.uniform(20, 45)), 255, int(rng.uniform(4, 14)))
    else:  # a scribble of strokes
        for _ in range(int(rng.integers(2, 5))):
            p1 = tuple(int(v) for v in rng.integers(5, 95, 2))
            p2 = tuple(int(v) for v in rng.integers(5, 95, 2))
            cv2.line(im, p1, p2, 255, int(rng.uniform(4, 14)))
    return im


def _merged(rank: np.ndarray, suit: np.ndarray) -> np.ndarray:
    """A rank touching its pip underneath (one component to the reader)."""
    r, s = _tight(rank), _tight(suit)
    s = cv2.resize(s, (max(1, int(s.shape[1] * r.shape[0] * 0.7 / s.shape[0])), int(r.shape[0] * 0.7)))
    w = max(r.shape[1], s.shape[1])
    out = np.zeros((r.shape[0] + s.shape[0], w), np.uint8)
    out[:r.shape[0], (w - r.shape[1]) // 2:(w - r.shape[1]) // 2 + r.shape[1]] = r
    out[r.shape[0]:, (w - s.shape[1]) // 2:(w - s.shape[1]) // 2 + s.shape[1]] = s
    return out


def make_data(seed: int, per_rank: int, per_suit: int, n_other: int, fonts: list[str] | None = None
              ) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(x (N, 1, SIZE, SIZE) float32, y (N,) int64)`` synthetic training glyphs.

    ``per_rank`` glyphs of each rank, ``per_suit`` of each suit (half drawn pips, half the
    fonts' suit characters when any font has them) and ``n_other`` of the class ``-``; the
    rank drawings cycle through every face of ``fonts`` (:func:`find_fonts` when None) and
    the Hershey fonts. N is a little below the sum when a degraded glyph vanished.
    """
    fonts = find_fonts() if fonts is None else fonts
    rng = np.random.default_rng(seed)
    xs: list[np.ndarray] = []
    ys: list[int] = []

    def add(im: np.ndarray | None, label: int, rot: float = 10.0) -> None:
        if im is None or not im.any():
            return
        m = degrade(im, rng, rot)
        if m is not None:
            xs.append(net_input(m))
            ys.append(label)

    drawings = {r: rank_drawings(r, fonts) for r in RANKS}
    for i, r in enumerate(RANKS):
        ds = drawings[r]
        order = rng.permutation(per_rank) % len(ds)
        for k in order:
            add(ds[k], i)
    drawn = {s: [draw_suit(s, 96, float(v)) for v in np.linspace(-1, 1, 9)] for s in SUITS}
    typed = font_pips(fonts)
    suits = {s: drawn[s] + typed[s] for s in SUITS}
    for j, s in enumerate(SUITS):
        for k in range(per_suit):
            if typed[s] and k % 2:
                add(typed[s][int(rng.integers(len(typed[s])))], len(RANKS) + j)
            else:
                add(drawn[s][k % 9], len(RANKS) + j)
    # not an upright index glyph
    turnable = [r for r in RANKS if r not in ("6", "8", "9", "10")]  # 6/9, 8, 10 read turned

    def any_of(items: list[np.ndarray]) -> np.ndarray:
        return items[int(rng.integers(len(items)))]

    for k in range(n_other):
        kind = k % 6
        if kind == 0:
            r = turnable[int(rng.integers(len(turnable)))]
            add(np.rot90(any_of(drawings[r]), 2), OTHER, rot=25)
        elif kind == 1:
            r = RANKS[int(rng.integers(len(RANKS)))]
            add(np.rot90(any_of(drawings[r]), 1 if rng.random() < 0.5 else 3), OTHER, rot=20)
        elif kind == 2:
            s = ("c", "s", "h")[int(rng.integers(3))]
            add(np.rot90(any_of(suits[s]), 2), OTHER, rot=20)
        elif kind == 3:
            if rng.random() < 0.6:
                r = RANKS[int(rng.integers(len(RANKS)))]
                add(_pieces(any_of(drawings[r]), rng), OTHER)
            else:
                s = SUITS[int(rng.integers(4))]
                add(_pieces(any_of(suits[s]), rng), OTHER)
        elif kind == 4:
            r = RANKS[int(rng.integers(len(RANKS)))]
            s = SUITS[int(rng.integers(4))]
            add(_merged(any_of(drawings[r]), any_of(suits[s])), OTHER)
        else:
            add(_blob(rng), OTHER, rot=90)
    return np.stack(xs)[:, None].astype(np.float32), np.array(ys, np.int64)


def build_model():  # noqa: ANN201 - torch is imported lazily
    """The network: 3 conv blocks (16, 32, 64 channels) and two dense layers (~160k weights)."""
    import torch.nn as nn  # noqa: PLC0415

    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * (SIZE // 8) ** 2, 128), nn.ReLU(), nn.Dropout(0.3),
        nn.Linear(128, len(CLASSES)),
    )


def main(argv: list[str] | None = None) -> int:
    """Generate the glyphs, train, check on fresh synthetic glyphs, export ONNX."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", default=str(NET_PATH))
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (the machine is shared)")
    ap.add_argument("--per-rank", type=int, default=6000)
    ap.add_argument("--cache", help="keep the generated glyphs in this .npz (to train again faster)")
    a = ap.parse_args(argv)
    import torch  # noqa: PLC0415

    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    t0 = time.time()
    fonts = find_fonts()
    pips = font_pips(fonts)
    print(f"{len(fonts)} font faces (+ the Hershey fonts): "
          + ", ".join(Path(f).stem for f in fonts))
    print(f"{len(pips['s'])} of them give solid suit pips")
    if a.cache and Path(a.cache).exists():
        with np.load(a.cache) as z:
            x, y, xv, yv = z["x"], z["y"], z["xv"], z["yv"]
    else:
        x, y = make_data(a.seed, a.per_rank, a.per_rank, a.per_rank * 4, fonts)
        xv, yv = make_data(a.seed + 1000, 150, 150, 600, fonts)
        if a.cache:
            np.savez_compressed(a.cache, x=x, y=y, xv=xv, yv=yv)
    print(f"synthetic glyphs: {len(y)} to train, {len(yv)} to check ({time.time() - t0:.0f} s)")
    model = build_model()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, a.epochs)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    lossf = torch.nn.CrossEntropyLoss()
    for ep in range(a.epochs):
        model.train()
        perm = torch.randperm(len(yt))
        tot = 0.0
        for k in range(0, len(perm), 256):
            idx = perm[k:k + 256]
            opt.zero_grad()
            loss = lossf(model(xt[idx]), yt[idx])
            loss.backward()
            opt.step()
            tot += loss.item() * len(idx)
        sched.step()
        model.eval()
        with torch.no_grad():
            acc = float((model(torch.from_numpy(xv)).argmax(1).numpy() == yv).mean())
        print(f"epoch {ep + 1}: loss {tot / len(yt):.4f}, held-out synthetic accuracy {acc:.4f} "
              f"({time.time() - t0:.0f} s)")
    model.eval()
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), out.with_suffix(".pt.tmp"))  # an export error loses no training
    torch.onnx.export(model, torch.zeros(1, 1, SIZE, SIZE), str(out), input_names=["glyph"],
                      output_names=["logits"], opset_version=13, dynamo=False)
    out.with_suffix(".pt.tmp").unlink()
    print(f"{out}: {out.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
