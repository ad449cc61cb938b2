"""A restarted driver proves again the deck the shuffler still holds (issue 16 item 3).

After ``kill -9`` of the controller the shuffler keeps its deck, but the new driver has no
proven deck: every resumed hand that needed a card failed with ``no-verified-deck``.
``resume_deck(cards)`` asks the device (DECK_CHECK) and accepts the deck only when its stub
and the journal's cards are the 52 cards each once and the counts agree.
"""

from __future__ import annotations

from drivers.shuffler import events as E
from drivers.shuffler.link import ShufflerDriver

from .conftest import FAST, Collector


def _restart(rig):
    """Stop the driver (the controller dies) and start a new one on the same device."""
    rig.driver.stop()
    events = Collector()
    drv = ShufflerDriver(rig.emu.path, post=events.post, clock=events.clock, timing=FAST)
    drv.start()
    events.wait_for(E.DeviceIdentified)
    return drv, events


def test_the_deck_is_proven_again_from_the_device_and_the_journal(make_rig) -> None:
    rig = make_rig()
    rig.new_deck()
    dealt = [c.card for c in rig.deal(1, 2) + rig.deal(2, 2)]
    drv, events = _restart(rig)
    try:
        refused = drv.deal(1)
        assert events.wait_for(E.RequestFailed, request_id=refused).code == "no-verified-deck"
        rid = drv.resume_deck(dealt)
        ready = events.wait_for(E.DeckReady, request_id=rid)
        assert ready.dealt == 4 and ready.remaining == 48
        more = drv.deal("board", 3)
        events.wait_for(E.DealDone, request_id=more)
        cards = [e.card for e in events.of(E.CardDelivered)]
        assert len(cards) == 3 and not set(cards) & set(dealt)
        assert not events.of(E.CardFault)
        assert [c for _t, c in rig.emu.physical_log()] == dealt + cards
        # A card the journal knows from before is still a duplicate if reported again (G-5).
        assert drv.tracker.deliver(ready.deck_no, dealt[0], rig.emu.physical_log()[0][0]).kind == "duplicate"
    finally:
        drv.stop()


def test_a_journal_that_does_not_match_the_device_proves_nothing(make_rig) -> None:
    rig = make_rig()
    rig.new_deck()
    dealt = [c.card for c in rig.deal(1, 3)]
    drv, events = _restart(rig)
    try:
        # One card short (the journal lost the last one): refused, nothing may be dealt.
        rid = drv.resume_deck(dealt[:2])
        failed = events.wait_for(E.DeckCheckFailed, request_id=rid)
        assert failed.missing == (dealt[2],) and not drv.tracker.verified
        # A card of the stub named as dealt: a duplicate.
        stub_card = next(c for c in _all() if c not in dealt)
        rid = drv.resume_deck([*dealt[:2], stub_card])
        failed = events.wait_for(E.DeckCheckFailed, request_id=rid)
        assert stub_card in failed.duplicates and not drv.tracker.verified
        refused = drv.deal(1)
        assert events.wait_for(E.RequestFailed, request_id=refused).code == "no-verified-deck"
    finally:
        drv.stop()


def _all():
    from controller.engine.cards import FULL_DECK

    return list(FULL_DECK)
