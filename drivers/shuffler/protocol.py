"""Message types, payload layouts and error codes of the shuffler protocol (version 1).

The normative description is ``docs/shuffler-protocol.md``; this module is its executable
form, shared by the driver (``link.py``) and the emulator. It is pure: ``pack_*`` functions
return payload bytes, ``unpack_*`` functions take payload bytes and return frozen values or
raise :class:`PayloadError`. All integers are unsigned, big-endian.

Cards travel as one byte: the dense index 0..51 of :class:`controller.engine.cards.Card`
(``(rank - 2) * 4 + suit``, suits ``c d h s``), or :data:`UNREADABLE` (0xFF) when the reader
could not read the card; the protocol never carries a guess.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from controller.engine.cards import Card

__all__ = [
    "PROTOCOL_VERSION", "UNREADABLE", "TARGET_BURN", "TARGET_BOARD", "MAX_SEAT",
    "Cmd", "Rsp", "Evt", "ErrorCode", "DeviceState", "Fault", "PayloadError",
    "PHYSICAL_COMMANDS", "Target", "DeviceStatus", "Hello", "CardEvent", "DeckEvent",
    "StopEvent", "DoorEvent", "DoneEvent",
    "pack_hello_request", "unpack_hello_request", "pack_hello", "unpack_hello",
    "pack_status", "unpack_status", "pack_card_event", "unpack_card_event",
    "pack_deck_event", "unpack_deck_event", "pack_stop_event", "unpack_stop_event",
    "pack_door_event", "unpack_door_event", "pack_done_event", "unpack_done_event",
    "unpack_event_no", "card_code", "code_card",
]

PROTOCOL_VERSION = 1
UNREADABLE = 0xFF
TARGET_BURN = 0x00
TARGET_BOARD = 0x0F
MAX_SEAT = 10


class Cmd(IntEnum):
    """Host-to-device message types (requests; ``EVENT_ACK`` expects no reply)."""

    HELLO = 0x01
    STATUS = 0x02
    SHUFFLE = 0x03
    DECK_CHECK = 0x04
    DEAL = 0x05
    DRAW = 0x06
    RESET = 0x07
    EVENT_ACK = 0x08


#: Commands that move cards or change the deck: never resent before asking STATUS.
PHYSICAL_COMMANDS = frozenset({Cmd.SHUFFLE, Cmd.DEAL, Cmd.DRAW, Cmd.RESET})


class Rsp(IntEnum):
    """Device-to-host replies; their SEQ echoes the request's SEQ."""

    ACK = 0x80
    HELLO = 0x81
    STATUS = 0x82
    NAK = 0x8F


class Evt(IntEnum):
    """Device-to-host unsolicited events (SEQ 0, numbered by a u32 event number)."""

    CARD = 0xC1
    DECK = 0xC2
    JAM = 0xC3
    EMPTY = 0xC4
    MISREAD = 0xC5
    DOOR = 0xC6
    DONE = 0xC7


class ErrorCode(IntEnum):
    """NAK codes (one byte after the NAK type)."""

    BAD_FRAME = 1
    UNKNOWN_COMMAND = 2
    BAD_PAYLOAD = 3
    NO_SESSION = 4
    NO_DECK = 5
    BUSY = 6
    JAMMED = 7
    DOOR_OPEN = 8
    EMPTY = 9
    BAD_TARGET = 10
    VERSION = 11


class DeviceState(IntEnum):
    """What the machine is doing (STATUS ``state``)."""

    NO_DECK = 0
    SHUFFLING = 1
    READY = 2
    DEALING = 3
    FAULT = 4


class Fault(IntEnum):
    """Why the machine is in ``FAULT`` (STATUS ``fault``)."""

    NONE = 0
    JAM = 1
    DOOR = 2
    EMPTY = 3


class PayloadError(ValueError):
    """A payload does not match its message type's layout (protocol section Messages)."""


def card_code(card: Card | None) -> int:
    """Return the wire byte of ``card`` (0..51), or :data:`UNREADABLE` for ``None``."""
    return UNREADABLE if card is None else card.index


def code_card(code: int) -> Card | None:
    """Return the card of wire byte ``code`` or ``None`` for :data:`UNREADABLE`.

    Raises:
        PayloadError: ``code`` is neither 0..51 nor 0xFF.
    """
    if code == UNREADABLE:
        return None
    if not 0 <= code < 52:
        raise PayloadError(f"shuffler protocol: card code {code} is not 0..51 or 0xFF")
    return Card.from_index(code)


