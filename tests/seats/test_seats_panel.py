"""The seat panel through gpiozero's MockFactory: presses in, events out; state in, lights out."""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory, MockPin
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from seats_support import WAIT, FakeClock, private_view, public_state

from drivers.seats.events import (ConsoleButton, ConsoleButtonPressed, SeatButton,
                                  SeatButtonHeld, SeatButtonPressed)
from drivers.seats.factory import MOCK_REVISION
from drivers.seats.lights import (CONSOLE, CONSOLE_FAULT, ERROR, OFF, SAT_OUT, SAT_OUT_PWM,
                                  TURN, TURN_FAST, TURN_SLOW)
from drivers.seats.panel import SeatPanel
from drivers.seats.pinmap import DEFAULT_PIN_MAP, ConfigError, parse_pin_map

FOLD, CALL, RAISE, SIT = (SeatButton.FOLD, SeatButton.CHECK_CALL, SeatButton.BET_RAISE,
                          SeatButton.SIT)


def press(panel: SeatPanel, seat, name) -> None:
    panel.button(seat, name).pin.drive_low()


def release(panel: SeatPanel, seat, name) -> None:
    panel.button(seat, name).pin.drive_high()


def tap(panel: SeatPanel, clock: FakeClock, seat, name) -> float:
    """Press, hold 0.1 s (by the fake clock), release, let 0.1 s pass; return the press time."""
    at = clock.now
    press(panel, seat, name)
    clock.advance(0.1)
    release(panel, seat, name)
    clock.advance(0.1)
    return at


