"""A tournament table session (issue 19, Play): the big-blind ante posted at the table
(TDA RP-11), the dead button and the button in heads-up, absent players dealt in and blinded,
no cash-out, busts recorded with starting stacks, and a new level from the next hand (TDA 23).

Every event goes through :class:`tests.table.harness.Bench`, which audits chip conservation
(stacks + pots + rake = chips brought) after each one.
"""

from __future__ import annotations

import json

import pytest

from controller.engine.table import effects as fx
from controller.engine.table import events as ev
from controller.engine.table.codec import from_json, to_json
from controller.engine.table.settings import SettingsError, TableSettings
from controller.engine.table.state import TableState
from controller.engine.table.step import run

from .harness import Bench

TOUR = TableSettings(seats=6, small_blind=100, big_blind=200, tournament=True)
BOARD = ["Kd", "Qh", "9s", "5c", "4h"]


def seated(stacks: dict[int, int], cfg: TableSettings = TOUR) -> Bench:
    """A table with ``p<seat>`` in each seat of ``stacks`` with those chips."""
    b = Bench(cfg)
    for seat, chips in stacks.items():
        b.do(ev.PlayerSatDown, seat=seat, player=f"p{seat}")
        b.do(ev.BoughtIn, seat=seat, amount=chips)
    return b


def act(b: Bench, seat: int, action: str, amount: int | None = None) -> list[fx.Effect]:
    assert b.state.hand.seat_to_act == seat, (b.state.hand.seat_to_act, seat)
    out = b.do(ev.ActionTaken, seat=seat, action=action, amount=amount)
    assert not [e for e in out if isinstance(e, fx.Refuse)], out
    return out


def fold_around(b: Bench) -> None:
    """Everyone to act folds (checks when free; mucks a beaten hand) until the hand ends."""
    while b.state.hand is not None:
        h = b.state.hand
        seat = h.seat_to_act
        assert seat is not None
        lg = h.legal()
        act(b, seat, "muck" if lg.muck else "check" if lg.check else "fold")


def rotation(b: Bench) -> tuple[int, int | None, int]:
    i = b.state.info
    return i.button, i.sb_seat, i.bb_seat


def test_tda_rp_11_table_settings_take_an_ante_or_a_big_blind_ante_not_both() -> None:
    with pytest.raises(SettingsError, match="RP-11"):
        TableSettings(ante=25, big_blind_ante=200)
    with pytest.raises(SettingsError, match="S-10"):
        TableSettings(smallest_chip=25, small_blind=25, big_blind=50, big_blind_ante=30)


def test_tda_rp_11_the_short_big_blind_posts_the_blind_first_at_the_table() -> None:
    """100/200 with a 200 big-blind ante; seat 3 (big blind) has 150: all 150 go to the blind,
    no ante. Seats 1 and 2 fold: the small blind's 100 and seat 3's 150 are matched up to 100
    each and the 50 over is returned: seat 3 ends with 250, seat 2 with 4900."""
    b = seated({1: 5000, 2: 5000, 3: 150}, TOUR.changed(big_blind_ante=200))
    b.do(ev.HandStartRequested, button=1)
    h = b.state.hand
    assert rotation(b) == (1, 2, 3)
    assert h.bet == [0, 100, 150] and h.dead == 0
    act(b, 1, "fold")
    act(b, 2, "fold")
    rec = b.hands[-1]
    assert {s["seat"]: s["end"] for s in rec["seats"]} == {1: 5000, 2: 4900, 3: 250}
    assert rec["level"]["big_blind_ante"] == 200 and rec["busted"] == {}


