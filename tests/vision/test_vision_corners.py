"""Partly covered cards read from their corner index (issue 6, vision/corners.py).

Rendered rows of overlapping cards (each card covered by the next but for its left strip)
are read from the index strip; a corner never names a card wrongly, a card is given once,
and a missing or corrupt classifier file is a clear error.
"""

from __future__ import annotations

import random

import cv2
import numpy as np
import pytest

from controller.engine.cards import FULL_DECK, parse_cards
from vision import corners
from vision.glyphs import draw_suit
from vision.index_net import CLASSES, IndexNet, net_input
from vision.reading import INDEX_STRIP
from vision.recognizer import Reading, Recognizer
from vision.render import render_board


@pytest.fixture(scope="module")
def rec() -> Recognizer:
    return Recognizer(corners=True)


def _named(reads) -> list[str]:
    return [str(r.card) for r in reads if r.card is not None]


@pytest.mark.parametrize("table", ["green", "dark", "wood", "blue"])
def test_a_row_of_overlapping_cards_is_read_from_the_corners(rec, table):
    rng = random.Random(table)
    cards = rng.sample(FULL_DECK, 6)
    frame = render_board(cards, (1280, 720), table, gap=-0.72, noise=2.0, seed=3)
    whole = Recognizer(corners=False).recognize(frame)
    reads = rec.recognize(frame)
    named = _named(reads)
    assert set(named) <= {str(c) for c in cards}, (named, cards)
    assert len(named) == len(set(named))  # a card is given once
    # the corners read what the whole-card pass could not
    assert len(named) >= 5 and len(named) >= len(_named(whole)) + 3, (named, _named(whole))
    assert any(r.why == "corner index" for r in reads)
    for r in reads:
        assert len(r.outline) == 4 and 0.0 <= r.confidence <= 1.0


@pytest.mark.parametrize("angle", [-25.0, 20.0, 180.0])
def test_turned_rows_are_read_either_way_up(rec, angle):
    cards = parse_cards("6h 9s Td 2c Qd")
    frame = render_board(cards, (1280, 720), "green", gap=-0.72, angle=angle, noise=2.0)
    named = _named(rec.recognize(frame))
    assert set(named) <= {str(c) for c in cards}, named  # 6 and 9 never swap
    assert len(named) >= 4, named


def test_a_lone_card_is_named_once_not_again_from_its_corners(rec):
    cards = parse_cards("7c Kd 4h")
    frame = render_board(cards, (1280, 720), "green", noise=2.0)
    reads = rec.recognize(frame)
    assert sorted(_named(reads)) == sorted(str(c) for c in cards)
    assert all(r.why != "corner index" for r in reads)


