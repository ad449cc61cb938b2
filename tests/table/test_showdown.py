"""Show or muck at the showdown, the player's choice (P-2, P-4, A-2, A-4, T-8).

Every event goes through ``step`` with the chip audit after it (the bench); each test ends
by replaying its journal (events as JSON) from the empty table and comparing the state.
"""

from __future__ import annotations

import json
import tomllib

import pytest

from controller import views
from controller.engine.table import effects as fx
from controller.engine.table import events as ev
from controller.engine.table.codec import from_json, to_json
from controller.engine.table.play import show_offer
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import TableState
from controller.engine.table.step import run
from controller.history import record_to_phh
from drivers.mqtt.codec import history_views

from .harness import Bench

NL = TableSettings(small_blind=5, big_blind=10, seats=4, action_seconds=30, showdown_seconds=8)
BOARD = ["Kh", "Qs", "4c", "9d", "3h"]


def _bench(*seats: int) -> Bench:
    b = Bench(NL)
    for s in seats:
        b.seat_up(s, 1000)
    return b


def _dump(state: TableState) -> str:
    return json.dumps(state.to_json(), sort_keys=True)


def _replays(b: Bench) -> None:
    """The journal (each event through its JSON) rebuilds exactly the same table."""
    again, _ = run(b.initial, [from_json(json.loads(json.dumps(to_json(e)))) for e in b.log])
    assert _dump(again) == _dump(b.state)
    assert _dump(TableState.from_json(json.loads(_dump(b.state)))) == _dump(b.state)


def _to_showdown(b: Bench) -> None:
    """Everyone checks or calls until the showdown waits for someone (or the hand ends)."""
    while b.state.hand is not None and b.to_act is not None:
        lg = b.state.hand.legal()
        if lg.show or lg.muck:
            return
        b.act(b.to_act, "check" if lg.check else "call")


def _showdown_three() -> Bench:
    """Seats 1, 2, 3 (button 1) check it down: seat 2 (first left of the button) holds aces
    and is shown by the table; seats 3 and 1 cannot beat them."""
    b = _bench(1, 2, 3)
    b.deal({1: ["7c", "2d"], 2: ["As", "Ad"], 3: ["8s", "6d"]}, BOARD)
    b.start(1)
    _to_showdown(b)
    return b


def _seat(b: Bench, n: int) -> dict:
    return next(s for s in views.public_view(b.state)["seats"] if s["seat"] == n)


# ------------------------------------------------------------------ order and the choice

def test_p2_a_hand_that_can_win_is_tabled_and_a_loser_is_asked_on_the_showdown_clock():
    b = _showdown_three()
    hand = b.state.hand
    assert hand.street.value == "showdown"
    assert _seat(b, 2)["shown"] == ["As", "Ad"]  # tabled by the table: it can win
    assert b.to_act == 3  # P-2: then clockwise
    assert b.state.info.auto[-1] == (2, "show", "P-2")
    t = b.state.timer
    assert t is not None and t.seat == 3 and t.deadline - t.started == NL.showdown_seconds
    start = [e for e in b.last if isinstance(e, fx.StartTimer)]
    assert start and start[-1].seconds == NL.showdown_seconds and start[-1].seat == 3
    turn = views.public_view(b.state)["turn"]
    assert turn["seat"] == 3 and turn["showdown"] is True and turn["seconds"] == NL.showdown_seconds
    mine = views.private_view(b.state, 3)
    assert mine["to_act"] is True
    assert mine["legal"]["show"] is True and mine["legal"]["muck"] is True
    assert not any(mine["legal"][k] for k in ("fold", "check", "call", "bet", "raise", "all_in", "draw"))
    other = views.private_view(b.state, 1)
    assert other["legal"] is None
    # nobody else may answer for seat 3, nor may seat 3 bet
    b.act(1, "muck")
    assert [r.rule for r in b.refused()] == ["A-1"]
    b.act(3, "fold")
    assert b.refused() and b.to_act == 3
    # the betting is over: no pre-selection is taken at the showdown
    b.do(ev.PreselectSet, seat=1, choice="check_fold")
    assert [r.rule for r in b.refused()] == ["A-3"] and b.state.seat(1).preselect is None
    _replays(b)


