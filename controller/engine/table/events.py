"""Inputs to the table session: small frozen facts in the past tense (issue 3).

Every event carries ``at``: the time it happened in Unix seconds, stamped by the injected
clock upstream; the table never reads a clock. Encode with ``to_json(event)`` and decode
with ``from_json(payload)`` from :mod:`controller.engine.table.codec`; each class has a
``kind`` such as ``"action-taken"``.

Constructors check field types (``seat`` a whole number, amounts whole chips, ...) and
raise :class:`~controller.engine.table.codec.CodecError` (a ``ValueError``) for a payload
that is not even well-formed; whether an event is *allowed* is the table's decision, which
answers a well-formed but illegal event with a ``Refuse`` effect.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..cards import RANKS, SUITS
from .codec import CodecError, register

__all__ = [
    "Event",
    "SeatEvent",
    "PlayerSatDown",
    "BoughtIn",
    "PlayerJoined",
    "BuyInConfirmed",
    "ToppedUp",
    "StoodUp",
    "SatOut",
    "SatIn",
    "ActionTaken",
    "PreselectSet",
    "PreselectCleared",
    "AutoMuckSet",
    "CardDealt",
    "TimerExpired",
    "TabletConnected",
    "TabletDisconnected",
    "SettingsChanged",
    "HandStartRequested",
    "HandVoided",
    "HoleCardsRead",
    "ACTIONS",
    "PRESELECTS",
    "PRESELECT_AMOUNT",
]

#: A-1 (and G-3 ``draw``; P-2 ``show``/``muck`` at the showdown): the actions a player may take.
ACTIONS = ("fold", "check", "call", "bet", "raise", "all_in", "draw", "show", "muck")
#: A-3: the pre-selections a player may make while others act.
PRESELECTS = ("check_fold", "fold", "check", "call", "call_any", "bet", "raise", "raise_any", "all_in")
#: A-3 pre-selections that carry an amount (call: chips to call; bet/raise: street total).
PRESELECT_AMOUNT = ("call", "bet", "raise")


def _int(name: str, value: Any, *, lo: int = 0, none: bool = False) -> None:
    if value is None and none:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < lo:
        raise CodecError(f"{name} must be a whole number >= {lo}, got {value!r}")


def _is_card(text: str) -> bool:
    return len(text) == 2 and text[0] in RANKS and text[1] in SUITS


def _time(value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise CodecError(f"at must be Unix seconds, got {value!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Base of all table events: ``at`` is Unix seconds from the injected clock."""

    kind: ClassVar[str]  # set on each event class by codec.register ("action-taken", ...)
    at: float

    def __post_init__(self) -> None:
        _time(self.at)


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatEvent(Event):
    """Base of the events about one seat: ``seat`` is 1..N."""

    seat: int

    def __post_init__(self) -> None:
        _time(self.at)
        _int("seat", self.seat, lo=1)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerSatDown(SeatEvent):
    """A player took the free ``seat`` (T-3); chips come with :class:`BoughtIn`.

    ``player`` is the room's player id, ``name`` what the table shows. ``post`` says the
    player wants to post one big blind and play at once rather than wait for the big blind
    (T-4). ``rebuy`` (issue 19 TFIX 7, a tournament table only): the player busted from
    this seat and rebought there (the rebuy at the bust): the same player, who never left
    the seat, so he is dealt into the next hand wherever the seat is, not made to wait for
    the button as a new player (ignored at a cash table).
    """

    player: str
    name: str = ""
    post: bool = False
    rebuy: bool = False

    def __post_init__(self) -> None:
        SeatEvent.__post_init__(self)
        if not isinstance(self.player, str) or not self.player:
            raise CodecError(f"player must be a non-empty id, got {self.player!r}")
        if not isinstance(self.name, str):
            raise CodecError(f"name must be text, got {self.name!r}")


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class BoughtIn(SeatEvent):
    """The player in ``seat`` brought ``amount`` chips from their balance (T-2, T-3).

    ``balance``, when given, is the player's balance before the buy-in; the table refuses a
    buy-in above it. ``pending``: asked for from the seat's tablet at a table where the
    dealer confirms chips (``tablet_join`` ``confirm``): checked now like any buy-in, the
    chips wait (``Seat.buy_in_pending``) for :class:`BuyInConfirmed` (issue 20: a busted
    player's buy-in again).
    """

    amount: int
    balance: int | None = None
    pending: bool = False

    def __post_init__(self) -> None:
        SeatEvent.__post_init__(self)
        _int("amount", self.amount, lo=1)
        _int("balance", self.balance, none=True)
        if not isinstance(self.pending, bool):
            raise CodecError(f"T-3: pending must be true or false, got {self.pending!r}")


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerJoined(SeatEvent):
    """A player took the free ``seat`` and bought in, in one step, from that seat's tablet
    (T-3, T-2, T-4): :class:`PlayerSatDown` and :class:`BoughtIn` taken together or not at all.

    ``player`` is the player's id at this table (the tablet has no room account: the
    adapter derives it from the name, so the T-2 return rule knows a returning player),
    ``name`` what the table shows, ``amount`` the buy-in in chips, ``post`` the T-4 choice
    (post one big blind now, or wait for the big blind). Refused (state unchanged) when the
    table does not let tablets seat players
    (``TableSettings.tablet_join`` off), the seat is taken or the player already sits here
    (T-3), the buy-in is out of range or below what the player left with less than 20
    minutes ago (T-2), or ``post`` is asked between the big blind and the button (T-4).
    With ``tablet_join`` ``confirm`` the seat is taken with no chips and the buy-in waits
    (``Seat.buy_in_pending``) for :class:`BuyInConfirmed`.
    """

    player: str
    name: str
    amount: int
    post: bool = False
    balance: int | None = None

    def __post_init__(self) -> None:
        SeatEvent.__post_init__(self)
        if not isinstance(self.player, str) or not self.player:
            raise CodecError(f"player must be a non-empty id, got {self.player!r}")
        if not isinstance(self.name, str) or not self.name:
            raise CodecError(f"name must be non-empty text, got {self.name!r}")
        _int("amount", self.amount, lo=1)
        _int("balance", self.balance, none=True)
        if not isinstance(self.post, bool):
            raise CodecError(f"T-4: post must be true or false, got {self.post!r}")


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class BuyInConfirmed(SeatEvent):
    """The dealer confirmed that the player in ``seat`` handed over the chips of the buy-in
    they asked for from the tablet (T-3, ``tablet_join`` ``confirm``): they come to the
    table now. ``by`` says who confirmed (``"dealer"``: the console's confirm button)."""

    by: str = ""


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ToppedUp(SeatEvent):
    """The player in ``seat`` added ``amount`` chips between hands (T-7)."""

    amount: int
    balance: int | None = None

    def __post_init__(self) -> None:
        SeatEvent.__post_init__(self)
        _int("amount", self.amount, lo=1)
        _int("balance", self.balance, none=True)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ChipsRaced(Event):
    """A tournament's colour-up between hands (issue 19, TDA chip race): the odd chips of a
    denomination leaving play were raced off; seat ``seats[i]`` now holds ``stacks[i]``
    chips (the race's winners one chip of the next denomination more, the others their
    odd chips less). ``by`` says who ran it (``"colour-up"``)."""

    seats: tuple[int, ...]
    stacks: tuple[int, ...]
    by: str = "colour-up"

    def __post_init__(self) -> None:
        if (not isinstance(self.seats, tuple) or not isinstance(self.stacks, tuple)
                or len(self.seats) != len(self.stacks) or len(set(self.seats)) != len(self.seats)):
            raise CodecError("chip race: seats and stacks must be lists of the same length, each seat once")
        for n in self.seats:
            _int("seats", n, lo=1)
        for n in self.stacks:
            _int("stacks", n, lo=0)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class StoodUp(SeatEvent):
    """The player in ``seat`` gave up the seat (T-8); mid-hand their hand is folded first.

    ``moved`` (issue 19): at a tournament table, the room moves the player to another
    table (TDA 10, 11): between hands only, the stack leaves with them (the ledger's
    cash-out, arriving at the other table as its ``BoughtIn``).
    """

    moved: bool = False


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class SatOut(SeatEvent):
    """The player in ``seat`` skips hands from the next one on (T-5)."""


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class SatIn(SeatEvent):
    """The player in ``seat`` wants to play again (T-4, T-6, A-2).

    ``post``: pay what they owe (missed blinds, or the new player's big blind) and be dealt
    in at the next hand; ``False``: wait for the big blind.
    """

    post: bool = False


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class ActionTaken(SeatEvent):
    """The player in ``seat`` acted (A-1): ``action`` is one of :data:`ACTIONS`.

    ``show``/``muck`` answer the player's P-2 turn at the showdown; ``show`` is also the
    uncontested winner tabling their hand after it ended, until the next hand starts (P-2).

    ``amount`` is the street total "to" for ``bet``/``raise`` (as in PHH ``cbr``), else
    ``None``. ``discards`` are the cards thrown in a five card draw ``draw`` (G-3).
    ``seq`` is the public state ``seq`` the player saw; an action decided on a state from
    before the current turn began is refused as stale (A-1). ``None``: not checked (a seat
    button press, which always means the turn lit now). ``action_id`` is echoed in a refusal.
    """

    action: str
    amount: int | None = None
    discards: tuple[str, ...] = ()
    seq: int | None = None
    action_id: str = ""

    def __post_init__(self) -> None:
        SeatEvent.__post_init__(self)
        if self.action not in ACTIONS:
            raise CodecError(f"A-1: action must be one of {ACTIONS}, got {self.action!r}")
        _int("amount", self.amount, none=True)
        _int("seq", self.seq, none=True)
        if not isinstance(self.discards, tuple) or not all(
                isinstance(c, str) and _is_card(c) for c in self.discards):
            raise CodecError(f"G-3: discards must be card texts like 'As', got {self.discards!r}")


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class PreselectSet(SeatEvent):
    """The player in ``seat`` pre-selected ``choice`` (one of :data:`PRESELECTS`, A-3).

    ``amount``: the chips to call for ``call``, the street total for ``bet``/``raise``.
    """

    choice: str
    amount: int | None = None

    def __post_init__(self) -> None:
        SeatEvent.__post_init__(self)
        if self.choice not in PRESELECTS:
            raise CodecError(f"A-3: pre-selection must be one of {PRESELECTS}, got {self.choice!r}")
        _int("amount", self.amount, none=True)
        if self.choice in PRESELECT_AMOUNT and self.amount is None:
            raise CodecError(f"A-3: pre-selection {self.choice!r} needs an amount")


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class PreselectCleared(SeatEvent):
    """The player in ``seat`` cleared their pre-selection (A-3)."""


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class AutoMuckSet(SeatEvent):
    """The player in ``seat`` set their standing "muck losing hands" preference (P-2).

    ``on``: at the showdown the table mucks the seat's hand at once when it cannot beat a
    hand already shown, instead of waiting for the player to choose show or muck. Kept
    from hand to hand until changed (unlike an A-3 pre-selection) or the player leaves.
    """

    on: bool = True

    def __post_init__(self) -> None:
        SeatEvent.__post_init__(self)
        if not isinstance(self.on, bool):
            raise CodecError(f"P-2: on must be true or false, got {self.on!r}")


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class CardDealt(Event):
    """The shuffler delivered ``card`` (``"As"``) for the deal the table asked for next."""

    card: str

    def __post_init__(self) -> None:
        _time(self.at)
        if not isinstance(self.card, str) or (self.card != "??" and not _is_card(self.card)):
            raise CodecError(f"G-5: card must be like 'As' (or '??' unknown), got {self.card!r}")


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TimerExpired(Event):
    """The timer ``timer`` started with sequence number ``seq`` ran out (A-2).

    A timer whose ``seq`` is not the table's running one is stale and ignored.
    """

    timer: str = "action"
    seq: int

    def __post_init__(self) -> None:
        _time(self.at)
        _int("seq", self.seq)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TabletConnected(SeatEvent):
    """The tablet of ``seat`` is online (A-4)."""


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class TabletDisconnected(SeatEvent):
    """The tablet of ``seat`` went away (A-4)."""


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class SettingsChanged(Event):
    """The floor changed table settings (L-2): ``changes`` maps field name to new value.

    Applied between hands; asked for during a hand, they wait for the hand to end.
    """

    changes: dict[str, Any] = field(default_factory=dict)
    by: str = ""

    def __post_init__(self) -> None:
        _time(self.at)
        if not isinstance(self.changes, dict) or not self.changes:
            raise CodecError(f"L-2: changes must be a non-empty object, got {self.changes!r}")


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class HandStartRequested(Event):
    """Start the next hand (the orchestrator's "deal" moment).

    ``button`` chooses the button seat for the table's first hand (e.g. drawn by high
    card); later hands move it by T-1 and ignore it, unless ``redraw``: at a tournament
    table whose seats were all drawn again (the room's final table), the button is drawn
    again too and this hand starts the rotation afresh at ``button`` (everyone dealt in, the
    blinds the next two players; T-1 moves it from there). ``level``: at a tournament table, the
    blinds and antes of the clock's level for this hand (``small_blind``, ``big_blind``,
    ``ante``, ``big_blind_ante`` in chips; TDA 23: a new level applies from the next hand),
    applied before the hand is planned; ``None`` keeps the table's stakes.

    Raises:
        CodecError: a button below 1, ``redraw`` not a bool or without a button, or a level
            with another key or a value that is not a whole number of chips >= 0.
    """

    button: int | None = None
    level: dict[str, int] | None = None
    redraw: bool = False

    def __post_init__(self) -> None:
        _time(self.at)
        _int("button", self.button, lo=1, none=True)
        if not isinstance(self.redraw, bool) or (self.redraw and self.button is None):
            raise CodecError(f"redraw must be true with a button, or false; got {self.redraw!r}")
        if self.level is not None:
            if not isinstance(self.level, dict):
                raise CodecError(f"TDA 23: level must be an object, got {self.level!r}")
            for k, v in self.level.items():
                if k not in ("small_blind", "big_blind", "ante", "big_blind_ante"):
                    raise CodecError(f"TDA 23: level has no setting {k!r}")
                _int(k, v)


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class HandVoided(Event):
    """The floor voided the running hand (misdeal): every chip goes back where it came from."""

    reason: str = ""
    by: str = ""


@register
@dataclass(frozen=True, slots=True, kw_only=True)
class HoleCardsRead(SeatEvent):
    """The dealer read ``seat``'s hole cards as they lie face up on the felt (P-2, S-8, G-5).

    The answer to :class:`~controller.engine.table.effects.ReadHoleCards`: a hand the
    table must show holds a card the shuffler could not read (``"??"``). ``cards`` are
    all of the seat's hole cards (``("As", "Kd")``; five in draw, four in Omaha), ``by``
    who entered them (``"dealer"``, ``"floor:anna"``). The table refuses them (G-5 / P-2)
    when they do not match the cards it knows or repeat a card dealt this hand.
    """

    cards: tuple[str, ...]
    by: str = "dealer"

    def __post_init__(self) -> None:
        SeatEvent.__post_init__(self)
        if not isinstance(self.cards, tuple) or not self.cards or not all(
                isinstance(c, str) and _is_card(c) for c in self.cards):
            raise CodecError(f"G-5: cards must be card texts like 'As', got {self.cards!r}")
        if not isinstance(self.by, str) or not self.by:
            raise CodecError(f"by must say who read the cards, got {self.by!r}")
