"""Exact pre-flop equity speed against phevaluator loops over the same boards (issue 2).

Run:  .venv/bin/python bench/bench_equity.py [--quick] [--repeat N]

For each spot of the issue (heads-up AsKs vs QdQh, three-way AhAd vs KsKc vs 8h7h,
four-way AhKh vs QcQd vs JsTc vs 9d9s) it measures, in this run:

- ``ours``: ``controller.engine.equity`` (warm: tables already built; the cold first
  call, which builds the tables, is printed once);
- ``phe loop``: a plain Python loop over every remaining board calling
  ``phevaluator.evaluate_cards`` once per player (the brief's anchor loop);
- ``phe map``: the fastest phevaluator loop we could write in Python: boards
  pre-generated as columns, ``map`` over the C function ``evaluate_7cards``;

and prints ratios ``loop time / ours``. It also prints the ratio against the issue's
own anchor (0.44 s heads-up on the reference machine, scaled for three- and four-way
by the number of evaluations: 0.44 s / (1,712,304 x 2) per evaluation). The goal is
ours at least 10x faster than the phevaluator loop. ``--quick`` times the phevaluator
loops on the first 200,000 boards only and extrapolates (says so in the output).
The equities themselves are compared, so a fast wrong answer cannot pass unnoticed.
"""

from __future__ import annotations

import argparse
import itertools
import operator
import statistics
import sys
import time
from itertools import repeat
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.engine.cards import parse_cards  # noqa: E402

SPOTS = {
    "heads-up": ["AsKs", "QdQh"],
    "three-way": ["AhAd", "KsKc", "8h7h"],
    "four-way": ["AhKh", "QcQd", "JsTc", "9d9s"],
}
ISSUE_ANCHOR_S = 0.44  # AsKs vs QdQh, 1,712,304 boards, 2 evaluations each
ISSUE_PER_EVAL_S = ISSUE_ANCHOR_S / (1_712_304 * 2)


def _deck(holes: list[list[int]]) -> list[int]:
    used = {i for h in holes for i in h}
    return [i for i in range(52) if i not in used]


def phe_loop(holes: list[list[int]], limit: int | None) -> tuple[float, list[float], int]:
    """Plain loop with phevaluator.evaluate_cards; returns (seconds, equity, boards)."""
    from phevaluator import evaluate_cards

    deck = _deck(holes)
    acc = [0.0] * len(holes)
    n = 0
    t0 = time.perf_counter()
    for board in itertools.islice(itertools.combinations(deck, 5), limit):
        v = [evaluate_cards(*board, *h) for h in holes]
        best = min(v)
        k = v.count(best)
        for p, x in enumerate(v):
            if x == best:
                acc[p] += 1.0 / k
        n += 1
    return time.perf_counter() - t0, [a / n for a in acc], n


def phe_map(holes: list[list[int]], limit: int | None) -> tuple[float, float, int]:
    """map() over the C evaluate_7cards with pre-generated board columns.

    Returns (seconds for evaluation + win counting, seconds to generate the boards,
    boards). Only the evaluation part is used for the ratio (generous to phevaluator).
    """
    from phevaluator._pheval import evaluate_7cards

    deck = _deck(holes)
    t0 = time.perf_counter()
    cols = list(zip(*itertools.islice(itertools.combinations(deck, 5), limit)))
    t1 = time.perf_counter()
    ranks = [list(map(evaluate_7cards, *cols, repeat(h[0]), repeat(h[1]))) for h in holes]
    best = list(map(min, *ranks)) if len(ranks) > 1 else ranks[0]
    wins = [sum(map(operator.eq, r, best)) for r in ranks]
    t2 = time.perf_counter()
    assert sum(wins) >= len(cols[0])
    return t2 - t1, t1 - t0, len(cols[0])


def ours(hands: list[str], repeat_n: int) -> tuple[float, float, list[float]]:
    """Return (median wall seconds, median CPU seconds, equity) over repeat_n calls."""
    from controller.engine import equity
    from controller.engine.equity import clear_cache

    times, cpu = [], []
    result: list[float] = []
    for _ in range(repeat_n):
        clear_cache()  # equity remembers recent answers; time the computation
        t0, c0 = time.perf_counter(), time.process_time()
        result = equity(hands)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(times), statistics.median(cpu), result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help="time the phevaluator loops on 200,000 boards and extrapolate")
    ap.add_argument("--repeat", type=int, default=7, help="runs of ours (median)")
    args = ap.parse_args(argv)
    limit = 200_000 if args.quick else None

    from controller.engine import equity

    t0 = time.perf_counter()
    equity(["AsKs", "QdQh"])
    print(f"cold first call (imports numpy, builds tables): {time.perf_counter() - t0:.3f} s")
    t0 = time.perf_counter()
    equity(["AsKs", "QdQh"], use_numpy=False)
    print(f"pure-Python fallback, heads-up pre-flop: {time.perf_counter() - t0:.3f} s\n")

    ok = True
    for name, hands in SPOTS.items():
        holes = [[c.index for c in parse_cards(h)] for h in hands]
        total = len(list(itertools.combinations(_deck(holes), 5))) if limit else None
        t_ours, c_ours, eq = ours(hands, args.repeat)
        t_loop, eq_loop, n = phe_loop(holes, limit)
        t_map, t_gen, n2 = phe_map(holes, limit)
        boards = total or n
        scale = boards / n
        t_loop *= scale
        t_map *= scale
        anchor = ISSUE_PER_EVAL_S * boards * len(hands)
        print(f"{name}: {' vs '.join(hands)}  ({boards:,} boards)")
        print(f"  equity ours      {[round(x, 6) for x in eq]}")
        if not limit:
            print(f"  equity phe loop  {[round(x, 6) for x in eq_loop]}")
            ok &= all(abs(a - b) < 1e-9 for a, b in zip(eq, eq_loop))
        note = " (extrapolated from 200,000 boards)" if limit else ""
        print(f"  ours (median of {args.repeat}) {t_ours * 1000:8.1f} ms wall, "
              f"{c_ours * 1000:.1f} ms CPU")
        print(f"  phe loop          {t_loop * 1000:8.1f} ms{note}  ratio {t_loop / t_ours:6.1f}x")
        print(f"  phe map (C eval)  {t_map * 1000:8.1f} ms{note}  ratio {t_map / t_ours:6.1f}x"
              f"  (+{t_gen * scale * 1000:.0f} ms to build board columns, not counted)")
        label = "issue anchor" if name == "heads-up" else "issue anchor, scaled"
        print(f"  {label:17s} {anchor * 1000:8.1f} ms  ratio {anchor / t_ours:6.1f}x wall,"
              f" {anchor / max(c_ours, 1e-9):6.1f}x CPU  (goal >= 10x)\n")
    if not ok:
        print("EQUITY MISMATCH against the phevaluator loop", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
