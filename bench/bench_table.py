"""Table step latency with every seat in the hand, at 2, 6 and 10 seats (issues 3 and 21).

    .venv/bin/python bench/bench_table.py [--hands 1500] [--seats 2,6,10] [--seed 1]
                                          [--soak HANDS] [--profile SEATS]

A full table: every seat is taken, every player is dealt into every hand (nobody sits
out; a busted player buys in again between hands), and each acts with random legal
actions weighted to keep many players in (call or check 70 %, raise 15 %, fold 12 %,
all-in 3 %), so hands reach the river and showdowns of many players (the old soak kept
1.4-3.6 players in a hand whatever the seat count). Every ``step`` call is timed, the
dealer's card events included, on two clocks in the same run, hand by hand alternately:
``wall`` (``time.perf_counter``: what a button press waits for, including time the
process was not scheduled on a shared machine) and ``cpu`` (``time.process_time``: the
engine's own work). The figures: median, p99 and max per step, and players per hand; and
the CPU time of the steps that end a hand (showdown, pots, the hand's record, the ledger: one
step in 55 at ten seats, so the p99 falls on them).

Goal (issue 21): p99 <= 250 us at 10 seats with every seat in the hand (a Pi is some
3-5x slower; its budget is 1 ms). The last line gives the anchor (the goal), the 10-seat
p99 on both clocks and their ratios to the goal (<= 1 meets it). ``--soak`` also runs
the old mixed soak (tests/table/soak.py: joins, leaves, timeouts...) for that many hands;
``--profile N`` prints a cProfile of the N-seat run instead.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.engine.table import events as ev  # noqa: E402
from controller.engine.table.settings import TableSettings  # noqa: E402
from tests.table.harness import Bench  # noqa: E402

GOAL_P99_US = 250.0  # issue 21: at 10 seats, every seat in the hand, this machine
STACK = 1000  # 100 big blinds: the default maximum buy-in


class _Clock:
    """A clock that can be switched between wall and CPU time hand by hand."""

    def __init__(self) -> None:
        self.fn = time.perf_counter

    def __call__(self) -> float:
        return self.fn()


def full_table(seats: int, hands: int, seed: int, clock: _Clock | None
               ) -> tuple[dict[str, list[float]], list[int]]:
    """Play ``hands`` hands at a full table; return (durations per clock, players per hand).

    The durations also hold, under ``"wall end"`` and ``"cpu end"``, those of the steps that
    ended a hand (each hand's last step: the showdown, the pots, the hand's record, the ledger).
    """
    cfg = TableSettings(game="holdem", limit="no-limit", seats=seats, small_blind=5,
                        big_blind=10)
    rng = random.Random(seed)
    b = Bench(cfg, rng=rng, check=False, clock=clock, keep=False)
    for s in range(1, seats + 1):
        b.seat_up(s, STACK)
    out: dict[str, list[float]] = {"wall": [], "cpu": [], "wall end": [], "cpu end": []}
    players: list[int] = []
    for n in range(hands):
        name = "wall" if n % 2 == 0 else "cpu"
        if clock is not None:
            clock.fn = time.perf_counter if name == "wall" else time.process_time
        for s in b.state.seats:
            if s is not None and s.stack == 0:
                b.do(ev.BoughtIn, seat=s.seat, amount=STACK)
        b.durations = []
        started = b.state.hands
        b.start(1 if n == 0 else None)
        if b.state.hands == started:
            raise AssertionError(f"no hand started at {seats} seats (hand {n}): {b.refused()}")
        hand = b.state.hand  # None: it ran out at once (a blind put a short stack all in)
        players.append(len(hand.index) if hand is not None
                       else len(b.state.last_result["seats"]))
        while b.state.hand is not None:
            seat = b.to_act
            lg = b.state.hand.legal()
            if lg.show or lg.muck:
                b.act(seat, "show")
                continue
            r = rng.random()
            if r < 0.12 and lg.fold and not lg.check:
                b.act(seat, "fold")
            elif r < 0.82 or (lg.bet is None and lg.raise_ is None and lg.all_in is None):
                b.act(seat, "check" if lg.check else "call")
            elif r < 0.97 and (lg.bet is not None or lg.raise_ is not None):
                lo, hi = lg.bet if lg.bet is not None else lg.raise_
                b.act(seat, "bet" if lg.bet is not None else "raise",
                      lo if rng.random() < 0.6 else rng.randrange(lo, hi + 1))
            elif lg.all_in is not None:
                b.act(seat, "all_in")
            else:
                b.act(seat, "check" if lg.check else "call")
            if b.refused():
                raise AssertionError(f"refused: {b.refused()}")
        out[name] += b.durations
        if b.durations:
            out[name + " end"].append(b.durations[-1])  # the step that ended the hand
    return out, players


def _pct(d: list[float], q: float) -> float:
    d = sorted(d)
    return d[min(len(d) - 1, int(len(d) * q))]


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print one line per seat count and the summary last; return 0."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1500)
    ap.add_argument("--seats", default="2,6,10")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--soak", type=int, default=0, help="also the old mixed soak, hands")
    ap.add_argument("--profile", type=int, default=0, help="profile this seat count")
    args = ap.parse_args(argv)

    if args.profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.enable()
        full_table(args.profile, args.hands, args.seed, None)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(30)
        return 0

    full_table(10, 30, args.seed + 99, None)  # warm up: tables, imports
    p99 = {}
    for seats in [int(x) for x in args.seats.split(",")]:
        d, players = full_table(seats, args.hands, args.seed, _Clock())
        line = [f"{seats:2d} seats, {args.hands} hands, {statistics.mean(players):.1f} players "
                f"dealt in per hand:"]
        for name in ("wall", "cpu"):
            us = [x * 1e6 for x in d[name]]
            p99[(seats, name)] = _pct(us, 0.99)
            line.append(f"{name} median {statistics.median(us):6.1f} us, p99 "
                        f"{_pct(us, 0.99):6.1f} us, max {max(us):7.0f} us ({len(us)} steps)")
        end = [x * 1e6 for x in d["cpu end"]]
        p99[(seats, "end")] = statistics.median(end)
        line.append(f"cpu, the steps that end a hand (1 step in {len(d['cpu']) / len(end):.0f}): "
                    f"median {statistics.median(end):.1f} us, p99 {_pct(end, 0.99):.1f} us")
        print(line[0] + "\n    " + "\n    ".join(line[1:]), flush=True)

    if args.soak:
        from tests.table.soak import Soak

        soak = Soak(args.seed, clock=time.process_time, check=False, keep=False)
        bench = soak.run(args.soak)
        us = sorted(x * 1e6 for x in bench.durations)
        print(f"old mixed soak ({args.soak} hands, {bench.state.settings.seats} seats, cpu): "
              f"median {statistics.median(us):.1f} us, p99 {_pct(us, 0.99):.1f} us")

    if (10, "wall") in p99:
        w, c = p99[(10, "wall")], p99[(10, "cpu")]
        e = p99[(10, "end")]
        print(f"table: anchor none, the goal is absolute (PokerKit has no table session); goal "
              f"p99 <= {GOAL_P99_US:.0f} us per step at 10 seats, every seat in the hand; ratio "
              f"p99/goal cpu {c / GOAL_P99_US:.2f} ({c:.0f} us), wall {w / GOAL_P99_US:.2f} "
              f"({w:.0f} us, includes time not scheduled), <= 1 meets the goal; the p99 is the "
              f"steps that end a hand (cpu median {e:.0f} us: showdown, pots, record, ledger; the "
              f"record's event dicts are made a few per step as the hand goes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
