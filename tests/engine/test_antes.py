"""Antes layered into the pots (P-1, S-8, S-9) and what stays dead money (T-6, big-blind antes).

Every hand here has exact pots and stacks worked out by hand in the test's docstring. The
antes are part of each poster's contribution: a player all-in inside the ante wins from each
opponent only as much as they put in, and the part of an ante no opponent covers goes back
uncalled. A dead small blind (T-6) and a big-blind ante (``dead_antes``, PHH
``ante_trimming_status = false``) are dead money for the main pot.
"""

from __future__ import annotations

import pytest

from controller.engine import phh
from controller.engine.errors import IllegalAction
from controller.engine.hand import Hand
from controller.engine.settings import HandSettings, PlayerSetup, RakeSettings


def run_out(h: Hand, board: str) -> None:
    """Deal the rest of ``board`` (5 cards) and let every player left check, showing at the end."""
    cards = board.split()
    while not h.is_complete:
        need = h.pending_deal()
        if need is not None:
            k = len(h.board)
            h.deal_board(cards[k:k + need.count])
            continue
        lg = h.legal()
        if lg.show:
            h.show(lg.seat)
        else:
            h.check(lg.seat)


def pots(h: Hand) -> list[tuple[int, tuple[int, ...]]]:
    return [(p.amount, p.eligible) for p in h.pots()]


def awards(h: Hand) -> list[tuple[int, tuple[int, ...], dict[int, int]]]:
    return [(a.amount, a.eligible, a.shares) for a in h.result().awards]


def stacks(h: Hand) -> list[int]:
    return [h.result().stacks[s] for s in h.seats]


def chips(h: Hand) -> int:
    return h.total_chips()


# ------------------------------------------------------------------ the two hands


def three_handed_ante_all_in() -> Hand:
    """Blinds 1/2, ante 1, stacks 100/100/1; seat 3 is the button, all-in on the ante."""
    h = Hand(HandSettings(small_blind=1, big_blind=2, ante=1),
             [PlayerSetup(1, 100, live_post=1), PlayerSetup(2, 100, live_post=2), PlayerSetup(3, 1)],
             button=3, sb_seat=1, bb_seat=2)
    for seat, cards in ((1, "7c 2d"), (2, "Kc 3s"), (3, "As Ah")):
        h.deal_hole(seat, cards)
    return h


def test_p1_s8_player_all_in_on_the_ante_wins_the_main_pot_of_antes() -> None:
    """Seat 1 calls, seat 2 checks, checked down on Kd Qh 9s 5c 4h: main pot 3 (seats 1, 2,
    3) to seat 3's aces, side pot 4 (seats 1, 2) to seat 2's kings: 97/101/3 (was 97/104/0)."""
    h = three_handed_ante_all_in()
    start = chips(h)
    assert h.allin[h.index[3]] and h.player(3)["committed"] == 1
    assert pots(h) == [(3, (1, 2, 3))]
    h.call(1)
    h.check(2)
    assert pots(h) == [(3, (1, 2, 3)), (4, (1, 2))]
    run_out(h, "Kd Qh 9s 5c 4h")
    assert awards(h) == [(3, (1, 2, 3), {3: 3}), (4, (1, 2), {2: 4})]
    assert stacks(h) == [97, 101, 3]
    assert h.result().returned == {}
    assert chips(h) == start == 201


def test_p1_s8_ante_all_in_when_the_small_blind_folds() -> None:
    """Seat 1 folds instead: the big blind's 1 over the small blind is uncalled (S-9); main pot
    3 (seats 2, 3: one ante each and seat 1's ante) to seat 3, the pot of seat 1's second chip
    and seat 2's second chip to seat 2: 98/100/3 (was 98/103/0)."""
    h = three_handed_ante_all_in()
    h.fold(1)
    run_out(h, "Kd Qh 9s 5c 4h")
    assert h.result().returned == {2: 1}
    assert awards(h) == [(3, (2, 3), {3: 3}), (2, (2,), {2: 2})]
    assert stacks(h) == [98, 100, 3]


