"""Deck integrity: 52 distinct cards by identity, and no card reported twice in a hand (G-5).

:class:`DeckTracker` is pure (no I/O, no clock): the driver feeds it what the device reports
and acts on the verdicts; tests drive it directly. One deck is one hand: the live shuffler
shuffles a fresh deck for every hand, so "reported twice in one hand" is "reported twice from
the same deck".

Rules it enforces:

- A deck is accepted only when the cards read in the stub plus the cards already reported
  from that deck are exactly the 52 cards of :data:`FULL_DECK`, each once. A count is never
  enough: 52 cards with one duplicate are rejected and the duplicate and the missing card are
  named. Unreadable cards make the check fail (nothing is guessed).
- A card may be delivered only from the verified deck, and only once per deck.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from controller.engine.cards import FULL_DECK, Card

from .protocol import Target

__all__ = ["DeckVerdict", "CardVerdict", "DeckTracker"]


@dataclass(frozen=True, slots=True)
class DeckVerdict:
    """The outcome of a deck check.

    ``ok`` is true when stub + dealt are the 52 distinct cards; otherwise ``duplicates``
    (cards read more than once, or read in the stub although already dealt), ``missing``
    (cards in neither) and ``unreadable`` (count of unread cards) say why. ``count`` is how
    many cards the stub held; ``dealt`` how many were already reported from this deck.
    """

    ok: bool
    deck_no: int
    count: int
    dealt: int
    duplicates: tuple[Card, ...]
    missing: tuple[Card, ...]
    unreadable: int


@dataclass(frozen=True, slots=True)
class CardVerdict:
    """The outcome of one delivered card: ``kind`` is ``"ok"``, ``"duplicate"``, ``"no-deck"``
    or ``"wrong-deck"``; ``first_target`` is where the first copy went for a duplicate."""

    kind: str
    first_target: Target | None = None

    @property
    def ok(self) -> bool:
        """Return true when the card may be dealt."""
        return self.kind == "ok"


class DeckTracker:
    """Track the verified deck and the cards reported from it (G-5).

    ``deck_no`` is the device's deck number of the verified deck, or ``None`` when no deck is
    verified; ``dealt`` maps each card reported from it to its target.
    """

    def __init__(self) -> None:
        self.deck_no: int | None = None
        self.dealt: dict[Card, Target | None] = {}  # None: reported before a host restart
        self.misreads = 0

    @property
    def verified(self) -> bool:
        """Return true while a verified deck is in use."""
        return self.deck_no is not None

    def forget(self) -> None:
        """Drop the verified deck (device reset, reboot, failed check): nothing may be dealt."""
        self.deck_no = None
        self.dealt = {}
        self.misreads = 0

    def check(self, deck_no: int, stub: Iterable[Card | None], *, dealt: int = 0) -> DeckVerdict:
        """Check the stub of deck ``deck_no`` that the device read after dealing ``dealt`` cards.

        A new ``deck_no`` (or ``dealt == 0``) starts a new deck: the cards reported so far are
        forgotten. On success the deck becomes the verified deck; on failure no deck is
        verified. ``dealt`` must match what this tracker saw (cards + misreads) for the same deck.
        """
        cards = list(stub)
        if deck_no != self.deck_no or dealt == 0:
            self.deck_no, self.dealt, self.misreads = None, {}, 0
        before = dict(self.dealt)
        misreads = self.misreads
        known = [c for c in cards if c is not None]
        unreadable = len(cards) - len(known)
        counts = Counter(known)
        counts.update(before.keys())
        duplicates = tuple(sorted(c for c, n in counts.items() if n > 1))
        missing = tuple(c for c in FULL_DECK if c not in counts)
        consistent = dealt == len(before) + misreads
        ok = (not duplicates and not missing and unreadable == 0 and misreads == 0 and consistent
              and len(cards) + dealt == 52)
        self.deck_no = deck_no if ok else None
        if not ok:
            self.dealt, self.misreads = {}, 0
        return DeckVerdict(ok, deck_no, len(cards), dealt, duplicates, missing, unreadable)

    def resume(self, deck_no: int, stub: Iterable[Card | None], *, dealt: int,
               cards_dealt: Iterable[Card]) -> DeckVerdict:
        """Prove again, after the host restarted, the deck the device still holds (G-5).

        The device's DECK report (after a DECK_CHECK) gives the stub it holds and how many
        cards it ``dealt`` from deck ``deck_no``; ``cards_dealt`` are the cards the host's
        record (the table's journal) says came from it. The deck is proven again, and the
        cards of ``cards_dealt`` count as reported from it, only when the stub and those
        cards are, by identity, the 52 cards each once, nothing is unreadable and the
        device's count equals the record's: a card the device delivered that the record
        does not know (or the other way round) refuses it. On failure no deck is verified.
        """
        cards = list(stub)
        before = list(cards_dealt)
        known = [c for c in cards if c is not None]
        counts = Counter(known)
        counts.update(before)
        duplicates = tuple(sorted(c for c, n in counts.items() if n > 1))
        missing = tuple(c for c in FULL_DECK if c not in counts)
        unreadable = len(cards) - len(known)
        ok = (not duplicates and not missing and unreadable == 0 and dealt == len(before)
              and len(cards) + dealt == 52)
        out: dict[Card, Target | None] = {c: None for c in before} if ok else {}
        self.deck_no, self.dealt, self.misreads = (deck_no if ok else None), out, 0
        return DeckVerdict(ok, deck_no, len(cards), dealt, duplicates, missing, unreadable)

    def deliver(self, deck_no: int, card: Card, target: Target) -> CardVerdict:
        """Record ``card`` delivered to ``target`` from deck ``deck_no`` and say if it is sound.

        Only an ``"ok"`` card is recorded; a faulty one changes nothing.
        """
        if self.deck_no is None:
            return CardVerdict("no-deck")
        if deck_no != self.deck_no:
            return CardVerdict("wrong-deck")
        if card in self.dealt:
            return CardVerdict("duplicate", self.dealt[card])
        self.dealt[card] = target
        return CardVerdict("ok")

    def misread(self, deck_no: int) -> None:
        """Count a card of deck ``deck_no`` delivered unread (its identity stays unknown)."""
        if deck_no == self.deck_no:
            self.misreads += 1
