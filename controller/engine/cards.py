"""Cards and decks as facts: parsing and formatting of ``As``, ``Td``, ``7h`` (G-5).

A card is an immutable :class:`Card` with a rank (2..14, ace high) and a suit
(``c``, ``d``, ``h``, ``s``). Every card also has a dense index 0..51
(``index = (rank - 2) * 4 + suit_index``) that fast code (the evaluator, equity)
works on. The engine never shuffles: cards enter the engine as facts from whoever
dealt them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Union

RANKS = "23456789TJQKA"
SUITS = "cdhs"

__all__ = [
    "RANKS",
    "SUITS",
    "Card",
    "CardError",
    "CardLike",
    "FULL_DECK",
    "parse_card",
    "parse_cards",
    "format_cards",
]


class CardError(ValueError):
    """A card text is not a card (G-5: one deck of 52, no jokers)."""


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One playing card.

    ``rank`` is 2..14 (14 = ace), ``suit`` one of ``"cdhs"``. ``str(card)`` gives
    the card-room notation (``"As"``); ``card.index`` is 0..51.

    Raises:
        CardError: rank or suit out of range.
    """

    rank: int
    suit: str

    def __post_init__(self) -> None:
        if not (isinstance(self.rank, int) and 2 <= self.rank <= 14):
            raise CardError(f"G-5: rank must be 2..14, got {self.rank!r}")
        if self.suit not in SUITS or len(self.suit) != 1:
            raise CardError(f"G-5: suit must be one of c d h s, got {self.suit!r}")

    @property
    def index(self) -> int:
        """Return the dense index 0..51: ``(rank - 2) * 4 + suit``."""
        return (self.rank - 2) * 4 + SUITS.index(self.suit)

    @classmethod
    def from_index(cls, index: int) -> "Card":
        """Return the card with dense index ``index`` (0..51).

        Raises:
            CardError: index out of range.
        """
        if not (isinstance(index, int) and 0 <= index < 52):
            raise CardError(f"G-5: card index must be 0..51, got {index!r}")
        return _BY_INDEX[index]

    def __str__(self) -> str:
        return RANKS[self.rank - 2] + self.suit

    def __repr__(self) -> str:
        return f"Card('{self}')"


_BY_INDEX: list[Card] = []
for _r in range(2, 15):
    for _s in SUITS:
        _BY_INDEX.append(Card.__new__(Card))
        object.__setattr__(_BY_INDEX[-1], "rank", _r)
        object.__setattr__(_BY_INDEX[-1], "suit", _s)
_BY_TEXT: dict[str, Card] = {str(c): c for c in _BY_INDEX}

#: The 52 cards in index order.
FULL_DECK: tuple[Card, ...] = tuple(_BY_INDEX)

CardLike = Union[Card, str]


def parse_card(text: CardLike) -> Card:
    """Return the :class:`Card` for ``"As"``, ``"td"``, ``"10h"`` or a Card.

    Rank letters are case-insensitive; suits are ``c d h s``. ``"10"`` is read as ``T``.

    Raises:
        CardError: not a card of the 52-card deck (G-5), e.g. ``"Xx"`` or ``"??"``.
    """
    if isinstance(text, Card):
        return text
    if not isinstance(text, str):
        raise CardError(f"G-5: a card is written like 'As', got {text!r}")
    t = text.strip()
    if t[:2] == "10":
        t = "T" + t[2:]
    if len(t) == 2:
        card = _BY_TEXT.get(t[0].upper() + t[1].lower())
        if card is not None:
            return card
    raise CardError(f"G-5: not a card: {text!r} (write cards like 'As', 'Td', '7h')")


def parse_cards(text: str | Iterable[CardLike]) -> tuple[Card, ...]:
    """Return the cards in ``"As Kd"``, ``"AsKd"`` or an iterable of card texts/Cards.

    Raises:
        CardError: any item is not a card, or a card appears twice (G-5).
    """
    if isinstance(text, str):
        s = text.replace(",", " ").split()
        items: list[CardLike] = []
        for word in s:
            if len(word) > 3 and len(word) % 2 == 0:
                items.extend(word[i : i + 2] for i in range(0, len(word), 2))
            else:
                items.append(word)
    else:
        items = list(text)
    cards = tuple(parse_card(x) for x in items)
    if len(set(cards)) != len(cards):
        raise CardError(f"G-5: a card appears twice in {format_cards(cards)!r}")
    return cards


def format_cards(cards: Iterable[Card]) -> str:
    """Return cards as card-room text separated by spaces (``"Jh 8c 3d"``)."""
    return " ".join(str(c) for c in cards)
