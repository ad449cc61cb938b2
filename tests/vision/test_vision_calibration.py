"""Board calibration: a quad that cannot be a board is refused, by the command and by the
file reader (issue 6: a config file gets a clear error)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision import cli_vision
from vision.calibration import BoardRegion, CalibrationError, check_board

GOOD = [[10, 10], [500, 10], [500, 300], [10, 300]]
BAD_QUADS = {  # board, frame -> words of the refusal
    "nan": ([[float("nan"), 0], [900, 0], [900, 700], [0, 700]], (1280, 720), "finite"),
    "inf": ([[float("inf"), 0], [900, 0], [900, 700], [0, 700]], (1280, 720), "finite"),
    "zero area": ([[5, 5], [5, 5], [5, 5], [5, 5]], (1280, 720), "no area"),
    "a line": ([[0, 0], [100, 100], [200, 200], [300, 300]], (1280, 720), "no area"),
    "bow-tie": ([[0, 0], [500, 500], [500, 0], [0, 500]], (1280, 720), "crosses itself"),
    "concave": ([[0, 0], [500, 0], [250, 10], [0, 500]], (1280, 720), "not convex"),
    "three in a line": ([[0, 0], [250, 0], [500, 0], [0, 500]], (1280, 720), "three points in a line"),
    "outside": ([[5000, 5000], [6000, 5000], [6000, 6000], [5000, 6000]], (1280, 720), "outside the 1280x720"),
    "partly outside": ([[0, 0], [3000, 0], [3000, 700], [0, 700]], (1280, 720), "(3000, 0), (3000, 700) outside"),
    "negative": ([[-20, 0], [500, 0], [500, 300], [0, 300]], (1280, 720), "(-20, 0) outside"),
    "tiny": ([[10, 10], [11, 10], [11, 11], [10, 11]], (1280, 720), "too small"),
    "three points": ([[0, 0], [500, 0], [500, 300]], (1280, 720), "4 [x, y] points"),
    "zero frame": (GOOD, (0, 0), "positive whole numbers"),
    "fractional frame": (GOOD, (1280.5, 720), "positive whole numbers"),
    "frame text": (GOOD, "1280,720", "two numbers W,H"),
    "one number frame": (GOOD, (1280,), "two numbers W,H"),
}


@pytest.mark.parametrize("name", sorted(BAD_QUADS))
def test_a_quad_that_cannot_be_a_board_is_refused_everywhere(name, tmp_path, capsys):
    quad, frame, words = BAD_QUADS[name]
    with pytest.raises(CalibrationError, match=None) as info:
        check_board(quad, frame)
    assert words in str(info.value)
    with pytest.raises(CalibrationError):
        BoardRegion(np.asarray(quad, np.float64), frame)  # type: ignore[arg-type]
    path = tmp_path / "board.json"
    path.write_text(json.dumps({"frame": frame, "board": quad}))  # NaN/Infinity as Python's json writes them
    with pytest.raises(CalibrationError) as info:
        BoardRegion.load(path)
    assert str(path) in str(info.value) and words in str(info.value)
    if isinstance(frame, tuple) and len(frame) == 2 and len(quad) == 4:
        flat = ",".join(f"{v:g}" for xy in quad for v in xy)
        out = tmp_path / "out.json"
        capsys.readouterr()
        # as typed: "--quad -20,0,..." is the quad (not an option) and gets the plain refusal
        assert cli_vision.main(["calibrate", "--quad", flat, "--frame", f"{frame[0]:g},{frame[1]:g}",
                                "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("livetable vision calibrate:") and err.count("\n") == 1 and words in err, err
        assert not out.exists()


def test_a_good_board_is_kept_either_way_round_and_on_the_frame_edge(tmp_path):
    for quad in (GOOD, GOOD[::-1], [[0, 0], [1280, 0], [1280, 720], [0, 720]]):
        region = BoardRegion(np.asarray(quad, np.float32), (1280, 720))
        assert region.quad.dtype == np.float32 and region.frame == (1280, 720)
        region.save(tmp_path / "b.json")
        again = BoardRegion.load(tmp_path / "b.json")
        assert np.allclose(again.quad, quad) and again.frame == (1280, 720)


@pytest.mark.parametrize("args, words", [
    (["--quad", "10,10,500,10,500,300,10,300"], "--quad needs --frame W,H"),
    (["--quad", "10,10,500,10,500,300,10,300", "--frame", "1280"], "--frame needs 2 numbers W,H"),
    (["--quad", "10,10,500,10,500,300,10,300", "--frame", "1280x720"], "--frame needs 2 numbers W,H"),
    (["--quad", "10,10,500", "--frame", "1280,720"], "--quad needs 8 numbers"),
    (["--quad", "a,b,c,d,e,f,g,h", "--frame", "1280,720"], "--quad needs 8 numbers"),
    ([], "give an IMAGE or --quad"),
])
def test_calibrate_by_hand_explains_a_malformed_command_line(args, words, tmp_path, capsys):
    out = tmp_path / "out.json"
    assert cli_vision.main(["calibrate", *args, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("livetable vision calibrate:") and err.count("\n") == 1 and words in err, err
    assert not out.exists()


def test_calibrate_cannot_write_its_file_is_one_line_too(tmp_path, capsys):
    good = ["--quad", "10,10,500,10,500,300,10,300", "--frame", "1280,720"]
    for out in (tmp_path / "no-such-dir" / "b.json", tmp_path):
        assert cli_vision.main(["calibrate", *good, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("livetable vision calibrate: cannot write") and err.count("\n") == 1, err
