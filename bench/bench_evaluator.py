"""Hand evaluator speed against phevaluator, measured in the same run (issue 2).

Run:  .venv/bin/python bench/bench_evaluator.py [--hands N]

Prints evaluations per second of seven-card hands for:

- ``rank_indices`` (our fast path over dense card indices, pure Python),
- ``rank_hand`` on Card objects (the path the showdown uses, with input checks),
- phevaluator ``evaluate_cards`` called from Python on the same hands,
- phevaluator's C ``evaluate_7cards`` driven by ``map`` (no Python frame per call),

with ratios against phevaluator and against the issue's anchor (phevaluator native
7-card evaluation, 10.6 M/s on the reference machine). It then times a whole
ten-player showdown (rank, best five, words) to show that showdown evaluation is
never the bottleneck of a hand. The rankings are cross-checked on the same hands.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.engine.cards import FULL_DECK  # noqa: E402
from controller.engine.evaluator import (  # noqa: E402
    best_five,
    describe,
    rank_hand,
    rank_indices,
    rank_omaha,
    tables,
)

ISSUE_ANCHOR_PER_S = 10.6e6


def _rate(fn, items) -> float:
    t0 = time.perf_counter()
    fn(items)
    return len(items) / (time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=300_000)
    args = ap.parse_args(argv)
    from phevaluator import evaluate_cards
    from phevaluator._pheval import evaluate_7cards

    t0 = time.perf_counter()
    tables()
    print(f"tables built on first use: {(time.perf_counter() - t0) * 1000:.0f} ms")

    rng = random.Random(2)
    hands = [rng.sample(range(52), 7) for _ in range(args.hands)]
    card_hands = [[FULL_DECK[i] for i in h] for h in hands]
    cols = list(zip(*hands))
    t0 = time.perf_counter()
    list(map(rank_indices, hands))  # first pass fills the 6/7-card table entries it meets
    print(f"first pass over the hands (fills lazy table entries): "
          f"{(time.perf_counter() - t0):.2f} s")

    ours = _rate(lambda hs: [rank_indices(h) for h in hs], hands)
    ours_map = _rate(lambda hs: list(map(rank_indices, hs)), hands)
    checked = _rate(lambda hs: [rank_hand(h) for h in hs], card_hands[: args.hands // 10])
    phe_py = _rate(lambda hs: [evaluate_cards(*h) for h in hs], hands)
    t0 = time.perf_counter()
    list(map(evaluate_7cards, *cols))
    phe_c = len(hands) / (time.perf_counter() - t0)

    # the orderings agree on these hands (higher-better vs lower-better)
    a = [rank_indices(h) for h in hands[:20000]]
    b = [evaluate_cards(*h) for h in hands[:20000]]
    pairs = sorted(zip(a, b))
    assert all((x1 == x2) == (y1 == y2) and (x1 == x2 or y1 > y2)
               for (x1, y1), (x2, y2) in zip(pairs, pairs[1:])), "ORDER MISMATCH"

    print(f"\nseven-card hands, {len(hands):,} random (seed 2):")
    print(f"  rank_indices (loop)          {ours / 1e6:6.2f} M/s")
    print(f"  rank_indices (map)           {ours_map / 1e6:6.2f} M/s")
    print(f"  rank_hand on Cards (checked) {checked / 1e6:6.2f} M/s")
    print(f"  phevaluator evaluate_cards   {phe_py / 1e6:6.2f} M/s   "
          f"ours/phe = {ours_map / phe_py:5.2f}")
    print(f"  phevaluator C via map        {phe_c / 1e6:6.2f} M/s   "
          f"ours/phe = {ours_map / phe_c:5.2f}")
    print(f"  issue anchor (phe native)    {ISSUE_ANCHOR_PER_S / 1e6:6.2f} M/s   "
          f"ours/anchor = {ours_map / ISSUE_ANCHOR_PER_S:5.3f}")

    # a whole showdown: 10 players, rank + best five + words
    deal = rng.sample(FULL_DECK, 25)
    board = deal[20:]
    holes = [deal[2 * i:2 * i + 2] for i in range(10)]
    n = 2000
    t0 = time.perf_counter()
    for _ in range(n):
        ranks = [rank_hand(h + board) for h in holes]
        best = max(ranks)
        for h, r in zip(holes, ranks):
            if r == best:
                best_five(h + board)
                describe(r)
    hold = (time.perf_counter() - t0) / n
    oh = [deal[4 * i:4 * i + 4] for i in range(5)]
    t0 = time.perf_counter()
    for _ in range(n // 10):
        [rank_omaha(h, board) for h in oh]
    om = (time.perf_counter() - t0) / (n // 10)
    print(f"\nten-player Hold'em showdown (ranks, best five, words): {hold * 1e6:7.0f} us")
    print(f"five-player Omaha showdown (ranks):                    {om * 1e6:7.0f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
