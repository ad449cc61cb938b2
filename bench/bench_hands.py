"""Speed of whole hands against PokerKit on the same decisions, interleaved (issues 2 and 21).

Six-max no-limit Hold'em, deal to payout. First a set of hands is *scripted*: each is
played once in our engine with seeded random legal actions (or check/call to a six-way
showdown), and the script keeps its cards (holes, burns, boards) and every decision
(fold, check, call, bet/raise to an amount, all-in). Then both engines play exactly those
scripts, in rounds that alternate which engine goes first:

- ours: ``Hand`` asked for its legal options before each decision (as the table does),
  then the decision applied; cards dealt as the script says;
- PokerKit (``NoLimitTexasHoldem``, blinds, bets, showdown and chips automated; holes,
  burns and boards dealt by hand with the script's cards): its options asked the same way
  (can fold, amount to call, smallest and largest raise), then the decision applied.

Each engine gets the cards as its own card objects, made outside the timing. PokerKit
is slower here than with its own random dealing (the 480 hands/s of issue 2's anchor):
dealing chosen cards goes through its deck checks.

Before timing, every scripted hand is played through PokerKit once and its final stacks
compared with ours: the hands that agree are the ones timed (a hand where the engines
disagree would not be the same work; their count is printed). Rates are hands per CPU
second (``time.process_time``, the machine is shared), median of the rounds.

Anchors (issue 2): PokerKit itself in the same run; goal ours >= 20x PokerKit with random
actions. Also printed: six-way showdowns, and the share of a showdown hand's time spent
ranking hands (issue 2: never the bottleneck). The last line gives anchor, goal and ratio.

Usage: .venv/bin/python bench/bench_hands.py [--hands 300] [--rounds 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.engine import hand_showdown as hand_mod  # noqa: E402
from controller.engine.cards import FULL_DECK  # noqa: E402
from controller.engine.hand import Hand  # noqa: E402
from controller.engine.settings import HandSettings, PlayerSetup  # noqa: E402

GOAL = 20.0

SETTINGS = HandSettings(small_blind=50, big_blind=100)
PLAYERS = [PlayerSetup(1, 10000, live_post=50), PlayerSetup(2, 10000, live_post=100)] + [
    PlayerSetup(s, 10000) for s in range(3, 7)
]


def script(rng: random.Random, showdown: bool) -> dict:
    """Play one hand in our engine with random legal decisions; return its script."""
    deck = [str(c) for c in FULL_DECK]
    rng.shuffle(deck)
    h = Hand(SETTINGS, PLAYERS, button=6, sb_seat=1, bb_seat=2)
    holes: dict[int, list[str]] = {}
    ops: list[tuple] = []
    rand = rng.random
    while not h.is_complete:
        need = h.pending_deal()
        if need is not None:
            if need.kind == "hole":
                cards = [deck.pop(), deck.pop()]
                holes[need.seat] = cards
                ops.append(("hole", need.seat, cards))
            else:
                burn = deck.pop()
                cards = [deck.pop() for _ in range(need.count)]
                ops.append(("board", cards, burn))
            h.deal_board(ops[-1][1], burn=ops[-1][2]) if need.kind != "hole" else \
                h.deal_hole(need.seat, cards)
            continue
        lg = h.legal()
        seat = lg.seat
        if lg.show:
            h.show(seat)
            ops.append(("show", seat))
            continue
        i = h.index[seat]
        r = rand()
        if showdown or r >= 0.25 or not lg.fold:
            if showdown or r < 0.8 or (lg.bet is None and lg.raise_ is None):
                name = "check" if lg.check else "call"
                h.check(seat) if lg.check else h.call(seat)
            elif r < 0.97:
                lo, hi = lg.bet or lg.raise_
                name = "to"
                h.raise_to(seat, lo if rand() < 0.5 else rng.randint(lo, hi))
            else:
                before = h.current
                h.all_in(seat)
                name = "to" if h.bet[i] > before else "call"
        else:
            name = "fold"
            h.fold(seat)
        ops.append((name, seat, h.bet[i]))
    res = h.result()
    # the cards as each engine's own objects, made outside the timing (no parsing timed)
    from pokerkit import Card as PkCard

    def pk(cards):
        return [next(iter(PkCard.parse(c))) for c in cards]

    ours_ops, pk_ops = [], []
    for op in ops:
        if op[0] == "hole":
            ours_ops.append(("hole", op[1], [_CARD[c] for c in op[2]]))
            pk_ops.append(("hole", op[1], pk(op[2])))
        elif op[0] == "board":
            ours_ops.append(("board", [_CARD[c] for c in op[1]], _CARD[op[2]]))
            pk_ops.append(("board", pk(op[1]), pk([op[2]])[0]))
        else:
            ours_ops.append(op)
            pk_ops.append(op)
    return {"ops": ours_ops, "pk_ops": pk_ops, "stacks": [res.stacks[s] for s in range(1, 7)]}


_CARD = {str(c): c for c in FULL_DECK}


def play_ours(sc: dict) -> None:
    """Play a script in our engine."""
    h = Hand(SETTINGS, PLAYERS, button=6, sb_seat=1, bb_seat=2)
    for op in sc["ops"]:
        kind = op[0]
        if kind == "hole":
            h.pending_deal()
            h.deal_hole(op[1], op[2])
        elif kind == "board":
            h.pending_deal()
            h.deal_board(op[1], burn=op[2])
        elif kind == "show":
            h.legal()
            h.show(op[1])
        else:
            h.legal()
            seat = op[1]
            if kind == "fold":
                h.fold(seat)
            elif kind == "check":
                h.check(seat)
            elif kind == "call":
                h.call(seat)
            else:
                h.raise_to(seat, op[2]) if op[2] < h.bet[h.index[seat]] + h.stack[h.index[seat]] \
                    else h.all_in(seat)


_PK = None


def _pk():
    global _PK
    if _PK is None:
        from pokerkit import Automation, NoLimitTexasHoldem

        auto = tuple(a for a in Automation if a not in (
            Automation.HOLE_DEALING, Automation.BOARD_DEALING, Automation.CARD_BURNING))
        _PK = NoLimitTexasHoldem, auto
    return _PK


def play_pk(sc: dict) -> list[int]:
    """Play a script in PokerKit; return the final stacks (seat 1..6)."""
    game, auto = _pk()
    st = game.create_state(auto, False, 0, (50, 100), 100, (10000,) * 6, 6)
    holes = {}
    for op in sc["pk_ops"]:
        kind = op[0]
        if kind == "hole":
            holes[op[1] - 1] = list(op[2])
            if len(holes) == 6:
                while st.can_deal_hole():
                    st.deal_hole(holes[st.hole_dealee_index].pop(0))
        elif kind == "board":
            if st.can_burn_card():
                st.burn_card(op[2])
            st.deal_board(op[1])
        elif kind == "show":
            continue  # PokerKit shows or mucks by itself
        else:
            st.can_fold()  # the options a table asks for before each decision
            st.checking_or_calling_amount
            if st.can_complete_bet_or_raise_to():
                st.min_completion_betting_or_raising_to_amount
                st.max_completion_betting_or_raising_to_amount
            if kind == "fold":
                st.fold()
            elif kind in ("check", "call"):
                st.check_or_call()
            else:
                st.complete_bet_or_raise_to(op[2])
    return list(st.stacks)


def rate(fn, scripts: list[dict]) -> float:
    """Hands per CPU second of ``fn`` over the scripts."""
    t0 = time.process_time()
    for sc in scripts:
        fn(sc)
    return len(scripts) / (time.process_time() - t0)


def ranking_share(scripts: list[dict]) -> float:
    """Return the fraction of the showdown scripts' time spent in the ranker (wall)."""
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
        for sc in scripts:
            play_ours(sc)
        total = time.perf_counter() - t0
    finally:
        hand_mod._default_ranker = real
    return spent[0] / total


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the figures, the summary last; return 0."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=300, help="scripted hands per kind")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ns = ap.parse_args(argv)
    rng = random.Random(ns.seed)
    out = {}
    for kind, showdown in (("random actions", False), ("six-way showdown", True)):
        scripts = [script(rng, showdown) for _ in range(ns.hands)]
        same = [sc for sc in scripts if play_pk(sc) == sc["stacks"]]
        for sc in same[:20]:  # warm up
            play_ours(sc)
        ours, pk = [], []
        for r in range(ns.rounds):
            if r % 2:
                pk.append(rate(play_pk, same))
                ours.append(rate(play_ours, same))
            else:
                ours.append(rate(play_ours, same))
                pk.append(rate(play_pk, same))
        o, p = statistics.median(ours), statistics.median(pk)
        out[kind] = (o, p)
        print(f"{kind:17s}: ours {o:8.0f} hands/s, PokerKit {p:6.0f} hands/s, ratio {o / p:5.1f}x"
              f"  ({len(same)}/{len(scripts)} scripted hands end with the same stacks in both; "
              f"median of {ns.rounds} interleaved rounds, CPU time)", flush=True)
    share = ranking_share(scripts)
    print(f"hand ranking share of a six-way showdown hand: {100 * share:4.1f}% of its time")
    o, p = out["random actions"]
    so, sp = out["six-way showdown"]
    print(f"hands: anchor PokerKit {p:.0f} hands/s (same run, same decisions); goal >= {GOAL:.0f}x "
          f"with random actions; ratio {o / p:.1f}x ({'meets' if o / p >= GOAL else 'misses'}); "
          f"six-way showdowns {so / sp:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
