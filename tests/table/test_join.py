"""A player takes a free seat from its tablet: ``PlayerJoined`` (T-3, T-2, T-4).

Every event goes through the Bench, which audits chip conservation and the ledger after
each one (stacks + pots + rake == chips brought to the table).
"""

from __future__ import annotations

from controller.engine.table import effects as fx
from controller.engine.table import events as ev
from controller.engine.table.codec import from_json, to_json
from controller.engine.table.settings import TableSettings
from controller.engine.table.step import run, step
from controller.views import public_view

from .harness import Bench

# buy-in 200..1000; tablets may seat their players
NL = TableSettings(small_blind=5, big_blind=10, seats=6, tablet_join="direct")


def _join(b: Bench, seat: int, name: str = "Ann", amount: int = 500, post: bool = False,
          player: str | None = None) -> list[fx.Effect]:
    return b.do(ev.PlayerJoined, seat=seat, player=player or f"name:{name.lower()}", name=name,
                amount=amount, post=post)


def _fold_to_the_end(b: Bench) -> None:
    """Everyone folds in turn (checks when folding is not offered) until the hand ends."""
    for _ in range(100):
        if b.state.hand is None:
            return
        assert b.to_act is not None
        b.act(b.to_act, "fold" if b.state.hand.legal().fold else "check")
        assert not b.refused(), b.refused()
    raise AssertionError("the hand did not end")


def _bench_1_3_5() -> Bench:
    """Players in seats 1, 3 and 5; one hand played with the button on 1 (SB 3, BB 5)."""
    b = Bench(NL)
    for s in (1, 3, 5):
        b.seat_up(s, 1000)
    b.start(1)
    assert (b.state.info.button, b.state.info.sb_seat, b.state.info.bb_seat) == (1, 3, 5)
    _fold_to_the_end(b)
    return b


def test_t3_join_takes_the_seat_with_its_chips_in_one_step():
    b = Bench(NL)
    out = _join(b, 4, name="Ann", amount=700)
    assert not b.refused()
    seat = b.state.seat(4)
    assert (seat.player, seat.name, seat.stack, seat.new) == ("name:ann", "Ann", 700, True)
    assert fx.TakeChips(player="name:ann", amount=700, seat=4) in out
    assert b.state.ledger.total_in == 700
    assert b.state.ledger.accounts["name:ann"].bought_in == 700
    view = public_view(b.state)
    assert view["seats"][3]["name"] == "Ann" and view["seats"][3]["stack"] == 700
    assert view["seats"][3]["status"] == "waiting"  # T-3: takes part from the next hand


def test_t3_join_is_refused_when_the_table_does_not_let_tablets_seat_players():
    b = Bench(TableSettings(small_blind=5, big_blind=10, seats=6))  # tablet_join off
    before = b.state
    _join(b, 4)
    assert [r.rule for r in b.refused()] == ["T-3"] and b.refused()[0].seat == 4
    assert b.state is before
    assert public_view(b.state)["join"] == {"mode": "off", "post_now": []}


def test_t3_seat_taken_or_player_already_seated_is_refused_and_nothing_changes():
    b = Bench(NL)
    _join(b, 4, name="Ann")
    before = b.state
    _join(b, 4, name="Bob")
    assert b.refused()[0].rule == "T-3" and "taken" in b.refused()[0].reason
    _join(b, 5, name="Ann")  # the same player (name) cannot sit twice
    assert b.refused()[0].rule == "T-3" and "already sits in seat 4" in b.refused()[0].reason
    assert b.state is before and b.state.seat(5) is None


def test_t2_join_out_of_range_leaves_the_seat_free_and_takes_no_chips():
    b = Bench(NL)
    for amount, rule in ((199, "T-2"), (1001, "T-2")):
        before = b.state
        out = _join(b, 2, amount=amount)
        assert [r.rule for r in b.refused()] == [rule]
        assert not any(isinstance(e, fx.TakeChips) for e in out)
        assert b.state is before and b.state.seat(2) is None  # no seat without its chips
    odd = TableSettings(small_blind=5, big_blind=10, seats=6, smallest_chip=5, tablet_join="direct")
    b = Bench(odd)
    _join(b, 2, amount=503)
    assert b.refused()[0].rule == "S-10" and b.state.seat(2) is None
    _join(b, 2, amount=1000)
    assert not b.refused() and b.state.seat(2).stack == 1000


