"""Bad frames give a clear error or an empty reading, never a crash and never a card (issue 6)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision import cli
from vision.calibration import BoardRegion, CalibrationError
from vision.recognizer import FrameError, Recognizer
from vision.render import render_board


@pytest.fixture(scope="module")
def rec() -> Recognizer:
    return Recognizer()


@pytest.mark.parametrize("frame", [
    np.zeros((720, 1280, 3), np.uint8),              # black
    np.full((720, 1280, 3), 255, np.uint8),          # blown out white
    np.full((720, 1280, 3), 128, np.uint8),          # flat grey
    np.zeros((8, 8, 3), np.uint8),                   # tiny
])
def test_blank_frames_read_no_card(rec, frame):
    assert [r for r in rec.recognize(frame) if r.card is not None] == []


def test_noise_frame_never_names_a_card(rec):
    rng = np.random.default_rng(6)
    for _ in range(3):
        frame = rng.integers(0, 256, (720, 1280, 3), dtype=np.uint8)
        assert [r.card for r in rec.recognize(frame) if r.card is not None] == []


@pytest.mark.parametrize("bad", [None, np.zeros((0, 0, 3), np.uint8), np.zeros((10, 10, 3), np.float32),
                                 np.zeros((10, 10, 5), np.uint8), "frame.png"])
def test_not_a_frame_is_a_frame_error(rec, bad):
    with pytest.raises(FrameError):
        rec.recognize(bad)


def test_grey_and_bgra_frames_are_accepted(rec):
    f = render_board(["As", "Kd", "7c"], (1280, 720), "dark")
    import cv2

    grey = cv2.cvtColor(f, cv2.COLOR_BGR2GRAY)
    bgra = cv2.cvtColor(f, cv2.COLOR_BGR2BGRA)
    assert sorted(str(r.card) for r in rec.recognize(bgra) if r.card) == ["7c", "As", "Kd"]
    # without colour hearts cannot be told from spades: the cards are found, none is named
    reads = rec.recognize(grey)
    assert len(reads) == 3 and all(r.card is None for r in reads)
    assert all("colour" in r.why for r in reads)


def test_different_resolution_is_refused_by_the_region():
    region = BoardRegion(np.array([[0, 0], [100, 0], [100, 50], [0, 50]], np.float32), (1280, 720))
    with pytest.raises(CalibrationError, match="640x480"):
        region.check_frame(np.zeros((480, 640, 3), np.uint8))
    region.check_frame(np.zeros((720, 1280, 3), np.uint8))


def test_cli_reports_corrupt_and_missing_files(tmp_path, capsys):
    corrupt = tmp_path / "corrupt.jpg"
    corrupt.write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg" * 10)
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    rc = cli.main([str(corrupt), str(empty), str(tmp_path / "missing.png"), str(tmp_path)])
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert rc == 1 and len(lines) == 4
    for line in lines:
        assert line["cards"] == [] and line["unsure"] == 0 and "error" in line and line["ms"] >= 0
    # each error says what is wrong with that file
    said = [line["error"].split(": ", 1)[1] for line in lines]
    assert said[0].startswith(f"{corrupt} is damaged (truncated or corrupt): ")  # a JPEG's start, no more
    assert said[1:] == [f"{empty} is an empty file",
                        f"{tmp_path / 'missing.png'}: no such file", f"{tmp_path} is a folder, not an image"]
