"""Faults as one state machine: every device fault pauses the table until a named exit (issue 9).

A fault is raised by the orchestrator when a driver reports trouble (the shuffler link is
lost, a jam, a failed deck check, a board the camera reads differently from the shuffler, the
camera or the broker lost, a journal write failing, a misread card). While any fault is open
the table is *paused*: no action is taken from players, no card is asked for. Each fault ends
by one of the exits allowed for its kind, and every ending is logged with who decided it:

=================  ==========================================================================
exit               meaning
=================  ==========================================================================
``resume``         the cause is gone (link back, jam cleared, camera back); the hand goes on
``correction``     the dealer fixed the physical cards to match the record (or confirmed it)
``misdeal``        the hand is dealt again; every chip returns to its owner (card-room rule)
``void``           the hand is cancelled; every wager is returned (malfunction practice)
=================  ==========================================================================

The dealer's console ``pause`` opens a ``paused`` fault, ended by ``resume``, ``misdeal``
or ``void`` like the others. ``hole-cards-unknown`` (a hand that must be shown holds a card
the shuffler could not read, P-2 / S-8) ends by ``correction`` only when the dealer's
reading of the cards is accepted by the table, or by ``void``.

The machine is pure: it never reads a clock (times come in as arguments) and returns new
values; :class:`FaultBook` is a frozen value the orchestrator keeps in its state.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum

__all__ = ["FaultKind", "FaultExit", "Fault", "FaultEnding", "FaultBook", "FaultError", "ALLOWED_EXITS"]


class FaultKind(str, Enum):
    """What went wrong (the ``fault.kind`` of docs/state.md)."""

    SHUFFLER_LOST = "shuffler-lost"
    JAM = "jam"
    DECK_CHECK = "deck-check"
    BOARD_MISMATCH = "board-mismatch"
    CARD_UNREADABLE = "card-unreadable"
    CAMERA_LOST = "camera-lost"
    BROKER_LOST = "broker-lost"
    JOURNAL_ERROR = "journal-error"
    MISREAD = "misread"
    HOLE_CARDS_UNKNOWN = "hole-cards-unknown"
    PAUSED = "paused"


class FaultExit(str, Enum):
    """How a fault ends."""

    RESUME = "resume"
    CORRECTION = "correction"
    MISDEAL = "misdeal"
    VOID = "void"


_R, _C, _M, _V = FaultExit.RESUME, FaultExit.CORRECTION, FaultExit.MISDEAL, FaultExit.VOID

#: The exits each kind of fault may end by.
ALLOWED_EXITS: dict[FaultKind, frozenset[FaultExit]] = {
    FaultKind.SHUFFLER_LOST: frozenset({_R, _M, _V}),
    FaultKind.JAM: frozenset({_R, _M, _V}),
    FaultKind.DECK_CHECK: frozenset({_R, _M, _V}),
    FaultKind.BOARD_MISMATCH: frozenset({_C, _V}),
    FaultKind.CARD_UNREADABLE: frozenset({_R, _C, _V}),
    FaultKind.CAMERA_LOST: frozenset({_R, _C}),
    FaultKind.BROKER_LOST: frozenset({_R}),
    FaultKind.JOURNAL_ERROR: frozenset({_R, _V}),
    # resume: a hole card delivered unread stays with the player, recorded as unknown ("??")
    FaultKind.MISREAD: frozenset({_R, _C, _M, _V}),
    # correction only by entering the cards (a hole-cards-read event), never by a bare confirm
    FaultKind.HOLE_CARDS_UNKNOWN: frozenset({_C, _V}),
    FaultKind.PAUSED: frozenset({_R, _M, _V}),
}

#: Kinds the system itself may end with ``resume`` when the device comes back.
AUTO_RESUME = frozenset({FaultKind.SHUFFLER_LOST, FaultKind.CAMERA_LOST, FaultKind.BROKER_LOST,
                         FaultKind.CARD_UNREADABLE})


class FaultError(ValueError):
    """An exit that is not allowed for the open fault, or no such fault is open."""


@dataclass(frozen=True, slots=True)
class Fault:
    """One open fault: kind, a message for the dealer, when it began (Unix seconds)."""

    kind: FaultKind
    message: str
    since: float

    def to_json(self) -> dict[str, object]:
        """Return the docs/state.md ``fault`` object."""
        return {"kind": self.kind.value, "message": self.message, "since": self.since}


@dataclass(frozen=True, slots=True)
class FaultEnding:
    """The log record of a fault that ended: which, how, who decided, when."""

    kind: FaultKind
    message: str
    since: float
    exit: FaultExit
    by: str
    at: float
    note: str = ""

    def to_json(self) -> dict[str, object]:
        """Return a JSON-able record for the journal and the history."""
        return {
            "kind": self.kind.value, "message": self.message, "since": self.since,
            "exit": self.exit.value, "by": self.by, "at": self.at, "note": self.note,
        }


@dataclass(frozen=True, slots=True)
class FaultBook:
    """The open faults (oldest first) and the endings so far; ``paused`` while any is open."""

    open: tuple[Fault, ...] = ()
    endings: tuple[FaultEnding, ...] = field(default=())

    @property
    def paused(self) -> bool:
        """Return True while any fault is open."""
        return bool(self.open)

    @property
    def current(self) -> Fault | None:
        """Return the oldest open fault (the one the display shows), or None."""
        return self.open[0] if self.open else None

    def raise_fault(self, kind: FaultKind | str, message: str, at: float) -> "FaultBook":
        """Return the book with ``kind`` open; a kind already open keeps its first message."""
        kind = FaultKind(kind)
        if any(f.kind is kind for f in self.open):
            return self
        return replace(self, open=self.open + (Fault(kind, message, at),))

    def end(
        self, kind: FaultKind | str, exit: FaultExit | str, *, by: str, at: float, note: str = ""
    ) -> tuple["FaultBook", FaultEnding]:
        """Return the book with ``kind`` ended by ``exit`` and the ending's record.

        Args:
            by: who decided: ``"system"`` for automatic resumes, else the person
                (``"dealer"``, ``"floor:anna"``).

        Raises:
            FaultError: no such fault is open, ``by`` is empty, or ``exit`` is not allowed
                for the kind (see :data:`ALLOWED_EXITS`), or ``system`` tried a decision
                only a person may take.
        """
        kind, exit = FaultKind(kind), FaultExit(exit)
        fault = next((f for f in self.open if f.kind is kind), None)
        if fault is None:
            raise FaultError(f"no {kind.value} fault is open")
        if not by:
            raise FaultError("a fault's ending must say who decided it")
        if exit not in ALLOWED_EXITS[kind]:
            allowed = ", ".join(sorted(e.value for e in ALLOWED_EXITS[kind]))
            raise FaultError(f"a {kind.value} fault ends by {allowed}, not {exit.value}")
        if by == "system" and not (exit is FaultExit.RESUME and kind in AUTO_RESUME):
            raise FaultError(f"only a person may end a {kind.value} fault by {exit.value}")
        ending = FaultEnding(kind, fault.message, fault.since, exit, by, at, note)
        rest = tuple(f for f in self.open if f is not fault)
        return replace(self, open=rest, endings=self.endings + (ending,)), ending
