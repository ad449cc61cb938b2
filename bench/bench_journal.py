"""Issue 21 journal goals: bytes per hand, and start-up to READY at 1k, 10k and 50k hands.

Builds a journal of ``--hands`` hands (1,000: a full table, ten simulated players all in
every hand, the internal dealer, as ``livetable run`` writes it, non-durable writes to build
it quickly), then:

- **bytes per hand**: the journal file (WAL checkpointed: pages, as the disk holds it)
  divided by the hands in it, with what the events and the snapshots take (SQLite's
  ``dbstat``): at 10 seats (the headline), at 6 seats, and at a single-table tournament of 10
  seats (``livetable simulate --tournament``, 3 seeds);
- **READY**: ``livetable run`` from exec to systemd's READY=1 (the shuffler emulator on a
  pty; bench_run.py's measure), ``journal.keep_hands = 0`` (every hand stays) on journals
  of 1k, 10k and 50k hands beside a history folder holding every hand's files, as a real
  table's does (:func:`ready_journals`; Python's bytecode cached as the installer compiles
  it: bench_run.ready_times); the bigger ones are the built journal repeated with its seqs
  shifted (:func:`tile`: 50k hands played take some 15 minutes here; what start-up reads
  is the same amount of data), and the journal's own part of start-up in-process
  (open, the start-up check, recovery: less noisy than READY on a loaded machine).

    .venv/bin/python bench/bench_journal.py [--hands 1000] [--sizes 1,10,50] [--runs 5]

- **compaction** to the last ``--keep`` hands as ``livetable run`` does it, in the
  background (:func:`compaction`): the longest call the keeper makes on the table's loop
  (a deletion, a vacuum step), beside the loop's own durable appends and how late the loop
  wakes, with and without compaction; the file's size before and after.

The last line: the anchors (issue 21, measured on main: 13.6 KB per hand, READY 0.72 s at
1k hands, 1.06 s at 10k, 2.83 s at 50k, compaction pauses of 0.2-1.1 s), the goals (<= 4 KB
per hand, READY <= 1 s at each size, compaction holds the loop <= 20 ms) and the ratios
measured/goal (<= 1 meets it; for bytes per hand, the worst of the three tables).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

CONFIG = '[table]\nid = "bench"\nseats = 10\nbig_blind = 100\n[shuffler]\nport = "{port}"\n' \
         '[journal]\npath = "{journal}"\nhistory_dir = "{hands}"\nkeep_hands = {keep}\n'


def build(path: Path, hands: int, history: Path | None, seats: int = 10, first: int = 0) -> float:
    """Write a journal of ``hands`` hands at ``path`` of a cash table of ``seats`` seats, every
    seat in every hand (and their histories in ``history``, fsynced as the table writes them,
    unless None); return seconds. ``first``: the hands the table had played before (its hands
    are numbered ``first + 1`` on, as a journal compacted or tiled after that many hands
    numbers them)."""
    from dataclasses import replace

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

    settings = settings_from_config(parse_config({"table": {"id": "bench", "seats": seats, "big_blind": 100}}))
    writer = HistoryWriter(history) if history is not None else None

    class P(Ports):
        def hand_finished(self, hand, record):
            if writer is not None:
                writer.write(hand, record)

    clock = ManualClock()
    journal = Journal(path, durable=False)
    orch = Orchestrator(replace(TableState.new(settings), hands=first), journal=journal, clock=clock, ports=P())
    orch._snapshot(clock())  # noqa: SLF001 - as open_table does on a fresh journal
    orch.ports.dealer = InternalDealer(orch.post, clock, seed=1)
    pacer = HandPacer(orch.post, clock, rebuy=set(range(1, seats + 1)), max_hands=hands)
    orch.listeners += [SimPlayers(range(1, seats + 1), orch.post, clock, seed=1), pacer]
    for s in range(1, seats + 1):
        orch.post(ev.PlayerSatDown(at=clock(), seat=s, player=f"p{s}"))
        orch.post(ev.BoughtIn(at=clock(), seat=s, amount=10_000))
    t0 = time.perf_counter()
    while orch.hands_finished < hands:
        clock.advance(0.5)
        if orch.pump() == 0 and not orch.timers.running:
            pacer.kick(orch)
    journal.close()
    return time.perf_counter() - t0


def tournament_bytes(tmp: Path, seeds: int = 3) -> tuple[int, int, int]:
    """Play ``seeds`` single-table tournaments at 10 seats (``livetable simulate --tournament
    --tournament-config config/tournament.toml --devices none``, seeds 1..``seeds``), each into
    a journal of its own; return (bytes of the journal files, bytes of their events' and
    snapshots' pages, hands played). A file's other pages (its schema, ``meta``, auto_vacuum's
    pointer map: 12 KB) are the same for a journal of any length: the second figure leaves
    them out."""
    import subprocess

    total = pages = hands = 0
    for seed in range(1, seeds + 1):
        path = tmp / f"tournament-{seed}.sqlite"
        out = subprocess.run([sys.executable, "-m", "controller.cli", "simulate", "--tournament",
                              "--tournament-config", str(REPO / "config" / "tournament.toml"), "--seats", "10",
                              "--devices", "none", "--headless", "--speed", "0", "--seed", str(seed),
                              "--journal", str(path)], capture_output=True, text=True, check=True, cwd=REPO)
        hands += int(json.loads(out.stdout.strip().splitlines()[-1])["hands"])
        sz = sizes(path)
        total += sz["file"]
        pages += sz.get("events", 0) + sz.get("snapshots", 0)
    return total, pages, hands


def tile(src: Path, dst: Path, times: int) -> None:
    """Write at ``dst`` a journal of ``times`` copies of the journal at ``src``, one after the
    other, seqs shifted (a journal of ``times`` x its hands in seconds, where playing them
    takes 12 ms a hand). What start-up reads is what a journal of that many hands holds: as
    many events and snapshots, the same sizes; its last copy is the real table's, where
    recovery and the start-up check replay. (The copies' hand numbers start again at 1 in
    each copy: recall across copies is not meaningful; start-up does not read them.)"""
    import sqlite3

    from controller.journal import Journal

    for suffix in ("", "-wal", "-shm", ".mark"):
        Path(f"{dst}{suffix}").unlink(missing_ok=True)
    Journal(dst, durable=False).close()  # the schema, the meta and the mark of a journal
    db = sqlite3.connect(dst, isolation_level=None)
    try:
        db.execute("ATTACH ? AS s", (str(src),))
        span = db.execute("SELECT MAX(seq) FROM s.events").fetchone()[0]
        db.execute("BEGIN")
        for k in range(times):
            db.execute("INSERT INTO events SELECT seq + ?, at, kind, payload FROM s.events", (k * span,))
            db.execute("INSERT INTO snapshots SELECT upto + ?, at, state FROM s.snapshots WHERE upto > 0 OR ? = 0",
                       (k * span, k))
        db.execute("COMMIT")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()
    Journal(dst).close()  # its mark brought up to date (a mark behind the journal is, at open)


def full_history(folder: Path, built: Path, last: int) -> int:
    """Fill ``folder`` with the files of hands 1..``last`` of a table (``hand-N.json`` and
    ``hand-N.phh``), as a real table's history folder holds them after ``last`` hands, from
    ``built``: the files the build wrote (the newest hands: their own files, copied); each
    older hand's two names are hard links to one of those (start-up reads none of the older
    files, only the folder's entries and the files by the newest hands: a folder of as many
    names, made in seconds, without a gigabyte of copies). Return the files in ``folder``."""
    import shutil

    folder.mkdir(parents=True, exist_ok=True)
    own = sorted(int(p.stem.split("-")[1]) for p in built.glob("hand-*.json"))
    for n in own:
        for ext in (".json", ".phh"):
            if (built / f"hand-{n:06d}{ext}").exists() and not (folder / f"hand-{n:06d}{ext}").exists():
                shutil.copy2(built / f"hand-{n:06d}{ext}", folder / f"hand-{n:06d}{ext}")
    for n in range(1, min(own) if own else last + 1):
        src = own[n % len(own)] if own else None
        for ext in (".json", ".phh"):
            dst = folder / f"hand-{n:06d}{ext}"
            if src is not None and not dst.exists() and (built / f"hand-{src:06d}{ext}").exists():
                os.link(folder / f"hand-{src:06d}{ext}", dst)
    return sum(1 for _ in os.scandir(folder))


def ready_journals(tmp: Path, played: int, sizes: list[int]) -> tuple[dict[int, Path], Path, int]:
    """Journals for READY beside a full history folder (issue 21: a table's folder after 50k
    hands holds 100k files, and start-up read it whole): a journal of ``played`` hands built
    numbered after ``(max(sizes) - 1) * played`` hands played before, tiled ``k`` times for
    each ``k`` in ``sizes`` (:func:`tile`: the last copy, the one start-up replays, ends on
    hand ``max(sizes) * played``), and one history folder holding the files of every hand
    1..``max(sizes) * played`` (:func:`full_history`) beside each of them: a journal of
    fewer hands is the one a table with ``keep_hands`` set keeps beside that folder. Return
    ``({k: journal}, folder, files in it)``."""
    top = max(sizes)
    src, built = tmp / "ready-built.sqlite", tmp / "ready-built-hands"
    if not src.exists():
        build(src, played, built, first=(top - 1) * played)
    folder = tmp / "ready-hands"
    files = full_history(folder, built, top * played)
    journals = {}
    for k in sizes:
        journals[k] = tmp / f"ready-j{k}k.sqlite"
        tile(src, journals[k], k)
    return journals, folder, files


def ready_times(cfg: Path, tmp: Path, runs: int) -> list[float]:
    """Seconds to READY=1 of ``livetable run --config cfg``, ``runs`` times (bench_run's)."""
    sys.path.insert(0, str(REPO / "bench"))
    from bench_run import ready_times as run_ready_times

    return run_ready_times(cfg, tmp, runs, timeout=120.0)


def recover_seconds(path: Path, runs: int = 5) -> float:
    """Median seconds to open the journal, check it as start-up does (the mark, SQLite, the
    newest snapshot against the replay from the one before it) and recover (what start-up does)."""
    from controller.journal import Journal
    from controller.journal_check import problems
    from controller.orchestrator import Orchestrator

    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        with Journal(path) as j:
            assert not problems(j, full=False)  # the start-up check (controller/runtime.py)
            Orchestrator.recover(j, lambda: None, clock=time.time)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def compaction(src: Path, tmp: Path, keep: int) -> tuple[str, float]:
    """Compact a copy of the journal at ``src`` down to its last ``keep`` hands as ``livetable
    run`` does: the keeper in the background (its thread checks and fsyncs the hands' files,
    already written as the live table's HistoryWriter has them), the loop calling it after
    every event (one a millisecond, a hand every 40) and deleting what was prepared, then
    one vacuum step a hand until the file has given back every free page. Return a line with
    the loop's longest hold (the keeper's call on the loop, and how late a 1 ms sleep of the
    loop woke: the GIL the keeper's thread held, and the machine's load) and the file's size
    before and after (WAL checkpointed), and the longest hold in seconds."""
    from controller.compaction import JournalKeeper, write_hand_files
    from controller.journal import Journal

    path, hands = tmp / "compact.sqlite", tmp / "hands"
    tile(src, path, 1)
    hands.mkdir(parents=True, exist_ok=True)
    with Journal(path) as j:  # the hands' files, as the live table wrote them (not timed)
        keeper = JournalKeeper(j, keep_hands=keep, history_dir=hands)
        for n, record in keeper._records(0, j.last_seq).items():  # noqa: SLF001
            write_hand_files(hands, n, record)
    before = sizes(path)["file"]
    commits: list[float] = []
    purges: list[float] = []
    steps: list[float] = []
    calls: list[float] = []
    late: list[float] = []
    appends: list[float] = []
    base_late: list[float] = []
    base_appends: list[float] = []
    with Journal(path) as j:  # the same loop without compaction: the machine's own noise
        for n in range(1000):
            t0 = time.perf_counter()
            j.append("bench", {"n": n}, time.time())
            base_appends.append(time.perf_counter() - t0)
            t1 = time.perf_counter()
            time.sleep(0.001)
            base_late.append(max(0.0, time.perf_counter() - t1 - 0.001))
    t_start = time.perf_counter()
    with Journal(path) as j:
        # as livetable run has it (controller/composition.py)
        keeper = JournalKeeper(j, keep_hands=keep, history_dir=hands, background=True, max_hands_per_run=20)
        n = held = 0
        while True:
            n += 1
            finished = n % 40 == 0
            t0 = time.perf_counter()
            j.append("bench", {"n": n}, time.time())  # the loop's own durable append of the event
            appends.append(time.perf_counter() - t0)
            runs = len(keeper.runs)
            t0 = time.perf_counter()
            keeper.step(finished)
            dt = time.perf_counter() - t0
            calls.append(dt)
            kind = keeper.holds[-1][0] if len(keeper.holds) > held else None
            held = len(keeper.holds)
            if len(keeper.runs) > runs:
                commits.append(dt)
            elif kind == "purge":
                purges.append(dt)
            elif kind == "vacuum":
                steps.append(dt)
            t1 = time.perf_counter()
            time.sleep(0.001)  # the loop waiting for its next event
            late.append(max(0.0, time.perf_counter() - t1 - 0.001))
            if finished and keeper.idle and not keeper.purging and keeper.plan() is None \
                    and not j.free_pages()[0]:
                break
        keeper.close()
    wall = time.perf_counter() - t_start
    after = sizes(path)["file"]

    def ms(xs: list[float]) -> str:
        return f"max {max(xs) * 1000:.1f} ms, median {statistics.median(xs) * 1000:.1f} ms" if xs else "none"

    hold = max(calls)
    rows = [u for k, u, _ in keeper.holds if k == "purge"]
    pages = [u for k, u, _ in keeper.holds if k == "vacuum"]
    return (f"compaction to the last {keep} hands in the background ({wall:.0f} s, {n} loop events): "
            f"{len(commits)} commits on the loop ({ms(commits)}), {len(purges)} deletions of "
            f"{min(rows, default=0)}-{max(rows, default=0)} rows ({ms(purges)}), {len(steps)} vacuum steps of "
            f"{min(pages, default=0)}-{max(pages, default=0)} pages ({ms(steps)}), every call on the loop "
            f"{ms(calls)}; the loop's "
            f"durable appends meanwhile (an fsync of this disk) {ms(appends)}; a 1 ms "
            f"sleep of the loop woke late by {ms(late)} (the keeper's thread's GIL, and the machine); "
            f"without compaction, the same loop: appends {ms(base_appends)}, woke late by {ms(base_late)}; "
            f"file {before / 1e6:.2f} MB -> {after / 1e6:.2f} MB"), hold


def full_check_seconds(path: Path) -> float:
    """Seconds :meth:`Journal.check` takes with ``full=True`` (livetable history --check)."""
    from controller.journal import Journal

    with Journal(path) as j:
        t0 = time.perf_counter()
        j.check(full=True)
        return time.perf_counter() - t0


def sizes(path: Path) -> dict[str, int]:
    """Bytes the file's pages take per table (SQLite's ``dbstat``), and ``file``."""
    import sqlite3

    db = sqlite3.connect(path)
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        out = {name: int(b) for name, b in db.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name")}
    finally:
        db.close()
    out["file"] = path.stat().st_size
    return out


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--hands", type=int, default=1000, help="hands played into the built journal")
    p.add_argument("--sizes", default="1,10,50", help="journals of these many times --hands for READY")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--keep", type=int, default=500, help="hands kept by the compaction measured")
    p.add_argument("--dir", default=None, help="work folder (default: a new temporary one)")
    a = p.parse_args()
    from drivers.shuffler.emulator import Emulator

    tmp = Path(a.dir or tempfile.mkdtemp(prefix="bench-journal-"))
    if a.dir is None:  # its journals take some 250 MB: a folder of its own is removed at the end
        import atexit
        import shutil

        atexit.register(shutil.rmtree, tmp, True)
    from controller.orchestrator import SNAPSHOT_EVERY

    src = tmp / "built.sqlite"
    # The worst case for start-up: the most hands after the newest snapshot (recovery
    # replays them, and the start-up check replays them from the snapshot before).
    played = a.hands + SNAPSHOT_EVERY - 1
    if not src.exists():
        secs = build(src, played, None)
        print(f"built a journal of {played} hands in {secs:.0f} s")
    sz = sizes(src)
    per_hand = sz["file"] / played
    print(f"bytes per hand, 10 seats (every seat in the hand): {per_hand:.0f} (file {sz['file'] / 1e6:.2f} MB / "
          f"{played} hands; events {sz.get('events', 0) / played:.0f} B/hand, snapshots "
          f"{sz.get('snapshots', 0) / played:.0f} B/hand)")
    six = tmp / "built6.sqlite"
    build(six, played, None, seats=6)
    sz6 = sizes(six)
    per_hand6 = sz6["file"] / played
    print(f"bytes per hand, 6 seats: {per_hand6:.0f} (events {sz6.get('events', 0) / played:.0f} B/hand, "
          f"snapshots {sz6.get('snapshots', 0) / played:.0f} B/hand)")
    t_file, t_pages, t_hands = tournament_bytes(tmp)
    per_hand_t = t_file / t_hands
    print(f"bytes per hand, tournament at 10 seats (config/tournament.toml, 3 tournaments, {t_hands} hands): "
          f"{per_hand_t:.0f} (files {t_file} B; events and snapshots {t_pages / t_hands:.0f} B/hand; the rest "
          f"is each file's schema, meta and pointer-map pages)")
    worst = max(per_hand, per_hand6, per_hand_t)
    line, hold = compaction(src, tmp, a.keep)
    print(line)
    emu = Emulator(seed=1)
    port = emu.start()
    ready: dict[int, float] = {}
    try:
        cfgs: dict[int, Path] = {}
        sizes_k = [int(x) for x in a.sizes.split(",")]
        # READY beside a history folder holding every hand's files, as a real table's after
        # that many hands (an empty folder left out start-up's reading of it: issue 21)
        journals, folder, files = ready_journals(tmp, played, sizes_k)
        print(f"history folder beside every journal: {files:,} files (hands 1..{max(sizes_k) * played:,})")
        for times, path in journals.items():
            hands = times * played
            inproc, full = recover_seconds(path), full_check_seconds(path)
            print(f"{hands} hands ({path.stat().st_size / 1e6:.0f} MB): open + start-up check + recovery "
                  f"in-process median {inproc * 1000:.0f} ms (the full check, not run at start-up: "
                  f"{full * 1000:.0f} ms)")
            cfgs[hands] = tmp / f"j{hands}.toml"
            cfgs[hands].write_text(CONFIG.format(port=port, journal=path, hands=folder, keep=0))
        times_of: dict[int, list[float]] = {h: [] for h in cfgs}
        for _ in range(a.runs):  # interleaved: the machine's load falls on every size alike
            for hands, cfg in cfgs.items():
                times_of[hands] += ready_times(cfg, tmp, 1)
        for hands, t in times_of.items():
            ready[hands] = statistics.median(t)
            print(f"{hands} hands: READY median {ready[hands]:.2f} s (runs {', '.join(f'{x:.2f}' for x in t)})")
    finally:
        emu.stop()
    print(json.dumps({"load_average": os.getloadavg(), "dir": str(tmp)}))
    anchors = {1: 0.72, 10: 1.06, 50: 2.83}  # main's READY at 1k, 10k, 50k hands
    print("journal: anchor main (issue 21) 13.6 KB/hand, READY "
          + ", ".join(f"{anchors.get(h // played, float('nan')):.2f} s at {h} hands" for h in ready)
          + ", compaction paused the loop 0.2-1.1 s"
          + "; goal <= 4.0 KB/hand, READY <= 1.00 s at each size, compaction holds the loop <= 20 ms"
          + f"; ratio measured/goal {worst / 4000:.2f} (the worst of 10 seats {per_hand / 1000:.2f}, 6 seats "
          + f"{per_hand6 / 1000:.2f}, tournament {per_hand_t / 1000:.2f} KB/hand), READY "
          + ", ".join(f"{v:.2f} ({v:.2f} s)" for v in ready.values())
          + f", compaction {hold / 0.020:.2f} ({hold * 1000:.1f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