def test_p1_s9_heads_up_ante_nobody_covers_goes_back_uncalled() -> None:
    """Heads-up 5/10 ante 10: the big blind has 1,000, the button 4 and As Ah. The button's 4
    cover 4 of seat 1's ante; the other 6 and the big blind go back uncalled: 996/8 (was 990/14)."""
    h = Hand(HandSettings(small_blind=5, big_blind=10, ante=10),
             [PlayerSetup(1, 1000, live_post=10), PlayerSetup(2, 4, live_post=5)],
             button=2, sb_seat=2, bb_seat=1)
    assert h.stack == [986, 0] and h.committed == [14, 4]  # 6 of the ante never left seat 1
    h.deal_hole(1, "7c 2d")
    h.deal_hole(2, "As Ah")
    assert h.seat_to_act is None and pots(h) == [(8, (1, 2))]
    run_out(h, "Kd Qh 9s 5c 4h")
    assert h.result().returned == {1: 16}
    assert awards(h) == [(8, (1, 2), {2: 8})]
    assert stacks(h) == [996, 8]


# ------------------------------------------------------------------ several short stacks


def four_with_two_short(board: str) -> Hand:
    """Blinds 5/10, ante 5; seats 1 (SB) and 2 (BB) 500 each, seat 3 has 2, seat 4 (button) 4:
    both short stacks all-in on the ante. Seat 1 calls, seat 2 checks, checked down.
    Pots: 2 x 4 = 8 (all), 2 x 3 = 6 (1, 2, 4), 11 x 2 = 22 (1, 2)."""
    h = Hand(HandSettings(small_blind=5, big_blind=10, ante=5),
             [PlayerSetup(1, 500, live_post=5), PlayerSetup(2, 500, live_post=10), PlayerSetup(3, 2),
              PlayerSetup(4, 4)], button=4, sb_seat=1, bb_seat=2)
    for seat, cards in ((1, "7c 2d"), (2, "8c 3s"), (3, "As Ah"), (4, "Kc Ks")):
        h.deal_hole(seat, cards)
    assert [h.allin[h.index[s]] for s in (1, 2, 3, 4)] == [False, False, True, True]
    assert pots(h) == [(8, (1, 2, 3, 4)), (6, (1, 2, 4)), (2, (1, 2))]  # the antes alone
    h.call(1)
    h.check(2)
    assert pots(h) == [(8, (1, 2, 3, 4)), (6, (1, 2, 4)), (22, (1, 2))]
    run_out(h, board)
    return h


def test_p1_two_short_stacks_inside_the_ante_each_win_their_own_level() -> None:
    """Aces (2 in) win 8, kings (4 in) win 6, seat 2's pair of eights wins 22: 485/507/8/6."""
    h = four_with_two_short("Qd 8h 9s 5c 4h")
    assert awards(h) == [(8, (1, 2, 3, 4), {3: 8}), (6, (1, 2, 4), {4: 6}), (22, (1, 2), {2: 22})]
    assert stacks(h) == [485, 507, 8, 6]
    assert sum(stacks(h)) == 1006


def test_p1_the_bigger_short_stack_wins_both_pots_it_is_in() -> None:
    """Kings make a set: seat 4 wins 8 + 6, seat 2 the side pot of 22: 485/507/0/14."""
    h = four_with_two_short("Kd 8h 9s 5c 4h")
    assert awards(h) == [(8, (1, 2, 3, 4), {4: 8}), (6, (1, 2, 4), {4: 6}), (22, (1, 2), {2: 22})]
    assert stacks(h) == [485, 507, 0, 14]


def test_p1_three_short_stacks_of_different_sizes_with_a_fold() -> None:
    """Blinds 10/20, ante 5, five players: seat 3 has 3 (all-in inside the ante), seat 4 has 12
    (ante and 7 more), the button (seat 5) has 40. Seat 4 calls all-in for 7, the button goes
    all-in to 35 (an incomplete raise), the small blind folds (15 in), the big blind calls.

    Contributions 15 (folded) / 40 / 3 / 12 / 40. Pots: 3 x 5 = 15 (2, 3, 4, 5);
    9 x 4 = 36 (2, 4, 5); 3 of seat 1 + 28 + 28 = 59 (2, 5). Seat 3 best, then seat 4, then
    seat 5: 985/960/15/36/59."""
    h = Hand(HandSettings(small_blind=10, big_blind=20, ante=5),
             [PlayerSetup(1, 1000, live_post=10), PlayerSetup(2, 1000, live_post=20), PlayerSetup(3, 3),
              PlayerSetup(4, 12), PlayerSetup(5, 40)], button=5, sb_seat=1, bb_seat=2)
    for seat, cards in ((1, "Tc Td"), (2, "7c 2d"), (3, "As Ah"), (4, "Kc Ks"), (5, "Qc Qs")):
        h.deal_hole(seat, cards)
    assert h.seat_to_act == 4
    h.call(4)
    assert h.allin[h.index[4]]
    h.all_in(5)
    assert h.bet[h.index[5]] == 35
    h.fold(1)
    h.call(2)
    assert pots(h) == [(15, (2, 3, 4, 5)), (36, (2, 4, 5)), (59, (2, 5))]
    run_out(h, "2h 8h 9s 5c 4d")
    assert h.result().returned == {}
    assert awards(h) == [(15, (2, 3, 4, 5), {3: 15}), (36, (2, 4, 5), {4: 36}), (59, (2, 5), {5: 59})]
    assert stacks(h) == [985, 960, 15, 36, 59]


