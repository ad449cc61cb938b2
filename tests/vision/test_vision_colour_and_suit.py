"""A card's colour and suit when the camera or the deck is not what the reader expects
(issue 6: a wrong reading is worse than none). Rendered frames and drawn pips only."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.glyphs import draw_suit
from vision.ink import _has_hole
from vision.recognizer import Recognizer
from vision.render import render_board

RED_CARDS = ["Ah", "7d", "Kh", "3d", "Th"]


@pytest.fixture(scope="module")
def rec() -> Recognizer:
    return Recognizer()


def _named(rec: Recognizer, frame: np.ndarray) -> list[str]:
    return [str(r.card) for r in rec.recognize(frame) if r.card is not None]


def test_the_rendered_red_board_is_read(rec):
    # the frames below are this one changed: what they lose is the change's doing
    assert _named(rec, render_board(RED_CARDS, background="green", seed=3)) == RED_CARDS


def test_a_ring_is_not_a_suit_pip():
    """The "O" under the "J" of a joker's "JOKER" (or a "0") has a hole; a pip is solid."""
    ring = np.zeros((40, 30), np.uint8)
    cv2.ellipse(ring, (15, 20), (11, 16), 0, 0, 360, 255, 4)
    assert _has_hole(ring)
    for suit in "cdhs":
        for variant in (-1.0, 0.0, 1.0):
            pip = cv2.resize(draw_suit(suit, 96, variant), (24, 24), interpolation=cv2.INTER_AREA)
            assert not _has_hole((pip > 127).astype(np.uint8) * 255), (suit, variant)


def _joker(font: int, scale: float, centre: bool) -> np.ndarray:
    """A red joker on green felt: JOKER down both corners, perhaps a framed picture."""
    red = (30, 30, 200)
    im = np.full((720, 1280, 3), (60, 120, 30), np.uint8)
    x, y = 300, 200
    cv2.rectangle(im, (x, y), (x + 180, y + 252), (245, 245, 245), -1)
    for i, ch in enumerate("JOKER"):
        cv2.putText(im, ch, (x + 8, y + 28 + i * int(26 * scale / 0.8)), font, scale, red, 2)
    face = im[y:y + 252, x:x + 180]
    turned = cv2.rotate(face, cv2.ROTATE_180)
    im[y:y + 252, x:x + 180] = np.where((turned.sum(axis=2) < 600)[..., None], turned, face)
    if centre:
        cv2.rectangle(im, (x + 40, y + 60), (x + 140, y + 190), red, 2)
        cv2.circle(im, (x + 90, y + 100), 25, (0, 160, 220), -1)
        cv2.rectangle(im, (x + 60, y + 130), (x + 120, y + 185), (200, 80, 30), -1)
    return im


@pytest.mark.parametrize("font", [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_TRIPLEX])
@pytest.mark.parametrize("centre", [False, True])
def test_a_red_joker_is_not_named_a_jack(rec, font, centre):
    """Its "J" over the "O" of JOKER looked like a jack's index over a diamond pip."""
    assert _named(rec, _joker(font, 0.7, centre)) == []


def _pip_mask(suit: str) -> np.ndarray:
    pip = cv2.resize(draw_suit(suit, 96), (26, 26), interpolation=cv2.INTER_AREA)
    return np.pad((pip > 127).astype(np.uint8) * 255, 3)


def test_the_classifier_vetoes_an_index_only_suit_it_sees_the_other_way():
    """A court card or a bare ace rests its suit on two small index pips; when the glyph
    bank takes a blurred spade for a club, the corner classifier must not see a spade."""
    from vision.recognizer import CornerRead

    spade = CornerRead(rank="A", suit="c", rank_score=0.9, rank_margin=0.3, suit_score=0.55,
                       suit_margin=0.05, red=False, suit_mask=_pip_mask("s"))
    leans = "suit c: the index pips look more like the other suit"
    assert Recognizer._net_doubts("Ac", [spade, spade]) == leans
    assert Recognizer._net_doubts("As", [spade, spade]) == ""
    club = CornerRead(rank="K", suit="c", rank_score=0.9, rank_margin=0.3, suit_score=0.8,
                      suit_margin=0.2, red=False, suit_mask=_pip_mask("c"))
    assert Recognizer._net_doubts("Kc", [club]) == ""
    assert Recognizer._net_doubts("Kc", [CornerRead(rank="K", suit="c")]) == ""  # no pip mask: no say
