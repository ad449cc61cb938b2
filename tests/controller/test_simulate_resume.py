"""``livetable simulate --devices none`` opened on a journal (README "Two commands"): the hand
left unfinished is picked up only when its cards came from the simulation's own deck.

The internal dealer's deck is a function of the journal's seed and the hand number; a hand
the emulated shuffler dealt (a journal of ``--devices all``) or another seed's deck cannot go
on (its next card would be one already dealt: G-5), so it is voided, every wager returned.
"""

from __future__ import annotations

import json

from controller import simulate
from controller.clock import ManualClock
from controller.dealer import InternalDealer
from controller.engine.table import events as ev
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import TableState
from controller.journal import Journal
from controller.orchestrator import Orchestrator

SEED = 5


def _interrupted(path, *, seed_in_journal: bool) -> dict[int, int]:
    """A journal of table ``t`` (3 seats) stopped in the middle of hand 1, dealt by an
    internal dealer with SEED; return the stacks before the hand.

    The seats hold the simulation's own players (``sim1``..``sim3``, as ``livetable simulate``
    seats them), so the reopened simulation plays them. Players of other ids are ones who
    joined from a tablet: the simulation leaves their seats to them (a32e4ca) and the hand
    would wait for their action timers (A-2: 30 s each, a minute for this hand)."""
    clock = ManualClock()
    journal = Journal(path)
    if seed_in_journal:
        journal.set_meta("simulate_seed", str(SEED))
    settings = TableSettings(id="t", seats=3, small_blind=50, big_blind=100)
    orch = Orchestrator(TableState.new(settings), journal=journal, clock=clock)
    orch.ports.dealer = InternalDealer(orch.post, clock, seed=SEED)
    for s in (1, 2, 3):
        orch.post(ev.PlayerSatDown(at=clock(), seat=s, player=f"sim{s}", name=f"Player {s}"))
        orch.post(ev.BoughtIn(at=clock(), seat=s, amount=5000))
    orch.pump()
    before = {s: orch.state.seat(s).stack for s in (1, 2, 3)}
    orch.post(ev.HandStartRequested(at=clock()))
    orch.pump()
    seat = orch.state.hand.seat_to_act
    orch.post(ev.ActionTaken(at=clock(), seat=seat, action="raise", amount=300, seq=orch.state.seq))
    orch.pump()
    assert orch.state.hand is not None and orch.state.dealing is None
    journal.close()
    return before


def _open(path, capsys, seed: int) -> dict:
    argv = ["--devices", "none", "--headless", "--quiet", "--journal", str(path), "--table", "t",
            "--seats", "3", "--bb", "100", "--hands", "1", "--seed", str(seed)]
    assert simulate.main(argv) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def _timed_out(path) -> list[dict]:
    """The action timers the journal shows running out (A-2): none when the simulation's
    players carried the hand on themselves."""
    with Journal(path) as j:
        return [e.payload for e in j.entries(kinds=("table",)) if e.payload.get("kind") == "timer-expired"]


def test_the_simulations_own_deck_goes_on(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    _interrupted(path, seed_in_journal=True)
    out = _open(path, capsys, seed=999)  # the journal's seed wins over the command's
    assert out["recovery"]["outcome"] == "resumed", out["recovery"]
    assert out["faults"] == [] and out["invariant_errors"] == []
    assert out["hands"] == 1
    assert _timed_out(path) == []  # the players acted: the hand went on at once


def test_a_hand_from_another_deck_is_voided_not_dealt_twice(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    _interrupted(path, seed_in_journal=False)  # as a journal of --devices all
    out = _open(path, capsys, seed=SEED + 1)
    assert out["recovery"]["outcome"] == "voided", out["recovery"]
    assert "own deck" in out["recovery"]["reason"]
    assert out["faults"] == [], out["faults"]  # no misread fault (a card dealt twice, G-5)
    assert out["invariant_errors"] == []
    with Journal(path) as j:
        voided = [e.payload for e in j.entries(kinds=("table",)) if e.payload.get("kind") == "hand-voided"]
    assert len(voided) == 1
    assert _timed_out(path) == []


def test_the_summary_names_the_hand_left_unfinished(tmp_path):
    """Ctrl-C (SIGINT) stops the table; the summary's ``unfinished`` is the hand the journal
    holds as still being played, or None when it stopped between hands."""
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    from controller.runtime import open_table

    path = tmp_path / "j.sqlite"
    repo = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-m", "controller", "simulate", "--devices", "none",
                             "--headless", "--speed", "0", "--journal", str(path), "--seed", "11"],
                            cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, SDL_VIDEODRIVER="dummy"))
    try:
        for line in proc.stderr:  # the log: one line per hand
            if " hand 3: " in line:
                break
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, err[-2000:]
    summary = json.loads(out.strip().splitlines()[-1])
    orch, _rec = open_table(path, TableSettings(id="sim", seats=6, small_blind=50, big_blind=100),
                            clock=ManualClock())
    number = orch.state.info.number if orch.state.info else None
    # what the journal replays before the reopening settles it (resumed: still running)
    assert summary["unfinished"] == (number if _rec.hand is not None else None), (summary, _rec)
    if summary["unfinished"] is not None:
        assert f"hand {summary['unfinished']} was still being played" in err
        # the whole command that goes on, with the run's --devices none (without it: voided)
        assert f".venv/bin/livetable simulate --journal {path} --devices none opens the table" in err, err[-2000:]
    orch.journal.close()


