"""The action timer bar (A-2): how much of it is left, its colour, and when to redraw it.

Pure: the caller passes ``now`` (Unix seconds, from an injected clock). The bar is full at
``turn.started`` and empty at ``turn.deadline``; it is green while more than half the time
is left, amber while more than a fifth is left, red below that. The display redraws it only
when :func:`timer_frame` changes: the bar moved by a whole pixel, changed colour, or the
seconds shown beside it ticked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["GREEN", "AMBER", "RED", "TimerFrame", "fraction_left", "bar_colour", "timer_frame"]

GREEN, AMBER, RED = "green", "amber", "red"


@dataclass(frozen=True, slots=True)
class TimerFrame:
    """What the timer bar looks like at one moment: fill ``width`` px, ``colour``, ``seconds`` left."""

    width: int
    colour: str
    seconds: int


def fraction_left(started: float, deadline: float, now: float) -> float:
    """Return the share of the turn's time left, 0.0..1.0 (A-2).

    ``started``/``deadline``/``now`` are Unix seconds. Before ``started`` (clocks a little
    apart) the bar is full; at or after ``deadline`` it is empty; a turn with no time
    (``deadline <= started``) is empty.
    """
    span = deadline - started
    if span <= 0:
        return 0.0
    return min(1.0, max(0.0, (deadline - now) / span))


def bar_colour(fraction: float) -> str:
    """Return ``green`` above 50 % left, ``amber`` above 20 %, else ``red`` (A-2)."""
    if fraction > 0.5:
        return GREEN
    if fraction > 0.2:
        return AMBER
    return RED


def timer_frame(started: float, deadline: float, now: float, bar_width: int) -> TimerFrame:
    """Return the bar's look at ``now`` for a full bar ``bar_width`` px wide.

    The fill is rounded up to whole pixels so a bar with any time left shows at least one
    pixel; the seconds are rounded up (``0.2`` s left shows ``1``).
    """
    f = fraction_left(started, deadline, now)
    width = min(bar_width, math.ceil(f * bar_width - 1e-6))
    left = min(deadline - now, deadline - started)  # clocks apart: never more than the turn
    seconds = max(0, math.ceil(left - 1e-6)) if deadline > started else 0
    return TimerFrame(width=max(0, width), colour=bar_colour(f), seconds=seconds)
