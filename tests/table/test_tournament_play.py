"""A single-table tournament played to a winner at the table-session level (issue 19, Play),
in each game: Hold'em no limit, Omaha pot limit, draw fixed limit.

A pure driver: the tournament package's clock (advanced by an injected time, never the real
clock), standings and payouts around one tournament table, random legal actions from a seeded
``random.Random``. Checked after every event (the bench's audit: stacks + pots = chips
brought) and after every hand: the hand played the level the clock gave at its deal (TDA
23), the chips at the table equal ``Standings.chips_in_play()``, the seated players are the
live entries. At the end one player holds every chip, each entry has a place, and the
payouts sum to the prize pool.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.engine.table import effects as fx
from controller.engine.table import events as ev
from controller.engine.table.settings import TableSettings
from controller.tournament.clock import TournamentClock
from controller.tournament.errors import TournamentError
from controller.tournament.results import Standings, payout_amounts, prizes
from controller.tournament.settings import load_settings
from controller.tournament.table import busts_of, level_stakes

from .harness import Bench

TOML = """
[tournament]
starting_stack = 2000
chips = [25, 100, 500]
seats_per_table = 6
late_registration_until_level = 0
entry = { price = 100, fee = 10 }

[[tournament.levels]]
small_blind = 25
big_blind = 50
minutes = 3

[[tournament.levels]]
small_blind = 50
big_blind = 100
ante = 25
minutes = 3

[[tournament.levels]]
break = 2
colour_up = [25]

[[tournament.levels]]
small_blind = 100
big_blind = 200
big_blind_ante = 200
minutes = 3

[[tournament.levels]]
small_blind = 200
big_blind = 400
big_blind_ante = 400
minutes = 3

[[tournament.levels]]
small_blind = 500
big_blind = 1000
big_blind_ante = 1000
minutes = 3

