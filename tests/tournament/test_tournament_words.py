"""A newcomer's findings on the tournament's words (issue 19): players named as a person finds
them at the table (``Player 3`` at seat 3), not by ids; the history in sentences; a
tournament's journal never reopened as a cash game; levels with their antes; the big blind
posted before the big-blind ante in the history as in the hand engine (TDA RP-11)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from controller.floor_cli import render
from controller.runtime import Recovery
from controller.simulate import pots_line
from controller.tournament.words import ordinal, players_left, stakes_words
from drivers.shuffler.protocol import DeviceState, DeviceStatus, Fault

from .tourneyrun import REPO, command


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """One short tournament (seed 1: six entries to a winner, big-blind antes from level 3):
    the journal, the summary, the log (stderr)."""
    journal = tmp_path_factory.mktemp("words") / "journal.sqlite"
    cmd = [c for c in command(journal, seed=1) if c != "--quiet"]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return journal, json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


def _history(journal: Path, *args: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "controller", "history", "--journal", str(journal), *args],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _tournament_rows(journal: Path) -> list[dict]:
    import sqlite3

    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        return [json.loads(p) for (p,) in db.execute("SELECT payload FROM events WHERE kind = 'tournament'")]
    finally:
        db.close()


def test_the_log_and_the_summary_name_players_as_seated_not_by_id(played) -> None:
    journal, summary, log = played
    start = next(r for r in _tournament_rows(journal) if r["type"] == "start")
    seat_of = {p: s for p, s in start["draw"].items()}
    # the summary keeps the ids in places and gives their names, first place first
    assert summary["names"] == [f"Player {seat_of[p]}" for p in summary["places"]]
    lines = [ln.split(" INFO ", 1)[1] for ln in log.splitlines() if " INFO " in ln]
    outs = [ln for ln in lines if " out; " in ln]
    assert outs and not any(re.search(r"\bp\d+\b", ln) for ln in outs), outs
    assert outs[-1].endswith("; 1 player left"), outs[-1]  # not "1 players left"
    over = next(ln for ln in lines if ln.startswith("the tournament is over"))
    assert f"1. {summary['names'][0]} {summary['payouts'][0]}" in over and not re.search(r"\bp\d+\b", over)
    # the per-hand pot line names the winner and the seat: Player 3 at seat 3
    pots = [ln for ln in lines if re.match(r"hand \d+: main pot", ln)]
    assert pots and all(re.search(r"to Player (\d) at seat \1\b", ln) for ln in pots), pots[:3]
    assert not any(re.search(r"Recovery\(|DeviceStatus\(", ln) for ln in lines)


def test_the_pot_line_names_the_winners_when_their_names_are_known() -> None:
    awards = [{"pot": 0, "amount": 900, "winners": [2, 5], "hand": "Flush, ace high"}]
    assert pots_line(awards, {2: "Player 2", 5: "Zoe"}) == \
        "main pot 900 to Player 2 at seat 2, Zoe at seat 5 (Flush, ace high)"
    assert pots_line(awards) == "main pot 900 to seat 2, 5 (Flush, ace high)"


def test_words() -> None:
    assert players_left(1) == "1 player left" and players_left(3) == "3 players left"
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 112)] == \
        ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "112th"]
    assert stakes_words({"small_blind": 100, "big_blind": 200, "ante": 0, "big_blind_ante": 200}) == \
        "100/200, big-blind ante 200"
    assert stakes_words({"small_blind": 50, "big_blind": 100, "ante": 25}) == "50/100, ante 25"


def test_floor_status_shows_the_levels_ante() -> None:
    status = {"table": "td", "hand": 12, "street": "waiting", "turn": None, "faults": [],
              "tournament": {"level": {"number": 3, "small_blind": 100, "big_blind": 200, "ante": 0,
                                       "big_blind_ante": 200}, "seconds_left": 60, "running": True,
                             "on_break": False, "players_left": 4, "entries": 6, "prize_pool": 600}}
    text = render({"command": "status", "accepted": True, "status": status})
    assert "level 3 (100/200, big-blind ante 200), 1:00 left" in text


def test_start_up_lines_read_as_words() -> None:
    st = DeviceStatus(DeviceState.NO_DECK, Fault.NONE, False, 0, 0, 0, 0, 0, 0, 0)
    assert str(st).startswith("no deck, no fault, door closed; deck 0") and "DeviceState" not in str(st)
    assert str(Recovery(events=0, hand=None, outcome="fresh")) == "a fresh journal"
    assert str(Recovery(events=120, hand=7, outcome="voided", reason="deck mismatch")) == \
        "hand 7 voided: deck mismatch (120 events replayed)"


def test_the_history_tells_the_tournament_in_sentences(played) -> None:
    journal, summary, _log = played
    first = _history(journal, "--hand", "1")
    assert "Tournament started: 6 entries, seats drawn: Player 1 seat 1, Player 2 seat 2" in first
    assert re.search(r"; the button at seat (\d) \(drawn by cards: seat 1 [2-9TJQKA][cdhs], .*seat 6 ..\)", first)
    assert "Level 1 (25/50) from hand 1" in first
    assert "Simulated table: no-limit holdem, 6 seats, seed 1" in first
    text = _history(journal, "--hands", "30")
    assert '{"' not in text and "tournament:" not in text and "simulate:" not in text  # no raw JSON
    assert re.search(r"Level \d+ \(\d+/\d+, big-blind ante \d+\) from hand \d+", text)
    assert "loses the seat after sitting out" not in text
    assert re.search(r"Seat (\d) \(Player \1\) busted out in hand \d+", text)
    assert re.search(rf"{summary['names'][1]} \(2nd\) busted out in hand \d+; 1 player left", text)
    assert f"Paid: 1st {summary['names'][0]} {summary['payouts'][0]}, 2nd {summary['names'][1]}" in text


def test_the_history_posts_the_big_blind_before_the_big_blind_ante(played) -> None:
    """TDA RP-11 as the hand engine does it (``big_blind_first``): the big blind is taken
    first, the ante from what is left; the history lists them in that order."""
    journal, _summary, _log = played
    recall = json.loads(_history(journal, "--hands", "30", "--json"))
    seen = 0
    for hand in recall["hands"]:
        posts = [s for s in hand["steps"] if s["kind"] == "post"]
        kinds = [s["post"] for s in posts]
        antes = [s["seat"] for s in posts if s["post"] == "ante"]
        if antes == [hand["bb_seat"]] and "big blind" in kinds:  # a big-blind ante, not every seat's ante
            seen += 1
            assert kinds.index("big blind") < kinds.index("ante"), [s["text"] for s in posts]
            bb = next(s for s in posts if s["post"] == "big blind")
            ante = next(s for s in posts if s["post"] == "ante")
            start = next(x["start"] for x in hand["seats"] if x["seat"] == bb["seat"])
            assert bb["amount"] == min(start, hand["stakes"]["big_blind"])  # the blind in full first
            assert ante["amount"] <= start - bb["amount"]
    assert seen


def test_a_tournaments_journal_is_refused_as_a_cash_table(played, tmp_path) -> None:
    """Issue 19: opened without --tournament (or by a Pi whose config lost its [tournament]),
    a tournament's journal went on as a cash game (blinds 50/100, chips brought 12000 -> 62000)."""
    journal, _summary, _log = played
    before = journal.read_bytes()
    sim = subprocess.run([sys.executable, "-m", "controller", "simulate", "--headless", "--quiet", "--devices",
                          "none", "--hands", "2", "--journal", str(journal), "--table", "tourney"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert sim.returncode == 3, (sim.returncode, sim.stdout[-500:])
    assert "holds a tournament" in sim.stderr and "--tournament" in sim.stderr
    cfg = tmp_path / "table.toml"
    cfg.write_text(f"""
[table]
id = "tourney"
seats = 6
big_blind = 100
[shuffler]
port = "/dev/null"
[journal]
path = "{journal}"
history_dir = "{tmp_path / 'hands'}"
""")
    run = subprocess.run([sys.executable, "-m", "controller", "run", "--config", str(cfg)], cwd=REPO,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 3 and "holds a tournament" in run.stderr, run.stderr[-2000:]
    assert journal.read_bytes() == before  # nothing written
