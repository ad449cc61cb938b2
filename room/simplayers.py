"""Simulated players in ``livetable room simulate --players N`` (issue 18).

Unlike ``livetable room crowd`` (a model of the lists on a virtual clock), these players go
through the whole simulated room: the room service's desk (:class:`room.desk.PlayersDesk`),
the tables' own seat path and the tables' stand-ups.

Each player ``p001``..``pNNN`` (the room's player ids, :mod:`room.ids`):

1. arrives (at a seeded moment) and **joins** the list of a game the room plays, with the
   request their phone sends (:meth:`room.desk.PlayersDesk.request`, ``{"op": "join"}``);
2. when **called** (the desk's call for a seat that opened at a table), answers once:
   **accept** (``accept`` chance), **pass** (``pass_chance``: keeps their place) or says
   nothing and lets the call **lapse** (the rest: the desk's hold runs out and the next
   player is called);
3. having accepted, is **seated** at that table by the floor's ``seat`` request (the one the
   floor console sends: :meth:`room.service.RoomService.floor_request`, through the table's
   bridge), with ``buy_in`` chips; the table's simulated players play the seat;
4. **leaves** when the table stands them up (``livetable simulate --leave-chance``): the
   seat opens, the next player is called; after a while they come back to the list.

A ``seat`` the table refuses (a seat taken meanwhile, a paused table) puts the seat back
open for the next player (``seat_refused`` counts them). :meth:`summary` checks the room's
stored waiting-list log with the independent checker (:func:`room.fairness.check_log`).
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from typing import Any

from room.fairness import FairnessError, check_log

__all__ = ["RoomPlayers"]

log = logging.getLogger("livetable.room.simplayers")


class RoomPlayers:
    """``players`` simulated players of a running room (see the module's text).

    Args:
        desk: the room's :class:`room.desk.PlayersDesk`; service: its
            :class:`room.service.RoomService` (the floor's ``seat`` requests).
        players: how many (1..999); seed: their choices; buy_in: chips each brings (T-2).
        accept, pass_chance: the chances of accepting and passing a call (the rest lapse).
        arrive: seconds over which they arrive; back: the most seconds before a player who
            left (or whose call lapsed) joins again.
        period: seconds between two looks at the lists (the thread of :meth:`start`).
        clock: Unix seconds.

    Raises:
        ValueError: a count or chance out of range.
    """

    def __init__(self, desk: Any, service: Any, *, players: int, seed: int, buy_in: int,
                 accept: float = 0.75, pass_chance: float = 0.1, arrive: float = 2.0, back: float = 2.0,
                 period: float = 0.05, clock: Callable[[], float] = time.time) -> None:
        if not 1 <= players <= 999:
            raise ValueError(f"players must be 1..999, got {players}")
        if not (0 <= accept and 0 <= pass_chance and accept + pass_chance <= 1):
            raise ValueError("accept and pass chances must be 0..1 together")
        self.desk, self.service, self.buy_in = desk, service, int(buy_in)
        self.accept, self.pass_chance, self.back, self.period = accept, pass_chance, back, period
        self.clock = clock
        self.rng = random.Random(seed)
        self.ids = [f"p{i:03d}" for i in range(1, players + 1)]
        now = clock()
        self.due = {p: now + self.rng.uniform(0, arrive) for p in self.ids}  # away: when they come (back)
        self.answered: set[tuple[str, str, int, float]] = set()  # (player, table, seat, called at)
        self.asked: dict[str, tuple[str, str, int]] = {}  # floor request id -> (player, table, seat)
        self.stats = {"joins": 0, "accepts": 0, "passes_sent": 0, "let_lapse": 0, "seat_requests": 0,
                      "seat_refused": 0, "join_refused": 0}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ the loop
    def start(self) -> "RoomPlayers":
        """Look at the lists every ``period`` seconds in a thread until :meth:`stop`."""
        def run() -> None:
            while not self._stop.wait(self.period):
                try:
                    self.step()
                except Exception:  # the players go on
                    log.exception("the simulated players' step")
        self._thread = threading.Thread(target=run, name="room-players", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop the thread (the players stay where they are)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)

    def step(self) -> None:
        """One look: answer new calls, seat the accepted, bring back who is due."""
        self._replies()
        lists = self.desk.lists
        now = self.clock()
        with self.desk.lock:
            keys = sorted(set(lists.table_key.values()))
            waiting = {p for lst in lists.lists.values() for p in lst}
            calls = {c.player: c for c in lists.calls()}
            seated = set(lists.seated)
        for p in self.ids:
            call = calls.get(p)
            if call is not None:
                self._answer(p, call)
            elif p in waiting or p in seated:
                self.due.pop(p, None)
            elif p not in self.due:
                self.due[p] = now + self.rng.uniform(0, self.back)  # left, lapsed or refused: back later
            elif now >= self.due[p] and keys:
                key = self.rng.choice(keys)
                out = self.desk.request(p, {"op": "join", **key.to_json()})
                if out["ok"]:
                    self.stats["joins"] += 1
                    del self.due[p]
                else:
                    self.stats["join_refused"] += 1
                    self.due[p] = now + self.back

    def _answer(self, p: str, call: Any) -> None:
        mark = (p, call.table, call.seat, call.at)
        if mark in self.answered:
            return
        self.answered.add(mark)
        r = self.rng.random()
        if r < self.accept:
            out = self.desk.request(p, {"op": "accept"})
            if not out["ok"]:
                return  # lapsed meanwhile
            self.stats["accepts"] += 1
            self.stats["seat_requests"] += 1
            rid = self.service.floor_request(call.table, "seat", by="room-sim", seat=call.seat,
                                             reason=f"{p} called from the {call.key} list", player=p,
                                             amount=self._amount(p, call.table))
            self.asked[rid] = (p, call.table, call.seat)
        elif r < self.accept + self.pass_chance:
            if self.desk.request(p, {"op": "pass"})["ok"]:
                self.stats["passes_sent"] += 1
        else:
            self.stats["let_lapse"] += 1

    def _amount(self, p: str, table: str) -> int:
        """The buy-in: ``buy_in``, or what ``p`` took from ``table`` when they left it (T-2: back
        within 20 minutes, a player brings at least that; the room's sessions say how much)."""
        from room.ids import room_player

        left = [s for s in self.desk.players.sessions(table=table)
                if room_player(s["player"]) == p and s["ended"] is not None and s["ended"] > self.clock() - 1200]
        return max([self.buy_in] + [int(s["cash_out"]) for s in left[:1]])

    def _replies(self) -> None:
        for rid in [r for r in self.asked if r in self.service.floor_replies]:
            p, table, seat = self.asked.pop(rid)
            reply = self.service.floor_replies.pop(rid)
            if reply.get("accepted"):
                continue
            # the table did not seat them: the seat is open again for the next player
            self.stats["seat_refused"] += 1
            log.warning("table %s seat %d: %s not seated: %s", table, seat, p, reply.get("reason"))
            with self.desk.lock:
                if self.desk.lists.seated.get(p) == (table, seat):
                    self.desk._handle(self.desk.lists.seat_opened(table, seat, "room-sim", player=p))  # noqa: SLF001
                    self.desk._flush()  # noqa: SLF001

    # ------------------------------------------------------------------ the figures
    def summary(self) -> dict[str, Any]:
        """Return the players' figures: ``players``, ``openings``, ``calls``, ``lapses``,
        ``passes``, ``seated`` (calls accepted), ``seat_refused``, ``fair`` (the room's stored
        log passes :func:`room.fairness.check_log`), ``unfair`` (its finding, or None)."""
        entries = self.desk.players.waitlist_entries()
        with self.desk.lock:
            tables, feeds = dict(self.desk.lists.table_key), dict(self.desk.lists.feeds)
        try:
            counts, problem = check_log(entries, tables, feeds), None
        except FairnessError as exc:
            counts, problem = {}, str(exc)
        return {"players": len(self.ids), "openings": sum(e.action == "open" for e in entries),
                "calls": sum(e.action == "call" for e in entries),
                "lapses": sum(e.action == "lapse" for e in entries),
                "passes": sum(e.action == "pass" for e in entries),
                "seated": sum(e.action == "seat" and e.detail.startswith("accepted") for e in entries),
                "seat_refused": self.stats["seat_refused"], "fair": problem is None and bool(counts),
                "unfair": problem}
