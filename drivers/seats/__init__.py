"""Seat buttons, seat lights and the dealer's console on the Pi's GPIO header (issue 5).

Public API (see each module's docstring):

- :mod:`drivers.seats.pinmap`: ``parse_pin_map(section) -> PinMap``, ``load_pin_map(path)``,
  ``DEFAULT_PIN_MAP``, ``ConfigError(ValueError)`` naming the TOML key.
- :mod:`drivers.seats.events`: ``SeatButtonPressed``, ``SeatButtonHeld``,
  ``ConsoleButtonPressed`` (what the panel posts), ``SeatButton``, ``ConsoleButton``.
- :mod:`drivers.seats.lights`: the pure projection ``project(public, private) -> PanelView``
  and ``lights(view, now, seats) -> {seat: LightPattern}``.
- :mod:`drivers.seats.panel`: ``SeatPanel(pin_map, pin_factory, post, clock)`` with
  ``update(public, private)``, ``tick()``, ``close()``.
- :mod:`drivers.seats.factory`: ``mock_pin_factory()``, ``real_pin_factory()``.
- :mod:`drivers.seats.wiring`: ``livetable wiring`` (the README wiring table, ``--probe``).
- :mod:`drivers.seats.probe`: ``probe(pin_map, factory, prompt)``, the installer's check.
- :mod:`drivers.seats.simulated`: ``SimulatedHands(panel).press(seat, button)`` / ``.hold()``
  for ``livetable simulate`` (mock pins only).
"""

from drivers.seats.events import (ConsoleButton, ConsoleButtonPressed, PanelEvent, SeatButton,
                                  SeatButtonHeld, SeatButtonPressed)
from drivers.seats.factory import GpioUnavailable, mock_pin_factory, real_pin_factory
from drivers.seats.lights import PanelView, project
from drivers.seats.panel import SeatPanel
from drivers.seats.pinmap import (DEFAULT_PIN_MAP, ConfigError, PinMap, load_pin_map,
                                  parse_pin_map)

__all__ = [
    "ConfigError", "ConsoleButton", "ConsoleButtonPressed", "DEFAULT_PIN_MAP",
    "GpioUnavailable", "PanelEvent", "PanelView", "PinMap", "SeatButton", "SeatButtonHeld",
    "SeatButtonPressed", "SeatPanel", "load_pin_map", "mock_pin_factory", "parse_pin_map",
    "project", "real_pin_factory",
]
