"""Clocks injected into everything that needs time (DESIGN: time comes in as data).

A clock is any zero-argument callable returning Unix seconds as a float. The table engine
never calls one: the orchestrator stamps each event with ``clock()`` and timers fire as
events. Tests use :class:`ManualClock`; ``livetable simulate --speed N`` uses
:class:`ScaledClock` so a 30-second action timer passes in 30/N seconds.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

__all__ = ["Clock", "system_clock", "ManualClock", "ScaledClock"]

Clock = Callable[[], float]


def system_clock() -> float:
    """Return the wall-clock time in Unix seconds."""
    return time.time()


class ManualClock:
    """A clock that moves only when told to (tests); thread-safe.

    ``clock()`` returns the current time; :meth:`advance` moves it forward.
    """

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self._now = float(start)
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> float:
        """Move the clock ``seconds`` (>= 0) forward; return the new time.

        Raises:
            ValueError: ``seconds`` is negative (time never runs backwards).
        """
        if seconds < 0:
            raise ValueError(f"time never runs backwards: advance({seconds})")
        with self._lock:
            self._now += seconds
            return self._now


class ScaledClock:
    """A clock running ``speed`` times faster than real time from its creation."""

    def __init__(self, speed: float, *, base: Clock = time.monotonic, start: float | None = None) -> None:
        if speed <= 0:
            raise ValueError(f"speed must be > 0, got {speed}")
        self.speed = speed
        self._base = base
        self._t0 = base()
        self._start = time.time() if start is None else start

    def __call__(self) -> float:
        return self._start + (self._base() - self._t0) * self.speed
