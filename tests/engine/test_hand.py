"""Unit tests of one hand (controller/engine/hand.py): posts, turns, betting rules,
draw, showdown, rake, void, snapshot and replay. Rule ids in test names."""

from __future__ import annotations

import json

import pytest

from controller.engine.cards import parse_cards
from controller.engine.errors import HandSetupError, IllegalAction, IllegalDeal
from controller.engine.hand import Hand
from controller.engine.settings import HandSettings, PlayerSetup, RakeSettings, Street

NL = HandSettings(small_blind=5, big_blind=10)


def deal_all(h: Hand, cards: dict[int, str]) -> None:
    for seat, c in cards.items():
        h.deal_hole(seat, c)


def three(settings: HandSettings = NL, stacks=(1000, 1000, 1000)) -> Hand:
    """Seats 1 (button), 2 (SB), 3 (BB)."""
    h = Hand(settings, [PlayerSetup(1, stacks[0]), PlayerSetup(2, stacks[1], live_post=settings.small_blind),
                        PlayerSetup(3, stacks[2], live_post=settings.big_blind)],
             button=1, sb_seat=2, bb_seat=3)
    n = settings.game.hole_cards
    deck = iter(parse_cards("As Ks Qs Js Ts 9s 8s 7s 6s 5s 4s 3s 2s Ah Kh Qh"))
    for s in (1, 2, 3):
        h.deal_hole(s, [next(deck) for _ in range(n)])
    return h


def test_s2_preflop_order_and_big_blind_option() -> None:
    h = three()
    assert h.seat_to_act == 1
    h.call(1)
    h.call(2)
    lg = h.legal()
    assert lg.seat == 3 and lg.check and not lg.fold and lg.raise_ == (20, 1000)
    h.check(3)
    assert h.street is Street.FLOP and h.pending_deal().kind == "board"


def test_pending_deal_hole_order_from_left_of_button() -> None:
    h = Hand(NL, [PlayerSetup(1, 100), PlayerSetup(2, 100, live_post=5), PlayerSetup(3, 100, live_post=10)],
             button=1, sb_seat=2, bb_seat=3)
    need = h.pending_deal()
    assert (need.kind, need.seat, need.count) == ("hole", 2, 2)
    h.deal_hole(2, "As")
    assert h.pending_deal().seat == 3
    with pytest.raises(IllegalAction, match="^A-1"):
        h.legal()


def test_g5_card_twice_refused_state_unchanged() -> None:
    h = Hand(NL, [PlayerSetup(1, 100), PlayerSetup(2, 100, live_post=5), PlayerSetup(3, 100, live_post=10)],
             button=1, sb_seat=2, bb_seat=3)
    h.deal_hole(2, "As Kd")
    snap = h.snapshot()
    with pytest.raises(IllegalDeal, match="^G-5"):
        h.deal_hole(3, "Qh As")
    with pytest.raises(IllegalDeal, match="^G-1"):
        h.deal_hole(3, "Qh Jh Th")
    with pytest.raises(IllegalDeal, match="^G-5"):
        h.deal_hole(3, "Xx Jh")
    assert h.snapshot() == snap


def test_illegal_actions_carry_rule_and_leave_state_unchanged() -> None:
    h = three()
    snap = h.snapshot()
    cases = [
        (lambda: h.raise_to(1, 15), "S-4: minimum raise is to 20, got 15"),
        (lambda: h.raise_to(1, 1001), "S-8"),
        (lambda: h.check(1), "A-1: seat 1 cannot check: 10 to call"),
        (lambda: h.call(2), "A-1: it is seat 1's turn"),
        (lambda: h.draw(1, ()), "A-1"),
        (lambda: h.muck(1), "A-1"),
        (lambda: h.show(1), "P-2"),
        (lambda: h.act(1, "bogus"), "A-1"),
    ]
    for fn, msg in cases:
        with pytest.raises(IllegalAction) as exc:
            fn()
        assert str(exc.value).startswith(msg)
        assert isinstance(exc.value, ValueError) and exc.value.rule == msg.split(":")[0]
    assert h.snapshot() == snap