def _ann_wins_bobs_stack() -> Bench:
    """Ann (seat 1) and Bob (seat 2) sit with 1000 each, the maximum; Ann's aces win Bob's
    whole stack, so she has 2000."""
    b = Bench(NL)
    _join(b, 1, name="Ann", amount=1000)
    _join(b, 2, name="Bob", amount=1000)
    b.deal({1: ["As", "Ad"], 2: ["7c", "2d"]}, ["Kh", "9s", "4c", "3d", "Jh"])
    b.start(1)
    b.act(1, "all_in")
    b.act(2, "call")
    return b


def test_t2_a_player_back_within_20_minutes_brings_what_they_left_with():
    b = _ann_wins_bobs_stack()
    assert b.stacks()[1] == 2000  # above the maximum of 1000
    b.do(ev.StoodUp, seat=1)
    b.do(ev.StoodUp, seat=2)
    b.tick(5 * 60)
    out = _join(b, 3, name="Ann", amount=1000)
    reason = b.refused()[0].reason
    assert b.refused()[0].rule == "T-2" and "2000" in reason and "20 minutes" in reason
    assert b.state.seat(3) is None and not any(isinstance(e, fx.TakeChips) for e in out)
    _join(b, 3, name="Ann", amount=2000)  # the maximum rises to what she left with
    assert not b.refused() and b.state.seat(3).stack == 2000
    # Bob left with nothing: the ordinary range
    _join(b, 4, name="Bob", amount=200)
    assert not b.refused()


def test_t4_post_now_is_refused_between_the_big_blind_and_the_button():
    b = _bench_1_3_5()
    # next hand: big blind 1 (after 5), button 3 (last small blind): seat 4 lies between
    assert public_view(b.state)["join"] == {"mode": "direct", "post_now": [2, 6]}
    before = b.state
    _join(b, 4, name="Cy", post=True)
    assert b.refused()[0].rule == "T-4" and b.state is before
    _join(b, 4, name="Cy", post=False)  # waiting is always allowed
    assert not b.refused()
    b.start()
    assert 4 not in b.state.info.dealt and b.state.info.button == 3


def test_t4_the_view_offers_post_now_exactly_where_the_table_deals_the_newcomer_in():
    b = _bench_1_3_5()
    base = b.state
    offered = public_view(base)["join"]["post_now"]
    for seat in (2, 4, 6):
        st, out = step(base, ev.PlayerJoined(at=b.t, seat=seat, player="name:dee", name="Dee",
                                              amount=400, post=True))
        refused = [e for e in out if isinstance(e, fx.Refuse)]
        assert (not refused) == (seat in offered), (seat, refused)
        if refused:
            assert refused[0].rule == "T-4"
            continue
        st, _ = step(st, ev.HandStartRequested(at=b.t + 1))
        hand = st.hand
        assert seat in st.info.dealt  # T-4: posts and is dealt in at once
        setup = hand.setup[hand.index[seat]]
        assert setup.live_post == NL.big_blind and setup.dead_post == 0


def test_t4_waiting_newcomer_is_dealt_in_when_the_big_blind_reaches_the_seat():
    b = _bench_1_3_5()
    _join(b, 6, name="Eve", post=False)
    b.start()
    # the next big blind is the first player after 5: Eve in seat 6, not due anything else
    assert b.state.info.bb_seat == 6 and 6 in b.state.info.dealt
    assert b.state.hand.setup[b.state.hand.index[6]].live_post == NL.big_blind


def test_join_is_journalled_and_replays_to_the_same_state():
    b = _bench_1_3_5()
    _join(b, 2, name="Ann", amount=600, post=True)
    b.start()
    _fold_to_the_end(b)
    for e in b.log:
        assert from_json(to_json(e)) == e
    replayed, _ = run(b.initial, [from_json(to_json(e)) for e in b.log])
    assert replayed.to_json() == b.state.to_json()
    assert b.state.ledger.accounts["name:ann"].hands == 1


CONFIRM = TableSettings(small_blind=5, big_blind=10, seats=6, tablet_join="confirm")


