"""The table session's behaviour, event by event (T-2..T-8, A-2..A-4, L-2)."""

from __future__ import annotations

import json

from controller.engine.table import effects as fx
from controller.engine.table import events as ev
from controller.engine.table.codec import from_json, to_json
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import TableState
from controller.engine.table.step import run, step

from .harness import Bench

NL = TableSettings(small_blind=5, big_blind=10, seats=6)  # buy-in 200..1000


def _bench(*seats: int, stack: int = 1000, settings: TableSettings = NL) -> Bench:
    b = Bench(settings)
    for s in seats:
        b.seat_up(s, stack)
    return b


def _kinds(effects: list[fx.Effect]) -> list[str]:
    return [e.kind for e in effects]


def _dump(state: TableState) -> str:
    return json.dumps(state.to_json(), sort_keys=True)


# ------------------------------------------------------------------ the single writer

def test_step_never_changes_the_state_it_was_given():
    b = _bench(1, 2, 3)
    b.start(1)
    before = b.state
    text = _dump(before)
    seat = b.to_act
    new, _ = step(before, ev.ActionTaken(at=b.t, seat=seat, action="raise", amount=30))
    assert _dump(before) == text
    assert new.hand is not before.hand and new.seq == before.seq + 1


def test_every_change_publishes_and_raises_seq_by_one():
    b = _bench(1, 2)
    seq = b.state.seq
    out = b.do(ev.SatOut, seat=2)
    assert b.state.seq == seq + 1
    assert _kinds(out)[-2:] == ["publish-public", "light-seats"]


def test_refusal_keeps_state_and_names_the_rule():
    b = _bench(1, 2)
    before = b.state
    out = b.do(ev.BoughtIn, seat=1, amount=500)
    assert b.state is before
    assert [e.rule for e in out if isinstance(e, fx.Refuse)] == ["T-7"]


def test_replay_of_the_journal_gives_the_same_state_and_effects():
    b = _bench(1, 3, 4)
    b.start(1)
    b.act(b.to_act, "call")
    b.do(ev.TabletDisconnected, seat=b.to_act)
    b.do(ev.PreselectSet, seat=4, choice="check_fold")
    while b.state.hand is not None:
        b.expire() if b.state.timer else b.act(b.to_act, "call")
    b.do(ev.SatOut, seat=3)
    b.start()
    payloads = [json.loads(json.dumps(to_json(e))) for e in b.log]
    state, effects = run(b.initial, [from_json(p) for p in payloads])
    assert _dump(state) == _dump(b.state)
    assert [to_json(e) for e in effects] == [to_json(e) for e in b.effects]


def test_state_round_trips_through_json_mid_hand():
    b = _bench(1, 2, 5)
    b.start(2)
    b.act(b.to_act, "raise", 30)
    b.do(ev.PreselectSet, seat=2, choice="call_any")
    data = json.loads(_dump(b.state))
    again = TableState.from_json(data)
    assert _dump(again) == _dump(b.state)
    # and the rebuilt state plays on exactly like the original
    e = ev.ActionTaken(at=b.t, seat=b.to_act, action="call")
    s1, f1 = step(b.state, e)
    s2, f2 = step(again, e)
    assert _dump(s1) == _dump(s2) and [to_json(x) for x in f1] == [to_json(x) for x in f2]


# ------------------------------------------------------------------ seats and chips

def test_t2_buy_in_range_and_balance():
    b = Bench(NL)
    b.do(ev.PlayerSatDown, seat=2, player="ann", name="Ann")
    b.do(ev.BoughtIn, seat=2, amount=199)
    assert b.refused()[0].rule == "T-2"
    b.do(ev.BoughtIn, seat=2, amount=1001)
    assert b.refused()[0].rule == "T-2"
    b.do(ev.BoughtIn, seat=2, amount=500, balance=400)
    assert b.refused()[0].rule == "T-2"
    out = b.do(ev.BoughtIn, seat=2, amount=500, balance=800)
    assert fx.TakeChips(player="ann", amount=500, seat=2) in out
    assert b.state.seats[1].stack == 500 and b.state.ledger.total_in == 500


