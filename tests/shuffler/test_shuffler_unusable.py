"""Device events that pass the CRC but cannot be used are posted, never only logged (issue 16).

A breaker's CARD event with a valid CRC and an impossible card code was logged, the card
lost, and the table waited for ever. Each frame class is injected here by the emulator on a
real pty (``Faults(garble=...)``); the driver must post what the table needs to pause:
a :class:`Misread` for a card whose code is no card (it left the machine unread), an
:class:`EventUnusable` naming the class for anything else. The link stays up and later
events still arrive.
"""

from __future__ import annotations

import pytest

from drivers.shuffler import events as E
from drivers.shuffler.emulator import Faults
from drivers.shuffler.protocol import Target


def test_a_card_with_an_impossible_code_is_a_misread_not_a_lost_card(make_rig) -> None:
    rig = make_rig()
    rig.new_deck()
    rig.emu.set_faults(garble="card")
    rid = rig.driver.deal(3, 2)
    rig.events.wait_for(E.DealDone, request_id=rid)
    mis = rig.events.wait_for(E.Misread, request_id=rid)
    assert mis.target == Target.seat_no(3) and mis.ordinal == 1 and "card code 96" in mis.reason
    physical = rig.emu.physical_log()
    # The second card is reported as usual; the first left the machine and is accounted for.
    assert [(c.target, c.card) for c in rig.events.of(E.CardDelivered)] == physical[1:]
    # The tracker counted it: a later deck check of this deck adds up (51 known + 1 unread).
    assert rig.driver.tracker.misreads == 1


@pytest.mark.parametrize("garble,name,trigger", [
    ("deck", "deck", "shuffle"),
    ("done", "done", "deal"),
    ("jam", "jam", "jam"),
    ("empty", "empty", "empty"),
    ("door", "door", "door"),
    ("unknown", "unknown", "deal"),
    ("number", "card", "deal"),
])
def test_each_unusable_event_class_is_posted(make_rig, garble: str, name: str, trigger: str) -> None:
    faults = Faults(jam_at=1) if trigger == "jam" else Faults(empty_at=1) if trigger == "empty" else None
    rig = make_rig(faults=faults)
    if trigger != "shuffle":
        rig.new_deck()
    rig.emu.set_faults(garble=garble)
    if trigger == "shuffle":
        rid = rig.driver.shuffle()
    elif trigger == "door":
        rig.emu.open_door()
        rid = None
    else:
        rid = rig.driver.deal(2, 1)
    bad = rig.events.wait_for(E.EventUnusable)
    assert bad.pauses_hand and bad.name == name and bad.reason and bad.payload
    if garble == "number":
        assert bad.event_no is None  # cannot be acknowledged: posted once, not at every resend
    else:
        assert bad.event_no is not None
        if rid is not None and garble != "unknown":
            assert bad.request_id == rid
    if garble == "deck":
        assert not rig.driver.tracker.verified  # nothing is dealt from a deck not proven
        deal = rig.driver.deal(1)
        assert rig.events.wait_for(E.RequestFailed, request_id=deal).code == "no-verified-deck"
    if garble != "number":
        # The link is up and later events arrive.
        rig.sync()
        assert rig.driver.connected
    assert len(rig.events.of(E.EventUnusable)) == 1
