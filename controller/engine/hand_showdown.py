"""The showdown and the payout of one hand: show or muck (P-2), pots (P-1, P-3), rake (R-1..R-3), void.

A mixin of :class:`controller.engine.hand.Hand`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from .cards import FULL_DECK
from .errors import IllegalAction, IllegalDeal
from .hand_base import _BET, _COMPLETE, _SHOWDOWN, _STR, _default_describe, _default_ranker, _parse, _txt
from .hand_fields import HandFields
from .handtypes import HandResult, PotAward
from .pots import build_pots, split_pot
from .rake import rake_pots
from .settings import Game, Street

# dense index -> text, None (a card the engine was not told) kept as None
_TEXT_OR_NONE: Callable[[int | None], str | None] = {
    None: None, **dict[int | None, str | None](enumerate(_STR))}.__getitem__


class ShowdownMixin(HandFields):
    """Showdown (P-2), awarding the pots (P-1, P-3, R-1..R-3), ``void`` and ``result``."""

    __slots__ = ()

    def _start_showdown(self) -> None:
        """P-2: the last to bet or raise on the final round shows first, else the first
        live player left of the button; then clockwise."""
        self.street = Street.SHOWDOWN
        n = self.n
        la = self.last_aggr
        start = la if la >= 0 and not self.folded[la] else self._first_left
        self._sd_order = [j for j in ((start + k) % n for k in range(n)) if not self.folded[j]]
        self._sd_pos = 0
        self.phase = _SHOWDOWN
        self._next_shower()

    def _next_shower(self) -> None:
        order = self._sd_order
        while self._sd_pos < len(order):
            j = order[self._sd_pos]
            if self.exposed[j] or self.mucked[j] or self._uncontested(j):
                self._sd_pos += 1
                continue
            self.to_act = j
            return
        self.to_act = -1
        self._award()

    def _uncontested(self, j: int) -> bool:
        """Return whether no other live player still claims a pot (all live players are
        eligible for the main pot), so j wins without showing (P-2)."""
        folded, mucked = self.folded, self.mucked
        for k in self._others[j]:
            if not folded[k] and not mucked[k]:
                return False
        return True

    def show(self, seat: int, cards: Any = None) -> None:
        """Show ``seat``'s hand at the showdown (P-2) or once no more betting is possible (S-8).

        ``cards`` may be omitted when the engine knows the hand; when given they must
        match what it knows (unknown cards are filled in). A player may show before
        their P-2 turn, and a player who won without showing may show afterwards (P-2).

        Raises:
            IllegalAction: the betting is not over, the seat has no live hand, or the
                cards do not match.
        """
        i = self.index.get(seat, -1)
        if i < 0 or self.folded[i] or self.mucked[i] or self.voided:
            raise IllegalAction(f"P-2: seat {seat} has no live hand to show")
        over = self.phase in (_SHOWDOWN, _COMPLETE) or (self.n_able < 2 and self.phase != _BET)
        if not over:
            raise IllegalAction(f"P-2: seat {seat} shows at the showdown, not during the betting")
        hole = self.hole[i]
        if cards is None:
            if None in hole:
                raise IllegalAction(f"P-2: seat {seat}'s cards are not known to the engine; say which")
            new = list(hole)
        else:
            try:
                new = _parse(cards)
            except IllegalDeal as exc:
                raise IllegalAction(str(exc)) from None
            if len(new) != len(hole) or None in new:
                raise IllegalAction(f"P-2: seat {seat} holds {len(hole)} cards; show every one")
            if len(set(new)) != len(new):
                raise IllegalAction(f"G-5: seat {seat} cannot hold the same card twice ({_txt(new)})")
            known = [c for c in hole if c is not None]
            if any(c not in new for c in known):
                raise IllegalAction(f"P-2: seat {seat} showed {_txt(new)} but holds {_txt(hole)}")
            extra = [c for c in new if c is not None and c not in known]  # (None refused above)
            try:
                self._check_new(extra)
            except IllegalDeal as exc:
                raise IllegalAction(str(exc)) from None
            self.seen.update(extra)
        self._log.append(("show", seat, tuple(new)))
        self.hole[i] = new
        self.exposed[i] = True
        if self.phase == _COMPLETE and self._result is not None:  # a winner may show (P-2)
            shown = dict(self._result.shown)
            shown[seat] = tuple(_STR[c] for c in new)  # type: ignore[index]
            holes = dict(self._result.hole)
            holes[seat] = shown[seat]
            self._result = replace(self._result, shown=shown, hole=holes)
            return
        if self.phase == _SHOWDOWN:
            if self.to_act == i:
                self._sd_pos += 1
            self._next_shower()

    def muck(self, seat: int) -> None:
        """Muck ``seat``'s hand at its P-2 turn: it gives up every pot it could still win
        (P-2; the cards stay in the history, P-4).

        Raises:
            IllegalAction: not this seat's turn to show or muck.
        """
        i = self._turn(seat, _SHOWDOWN)
        self._log.append(("muck", seat))
        self.mucked[i] = True
        self._muck_order.append(i)
        self._sd_pos += 1
        self._next_shower()

    # ------------------------------------------------------------------ awarding
    def _rank_all(self, live: list[bool]) -> dict[int, int]:
        board = [c for c in self.board if c is not None]
        ranks: dict[int, int] = {}
        if self._ranker is not None:
            custom = self._ranker
            bcards = [FULL_DECK[c] for c in board]
            for j in range(self.n):
                if live[j] and self.exposed[j]:
                    ranks[j] = custom([FULL_DECK[c] for c in self.hole[j]], bcards)  # type: ignore[index]
            return ranks
        rank = _default_ranker(self.settings.game)
        for j in range(self.n):
            if live[j] and self.exposed[j]:
                ranks[j] = rank(self.hole[j], board)  # type: ignore[arg-type]
        return ranks

    def _award(self) -> None:
        """Award every pot (P-1, P-3) after rake (R-1..R-3) and finish the hand."""
        s = self.settings
        n = self.n
        live = [not f and not m for f, m in zip(self.folded, self.mucked)]
        pots = build_pots(self.committed, [not f for f in self.folded], self.dead)
        flop = self._flop_seen
        if s.game is Game.DRAW and s.rake is not None and not s.rake.draw_counts_as_flop:
            flop = True
        rakes = rake_pots(s.rake, [p[0] for p in pots], players_dealt=n, flop_seen=flop,
                          chip=s.smallest_chip)
        rk = sum(rakes)
        showdown = self.n_live > 1
        ranks = self._rank_all(live) if showdown else {}
        pos: dict[int, int] | None = None
        seats = self.seats
        awards = []
        for k, (amount, elig) in enumerate(pots):
            contenders = [j for j in elig if live[j]]
            if not contenders:  # everyone eligible mucked: the last to muck was left standing
                contenders = [next(j for j in reversed(self._muck_order) if j in elig)]
            words = ""
            if len(contenders) > 1:
                best = -1
                for j in contenders:
                    r = ranks.get(j, -1)
                    if r > best:
                        best = r
                winners = [j for j in contenders if ranks.get(j, -1) == best]
                if len(winners) > 1:  # P-3: clockwise from the first seat left of the button
                    if pos is None:
                        pos = {j: q for q, j in enumerate(self._order)}
                    winners.sort(key=pos.__getitem__)
                if best >= 0:
                    words = (self._describe or _default_describe)(best)
            else:
                winners = contenders
            shares = split_pot(amount - rakes[k], winners, s.smallest_chip)
            share_map = {}
            for j, sh in zip(winners, shares):
                self.stack[j] += sh
                share_map[seats[j]] = sh
            awards.append(PotAward(k, amount, rakes[k], tuple(seats[j] for j in elig),
                                   tuple(seats[j] for j in winners), share_map, words))
        hole, exposed = self.hole, self.exposed
        self._result = HandResult(
            tuple(awards), dict(self.returned), rk,
            {seats[j]: self.stack[j] for j in range(n)},
            tuple(seats[j] for j in self._sd_order) if showdown else (),
            {seats[j]: tuple(map(_STR.__getitem__, hole[j])) for j in range(n) if exposed[j]},  # type: ignore[arg-type]
            tuple(seats[j] for j in range(n) if self.mucked[j]),
            {seats[j]: tuple(map(_TEXT_OR_NONE, hole[j])) for j in range(n)},
        )
        self.committed = [0] * n
        self.dead = 0
        self.phase = _COMPLETE
        self.street = Street.COMPLETE
        self.to_act = -1

    def void(self, reason: str = "misdeal") -> None:
        """Void the hand (misdeal, malfunction): every chip goes back where it came from.

        Stacks return to their values before the posts; no rake. Allowed at any
        moment before the pots are awarded.

        Raises:
            IllegalAction: the hand is already over.
        """
        if self.phase == _COMPLETE:
            raise IllegalAction("A-1: the hand is already over; it cannot be voided")
        self._log.append(("void", str(reason)))
        self.stack = list(self.start)
        self.bet = [0] * self.n
        self.committed = [0] * self.n
        self.dead = 0
        self.voided = True
        self.returned = {}
        self._result = HandResult((), {}, 0, {self.seats[j]: self.stack[j] for j in range(self.n)},
                                  (), {}, (), {}, voided=True)
        self.phase = _COMPLETE
        self.street = Street.COMPLETE
        self.to_act = -1

    def result(self) -> HandResult:
        """Return the outcome of the finished hand.

        Raises:
            IllegalAction: the hand is not over yet.
        """
        if self._result is None:
            raise IllegalAction("A-1: the hand is not over yet")
        return self._result

