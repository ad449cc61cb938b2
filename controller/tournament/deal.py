"""A deal calculator for the final players: ICM (Malmuth-Harville, exact) and chip chop.

The players still in agree to share the prizes not yet paid. Both methods take the stacks
(chips, > 0) and the prizes still to be won (money, 1st first; fewer prizes than players
means the last places get nothing) and return each player's share in whole money units,
summing exactly to the prizes' total (rounding rule in :func:`_apportion`).

Malmuth-Harville: a player finishes 1st with probability stack / chips in play; given the
places already taken, each remaining player takes the next place with probability his
stack / the remaining players' chips. The expected prize sums these over every finishing
order; computed exactly with fractions over the subsets of players (2^n states), so it is
limited to :data:`MAX_ICM_PLAYERS` players.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from .errors import TournamentError

__all__ = ["MAX_ICM_PLAYERS", "icm_equities", "icm_deal", "chip_chop", "place_probabilities"]

#: the most players an exact ICM is computed for (2^n subsets; 12 players take ~50k steps)
MAX_ICM_PLAYERS = 12


def _check(stacks: Sequence[int], prizes: Sequence[int]) -> None:
    if not stacks:
        raise TournamentError("deal: no players")
    if any(not isinstance(s, int) or s <= 0 for s in stacks):
        raise TournamentError(f"deal: every stack must be chips > 0, got {list(stacks)}")
    if any(not isinstance(p, int) or p < 0 for p in prizes):
        raise TournamentError(f"deal: prizes must be money >= 0, got {list(prizes)}")
    if len(prizes) > len(stacks):
        raise TournamentError(f"deal: {len(prizes)} prizes for {len(stacks)} players")


def place_probabilities(stacks: Sequence[int]) -> list[list[Fraction]]:
    """Return ``p[i][k]``: the Malmuth-Harville probability that player ``i`` finishes in
    place ``k + 1``. Every row and every column sums to 1.

    Raises:
        TournamentError: no players, a stack <= 0, more than :data:`MAX_ICM_PLAYERS`.
    """
    _check(stacks, [])
    n = len(stacks)
    if n > MAX_ICM_PLAYERS:
        raise TournamentError(f"deal: exact ICM is limited to {MAX_ICM_PLAYERS} players, got {n}")
    total = sum(stacks)
    prob = [Fraction(0)] * (1 << n)  # prob[mask]: the players in mask took places 1..|mask|
    prob[0] = Fraction(1)
    place = [[Fraction(0)] * n for _ in range(n)]
    mask_chips = [0] * (1 << n)
    for mask in range(1 << n):
        if mask:
            low = mask & -mask
            mask_chips[mask] = mask_chips[mask ^ low] + stacks[low.bit_length() - 1]
        pm = prob[mask]
        if not pm:
            continue
        k = bin(mask).count("1")
        if k == n:
            continue
        rest = total - mask_chips[mask]
        for j in range(n):
            if mask >> j & 1:
                continue
            pj = pm * Fraction(stacks[j], rest)
            place[j][k] += pj
            prob[mask | 1 << j] += pj
    return place


def icm_equities(stacks: Sequence[int], prizes: Sequence[int]) -> list[Fraction]:
    """Return each player's exact ICM equity (money, as a fraction), summing to sum(prizes).

    Raises:
        TournamentError: see :func:`place_probabilities`; more prizes than players.
    """
    _check(stacks, prizes)
    place = place_probabilities(stacks)
    return [sum((row[k] * prizes[k] for k in range(len(prizes))), Fraction(0)) for row in place]


def icm_deal(stacks: Sequence[int], prizes: Sequence[int], unit: int = 1) -> list[int]:
    """Return the ICM deal: each player's share in multiples of ``unit``, summing to sum(prizes).

    Raises:
        TournamentError: see :func:`icm_equities`; ``unit`` < 1.
    """
    return _apportion(icm_equities(stacks, prizes), sum(prizes), unit, stacks)


def chip_chop(stacks: Sequence[int], prizes: Sequence[int], unit: int = 1,
              guarantee_last: bool = True) -> list[int]:
    """Return the chip-chop deal: shares in proportion to the stacks, summing to sum(prizes).

    With ``guarantee_last`` (the usual way), each player first gets the prize of the last
    place in the deal (the smallest prize anyone can still win) and the rest is shared by
    chips; without it the whole total is shared by chips (a big stack may then get more
    than 1st prize).

    Raises:
        TournamentError: no players, a stack <= 0, more prizes than players, ``unit`` < 1.
    """
    _check(stacks, prizes)
    n = len(stacks)
    total = sum(prizes)
    floor = (list(prizes) + [0] * n)[n - 1] if guarantee_last else 0
    rest = total - floor * n
    chips = sum(stacks)
    exact = [Fraction(floor) + Fraction(rest * s, chips) for s in stacks]
    return _apportion(exact, total, unit, stacks)


def _apportion(exact: Sequence[Fraction], total: int, unit: int, stacks: Sequence[int]) -> list[int]:
    """Round exact shares to multiples of ``unit`` keeping their sum ``total`` to the unit.

    Largest remainder: each share is rounded down to the unit; the units left go one each
    to the largest remainders (ties: the larger stack, then the earlier player); a rest
    smaller than one unit (a total not a multiple of the unit) goes to the player then
    furthest below his exact share (same ties). Each share is within one unit of exact
    (two when a sub-unit rest is added).
    """
    if unit < 1:
        raise TournamentError(f"deal: unit must be >= 1, got {unit}")
    shares = [int(x // unit) * unit for x in exact]
    left = total - sum(shares)
    order = sorted(range(len(exact)), key=lambda i: (-(exact[i] - shares[i]), -stacks[i], i))
    i = 0
    while left >= unit:
        shares[order[i % len(order)]] += unit
        left -= unit
        i += 1
    if left:
        shares[max(range(len(exact)), key=lambda j: (exact[j] - shares[j], stacks[j], -j))] += left
    return shares


def offer_entry(open_offer: dict | None, offer: int, seat: int, seated: str | None) -> dict:
    """The entry of ``seat`` in the deal offer open now (``open_offer``: ``{"offer": n,
    "players": [{"seat", "player", "name", ...}]}``, or None), for a seat's answer to offer
    number ``offer``; ``seated``: the player the table has at that seat (None: nobody). One
    check for a single table's offer and the room's final table's (issue 19, the TDA's
    deal-making rule: each player left answers at his own seat).

    Raises:
        TournamentError: no offer open, ``offer`` not the open one, or the seat's player not
            in it (F-3).
    """
    if open_offer is None:
        raise TournamentError("F-3: no deal is offered now")
    if offer != open_offer["offer"]:
        raise TournamentError(f"F-3: deal offer {offer} is over: the offer now is number {open_offer['offer']}")
    entry = next((p for p in open_offer["players"] if p["seat"] == seat), None)
    if entry is None or seated is None or seated != entry["player"]:
        raise TournamentError(f"F-3: seat {seat} has no player in deal offer {offer}")
    return entry
