"""Issue 16: kill -9 ``livetable run`` at random moments, with the shuffler emulator and four
tablets outliving it; count resumed against voided hands.

    .venv/bin/python bench/bench_kill_run.py [--kills 100] [--seed 1616]

Goals (issue 16): at least 100 kills, 0 chips lost (the journal replayed with the chips
checked after every event), 0 hands left waiting for the floor. Prints one line with the
counts and exits 1 if a goal is missed. Needs the Mosquitto on 127.0.0.1:1883.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "controller"))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kills", type=int, default=100)
    p.add_argument("--seed", type=int, default=1616)
    args = p.parse_args()
    from killrun import kill_loop

    with tempfile.TemporaryDirectory(prefix="livetable-kill-") as tmp:
        report = kill_loop(Path(tmp), args.kills, seed=args.seed)
    print(report.line())
    bad = report.problems or report.stuck or report.floor_faults
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
