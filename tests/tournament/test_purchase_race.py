"""Issue 19: a rebuy or add-on confirmed between the pacer's decision to deal and the hand's
start waits for the hand's end as a top-up; a player who busts in that hand bought it before
busting and is not out (the chips come between hands). The deal never blocks; chips in play
= starting stacks + rebuys + add-ons; the prize pool holds exactly the purchases made."""

from __future__ import annotations

import dataclasses

import pytest

from controller.engine.table import effects as fx
from controller.engine.table import events as ev
from controller.orchestrator import TournamentOwn
from tests.tournament.helpers import collecting
from tests.tournament.test_director import BUY_TOML, LATE_TOML, _reopen, _table

RACE_TOML = LATE_TOML.replace("entry = { price = 100, fee = 10 }", """entry = { price = 100, fee = 10 }
rebuy = { price = 100, fee = 10, chips = 2000, max = 3, until_level = 6, max_stack = 800 }""")


def _one_more(item):
    """A top-up the tournament posts (wrapped: TournamentOwn) with one chip more than booked."""
    if isinstance(item, TournamentOwn) and isinstance(item.event, ev.ToppedUp):
        return TournamentOwn(dataclasses.replace(item.event, amount=item.event.amount + 1))
    return item


def test_a_rebuy_confirmed_as_the_hand_starts_by_a_player_who_busts_in_it_keeps_the_player_in(tmp_path) -> None:
    run, director, clock, _ask = _table(tmp_path, RACE_TOML, players=6)
    orch = run.orch
    post = run.pacer.post
    raced: dict[int, set[str]] = {}  # hand -> players whose rebuy was confirmed as it started

    failures: list[str] = []  # called from the pacer, a listener: the orchestrator swallows what it raises

    def confirm(_o, item) -> None:
        if isinstance(item, ev.HandStartRequested):
            assert orch.state.hand is None
            for s in orch.state.occupied():
                if s.stack and "rebuy" in director.offers(s.seat):
                    director.confirm_purchase(s.seat, by="dealer", kind="rebuy")
                    raced.setdefault(orch.state.hands + 1, set()).add(s.player)

    confirm_collecting = collecting(confirm, failures)

    def post_then_confirm(item, done=None) -> None:
        post(item, done=done)  # the hand start is in the inbox: the table has not started it
        confirm_collecting(orch, item)

    run.pacer.post = post_then_confirm
    ended: dict[int, set[str]] = {}  # hand -> players who ended it with no chips
    busted: dict[int, set[str]] = {}  # hand -> players the table reported out
    orch.listeners.append(collecting(lambda _o, effects: [
        (ended.__setitem__(e.hand, {x["player"] for x in e.record["seats"] if x["end"] == 0}),
         busted.__setitem__(e.hand, set(e.record["busted"])))
        for e in effects if isinstance(e, fx.HandFinished)], failures))
    idle_turns = [0]
    hands = [0]

    def idle() -> None:
        clock.advance(1.0)  # a show window ends (P-2)
        if orch.state.hands != hands[0]:
            hands[0], idle_turns[0] = orch.state.hands, 0
        idle_turns[0] += 1
        if (director.finished and orch.state.hand is None) or idle_turns[0] > 2000:
            orch.stop()

    run.run(poll=0.001, on_idle=idle)
    run.close()
    survived = [(h, p) for h, ps in raced.items() for p in ps & ended.get(h, set())]
    assert failures == [], failures[:3]
    assert director.finished, f"the deal blocked after hand {orch.state.hands}: {director.problems}"
    assert survived, "no player busted in a hand whose rebuy was confirmed as it started"
    assert all(p not in busted[h] for h, p in survived), (survived, busted)
    assert director.problems == []
    st = director.standings
    assert st.rebuys > 0
    assert orch.state.ledger.total_in == st.chips_in_play() == 6 * 2000 + st.rebuys * 2000
    assert st.prize_pool() == sum(director.result["payouts"]) == 6 * 100 + st.rebuys * 100


