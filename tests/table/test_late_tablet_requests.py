"""Late tablet requests (M-4 by scope, drivers/mqtt/guard.py; found by a breaker).

A pre-selection is made on the state the player sees and "lasts one betting round" (A-3,
docs/table.md); a seat request is the seat's player's. One that reaches the table late (the
tablet page resends every pending payload, same id and same seq, after a Wi-Fi drop; or it
simply crosses a street change in flight) must not act on a betting round, a hand or a
player it was not made for. These tests wire the real pieces in the order the controller
runs them: ``ActionGuard.published`` with the public view as ``TableLink.publish_state``
keeps it, ``ActionGuard.admit`` as ``TableLink._take_action`` calls it, the adapter's
translation (``MqttAdapter._seat_request``), then the table's ``step``.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from controller.devices.mqtt import MqttAdapter
from controller.engine.table import events as ev
from controller.engine.table.settings import TableSettings
from controller.views import public_view
from drivers.mqtt.codec import PayloadError
from drivers.mqtt.guard import ActionGuard, scope_of, view_facts

from .harness import Bench

NL = TableSettings(small_blind=5, big_blind=10, seats=6)


class Wire:
    """The controller's path for one tablet request: guard (link) -> adapter -> step."""

    def __init__(self, bench: Bench) -> None:
        self.b = bench
        self.guard = ActionGuard()
        self.sync()

    def sync(self) -> None:
        """The orchestrator publishes every new state: the link's guard learns its seq."""
        if self.guard.seq != self.b.state.seq:
            self.guard.published(self.b.state.seq, **view_facts(public_view(self.b.state)))

    def deliver(self, seat: int, action: str, action_id: str, seq_seen: int, **kw) -> str:
        """Return 'refused <rule>' or 'taken'."""
        try:
            self.guard.admit(seat, action_id, seq_seen, scope=scope_of(action))
        except PayloadError as exc:
            return f"refused {exc.code}"
        e = SimpleNamespace(action=action, amount=kw.get("amount"), choice=kw.get("choice"),
                            name=kw.get("name"), post=kw.get("post"), cards=())
        out = MqttAdapter._seat_request(action, e, dict(at=self.b.t, seat=seat))
        for item in out:
            self.b.send(item)
        self.sync()
        refusals = self.b.refused()
        return f"refused {refusals[0].rule}" if refusals else "taken"


def _play(b: Bench, w: Wire, moves) -> None:
    for seat, action, *amount in moves:
        assert b.to_act == seat, (b.to_act, seat, action)
        b.act(seat, action, *amount)
        assert not b.refused(), b.refused()
        w.sync()


def _table() -> tuple[Bench, Wire]:
    b = Bench(NL)
    for s in (1, 2, 3):
        b.seat_up(s, 1000)
    return b, Wire(b)


def test_a_preselect_from_the_last_hand_is_not_applied_to_the_next_hand() -> None:
    b, w = _table()
    b.start(1)  # button 1, SB 2, BB 3; seat 1 first to act preflop
    w.sync()
    seen = b.state.seq
    hand1 = b.state.hands
    # seat 3 (big blind) taps "all in" while seat 1 acts; the tablet drops off Wi-Fi before
    # the publish: the page keeps it pending (same id, same seq) and resends on reconnect.
    _play(b, w, [(1, "fold"), (2, "fold")])  # seat 3 wins the blinds; hand 1 is over
    assert b.state.hand is None
    b.start()
    w.sync()
    assert b.state.hands == hand1 + 1 and b.state.hand is not None
    verdict = w.deliver(3, "preselect", "s3-abc-7", seen, choice="all_in")
    stacks_before = b.stacks()[3]
    # play hand 2 until seat 3's turn comes (nobody else has done anything unusual)
    while b.state.hand is not None and b.to_act is not None and b.to_act != 3:
        b.act(b.to_act, "call")
        w.sync()
    auto = [a for a in b.state.info.auto if a[0] == 3] if b.state.hand is not None else []
    assert verdict.startswith("refused"), (verdict, auto, stacks_before, b.stacks())


def test_a_preselect_made_on_the_flop_does_not_fold_the_player_on_the_turn() -> None:
    b, w = _table()
    b.start(1)
    w.sync()
    _play(b, w, [(1, "call"), (2, "call"), (3, "check")])
    assert b.state.hand.street.value == "flop"
    # on the flop seat 2 (first to act) checks; seat 3 pre-selects check/fold on that state
    _play(b, w, [(2, "check")])
    seen = b.state.seq
    _play(b, w, [(3, "check"), (1, "check")])  # meanwhile the flop is checked through
    assert b.state.hand.street.value == "turn"
    verdict = w.deliver(3, "preselect", "s3-abc-8", seen, choice="check_fold")
    _play(b, w, [(2, "bet", 20)])
    folded = any(a[:2] == (3, "fold") for a in b.state.info.auto)
    assert not folded and verdict.startswith("refused"), (verdict, b.state.info.auto)


def test_a_decision_on_an_older_state_is_refused_m4() -> None:
    """A decision with a stale seq is refused M-4."""
    b, w = _table()
    b.start(1)
    w.sync()
    seen = b.state.seq
    _play(b, w, [(1, "call")])
    assert w.deliver(3, "fold", "s3-x-1", seen) == "refused M-4"


@pytest.mark.parametrize("action,amount", [("top_up", 100), ("stand_up", None), ("sit_out", None)])
def test_a_seat_request_from_the_last_player_does_not_reach_the_next_one(action, amount) -> None:
    b, w = _table()
    seen = b.state.seq  # player p3 on seat 3 asks (the tablet is off Wi-Fi: it stays pending)
    b.do(ev.StoodUp, seat=3)  # p3 leaves through the dealer's seat button / the floor
    b.seat_up(3, 800, player="q3")  # a new player sits down on seat 3 (same seat tablet)
    w.sync()
    ledger_before = b.state.ledger.accounts["q3"]
    verdict = w.deliver(3, action, "s3-old-9", seen, amount=amount)
    s = b.state.seat(3)
    assert verdict.startswith("refused"), (verdict, s and (s.player, s.stack, s.sitting_out, s.leaving),
                                          ledger_before, b.state.ledger.accounts.get("q3"))


def test_a_late_call_x_whose_amount_changed_is_refused_a3() -> None:
    """"call X" seen on an older state of the same round reaches the table after a raise: A-3."""
    b, w = _table()
    b.start(1)
    w.sync()
    seen = b.state.seq  # seat 3 (BB) is not to act; seat 2 (SB) would call 5
    _play(b, w, [(1, "raise", 30)])
    assert w.deliver(2, "preselect", "s2-x-1", seen, choice="call", amount=5) == "refused A-3"
    assert b.state.seat(2).preselect is None
