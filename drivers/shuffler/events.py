"""Events the shuffler driver posts to the table's loop (the only way results leave the driver).

Every event is a small frozen dataclass whose first field ``at`` is the time from the clock
callable given to the driver (seconds, float). ``request_id`` fields name the value a request
method (``ShufflerDriver.deal`` ...) returned; ``None`` when the device acted on its own.
Cards are :class:`controller.engine.cards.Card`; targets are :class:`Target` (seat n, board,
burn). Events that mean "pause the hand, call the floor" have ``pauses_hand = True``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from controller.engine.cards import Card

from .protocol import DeviceStatus, Target

__all__ = [
    "ShufflerEvent", "DeviceIdentified", "DeckReady", "DeckCheckFailed", "CardDelivered",
    "DealDone", "Misread", "CardFault", "Jammed", "Empty", "DoorOpened", "DoorClosed",
    "RequestAccepted", "RequestFailed", "StatusReport", "LinkLost", "LinkRestored", "Target",
    "EventUnusable",
]


@dataclass(frozen=True, slots=True)
class ShufflerEvent:
    """Base of all shuffler events: ``at`` is the injected clock's time of posting."""

    at: float
    pauses_hand: ClassVar[bool] = False


@dataclass(frozen=True, slots=True)
class DeviceIdentified(ShufflerEvent):
    """The handshake succeeded: device name, firmware, protocol version, boot id (u32)."""

    device: str
    firmware: str
    protocol: int
    boot_id: int


@dataclass(frozen=True, slots=True)
class DeckReady(ShufflerEvent):
    """A deck check proved the deck: ``remaining`` distinct cards in the stub which, with the
    ``dealt`` cards already reported, make 52 distinct cards by identity (G-5).

    After a SHUFFLE, ``dealt == 0`` and ``remaining == 52``: the new deck is accepted.
    """

    request_id: int | None
    deck_no: int
    remaining: int
    dealt: int


@dataclass(frozen=True, slots=True)
class DeckCheckFailed(ShufflerEvent):
    """A deck check did not prove 52 distinct cards (G-5); nothing may be dealt from it.

    ``count`` cards were read; ``duplicates`` appear more than once (or were already dealt),
    ``missing`` are absent, ``unreadable`` could not be read. The table pauses; the floor
    decides.
    """

    pauses_hand: ClassVar[bool] = True
    request_id: int | None
    deck_no: int
    count: int
    duplicates: tuple[Card, ...]
    missing: tuple[Card, ...]
    unreadable: int


@dataclass(frozen=True, slots=True)
class CardDelivered(ShufflerEvent):
    """A card of the verified deck reached ``target``; ``ordinal`` 1..52 within ``deck_no``.

    ``draw`` marks a draw replacement (G-3). Only posted for a card that is new in this deck.
    """

    request_id: int | None
    target: Target
    card: Card
    deck_no: int
    ordinal: int
    draw: bool


@dataclass(frozen=True, slots=True)
class DealDone(ShufflerEvent):
    """Every card asked for by request ``request_id`` was delivered (``delivered`` cards)."""

    request_id: int | None
    delivered: int


@dataclass(frozen=True, slots=True)
class Misread(ShufflerEvent):
    """A card reached ``target`` but the reader could not read it; nothing is guessed.

    ``reason`` is empty for the device's own MISREAD; otherwise why the driver could not
    use the card the device reported (a CARD event whose card code is no card, 0..51).
    """

    pauses_hand: ClassVar[bool] = True
    request_id: int | None
    target: Target
    deck_no: int
    ordinal: int
    reason: str = ""


@dataclass(frozen=True, slots=True)
class EventUnusable(ShufflerEvent):
    """A device event arrived intact (its CRC is right) but cannot be used: a payload of the
    wrong layout or values, an unknown event type, or an event number that cannot be read.

    ``event_type`` is the frame's TYPE byte (``0xC2`` DECK ...), ``name`` its message name
    (``"deck"``, ``"jam"``, ``"done"``, ``"door"``, ``"card"``, or ``"unknown"``),
    ``event_no`` its number when readable (else None), ``request_id`` the request it names
    when that much is readable (else None), ``reason`` what is wrong, ``payload`` the raw
    payload in hex (for the wire log and the floor). The driver has acknowledged it when its
    number was readable (the device does not send it again): what it said is lost, so the
    table must pause (docs/faults.md).
    """

    pauses_hand: ClassVar[bool] = True
    event_type: int
    name: str
    event_no: int | None
    request_id: int | None
    reason: str
    payload: str