def test_p1_p3_ante_pots_split_between_two_short_stacks() -> None:
    """Blinds 10/20, ante 5: seat 3 has 3, the button (seat 4) exactly 5, both all-in on the
    ante; seat 1 calls, seat 2 checks. Contributions 25 / 25 / 3 / 5: 3 x 4 = 12 (all),
    2 x 3 = 6 (1, 2, 4), 20 x 2 = 40 (1, 2). Seats 3 and 4 tie with aces full of jacks and
    split the main pot (P-3); seat 4 alone takes the second pot: 475/515/6/12."""
    h = Hand(HandSettings(small_blind=10, big_blind=20, ante=5),
             [PlayerSetup(1, 500, live_post=10), PlayerSetup(2, 500, live_post=20), PlayerSetup(3, 3),
              PlayerSetup(4, 5)], button=4, sb_seat=1, bb_seat=2)
    for seat, cards in ((1, "7c 2d"), (2, "8c 3s"), (3, "Ad Jh"), (4, "Ac Jd")):
        h.deal_hole(seat, cards)
    h.call(1)
    h.check(2)
    assert pots(h) == [(12, (1, 2, 3, 4)), (6, (1, 2, 4)), (40, (1, 2))]
    run_out(h, "As Ah Jc 5c 4h")
    assert awards(h) == [(12, (1, 2, 3, 4), {3: 6, 4: 6}), (6, (1, 2, 4), {4: 6}),
                         (40, (1, 2), {2: 40})]
    assert stacks(h) == [475, 515, 6, 12]


# ------------------------------------------------------------------ what stays dead money


def test_t6_dead_small_blind_is_main_pot_money_an_ante_all_in_can_win() -> None:
    """T-6 / P-1: seat 3 comes back posting the big blind live and the missed small blind dead
    (5) at 5/10 ante 1; seat 4 is all-in on the ante. The dead blind is nobody's bet and no
    player's level: it goes to the main pot, which every live player can win. Pots: 1 x 5 + 5
    dead = 10 (all), 10 x 4 = 40 (1, 2, 3, 5); seat 4 wins the main pot: 10."""
    h = Hand(HandSettings(small_blind=5, big_blind=10, ante=1),
             [PlayerSetup(1, 500, live_post=5), PlayerSetup(2, 500, live_post=10),
              PlayerSetup(3, 500, live_post=10, dead_post=5), PlayerSetup(4, 1), PlayerSetup(5, 500)],
             button=5, sb_seat=1, bb_seat=2)
    for seat, cards in ((1, "7c 2d"), (2, "8c 3s"), (3, "Tc 3d"), (4, "As Ah"), (5, "Kc Ks")):
        h.deal_hole(seat, cards)
    assert h.player(3)["committed"] == 16 and h.player(3)["bet"] == 10
    h.check(3)  # the returning player's live big blind keeps the option
    h.call(5)
    h.call(1)
    h.check(2)
    assert pots(h) == [(10, (1, 2, 3, 4, 5)), (40, (1, 2, 3, 5))]
    run_out(h, "Qd 8h 9s 5c 4h")
    assert awards(h) == [(10, (1, 2, 3, 4, 5), {4: 10}), (40, (1, 2, 3, 5), {5: 40})]
    assert stacks(h) == [489, 489, 484, 10, 529]


