"""A simulated player's re-buy the table refuses (issue 18, found by ``livetable room
simulate --players``): a player the floor seated back within 20 minutes busts; T-2 holds
their buy-in to what they left with, the pacer's re-buy of the minimum is refused — and the
pacer asked again at once, for ever (160,000 refused ``bought-in`` in one table's journal, no
hand dealt). Now the busted simulated player stands up (T-8) and the table plays on."""

from __future__ import annotations

import dataclasses

from controller.clock import ManualClock
from controller.engine.table import events as ev
from controller.engine.table.audit import audit
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import Departure, TableState
from controller.orchestrator import Orchestrator, Ports
from controller.runtime import HandPacer


def test_a_refused_rebuy_stands_the_busted_player_up_instead_of_asking_for_ever() -> None:
    clock = ManualClock()
    settings = TableSettings(id="t1", game="holdem", seats=6, small_blind=50, big_blind=100)
    # p3 left this table a minute ago with 15000, more than the maximum buy-in (T-2)
    state = dataclasses.replace(TableState.new(settings), departures=(Departure("p3", clock() - 60, 15000),))
    orch = Orchestrator(state, journal=None, clock=clock, ports=Ports())
    for s in (1, 2):
        orch.post(ev.PlayerSatDown(at=clock(), seat=s, player=f"p{s}", name=f"P{s}"))
        orch.post(ev.BoughtIn(at=clock(), seat=s, amount=5000))
    # p3 is back, without chips (busted, or not yet bought in): a re-buy of the minimum is refused
    orch.post(ev.PlayerSatDown(at=clock(), seat=3, player="p3", name="P3"))
    orch.pump()
    assert orch.state.seat(3) is not None and orch.state.seat(3).stack == 0
    pacer = HandPacer(orch.post, clock, rebuy={1, 2, 3}, max_hands=1)
    orch.listeners.append(pacer)
    pacer.kick(orch)
    handled = orch.pump(limit=200)
    assert handled < 200, "the pacer asks for the refused re-buy again and again"
    assert orch.state.seat(3) is None  # the busted simulated player left the seat
    assert audit(orch.state) == []


def test_a_player_the_floor_seats_gets_the_floors_buy_in_not_a_rebuy() -> None:
    """``room simulate --players`` (12 of 458 seatings): the floor's ``seat`` posts the
    sit-down, then its buy-in; the pacer saw a re-buy seat with no chips in between and
    bought in the minimum first, so the floor's buy-in was refused (T-7: the seat has chips)
    and the player stood up again. A seat is not re-bought from its own sit-down's step."""
    clock = ManualClock()
    settings = TableSettings(id="t1", game="holdem", seats=6, small_blind=50, big_blind=100)
    orch = Orchestrator(TableState.new(settings), journal=None, clock=clock, ports=Ports())
    orch.post(ev.PlayerSatDown(at=clock(), seat=1, player="p1", name="P1"))
    orch.post(ev.BoughtIn(at=clock(), seat=1, amount=5000))
    orch.pump()
    pacer = HandPacer(orch.post, clock, rebuy={1, 2, 3}, max_hands=1)
    orch.listeners.append(pacer)
    pacer.kick(orch)  # one player: the hand start is refused, the pacer waits for a change
    orch.pump()
    # the floor's seat request, as controller/floor.py posts it: the buy-in once seated
    orch.post(ev.PlayerSatDown(at=clock(), seat=3, player="name:zoe", name="zoe"),
              done=lambda: orch.post(ev.BoughtIn(at=clock(), seat=3, amount=7000)))
    orch.pump(limit=50)
    assert orch.state.seat(3) is not None
    assert orch.state.ledger.accounts["name:zoe"].bought_in == 7000
    assert orch.state.ledger.total_in == 12000 and audit(orch.state) == []