def test_t2_return_within_20_minutes_brings_what_they_left_with():
    b = _bench(1, 2)
    b.deal({1: ["As", "Ad"], 2: ["7c", "2d"]}, ["Kh", "9s", "4c", "3d", "Jh"])
    b.start(1)  # heads-up: seat 1 is button and small blind, acts first (S-3)
    b.act(1, "all_in")
    b.act(2, "call")
    winner, big = 1, 2000
    assert b.stacks() == {1: big, 2: 0}
    player = b.state.seats[winner - 1].player
    b.do(ev.StoodUp, seat=winner)
    b.tick(600)
    b.do(ev.PlayerSatDown, seat=winner, player=player, name="back")
    b.do(ev.BoughtIn, seat=winner, amount=1000)
    assert b.refused() and b.refused()[0].rule == "T-2" and str(big) in b.refused()[0].reason
    b.do(ev.BoughtIn, seat=winner, amount=big)
    assert b.state.seats[winner - 1].stack == big
    # after 20 minutes the ordinary range applies again
    b.do(ev.StoodUp, seat=winner)
    b.tick(20 * 60 + 1)
    b.do(ev.PlayerSatDown, seat=winner, player=player, name="later")
    b.do(ev.BoughtIn, seat=winner, amount=1000)
    assert not b.refused()


def test_t7_top_up_between_hands_within_the_maximum():
    b = _bench(1, 2, stack=600)
    b.do(ev.ToppedUp, seat=1, amount=500)
    assert b.refused()[0].rule == "T-7"
    b.do(ev.ToppedUp, seat=1, amount=400)
    assert b.state.seats[0].stack == 1000 and b.state.ledger.accounts["p1"].topped_up == 400


def test_t7_top_up_asked_during_the_hand_is_added_when_it_ends():
    b = _bench(1, 2, 3, stack=600)
    b.start(1)  # SB 2, BB 3
    out = b.do(ev.ToppedUp, seat=2, amount=300)
    assert not b.refused() and not [e for e in out if isinstance(e, fx.TakeChips)]
    assert b.state.ledger.total_in == 1800  # not on the table yet
    b.do(ev.ToppedUp, seat=3, amount=400)   # 600 + 400 fits; 605 + 400 will not: capped at the end
    b.act(1, "fold")
    b.act(2, "fold")  # seat 3 wins the small blind: 605
    assert b.stacks() == {1: 600, 2: 895, 3: 1000}
    took = [e for e in b.effects if isinstance(e, fx.TakeChips)][-2:]
    assert [(t.seat, t.amount) for t in took] == [(2, 300), (3, 395)]
    assert [r.rule for r in b.refusals][-1:] == ["T-7"] and "5 of the 400" in b.refusals[-1].reason
    assert b.state.ledger.total_in == 1800 + 695


def test_t2_top_up_past_the_maximum_asked_during_the_hand_is_refused_when_asked():
    b = _bench(1, 2, 3, stack=600)
    b.start(1)  # seat 3 brought 600 to this hand
    b.do(ev.ToppedUp, seat=3, amount=10**12)
    assert [r.rule for r in b.refusals] == ["T-7"] and "may add 400" in b.refusals[-1].reason
    assert b.state.seats[2].topup == 0
    b.do(ev.ToppedUp, seat=3, amount=400)   # fits: waits for the hand's end
    b.do(ev.ToppedUp, seat=3, amount=20)    # 600 + 400 + 20 would pass 1000
    assert len(b.refusals) == 2 and "400 to come" in b.refusals[-1].reason
    assert b.state.seats[2].topup == 400
    b.act(1, "fold")
    b.act(2, "fold")
    assert b.stacks()[3] == 1000 and b.state.ledger.total_in == 1800 + 395


def test_t7_top_up_of_a_player_who_busts_in_the_hand_is_refused():
    b = _bench(1, 2, stack=200)
    b.deal({1: ["7c", "2d"], 2: ["As", "Ad"]}, ["Kh", "9s", "4c", "3d", "Jh"])
    b.start(1)
    b.do(ev.ToppedUp, seat=1, amount=100)
    b.act(1, "all_in")
    b.act(2, "call")
    assert b.stacks()[1] == 0 and b.refusals[-1].rule == "T-2"
    assert b.state.ledger.total_in == 400


def test_t8_stand_up_mid_hand_folds_then_pays_out_after_the_hand():
    b = _bench(1, 2, 3)
    b.start(1)  # SB 2, BB 3, seat 1 first to act
    assert b.to_act == 1
    b.act(1, "raise", 40)
    out = b.do(ev.StoodUp, seat=3)  # not their turn yet: folded at once all the same
    assert b.state.seats[2].leaving and b.state.hand is not None
    assert b.state.hand.folded[b.state.hand.index[3]] and b.state.info.auto[-1] == (3, "fold", "T-8")
    b.act(2, "call")  # the flop comes for 1 and 2
    while b.state.hand is not None:
        b.act(b.to_act, "check")
    freed = [e for e in b.effects if isinstance(e, fx.SeatFreed)]
    assert freed and freed[-1].seat == 3
    pay = [e for e in b.effects if isinstance(e, fx.PayOut)]
    assert pay[-1].amount == 990 and b.state.seats[2] is None
    assert b.state.ledger.accounts["p3"].cashed_out == 990
    del out