def test_t3_confirm_mode_reserves_the_seat_and_the_chips_come_when_the_dealer_confirms():
    b = Bench(CONFIRM)
    b.seat_up(1, 1000)
    b.seat_up(2, 1000)
    total = b.state.ledger.total_in
    out = _join(b, 4, name="Ann", amount=800, post=False)
    assert not b.refused() and not any(isinstance(e, fx.TakeChips) for e in out)
    seat = b.state.seat(4)
    assert (seat.name, seat.stack, seat.buy_in_pending) == ("Ann", 0, 800)
    assert b.state.ledger.total_in == total and "name:ann" not in b.state.ledger.accounts
    view = public_view(b.state)["seats"][3]
    assert (view["status"], view["stack"], view["buy_in_pending"]) == ("waiting", 0, 800)
    # not dealt in while the chips are not on the table
    b.start(1)
    assert 4 not in b.state.info.dealt
    # the dealer confirms during the hand: the chips come, she waits for a coming hand
    out = b.do(ev.BuyInConfirmed, seat=4, by="dealer")
    assert fx.TakeChips(player="name:ann", amount=800, seat=4) in out
    assert (b.state.seat(4).stack, b.state.seat(4).buy_in_pending) == (800, 0)
    assert b.state.ledger.total_in == total + 800
    _fold_to_the_end(b)
    for _ in range(3):  # dealt in at the latest when the big blind reaches seat 4 (T-4)
        b.start()
        if 4 in b.state.info.dealt:
            break
        _fold_to_the_end(b)
    assert 4 in b.state.info.dealt


def test_t3_confirm_mode_refusals_and_standing_up_before_the_chips_come():
    b = Bench(CONFIRM)
    b.do(ev.BuyInConfirmed, seat=3, by="dealer")
    assert b.refused()[0].rule == "T-3"  # nobody there
    _join(b, 3, name="Ann", amount=100)  # T-2 is checked when asked, not when confirmed
    assert b.refused()[0].rule == "T-2" and b.state.seat(3) is None
    _join(b, 3, name="Ann", amount=500)
    b.do(ev.BuyInConfirmed, seat=3, by="dealer")
    before = b.state
    b.do(ev.BuyInConfirmed, seat=3, by="dealer")  # confirmed once only
    assert b.refused()[0].rule == "T-3" and b.state is before
    _join(b, 5, name="Bob", amount=500)
    b.do(ev.StoodUp, seat=5)  # Bob changes his mind: the seat is free, no chips moved
    bob = b.state.ledger.accounts.get("name:bob")
    assert b.state.seat(5) is None and (bob is None or (bob.bought_in, bob.cashed_out) == (0, 0))
    assert b.state.ledger.total_in == 500 and b.state.ledger.total_out == 0
    for e in b.log:
        assert from_json(to_json(e)) == e
    replayed, _ = run(b.initial, b.log)
    assert replayed.to_json() == b.state.to_json()


def test_t3_a_buy_in_booked_by_the_floor_replaces_one_waiting_for_the_dealer():
    b = Bench(CONFIRM)
    _join(b, 2, name="Ann", amount=500)
    b.do(ev.BoughtIn, seat=2, amount=700)
    assert (b.state.seat(2).stack, b.state.seat(2).buy_in_pending) == (700, 0)
    b.do(ev.BuyInConfirmed, seat=2, by="dealer")  # nothing waits any more: no second buy-in
    assert b.refused()[0].rule == "T-3" and b.state.ledger.total_in == 700


def test_t5_a_seat_whose_buy_in_is_never_confirmed_is_freed_after_ten_hands():
    b = Bench(CONFIRM)
    b.seat_up(1, 1000)
    b.seat_up(2, 1000)
    _join(b, 4, name="Ann", amount=500)
    freed = []
    for _ in range(12):
        b.start()
        _fold_to_the_end(b)
        freed += [e for e in b.effects if isinstance(e, fx.SeatFreed) and e.seat == 4]
        if b.state.seat(4) is None:
            break
    assert b.state.seat(4) is None and [e.reason for e in freed] == ["T-5"]
    acct = b.state.ledger.accounts.get("name:ann")
    assert acct is None or (acct.bought_in, acct.cashed_out) == (0, 0)  # nothing was booked


def test_t2_giving_up_a_seat_whose_buy_in_never_came_keeps_the_amount_left_with():
    """T-2: a player who left with 2000 (maximum 1000) cannot get round it by taking a seat in
    confirm mode and standing up before the chips come; a real sitting replaces it."""
    b = _ann_wins_bobs_stack()
    b.do(ev.StoodUp, seat=1)
    b.do(ev.SettingsChanged, changes={"tablet_join": "confirm"})
    b.tick(60)
    _join(b, 3, name="Ann", amount=2000)  # reserved; the chips wait for the dealer
    assert b.state.seat(3).buy_in_pending == 2000
    b.do(ev.StoodUp, seat=3)
    b.tick(60)
    _join(b, 4, name="Ann", amount=200)
    assert [r.rule for r in b.refused()] == ["T-2"] and b.state.seat(4) is None
    _join(b, 4, name="Ann", amount=2000)
    b.do(ev.BuyInConfirmed, seat=4)
    b.do(ev.StoodUp, seat=4)  # she really sat with 2000, within the maximum she had to bring
    b.tick(60)
    b.do(ev.SettingsChanged, changes={"tablet_join": "direct"})
    _join(b, 4, name="Ann", amount=2000)
    assert not b.refused()


