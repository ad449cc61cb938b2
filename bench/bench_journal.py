"""Issue 9 journal compaction: start-up to READY on a journal of many hands, before and after.

Builds a journal of ``--hands`` hands (six simulated players, the internal dealer, one
snapshot per hand, as ``livetable run`` writes it; non-durable writes to build it quickly),
then measures ``livetable run`` from exec to systemd's READY=1 (the shuffler emulator on a
pty; the same path as bench_run.py) on a copy of it:

- ``full``: every event kept (``journal.keep_hands = 0``: what every journal was before);
- ``compacted``: after one JournalKeeper pass down to the last ``--keep`` hands.

Also times the journal's own part of start-up in-process (open, check, replay: less noisy
than READY on a loaded machine), one between-hands compaction of ten hands on the durable journal (the pause the
table takes for it) and the size of the files.

    .venv/bin/python bench/bench_journal.py [--hands 3000] [--keep 500] [--runs 3]

Prints one line per measure, READY with its ratio to the 3 s goal of issue 9.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

CONFIG = '[table]\nid = "bench"\nseats = 6\nbig_blind = 100\n[shuffler]\nport = "{port}"\n' \
         '[journal]\npath = "{journal}"\nhistory_dir = "{hands}"\nkeep_hands = {keep}\n'


def build(path: Path, hands: int, history: Path) -> float:
    """Write a journal of ``hands`` hands at ``path`` (and their histories); return seconds."""
    from controller.devices import HistoryWriter
    from controller.bots import SimPlayers
    from controller.clock import ManualClock
    from controller.config import parse_config
    from controller.dealer import InternalDealer
    from controller.engine.table import events as ev
    from controller.engine.table.state import TableState
    from controller.journal import Journal
    from controller.orchestrator import Orchestrator, Ports
    from controller.runtime import HandPacer, settings_from_config

    settings = settings_from_config(parse_config({"table": {"id": "bench", "seats": 6, "big_blind": 100}}))
    writer = HistoryWriter(history)

    class P(Ports):
        def hand_finished(self, hand, record):
            writer.write(hand, record)

    clock = ManualClock()
    journal = Journal(path, durable=False)
    orch = Orchestrator(TableState.new(settings), journal=journal, clock=clock, ports=P())
    orch._snapshot(clock())  # noqa: SLF001 - as open_table does on a fresh journal
    orch.ports.dealer = InternalDealer(orch.post, clock, seed=1)
    pacer = HandPacer(orch.post, clock, rebuy=set(range(1, 7)), max_hands=hands)
    orch.listeners += [SimPlayers(range(1, 7), orch.post, clock, seed=1), pacer]
    for s in range(1, 7):
        orch.post(ev.PlayerSatDown(at=clock(), seat=s, player=f"p{s}"))
        orch.post(ev.BoughtIn(at=clock(), seat=s, amount=10_000))
    t0 = time.perf_counter()
    while orch.hands_finished < hands:
        clock.advance(0.5)
        if orch.pump() == 0 and not orch.timers.running:
            pacer.kick(orch)
    journal.close()
    return time.perf_counter() - t0


def ready_times(cfg: Path, tmp: Path, runs: int) -> list[float]:
    """Seconds to READY=1 of ``livetable run --config cfg``, ``runs`` times (bench_run's)."""
    sys.path.insert(0, str(REPO / "bench"))
    from bench_run import ready_times as run_ready_times

    return run_ready_times(cfg, tmp, runs, timeout=120.0)


def recover_seconds(path: Path, runs: int = 5) -> float:
    """Median seconds to open the journal, check it (the mark, SQLite, the newest snapshot
    against the replay of the hand before it) and replay it (what start-up does)."""
    from controller.journal import Journal
    from controller.journal_check import problems
    from controller.orchestrator import Orchestrator

    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        with Journal(path) as j:
            assert not problems(j)  # the start-up check (controller/journal_check.py)
            Orchestrator.recover(j, lambda: None, clock=time.time)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def counts(path: Path) -> tuple[int, int, float]:
    import sqlite3

    db = sqlite3.connect(path)
    try:
        ev = db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        sn = db.execute("SELECT COUNT(*) FROM snapshots").fetchone()[0]
    finally:
        db.close()
    return ev, sn, path.stat().st_size / 1e6


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--hands", type=int, default=3000)
    p.add_argument("--keep", type=int, default=500)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--dir", default=None, help="work folder (default: a new temporary one)")
    a = p.parse_args()
    from controller.compaction import JournalKeeper
    from controller.journal import Journal
    from drivers.shuffler.emulator import Emulator

    tmp = Path(a.dir or tempfile.mkdtemp(prefix="bench-journal-"))
    src, hands = tmp / "built.sqlite", tmp / "hands"
    if not src.exists():
        secs = build(src, a.hands, hands)
        print(f"built a journal of {a.hands} hands in {secs:.0f} s")
    ev, sn, mb = counts(src)
    emu = Emulator(seed=1)
    port = emu.start()
    try:
        results = {}
        for name in ("full", "compacted"):
            path = tmp / f"{name}.sqlite"
            shutil.copy(src, path)
            shutil.copy(f"{src}.mark", f"{path}.mark")  # a journal goes with its mark
            extra = ""
            if name == "compacted":
                with Journal(path) as j:
                    keeper = JournalKeeper(j, keep_hands=a.keep, history_dir=hands,
                                           max_hands_per_run=10**9)
                    t0 = time.perf_counter()
                    done = keeper.run()
                    once = time.perf_counter() - t0
                extra = (f"; one-off compaction of hands {done.first}..{done.last} ({done.events} events) "
                         f"took {once:.2f} s" if done else "; nothing to compact")
            extra += f"; journal open + check + replay in-process: median {recover_seconds(path) * 1000:.0f} ms"
            cfg = tmp / f"{name}.toml"
            cfg.write_text(CONFIG.format(port=port, journal=path, hands=hands, keep=0 if name == "full" else a.keep))
            t = ready_times(cfg, tmp, a.runs)
            e, s, m = counts(path)
            results[name] = statistics.median(t)
            print(f"{name}: {e} events, {s} snapshots, file {m:.1f} MB; start-up to READY median "
                  f"{statistics.median(t):.2f} s (runs {', '.join(f'{x:.2f}' for x in t)}); "
                  f"ratio to 3 s goal {statistics.median(t) / 3:.2f}{extra}")
        print(f"READY compacted/full: {results['compacted'] / results['full']:.2f}")
        # The pause a table takes between hands: ten more hands leave a durable journal.
        path = tmp / "compacted.sqlite"
        with Journal(path) as j:
            keeper = JournalKeeper(j, keep_hands=a.keep - 10, history_dir=hands)
            t0 = time.perf_counter()
            done = keeper.run()
            step = time.perf_counter() - t0
        if done:
            print(f"between-hands compaction of {done.last - done.first + 1} hands ({done.events} events, "
                  f"durable journal): {step * 1000:.0f} ms")
    finally:
        emu.stop()
    print(json.dumps({"source_events": ev, "source_snapshots": sn, "source_mb": round(mb, 1),
                      "load_average": os.getloadavg(), "dir": str(tmp)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