def test_busted_player_stays_seated_until_buying_in_again():
    b = _bench(1, 2, stack=200)
    b.deal({1: ["7c", "2d"], 2: ["As", "Ad"]}, ["Kh", "9s", "4c", "3d", "Jh"])
    b.start(1)
    b.act(1, "all_in")
    b.act(2, "call")
    loser = b.state.seats[0]
    assert loser.stack == 0
    assert loser.sitting_out and loser.out_reason == "busted"
    b.start()
    assert b.refused()[0].rule == "T-3"
    b.do(ev.BoughtIn, seat=loser.seat, amount=300)
    assert not b.state.seats[loser.seat - 1].sitting_out
    b.start()
    assert b.state.hand is not None


def test_t5_stood_up_after_ten_hands_sat_out():
    b = _bench(1, 2, 3)
    b.do(ev.SatOut, seat=3)
    for n in range(10):
        b.start(1 if n == 0 else None)
        assert b.state.seats[2] is not None
        while b.state.hand is not None:
            b.act(b.to_act, "fold")
    assert b.state.seats[2] is None
    assert [e.reason for e in b.effects if isinstance(e, fx.SeatFreed)] == ["T-5"]
    assert b.state.ledger.accounts["p3"].cashed_out == 1000


def test_t5_sitting_in_resets_the_count():
    b = _bench(1, 2, 3)
    b.do(ev.SatOut, seat=3)
    for n in range(9):
        b.start(1 if n == 0 else None)
        while b.state.hand is not None:
            b.act(b.to_act, "fold")
    assert b.state.seats[2].hands_out == 9
    b.do(ev.SatIn, seat=3)
    assert b.state.seats[2].hands_out == 0


# ------------------------------------------------------------------ timers and automation

def test_a2_timer_checks_when_free_and_sits_the_player_out():
    b = _bench(1, 2, 3)
    b.start(1)
    b.act(1, "call")
    b.act(2, "call")
    assert b.to_act == 3 and b.state.timer.seat == 3
    b.expire()
    assert b.state.hand.street.value == "flop"
    assert b.state.seats[2].sitting_out and b.state.seats[2].out_reason == "timeout"
    assert (3, "check", "A-2") in b.state.info.auto
    # issue 20: the tablet says why the seat sits out (the public state's out_reason)
    from controller.views import public_view

    seats = {x["seat"]: x for x in public_view(b.state)["seats"]}
    assert seats[3]["out_reason"] == "timeout" and seats[1]["out_reason"] == ""
    b.do(ev.SatIn, seat=3)
    assert public_view(b.state)["seats"][2]["out_reason"] == ""


def test_a2_timer_folds_facing_a_bet():
    b = _bench(1, 2, 3)
    b.start(1)
    b.act(1, "raise", 40)
    assert b.to_act == 2
    b.expire()
    assert b.state.hand.folded[b.state.hand.index[2]]


def test_a2_stale_timer_is_ignored():
    b = _bench(1, 2, 3)
    b.start(1)
    old = b.state.timer.seq
    b.act(1, "call")
    before = b.state
    out = b.do(ev.TimerExpired, timer="action", seq=old)
    assert out == [] and b.state is before


def test_timer_effects_have_rising_sequence_numbers_and_are_cancelled():
    b = _bench(1, 2, 3)
    b.start(1)
    b.act(1, "call")
    starts = [e for e in b.effects if isinstance(e, fx.StartTimer)]
    cancels = [e for e in b.effects if isinstance(e, fx.CancelTimer)]
    assert [s.seq for s in starts] == [1, 2] and [s.seat for s in starts] == [1, 2]
    assert cancels == [fx.CancelTimer(timer="action", seq=1)]
    assert b.state.timer.deadline - b.state.timer.started == NL.action_seconds


def test_a1_stale_action_is_refused():
    b = _bench(1, 2, 3)
    b.start(1)
    seen = b.state.seq
    b.act(1, "call")
    b.act(2, "call", seq=seen)
    r = b.refused()
    assert r and r[0].rule == "A-1" and "stale" in r[0].reason
    b.act(2, "call", seq=b.state.seq)
    assert not b.refused()


