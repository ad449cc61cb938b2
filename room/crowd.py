"""``livetable room crowd``: simulated players in a simulated room, through the waiting lists
(issue 18).

A discrete-event simulation on a virtual clock (no sleeping, no wall clock): ``tables``
tables of a few games and stakes (one of them a must-move table feeding the first game),
players who arrive, join one list (or two), are called, accept, pass or let the call lapse,
sit and play for a while, sometimes ask for a table change, and leave — which opens their
seat, which calls the next player. It runs until ``openings`` seats have opened, then checks
the lists' whole log with the independent checker (:func:`room.fairness.check_log`) and
prints one JSON line: ``openings``, ``calls``, ``lapses``, ``passes``, ``seated``, ``fair``
(true when every call went to the first eligible player, no seat or player held two calls
and every lapse or pass moved to the next eligible player), ``waits_p50_min`` (join to
seat) and ``seed``. Exit 0 when fair.

:class:`Crowd` is the same simulation as a library (the tests drive it); the full room's
``livetable room simulate`` runs real tables whose bots seat themselves, so the players'
side is simulated here against the same model the room service runs.
"""

from __future__ import annotations

import argparse
import heapq
import json
import random
import statistics
import sys
from typing import Any

from room.fairness import FairnessError, check_log
from room.waitlist import ListKey, WaitingLists, WaitListError

__all__ = ["Crowd", "main"]

GAMES = [ListKey("nlhe", "1/2"), ListKey("nlhe", "2/5"), ListKey("plo", "1/2")]


