"""The draw for the button by cards at a new table (issue 19).

When a tournament table starts (a single table's start, each table of the room's start
draw) or its seats are all drawn again (the room's redrawn final table), the dealer draws
for the button: one card face up to each player, dealt from seat 1 upwards, the highest card
wins the button; equal ranks are broken by suit, spades, hearts, diamonds, clubs (the chip
race's order, :func:`controller.tournament.chiprace.card_order`). Sources: WSOP Tournament
Rule 85 (2026) "There will be a draw for the button with 3, 2 and 1 table(s) remaining"; the
card-room tournament rule "the starting position of the button is determined by dealing for
the high card", absent players dealt in (Robert's Rules of Poker, tournaments, as quoted on a
third-party page: not checked against the original). The Poker TDA Rules draw the seats at
random (Rule 7: random correct seating) and say nothing of the button (docs/tournament.md).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from .chiprace import card_order
from .errors import TournamentError

__all__ = ["ButtonDraw", "button_draw", "new_deck"]


def new_deck() -> list[str]:
    """Return the 52 cards (``As``, ``Td``, ...), ranks low to high, unshuffled."""
    return [r + s for r in "23456789TJQKA" for s in "cdhs"]


@dataclass(frozen=True)
class ButtonDraw:
    """One draw for the button: ``cards`` seat -> the card dealt face up (in dealing order,
    seat 1 upwards), ``button`` the seat of the highest card."""

    cards: dict[int, str]
    button: int

    def words(self) -> str:
        """The draw in words for the log: ``seat 1 7h, seat 3 Ks — button seat 3 (Ks)``."""
        dealt = ", ".join(f"seat {s} {c}" for s, c in self.cards.items())
        return f"{dealt} — button seat {self.button} ({self.cards[self.button]})"

    def to_json(self) -> dict[str, Any]:
        """The draw as journalled: ``{"cards": {"1": "7h", ...}, "button": 3}``."""
        return {"cards": {str(s): c for s, c in self.cards.items()}, "button": self.button}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "ButtonDraw":
        """Read a journalled draw (:meth:`to_json`) back; its button is checked against its cards.

        Raises:
            TournamentError: not a draw's shape, a card twice or no card, or a button that is
                not the highest card's seat.
        """
        try:
            cards = {int(s): str(c) for s, c in dict(data["cards"]).items()}
            button = int(data["button"])
        except (KeyError, TypeError, ValueError) as exc:
            raise TournamentError(f"button draw: not a journalled draw: {exc}") from None
        again = button_draw(cards, [cards[s] for s in sorted(cards)])
        if again.button != button:
            raise TournamentError(f"button draw: seat {button} is not the highest card's seat ({again.button})")
        return again


def button_draw(seats: Iterable[int], deck: Sequence[str] | random.Random) -> ButtonDraw:
    """Draw for the button (WSOP Rule 85; the card-room rule of the module docstring): one
    card face up to each of ``seats`` (the seats with a player, absent players too), dealt
    from the lowest seat upwards off the top of ``deck``, the highest card wins: by rank,
    then by suit (spades, hearts, diamonds, clubs: :func:`chiprace.card_order`, the chip
    race's order). ``deck``: the shuffled cards (``As``, ``Td``; the first is the top), or a
    ``random.Random`` that shuffles a fresh 52-card deck (seeded: the same draw again).

    Returns the :class:`ButtonDraw` (the cards by seat and the button's seat).

    Raises:
        TournamentError: no seat, a seat twice or below 1, a card twice in the deck, no
            card, or fewer cards than seats.
    """
    order = list(seats)
    if not order or len(set(order)) != len(order) or any(
            isinstance(s, bool) or not isinstance(s, int) or s < 1 for s in order):
        raise TournamentError(f"button draw: the seats must be distinct seat numbers, got {order!r}")
    order.sort()
    if isinstance(deck, random.Random):
        cards = new_deck()
        deck.shuffle(cards)
    else:
        cards = list(deck)
    if len(set(cards)) != len(cards):
        raise TournamentError("button draw: a card is twice in the deck")
    if len(cards) < len(order):
        raise TournamentError(f"button draw: {len(order)} cards are needed, the deck holds {len(cards)}")
    dealt = dict(zip(order, cards))
    best = {s: card_order(c) for s, c in dealt.items()}  # TournamentError: no card
    return ButtonDraw(dealt, max(order, key=lambda s: best[s]))
