"""The seat scope of ``drivers.mqtt.guard.ActionGuard`` across stays and restarts (M-4; found
by a second breaker): a request from before the seat changed hands, even back to the same
player, never reaches the new stay; one from before a restart is refused with a reason
that says so (the guard cannot know what changed meanwhile)."""

from __future__ import annotations

import pytest

from drivers.mqtt.codec import PayloadError
from drivers.mqtt.guard import ActionGuard

FLOP, TURN = (1, "flop"), (1, "turn")
ANN, BOB = ("seated", "Ann"), ("seated", "Bob")


def _code(guard: ActionGuard, seat: int, action_id: str, seq: int, scope: str) -> str | None:
    try:
        guard.admit(seat, action_id, seq, scope=scope)
    except PayloadError as exc:
        return exc.code
    return None


def test_a_seat_request_from_before_the_player_stood_up_does_not_reach_her_next_stay() -> None:
    guard = ActionGuard()
    guard.published(7, round=FLOP, occupants=(None, None, ANN))   # Ann's tablet sends stand_up at 7 (offline: pending)
    guard.published(8, round=FLOP, occupants=(None, None, None))  # the floor stands her up
    guard.published(9, round=TURN, occupants=(None, None, ANN))   # she takes the seat again (new buy-in)
    # the tablet reconnects and resends the pending stand_up (same id, seq 7): her new stay ends
    assert _code(guard, 3, "s3-x-1", 7, "seat") == "M-4"


def test_a_take_seat_from_before_another_players_stay_is_stale() -> None:
    guard = ActionGuard()
    guard.published(7, round=FLOP, occupants=(None, None, None))  # Ann asks for seat 3 (tablet offline)
    guard.published(8, round=FLOP, occupants=(None, None, BOB))   # the floor seats Bob there
    guard.published(9, round=TURN, occupants=(None, None, None))  # Bob leaves
    assert _code(guard, 3, "s3-x-2", 7, "seat") == "M-4"


def test_a_sit_out_pressed_while_the_controller_restarted_is_refused_saying_so(tmp_path) -> None:
    """The restarted controller's guard knows no state from before it started: a request the
    page kept pending through the outage is refused, saying the table restarted (the player
    asks again; the same player may or may not hold the seat, as far as the guard can know)."""
    from controller.engine.table.state import TableState
    from controller.journal import Journal
    from controller.orchestrator import Orchestrator
    from drivers.mqtt.guard import view_facts
    from tests.controller.test_compaction import SETTINGS, _table

    t, _ = _table(tmp_path)
    t.play(3)
    t.play_until(lambda o: o.state.hand is not None and o.state.hand.street.value == "flop")
    seen = t.orch.public_view()  # Player 3 taps "sit out" on this state; the controller dies
    t.close()
    with Journal(tmp_path / "j.sqlite") as j:
        orch = Orchestrator.recover(j, lambda: TableState.new(SETTINGS), clock=t.clock)
        orch.void_interrupted_hand("restart")  # as a table whose deck is gone does (README)
        now = orch.public_view()
    assert view_facts(now)["occupants"][2] == view_facts(seen)["occupants"][2]  # the same player
    guard = ActionGuard()  # the restarted controller's
    guard.published(now["seq"], **view_facts(now))
    with pytest.raises(PayloadError, match="M-4.*before the table restarted.*ask again"):
        guard.admit(3, "s3-x-3", seen["seq"], scope="seat")
    assert _code(guard, 3, "s3-x-4", now["seq"], "seat") is None
