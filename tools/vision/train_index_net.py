"""Train the corner-index glyph classifier and write vision/data/index_net.onnx.

Usage: .venv/bin/python tools/vision/train_index_net.py [OUT] [--seed 6] [--epochs 8]

Needs torch and onnx (training only; the table runs the ONNX file with OpenCV's cv2.dnn):
``.venv/bin/pip install torch==2.13.0 onnx`` (CPU build). Nothing here reads a photograph: rank
characters are drawn from the fonts :func:`vision.glyphs.draw_rank` uses (Hershey, DejaVu,
Liberation, FreeSans), suit pips with :func:`vision.glyphs.draw_suit`, and both are degraded
the way a small printed index seen by a camera is (rotation, shear, width, stroke weight,
down-sampling to 9-40 px, blur, noise, a varying ink cut). The class ``-`` is taught with
what is not an upright index glyph: characters upside down or on their side, pips upside
down, halves of glyphs, a rank merged with its pip, bars and blobs. Deterministic for a
seed (same fonts, same torch version).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.glyphs import draw_rank, draw_suit  # noqa: E402
from vision.index_net import CLASSES, NET_PATH, RANKS, SIZE, SUITS, net_input  # noqa: E402

OTHER = CLASSES.index("-")


def _tight(im: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(im)
    return im[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def degrade(im: np.ndarray, rng: np.random.Generator, rot: float = 10.0) -> np.ndarray | None:
    """Turn a clean drawing (ink 255) into a mask as the corner reader would cut it."""
    im = _tight(im)
    h, w = im.shape
    pad = max(h, w) // 2
    big = np.pad(im, pad)
    hh, ww = big.shape
    m = cv2.getRotationMatrix2D((ww / 2, hh / 2), rng.uniform(-rot, rot), 1.0)
    m[0, 1] += rng.uniform(-0.18, 0.18)
    sx = rng.uniform(0.65, 1.35)
    m[0, :] *= sx
    m[0, 2] += (1 - sx) * ww / 2
    warped = cv2.warpAffine(big, m, (ww, hh))
    k = int(rng.integers(-2, 4)) * max(1, max(h, w) // 50)
    if k > 0:
        warped = cv2.dilate(warped, np.ones((k, k), np.uint8))
    elif k < 0:
        warped = cv2.erode(warped, np.ones((-k, -k), np.uint8))
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


def make_data(seed: int, per_rank: int, per_suit: int, n_other: int) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(x (N, 1, SIZE, SIZE) float32, y (N,) int64)`` synthetic training glyphs."""
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

    drawings = {r: [d for d in draw_rank(r) if d.any()] for r in RANKS}
    for i, r in enumerate(RANKS):
        ds = drawings[r]
        for k in range(per_rank):
            add(ds[k % len(ds)], i)
    suits = {s: [draw_suit(s, 96, float(v)) for v in np.linspace(-1, 1, 9)] for s in SUITS}
    for j, s in enumerate(SUITS):
        for k in range(per_suit):
            add(suits[s][k % 9], len(RANKS) + j)
    # not an upright index glyph
    turnable = [r for r in RANKS if r not in ("6", "8", "9", "10")]  # 6/9, 8, 10 read turned
    for k in range(n_other):
        kind = k % 6
        if kind == 0:
            r = turnable[int(rng.integers(len(turnable)))]
            add(np.rot90(drawings[r][int(rng.integers(len(drawings[r])))], 2), OTHER, rot=25)
        elif kind == 1:
            r = RANKS[int(rng.integers(len(RANKS)))]
            add(np.rot90(drawings[r][int(rng.integers(len(drawings[r])))], 1 if rng.random() < 0.5 else 3),
                OTHER, rot=20)
        elif kind == 2:
            s = ("c", "s", "h")[int(rng.integers(3))]
            add(np.rot90(suits[s][int(rng.integers(9))], 2), OTHER, rot=20)
        elif kind == 3:
            if rng.random() < 0.6:
                r = RANKS[int(rng.integers(len(RANKS)))]
                add(_pieces(drawings[r][int(rng.integers(len(drawings[r])))], rng), OTHER)
            else:
                s = SUITS[int(rng.integers(4))]
                add(_pieces(suits[s][int(rng.integers(9))], rng), OTHER)
        elif kind == 4:
            r = RANKS[int(rng.integers(len(RANKS)))]
            s = SUITS[int(rng.integers(4))]
            add(_merged(drawings[r][int(rng.integers(len(drawings[r])))], suits[s][int(rng.integers(9))]), OTHER)
        else:
            add(_blob(rng), OTHER, rot=90)
    return np.stack(xs)[:, None].astype(np.float32), np.array(ys, np.int64)


def build_model():  # noqa: ANN201 - torch is imported lazily
    """The network: 3 conv blocks (12, 24, 48 channels) and two dense layers."""
    import torch.nn as nn  # noqa: PLC0415

    return nn.Sequential(
        nn.Conv2d(1, 12, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(12, 24, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(24, 48, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(48 * (SIZE // 8) ** 2, 64), nn.ReLU(), nn.Dropout(0.2),
        nn.Linear(64, len(CLASSES)),
    )


def main(argv: list[str] | None = None) -> int:
    """Generate the glyphs, train, check on fresh synthetic glyphs, export ONNX."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", default=str(NET_PATH))
    ap.add_argument("--seed", type=int, default=6)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--per-rank", type=int, default=1500)
    ap.add_argument("--cache", help="keep the generated glyphs in this .npz (to train again faster)")
    a = ap.parse_args(argv)
    import torch  # noqa: PLC0415

    torch.manual_seed(a.seed)
    torch.set_num_threads(2)
    t0 = time.time()
    if a.cache and Path(a.cache).exists():
        with np.load(a.cache) as z:
            x, y, xv, yv = z["x"], z["y"], z["xv"], z["yv"]
    else:
        x, y = make_data(a.seed, a.per_rank, a.per_rank, a.per_rank * 4)
        xv, yv = make_data(a.seed + 1000, 150, 150, 600)
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
