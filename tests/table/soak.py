"""A seeded random table session: joins, leaves, sit-outs, timeouts, disconnects, top-ups,
settings changes and random legal actions, hand after hand (issue 3 soak).

Used by tests/table/test_soak.py (a short run, audited after every event) and by
bench/bench_table.py (10,000 hands, timed).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from controller.engine.table import events as ev
from controller.engine.table.play import card_texts, show_offer
from controller.engine.table.settings import TableSettings

from .harness import Bench

GAMES = (
    TableSettings(game="holdem", limit="no-limit", seats=9, small_blind=5, big_blind=10),
    TableSettings(game="omaha", limit="pot-limit", seats=6, small_blind=5, big_blind=10),
    TableSettings(game="holdem", limit="fixed-limit", seats=10, small_blind=5, big_blind=10,
                  rake_percent=5, rake_caps=((2, 5), (4, 10))),
    TableSettings(game="draw", limit="fixed-limit", seats=5, small_blind=5, big_blind=10),
    TableSettings(game="holdem", limit="no-limit", seats=6, small_blind=25, big_blind=50,
                  smallest_chip=25, ante=25, rake_percent=5, rake_caps=((2, 100),)),
)


class Soak:
    """Play ``hands`` random hands on one table; ``check`` audits after every event.

    ``clock`` (e.g. ``time.perf_counter``), when given, times every ``step`` call into
    ``bench.durations``.
    """

    def __init__(self, seed: int, *, settings: TableSettings | None = None, check: bool = True,
                 clock: Callable[[], float] | None = None, keep: bool = True) -> None:
        self.rng = random.Random(seed)
        cfg = settings or self.rng.choice(GAMES)
        self.bench = Bench(cfg, rng=self.rng, check=check, clock=clock, keep=keep)
        self.next_player = 0
        self.counts: dict[str, int] = {}

    def _count(self, what: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1

    def _buy(self, seat: int) -> None:
        b = self.bench
        cfg = b.state.settings
        lo = int(cfg.buy_in_min)  # type: ignore[arg-type]
        hi = cfg.buy_in_max or lo * 5
        chip = cfg.smallest_chip
        amount = self.rng.randrange(lo, hi + 1)
        amount -= amount % chip
        if amount < lo:
            amount += chip
        b.do(ev.BoughtIn, seat=seat, amount=amount)

    def between_hands(self) -> None:
        """Seat changes that happen between hands."""
        b, rng = self.bench, self.rng
        offer = show_offer(b.state)
        if offer is not None and rng.random() < 0.4:  # P-2: the uncontested winner shows
            b.act(offer, "show")
            assert not b.refused(), b.refused()
            self._count("show-after")
        st = b.state
        taken = [s for s in st.seats if s is not None]
        if taken and rng.random() < 0.1:  # P-2: the standing "muck losing hands" choice
            b.do(ev.AutoMuckSet, seat=rng.choice(taken).seat, on=rng.random() < 0.5)
            self._count("auto-muck")
        st = b.state
        free = [i + 1 for i, s in enumerate(st.seats) if s is None]
        if free and (len(free) > len(st.seats) - 3 or rng.random() < 0.3):
            seat = rng.choice(free)
            self.next_player += 1
            b.do(ev.PlayerSatDown, seat=seat, player=f"u{self.next_player % 25}",
                 name=f"U{self.next_player}", post=rng.random() < 0.5)
            if b.state.seats[seat - 1] is not None:
                self._buy(seat)
                self._count("join")
        for s in list(b.state.seats):
            if s is None:
                continue
            r = rng.random()
            if s.stack == 0:
                if r < 0.4:
                    self._buy(s.seat)
                    self._count("rebuy")
                elif r < 0.6:
                    b.do(ev.StoodUp, seat=s.seat)
                    self._count("leave")
            elif s.sitting_out and r < 0.3:
                b.do(ev.SatIn, seat=s.seat, post=rng.random() < 0.5)
                self._count("sit-in")
            elif r < 0.03:
                b.do(ev.StoodUp, seat=s.seat)
                self._count("leave")
            elif r < 0.06:
                b.do(ev.SatOut, seat=s.seat)
                self._count("sit-out")
            elif r < 0.08:
                cfg = b.state.settings
                room = (cfg.buy_in_max or s.stack * 2) - s.stack
                if room >= cfg.smallest_chip:
                    amt = rng.randrange(cfg.smallest_chip, room + 1, cfg.smallest_chip)
                    b.do(ev.ToppedUp, seat=s.seat, amount=amt)
                    self._count("top-up")
            elif not s.connected and r < 0.5:
                b.do(ev.TabletConnected, seat=s.seat)

    def during_hand(self) -> None:
        """One random thing while a hand runs: an action, a timeout, or a seat event."""
        b, rng = self.bench, self.rng
        hand = b.state.hand
        seat = b.to_act
        r = rng.random()
        if r < 0.05:
            others = [s for s in b.state.seats if s is not None]
            s = rng.choice(others)
            k = rng.random()
            if k < 0.3:
                b.do(ev.TabletDisconnected if s.connected else ev.TabletConnected, seat=s.seat)
                self._count("disconnect")
            elif k < 0.4:
                b.do(ev.StoodUp, seat=s.seat)
                self._count("leave")
            elif k < 0.6:
                b.do(ev.SatOut, seat=s.seat)
            elif k < 0.98:
                choice = rng.choice(ev.PRESELECTS)
                amount = None
                if choice in ev.PRESELECT_AMOUNT:
                    amount = rng.randrange(0, 200)
                    if choice == "call" and s.seat in hand.index:
                        i = hand.index[s.seat]
                        amount = max(0, min(hand.current - hand.bet[i], hand.stack[i]))
                b.do(ev.PreselectSet, seat=s.seat, choice=choice, amount=amount)
                self._count("preselect")
            else:
                b.do(ev.HandVoided, reason="soak misdeal")
                self._count("void")
            return
        if seat is None:
            raise AssertionError("a hand waits for nobody")
        if r < 0.10 and b.state.timer is not None:
            b.expire()
            self._count("timeout")
            return
        lg = hand.legal()
        if lg.show or lg.muck:  # P-2: a hand that cannot beat one already shown
            name = "show" if rng.random() < 0.3 else "muck"
            b.act(seat, name)
            self._count(name)
            return
        if lg.draw is not None:
            i = hand.index[seat]
            k = rng.randrange(0, lg.draw + 1)
            cards = card_texts(hand.hole[i])
            b.act(seat, "draw", discards=tuple(rng.sample(cards, k)))
            return
        options = []
        if lg.fold:
            options += ["fold"] * 2
        if lg.check:
            options += ["check"] * 4
        if lg.call:
            options += ["call"] * 5
        if lg.bet is not None or lg.raise_ is not None:
            options += ["raise"] * 2
        if lg.all_in is not None:
            options += ["all_in"]
        name = rng.choice(options)
        if name == "raise":
            lo, hi = lg.bet if lg.bet is not None else lg.raise_
            chip = b.state.settings.smallest_chip
            to = rng.randrange(lo, hi + 1)
            to -= (to - lo) % chip
            b.act(seat, "bet" if lg.bet is not None else "raise", to)
        else:
            b.act(seat, name)
        self._count("action")

    def run(self, hands: int, *, max_events: int = 10**8) -> Bench:
        """Play until ``hands`` hands have started; return the bench."""
        b = self.bench
        while b.state.hands < hands and b.sent < max_events:
            if b.state.hand is None:
                self.between_hands()
                if self.rng.random() < 0.01:
                    bb = self.rng.choice((10, 20))
                    chip = b.state.settings.smallest_chip
                    if bb % chip == 0 and (bb // 2) % chip == 0:
                        b.do(ev.SettingsChanged, changes={"big_blind": bb, "small_blind": bb // 2,
                                                          "ante": 0}, by="soak")
                        self._count("settings")
                b.start(1 if b.state.hands == 0 else None)
            else:
                self.during_hand()
        return b
