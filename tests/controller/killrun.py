"""The kill loop on ``livetable run`` with the shuffler emulator and four tablets (issue 16).

Shared by ``tests/controller/test_run_kill.py`` (a modest count in the normal suite, 100+ in
a ``slow`` test) and ``bench/bench_kill_run.py``. The emulator (on a pty) and the four
simulated players (:class:`controller.simtablets.TabletPlayer`, seat tablets on the broker)
live in this process and outlive the controller: ``livetable run --config`` is started as
systemd starts it, killed with SIGKILL once its journal has moved on a random number of
events, and started again on the same journal, shuffler and tablets. Then it is started once
more and must play a whole hand (nothing left waiting for the floor), and the whole journal is
replayed with the chips checked after every event.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def last_seq(path: Path) -> int:
    """The journal's newest event seq (0 when it cannot be read yet)."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)
        try:
            return db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error:
        return 0


@dataclass
class KillReport:
    """What the loop saw: ``kills``; ``recoveries`` by outcome; ``resumed`` / ``voided``
    interrupted hands; ``void_reasons``; ``hands`` dealt; ``events`` replayed with the
    chips checked; ``floor_faults``: faults not ended by the system (must be 0);
    ``stuck``: starts after which the table did not move (must be 0)."""

    kills: int = 0
    recoveries: dict[str, int] = field(default_factory=dict)
    resumed: int = 0
    voided: int = 0
    void_reasons: dict[str, int] = field(default_factory=dict)
    hands: int = 0
    events: int = 0
    floor_faults: list[dict[str, Any]] = field(default_factory=list)
    stuck: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def line(self) -> str:
        """One line for the test's output and the bench."""
        return (f"{self.kills} kill -9 of livetable run: recoveries {self.recoveries}; interrupted hands "
                f"resumed {self.resumed}, voided {self.voided} {self.void_reasons}; {self.hands} hands dealt; "
                f"{self.events} table events replayed, chips checked after each: "
                f"{len(self.problems)} problems; floor faults {len(self.floor_faults)}; stuck {len(self.stuck)}; "
                f"{self.seconds:.0f} s")


def _config(tmp: Path, port: str, table: str) -> Path:
    cfg = tmp / "table.toml"
    cfg.write_text(f"""
[table]
id = "{table}"
seats = 4
big_blind = 100
tablet_join = "direct"
action_seconds = 5
[shuffler]
port = "{port}"
[mqtt]
host = "127.0.0.1"
port = 1883
[journal]
path = "{tmp / 'journal.sqlite'}"
history_dir = "{tmp / 'hands'}"
""")
    return cfg


def _start(cfg: Path, log: Path) -> subprocess.Popen[bytes]:
    with open(log, "ab") as err:
        return subprocess.Popen([sys.executable, "-m", "controller", "run", "--config", str(cfg),
                                 "--log-level", "WARNING"], cwd=REPO, stdout=subprocess.DEVNULL, stderr=err)


def _wait_progress(proc: subprocess.Popen[bytes], journal: Path, target: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while last_seq(journal) < target and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)  # polling the journal file for progress, not a timing assumption
    return last_seq(journal) >= target


def kill_loop(tmp: Path, kills: int, *, seed: int = 16, stall: float = 60.0) -> KillReport:
    """Run the loop (see the module docstring) in folder ``tmp``; return what it saw."""
    from controller.simtablets import TabletPlayer
    from drivers.shuffler.emulator import Emulator

    t0 = time.monotonic()
    rng = random.Random(seed)
    table = f"kill{uuid.uuid4().hex[:8]}"
    emu = Emulator(seed=seed)
    port = emu.start()
    cfg = _config(tmp, port, table)
    journal = tmp / "journal.sqlite"
    log = tmp / "controller.log"
    players = [TabletPlayer(table, s, host="127.0.0.1", port=1883, name=f"Player {s}", buy_in=10000,
                            seed=seed).start() for s in range(1, 5)]
    report = KillReport()
    try:
        for i in range(kills):
            before = last_seq(journal)
            target = before + rng.choice([1, 2, 3, 5, 8, 13, 21, 34, 55])
            proc = _start(cfg, log)
            try:
                if not _wait_progress(proc, journal, target, stall):
                    report.stuck.append(f"start {i}: journal at {last_seq(journal)}, wanted {target}, "
                                        f"exit {proc.poll()}")
            finally:
                if proc.poll() is None:
                    os.kill(proc.pid, signal.SIGKILL)
                proc.wait(30)
            report.kills += 1
        # Once more: the table must play on by itself (a whole hand ends), then stop cleanly.
        proc = _start(cfg, log)
        try:
            seen = hands_seen(tmp)
            deadline = time.monotonic() + stall
            while hands_seen(tmp) < seen + 1 and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.01)  # polling the journal file for progress
            if hands_seen(tmp) < seen + 1:
                report.stuck.append(f"final start: no hand finished in {stall} s")
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(30)
    finally:
        for p in players:
            p.stop()
        emu.stop()
    analyse(journal, cfg, report)
    report.seconds = time.monotonic() - t0
    return report


def hands_seen(tmp: Path) -> int:
    """How many finished hands the controller has written to its history folder."""
    return len(list((tmp / "hands").glob("hand-*.phh")))


def analyse(journal: Path, cfg: Path, report: KillReport) -> None:
    """Replay the whole journal: chips after every event, recoveries, faults."""
    from controller.config import load_config
    from controller.engine.table.audit import audit
    from controller.engine.table.codec import from_json
    from controller.engine.table.state import TableState
    from controller.engine.table.step import step
    from controller.journal import Journal
    from controller.runtime import settings_from_config

    settings = settings_from_config(load_config(cfg))
    with Journal(journal) as j:
        report.problems += [f"journal check: {p}" for p in j.check()]
        recoveries = [e.payload for e in j.entries(kinds=("recovery",))]
        table = list(j.entries(kinds=("table",)))
        rejected = {int(e.payload.get("seq", 0)) for e in j.entries(kinds=("rejected",))}
        raised = [e.payload for e in j.entries(kinds=("fault-raised",))]
        ended = [e.payload for e in j.entries(kinds=("fault-ended",))]
    for r in recoveries:
        report.recoveries[r["outcome"]] = report.recoveries.get(r["outcome"], 0) + 1
        if r["hand"] is not None:
            if r["outcome"] == "resumed":
                report.resumed += 1
            else:
                report.voided += 1
                why = r["reason"].split(":")[0].split("(")[0].strip()[:60]
                report.void_reasons[why] = report.void_reasons.get(why, 0) + 1
    # A fault the system did not end waits for the floor: every raised fault must end by
    # the system (link back, broker back ...), in the order raised per kind.
    by_system = {}
    for e in ended:
        if str(e.get("by", "")).startswith("system"):
            by_system[e["kind"]] = by_system.get(e["kind"], 0) + 1
    for r in raised:
        if by_system.get(r["kind"], 0) > 0:
            by_system[r["kind"]] -= 1
        else:
            report.floor_faults.append(r)
    report.floor_faults += [e for e in ended if not str(e.get("by", "")).startswith("system")]
    state = TableState.new(settings)
    for entry in table:
        if entry.seq in rejected:
            continue  # the live table could not take it either
        try:
            state, _ = step(state, from_json(entry.payload))
        except Exception as exc:  # noqa: BLE001 - reported, not raised: the report says all
            report.problems.append(f"event {entry.seq}: {exc}")
            continue
        for p in audit(state):
            report.problems.append(f"after event {entry.seq} ({entry.payload.get('kind')}): {p}")
    report.hands = state.hands
    report.events = len(table)
