"""The chip race of a colour-up: odd chips of a denomination leaving play (issue 19).

At a break where a denomination is removed, each player changes what he can for the next
denomination; the odd chips left are raced: the table's odd chips are changed for as many
chips of the next denomination as they make, one more if the rest is at least half of one;
these go one to a player, first to any player who would otherwise be raced out of the
tournament (no player is), then by the race's cards (the caller deals them and passes the
players best card first). A race adds or removes a few chips: the delta is returned so the
chips-in-play ledger can record it (:meth:`controller.tournament.results.Standings.adjust_chips`).
"""

from __future__ import annotations

from typing import Mapping, Sequence

from .errors import TournamentError

__all__ = ["chip_race"]


def chip_race(stacks: Mapping[str, int], removed: int, next_chip: int,
              ranking: Sequence[str]) -> tuple[dict[str, int], int]:
    """Race off the ``removed`` chips; return the new stacks and the chips added (< 0: removed).

    ``stacks``: chips of each player at the table; ``next_chip``: the smallest denomination
    left in play (a multiple of ``removed``); each player's odd chips are
    ``stack % next_chip``. ``ranking``: the players holding odd chips, best race card first.
    Every new stack is a multiple of ``next_chip``; a player with chips keeps at least one.

    Raises:
        TournamentError: ``next_chip`` not a multiple of ``removed``, a stack that is not
            a multiple of ``removed``, or ``ranking`` not listing exactly the players with
            odd chips.
    """
    if removed <= 0 or next_chip <= removed or next_chip % removed:
        raise TournamentError(f"chip race: {next_chip} is not a larger multiple of {removed}")
    odd = {}
    for p, s in stacks.items():
        if s < 0 or s % removed:
            raise TournamentError(f"chip race: {p}'s stack {s} is not made of {removed} chips and larger")
        if s % next_chip:
            odd[p] = s % next_chip
    if sorted(ranking) != sorted(odd):
        raise TournamentError(f"chip race: ranking must list exactly the players with odd chips {sorted(odd)}")
    total = sum(odd.values())
    won = total // next_chip + (1 if 2 * (total % next_chip) >= next_chip and total % next_chip else 0)
    winners: list[str] = [p for p in ranking if stacks[p] == odd[p]]  # would be raced out
    for p in ranking:
        if len(winners) >= won:
            break
        if p not in winners:
            winners.append(p)
    new = {p: s - odd.get(p, 0) + (next_chip if p in winners else 0) for p, s in stacks.items()}
    return new, sum(new.values()) - sum(stacks.values())