@dataclass(frozen=True, slots=True)
class Target:
    """Where a card goes: ``kind`` is ``"seat"`` (``seat`` 1..10), ``"board"`` or ``"burn"``.

    Build with :meth:`seat_no`, :data:`BOARD`/:data:`BURN` or :meth:`parse` (``3``, ``"seat 3"``,
    ``"board"``, ``"burn"``). Raises ValueError for anything else.
    """

    kind: str
    seat: int = 0

    def __post_init__(self) -> None:
        if self.kind == "seat":
            if not (isinstance(self.seat, int) and 1 <= self.seat <= MAX_SEAT):
                raise ValueError(f"L-2: a seat is 1..{MAX_SEAT}, got {self.seat!r}")
        elif self.kind not in ("board", "burn") or self.seat != 0:
            raise ValueError(f"shuffler target: kind must be seat, board or burn, got {self.kind!r}")

    @classmethod
    def seat_no(cls, n: int) -> "Target":
        """Return the target for seat ``n`` (1..10)."""
        return cls("seat", n)

    @classmethod
    def parse(cls, value: "Target | int | str") -> "Target":
        """Return a Target from a Target, a seat number, ``"board"``, ``"burn"`` or ``"seat N"``."""
        if isinstance(value, Target):
            return value
        if isinstance(value, bool):
            raise ValueError(f"shuffler target: not a target: {value!r}")
        if isinstance(value, int):
            return cls.seat_no(value)
        if isinstance(value, str):
            text = value.strip().lower()
            if text in ("board", "burn"):
                return cls(text)
            word = text.removeprefix("seat").strip()
            if word.isdigit():
                return cls.seat_no(int(word))
        raise ValueError(f"shuffler target: not a target: {value!r}")

    @property
    def code(self) -> int:
        """Return the wire byte: 0 burn, 1..10 seat, 0x0F board."""
        return {"burn": TARGET_BURN, "board": TARGET_BOARD}.get(self.kind, self.seat)

    @classmethod
    def from_code(cls, code: int) -> "Target":
        """Return the target of wire byte ``code``.

        Raises:
            PayloadError: not 0, 1..10 or 0x0F.
        """
        if code == TARGET_BURN:
            return BURN
        if code == TARGET_BOARD:
            return BOARD
        if 1 <= code <= MAX_SEAT:
            return cls("seat", code)
        raise PayloadError(f"shuffler protocol: target code {code} is not 0, 1..{MAX_SEAT} or 15")

    def __str__(self) -> str:
        return f"seat {self.seat}" if self.kind == "seat" else self.kind


BOARD = Target("board")
BURN = Target("burn")


def _unpack(fmt: str, payload: bytes, what: str) -> tuple[Any, ...]:
    try:
        return struct.unpack(fmt, payload)
    except struct.error as exc:
        raise PayloadError(f"shuffler protocol: {what} payload of {len(payload)} bytes: {exc}") from None


# --- HELLO -----------------------------------------------------------------------------

HELLO_RESUME = 0x01


def pack_hello_request(*, resume: bool) -> bytes:
    """Return a HELLO request payload: version u8, flags u8 (bit 0: resume the session)."""
    return bytes((PROTOCOL_VERSION, HELLO_RESUME if resume else 0))


def unpack_hello_request(payload: bytes) -> tuple[int, bool]:
    """Return ``(version, resume)`` of a HELLO request. Raises PayloadError."""
    version, flags = _unpack(">BB", payload, "HELLO request")
    return version, bool(flags & HELLO_RESUME)


@dataclass(frozen=True, slots=True)
class Hello:
    """The HELLO reply: protocol version, boot id (u32, new at each power-on), the last event
    number issued (u32), the device name and firmware version (ASCII, up to 24 bytes each)."""

    version: int
    boot_id: int
    last_event: int
    device: str
    firmware: str


def pack_hello(h: Hello) -> bytes:
    """Return the HELLO reply payload of ``h``."""
    name, fw = h.device.encode("ascii")[:24], h.firmware.encode("ascii")[:24]
    return (struct.pack(">BII", h.version, h.boot_id, h.last_event)
            + bytes((len(name),)) + name + bytes((len(fw),)) + fw)


