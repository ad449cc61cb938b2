"""Press the seat panel's buttons in a simulation, through gpiozero's mock pins.

``livetable simulate`` builds the panel on :func:`~drivers.seats.factory.mock_pin_factory`;
a simulated player or dealer can then use the physical-button path instead of the tablet::

    hands = SimulatedHands(panel)
    hands.press(3, SeatButton.CHECK_CALL)     # a tap: the panel posts SeatButtonPressed
    hands.hold(3, SeatButton.SIT)             # held past hold_time: SeatButtonHeld (T-5)
    hands.press("console", ConsoleButton.START)

The presses go through the same gpiozero callbacks, debounce and legality check as a real
button; the panel decides what is posted.
"""

from __future__ import annotations

import threading
import time

from gpiozero.pins.mock import MockPin

from drivers.seats.events import ConsoleButton, SeatButton
from drivers.seats.panel import SeatPanel


class SimulatedHands:
    """Fingers for a panel built on a gpiozero ``MockFactory``.

    Raises ``TypeError`` when the panel's pins are not mock pins (a real panel is pressed by
    people), ``KeyError`` when a button is not wired.
    """

    def __init__(self, panel: SeatPanel) -> None:
        self.panel = panel
        self._idle = threading.Event()  # never set: waits below are timed holds

    def _pin(self, seat: int | str, name: SeatButton | ConsoleButton | str) -> MockPin:
        pin = self.panel.button(seat, name).pin
        if not isinstance(pin, MockPin):
            raise TypeError(f"{pin!r} is not a gpiozero mock pin: cannot press it")
        return pin

    def press(self, seat: int | str, name: SeatButton | ConsoleButton | str) -> None:
        """Tap a button: press and release at once (seat 1..N, or ``"console"``)."""
        pin = self._pin(seat, name)
        pin.drive_low()
        pin.drive_high()

    def hold(self, seat: int | str, name: SeatButton | ConsoleButton | str,
             seconds: float | None = None) -> None:
        """Hold a button down, then release it. Blocks the caller, like a finger.

        With ``seconds`` given, hold that long. Without, hold until gpiozero has recognised
        the hold (a sit button then acts, T-5), at least ``hold_time`` and at most
        ``hold_time`` + 5 s; a button with no hold handling is held ``hold_time`` + 0.1 s.
        """
        button = self.panel.button(seat, name)
        pin = self._pin(seat, name)
        hold_time = self.panel.pin_map.hold_time
        pin.drive_low()
        try:
            if seconds is not None or not hasattr(button, "is_held"):
                self._idle.wait(hold_time + 0.1 if seconds is None else seconds)
                return
            deadline = time.monotonic() + hold_time + 5.0
            while not button.is_held and time.monotonic() < deadline:
                self._idle.wait(0.01)
            self._idle.wait(0.01)  # the panel's when_held handler runs just after is_held
        finally:
            pin.drive_high()
