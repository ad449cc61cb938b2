"""A player who leaves the table mid-hand: the hand is folded first, in turn or not (T-8).

A mixin of :class:`controller.engine.hand.Hand` (it uses the hand's state); every method
is all-or-nothing like the rest of the hand.
"""

from __future__ import annotations

from .errors import IllegalAction
from .hand_base import _BET, _FL, _DEAL_BOARD, _DEAL_DRAW, _DEAL_HOLE, _DRAW, _SHOWDOWN
from .hand_fields import HandFields

__all__ = ["LeaveMixin"]


class LeaveMixin(HandFields):
    """T-8's fold of a leaving player's hand (:meth:`fold_leaving`)."""

    __slots__ = ()

    def can_fold_leaving(self, seat: int) -> bool:
        """Return whether :meth:`fold_leaving` would fold ``seat``'s hand now (T-8)."""
        return self._leaving_refusal(seat) is None

    def _leaving_refusal(self, seat: int) -> str | None:
        i = self.index.get(seat, -1)
        if i < 0 or self.folded[i] or self.mucked[i]:
            return f"T-8: seat {seat} has no live hand to fold"
        if self.allin[i]:
            return (f"S-8: seat {seat} is all-in: an all-in player has no decision left and stays in "
                    "until the showdown")
        ph = self.phase
        if ph == _DEAL_BOARD and self.n_able < 2:
            return (f"S-8: seat {seat} has no decision left: nobody can act any more and the hands "
                    "are tabled for the run-out")
        if ph == _DEAL_HOLE or ph == _DEAL_DRAW:
            return (f"T-8: seat {seat}'s hand is folded once the cards being dealt are out "
                    f"({self._phase_words()})")
        if ph == _SHOWDOWN:
            return f"T-8: at the showdown seat {seat}'s hand is shown or mucked at its turn (P-2)"
        if ph not in (_BET, _DRAW, _DEAL_BOARD):
            return f"T-8: seat {seat} has no hand to fold ({self._phase_words()})"
        return None

    def fold_leaving(self, seat: int) -> None:
        """T-8: fold ``seat``'s hand now because the player left the table, in turn or not.

        Folding forfeits what the seat put in: its chips stay in the pots (dead money it can
        no longer win, P-1), its bet of this round included; nothing goes back to it as
        uncalled (S-9 returns chips only to a live player). Nobody has to call a bet that
        no live player made: when the leaver's bet was the highest, the betting goes on at
        the highest bet of the live players (the leaver's chips above it are dead money in
        the pot, like any folded bet; the minimum raise stays the largest bet or raise made
        in the round). When it was the seat's turn the turn passes on as after a fold;
        otherwise it stays with, or passes to, the next player who still has a decision,
        exactly as after any action (the amount a player must match is :meth:`_price`), and
        the round closes when nobody has one (S-8). When the seat was the last opponent the
        last live player wins every chip in the middle. A leave that leaves at most one
        player with chips while the board is due exposes the live hands at once (S-8).
        Allowed while a player is to act (betting or the draw) and while the board is due;
        recorded as ``{"t": "leave", "seat": s}``.

        Raises:
            IllegalAction: the seat holds no live hand; it is all-in or the hand is in an
                all-in run-out (S-8: no decision left, the hand stays in until the
                showdown); hole or draw cards are being dealt (T-8: the table folds the
                hand once they are out); or the showdown has begun (P-2: the hand is
                shown or mucked at its turn).
        """
        why = self._leaving_refusal(seat)
        if why is not None:
            raise IllegalAction(why)
        i = self.index[seat]
        ph = self.phase
        self._log.append(("leave", seat))
        self.folded[i] = True
        self.n_live -= 1
        self.n_able -= 1
        self.acted[i] = True
        if ph == _BET:
            self._lower_to_live_bets()
            if self.n_live == 1:
                self._end_round()
            elif i == self.to_act:
                self._advance(i)
            else:
                self._recheck_turn()
        elif ph == _DRAW:
            if self.n_live == 1:
                self._end_round()
            elif i == self.to_act:
                self._next_drawer()
        elif self.n_live == 1:
            self._end_round()
        elif self.n_able < 2:  # S-8: nobody can bet any more: the hands are tabled now
            self._expose_all()

    def _lower_to_live_bets(self) -> None:
        """T-8: the bet to match is the highest bet of a live player, not a leaver's."""
        top = self.settings.big_blind if self._street_no == 0 else 0  # S-1: pre-flop, a big blind
        for j in range(self.n):
            if not self.folded[j] and self.bet[j] > top:
                top = self.bet[j]
        if top >= self.current:
            return
        self.current = top
        if self.full_level > top:
            self.full_level = top
        if self._limit is _FL:
            size = self._bet_size()
            count = -(-top // size) if size else 0
            if self.bet_count > count:
                self.bet_count = count
            if self.bet_count < self.settings.cap_bets:
                self.capped = False
        for j in range(self.n):
            if self.acted_at[j] > top:
                self.acted_at[j] = top

    def _recheck_turn(self) -> None:
        """After a fold out of turn: keep the turn if its player still has a decision, else
        pass it to the next player who has one, else close the round (S-2, S-8); the same
        test as after any action (:meth:`_advance`, :meth:`_price`)."""
        n, cur = self.n, self.current
        others = self.n_able > 1
        for k in range(n):
            j = (self.to_act + k) % n
            if self.folded[j] or self.allin[j]:
                continue
            if self.bet[j] < (cur if others else self._price(j)) or (others and not self.acted[j]):
                self.to_act = j
                return
        self._end_round()
