"""Property tests (hypothesis) of one hand: chips conserved at every step, no card twice,
every pot awarded, illegal moves change nothing, and a replay of the events rebuilds the
same hand. Games: hold'em, Omaha, draw (incl. six- and seven-handed draw reaching G-4);
every betting structure; random stacks (short blinds and antes included), dead posts,
rake, random legal actions, show or muck, and the odd misdeal."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from controller.engine.cards import FULL_DECK
from controller.engine.errors import IllegalAction
from controller.engine.hand import Hand
from controller.engine.settings import HandSettings, PlayerSetup, RakeSettings, Street


def _state(h: Hand) -> tuple:
    return (tuple(h.stack), tuple(h.bet), tuple(h.committed), h.current, h.to_act, h.phase,
            tuple(h.folded), len(h._log), h.street)


def _check_invariants(h: Hand, total: int) -> None:
    assert h.total_chips() == total
    assert all(x >= 0 for x in h.stack)
    cards = [c for hole in h.hole for c in hole if c is not None] + [c for c in h.board if c is not None]
    assert len(cards) == len(set(cards)), "G-5: a card is in two places"
    if not h.is_complete:
        assert sum(p.amount for p in h.pots()) + sum(h.bet) == sum(h.committed) + h.dead
        if h.pending_deal() is None:
            lg = h.legal()
            assert lg.seat == h.seat_to_act
            for rng in (lg.bet, lg.raise_):
                if rng is not None:
                    i = h.index[lg.seat]
                    assert h.current < rng[0] <= rng[1] <= h.bet[i] + h.stack[i]


class Dealer:
    """Deals from a fixed deck order; on a G-4 request serves the stub, then the others'
    discards and the burns in a (seeded) shuffled order."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.deck = list(FULL_DECK)
        rng.shuffle(self.deck)
        self.pile: list[tuple[int, object]] = []  # (seat, card) discards and burns (seat 0)
        self.noted: set[int] = set()

    def deal(self, h: Hand) -> None:
        need = h.pending_deal()
        if need.kind == "hole":
            h.deal_hole(need.seat, [self.deck.pop() for _ in range(need.count)])
        elif need.kind == "board":
            burn = self.deck.pop() if need.burn else None
            h.deal_board([self.deck.pop() for _ in range(need.count)], burn=burn)
        else:
            for s in h.seats:
                if s not in self.noted and h.player(s)["drew"] is not None:
                    self.noted.add(s)
                    self.pile += [(s, c) for c in h.discarded(s)]
            burn = self.deck.pop() if need.burn else None
            if burn is not None:
                self.pile.append((0, burn))
            if need.reshuffle_after is None:
                cards = [self.deck.pop() for _ in range(need.count)]
            else:
                cards = [self.deck.pop() for _ in range(need.reshuffle_after)]
                pool = [c for s, c in self.pile if s != need.seat]
                self.pile = [(s, c) for s, c in self.pile if s == need.seat]
                self.rng.shuffle(pool)
                self.deck = pool
                cards += [self.deck.pop() for _ in range(need.count - need.reshuffle_after)]
            h.deal_draw(need.seat, cards, burn=burn)


def _act(h: Hand, rng: random.Random) -> None:
    lg = h.legal()
    seat = lg.seat
    if lg.draw is not None:
        cards = h.hole_cards(seat)
        h.draw(seat, rng.sample(cards, rng.randint(0, min(lg.draw, 5))))
        return
    if lg.show:
        (h.muck if rng.random() < 0.3 else h.show)(seat)
        return
    rng_ = lg.bet or lg.raise_
    # an illegal amount is refused and changes nothing
    if lg.min_raise_to is not None and rng.random() < 0.2:
        before = _state(h)
        bad = lg.min_raise_to - 1 if lg.min_raise_to - 1 > h.current else (lg.max_raise_to or 0) + 1
        i = h.index[seat]
        if bad != h.bet[i] + h.stack[i]:
            try:
                h.raise_to(seat, bad)
            except IllegalAction:
                assert _state(h) == before
            else:
                raise AssertionError(f"raise to {bad} accepted outside {lg}")
            return
    r = rng.random()
    if r < 0.15 and lg.fold:
        h.fold(seat)
    elif r < 0.65 or (rng_ is None and lg.all_in is None):
        h.check(seat) if lg.check else h.call(seat)
    elif rng_ is not None and r < 0.9:
        h.raise_to(seat, rng.choice([rng_[0], rng_[1], rng.randint(*rng_)]))
    else:
        h.all_in(seat) if lg.all_in is not None else h.raise_to(seat, rng_[0])


