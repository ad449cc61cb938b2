"""kill -9 the controller at random moments; the journal must recover every time (issue 9).

The controller runs ``livetable simulate --devices none`` (the same orchestrator, journal
and table as ``livetable run``, dealing from the internal seeded dealer) on one journal
file. It is killed with SIGKILL at a random moment, started again on the same journal, and
so on. Afterwards the whole journal is replayed: chips are conserved after every event,
every restart is recorded, and every interrupted hand was resumed or voided with each
wager returned.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.engine.table.audit import audit
from controller.engine.table.codec import from_json
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import TableState
from controller.engine.table.step import step
from controller.journal import Journal

REPO = Path(__file__).resolve().parents[2]
KILLS = int(os.environ.get("LIVETABLE_CRASH_KILLS", "200"))


def _last_seq(path: Path) -> int:
    """The newest event's seq (the count of events no longer says it once compacted)."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)
        try:
            return db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error:
        return 0


def _args(journal: Path, seed: int, extra: tuple[str, ...] = ()) -> list[str]:
    return ["--devices", "none", "--headless", "--quiet", "--journal", str(journal),
            "--seed", str(seed), "--seats", "4", *extra]


def _wait_then_kill(pid: int, journal: Path, target: int, alive) -> None:
    deadline = time.monotonic() + 60
    try:
        while _last_seq(journal) < target and alive() and time.monotonic() < deadline:
            time.sleep(0.002)  # polling the journal file for progress, not a timing assumption
        assert alive(), "the controller exited by itself"
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _cli_run_and_kill(journal: Path, rng: random.Random, seed: int) -> None:
    """The real command line, as systemd starts it, killed with SIGKILL."""
    with open(str(journal) + ".cli.log", "ab") as log:
        proc = subprocess.Popen([sys.executable, "-m", "controller", "simulate", *_args(journal, seed)],
                                cwd=REPO, stdout=subprocess.DEVNULL, stderr=log)
    target = _last_seq(journal) + rng.choice([1, 5, 13, 34])
    try:
        _wait_then_kill(proc.pid, journal, target, lambda: proc.poll() is None)
    except AssertionError as exc:
        raise AssertionError(f"{exc}: exit {proc.poll()}, log: "
                             f"{Path(str(journal) + '.cli.log').read_text()[-3000:]}") from None
    finally:
        proc.wait(10)


