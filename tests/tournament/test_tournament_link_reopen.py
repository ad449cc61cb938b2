"""A broken table of the room's tournament reopened for a late entry (issue 19, TDA 9: a late
entry draws a seat from the seats open to new players; house policy, the TDA is silent on
reopening: card rooms open a table when late entries outrun the seats kept for them).

The table's side (:class:`controller.tournament_link.RoomTournamentSeat`): an ended table
refuses every order but one with ``reopen``; that one is journalled as any order, so a table
killed after journalling it comes back open, carries the order out once and seats nobody twice.
Chips and players are checked after every step: the table's ledger (in - out) is the chips
at its seats, each player seated once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import json

import pytest

from controller.tournament_link import OrderError, decode_order
from tests.room.test_room_tournament_purchases import _close, _order, _table

ANNA = {"move": 1, "seat": 1, "player": "p1", "name": "Anna", "chips": 2000}
BOB = {"move": 2, "seat": 2, "player": "p2", "name": "Bob", "chips": 3000}
LENA = {"move": 9, "seat": 5, "player": "p9", "name": "Lena", "chips": 2000}


def conserved(link: Any) -> dict[str, Any]:
    """The table's report, checked: its ledger holds the chips at its seats, each player once."""
    rep = link.report()
    players = [v[0] for v in rep["seats"].values()]
    assert len(players) == len(set(players))
    assert rep["ledger"]["in"] - rep["ledger"]["out"] == sum(v[1] for v in rep["seats"].values())
    return rep


def _broken(path: Path) -> tuple[Any, Any]:
    """A room table that seated Anna and Bob (order 1), then was broken: both moved away and
    the table ended (order 2, TDA 10)."""
    run, link = _table(path)
    _order(link, run, 1, **{"in": [ANNA, BOB]})
    conserved(link)
    _order(link, run, 2, out=[{"move": 3, "seat": 1, "player": "p1"}, {"move": 4, "seat": 2, "player": "p2"}],
           end=True)
    rep = conserved(link)
    assert rep["ended"] and not rep["waiting"] and rep["seats"] == {} and rep["applied"] == 2
    assert rep["moved_out"] == {"3": 2000, "4": 3000}
    return run, link


def test_an_ended_table_refuses_an_order_without_reopen_and_seats_nobody(tmp_path: Path) -> None:
    run, link = _broken(tmp_path / "t1.sqlite")
    try:
        _order(link, run, 3, **{"in": [LENA]})
        rep = conserved(link)
        assert rep["ended"] and rep["applied"] == 2 and rep["seats"] == {} and 3 not in link.done
    finally:
        _close(run, link)


def test_tda_9_a_reopen_order_opens_an_ended_table_and_seats_the_late_entry_once(tmp_path: Path) -> None:
    run, link = _broken(tmp_path / "t1.sqlite")
    try:
        _order(link, run, 3, reopen=True)
        rep = conserved(link)
        assert not rep["ended"] and rep["waiting"] and rep["applied"] == 3 and rep["seats"] == {}
        _order(link, run, 4, **{"in": [LENA]})  # the room's next order: the late entry's seat
        rep = conserved(link)
        assert rep["seats"] == {"5": ["p9", 2000]} and rep["moved_in"] == [1, 2, 9] and rep["applied"] == 4
        _order(link, run, 3, reopen=True)  # a repeat (QoS 1) is only answered
        _order(link, run, 4, **{"in": [LENA]})
        assert conserved(link)["seats"] == {"5": ["p9", 2000]}
        # TDA 11: the room balances players into it, the hand is dealt on its go
        _order(link, run, 5, **{"in": [dict(BOB, move=10, seat=7, chips=3000)]},
               go={"hand": run.orch.state.hands + 1, "stakes": {"small_blind": 25, "big_blind": 50}})
        rep = conserved(link)
        assert rep["seats"] == {"5": ["p9", 2000], "7": ["p2", 3000]}
        assert link.hand_start() == {"level": {"small_blind": 25, "big_blind": 50}}
        # broken again later: ended again, and a later order without reopen is refused again
        _order(link, run, 6, out=[{"move": 11, "seat": 5, "player": "p9"}, {"move": 12, "seat": 7, "player": "p2"}],
               end=True)
        _order(link, run, 7, **{"in": [dict(LENA, move=13)]})
        rep = conserved(link)
        assert rep["ended"] and rep["applied"] == 6 and rep["seats"] == {}
    finally:
        _close(run, link)
    run, link = _table(tmp_path / "t1.sqlite")  # restarted: the journal says ended again, after the reopen
    try:
        rep = conserved(link)
        assert rep["ended"] and rep["applied"] == 6 and link.hand_start() is None
    finally:
        _close(run, link)