class Crowd:
    """The simulation (see the module's text).

    Args:
        seed: the random seed (same seed, same run).
        tables: how many tables (>= 2); seats 9 each; table ``t2`` is must-move for ``t1``'s game.
        hold_seconds: how long a call holds its seat.
        p_accept, p_pass: a called player's answer (the rest let the call lapse).
    """

    def __init__(self, seed: int = 1, tables: int = 6, hold_seconds: float = 180.0, p_accept: float = 0.75,
                 p_pass: float = 0.1, seats: int = 9) -> None:
        if tables < 2:
            raise ValueError("a crowd needs at least 2 tables")
        self.rng = random.Random(seed)
        self.seed = seed
        self.now = 0.0
        self.lists = WaitingLists(lambda: self.now, hold_seconds=hold_seconds)
        self.p_accept, self.p_pass = p_accept, p_pass
        self.tables: dict[str, ListKey] = {}
        self.seats = seats
        for i in range(tables):
            key = GAMES[i % len(GAMES)]  # t2 (the must-move table) plays another game than the one it feeds
            t = f"t{i + 1}"
            self.tables[t] = key
            self.lists.table(t, key)
        self.lists.feed("t2", GAMES[0])
        self.free: set[tuple[str, int]] = {(t, s) for t in self.tables for s in range(1, seats + 1)}
        self._q: list[tuple[float, int, str, tuple[Any, ...]]] = []
        self._n = 0
        self._joined: dict[tuple[str, ListKey], float] = {}
        self.waits: list[float] = []
        self.openings = 0
        self._next_player = 0

    def _at(self, delay: float, what: str, *args: Any) -> None:
        self._n += 1
        heapq.heappush(self._q, (self.now + delay, self._n, what, args))

    def _handle_calls(self, calls: list[Any]) -> None:
        for c in calls:
            r = self.rng.random()
            if r < self.p_accept:
                self._at(self.rng.uniform(5, self.lists.hold_seconds * 0.9), "accept", c.player, c.table, c.seat)
            elif r < self.p_accept + self.p_pass:
                self._at(self.rng.uniform(5, 60), "pass", c.player, c.table, c.seat)
            # else: no answer; the call lapses when the room next checks the holds

    def _sit(self, player: str, table: str, seat: int) -> None:
        self.free.discard((table, seat))
        key = self.tables[table]
        t0 = self._joined.pop((player, key), None)
        if t0 is not None:
            self.waits.append(self.now - t0)
        self._at(self.rng.expovariate(1 / 5400), "leave", player, table, seat)
        if self.rng.random() < 0.1:
            self._at(self.rng.uniform(60, 1200), "change", player)

    def run(self, openings: int = 200) -> dict[str, Any]:
        """Run until ``openings`` seats have opened; return the summary (see the module)."""
        # the room starts two thirds full
        start = sorted(self.free)
        self.rng.shuffle(start)
        for table, seat in start[: len(start) * 2 // 3]:
            p = self._player()
            self.lists.sat(table, seat, p, f"table:{table}")
            self._sit(p, table, seat)
        self._at(0, "arrive")
        self._at(30, "tick")
        while self._q and self.openings < openings:
            self.now, _, what, args = heapq.heappop(self._q)
            try:
                getattr(self, f"_on_{what}")(*args)
            except WaitListError:
                pass  # the call had lapsed or the seat gone: as a real player finds out
        log = self.lists.log
        try:
            counts = check_log(log, dict(self.tables), dict(self.lists.feeds))
            fair, problem = True, None
        except FairnessError as exc:
            counts, fair, problem = {}, False, str(exc)
        return {"openings": self.openings, **counts, "fair": fair, "problem": problem,
                "waits_p50_min": round(statistics.median(self.waits) / 60, 1) if self.waits else None,
                "log_entries": len(log), "seed": self.seed}

    def _player(self) -> str:
        self._next_player += 1
        return f"p{self._next_player}"

    # events
    def _on_arrive(self) -> None:
        p = self._player()
        keys = self.rng.sample(GAMES, 2 if self.rng.random() < 0.2 else 1)
        for key in keys:
            self._joined[(p, key)] = self.now
            self._handle_calls(self.lists.join(key, p, p if self.rng.random() < 0.7 else "floor:desk"))
        self._at(self.rng.expovariate(1 / 150), "arrive")

    def _on_tick(self) -> None:
        self._handle_calls(self.lists.expire())
        self._at(30, "tick")

    def _on_accept(self, player: str, table: str, seat: int) -> None:
        c = self.lists.call_of(player)
        if c is None or (c.table, c.seat) != (table, seat):
            return
        old = self.lists.seated.get(player)
        self._handle_calls(self.lists.accept(player, player))
        self._handle_calls(self.lists.sat(table, seat, player, f"table:{table}"))  # the table reports them seated
        if old is not None:
            self.free.add(old)
            self.openings += 1
        for key in GAMES:  # seated: off the other list too
            if player in self.lists.lists.get(key, []):
                self._handle_calls(self.lists.leave(key, player, player, "seated elsewhere"))
                self._joined.pop((player, key), None)
        self._sit(player, table, seat)

    def _on_pass(self, player: str, table: str, seat: int) -> None:
        c = self.lists.call_of(player)
        if c is not None and (c.table, c.seat) == (table, seat):
            self._handle_calls(self.lists.pass_(player, player))

    def _on_leave(self, player: str, table: str, seat: int) -> None:
        if self.lists.seated.get(player) != (table, seat):
            return  # moved meanwhile (table change, must-move)
        self.free.add((table, seat))
        self.openings += 1
        self._handle_calls(self.lists.seat_opened(table, seat, f"table:{table}", player=player))

    def _on_change(self, player: str) -> None:
        if player in self.lists.seated:
            self._handle_calls(self.lists.request_change(player, player))


def main(argv: list[str]) -> int:
    """``livetable room crowd [--openings N] [--tables N] [--seed S]``: see the module's text."""
    ap = argparse.ArgumentParser(prog="livetable room crowd", description=__doc__.split("\n\n")[0])
    ap.add_argument("--openings", type=int, default=200, help="seats to open (default 200)")
    ap.add_argument("--tables", type=int, default=6, help="tables (>= 2, default 6)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hold", type=float, default=180.0, help="seconds a call holds its seat")
    ap.add_argument("--log", help="write the lists' whole log (JSON lines) here")
    try:
        args = ap.parse_args(argv)
        if args.tables < 2 or args.openings < 1 or args.hold <= 0:
            raise ValueError("--tables >= 2, --openings >= 1, --hold > 0")
    except SystemExit as exc:
        return int(exc.code or 0) and 2
    except ValueError as exc:
        print(f"livetable room crowd: {exc}", file=sys.stderr)
        return 2
    crowd = Crowd(seed=args.seed, tables=args.tables, hold_seconds=args.hold)
    summary = crowd.run(args.openings)
    if args.log:
        with open(args.log, "w", encoding="utf-8") as f:
            for e in crowd.lists.log:
                f.write(json.dumps(e.to_json()) + "\n")
    print(json.dumps(summary))
    return 0 if summary["fair"] else 1
