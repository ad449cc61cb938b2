"""Speed of whole hands (issue 2): six-max no-limit, deal to payout, random actions.

Prints hands per CPU second for our engine and for PokerKit measured in the same run,
and the ratios against the issue's anchors (PokerKit: 480 hands/s with random
actions, 141 with six-way showdowns; goal: at least 20x, i.e. ~9,600 hands/s), plus
the share of a showdown hand's time spent ranking hands (goal: never the bottleneck).

Usage: .venv/bin/python bench/bench_hands.py [--seconds 3] [--no-pokerkit]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.engine import hand_showdown as hand_mod  # noqa: E402
from controller.engine.cards import FULL_DECK  # noqa: E402
from controller.engine.hand import Hand  # noqa: E402
from controller.engine.settings import HandSettings, PlayerSetup, Street  # noqa: E402

ANCHOR_RANDOM = 480.0
ANCHOR_SHOWDOWN = 141.0
GOAL = 20.0

SETTINGS = HandSettings(small_blind=50, big_blind=100)
PLAYERS = [PlayerSetup(1, 10000, live_post=50), PlayerSetup(2, 10000, live_post=100)] + [
    PlayerSetup(s, 10000) for s in range(3, 7)
]


def our_hand(rng: random.Random, showdown: bool) -> Hand:
    """Play one six-max hand: deal from a shuffled deck, random legal actions, payout."""
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    h = Hand(SETTINGS, PLAYERS, button=6, sb_seat=1, bb_seat=2)
    rand = rng.random
    while h.phase != 6:  # until complete
        need = h.pending_deal()
        if need is not None:
            if need.kind == "hole":
                h.deal_hole(need.seat, [deck.pop(), deck.pop()])
            else:
                h.deal_board([deck.pop() for _ in range(need.count)], burn=deck.pop())
            continue
        lg = h.legal()
        seat = lg.seat
        if lg.show:
            h.show(seat)
            continue
        if showdown:
            h.check(seat) if lg.check else h.call(seat)
            continue
        r = rand()
        if r < 0.25 and lg.fold:
            h.fold(seat)
        elif r < 0.8 or (lg.bet is None and lg.raise_ is None):
            h.check(seat) if lg.check else h.call(seat)
        elif r < 0.97:
            lo, hi = lg.bet or lg.raise_
            h.raise_to(seat, lo if rand() < 0.5 else rng.randint(lo, hi))
        else:
            h.all_in(seat)
    return h


def pk_hand(rng: random.Random, showdown: bool) -> None:
    """Play one six-max hand in PokerKit with the same kind of random actions."""
    from pokerkit import Automation, NoLimitTexasHoldem

    auto = tuple(Automation)
    st = NoLimitTexasHoldem.create_state(auto, False, 0, (50, 100), 100, (10000,) * 6, 6)
    rand = rng.random
    while st.status:
        if showdown:
            st.check_or_call()
            continue
        r = rand()
        if r < 0.25 and st.can_fold() and st.checking_or_calling_amount:
            st.fold()
        elif r < 0.8 or not st.can_complete_bet_or_raise_to():
            st.check_or_call()
        elif r < 0.97:
            lo = st.min_completion_betting_or_raising_to_amount
            hi = st.max_completion_betting_or_raising_to_amount
            st.complete_bet_or_raise_to(lo if rand() < 0.5 else rng.randint(lo, hi))
        else:
            st.complete_bet_or_raise_to(st.max_completion_betting_or_raising_to_amount)


def rate(fn, seconds: float, showdown: bool) -> float:
    """Return hands per CPU second of ``fn`` over about ``seconds`` of this process's CPU time.

    CPU time (``time.process_time``), not wall time: the machine is shared, and both
    engines are measured the same way in the same run.
    """
    rng = random.Random(1)
    for _ in range(20):  # warm up (the evaluator fills its tables lazily)
        fn(rng, showdown)
    n = 0
    t0 = time.process_time()
    end = t0 + seconds
    while True:
        for _ in range(20):
            fn(rng, showdown)
        n += 20
        now = time.process_time()
        if now >= end:
            return n / (now - t0)


def ranking_share(seconds: float) -> float:
    """Return the fraction of a six-way showdown hand's time spent in the ranker."""
    spent = [0.0]
    real = hand_mod._default_ranker

    def timed(game):
        inner = real(game)

        def rank(hole, board):
            t = time.perf_counter()
            v = inner(hole, board)
            spent[0] += time.perf_counter() - t
            return v

        return rank

    hand_mod._default_ranker = timed
    try:
        t0 = time.perf_counter()
        r = rate(our_hand, seconds, True)
        total = time.perf_counter() - t0  # wall, like the timer inside
    finally:
        hand_mod._default_ranker = real
    _ = r
    return spent[0] / total


