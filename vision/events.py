"""Events the camera thread and the board check post to the controller loop (issue 6).

All are frozen dataclasses; times are seconds from the injected clock (float).
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.engine.cards import Card

__all__ = ["CardSeen", "BoardRead", "CameraLost", "CameraBack", "FrameRejected",
           "BoardMatch", "BoardMismatch", "BoardUnreadable"]


@dataclass(frozen=True)
class CardSeen:
    """One card-shaped object: ``card`` None when unsure; ``outline`` 4 (x, y) frame pixels."""

    card: Card | None
    confidence: float
    outline: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class BoardRead:
    """The readings of one frame inside the board region, left to right, at time ``at``."""

    at: float
    cards: tuple[CardSeen, ...]
    frame_no: int = 0

    @property
    def named(self) -> tuple[Card, ...]:
        """The cards named (unsure objects left out)."""
        return tuple(c.card for c in self.cards if c.card is not None)

    @property
    def unsure(self) -> int:
        """How many card-shaped objects were not named."""
        return sum(1 for c in self.cards if c.card is None)


@dataclass(frozen=True)
class CameraLost:
    """The camera gave no frame (``reason``); the reader keeps trying to reopen it."""

    at: float
    source: str
    reason: str


@dataclass(frozen=True)
class CameraBack:
    """The camera gives frames again after a :class:`CameraLost`."""

    at: float
    source: str


@dataclass(frozen=True)
class FrameRejected:
    """A frame came but could not be read (wrong size, corrupt...); no card comes from it."""

    at: float
    reason: str


@dataclass(frozen=True)
class BoardMatch:
    """The camera sees exactly the cards the shuffler dealt to the board."""

    at: float
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class BoardMismatch:
    """The camera reads ``seen`` where the shuffler dealt ``dealt`` (fault ``board-mismatch``)."""

    at: float
    dealt: tuple[Card, ...]
    seen: tuple[Card, ...]
    message: str


@dataclass(frozen=True)
class BoardUnreadable:
    """After ``waited`` seconds the camera still cannot read ``missing``: ask the dealer."""

    at: float
    missing: tuple[Card, ...]
    waited: float
    message: str