def test_p1_big_blind_ante_is_dead_money_for_the_main_pot() -> None:
    """A big-blind ante (``dead_antes``: the big blind antes 20 for the table at 10/20) is dead
    money: layered, it would go back to the big blind uncalled. The button is all-in for 5 and
    wins the main pot 5 x 3 + 20 = 35; the side pot 15 x 2 = 30 goes to seat 2."""
    s = HandSettings(small_blind=10, big_blind=20, dead_antes=True)
    h = Hand(s, [PlayerSetup(1, 500, live_post=10, ante=0), PlayerSetup(2, 500, live_post=20, ante=20),
                 PlayerSetup(3, 5, ante=0)], button=3, sb_seat=1, bb_seat=2)
    for seat, cards in ((1, "7c 2d"), (2, "8c 3s"), (3, "As Ah")):
        h.deal_hole(seat, cards)
    h.call(3)
    h.call(1)
    h.check(2)
    assert pots(h) == [(35, (1, 2, 3)), (30, (1, 2))]
    run_out(h, "Qd 8h 9s 5c 4h")
    assert stacks(h) == [480, 490, 35]
    # the same hand with the ante layered: nobody covers the big blind's ante
    layered = Hand(HandSettings(small_blind=10, big_blind=20),
                   [PlayerSetup(1, 500, live_post=10, ante=0), PlayerSetup(2, 500, live_post=20, ante=20),
                    PlayerSetup(3, 5, ante=0)], button=3, sb_seat=1, bb_seat=2)
    assert layered.returned == {2: 20} and layered.stack[1] == 480


# ------------------------------------------------------------------ consumers of the pots


def test_r3_ante_returned_uncalled_is_not_raked() -> None:
    """Heads-up 50/100 ante 100, rake 10 % uncapped: the button is all-in for 40 on the ante. The
    pot is 80 (40 from each), raked 8 after the flop (R-1, R-2); the big blind's other 60 of
    ante and its blind are returned first (R-3, S-9): 9,960 / 72 (was a pot of 140, rake 14)."""
    s = HandSettings(small_blind=50, big_blind=100, ante=100, rake=RakeSettings(percent=10))
    h = Hand(s, [PlayerSetup(1, 10_000, live_post=100), PlayerSetup(2, 40, live_post=50)],
             button=2, sb_seat=2, bb_seat=1)
    h.deal_hole(1, "7c 2d")
    h.deal_hole(2, "As Ah")
    run_out(h, "Kd Qh 9s 5c 4h")
    r = h.result()
    assert r.returned == {1: 160} and r.rake == 8
    assert stacks(h) == [9960, 72]
    assert h.total_chips() == 10_040


def test_r2_no_flop_no_drop_with_layered_antes() -> None:
    """Everyone folds to the big blind: no flop, no rake (R-2); the antes are the pot."""
    s = HandSettings(small_blind=5, big_blind=10, ante=5, rake=RakeSettings(percent=10))
    h = Hand(s, [PlayerSetup(1, 500, live_post=5), PlayerSetup(2, 500, live_post=10), PlayerSetup(3, 500)],
             button=3, sb_seat=1, bb_seat=2)
    for seat, cards in ((1, "7c 2d"), (2, "8c 3s"), (3, "As Ah")):
        h.deal_hole(seat, cards)
    h.fold(3)
    h.fold(1)
    r = h.result()
    assert r.rake == 0 and r.returned == {2: 5}
    assert awards(h) == [(25, (2,), {2: 25})]
    assert stacks(h) == [490, 515, 495]


def test_journal_snapshot_and_replay_keep_the_layered_antes() -> None:
    """A snapshot mid-hand (hand_journal) replays to the same pots, stacks and result."""
    h = three_handed_ante_all_in()
    h.call(1)
    snap = h.snapshot()
    assert snap["settings"]["dead_antes"] is False
    assert snap["pots"] == [{"amount": 3, "eligible": [1, 2, 3]}]
    again = Hand.from_snapshot(snap)
    assert again.stack == h.stack and again.committed == h.committed
    for x in (h, again):
        x.check(2)
        run_out(x, "Kd Qh 9s 5c 4h")
    assert again.result() == h.result()
    assert stacks(again) == [97, 101, 3]


