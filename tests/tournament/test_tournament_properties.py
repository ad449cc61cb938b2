"""A whole tournament played on paper: chips and money conserved after every event.

A fake table moves chips between live players at random; entries, re-entries, rebuys,
add-ons, chip races and busts go through ``Standings``. After every event the stacks on
the felt must add up to ``chips_in_play()``; at the end the prizes add up to the pool.
Also: settings built from arbitrary mappings fail only with ``SettingsError``.
"""

from __future__ import annotations

import random

from hypothesis import event as note, given, settings as hsettings
from hypothesis import strategies as st

from controller.tournament.chiprace import chip_race
from controller.tournament.errors import SettingsError, TournamentError
from controller.tournament.results import Standings, payout_amounts, prizes
from controller.tournament.settings import TournamentSettings, settings_from_mapping

from .helpers import settings


@hsettings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 12))
def test_chips_and_money_are_conserved_through_a_whole_tournament(seed, n):
    rng = random.Random(seed)  # the fake table's play; hypothesis explores the seeds
    s = Standings(settings())
    start = s.settings.starting_stack
    stacks: dict[str, int] = {}
    level = 1

    def check():
        assert sum(stacks.values()) == s.chips_in_play()

    for i in range(n):
        s.register(f"p{i}", level)
        stacks[f"p{i}"] = start
        check()
    raced = False
    for _ in range(400):
        if len(stacks) < 2:
            break
        what = rng.choice(["hand"] * 6 + ["rebuy", "addon", "level", "reenter"])
        players = sorted(stacks)
        if what == "hand":
            before = dict(stacks)
            # a hand: some players lose chips (in 25s, the smallest chip) to one winner;
            # a loser may lose everything
            winner = rng.choice(players)
            for p in rng.sample(players, rng.randint(1, len(players))):
                if p != winner:
                    lost = stacks[p] if rng.random() < 0.3 else rng.randint(0, stacks[p] // 25) * 25
                    stacks[p] -= lost
                    stacks[winner] += lost
            out = {p: before[p] for p in players if stacks[p] == 0}
            if out:
                s.bust(out)
                for p in out:
                    del stacks[p]
        elif what == "rebuy":
            p = rng.choice(players)
            try:
                stacks[p] += s.rebuy(p, level, stacks[p])
            except TournamentError:
                pass
        elif what == "addon" and level == 2:
            p = rng.choice(players)
            try:
                stacks[p] += s.addon(p, break_after_level=2)
            except TournamentError:
                pass
        elif what == "level":
            level += 1
            if level == 3 and not raced:  # the break after level 2 races off the 25s
                raced = True
                odd = [p for p in sorted(stacks) if stacks[p] % 100]
                rng.shuffle(odd)  # the race's cards
                stacks, delta = chip_race(stacks, 25, 100, odd)
                s.adjust_chips(delta)
        elif what == "reenter":
            gone = sorted({e.player for e in s.entries} - set(stacks))
            if gone:
                p = rng.choice(gone)
                try:
                    s.register(p, level)
                    stacks[p] = start
                except TournamentError:
                    pass
        check()
    note("finished" if len(stacks) == 1 else "still playing")
    note(f"rebuys: {s.rebuys > 0}, add-ons: {s.addons > 0}, raced: {raced}, "
         f"re-entries: {any(e.reentry for e in s.entries)}")
    if len(stacks) == 1:
        fin = s.finishes()
        amounts = payout_amounts(s.settings.payouts, s.prize_pool(), len(s.entries))
        got = prizes(fin, amounts, unit=s.settings.payouts.unit)
        assert sum(got.values()) == s.prize_pool()
        assert len(fin) == len(s.entries)


_values = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**6), st.floats(allow_nan=False),
                    st.text(max_size=4), st.lists(st.integers(-5, 200), max_size=4))
_level = st.dictionaries(st.sampled_from(["small_blind", "big_blind", "ante", "big_blind_ante", "minutes",
                                          "break", "colour_up", "x"]), _values, max_size=6)
_purchase = st.dictionaries(st.sampled_from(["price", "fee", "chips", "max", "until_level", "max_stack",
                                             "at_break", "y"]), _values, max_size=5)


@hsettings(max_examples=300, deadline=None)
@given(mapping=st.fixed_dictionaries(
    {},
    optional={
        "starting_stack": _values, "chips": _values, "seats_per_table": _values,
        "late_registration_until_level": _values, "entry": st.one_of(_purchase, _values),
        "reentry": st.one_of(st.dictionaries(st.just("max"), _values), _values),
        "rebuy": _purchase, "addon": _purchase, "levels": st.one_of(st.lists(_level, max_size=4), _values),
        "payouts": st.one_of(st.fixed_dictionaries({}, optional={
            "unit": _values, "fixed": _values,
            "brackets": st.lists(st.dictionaries(st.sampled_from(["min_entries", "percent"]), _values), max_size=3),
        }), _values),
    },
))
def test_any_settings_mapping_either_loads_or_fails_with_named_problems(mapping):
    try:
        result = settings_from_mapping(mapping)
    except SettingsError as exc:
        assert exc.problems and all(isinstance(p, str) and ":" in p for p in exc.problems)
    else:
        assert isinstance(result, TournamentSettings)
