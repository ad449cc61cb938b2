"""Errors of one hand of poker; each message starts with the rule id it enforces.

Every class subclasses the matching builtin so callers may catch either:
``IllegalAction`` and ``IllegalDeal`` are ``ValueError``; ``NotSupported`` is
``NotImplementedError`` (and ``ValueError``, so a replay can treat a refused variant
like any other bad input). Messages look like ``"S-4: minimum raise is to 600, got 450"``.
"""

from __future__ import annotations

__all__ = ["HandError", "IllegalAction", "IllegalDeal", "NotSupported", "HandSetupError"]


class HandError(ValueError):
    """Base class of every error raised by the hand engine (a ``ValueError``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        #: the rule id the message starts with (``"S-4"``), or ``""`` when there is none
        self.rule = message.split(":", 1)[0] if ":" in message[:8] else ""


class IllegalAction(HandError):
    """A player action that the rules do not allow now (A-1, S-*, P-2, G-3).

    The hand's state is unchanged when this is raised. The message starts with the
    rule id and states the legal range, e.g. ``"S-4: minimum raise is to 600, got 450"``.
    """


class IllegalDeal(HandError):
    """A dealt card fact that cannot be true: wrong phase, wrong count, a card twice (G-5, G-4).

    The hand's state is unchanged when this is raised.
    """


class HandSetupError(HandError):
    """Settings or players that cannot start a hand (G-1..G-3 player counts, S-1 posts)."""


class NotSupported(HandError, NotImplementedError):
    """A game the engine does not play (hi/lo, lowball, stud): ``"G-5: variant not supported: FO/8"``."""
