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


def test_t8_the_last_opponent_leaves_and_the_pot_is_awarded_with_the_leavers_bet_in_it() -> None:
    h = three()
    h.fold(1)
    h.raise_to(2, 40)  # seat 3 to act
    h.fold_leaving(2)  # the raiser leaves: seat 3 wins; the 40 stays in the pot (T-8, P-1)
    assert h.is_complete
    res = h.result()
    assert res.returned == {} and [(a.winners, a.amount) for a in res.awards] == [((3,), 50)]
    assert res.stacks == {1: 1000, 2: 960, 3: 1040}
    assert _replayed(h).result().stacks == res.stacks


def test_t8_a_heads_up_bettor_who_leaves_forfeits_the_bet() -> None:
    """breaker15 F1: bet 500 on the flop, stand up: the 500 is not returned as uncalled."""
    h = Hand(NL, [PlayerSetup(1, 1000, live_post=5), PlayerSetup(2, 1000, live_post=10)],
             button=1, sb_seat=1, bb_seat=2)
    h.deal_hole(1, "AsAh"); h.deal_hole(2, "KsKh")
    h.call(1); h.check(2)
    h.deal_board("2c3d4h", burn="9s")
    h.raise_to(2, 500)
    h.fold_leaving(2)
    res = h.result()
    assert res.returned == {} and res.stacks == {1: 1510, 2: 490}
    assert [(a.winners, a.amount) for a in res.awards] == [((1,), 520)]


def test_t8_several_stay_the_betting_goes_on_at_the_live_players_level() -> None:
    """A leaver's raise nobody live made need not be called: the level drops to the highest
    live bet; the leaver's chips above it are dead money in the pot (T-8, P-1)."""
    h = Hand(NL, [PlayerSetup(s, 1000, live_post=p) for s, p in ((1, 0), (2, 5), (3, 10), (4, 0))],
             button=1, sb_seat=2, bb_seat=3)
    for s, c in ((2, "AsAh"), (3, "KsKh"), (4, "QsQh"), (1, "JsJh")):
        h.deal_hole(s, c)
    h.raise_to(4, 30); h.raise_to(1, 100)  # seat 2 to act
    h.fold_leaving(1)
    assert h.current == 30 and h.seat_to_act == 2 and h.legal().call == 25
    h.call(2); h.call(3)  # seat 4's 30 was called: the round closes, nothing goes back
    assert h.street is Street.FLOP and h.returned == {}
    assert h.pots()[0].amount == 3 * 30 + 100 and h.pots()[0].eligible == (2, 3, 4)
    assert sum(h.stack) + sum(h.committed) == 4000
    assert _replayed(h).snapshot() == h.snapshot()


def test_t8_everyone_else_leaves_before_a_player_with_nothing_in_acts() -> None:
    """breaker15 F2: the button, first to act pre-flop with nothing in, is left alone when
    both blinds stand up: it wins the blinds (it crashed with StopIteration in _award)."""
    h = three()
    assert h.seat_to_act == 1
    h.fold_leaving(2)
    h.fold_leaving(3)
    res = h.result()
    assert res.stacks == {1: 1015, 2: 995, 3: 990} and res.returned == {}
    assert [(a.winners, a.amount) for a in res.awards] == [((1,), 15)]
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


@pytest.mark.parametrize("limit, ante", [("fixed-limit", 2), ("no-limit", 0)])
def test_t8_a_leave_closes_the_round_when_the_last_player_with_chips_has_nothing_to_decide(limit, ante) -> None:
    """breaker15 F4: the raiser stands up; the other live player is all-in; the bettor left
    has nothing to decide (its price, S-8): the round closes as after any action, no
    check-only turn, and the PHH written replays to the same stacks."""
    from controller.engine import phh

    s = HandSettings(game="holdem", limit=limit, small_blind=5, big_blind=10, ante=ante)
    h = Hand(s, [PlayerSetup(2, 258, live_post=5), PlayerSetup(5, 2 if ante else 3, live_post=10),
                 PlayerSetup(10, 380)], button=10, sb_seat=2, bb_seat=5)
    for seat, c in ((2, "2s5d"), (5, "4c3d"), (10, "9hKd")):
        h.deal_hole(seat, c)
    h.call(10); h.call(2)
    h.deal_board("3cJh7c", burn="9c")
    h.raise_to(2, 10); h.raise_to(10, 20)
    h.fold_leaving(10)
    assert h.seat_to_act is None and h.pending_deal().kind == "board"
    assert h.exposed[h.index[2]] and h.exposed[h.index[5]]  # S-8: no more betting
    h.deal_board("Kh"); h.deal_board("2d")
    res = h.result()
    assert sum(res.stacks.values()) == 258 + (2 if ante else 3) + 380
    assert res.stacks[10] == 380 - 10 - 20 - ante  # the leaver's raise stays in (T-8)
    back = phh.play(phh.load(phh.dump(h)))
    assert list(back.result().stacks.values()) == list(res.stacks.values())


def test_t8_a_leave_while_the_board_is_due_tables_the_hands_at_once() -> None:
    """breaker15 F3: a leave while the turn card is due that leaves one player with chips
    exposes the live hands at that moment (S-8), when the run-out begins."""
    from controller.engine.table.play import runout

    h = Hand(NL, [PlayerSetup(1, 1000), PlayerSetup(2, 500, live_post=5), PlayerSetup(3, 1000, live_post=10)],
             button=1, sb_seat=2, bb_seat=3)
    for seat, c in ((2, "KsKd"), (3, "7c2d"), (1, "AsAd")):
        h.deal_hole(seat, c)
    h.call(1); h.call(2); h.check(3)
    h.deal_board("Kh9s4c", burn="2s")
    h.all_in(2); h.call(3); h.call(1)
    assert h.pending_deal().kind == "board" and not runout(h)
    h.fold_leaving(1)
    assert runout(h) and h.exposed == [False, True, True]
    assert _replayed(h).exposed == h.exposed