@st.composite
def hands(draw):
    game = draw(st.sampled_from(["holdem", "omaha", "draw"]))
    limit = draw(st.sampled_from(["no-limit", "pot-limit", "fixed-limit"]))
    most = {"holdem": 10, "omaha": 10, "draw": 7}[game]
    n = draw(st.integers(2, most))
    bb = draw(st.sampled_from([2, 10, 100]))
    sb = bb // 2
    ante = draw(st.sampled_from([0, 0, 1, sb]))
    rake = draw(st.sampled_from([None, RakeSettings(percent=5, cap=3 * bb, caps=((2, bb),)),
                                 RakeSettings(percent=10, no_flop_no_drop=False, draw_counts_as_flop=False)]))
    s = HandSettings(game=game, limit=limit, small_blind=sb, big_blind=bb, ante=ante, small_bet=bb,
                     big_bet=2 * bb, cap_lifted_heads_up=draw(st.booleans()), rake=rake,
                     max_players=most if game == "draw" else None)
    seats = sorted(draw(st.sets(st.integers(1, 10), min_size=n, max_size=n)))
    stacks = draw(st.lists(st.one_of(st.integers(1, 3 * bb), st.integers(bb, 300 * bb)), min_size=n, max_size=n))
    button = draw(st.integers(1, 10))  # may be an empty seat: dead button (T-1)
    after = [s_ for s_ in seats if s_ > button] + [s_ for s_ in seats if s_ <= button]
    sb_seat = after[0] if (n > 2 and draw(st.booleans())) or n == 2 else None
    if n == 2:
        sb_seat, bb_seat = after[1], after[0]
    else:
        bb_seat = after[1] if sb_seat is not None else after[0]
    dead_seat = draw(st.sampled_from(seats))
    players = []
    for seat, stack in zip(seats, stacks):
        live = sb if seat == sb_seat else (bb if seat == bb_seat else 0)
        dead = sb if (seat == dead_seat and seat not in (sb_seat, bb_seat) and n > 2) else 0
        players.append(PlayerSetup(seat, stack, live_post=live or (bb if dead else 0), dead_post=dead))
    return s, players, button, sb_seat, bb_seat


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands(), st.randoms(use_true_random=False), st.booleans())
def test_hand_properties(spec, rng, maybe_void) -> None:
    s, players, button, sb_seat, bb_seat = spec
    h = Hand(s, players, button=button, sb_seat=sb_seat, bb_seat=bb_seat)
    total = sum(p.stack for p in players)
    dealer = Dealer(rng)
    steps = 0
    void_at = rng.randint(0, 60) if maybe_void and rng.random() < 0.2 else -1
    while not h.is_complete:
        _check_invariants(h, total)
        if steps == void_at:
            h.void("misdeal")
            event("void")
            break
        if h.pending_deal() is not None:
            dealer.deal(h)
        else:
            _act(h, rng)
        steps += 1
        assert steps < 500
    _check_invariants(h, total)
    r = h.result()
    assert h.street is Street.COMPLETE
    assert sum(r.stacks.values()) + r.rake == total
    if r.voided:
        assert r.stacks == {p.seat: p.stack for p in players}
    else:
        # every pot awarded: the chips that left the stacks came back as shares or rake
        shares = sum(sum(a.shares.values()) for a in r.awards)
        assert sum(a.amount for a in r.awards) == total - sum(r.stacks.values()) + shares
        event(f"pots={len(r.awards)}")
        event("showdown" if r.showdown_order else "no showdown")
        if h._reshuffles:
            event("G-4 reshuffle")
        for a in r.awards:
            assert sum(a.shares.values()) + a.rake == a.amount and a.winners
            assert set(a.winners) <= set(a.eligible)
            if len(a.winners) > 1:
                vals = list(a.shares.values())
                assert max(vals) - min(vals) <= s.smallest_chip  # P-3: at most one odd chip each
        if any(len(x) for x in r.shown.values()):
            assert len(r.showdown_order) >= 2
    # the journal replays to the same hand (exact reconstruction)
    again = Hand.replay(s, players, h.events, button=button, sb_seat=sb_seat, bb_seat=bb_seat)
    assert again.snapshot() == h.snapshot()


@settings(max_examples=60, deadline=None)
@given(st.integers(6, 7), st.randoms(use_true_random=False))
def test_g4_draw_deck_exhaustion_properties(n, rng) -> None:
    """G-4: six or seven players all drawing 3..5: the stub runs out, the others' discards
    and the burn are reshuffled; every hand ends with five cards, none twice, nobody
    gets back a card they threw, and chips are conserved."""
    s = HandSettings(game="draw", limit="fixed-limit", small_blind=5, big_blind=10, max_players=7)
    players = [PlayerSetup(1, 500, live_post=5), PlayerSetup(2, 500, live_post=10)] + [
        PlayerSetup(k, 500) for k in range(3, n + 1)]
    h = Hand(s, players, button=n, sb_seat=1, bb_seat=2)
    dealer = Dealer(rng)
    while h.street is not Street.POSTDRAW:
        if h.pending_deal() is not None:
            dealer.deal(h)
            continue
        lg = h.legal()
        if lg.draw is not None:
            h.draw(lg.seat, rng.sample(h.hole_cards(lg.seat), rng.randint(3, 5)))
        else:
            h.check(lg.seat) if lg.check else h.call(lg.seat)
        _check_invariants(h, 500 * n)
    wanted = 5 * n + 1 + sum(h.player(seat)["drew"] for seat in h.seats)
    assert (h._reshuffles > 0) == (wanted > 52)
    event(f"reshuffles={h._reshuffles}")
    for seat in h.seats:
        hole = h.hole_cards(seat)
        assert len(hole) == 5 and not set(hole) & set(h.discarded(seat))
    live = [c for seat in h.seats for c in h.hole_cards(seat)]
    assert len(set(live)) == 5 * n
