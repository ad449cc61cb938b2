"""Whole cards that used to be missed (issue 6): a card on a light table whose outline has a
gap, and a number card whose pips glare washes out."""

from __future__ import annotations

import cv2
import numpy as np

from vision import detect
from vision.recognizer import H, W, Recognizer


def _broken_outline_edges() -> tuple[np.ndarray, np.ndarray]:
    """A Canny-like edge map: a card's outline with a gap, its index touching the outline."""
    e = np.zeros((300, 400), np.uint8)
    x0, y0, x1, y1 = 150, 60, 250, 200  # the card, 100 x 140
    cv2.rectangle(e, (x0, y0), (x1, y1), 255, 3)
    e[120:128, x1 - 2:x1 + 3] = 0  # a gap in the right edge (a faint stretch of outline)
    cv2.rectangle(e, (x0 + 20, y0 + 25), (x1 - 20, y1 - 25), 255, 3)  # the picture's frame
    cv2.line(e, (x0, y0 + 10), (x0 + 20, y0 + 30), 255, 3)  # the index bridges outline and frame
    truth = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    return e, truth


def test_a_card_whose_outline_has_a_gap_is_the_hull_of_its_edge_blob():
    e, truth = _broken_outline_edges()
    cs, hier = cv2.findContours(e, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    area = 0.004 * e.size
    holes = [c for c, h in zip(cs, hier[0]) if h[3] >= 0 and cv2.contourArea(c) >= area]
    # no hole of the edge map is the card (what find_cards looked for alone before)
    assert not any(detect._card_like(c, area, 0.95 * e.size) is not None
                   and np.abs(detect.order_quad(detect._card_like(c, area, 1e9)) - truth).max() < 6 for c in holes)
    outer = [c for c, h in zip(cs, hier[0]) if h[3] < 0]
    found = [q for c in outer for q in detect._blob_cards(c, area, 0.95 * e.size)]
    assert len(found) == 1
    assert np.abs(detect.order_quad(found[0]) - truth).max() < 4


def test_a_blob_that_is_no_card_shape_gives_nothing():
    e = np.zeros((300, 400), np.uint8)
    cv2.circle(e, (200, 150), 80, 255, 3)  # round: no card
    cv2.rectangle(e, (20, 20), (380, 60), 255, 3)  # far too long for a card
    cs, hier = cv2.findContours(e, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    outer = [c for c, h in zip(cs, hier[0]) if h[3] < 0]
    assert [q for c in outer for q in detect._blob_cards(c, 0.004 * e.size, 0.95 * e.size)] == []


def _glare_seven() -> np.ndarray:
    """A warped 7 of spades ``(H, W, 3)``: seven black pips, its right half under glare."""
    card = np.full((H, W, 3), 215, np.uint8)
    pips = [(70, 80), (170, 80), (120, 130), (70, 170), (170, 170), (70, 260), (170, 260)]
    for x, y in pips:
        cv2.ellipse(card, (x, y), (20, 24), 0, 0, 360, (20, 20, 20), -1)
    xx = np.arange(W, dtype=np.float32)[None, :, None]
    glare = np.clip((xx - 110) / 40.0, 0, 1)  # 0 on the left, 1 from x = 150 on
    out = card.astype(np.float32) * (1 - glare) + (0.35 * card + 165) * glare  # washed out, lighter
    rng = np.random.default_rng(7)
    out += rng.normal(0, 2, out.shape) + 15 * glare * (rng.random(out.shape[:2])[..., None] > 0.7)
    return np.clip(out, 0, 255).astype(np.uint8)


def test_pips_under_glare_are_counted_against_the_paper_around_them():
    rec = Recognizer()
    card = _glare_seven()
    assert rec.read_pips(card).count < 7  # one cut for the card loses the washed-out pips
    again = rec.read_pips(card, local=True)
    assert again.count == 7 and again.red is False


def test_the_local_count_never_invents_pips_on_a_clean_card():
    rec = Recognizer()
    card = np.full((H, W, 3), 225, np.uint8)
    for x, y in [(70, 80), (170, 80), (70, 260), (170, 260)]:
        cv2.ellipse(card, (x, y), (20, 24), 0, 0, 360, (30, 30, 200), -1)  # a red four
    assert rec.read_pips(card).count == 4
    assert rec.read_pips(card, local=True).count == 4


def test_a_bare_bar_is_no_rank_and_the_index_is_cut_again_lower():
    from vision.recognizer import CH, CW

    rec = Recognizer()
    ink = np.zeros((CH, CW), np.uint8)
    ink[10:34, 12] = 255  # the "1" of a pale "10" whose "0" fell below the cut: 1 px wide
    ink[40:55, 8:22] = 255  # the suit pip under it
    chroma = np.zeros((CH, CW), np.int16)
    assert Recognizer._cut_index(ink.copy(), chroma, CW, CH) == (None, None, None)
    ink[10:34, 16:28] = 255  # the "0" seen at a lower cut: "10" is wide enough
    rmask, smask, _ = Recognizer._cut_index(ink.copy(), chroma, CW, CH)
    assert rmask is not None and smask is not None
    assert rec._read_glyphs(rmask, smask, False).rank is not None


def test_an_index_pip_touching_the_pictures_frame_line_is_still_cut():
    from vision.recognizer import CH, CW

    ink = np.zeros((CH, CW), np.uint8)
    cv2.putText(ink, "J", (6, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.1, 255, 3)  # the rank
    cv2.circle(ink, (17, 62), 10, 255, -1)  # the suit pip under it ...
    ink[25:CH, 27:29] = 255  # ... touching the picture's frame line (2 px wide)
    ink[25:27, 27:CW] = 255
    chroma = np.zeros((CH, CW), np.int16)
    rmask, smask, red = Recognizer._cut_index(ink.copy(), chroma, CW, CH)
    assert rmask is not None and smask is not None and red is False
    x, y, w, h = cv2.boundingRect(smask)
    assert abs(x + w / 2 - 17) <= 2 and abs(y + h / 2 - 62) <= 2 and 17 <= w <= 23 and 17 <= h <= 23
    ink[:, 27:] = 0  # no frame line: the same pip, found as before
    assert cv2.boundingRect(Recognizer._cut_index(ink.copy(), chroma, CW, CH)[1])[2] >= 19


def test_a_big_pip_cut_by_the_corners_edge_is_not_half_of_the_rank():
    from vision.recognizer import CH, CW

    ink = np.zeros((CH, CW), np.uint8)
    cv2.putText(ink, "5", (8, 48), cv2.FONT_HERSHEY_SIMPLEX, 1.6, 255, 3)  # the rank, ~33 px tall
    cv2.circle(ink, (20, 66), 9, 255, -1)  # its suit pip
    cv2.ellipse(ink, (CW - 1, 40), (16, 22), 0, 0, 360, 255, -1)  # the first big pip, cut by the box
    chroma = np.zeros((CH, CW), np.int16)
    rmask, smask, _ = Recognizer._cut_index(ink.copy(), chroma, CW, CH)
    assert rmask is not None and smask is not None
    assert cv2.boundingRect(rmask)[0] + cv2.boundingRect(rmask)[2] < CW - 8  # the "5" alone
    x, y, w, h = cv2.boundingRect(smask)
    assert abs(x + w / 2 - 20) <= 2 and abs(y + h / 2 - 66) <= 2


def test_the_ink_colour_is_the_solid_pips_not_the_pale_thin_ranks():
    from vision.recognizer import CH, CW

    ink = np.zeros((CH, CW), np.uint8)
    cv2.putText(ink, "J", (8, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.1, 255, 3)
    cv2.circle(ink, (18, 60), 9, 255, -1)
    chroma = np.zeros((CH, CW), np.int16)
    chroma[ink > 0] = 15  # the thin rank: pale, its red diluted by the paper round it
    chroma[50:71, 8:29] = np.where(ink[50:71, 8:29] > 0, 60, 0)  # the solid pip: clearly red
    assert Recognizer._cut_index(ink.copy(), chroma, CW, CH)[2] is True
    chroma[50:71, 8:29] = np.where(ink[50:71, 8:29] > 0, 5, 0)  # a black pip: black
    assert Recognizer._cut_index(ink.copy(), chroma, CW, CH)[2] is False


def _oblique_card_frame() -> tuple[np.ndarray, np.ndarray]:
    """A rendered Th seen from low across the table: its long side 460 px far, 600 near,
    185 px deep (it looks 2.8 times as long as deep), on a dark wooden table."""
    from vision.render import render_card

    f = np.zeros((720, 1280, 3), np.uint8)
    f[:] = (40, 45, 110)
    card = render_card("Th", 300)
    h, w = card.shape[:2]
    dst = np.float32([[640, 200], [180, 200], [100, 385], [700, 385]])  # the card's TL, TR, BR, BL
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), dst)
    warped = cv2.warpPerspective(card, m, (1280, 720))
    inside = cv2.warpPerspective(np.full((h, w), 255, np.uint8), m, (1280, 720)) > 0
    f[inside] = warped[inside]
    return f, dst


def test_a_card_seen_very_obliquely_is_found_and_never_misread():
    frame, corners = _oblique_card_frame()
    quads = detect.find_cards(frame)
    assert len(quads) == 1
    got = detect.order_quad(quads[0])
    assert all(np.hypot(*(got - c).T).min() < 15 for c in corners)  # each corner found
    assert all(r.card is None or str(r.card) == "Th" for r in Recognizer().recognize(frame))


def test_a_long_box_with_parallel_sides_is_still_no_card():
    # 2.5 times as long as wide, not tapered: a strip or touching cards, not one card
    c = np.array([[[100, 100]], [[400, 100]], [[400, 220]], [[100, 220]]], np.int32)
    assert detect._card_like(c, 100, 1e9) is None
    # as long for its depth, but tapered (300 px far, 380 near): a card seen obliquely
    tapered = np.array([[[100, 100]], [[400, 100]], [[440, 230]], [[60, 230]]], np.int32)
    assert detect._card_like(tapered, 100, 1e9) is not None
