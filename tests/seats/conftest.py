"""Fixtures for the seat panel tests (helpers live in seats_support.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory
from seats_support import FakeClock, Recorder, WaitablePin

from drivers.seats.factory import MOCK_REVISION


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    """A fresh MockFactory posing as a Pi 5, with waitable PWM-capable pins."""
    f = MockFactory(revision=MOCK_REVISION, pin_class=WaitablePin)
    yield f
    f.reset()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def make_panel(factory: MockFactory, clock: FakeClock, recorder: Recorder
               ) -> Iterator[Callable[..., Any]]:
    """Build SeatPanels on the fixture factory (fake clock, no ticker by default); all are
    closed after the test."""
    from drivers.seats.panel import SeatPanel
    from drivers.seats.pinmap import DEFAULT_PIN_MAP

    panels: list[SeatPanel] = []

    def make(pin_map: Any = DEFAULT_PIN_MAP, **kwargs: Any) -> SeatPanel:
        kwargs.setdefault("auto_refresh", False)
        panel = SeatPanel(pin_map, factory, recorder, clock, **kwargs)
        panels.append(panel)
        return panel

    yield make
    for panel in panels:
        panel.close()
