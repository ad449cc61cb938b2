"""Pin factories for the seat panel: gpiozero's mock pins, or the Pi's real ones.

The panel never touches gpiozero's global ``Device.pin_factory``; the composition root picks
one of these and passes it in.
"""

from __future__ import annotations

from gpiozero.pins import Factory
from gpiozero.pins.mock import MockFactory, MockPWMPin

#: The board the mock factory pretends to be: a Raspberry Pi 5 Model B (revision code).
MOCK_REVISION = "c04170"


class GpioUnavailable(RuntimeError):
    """No real GPIO here (not a Pi, or the ``lgpio`` library is missing)."""


def mock_pin_factory() -> MockFactory:
    """A fresh gpiozero ``MockFactory`` posing as a Pi 5, with PWM-capable mock pins (so both
    ``led_kind = "led"`` and ``"pwm"`` work). Tests and ``livetable simulate`` drive its pins
    with ``pin.drive_low()`` (press) / ``pin.drive_high()`` (release)."""
    return MockFactory(revision=MOCK_REVISION, pin_class=MockPWMPin)


def real_pin_factory() -> Factory:
    """The Pi's own GPIO through lgpio (gpiozero's default on a Pi 5).

    Raises :class:`GpioUnavailable` when the ``lgpio`` module is missing (``apt install
    python3-lgpio`` or ``pip install lgpio``) or no GPIO chip can be opened.
    """
    try:
        from gpiozero.pins.lgpio import LGPIOFactory
    except ImportError as exc:  # pragma: no cover - depends on the machine
        raise GpioUnavailable(f"lgpio is not installed: {exc}") from exc
    try:
        return LGPIOFactory()
    except Exception as exc:  # pragma: no cover - depends on the machine
        raise GpioUnavailable(f"cannot open the Pi's GPIO chip: {exc}") from exc
