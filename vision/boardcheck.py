"""The board check: what the shuffler dealt against what the camera reads (issue 6).

A pure state machine with an injected clock. The orchestrator calls :meth:`BoardCheck.dealt`
when the shuffler reports board cards (flop, turn, river) and :meth:`BoardCheck.seen` with each
:class:`vision.events.BoardRead`; :meth:`BoardCheck.poll` tells it when to give up waiting.
Each returns the events to act on:

- :class:`BoardMatch` when the camera reads exactly the dealt cards (as a multiset; order on
  the felt is not checked).
- :class:`BoardMismatch` naming both sides when the camera names, in ``confirm`` consecutive
  frames, a board card that was not dealt (``Jh 8c 3d`` dealt, ``Jh 8c 3s`` seen): the table
  pauses with fault ``board-mismatch``.
- :class:`BoardUnreadable` when a dealt card is still not read ``timeout`` seconds after it was
  dealt: the table asks the dealer to fix the card's position (never a silent stall).

Unsure readings never cause a mismatch; they only delay the match.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Iterable

from controller.engine.cards import Card, CardLike, format_cards, parse_cards
from vision.events import BoardMatch, BoardMismatch, BoardRead, BoardUnreadable

__all__ = ["BoardCheck"]

Event = BoardMatch | BoardMismatch | BoardUnreadable


class BoardCheck:
    """Compare dealt board cards with camera readings over time.

    Args:
        clock: returns seconds (float); injected so tests drive time.
        timeout: seconds after a deal before an unread card raises :class:`BoardUnreadable`.
        confirm: consecutive frames that must show the same wrong card before a mismatch.
    Raises:
        ValueError: ``timeout <= 0`` or ``confirm < 1``.
    """

    def __init__(self, clock: Callable[[], float], timeout: float = 5.0, confirm: int = 2) -> None:
        if timeout <= 0 or confirm < 1:
            raise ValueError("vision: BoardCheck needs timeout > 0 and confirm >= 1")
        self.clock = clock
        self.timeout = timeout
        self.confirm = confirm
        self.reset()

    def reset(self) -> None:
        """Forget the board (a new hand)."""
        self.board: tuple[Card, ...] = ()
        self._since: float | None = None
        self._state = "idle"  # idle | waiting | matched | mismatch | unreadable
        self._wrong_streak = 0
        self._last_wrong: tuple[Card, ...] = ()
        self._best_seen: tuple[Card, ...] = ()

    @property
    def state(self) -> str:
        """``idle``, ``waiting``, ``matched``, ``mismatch`` or ``unreadable``."""
        return self._state

    def dealt(self, cards: Iterable[CardLike]) -> list[Event]:
        """Record the whole board dealt so far (e.g. ``"Jh 8c 3d"`` then ``"Jh 8c 3d 5s"``).

        Raises:
            CardError: a card text is not a card, or a card is repeated (G-5).
        """
        board = parse_cards(list(cards) if not isinstance(cards, str) else cards)
        if board != self.board:
            self.board = board
            self._since = self.clock()
            self._state = "waiting" if board else "idle"
            self._wrong_streak = 0
            self._best_seen = ()
        return []

    def seen(self, read: BoardRead) -> list[Event]:
        """Take one frame's readings; return the events it causes (at most one)."""
        if not self.board or self._state in ("matched", "mismatch"):
            return []
        named = read.named
        want = Counter(self.board)
        got = Counter(named)
        extra = got - want
        if not extra and got == want:
            self._state = "matched"
            return [BoardMatch(self.clock(), self.board)]
        if extra:
            if tuple(sorted(extra.elements())) == self._last_wrong:
                self._wrong_streak += 1
            else:
                self._wrong_streak = 1
                self._last_wrong = tuple(sorted(extra.elements()))
            if self._wrong_streak >= self.confirm:
                self._state = "mismatch"
                missing = tuple((want - got).elements())
                msg = (f"board-mismatch: shuffler dealt {format_cards(self.board)}, camera sees "
                       f"{format_cards(named)}")
                if missing:
                    msg += f" ({format_cards(missing)} expected, {format_cards(extra.elements())} seen)"
                return [BoardMismatch(self.clock(), self.board, tuple(named), msg)]
            return []
        self._wrong_streak = 0
        if sum(got.values()) > len(self._best_seen):
            self._best_seen = tuple(named)
        return self.poll()

    def poll(self) -> list[Event]:
        """Return :class:`BoardUnreadable` once ``timeout`` has passed without a match."""
        if self._state != "waiting" or self._since is None:
            return []
        now = self.clock()
        if now - self._since < self.timeout:
            return []
        self._state = "unreadable"
        missing = tuple((Counter(self.board) - Counter(self._best_seen)).elements())
        msg = (f"camera cannot read {format_cards(missing)} after {now - self._since:.1f}s: "
               f"dealer, please straighten the board cards")
        return [BoardUnreadable(now, missing, now - self._since, msg)]
