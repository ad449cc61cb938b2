"""The recognizer on the real dev photos (../shared/data/vision/dev), issue 6.

Wrong readings are the critical number: at most 0.5% of the cards may be named wrongly.
The correct-rate floor is the honest level this recognizer reaches today (the issue's goal
is 97%); raise it as the recognizer improves. Skipped when ../shared is absent.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from tests.conftest import shared_path
from vision.enroll import Enrollment, enroll_image
from vision.recognizer import Recognizer

_spec = importlib.util.spec_from_file_location(
    "livetable_vision_evaluate", Path(__file__).resolve().parents[2] / "tools" / "vision" / "evaluate.py")
assert _spec is not None and _spec.loader is not None
_evaluate_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_evaluate_mod)
evaluate = _evaluate_mod.evaluate

#: honest floor reached on the dev set (fraction of cards named correctly): 332/337
CORRECT_FLOOR = 0.97
WRONG_CEILING = 0.005
#: the scenes of whole, separate cards (no card covers another): 301/303
WHOLE_CARD_SCENES = ("board", "board-oblique", "grid", "grid-distance", "single", "single-closeup", "spread")
WHOLE_CARD_FLOOR = 0.985
#: cards named correctly per overlapping scene (read from their corner index, vision/corners.py)
#: (16 of 16, 13 of 13 and 4 of 4 reached)
SCENE_FLOORS = {"fan-overlap": 14, "overlap-rows": 12, "overlap": 3}


@pytest.fixture(scope="module")
def dev() -> Path:
    return shared_path("data", "vision", "dev")


@pytest.fixture(scope="module")
def plain(dev: Path) -> dict:
    """The recognizer (corners on) over the unchanged dev photos, per scene: evaluated once
    for the module (a pass over the photos takes 10-15 s on 2 cores); read, never changed."""
    return evaluate(dev, Recognizer(corners=True))


def test_dev_set_wrong_rate_and_correct_floor(plain):
    res = plain
    for scene in sorted(res):
        s = res[scene]
        print(f"{scene:15s} cards={s['cards']:4d} correct={s['correct']:4d} wrong={s['wrong']:3d} "
              f"missed={s['missed']:4d}")
    total = res["all"]
    assert total["cards"] == 337
    assert total["wrong"] / total["cards"] <= WRONG_CEILING, res
    assert total["correct"] / total["cards"] >= CORRECT_FLOOR, res
    # the board scenes a table reader is judged on first
    board = [res[k] for k in ("board", "grid", "spread") if k in res]
    assert sum(s["wrong"] for s in board) == 0
    whole = [res[k] for k in WHOLE_CARD_SCENES if k in res]
    assert sum(s["wrong"] for s in whole) == 0
    assert sum(s["correct"] for s in whole) >= WHOLE_CARD_FLOOR * sum(s["cards"] for s in whole), res
    for scene, floor in SCENE_FLOORS.items():
        assert res[scene]["correct"] >= floor, (scene, res[scene])


def test_enrolment_on_one_deck_reads_its_other_photos_without_a_wrong_card(dev, tmp_path):
    import csv

    import cv2

    labels = {r["file"]: r["cards"] for r in csv.DictReader(open(dev / "labels.csv"))}
    deck = sorted(f for f in labels if f.startswith("pstephenwille__"))
    enrol, held_out = deck[::2], deck[1::2]
    enr = Enrollment.empty()
    for f in enrol:
        enroll_image(enr, cv2.imread(str(dev / f)), labels[f])
    path = tmp_path / "house-deck.npz"
    enr.save(path)
    assert path.stat().st_size > 0 and enr.count >= len(enrol)
    plain = evaluate(dev, Recognizer(corners=True), files=held_out)["all"]
    house = evaluate(dev, Recognizer(enrollment=Enrollment.load(path), corners=True), files=held_out)["all"]
    print("held-out photos of the deck: plain", plain, "enrolled", house)
    assert house["wrong"] == 0
    assert house["correct"] >= plain["correct"]
    assert house["correct"] >= 0.8 * house["cards"]
    assert not any(os.path.basename(str(p)).endswith(".npz") for p in Path(__file__).parent.iterdir())


def test_enrolment_refuses_dev_photos_given_the_next_rank_and_keeps_the_right_ones(dev):
    """One mislabelled photo must not teach a deck wrong (a blurred Js saved as Qs.png made every
    jack read as a queen): given the next rank of the same suit, no single-card dev photo, as
    shot or blurred so that the recognizer is unsure of it, adds a glyph; given its own card,
    none is refused for what the glyph bank reads (vision/enroll.py's RANK_CONTRADICTION)."""
    import csv

    import cv2

    from vision.enroll import EnrollError

    ranks = "A23456789TJQK"
    labels = {r["file"]: r["cards"].split() for r in csv.DictReader(open(dev / "labels.csv"))}
    rec = Recognizer()
    taught, refused_right, tried = [], [], 0
    for f, cards in sorted(labels.items()):
        if len(cards) != 1:
            continue
        card = cards[0]
        wrong = ranks[(ranks.index(card[0]) + 1) % 13] + card[1]
        photo = cv2.imread(str(dev / f))
        for name, image in (("as shot", photo), ("blurred", cv2.GaussianBlur(photo, (0, 0), 2.5))):
            tried += 1
            try:
                if enroll_image(Enrollment.empty(), image, wrong, recognizer=rec):
                    taught.append(f"{f} {name}: {card} given as {wrong}")
            except EnrollError:
                pass
            try:
                enroll_image(Enrollment.empty(), image, card, recognizer=rec)
            except EnrollError as e:
                if "glyph bank" in str(e):
                    refused_right.append(f"{f} {name}: {e}")
    assert tried >= 100
    assert taught == []
    assert refused_right == []


def test_dev_photos_stretched_to_a_camera_frame_never_crash_or_mislead(dev):
    """A camera frame is 1280x720 whatever the photo's shape: stretching skews the cards.

    (A pip count above 10 once raised here; every third photo keeps the test short.)
    """
    import csv
    from collections import Counter

    import cv2

    labels = {r["file"]: r["cards"].split() for r in csv.DictReader(open(dev / "labels.csv"))}
    rec = Recognizer(corners=True)
    named = wrong = 0
    for f in sorted(labels)[::3]:
        frame = cv2.resize(cv2.imread(str(dev / f)), (1280, 720), interpolation=cv2.INTER_AREA)
        left = Counter(labels[f])
        for r in rec.recognize(frame):
            assert len(r.outline) == 4 and 0.0 <= r.confidence <= 1.0
            if r.card is None:
                continue
            named += 1
            if left[str(r.card)] > 0:
                left[str(r.card)] -= 1
            else:
                wrong += 1
    assert wrong == 0
    assert named >= 30


@pytest.mark.parametrize("change", ["rot90", "tilt", "cold", "pale", "jpeg", "stretch720", "motion"])
def test_dev_photos_changed_as_another_camera_would_give_no_wrong_card(dev, change):
    """A kept-back set brings other cameras: turned, tilted, colour-cast, washed-out,
    compressed, squashed or motion-blurred frames (tools/vision/evaluate.py --perturb) may
    lose cards but must never name one wrongly."""
    res = evaluate(dev, Recognizer(corners=True), perturb=change)["all"]
    print(change, res)
    assert res["cards"] == 337
    assert res["wrong"] == 0, res
    assert res["correct"] >= 0.5 * res["cards"], res  # the change did not blind the reader


@pytest.mark.parametrize("change", ["uneven", "rot20"])
def test_uneven_light_and_turned_cards_cost_few_cards(dev, plain, change):
    """Issue 6 names uneven light and slightly turned cards: lit from 45% to full across the
    frame, or turned 20 degrees, the dev photos keep at least 90% of the cards named as they
    are (the detector's whiteness over the local white reference, vision/detect.py)."""
    changed = evaluate(dev, Recognizer(corners=True), perturb=change)["all"]
    print(change, changed, "plain", plain["all"])
    assert changed["wrong"] == 0, changed
    assert changed["correct"] >= 0.9 * plain["all"]["correct"], (changed, plain["all"])


@pytest.mark.parametrize("scale", [0.25, 0.3, 0.35, 0.4, 0.5])
def test_a_far_court_card_is_never_given_the_wrong_suit(dev, scale):
    """The Js of pstephenwille shrunk until its index pips are a few pixels: a court card's
    suit rests on those pips alone, and a pip of a few pixels cannot tell a club from a
    spade (it read Jc at 0.3). Unsure is fine; any named card must be the Js."""
    import cv2

    img = cv2.imread(str(dev / "pstephenwille__cards-SJ-001.jpg"))
    small = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    named = [str(r.card) for r in Recognizer(corners=True).recognize(small) if r.card is not None]
    assert set(named) <= {"Js"}, named
