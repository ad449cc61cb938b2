"""The cash game's floor commands at a tournament table (issue 19 blocker, "chips from
nothing"): ``livetable floor seat 3 Carla 5000`` (and the room console's "Seat player") was
accepted at a freezeout, 5000 chips from outside the tournament; ``stakes`` answered accepted
while the levels kept the blinds; ``close`` closed a table only the room breaks.

At a single-table tournament and at a table of the room's tournament, each of them is refused
by the table (controller/floor.py, the one place the CLI, the console and the MQTT floor topic
go through) with an ``F-3`` reason saying what to do instead, and leaves the chips in play,
the stacks, the seats and the stakes as they were. Behind it the orchestrator refuses any
seating, chips or stakes event that is not the tournament's own (a tablet's top-up, a bug's
buy-in), and a chips-in-play violation pauses the table at once (a ``paused`` fault naming
it), not only in the final summary. The tournament's own flows (a registration, a rebuy, the
room's moves and purchases) still work."""

from __future__ import annotations

import json
from typing import Any

from controller.clock import ManualClock
from controller.composition import TableRun
from controller.devices import DeviceChoice
from controller.engine.table import events as ev
from controller.engine.table.settings import TableSettings
from controller.faults import FaultKind
from controller.floor import FloorDesk
from controller.tournament_link import RoomTournamentSeat
from controller.tournament_run import room_tournament_table_settings
from drivers.mqtt.events import FloorRequestReceived
from tests.tournament.test_director import BUY_TOML, _table

#: BUY_TOML has late registration until level 2 and rebuys (2000 chips, stack at most 2000).
STACK = 2000


def _picture(orch: Any) -> dict[str, Any]:
    """What a cash command must leave unchanged: chips in, out, on the table; seats and stacks; stakes."""
    st = orch.state
    return {"in": st.ledger.total_in, "out": st.ledger.total_out,
            "seats": {s.seat: (s.player, s.stack, s.buy_in_pending) for s in st.occupied()},
            "stakes": (st.settings.small_blind, st.settings.big_blind, st.settings.ante, st.settings.big_blind_ante),
            "paused": orch.faults.paused, "closing": orch.closing}


def _cash_commands(ask, free: int) -> dict[str, tuple[bool, str | None, str | None]]:
    return {"seat": ask("seat", seat=free, player="Carla", amount=5000),
            "stakes": ask("stakes", stakes={"small_blind": 500, "big_blind": 1000}),
            "close": ask("close")}


# ---------------------------------------------------------------------- a single-table tournament
def test_single_table_refuses_seat_stakes_and_close_and_nothing_changes(tmp_path) -> None:
    run, director, _clock, ask = _table(tmp_path, BUY_TOML)
    run.pacer.max_hands = 0  # between hands, as the floor's console would find it
    orch = run.orch
    orch.pump()  # the entries seated
    before = _picture(orch)
    assert before["in"] == director.standings.chips_in_play() == 4 * STACK
    free = next(n for n in range(1, 7) if orch.state.seat(n) is None)
    answers = _cash_commands(ask, free)
    orch.pump()
    for command, (ok, reason, detail) in answers.items():
        assert ok is False and detail is None, (command, reason, detail)
        assert reason is not None and reason.startswith("F-3: this table plays a tournament"), (command, reason)
    assert "livetable floor register NAME" in answers["seat"][1]
    assert "tournament's levels" in answers["stakes"][1] and "clock-level" in answers["stakes"][1]
    assert "25/50" in answers["stakes"][1]  # the blinds the level sets, still
    assert "pause" in answers["close"][1]
    assert _picture(orch) == before
    assert orch.state.ledger.total_in == director.standings.chips_in_play()
    assert director.problems == []
    kinds = [e.payload.get("kind") for e in orch.journal.entries() if e.kind == "table"]
    assert "settings-changed" not in kinds and kinds.count("bought-in") == 4  # the four entries only
    run.close()


def test_single_table_confirm_buyin_is_the_tournaments_never_a_cash_buy_in(tmp_path) -> None:
    run, _director, _clock, ask = _table(tmp_path, BUY_TOML)
    run.pacer.max_hands = 0
    run.orch.pump()
    seat = min(s.seat for s in run.orch.state.occupied())
    before = _picture(run.orch)
    ok, reason, _ = ask("confirm-buyin", seat=seat)
    assert (ok, reason) == (False, f"F-3: seat {seat} has no rebuy or add-on waiting")
    run.orch.pump()
    assert _picture(run.orch) == before
    run.close()


