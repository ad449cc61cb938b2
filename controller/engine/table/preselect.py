"""Pre-selected actions (A-3): what a pre-selection does when the player's turn comes.

A player may pre-select while others act: check/fold, fold, check, call (amount), call any
/ check, bet or raise (amount), raise any, all-in. When the turn comes the choice runs if
it is still possible, else it is dropped and the player acts normally. A "call X" is
dropped as soon as the amount to call changes; every pre-selection lasts one betting round.
The table never folds for a player who could check (A-2, A-4), so a pre-selected fold
checks when checking is free.
"""

from __future__ import annotations

from typing import Any

__all__ = ["resolve"]


def resolve(choice: str, amount: int | None, legal: Any) -> tuple[str, int | None] | None:
    """Return the action ``(name, amount)`` a pre-selection makes now, or None (dropped).

    Args:
        choice: one of ``events.PRESELECTS``.
        amount: chips to call for ``call``; the street total for ``bet``/``raise``.
        legal: the hand's ``Legal`` for this player (``check``, ``call`` chips,
            ``bet``/``raise_`` ``(min_to, max_to)`` or None, ``all_in`` street total or None).

    Returns:
        ``("check", None)``, ``("fold", None)``, ``("call", None)``, ``("bet", to)``,
        ``("raise", to)``, ``("all_in", None)``, or None when the choice no longer applies.
    """
    check = legal.check
    call = legal.call
    if choice in ("check_fold", "fold"):
        return ("check", None) if check else ("fold", None)
    if choice == "check":
        return ("check", None) if check else None
    if choice == "call":
        return ("call", None) if (not check and call == amount) else None
    if choice == "call_any":
        return ("check", None) if check else ("call", None)
    span = legal.bet if legal.bet is not None else legal.raise_
    name = "bet" if legal.bet is not None else "raise"
    if choice in ("bet", "raise"):
        if span is not None and amount is not None and span[0] <= amount <= span[1]:
            return (name, amount)
        return None
    if choice == "raise_any":
        if span is not None:
            return (name, span[0])
        return ("all_in", None) if legal.all_in is not None and legal.all_in > legal.call_to else None
    if choice == "all_in":
        if legal.all_in is not None:
            return ("all_in", None)
        if span is not None:  # pot/fixed limit: as much as the rules allow
            return (name, span[1])
        return ("check", None) if check else ("call", None)
    return None
