"""Wrong cards found on deck designs the recognizer had never seen (issue 6): each test is
built from project-rendered cards or synthetic readings, never from the downloaded faces."""

from __future__ import annotations

import numpy as np

from vision.detect import order_quad
from vision.glyphs import RANK_LABELS
from vision.decide import Params, decide
from vision.reading import CornerRead, PipRead
from vision.recognizer import Recognizer, _shrink, _touches_edge, _Warped
from vision.render import render_card

P = Params()


def corner(rank: str, score: float, margin: float, suit: str, suit_margin: float,
           also: dict[str, float] | None = None) -> CornerRead:
    """One index reading: ``rank`` at ``score``, every other rank ``margin`` behind it, but
    for the ranks in ``also`` (rank -> score)."""
    scores = np.full(len(RANK_LABELS), score - margin, np.float32)
    scores[RANK_LABELS.index(rank)] = score
    for r, s in (also or {}).items():
        scores[RANK_LABELS.index(r)] = s
    return CornerRead(rank=rank, suit=suit, rank_score=score, rank_margin=margin, suit_score=0.9,
                      suit_margin=suit_margin, red=suit in ("h", "d"), rank_scores=scores)


def test_a_court_rank_over_three_equal_big_pips_and_no_picture_is_refused():
    # a "3" whose top was cut off reads J; its two indices agree (printed alike), the
    # centre holds three equal big pips and nothing of a court picture
    reads = [corner("J", 0.82, 0.1, "s", 0.2, {"3": 0.72}), corner("J", 0.8, 0.1, "s", 0.2, {"3": 0.7})]
    pips = PipRead(count=3, area=0.03, suit="s", suit_margin=0.3, red=False, picture=0.0)
    name, _, why = decide(reads, pips, P)
    assert name is None and "3 pips" in why


def test_a_court_card_whose_picture_parts_look_like_pips_is_still_named():
    # a real jack: parts of its picture may count as equal "pips", but the picture is there
    reads = [corner("J", 0.9, 0.2, "s", 0.2, {"3": 0.72}), corner("J", 0.9, 0.2, "s", 0.2, {"3": 0.7})]
    pips = PipRead(count=3, area=0.02, suit="s", suit_margin=0.3, red=False, picture=0.2)
    assert decide(reads, pips, P)[0] == "Js"
    # ... and with no picture, an index that finds no "3" in it is not second-guessed
    reads = [corner("J", 0.9, 0.2, "s", 0.2, {"3": 0.4}), corner("J", 0.9, 0.2, "s", 0.2, {"3": 0.4})]
    assert decide(reads, PipRead(count=3, area=0.02, suit="s", suit_margin=0.3, red=False), P)[0] == "Js"


def test_a_court_rank_on_one_index_and_the_picture_needs_the_court_margin():
    # one index reads Q barely ahead of another rank (a J touching the frame line); the
    # court picture says J, Q or K but not which: the pip margin is not enough
    reads = [corner("Q", 0.70, 0.015, "c", 0.2)]
    pips = PipRead(count=0, picture=0.2)
    name, _, why = decide(reads, pips, P)
    assert name is None and "not sure" in why
    # well ahead, the same reading is named
    assert decide([corner("Q", 0.70, 0.1, "c", 0.2)], pips, P)[0] == "Qc"


def _frame_with_card(card: str) -> tuple[np.ndarray, np.ndarray]:
    """A green table with one upright rendered ``card``; returns (frame, its quad)."""
    face = render_card(card, 150)
    h, w = face.shape[:2]
    frame = np.zeros((720, 1280, 3), np.uint8)
    frame[:] = (60, 120, 30)
    frame[200:200 + h, 500:500 + w] = face
    quad = np.array([[500, 200], [500 + w - 1, 200], [500 + w - 1, 200 + h - 1], [500, 200 + h - 1]], np.float32)
    return frame, quad


def test_the_rank_ink_touching_the_corner_edge_is_seen_as_a_possible_cut():
    assert _touches_edge(np.pad(np.full((10, 6), 255, np.uint8), ((2, 60), (12, 40))))
    assert not _touches_edge(np.pad(np.full((10, 6), 255, np.uint8), ((20, 60), (1, 40))))  # left: not checked
    assert not _touches_edge(np.pad(np.full((10, 6), 255, np.uint8), ((12, 60), (12, 40))))
    # a rendered card's index sits well inside: no second read
    rec = Recognizer()
    frame, quad = _frame_with_card("3s")
    assert rec.read_quad(frame, quad).card is not None
    assert not rec._read_warped(frame, _shrink(order_quad(quad), 0.012)).clipped


