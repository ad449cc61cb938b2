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


def test_calling_stations_call_an_all_in_and_never_bet_raise_or_fold(tmp_path):
    """``--players-style call``: seat 4 (a tablet's player) goes all-in at its turn and the
    three simulated players all call it: the hand goes to the showdown with every seat
    eligible for the main pot; none of them bets, raises or folds; chips are conserved."""
    orch, _ports, clock = _table(tmp_path, journal=False, seats=4)
    bots = {1, 2, 3}
    acted: list[tuple[int, str]] = []

    def post(item: Any, *, done: Any = None) -> None:
        acted.append((item.seat, item.action))
        orch.post(item, done=done)

    orch.listeners.append(SimPlayers(bots, post, clock, seed=3, style="call"))
    finished: list[Any] = []
    orch.listeners.append(lambda _o, effects: finished.extend(e for e in effects if isinstance(e, fx.HandFinished)))
    refused = _refusals(orch, bots | {4})
    orch.post(ev.HandStartRequested(at=clock()))
    orch.pump()
    steps = 0
    while orch.state.hand is not None and steps < 60:
        assert orch.state.hand.seat_to_act in (4, None), "a simulated player did not act"
        if orch.state.hand.seat_to_act == 4:
            orch.post(ev.ActionTaken(at=clock(), seat=4, action="all_in", seq=orch.state.seq))
        orch.pump()
        steps += 1
    assert len(finished) == 1, "the hand did not finish"
    result = finished[0].record["result"]
    assert sorted(result["awards"][0]["eligible"]) == [1, 2, 3, 4], result  # all three called
    assert sorted(result["shown"]) == ["1", "2", "3", "4"], result
    assert acted and {a for _s, a in acted} <= {"check", "call", "all_in"}, acted
    assert refused == []
    assert audit(orch.state) == []


def test_a_calling_station_checks_calls_or_goes_all_in_to_call():
    """choose_call: check when free, else call, else all-in (a call of every chip), fold
    only when nothing else is legal; mucks a losing hand at the showdown (P-2)."""
    import random

    from controller.bots import choose_call

    rng = random.Random(1)
    base = {"fold": True, "check": False, "call": None, "bet": None, "raise": None, "all_in": None,
            "draw": None, "show": False, "muck": False}
    pick = lambda **over: choose_call({**base, **over}, ["As", "Kd"], rng)["action"]  # noqa: E731 - a short helper
    assert pick(check=True, bet={"min": 100, "max": 5000}, all_in=5000, fold=False) == "check"
    assert pick(call=400, raise_={"min": 800, "max": 5000}, all_in=5000) == "call"
    assert pick(all_in=900) == "all_in"  # the bet is more than the stack: the call is all-in
    assert pick() == "fold"
    assert pick(show=True, muck=True) == "muck"
    assert pick(show=True) == "show"
