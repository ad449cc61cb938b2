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

__all__ = ["chip_race", "race_cards", "card_order"]

_RANKS = "23456789TJQKA"
_SUITS = "cdhs"  # TDA chip race: spades, hearts, diamonds, clubs (highest first)


def card_order(card: str) -> tuple[int, int]:
    """The race order of ``card`` (``As``, ``Td``): by rank, then by suit (spades highest,
    then hearts, diamonds, clubs; TDA chip race). Raises :class:`TournamentError` for a
    string that is no card."""
    if len(card) != 2 or card[0] not in _RANKS or card[1] not in _SUITS:
        raise TournamentError(f"chip race: {card!r} is no card")
    return _RANKS.index(card[0]), _SUITS.index(card[1])


def race_cards(odd_chips: Mapping[str, int], order: Sequence[str],
               deck: Sequence[str]) -> tuple[dict[str, list[str]], list[str]]:
    """Deal the race's cards (TDA chip race): one card for each odd chip a player holds,
    dealt one at a time round the table in ``order`` (the players with odd chips, seat order
    from the button's left), from the top of ``deck`` (the table's shuffled deck); return
    each player's cards and the players ranked by their highest card, best first (rank,
    then suit: spades, hearts, diamonds, clubs), the ``ranking`` :func:`chip_race` takes.

    Raises:
        TournamentError: ``order`` is not exactly the players with odd chips, a count is
            not positive, the deck holds a card twice or too few cards, or no card.
    """
    if sorted(order) != sorted(odd_chips) or len(set(order)) != len(order):
        raise TournamentError("chip race: the dealing order must list each player with odd chips once")
    if any(n < 1 for n in odd_chips.values()):
        raise TournamentError("chip race: every player in the race holds at least one odd chip")
    if len(set(deck)) != len(deck):
        raise TournamentError("chip race: a card is twice in the deck")
    need = sum(odd_chips.values())
    if need > len(deck):
        raise TournamentError(f"chip race: {need} cards are needed, the deck holds {len(deck)}")
    cards: dict[str, list[str]] = {p: [] for p in order}
    top = iter(deck)
    for round_ in range(max(odd_chips.values(), default=0)):
        for p in order:
            if round_ < odd_chips[p]:
                cards[p].append(next(top))
    best = {p: max(card_order(c) for c in cs) for p, cs in cards.items()}
    return cards, sorted(order, key=lambda p: best[p], reverse=True)


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
