"""The internal dealer: a seeded deck per hand, for simulations without a shuffler (issue 9).

``livetable simulate --devices none`` and the crash tests deal with it instead of the
shuffler emulator. Hand ``n``'s deck order is a pure function of ``(seed, n)``, so after a
crash the same cards come out again from the same position: the dealer's side of a resumed
hand is exactly what it was. The rules engine itself never shuffles; this is a stand-in for
the physical shuffler, which owns the deck order at a real table.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from controller.engine.cards import FULL_DECK
from controller.engine.table import events as ev

__all__ = ["InternalDealer", "DeckExhausted"]


class DeckExhausted(RuntimeError):
    """More cards were asked for than the deck holds (G-4 reshuffle is the shuffler's job)."""


class InternalDealer:
    """Deal hand ``n`` from ``deck(n)``; cards reach the table as ``CardDealt`` via ``post``.

    Args:
        post: the orchestrator's ``post``.
        clock: stamps each ``CardDealt``.
        seed: any integer; the same seed deals the same cards.
    """

    def __init__(self, post: Callable[[Any], None], clock: Callable[[], float], seed: int = 0) -> None:
        self.post, self.clock, self.seed = post, clock, seed
        self.hand = -1
        self.position = 0
        self._deck: list[str] = []

    def deck(self, hand: int) -> list[str]:
        """Return hand ``hand``'s 52 cards in dealing order."""
        cards = [str(c) for c in FULL_DECK]
        random.Random(f"livetable:{self.seed}:{hand}").shuffle(cards)
        return cards

    def seek(self, hand: int, position: int) -> None:
        """Continue hand ``hand`` from card ``position`` (after a crash: cards already dealt)."""
        self.hand, self.position, self._deck = hand, position, self.deck(hand)

    def deal(self, *, target: str, count: int, seat: int | None, reshuffle: bool, hand: int) -> None:
        """Post ``count`` ``CardDealt`` events for hand ``hand``.

        Raises:
            DeckExhausted: the deck has fewer than ``count`` cards left.
        """
        if hand != self.hand:
            self.seek(hand, 0)
        if self.position + count > len(self._deck):
            raise DeckExhausted(f"G-4: hand {hand} needs {count} more cards, {len(self._deck) - self.position} left")
        for _ in range(count):
            card = self._deck[self.position]
            self.position += 1
            self.post(ev.CardDealt(at=self.clock(), card=card))