@dataclass(frozen=True, slots=True)
class CardFault(ShufflerEvent):
    """The device reported a card that breaks deck integrity (G-5); it is not dealt.

    ``kind``: ``"duplicate"`` (already reported in this deck, i.e. this hand), ``"no-deck"``
    (no verified deck), ``"wrong-deck"`` (a deck number other than the verified one).
    ``first_target`` is where the earlier copy went for ``"duplicate"``.
    """

    pauses_hand: ClassVar[bool] = True
    request_id: int | None
    kind: str
    card: Card
    target: Target
    deck_no: int
    ordinal: int
    first_target: Target | None = None


@dataclass(frozen=True, slots=True)
class Jammed(ShufflerEvent):
    """Dealing jammed: ``undelivered`` cards of the request were not delivered. The device is
    in fault until ``reset(keep_deck=...)``."""

    pauses_hand: ClassVar[bool] = True
    request_id: int | None
    target: Target
    deck_no: int
    undelivered: int


@dataclass(frozen=True, slots=True)
class Empty(ShufflerEvent):
    """The stub ran out: ``undelivered`` cards of the request were not delivered."""

    pauses_hand: ClassVar[bool] = True
    request_id: int | None
    target: Target
    deck_no: int
    undelivered: int


@dataclass(frozen=True, slots=True)
class DoorOpened(ShufflerEvent):
    """The machine's door was opened; dealing stops until it closes."""

    pauses_hand: ClassVar[bool] = True


@dataclass(frozen=True, slots=True)
class DoorClosed(ShufflerEvent):
    """The machine's door was closed again."""


@dataclass(frozen=True, slots=True)
class RequestAccepted(ShufflerEvent):
    """The device accepted request ``request_id`` (``command``: shuffle, deck-check, deal,
    draw, reset); its physical outcome follows as events."""

    request_id: int
    command: str


@dataclass(frozen=True, slots=True)
class RequestFailed(ShufflerEvent):
    """Request ``request_id`` was refused or could not be delivered.

    ``code`` is the device's :class:`ErrorCode` name in lower case with dashes (``"jammed"``,
    ``"door-open"``, ``"empty"``, ``"busy"``, ``"no-deck"``, ``"no-session"``...) or a driver
    reason: ``"link-down"`` (not sent, or lost with the link and not done by the device),
    ``"no-verified-deck"`` (G-5: deal/draw before DeckReady), ``"timeout"`` (the device never
    took it in the bounded tries and STATUS says it did not do it), ``"protocol"`` (an
    unexpected reply: what the device did is unknown, ask ``status()``), ``"device-restarted"``
    (the device rebooted while the request was in flight: unknown). In every other case the
    device did not act on the request.
    """

    request_id: int
    command: str
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class StatusReport(ShufflerEvent):
    """The reply to ``ShufflerDriver.status()``."""

    request_id: int
    status: DeviceStatus


@dataclass(frozen=True, slots=True)
class LinkLost(ShufflerEvent):
    """The serial link is gone (cable pulled, device silent). The driver keeps reconnecting.

    ``pending`` lists request ids whose outcome is unknown until :class:`LinkRestored`.
    """

    pauses_hand: ClassVar[bool] = True
    reason: str
    pending: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class LinkRestored(ShufflerEvent):
    """The link is back and the driver has caught up with the device.

    ``status`` is the device's STATUS after reconnecting; ``replayed`` how many device events
    that happened while the link was down were posted before this event; ``rebooted`` is true
    when the device restarted (its boot id changed: its deck, queued work and unsent events are
    gone, so cards it may have delivered before the restart are unknown: the hand is fouled and
    the floor decides);
    ``executed`` / ``not_executed`` split the requests that were pending when the link went
    down by what STATUS says the device did.
    """

    status: DeviceStatus
    replayed: int
    rebooted: bool
    executed: tuple[int, ...] = ()
    not_executed: tuple[int, ...] = ()