def test_s3_heads_up_button_small_blind_acts_first_preflop_last_after() -> None:
    h = Hand(NL, [PlayerSetup(1, 500, live_post=10), PlayerSetup(2, 500, live_post=5)],
             button=2, sb_seat=2, bb_seat=1)
    deal_all(h, {1: "As Ad", 2: "Ks Kd"})
    assert h.seat_to_act == 2
    h.call(2)
    h.check(1)
    h.deal_board("2c 7d 9h")
    assert h.seat_to_act == 1


def test_t1_dead_button_and_dead_small_blind() -> None:
    """Button on empty seat 4, no small blind: BB seat 6, first to act seat 1 (left of BB, wrapping);
    post-flop the first live seat left of the dead button acts first."""
    h = Hand(NL, [PlayerSetup(1, 500), PlayerSetup(6, 500, live_post=10), PlayerSetup(8, 500)],
             button=4, sb_seat=None, bb_seat=6)
    assert h.pending_deal().seat == 6
    deal_all(h, {6: "As Ad", 8: "Ks Kd", 1: "Qs Qd"})
    assert h.seat_to_act == 8
    h.call(8)
    h.call(1)
    h.check(6)
    h.deal_board("2c 7d 9h")
    assert h.seat_to_act == 6


def test_t4_t6_out_of_position_big_blind_and_dead_small_blind() -> None:
    """A returning player posts a live big blind (counted as a bet, keeps the option)
    plus a dead small blind (main pot, not a bet)."""
    h = Hand(NL, [PlayerSetup(1, 500), PlayerSetup(2, 500, live_post=5), PlayerSetup(3, 500, live_post=10),
                  PlayerSetup(4, 500, live_post=10, dead_post=5)], button=1, sb_seat=2, bb_seat=3)
    deal_all(h, {2: "As Ad", 3: "Ks Kd", 4: "Qs Qd", 1: "Js Jd"})
    assert h.pots()[0].amount == 5 and h.player(4)["committed"] == 15
    lg = h.legal()
    assert lg.seat == 4 and lg.check and lg.raise_ == (20, 495)
    h.check(4)
    h.call(1)
    h.call(2)
    h.check(3)
    assert h.pots()[0].amount == 45
    assert h.total_chips() == 2000


def test_s4_s7_short_all_ins_that_together_make_a_full_raise_reopen() -> None:
    """S-7: a 100 bet; all-in to 145 (short) then all-in to 215 (short over 145, but 115
    over the bettor's 100, a full raise in total): the bettor may re-raise, to 315 (S-4)."""
    h = Hand(NL, [PlayerSetup(1, 1000), PlayerSetup(2, 1000, live_post=5), PlayerSetup(3, 1000, live_post=10),
                  PlayerSetup(4, 155), PlayerSetup(5, 225)], button=1, sb_seat=2, bb_seat=3)
    deal_all(h, {2: "2c 3c", 3: "2d 3d", 4: "2h 3h", 5: "2s 3s", 1: "4c 4d"})
    for seat in (4, 5, 1, 2):
        h.call(seat)
    h.check(3)
    h.deal_board("Ah Kh Qh")
    h.raise_to(2, 100)
    h.fold(3)
    h.all_in(4)
    lg = h.legal()
    assert lg.seat == 5 and lg.raise_ is None and lg.all_in == 215 and lg.min_raise_to == 245
    h.all_in(5)
    assert h.legal().raise_ == (315, 990)  # seat 1 has not acted
    h.call(1)
    lg = h.legal()
    assert lg.seat == 2 and lg.raise_ == (315, 990)