[tournament.payouts]
unit = 5
[[tournament.payouts.brackets]]
min_entries = 2
percent = [100]
[[tournament.payouts.brackets]]
min_entries = 5
percent = [65, 35]
"""

#: Seconds of tournament time each action takes (injected; the clock reads no real time).
ACTION_SECONDS = 15.0
#: The table's smallest chip (the 25s stay at the table: the chip race is not wired).
CHIP = 25


def random_action(hand, rng: random.Random) -> tuple[str, int | None]:
    """Return a random legal action for the seat to act (A-1, S-4..S-8, P-2)."""
    lg = hand.legal()
    if lg.show or lg.muck:
        return ("show" if rng.random() < 0.5 else "muck"), None
    if lg.draw is not None:  # G-3: stand pat (the driver does not know the cards)
        return "draw", 0
    choices: list[tuple[str, int | None]] = [("call", None) if lg.call else ("check", None)]
    if lg.fold:
        choices += [("fold", None)] * 2
    for name, span in (("raise", lg.raise_), ("bet", lg.bet)):
        if span is not None:  # whole chips of 25 (S-10), or the minimum
            lo, hi = span
            choices.append((name, min(hi, lo + CHIP * rng.randint(0, (hi - lo) // CHIP))))
    if lg.all_in is not None and rng.random() < 0.3:
        choices.append(("all_in", None))
    return rng.choice(choices)


def next_clockwise(seat: int, seats: tuple[int, ...]) -> int:
    """Return the first of ``seats`` clockwise after ``seat`` (T-1)."""
    later = [s for s in seats if s > seat]
    return min(later) if later else min(seats)


def play_tournament(seed: int, players: int, game: str = "holdem",
                    limit: str = "no-limit") -> tuple[Standings, Bench, list, int]:
    rng = random.Random(seed)
    ts = load_settings(TOML)
    clock = TournamentClock(ts)
    now = 0.0
    clock.start(now)
    standings = Standings(ts)
    first = clock.level_for_hand(now)
    cfg = TableSettings(game=game, limit=limit, seats=players, smallest_chip=25,
                        small_blind=first.small_blind, big_blind=first.big_blind, tournament=True)
    b = Bench(cfg, rng=random.Random(seed + 1))
    seats = rng.sample(range(1, players + 1), players)  # the random draw (TDA 7)
    for n, seat in enumerate(seats, 1):
        player = f"p{n}"
        standings.register(player, 0)
        b.do(ev.PlayerSatDown, seat=seat, player=player)
        b.do(ev.BoughtIn, seat=seat, amount=ts.starting_stack)
    button: int | None = rng.choice(seats)  # the button draw
    levels_played = set()
    hands = 0
    prev_bb: int | None = None
    while len(standings.alive) > 1:
        assert hands < 3000, "the tournament does not end"
        try:
            level = clock.level_for_hand(now)
        except TournamentError:  # a break: no hand is dealt; the players come back after it
            now += 60.0
            continue
        if hands == 2:  # a player walks away: still dealt in and blinded until back or busted
            away = rng.choice(b.state.occupied()).seat
            b.do(ev.SatOut, seat=away)
        stakes = level_stakes(level)
        seated = tuple(s.seat for s in b.state.occupied())
        out = b.do(ev.HandStartRequested, button=button, level=stakes)
        assert not [e for e in out if isinstance(e, fx.Refuse)], out
        button = None
        levels_played.add(level.number)
        info = b.state.info
        assert info.dealt == seated  # nobody skipped, absent or not
        if prev_bb is not None:
            # dead button: the big blind moves forward exactly one player, every hand
            assert info.bb_seat == next_clockwise(prev_bb, seated) != prev_bb
        if len(seated) == 2:
            assert info.button == info.sb_seat  # heads-up the button posts the small blind
        prev_bb = info.bb_seat
        while b.state.hand is not None:
            # TDA 23: whatever the clock says meanwhile, the hand plays the level of its deal
            assert b.state.hand.settings.big_blind == level.big_blind
            name, amount = random_action(b.state.hand, rng)
            out = b.do(ev.ActionTaken, seat=b.state.hand.seat_to_act, action=name, amount=amount)
            assert not [e for e in out if isinstance(e, fx.Refuse)], (name, amount, out)
            now += ACTION_SECONDS
        record = b.hands[-1]
        assert record["level"] == stakes
        busts = busts_of(record)
        if busts:
            standings.bust(busts)
        hands += 1
        on_table = {s.player: s.stack for s in b.state.occupied()}
        assert set(on_table) == set(standings.alive)
        assert sum(on_table.values()) == standings.chips_in_play()
        assert all(stack > 0 for stack in on_table.values())
    return standings, b, sorted(levels_played), hands


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 6))
def test_any_single_table_tournament_ends_with_one_player_holding_every_chip(seed: int, players: int) -> None:
    """Property over seeds and table sizes (the checks inside ``play_tournament`` run on every
    hand: the level of the deal, chips = chips in play, nobody skipped, the big blind one
    player on, heads-up the button on the small blind)."""
    standings, b, _, _ = play_tournament(seed, players)
    (seat,) = b.state.occupied()
    assert standings.alive == (seat.player,) and seat.stack == players * 2000
    assert len(standings.finishes()) == players


@pytest.mark.parametrize(("seed", "game", "limit", "players"), [
    (1, "holdem", "no-limit", 6), (2, "holdem", "no-limit", 6), (3, "holdem", "no-limit", 6),
    (4, "omaha", "pot-limit", 6), (5, "draw", "fixed-limit", 5)])
def test_single_table_tournament_plays_to_a_winner_who_holds_every_chip(
        seed: int, game: str, limit: str, players: int) -> None:
    standings, b, levels, hands = play_tournament(seed, players, game, limit)
    (winner,) = standings.alive
    (seat,) = b.state.occupied()
    assert seat.player == winner and seat.stack == players * 2000 == standings.chips_in_play()
    assert {1, 2, 3} <= set(levels)  # blinds, antes and big-blind antes were all played
    finishes = standings.finishes()
    assert sorted(f.place for f in finishes) == list(range(1, players + 1)) or any(
        f.tied_to != f.place for f in finishes)
    assert [f.player for f in finishes if f.place == 1] == [winner]
    ts = standings.settings
    amounts = payout_amounts(ts.payouts, standings.prize_pool(), len(standings.entries))
    paid = prizes(finishes, amounts, ts.payouts.unit)
    assert standings.prize_pool() == players * 100
    assert sum(paid.values()) == standings.prize_pool()
    by_place = {f.place: paid[f.entry_id] for f in finishes if f.place == f.tied_to}
    assert by_place[1] >= by_place.get(2, 0) >= by_place.get(3, 0)
    # every bust left the table the hand it happened, and the seats freed say so
    freed = [e for e in b.effects if isinstance(e, fx.SeatFreed)]
    assert sorted(e.player for e in freed) == sorted(f.player for f in finishes if f.place > 1)
    assert {e.reason for e in freed} == {"busted"}