def _fork_run_and_kill(journal: Path, rng: random.Random, seed: int, extra: tuple[str, ...] = (),
                       steps: tuple[int, ...] = (0, 1, 2, 3, 5, 8, 13, 21, 34, 55)) -> None:
    """The same ``livetable simulate`` main in a forked child (imports already warm), kill -9."""
    from controller import simulate

    target = _last_seq(journal) + rng.choice(steps)
    pid = os.fork()
    if pid == 0:  # the child: run the controller until killed; never return into pytest
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            os.dup2(os.open(str(journal) + ".child.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND), 2)
            simulate.main(_args(journal, seed, extra))
        finally:
            os._exit(3)
    done = {"status": None}

    def alive() -> bool:
        if done["status"] is None:
            got, status = os.waitpid(pid, os.WNOHANG)
            if got:
                done["status"] = status
        return done["status"] is None

    try:
        _wait_then_kill(pid, journal, target, alive)
    except AssertionError as exc:
        log = Path(str(journal) + ".child.log")
        raise AssertionError(f"{exc}: status {done['status']}, log: "
                             f"{log.read_text()[-3000:] if log.exists() else ''}") from None
    finally:
        if done["status"] is None:
            os.waitpid(pid, 0)


@pytest.mark.slow
def test_kill_minus_nine_many_times(tmp_path):
    journal = tmp_path / "journal.sqlite"
    rng = random.Random(20261129)
    # Warm what the child inherits (imports, the evaluator's tables), then kill.
    from controller import simulate, views  # noqa: F401
    from controller.engine import evaluator

    evaluator.rank_hand(["As", "Ks", "Qs", "Js", "Ts"])
    for i in range(3):
        _cli_run_and_kill(journal, rng, seed=7)
    for i in range(3, KILLS):
        # The same seed: the internal dealer stands for one physical deck order per hand.
        _fork_run_and_kill(journal, rng, seed=7)

    with Journal(journal) as j:
        assert j.check() == []
        recoveries = [e.payload for e in j.entries(kinds=("recovery",))]
        entries = list(j.entries(kinds=("table",)))
    # Starts that got past recovery recorded it (a kill may land before that: fine).
    assert len(recoveries) > KILLS // 2
    outcomes = {r["outcome"] for r in recoveries}
    assert outcomes <= {"clean", "resumed", "voided"}
    interrupted = [r for r in recoveries if r["hand"] is not None]
    assert interrupted, "no kill landed mid-hand: the test proves nothing"

    # Replay the whole journal: conservation after every event; a void returns every wager.
    settings = TableSettings(id="sim", name="Simulated holdem", seats=4, rake_percent=5.0,
                             rake_caps=((2, 300),))
    state = TableState.new(settings)
    start_stacks: dict[int, int] = {}
    void_hands: set[int] = set()
    resumed_or_voided = 0
    for entry in entries:
        event = from_json(entry.payload)
        before = state
        state, _ = step(state, event)
        problems = audit(state)
        assert problems == [], f"after event {entry.seq} ({entry.payload['kind']}): {problems}"
        if before.hand is None and state.hand is not None:
            start_stacks = dict(state.info.start_stacks)
        if entry.payload["kind"] == "hand-voided" and before.hand is not None:
            void_hands.add(before.info.number)
            for seat, stack in start_stacks.items():
                s = state.seat(seat)
                assert s is not None and s.stack == stack, f"void did not return seat {seat}'s wager"
    for r in interrupted:
        assert r["outcome"] in ("resumed", "voided")
        resumed_or_voided += 1
    assert resumed_or_voided == len(interrupted)
    # Every hand a restart decided to void was voided - unless the kill came between that
    # decision and the void, on the very last start (the next start would void it).
    running = {state.info.number} if state.hand is not None else set()
    decided = {r["hand"] for r in interrupted if r["outcome"] == "voided"}
    assert decided - void_hands <= running, decided - void_hands
    outcomes_count = {o: sum(1 for r in recoveries if r["outcome"] == o) for o in ("clean", "resumed", "voided")}
    print(f"\n{KILLS} kills: {len(recoveries)} recoveries {outcomes_count}, {len(void_hands)} hands voided, "
          f"{state.hands} hands dealt, {len(entries)} table events replayed with conservation checked")


@pytest.mark.slow
def test_kill_minus_nine_while_the_journal_is_compacted(tmp_path):
    """``livetable simulate --keep-hands 2``: hands leave the journal every ten hands; killed
    at random moments (some while a hand's history is written, some while compacting), the
    journal always recovers, and every hand is either still in it or safely in history_dir."""
    import json
    import tomllib

    from controller.compaction import history_files
    from controller.history import recall
    from controller.orchestrator import Orchestrator

    journal, hands = tmp_path / "journal.sqlite", tmp_path / "hands"
    extra = ("--history-dir", str(hands), "--keep-hands", "2")
    rng = random.Random(20261130)
    from controller import simulate, views  # noqa: F401
    from controller.engine import evaluator

    evaluator.rank_hand(["As", "Ks", "Qs", "Js", "Ts"])
    kills = max(10, KILLS // 4)
    for _ in range(kills):
        _fork_run_and_kill(journal, rng, seed=7, extra=extra, steps=(1, 13, 55, 144, 377))

    settings = TableSettings(id="sim", name="Simulated holdem", seats=4, rake_percent=5.0,
                             rake_caps=((2, 300),))
    with Journal(journal) as j:
        assert j.check() == []
        assert j.compacted_upto > 0, "no compaction ran: the test proves nothing"
        orch = Orchestrator.recover(j, lambda: TableState.new(settings), clock=time.time)
        assert audit(orch.state) == []
        base = j.snapshot_at(j.compacted_upto)
        state = TableState.from_json(base["table"])
        rejected = {int(e.payload.get("seq", 0)) for e in j.entries(kinds=("rejected",))}
        entries = [e for e in j.entries(kinds=("table",)) if e.seq not in rejected]
    # From the oldest snapshot kept, the replay conserves chips after every event.
    for entry in entries:
        state, _ = step(state, from_json(entry.payload))
        assert audit(state) == [], f"after event {entry.seq}"
    first_kept = min(h.number for h in recall(journal, hands=10_000).hands)
    assert first_kept == TableState.from_json(base["table"]).hands + 1
    # Every hand that left the journal is whole in history_dir.
    for n in range(1, first_kept):
        js, phh = history_files(hands, n)
        assert json.loads(js.read_text())["hand"] == n
        tomllib.loads(phh.read_text())
    print(f"\n{kills} kills with compaction: hands 1..{first_kept - 1} in history files, "
          f"{first_kept}..{state.hands} in the journal, {len(entries)} table events kept")