def test_s7_short_all_ins_below_a_full_raise_do_not_reopen() -> None:
    h = Hand(NL, [PlayerSetup(1, 1000), PlayerSetup(2, 1000, live_post=5), PlayerSetup(3, 1000, live_post=10),
                  PlayerSetup(4, 140), PlayerSetup(5, 190)], button=1, sb_seat=2, bb_seat=3)
    deal_all(h, {2: "2c 3c", 3: "2d 3d", 4: "2h 3h", 5: "2s 3s", 1: "4c 4d"})
    for seat in (4, 5, 1, 2):
        h.call(seat)
    h.check(3)
    h.deal_board("Ah Kh Qh")
    h.raise_to(2, 100)
    h.fold(3)
    h.all_in(4)  # to 130
    h.all_in(5)  # to 180: 80 over the bettor's 100
    h.call(1)
    lg = h.legal()
    assert lg.seat == 2 and lg.raise_ is None and lg.call == 80
    with pytest.raises(IllegalAction, match="^S-7"):
        h.raise_to(2, 400)


def test_s7_incomplete_all_in_does_not_reopen() -> None:
    h = Hand(NL, [PlayerSetup(1, 1000), PlayerSetup(2, 1000, live_post=5), PlayerSetup(3, 130, live_post=10)],
             button=1, sb_seat=2, bb_seat=3)
    deal_all(h, {2: "2c 3c", 3: "2d 3d", 1: "4c 4d"})
    h.raise_to(1, 100)
    h.call(2)
    h.all_in(3)  # to 130: +30 < 90
    lg = h.legal()
    assert lg.seat == 1 and lg.raise_ is None and lg.all_in is None and lg.call == 30
    with pytest.raises(IllegalAction, match="^S-7"):
        h.raise_to(1, 300)


def test_s5_pot_limit_maximum() -> None:
    s = HandSettings(game="omaha", limit="pot-limit", small_blind=5, big_blind=10)
    h = three(s)
    lg = h.legal()
    assert lg.raise_ == (20, 35) and lg.max_raise_to == 35
    with pytest.raises(IllegalAction, match="^S-5: maximum raise is to 35, got 40"):
        h.raise_to(1, 40)
    h.raise_to(1, 35)
    assert h.legal().raise_ == (60, 115)  # SB: 35 to match, pot 50 + call 30 -> 35 + 80


def test_s6_fixed_limit_sizes_and_streets() -> None:
    s = HandSettings(limit="fixed-limit", small_blind=5, big_blind=10, small_bet=10, big_bet=20)
    h = three(s)
    assert h.legal().raise_ == (20, 20)
    with pytest.raises(IllegalAction, match="^S-6: minimum raise is to 20, got 15"):
        h.raise_to(1, 15)
    with pytest.raises(IllegalAction, match="^S-6: maximum raise is to 20, got 30"):
        h.raise_to(1, 30)
    h.call(1)
    h.call(2)
    h.check(3)
    h.deal_board("2c 7d 9h")
    assert h.legal().bet == (10, 10)
    for seat in (2, 3, 1):
        h.check(seat)
    h.deal_board("Tc")
    assert h.legal().bet == (20, 20)


def test_s9_uncalled_bet_returned_r3_not_raked() -> None:
    s = HandSettings(small_blind=5, big_blind=10, rake=RakeSettings(percent=10, cap=5))
    h = three(s)
    h.call(1)
    h.call(2)
    h.check(3)
    h.deal_board("2c 7d 9h")
    h.raise_to(2, 200)
    h.fold(3)
    h.fold(1)
    r = h.result()
    assert r.returned == {2: 200} and r.rake == 3  # 10% of the 30 pot
    assert r.stacks == {1: 990, 2: 1017, 3: 990}
    assert sum(r.stacks.values()) + r.rake == 3000


def test_r1_rake_cap_by_players_dealt() -> None:
    rk = RakeSettings(percent=10, cap=3, caps=((2, 1), (4, 4)))
    assert rk.cap_for(2) == 1 and rk.cap_for(3) == 1 and rk.cap_for(5) == 4
    s = HandSettings(small_blind=5, big_blind=10, rake=rk)
    h = three(s)
    h.call(1)
    h.call(2)
    h.check(3)
    for board in ("2c 7d 9h", "Tc", "Jc"):
        h.deal_board(board)
        for seat in (2, 3, 1):
            h.check(seat)
    while not h.is_complete:
        h.show(h.seat_to_act)
    r = h.result()
    assert r.rake == 1  # 10% of 30 = 3, capped at 1 for three players dealt


