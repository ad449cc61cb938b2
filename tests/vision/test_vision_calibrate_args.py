"""``livetable vision calibrate --quad``: a quad whose values look like an option to
argparse (a corner left of or above the frame) gets the plain reason it is refused, never
"expected one argument" (found by a breaker)."""

from __future__ import annotations

import pytest

from vision import cli_vision

GOOD_REST = "5,600,5,600,400,10,400"


@pytest.mark.parametrize("argv", [
    pytest.param(["--quad", f"-.5,{GOOD_REST}", "--frame", "640,480"], id="leading -.5"),
    pytest.param(["--quad", f"-inf,{GOOD_REST}", "--frame", "640,480"], id="-inf"),
    pytest.param(["--qu", f"-20,{GOOD_REST}", "--frame", "640,480"], id="abbreviated --qu"),
])
def test_every_negative_looking_quad_gets_the_plain_reason(argv, tmp_path, capsys) -> None:
    assert cli_vision.main(["calibrate", *argv, "--out", str(tmp_path / "c.json")]) == 2
    err = capsys.readouterr().err
    assert "expected one argument" not in err, err


def test_minus_1e3_a_negative_frame_and_quad_last_get_the_plain_reason(tmp_path, capsys) -> None:
    for argv in (["--quad", f"-1e3,{GOOD_REST}", "--frame", "640,480"],
                 ["--frame", "640,480", "--quad", f"-20,{GOOD_REST}"],
                 ["--quad", f"10,{GOOD_REST}", "--frame", "-640,480"]):
        assert cli_vision.main(["calibrate", *argv, "--out", str(tmp_path / "c.json")]) == 2
        err = capsys.readouterr().err
        assert err.startswith("livetable vision calibrate:") and "expected one argument" not in err, err
    assert not (tmp_path / "c.json").exists()
