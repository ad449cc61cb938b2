"""A table's refused tournament report is said once, not every second (issue 19): the room's
warning ``table t1: a tournament report was refused: ...`` came at every report (a table reports
every second or so) for the same table and reason. Now once per table and reason, again when
the reason changes, else at most once a minute (the clock injected: no sleeps), and the
problems list holds each reason once (room/repeats.py, :meth:`room.tournament.RoomTournament.report`)."""

from __future__ import annotations

import json
import logging
from typing import Any

from room.repeats import Repeats
from tests.room.test_room_tournament_director import exchange, room

REFUSED = "a tournament report was refused"


def _forged(tables: dict[str, Any], i: int = 0) -> bytes:
    """t1's report with a player of t2's seated at t1 too (the room has him at t2)."""
    rep = json.loads(tables["t1"].report())
    rep["seats"]["8"] = tables["t2"].seats[sorted(tables["t2"].seats)[i]]
    return json.dumps(rep).encode()


def _said(caplog: Any) -> list[str]:
    out = [r.getMessage() for r in caplog.records if REFUSED in r.getMessage()]
    caplog.clear()
    return out


def test_the_same_refusal_every_second_is_said_once_a_minute_and_a_new_reason_at_once(caplog: Any) -> None:
    d, tables, sent, _ = room()
    exchange(d, tables, sent, "t1", "t2")
    now = [100.0]
    d.repeats = Repeats(lambda: now[0])
    caplog.set_level(logging.WARNING, logger="livetable.room.tournament")
    forged = _forged(tables)
    said = []
    for _ in range(125):  # a report a second for just over two minutes
        d.report("t1", forged)
        said += _said(caplog)
        now[0] += 1
    assert d.refused == 125
    assert len(said) == 3, said  # at 0 s, 60 s and 120 s
    assert said[0].endswith("the room has him at t2") and "again" not in said[0]
    assert said[1].endswith("(again: 60 times in the last 60 s)") and said[2].endswith("(again: 60 times in the last 60 s)")
    why = said[0].split(REFUSED + ": ", 1)[1]
    assert d.problems == [f"table t1: report refused: {why}"]  # once, not 20 times the same
    d.report("t1", _forged(tables, 1))  # another reason: said at once
    other = _said(caplog)
    assert len(other) == 1 and other[0] != said[0] and "again" not in other[0]
    assert len(d.problems) == 2
    d.report("t1", tables["t1"].report())  # a good report: the next refusal is news again
    assert _said(caplog) == []
    d.report("t1", forged)
    assert len(_said(caplog)) == 1


def test_a_malformed_report_repeated_is_said_once(caplog: Any) -> None:
    d, tables, sent, _ = room()
    exchange(d, tables, sent, "t1", "t2")
    now = [0.0]
    d.repeats = Repeats(lambda: now[0])
    caplog.set_level(logging.WARNING, logger="livetable.room.tournament")
    for _ in range(30):
        d.report("t1", b"{not json")
        now[0] += 1
    assert len(_said(caplog)) == 1


def test_repeats_per_key_and_kind() -> None:
    now = [0.0]
    r = Repeats(lambda: now[0], every=60, most=2)
    assert r.say("t1", "stale (order 5)", kind="stale") == "stale (order 5)"
    now[0] = 59
    assert r.say("t1", "stale (order 6)", kind="stale") is None  # the same kind, numbers aside
    assert r.say("t2", "x") == "x"  # another table
    assert r.say("t3", "y") == "y" and r.say("t3", "y") == "y"  # beyond `most` tables: always said, never kept
    now[0] = 60
    assert r.say("t1", "stale (order 7)", kind="stale") == "stale (order 7) (again: 2 times in the last 60 s)"
    r.clear("t1")
    assert r.say("t1", "stale (order 8)", kind="stale") == "stale (order 8)"