def test_tda_rp_11_a_covered_big_blind_antes_in_full_dead_to_the_main_pot() -> None:
    """Seat 3 has 5000: blind 200, ante 200 dead; seat 1 calls, seat 2 completes, checked
    down: the pot is 3 x 200 + 200 = 800 and the chips at the table stay 15,000."""
    b = seated({1: 5000, 2: 5000, 3: 5000}, TOUR.changed(big_blind_ante=200))
    b.deal({1: ["7c", "2d"], 2: ["8c", "3s"], 3: ["As", "Ah"]}, BOARD)
    b.do(ev.HandStartRequested, button=1)
    h = b.state.hand
    assert h.bet == [0, 100, 200] and h.dead == 200 and h.dead_in[2] == 200
    act(b, 1, "call")
    act(b, 2, "call")
    act(b, 3, "check")
    fold_around(b)
    ends = {s["seat"]: s["end"] for s in b.hands[-1]["seats"]}
    assert ends == {1: 4800, 2: 4800, 3: 5400} and sum(ends.values()) == 15_000


def bust_seat(b: Bench, loser: int, winner: int) -> None:
    """Play one hand where ``loser`` (all-in on the blind) loses to ``winner``'s aces."""
    b.deal({loser: ["7c", "2d"], winner: ["As", "Ah"]}, BOARD)


def test_tda_dead_button_the_big_blind_moves_forward_one_player_when_the_small_blind_busts() -> None:
    """Seats 1-4, button 1: seat 2 (small blind, 100 chips: all-in posting it) loses to
    seat 3's aces and leaves the table busted. Next hand the big blind moves one player
    (seat 4), the small blind is seat 3 (last hand's big blind) and the button stays behind
    on seat 2's empty seat: a dead button. The hand after, the button is on seat 3."""
    b = seated({1: 5000, 2: 100, 3: 5000, 4: 5000})
    b.deal({2: ["7c", "2d"], 3: ["As", "Ah"]}, BOARD)
    b.do(ev.HandStartRequested, button=1)
    assert rotation(b) == (1, 2, 3)
    act(b, 4, "fold")
    act(b, 1, "fold")  # the big blind covers the all-in small blind: no more betting
    fold_around(b)
    assert b.hands[-1]["busted"] == {"p2": 100}
    assert b.state.seat(2) is None
    freed = [e for e in b.effects if isinstance(e, fx.SeatFreed)]
    assert [(e.seat, e.reason) for e in freed] == [(2, "busted")]
    b.do(ev.HandStartRequested)
    assert rotation(b) == (2, 3, 4)  # dead button on the empty seat 2
    assert b.state.info.dealt == (1, 3, 4)
    fold_around(b)
    b.do(ev.HandStartRequested)
    assert rotation(b) == (3, 4, 1)


def test_tda_dead_button_dead_small_blind_when_the_big_blind_busts() -> None:
    """Seats 1-4, button 1: seat 3 (big blind, 200 chips: all-in) loses to seat 2. Next
    hand the big blind moves one player to seat 4 and nobody posts the small blind (seat 3
    is gone): a dead small blind, button on seat 2; nobody skips the big blind."""
    b = seated({1: 5000, 2: 5000, 3: 200, 4: 5000})
    b.deal({3: ["7c", "2d"], 2: ["As", "Ah"]}, BOARD)
    b.do(ev.HandStartRequested, button=1)
    act(b, 4, "fold")
    act(b, 1, "fold")
    act(b, 2, "call")
    fold_around(b)
    assert b.hands[-1]["busted"] == {"p3": 200}
    b.do(ev.HandStartRequested)
    assert rotation(b) == (2, None, 4)
    assert b.state.hand.bet == [0, 0, 200]


