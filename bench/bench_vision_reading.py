"""The reading stage of the board recognizer alone: CPU ms per card (issue 6).

Usage: .venv/bin/python bench/bench_vision_reading.py [--dev DIR] [--passes N]

Finds the cards of the dev frames once (1280x720, as bench_vision.py), then reads the same
quads again and again (warp, both indices, pips, decision: ``Recognizer.read_quad``) and
prints the minimum and median over the passes of the CPU milliseconds per card. The
minimum of several passes is far steadier than a per-frame median on a shared machine,
so two versions of the reader can be compared run against run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

from bench.bench_vision import DEV, frames  # noqa: E402
from vision.detect import find_cards  # noqa: E402
from vision.recognizer import Recognizer  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Run the bench; print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dev", default=str(DEV))
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--passes", type=int, default=5)
    a = ap.parse_args(argv)
    rec = Recognizer()
    work = [(f, q) for f in frames(Path(a.dev), a.frames) for q in find_cards(f)]
    if not work:
        print("no cards found")
        return 1
    passes = []
    for _ in range(a.passes):
        c0 = time.process_time()
        for f, q in work:
            rec.read_quad(f, q)
        passes.append((time.process_time() - c0) * 1000 / len(work))
    print(f"reading cpu ms per card ({len(work)} cards, {a.passes} passes): min {min(passes):5.2f}  "
          f"median {float(np.median(passes)):5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
