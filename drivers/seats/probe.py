"""An installer's wiring check: light each light in turn, ask for each button in turn.

``livetable wiring --probe [--config FILE]`` on the Pi walks the pin map: every light comes on
for a moment (the installer looks), then every button is asked for by name and header pin, and
whatever button is pressed is reported: the right one, another one (two wires swapped), or
none within the timeout (a loose wire). A button that already reads pressed when it is about
to be asked for is reported as stuck (a wire shorted to ground). Runs with gpiozero devices on the given pin
factory, without the table; :func:`probe` is the testable core.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass

from gpiozero import LED, DigitalInputDevice
from gpiozero.pins import Factory

from drivers.seats.pinmap import ConsolePins, Pin, PinMap, SeatPins


@dataclass(frozen=True, slots=True)
class ProbeStep:
    """One thing the installer is asked to do or look at: ``kind`` is ``"light"`` or
    ``"button"``; ``pin`` the pin under test (its ``key`` is the TOML key)."""

    kind: str
    pin: Pin

    def prompt(self) -> str:
        """The sentence shown to the installer."""
        where = f"{self.pin.name}, header pin {self.pin.header}"
        if self.kind == "light":
            return f"look: {self.pin.key} should be lit now ({where})"
        return f"press {self.pin.key} ({where})"


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """The outcome for one pin: ``ok`` is ``True`` (right button), ``False`` (a fault, see
    ``detail``) or ``None`` (a light: only the installer's eyes can tell)."""

    key: str
    pin: str
    ok: bool | None
    detail: str


def probe(pin_map: PinMap, factory: Factory, prompt: Callable[[ProbeStep], None], *,
          press_timeout: float = 10.0, light_seconds: float = 1.0) -> list[ProbeResult]:
    """Check the wiring of ``pin_map`` on ``factory``; return one result per pin, in order.

    ``prompt`` is called before each step (print it; tests press the mock pin from it).
    Lights stay on ``light_seconds`` each; each button is awaited up to ``press_timeout``
    seconds. Raises gpiozero's errors when a pin cannot be opened.
    """
    presses: queue.Queue[Pin] = queue.Queue()
    results: list[ProbeResult] = []
    buttons: list[tuple[Pin, DigitalInputDevice]] = []
    leds: list[tuple[Pin, LED]] = []
    pause = threading.Event()
    try:
        groups: list[ConsolePins | SeatPins] = [pin_map.console, *pin_map.seats]
        for seat_or_console in groups:
            for pin in seat_or_console.buttons.values():
                device = DigitalInputDevice(pin.name, pull_up=True,
                                            bounce_time=pin_map.bounce_time or None,
                                            pin_factory=factory)
                device.when_activated = _put(presses, pin)
                buttons.append((pin, device))
            if seat_or_console.led is not None:
                leds.append((seat_or_console.led,
                             LED(seat_or_console.led.name, pin_factory=factory)))
        for pin, led in leds:
            prompt(ProbeStep("light", pin))
            led.on()
            pause.wait(light_seconds)
            led.off()
            results.append(ProbeResult(pin.key, pin.name, None, "shown"))
        for pin, device in buttons:
            if device.is_active:
                results.append(ProbeResult(pin.key, pin.name, False,
                                           "reads pressed at rest: shorted to ground?"))
                continue
            _drain(presses)
            prompt(ProbeStep("button", pin))
            try:
                got = presses.get(timeout=press_timeout)
            except queue.Empty:
                results.append(ProbeResult(
                    pin.key, pin.name, False, f"no press in {press_timeout:g} s: check the "
                    f"wires to header pin {pin.header} and to ground"))
                continue
            if got.name == pin.name:
                results.append(ProbeResult(pin.key, pin.name, True, "ok"))
            else:
                results.append(ProbeResult(
                    pin.key, pin.name, False, f"got {got.key} ({got.name}, header pin "
                    f"{got.header}) instead: wires swapped?"))
    finally:
        for _pin, device in buttons:
            device.close()
        for _pin, led in leds:
            led.close()
    return results


def _put(presses: queue.Queue[Pin], pin: Pin) -> Callable[[], None]:
    def callback() -> None:
        presses.put(pin)
    return callback


def _drain(presses: queue.Queue[Pin]) -> None:
    while True:
        try:
            presses.get_nowait()
        except queue.Empty:
            return