@pytest.mark.parametrize("loser", [1, 2, 3])
def test_tda_button_in_heads_up_the_small_blind_is_on_the_button_and_nobody_posts_the_big_blind_twice(loser: int) -> None:
    """Three players, button 1, small blind 2, big blind 3; whoever busts in the first hand,
    heads-up the button posts the small blind and the big blind moves on to the next player
    after last hand's big blind (the one who just had it never posts it twice running)."""
    stacks = {1: 5000, 2: 5000, 3: 5000}
    stacks[loser] = 200  # all-in by the end of the first round either way
    b = seated(stacks)
    winner = 2 if loser != 2 else 1
    b.deal({loser: ["7c", "2d"], winner: ["As", "Ah"]}, BOARD)
    b.do(ev.HandStartRequested, button=1)
    while b.state.hand is not None:
        h = b.state.hand
        seat = h.seat_to_act
        lg = h.legal()
        if lg.muck:
            act(b, seat, "muck")
        elif seat == loser:
            act(b, seat, "all_in" if lg.all_in is not None else "call")
        elif seat == winner:
            act(b, seat, "call" if not lg.check else "check")
        else:
            act(b, seat, "check" if lg.check else "fold")
    assert b.hands[-1]["busted"] == {f"p{loser}": 200}
    b.do(ev.HandStartRequested)
    button, sb, bb = rotation(b)
    left = sorted({1, 2, 3} - {loser})
    assert button == sb and {button, bb} == set(left)
    assert bb != 3  # seat 3 had the big blind
    assert bb == next(s for s in (1, 2) if s != loser)  # the next player after seat 3
    assert b.state.hand.bet[b.state.hand.index[button]] == 100
    fold_around(b)
    b.do(ev.HandStartRequested)
    assert rotation(b) == (bb, bb, button)  # then they alternate


def test_tournament_absent_player_is_dealt_in_and_blinded_off() -> None:
    """Seat 2 sits out (away from the table). At a cash table the hand is dealt without him;
    at a tournament table he is dealt in, posts the small blind, and his hand folds to the
    raise; the next hand he is the big blind and posts it, and his hand is killed at his
    turn though checking is free (seat 1 completes the small blind and wins 400)."""
    cash = seated({1: 5000, 2: 5000, 3: 5000}, TableSettings(seats=6, small_blind=100, big_blind=200))
    cash.do(ev.SatOut, seat=2)
    cash.do(ev.HandStartRequested, button=1)
    assert 2 not in cash.state.info.dealt
    b = seated({1: 5000, 2: 5000, 3: 5000})
    b.do(ev.SatOut, seat=2)
    b.do(ev.HandStartRequested, button=1)
    assert b.state.info.dealt == (1, 2, 3) and rotation(b) == (1, 2, 3)
    act(b, 1, "raise", 600)
    assert (2, "fold", "absent") in b.state.info.auto
    act(b, 3, "fold")
    ends = {s["seat"]: s["end"] for s in b.hands[-1]["seats"]}
    assert ends == {1: 5300, 2: 4900, 3: 4800}
    b.do(ev.HandStartRequested)
    assert rotation(b) == (2, 3, 1)
    fold_around(b)
    b.do(ev.HandStartRequested)
    assert rotation(b) == (3, 1, 2) and b.state.hand.bet[1] == 200
    act(b, 3, "fold")
    act(b, 1, "call")
    assert b.state.hand is None and (2, "fold", "absent") in b.state.info.auto
    # hand 2: seat 1 won seat 3's small blind (5400/4900/4700); hand 3: seat 1 puts in 200
    # and takes the 400 with seat 2's big blind
    assert [b.state.seat(n).stack for n in (1, 2, 3)] == [5600, 4700, 4700]


def test_tournament_no_cash_out_the_chips_stay_in_play_until_the_player_busts() -> None:
    """StoodUp with chips is refused (T-8) at a tournament table, between hands and during a
    hand; the seat and its chips stay. At a cash table the same request pays the stack out."""
    b = seated({1: 5000, 2: 5000})
    out = b.do(ev.StoodUp, seat=1)
    assert [e.rule for e in out if isinstance(e, fx.Refuse)] == ["T-8"]
    assert b.state.seat(1).stack == 5000
    b.do(ev.HandStartRequested, button=1)
    out = b.do(ev.StoodUp, seat=2)
    assert [e.rule for e in out if isinstance(e, fx.Refuse)] == ["T-8"]
    assert not b.state.seat(2).leaving
    assert not [e for e in b.effects if isinstance(e, fx.PayOut)]
    cash = seated({1: 5000, 2: 5000}, TableSettings(seats=6, small_blind=100, big_blind=200))
    out = cash.do(ev.StoodUp, seat=1)
    assert [e.amount for e in out if isinstance(e, fx.PayOut)] == [5000]


