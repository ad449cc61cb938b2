"""Issue 16 item 4: what the journal's mark costs per event.

The mark (``<journal>.mark``, controller/journal.py) is rewritten after every durable commit.
This times a durable append (``synchronous=FULL``: one fsync of the -wal per event) three ways:

- ``no mark``: the append alone (what the journal cost before the mark);
- ``mark``: the append and the mark's ``pwrite`` with no fsync (what the journal does;
  the mark is fsynced once per hand, with the snapshot);
- ``mark+fsync``: the append and a mark fsynced at every event (the alternative not taken).

    .venv/bin/python bench/bench_journal_mark.py [--events 300] [--dir /var/lib/livetable]

Prints milliseconds per event and each variant's ratio to ``no mark`` (the anchor: the
journal's own cost per event). Run it on the Pi's SD card (``--dir``) for the Pi's figure.
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

PAYLOAD = {"kind": "action-taken", "seat": 3, "action": "raise", "amount": 600, "at": 1.5,
           "action_id": "a-000123"}


def per_event(folder: str, events: int, mode: str) -> float:
    """Return seconds per durable append in ``mode`` (``none``, ``mark``, ``sync``)."""
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        j = Journal(os.path.join(tmp, "j.sqlite"))
        if mode == "none":
            j._write_mark = lambda *, sync: None  # type: ignore[method-assign]  # noqa: SLF001
        elif mode == "sync":
            plain = j._write_mark  # noqa: SLF001
            j._write_mark = lambda *, sync: plain(sync=True)  # type: ignore[method-assign]  # noqa: SLF001
        t0 = time.perf_counter()
        for i in range(events):
            j.append("table", PAYLOAD, float(i))
        took = time.perf_counter() - t0
        j.close()
    return took / events


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=300)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--dir", default=None, help="folder on the disk to measure (default: the temp dir)")
    ns = ap.parse_args()
    folder = ns.dir or tempfile.gettempdir()
    runs: dict[str, list[float]] = {"none": [], "mark": [], "sync": []}
    for _ in range(ns.runs):  # interleaved: a shared disk's noise falls on every variant alike
        for mode in runs:
            runs[mode].append(per_event(folder, ns.events, mode))
    res = {mode: statistics.median(v) for mode, v in runs.items()}
    base = res["none"]
    names = {"none": "no mark", "mark": "mark (pwrite)", "sync": "mark+fsync"}
    for mode, sec in res.items():
        print(f"{names[mode]:14} {sec * 1000:8.3f} ms/event  ratio to no mark {sec / base:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
