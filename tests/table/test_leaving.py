"""T-8: a player who stands up mid-hand has the hand folded first, at once, in turn or not.

Every street of Hold'em (pre-flop, flop, turn, river) and the draw round of five card draw;
a leaver who is the last opponent (the other player wins the pot at once), one not yet to
act (the hand goes on without them, the turn and its clock stay), one whose cards are on
their way (folded once they are out), one who is all-in and one in an all-in run-out (S-8:
no decision left, the hand plays to the showdown). The bench audits the chips after every
event (stacks + pots + rake = chips brought, ledger balanced); each test also replays the
table's events and the hand's record.
"""

from __future__ import annotations

import json

import pytest

from controller.engine.hand import Hand
from controller.engine import phh
from controller.engine.table import effects as fx
from controller.engine.table import events as ev
from controller.engine.table.codec import from_json, to_json
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import TableState
from controller.engine.table.step import run, step
from controller.history import record_to_phh

from .harness import Bench

NL = TableSettings(seats=6, small_blind=5, big_blind=10, buy_in_min=200, buy_in_max=2000)
DRAW = TableSettings(game="draw", seats=5, small_blind=5, big_blind=10, buy_in_min=200, buy_in_max=2000)
BOARD = ["Kh", "9s", "4c", "3d", "Jh"]


def _bench(*seats: int, stack: int = 1000, settings: TableSettings = NL) -> Bench:
    b = Bench(settings)
    for s in seats:
        b.seat_up(s, stack)
    return b


def _dump(state: TableState) -> str:
    return json.dumps(state.to_json(), sort_keys=True)


def _replays(b: Bench) -> None:
    """The journal (each event through its JSON) rebuilds the same table; every finished
    hand's record replays in the hand engine and through its PHH to the same stacks."""
    again, _ = run(b.initial, [from_json(json.loads(json.dumps(to_json(e)))) for e in b.log])
    assert _dump(again) == _dump(b.state)
    for rec in b.hands:
        hand = Hand.from_snapshot(rec["hand_record"])
        assert hand.result().stacks == {int(k): v for k, v in rec["result"]["stacks"].items()}
        hh = phh.load(record_to_phh(rec))  # PHH numbers the players p1..pN from the blinds
        back = phh.play(hh)
        assert [v for _, v in sorted(back.result().stacks.items())] == hh.finishing_stacks


def _leave(b: Bench, seat: int) -> list[fx.Effect]:
    out = b.do(ev.StoodUp, seat=seat)
    assert not b.refused(), b.refused()
    return out


def _freed(b: Bench, seat: int) -> int:
    """Return what seat ``seat``'s player was paid out when the seat was freed (T-8)."""
    assert b.state.seat(seat) is None, f"seat {seat} is still taken"
    freed = [e for e in b.effects if isinstance(e, fx.SeatFreed) and e.seat == seat]
    assert freed and freed[-1].reason == "T-8"
    return sum(e.amount for e in b.effects if isinstance(e, fx.PayOut) and e.seat == seat)


def _to_street(b: Bench, street: str) -> None:
    """Heads-up: call the small blind, then check until ``street`` (no bet out)."""
    while b.state.hand.street.value != street:
        lg = b.state.hand.legal()
        b.act(b.to_act, "check" if lg.check else "call")


# ------------------------------------------------------------------ the last opponent


