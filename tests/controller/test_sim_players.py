"""Simulated players (controller/bots.py) keep one decision in flight per seat.

A player who has decided waits for the table to take or refuse that decision before
deciding again: a state published meanwhile for another reason (a tablet at another seat
lost its connection, A-4) must not make the player act twice on one turn (the second
action would be refused, A-1). A decision the table refused, or dropped unseen, is decided
again on the state as it is.
"""

from __future__ import annotations

from typing import Any

from controller.bots import SimPlayers
from controller.engine.table import effects as fx
from controller.engine.table import events as ev
from controller.engine.table.audit import audit

from tests.controller.test_orchestrator import _table


class Held:
    """A ``post`` that holds the players' decisions until the test lets them go (their
    thinking time), each with its ``done``."""

    def __init__(self, orch: Any) -> None:
        self.orch = orch
        self.items: list[tuple[Any, Any]] = []

    def __call__(self, item: Any, *, done: Any = None) -> None:
        self.items.append((item, done))

    def release(self) -> None:
        items, self.items = self.items, []
        for item, done in items:
            self.orch.post(item, done=done)


def _refusals(orch: Any, seats: set[int]) -> list[Any]:
    seen: list[Any] = []
    orch.listeners.append(lambda _o, effects: seen.extend(
        e for e in effects if isinstance(e, fx.Refuse) and e.seat in seats))
    return seen


def test_a_state_published_while_a_player_thinks_does_not_make_it_act_twice(tmp_path):
    orch, _ports, clock = _table(tmp_path, journal=False, seats=4)
    bots = {1, 2, 3}
    post = Held(orch)
    orch.listeners.append(SimPlayers(bots, post, clock, seed=3))
    refused = _refusals(orch, bots)
    orch.post(ev.TabletConnected(at=clock(), seat=4))
    orch.post(ev.HandStartRequested(at=clock()))
    orch.pump()
    turns = 0
    while orch.state.hand is not None and turns < 40:
        seat = orch.state.hand.seat_to_act
        if seat == 4:  # the tablet's seat: it acts itself
            orch.post(ev.ActionTaken(at=clock(), seat=4, action="fold", seq=orch.state.seq))
        else:
            assert len(post.items) == 1, post.items  # one decision for this turn
            # while the player thinks, seat 4's tablet drops and comes back: new states
            orch.post(ev.TabletDisconnected(at=clock(), seat=4))
            orch.post(ev.TabletConnected(at=clock(), seat=4))
            orch.pump()
            assert len(post.items) == 1, post.items  # still that one decision, no second
            post.release()
        orch.pump()
        turns += 1
    assert orch.state.hand is None, "the hand did not finish"
    assert refused == []
    assert audit(orch.state) == []


def test_a_decision_dropped_unseen_is_made_again(tmp_path):
    orch, _ports, clock = _table(tmp_path, journal=False, seats=3)
    post = Held(orch)
    players = SimPlayers({1, 2, 3}, post, clock, seed=3)
    orch.listeners.append(players)
    orch.post(ev.HandStartRequested(at=clock()))
    orch.pump()
    assert len(post.items) == 1
    post.items.clear()  # the decision is lost on its way (a pause dropped it)
    players.forget(orch)
    assert len(post.items) == 1 and post.items[0][0].seat == orch.state.hand.seat_to_act


def test_a_refused_decision_is_made_again_on_the_state_as_it_is(tmp_path):
    orch, _ports, clock = _table(tmp_path, journal=False, seats=3)
    post = Held(orch)
    orch.listeners.append(SimPlayers({1, 2, 3}, post, clock, seed=3))
    orch.post(ev.HandStartRequested(at=clock()))
    orch.pump()
    (item, done), = post.items
    post.items.clear()
    stale = ev.ActionTaken(at=clock(), seat=item.seat, action=item.action, amount=item.amount,
                           seq=0)  # decided on a state from before this turn: refused
    orch.post(stale, done=done)
    orch.pump()
    assert len(post.items) == 1 and post.items[0][0].seat == item.seat
    assert post.items[0][0].seq == orch.state.seq