def action_latency(hands: int = 2000) -> tuple[float, float, float]:
    """Return (median, p99, max) microseconds of one engine call (deal or action, incl. legal())."""
    rng = random.Random(2)
    times: list[int] = []
    clock = time.perf_counter_ns
    for _ in range(hands):
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        h = Hand(SETTINGS, PLAYERS, button=6, sb_seat=1, bb_seat=2)
        while not h.is_complete:
            t = clock()
            need = h.pending_deal()
            if need is not None:
                if need.kind == "hole":
                    h.deal_hole(need.seat, [deck.pop(), deck.pop()])
                else:
                    h.deal_board([deck.pop() for _ in range(need.count)], burn=deck.pop())
            else:
                lg = h.legal()
                if lg.show:
                    h.show(lg.seat)
                elif rng.random() < 0.2 and lg.fold:
                    h.fold(lg.seat)
                elif rng.random() < 0.8 or lg.raise_ is None and lg.bet is None:
                    h.check(lg.seat) if lg.check else h.call(lg.seat)
                else:
                    h.raise_to(lg.seat, (lg.bet or lg.raise_)[0])
            times.append(clock() - t)
    times.sort()
    return (times[len(times) // 2] / 1000, times[int(len(times) * 0.99)] / 1000, times[-1] / 1000)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the figures; return 0."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--no-pokerkit", action="store_true")
    ns = ap.parse_args(argv)
    ours_r = rate(our_hand, ns.seconds, False)
    ours_s = rate(our_hand, ns.seconds, True)
    print(f"ours random actions : {ours_r:9.0f} hands/s  = {ours_r / ANCHOR_RANDOM:5.1f}x the 480/s anchor "
          f"(goal {GOAL:.0f}x)")
    print(f"ours 6-way showdown : {ours_s:9.0f} hands/s  = {ours_s / ANCHOR_SHOWDOWN:5.1f}x the 141/s anchor")
    if not ns.no_pokerkit:
        try:
            pk_r = rate(pk_hand, ns.seconds, False)
            pk_s = rate(pk_hand, ns.seconds, True)
        except ImportError:
            print("pokerkit not installed: same-run ratios skipped")
        else:
            print(f"pokerkit random     : {pk_r:9.0f} hands/s  -> ours/pokerkit = {ours_r / pk_r:5.1f}x (same run)")
            print(f"pokerkit showdown   : {pk_s:9.0f} hands/s  -> ours/pokerkit = {ours_s / pk_s:5.1f}x (same run)")
            print(f"(this machine runs PokerKit at {pk_r / ANCHOR_RANDOM:.2f}x the anchor's speed; the same-run "
                  f"ratio is the one to compare with the {GOAL:.0f}x goal)")
    med, p99, worst = action_latency()
    print(f"one engine call (deal or action + legal): median {med:.1f} us, p99 {p99:.1f} us, "
          f"max {worst:.0f} us (table goal: p99 < 1000 us per event)")
    share = ranking_share(ns.seconds)
    print(f"hand ranking share of a 6-way showdown hand: {100 * share:4.1f}% of its time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
