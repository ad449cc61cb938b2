"""Outputs of the table session: small frozen commands in the imperative (issue 3).

The orchestrator (issue 9) carries them out in order. Views are not carried inside the
effects: :class:`PublishPublic` / :class:`PublishPrivate` / :class:`LightSeats` say *when*
to publish, and the orchestrator projects the new state with :mod:`controller.views`.
Encode with ``to_json(effect)`` from :mod:`controller.engine.table.codec`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .codec import register

__all__ = [
    "Effect",
    "DealCards",
    "StartTimer",
    "CancelTimer",
    "LightSeats",
    "PublishPublic",
    "PublishPrivate",
    "Refuse",
    "HandFinished",
    "HandShown",
    "PayOut",
    "TakeChips",
    "SeatFreed",
    "ReadHoleCards",
    "DEAL_TARGETS",
]

#: Where dealt cards go: a seat's hole cards, the burn, the board, or a draw replacement.
DEAL_TARGETS = ("seat", "burn", "board", "draw")


@dataclass(frozen=True, slots=True, kw_only=True)
class Effect:
    """Base of all table effects."""


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class DealCards(Effect):
    """Deal ``count`` cards to ``target`` (``seat``/``draw`` with ``seat``; ``burn``; ``board``).

    The shuffler delivers them one by one as ``CardDealt`` events, in this order.
    ``reshuffle`` asks the shuffler to rebuild the stub from discards and burns first (G-4).
    """

    target: str
    count: int
    seat: int | None = None
    reshuffle: bool = False


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class StartTimer(Effect):
    """Start timer ``timer`` number ``seq`` for ``seconds``; when it runs out, post
    ``TimerExpired(timer=timer, seq=seq)`` (A-2). ``seat`` is whose turn it times."""

    timer: str
    seq: int
    seconds: float
    seat: int | None = None


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CancelTimer(Effect):
    """Cancel timer ``timer`` number ``seq`` (an expiry that still arrives is ignored)."""

    timer: str
    seq: int


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class LightSeats(Effect):
    """The seat lights changed: re-project ``controller.views.lights(state)`` to the LEDs."""


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class PublishPublic(Effect):
    """Publish the public state view (docs/state.md) of the new state."""


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class PublishPrivate(Effect):
    """Publish the private view of each seat in ``seats``; ``clear`` empties their topics."""

    seats: tuple[int, ...]
    clear: bool = False


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class Refuse(Effect):
    """The event ``event`` (its kind) was refused; ``reason`` starts with the rule id.

    ``seat`` and ``action_id`` (when the event had them) say whom to tell.
    """

    event: str
    rule: str
    reason: str
    seat: int | None = None
    action_id: str = ""


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class HandFinished(Effect):
    """Hand number ``hand`` ended (or was voided); ``record`` is its history (JSON-ready)."""

    hand: int
    record: dict[str, Any] = field(default_factory=dict)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class HandShown(Effect):
    """The uncontested winner of hand ``hand`` showed ``cards`` after it ended (P-2).

    ``record`` is the hand's history record again (as in :class:`HandFinished`) with the
    show in it: store it in place of the first one (P-4).
    """

    hand: int
    seat: int
    cards: tuple[str, ...] = ()
    record: dict[str, Any] = field(default_factory=dict)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class PayOut(Effect):
    """Credit ``amount`` chips back to ``player``'s balance (cash-out on leaving, T-8)."""

    player: str
    amount: int
    seat: int


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TakeChips(Effect):
    """Debit ``amount`` chips from ``player``'s balance: the table accepted a buy-in or
    top-up of that size for ``seat`` (T-2, T-7)."""

    player: str
    amount: int
    seat: int


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class SeatFreed(Effect):
    """``seat`` is free again (stood up, T-8; or after 10 hands sat out, T-5)."""

    seat: int
    player: str
    reason: str


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ReadHoleCards(Effect):
    """The table waits for the dealer to read ``seat``'s hole cards (P-2, S-8).

    The hand must be shown (it can still win a pot) but holds cards the shuffler could not
    read: ``known`` are the seat's hole cards as the table knows them (``"??"`` unknown,
    ``("As", "??")``). Nothing moves until a ``hole-cards-read`` event carries the cards
    or the floor voids the hand. The orchestrator pauses the table with the fault
    ``hole-cards-unknown``.
    """

    seat: int
    known: tuple[str, ...] = ()