def unpack_hello(payload: bytes) -> Hello:
    """Return the :class:`Hello` in a HELLO reply payload. Raises PayloadError."""
    if len(payload) < 11:
        raise PayloadError(f"shuffler protocol: HELLO reply of {len(payload)} bytes is too short")
    version, boot_id, last_event = struct.unpack(">BII", payload[:9])
    n = payload[9]
    name = payload[10 : 10 + n]
    rest = payload[10 + n :]
    if len(name) != n or not rest or len(rest) != rest[0] + 1:
        raise PayloadError("shuffler protocol: HELLO reply strings do not match their lengths")
    try:
        return Hello(version, boot_id, last_event, name.decode("ascii"), rest[1:].decode("ascii"))
    except UnicodeDecodeError:
        raise PayloadError("shuffler protocol: HELLO reply strings are not ASCII") from None


# --- STATUS ----------------------------------------------------------------------------

_STATUS = ">BBBHBBBBIB"


@dataclass(frozen=True, slots=True)
class DeviceStatus:
    """The STATUS reply: what the machine is and did.

    ``state`` (:class:`DeviceState`), ``fault`` (:class:`Fault`), ``door_open``, ``deck_no``
    (u16, 0 before the first shuffle), ``dealt`` and ``left`` (cards delivered from / still in
    the current deck), ``last_seq`` and ``last_code`` (SEQ of the last request the device
    executed and its result: 0 accepted, else an :class:`ErrorCode`), ``last_event`` (u32,
    the last event number issued) and ``queued`` (cards accepted but not yet delivered).
    """

    state: DeviceState
    fault: Fault
    door_open: bool
    deck_no: int
    dealt: int
    left: int
    last_seq: int
    last_code: int
    last_event: int
    queued: int

    def __str__(self) -> str:
        """One readable line for the logs (issue 19: start-up logged the dataclass's repr):
        ``no deck, no fault, door closed; deck 0: 0 dealt, 0 left, 0 queued; last request 0
        (code 0), last event 0``."""
        state = getattr(self.state, "name", str(self.state)).lower().replace("_", " ")
        fault = "no fault" if not self.fault else "fault " + getattr(self.fault, "name", str(self.fault)).lower()
        return (f"{state}, {fault}, door {'open' if self.door_open else 'closed'}; deck {self.deck_no}: "
                f"{self.dealt} dealt, {self.left} left, {self.queued} queued; last request {self.last_seq} "
                f"(code {self.last_code}), last event {self.last_event}")


def pack_status(s: DeviceStatus) -> bytes:
    """Return the STATUS reply payload of ``s`` (14 bytes)."""
    return struct.pack(_STATUS, s.state, s.fault, int(s.door_open), s.deck_no, s.dealt, s.left,
                       s.last_seq, s.last_code, s.last_event, s.queued)


def unpack_status(payload: bytes) -> DeviceStatus:
    """Return the :class:`DeviceStatus` of a STATUS reply payload. Raises PayloadError."""
    st, fault, door, deck, dealt, left, lseq, lcode, lev, queued = _unpack(_STATUS, payload, "STATUS")
    try:
        return DeviceStatus(DeviceState(st), Fault(fault), bool(door), deck, dealt, left,
                            lseq, lcode, lev, queued)
    except ValueError as exc:
        raise PayloadError(f"shuffler protocol: STATUS: {exc}") from None


# --- events ----------------------------------------------------------------------------


def unpack_event_no(payload: bytes) -> int:
    """Return the u32 event number that starts every event payload. Raises PayloadError."""
    if len(payload) < 4:
        raise PayloadError("shuffler protocol: event payload shorter than its event number")
    return int.from_bytes(payload[:4], "big")


_CARD = ">IBBBBHB"
#: The CARD/MISREAD payload layout (event no, cmd seq, target, card, ordinal, deck no, flags).
CARD_LAYOUT = _CARD


@dataclass(frozen=True, slots=True)
class CardEvent:
    """CARD / MISREAD: a card left the machine to ``target``.

    ``card`` is ``None`` for a misread; ``ordinal`` is its position dealt from deck
    ``deck_no`` (1..52); ``cmd_seq`` the SEQ of the DEAL/DRAW that asked for it; ``draw`` marks
    a draw replacement (G-3).
    """

    event_no: int
    cmd_seq: int
    target: Target
    card: Card | None
    ordinal: int
    deck_no: int
    draw: bool


def pack_card_event(e: CardEvent) -> bytes:
    """Return a CARD/MISREAD payload (11 bytes)."""
    return struct.pack(_CARD, e.event_no, e.cmd_seq, e.target.code, card_code(e.card), e.ordinal,
                       e.deck_no, int(e.draw))


