"""kill -9 of ``livetable simulate --tournament`` and recovery from its journal (issue 19).

Two kinds of kill, both a real SIGKILL of the simulation process:

- at chosen moments, by the process itself (``LIVETABLE_TOURNAMENT_CRASH=point:n``, read by
  ``controller.tournament_run``): between the entries, right after a level change was
  journalled (before its hand is dealt), after a hand busted a player but before the bust
  was journalled, after the bust, after the payouts;
- at random moments, from outside, once the journal has moved on a random number of events
  (a few in the normal suite; at least 100 under the ``slow`` marker).

After each kill the same command is started again on the same journal until the tournament
ends. Then the journal is replayed independently (``tourneyrun.check_finished``): every
player entered, seated and placed exactly once (nobody seated twice or dropped), the chips
checked after every event, the payouts summing to the prize pool.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from controller.composition import _journal_last_seq as _last_seq  # read-only, no lock

from .tourneyrun import REPO, check_finished, command, simulate, summary_of


@pytest.mark.parametrize("point", ["entry:3", "level-change:1", "level-change:2", "hand-finished:1",
                                   "bust:1", "payouts:1"])
def test_kill_at_a_tournament_moment_resumes_with_nothing_lost(tmp_path, point: str) -> None:
    journal = tmp_path / "journal.sqlite"
    killed = simulate(journal, crash=point, game="holdem", seed=11, seats=6)
    assert killed.returncode == -signal.SIGKILL, (killed.returncode, killed.stderr[-2000:])
    proc = simulate(journal, game="holdem", seed=11, seats=6)
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = summary_of(proc)
    assert summary["tournament"]["finished"]
    check_finished(journal, summary, 6)


def kill_loop(journal: Path, *, game: str, seed: int, seats: int, rng: random.Random,
              max_step: int = 60, deadline: float = 120.0) -> tuple[int, dict]:
    """Kill the simulation at random journal lengths until one run ends; return the kills
    and the last run's summary."""
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    env.pop("LIVETABLE_TOURNAMENT_CRASH", None)
    kills = 0
    end = time.monotonic() + deadline
    while True:
        assert time.monotonic() < end, f"the tournament did not end in {deadline} s ({kills} kills)"
        target = _last_seq(journal) + rng.randint(1, max_step)
        proc = subprocess.Popen(command(journal, game=game, seed=seed, seats=seats), cwd=REPO, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        while proc.poll() is None and _last_seq(journal) < target and time.monotonic() < end:
            time.sleep(0.002)  # polling the journal's length (bounded by the deadline)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.communicate(timeout=30)
            kills += 1
            continue
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err[-3000:]
        return kills, summary_of(subprocess.CompletedProcess(proc.args, 0, out, err))


def test_random_kills_resume_the_tournament(tmp_path) -> None:
    journal = tmp_path / "journal.sqlite"
    kills, summary = kill_loop(journal, game="omaha", seed=4, seats=6, rng=random.Random(19), max_step=100)
    assert kills >= 2
    check_finished(journal, summary, 6)


@pytest.mark.slow
@pytest.mark.timeout(3000)
def test_at_least_100_random_kills_over_tournaments_in_each_game(tmp_path) -> None:
    rng = random.Random(1919)
    kills = 0
    n = 0
    while kills < 100:
        game = ("holdem", "omaha", "draw")[n % 3]
        seats = 5 if game == "draw" else 6
        journal = tmp_path / f"journal-{n}.sqlite"
        k, summary = kill_loop(journal, game=game, seed=100 + n, seats=seats, rng=rng, max_step=60,
                               deadline=1500.0)
        check_finished(journal, summary, seats)
        kills += k
        n += 1
        print(f"tournament {n} ({game}): {k} kills, finished: {summary['places'][0]} won", flush=True)
    print(f"{kills} kill -9 over {n} tournaments, every one resumed to a winner")


def _clock_rows(journal: Path) -> list[tuple[int, str, dict]]:
    import json
    import sqlite3

    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        return [(seq, kind, json.loads(p)) for seq, kind, p in db.execute(
            "SELECT seq, kind, payload FROM events ORDER BY seq")]
    finally:
        db.close()


def test_kill_loses_none_of_the_level_clock(tmp_path) -> None:
    """The clock's time played after its last snapshot (a hand's worth of events here: the
    kill comes as a hand ends) is not lost: the first snapshot after the restart is at least
    as far into the schedule as the snapshot before plus the table events since (6 s each)."""
    from controller.tournament.settings import load_settings
    from controller.tournament_run import SIM_SECONDS_PER_EVENT, SIM_TOML

    schedule = load_settings(SIM_TOML).schedule

    def seconds(c: dict) -> float:
        return sum(x.seconds for x in schedule[:c["index"]]) + c["played"]

    journal = tmp_path / "journal.sqlite"
    killed = simulate(journal, crash="hand-finished:2", game="holdem", seed=11, seats=6)
    assert killed.returncode == -signal.SIGKILL
    before = _clock_rows(journal)
    last_seq = before[-1][0]
    snap_seq, _, snap = [r for r in before if r[1] == "tournament" and r[2]["type"] == "clock"][-1]
    events_after = sum(1 for seq, kind, _ in before if seq > snap_seq and kind == "table")
    assert events_after > 5
    proc = simulate(journal, game="holdem", seed=11, seats=6)
    assert proc.returncode == 0, proc.stderr[-3000:]
    after = [r for r in _clock_rows(journal) if r[0] > last_seq and r[1] == "tournament" and r[2]["type"] == "clock"]
    assert seconds(after[0][2]["clock"]) >= seconds(snap["clock"]) + events_after * SIM_SECONDS_PER_EVENT