def test_r2_no_flop_no_drop() -> None:
    s = HandSettings(small_blind=5, big_blind=10, rake=RakeSettings(percent=10, cap=3))
    h = three(s)
    h.raise_to(1, 50)
    h.call(2)
    h.fold(3)
    assert h.street is Street.FLOP and h.pending_deal().count == 3
    h2 = three(s)
    h2.raise_to(1, 50)
    h2.call(2)
    h2.call(3)
    h2.deal_board("2c 7d 9h")
    h2.raise_to(2, 100)
    h2.fold(3)
    h2.fold(1)
    assert h2.result().rake == 3 and h2.result().awards[0].amount == 150
    h3 = three(s)
    h3.raise_to(1, 500)
    h3.call(2)
    h3.fold(3)
    assert not h3.is_complete
    h4 = three(s, stacks=(1000, 200, 1000))
    h4.raise_to(1, 50)
    h4.fold(2)
    h4.fold(3)
    r = h4.result()
    assert r.rake == 0 and r.stacks[1] == 1015


def test_p2_muck_and_showdown_order() -> None:
    h = three()
    h.call(1)
    h.call(2)
    h.check(3)
    for board in ("2c 7d 9h", "Tc", "Jd"):
        h.deal_board(board)
        for seat in (2, 3, 1):
            h.check(seat)
    assert h.seat_to_act == 2 and h.legal().show and h.legal().muck
    h.show(2)
    h.muck(3)
    assert h.seat_to_act == 1
    h.show(1)
    r = h.result()
    assert r.showdown_order == (2, 3, 1) and r.mucked == (3,)
    assert 3 not in r.shown and r.hole[3] is not None
    assert r.awards[0].hand  # H-6 words


def test_p2_last_player_standing_need_not_show() -> None:
    h = three()
    h.call(1)
    h.call(2)
    h.check(3)
    for board in ("2c 7d 9h", "Tc", "Jd"):
        h.deal_board(board)
        for seat in (2, 3, 1):
            h.check(seat)
    h.muck(2)
    h.muck(3)
    r = h.result()
    assert r.awards[0].winners == (1,) and 1 not in r.shown


def test_s8_all_in_exposes_and_runs_out_board() -> None:
    h = three(stacks=(1000, 100, 1000))
    h.raise_to(1, 100)
    h.all_in(2)
    h.fold(3)
    assert h.pending_deal().kind == "board"
    assert h.player(1)["shown"] is not None and h.player(2)["shown"] is not None
    for board in ("2c 7d 9h", "Tc", "Jd"):
        h.deal_board(board)
    assert h.is_complete


def test_s8_s9_last_player_with_chips_matches_only_the_all_in_bets() -> None:
    """Heads-up 5/10: the big blind has 3 and is all-in for 3 of the blind. The small blind's
    5 already covers it and nobody can call more: nobody acts, the board runs out and the
    uncalled 2 go back (S-8, S-9). The engine asked the small blind to call 10 or fold, and a
    fold gave the big blind the pot. With a big blind all-in for 7, the call is 2, not 5."""
    def hu(bb_stack: int) -> Hand:
        h = Hand(NL, [PlayerSetup(1, bb_stack, live_post=10), PlayerSetup(2, 100, live_post=5)],
                 button=2, sb_seat=2, bb_seat=1)
        h.deal_hole(1, "As Ah")
        h.deal_hole(2, "7c 2d")
        return h

    h = hu(3)
    assert h.seat_to_act is None and h.pending_deal().kind == "board"
    for board in ("Kd Qh 9s", "5c", "4h"):
        h.deal_board(board)
    assert h.result().returned == {2: 2} and h.result().stacks == {1: 6, 2: 97}
    h = hu(7)
    lg = h.legal()
    assert lg.seat == 2 and lg.call == 2 and lg.call_to == 7 and lg.fold and lg.raise_ is None
    with pytest.raises(IllegalAction, match="^A-1"):
        h.check(2)
    h.call(2)
    assert h.stack == [0, 93] and h.pending_deal().kind == "board"


