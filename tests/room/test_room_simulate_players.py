"""Simulated players inside the full simulated room (issue 18): ``livetable room simulate
--players N``. The tables' own players stand up now and then (``--leave-chance``), the seats
open, the room's desk calls the players on its lists, they accept (the floor's ``seat``
request seats them at the table itself, through its bridge), pass or let the call lapse,
play and leave again.

The test reads the room's store itself, not only the command's verdict: the stored
waiting-list log passes the independent checker (room/fairness.py: every open seat offered
to the first eligible player, never to two at once, a lapsed or passed call moved on), and
every accepted call is followed by the table's own report of that player in that seat.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from room.fairness import check_log
from room.players import Players
from room.store import open_store
from room.waitlist import ListKey
from tests.room.conftest import REPO, need_mosquitto


def run_room(tmp_path: Path, *args: str, timeout: float) -> dict[str, Any]:
    out = subprocess.run([sys.executable, "-m", "controller.cli", "room", "simulate", "--headless",
                          "--dir", str(tmp_path / "run"), *args],
                         capture_output=True, text=True, timeout=timeout, cwd=str(REPO))
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def check_stored_log(tmp_path: Path, summary: dict[str, Any], openings: int) -> None:
    figures = summary["players"]
    assert summary["balanced"] is True
    assert figures["fair"] is True, figures["unfair"]
    assert figures["openings"] >= openings and figures["seated"] >= openings // 3
    assert figures["lapses"] >= 1 and figures["passes"] >= 1, figures
    store = open_store(tmp_path / "run" / "room.sqlite")
    try:
        entries = Players(store).waitlist_entries()
    finally:
        store.close()
    key = ListKey("no-limit holdem", "50/100")
    counts = check_log(entries, {t: key for t in {e.table for e in entries if e.table}})
    assert counts["openings"] == figures["openings"] and counts["lapses"] == figures["lapses"]
    # an accepted call is a seat at the table itself: the first the table says of that seat
    # after it is that player sitting there (a request still on its way when the tables
    # stopped is never answered)
    accepted = confirmed = 0
    for i, e in enumerate(entries):
        if e.action == "seat" and e.detail.startswith("accepted"):
            accepted += 1
            said = [x for x in entries[i + 1:] if x.by == f"table:{e.table}" and x.seat == e.seat
                    and x.action in ("seat", "open")]
            if said:
                assert (said[0].action, said[0].player) == ("seat", e.player), (e, said[0])
                confirmed += 1
    assert confirmed >= accepted * 0.8 and accepted == figures["seated"], (confirmed, accepted)
    # the table's own players left (their seat opened) and so did the room's players
    leavers = {e.player for e in entries if e.action == "open" and e.by.startswith("table:")}
    assert any(p.startswith("sim") for p in leavers) and any(p.startswith("p0") for p in leavers), leavers


@pytest.mark.broker
@pytest.mark.timeout(240)
def test_room_simulate_players_are_called_seated_and_leave(tmp_path: Path) -> None:
    need_mosquitto()
    summary = run_room(tmp_path, "--tables", "2", "--hands", "150", "--players", "10", "--seed", "4",
                       timeout=220)
    check_stored_log(tmp_path, summary, openings=20)


@pytest.mark.slow
@pytest.mark.broker
@pytest.mark.timeout(1200)
def test_room_simulate_200_openings_are_fair(tmp_path: Path) -> None:
    need_mosquitto()
    summary = run_room(tmp_path, "--tables", "3", "--hands", "500", "--players", "24", "--seed", "11",
                       "--leave-chance", "0.1", timeout=1100)
    check_stored_log(tmp_path, summary, openings=200)


def test_room_simulate_refuses_players_without_the_tables_link(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "controller.cli", "room", "simulate", "--headless", "--players", "3",
                          "--devices", "none", "--dir", str(tmp_path / "run")],
                         capture_output=True, text=True, timeout=60, cwd=str(REPO))
    assert out.returncode == 2 and "--players" in out.stderr