@pytest.mark.parametrize("carried_out", [False, True])
def test_a_table_killed_after_journalling_the_reopen_comes_back_open_and_seats_nobody_twice(
        tmp_path: Path, carried_out: bool) -> None:
    """Killed (-9) after the ``room-order`` of the reopen is journalled: before it was carried
    out (its ``order-done`` never written), or after; the room sends it again (its report
    was lost) and then the late entry's order, also twice."""
    path = tmp_path / "t1.sqlite"
    run, link = _broken(path)
    reopen = json.dumps({"schema": 1, "table": "t1", "id": 3, "out": [], "in": [], "go": None, "end": False,
                         "reopen": True}).encode()
    link._take(reopen)  # journalled; a kill -9 before the loop's next turn carries it out
    if carried_out:
        link.tick(run.orch)
    _close(run, link)  # nothing after the journal's last entry happens: as a kill
    run, link = _table(path)
    try:
        assert not link.ended and link.applied == 3
        link.tick(run.orch)  # a pending order is carried out (no moves: nothing twice)
        rep = conserved(link)
        assert not rep["ended"] and rep["waiting"] and rep["applied"] == 3 and rep["seats"] == {}
        _order(link, run, 3, reopen=True)  # the room's resend: answered only
        _order(link, run, 4, **{"in": [LENA]})
        _order(link, run, 4, **{"in": [LENA]})
        rep = conserved(link)
        assert rep["seats"] == {"5": ["p9", 2000]} and rep["moved_in"] == [1, 2, 9]
        assert rep["ledger"] == {"in": 7000, "out": 5000}
    finally:
        _close(run, link)


@pytest.mark.parametrize("extra, why", [
    ({"end": True, "reopen": True}, "cannot both end and reopen"),
    ({"reopen": "yes"}, "'reopen' must be true or false"),
    ({"reopen": 1}, "'reopen' must be true or false"),
])
def test_a_malformed_reopen_is_refused_with_its_reason(extra: dict[str, Any], why: str) -> None:
    raw = json.dumps({"schema": 1, "table": "t1", "id": 3, **extra}).encode()
    with pytest.raises(OrderError, match=why):
        decode_order(raw, "t1", 8)
    assert decode_order(json.dumps({"schema": 1, "table": "t1", "id": 3, "reopen": True}).encode(), "t1",
                        8)["reopen"] is True


def test_a_reopened_table_deals_hands_again_and_its_chips_stay_conserved(tmp_path: Path) -> None:
    """The table broken and reopened deals a whole hand on the room's go, simulated players
    acting (the internal dealer): its rotation after every player left and new ones came
    does not keep it from dealing."""
    from controller.clock import ManualClock
    from controller.composition import TableRun
    from controller.devices import DeviceChoice
    from controller.engine.table.settings import TableSettings
    from controller.simdevices import SimulatedPlayers
    from controller.tournament_link import RoomTournamentSeat

    clock = ManualClock()
    players = SimulatedPlayers(list(range(1, 9)), seed=3, clock=clock, speed=0)
    run = TableRun(TableSettings(id="t1", seats=8, tournament=True), tmp_path / "t1.sqlite",
                   DeviceChoice(table="t1", seats=8, shuffler=None, internal_seed=1, mqtt=False), clock=clock,
                   extras=[players])
    run.open()
    link = RoomTournamentSeat("t1", host="127.0.0.1", port=1)
    link.attach(run)
    stakes = {"small_blind": 25, "big_blind": 50}

    def go() -> dict[str, Any]:
        return {"hand": run.orch.state.hands + 1, "stakes": stakes}

    reps: list[dict[str, Any]] = []

    def between_hands() -> None:  # the room's side, scripted: after hand 1 break, reopen, deal hand 2
        if run.orch.state.hand is not None or run.orch.state.hands != 1 + len(reps):
            return
        reps.append(conserved(link))
        if len(reps) == 2:
            run.stop()
            return
        _order(link, run, 2, out=[{"move": 3, "seat": 1, "player": "p1"},
                                  {"move": 4, "seat": 2, "player": "p2"}], end=True)
        assert conserved(link)["ended"] and link.hand_start() is None
        _order(link, run, 3, reopen=True)
        _order(link, run, 4, go=go(), **{"in": [LENA, dict(BOB, move=10, seat=7, chips=3000)]})

    try:
        _order(link, run, 1, go=go(), **{"in": [ANNA, BOB]})
        run.run(poll=0.0, on_idle=between_hands)
        assert [r["hands"] for r in reps] == [1, 2]
        rep = reps[1]
        assert not rep["ended"] and sorted(v[0] for v in rep["seats"].values()) == ["p2", "p9"]
        assert sum(v[1] for v in rep["seats"].values()) == 5000
    finally:
        _close(run, link)
