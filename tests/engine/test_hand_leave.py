"""T-8 in the hand engine: ``Hand.fold_leaving`` folds a leaving player's hand in turn or not."""

from __future__ import annotations

import json

import pytest

from controller.engine.cards import parse_cards
from controller.engine.errors import IllegalAction
from controller.engine.hand import Hand
from controller.engine.settings import HandSettings, PlayerSetup, Street

NL = HandSettings(small_blind=5, big_blind=10)


def three(stacks=(1000, 1000, 1000), deal: bool = True) -> Hand:
    """Seats 1 (button), 2 (SB), 3 (BB)."""
    h = Hand(NL, [PlayerSetup(1, stacks[0]), PlayerSetup(2, stacks[1], live_post=5),
                  PlayerSetup(3, stacks[2], live_post=10)], button=1, sb_seat=2, bb_seat=3)
    if deal:
        deck = iter(parse_cards("As Ad Ks Kd 7c 2d"))
        for s in (1, 2, 3):
            h.deal_hole(s, [next(deck), next(deck)])
    return h


def _replayed(h: Hand) -> Hand:
    return Hand.from_snapshot(json.loads(json.dumps(h.snapshot())))


def test_t8_out_of_turn_fold_keeps_the_turn_and_the_chips_in_the_pot() -> None:
    h = three()
    h.raise_to(1, 40)
    assert h.seat_to_act == 2
    h.fold_leaving(3)  # the big blind, not yet to act
    assert h.folded[2] and h.seat_to_act == 2 and h.committed[2] == 10
    assert h.events[-1] == {"t": "leave", "seat": 3}
    h.call(2)
    assert h.street is Street.FLOP and h.pots()[0].amount == 90 and h.pots()[0].eligible == (1, 2)
    again = _replayed(h)
    assert again.snapshot() == h.snapshot()


def test_t8_the_last_opponent_leaves_and_the_pot_is_awarded_with_the_uncalled_bet_back() -> None:
    h = three()
    h.fold(1)
    h.raise_to(2, 40)  # seat 3 to act
    h.fold_leaving(2)  # the raiser leaves: seat 3 wins; the 30 nobody called goes back (S-9)
    assert h.is_complete
    res = h.result()
    assert res.returned == {2: 30} and [(a.winners, a.amount) for a in res.awards] == [((3,), 20)]
    assert res.stacks == {1: 1000, 2: 990, 3: 1010}
    assert _replayed(h).result().stacks == res.stacks


def test_t8_the_player_to_act_may_leave_when_checking_is_free() -> None:
    h = three()
    h.call(1)
    h.call(2)
    assert h.seat_to_act == 3 and h.legal().check
    h.fold_leaving(3)
    assert h.folded[2] and h.street is Street.FLOP  # the round closed: 1 and 2 see the flop


@pytest.mark.parametrize("when", ["all-in", "run-out", "dealing", "showdown"])
def test_t8_refused_when_the_hand_has_no_decision_left_or_cards_are_dealt(when) -> None:
    h = three(stacks=(100, 1000, 1000), deal=when != "dealing")
    if when == "all-in":
        h.all_in(1)
        with pytest.raises(IllegalAction, match="^S-8: seat 1 is all-in"):
            h.fold_leaving(1)
    elif when == "run-out":
        h.all_in(1)
        h.fold(2)
        h.call(3)
        assert h.pending_deal().kind == "board" and h.n_able < 2
        with pytest.raises(IllegalAction, match="^S-8: seat 3 has no decision left"):
            h.fold_leaving(3)
    elif when == "dealing":
        with pytest.raises(IllegalAction, match="^T-8: .*once the cards being dealt are out"):
            h.fold_leaving(2)
    else:
        h.call(1)
        h.call(2)
        h.check(3)
        h.deal_board("Qh Jc 4s")
        for _ in range(3):
            h.check(2)
            h.check(3)
            h.check(1)
            if h.pending_deal():
                h.deal_board("5h" if len(h.board) == 3 else "6c")
        assert h.street is Street.SHOWDOWN and h.seat_to_act == 2
        with pytest.raises(IllegalAction, match="^T-8"):
            h.fold_leaving(2)  # at the showdown the table shows or mucks it at its turn (P-2, T-8)
    assert not h.can_fold_leaving(1)