def assert_phases(states, seconds: float) -> None:
    """Each recorded phase lasted ``seconds``: never less (gpiozero waits at least that long)
    and, in the median, less than 1.8 times that (a loaded machine may stretch a phase; the
    median still tells the error flash 0.05 s from the fast blink 0.125 s from the slow 0.5 s)."""
    phases = sorted(s.timestamp for s in states)
    assert phases[0] >= seconds - 0.005, phases
    assert phases[len(phases) // 2] < seconds * 1.8, phases


def test_A1_a_legal_press_posts_one_event_stamped_by_the_clock(make_panel, clock, recorder):
    panel = make_panel()
    panel.update(public_state(seq=41, turn_seat=2, now=clock.now), {2: private_view(2)})
    at = clock.now
    press(panel, 2, FOLD)
    assert recorder.wait_for(1) == [SeatButtonPressed(2, FOLD, at, 41)]
    release(panel, 2, FOLD)
    assert panel.patterns()[2] == TURN


@pytest.mark.parametrize("seat, name, why", [
    (1, FOLD, "not seat 1's turn"),
    (3, RAISE, "not seat 3's turn"),
    (2, RAISE, "nothing to bet or raise: all-in call only"),
])
def test_A1_an_illegal_press_is_ignored_with_an_error_blink(make_panel, clock, recorder,
                                                             seat, name, why):
    panel = make_panel()
    panel.update(public_state(turn_seat=2, now=clock.now),
                 {2: private_view(2, call=1000, raise_=None, bet=None)})
    led = panel.led(seat).pin
    led.clear_states()
    press(panel, seat, name)
    release(panel, seat, name)
    assert recorder.events == [], why
    assert panel.patterns()[seat] == ERROR
    # three 0.05 s flashes on the pin: (on,) off, on, off, on, off
    lit = bool(led.states[0].state)
    states = led.wait_states(6 if lit else 7)
    assert [bool(s.state) for s in states] == [lit] + [True, False][lit:] + [True, False] * 2
    assert_phases(states[2:], 0.05)
    clock.advance(0.31)
    panel.tick()
    assert panel.patterns()[seat] == (TURN if seat == 2 else OFF)


def test_presses_before_any_state_are_refused(make_panel, recorder):
    panel = make_panel()
    press(panel, 1, FOLD)
    assert recorder.events == [] and panel.patterns()[1] == ERROR
    release(panel, 1, FOLD)


def test_bounce_on_press_and_release_gives_one_event(make_panel, clock, recorder):
    panel = make_panel()
    panel.update(public_state(turn_seat=2, now=clock.now), {2: private_view(2)})
    pin = panel.button(2, CALL).pin
    # contact bounce within 2 ms: low, high, low, high, low (the fake clock steps 0.5 ms)
    for drive in (pin.drive_low, pin.drive_high, pin.drive_low, pin.drive_high, pin.drive_low):
        drive()
        clock.advance(0.0005)
    clock.advance(0.3)  # held 0.3 s, then a bouncy release
    for drive in (pin.drive_high, pin.drive_low, pin.drive_high):
        drive()
        clock.advance(0.0005)
    assert [e.button for e in recorder.events] == [CALL]
    assert panel.patterns()[2] == TURN  # bounce is not an illegal press: no error blink
    clock.advance(0.5)
    tap(panel, clock, 2, CALL)  # a real second press, well after the bounce time
    assert [e.button for e in recorder.events] == [CALL, CALL]


def test_T5_sit_button_acts_only_when_held(make_panel, clock, recorder):
    pin_map = parse_pin_map({"hold_time": 0.05, "seats": {"1": {"sit": "GPIO22", "fold":
                                                                "GPIO4", "led": "GPIO18"}}})
    panel = make_panel(pin_map)
    panel.update(public_state(turn_seat=2, statuses={1: "active", 2: "acting"}))
    # a short press: no event, a hint blink
    tap(panel, clock, 1, SIT)
    assert recorder.events == []
    assert panel.patterns()[1] == ERROR
    clock.advance(1)
    panel.tick()
    # held down past hold_time (gpiozero's hold thread): exactly one SeatButtonHeld, no repeat
    at = clock.now
    press(panel, 1, SIT)
    [event] = recorder.wait_for(1)
    assert event == SeatButtonHeld(1, SIT, at, 1)
    assert panel.button(1, SIT).hold_repeat is False
    release(panel, 1, SIT)
    assert panel.patterns()[1] == OFF  # a release after a hold is not a short press


def test_a_held_action_button_acts_once(make_panel, clock, recorder):
    pin_map = parse_pin_map({"hold_time": 0.05, "seats": {"2": {"sit": "GPIO22", "fold":
                                                                "GPIO4", "led": "GPIO18"}}})
    panel = make_panel(pin_map)
    panel.update(public_state(turn_seat=2, now=clock.now), {2: private_view(2)})
    press(panel, 2, FOLD)       # held down and never released...
    press(panel, 2, SIT)        # ...while sit, pressed after it, is held past hold_time
    events = recorder.wait_for(2)
    assert [(type(e), e.button) for e in events] == [(SeatButtonPressed, FOLD),
                                                     (SeatButtonHeld, SIT)]
    panel.update(public_state(seq=2, turn_seat=2, now=clock.now), {2: private_view(2)})
    press(panel, 2, FOLD)       # still down: no new edge, no new event
    assert len(recorder.events) == 2


def test_T5_sit_hold_for_an_empty_seat_is_refused(make_panel, clock, recorder):
    pin_map = parse_pin_map({"hold_time": 0.05, "seats": {"4": {"sit": "GPIO22",
                                                                "led": "GPIO18"}}})
    panel = make_panel(pin_map)
    panel.update(public_state())  # seat 4 is empty
    pin = panel.led(4).pin
    pin.clear_states()
    press(panel, 4, SIT)
    pin.wait_states(2)  # the error blink starts when the hold is recognised
    assert recorder.events == [] and panel.patterns()[4] == ERROR


def test_console_buttons_follow_the_table(make_panel, clock, recorder):
    pin_map = parse_pin_map({"console": {"start": "GPIO20", "pause": "GPIO21",
                                         "confirm": "GPIO2", "led": "GPIO3"}})
    panel = make_panel(pin_map)
    panel.update(public_state(seq=5, street="flop"))
    tap(panel, clock, CONSOLE, ConsoleButton.START)     # a hand is running
    tap(panel, clock, CONSOLE, ConsoleButton.CONFIRM)   # nothing to confirm
    assert recorder.events == [] and panel.patterns()[CONSOLE] == ERROR
    t_pause = tap(panel, clock, CONSOLE, ConsoleButton.PAUSE)
    panel.update(public_state(seq=6, street="waiting", turn_seat=None, fault=True))
    t_confirm = tap(panel, clock, CONSOLE, ConsoleButton.CONFIRM)
    clock.advance(1)
    panel.tick()
    assert panel.patterns()[CONSOLE] == CONSOLE_FAULT
    panel.update(public_state(seq=7, street="waiting", turn_seat=None))
    t_start = tap(panel, clock, CONSOLE, ConsoleButton.START)
    assert recorder.events == [ConsoleButtonPressed(ConsoleButton.PAUSE, t_pause, 5),
                               ConsoleButtonPressed(ConsoleButton.CONFIRM, t_confirm, 6),
                               ConsoleButtonPressed(ConsoleButton.START, t_start, 7)]


def test_a_stale_state_is_dropped(make_panel, clock, recorder):
    panel = make_panel()
    assert panel.update(public_state(seq=10, turn_seat=2, now=clock.now), {2: private_view(2)})
    assert not panel.update(public_state(seq=9, turn_seat=1, now=clock.now),
                            {1: private_view(1)})
    assert panel.view.seq == 10 and panel.patterns()[2] == TURN
    tap(panel, clock, 1, FOLD)
    assert recorder.events == []


def test_A2_lights_follow_the_timer_with_a_fake_clock(make_panel, clock):
    panel = make_panel()
    panel.update(public_state(turn_seat=3, now=clock.now, seconds=30))
    led = panel.led(3)
    calls = []
    original = led.blink
    led.blink = lambda **kw: (calls.append(kw), original(**kw))
    assert panel.patterns()[3] == TURN and led.is_lit
    clock.advance(14.9)
    panel.tick()
    assert panel.patterns()[3] == TURN and calls == []
    clock.advance(0.1)
    panel.tick()
    clock.advance(3)
    panel.tick()  # same band: not re-applied
    assert panel.patterns()[3] == TURN_SLOW
    clock.advance(6)
    panel.tick()
    assert panel.patterns()[3] == TURN_FAST
    assert [(c["on_time"], c["off_time"]) for c in calls] == [(0.5, 0.5), (0.125, 0.125)]
    panel.update(public_state(seq=2, turn_seat=1, now=clock.now))
    assert panel.patterns()[3] == OFF and not led.is_lit
    assert panel.patterns()[1] == TURN


def test_A2_fast_blink_timing_on_the_pin(make_panel, clock):
    panel = make_panel()
    panel.update(public_state(turn_seat=1, now=clock.now, left=0.1))
    pin = panel.led(1).pin
    states = pin.wait_states(6)
    assert [bool(s.state) for s in states[1:6]] == [True, False, True, False, True]
    assert_phases(states[2:6], 0.125)


def test_T5_sat_out_blip_on_the_pin(make_panel, clock):
    panel = make_panel()
    panel.update(public_state(statuses={1: "sitting-out", 2: "acting"}, now=clock.now))
    assert panel.patterns()[1] == SAT_OUT
    states = panel.led(1).pin.wait_states(3)
    assert [bool(s.state) for s in states[1:3]] == [True, False]
    assert_phases(states[2:3], 0.1)


def test_pwm_lights_breathe_when_sat_out(factory, clock, recorder):
    pin_map = parse_pin_map({"led_kind": "pwm", "seats": {"1": {"led": "GPIO18"}}})
    with SeatPanel(pin_map, factory, recorder, clock, auto_refresh=False) as panel:
        panel.update(public_state(statuses={1: "sitting-out"}, turn_seat=None))
        assert panel.patterns()[1] == SAT_OUT_PWM
        levels = [s.state for s in panel.led(1).pin.wait_states(6)[1:6]]
        assert levels == sorted(levels) and 0 < levels[-1] < 1  # fading in


def test_the_ticker_applies_timer_thresholds_by_itself(factory, recorder):
    import time
    pin_map = parse_pin_map({"seats": {"1": {"led": "GPIO18"}}})
    with SeatPanel(pin_map, factory, recorder) as panel:  # real clock, ticker on
        now = time.time()
        # 52% left of a 2 s turn: slow blink due in 0.04 s, fast in 0.64 s
        panel.update(public_state(turn_seat=1, now=now, seconds=2, left=0.52))
        pin = panel.led(1).pin
        assert pin.state == 1
        pin.wait_states(3)  # on ... off after the slow blink's 0.5 s on-phase
        assert panel.patterns()[1] in (TURN_SLOW, TURN_FAST)


def test_a_refused_pin_names_its_key_and_releases_the_others(clock, recorder):
    plain = MockFactory(revision=MOCK_REVISION, pin_class=MockPin)  # no PWM on these pins
    pin_map = parse_pin_map({"led_kind": "pwm", "console": {"start": "GPIO20"},
                             "seats": {"1": {"fold": "GPIO4", "led": "GPIO18"}}})
    with pytest.raises(ConfigError) as err:
        SeatPanel(pin_map, plain, recorder, clock, auto_refresh=False)
    assert err.value.key == "gpio.seats.1.led"
    # the buttons built before the failure were closed: their pins can be used again
    ok = parse_pin_map({"console": {"start": "GPIO20"}, "seats": {"1": {"fold": "GPIO4"}}})
    SeatPanel(ok, plain, recorder, clock, auto_refresh=False).close()


def test_a_pin_in_use_elsewhere_is_a_config_error(factory, clock, recorder):
    from gpiozero import LED
    other = LED("GPIO4", pin_factory=factory)
    try:
        with pytest.raises(ConfigError, match=r"^gpio\.seats\.1\.fold: GPIO4"):
            SeatPanel(DEFAULT_PIN_MAP, factory, recorder, clock, auto_refresh=False)
    finally:
        other.close()


def test_close_releases_every_pin_and_is_idempotent(factory, clock, recorder):
    panel = SeatPanel(DEFAULT_PIN_MAP, factory, recorder, clock)
    panel.close()
    panel.close()
    SeatPanel(DEFAULT_PIN_MAP, factory, recorder, clock).close()


def test_A1_no_illegal_press_is_ever_posted(make_panel, clock, recorder):
    """Property: whatever the state and whatever is pressed, every posted event was legal in
    the state the panel had at the time, and every refused press was not."""
    panel = make_panel()
    seq = iter(range(1, 10_000))
    statuses = st.sampled_from(["empty", "waiting", "active", "acting", "folded", "all-in",
                                "sitting-out"])

    @settings(max_examples=60, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(turn=st.sampled_from([None, 1, 2, 3, 4]), paused=st.booleans(),
           seat_status=st.lists(statuses, min_size=4, max_size=4),
           check=st.booleans(), call=st.sampled_from([None, 50]),
           raise_=st.sampled_from([None, {"min": 200, "max": 900}]),
           presses=st.lists(st.tuples(st.sampled_from([1, 2, 3, 4]),
                                      st.sampled_from([FOLD, CALL, RAISE])), max_size=6))
    def run(turn, paused, seat_status, check, call, raise_, presses):
        if turn is not None:
            seat_status[turn - 1] = "acting"
        state = public_state(seq=next(seq), turn_seat=turn, now=clock.now, paused=paused,
                             statuses=dict(enumerate(seat_status, start=1)))
        privates = {turn: private_view(turn, check=check, call=call, raise_=raise_)} if turn else {}
        panel.update(state, privates)
        for seat, name in presses:
            before = len(recorder.events)
            at = tap(panel, clock, seat, name)
            posted = recorder.events[before:]
            legal = panel.view.seat_legal(seat, name)
            assert posted == ([SeatButtonPressed(seat, name, at, panel.view.seq)]
                              if legal else [])
            assert legal == (seat == turn and not paused and (
                name is FOLD or (name is CALL and (check or call is not None))
                or (name is RAISE and raise_ is not None)))

    run()


def test_a_post_that_raises_is_logged_and_flashed_not_raised(make_panel, clock, factory,
                                                             caplog):
    """If the loop's post fails, the press is lost: the player sees the error pattern, the
    log says why, gpiozero's thread gets no exception and the next press works."""
    calls = []

    def post(event):
        calls.append(event)
        if len(calls) == 1:
            raise RuntimeError("queue full")

    panel = SeatPanel(DEFAULT_PIN_MAP, factory, post, clock, auto_refresh=False)
    try:
        panel.update(public_state(turn_seat=2, now=clock.now), {2: private_view(2)})
        tap(panel, clock, 2, FOLD)
        assert panel.patterns()[2] == ERROR
        assert "could not post" in caplog.text and "queue full" in caplog.text
        clock.advance(1)
        panel.tick()
        assert panel.patterns()[2] == TURN
        tap(panel, clock, 2, FOLD)
        assert len(calls) == 2
    finally:
        panel.close()


def test_a_pin_the_board_does_not_have_names_its_key(clock, recorder):
    """A Pi 1 (26-pin header) has GPIO4 but no GPIO20: the factory's board is checked too."""
    old_pi = MockFactory(revision="0002", pin_class=MockPin)
    pin_map = parse_pin_map({"seats": {"1": {"fold": "GPIO4"}}, "console": {"start": "GPIO20"}})
    with pytest.raises(ConfigError, match=r"^gpio\.console\.start: GPIO20 \(header pin 38\)"):
        SeatPanel(pin_map, old_pi, recorder, clock, auto_refresh=False)


def test_presses_racing_state_changes_are_judged_against_the_seq_they_carry(factory, recorder):
    """Four threads hammer buttons while the loop moves the turn around: every posted press
    was legal in the state whose ``seq`` it carries (legality and seq are read together)."""
    import threading
    import time

    pin_map = parse_pin_map({"bounce_time": 0, "seats": {
        str(n): {"fold": f"GPIO{4 + n}", "check_call": f"GPIO{16 + n}"} for n in (1, 2, 3, 4)}})
    views = {}
    with SeatPanel(pin_map, factory, recorder, time.time, auto_refresh=False) as panel:
        stop = threading.Event()

        def hammer(seat):
            pins = [panel.button(seat, FOLD).pin, panel.button(seat, CALL).pin]
            while not stop.is_set():
                for pin in pins:
                    pin.drive_low()
                    pin.drive_high()

        threads = [threading.Thread(target=hammer, args=(n,)) for n in (1, 2, 3, 4)]
        for t in threads:
            t.start()
        try:
            seq = 0
            while len(recorder.events) < 200 and seq < 20_000:
                seq += 1
                turn = 1 + seq % 4
                state = public_state(seq=seq, turn_seat=turn, now=time.time(),
                                     statuses={n: "acting" if n == turn else "active"
                                               for n in (1, 2, 3, 4)})
                private = {turn: private_view(turn, check=seq % 3 == 0, call=None)}
                panel.update(state, private)
                views[seq] = panel.view
        finally:
            stop.set()
            for t in threads:
                t.join(WAIT)
    events = list(recorder.events)
    assert len(events) >= 200, "the presses raced enough state changes"
    for event in events:
        assert views[event.seq].seat_legal(event.seat, event.button), event


def test_P2_at_the_showdown_check_call_shows_and_fold_mucks(make_panel, clock, recorder):
    """A show-or-muck turn (P-2): check/call and fold are posted (the controller maps them
    to show and muck); bet/raise is ignored with the error blink."""
    panel = make_panel()
    sd = {"schema": 1, "seat": 2, "to_act": True,
          "legal": {"fold": False, "check": False, "call": None, "bet": None, "raise": None,
                    "all_in": None, "draw": None, "show": True, "muck": True}}
    panel.update(public_state(seq=50, turn_seat=2, now=clock.now, street="showdown"), {2: sd})
    at = clock.now
    press(panel, 2, CALL)
    assert recorder.wait_for(1) == [SeatButtonPressed(2, CALL, at, 50)]
    release(panel, 2, CALL)
    clock.advance(1)
    press(panel, 2, RAISE)
    release(panel, 2, RAISE)
    assert len(recorder.events) == 1 and panel.patterns()[2] == ERROR
    clock.advance(1)
    press(panel, 2, FOLD)
    assert recorder.wait_for(2)[-1] == SeatButtonPressed(2, FOLD, clock.now, 50)


def test_P2_the_uncalled_winner_may_show_between_hands_with_check_call(make_panel, clock, recorder):
    panel = make_panel()
    offer = {"schema": 1, "seat": 3, "to_act": False,
             "legal": {"fold": False, "check": False, "call": None, "bet": None, "raise": None,
                       "all_in": None, "draw": None, "show": True, "muck": False}}
    panel.update(public_state(seq=60, turn_seat=None, now=clock.now, street="waiting"), {3: offer})
    press(panel, 1, CALL)  # seat 1 has nothing to show
    release(panel, 1, CALL)
    clock.advance(1)
    press(panel, 3, FOLD)  # nothing to muck after the hand
    release(panel, 3, FOLD)
    assert recorder.events == []
    clock.advance(1)
    press(panel, 3, CALL)
    assert recorder.wait_for(1) == [SeatButtonPressed(3, CALL, clock.now, 60)]
