"""The checks that keep patches of table and whole frames from passing as cards (issue 6),
the glyph bank's font handling, and the second ink cut of a weak corner index."""

from __future__ import annotations

import glob

import cv2
import numpy as np
import pytest

from vision import detect, glyphs
from vision.recognizer import Recognizer
from vision.render import render_board


def _table(value: int = 170) -> np.ndarray:
    rng = np.random.default_rng(6)
    return np.clip(rng.normal(value, 3, (360, 640)), 0, 255).astype(np.uint8)


def _quad(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)


def test_a_card_edge_is_seen_all_round_and_a_patch_of_light_is_not():
    grey = _table()
    cv2.rectangle(grey, (200, 100), (290, 226), 235, -1)  # a card: a sharp step all round
    blur = cv2.GaussianBlur(grey, (3, 3), 0)  # as find_cards smooths the grey image
    card = detect._edge_support(blur, _quad(200, 100, 290, 226))
    light = np.zeros(grey.shape, np.float32)
    light[100:227, 400:491] = 1.0  # the same shape of light, but soft (a lamp on the felt)
    lit = np.clip(grey + 40 * cv2.GaussianBlur(light, (0, 0), 40), 0, 255).astype(np.uint8)
    patch = detect._edge_support(cv2.GaussianBlur(lit, (3, 3), 0), _quad(400, 100, 490, 226))
    assert card > 0.9
    assert patch < detect._MIN_OUTLINE


def test_a_card_is_whiter_than_the_table_around_it_and_the_table_is_not():
    wh = _table(120)
    cv2.rectangle(wh, (200, 100), (290, 226), 220, -1)
    con, inside = detect._edge_contrast(wh, _quad(200, 100, 290, 226))
    flat, _ = detect._edge_contrast(wh, _quad(400, 100, 490, 226))
    assert con >= 90 and inside == 1.0
    assert abs(flat) < detect._MIN_CONTRAST
    # a quad cut by the frame's edge has most of its outside band outside the frame
    _, cut = detect._edge_contrast(wh, _quad(560, -100, 660, 400))
    assert cut < 0.6


def test_the_whole_frame_is_never_a_card():
    frame = cv2.cvtColor(_table(200), cv2.COLOR_GRAY2BGR)
    cv2.rectangle(frame, (0, 0), (639, 359), (40, 40, 40), 3)  # a dark border round the frame
    for q in detect.find_cards(frame):
        span = q.max(axis=0) - q.min(axis=0)
        assert span[0] < 0.9 * 640 or span[1] < 0.9 * 360


def test_a_close_up_card_filling_most_of_the_frame_is_found():
    board = render_board(["Tc"], (1280, 720), "wood")
    qs = detect.find_cards(board)
    assert len(qs) == 1
    x0, y0 = np.floor(qs[0].min(axis=0)).astype(int)
    x1, y1 = np.ceil(qs[0].max(axis=0)).astype(int)
    pad = 8
    crop = board[max(0, y0 - pad):y1 + pad, max(0, x0 - pad):x1 + pad]  # card ~90% of the crop
    assert len(detect.find_cards(crop)) == 1
    assert str(Recognizer().recognize(crop)[0].card) == "Tc"


def test_a_font_without_a_character_draws_nothing_not_its_missing_box():
    fonts = glyphs._ttf_fonts()
    if not fonts:
        pytest.skip("no TrueType font on this machine")
    assert all(glyphs._ttf("\ue000", f) is None for f in fonts)  # a private-use character


def test_a_flat_topped_three_is_drawn_where_a_font_has_one():
    if not glob.glob("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"):
        pytest.skip("DejaVu Sans (which has the letter Ezh) is not installed")
    assert len(glyphs.draw_rank("3")) > len(glyphs.draw_rank("5"))


def test_the_recognizer_runs_opencv_and_blas_on_one_thread_unless_told_otherwise():
    from threadpoolctl import threadpool_info, threadpool_limits

    def blas_threads():
        return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]

    before = cv2.getNumThreads()
    with threadpool_limits(limits=2, user_api="blas"):  # restored after the test
        try:
            Recognizer(cv_threads=None)
            assert cv2.getNumThreads() == before
            assert blas_threads() and all(n == 2 for n in blas_threads())
            Recognizer()
            assert cv2.getNumThreads() == 1
            assert all(n == 1 for n in blas_threads())
        finally:
            cv2.setNumThreads(before)


def test_a_weak_corner_is_cut_again_and_the_cut_with_its_suit_pip_is_kept(monkeypatch):
    from vision.recognizer import CornerRead

    rec = Recognizer()
    card = np.full((336, 240, 3), 230, np.uint8)
    cuts = {
        (1.0, 0.5): CornerRead(rank="5", suit="h", rank_score=0.70, rank_margin=0.2, red=True),
        (0.5, 0.3): CornerRead(rank="5", suit=None, rank_score=0.80, rank_margin=0.3, red=True),
    }
    seen = []

    def read_at(_card, scales):
        seen.append(tuple(scales))
        return cuts[tuple(scales)]

    monkeypatch.setattr(rec, "_read_corner_at", read_at)
    assert rec.read_corner(card).suit == "h"  # the higher rank score without a suit loses
    cuts[(0.5, 0.3)] = CornerRead(rank="5", suit="h", rank_score=0.80, rank_margin=0.3, red=True)
    assert rec.read_corner(card).rank_score == 0.80
    cuts[(1.0, 0.5)] = CornerRead(rank="5", suit="h", rank_score=0.95, rank_margin=0.3, red=True)
    seen.clear()
    assert rec.read_corner(card).rank_score == 0.95 and seen == [(1.0, 0.5)]  # strong: one cut