def test_tda_simultaneous_eliminations_the_hand_records_each_bust_with_its_starting_stack() -> None:
    """Seats 2 (300) and 3 (500) go all-in and lose to seat 1's aces in one hand: the record
    lists both with the stacks they started the hand with, and both seats are freed."""
    b = seated({1: 5000, 2: 300, 3: 500})
    b.deal({1: ["As", "Ah"], 2: ["7c", "2d"], 3: ["8c", "3d"]}, BOARD)
    b.do(ev.HandStartRequested, button=1)
    act(b, 1, "call")
    act(b, 2, "all_in")
    act(b, 3, "all_in")
    act(b, 1, "call")
    assert b.state.hand is None
    assert b.hands[-1]["busted"] == {"p2": 300, "p3": 500}
    assert b.state.seat(2) is None and b.state.seat(3) is None
    assert b.state.seat(1).stack == 5800


def test_tda_23_a_level_given_at_the_deal_applies_to_that_hand_and_is_logged() -> None:
    """The clock's level comes with the deal: hand 1 plays 100/200; hand 2 is dealt with
    200/400 and a 400 big-blind ante and plays it to its end (the table's settings log
    records the change, ``by`` "level"); asking for a level during a hand is not possible
    (the deal is the only place it is taken)."""
    b = seated({1: 5000, 2: 5000, 3: 5000})
    b.do(ev.HandStartRequested, button=1, level={"small_blind": 100, "big_blind": 200})
    assert b.state.settings_log == ()  # nothing changed
    fold_around(b)
    b.do(ev.HandStartRequested, level={"small_blind": 200, "big_blind": 400, "ante": 0,
                                       "big_blind_ante": 400})
    h = b.state.hand
    assert (b.state.settings.small_blind, b.state.settings.big_blind) == (200, 400)
    assert h.bet[h.index[b.state.info.bb_seat]] == 400 and h.dead == 400
    assert b.state.settings_log[-1]["by"] == "level" and b.state.settings_log[-1]["hand"] == 1
    fold_around(b)
    assert b.hands[-1]["level"] == {"small_blind": 200, "big_blind": 400, "ante": 0,
                                    "big_blind_ante": 400}


def test_tda_23_an_invalid_level_is_refused_and_changes_nothing() -> None:
    b = seated({1: 5000, 2: 5000})
    out = b.do(ev.HandStartRequested, button=1, level={"small_blind": 300, "big_blind": 200})
    assert [e.rule for e in out if isinstance(e, fx.Refuse)] == ["S-1"]
    assert b.state.hand is None and b.state.settings == TOUR
    with pytest.raises(ValueError, match="TDA 23"):
        ev.HandStartRequested(at=0.0, level={"straddle": 400})


def test_tda_new_player_is_dealt_in_at_once_except_between_the_button_and_the_big_blind() -> None:
    """Seats 1, 3, 5, 7 of nine; hand 1 button 1, small blind 3, big blind 5. Two players
    arrive (moved from a broken table): seat 4, which hand 2 has between the button (3) and
    the small blind (5), waits; seat 2, after the big blind (7), is dealt in at once and posts
    nothing. Hand 3 (button 5, big blind 1) deals seat 4 in, again without a post."""
    b = seated({1: 5000, 3: 5000, 5: 5000, 7: 5000}, TOUR.changed(seats=9))
    b.do(ev.HandStartRequested, button=1)
    assert rotation(b) == (1, 3, 5)
    fold_around(b)
    for seat in (2, 4):
        b.do(ev.PlayerSatDown, seat=seat, player=f"p{seat}")
        b.do(ev.BoughtIn, seat=seat, amount=5000)
    b.do(ev.HandStartRequested)
    h = b.state.hand
    assert rotation(b) == (3, 5, 7)
    assert b.state.info.dealt == (1, 2, 3, 5, 7) and h.bet[h.index[2]] == 0
    fold_around(b)
    b.do(ev.HandStartRequested)
    h = b.state.hand
    assert rotation(b) == (5, 7, 1)
    assert b.state.info.dealt == (1, 2, 3, 4, 5, 7) and h.bet[h.index[4]] == 0 and h.dead == 0


