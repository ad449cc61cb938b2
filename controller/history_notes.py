"""The history's lines for the journal records that are not the table's own events (issue 19,
a newcomer's findings: ``livetable history`` printed a tournament's and a simulation's records
as raw JSON): a single-table tournament's start, levels, busts and payouts, and the
simulated table's ``simulate`` record, in sentences.

Part of :mod:`controller.history`; nothing here changes the journal. The tournament's
records are those of :mod:`controller.tournament_run` (its module docstring lists them).
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from controller.tournament.words import ordinal, plural, players_left, stakes_words

__all__ = ["NoteWords"]


class NoteWords:
    """Turns ``tournament`` and ``simulate`` journal records into history lines.

    It follows the tournament from its ``start`` (names by player id, the seats drawn) so a
    bust reads ``Player 4 busted out in hand 9 (5th)``: the place is the number of players
    left before the hand, the bigger starting stack of one hand's busts placing higher (TDA
    simultaneous eliminations). :meth:`prime` reads the records before the hands shown.
    """

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.seats: dict[str, int] = {}
        self.alive: set[str] = set()
        self.level: int | None = None
        self.on_break = False
        self.paused = False
        self.places: dict[str, int] = {}  # player -> place of the last bust read
        #: a bust held for a rebuy at the bust (TFIX 7): its hand, busts and who may rebuy
        self.held: tuple[Any, dict[str, int], set[str]] | None = None

    def prime(self, db: sqlite3.Connection, upto: int) -> None:
        """Follow the tournament's records up to journal seq ``upto`` (shown before the hands
        asked for; nothing is returned). A record that is not JSON is skipped."""
        rows = db.execute("SELECT payload FROM events WHERE kind = 'tournament' AND seq <= ? ORDER BY seq", (upto,))
        for (payload,) in rows:
            try:
                data = json.loads(payload)
            except (TypeError, ValueError):
                continue
            if isinstance(data, dict):
                self.text("tournament", data)

    def name(self, player: Any) -> str:
        """The player's name (``Player 3``) or, unknown, the id as journalled."""
        return self.names.get(str(player), str(player))

    def text(self, kind: str, data: dict[str, Any]) -> str | None:
        """The line for one record, or None when nothing is worth a line (a clock snapshot
        that changes nothing a reader sees). Unknown record types: ``kind: type`` and their
        fields as ``key value``. Raises ``KeyError``/``TypeError``/``ValueError`` on a record
        of the wrong shape (the history names the event)."""
        if kind == "simulate":
            return (f"Simulated table: {data.get('limit', '?')} {data.get('game', '?')}, "
                    f"{plural(int(data.get('seats', 0)), 'seat')}, seed {data.get('seed')}")
        if kind != "tournament":
            return None
        t = data.get("type")
        if t == "start":
            draw = {str(p): int(s) for p, s in data["draw"].items()}
            self.names = {str(p): str(n) for p, n in (data.get("names") or {}).items()}
            self.seats, self.alive, self.level = dict(draw), set(), None
            seated = ", ".join(f"{self.name(p)} seat {s}" for p, s in sorted(draw.items(), key=lambda x: x[1]))
            button = f"; the button at seat {data['button']}" if data.get("button") is not None else ""
            if data.get("button_draw"):  # the draw for the button by cards (WSOP 85): its cards
                cards = data["button_draw"]["cards"]
                button += " (drawn by cards: " + ", ".join(f"seat {s} {c}" for s, c in cards.items()) + ")"
            return f"Tournament started: {plural(len(draw), 'entry', 'entries')}, seats drawn: {seated}{button}"
        if t == "entry":
            player = str(data["player"])
            self.alive.add(player)
            if "name" not in data:
                return None  # an entry of the start's draw: said by the start
            self.names[player], self.seats[player] = str(data["name"]), int(data["seat"])
            by = f" (by {data['by']})" if data.get("by") else ""
            return f"{data['name']} enters at seat {data['seat']}, level {data.get('level')}{by}"
        if t == "clock":
            return self._clock(data)
        if t == "bust" and data.get("pending"):  # TFIX 7: placed once nobody of it may rebuy
            busted = {str(p): int(c) for p, c in data["busted"].items()}
            self.held = (data["hand"], busted, {str(p) for p in data["pending"]})
            who = ", ".join(self.name(p) for p in sorted(self.held[2], key=lambda p: self.seats.get(p, 0)))
            return f"{who} busted in hand {data['hand']}: rebuy? (the seat is kept until the next deal)"
        if t == "declined":
            line = f"{self.name(data['player'])} at seat {data.get('seat')} does not rebuy ({data.get('reason')})"
            placed = self._unhold(str(data["player"]))
            return f"{line}; {placed}" if placed else line
        if t == "bust":
            return self._bust(data["hand"], {str(p): int(c) for p, c in data["busted"].items()})
        if t == "payouts":
            paid = [f"{ordinal(n)} {self.name(p)} {m}" for n, (p, m) in
                    enumerate(zip(data["places"], data["payouts"]), 1) if m]
            return f"Paid: {', '.join(paid) or 'nobody'} (prize pool {data.get('prize_pool')})"
        if t in ("rebuy", "addon"):
            what = "rebuys" if t == "rebuy" else "takes the add-on"
            self.alive.add(str(data["player"]))
            chips = f": {data['chips']} chips" if "chips" in data else ""
            line = f"{self.name(data['player'])} {what} at seat {data.get('seat')}{chips}"
            if data.get("bust") is not None and self.held is not None:  # a rebuy at the bust (TFIX 7)
                self.held[1].pop(str(data["player"]), None)
                placed = self._unhold(str(data["player"]))
                return f"{line} at the bust; {placed}" if placed else f"{line} at the bust"
            return line
        if t == "refund":
            return (f"{self.name(data['player'])} at seat {data.get('seat')}: {data.get('kind')} refunded "
                    f"({data.get('chips')} chips): {data.get('reason', '')}".rstrip(": "))
        if t == "asked":
            return None  # the question at the seat; its answer has its own line
        if t == "deal-offer":  # issue 19: a deal offered to the final players' tablets
            shares = ", ".join(f"{p['name']} {p['share']}" for p in data["players"])
            return f"Deal offer {data['offer']} ({data.get('method')}) by {data.get('by')}: {shares}"
        if t == "deal-accept":
            return f"Seat {data['seat']} accepts deal offer {data['offer']}"
        if t == "deal-end":
            return f"Deal offer {data['offer']} is over: {data.get('reason')}"
        if t == "race":
            removed = ", ".join(map(str, data.get("removed", [])))
            return f"Colour-up at break {data.get('index')}: chips {removed} raced off"
        rest = ", ".join(f"{k} {json.dumps(v, sort_keys=True)}" for k, v in sorted(data.items()) if k != "type")
        return f"Tournament {t}: {rest}" if rest else f"Tournament {t}"

    def _bust(self, hand: Any, busted: dict[str, int]) -> str:
        """Place one hand's busts (the bigger starting stack higher) and say so."""
        first = len(self.alive - set(busted)) + 1
        ranked = sorted(busted, key=lambda p: -busted[p])  # more chips at the start: placed higher
        for n, p in enumerate(ranked):
            self.places[p] = first + n
        self.alive -= set(busted)
        outs = ", ".join(f"{self.name(p)} ({ordinal(self.places[p])})" for p in ranked)
        return f"{outs} busted out in hand {hand}; {players_left(len(self.alive))}"

    def _unhold(self, player: str) -> str | None:
        """``player`` no longer waits to rebuy at the bust: once nobody of the held hand
        does, its busts are placed (the line saying so), else None."""
        if self.held is None:
            return None
        hand, busted, pending = self.held
        pending.discard(player)
        if pending:
            return None
        self.held = None
        return self._bust(hand, busted) if busted else None

    def _clock(self, data: dict[str, Any]) -> str | None:
        lines: list[str] = []
        paused = bool(data.get("paused"))
        if paused != self.paused:
            lines.append("Clock paused" if paused else "Clock running again")
            self.paused = paused
        if data.get("on_break") and not self.on_break:
            lines.append(f"Break after level {data.get('level')}")
        self.on_break = bool(data.get("on_break"))
        stakes = data.get("stakes")
        if isinstance(stakes, dict) and data.get("level") != self.level:
            self.level = data.get("level")
            lines.append(f"Level {self.level} ({stakes_words(stakes)}) from hand {data.get('hand')}")
        return "; ".join(lines) or None
