"""The colour-up at a running table (issue 19, TDA chip race): at the break that takes the
25-chips out of play the odd chips are raced with cards from the table's deck, one card per
odd chip, nobody raced out; journalled (``race``), the stacks and the smallest chip given to
the table between hands, chips in play adjusted and checked after every event; a kill -9
between the race's journal and the table resumes with the race carried out once."""

from __future__ import annotations

import signal

from .tourneyrun import replay, simulate, summary_of

COLOUR_TOML_BREAK = "[[tournament.levels]]\nbreak = 5\n"


def _config(tmp_path):
    from controller.tournament_run import SIM_TOML

    assert COLOUR_TOML_BREAK in SIM_TOML
    path = tmp_path / "colour.toml"
    path.write_text(SIM_TOML.replace(COLOUR_TOML_BREAK, COLOUR_TOML_BREAK + "colour_up = [25]\n"))
    return path


def _check_race(journal, players: int) -> None:
    r = replay(journal)  # chips checked after every event against the standings
    assert r.problems == [], r.problems[:5]
    assert len(r.races) == 1
    race = r.races[0]
    assert race["removed"] == [25] and race["chip"] == 100
    # TDA: one card per odd chip; winners ranked by their best card; one chip a player
    for p, cards in race["cards"].items():
        assert len(cards) >= 1
    assert all(n % 100 == 0 and n > 0 for n in race["stacks"].values())  # nobody raced out
    assert len(race["won"]) == len(set(race["won"]))
    assert r.standings is not None and r.standings.chips_in_play() == players * 2000 + race["delta"]


def test_tda_chip_race_at_the_colour_up_break_of_a_simulated_tournament(tmp_path) -> None:
    journal = tmp_path / "journal.sqlite"
    proc = simulate(journal, seed=7, seats=6, extra=("--tournament-config", str(_config(tmp_path))))
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = summary_of(proc)
    assert summary["tournament"]["finished"] and summary["tournament"]["problems"] == []
    assert summary["invariant_errors"] == []
    _check_race(journal, 6)


def test_tda_chip_race_killed_between_its_journal_and_the_table_is_carried_out_once(tmp_path) -> None:
    journal = tmp_path / "journal.sqlite"
    extra = ("--tournament-config", str(_config(tmp_path)))
    killed = simulate(journal, crash="race:1", seed=7, seats=6, extra=extra)
    assert killed.returncode == -signal.SIGKILL, (killed.returncode, killed.stderr[-2000:])
    proc = simulate(journal, seed=7, seats=6, extra=extra)
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = summary_of(proc)
    assert summary["tournament"]["finished"] and summary["tournament"]["problems"] == []
    _check_race(journal, 6)


def test_the_floors_recall_shows_the_chip_race_and_not_the_tournaments_whole_history(tmp_path) -> None:
    import subprocess
    import sys

    from .tourneyrun import REPO

    journal = tmp_path / "journal.sqlite"
    proc = simulate(journal, seed=7, seats=6, extra=("--tournament-config", str(_config(tmp_path))))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = subprocess.run([sys.executable, "-m", "controller", "history", "--journal", str(journal), "--hands", "60"],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "in the colour-up's chip race" in out.stdout or "raced off in the colour-up" in out.stdout
    assert '"history"' not in out.stdout and '"settings"' not in out.stdout
