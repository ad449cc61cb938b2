"""The tournament big-blind ante in the hand engine (TDA RP-11, P-1, S-8).

``HandSettings(dead_antes=True, big_blind_first=True)`` with the ante given only to the big
blind's :class:`PlayerSetup`: the big blind posts the blind first, then the ante from what is
left; the ante is dead money for the main pot. Pots and stacks are worked out by hand in each
test's docstring; a property checks the posting order against the tournament package's
``big_blind_ante_posts`` helper and that chips are conserved whatever the stacks.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.engine import phh
from controller.engine.hand import Hand
from controller.engine.settings import HandSettings, PlayerSetup
from controller.tournament.settings import Level
from controller.tournament.view import big_blind_ante_posts

BBA = HandSettings(small_blind=100, big_blind=200, dead_antes=True, big_blind_first=True)
BOARD = "Kd Qh 9s 5c 4h".split()


def bba_hand(bb_stack: int, others: int = 5000, ante: int = 200, cfg: HandSettings = BBA) -> Hand:
    """Seat 1 button, seat 2 small blind, seat 3 big blind with ``bb_stack`` and the ante."""
    h = Hand(cfg, [PlayerSetup(1, others), PlayerSetup(2, others, live_post=100),
                   PlayerSetup(3, bb_stack, live_post=200, ante=ante)],
             button=1, sb_seat=2, bb_seat=3)
    for seat, cards in ((1, "7c 2d"), (2, "Kc 3s"), (3, "As Ah")):
        h.deal_hole(seat, cards)
    return h


def check_down(h: Hand) -> None:
    while not h.is_complete:
        need = h.pending_deal()
        if need is not None:
            k = len(h.board)
            h.deal_board(BOARD[k:k + need.count])
            continue
        lg = h.legal()
        if lg.show:
            h.show(lg.seat)
        elif lg.check:
            h.check(lg.seat)
        else:
            h.call(lg.seat)


def test_tda_rp_11_short_big_blind_posts_the_blind_first_and_no_ante() -> None:
    """BB 150 at 100/200 ante 200: the 150 all go to the blind (ante 0, not 150 dead and no
    blind). Seats 1 and 2 call 200: main pot 450 (all three), side pot 100 (seats 1, 2); the
    aces win the main pot, seat 2's kings the side pot: 4800/4900/450, 10,150 chips."""
    h = bba_hand(150)
    assert h.bet == [0, 100, 150] and h.dead == 0 and h.allin[2]
    h.call(1)
    h.call(2)
    assert [(p.amount, p.eligible) for p in h.pots()] == [(450, (1, 2, 3)), (100, (1, 2))]
    check_down(h)
    assert [h.result().stacks[s] for s in (1, 2, 3)] == [4800, 4900, 450]
    assert h.total_chips() == 10_150


def test_tda_rp_11_big_blind_covering_the_blind_posts_the_rest_as_ante_dead_to_the_main_pot() -> None:
    """BB 300: blind 200, then 100 of the 200 ante, dead money in the main pot the all-in big
    blind is eligible for: 200 x 3 + 100 = 700 to the aces: 4800/4800/700."""
    h = bba_hand(300)
    assert h.bet == [0, 100, 200] and h.dead == 100 and h.allin[2]
    h.call(1)
    h.call(2)
    assert [(p.amount, p.eligible) for p in h.pots()] == [(700, (1, 2, 3))]
    check_down(h)
    assert [h.result().stacks[s] for s in (1, 2, 3)] == [4800, 4800, 700]


def test_tda_rp_11_the_ante_is_not_reduced_and_not_returned_when_everyone_folds() -> None:
    """BB 5000 posts 200 + 200 in full; seats 1 and 2 fold: the big blind wins his own blind,
    the dead ante and the small blind: 5000/4900/5100."""
    h = bba_hand(5000)
    assert h.bet == [0, 100, 200] and h.dead == 200
    h.fold(1)
    h.fold(2)
    assert [h.result().stacks[s] for s in (1, 2, 3)] == [5000, 4900, 5100]


def test_ante_first_stays_the_default_for_phh_and_cash() -> None:
    """Without ``big_blind_first`` a 150-chip big blind antes 150 dead and posts no blind (the
    order PHH and PokerKit use): the RP-11 order is opt-in."""
    h = bba_hand(150, cfg=HandSettings(small_blind=100, big_blind=200, dead_antes=True))
    assert h.bet == [0, 100, 0] and h.dead == 150
    assert HandSettings.from_json(BBA.to_json()) == BBA


@settings(max_examples=150, deadline=None)
@given(bb_stack=st.integers(1, 1000), ante=st.integers(0, 400), others=st.integers(1, 1000),
       actions=st.lists(st.sampled_from(["call", "fold", "allin", "check"]), max_size=12))
def test_tda_rp_11_posts_match_the_helper_and_chips_are_conserved(bb_stack, ante, others, actions) -> None:
    """Any stacks: the big blind's posts are ``big_blind_ante_posts`` (blind first, then the
    ante), and stacks + pots = chips brought, at every step and after the showdown (P-1)."""
    h = bba_hand(bb_stack, others=others, ante=ante)
    total = bb_stack + 2 * others
    level = Level(number=1, small_blind=100, big_blind=200, minutes=20, big_blind_ante=max(ante, 1))
    if ante:
        assert (h.bet[2], h.dead_in[2]) == big_blind_ante_posts(bb_stack, level)
    assert h.total_chips() == total
    for a in actions:
        if h.is_complete or h.pending_deal() is not None or h.legal().show:
            break
        lg = h.legal()
        if a == "check" and lg.check:
            h.check(lg.seat)
        elif a == "fold" and lg.fold:
            h.fold(lg.seat)
        elif a == "allin" and lg.all_in is not None:
            h.all_in(lg.seat)
        else:
            h.call(lg.seat) if not lg.check else h.check(lg.seat)
        assert h.total_chips() == total
    check_down(h)
    assert sum(h.result().stacks.values()) == total


def test_tda_rp_11_phh_dump_keeps_the_big_blind_first_order_and_replays_to_the_same_stacks() -> None:
    """The short big blind's hand (150 all to the blind) written as PHH carries
    ``_big_blind_first = true`` and replays to 4800/4900/450; without the key the reader
    posts the ante first, as PokerKit would, and the big blind wins less."""
    h = bba_hand(150)
    h.call(1)
    h.call(2)
    check_down(h)
    text = phh.dump(h)
    assert "_big_blind_first = true" in text
    hh = phh.load(text)
    again = phh.play(hh)
    assert again.settings.big_blind_first
    assert sorted(phh.finishing_stacks(again, hh)) == [450, 4800, 4900]
    plain = phh.load(text.replace("_big_blind_first = true\n", ""))
    assert not phh.new_hand(plain).settings.big_blind_first
    with pytest.raises(phh.PHHError, match="_big_blind_first"):
        phh.new_hand(phh.load(text.replace("_big_blind_first = true", "_big_blind_first = 1")))
