"""Issue 21 item 3: a durable append into a ``-wal`` written ahead against one that grows.

Every append is one commit and one ``fdatasync`` of the ``-wal`` (``synchronous=FULL``). On
ext4 a sync of a file that grew also commits the file system's journal (the new size, the new
blocks); a sync of blocks the file already had flushes the data only. The journal writes its
``-wal`` ahead with zeros before its first append (``controller.journal.WAL_PREALLOC``); main
did not, so the first ~1,000 appends after every start grew the file.

Times ``--events`` durable appends into a fresh journal two ways, interleaved round by round:

- ``growing`` (the anchor: main's behaviour): the journal with its write-ahead turned off;
- ``written ahead``: the journal as it is.

    .venv/bin/python bench/bench_journal_wal.py [--events 600] [--runs 5] [--dir /var/lib/livetable]

Prints each way's median, p99 and max per append (every append of every round), and on the
last line the anchor, the goal (the write-ahead's p99 at most the growing one's: it must not
cost) and the ratio p99 written-ahead / growing (< 1: it helps). Run it on the Pi's SD card
(``--dir``) for the Pi's figure.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.journal import Journal  # noqa: E402

PAYLOAD = {"kind": "action-taken", "seat": 3, "action": "raise", "amount": 600, "action_id": "a-000123"}


def appends(folder: str, events: int, ahead: bool) -> list[float]:
    """Return the seconds of each of ``events`` durable appends into a fresh journal."""
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        j = Journal(os.path.join(tmp, "j.sqlite"))
        if not ahead:
            j._preallocate_wal = lambda: None  # type: ignore[method-assign]  # noqa: SLF001
        out = []
        try:
            for n in range(events):
                t0 = time.perf_counter()
                j.append("table", {**PAYLOAD, "n": n}, float(n))
                out.append(time.perf_counter() - t0)
        finally:
            j.close()
        return out


def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))]


def main(argv: list[str] | None = None) -> int:
    """Run the bench; the last line: anchor, goal, ratio."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=600, help="appends per journal (main's -wal grew for ~1,000)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--dir", default=None, help="where the journals are written (default: the temp folder)")
    ns = ap.parse_args(argv)
    folder = ns.dir or tempfile.gettempdir()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    times: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(ns.runs):  # interleaved: a shared disk's noise falls on both alike
        for ahead in (False, True):
            times[ahead] += appends(folder, ns.events, ahead)
    figs = {}
    for ahead, name in ((False, "growing"), (True, "written ahead")):
        t = times[ahead]
        figs[ahead] = (statistics.median(t) * 1000, percentile(t, 99) * 1000, max(t) * 1000)
        print(f"{name:14} median {figs[ahead][0]:6.3f} ms, p99 {figs[ahead][1]:6.3f} ms, max {figs[ahead][2]:7.3f} ms "
              f"({len(t)} appends)")
    print(f"load {load} -> {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"journal wal: anchor growing -wal (main) p99 {figs[False][1]:.2f} ms, median {figs[False][0]:.2f} ms "
          f"per durable append; goal the -wal written ahead no slower (p99 ratio <= 1); ratio p99 "
          f"{figs[True][1] / figs[False][1]:.2f} ({figs[True][1]:.2f} ms), median {figs[True][0] / figs[False][0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
