"""Speed of the board recognizer per 1280x720 frame (issue 6), and the classic baseline.

Usage: .venv/bin/python bench/bench_vision.py [--frames N] [--dev DIR] [--rendered] [--no-baseline]
       [--corners]

Prints the whole pipeline's milliseconds per 1280x720 frame (card detection, warp, index
and pip reading, decision), median and 99th percentile, both wall-clock and process CPU
time, and their ratio to the issue's goal of 30 ms (ratio < 1 meets it). Frames are the dev
photos resized to 1280x720 when ../shared is present, else rendered boards. It also runs the
classic contour + template detector (grey threshold at background + 60, templates cut from
one *rendered* deck) on the dev photos and prints how many cards it names, for comparison
with the issue's 8-15% anchor. The recognizer runs as the table's camera does by default
(whole cards); ``--corners`` adds the reading of partly covered cards from their corner
indices (vision/corners.py, ``[camera] corners = true``).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.recognizer import Recognizer  # noqa: E402
from vision.render import TABLES, render_board  # noqa: E402

GOAL_MS = 30.0
DEV = (REPO / ".." / "shared" / "data" / "vision" / "dev").resolve()


def frames(dev: Path, n: int) -> list[np.ndarray]:
    """Return ``n`` 1280x720 BGR frames: dev photos if present, else rendered boards."""
    out = []
    if dev.is_dir():
        files = sorted(f for f in os.listdir(dev) if f.endswith(".jpg"))
        for f in files:
            img = cv2.imread(str(dev / f))
            if img is not None:
                out.append(cv2.resize(img, (1280, 720), interpolation=cv2.INTER_AREA))
    rng = np.random.default_rng(6)
    from controller.engine.cards import FULL_DECK

    tables = sorted(TABLES)
    while len(out) < n:
        cards = [FULL_DECK[i] for i in rng.choice(52, 5, replace=False)]
        out.append(render_board(cards, (1280, 720), tables[len(out) % len(tables)], angle=float(rng.uniform(-5, 5)),
                                noise=3.0, seed=len(out)))
    return out[:n]


def classic_baseline(dev: Path) -> tuple[int, int, int, int]:
    """The widely copied detector: threshold at background + 60, contours, template match.

    Templates come from a rendered deck (no photo may be used), so its naming is weaker
    than with templates cut from the photographed deck; ``found`` counts the card shapes
    its threshold finds. Returns ``(cards, found, named, wrong)``.
    """
    from controller.engine.cards import FULL_DECK
    from vision.detect import order_quad
    from vision.render import render_card

    def corner(card_img: np.ndarray) -> np.ndarray:
        w = cv2.resize(card_img, (200, 300))
        g = cv2.cvtColor(w[0:84, 0:32], cv2.COLOR_BGR2GRAY)
        g = cv2.resize(g, (0, 0), fx=4, fy=4)
        _, t = cv2.threshold(g, 155, 255, cv2.THRESH_BINARY_INV)
        return t

    templates = {str(c): corner(render_card(c, 200)) for c in FULL_DECK}
    labels = {r["file"]: r["cards"].split() for r in csv.DictReader(open(dev / "labels.csv"))}
    total = named = wrong = found = 0
    for f, truth in labels.items():
        img = cv2.imread(str(dev / f))
        total += len(truth)
        if img is None:
            continue
        grey = cv2.GaussianBlur(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), (5, 5), 0)
        h, w = grey.shape
        bkg = int(grey[h // 100, w // 2])
        _, th = cv2.threshold(grey, bkg + 60, 255, cv2.THRESH_BINARY)
        cs, _ = cv2.findContours(th, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        left = Counter(truth)
        for c in cs:
            a = cv2.contourArea(c)
            if not (0.005 * h * w < a < 0.5 * h * w):
                continue
            approx = cv2.approxPolyDP(c, 0.01 * cv2.arcLength(c, True), True)
            if len(approx) != 4:
                continue
            found += 1
            q = order_quad(approx.reshape(4, 2))
            dst = np.array([[0, 0], [199, 0], [199, 299], [0, 299]], np.float32)
            warp = cv2.warpPerspective(img, cv2.getPerspectiveTransform(q, dst), (200, 300))
            query = corner(warp)
            best, diff = None, 1e18
            for name, t in templates.items():
                d = float(np.abs(query.astype(np.int32) - t.astype(np.int32)).sum()) / 255
                if d < diff:
                    best, diff = name, d
            if best is not None and diff < 1500:  # the classic "match quality" cut
                named += 1
                if left[best] > 0:
                    left[best] -= 1
                else:
                    wrong += 1
    return total, found, named, wrong


def main(argv: list[str] | None = None) -> int:
    """Run the bench; print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--dev", default=str(DEV))
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--rendered", action="store_true", help="time rendered 5-card boards only (no photos)")
    ap.add_argument("--corners", action="store_true", help="also read partly covered cards from their corner index")
    a = ap.parse_args(argv)
    rec = Recognizer(corners=a.corners)
    fs = frames(Path("/nonexistent") if a.rendered else Path(a.dev), a.frames)
    for f in fs[:3]:
        rec.recognize(f)  # warm up
    wall, cpu, ncards = [], [], []
    for f in fs:
        t0, c0 = time.perf_counter(), time.process_time()
        ncards.append(len(rec.recognize(f)))
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    for name, xs in (("wall", wall), ("cpu", cpu)):
        med, p99 = float(np.median(xs)), float(np.percentile(xs, 99))
        print(f"recognizer {name:4s} ms per 1280x720 frame: median {med:6.1f}  p99 {p99:6.1f}  "
              f"ratio to {GOAL_MS:.0f} ms goal: median {med / GOAL_MS:4.2f}  p99 {p99 / GOAL_MS:4.2f}  "
              f"({len(xs)} frames)")
    # the stages: finding the cards, then reading them (the rest of the pipeline)
    from vision.detect import find_cards

    det = []
    for f in fs:
        c0 = time.process_time()
        find_cards(f)
        det.append((time.process_time() - c0) * 1000)
    med_d = float(np.median(det))
    print(f"  stages, cpu ms median: finding the cards {med_d:5.1f}, reading them {float(np.median(cpu)) - med_d:5.1f}"
          f"  (p99 finding {float(np.percentile(det, 99)):5.1f})")
    per_card = [(c - d) / n for c, d, n in zip(cpu, det, ncards) if n]
    print(f"  reading, cpu ms per card: median {float(np.median(per_card)):5.1f}  "
          f"({sum(ncards)} cards in {len(fs)} frames)")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    # a calibrated board region: 5 board cards in a 900x300 strip of a 1280x720 frame
    from controller.engine.cards import FULL_DECK

    rng0 = np.random.default_rng(9)
    region = np.array([[190, 210], [1090, 210], [1090, 510], [190, 510]], np.float32)
    rf = []
    for k in range(30):
        fr = render_board([], (1280, 720), "green")
        cards = [FULL_DECK[i] for i in rng0.choice(52, 5, replace=False)]
        fr[210:510, 190:1090] = render_board(cards, (900, 300), "green", angle=float(rng0.uniform(-4, 4)), noise=3.0,
                                             seed=k)
        rf.append(fr)
    reg, reg_find, reg_n = [], [], []
    from vision.recognizer import _find_in_region

    for fr in rf:
        c0 = time.process_time()
        reg_n.append(len(rec.recognize(fr, region=region)))
        reg.append((time.process_time() - c0) * 1000)
        c0 = time.process_time()
        _find_in_region(fr, region)
        reg_find.append((time.process_time() - c0) * 1000)
    med, p99 = float(np.median(reg)), float(np.percentile(reg, 99))
    print(f"board region (5 cards, 900x300 of 1280x720) cpu ms per frame: median {med:6.1f}  p99 {p99:6.1f}  "
          f"ratio to {GOAL_MS:.0f} ms goal: median {med / GOAL_MS:4.2f}")
    med_f = float(np.median(reg_find))
    print(f"  stages, cpu ms median: finding the cards {med_f:5.1f}, reading them {med - med_f:5.1f} "
          f"({(med - med_f) / max(float(np.median(reg_n)), 1.0):4.1f} per card)")
    # the camera path on a still board (sensor noise only): readings are reused
    from vision.camera import Camera

    cam = Camera(0, lambda ev: None, clock=time.monotonic, recognizer=rec)
    rng = np.random.default_rng(1)
    still = fs[0]
    cam.read_frame(still)
    st = []
    for _ in range(60):
        noisy = np.clip(still.astype(np.int16) + rng.integers(-3, 4, still.shape), 0, 255).astype(np.uint8)
        t0 = time.perf_counter()
        cam.read_frame(noisy)
        st.append((time.perf_counter() - t0) * 1000)
    med, p99 = float(np.median(st)), float(np.percentile(st, 99))
    print(f"camera path, still board (readings reused {cam.reused}/60): median {med:5.1f} ms  p99 {p99:5.1f} ms  "
          f"ratio to goal: median {med / GOAL_MS:4.2f}")
    if not a.no_baseline and Path(a.dev).is_dir():
        total, found, named, wrong = classic_baseline(Path(a.dev))
        print(f"classic contour+template baseline on dev: card shapes found {found}/{total} "
              f"({100 * found / total:.1f}%), named {named} ({100 * named / total:.1f}%), wrong {wrong} "
              f"(issue anchor: 8-15% named, all right; its templates here are rendered, not cut from photos)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
