"""The simulated camera's memory (issue 21): it keeps the frame of the board on the felt, not
every board it drew, and drawing a frame does not take a whole-frame float64 grid."""

from __future__ import annotations

import gc
import tracemalloc

import numpy as np

from controller.simcamera import SimulatedCamera

FRAME_BYTES = 1280 * 720 * 3  # one 1280x720 BGR frame: 2.76 MB


def _boards(n: int) -> list[list[str]]:
    """``n`` different boards of three to five cards (flops, turns, rivers of made-up hands)."""
    deck = [r + s for s in "cdhs" for r in "23456789TJQKA"]
    return [deck[i:i + 3 + i % 3] for i in range(n)]


def test_the_simulated_camera_keeps_one_frame_however_many_boards_it_drew() -> None:
    boards = _boards(24)
    now: list[str] = []
    cam = SimulatedCamera(lambda: now)
    import vision.render  # noqa: F401 - its import (OpenCV, numpy) is not the camera's memory

    gc.collect()
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        for board in boards:
            now[:] = board
            first = cam.frame()
            assert cam.frame() is first  # the board lies still: drawn once, not at every frame
        gc.collect()
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Held: the board on the felt now and a board's card faces (old code: 24 frames, 66 MB).
    assert held - base < 3 * FRAME_BYTES, f"{(held - base) / 1e6:.1f} MB held after {len(boards)} boards"
    # While drawing: the frame, the kept one and a card's warp buffers, no 60 MB light grid.
    assert peak - base < 6 * FRAME_BYTES, f"{(peak - base) / 1e6:.1f} MB at the peak of drawing"
    assert cam.renders == len(boards) and cam.frames == 2 * len(boards)


def test_a_frame_is_drawn_again_when_a_fault_changes_what_the_camera_sees() -> None:
    now = ["Jh", "8c", "3d"]
    cam = SimulatedCamera(lambda: now)
    plain = cam.frame()
    cam.hide("8c")
    hidden = cam.frame()
    assert hidden is not plain and not np.array_equal(hidden, plain)
    cam.clear_faults()
    again = cam.frame()
    assert np.array_equal(again, plain) and cam.renders == 3