def test_single_table_registration_and_rebuy_still_work_and_chips_stay_the_tournaments(tmp_path) -> None:
    run, director, _clock, ask = _table(tmp_path, BUY_TOML)
    run.pacer.max_hands = 0
    orch = run.orch
    orch.pump()
    free = next(n for n in range(1, 7) if orch.state.seat(n) is None)
    ok, reason, _ = ask("seat", seat=free, player="Carla", amount=STACK)  # the cash way: refused
    assert ok is False and "livetable floor register" in (reason or ""), reason
    orch.pump()
    assert orch.state.seat(free) is None
    ok, reason, detail = ask("register", player="Carla")
    assert ok, reason
    assert "Carla enters" in detail
    orch.pump()
    carla = next(s for s in orch.state.occupied() if s.name == "Carla")
    assert carla.stack == STACK
    assert orch.state.ledger.total_in == director.standings.chips_in_play() == 5 * STACK
    seat = min(s.seat for s in orch.state.occupied())
    ok, reason, detail = ask("rebuy", seat=seat)
    assert ok, reason
    orch.pump()
    assert orch.state.seat(seat).stack == 2 * STACK
    assert orch.state.ledger.total_in == director.standings.chips_in_play() == 6 * STACK
    assert not orch.faults.paused and director.problems == []
    run.close()


def test_single_table_refuses_a_cash_seating_or_chips_event_from_any_other_path(tmp_path) -> None:
    """Defence in depth: a buy-in, a seat, a top-up (a tablet's), a confirmed buy-in, a move out
    or a stakes change posted to the table by anything but the tournament is refused: nothing
    journalled, nothing changed."""
    run, director, clock, _ask = _table(tmp_path, BUY_TOML)
    run.pacer.max_hands = 0
    orch = run.orch
    orch.pump()
    before = _picture(orch)
    events_before = orch.journal.last_seq
    seat = min(s.seat for s in orch.state.occupied())
    free = next(n for n in range(1, 7) if orch.state.seat(n) is None)
    for e in (ev.PlayerSatDown(at=clock(), seat=free, player="carla", name="Carla"),
              ev.BoughtIn(at=clock(), seat=seat, amount=5000),
              ev.PlayerJoined(at=clock(), seat=free, player="carla", name="Carla", amount=5000),
              ev.ToppedUp(at=clock(), seat=seat, amount=5000),
              ev.BuyInConfirmed(at=clock(), seat=seat, by="dealer"),
              ev.StoodUp(at=clock(), seat=seat, moved=True),
              ev.SettingsChanged(at=clock(), changes={"big_blind": 1000}, by="floor:Anna")):
        orch.post(e)
    orch.pump()
    assert _picture(orch) == before
    assert orch.journal.last_seq == events_before  # not journalled: a replay cannot take it either
    assert director.problems == []
    run.close()


def test_single_table_a_chips_in_play_violation_pauses_the_table_at_once(tmp_path) -> None:
    """Chips the standings do not hold (a bug's top-up, even through the tournament's own path)
    open a ``paused`` fault at once, naming the chips, instead of only the final summary's
    problems."""
    try:
        from controller.orchestrator import TournamentOwn
        own: Any = TournamentOwn
    except ImportError:  # before the fix (int): no wrapper, every path brought chips
        own = lambda e: e  # noqa: E731
    run, director, clock, _ask = _table(tmp_path, BUY_TOML)
    run.pacer.max_hands = 0
    orch = run.orch
    orch.pump()
    assert not orch.faults.paused
    seat = min(s.seat for s in orch.state.occupied())
    orch.post(own(ev.ToppedUp(at=clock(), seat=seat, amount=5000)))
    orch.pump()
    assert orch.faults.paused
    fault = orch.faults.current
    assert fault is not None and fault.kind is FaultKind.PAUSED and fault.message.startswith("tournament chips: ")
    assert f"chips brought {4 * STACK + 5000}" in fault.message and f"chips in play {4 * STACK}" in fault.message
    assert len(director.problems) == 1
    run.close()


