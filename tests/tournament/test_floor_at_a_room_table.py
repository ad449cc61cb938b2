"""``livetable floor clock-pause`` / ``register`` at a table of the room's multi-table tournament
(issue 19 usability): the table holds no director (the room does), and said "no tournament is
played at this table"; it now says the room's director runs it and how
(``livetable room director ...``). A cash table still says it plays no tournament."""

from __future__ import annotations

from controller.clock import ManualClock
from controller.composition import TableRun
from controller.devices import DeviceChoice
from controller.engine.table.settings import TableSettings
from controller.floor import FloorDesk
from controller.tournament_link import RoomTournamentSeat
from drivers.mqtt.events import FloorRequestReceived


def _ask(tmp_path, room: bool) -> list[tuple]:
    run = TableRun(TableSettings(id="t1", seats=8), tmp_path / "j.sqlite",
                   DeviceChoice(table="t1", seats=8, shuffler=None, internal_seed=1, mqtt=False), clock=ManualClock())
    run.open()
    link = RoomTournamentSeat("t1", host="127.0.0.1", port=1)  # never connected
    try:
        if room:
            link.attach(run)
        replies: list[tuple] = []
        desk = FloorDesk(run.orch, lambda *a: replies.append(a), clock=ManualClock())
        for i, command in enumerate(("clock-pause", "register", "rebuy")):
            kw = {"player": "Zoe"} if command == "register" else {"seat": 3} if command == "rebuy" else {}
            desk.request(FloorRequestReceived(f"r{i}", command, "Anna", 0.0, reason="r", **kw))
        return [r[2:4] for r in replies]
    finally:
        link._client.loop_stop()
        run.close()


def test_a_director_request_at_a_room_tournament_table_points_to_the_rooms_director(tmp_path) -> None:
    pause, register, rebuy = _ask(tmp_path, room=True)
    assert pause[0] is False and register[0] is False and rebuy[0] is False
    assert pause[1].startswith("F-3: this table plays the room's tournament, which its director runs at the room: "
                               "livetable room director clock-pause ... --reason TEXT")
    assert "livetable room director register NAME" in register[1]
    assert "no tournament is played" not in pause[1] + register[1] + rebuy[1]
    # a rebuy goes to the room as the request of the player the table seats there (issue 19):
    # seat 3 is empty here (test_room_tournament_purchases.py books one)
    assert rebuy[1] == "F-3: seat 3 has no player in the tournament"


def test_at_a_cash_table_it_still_plays_no_tournament(tmp_path) -> None:
    pause, register, _ = _ask(tmp_path, room=False)
    assert pause == (False, "F-3: no tournament is played at this table (clock-pause is a director's)")
    assert register == (False, "F-3: no tournament is played at this table (register is a director's)")


def test_the_table_says_once_when_the_room_ends_its_play(tmp_path, caplog) -> None:
    """Newcomer F2: at the tournament's end the tables stayed up and logged nothing about it."""
    import json
    import logging

    run = TableRun(TableSettings(id="t1", seats=8), tmp_path / "j.sqlite",
                   DeviceChoice(table="t1", seats=8, shuffler=None, internal_seed=1, mqtt=False), clock=ManualClock())
    run.open()
    link = RoomTournamentSeat("t1", host="127.0.0.1", port=1)  # never connected
    try:
        link.attach(run)
        order = {"schema": 1, "table": "t1", "id": 1, "out": [], "in": [], "go": None, "end": True}
        with caplog.at_level(logging.INFO, logger="livetable"):
            link._take(json.dumps(order).encode())
            link._take(json.dumps({**order, "id": 2}).encode())
        said = [r.getMessage() for r in caplog.records if "the room ended this table's play" in r.getMessage()]
        assert said == ["table t1: the room ended this table's play (broken, or the tournament is over): it deals "
                        "no more hands and keeps reporting to the room until it is stopped"]
        assert link.ended
    finally:
        link._client.loop_stop()
        run.close()
