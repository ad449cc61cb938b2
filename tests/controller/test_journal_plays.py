"""What a journal's table plays (issue 19, meta key ``plays``): a cash game, a single-table
tournament or a table of the room's multi-table tournament. A journal played as one is
refused as any other, by :class:`controller.composition.TableRun` before anything opens
(so by ``livetable run`` and ``livetable simulate`` alike), and marked once the table is open."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller.clock import system_clock
from controller.composition import JournalPlaysRefused, TableRun
from controller.devices import DeviceChoice
from controller.engine.table.settings import TableSettings
from controller.journal import Journal
from controller.tournament_run import PLAYS, journal_plays, journal_plays_refusal, tournament_journal_refusal

REPO = Path(__file__).resolve().parents[2]


def _journal(path: Path, *, plays: str | None = None, first_tournament: str | None = None) -> Path:
    with Journal(path) as j:
        j.append("note", {"x": 1}, 0)
        if first_tournament is not None:
            j.append("tournament", {"type": first_tournament}, 0)
        if plays is not None:
            j.set_meta("plays", plays)
    return path


@pytest.mark.parametrize("have", PLAYS)
def test_a_journal_is_opened_only_as_what_it_was_played_as(tmp_path: Path, have: str) -> None:
    path = _journal(tmp_path / "j.sqlite", plays=have)
    assert journal_plays(path) == have
    for plays in PLAYS:
        why = journal_plays_refusal(path, plays)
        assert (why is None) == (plays == have), (have, plays, why)
        if why:
            assert str(path) in why and "journal.path" in why
    assert (tournament_journal_refusal(path) is None) == (have == "cash")


def test_the_words_say_what_the_journal_holds_and_how_to_open_it(tmp_path: Path) -> None:
    cash = _journal(tmp_path / "cash.sqlite", plays="cash")
    why = journal_plays_refusal(cash, "room-tournament")
    assert why is not None and "holds a cash game" in why and "room's multi-table tournament" in why
    room = _journal(tmp_path / "room.sqlite", plays="room-tournament")
    why = journal_plays_refusal(room, "cash")
    assert why is not None and "holds a tournament" in why and "[room] tournament = true" in why
    why = journal_plays_refusal(room, "tournament")
    assert why is not None and "--tournament-room" in why and "single-table" in why


def test_a_journal_from_before_the_key_is_told_by_its_first_tournament_record(tmp_path: Path) -> None:
    assert journal_plays(_journal(tmp_path / "a.sqlite", first_tournament="room-order")) == "room-tournament"
    assert journal_plays(_journal(tmp_path / "b.sqlite", first_tournament="start")) == "tournament"
    assert journal_plays(_journal(tmp_path / "c.sqlite")) is None  # nothing says: any table may open it
    assert journal_plays(tmp_path / "none.sqlite") is None
    with pytest.raises(ValueError, match="plays"):
        journal_plays_refusal(tmp_path / "none.sqlite", "poker")


class _Director:
    """An extra device that says what its table plays (as a tournament's director does)."""

    def __init__(self, plays: str) -> None:
        self.plays = plays

    def attach(self, run: Any) -> None:
        pass

    def tick(self, orch: Any) -> None:
        pass


def _run(journal: Path, extras: list[Any]) -> TableRun:
    settings = TableSettings(id="t1", name="T", game="holdem", limit="no-limit", seats=6, small_blind=50,
                             big_blind=100)
    choice = DeviceChoice(table="t1", seats=6, shuffler=None, internal_seed=1, mqtt=False)
    return TableRun(settings, journal, choice, clock=system_clock, extras=extras)


def test_table_run_refuses_before_opening_anything_and_marks_what_it_opens(tmp_path: Path) -> None:
    cash = _journal(tmp_path / "cash.sqlite", plays="cash")
    before = cash.read_bytes()
    run = _run(cash, [_Director("room-tournament")])
    assert run.plays == "room-tournament"
    with pytest.raises(JournalPlaysRefused, match="holds a cash game"):
        run.open()
    assert cash.read_bytes() == before and run.orch is None
    fresh = tmp_path / "fresh.sqlite"
    run = _run(fresh, [_Director("room-tournament")])
    run.open()
    run.close()
    assert journal_plays(fresh) == "room-tournament"
    with pytest.raises(JournalPlaysRefused, match="holds a tournament"):
        _run(fresh, []).open()  # no director: a cash table
    with pytest.raises(JournalPlaysRefused, match="single-table"):
        _run(fresh, [_Director("tournament")]).open()


def test_livetable_run_refuses_a_cash_journal_as_a_table_of_the_room_tournament(tmp_path: Path) -> None:
    journal = _journal(tmp_path / "journal.sqlite", plays="cash")
    before = journal.read_bytes()
    pw = tmp_path / "tournament-password"
    pw.write_text("secret\n")
    cfg = tmp_path / "table.toml"
    cfg.write_text(f"""
[table]
id = "t1"
seats = 8
big_blind = 100
[shuffler]
port = "/dev/null"
[journal]
path = "{journal}"
history_dir = "{tmp_path / 'hands'}"
[room]
tournament = true
tournament_password_file = "{pw}"
""")
    run = subprocess.run([sys.executable, "-m", "controller", "run", "--config", str(cfg)], cwd=REPO,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 3 and "holds a cash game" in run.stderr, run.stderr[-2000:]
    assert journal.read_bytes() == before  # nothing written
