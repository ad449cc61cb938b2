"""Simulated fingers on the panel's mock pins (for `livetable simulate`)."""

from __future__ import annotations

import time

import pytest
from seats_support import private_view, public_state

from drivers.seats.events import (ConsoleButton, ConsoleButtonPressed, SeatButton,
                                  SeatButtonHeld, SeatButtonPressed)
from drivers.seats.factory import mock_pin_factory
from drivers.seats.panel import SeatPanel
from drivers.seats.pinmap import parse_pin_map
from drivers.seats.simulated import SimulatedHands

PIN_MAP = parse_pin_map({"hold_time": 0.05, "bounce_time": 0,
                         "console": {"start": "GPIO20"},
                         "seats": {"2": {"check_call": "GPIO17", "sit": "GPIO22"}}})


def test_simulated_presses_go_through_the_panel(recorder) -> None:
    with SeatPanel(PIN_MAP, mock_pin_factory(), recorder, time.time) as panel:
        hands = SimulatedHands(panel)
        panel.update(public_state(seq=3, turn_seat=2, now=time.time()), {2: private_view(2)})
        hands.press(2, SeatButton.CHECK_CALL)
        hands.hold(2, SeatButton.SIT)
        hands.press("console", ConsoleButton.START)  # a hand is running: refused
        events = recorder.wait_for(2)
        assert [type(e) for e in events] == [SeatButtonPressed, SeatButtonHeld]
        panel.update(public_state(seq=4, turn_seat=None, street="waiting"))
        hands.press("console", ConsoleButton.START)
        assert type(recorder.wait_for(3)[2]) is ConsoleButtonPressed
        with pytest.raises(KeyError):
            hands.press(1, SeatButton.FOLD)