# ---------------------------------------------------------------------- a table of the room's tournament
def _room_table(tmp_path):
    clock = ManualClock()
    settings = room_tournament_table_settings(TableSettings(id="t2", seats=8, small_blind=25, big_blind=50))
    run = TableRun(settings, tmp_path / "j.sqlite",
                   DeviceChoice(table="t2", seats=8, shuffler=None, internal_seed=1, mqtt=False), clock=clock)
    run.open()
    run.pacer.max_hands = 0
    link = RoomTournamentSeat("t2", host="127.0.0.1", port=1)  # never connected: orders put by hand
    link.attach(run)
    replies: list[tuple[bool, str | None, str | None]] = []
    desk = FloorDesk(run.orch, lambda rid, cmd, ok, reason, detail, status: replies.append((ok, reason, detail)),
                     clock=clock)
    n = iter(range(1, 1000))

    def ask(command: str, **kw) -> tuple[bool, str | None, str | None]:
        desk.request(FloorRequestReceived(f"r{next(n)}", command, "Anna", clock(), reason="r", **kw))
        return replies[-1]

    def order(oid: int, **kw: Any) -> None:
        body = {"schema": 1, "table": "t2", "id": oid, "tournament": "9f3c0a1b2c3d4e5f", "out": [], "in": [],
                "go": None, "end": False}
        body.update(kw)
        link._orders.put(json.dumps(body).encode())
        link.tick(run.orch)
        run.orch.pump()

    seated = [{"move": i, "seat": i, "player": f"p{i}", "name": f"Player {i}", "chips": STACK} for i in (1, 2, 3)]
    order(1, **{"in": seated})
    return run, link, ask, order


def test_room_table_refuses_seat_stakes_and_close_and_its_report_is_unchanged(tmp_path) -> None:
    run, link, ask, _order = _room_table(tmp_path)
    try:
        orch = run.orch
        before, report = _picture(orch), link.report()
        assert before["in"] == 3 * STACK and report["seats"] == {str(i): [f"p{i}", STACK] for i in (1, 2, 3)}
        answers = _cash_commands(ask, 4)
        orch.pump()
        for command, (ok, reason, detail) in answers.items():
            assert ok is False and detail is None, (command, reason, detail)
            assert reason is not None and reason.startswith("F-3: this table plays the room's tournament"), reason
        assert "livetable room director register NAME --by WHO" in answers["seat"][1]
        assert "livetable room director clock-level" in answers["stakes"][1]
        assert "the room's director breaks a table" in answers["close"][1]
        assert _picture(orch) == before
        after = link.report()
        # the room would refuse a report with a player it has at no table: none is there
        assert after["seats"] == report["seats"] and after["ledger"] == report["ledger"] == {"in": 3 * STACK, "out": 0}
        assert not link.problems
    finally:
        link._client.loop_stop()
        run.close()


def test_room_table_refuses_a_cash_seating_or_chips_event_from_any_other_path(tmp_path) -> None:
    run, link, _ask, _order = _room_table(tmp_path)
    try:
        orch, clock = run.orch, run.orch.clock
        before, seq = _picture(orch), orch.journal.last_seq
        orch.post(ev.PlayerSatDown(at=clock(), seat=4, player="carla", name="Carla"))
        orch.post(ev.BoughtIn(at=clock(), seat=4, amount=5000))
        orch.post(ev.ToppedUp(at=clock(), seat=1, amount=5000))
        orch.post(ev.StoodUp(at=clock(), seat=2, moved=True))
        orch.pump()
        assert _picture(orch) == before and orch.journal.last_seq == seq
    finally:
        link._client.loop_stop()
        run.close()


def test_room_table_moves_and_purchases_of_the_room_still_work(tmp_path) -> None:
    """The room's own flows: a player moved in (a late entry the room seats here), one moved
    out with his chips, a rebuy the floor sends the room and the chips the room's order brings."""
    run, link, ask, order = _room_table(tmp_path)
    try:
        orch = run.orch
        ok, reason, _ = ask("seat", seat=5, player="Carla", amount=STACK)  # the cash way: refused
        assert ok is False and "livetable room director register" in (reason or ""), reason
        orch.pump()
        assert orch.state.seat(5) is None
        ok, reason, detail = ask("rebuy", seat=1)
        assert ok, reason
        assert "sent to the room's director" in detail
        assert [r["seat"] for r in link.report()["requests"].values()] == [1]
        order(2, out=[{"move": 2, "seat": 2, "player": "p2"}],
              **{"in": [{"move": 7, "seat": 5, "player": "p7", "name": "Carla", "chips": STACK}]},
              buy=[{"purchase": 1, "seat": 1, "player": "p1", "kind": "rebuy", "chips": STACK}],
              answers={"1": {"purchase": 1}})
        rep = link.report()
        assert rep["seats"] == {"1": ["p1", 2 * STACK], "3": ["p3", STACK], "5": ["p7", STACK]}
        assert rep["moved_out"] == {"2": STACK} and rep["moved_in"] == [1, 2, 3, 7] and rep["bought"] == [1]
        assert rep["ledger"] == {"in": 5 * STACK, "out": STACK} and not orch.faults.paused
    finally:
        link._client.loop_stop()
        run.close()
