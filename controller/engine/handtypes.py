"""Value types a :class:`~controller.engine.hand.Hand` hands out: deal requests, legal
moves, pots, awards and the hand's result (G-, S-, P-, R- rules).

``DealRequest``, ``Legal`` and ``PotView`` are named tuples (cheap to build on every
action); ``PotAward`` and ``HandResult`` are frozen dataclasses built once per hand.
Chips are integers; seats are the table's seat numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from .settings import Street

__all__ = ["ACTIONS", "DealRequest", "Legal", "PotView", "PotAward", "HandResult"]

#: action names accepted by ``Hand.act`` (``raise`` and ``bet`` are the same "to" move)
ACTIONS = ("fold", "check", "call", "bet", "raise", "all_in", "draw", "show", "muck")


class DealRequest(NamedTuple):
    """What the dealer must deal next (cards enter as facts).

    ``kind``: ``"hole"`` (``count`` more hole cards to ``seat``; the seat is the next
    in the usual one-at-a-time order from the first seat left of the button),
    ``"board"`` (``count`` board cards; ``burn`` says a card is burned first), or
    ``"draw"`` (``count`` replacement cards to ``seat``, G-3; ``burn`` before the first
    draw). ``reshuffle_after`` (draw only, G-4): the stub holds only that many cards;
    serve them, then shuffle the other players' discards with the burn card(s) into a
    new stub for the rest (never this seat's own discards).
    """

    kind: str
    seat: int | None
    count: int  # type: ignore[assignment]  # a field named like tuple.count(), which it hides
    burn: bool = False
    reshuffle_after: int | None = None


class Legal(NamedTuple):
    """The legal moves of the player to act (A-1, S-4..S-8, G-3, P-2).

    Betting round: ``fold`` (false when checking is free: A-2, A-4), ``check``,
    ``call`` the chips to put in to call (capped at the stack; 0 when nothing to call)
    and ``call_to`` the street total after calling. ``bet`` (no bet faced) or
    ``raise_`` (a bet faced) is ``(min_to, max_to)`` in street totals, or ``None`` when
    no full bet or raise is possible. ``min_raise_to`` is the rule's nominal minimum
    (S-4, S-6) even when the stack cannot reach it (then only ``all_in`` is offered);
    ``max_raise_to`` the nominal maximum (pot-limit: the pot, S-5; fixed limit: the
    one size). ``all_in`` is the street total of going all-in when that is legal (a
    call, an incomplete raise or a full one), else ``None``.
    Draw: ``draw`` is the most cards the player may discard (0 = stand pat, G-3).
    Showdown: ``show`` and ``muck`` are true (P-2 order).
    """

    seat: int
    street: Street
    fold: bool = False
    check: bool = False
    call: int = 0
    call_to: int = 0
    bet: tuple[int, int] | None = None
    raise_: tuple[int, int] | None = None
    all_in: int | None = None
    min_raise_to: int | None = None
    max_raise_to: int | None = None
    draw: int | None = None
    show: bool = False
    muck: bool = False

    @property
    def can_check(self) -> bool:
        """Return whether checking is possible (the table checks on timeout, A-2)."""
        return self.check

    def names(self) -> list[str]:
        """Return the legal action names, e.g. ``["fold", "call", "raise", "all_in"]``."""
        out = []
        for name, ok in (("fold", self.fold), ("check", self.check), ("call", self.call > 0),
                         ("bet", self.bet is not None), ("raise", self.raise_ is not None),
                         ("all_in", self.all_in is not None), ("draw", self.draw is not None),
                         ("show", self.show), ("muck", self.muck)):
            if ok:
                out.append(name)
        return out

    def to_json(self) -> dict[str, Any]:
        """Return the state.md ``legal`` object plus ``seat``, ``call_to``, ``all_in``,
        ``min_raise_to``, ``max_raise_to``, ``show``, ``muck``."""
        return {
            "seat": self.seat, "fold": self.fold, "check": self.check, "call": self.call,
            "call_to": self.call_to,
            "bet": None if self.bet is None else {"min": self.bet[0], "max": self.bet[1]},
            "raise": None if self.raise_ is None else {"min": self.raise_[0], "max": self.raise_[1]},
            "all_in": self.all_in, "min_raise_to": self.min_raise_to,
            "max_raise_to": self.max_raise_to, "draw": self.draw,
            "show": self.show, "muck": self.muck,
        }


class PotView(NamedTuple):
    """One pot: ``amount`` chips and the seats that can win it (P-1), main pot first."""

    amount: int
    eligible: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PotAward:
    """How one pot was awarded (P-1, P-3, R-1).

    ``amount`` is the pot before rake, ``rake`` the chips the house took from it,
    ``shares`` seat -> chips won (summing to ``amount - rake``), ``winners`` in the
    P-3 order (clockwise from the first seat left of the button), ``hand`` the
    winning hand in words (H-6; ``""`` when uncontested).
    """

    pot: int
    amount: int
    rake: int
    eligible: tuple[int, ...]
    winners: tuple[int, ...]
    shares: dict[int, int]
    hand: str


@dataclass(frozen=True, slots=True)
class HandResult:
    """The outcome of a finished hand.

    ``awards`` per pot, main pot first; ``returned`` seat -> uncalled chips given back
    (S-9); ``rake`` total chips taken (R-1); ``stacks`` seat -> final stack;
    ``showdown_order`` the live seats in P-2 order (empty when the hand ended without
    a showdown); ``shown`` seat -> cards shown; ``mucked`` seats that mucked (P-4: their
    cards stay in ``hole``, for the hand history); ``hole`` seat -> every hole card the
    engine knows (``None`` = unknown); ``voided`` true after a misdeal (every chip back).
    """

    awards: tuple[PotAward, ...]
    returned: dict[int, int]
    rake: int
    stacks: dict[int, int]
    showdown_order: tuple[int, ...]
    shown: dict[int, tuple[str, ...]]
    mucked: tuple[int, ...]
    hole: dict[int, tuple[str | None, ...]]
    voided: bool = False

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-able dict (seat keys become strings)."""
        return {
            "awards": [
                {"pot": a.pot, "amount": a.amount, "rake": a.rake, "eligible": list(a.eligible),
                 "winners": list(a.winners), "shares": {str(k): v for k, v in a.shares.items()},
                 "hand": a.hand}
                for a in self.awards
            ],
            "returned": {str(k): v for k, v in self.returned.items()},
            "rake": self.rake,
            "stacks": {str(k): v for k, v in self.stacks.items()},
            "showdown_order": list(self.showdown_order),
            "shown": {str(k): list(v) for k, v in self.shown.items()},
            "mucked": list(self.mucked),
            "hole": {str(k): list(v) for k, v in self.hole.items()},
            "voided": self.voided,
        }
