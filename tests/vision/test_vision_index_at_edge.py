"""Decks that print their index up to the paper's edge (issue 6, unseen designs): the
detector must still give the card's whole outline, corners and indices included. Built from
project-rendered cards only."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.detect import find_cards
from vision.render import TABLES, render_card


def _flush_index_card(card: str, width: int = 150) -> np.ndarray:
    """A rendered face whose two indices are re-printed flush with the paper's edge: a bold
    rank and a pip block in the top-left corner touching the top and left edges (and the
    same turned round at the bottom right), as some SVG decks print them."""
    face = render_card(card, width)
    h, w = face.shape[:2]
    ink = np.zeros((int(h * 0.2), int(w * 0.16)), np.uint8)
    ch, cw = ink.shape
    cv2.rectangle(ink, (0, 0), (cw - 1, int(ch * 0.12)), 255, -1)  # the top bar of a "5"
    cv2.rectangle(ink, (0, 0), (int(cw * 0.3), int(ch * 0.55)), 255, -1)  # its stem
    cv2.circle(ink, (cw // 2, int(ch * 0.8)), int(cw * 0.3), 255, -1)  # the pip under it
    for target in (face, face[::-1, ::-1]):
        region = target[:ch, :cw]
        region[ink > 0] = (20, 20, 20)
    return face


@pytest.mark.parametrize("table", ["green", "blue", "red"])
def test_a_card_whose_index_touches_its_edge_is_found_whole(table):
    face = _flush_index_card("5s")
    h, w = face.shape[:2]
    frame = np.zeros((720, 1280, 3), np.uint8)
    frame[:] = TABLES[table]
    x0, y0 = 560, 250
    frame[y0:y0 + h, x0:x0 + w] = face
    frame = cv2.GaussianBlur(frame, (0, 0), 0.7)
    alts: list = []
    quads = find_cards(frame, alternatives=alts)
    assert len(quads) == 1 and len(alts) == 1 and alts[0] is not None
    truth = np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]], np.float32)
    # the outline fitted to the whiteness cuts the two index corners off (about a fifth of
    # the width away) ...
    assert np.hypot(*(quads[0] - truth).T).max() > 0.08 * w
    # ... the alternative outline has every corner within 4% of the card's width
    err = np.hypot(*(alts[0] - truth).T)
    assert err.max() < 0.04 * w, err


def test_a_card_under_another_at_its_corner_keeps_its_visible_outline():
    # a corner lost under another card is not put back: paper, not table, lies there
    face = render_card("9h", 150)
    h, w = face.shape[:2]
    frame = np.zeros((720, 1280, 3), np.uint8)
    frame[:] = TABLES["green"]
    x0, y0 = 500, 250
    frame[y0:y0 + h, x0:x0 + w] = face
    alone: list = []
    assert len(find_cards(frame, alternatives=alone)) == 1 and alone == [None]
    # a second card (rotated 30 degrees) covering the first one's top-left corner
    other = render_card("Kc", 150)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), 30, 1.0)
    m[:, 2] += (x0 - w / 2 - 20, y0 - h / 2 - 40)
    warped = cv2.warpAffine(other, m, (1280, 720), borderValue=(0, 0, 0))
    mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, (1280, 720)) > 127
    frame[mask] = warped[mask]
    alts: list = []
    quads = find_cards(frame, alternatives=alts)
    for q in quads + [a for a in alts if a is not None]:
        c = q.mean(axis=0)
        if abs(c[0] - (x0 + w / 2)) < 0.2 * w and abs(c[1] - (y0 + h / 2)) < 0.2 * h:
            # whatever outline is kept for the covered card, its top-left corner is not
            # put back on top of the other card's paper
            tl = q[np.argmin(q.sum(axis=1))]
            assert not mask[int(tl[1]), int(tl[0])] or np.hypot(*(tl - (x0, y0))) > 0.1 * w


def test_a_cut_bare_index_whose_whole_outline_reads_another_rank_even_unsure_is_refused(monkeypatch):
    # a "6" at the corner's left edge, cut there, reads 5 at both indices (no club pip
    # counted: the indices are all the card has); on the whole outline it reads 6, not
    # surely: the cut changed the rank
    from vision.recognizer import Recognizer, _Warped

    rec = Recognizer()
    face = render_card("6c", 150)
    h, w = face.shape[:2]
    frame = np.zeros((720, 1280, 3), np.uint8)
    frame[:] = TABLES["green"]
    frame[250:250 + h, 560:560 + w] = face
    quad = np.array([[560, 250], [560 + w, 250], [560 + w, 250 + h], [560, 250 + h]], np.float32)

    def fake(whole_why: str, bare: bool = True):
        def read(fr: np.ndarray, q: np.ndarray, *_: object) -> _Warped:
            whole = bool(np.allclose(q, quad))
            return _Warped(None, 0.3, whole_why, True) if whole else \
                _Warped("5c", 0.9, "", True, clipped=True, bare=bare)
        return read

    monkeypatch.setattr(rec, "_read_warped", fake("rank 6 not sure enough (0.86/0.05)"))
    r = rec.read_quad(frame, quad)
    assert r.card is None and "may be cut" in r.why
    monkeypatch.setattr(rec, "_read_warped", fake("index says 6, 2 pips"))
    assert rec.read_quad(frame, quad).card is None
    # the same rank, merely unsure, or no index at all on the whole outline: the first stands
    monkeypatch.setattr(rec, "_read_warped", fake("rank 5 not sure enough (0.70/0.02)"))
    assert str(rec.read_quad(frame, quad).card) == "5c"
    monkeypatch.setattr(rec, "_read_warped", fake("no index read"))
    assert str(rec.read_quad(frame, quad).card) == "5c"
    # with a pip counted (or a court picture) the card has more than its indices: a whole
    # outline that reads another rank unsurely does not overrule it
    monkeypatch.setattr(rec, "_read_warped", fake("rank 6 not sure enough (0.86/0.05)", bare=False))
    assert str(rec.read_quad(frame, quad).card) == "5c"


def test_an_index_at_the_left_edge_counts_as_cut_only_when_asked():
    from vision.recognizer import _touches_edge

    m = np.zeros((120, 57), np.uint8)
    m[20:60, 3:20] = 255  # starts at the corner's left edge, well below its top
    assert not _touches_edge(m)
    assert _touches_edge(m, left=True)
    m[:, :10] = 0
    assert not _touches_edge(m, left=True)
