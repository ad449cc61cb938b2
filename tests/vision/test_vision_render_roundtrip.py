"""render_board draws frames that the recognizer reads back exactly (issue 6, simulate)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from controller.engine.cards import FULL_DECK, parse_cards
from vision.recognizer import Recognizer
from vision.render import TABLES, render_board


@pytest.fixture(scope="module")
def rec() -> Recognizer:
    return Recognizer()


@pytest.mark.parametrize("table", sorted(TABLES))
def test_rendered_boards_read_back_on_every_table(rec, table):
    rng = random.Random(table)
    for angle in (-5.0, 0.0, 3.0):
        cards = rng.sample(FULL_DECK, rng.choice([3, 4, 5]))
        frame = render_board(cards, (1280, 720), table, angle=angle, noise=3.0, seed=1)
        reads = rec.recognize(frame)
        named = sorted(str(r.card) for r in reads if r.card is not None)
        assert named == sorted(str(c) for c in cards), (table, angle)
        assert all(len(r.outline) == 4 for r in reads)


def test_render_board_shape_and_errors():
    f = render_board(parse_cards("As Kd"), (640, 360), (10, 200, 10))
    assert f.shape == (360, 640, 3) and f.dtype == np.uint8
    with pytest.raises(ValueError):
        render_board(["As"], (640, 360), "purple")
    with pytest.raises(ValueError, match="G-5"):
        render_board(["Zz"], (640, 360))


def test_empty_table_reads_nothing(rec):
    assert rec.recognize(render_board([], (1280, 720), "green")) == []


@pytest.mark.parametrize("table", ["green", "dark", "wood"])
def test_touching_cards_in_a_row_are_each_read(rec, table):
    board = parse_cards("Jh 8c 3d 5s Kd")
    frame = render_board(board, (1280, 720), table, gap=0.0)
    reads = rec.recognize(frame)
    assert sorted(str(r.card) for r in reads) == sorted(str(c) for c in board)
    # slightly rotated touching cards: never a wrong card, most are read
    frame = render_board(board, (1280, 720), table, gap=0.0, angle=3.0)
    named = [r.card for r in rec.recognize(frame) if r.card is not None]
    assert set(named) <= set(board) and len(named) >= 2


def test_touching_cards_on_a_light_table_never_give_a_wrong_card(rec):
    board = parse_cards("Jh 8c 3d 5s Kd")
    for angle in (0.0, 3.0):
        frame = render_board(board, (1280, 720), "light", gap=0.0, angle=angle)
        named = [r.card for r in rec.recognize(frame) if r.card is not None]
        assert set(named) <= set(board) and len(named) >= 2


def _hand(frame: np.ndarray, x: int, y: int) -> np.ndarray:
    """Draw a skin-coloured hand (palm and fingers) reaching in at (x, y)."""
    import cv2

    out = frame.copy()
    skin = (120, 150, 205)
    cv2.ellipse(out, (x, y), (150, 110), 20, 0, 360, skin, -1)
    for i in range(4):
        cv2.ellipse(out, (x - 120 + 45 * i, y - 140), (22, 80), 10, 0, 360, skin, -1)
    return out


@pytest.mark.parametrize("table", ["green", "wood", "light"])
def test_dealer_hand_over_a_card_never_gives_a_wrong_card(rec, table):
    board = parse_cards("Jh 8c 3d 5s Kd")
    frame = render_board(board, (1280, 720), table)
    covered = _hand(frame, 1150, 560)  # over the last card
    named = [r.card for r in rec.recognize(covered) if r.card is not None]
    assert set(named) <= set(board)
    assert len(named) >= 4


def test_uneven_light_across_the_table(rec):
    board = parse_cards("Ac Td 7s 4h Qd")
    frame = render_board(board, (1280, 720), "blue").astype(np.float32)
    ramp = np.linspace(0.45, 1.1, 1280, dtype=np.float32)[None, :, None]
    dim = np.clip(frame * ramp, 0, 255).astype(np.uint8)
    named = sorted(str(r.card) for r in rec.recognize(dim) if r.card is not None)
    assert named == sorted(str(c) for c in board)


def _card_back(w: int, color: tuple[int, int, int]) -> np.ndarray:
    """A face-down card: white border, coloured lattice."""
    import cv2

    h = int(w * 1.4)
    im = np.full((h, w, 3), 245, np.uint8)
    b = int(w * 0.06)
    cv2.rectangle(im, (b, b), (w - b, h - b), color, -1)
    for k in range(-h, w + h, 12):
        cv2.line(im, (k, b), (k + h, b + h), (245, 245, 245), 2)
        cv2.line(im, (k, b), (k - h, b + h), (245, 245, 245), 2)
    im[:b] = 245
    im[-b:] = 245
    im[:, :b] = 245
    im[:, -b:] = 245
    return im


@pytest.mark.parametrize("color", [(150, 40, 20), (30, 30, 180)])
def test_a_face_down_card_is_never_named(rec, color):
    frame = render_board([], (1280, 720), "green")
    back = _card_back(200, color)
    frame[150:150 + back.shape[0], 300:500] = back
    from vision.render import render_card

    frame[150:150 + back.shape[0], 600:800] = render_card("7c", 200)
    reads = rec.recognize(frame)
    assert sorted(str(r.card) for r in reads) == ["7c", "None"]


@pytest.mark.parametrize("strip", [(560, 210), (450, 170)])
def test_small_far_away_cards_are_never_misread(rec, strip):
    """Cards 65-85 px wide in a 1280x720 frame: the indices are a few pixels tall; the
    recognizer may say unsure, never a wrong card (found once: a 7 whose pip merged into it
    read as 6, and a court card showing one big pip)."""
    from controller.engine.cards import FULL_DECK

    rng = np.random.default_rng(sum(strip))
    sw, sh = strip
    for table in sorted(TABLES):
        cards = [FULL_DECK[i] for i in rng.choice(52, 5, replace=False)]
        frame = render_board([], (1280, 720), table)
        frame[150:150 + sh, 200:200 + sw] = render_board(cards, (sw, sh), table, angle=float(rng.uniform(-5, 5)),
                                                        noise=4.0, seed=3)
        named = [r.card for r in rec.recognize(frame) if r.card is not None]
        assert set(named) <= set(cards), (table, named, cards)