def test_a_possibly_cut_index_that_the_whole_outline_reads_as_another_card_is_refused(monkeypatch):
    # the shrunk outline cut the top off a "3" (read J, its ink at the cut's edge); read
    # with the card's whole outline it is a 3: the card is refused, not named either way
    rec = Recognizer()
    frame, quad = _frame_with_card("3s")
    seen = []

    def fake(fr: np.ndarray, q: np.ndarray, *_: object) -> _Warped:
        whole = bool(np.allclose(q, quad))
        seen.append(whole)
        return _Warped(("3s" if whole else "Js"), 0.9, "", True, clipped=not whole)

    monkeypatch.setattr(rec, "_read_warped", fake)
    r = rec.read_quad(frame, quad)
    assert seen == [False, True]
    assert r.card is None and "whole outline" in r.why
    # the whole outline agreeing (or unsure) leaves the first reading
    monkeypatch.setattr(rec, "_read_warped", lambda fr, q, *_: _Warped("Js", 0.9, "", True, clipped=True))
    assert str(rec.read_quad(frame, quad).card) == "Js"


class _DoubtfulNet:
    """The corner classifier, but finding no rank in any glyph (all rank probabilities 0)."""

    def __init__(self, net: object) -> None:
        self.net = net

    def probs(self, masks: list[np.ndarray]) -> np.ndarray:
        from vision.index_net import RANKS  # noqa: PLC0415

        pr = np.array(self.net.probs(masks), np.float32)  # type: ignore[attr-defined]
        pr[:, :len(RANKS)] = 0.0
        return pr


def test_a_number_card_with_no_pip_counted_needs_the_classifier_to_see_its_rank(monkeypatch):
    # clubs of thin stems are never counted as pips: such a card rests on its two indices,
    # printed alike (a cut or confused index is wrong twice): the classifier must see the rank
    from vision import corners  # noqa: PLC0415

    rec = Recognizer()
    frame, quad = _frame_with_card("7c")
    h, w = 210, 150
    blank = frame.copy()
    blank[200 + int(h * 0.3):200 + int(h * 0.7), 500 + int(w * 0.25):500 + int(w * 0.75)] = 245  # no centre pip
    assert str(rec.read_quad(blank, quad).card) == "7c"  # the real classifier sees a 7
    monkeypatch.setattr(corners, "_NET", _DoubtfulNet(corners._net()))
    r = rec.read_quad(blank, quad)
    assert r.card is None and "classifier" in r.why
    # with its centre pip counted, the same card does not ask the classifier about its rank
    assert str(rec.read_quad(frame, quad).card) == "7c"


def test_a_possibly_cut_index_whose_whole_outline_contradicts_itself_is_refused(monkeypatch):
    # a cut "6" reads 5 at both indices; with the whole outline one index reads 6 again and
    # the indices disagree: refused. Merely unsure with the whole outline: the first stands
    rec = Recognizer()
    frame, quad = _frame_with_card("6c")

    def fake(whole_why: str):
        def read(fr: np.ndarray, q: np.ndarray, *_: object) -> _Warped:
            whole = bool(np.allclose(q, quad))
            return _Warped(None, 0.0, whole_why, True) if whole else _Warped("5c", 0.9, "", True, clipped=True)
        return read

    monkeypatch.setattr(rec, "_read_warped", fake("indices disagree: 6 or 5"))
    r = rec.read_quad(frame, quad)
    assert r.card is None and "6 or 5" in r.why
    monkeypatch.setattr(rec, "_read_warped", fake("rank 5 not sure enough (0.70/0.02)"))
    assert str(rec.read_quad(frame, quad).card) == "5c"


def test_a_card_named_only_a_quarter_turn_round_on_recounted_pips_is_refused(monkeypatch):
    # no index found upright (the "9" runs to the top, the index pip to the left edge); read
    # a quarter turn round, the sideways index says 9, its hearts look like diamonds, and the
    # local recount finds 9 pips that only confirm the index (an unseen deck's 9h read 9d)
    rec = Recognizer()
    frame, quad = _frame_with_card("9h")
    first = _shrink(order_quad(quad), 0.012)  # the upright read; the turned one is rolled

    def read(turned_recounted: bool):
        def fake(fr: np.ndarray, q: np.ndarray, *_: object) -> _Warped:
            if np.allclose(q, first):
                return _Warped(None, 0.0, "no index read", False)
            return _Warped("9d", 0.77, "", True, recounted=turned_recounted)
        return fake

    monkeypatch.setattr(rec, "_read_warped", read(True))
    r = rec.read_quad(frame, quad)
    assert r.card is None and "quarter turn" in r.why
    monkeypatch.setattr(rec, "_read_warped", read(False))  # named sideways on its own evidence
    assert str(rec.read_quad(frame, quad).card) == "9d"