def test_s1_short_big_blind_full_price_while_an_opponent_with_chips_could_call() -> None:
    """S-1/S-4: three-handed, the big blind all-in for 6 of 10: the button (first to act) and
    the small blind still face the full big blind of 10 (RULES appendix)."""
    h = Hand(NL, [PlayerSetup(1, 100, live_post=5), PlayerSetup(2, 6, live_post=10), PlayerSetup(3, 100)],
             button=3, sb_seat=1, bb_seat=2)
    deal_all(h, {1: "As Ks", 2: "Qd Qc", 3: "7h 2c"})
    assert h.legal().call == 10
    h.fold(3)
    assert h.legal().seat == 1 and h.legal().call == 1  # now the last with chips: 6 - 5


def test_void_returns_every_chip() -> None:
    h = three()
    h.raise_to(1, 100)
    h.call(2)
    h.void("misdeal: exposed card")
    r = h.result()
    assert r.voided and r.stacks == {1: 1000, 2: 1000, 3: 1000} and r.rake == 0
    with pytest.raises(IllegalAction):
        h.void()


def test_snapshot_is_json_and_replays_exactly() -> None:
    h = three()
    h.raise_to(1, 30)
    h.call(2)
    h.call(3)
    h.deal_board("2c 7d 9h", burn="3d")
    h.raise_to(2, 40)
    snap = json.loads(json.dumps(h.snapshot()))
    h2 = Hand.from_snapshot(snap)
    assert h2.snapshot() == h.snapshot()
    h.call(3)
    h2.call(3)
    assert h2.snapshot() == h.snapshot()


def test_copy_is_independent() -> None:
    h = three()
    c = h.copy()
    h.raise_to(1, 30)
    assert c.seat_to_act == 1 and c.bet == [0, 5, 10]
    c.call(1)
    assert h.snapshot() != c.snapshot()


def test_g3_draw_round_and_visible_counts() -> None:
    s = HandSettings(game="draw", limit="fixed-limit", small_blind=5, big_blind=10, small_bet=10, big_bet=20)
    h = Hand(s, [PlayerSetup(1, 500), PlayerSetup(2, 500, live_post=5), PlayerSetup(3, 500, live_post=10)],
             button=1, sb_seat=2, bb_seat=3)
    deal_all(h, {2: "2c 3c 4c 5c 7d", 3: "Ah Ad Ks Qs Js", 1: "9h 9d 9s 2d 3d"})
    assert h.street is Street.PREDRAW
    h.call(1)
    h.call(2)
    h.check(3)
    assert h.street is Street.DRAW and h.legal().draw == 5 and h.seat_to_act == 2
    with pytest.raises(IllegalAction, match="^G-3"):
        h.draw(2, "Ah")
    h.draw(2, "7d")
    need = h.pending_deal()
    assert (need.kind, need.seat, need.count, need.burn) == ("draw", 2, 1, True)
    with pytest.raises(IllegalDeal, match="^G-4"):
        h.deal_draw(2, "7d")
    h.deal_draw(2, "6c", burn="8c")
    h.draw(3, "Ks Qs Js")
    h.deal_draw(3, "Ac Kc Qc")
    h.draw(1, ())  # stand pat
    assert h.street is Street.POSTDRAW and h.seat_to_act == 2
    assert [h.player(s)["drew"] for s in (1, 2, 3)] == [0, 1, 3]
    assert h.legal().bet == (20, 20)
    for seat in (2, 3, 1):
        h.check(seat)
    for seat in (2, 3, 1):
        if h.is_complete:
            break
        h.show(h.seat_to_act)
    r = h.result()
    assert r.awards[0].winners == (2,)  # straight flush 2-6 of clubs