def test_a1_a_second_copy_of_a_taken_decision_is_stale_not_out_of_turn():
    """The 100-kill loop (brief L): a seat's decision queued at the broker while the table was
    down was taken after the restart, and the seat's own retry (a new id, the same seq) was
    told "A-1: it is not seat 1's turn" (the tablet: "It is not your turn"), though it was the
    seat's turn when it decided: it is stale (the table moved on: decide again)."""
    b = _bench(1, 2, 3)
    b.start(1)
    seen = b.state.seq
    b.act(1, "call", seq=seen)
    assert not b.refused()
    b.act(1, "call", seq=seen)
    r = b.refused()
    assert r and r[0].rule == "A-1" and r[0].reason.startswith(f"A-1: stale action: decided on state {seen}"), r
    b.act(1, "call", seq=b.state.seq)  # a current decision out of turn is still out of turn
    assert b.refused()[0].reason == "A-1: it is not seat 1's turn"


def test_a1_out_of_turn_and_illegal_amounts_are_refused_with_rule():
    b = _bench(1, 2, 3)
    b.start(1)
    b.act(2, "call", action_id="x1")
    assert b.refused()[0].rule == "A-1" and b.refused()[0].action_id == "x1"
    b.act(1, "raise", 15)
    assert b.refused()[0].rule == "S-4"


def test_a4_disconnected_player_is_checked_for_when_possible_and_timed_when_facing_a_bet():
    b = _bench(1, 2, 3)
    b.start(1)
    b.do(ev.TabletDisconnected, seat=3)
    b.act(1, "call")
    b.act(2, "call")
    # BB (seat 3) may check: the table checks at once, no timer
    assert b.state.hand.street.value == "flop"
    assert (3, "check", "A-4") in b.state.info.auto
    b.act(2, "bet", 20)
    assert b.to_act == 3 and b.state.timer.seat == 3  # facing a bet: the clock runs
    b.do(ev.TabletConnected, seat=3)
    b.act(3, "call")
    assert not b.refused()


def test_a4_disconnect_during_own_turn_checks_now():
    b = _bench(1, 2, 3)
    b.start(1)
    b.act(1, "call")
    b.act(2, "call")
    assert b.to_act == 3
    b.do(ev.TabletDisconnected, seat=3)
    assert b.state.hand.street.value == "flop"


# ------------------------------------------------------------------ pre-selections

def test_a3_call_x_runs_when_the_amount_is_unchanged():
    b = _bench(1, 2, 3)
    b.start(1)
    b.do(ev.PreselectSet, seat=2, choice="call", amount=5)
    b.act(1, "call")
    assert b.to_act == 3 and (2, "call", "A-3") in b.state.info.auto


def test_a3_call_x_is_dropped_when_the_amount_changes():
    b = _bench(1, 2, 3)
    b.start(1)
    b.do(ev.PreselectSet, seat=2, choice="call", amount=5)
    b.act(1, "raise", 30)
    assert b.state.seats[1].preselect is None  # dropped at once, not at the turn
    assert b.to_act == 2


def test_a3_call_x_with_a_wrong_amount_is_refused():
    b = _bench(1, 2, 3)
    b.start(1)
    b.do(ev.PreselectSet, seat=2, choice="call", amount=50)
    assert b.refused()[0].rule == "A-3"


def test_a3_fold_preselection_checks_when_free_and_lasts_one_round():
    b = _bench(1, 2, 3)
    b.start(1)
    b.do(ev.PreselectSet, seat=3, choice="fold")
    b.act(1, "call")
    b.act(2, "call")
    # BB could check: the fold pre-selection checks instead
    assert (3, "check", "A-3") in b.state.info.auto
    assert b.state.hand.street.value == "flop"
    b.do(ev.PreselectSet, seat=1, choice="check")  # flop: 2, 3 then 1
    b.act(2, "check")
    b.act(3, "check")
    assert (1, "check", "A-3") in b.state.info.auto
    # turn: seat 2 checks, then pre-selects "call any" in case of a bet; nobody bets
    b.act(2, "check")
    b.do(ev.PreselectSet, seat=2, choice="call_any")
    b.act(3, "check")
    b.act(1, "check")
    # river: the pre-selection lasted one round; seat 2 gets the clock
    assert b.state.hand.street.value == "river"
    assert b.to_act == 2 and b.state.seats[1].preselect is None and b.state.timer.seat == 2


def test_a3_round_end_clears_preselections():
    b = _bench(1, 2, 3)
    b.start(1)
    b.do(ev.PreselectSet, seat=3, choice="check_fold")
    b.act(1, "raise", 30)
    b.act(2, "fold")
    # seat 3 faced a raise: check/fold folds
    assert (3, "fold", "A-3") in b.state.info.auto
    assert b.state.hand is None


