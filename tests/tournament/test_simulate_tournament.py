"""``livetable simulate --tournament --headless``: a single-table tournament to a winner
through the same composition as ``livetable run`` (issue 19), in each game.

Each run is a real process on its own journal; the journal is then replayed independently
(``tourneyrun.replay``): chips checked after every event against the standings' chips in
play, every player entered, seated and placed once, the payouts summing to the prize pool,
one hand's busts placed by their starting stacks (TDA simultaneous eliminations), every
hand dealt at the level the clock gave at its deal (TDA 23).
"""

from __future__ import annotations

import json
import socket
import sqlite3

import pytest

from controller.tournament_run import SIM_TOML
from controller.tournament.settings import Level, load_settings

from .tourneyrun import check_finished, simulate, summary_of


def _clock_stakes(journal) -> dict[int, dict]:
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        rows = [json.loads(p) for (p,) in db.execute(
            "SELECT payload FROM events WHERE kind = 'tournament' ORDER BY seq")]
    finally:
        db.close()
    return {c["hand"]: c["stakes"] for c in rows if c["type"] == "clock" and c["hand"] is not None}


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """``played(game, seed, seats)``: the journal and summary of that run (each run once)."""
    runs: dict = {}

    def get(game: str, seed: int, seats: int):
        if (game, seed, seats) not in runs:
            journal = tmp_path_factory.mktemp(f"{game}-{seed}") / "journal.sqlite"
            proc = simulate(journal, game=game, seed=seed, seats=seats)
            assert proc.returncode == 0, proc.stderr[-3000:]
            runs[game, seed, seats] = journal, summary_of(proc)
        return runs[game, seed, seats]
    return get


GAMES = [("holdem", 1, 6), ("omaha", 4, 6), ("draw", 2, 5)]


@pytest.mark.parametrize(("game", "seed", "seats"), GAMES)
def test_simulate_tournament_plays_to_a_winner_in_each_game(played, game: str, seed: int, seats: int) -> None:
    journal, summary = played(game, seed, seats)
    assert summary["tournament"]["finished"] is True
    # newcomer F6: the simulated clock's speed is said (docs: "levels of 10 minutes" went by in seconds)
    assert summary["clock"].endswith("x real time (simulated: the clock runs on the table's events)"), summary
    assert int(summary["clock"].split("x ")[0]) > 1
    r = check_finished(journal, summary, seats)
    assert r.hands == summary["hands"] + summary["voided"]


@pytest.mark.parametrize(("game", "seed", "seats"), GAMES)
def test_tda_23_each_simulated_hand_plays_the_level_the_clock_gave_at_its_deal(
        played, game: str, seed: int, seats: int) -> None:
    journal, summary = played(game, seed, seats)
    r = check_finished(journal, summary, seats)
    assert r.levels == sorted(r.levels) and len(set(r.levels)) >= 2  # the blinds went up
    stakes = _clock_stakes(journal)
    assert [stakes[h]["big_blind"] for h in range(1, r.hands + 1)] == r.levels


def test_tda_7_the_simulated_seats_are_drawn_at_random(played) -> None:
    """The draw (and the button) come from the seed: two seeds, two draws, every player seated."""
    draws = []
    for game, seed, seats in GAMES[:2]:
        journal, _ = played(game, seed, seats)
        db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
        try:
            (start,) = [json.loads(p) for (p,) in db.execute(
                "SELECT payload FROM events WHERE kind = 'tournament' ORDER BY seq LIMIT 1")]
        finally:
            db.close()
        assert start["type"] == "start" and sorted(start["draw"].values()) == list(range(1, seats + 1))
        draws.append(start["draw"])
    assert draws[0] != draws[1]


def test_tda_simultaneous_eliminations_in_a_simulated_tournament_placed_by_starting_stacks(played) -> None:
    """Seed 3 (Hold'em, 6 seats) busts three players in one hand with 1750, 2500 and 2700
    chips: they finish 4th, 5th and 6th in that order of stacks reversed (found by running
    the seeds; ``check_finished`` checks the rule on whatever the run busts)."""
    journal, summary = played("holdem", 3, 6)
    r = check_finished(journal, summary, 6)
    multi = [b for b in r.busts if len(b) > 1]
    assert multi, "this seed no longer busts two players in one hand: pick another"
    for b in multi:
        ranked = sorted(b, key=lambda p: -b[p])
        places = [summary["places"].index(p) for p in ranked]
        assert places == sorted(places)


def _broker_up() -> bool:
    try:
        socket.create_connection(("127.0.0.1", 1883), timeout=1).close()
        return True
    except OSError:
        return False


@pytest.mark.skipif(not _broker_up(), reason="no Mosquitto on 127.0.0.1:1883")
def test_simulate_tournament_with_the_simulated_devices(tmp_path) -> None:
    """The default devices: the shuffler emulator on a pty, mock pins, the camera, MQTT."""
    journal = tmp_path / "journal.sqlite"
    proc = simulate(journal, game="holdem", seed=7, seats=4, devices="all")
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = summary_of(proc)
    check_finished(journal, summary, 4)
    assert summary["devices"]["decks"] == summary["hands"] + summary["voided"]


def test_simulate_tournament_bad_options_exit_2(tmp_path) -> None:
    bad = tmp_path / "t.toml"
    bad.write_text("[tournament]\nstarting_stack = 0\n")
    proc = simulate(tmp_path / "j.sqlite", extra=("--tournament-config", str(bad)))
    assert proc.returncode == 2 and "starting_stack" in proc.stderr
    proc = simulate(tmp_path / "j.sqlite", seats=6, extra=("--players", "1"))
    assert proc.returncode == 2


def test_the_simulation_tournament_settings_are_valid_and_have_a_break() -> None:
    ts = load_settings(SIM_TOML)
    assert any(not isinstance(x, Level) for x in ts.schedule)
    assert any(isinstance(x, Level) and x.big_blind_ante for x in ts.schedule)