def test_p2_muck_then_show_in_order_and_p4_records_both():
    b = _showdown_three()
    b.act(3, "muck")
    assert not b.refused() and b.to_act == 1
    assert _seat(b, 3)["cards"] == 0 and _seat(b, 3)["shown"] is None  # mucked: never public
    assert b.state.timer.seat == 1  # a new clock for seat 1
    b.act(1, "show")
    assert b.state.hand is None
    rec = b.hands[-1]
    showed = {s["seat"]: (s["showed"], s["cards"]) for s in rec["seats"]}
    assert showed == {1: ("shown", ["7c", "2d"]), 2: ("shown", ["As", "Ad"]), 3: ("mucked", ["8s", "6d"])}
    assert rec["auto"] == [[2, "show", "P-2"]]  # the players chose the rest
    assert rec["result"]["mucked"] == [3]
    # between hands the shown hands stay face up; the mucked one never shows
    assert _seat(b, 1)["shown"] == ["7c", "2d"] and _seat(b, 2)["shown"] == ["As", "Ad"]
    assert _seat(b, 3)["shown"] is None
    public, seated = history_views([rec])
    pub = {s["seat"]: s["cards"] for s in public["hands"][0]["seats"]}
    assert pub == {1: ["7c", "2d"], 2: ["As", "Ad"], 3: None}
    assert {s["seat"]: s["cards"] for s in seated["hands"][0]["seats"]}[3] == ["8s", "6d"]  # P-4
    phh = tomllib.loads(record_to_phh(rec))
    p = {pid: f"p{i + 1}" for i, pid in enumerate(phh["_player_ids"])}  # player id -> PHH p-number
    assert phh["_mucked"] == [p["p3"]] and sorted(phh["_shown"]) == sorted([p["p1"], p["p2"]])
    assert f"{p['p3']} sm" in phh["actions"] and f"d dh {p['p3']} 8s" in phh["actions"]  # P-4: kept
    _replays(b)


def test_a2_the_showdown_clock_running_out_mucks_without_sitting_the_player_out():
    b = _showdown_three()
    seq = b.state.timer.seq
    b.expire()
    assert b.to_act == 1
    assert b.state.info.auto[-1] == (3, "muck", "A-2")
    s3 = b.state.seat(3)
    assert not s3.sitting_out  # letting the clock run is how a live player lets a loser go
    b.expire()
    assert b.state.hand is None
    assert b.hands[-1]["auto"][-2:] == [[3, "muck", "A-2"], [1, "muck", "A-2"]]
    assert {s["seat"]: s["showed"] for s in b.hands[-1]["seats"]} == {1: "mucked", 2: "shown", 3: "mucked"}
    assert b.stacks() == {1: 990, 2: 1020, 3: 990}
    # the first clock's expiry arriving late is ignored
    out = b.do(ev.TimerExpired, timer="action", seq=seq)
    assert out == []
    _replays(b)


def test_a4_a_disconnected_player_is_mucked_for_at_once():
    b = _showdown_three()
    b.do(ev.TabletDisconnected, seat=3)
    assert b.state.info.auto[-1] == (3, "muck", "A-4")
    assert b.to_act == 1
    # disconnected before its turn comes: mucked without a clock
    b.do(ev.TabletDisconnected, seat=1)
    assert b.state.hand is None
    assert b.hands[-1]["auto"][-1] == [1, "muck", "A-4"]
    _replays(b)


def test_a4_a_disconnected_player_whose_hand_can_win_is_still_shown():
    b = _bench(1, 2, 3)
    b.deal({1: ["Kd", "Kc"], 2: ["As", "Ad"], 3: ["8s", "6d"]}, BOARD)
    b.start(1)
    b.do(ev.TabletDisconnected, seat=1)  # checks for seat 1 on every street
    _to_showdown(b)
    b.act(3, "muck")
    assert b.state.hand is None
    rec = b.hands[-1]
    assert {s["seat"]: s["showed"] for s in rec["seats"]}[1] == "shown"  # trip kings beat aces
    assert rec["result"]["awards"][0]["winners"] == [1]
    _replays(b)


