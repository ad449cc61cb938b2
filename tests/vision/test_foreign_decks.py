"""tools/vision/foreign_decks.py: faces the user brings are laid on tables and scored (issue 6)."""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.vision.foreign_decks import frames, load_deck, load_face, main  # noqa: E402


def _face(path: Path, text: str, paper: bool = True) -> None:
    """A 200x290 face with ``text`` in its corner; without ``paper`` the canvas is transparent."""
    img = np.zeros((290, 200, 4), np.uint8)
    if paper:
        img[10:280, 5:195] = (255, 255, 255, 255)
    cv2.putText(img, text, (20, 50), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (0, 0, 0, 255), 3)
    cv2.imwrite(str(path), img)


def test_a_face_drawn_without_paper_is_laid_on_a_whole_white_card(tmp_path: Path) -> None:
    _face(tmp_path / "As.png", "A", paper=False)
    f = load_face(tmp_path / "As.png")
    assert f.shape[:2] == (290, 200)             # the canvas, not the ink's hull
    assert f[145, 100, 3] == 255 and tuple(f[145, 100, :3]) == (255, 255, 255)
    assert f[0, 0, 3] == 0                       # rounded corners stay off the card


def test_a_face_on_paper_is_cropped_to_its_paper(tmp_path: Path) -> None:
    _face(tmp_path / "As.png", "A")
    assert load_face(tmp_path / "As.png").shape[:2] == (270, 190)


def test_frames_are_seeded_and_deal_every_card(tmp_path: Path) -> None:
    for c in ("As", "Kd", "7h", "Tc"):
        _face(tmp_path / f"{c}.png", c[0])
    (tmp_path / "notes.txt").write_text("not a face")
    faces = load_deck(tmp_path)
    assert sorted(faces) == ["7h", "As", "Kd", "Tc"]
    a = list(frames(faces, 2, 2, "x-7"))
    b = list(frames(faces, 2, 2, "x-7"))
    assert [c for _, c, _ in a] == [c for _, c, _ in b]
    assert all(np.array_equal(x, y) for (_, _, x), (_, _, y) in zip(a, b))
    assert [len(c) for _, c, _ in a][2:] == [1, 1] and all(3 <= len(c) <= 4 for _, c, _ in a[:2])
    assert a[0][2].shape == (720, 1280, 3)
    dealt = [c for _, cards, _ in a for c in cards]
    assert set(dealt) == set(faces)


def test_a_folder_without_faces_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="no card faces"):
        load_deck(tmp_path)
    assert main([str(tmp_path), "--boards", "1", "--singles", "0"]) == 2
    assert "no card faces" in capsys.readouterr().err


def test_width_sets_how_wide_the_cards_are_laid(tmp_path: Path) -> None:
    # --width 40,70: small, far cards (a breaker read tiny clubs as spades); a single card
    # on the table is as wide as asked
    _face(tmp_path / "As.png", "A")
    faces = load_deck(tmp_path)
    for lo, hi in ((40, 70), (110, 180)):
        (_, _, img), = frames(faces, 0, 1, "w-7", (lo, hi))
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
        white = ((hsv[:, :, 2] > 150) & (hsv[:, :, 1] < 60)).astype(np.uint8)
        n, _, st, _ = cv2.connectedComponentsWithStats(white)
        w = int(st[1:, 2].max())
        assert lo * 0.85 <= w <= hi * 1.25, (lo, hi, w)


def test_width_must_be_two_positive_numbers(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        main([str(tmp_path), "--width", "70"])
    with pytest.raises(SystemExit):
        main([str(tmp_path), "--width", "70,40"])