def test_l2_a_seat_beyond_a_pending_shrink_is_refused_and_no_chips_are_lost():
    """L-2: the floor shrinks the table to 4 seats during a hand (seats 5, 6 free, so it waits
    for the hand's end); a player may not take seat 6 meanwhile, by tablet or by the floor."""
    b = Bench(NL)
    for s in (1, 2, 3):
        b.seat_up(s, 500)
    b.start(1)
    b.do(ev.SettingsChanged, changes={"seats": 4})
    assert b.state.pending_settings == {"seats": 4} and not b.refused()
    _join(b, 6, name="Ann", amount=500)
    assert [r.rule for r in b.refused()] == ["L-2"] and "seats 1..4" in b.refused()[0].reason
    b.do(ev.PlayerSatDown, seat=5, player="cy", name="Cy")
    assert [r.rule for r in b.refused()] == ["L-2"]
    assert b.state.seat(5) is None and b.state.seat(6) is None
    _fold_to_the_end(b)
    assert len(b.state.seats) == 4 and b.state.settings.seats == 4


def test_seats_taken_and_given_up_before_any_chips_came_leave_no_account_behind():
    """Confirm mode: taking a seat and standing up before the dealer confirms costs nothing,
    so it must not grow the table's books (every snapshot carries them) with a name each time."""
    b = Bench(TableSettings(small_blind=5, big_blind=10, seats=6, tablet_join="confirm"))
    b.seat_up(1, 500)
    before = dict(b.state.ledger.accounts)
    for i in range(50):
        _join(b, 2, name=f"Guest {i}", amount=500)
        assert b.state.seat(2).buy_in_pending == 500
        b.do(ev.StoodUp, seat=2)
    assert b.state.ledger.accounts == before and b.state.seat(2) is None


def test_a_seat_waiting_for_the_dealer_is_told_so_not_to_buy_in_again():
    b = Bench(TableSettings(small_blind=5, big_blind=10, seats=6, tablet_join="confirm"))
    _join(b, 2, name="Ann", amount=500)
    for event in (ev.ToppedUp(at=b.t, seat=2, amount=100), ev.SatIn(at=b.t, seat=2)):
        b.send(event)
        (r,) = b.refused()
        assert r.rule == "T-2" and "waits for the dealer" in r.reason, r.reason


def test_t3_a_busted_players_re_buy_confirmed_as_the_next_hand_starts_comes_during_it_never_lost():
    """Issue 19's race at a cash table (``BoughtIn.pending``, T-3): seat 3 busts all in; its
    tablet asks to buy in again between hands; the next hand starts (seat 3 not dealt: no
    chips) before the dealer's confirm, which books the chips during that hand (the hand does
    not wait for them and they are never dropped). Asked while the player is all in with
    no chips behind in a running hand, the re-buy is refused at once (T-7), nothing waits."""
    b = Bench(CONFIRM)
    for s in (1, 3, 5):
        b.seat_up(s, 1000)
    b.deal({3: ["7c", "2d"], 5: ["As", "Ah"]}, ["Kd", "Qh", "9s", "5c", "4h"])
    b.start(1)
    b.act(1, "fold")
    b.act(3, "all_in")
    b.do(ev.BoughtIn, seat=3, amount=500, pending=True)  # all in, no chips behind: mid-hand
    assert [e.rule for e in b.refused()] == ["T-7"] and b.state.seat(3).buy_in_pending == 0
    b.act(5, "call")
    assert b.state.hand is None and b.state.seat(3).stack == 0
    b.do(ev.BoughtIn, seat=3, amount=500, pending=True)
    assert not b.refused() and b.state.seat(3).buy_in_pending == 500
    total = b.state.ledger.total_in
    b.start()  # the dealer has not confirmed yet: seat 3 is not dealt in
    assert 3 not in b.state.info.dealt
    b.do(ev.BuyInConfirmed, seat=3, by="dealer")
    assert not b.refused() and b.state.seat(3).stack == 500 and b.state.ledger.total_in == total + 500
    _fold_to_the_end(b)
    assert b.state.seat(3).stack == 500 and not b.state.seat(3).sitting_out