def test_t8_a_player_leaving_is_mucked_and_leaves_when_the_hand_ends():
    b = _showdown_three()
    b.do(ev.StoodUp, seat=3)
    assert b.state.info.auto[-1] == (3, "muck", "T-8")
    b.act(1, "muck")
    assert b.state.hand is None and b.state.seat(3) is None
    assert any(isinstance(e, fx.SeatFreed) and e.seat == 3 for e in b.effects)
    _replays(b)


def test_auto_muck_preference_mucks_a_loser_at_once_but_never_a_hand_that_can_win():
    b = _bench(1, 2, 3)
    for s in (1, 2, 3):
        b.do(ev.AutoMuckSet, seat=s, on=True)
    assert all(b.state.seat(s).auto_muck for s in (1, 2, 3))
    assert _seat(b, 1)["auto_muck"] is True
    b.deal({1: ["7c", "2d"], 2: ["As", "Ad"], 3: ["8s", "6d"]}, BOARD)
    b.start(1)
    _to_showdown(b)
    assert b.state.hand is None  # nobody was asked
    rec = b.hands[-1]
    assert {s["seat"]: s["showed"] for s in rec["seats"]} == {1: "mucked", 2: "shown", 3: "mucked"}
    assert rec["auto"] == [[2, "show", "P-2"], [3, "muck", "P-2"], [1, "muck", "P-2"]]
    assert b.state.seat(1).auto_muck  # it lasts from hand to hand
    _replays(b)


def test_auto_muck_turned_on_during_the_players_turn_mucks_now_and_off_asks_again():
    b = _showdown_three()
    b.do(ev.AutoMuckSet, seat=3, on=True)
    assert b.to_act == 1 and b.state.info.auto[-1] == (3, "muck", "P-2")
    b.do(ev.AutoMuckSet, seat=3, on=False)
    assert not b.state.seat(3).auto_muck and b.to_act == 1
    b.do(ev.AutoMuckSet, seat=4, on=True)
    assert [r.rule for r in b.refused()] == ["T-3"]  # nobody sits there
    _replays(b)


def test_a_side_pot_the_loser_can_still_win_is_shown_by_the_table():
    b = Bench(NL)
    b.seat_up(1, 1000)
    b.seat_up(2, 200)  # short: all-in for the main pot only
    b.seat_up(3, 1000)
    b.deal({1: ["Kd", "Kc"], 2: ["As", "Ad"], 3: ["8s", "6d"]}, ["Js", "Qs", "4c", "9d", "3h"])
    b.start(1)
    # pre-flop: 2 (small blind) goes all-in, 3 and 1 call; on the river 3 bets into a side
    # pot and 1 calls. 3 shows first (the river's bettor, P-2; nothing shown yet), the aces
    # beat it for the main pot (shown), and kings, beaten by the aces, beat 8-6 for the side
    # pot: every hand could still win something, so the table shows them all
    while b.state.hand is not None and b.state.hand.street.value == "preflop":
        seat = b.to_act
        b.act(seat, "all_in" if seat == 2 else "call")
    while b.state.hand is not None and b.state.hand.street.value != "showdown":
        lg = b.state.hand.legal()
        if b.to_act == 3 and b.state.hand.street.value == "river" and lg.bet is not None:
            b.act(3, "bet", 50)
        else:
            b.act(b.to_act, "check" if lg.check else "call")
    assert b.state.hand is None  # everyone could win something: nobody was asked
    rec = b.hands[-1]
    assert {s["seat"]: s["showed"] for s in rec["seats"]} == {1: "shown", 2: "shown", 3: "shown"}
    assert [a["winners"] for a in rec["result"]["awards"]] == [[2], [1]]
    _replays(b)


# ------------------------------------------------------------------ the uncalled winner

def _uncontested() -> Bench:
    b = _bench(1, 2, 3)
    b.deal({1: ["7c", "2d"], 2: ["As", "Ad"], 3: ["8s", "6d"]}, BOARD)
    b.start(1)
    while b.state.hand is not None:  # seat 1 (button) raises, the blinds fold
        b.act(b.to_act, "raise" if b.to_act == 1 else "fold", 30 if b.to_act == 1 else None)
    return b


