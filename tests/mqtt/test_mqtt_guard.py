"""Idempotent actions (M-4 stale seq, M-5 replayed id) and the chat rate limit (L-3, M-8)."""

from __future__ import annotations

import pytest

from drivers.mqtt.codec import PayloadError
from drivers.mqtt.guard import ActionGuard, RateLimit


def code_of(fn, *args) -> str | None:  # type: ignore[no-untyped-def]
    try:
        fn(*args)
    except PayloadError as exc:
        return exc.code
    return None


def test_actions_before_any_state_are_refused_m4() -> None:
    assert code_of(ActionGuard().admit, 3, "a", 0) == "M-4"


def test_an_action_on_the_current_seq_passes_once_and_its_replay_is_refused_m5() -> None:
    guard = ActionGuard()
    guard.published(7)
    assert code_of(guard.admit, 3, "a", 7) is None
    assert code_of(guard.admit, 3, "a", 7) == "M-5"
    assert code_of(guard.admit, 4, "a", 7) is None  # ids are per seat


def test_stale_and_future_seqs_are_refused_m4_and_consume_the_id() -> None:
    guard = ActionGuard()
    guard.published(7)
    guard.published(8)
    assert code_of(guard.admit, 3, "a", 7) == "M-4"
    assert code_of(guard.admit, 3, "b", 9) == "M-4"
    assert code_of(guard.admit, 3, "a", 8) == "M-5"


def _admit(guard: ActionGuard, seq: int, scope: str, seat: int = 3) -> str | None:
    _admit.n += 1  # type: ignore[attr-defined]
    return code_of(lambda: guard.admit(seat, f"id{_admit.n}", seq, scope=scope))  # type: ignore[attr-defined]


_admit.n = 0  # type: ignore[attr-defined]

FLOP, TURN = (1, "flop"), (1, "turn")
ANN, BOB = ("seated", "Ann"), ("seated", "Bob")


def test_a_preselection_lasts_its_betting_round_a3() -> None:
    guard = ActionGuard()
    guard.published(7, round=FLOP, occupants=(None, None, ANN))
    guard.published(8, round=FLOP, occupants=(None, None, ANN))
    assert _admit(guard, 7, "round") is None  # the flop goes on: made on seq 7, still the flop
    assert _admit(guard, 7, "state") == "M-4"  # a decision needs the state it was made on
    guard.published(9, round=TURN, occupants=(None, None, ANN))
    assert _admit(guard, 8, "round") == "M-4"  # made on the flop, arriving on the turn
    guard.published(10, round=(2, "preflop"), occupants=(None, None, ANN))
    assert _admit(guard, 9, "round") == "M-4"  # ... or in the next hand
    assert _admit(guard, 10, "round") is None


def test_a_seat_request_holds_while_the_seat_holds_the_same_player() -> None:
    guard = ActionGuard()
    guard.published(7, round=FLOP, occupants=(None, None, ANN))
    guard.published(8, round=TURN, occupants=(None, None, ANN))
    assert _admit(guard, 7, "seat") is None  # the hand moved on; Ann is still in seat 3
    assert _admit(guard, 7, "seat", seat=1) is None  # empty then, empty now: take_seat
    guard.published(9, round=TURN, occupants=(BOB, None, None))
    assert _admit(guard, 8, "seat") == "M-4"  # Ann left: her pending sit_out is not Bob's
    assert _admit(guard, 8, "seat", seat=1) == "M-4"  # seat 1 was taken meanwhile
    assert _admit(guard, 8, "seat", seat=2) is None
    guard.published(10, round=TURN, occupants=(BOB, None, BOB))  # a player of the same name
    assert _admit(guard, 9, "seat") == "M-4"  # empty then, taken now


def test_a_seq_not_remembered_is_stale_in_every_scope() -> None:
    guard = ActionGuard(states=3)
    for seq in range(10, 15):
        guard.published(seq, round=FLOP, occupants=(ANN,))
    for scope in ActionGuard.SCOPES:
        assert _admit(guard, 11, scope, seat=1) == "M-4"  # older than the last 3 states
        assert _admit(guard, 9, scope, seat=1) == "M-4"  # never published
        assert _admit(guard, 15, scope, seat=1) == "M-4"  # from the future
        assert _admit(guard, 12, scope, seat=1) == (None if scope != "state" else "M-4")
    with pytest.raises(ValueError):
        guard.admit(1, "x", 14, scope="hand")


def test_before_any_state_every_scope_is_m4_and_a_replayed_id_is_m5_in_any_scope() -> None:
    guard = ActionGuard()
    assert code_of(lambda: guard.admit(3, "a", 0, scope="seat")) == "M-4"
    guard.published(7)
    guard.published(8)
    assert code_of(lambda: guard.admit(3, "b", 7, scope="seat")) is None
    assert code_of(lambda: guard.admit(3, "b", 8, scope="seat")) == "M-5"


def test_seq_never_goes_back() -> None:
    guard = ActionGuard()
    guard.published(7)
    guard.published(7)
    with pytest.raises(ValueError):
        guard.published(6)


def test_seen_ids_are_bounded_oldest_first() -> None:
    guard = ActionGuard(ids_per_seat=3)
    guard.published(1)
    for aid in "abcd":
        guard.admit(3, aid, 1)
    assert code_of(guard.admit, 3, "a", 1) is None  # forgotten
    assert code_of(guard.admit, 3, "d", 1) == "M-5"


def test_rate_limit_counts_a_sliding_window_per_key() -> None:
    limit = RateLimit(count=2, window=10.0)
    assert limit.allow(3, 0.0) and limit.allow(3, 1.0)
    assert not limit.allow(3, 9.9)
    assert limit.allow(4, 9.9)
    assert limit.allow(3, 10.0)  # the line at 0.0 left the window
    assert not limit.allow(3, 10.5)