@pytest.mark.parametrize("street", ["preflop", "flop", "turn", "river"])
@pytest.mark.parametrize("who", ["bettor", "to-act"])
def test_t8_the_last_opponent_leaves_and_the_other_wins_the_pot_at_once(street, who):
    """Heads-up (button 1 = small blind, S-3): on each street a bet of 40 is out and the
    other player is to act; the bettor (not to act) or the player to act stands up: the
    hand ends in that event, the pot to the player who stays. A leaver's bet is folded with
    the hand: it stays in the pot and the player who stays wins it (P-1, T-8; S-9 returns
    chips only to a live player: betting and standing up is not a way to take a bet back)."""
    b = _bench(1, 2)
    b.deal({1: ["7c", "2d"], 2: ["As", "Ad"]}, BOARD)
    b.start(1)
    _to_street(b, street)
    in_pot = 2 * (10 if street != "preflop" else 0)  # both called the big blind before the flop
    bettor = b.to_act
    b.act(bettor, "raise" if street == "preflop" else "bet", 40)
    other = b.to_act
    assert other != bettor and b.state.timer is not None
    leaver, stays = (bettor, other) if who == "bettor" else (other, bettor)
    out = _leave(b, leaver)
    assert b.state.hand is None, "the hand waited on a player who left"
    assert any(isinstance(e, fx.HandFinished) for e in out)
    rec = b.hands[-1]
    assert rec["auto"] == [[leaver, "fold", "T-8"]]
    assert [a["winners"] for a in rec["result"]["awards"]] == [[stays]]
    if who == "bettor":  # the 40 stays in the pot: the leaver forfeits it (T-8, P-1)
        assert rec["result"]["returned"] == {}
        if street == "preflop":
            # the small blind raised to 40 and left; the big blind's 10 and the 40 in the pot
            assert rec["result"]["awards"][0]["amount"] == 50
            assert _freed(b, leaver) == 1000 - 40 and b.stacks() == {stays: 1000 + 40}
        else:
            assert rec["result"]["awards"][0]["amount"] == in_pot + 40
            assert _freed(b, leaver) == 1000 - 50 and b.stacks() == {stays: 1000 + 50}
    else:  # the player facing the bet left: the bettor wins the pot, own bet back
        won = rec["result"]["awards"][0]["amount"]
        assert won == (20 if street == "preflop" else in_pot)
        assert _freed(b, leaver) == 1000 - won // 2
        assert b.stacks() == {stays: 1000 + won // 2}
    assert b.state.ledger.total_in - b.state.ledger.total_out == b.stacks()[stays]
    _replays(b)


@pytest.mark.parametrize("street", ["preflop", "flop", "turn", "river"])
def test_t8_a_leaver_who_could_check_is_folded_all_the_same(street):
    """Heads-up, nothing bet on the street: the player not to act stands up and is folded at
    once (not checked for, as A-4 does for a lost tablet); the other wins what is in."""
    b = _bench(1, 2)
    b.deal({1: ["As", "Ad"], 2: ["7c", "2d"]}, BOARD)
    b.start(1)
    _to_street(b, street)
    if street == "preflop":
        b.act(1, "call")  # the big blind's option: seat 2 to act, seat 1 could only check later
    to_act = b.to_act
    leaver = 1 if to_act == 2 else 2
    _leave(b, leaver)
    rec = b.hands[-1]
    assert b.state.hand is None and rec["auto"] == [[leaver, "fold", "T-8"]]
    assert rec["result"]["awards"][0]["winners"] == [to_act] and rec["result"]["awards"][0]["amount"] == 20
    assert _freed(b, leaver) == 990 and b.stacks() == {to_act: 1010}
    _replays(b)


def test_t8_draw_round_the_last_opponent_leaves_before_drawing():
    """Five card draw heads-up, in the draw round (G-3): the player still to draw stands up
    while the other decides their discards: the other wins at once."""
    b = _bench(1, 2, settings=DRAW)
    b.start(1)
    b.act(1, "call")
    b.act(2, "check")
    assert b.state.hand.street.value == "draw" and b.to_act == 2  # first left of the button draws first
    _leave(b, 1)
    rec = b.hands[-1]
    assert b.state.hand is None and rec["auto"] == [[1, "fold", "T-8"]]
    assert rec["result"]["awards"][0]["winners"] == [2]
    assert _freed(b, 1) == 990 and b.stacks() == {2: 1010}
    _replays(b)


def test_t8_draw_round_the_drawer_leaves_and_the_draw_goes_on():
    """Three-handed draw: the player whose turn it is to draw stands up: folded, the draw
    passes to the next player; the hand goes on to the showdown without them."""
    b = _bench(1, 2, 3, settings=DRAW)
    b.start(1)  # SB 2, BB 3; seat 1 first pre-draw
    b.act(1, "call")
    b.act(2, "call")
    b.act(3, "check")
    assert b.state.hand.street.value == "draw"
    drawer = b.to_act
    _leave(b, drawer)
    hand = b.state.hand
    assert hand is not None and hand.folded[hand.index[drawer]]
    assert b.to_act not in (None, drawer) and b.state.hand.legal().draw is not None
    while b.state.hand is not None:
        lg = b.state.hand.legal()
        b.act(b.to_act, "draw" if lg.draw is not None else "check" if lg.check else
              "muck" if lg.muck and not lg.show else "show")
    rec = b.hands[-1]
    assert drawer not in {w for a in rec["result"]["awards"] for w in a["winners"]}
    assert _freed(b, drawer) == 990
    _replays(b)


# ------------------------------------------------------------------ not yet to act


@pytest.mark.parametrize("street", ["flop", "turn", "river"])
def test_t8_a_leaver_who_is_not_to_act_is_folded_at_once_and_the_turn_stays(street):
    """Three-handed: seat 2 bets 40, seat 3 calls, seat 1 is to act; seat 2 stands up:
    folded in that event, its bet staying in the pot (P-1); seat 1 keeps the turn and its
    running clock; the hand goes on between seats 1 and 3; seat 2 is paid out what it had
    left when the hand ends."""
    b = _bench(1, 2, 3)
    b.deal({1: ["As", "Ad"], 2: ["Ks", "Kd"], 3: ["7c", "2d"]}, BOARD)
    b.start(1)  # button 1, SB 2, BB 3; seat 1 first pre-flop, seat 2 first after
    b.act(1, "call")
    b.act(2, "call")
    b.act(3, "check")
    while b.state.hand.street.value != street:
        b.act(b.to_act, "check")
    assert b.to_act == 2
    b.act(2, "bet", 40)
    b.act(3, "call")
    timer = b.state.timer
    assert b.to_act == 1
    _leave(b, 2)
    hand = b.state.hand
    assert hand is not None and hand.folded[hand.index[2]]
    assert b.to_act == 1 and b.state.timer == timer  # the same turn, the same clock
    assert b.state.info.auto[-1] == (2, "fold", "T-8")
    b.act(1, "call")
    while b.state.hand is not None:
        b.act(b.to_act, "check")
    rec = b.hands[-1]
    assert rec["result"]["awards"][0]["winners"] == [1]  # aces
    assert rec["result"]["awards"][0]["amount"] == 3 * 10 + 3 * 40
    assert _freed(b, 2) == 1000 - 10 - 40
    assert b.stacks() == {1: 1000 + 20 + 80, 3: 1000 - 10 - 40}
    _replays(b)


def test_t8_preflop_a_leaver_not_yet_to_act_is_folded_at_once():
    """Pre-flop three-handed: seat 1 raises, seat 2 is to act, seat 3 (the big blind, not
    yet to act) stands up: folded at once; its big blind stays in the pot (P-1)."""
    b = _bench(1, 2, 3)
    b.deal({1: ["As", "Ad"], 2: ["Ks", "Kd"], 3: ["7c", "2d"]}, BOARD)
    b.start(1)
    b.act(1, "raise", 40)
    timer = b.state.timer
    assert b.to_act == 2
    _leave(b, 3)
    hand = b.state.hand
    assert hand.folded[hand.index[3]] and b.to_act == 2 and b.state.timer == timer
    assert hand.bet[hand.index[3]] == 10  # its big blind stays in (P-1)
    b.act(2, "fold")
    rec = b.hands[-1]
    assert b.state.hand is None and rec["result"]["awards"][0]["winners"] == [1]
    assert _freed(b, 3) == 990 and b.stacks() == {1: 1000 + 5 + 10, 2: 995}
    _replays(b)


def test_t8_a_caller_leaves_and_the_player_facing_the_all_in_still_decides():
    """Seat 1 all-in, seat 2 called, seat 3 to act; seat 2 stands up: folded (its chips
    stay in the pot, P-1); seat 3 still faces the all-in; once called, the board is run
    out (S-8)."""
    b = Bench(NL)
    b.seat_up(1, 200)
    b.seat_up(2, 1000)
    b.seat_up(3, 1000)
    b.deal({1: ["As", "Ad"], 2: ["Ks", "Kd"], 3: ["7c", "2d"]}, BOARD)
    b.start(1)
    b.act(1, "all_in")
    b.act(2, "call")
    assert b.to_act == 3
    _leave(b, 2)
    assert b.to_act == 3  # seat 3 still faces the all-in
    b.act(3, "call")
    assert b.state.hand is None  # run out at once: nobody can act any more
    rec = b.hands[-1]
    assert rec["result"]["awards"][0]["winners"] == [1] and rec["result"]["awards"][0]["amount"] == 600
    assert _freed(b, 2) == 800 and b.stacks() == {1: 600, 3: 800}
    _replays(b)


# ------------------------------------------------------------------ cards on their way


def test_t8_cards_on_their_way_the_hand_is_folded_once_they_are_out():
    """Heads-up: the flop is being dealt (a card asked for, not yet in) when the big blind
    stands up: the hand cannot end with cards on their way (the dealer's cards would not be
    taken); it is folded as soon as the flop is out, and the other player wins."""
    b = _bench(1, 2)
    b.deal({1: ["As", "Ad"], 2: ["7c", "2d"]}, BOARD)
    b.start(1)
    b.act(1, "call")
    b.state, _ = step(b.state, ev.ActionTaken(at=b.t, seat=2, action="check"))  # no dealer yet
    b.log.append(ev.ActionTaken(at=b.t, seat=2, action="check"))
    assert b.state.dealing is not None
    b.do(ev.StoodUp, seat=2)  # the bench's dealer then deals the flop
    rec = b.hands[-1]
    assert b.state.hand is None and rec["auto"] == [[2, "fold", "T-8"]]
    assert [c for c in rec["hand_record"]["board"] if c] == BOARD[:3]
    assert rec["result"]["awards"][0]["winners"] == [1]
    assert _freed(b, 2) == 990 and b.stacks() == {1: 1010}
    _replays(b)


# ------------------------------------------------------------------ no decision left (S-8)


def test_t8_an_all_in_leaver_is_not_folded_and_is_paid_what_the_hand_wins():
    """Seat 1 is all-in pre-flop when it stands up: an all-in player has no decision left
    and stays in until the showdown (S-8); T-8's fold is for a hand that could still act.
    The hand plays on; seat 1's aces win the main pot, paid out when the seat is freed."""
    b = Bench(NL)
    b.seat_up(1, 200)
    b.seat_up(2, 1000)
    b.seat_up(3, 1000)
    b.deal({1: ["As", "Ad"], 2: ["Qs", "Qd"], 3: ["7c", "2d"]}, BOARD)
    b.start(1)
    b.act(1, "all_in")
    _leave(b, 1)
    hand = b.state.hand
    assert not hand.folded[hand.index[1]] and b.state.seat(1).leaving
    assert (1, "fold", "T-8") not in b.state.info.auto
    b.act(2, "call")
    b.act(3, "call")
    while b.state.hand is not None:
        lg = b.state.hand.legal()
        b.act(b.to_act, "check" if lg.check else "muck")
    rec = b.hands[-1]
    assert rec["result"]["awards"][0]["winners"] == [1] and rec["result"]["awards"][0]["amount"] == 600
    assert _freed(b, 1) == 600
    assert b.stacks() == {2: 800, 3: 800}
    _replays(b)


def test_t8_a_leaver_in_an_all_in_run_out_keeps_the_tabled_hand():
    """Heads-up all-in and called: the hands are face up and the board is being dealt when
    the player who had chips behind stands up: nobody can act any more (S-8), so the hand
    is not folded; it is run out and the seat freed with what it won."""
    b = Bench(NL)
    b.seat_up(1, 200)
    b.seat_up(2, 1000)
    b.deal({1: ["7c", "2d"], 2: ["As", "Ad"]}, BOARD)
    b.start(1)
    b.act(1, "all_in")
    call = ev.ActionTaken(at=b.t, seat=2, action="call")
    b.state, _ = step(b.state, call)  # the run-out's first card is asked for, not yet dealt
    b.log.append(call)
    assert b.state.dealing is not None and b.state.hand.exposed == [True, True]
    _leave(b, 2)
    rec = b.hands[-1]
    assert rec["auto"] == [] and rec["result"]["awards"][0]["winners"] == [2]
    assert _freed(b, 2) == 1200 and b.stacks() == {1: 0}
    _replays(b)


def test_t8_the_last_other_player_with_chips_leaves_and_the_hand_is_run_out_at_once():
    """Seat 1 all-in pre-flop, seats 2 and 3 called. On the flop seat 2 is to act and seat 3
    stands up: folded; seat 2 is now alone with chips and has nothing to face, so it is not
    asked to check: nobody can act any more and the board is run out at once (S-8)."""
    b = Bench(NL)
    b.seat_up(1, 200)
    b.seat_up(2, 1000)
    b.seat_up(3, 1000)
    b.deal({1: ["As", "Ad"], 2: ["Qs", "Qd"], 3: ["7c", "2d"]}, BOARD)
    b.start(1)
    b.act(1, "all_in")
    b.act(2, "call")
    b.act(3, "call")
    assert b.state.hand.street.value == "flop" and b.to_act == 2
    _leave(b, 3)
    assert b.state.hand is None, "seat 2 was left to check with nobody to play against"
    rec = b.hands[-1]
    assert rec["auto"] == [[3, "fold", "T-8"]]
    assert [(a["winners"], a["amount"]) for a in rec["result"]["awards"]] == [([1], 600)]
    assert _freed(b, 3) == 800 and b.stacks() == {1: 600, 2: 800}
    _replays(b)


# ------------------------------------------------------------------ breaker15


def test_t8_both_blinds_stand_up_before_the_button_acts():
    """breaker15 F2: three-handed, the button first to act pre-flop with nothing in; both
    blinds stand up: the button wins the blinds (the engine raised StopIteration)."""
    b = _bench(1, 2, 3)
    b.start(1)
    assert b.to_act == 1
    _leave(b, 2)
    _leave(b, 3)
    assert b.state.hand is None
    assert b.stacks() == {1: 1015}
    assert _freed(b, 2) == 995 and _freed(b, 3) == 990
    assert b.state.ledger.total_in - b.state.ledger.total_out == 1015
    _replays(b)


def test_t8_no_check_only_turn_after_a_raiser_stands_up():
    """breaker15 F4: the raiser stands up; the other live player is all-in: the bettor left
    has nothing to decide, so no action clock runs on it (nor sits it out, A-2); the
    hand runs out and its PHH replays."""
    S = TableSettings(seats=10, small_blind=5, big_blind=10, buy_in_min=1, buy_in_max=2000)
    b = Bench(S)
    b.seat_up(2, 258); b.seat_up(5, 3); b.seat_up(10, 380)
    b.deal({2: ["2s", "5d"], 5: ["4c", "3d"], 10: ["9h", "Kd"]}, ["3c", "Jh", "7c", "Kh", "2d"])
    b.start(10)
    b.act(10, "call"); b.act(2, "call")
    b.act(2, "bet", 10); b.act(10, "raise", 20)
    _leave(b, 10)
    assert b.state.hand is None, "the hand waited on a check-only turn (S-8)"
    assert not b.state.seat(2).sitting_out
    assert _freed(b, 10) == 380 - 30
    assert sum(b.stacks().values()) == 258 + 3 + 30
    _replays(b)


def test_t8_a_raiser_who_leaves_need_not_be_called_and_the_turn_starts_again():
    """breaker15 F1, several stay: the leaver's raise to 100 is dead money, nobody must call
    it; the player to act now faces the live bet of 30 with a new clock (a new turn)."""
    b = _bench(1, 2, 3, 4)
    b.start(1)
    assert (b.state.hand.sb_seat, b.state.hand.bb_seat, b.to_act) == (2, 3, 4)
    b.act(4, "raise", 30); b.act(1, "raise", 100)
    assert b.to_act == 2
    seq = b.state.timer.seq
    _leave(b, 1)
    hand = b.state.hand
    assert b.to_act == 2 and b.state.timer is not None and b.state.timer.seq != seq
    assert hand.legal().call == 25
    b.act(2, "call"); b.act(3, "call")
    hand = b.state.hand
    assert hand.street.value == "flop" and hand.returned == {}
    assert hand.folded[hand.index[1]] and hand.stack[hand.index[1]] == 900  # freed at the hand's end
    assert sum(p.amount for p in hand.pots()) == 3 * 30 + 100
