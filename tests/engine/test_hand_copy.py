"""Hand.copy and Hand.events as the table uses them: a copy in every step (issue 21).

The copy is generated straight-line code over the slots and brings the event dicts up to
date a few at a time; these tests hold it to the generic deep-enough copy it replaced, and
:func:`controller.engine.table.state.evolve` to ``dataclasses.replace``.
"""

from __future__ import annotations

import dataclasses
import random

from controller.engine.hand import Hand
from controller.engine.hand_base import _copy_value
from controller.engine.hand_journal import _event_dict
from controller.engine.settings import HandSettings, PlayerSetup
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import Seat, TableState, evolve

NL = HandSettings(game="holdem", limit="no-limit", small_blind=5, big_blind=10)
DRAW = HandSettings(game="draw", limit="fixed-limit", small_blind=5, big_blind=10, small_bet=10,
                    big_bet=20)
OMAHA = HandSettings(game="omaha", limit="pot-limit", small_blind=5, big_blind=10)


def _deck(rng: random.Random) -> list[str]:
    deck = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    rng.shuffle(deck)
    return deck


def _play(settings: HandSettings, seats: int, seed: int, on_step) -> Hand:  # type: ignore[no-untyped-def]
    """Play one random hand, copying it before every input as the table does; call
    ``on_step(before, after)`` with the hand before the input and the copy it went to."""
    rng = random.Random(seed)
    deck = _deck(rng)
    sb, bb = (1, 2) if seats == 2 else (2, 3)  # heads-up the button posts the small blind
    players = [PlayerSetup(s, rng.choice((40, 300, 1000)), live_post=5 if s == sb else 10 if s == bb else 0)
               for s in range(1, seats + 1)]
    hand = Hand(settings, players, button=1, sb_seat=sb, bb_seat=bb)
    while not hand.is_complete:
        new = hand.copy()
        need = new.pending_deal()
        if need is not None:
            if need.kind == "hole":
                new.deal_hole(need.seat, [deck.pop() for _ in range(need.count)])
            elif need.kind == "board":
                burn = deck.pop() if need.burn else None
                new.deal_board([deck.pop() for _ in range(need.count)], burn=burn)
            else:
                burn = deck.pop() if need.burn else None
                new.deal_draw(need.seat, [deck.pop() for _ in range(need.count)], burn=burn)
        else:
            lg = new.legal()
            if lg.show:
                new.act(lg.seat, "show" if rng.random() < 0.7 else "muck")
            elif lg.draw is not None:
                new.act(lg.seat, "draw", cards=rng.randrange(0, lg.draw + 1))
            else:
                r = rng.random()
                if r < 0.15 and lg.fold and not lg.check:
                    new.act(lg.seat, "fold")
                elif r < 0.3 and lg.all_in is not None:
                    new.act(lg.seat, "all_in")
                elif r < 0.45 and (lg.bet or lg.raise_):
                    lo, _ = lg.bet or lg.raise_
                    new.act(lg.seat, "bet" if lg.bet else "raise", lo)
                else:
                    new.act(lg.seat, "check" if lg.check else "call")
        on_step(hand, new)
        hand = new
    return hand


def _containers(v: object) -> list[object]:
    out = [v] if isinstance(v, (list, set, dict)) else []
    if isinstance(v, list):
        out += [x for x in v if isinstance(x, list)]
    return out


def test_copy_equals_the_generic_copy_and_shares_no_container() -> None:
    """Every slot equals what the generic loop (``_copy_value`` per slot) gave, and no list,
    set or dict (nor a list inside a list) is shared with the original: a copy never
    changes when the hand it came from plays on."""
    for settings, seats in ((NL, 10), (NL, 2), (OMAHA, 6), (DRAW, 5)):
        for seed in range(8):
            def check(before: Hand, after: Hand) -> None:
                c = before.copy()
                for name in Hand.__slots__:
                    mine, theirs = getattr(c, name), getattr(before, name)
                    if name == "_events":  # a cache of the log's dicts, brought up to date
                        assert mine == [_event_dict(e) for e in c._log]  # noqa: SLF001
                        continue
                    assert mine == _copy_value(theirs), name
                    for a, b in zip(_containers(mine), _containers(theirs)):
                        assert a is not b, name
                snap = c.snapshot()
                if not c.is_complete:
                    # play the copy on: the hand it came from does not change
                    before_snap = before.snapshot()
                    c.void("test")
                    assert before.snapshot() == before_snap
                else:
                    assert snap == before.snapshot()

            _play(settings, seats, seed, check)


def test_events_through_copies_equal_the_log_and_are_the_callers_own() -> None:
    """``events`` read after any chain of copies is the log turned into dicts, the same as
    a hand rebuilt from its record; changing a returned dict changes nothing kept."""
    for settings, seats in ((NL, 10), (OMAHA, 6), (DRAW, 5)):
        for seed in range(6):
            seen: list[Hand] = []
            last = _play(settings, seats, seed, lambda before, after: seen.append(after))
            for h in seen[::7] + [last]:
                events = h.events
                assert events == [_event_dict(e) for e in h._log]  # noqa: SLF001
                events[0]["t"] = "changed"
                assert h.events[0]["t"] != "changed"
            rebuilt = Hand.from_snapshot(last.snapshot())
            assert rebuilt.events == last.events
            assert rebuilt.result() == last.result()


def test_evolve_is_dataclasses_replace() -> None:
    seat = Seat(3, "p3", "P3", 500, missed_bb=True, preselect=("call", 20))
    assert evolve(seat, stack=0, preselect=None) == dataclasses.replace(seat, stack=0, preselect=None)
    assert evolve(seat) == seat and evolve(seat) is not seat
    state = TableState.new(TableSettings(game="holdem", limit="no-limit", seats=6, small_blind=5,
                                         big_blind=10))
    new = evolve(state, seq=7, seats=(seat,) + state.seats[1:])
    assert new == dataclasses.replace(state, seq=7, seats=(seat,) + state.seats[1:])
    assert state.seq == 0 and state.seats[0] is None
