"""The tournament clock, driven by a fake monotonic time (no sleeps, no clock reads)."""

from __future__ import annotations

import pytest

from controller.tournament.clock import TournamentClock, hand_for_hand
from controller.tournament.errors import TournamentError

from .helpers import settings

T0 = 1000.0  # an arbitrary monotonic origin


@pytest.fixture
def clock():
    c = TournamentClock(settings())
    c.start(T0)
    return c


def test_levels_advance_with_time_and_report_time_left(clock):
    st = clock.status(T0 + 5)
    assert st.level.number == 1 and st.seconds_left == 20 * 60 - 5 and st.running
    assert st.next.number == 2
    st = clock.status(T0 + 20 * 60 + 1)
    assert st.level.number == 2 and st.seconds_left == 20 * 60 - 1
    # a level boundary exactly: the new level has its full time
    assert clock.status(T0 + 40 * 60).on_break


def test_break_then_next_level_and_the_last_level_never_ends(clock):
    st = clock.status(T0 + 45 * 60)
    assert st.on_break and st.level.number == 3 and st.seconds_left == 5 * 60
    st = clock.status(T0 + 50 * 60 + 30)
    assert not st.on_break and st.level.number == 3
    assert st.seconds_left is None and st.next is None
    assert clock.status(T0 + 10 * 3600).level.number == 3


def test_pause_keeps_time_left_and_resume_runs_on(clock):
    clock.pause(T0 + 600)
    assert clock.status(T0 + 5000).seconds_left == 600  # paused: no time passes
    assert not clock.status(T0 + 5000).running
    clock.resume(T0 + 5000)
    st = clock.status(T0 + 5000 + 599)
    assert st.level.number == 1 and st.seconds_left == 1
    assert clock.status(T0 + 5000 + 601).level.number == 2
    with pytest.raises(TournamentError, match="already running"):
        clock.resume(T0 + 6000)


def test_tda_rule_23_a_new_level_applies_from_the_next_hand(clock):
    """A hand dealt one second before the level ends plays level 1 to its end; the table
    records the level the clock gave at the deal; the next hand plays level 2."""
    hand_level = clock.level_for_hand(T0 + 20 * 60 - 1)
    assert hand_level.number == 1
    assert clock.status(T0 + 20 * 60 + 30).level.number == 2  # the clock moved on
    assert hand_level.big_blind == 50  # what the running hand keeps
    assert clock.level_for_hand(T0 + 20 * 60 + 31).number == 2


def test_no_hand_during_a_break_or_before_the_start():
    c = TournamentClock(settings())
    with pytest.raises(TournamentError, match="not started"):
        c.level_for_hand(T0)
    c.start(T0)
    with pytest.raises(TournamentError, match="break"):
        c.level_for_hand(T0 + 41 * 60)


def test_td_skips_ahead_and_corrects_time_left(clock):
    clock.next_level(T0 + 10)
    assert clock.status(T0 + 10).level.number == 2
    clock.set_time_left(T0 + 20, 90)
    assert clock.status(T0 + 50).seconds_left == 60
    with pytest.raises(TournamentError, match="0..1200"):
        clock.set_time_left(T0 + 60, 5000)


def test_time_going_backwards_is_refused(clock):
    clock.status(T0 + 100)
    with pytest.raises(TournamentError, match="backwards"):
        clock.status(T0 + 99)


def test_snapshot_restores_the_clock_in_a_new_process():
    s = settings()
    c = TournamentClock(s)
    c.start(T0)
    snap = c.to_json(T0 + 20 * 60 + 100)
    # a new process: its monotonic clock starts elsewhere
    c2 = TournamentClock.from_json(s, snap, now=5.0)
    st = c2.status(5.0 + 10)
    assert st.level.number == 2 and st.seconds_left == 20 * 60 - 110
    with pytest.raises(TournamentError, match="does not fit"):
        TournamentClock.from_json(s, {**snap, "index": 9}, now=5.0)


@pytest.mark.parametrize(
    "left, paid, tables, margin, expected",
    [(11, 10, 2, 1, True), (12, 10, 2, 1, False), (12, 10, 2, 2, True), (10, 10, 2, 1, False),
     (11, 10, 1, 1, False)],
)
def test_hand_for_hand_flag_near_the_money(left, paid, tables, margin, expected):
    assert hand_for_hand(left, paid, tables, margin) is expected