def test_tournament_table_replays_from_its_journal_levels_busts_and_absences_included() -> None:
    """The events of a tournament table (a level at each deal, a big-blind ante, an absent
    player, a bust) through the JSON codec and replayed from the first state give the same
    state and effects (what the journal relies on), and the state round-trips mid-hand."""
    b = seated({1: 5000, 2: 300, 3: 5000})
    b.deal({2: ["7c", "2d"], 3: ["As", "Ah"]}, BOARD)
    b.do(ev.HandStartRequested, button=3, level={"small_blind": 100, "big_blind": 200})
    while b.state.hand is not None:  # seat 1 folds; seats 2 and 3 all-in or call
        h = b.state.hand
        lg = h.legal()
        seat = h.seat_to_act
        act(b, seat, "muck" if lg.muck else "fold" if seat == 1 else "all_in" if seat == 2 else "call")
    assert b.hands[-1]["busted"] == {"p2": 300}
    b.do(ev.SatOut, seat=1)
    b.do(ev.HandStartRequested, level={"small_blind": 200, "big_blind": 400, "big_blind_ante": 400})
    mid = json.loads(json.dumps(b.state.to_json()))
    assert json.dumps(TableState.from_json(mid).to_json(), sort_keys=True) == json.dumps(b.state.to_json(), sort_keys=True)
    fold_around(b)
    payloads = [json.loads(json.dumps(to_json(e))) for e in b.log]
    assert any(p.get("level") for p in payloads)
    state, effects = run(b.initial, [from_json(p) for p in payloads])
    assert json.dumps(state.to_json(), sort_keys=True) == json.dumps(b.state.to_json(), sort_keys=True)
    assert [to_json(e) for e in effects] == [to_json(e) for e in b.effects]


def test_l2_a_seated_table_cannot_switch_between_cash_and_tournament_play() -> None:
    """Cash chips would lose their cash-out (and tournament chips gain one): refused while
    anyone is seated, both ways; an empty table may switch."""
    b = seated({1: 5000, 2: 5000})
    out = b.do(ev.SettingsChanged, changes={"tournament": False})
    assert [e.rule for e in out if isinstance(e, fx.Refuse)] == ["L-2"] and b.state.settings.tournament
    cash = seated({1: 5000}, TableSettings(seats=6, small_blind=100, big_blind=200))
    out = cash.do(ev.SettingsChanged, changes={"tournament": True})
    assert [e.rule for e in out if isinstance(e, fx.Refuse)] == ["L-2"] and not cash.state.settings.tournament
    empty = Bench(TableSettings(seats=6, small_blind=100, big_blind=200))
    empty.do(ev.SettingsChanged, changes={"tournament": True, "big_blind_ante": 200})
    assert empty.state.settings.tournament and empty.state.settings.big_blind_ante == 200


def test_tournament_rebuy_and_addon_chips_come_as_top_ups_past_the_cash_maximum() -> None:
    """Issue 19: a rebuy or add-on the tournament allowed is a top-up with no cash maximum
    (T-7's cap is 100 big blinds at a cash table: 20,000 here); asked during a hand, it is
    added when the hand ends, whole."""
    b = seated({1: 20_000, 2: 20_000})
    out = b.do(ev.ToppedUp, seat=1, amount=3_000)
    assert not [e for e in out if isinstance(e, fx.Refuse)], out
    assert b.state.seat(1).stack == 23_000 and b.state.ledger.total_in == 43_000
    b.do(ev.HandStartRequested, button=1)
    out = b.do(ev.ToppedUp, seat=2, amount=5_000)
    assert not [e for e in out if isinstance(e, fx.Refuse)] and b.state.seat(2).topup == 5_000
    fold_around(b)
    assert b.state.seat(2).topup == 0 and b.state.ledger.total_in == 48_000
    cash = seated({1: 20_000, 2: 20_000}, TableSettings(seats=6, small_blind=100, big_blind=200))
    assert any(isinstance(e, fx.Refuse) for e in cash.do(ev.ToppedUp, seat=1, amount=3_000))


