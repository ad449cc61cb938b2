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


def test_without_the_seq_check_a_stale_seq_passes_but_a_replayed_id_does_not() -> None:
    guard = ActionGuard()
    assert code_of(lambda: guard.admit(3, "a", 0, check_seq=False)) == "M-4"  # still no state at all
    guard.published(7)
    guard.published(8)
    assert code_of(lambda: guard.admit(3, "b", 7, check_seq=False)) is None
    assert code_of(lambda: guard.admit(3, "b", 8, check_seq=False)) == "M-5"
    assert code_of(guard.admit, 3, "c", 7) == "M-4"  # the default checks


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