def test_corners_respect_the_board_region(rec):
    cards = parse_cards("As 8d 3c Jh 5s")
    frame = render_board(cards, (1280, 720), "dark", gap=-0.72, noise=2.0)
    h, w = frame.shape[:2]
    left = np.array([[0, 0], [w // 2, 0], [w // 2, h], [0, h]], np.float32)
    inside = rec.recognize(frame, region=left)
    named = _named(inside)
    assert set(named) <= {str(c) for c in cards} and len(named) >= 2
    for r in inside:  # the cards whose index lies in the left half only
        if r.why == "corner index":
            assert sum(x for x, _ in r.outline) / 4 < w // 2
    right = np.array([[w // 2 + 200, 0], [w, 0], [w, h], [w // 2 + 200, h]], np.float32)
    assert not any(r.why == "corner index" for r in rec.recognize(frame, region=right))


def test_a_grey_frame_names_no_card_from_its_corners(rec):
    frame = render_board(parse_cards("As 8d 3c Jh 5s"), (1280, 720), "dark", gap=-0.72)
    grey = cv2.cvtColor(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    assert _named(rec.recognize(grey)) == []


def test_the_same_card_seen_at_two_corners_is_given_once(rec):
    # one card alone, its outline hidden: only its two indices (top-left, bottom-right)
    face = render_board(parse_cards("8c"), (640, 480), "green")[60:420, 200:440]
    frame = np.full((600, 800, 3), 235, np.uint8)
    frame[100:100 + face.shape[0], 200:200 + face.shape[1]] = face
    assert [r.card for r in corners.read_corners(rec, frame)] == ["8c"]


def test_disagreeing_readings_of_one_spot_name_nothing(rec, monkeypatch):
    pair = corners.IndexPair((100.0, 100.0), (100.0, 130.0), 30.0)
    box = ((0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0))
    six = corners.CornerReading("6s", "6", "s", 1.0, 1.0, 1.0, 1.0, False, box)
    nine = corners.CornerReading("9s", "9", "s", 1.0, 1.0, 1.0, 1.0, False, box)
    far = corners.IndexPair((150.0, 100.0), (150.0, 130.0), 30.0)
    monkeypatch.setattr(corners, "find_index_pairs", lambda *args, **kw: [pair, pair])
    monkeypatch.setattr(corners, "read_pairs", lambda *args, **kw: [(pair, six), (pair, nine)])
    assert corners.read_corners(rec, np.zeros((200, 200, 3), np.uint8)) == []
    # the same card at two spots (both indices) is given once; far apart, two cards stand
    monkeypatch.setattr(corners, "read_pairs", lambda *args, **kw: [(pair, six), (far, six)])
    assert [r.card for r in corners.read_corners(rec, np.zeros((200, 200, 3), np.uint8))] == ["6s"]
    monkeypatch.setattr(corners, "read_pairs", lambda *args, **kw: [(pair, six), (far, nine)])
    assert sorted(r.card for r in corners.read_corners(rec, np.zeros((200, 200, 3), np.uint8))) == ["6s", "9s"]


def test_index_net_classifies_clean_synthetic_glyphs():
    from vision.glyphs import draw_rank, draw_suit

    net = IndexNet()
    masks, want = [], []
    for label in ("A", "7", "10", "Q"):
        masks.append(draw_rank(label, style=1)[1])
        want.append(label)
    for s in "cdhs":
        masks.append(draw_suit(s, 96))
        want.append(s)
    masks.append(np.rot90(draw_rank("7", style=1)[1], 2))  # a 7 upside down is no rank
    want.append("-")
    probs = net.probs(masks)
    assert probs.shape == (len(masks), len(CLASSES))
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-4)
    got = [CLASSES[int(i)] for i in probs.argmax(axis=1)]
    assert got == want


def test_index_net_file_errors(tmp_path):
    with pytest.raises(ValueError, match="missing"):
        IndexNet(tmp_path / "none.onnx")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a network")
    with pytest.raises(ValueError, match="not a network"):
        IndexNet(bad)
    with pytest.raises(ValueError, match="empty glyph"):
        net_input(np.zeros((10, 10), np.uint8))


def test_a_card_named_from_its_index_strip_leaves_its_outline_searched(rec):
    # a row of overlapping cards split at a card edge as if two touching cards: the left
    # half names the first card from its index alone, yet holds the next cards' strips
    cards = parse_cards("2d 8h 8d 6d 2c As")
    frame = render_board(cards, (1280, 720), "green", gap=-0.72, noise=2.0, seed=3)
    first = [r for r in Recognizer(corners=False).recognize(frame) if r.card == cards[0]]
    assert len(first) == 1 and first[0].why == INDEX_STRIP, first
    half = first[0].outline

    # (the half is wider than a card: a whole-card outline of that shape is searched as a
    # possible merged blob; here only the index-strip rule is compared)
    rim_only = corners.CornerParams(merged_shrink=corners.CornerParams().named_shrink)

    def named(why: str) -> list[str]:
        out = corners.add_corner_readings(rec, frame, [Reading(cards[0], 0.8, half, why)], params=rim_only)
        return [str(r.card) for r in out if r.why == "corner index"]

    strip = named(INDEX_STRIP)
    whole = named("")
    assert set(strip) <= {str(c) for c in cards[1:]}
    assert len(strip) >= len(whole) + 2, (strip, whole)  # 8h 8d 6d lie under the half


def test_a_lower_cut_merged_with_a_card_edge_says_nothing_about_the_rank():
    # the lower ink cut may join the rank to a card edge beside it: that mask is no reading
    # of the rank (the pip and colour are still checked), a slightly bolder rank is
    rank = np.zeros((96, 76), np.uint8)
    cv2.putText(rank, "8", (24, 44), cv2.FONT_HERSHEY_SIMPLEX, 1.0, 255, 2)
    bolder = cv2.dilate(rank, np.ones((3, 3), np.uint8))
    edge = bolder.copy()
    cv2.line(edge, (14, 10), (14, 40), 255, 2)
    cv2.line(edge, (14, 10), (40, 10), 255, 2)
    assert not corners._grew(rank, bolder)
    assert corners._grew(rank, edge)


def test_indices_under_the_rim_of_a_merged_named_outline_are_read(rec):
    # a fan whose top card's outline was found as one blob with the cards under it: the
    # covered cards' indices lie along the top of that outline, outside its middle
    cards = parse_cards("3c 9d Kh 5s Qd 7h")
    frame = render_board(cards, (1280, 720), "green", gap=-0.72, noise=2.0, seed=5)
    paper = cv2.inRange(frame, (170, 170, 170), (255, 255, 255))
    x, y, w, h = cv2.boundingRect(paper)
    blob = ((x, y), (x + w, y), (x + w, y + h), (x, y + h))
    assert corners._merged(np.array(blob, np.float32), corners.CornerParams(), None)

    def named(**kw) -> list[str]:
        out = corners.add_corner_readings(rec, frame, [Reading(cards[-1], 0.9, blob, "")],
                                          params=corners.CornerParams(**kw))
        return [str(r.card) for r in out if r.why == "corner index"]

    wide = named()
    assert set(wide) <= {str(c) for c in cards[:-1]}, wide  # the named card is not given again
    assert len(wide) >= 3, wide
    assert len(named(merged_shrink=0.12)) < len(wide)  # with only the rim searched, fewer


def test_only_an_outline_unlike_its_neighbours_counts_as_merged():
    p = corners.CornerParams()
    card = np.array([(0, 0), (100, 0), (100, 140), (0, 140)], np.float32)
    wide = np.array([(0, 0), (260, 0), (260, 140), (0, 140)], np.float32)
    assert not corners._merged(card, p, None)
    assert corners._merged(wide, p, None)
    assert corners._merged(wide, p, typical=100 * 140)
    # a frame stretched to another aspect: every card looks as wide; none is a merged blob
    assert not corners._merged(wide, p, typical=260 * 140)


def test_the_lower_cut_checks_colour_and_pip_unless_its_rank_merged(monkeypatch):
    rank = np.zeros((96, 76), np.uint8)
    cv2.putText(rank, "8", (24, 44), cv2.FONT_HERSHEY_SIMPLEX, 1.0, 255, 2)
    merged = rank.copy()
    cv2.line(merged, (14, 10), (14, 40), 255, 2)
    cv2.line(merged, (14, 10), (40, 10), 255, 2)
    pip = draw_suit("c", 20)
    smask = np.zeros((96, 76), np.uint8)
    smask[50:70, 28:48] = pip
    ri, si = CLASSES.index("8"), CLASSES.index("c")
    cut = np.zeros((96, 76, 3), np.uint8)

    def agrees(lower_rank: np.ndarray, lower_red: bool) -> bool:
        monkeypatch.setattr(corners, "_glyph_cuts", lambda c, s: [(lower_rank, smask, lower_red, (0, 0), 0.6)])
        return corners._lower_cut_agrees(cut, False, ri, si, False, rank)

    assert agrees(rank, False)
    assert not agrees(rank, True)  # the lower cut finds red ink: no card
    assert agrees(merged, True)  # merged with a red card edge: its colour says nothing
    monkeypatch.setattr(corners, "_glyph_cuts", lambda c, s: [(merged, np.rot90(smask, 2).copy(), True, (0, 0), 0.6)])
    assert not corners._lower_cut_agrees(cut, False, ri, si, False, rank)  # the pip is still checked


def _paper_cut(rank: str) -> np.ndarray:
    """An upright index cut (96x76 BGR, as corners._cut makes): ``rank`` over a club pip."""
    cut = np.full((96, 76, 3), 235, np.uint8)
    (tw, th), _ = cv2.getTextSize(rank, cv2.FONT_HERSHEY_SIMPLEX, 1.1, 2)
    (lw, _), _ = cv2.getTextSize(rank[-1], cv2.FONT_HERSHEY_SIMPLEX, 1.1, 2)
    x0 = 38 - (tw - lw // 2)  # the last character centred on the rank's spot (the "0" of a 10)
    cv2.putText(cut, rank, (x0, 30 + th // 2), cv2.FONT_HERSHEY_SIMPLEX, 1.1, (20, 20, 20), 2)
    pip = cv2.resize(draw_suit("c", 96), (18, 18), interpolation=cv2.INTER_AREA) > 127
    cut[51:69, 29:47][pip] = (20, 20, 20)
    return cut


def test_a_neighbours_big_pip_beside_the_rank_is_not_half_of_a_ten():
    cut = _paper_cut("8")
    # a big pip of the card beside, taller than the rank and reaching lower (as in a fan)
    cv2.circle(cut, (70, 37), 17, (20, 20, 20), -1)
    cuts = corners._glyph_cuts(cut, (1.0,))
    assert cuts, "the 8 over its pip is cut"
    rmask = cuts[0][0]
    assert rmask[37, 70] == 0 and rmask[:, 56:].sum() == 0
    ten = corners._glyph_cuts(_paper_cut("10"), (1.0,))
    assert ten
    xs = np.nonzero(ten[0][0])[1]
    assert xs.min() < 25 and xs.max() > 38  # the "1" and the "0" both


@pytest.mark.parametrize("why, kept", [("index says 8, picture seen", False), ("no index read", True)])
def test_a_corner_does_not_name_a_card_whose_index_contradicts_its_picture(monkeypatch, why, kept):
    """A foreign jack ("B") whose index reads 8 over a court picture is unsure; one of its
    corners read as 8d must not name it either. An unsure card that merely lacked an index
    is still named from its corner."""
    import vision.corners as corners_mod
    from vision.recognizer import Reading, Recognizer

    frame = np.full((400, 600, 3), 200, np.uint8)
    outline = ((100.0, 50.0), (300.0, 50.0), (300.0, 340.0), (100.0, 340.0))
    box = ((110.0, 60.0), (140.0, 60.0), (140.0, 100.0), (110.0, 100.0))
    corner = corners_mod.CornerReading("8d", "8", "d", 0.99, 0.98, 0.99, 0.98, True, box)
    monkeypatch.setattr(corners_mod, "_paper_box", lambda *a, **k: (0, 0, 600, 400))
    monkeypatch.setattr(corners_mod, "read_corners", lambda *a, **k: [corner])
    out = corners_mod.add_corner_readings(Recognizer(), frame, [Reading(None, 0.0, outline, why)])
    assert [str(r.card) for r in out if r.card is not None] == (["8d"] if kept else [])


def test_named_only_reading_keeps_exactly_the_named_readings(rec):
    # read_corners asks only for readings that can name a card (the pips of unsure ranks
    # are not classified): those must be the named readings of the full read, bit for bit
    cards = parse_cards("6h 9s Td 2c Qd Ac")
    frame = render_board(cards, (1280, 720), "wood", gap=-0.72, angle=12.0, noise=2.0, seed=5)
    pairs = corners.find_index_pairs(frame)
    full = corners.read_pairs(rec, frame, pairs)
    fast = corners.read_pairs(rec, frame, pairs, named_only=True)
    named = [(p, r) for p, r in full if r.card is not None]
    assert len(named) >= 3 and len(full) > len(named)
    assert [(p, r) for p, r in fast if r.card is not None] == named


def test_components_match_opencvs_default_labelling():
    # the block-based algorithm must give the default's labels, order and statistics
    rng = np.random.default_rng(6)
    for density in (0.1, 0.3, 0.5):
        mask = (rng.random((96, 76)) < density).astype(np.uint8) * 255
        mask[10:40, 20:30] = 255
        got = corners._components(mask)
        want = cv2.connectedComponentsWithStats(mask, connectivity=8)
        assert got[0] == want[0] > 2
        for a, b in zip(got[1:], want[1:]):
            assert np.array_equal(a, b)


def test_components_use_16_bit_labels_only_where_they_fit():
    # a frame-sized mask of few ink pixels: 16-bit labels, the default's labels and statistics;
    # one of more than 65535 ink pixels (up to as many labels): 32-bit labels, still the same
    rng = np.random.default_rng(7)
    sparse = ((rng.random((600, 1000)) < 0.02) * 255).astype(np.uint8)
    dense = ((rng.random((600, 1000)) < 0.3) * 255).astype(np.uint8)
    for mask, dtype in ((sparse, np.uint16), (dense, np.int32)):
        got = corners._components(mask)
        want = cv2.connectedComponentsWithStats(mask, connectivity=8)
        assert got[1].dtype == dtype
        assert got[0] == want[0] > 1000
        for a, b in zip(got[1:], want[1:]):
            assert np.array_equal(a, b)


def test_marks_traced_one_by_one_have_the_whole_masks_solidity(monkeypatch):
    # the kept marks' solidity from their own boxes (few marks) is that of one trace of the
    # whole ink mask (many marks), and so are the marks kept
    frame = render_board(parse_cards("6h 9s Td 2c Qd Ac"), (1280, 720), "wood", gap=-0.72, angle=12.0,
                         noise=2.0, seed=5)
    p = corners.CornerParams()
    monkeypatch.setattr(corners, "_FEW_MARKS", 10 ** 6)
    alone = corners._ink_components(frame, p)
    monkeypatch.setattr(corners, "_FEW_MARKS", -1)
    whole = corners._ink_components(frame, p)
    assert len(alone[0]) >= 12
    for a, b in zip(alone, whole):
        assert np.array_equal(a, b)
    assert (alone[2] > 0).all()


def test_ink_marks_match_the_numpy_definition():
    # the table look-up cut is dark > max(35, paper_level // 4) where paper_level > 110
    rng = np.random.default_rng(3)
    level = rng.integers(0, 256, (50, 60), dtype=np.uint8)
    dark = rng.integers(0, 256, (50, 60), dtype=np.uint8)
    want = (dark > np.maximum(35, level // 4)) & (level > 110)
    got = cv2.compare(dark, cv2.LUT(level, corners._INK_BAR), cv2.CMP_GT) > 0
    assert np.array_equal(got, want) and want.any() and not want.all()


def test_skipped_lower_cuts_could_not_have_separated_the_glyphs(rec, monkeypatch):
    # every pair's cut reads the same with the skip (lower cuts left out when they cannot
    # separate rank and pip) as with each ink cut tried on its own, and the skip saves work
    calls = []
    real = corners._components
    monkeypatch.setattr(corners, "_components", lambda m: calls.append(1) or real(m))
    rng = np.random.default_rng(4)
    cuts = []
    for k, table in enumerate(("green", "dark", "wood", "blue")):
        frame = render_board(rng.choice(FULL_DECK, 8, replace=False).tolist(), (1280, 720), table, gap=-0.72,
                             angle=float(rng.uniform(-15, 15)), noise=2.0, seed=k)
        pale = cv2.LUT(frame, (255 * (np.arange(256) / 255) ** 0.4).astype(np.uint8))  # grey ink: lower cuts matter
        for fr in (frame, pale):
            # the candidate pairs, and as many spots and directions at random (most cut nothing)
            spots = [(np.array(p.rank), np.array(p.pip)) for p in corners.find_index_pairs(fr)]
            for _ in range(40):
                a = rng.uniform((100, 100), (1180, 620))
                spots.append((a, a + rng.uniform(12, 40) * np.array([np.sin(t := rng.uniform(0, 6.3)), np.cos(t)])))
            cuts += [corners._cut(fr, a, b)[0] for a, b in spots]
    assert len(cuts) > 300
    skipped = lower_only = 0
    for cut in cuts:
        calls.clear()
        both = corners._glyph_cuts(cut)
        n_both = len(calls)
        one_by_one = corners._glyph_cuts(cut, (1.0,)) + corners._glyph_cuts(cut, (0.6,))
        assert len(both) == len(one_by_one)
        for a, b in zip(both, one_by_one):
            assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and a[2:] == b[2:]
        first = corners._glyph_cuts(cut, first=True)
        assert len(first) == min(len(one_by_one), 1)
        skipped += n_both < 2
        lower_only += len(one_by_one) == 1 and one_by_one[0][4] == 0.6
    assert skipped > 0 and lower_only > 0


def test_net_input_box_is_the_non_zero_pixels_box():
    # OpenCV's bounding box of a uint8 mask, and of any other dtype or a turned view, is
    # NumPy's box of the non-zero pixels: the same network input
    def plain(mask: np.ndarray) -> np.ndarray:
        ys, xs = np.nonzero(mask)
        crop = (mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1] > 0).astype(np.float32)
        h, w = crop.shape
        k = 28 / max(h, w)
        nw, nh = max(1, int(round(w * k))), max(1, int(round(h * k)))
        out = np.zeros((32, 32), np.float32)
        x0, y0 = (32 - nw) // 2, (32 - nh) // 2
        out[y0:y0 + nh, x0:x0 + nw] = cv2.resize(crop, (nw, nh), interpolation=cv2.INTER_AREA)
        return out

    rng = np.random.default_rng(2)
    for k in range(40):
        mask = ((rng.random((int(rng.integers(5, 60)), int(rng.integers(5, 60)))) < 0.05) * 255).astype(np.uint8)
        mask[int(rng.integers(0, mask.shape[0])), int(rng.integers(0, mask.shape[1]))] = 255
        for m in (mask, np.rot90(mask, k % 4), mask > 0, mask.astype(np.float32)):
            assert np.array_equal(net_input(m), plain(m))
