"""The director's clock at the room's multi-table tournament (issue 19): pause, resume, time
added, a level chosen (room/tournament.py ``RoomTournament.direct``), journalled in the room's
store and restored, carried to the tables with their orders. No processes, no sleeps: the
room's clock is the test's (``now``), the tables are the director test's stand-ins."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.tournament.director import CommandError
from controller.tournament.errors import TournamentError
from controller.tournament.settings import load_settings
from room.store import open_store
from room.tournament import RoomTournament, StoreJournal
from room.tournament_sim import ROOM_TOML
from tests.room.test_room_tournament_director import FakeTable, exchange, room


def clocked(entries: int = 12) -> tuple[RoomTournament, dict[str, FakeTable], list[dict[str, Any]], Any, list[float]]:
    d, tables, sent, journal = room(entries)
    now = [0.0]
    d.now = lambda: now[0]
    exchange(d, tables, sent, "t1", "t2")
    return d, tables, sent, journal, now


def test_pause_stops_the_time_left_and_resume_goes_on_from_it() -> None:
    d, tables, sent, journal, now = clocked()
    now[0] = 20.0  # level 1 of one minute: 40 s left
    said = d.direct("clock-pause", by="Anna", reason="dispute at t1")
    assert said == "the clock is paused at level 1 (0:40 left) (Anna)"
    kind, snap = journal.rows[-1]
    assert kind == "clock" and snap["director"] == {"command": "clock-pause", "by": "Anna", "reason": "dispute at t1",
                                                    "amount": None}
    assert snap["clock"]["running"] is False
    now[0] = 500.0  # long past the level's end: paused, nothing moves
    st = d.director_status()
    assert (st["level"]["number"], st["seconds_left"], st["paused"], st["running"]) == (1, 40, True, False)
    with pytest.raises(TournamentError, match="F-3: the clock is paused already"):
        d.direct("clock-pause", by="Anna")
    # hands are still dealt while paused, at the clock's level; the order's view says paused
    tables["t1"].play()
    n = len(sent)
    exchange(d, tables, sent, "t1")
    go = [o for o in sent[n:] if o["table"] == "t1" and o["go"]]
    assert go and go[0]["go"]["stakes"]["big_blind"] == 50 and go[0]["view"]["running"] is False
    assert go[0]["view"]["seconds_left"] == 40
    d.direct("clock-resume", by="Anna", reason="ruled")
    now[0] = 510.0
    st = d.director_status()
    assert (st["seconds_left"], st["paused"], st["running"]) == (30, False, True)
    with pytest.raises(TournamentError, match="F-3: the clock is running"):
        d.direct("clock-resume", by="Anna")


def test_clock_add_gives_the_level_seconds_within_its_length() -> None:
    d, _, _, journal, now = clocked()
    now[0] = 20.0
    assert d.direct("clock-add", by="Anna", reason="late start", amount=15) == "15 s added: 0:55 left (Anna)"
    assert d.director_status()["seconds_left"] == 55
    with pytest.raises(TournamentError, match="F-3: 55 s are left of 60: at most 5 s can be added"):
        d.direct("clock-add", by="Anna", amount=10)
    d.direct("clock-add", by="Anna", amount=-25)
    assert d.director_status()["seconds_left"] == 30
    with pytest.raises(TournamentError, match="at most 30 s can be taken off, not 31"):
        d.direct("clock-add", by="Anna", amount=-31)
    with pytest.raises(CommandError, match="clock-add needs seconds as a whole number"):
        d.direct("clock-add", by="Anna", amount="5")  # type: ignore[arg-type]
    assert [p["director"]["amount"] for k, p in journal.rows if k == "clock" and "director" in p] == [15, -25]


def test_tda_23_clock_level_applies_from_each_tables_next_hand() -> None:
    d, tables, sent, journal, now = clocked()
    t1, t2 = tables["t1"], tables["t2"]
    assert t1.go and t2.go and t1.go["stakes"]["big_blind"] == 50  # both dealt hand 1 at level 1
    now[0] = 10.0
    said = d.direct("clock-level", by="Anna", reason="the schedule was behind", amount=4)
    assert said == "level 4 (200/400) from the next hand (TDA 23) (Anna)"
    st = d.director_status()
    assert st["level"]["number"] == 4 and st["seconds_left"] == 60 and st["running"]
    assert t2.go["stakes"]["big_blind"] == 50  # the hand already dealt keeps its level
    t1.play()
    n = len(sent)
    exchange(d, tables, sent, "t1")
    new = [o["go"] for o in sent[n:] if o["table"] == "t1" and o["go"]]
    assert new and new[0]["stakes"] == {"small_blind": 200, "big_blind": 400, "ante": 0, "big_blind_ante": 400}
    t2.play()
    n = len(sent)
    exchange(d, tables, sent, "t2")
    assert [o["go"]["stakes"]["big_blind"] for o in sent[n:] if o["table"] == "t2" and o["go"]] == [400]
    with pytest.raises(CommandError, match=r"F-3: no level 99 \(levels 1\.\.8\)"):
        d.direct("clock-level", by="Anna", amount=99)
    with pytest.raises(CommandError, match="M-2: 'clock-stop' is no director's command"):
        d.direct("clock-stop", by="Anna")
    assert not d.problems


def test_a_table_waiting_on_a_break_is_sent_the_time_added_at_once() -> None:
    d, tables, sent, _, now = clocked()
    probe = load_settings(ROOM_TOML)
    assert probe.schedule[2].seconds == 60  # the break after level 2
    now[0] = 125.0  # 5 s into the break: no hand is dealt, the tables wait
    for t in tables.values():
        t.play()
    exchange(d, tables, sent, "t1", "t2")
    assert d.director_status()["on_break"] and not tables["t1"].go
    n = len(sent)
    d.direct("clock-add", by="Anna", reason="colour-up takes longer", amount=-30)
    told = sent[n:]
    assert sorted(o["table"] for o in told) == ["t1", "t2"]
    assert all(o["go"] is None and o["view"]["on_break"] and o["view"]["seconds_left"] == 25 for o in told)


def test_the_clock_survives_a_room_restart_paused_with_the_same_time_left(tmp_path: Path) -> None:
    url = tmp_path / "room.sqlite"
    store = open_store(url)
    now = [0.0]
    sent: list[Any] = []
    d = RoomTournament(load_settings(ROOM_TOML), ROOM_TOML, ["t1", "t2"], StoreJournal(store),
                       lambda t, p: sent.append(p), lambda: now[0])
    d.start(12, 4)
    now[0] = 100.0  # level 2, 40 s into it: 20 s left
    d.direct("clock-pause", by="Anna", reason="a dispute")
    now[0] = 400.0
    d.step()  # the room's periodic clock event while paused
    store.close()  # the room is killed: a new process, a new monotonic clock

    store = open_store(url)
    again = RoomTournament(load_settings(ROOM_TOML), ROOM_TOML, ["t1", "t2"], StoreJournal(store),
                           lambda t, p: sent.append(p), lambda: 7.0)
    assert again.restore()
    st = again.director_status()
    assert (st["level"]["number"], st["seconds_left"], st["paused"]) == (2, 20, True)
    again.now = lambda: 9.0
    again.direct("clock-level", by="Anna", reason="skip ahead", amount=3)
    store.close()

    store = open_store(url)
    third = RoomTournament(load_settings(ROOM_TOML), ROOM_TOML, ["t1", "t2"], StoreJournal(store),
                           lambda t, p: sent.append(p), lambda: 3.0)
    assert third.restore()
    st = third.director_status()
    assert (st["level"]["number"], st["seconds_left"], st["paused"]) == (3, 60, True)  # still paused (TD's call)
    third.direct("clock-resume", by="Anna", reason="go")
    third.now = lambda: 13.0
    assert third.director_status()["seconds_left"] == 50
    store.close()


def test_no_clock_command_after_the_tournament_is_over() -> None:
    d, _, _, _, _ = clocked()
    d.result = {"places": [], "payouts": [], "prize_pool": 0}
    with pytest.raises(TournamentError, match="F-3: the tournament is over"):
        d.direct("clock-pause", by="Anna")


def test_the_director_pauses_and_moves_the_clock_of_a_real_room_simulation(tmp_path: Path, monkeypatch: Any,
                                                                          capsys: Any) -> None:
    """``livetable room simulate --tournament`` (two tables, real brokers and processes) with
    ``livetable room director`` against its console: the pause reaches the tables' orders
    (``running`` false, the time left kept), the new level is dealt from each table's next hand
    (TDA 23: every hand plays its ``go``'s stakes), both journalled in the room's store; the
    tournament still ends with everything checked (``ok``)."""
    import os
    import subprocess
    import sys

    from room import director_cli
    from tests.room.test_room_tournament import REPO, check_levels, room_events, table_events

    deep = ROOM_TOML.replace("starting_stack = 2000", "starting_stack = 200000").replace("minutes = 1", "minutes = 5")
    conf = tmp_path / "deep.toml"
    conf.write_text(deep)
    workdir = tmp_path / "room"
    cmd = [sys.executable, "-m", "controller.cli", "room", "simulate", "--tournament", "--tables", "2", "--entries",
           "16", "--seed", "7", "--dir", str(workdir), "--speed", "1", "--tournament-config", str(conf),
           "--tournament-timeout", "100"]
    room_proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=REPO,
                                 env=dict(os.environ, PYTHONPATH=str(REPO)))
    try:
        assert room_proc.stdout is not None
        head = []
        for line in room_proc.stdout:  # the console's address, then the tournament's first lines
            head.append(line)
            if "tournament of" in line:
                break
        url = head[0].split("console: ")[1].split(" ")[0]
        monkeypatch.setenv("LIVETABLE_ROOM_PASSWORD", head[0].split("login floor / ")[1].rstrip(")\n"))
        assert director_cli.main(["--console", url, "clock-pause", "--by", "Anna", "--reason", "dispute"]) == 0
        assert director_cli.main(["--console", url, "clock-level", "4", "--reason", "behind"]) == 0
        said = capsys.readouterr().out
        assert "done: the clock is paused at level 1" in said and "done: level 4 (200/400)" in said
        rest, _ = room_proc.communicate(timeout=120)
    finally:
        if room_proc.poll() is None:
            room_proc.kill()
            room_proc.communicate()
    summary = json.loads(rest.strip().splitlines()[-1])
    assert summary["ok"], summary["problems"]
    directed = [p["director"]["command"] for k, p in room_events(str(workdir / "room.sqlite"))
                if k == "clock" and "director" in p]
    assert directed == ["clock-pause", "clock-level"]
    assert check_levels(workdir, ["t1", "t2"]) > 0  # TDA 23: every hand played its go's stakes
    at_level_4 = 0
    for t in ("t1", "t2"):
        views = [e["order"] for e in table_events(workdir / t / "journal.sqlite") if e["type"] == "room-order"]
        paused = [o for o in views if o["view"] and o["view"]["running"] is False]
        assert paused and len({o["view"]["seconds_left"] for o in paused if o["view"]["level"]["number"] == 4}) <= 1
        at_level_4 += sum(1 for o in views if o["go"] and o["go"]["stakes"]["big_blind"] == 400)
    assert at_level_4 > 0
