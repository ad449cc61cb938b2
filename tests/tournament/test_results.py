"""Entries, purchases, bust-outs, places, the prize pool and payouts (money to the unit)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings as hsettings
from hypothesis import strategies as st

from controller.tournament.errors import TournamentError
from controller.tournament.results import Standings, payout_amounts, prizes
from controller.tournament.settings import Payouts

from .helpers import settings


def _standings(players, level=1):
    s = Standings(settings())
    for p in players:
        s.register(p, level)
    return s


def test_prize_pool_and_chips_from_entries_reentries_rebuys_and_addons():
    s = _standings("abcdef")
    s.bust({"a": 10000})
    s.register("a", 2)  # re-entry in late registration
    assert s.rebuy("b", 2, stack=4000) == 10000
    assert s.addon("c", break_after_level=2) == 15000
    assert len(s.entries) == 7 and s.entries[-1].reentry
    assert s.prize_pool() == 7 * 50 + 50 + 40
    assert s.fees() == 7 * 5
    assert s.chips_in_play() == 7 * 10000 + 10000 + 15000
    s.adjust_chips(-75)  # a chip race took 75 chips out
    assert s.chips_in_play() == 7 * 10000 + 10000 + 15000 - 75


@pytest.mark.parametrize(
    "action, message",
    [
        (lambda s: s.register("g", 3), "closed after level 2"),
        (lambda s: s.register("a", 1), "already has a live entry"),
        (lambda s: s.rebuy("a", 3, 100), "until level 2"),
        (lambda s: s.rebuy("a", 1, 10001), "above the 10000"),
        (lambda s: s.addon("a", 1), "after level 2 only"),
        (lambda s: s.rebuy("zz", 1, 100), "zz has no live entry"),
    ],
)
def test_purchases_outside_the_rules_are_refused_and_change_nothing(action, message):
    s = _standings("abc")
    before = (s.prize_pool(), s.chips_in_play(), len(s.entries))
    with pytest.raises(TournamentError, match=message):
        action(s)
    assert (s.prize_pool(), s.chips_in_play(), len(s.entries)) == before


def test_a_refunded_purchase_leaves_the_prize_pool_and_the_chips_in_play():
    """Issue 19: a rebuy or add-on whose chips the table never took is refunded, busted or not."""
    s = _standings("abc")
    s.rebuy("b", 1, stack=4000)
    s.addon("c", break_after_level=2)
    pool, chips = s.prize_pool(), s.chips_in_play()
    assert s.refund("b", "rebuy") == 10000 and s.rebuys == 0
    assert s.prize_pool() == pool - 50 and s.chips_in_play() == chips - 10000
    s.bust({"c": 500})
    assert s.refund("c", "addon") == 15000 and s.addons == 0
    with pytest.raises(TournamentError, match="b has no rebuy to refund"):
        s.refund("b", "rebuy")
    with pytest.raises(TournamentError, match="no purchase"):
        s.refund("a", "entry")
    assert s.prize_pool() == 3 * 50

def test_reentries_are_limited():
    s = _standings("ab")
    s.bust({"a": 10000})
    s.register("a", 1)
    s.bust({"a": 10000})
    with pytest.raises(TournamentError, match="all 1 re-entries"):
        s.register("a", 1)


def test_places_follow_the_bust_out_order_winner_first():
    s = _standings("abcd")
    s.bust({"c": 500})
    s.bust({"a": 9000})
    s.bust({"d": 300})
    fin = s.finishes()
    assert [(f.player, f.place) for f in fin] == [("b", 1), ("d", 2), ("a", 3), ("c", 4)]


def test_tda_simultaneous_eliminations_placed_by_starting_stacks():
    """Two players out in one hand: the one who started it with more chips places higher."""
    s = _standings("abcde")
    s.bust({"a": 3000, "b": 7000})  # seat order: a before b; b started with more
    fin = {f.player: f for f in s.finishes(registration_closed=False)}
    assert fin["b"].place == 4 and fin["a"].place == 5


def test_tda_simultaneous_eliminations_equal_stacks_tie_and_share_the_prizes():
    s = _standings("abcd")
    s.bust({"c": 2000, "d": 2000})  # places 3 and 4 tied
    s.bust({"b": 5000})
    fin = s.finishes()
    tied = [f for f in fin if f.player in "cd"]
    assert {(f.place, f.tied_to) for f in tied} == {(3, 4)}
    amounts = (60, 25, 11)  # 3rd pays 11, 4th nothing: 11 shared, the odd unit to the first in order
    ids = {e.player: e.entry_id for e in s.entries}
    got = prizes(fin, amounts, unit=1, order=[ids["d"], ids["c"]])  # d sits first left of the button
    assert got[ids["a"]] == 60 and got[ids["b"]] == 25
    assert got[ids["d"]] == 6 and got[ids["c"]] == 5
    assert sum(got.values()) == sum(amounts)


def test_tda_hand_for_hand_busts_at_two_tables_are_one_hand():
    """TDA hand-for-hand: busts in one synchronized hand at different tables are placed together."""
    s = _standings("abcdefg")
    s.bust({"a": 800, "f": 1200})  # a at table 1, f at table 2, same hand-for-hand hand
    fin = {f.player: f.place for f in s.finishes(registration_closed=False)}
    assert fin == {"f": 6, "a": 7}


def test_bust_refuses_everyone_out_and_unknown_players():
    s = _standings("ab")
    with pytest.raises(TournamentError, match="every live player"):
        s.bust({"a": 10, "b": 10})
    with pytest.raises(TournamentError, match="must have started the hand with chips"):
        s.bust({"a": 0})
    assert s.alive == ("a", "b")


def test_payouts_percent_rounded_to_the_unit_sum_to_the_pool():
    pay = settings().payouts  # unit 5; 10+ entries: 50/30/20
    amounts = payout_amounts(pay, 1003, 12)
    # 501.5 -> 500, 300.9 -> 300, 200.6 -> 200; 3 left: less than a unit, to 1st
    assert amounts == (503, 300, 200)
    amounts = payout_amounts(pay, 1017, 12)
    # 508 -> 505, 305 -> 305, 203 -> 200: 7 left: one unit to 1st, then the 2 to 1st
    assert amounts == (512, 305, 200) and sum(amounts) == 1017


@hsettings(max_examples=200, deadline=None)
@given(
    pool=st.integers(0, 10**7),
    unit=st.sampled_from([1, 5, 10, 25, 100]),
    raw=st.lists(st.integers(1, 60), min_size=1, max_size=12),
)
def test_payouts_always_sum_to_the_pool_and_never_pay_a_worse_place_more(pool, unit, raw):
    # build percents summing to 100, non-increasing
    parts = sorted(raw, reverse=True)
    total = sum(parts)
    percents = [p * 100 // total for p in parts]
    percents[0] += 100 - sum(percents)
    percents = sorted([p for p in percents if p > 0], reverse=True)
    pay = Payouts(unit=unit, brackets=((len(percents), tuple(percents)),))
    amounts = payout_amounts(pay, pool, len(percents))
    assert sum(amounts) == pool
    assert list(amounts) == sorted(amounts, reverse=True)
    assert all(a >= 0 for a in amounts)


@hsettings(max_examples=100, deadline=None)
@given(data=st.data(), n=st.integers(2, 14))
def test_any_bust_order_gives_each_entry_one_place_and_prizes_sum_to_the_pool(data, n):
    players = [f"p{i}" for i in range(n)]
    s = _standings(players)
    stacks = {p: data.draw(st.integers(1, 5)) * 1000 for p in players}
    while len(s.alive) > 1:
        alive = list(s.alive)
        k = data.draw(st.integers(1, len(alive) - 1))
        out = data.draw(st.permutations(alive))[:k]
        s.bust({p: stacks[p] for p in out})
    fin = s.finishes()
    assert sorted(f.entry_id for f in fin) == [e.entry_id for e in s.entries]
    # places cover 1..n exactly once, counting ties as the range they cover
    assert min(f.place for f in fin) == 1 and all(f.place <= f.tied_to for f in fin)
    spans = {(f.place, f.tied_to): 0 for f in fin}
    for f in fin:
        spans[(f.place, f.tied_to)] += 1
    assert all(b - a + 1 == c for (a, b), c in spans.items())
    assert sum(c for c in spans.values()) == n
    pool = s.prize_pool()
    amounts = payout_amounts(s.settings.payouts, pool, n)
    got = prizes(fin, amounts, unit=s.settings.payouts.unit)
    assert sum(got.values()) == pool


def test_tda_rule_9_late_entries_and_reentries_get_a_full_starting_stack_until_registration_closes():
    s = _standings("ab", level=0)
    s.register("c", 2)  # late, in the last level of late registration
    s.bust({"a": 10000})
    s.register("a", 2)  # a re-entry: a new entry with a full stack
    assert s.chips_in_play() == 4 * s.settings.starting_stack
    assert [e.reentry for e in s.entries] == [False, False, False, True]
    with pytest.raises(TournamentError, match="closed after level 2"):
        s.register("d", 3)