def unpack_card_event(payload: bytes) -> CardEvent:
    """Return the :class:`CardEvent` of a CARD/MISREAD payload. Raises PayloadError."""
    ev, seq, tgt, code, ordinal, deck, flags = _unpack(_CARD, payload, "CARD")
    return CardEvent(ev, seq, Target.from_code(tgt), code_card(code), ordinal, deck, bool(flags & 1))


@dataclass(frozen=True, slots=True)
class DeckEvent:
    """DECK: the cards read in the stub of deck ``deck_no`` after ``dealt`` cards were dealt.

    ``cmd_seq`` is the SEQ of the SHUFFLE or DECK_CHECK that asked for it. ``cards`` are sorted
    by index (the order never leaves the machine); ``None`` entries are cards the reader could
    not read.
    """

    event_no: int
    cmd_seq: int
    deck_no: int
    dealt: int
    cards: tuple[Card | None, ...]


def pack_deck_event(e: DeckEvent) -> bytes:
    """Return a DECK payload (9 + len(cards) bytes)."""
    return (struct.pack(">IBHBB", e.event_no, e.cmd_seq, e.deck_no, e.dealt, len(e.cards))
            + bytes(card_code(c) for c in e.cards))


def unpack_deck_event(payload: bytes) -> DeckEvent:
    """Return the :class:`DeckEvent` of a DECK payload. Raises PayloadError."""
    if len(payload) < 9:
        raise PayloadError("shuffler protocol: DECK payload shorter than 9 bytes")
    ev, seq, deck, dealt, n = struct.unpack(">IBHBB", payload[:9])
    codes = payload[9:]
    if len(codes) != n:
        raise PayloadError(f"shuffler protocol: DECK announces {n} cards but carries {len(codes)}")
    return DeckEvent(ev, seq, deck, dealt, tuple(code_card(c) for c in codes))


_STOP = ">IBBHBB"


@dataclass(frozen=True, slots=True)
class StopEvent:
    """JAM / EMPTY: dealing for request ``cmd_seq`` to ``target`` stopped with ``undelivered``
    cards not delivered; ``ordinal`` is the position the next card would have had."""

    event_no: int
    cmd_seq: int
    target: Target
    deck_no: int
    ordinal: int
    undelivered: int


def pack_stop_event(e: StopEvent) -> bytes:
    """Return a JAM/EMPTY payload (10 bytes)."""
    return struct.pack(_STOP, e.event_no, e.cmd_seq, e.target.code, e.deck_no, e.ordinal, e.undelivered)


def unpack_stop_event(payload: bytes) -> StopEvent:
    """Return the :class:`StopEvent` of a JAM/EMPTY payload. Raises PayloadError."""
    ev, seq, tgt, deck, ordinal, und = _unpack(_STOP, payload, "JAM/EMPTY")
    return StopEvent(ev, seq, Target.from_code(tgt), deck, ordinal, und)


@dataclass(frozen=True, slots=True)
class DoorEvent:
    """DOOR: the machine's door was opened (``open``) or closed."""

    event_no: int
    open: bool


def pack_door_event(e: DoorEvent) -> bytes:
    """Return a DOOR payload (5 bytes)."""
    return struct.pack(">IB", e.event_no, int(e.open))


def unpack_door_event(payload: bytes) -> DoorEvent:
    """Return the :class:`DoorEvent` of a DOOR payload. Raises PayloadError."""
    ev, flag = _unpack(">IB", payload, "DOOR")
    if flag > 1:
        raise PayloadError(f"shuffler protocol: DOOR open flag must be 0 or 1, got {flag}")
    return DoorEvent(ev, bool(flag))


@dataclass(frozen=True, slots=True)
class DoneEvent:
    """DONE: every card of request ``cmd_seq`` was delivered (``delivered`` cards)."""

    event_no: int
    cmd_seq: int
    delivered: int


def pack_done_event(e: DoneEvent) -> bytes:
    """Return a DONE payload (6 bytes)."""
    return struct.pack(">IBB", e.event_no, e.cmd_seq, e.delivered)


def unpack_done_event(payload: bytes) -> DoneEvent:
    """Return the :class:`DoneEvent` of a DONE payload. Raises PayloadError."""
    return DoneEvent(*_unpack(">IBB", payload, "DONE"))
