"""Exact all-in equity against native brute force, interleaved in one run (issue 21).

Run:  .venv/bin/python bench/bench_equity.py [--quick] [--rounds N] [--phe-sdist PATH]

The anchor is the fastest real peer: phevaluator's own C evaluator in a compiled loop that
deals every completion of the board and ranks every player (``evaluate_7cards`` for
Hold'em, ``evaluate_plo4_cards`` for Omaha), built at bench time from the installed
version's C sources (bench/_native.py; nothing built is kept). No peer has an exact
enumeration API, so the brute force is the native way to the same exact numbers.

Cases: pre-flop, flop and turn; Hold'em 2..10 players and Omaha 2..6. Each case is a set of
seeded random deals (all cards distinct, no dead cards). In every round the native loop and
``controller.engine.equity`` (the public call, card texts in, floats out, as
controller/runtime.py calls it; its answer cache cleared) are timed on the same deals, the
order alternating round by round; the figure is the median round (5 rounds pre-flop, 15 on
the flop and turn, whose rounds last about a millisecond). Both sides are timed in the CPU
time of their thread (``CLOCK_THREAD_CPUTIME_ID`` in C, ``time.thread_time`` in Python): on
this shared machine a round of a millisecond on the wall clock measures whoever else the
scheduler ran. The native loop is timed inside C on card ids (no Python, no parsing), which
favours it. Before timing, every deal's
exact shares are compared with the native counts (``equity_fractions``), so a fast wrong
answer fails the bench.

Goal (issue 21): ours at least as fast as native (ratio >= 1) in every case and at least
10x on Hold'em pre-flop. The last line gives the anchor, the goal and the worst ratios.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _native  # noqa: E402

from controller.engine.cards import FULL_DECK  # noqa: E402

STREETS = {"pre-flop": 0, "flop": 3, "turn": 4}
GOAL_ALL = 1.0
GOAL_HOLDEM_PREFLOP = 10.0


def cases() -> list[tuple[str, str, int]]:
    """(game, street, players) for every case of the issue."""
    out = []
    for street in STREETS:
        out += [("holdem", street, p) for p in range(2, 11)]
        out += [("omaha", street, p) for p in range(2, 7)]
    return out


def deals(game: str, street: str, players: int, n: int, seed: int) -> list[tuple[list, list]]:
    """n seeded random deals: (hole card indices per player, board indices)."""
    rng = random.Random(f"{seed}-{game}-{street}-{players}")
    k = 4 if game == "omaha" else 2
    nb = STREETS[street]
    out = []
    for _ in range(n):
        cards = rng.sample(range(52), players * k + nb)
        out.append(([cards[i * k:(i + 1) * k] for i in range(players)], cards[players * k:]))
    return out


def spots_per_case(street: str, players: int, game: str, quick: bool) -> int:
    """Enough deals that one round takes some milliseconds on either side."""
    if street == "pre-flop":
        return 1 if quick else 2
    if street == "flop":
        return 40 if quick else 120
    return 150 if quick else 400


def main(argv: list[str] | None = None) -> int:
    """Run every case; print one line per case and the summary last; 0, or 1 on a mismatch."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer deals and rounds")
    ap.add_argument("--rounds", type=int, default=None, help="interleaved rounds (median)")
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--phe-sdist", default=None,
                    help="phevaluator sdist (.tar.gz) or folder; default: pip download")
    ap.add_argument("--native-dir", default=None,
                    help="build the native peer there and reuse it (default: a temp dir)")
    ap.add_argument("--only", default=None, help="only cases whose name contains this")
    args = ap.parse_args(argv)
    rounds = args.rounds or (3 if args.quick else 5)
    small_rounds = args.rounds or (5 if args.quick else 15)  # flop, turn: short rounds

    lib, how = _native.load(args.phe_sdist, build_dir=args.native_dir)
    print(f"native: {how}")
    from controller.engine.equity import clear_cache, equity, equity_fractions, prepare

    t0 = time.perf_counter()
    prepare()
    equity(["AsKs", "QdQh"], ["Jh", "8c", "3d"])
    print(f"ours: first call (tables, numpy, compiled module set up): "
          f"{(time.perf_counter() - t0) * 1000:.0f} ms")
    texts = [str(c) for c in FULL_DECK]

    results = []
    ok = True
    for game, street, players in cases():
        name = f"{game} {street} {players}p"
        if args.only and args.only not in name:
            continue
        n = spots_per_case(street, players, game, args.quick)
        spots = deals(game, street, players, n, args.seed)
        omaha = game == "omaha"
        nb = STREETS[street]
        holes_flat = _native.int_array([c for h, _ in spots for hole in h for c in hole])
        boards_flat = _native.int_array([c for _, b in spots for c in b])
        acc = _native.i64_array(n * players)
        totals = _native.i64_array(n)
        questions = [([[texts[c] for c in hole] for hole in h], [texts[c] for c in b])
                     for h, b in spots]

        def native() -> float:
            return lib.run_spots(int(omaha), players, n, holes_flat, nb, boards_flat, acc, totals)

        def ours() -> float:
            clear_cache()
            t = time.thread_time()
            for hs, b in questions:
                if street == "pre-flop":
                    clear_cache()  # (the cache is cleared outside the timing on the others)
                equity(hs, b, game=game)
            return time.thread_time() - t

        native()  # checks the answers below, and warms both
        for s, (hs, b) in enumerate(questions):
            want = [Fraction(acc[s * players + p], totals[s] * 2520) for p in range(players)]
            got = equity_fractions(hs, b, game=game)
            if got != want:
                ok = False
                print(f"  MISMATCH {name}: {hs} {b}: ours {got} native {want}", file=sys.stderr)
        ours()
        tn, to = [], []
        for r in range(rounds if street == "pre-flop" else small_rounds):
            if r % 2:
                to.append(ours())
                tn.append(native())
            else:
                tn.append(native())
                to.append(ours())
        mn, mo = statistics.median(tn) / n, statistics.median(to) / n
        ratio = mn / mo
        goal = GOAL_HOLDEM_PREFLOP if (game, street) == ("holdem", "pre-flop") else GOAL_ALL
        results.append((name, ratio, goal))
        unit, scale = ("ms", 1e3) if street == "pre-flop" else ("us", 1e6)
        print(f"{name:20s} native {mn * scale:9.1f} {unit}  ours {mo * scale:9.1f} {unit}  "
              f"ratio {ratio:7.1f}x  (goal >= {goal:.0f}x{'' if ratio >= goal else ', MISSED'})"
              f"  [{n} deals x {len(tn)} rounds]", flush=True)

    if not ok:
        print("EQUITY MISMATCH against the native brute force", file=sys.stderr)
    worst = min(results, key=lambda x: x[1] / x[2])
    hp = [r for n_, r, _ in results if n_.startswith("holdem pre-flop")]
    met = sum(r >= g for _, r, g in results)
    print(f"equity: anchor phevaluator native brute force (C loop, same run); goal >= 1x every "
          f"case, >= 10x Hold'em pre-flop; ratio worst {worst[1]:.1f}x ({worst[0]}), Hold'em "
          f"pre-flop min {min(hp) if hp else float('nan'):.1f}x; {met}/{len(results)} cases meet "
          f"the goal{'' if ok else '; ANSWERS MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
