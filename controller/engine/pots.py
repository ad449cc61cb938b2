"""Main and side pots, and splitting a pot to the smallest chip (P-1, P-3, S-9).

Pure functions over per-player lists indexed like the hand's players (clockwise
seat order). Chips are integers.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["build_pots", "split_pot", "uncalled"]


def uncalled(bets: Sequence[int]) -> tuple[int, int]:
    """Return ``(index, chips)`` of the uncalled part of the largest bet in a round (S-9).

    ``bets`` are every player's chips bet in the round (folded players included).
    The largest bet above the second largest is uncalled; ``(-1, 0)`` when the top
    bet was matched.
    """
    top = second = 0
    who = -1
    for i, b in enumerate(bets):
        if b > top:
            second, top, who = top, b, i
        elif b > second:
            second = b
    if who < 0 or top == second:
        return -1, 0
    return who, top - second


def build_pots(
    committed: Sequence[int], live: Sequence[bool], dead: int = 0
) -> list[tuple[int, tuple[int, ...]]]:
    """Return the pots as ``[(chips, eligible player indexes), ...]``, main pot first (P-1).

    ``committed[i]`` is every chip player ``i`` put in the pot this hand (the ante,
    live blinds, bets; after uncalled chips are returned, S-9); ``live[i]`` is false for
    a player who folded: their chips stay in, but they can win nothing. ``dead`` is
    dead money that counts toward no one's level and goes to the main pot (missed
    blinds posted dead, T-6; big-blind antes, ``HandSettings.dead_antes``). A new pot
    starts at each all-in level of a live player; pots with the same eligible
    players are merged. A pot whose eligible players all folded cannot happen after
    S-9 returns; if it does, its chips join the previous pot.
    """
    levels = sorted({c for c, lv in zip(committed, live) if lv and c > 0})
    pots: list[tuple[int, tuple[int, ...]]] = []
    prev = 0
    n = len(committed)
    for level in levels:
        amount = 0
        for c in committed:
            if c > prev:
                amount += (c if c < level else level) - prev
        elig = tuple(i for i in range(n) if live[i] and committed[i] >= level)
        if pots and pots[-1][1] == elig:
            pots[-1] = (pots[-1][0] + amount, elig)
        elif amount:
            pots.append((amount, elig))
        prev = level
    # chips above the highest live level (folded players' overbets): to the last pot
    rest = sum(c - prev for c in committed if c > prev)
    if rest:
        if pots:
            pots[-1] = (pots[-1][0] + rest, pots[-1][1])
        else:  # no live player put a chip in (T-8: the others left): the live players' pot
            pots.append((rest, tuple(i for i in range(n) if live[i])))
    if dead:
        if pots:
            pots[0] = (pots[0][0] + dead, pots[0][1])
        else:
            pots.append((dead, tuple(i for i in range(n) if live[i])))
    return pots


def split_pot(amount: int, winners: Sequence[int], chip: int = 1) -> list[int]:
    """Return each winner's share of ``amount`` chips, in the order of ``winners`` (P-3).

    ``winners`` must already be ordered clockwise from the first seat left of the
    button. The pot is divided to the smallest ``chip``; the odd chips go one each
    to the first winners in that order, so nobody gets more than one odd chip.
    A remainder smaller than one chip (only when stacks are not whole chips) goes to
    the first winner. Raises ``ValueError`` for no winners.
    """
    k = len(winners)
    if k == 0:
        raise ValueError("P-3: a pot needs at least one winner")
    if k == 1:
        return [amount]
    units, sub = divmod(amount, chip)
    each, odd = divmod(units, k)
    shares = [each * chip + (chip if j < odd else 0) for j in range(k)]
    shares[0] += sub
    return shares