def test_tda_chip_race_the_table_takes_the_colour_ups_stacks_between_hands_only() -> None:
    """Issue 19: ``ChipsRaced`` sets the stacks a colour-up left (the chips brought move
    with them: the bench audits stacks + pots + rake = chips brought after each event);
    refused at a cash table, during a hand, and when it would race a player out."""
    b = seated({1: 1025, 2: 3075, 3: 1900})
    out = b.do(ev.ChipsRaced, seats=(1, 2), stacks=(1100, 3000))
    assert not [e for e in out if isinstance(e, fx.Refuse)], out
    assert [b.state.seat(n).stack for n in (1, 2, 3)] == [1100, 3000, 1900]
    assert b.state.ledger.total_in == 6000
    refused = b.do(ev.ChipsRaced, seats=(3,), stacks=(0,))
    assert [e.rule for e in refused if isinstance(e, fx.Refuse)] == ["S-10"]
    b.do(ev.HandStartRequested, button=1)
    assert [e.rule for e in b.do(ev.ChipsRaced, seats=(1,), stacks=(1000,)) if isinstance(e, fx.Refuse)] == ["L-2"]
    cash = seated({1: 1025, 2: 3075}, TableSettings(seats=6, small_blind=25, big_blind=50))
    assert [e.rule for e in cash.do(ev.ChipsRaced, seats=(1,), stacks=(1000,)) if isinstance(e, fx.Refuse)] == ["L-2"]
    e = ev.ChipsRaced(at=1.0, seats=(1, 2), stacks=(1100, 3000))
    assert from_json(json.loads(json.dumps(to_json(e)))) == e  # journalled and replayed as it was


def test_tournament_a_rebuy_waiting_for_the_hands_end_keeps_a_player_who_busts_in_it_in() -> None:
    """Issue 19 (TDA rebuys: bought before busting, not out): seat 2 (small blind, 100 chips,
    all-in posting it) has a rebuy of 3000 booked as the hand starts, so it waits for the
    hand's end; seat 2 loses every chip to seat 3's aces. The table does not report it busted
    nor free the seat: the 3000 come between hands and seat 2 is dealt the next hand. At a
    cash table the same top-up after a bust is refused as before (T-2: buy in again)."""
    b = seated({1: 5000, 2: 100, 3: 5000})
    b.deal({2: ["7c", "2d"], 3: ["As", "Ah"]}, BOARD)
    b.do(ev.HandStartRequested, button=1)
    out = b.do(ev.ToppedUp, seat=2, amount=3000)
    assert not [e for e in out if isinstance(e, fx.Refuse)] and b.state.seat(2).topup == 3000
    act(b, 1, "fold")
    fold_around(b)
    rec = b.hands[-1]
    assert {s["seat"]: s["end"] for s in rec["seats"]}[2] == 0
    assert rec["busted"] == {}
    s2 = b.state.seat(2)
    assert s2 is not None and s2.stack == 3000 and s2.topup == 0 and not s2.sitting_out
    assert b.state.ledger.total_in == 13_100
    b.do(ev.HandStartRequested)
    assert 2 in b.state.info.dealt
    cash = seated({1: 5000, 2: 4000, 3: 5000}, TableSettings(seats=6, small_blind=100, big_blind=200))
    cash.deal({2: ["7c", "2d"], 3: ["As", "Ah"]}, BOARD)
    cash.do(ev.HandStartRequested, button=1)
    cash.do(ev.ToppedUp, seat=2, amount=3000)
    act(cash, 1, "fold")
    act(cash, 2, "all_in")
    cash.do(ev.ActionTaken, seat=3, action="call", amount=None)  # all in: the board runs out
    assert cash.state.hand is None
    assert cash.state.seat(2).stack == 0 and cash.state.ledger.total_in == 14_000
    assert [e.rule for e in cash.effects if isinstance(e, fx.Refuse)] == ["T-2"]