def test_a_purchase_whose_chips_the_table_refuses_is_refunded_once_and_the_deal_goes_on(tmp_path) -> None:
    """The table refuses a confirmed rebuy's chips (here an amount the smallest chip does not
    divide: S-10): the rebuy is refunded, journalled (``refund``) before the standings lose
    it, its price out of the prize pool; nothing waits for it, so hands are dealt; a restart
    on the journal neither brings the chips nor refunds it twice."""
    run, director, clock, ask = _table(tmp_path, BUY_TOML)
    orch = run.orch
    run.pacer.max_hands = 0
    orch.pump()  # the entries seated
    seat = min(director.draw.values())
    post = orch.post
    orch.post = lambda item, done=None: post(_one_more(item), done=done)
    ok, reason, _detail = ask("rebuy", seat=seat)
    assert ok, reason
    orch.post = post
    orch.pump()
    kinds = [e.payload for e in orch.journal.entries() if e.kind == "tournament"]
    assert [(p["type"], p["kind"], p["chips"]) for p in kinds if p["type"] == "refund"] == [("refund", "rebuy", 2000)]
    assert not director._seating_pending() and director.problems == []
    assert director.standings.rebuys == 0 and director.standings.prize_pool() == 400
    assert orch.state.ledger.total_in == director.standings.chips_in_play() == 4 * 2000
    run.pacer.max_hands = None
    run.pacer.kick(orch)
    orch.pump()
    assert orch.state.hand is not None or orch.state.hands > 0  # dealt
    run.close()
    run2, again = _reopen(tmp_path, BUY_TOML, clock)
    run2.orch.pump()
    assert again.standings.rebuys == 0 and again.standings.prize_pool() == 400
    assert run2.orch.state.ledger.total_in == again.standings.chips_in_play() == 4 * 2000
    assert again.problems == [] and not again._seating_pending()
    run2.close()


def test_an_addon_confirmed_as_the_break_begins_after_the_deal_was_decided_comes_at_the_hands_end(tmp_path) -> None:
    """The pacer decides a hand in level 2; the clock reaches the add-on break before the
    hand starts and the dealer confirms every seat's add-on: the hand plays level 2's stakes
    (TDA 23), the add-ons wait for its end and come then (the same top-up a rebuy is: a
    player who busts in that hand stays in, tests/table/test_tournament_table.py), and no
    hand is dealt on the break. Chips in play and prize pool hold every add-on."""
    run, director, clock, _ask = _table(tmp_path, BUY_TOML)
    orch = run.orch
    run.pacer.max_hands = 0
    orch.pump()
    post = run.pacer.post
    confirmed: list[int] = []
    failures: list[str] = []

    def confirm(_o, item) -> None:
        if isinstance(item, ev.HandStartRequested) and not confirmed:
            director.time.advance(1200 - director.clock.to_json(director.time())["played"])  # to the break
            for s in orch.state.occupied():
                director.confirm_purchase(s.seat, by="dealer", kind="addon")
                confirmed.append(s.seat)

    confirm_collecting = collecting(confirm, failures)

    def post_then_confirm(item, done=None) -> None:
        post(item, done=done)
        confirm_collecting(orch, item)

    run.pacer.post = post_then_confirm
    run.pacer.max_hands = 1
    run.pacer.kick(orch)

    def idle() -> None:
        clock.advance(1.0)
        if orch.state.hands >= 1 and orch.state.hand is None:
            orch.stop()

    run.run(poll=0.001, on_idle=idle)
    assert director.hand_start() is None  # on the break: no hand
    run.close()
    assert failures == [], failures[:3]
    assert len(confirmed) == 4 and orch.state.hands == 1
    assert orch.state.last_result["level"]["big_blind"] != 0
    st = director.standings
    assert st.addons == 4 and st.prize_pool() == 4 * 100 + 4 * 100
    assert orch.state.ledger.total_in == st.chips_in_play() == 4 * 2000 + 4 * 3000
    assert not director._seating_pending() and director.problems == []


class _Killed(BaseException):
    """A kill -9 stand-in: not an ``Exception``, so the orchestrator does not swallow it."""


@pytest.mark.parametrize("when", ["before-refund", "after-refund"])
def test_a_kill_around_a_refund_neither_refunds_nor_brings_the_purchase_twice(tmp_path, when) -> None:
    """The table refused a confirmed rebuy's chips; the process dies just before the refund
    is journalled (the restart brings the chips: the rebuy is carried out, no refund) or just
    after (the restart replays the refund: no chips, no second refund)."""
    run, director, clock, ask = _table(tmp_path, BUY_TOML)
    orch = run.orch
    run.pacer.max_hands = 0
    orch.pump()
    seat = min(director.draw.values())
    journal = director._journal

    def dying_journal(payload):
        if payload["type"] == "refund" and when == "before-refund":
            raise _Killed
        seq = journal(payload)
        if payload["type"] == "refund":
            raise _Killed
        return seq

    director._journal = dying_journal
    post = orch.post
    orch.post = lambda item, done=None: post(_one_more(item), done=done)
    assert ask("rebuy", seat=seat)[0]
    with pytest.raises(_Killed):
        orch.pump()
    run.close()
    run2, again = _reopen(tmp_path, BUY_TOML, clock)
    run2.orch.pump()
    refunds = [e.payload for e in run2.orch.journal.entries()
               if e.kind == "tournament" and e.payload["type"] == "refund"]
    rebuys = 1 if when == "before-refund" else 0
    assert len(refunds) == 1 - rebuys and again.standings.rebuys == rebuys
    assert again.standings.prize_pool() == 400 + 100 * rebuys
    assert run2.orch.state.ledger.total_in == again.standings.chips_in_play() == 8000 + 2000 * rebuys
    assert again.problems == [] and not again._seating_pending()
    run2.close()
