"""Events the MQTT driver posts to the controller's loop (issue 7).

paho's network thread never touches table state: it stamps the time (the injected clock,
Unix seconds as float) and posts one of these small frozen records through the ``post``
callable given to :class:`drivers.mqtt.link.TableLink`. Malformed payloads never become
events: the driver refuses them itself on the seat's reply topic (docs/mqtt.md, M- ids).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class ActionReceived:
    """A seat's tablet asked for an action (A-1, A-3, T-4..T-8).

    ``seat`` 1..N comes from the topic (the broker's ACL guarantees the sender owns it);
    ``action`` is one of ``drivers.mqtt.codec.ACTIONS``; ``amount`` in chips (bet/raise
    "to", top-up amount, preselect amount) or None; ``action_id`` the tablet's unique id
    (answer it with ``TableLink.reply``); ``seq_seen`` the public state seq the tablet saw
    (never older than the last state published: stale ones are refused in the driver);
    ``choice`` the pre-selection for ``action == "preselect"`` (A-3); ``cards`` the cards
    discarded for ``action == "draw"`` (G-3, empty = stand pat); ``name`` (checked by
    ``codec.clean_name``) and ``post`` (T-4: post the big blind now) for
    ``action == "take_seat"`` (T-3, ``amount`` is the buy-in), else None; ``at`` Unix seconds.
    """

    seat: int
    action: str
    amount: int | None
    action_id: str
    seq_seen: int
    at: float
    choice: str | None = None
    cards: tuple[str, ...] = ()
    name: str | None = None
    post: bool | None = None


@dataclass(frozen=True, slots=True)
class ChatReceived:
    """A chat line from a seat (L-3), already checked for text, length and rate.

    ``text`` is 1..200 characters of printable text (no control characters), stripped;
    publish it with ``TableLink.publish_chat`` once the loop has added the player's name.
    """

    seat: int
    text: str
    chat_id: str
    at: float


@dataclass(frozen=True, slots=True)
class TabletPresence:
    """A seat's tablet came online (birth) or went away (Last Will or goodbye): A-4.

    Posted only when the seat's presence changes, including the first reading after the
    controller (re)connects and receives the retained presence messages.
    """

    seat: int
    online: bool
    at: float


@dataclass(frozen=True, slots=True)
class BrokerConnection:
    """The controller's link to the broker went up or down (fault kind ``broker-lost``).

    ``reason`` is the broker's or paho's reason text when going down or refused, else None.
    """

    up: bool
    at: float
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class FloorRequestReceived:
    """A floor staff request from ``livetable floor`` (docs/faults.md, docs/mqtt.md).

    Arrives only on ``livetable/<table>/floor/request``, which the broker's ACL lets only
    the ``floor`` user (and the controllers) write; already checked by
    :func:`drivers.mqtt.codec.decode_floor_request`. ``command`` is one of
    ``codec.FLOOR_COMMANDS``; ``by`` the floor person's name (``clean_name``; the
    controller records ``floor:<by>``), None only for ``status``; ``fault`` the fault kind
    or its 1-based number in ``status`` for the decisions; ``seat`` for ``read`` and
    ``confirm-buyin`` and ``seat``; ``cards`` the hole cards for ``read``; ``reason`` free text or
    None; ``player`` and ``amount`` for ``seat``, ``stakes`` for ``stakes`` (issue 17).
    Answer it with ``TableLink.floor_reply``.
    """

    request_id: str
    command: str
    by: str | None
    at: float
    fault: str | None = None
    seat: int | None = None
    cards: tuple[str, ...] = ()
    reason: str | None = None
    player: str | None = None  # ``seat``, ``register``: the player's name
    amount: int | None = None  # ``seat``: the buy-in, chips; ``clock-add``: seconds; ``clock-level``: its number
    stakes: dict[str, int] | None = None  # ``stakes``: small_blind, big_blind, ante (chips)
    method: str | None = None  # ``deal-offer``: icm or chip-chop (issue 19)


@dataclass(frozen=True, slots=True)
class HeldSeat:
    """One seat the room holds for a player it called from a waiting list (issue 18):
    ``seat`` 1..N, the ``player``'s id and ``name`` (as the room knows them), held until
    ``until`` (Unix seconds, the room's clock)."""

    seat: int
    player: str
    name: str
    until: float


@dataclass(frozen=True, slots=True)
class SeatHoldsReceived:
    """The room's held seats at this table (``livetable/<t>/room/holds``, retained, bridged
    in from the room broker): every hold now, replacing the ones before; ``at`` Unix s."""

    holds: tuple[HeldSeat, ...]
    at: float


@dataclass(frozen=True, slots=True)
class LobbyRequestReceived:
    """A seat's tablet asks to join or leave a waiting list, or for its player's lists
    (``op`` join, leave, status; ``list`` the list's id; issue 18): the controller checks the
    seat holds a player and forwards it to the room with the player as the table knows them."""

    seat: int
    op: str
    list: str | None
    request_id: str
    at: float


@dataclass(frozen=True, slots=True)
class SeatListsReceived:
    """The room's answer about ``seat``'s player (``livetable/<t>/room/seats/<n>/lists``,
    bridged in; :func:`drivers.mqtt.codec.decode_seat_lists`): their lists and places, and
    the request's outcome; ``at`` Unix s."""

    seat: int
    answer: dict[str, Any]
    at: float


MqttEvent = (ActionReceived | ChatReceived | TabletPresence | BrokerConnection | FloorRequestReceived
             | SeatHoldsReceived | LobbyRequestReceived | SeatListsReceived)
