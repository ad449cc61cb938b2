"""The big differential run against PokerKit 0.7 (issue 15): random hands per game and profile.

Plays ``--hands`` random hands for every profile (deep, antes, short, all-in;
``tests/engine/pokerkit_diff.py``), the games taking turns (NT PT FT NO PO FO N5CD P5CD F5CD;
``--games NT,PO`` plays that many hands of each game listed instead), in both engines,
comparing who acts, the stacks, the pots and the legal ranges at every decision and the
stacks at the end. Prints one line per profile (and one per game within it): hands, hands ending in the same
stacks, decisions compared, documented differences (docs/engine.md, with rule ids: hands
where one was seen / hands whose comparison ended there) and failures, then the totals.
Exit code 1 when any failure (an undocumented difference) was found; its details follow.

Usage: .venv/bin/python bench/bench_pokerkit_diff.py [--hands 5000] [--games all|NT,PO]
       [--profiles short,all-in] [--seed S]     (5000 hands x 4 profiles: ~6 CPU minutes)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "engine"))

import pokerkit_diff as diff  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--hands", type=int, default=5000, help="hands per profile (and game) (5000)")
    p.add_argument("--games", default="all",
                   help="'all' (default: the games in turn within each profile) or a list, e.g. NT,PO")
    p.add_argument("--profiles", default=",".join(diff.PROFILES))
    p.add_argument("--seed", default=None, help="seed prefix (default: the test's seeds)")
    args = p.parse_args(argv)
    games = args.games.split(",")
    profiles = args.profiles.split(",")
    total = diff.Tally()
    failures: list[str] = []
    print("game profile hands same decisions documented(seen) parted failures cpu_s")

    def line(g: str, name: str, t: diff.Tally, cpu: str) -> None:
        print(g, name, t.hands, t.same, t.decisions, dict(sorted(t.documented.items())),
              dict(sorted(t.parted.items())), len(t.failures), cpu, flush=True)

    for name in profiles:
        for g in games:
            t0 = time.process_time()
            seed = f"{args.seed}-{g}-{name}" if args.seed else None
            by_game: dict[str, diff.Tally] = {}
            t = diff.run(g, diff.PROFILES[name], args.hands, seed, by_game)
            line(g, name, t, f"{time.process_time() - t0:.0f}")
            for gg, tt in by_game.items():
                line("  " + gg, name, tt, "-")
            diff._add(total, t, t.hands)
            failures += t.failures
    print("TOTAL", total.hands, "hands", total.same, "same stacks", total.decisions, "decisions;",
          "documented", dict(sorted(total.documented.items())), "parted", dict(sorted(total.parted.items())),
          "failures", len(failures))
    for f in failures[:20]:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
