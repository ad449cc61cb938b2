"""Seeded random sessions mixing every fault: every card that left the machine is accounted for.

Invariant (no card lost, none invented, nothing guessed): after the session, each card in the
emulator's physical log was posted exactly once as CardDelivered (same target, same identity,
same order), or as Misread (unread) or CardFault (read as a card already dealt); and no card is
posted as delivered twice from one deck.
"""

from __future__ import annotations

import random

import pytest

from drivers.shuffler import events as E

from .conftest import Rig

OUTCOMES = (E.DealDone, E.Jammed, E.Empty, E.RequestFailed)


def outcome(rig: Rig, rid: int) -> E.ShufflerEvent:
    """Wait for how request ``rid`` ended."""
    def done(evs: list) -> bool:
        return any(isinstance(e, OUTCOMES) and e.request_id == rid for e in evs)
    events = rig.events.wait(done, timeout=10)
    return next(e for e in events if isinstance(e, OUTCOMES) and e.request_id == rid)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_session_accounts_for_every_card(make_rig, seed: int) -> None:
    rng = random.Random(seed)
    rig = make_rig(seed=seed)
    emu, drv = rig.emu, rig.driver
    rig.new_deck()
    for _ in range(30):
        dealt = emu.status().dealt
        if 52 - dealt < 12:
            rig.new_deck()
            dealt = 0
        op = rng.choice(["plain", "line", "jam", "misread", "misreport", "door", "vanish",
                         "vanish", "empty"])
        if op == "line":
            kind = rng.choice(["drop_rx", "drop_replies", "drop_events", "corrupt_tx", "garbage_tx"])
            emu.set_faults(**{kind: rng.randint(1, 3)})
        elif op in ("jam", "misread", "misreport", "vanish", "empty") and rng.random() < 0.8:
            # vanish_at: the cable falls out mid-deal and comes back 50 ms later
            emu.set_faults(**{f"{op}_at": dealt + rng.randint(1, 3), "vanish_for": 0.05})
        elif op == "door":
            emu.open_door()
            rig.events.wait(lambda evs: sum(isinstance(e, E.DoorOpened) for e in evs)
                            > sum(isinstance(e, E.DoorClosed) for e in evs))
            emu.close_door()
        elif op == "vanish":  # the cable falls out while idle
            lost = len(rig.events.of(E.LinkRestored))
            emu.vanish()
            rig.events.wait_for(E.LinkLost)
            emu.come_back()
            rig.events.wait(lambda evs: sum(isinstance(e, E.LinkRestored) for e in evs) > lost)
        target = rng.choice([rng.randint(1, 10), "board", "burn"])
        rid = drv.deal(target, rng.randint(1, 3))
        end = outcome(rig, rid)
        if isinstance(end, (E.Jammed, E.Empty)):
            emu.set_faults(empty_at=None)
            reset = drv.reset(keep_deck=True)
            rig.events.wait(lambda evs: any(isinstance(e, (E.RequestAccepted, E.RequestFailed))
                                            and e.request_id == reset for e in evs))
        emu.set_faults(jam_at=None, misread_at=None, misreport_at=None, vanish_at=None, empty_at=None)
    assert emu.wait_idle()
    rig.sync()
    physical = emu.physical_log()
    posted = [e for e in rig.events.events if isinstance(e, (E.CardDelivered, E.Misread, E.CardFault))]
    assert len(posted) == len(physical)
    for e, (target, card) in zip(posted, physical):
        assert e.target == target
        if isinstance(e, E.CardDelivered):
            assert e.card == card
    kinds = {cls.__name__: len(rig.events.of(cls)) for cls in (
        E.CardDelivered, E.Misread, E.CardFault, E.Jammed, E.Empty, E.LinkLost, E.LinkRestored,
        E.DoorOpened, E.RequestFailed, E.DeckReady)}
    fired = [k for k in ("Misread", "CardFault", "Jammed", "Empty", "LinkLost", "DoorOpened") if kinds[k]]
    assert len(fired) >= 3, kinds  # the session really mixed faults
    per_deck: dict[int, set] = {}
    for e in rig.events.of(E.CardDelivered):
        assert e.card not in per_deck.setdefault(e.deck_no, set())
        per_deck[e.deck_no].add(e.card)
