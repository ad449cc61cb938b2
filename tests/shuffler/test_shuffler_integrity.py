"""Deck integrity (G-5) without any I/O: 52 distinct by identity, no card twice per deck."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from controller.engine.cards import FULL_DECK, parse_card
from drivers.shuffler.integrity import DeckTracker
from drivers.shuffler.protocol import BOARD, BURN, Target

SEAT1 = Target.seat_no(1)


def test_g5_full_deck_is_accepted_in_any_order() -> None:
    t = DeckTracker()
    v = t.check(1, reversed(FULL_DECK))
    assert v.ok and v.count == 52 and t.verified and t.deck_no == 1


def test_g5_fifty_two_cards_with_a_duplicate_are_rejected_by_identity() -> None:
    deck = list(FULL_DECK)
    deck[10] = deck[3]  # still 52 cards: a count alone would pass
    t = DeckTracker()
    v = t.check(1, deck)
    assert not v.ok and v.count == 52
    assert v.duplicates == (FULL_DECK[3],)
    assert v.missing == (FULL_DECK[10],)
    assert not t.verified


def test_g5_missing_and_unreadable_cards_are_rejected() -> None:
    t = DeckTracker()
    v = t.check(1, FULL_DECK[1:])
    assert not v.ok and v.missing == (FULL_DECK[0],) and v.count == 51
    v = t.check(2, [None] + list(FULL_DECK[1:]))
    assert not v.ok and v.unreadable == 1 and v.missing == (FULL_DECK[0],)


def test_g5_card_twice_in_a_hand_is_a_fault_and_not_recorded() -> None:
    t = DeckTracker()
    t.check(4, FULL_DECK)
    ace = parse_card("As")
    assert t.deliver(4, ace, SEAT1).ok
    again = t.deliver(4, ace, BOARD)
    assert again.kind == "duplicate" and again.first_target == SEAT1
    assert t.dealt == {ace: SEAT1}


def test_cards_need_the_verified_deck() -> None:
    t = DeckTracker()
    assert t.deliver(1, FULL_DECK[0], SEAT1).kind == "no-deck"
    t.check(1, FULL_DECK)
    assert t.deliver(2, FULL_DECK[0], SEAT1).kind == "wrong-deck"
    t.forget()
    assert t.deliver(1, FULL_DECK[0], SEAT1).kind == "no-deck"


def test_mid_hand_check_counts_dealt_cards() -> None:
    t = DeckTracker()
    t.check(1, FULL_DECK)
    for c in FULL_DECK[:5]:
        assert t.deliver(1, c, BURN).ok
    assert t.check(1, FULL_DECK[5:], dealt=5).ok
    # A stub that still holds a dealt card: that card is named as a duplicate.
    v = t.check(1, FULL_DECK[4:], dealt=5)
    assert not v.ok and v.duplicates == (FULL_DECK[4],)


def test_a_misread_makes_the_deck_unprovable() -> None:
    t = DeckTracker()
    t.check(1, FULL_DECK)
    t.deliver(1, FULL_DECK[0], SEAT1)
    t.misread(1)
    assert not t.check(1, FULL_DECK[2:], dealt=2).ok


@given(st.lists(st.sampled_from(FULL_DECK), min_size=0, max_size=60))
def test_only_exactly_the_52_distinct_cards_pass(cards) -> None:
    v = DeckTracker().check(1, cards)
    assert v.ok == (sorted(cards) == sorted(FULL_DECK))
    if not v.ok:
        assert v.duplicates or v.missing