def test_p2_an_uncalled_winner_need_not_show_but_may_until_the_next_hand():
    b = _uncontested()
    rec = b.hands[-1]
    assert {s["seat"]: s["showed"] for s in rec["seats"]}[1] == "folded"  # not shown
    assert show_offer(b.state) == 1
    finished = [e for e in b.effects if isinstance(e, fx.PublishPrivate)]
    assert any(e.seats == (1,) and not e.clear for e in finished)  # the winner keeps a view
    assert all(1 not in e.seats for e in finished if e.clear)
    offer = views.private_view(b.state, 1)
    assert offer["cards"] == ["7c", "2d"] and offer["to_act"] is False
    assert offer["legal"]["show"] is True and offer["legal"]["muck"] is False
    assert views.private_view(b.state, 2) is None and views.private_view(b.state, 3) is None
    assert _seat(b, 1)["shown"] is None
    # only the winner may show; a muck means nothing after the hand
    b.act(2, "show")
    assert [r.rule for r in b.refused()] == ["P-2"]
    b.act(1, "muck")
    assert [r.rule for r in b.refused()] == ["A-1"]
    out = b.act(1, "show")
    shown = [e for e in out if isinstance(e, fx.HandShown)]
    assert len(shown) == 1 and shown[0].hand == rec["hand"] and shown[0].cards == ("7c", "2d")
    assert any(isinstance(e, fx.PublishPrivate) and e.seats == (1,) and e.clear for e in out)
    new = b.state.last_result
    assert shown[0].record == new
    assert {s["seat"]: s["showed"] for s in new["seats"]}[1] == "shown"
    assert new["result"]["shown"] == {"1": ["7c", "2d"]}
    assert new["result"]["stacks"] == rec["result"]["stacks"]  # the chips are where they were
    assert _seat(b, 1)["shown"] == ["7c", "2d"]
    assert views.private_view(b.state, 1) is None and show_offer(b.state) is None
    public, _ = history_views([new])
    assert {s["seat"]: s["cards"] for s in public["hands"][0]["seats"]}[1] == ["7c", "2d"]
    phh = tomllib.loads(record_to_phh(new))
    p = {pid: f"p{i + 1}" for i, pid in enumerate(phh["_player_ids"])}
    assert phh["actions"][-1] == f"{p['p1']} sm 7c2d" and phh["_shown"] == [p["p1"]]
    b.act(1, "show")  # once
    assert [r.rule for r in b.refused()] == ["P-2"]
    _replays(b)


def test_p2_the_offer_to_show_ends_with_the_next_hand_or_the_player_leaving():
    b = _uncontested()
    out = b.start()
    assert show_offer(b.state) is None
    # seat 1 is dealt in again: its private topic carries the new hand, not a clear
    assert not any(isinstance(e, fx.PublishPrivate) and e.clear and 1 in e.seats for e in out)
    while b.state.hand is not None:
        b.act(b.to_act, "fold")
    winner = show_offer(b.state)
    assert winner is not None
    out = b.do(ev.StoodUp, seat=winner)
    assert show_offer(b.state) is None
    assert any(isinstance(e, fx.PublishPrivate) and e.seats == (winner,) and e.clear for e in out)
    b.act(winner, "show")
    assert [r.rule for r in b.refused()] == ["P-2"]
    _replays(b)


def test_no_offer_after_a_showdown_or_a_void():
    b = _showdown_three()
    b.act(3, "muck")
    b.act(1, "muck")
    assert show_offer(b.state) is None
    b.start()
    b.do(ev.HandVoided, reason="misdeal")
    assert show_offer(b.state) is None
    _replays(b)


@pytest.mark.parametrize("game", ["omaha", "draw"])
def test_other_games_ask_the_loser_too(game: str):
    settings = TableSettings(game=game, small_blind=5, big_blind=10, seats=3, showdown_seconds=8)
    b = Bench(settings)
    for s in (1, 2, 3):
        b.seat_up(s, 1000)
    b.start(1)
    asked = 0
    while b.state.hand is not None:
        lg = b.state.hand.legal()
        if lg.show or lg.muck:
            asked += 1
            assert b.state.timer.deadline - b.state.timer.started == 8
            b.act(b.to_act, "muck")
        elif lg.draw is not None:
            b.act(b.to_act, "draw")
        else:
            b.act(b.to_act, "check" if lg.check else "call")
    rec = b.hands[-1]
    showed = [s["showed"] for s in rec["seats"]]
    assert showed.count("mucked") == asked and "shown" in showed
    _replays(b)
