"""`livetable recognize` and `livetable vision calibrate|enroll` on rendered frames (issue 6)."""

from __future__ import annotations

import json

import cv2
import numpy as np

from controller.cli import main as livetable
from vision import cli_vision
from vision.calibration import BoardRegion
from vision.enroll import Enrollment
from vision.render import render_board


def test_recognize_prints_one_json_object_per_image(tmp_path, capsys):
    a, b = tmp_path / "a.png", tmp_path / "b.png"
    cv2.imwrite(str(a), render_board(["Jh", "8c", "3d"], (1280, 720), "green"))
    cv2.imwrite(str(b), render_board(["As", "Td", "Qs", "2h", "9c"], (1280, 720), "wood", angle=3))
    assert livetable(["recognize", str(a), str(b)]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [o["file"] for o in out] == [str(a), str(b)]
    assert sorted(out[0]["cards"]) == ["3d", "8c", "Jh"]
    assert sorted(out[1]["cards"]) == sorted(["As", "Td", "Qs", "2h", "9c"])
    assert all(o["unsure"] == 0 and isinstance(o["ms"], float) for o in out)


def test_calibrate_from_image_then_recognize_inside_the_region(tmp_path, capsys):
    frame = render_board([], (1280, 720), "blue")
    frame[400:700, 290:990] = render_board(["Jh", "8c", "3d"], (700, 300), "blue")
    img = tmp_path / "board.png"
    cv2.imwrite(str(img), frame)
    cal = tmp_path / "board.json"
    assert cli_vision.main(["calibrate", str(img), "--out", str(cal)]) == 0
    region = BoardRegion.load(cal)
    assert region.frame == (1280, 720)
    # a card outside the region (e.g. a player's card) is not part of the board
    frame[0:260, 0:500] = render_board(["Ks", "Qd", "2c"], (500, 260), "blue")
    cv2.imwrite(str(img), frame)
    capsys.readouterr()
    assert livetable(["recognize", str(img)]) == 0
    assert sorted(json.loads(capsys.readouterr().out)["cards"]) == ["2c", "3d", "8c", "Jh", "Ks", "Qd"]
    assert livetable(["recognize", "--region", str(cal), str(img)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert sorted(out["cards"]) == ["3d", "8c", "Jh"]


def test_calibrate_by_hand_and_bad_files(tmp_path):
    cal = tmp_path / "c.json"
    assert cli_vision.main(["calibrate", "--out", str(cal), "--quad", "10,10,500,10,500,300,10,300",
                            "--frame", "1280,720"]) == 0
    assert np.allclose(BoardRegion.load(cal).quad[2], [500, 300])
    from vision.calibration import load_region

    assert load_region(cal).frame == (1280, 720)
    bad = tmp_path / "bad.json"
    bad.write_text("{\"board\": [[0, 0]]}")
    assert livetable(["recognize", "--region", str(bad), str(cal)]) == 2
    assert cli_vision.main(["calibrate", "--out", str(cal), str(tmp_path / "none.png")]) == 2
    assert cli_vision.main(["nonsense"]) == 2


def test_enroll_from_file_names_and_labels(tmp_path, capsys):
    one = tmp_path / "Qh.png"
    cv2.imwrite(str(one), render_board(["Qh"], (640, 480), "green"))
    lay = tmp_path / "layout.png"
    cv2.imwrite(str(lay), render_board(["2c", "7d", "Ks"], (1280, 720), "green"))
    labels = tmp_path / "labels.csv"
    labels.write_text("file,cards\nlayout.png,2c 7d Ks\n")
    out = tmp_path / "deck.npz"
    assert cli_vision.main(["enroll", str(one), str(lay), "--labels", str(labels), "--out", str(out)]) == 0
    enr = Enrollment.load(out)
    assert enr.count == 8  # 4 cards x 2 corners
    # a photo whose card count does not match is skipped with a message and exit code 1
    assert cli_vision.main(["enroll", str(lay), "--cards", "2c 7d", "--out", str(tmp_path / "x.npz")]) == 1
    assert "found 3 cards but 2" in capsys.readouterr().err


def test_enroll_refuses_a_layout_listed_in_the_wrong_order(tmp_path):
    from vision.enroll import EnrollError, enroll_image

    frame = render_board(["2c", "7d", "Ks"], (1280, 720), "green")
    enr = Enrollment.empty()
    import pytest

    with pytest.raises(EnrollError, match="place 1 reads as 2c, not 7d"):
        enroll_image(enr, frame, "7d 2c Ks")
    assert enr.count == 0
    assert enroll_image(enr, frame, "2c 7d Ks") == 6


def test_vision_help_is_usage_on_stdout_and_no_command_is_a_usage_error(capsys):
    assert cli_vision.main(["--help"]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("usage: livetable vision enroll|calibrate") and out.out.endswith("\n") and not out.err
    assert cli_vision.main([]) == 2
    assert capsys.readouterr().err.startswith("usage: livetable vision")
