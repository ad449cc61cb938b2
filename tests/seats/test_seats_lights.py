"""The pure side: state projection, button legality (A-1, T-5) and light patterns (A-2)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.seats.events import ConsoleButton, SeatButton
from drivers.seats.lights import (CONSOLE, CONSOLE_FAULT, CONSOLE_PAUSED, ERROR, ERROR_SECONDS,
                                  FAST_AT_OR_BELOW, OFF, SAT_OUT, SAT_OUT_PWM, STEADY_ABOVE,
                                  TURN, TURN_FAST, TURN_SLOW, PanelView, console_light, lights,
                                  next_change, project, seat_light)

from seats_support import private_view, public_state

NOW = 1_800_000_000.0
ACTIONS = {SeatButton.FOLD, SeatButton.CHECK_CALL, SeatButton.BET_RAISE}


@pytest.mark.parametrize("left, expected", [
    (1.0, TURN), (0.75, TURN), (0.51, TURN),
    (0.5, TURN_SLOW), (0.35, TURN_SLOW), (0.21, TURN_SLOW),
    (0.2, TURN_FAST), (0.05, TURN_FAST), (0.0, TURN_FAST), (-0.3, TURN_FAST),
])
def test_A2_turn_light_speeds_up_as_the_timer_runs_low(left, expected) -> None:
    view = project(public_state(turn_seat=2, now=NOW, seconds=30, left=left))
    assert seat_light(view, 2, NOW) == expected
    assert seat_light(view, 1, NOW) == OFF  # not seat 1's turn


def test_blink_speeds_are_ordered_and_distinct() -> None:
    assert TURN_SLOW.period > TURN_FAST.period > 0
    assert len({TURN, TURN_SLOW, TURN_FAST, SAT_OUT, ERROR, OFF}) == 6


@pytest.mark.parametrize("flags", [{"paused": True}, {"fault": True}])
def test_a_stopped_table_shows_a_steady_light_for_the_seat_to_act(flags) -> None:
    view = project(public_state(turn_seat=2, now=NOW, left=0.1, **flags))
    assert seat_light(view, 2, NOW) == TURN


def test_T5_sitting_out_has_its_own_pattern_on_led_and_pwm() -> None:
    view = project(public_state(statuses={1: "sitting-out", 2: "acting"}))
    assert seat_light(view, 1, NOW) == SAT_OUT
    assert seat_light(view, 1, NOW, pwm=True) == SAT_OUT_PWM
    assert SAT_OUT not in (TURN, TURN_SLOW, TURN_FAST, OFF)


def test_empty_and_unknown_seats_are_dark() -> None:
    view = project(public_state(statuses={1: "empty", 2: "acting"}, turn_seat=2))
    assert seat_light(view, 1, NOW) == OFF
    assert seat_light(view, 9, NOW) == OFF
    assert seat_light(PanelView(), 2, NOW) == OFF


def test_error_blink_overrides_then_returns_to_the_projection() -> None:
    view = project(public_state(turn_seat=2, now=NOW))
    errors = {1: NOW + ERROR_SECONDS, 2: NOW + ERROR_SECONDS}
    assert seat_light(view, 1, NOW, errors=errors) == ERROR
    assert seat_light(view, 2, NOW, errors=errors) == ERROR
    after = NOW + ERROR_SECONDS
    assert seat_light(view, 1, after, errors=errors) == OFF
    assert seat_light(view, 2, after, errors=errors) == TURN
    assert ERROR.count == 3 and ERROR_SECONDS == pytest.approx(3 * ERROR.period)


def test_console_light_shows_fault_then_pause_then_nothing() -> None:
    assert console_light(project(public_state(fault=True, paused=True)), NOW) == CONSOLE_FAULT
    assert console_light(project(public_state(paused=True)), NOW) == CONSOLE_PAUSED
    assert console_light(project(public_state()), NOW) == OFF
    errors = {CONSOLE: NOW + 0.1}
    assert console_light(project(public_state()), NOW, errors=errors) == ERROR


def test_lights_covers_each_wired_light() -> None:
    view = project(public_state(turn_seat=3, now=NOW, left=0.3))
    result = lights(view, NOW, [1, 3, 5], console=True)
    assert result == {1: OFF, 3: TURN_SLOW, 5: OFF, CONSOLE: OFF}
    assert CONSOLE not in lights(view, NOW, [1])


def test_next_change_names_the_timer_thresholds_and_error_ends() -> None:
    view = project(public_state(turn_seat=2, now=NOW, seconds=30))  # deadline NOW + 30
    t50, t20 = NOW + 15, NOW + 24
    assert next_change(view, NOW) == pytest.approx(t50)
    assert seat_light(view, 2, t50) == TURN_SLOW
    assert next_change(view, t50) == pytest.approx(t20)
    assert seat_light(view, 2, t20) == TURN_FAST
    assert next_change(view, t20) is None
    assert next_change(view, NOW, {1: NOW + 0.3}) == pytest.approx(NOW + 0.3)
    paused = project(public_state(turn_seat=2, now=NOW, paused=True))
    assert next_change(paused, NOW) is None


@settings(max_examples=200, deadline=None)
@given(seconds=st.floats(1, 120), left=st.floats(-0.5, 1.0), step=st.floats(0, 60))
def test_A2_the_light_never_calms_down_as_time_passes(seconds, left, step) -> None:
    urgency = {TURN: 0, TURN_SLOW: 1, TURN_FAST: 2}
    view = project(public_state(turn_seat=2, now=NOW, seconds=seconds, left=left))
    before = seat_light(view, 2, NOW)
    after = seat_light(view, 2, NOW + step)
    assert urgency[after] >= urgency[before]
    fraction = view.turn.fraction_left(NOW)
    assert (before == TURN) == (fraction > STEADY_ABOVE)
    assert (before == TURN_FAST) == (fraction <= FAST_AT_OR_BELOW)


# -- legality ------------------------------------------------------------------------------

def test_A1_only_the_seat_to_act_may_use_action_buttons() -> None:
    view = project(public_state(turn_seat=2), {2: private_view(2)})
    assert view.seats[2].legal == ACTIONS - {SeatButton.BET_RAISE} | {SeatButton.SIT}
    assert view.seats[1].legal == {SeatButton.SIT}
    assert not view.seat_legal(1, SeatButton.FOLD)
    assert not view.seat_legal(4, SeatButton.SIT)  # empty seat
    assert not view.seat_legal(9, SeatButton.SIT)  # no such seat


@pytest.mark.parametrize("legal, expected", [
    (dict(fold=True, check=True, call=None, bet={"min": 100, "max": 900}, raise_=None),
     ACTIONS),
    (dict(fold=True, check=False, call=100, bet=None, raise_={"min": 200, "max": 900}),
     ACTIONS),
    (dict(fold=True, check=False, call=1000, bet=None, raise_=None),  # all-in call only
     {SeatButton.FOLD, SeatButton.CHECK_CALL}),
    (dict(fold=False, check=False, call=None, bet=None, raise_=None), set()),
])
def test_A1_private_legal_actions_decide_the_action_buttons(legal, expected) -> None:
    view = project(public_state(turn_seat=2), {"2": private_view(2, **legal)})
    assert view.seats[2].legal - {SeatButton.SIT} == expected


def test_A1_a_null_legal_block_allows_no_action() -> None:
    private = {2: {"seat": 2, "to_act": False, "legal": None}}
    view = project(public_state(turn_seat=2), private)
    assert view.seats[2].legal == {SeatButton.SIT}


@pytest.mark.parametrize("flags", [{"paused": True}, {"fault": True}])
def test_no_action_while_paused_or_faulted(flags) -> None:
    view = project(public_state(turn_seat=2, **flags), {2: private_view(2)})
    assert view.seats[2].legal == {SeatButton.SIT}


def test_without_a_private_view_the_public_state_decides() -> None:
    view = project(public_state(turn_seat=2, bets={1: 200}))
    assert view.seats[2].legal >= {SeatButton.FOLD, SeatButton.CHECK_CALL, SeatButton.BET_RAISE}
    state = public_state(turn_seat=2, bets={1: 5000})  # to call 5000 > stack 1000
    assert SeatButton.BET_RAISE not in project(state).seats[2].legal


def test_console_legality() -> None:
    between = project(public_state(street="waiting", turn_seat=None))
    assert between.console_legal(ConsoleButton.START)
    assert not between.console_legal(ConsoleButton.CONFIRM)
    during = project(public_state(street="flop"))
    assert not during.console_legal(ConsoleButton.START)
    assert during.console_legal(ConsoleButton.PAUSE)
    faulted = project(public_state(street="waiting", turn_seat=None, fault=True))
    assert faulted.console_legal(ConsoleButton.CONFIRM)
    assert not faulted.console_legal(ConsoleButton.START)
    paused = project(public_state(street="waiting", turn_seat=None, paused=True))
    assert not paused.console_legal(ConsoleButton.START)
    assert paused.console_legal(ConsoleButton.PAUSE)


def test_partial_states_project_without_raising() -> None:
    assert project(None) == PanelView()
    assert project({}) == PanelView()
    view = project({"seq": 3, "seats": [{"seat": 1}, "junk", {"seat": "x"}],
                    "turn": {"seat": 1}})
    assert view.seq == 3 and view.seats[1].status == "empty"
    assert seat_light(view, 1, NOW) == OFF
    junk = project({"seq": "x", "turn": {"seat": 2, "deadline": "soon", "seconds": None},
                    "seats": [{"seat": 2, "status": "acting", "bet": "lots", "stack": None}]})
    assert junk.seq is None and junk.turn.deadline is None
    assert seat_light(junk, 2, NOW) == TURN
    assert junk.seats[2].legal >= {SeatButton.FOLD, SeatButton.CHECK_CALL}
    assert project({"seats": 7}).seats == {}
    odd = project(public_state(turn_seat=2), {2: "junk", "x": None})
    assert odd.seats[2].legal >= {SeatButton.FOLD}  # judged from the public state
    assert project(public_state(turn_seat=2), {2: {"legal": [1]}}).seats[2].legal == {
        SeatButton.SIT}


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 20) | st.floats()
    | st.sampled_from(["acting", "active", "sitting-out", "empty", "waiting", "x"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["seat", "status", "bet", "stack", "turn", "deadline", "seconds",
                         "started", "seq", "seats", "legal", "fold", "check", "call", "bet",
                         "raise", "paused", "fault", "street"]), inner, max_size=6),
    max_leaves=8)


@settings(max_examples=100, deadline=None)
@given(public=_json, private=st.dictionaries(st.integers(0, 5) | st.text(max_size=2), _json,
                                             max_size=3))
def test_project_never_raises_on_malformed_views(public, private) -> None:
    if not isinstance(public, dict):
        public = {"seats": public, "turn": public}
    view = project(public, private)
    for seat in list(view.seats) + [1]:
        seat_light(view, seat, NOW)
    next_change(view, NOW)
    for button in ConsoleButton:
        view.console_legal(button)