def test_phh_dump_marks_layered_antes_and_replays_to_the_same_stacks() -> None:
    """phh.dump writes ``ante_trimming_status = true`` for layered antes and the reader plays
    them layered; a file without the key (the PHH default) plays its antes dead, as PokerKit."""
    h = three_handed_ante_all_in()
    h.call(1)
    h.check(2)
    run_out(h, "Kd Qh 9s 5c 4h")
    text = phh.dump(h)
    assert "ante_trimming_status = true" in text
    hh = phh.load(text)
    assert phh.finishing_stacks(phh.play(hh), hh) == [97, 101, 3]  # p1 = seat 1, left of the button
    dead = phh.load(text.replace("ante_trimming_status = true\n", ""))
    played = phh.play(dead)
    assert played.settings.dead_antes
    assert phh.finishing_stacks(played, dead) == [97, 104, 0]  # the old split
    with pytest.raises(phh.PHHError, match="ante_trimming_status"):
        phh.new_hand(phh.load(text.replace("status = true", "status = 1")))


def test_dead_antes_setting_round_trips_through_json() -> None:
    s = HandSettings(ante=5, dead_antes=True)
    assert HandSettings.from_json(s.to_json()) == s
    assert HandSettings.from_json(HandSettings(ante=5).to_json()).dead_antes is False


def test_s8_ante_all_in_player_cannot_act() -> None:
    """A player all-in on the ante is skipped: a bet by them is refused (A-1: not their turn)."""
    h = three_handed_ante_all_in()
    with pytest.raises(IllegalAction, match="^A-1"):
        h.call(3)


def test_phh_heads_up_antes_are_listed_like_the_blinds() -> None:
    """Heads-up PHH lists ``antes`` like ``blinds_or_straddles`` (button's first), as PokerKit:
    ``antes = [0, 20]`` is the big blind's (p1's) ante, dead money here; dump writes it back."""
    pokerkit = pytest.importorskip("pokerkit")
    text = ('variant = "NT"\nantes = [0, 20]\nblinds_or_straddles = [10, 20]\nmin_bet = 20\n'
            'starting_stacks = [500, 300]\nactions = ["d dh p1 7c2d", "d dh p2 AsAh", "p2 cc", '
            '"p1 cc", "d db KdQh9s", "p1 cc", "p2 cc", "d db 5c", "p1 cc", "p2 cc", "d db 4h", '
            '"p1 cc", "p2 cc", "p1 sm 7c2d", "p2 sm AsAh"]\n')
    hh = phh.load(text)
    h = phh.play(hh)
    assert [p.ante for p in h.setup] == [20, 0]  # seat 1 = p1, the big blind
    assert phh.finishing_stacks(h, hh) == [460, 340]
    state = None
    for state in pokerkit.HandHistory.loads(text):
        pass
    assert list(state.stacks) == [460, 340]
    assert "antes = [0, 20]" in phh.dump(h)


def test_r1_the_short_all_ins_ante_main_pot_pays_only_its_own_rake() -> None:
    """breaker15 F5: 50/100, ante 10, rake 5 % capped at 30; seat 3 all-in for 3 (its ante)
    wins the 9-chip main pot. Main pot first, the rake took all 9; each pot's own 5 % is 0
    of the main pot and the cap of 30 from the side pot (R-1, P-1)."""
    s = HandSettings(game="holdem", limit="no-limit", small_blind=50, big_blind=100, ante=10,
                     rake=RakeSettings(percent=5, cap=30))
    h = Hand(s, [PlayerSetup(1, 5000, live_post=50), PlayerSetup(2, 5000, live_post=100), PlayerSetup(3, 3)],
             button=3, sb_seat=1, bb_seat=2)
    for seat, c in ((1, "KsKd"), (2, "QsQd"), (3, "AsAh")):
        h.deal_hole(seat, c)
    h.act(1, "raise", 1000); h.act(2, "call")
    board = {0: "2c7d9h", 3: "3s", 4: "4d"}
    while not h.is_complete:
        if h.pending_deal():
            h.deal_board(board[len(h.board)])
            continue
        lg = h.legal()
        h.act(lg.seat, "show" if lg.show else "check")
    r = h.result()
    main, side = r.awards
    assert (main.amount, main.rake, main.winners, main.shares) == (9, 0, (3,), {3: 9})
    assert side.rake == 30 and r.rake == 30
    assert sum(r.stacks.values()) == 10003 - 30
