"""Hand evaluator speed against phevaluator's native evaluator, interleaved rounds (issue 21).

Run:  .venv/bin/python bench/bench_evaluator.py [--hands N] [--rounds R] [--native-dir DIR]

The first run with a fresh (or no) ``--native-dir`` builds the native anchor, and that is
most of its time: some 65 s of a 79 s run and 1.8 GB of memory at the peak (``/usr/bin/time
-v``: max RSS 1,794,996 KB), nearly all of it gcc on phevaluator's ``tables_plo4.c`` (93 MB
of C: two ``const short`` arrays of 15.3 M initialisers in all, the Omaha tables the
library carries). That file is data and is already built at ``-O0`` (bench/_native.py; its
evaluator loops at ``-O3``): the memory is gcc's parse of the initialisers, not
optimisation (alone: 34-38 s of CPU, 57-114 s on the wall of a loaded 2-core machine, 1.79
GB; ``--param ggc-min-expand=0`` leaves the peak as it is). The other files take under a
second. A ``--native-dir`` kept between runs reuses the library (it is rebuilt only for
another phevaluator version or harness).

The anchor is phevaluator's own C ``evaluate_7cards`` in a C loop over the same hands
(built at bench time from the installed version's C sources, bench/_native.py; timed
inside C): the native rate, 35-44 M 7-card evaluations/s on this machine when it is
quiet. In each of R rounds, in alternating order, the same seeded random 7-card hands go
through:

- the native C loop (the anchor);
- ``rank_indices`` (our fast path over dense card indices, pure Python, standard library
  only) driven by ``map``;
- ``rank_hand`` on Card objects (the path the showdown uses, with input checks; a tenth
  of the hands);
- phevaluator's Python wrapper ``evaluate_cards`` (Python calling C once per hand: the
  figure the old anchor of 10.6 M/s was, for reference only).

Figures are medians over the rounds, in the CPU time of the thread (``CLOCK_THREAD_CPUTIME_ID``
in C, ``time.thread_time`` in Python: the machine is shared). The rankings are
cross-checked on the same hands.
Issue 2's goal for the evaluator is not a rate: showdown evaluation must never be the
bottleneck of a hand. So the last line gives the ratio to the native rate and, as the
goal, a ten-player Hold'em showdown (ranks, best five, words) against the 250 us budget of
a table step at ten seats (issue 21); bench_hands.py prints the ranking's share of a hand.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _native  # noqa: E402

from controller.engine.cards import FULL_DECK  # noqa: E402
from controller.engine.evaluator import (  # noqa: E402
    best_five,
    describe,
    rank_hand,
    rank_indices,
    rank_omaha,
    tables,
)

STEP_BUDGET_US = 250.0  # issue 21: table step p99 at ten seats


def main(argv: list[str] | None = None) -> int:
    """Run the rounds; print the figures and the summary last; return 0."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=300_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--phe-sdist", default=None)
    ap.add_argument("--native-dir", default=None,
                    help="build the native peer there and reuse it (default: a temp dir)")
    args = ap.parse_args(argv)
    from phevaluator import evaluate_cards

    lib, how = _native.load(args.phe_sdist, build_dir=args.native_dir)
    print(f"native: {how}")
    t0 = time.perf_counter()
    tables()
    print(f"tables built on first use: {(time.perf_counter() - t0) * 1000:.0f} ms")

    rng = random.Random(2)
    hands = [rng.sample(range(52), 7) for _ in range(args.hands)]
    card_hands = [[FULL_DECK[i] for i in h] for h in hands[: args.hands // 10]]
    flat = _native.int_array([c for h in hands for c in h])
    checksum = _native.i64_array(1)
    t0 = time.perf_counter()
    list(map(rank_indices, hands))  # first pass fills the 6/7-card table entries it meets
    print(f"first pass over the hands (fills lazy table entries): "
          f"{(time.perf_counter() - t0):.2f} s")

    def native() -> float:
        return len(hands) / lib.run_7cards(len(hands), flat, checksum)

    def ours() -> float:
        t = time.thread_time()
        list(map(rank_indices, hands))
        return len(hands) / (time.thread_time() - t)

    def checked() -> float:
        t = time.thread_time()
        [rank_hand(h) for h in card_hands]
        return len(card_hands) / (time.thread_time() - t)

    def wrapper() -> float:
        t = time.thread_time()
        [evaluate_cards(*h) for h in hands]
        return len(hands) / (time.thread_time() - t)

    runs: dict[str, list[float]] = {"native": [], "ours": [], "checked": [], "wrapper": []}
    fns = {"native": native, "ours": ours, "checked": checked, "wrapper": wrapper}
    for r in range(args.rounds):
        order = list(fns) if r % 2 == 0 else list(fns)[::-1]
        for name in order:
            runs[name].append(fns[name]())
    med = {k: statistics.median(v) for k, v in runs.items()}

    # the orderings agree on these hands (higher-better vs lower-better)
    a = [rank_indices(h) for h in hands[:20000]]
    b = [evaluate_cards(*h) for h in hands[:20000]]
    pairs = sorted(zip(a, b))
    assert all((x1 == x2) == (y1 == y2) and (x1 == x2 or y1 > y2)
               for (x1, y1), (x2, y2) in zip(pairs, pairs[1:])), "ORDER MISMATCH"

    print(f"\nseven-card hands, {len(hands):,} random (seed 2), median of {args.rounds} "
          f"interleaved rounds (M evaluations/s; each round's figures: min..max):")
    for name, label in (("native", "phevaluator native, C loop (anchor)"),
                        ("ours", "rank_indices, pure Python (map)"),
                        ("checked", "rank_hand on Cards (checked)"),
                        ("wrapper", "phevaluator Python wrapper")):
        v = runs[name]
        print(f"  {label:38s} {med[name] / 1e6:7.2f}  ({min(v) / 1e6:.2f}..{max(v) / 1e6:.2f})"
              f"  ours/this = {med['ours'] / med[name]:.3f}")

    # a whole showdown: 10 players, rank + best five + words
    deal = rng.sample(FULL_DECK, 25)
    board = deal[20:]
    holes = [deal[2 * i:2 * i + 2] for i in range(10)]
    n = 2000
    times = []
    for _ in range(5):
        t0 = time.thread_time()
        for _ in range(n // 5):
            ranks = [rank_hand(h + board) for h in holes]
            best = max(ranks)
            for h, r in zip(holes, ranks):
                if r == best:
                    best_five(h + board)
                    describe(r)
        times.append((time.thread_time() - t0) / (n // 5))
    hold = statistics.median(times)
    oh = [deal[4 * i:4 * i + 4] for i in range(5)]
    t0 = time.thread_time()
    for _ in range(n // 10):
        [rank_omaha(h, board) for h in oh]
    om = (time.thread_time() - t0) / (n // 10)
    print(f"\nten-player Hold'em showdown (ranks, best five, words): {hold * 1e6:7.0f} us")
    print(f"five-player Omaha showdown (ranks):                    {om * 1e6:7.0f} us")
    print(f"evaluator: anchor phevaluator native {med['native'] / 1e6:.1f} M 7-card evals/s (C "
          f"loop, same run); ours {med['ours'] / 1e6:.2f} M/s pure Python = ratio "
          f"{med['ours'] / med['native']:.3f}; goal (issue 2) showdown never the bottleneck: "
          f"ten-player showdown {hold * 1e6:.0f} us = {hold * 1e6 / STEP_BUDGET_US:.2f} of the "
          f"{STEP_BUDGET_US:.0f} us step budget")
    return 0


if __name__ == "__main__":
    sys.exit(main())