def test_a3_preselect_on_own_turn_is_refused():
    b = _bench(1, 2, 3)
    b.start(1)
    b.do(ev.PreselectSet, seat=1, choice="call_any")
    assert b.refused()[0].rule == "A-3"


# ------------------------------------------------------------------ settings and voids

def test_l2_settings_change_waits_for_the_hand_and_is_recorded():
    b = _bench(1, 2, 3)
    b.start(1)
    b.do(ev.SettingsChanged, changes={"big_blind": 20, "small_blind": 10}, by="floor")
    assert b.state.settings.big_blind == 10 and b.state.pending_settings
    while b.state.hand is not None:
        b.act(b.to_act, "fold")
    assert b.state.settings.big_blind == 20 and b.state.pending_settings is None
    log = b.state.settings_log
    assert len(log) == 1 and log[0]["changes"] == {"big_blind": 20, "small_blind": 10}
    b.start()
    posts = sorted(p.live_post for p in b.state.hand.setup)
    assert posts[-2:] == [10, 20]


def test_l2_bad_settings_are_refused():
    b = _bench(1, 5)
    b.do(ev.SettingsChanged, changes={"seats": 4})
    assert b.refused()[0].rule == "L-2"
    b.do(ev.SettingsChanged, changes={"game": "draw"})  # 6 seats is too many for draw
    assert b.refused()[0].rule == "L-2"
    b.do(ev.SettingsChanged, changes={"game": "draw", "seats": 5})
    assert b.state.settings.game == "draw" and len(b.state.seats) == 5


def test_void_returns_every_chip_and_undoes_the_rotation():
    b = _bench(1, 2, 3)
    b.start(1)
    b.act(1, "raise", 50)
    rotation_before = b.state.info.prior_rotation
    b.do(ev.HandVoided, reason="misdeal", by="floor")
    assert b.state.hand is None and b.stacks() == {1: 1000, 2: 1000, 3: 1000}
    assert b.state.rotation == rotation_before
    assert b.hands[-1]["voided"]
    b.start(1)
    assert (b.state.info.button, b.state.info.sb_seat, b.state.info.bb_seat) == (1, 2, 3)


def test_ledger_books_rake_and_results():
    s = TableSettings(small_blind=5, big_blind=10, seats=6, rake_percent=10, rake_caps=((2, 3),))
    b = _bench(1, 2, 3, settings=s)
    b.start(1)
    b.act(1, "call")
    b.act(2, "call")
    b.act(3, "check")
    for _ in range(3):
        for _ in range(3):
            b.act(b.to_act, "check")
    led = b.state.ledger
    assert led.rake == 3 and sum(a.rake for a in led.accounts.values()) == 3
    assert sum(a.won for a in led.accounts.values()) == -3


# ------------------------------------------------------------------ five card draw (G-3)

DRAW = TableSettings(game="draw", limit="fixed-limit", seats=5, small_blind=5, big_blind=10)


def test_g3_draw_deals_replacements_and_timeout_stands_pat():
    b = _bench(1, 2, 3, settings=DRAW)
    b.start(1)
    deals = [e for e in b.effects if isinstance(e, fx.DealCards)]
    assert [d.target for d in deals] == ["seat"] * 15  # five rounds, one card at a time
    assert [d.seat for d in deals[:3]] == [2, 3, 1]  # from the left of the button
    b.act(1, "call")
    b.act(2, "call")
    b.act(3, "check")
    assert b.state.hand.street.value == "draw" and b.to_act == 2
    hole = private_view_cards(b, 2)
    out = b.act(2, "draw", discards=tuple(hole[:2]))
    deal = [e for e in out if isinstance(e, fx.DealCards)]
    assert [(d.target, d.count) for d in deal[:2]] == [("burn", 1), ("draw", 2)]
    assert b.state.hand.drew[b.state.hand.index[2]] == 2
    assert b.to_act == 3
    b.expire()  # G-3: stand pat on timeout, and sat out
    h = b.state.hand
    assert h.drew[h.index[3]] == 0 and (3, "draw", "A-2") in b.state.info.auto
    b.do(ev.TabletDisconnected, seat=1)  # a gone player stands pat at once
    assert h is not b.state.hand and b.state.hand.street.value == "postdraw"
    assert (1, "draw", "A-4") in b.state.info.auto


def private_view_cards(b: Bench, seat: int) -> list[str]:
    from controller.views import private_view

    return private_view(b.state, seat)["cards"]
