"""The lobby's average pot and hands per hour (room/lobby.py ``pace``, issue 18): a burst of
simulated hands is not a pace ("Hands/h 456" for a table that played 76 hands in two
minutes); the pace is over the last hour's hands, shown only with enough of them."""

from __future__ import annotations

from pathlib import Path

from room.lobby import HOUR, PACE_MIN_HANDS, PACE_MIN_SPAN, pace
from room.store import Store, open_store

NOW = 1_800_000_000.0


def _hands(store: Store, table: str, starts: list[float], pot: int = 150, voided: int = 0) -> None:
    with store.transaction() as tx:
        first = len(store.query("SELECT number FROM room_hands WHERE table_id = ?", (table,)))
        for i, at in enumerate(starts, start=first + 1):
            tx.execute("INSERT INTO room_hands(table_id, number, seq, started_at, ended_at, voided, pot, rake, record)"
                       " VALUES (?,?,?,?,?,?,?,?,?)", (table, i, i, at, at + 30, voided, pot + i, 0, "{}"))


def test_a_burst_of_hands_is_no_pace_yet(tmp_path: Path) -> None:
    store = open_store(tmp_path / "room.sqlite")
    _hands(store, "burst", [NOW - 120 + i for i in range(76)])  # 76 hands in the last two minutes
    _hands(store, "few", [NOW - 3000 + 300 * i for i in range(PACE_MIN_HANDS - 1)])  # nine hands in 50 min
    figures = pace(store, NOW)
    assert figures["burst"][1] is None  # was 456 (76 over the ten minutes' floor)
    assert figures["few"][1] is None
    assert figures["burst"][0] == sum(150 + i for i in range(1, 77)) // 76  # the average pot stays
    store.close()


def test_the_pace_over_the_hour_played(tmp_path: Path) -> None:
    store = open_store(tmp_path / "room.sqlite")
    _hands(store, "live", [NOW - 2 * HOUR + 120 * i for i in range(60)])  # 30 an hour for two hours
    _hands(store, "new", [NOW - PACE_MIN_SPAN + 60 * i for i in range(PACE_MIN_HANDS)])  # 10 in 15 min
    _hands(store, "void", [NOW - 600], voided=1)
    figures = pace(store, NOW)
    assert figures["live"][1] == 30  # the hands ended in the last hour, over the whole hour
    assert figures["new"][1] == 40  # ten hands over the quarter of an hour it has played
    assert "void" not in figures
    store.close()
