"""BoardCheck: shuffler board vs camera readings over time (issue 6), with an injected clock."""

from __future__ import annotations

import pytest

from controller.engine.cards import parse_card, parse_cards
from vision.boardcheck import BoardCheck
from vision.events import BoardMatch, BoardMismatch, BoardRead, BoardUnreadable, CardSeen


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def read(text: str, unsure: int = 0, at: float = 0.0) -> BoardRead:
    box = ((0.0, 0.0), (1.0, 0.0), (1.0, 1.4), (0.0, 1.4))
    cards = [CardSeen(c, 0.9, box) for c in parse_cards(text)] if text else []
    cards += [CardSeen(None, 0.2, box)] * unsure
    return BoardRead(at, tuple(cards))


def test_flop_read_matches_in_any_order():
    clock = Clock()
    bc = BoardCheck(clock, timeout=5)
    bc.dealt("Jh 8c 3d")
    ev = bc.seen(read("3d Jh 8c"))
    assert ev == [BoardMatch(clock.t, parse_cards("Jh 8c 3d"))]
    assert bc.state == "matched"


def test_mismatch_names_both_cards_after_confirmation():
    clock = Clock()
    bc = BoardCheck(clock, timeout=5, confirm=2)
    bc.dealt("Jh 8c 3d")
    assert bc.seen(read("Jh 8c 3s")) == []  # one frame is not enough
    clock.t += 0.2
    ev = bc.seen(read("Jh 8c 3s"))
    assert len(ev) == 1 and isinstance(ev[0], BoardMismatch)
    assert ev[0].dealt == parse_cards("Jh 8c 3d")
    assert parse_card("3s") in ev[0].seen
    assert "3d" in ev[0].message and "3s" in ev[0].message and "board-mismatch" in ev[0].message
    assert bc.state == "mismatch"


def test_unsure_cards_never_mismatch_but_time_out_asking_the_dealer():
    clock = Clock()
    bc = BoardCheck(clock, timeout=4)
    bc.dealt(["Jh", "8c", "3d"])
    for _ in range(10):
        clock.t += 0.3
        assert bc.seen(read("Jh 8c", unsure=1)) == []
    clock.t += 1.5  # 4.5 s after the deal
    ev = bc.poll()
    assert len(ev) == 1 and isinstance(ev[0], BoardUnreadable)
    assert ev[0].missing == (parse_card("3d"),)
    assert ev[0].waited == pytest.approx(4.5)
    assert "3d" in ev[0].message and "dealer" in ev[0].message
    assert bc.poll() == []  # said once


def test_turn_restarts_the_wait_and_checks_the_new_card():
    clock = Clock()
    bc = BoardCheck(clock, timeout=3, confirm=1)
    bc.dealt("Jh 8c 3d")
    assert isinstance(bc.seen(read("Jh 8c 3d"))[0], BoardMatch)
    clock.t += 10
    bc.dealt("Jh 8c 3d 5s")
    assert bc.poll() == []
    ev = bc.seen(read("Jh 8c 3d 5c"))
    assert isinstance(ev[0], BoardMismatch) and "5s" in ev[0].message and "5c" in ev[0].message


def test_a_flicker_of_a_wrong_card_is_not_a_mismatch():
    clock = Clock()
    bc = BoardCheck(clock, timeout=5, confirm=2)
    bc.dealt("Jh 8c 3d")
    assert bc.seen(read("Jh 8c 3s")) == []
    assert bc.seen(read("Jh 8c")) == []
    assert bc.seen(read("Jh 8c 3s")) == []
    assert isinstance(bc.seen(read("Jh 8c 3d"))[0], BoardMatch)


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError):
        BoardCheck(Clock(), timeout=0)
    bc = BoardCheck(Clock())
    with pytest.raises(ValueError, match="G-5"):
        bc.dealt("Jh Jh")


def test_after_asking_the_dealer_a_good_read_matches_again():
    clock = Clock()
    bc = BoardCheck(clock, timeout=2)
    bc.dealt("Jh 8c 3d")
    clock.t += 2.5
    assert isinstance(bc.poll()[0], BoardUnreadable)
    assert bc.state == "unreadable"
    ev = bc.seen(read("Jh 8c 3d"))  # the dealer straightened the card
    assert ev == [BoardMatch(clock.t, parse_cards("Jh 8c 3d"))] and bc.state == "matched"


def test_a_new_hand_resets_the_check():
    clock = Clock()
    bc = BoardCheck(clock, timeout=2, confirm=1)
    bc.dealt("Jh 8c 3d")
    assert isinstance(bc.seen(read("Jh 8c 3s"))[0], BoardMismatch)
    bc.reset()
    assert bc.state == "idle" and bc.seen(read("Jh 8c 3s")) == [] and bc.poll() == []