def test_another_tables_journal_is_named_with_the_option_that_opens_it(tmp_path, capsys):
    path = tmp_path / "j.sqlite"
    base = ["--devices", "none", "--headless", "--quiet", "--journal", str(path), "--hands", "1"]
    assert simulate.main(base + ["--table", "t"]) == 0
    capsys.readouterr()
    assert simulate.main(base + ["--table", "other"]) == 3
    err = capsys.readouterr().err
    assert "is table 't''s: give --table t to open it" in err, err
    assert "journal.path" not in err  # a config's key: the simulation has no config


def test_a_seat_a_tablet_player_holds_stays_theirs_when_the_table_is_opened_again(tmp_path, capsys):
    """A player who joined from the tablet (T-3) and waits for the dealer's confirm: opened
    again without ``--join-seats``, no simulated player buys in or acts for her there."""
    path = tmp_path / "j.sqlite"
    base = ["--devices", "none", "--headless", "--quiet", "--journal", str(path), "--table", "t",
            "--seats", "3", "--tablet-join", "confirm", "--result-seconds", "0"]
    assert simulate.main(base + ["--hands", "1", "--join-seats", "3"]) == 0
    capsys.readouterr()
    clock = ManualClock()
    with Journal(path) as journal:
        orch = Orchestrator.recover(journal, lambda: None, clock=clock)
        orch.post(ev.PlayerJoined(at=clock(), seat=3, player="cy", name="Cy", amount=6000))
        orch.pump()
        assert orch.state.seat(3).buy_in_pending == 6000
        last = journal.last_seq
    out = _open_again(path, capsys, base + ["--hands", "2"])
    assert out["hands"] == 2 and out["invariant_errors"] == []
    with Journal(path) as journal:
        later = [e.payload for e in journal.entries(kinds=("table",)) if e.seq > last]
        orch = Orchestrator.recover(journal, lambda: None, clock=clock)
    assert not [p for p in later if p.get("seat") == 3], [p for p in later if p.get("seat") == 3]
    seat = orch.state.seat(3)
    assert (seat.player, seat.stack, seat.buy_in_pending) == ("cy", 0, 6000)


def _open_again(path, capsys, argv: list[str]) -> dict:
    assert simulate.main(argv) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def _timed_out(path) -> list[dict]:
    """The action timers the journal shows running out (A-2): none when the simulation's
    players carried the hand on themselves."""
    with Journal(path) as j:
        return [e.payload for e in j.entries(kinds=("table",)) if e.payload.get("kind") == "timer-expired"]


def test_a_run_stopped_mid_hand_names_the_whole_command_that_goes_on(tmp_path):
    """A newcomer was told ``--journal FILE opens the table from it`` after a ``--devices none``
    run; without ``--devices none`` again the hand is voided, not picked up. The words give
    the whole command: the run's devices and the options that make its table."""
    path = str(tmp_path / "j.sqlite")
    parser = simulate.build_parser()
    none = simulate.resume_words(parser.parse_args(["--devices", "none", "--journal", path, "--table", "t",
                                                    "--seats", "3", "--bb", "200", "--hands", "5"]), path)
    assert none == (f".venv/bin/livetable simulate --journal {path} --devices none --table t --seats 3 --bb 200"
                    " opens the table from it and picks the hand up where it stood")
    every = simulate.resume_words(parser.parse_args(["--journal", path, "--game", "omaha", "--rake", "2.5"]), path)
    assert every.startswith(f".venv/bin/livetable simulate --journal {path} --game omaha --rake 2.5 opens")
    assert "--devices" not in every.split(" opens")[0] and "voided, every wager returned" in every
    odd = simulate.resume_words(parser.parse_args(["--devices", "none"]), "/tmp/a b/j.sqlite")
    assert odd.startswith(".venv/bin/livetable simulate --journal '/tmp/a b/j.sqlite' --devices none ")


def test_the_command_logged_after_a_stop_mid_hand_repeats_devices_none(tmp_path, caplog, capsys, monkeypatch):
    """The table opened on a journal stopped in the middle of hand 1 and stopped again at
    once (a Ctrl-C while it opened): the hand is still being played, and the log names the
    command that picks it up, ``--devices none`` and the table's options as given (not the
    small blind simulate fills in)."""
    import logging

    from controller.composition import TableRun

    path = tmp_path / "j.sqlite"
    _interrupted(path, seed_in_journal=True)
    signals = TableRun.stop_on_signals

    def asked_at_once(self):
        asked = signals(self)
        asked.asked = True  # as the handler does when a signal comes
        return asked

    monkeypatch.setattr(TableRun, "stop_on_signals", asked_at_once)
    with caplog.at_level(logging.INFO, logger="livetable.simulate"):
        out = _open(path, capsys, seed=SEED)
    assert out["unfinished"] == 1 and out["recovery"]["outcome"] == "resumed", out
    said = next(r.getMessage() for r in caplog.records if "was still being played" in r.getMessage())
    assert said.endswith(f"; .venv/bin/livetable simulate --journal {path} --devices none --table t --seats 3 "
                         "opens the table from it and picks the hand up where it stood"), said