def test_setup_errors() -> None:
    with pytest.raises(HandSetupError, match="^G-1"):
        Hand(NL, [PlayerSetup(1, 100)], button=1, sb_seat=None, bb_seat=1)
    with pytest.raises(HandSetupError, match="^G-3"):
        Hand(HandSettings(game="draw"), [PlayerSetup(s, 100) for s in range(1, 7)], button=1,
             sb_seat=2, bb_seat=3)
    with pytest.raises(HandSetupError, match="^S-1"):
        Hand(NL, [PlayerSetup(1, 100), PlayerSetup(2, 100)], button=1, sb_seat=2, bb_seat=5)


def test_a2_fold_when_check_is_free_only_when_insisted_and_replays() -> None:
    h = three()
    h.call(1)
    h.call(2)
    with pytest.raises(IllegalAction, match="^A-1"):
        h.fold(3)
    h.fold(3, when_check_is_free=True)
    assert h.folded[2] and h.events[-1] == {"t": "fold", "seat": 3, "check_was_free": True}
    again = Hand.from_snapshot(h.snapshot())
    assert again.snapshot() == h.snapshot()


def test_p2_uncalled_winner_may_show_afterwards() -> None:
    h = three()
    h.raise_to(1, 30)
    h.fold(2)
    h.fold(3)
    assert h.result().shown == {}
    h.show(1)
    assert h.result().shown == {1: ("As", "Ks")} and h.result().stacks[1] == 1015
    with pytest.raises(IllegalAction, match="^P-2"):
        h.show(2)
    assert Hand.from_snapshot(h.snapshot()).snapshot() == h.snapshot()


def test_s5_house_option_small_blind_counts_as_big() -> None:
    """R07 note (Robert's Rules PL rule 5): with the option the maximum open at 5/10 is 40."""
    s = HandSettings(game="omaha", limit="pot-limit", small_blind=5, big_blind=10, pl_small_blind_as_big=True)
    h = three(s)
    assert h.legal().raise_ == (20, 40)
    h.raise_to(1, 40)
    h.fold(2)
    h.fold(3)
    assert h.result().stacks == {1: 1015, 2: 995, 3: 990}


def test_s4_raise_over_a_short_all_in_opening_bet_is_at_least_a_big_blind() -> None:
    """S-4: an opening all-in of 5 at 5/10 is not a full bet; a raise over it is at least one
    big blind (to 15, as TDA and PokerKit); 10 is refused."""
    h = three(stacks=(1000, 1000, 15))
    h.call(1)
    h.call(2)
    h.check(3)
    h.deal_board("2c 7d 9h")
    h.check(2)
    h.all_in(3)
    lg = h.legal()
    assert lg.seat == 1 and lg.call == 5 and lg.raise_ == (15, 990)
    with pytest.raises(IllegalAction, match="^S-4: minimum raise is to 15, got 10"):
        h.raise_to(1, 10)
    h.raise_to(1, 15)
    assert h.legal().raise_ == (25, 990)  # seat 2 checked, faces a full raise: reopened


def test_s10_chips_are_whole_numbers() -> None:
    with pytest.raises(HandSetupError, match="^S-10"):
        Hand(NL, [PlayerSetup(1, 100.5), PlayerSetup(2, 100, live_post=10)], button=1, sb_seat=None, bb_seat=2)
    with pytest.raises(HandSetupError, match="^S-1"):
        Hand(NL, [PlayerSetup(1, -5), PlayerSetup(2, 100, live_post=10)], button=1, sb_seat=None, bb_seat=2)


def test_legal_to_json_has_the_state_md_fields() -> None:
    h = three()
    d = h.legal().to_json()
    assert {"fold", "check", "call", "bet", "raise", "all_in", "draw"} <= set(d)
    assert d["raise"] == {"min": 20, "max": 1000} and d["bet"] is None and d["call"] == 10
    assert h.legal().names() == ["fold", "call", "raise", "all_in"]
