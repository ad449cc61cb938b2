"""A player who leaves the table mid-hand: the hand is folded first, in turn or not (T-8).

Part of :class:`~controller.engine.hand.Hand` (a mixin, like the dealing and showdown parts).
"""

from __future__ import annotations

from .errors import IllegalAction
from .hand_base import _BET, _DEAL_BOARD, _DRAW

__all__ = ["LeaveMixin"]


class LeaveMixin:
    """T-8's fold of a leaving player's hand (:meth:`fold_leaving`)."""

    __slots__ = ()

    def can_fold_leaving(self, seat: int) -> bool:
        """Return whether :meth:`fold_leaving` would fold ``seat``'s hand now (T-8)."""
        return self._leaving_refusal(seat) is None  # type: ignore[attr-defined]

    def _leaving_refusal(self, seat: int) -> str | None:
        i = self.index.get(seat, -1)  # type: ignore[attr-defined]
        if i < 0 or self.folded[i] or self.mucked[i]:  # type: ignore[attr-defined]
            return f"T-8: seat {seat} has no live hand to fold"
        if self.allin[i]:  # type: ignore[attr-defined]
            return (f"S-8: seat {seat} is all-in: an all-in player has no decision left and stays in "
                    "until the showdown")
        ph = self.phase  # type: ignore[attr-defined]
        if ph == _DEAL_BOARD and self.n_able < 2:  # type: ignore[attr-defined]
            return (f"S-8: seat {seat} has no decision left: nobody can act any more and the hands "
                    "are tabled for the run-out")
        if ph not in (_BET, _DRAW, _DEAL_BOARD):
            return (f"T-8: seat {seat}'s hand is folded once no card is being dealt to it "
                    f"({self._phase_words()})")  # type: ignore[attr-defined]
        return None

    def fold_leaving(self, seat: int) -> None:
        """T-8: fold ``seat``'s hand now because the player left the table, in turn or not.

        The chips the seat put in stay in the pots (dead money it can no longer win, P-1).
        When it was the seat's turn the turn passes on as after a fold; when the seat was
        the last opponent, the round closes at once: the uncalled bet goes back (S-9) and
        the last player wins the pot. When the player still to act is left with nothing to
        decide (no bet to face and nobody else with chips behind), the round closes too
        (S-8). Allowed while a player is to act (betting or the draw) and while the board
        is due; recorded as ``{"t": "leave", "seat": s}``.

        Raises:
            IllegalAction: the seat holds no live hand; it is all-in or the hand is in an
                all-in run-out (S-8: no decision left, the hand stays in until the
                showdown); or cards are being dealt to the players or the showdown has
                begun (the table folds the hand when that is over).
        """
        why = self._leaving_refusal(seat)
        if why is not None:
            raise IllegalAction(why)
        h = self
        i = h.index[seat]  # type: ignore[attr-defined]
        ph = h.phase  # type: ignore[attr-defined]
        h._log.append(("leave", seat))  # type: ignore[attr-defined]
        h.folded[i] = True  # type: ignore[attr-defined]
        h.n_live -= 1  # type: ignore[attr-defined]
        h.n_able -= 1  # type: ignore[attr-defined]
        h.acted[i] = True  # type: ignore[attr-defined]
        if ph == _BET:
            if i == h.to_act:  # type: ignore[attr-defined]
                h._advance(i)  # type: ignore[attr-defined]
            elif h.n_live == 1:  # type: ignore[attr-defined]
                h._end_round()  # type: ignore[attr-defined]
            else:
                self._recheck_turn()
        elif ph == _DRAW:
            if h.n_live == 1:  # type: ignore[attr-defined]
                h._end_round()  # type: ignore[attr-defined]
            elif i == h.to_act:  # type: ignore[attr-defined]
                h._next_drawer()  # type: ignore[attr-defined]
        elif h.n_live == 1:  # type: ignore[attr-defined]
            h._end_round()  # type: ignore[attr-defined]

    def _recheck_turn(self) -> None:
        """After a fold out of turn: keep the turn if its player still has a decision, else
        pass it to the next player who has one, else close the round (S-2, S-8)."""
        h = self
        n, cur = h.n, h.current  # type: ignore[attr-defined]
        others = h.n_able > 1  # type: ignore[attr-defined]
        for k in range(n):
            j = (h.to_act + k) % n  # type: ignore[attr-defined]
            if h.folded[j] or h.allin[j]:  # type: ignore[attr-defined]
                continue
            if h.bet[j] < cur or (others and not h.acted[j]):  # type: ignore[attr-defined]
                h.to_act = j  # type: ignore[attr-defined]
                return
        h._end_round()  # type: ignore[attr-defined]
