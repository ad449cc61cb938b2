"""The action timer bar (A-2): shrinks from started to deadline, green > 50 %, amber > 20 %, red."""

from __future__ import annotations

import pytest

from display.timer import AMBER, GREEN, RED, bar_colour, fraction_left, timer_frame

T0 = 1_732_900_000.0


@pytest.mark.parametrize(("elapsed", "left"), [(0, 1.0), (15, 0.5), (24, 0.2), (30, 0.0), (45, 0.0), (-5, 1.0)])
def test_fraction_left_runs_from_full_to_empty(elapsed: float, left: float) -> None:
    assert fraction_left(T0, T0 + 30, T0 + elapsed) == pytest.approx(left)


def test_a_turn_without_time_is_empty() -> None:
    assert fraction_left(T0, T0, T0) == 0.0
    assert timer_frame(T0, T0 - 1, T0, 100).width == 0


@pytest.mark.parametrize(("fraction", "colour"), [
    (1.0, GREEN), (0.51, GREEN), (0.5, AMBER), (0.21, AMBER), (0.2, RED), (0.0, RED),
])
def test_colour_thresholds_a2(fraction: float, colour: str) -> None:
    assert bar_colour(fraction) == colour


def test_frame_width_shrinks_by_pixels_and_seconds_round_up() -> None:
    frames = [timer_frame(T0, T0 + 30, T0 + min(30.0, t / 10 + 0.05 * (0 < t < 300)), 300) for t in range(0, 301)]
    widths = [f.width for f in frames]
    assert widths[0] == 300 and widths[-1] == 0
    assert all(a >= b for a, b in zip(widths, widths[1:])), "the bar never grows"
    assert frames[1].seconds == 30 and frames[0].seconds == 30 and frames[299].seconds == 1
    assert frames[-1].seconds == 0
    assert timer_frame(T0, T0 + 30, T0 + 29.99, 300).width == 1, "any time left shows a pixel"
    # one pixel of a 300 px bar over 30 s is 0.1 s: distinct frames are about one per 0.1 s
    assert 280 <= len(set(frames)) <= 302


def test_clocks_apart_never_show_more_seconds_than_the_turn() -> None:
    early = timer_frame(T0, T0 + 30, T0 - 500, 300)
    assert early.width == 300 and early.seconds == 30
