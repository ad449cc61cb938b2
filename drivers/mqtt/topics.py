"""The MQTT topic tree of a table (docs/mqtt.md): build topics and parse them back.

Pure code, no I/O. Table ids are short lowercase names (``t1``, ``holdem-2``) so they can
be spliced into topics and user names; ``lobby`` is reserved for the room's lobby tree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

ROOT = "livetable"
LOBBY = "lobby"
MAX_SEATS = 10  # L-2: Hold'em and Omaha 2..10 players

_TABLE_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")


class TopicError(ValueError):
    """A table id, seat number or topic that is not part of the tree (M-6)."""


class Kind(Enum):
    """What a topic carries; the value is the topic's tail after ``livetable/<table>/``."""

    STATE = "state"
    CHAT = "chat"
    HISTORY = "history"
    HISTORY_SEATED = "history/seated"
    CONTROLLER_PRESENCE = "presence/controller"
    SEAT_PRESENCE = "presence/seat/{n}"
    PRIVATE = "seat/{n}/private"
    ACTION = "seat/{n}/action"
    REPLY = "seat/{n}/reply"
    SEAT_CHAT = "seat/{n}/chat"
    FLOOR_REQUEST = "floor/request"
    FLOOR_REPLY = "floor/reply"
    LOBBY = "lobby"
    ROOM_HOLDS = "room/holds"  # the seats the room holds for called players (issue 18), bridged in
    SEAT_LOBBY = "seat/{n}/lobby"  # a seat's waiting-list request: join, leave, status (issue 18)
    SEAT_LISTS = "seat/{n}/lists"  # the seated player's waiting lists, for the seat's tablet (issue 18)
    ROOM_PLAYERS_REQUEST = "room/players/request"  # a seat's request forwarded to the room, bridged out
    ROOM_SEAT_LISTS = "room/seats/{n}/lists"  # the room's answer about a seat's player, bridged in


SEAT_KINDS = frozenset(
    {Kind.SEAT_PRESENCE, Kind.PRIVATE, Kind.ACTION, Kind.REPLY, Kind.SEAT_CHAT, Kind.SEAT_LOBBY, Kind.SEAT_LISTS,
     Kind.ROOM_SEAT_LISTS}
)


def check_table(table: str) -> str:
    """Return ``table`` if it is a valid table id, else raise :class:`TopicError`.

    Valid: 1..32 characters of ``a-z 0-9 _ -``, starting with a letter or digit, not
    ``lobby``.
    """
    if not isinstance(table, str) or not _TABLE_RE.match(table) or table == LOBBY:
        raise TopicError(f"M-6: table id {table!r} must be 1..32 of a-z 0-9 _ - (starting with a "
                         f"letter or digit) and not 'lobby'")
    return table


def check_seat(seat: int, max_seats: int = MAX_SEATS) -> int:
    """Return ``seat`` if it is an int in 1..max_seats, else raise :class:`TopicError`."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= max_seats:
        raise TopicError(f"M-6: seat {seat!r} is not in 1..{max_seats}")
    return seat


def topic(kind: Kind, table: str, seat: int | None = None) -> str:
    """Return the topic string of ``kind`` for ``table`` (and ``seat`` for seat kinds).

    >>> topic(Kind.PRIVATE, "t1", 3)
    'livetable/t1/seat/3/private'
    >>> topic(Kind.LOBBY, "t1")
    'livetable/lobby/t1'

    Raises :class:`TopicError` for a bad table id, a missing or bad seat.
    """
    check_table(table)
    if kind is Kind.LOBBY:
        return f"{ROOT}/{LOBBY}/{table}"
    if kind in SEAT_KINDS:
        if seat is None:
            raise TopicError(f"M-6: topic {kind.name} needs a seat")
        return f"{ROOT}/{table}/" + kind.value.format(n=check_seat(seat))
    return f"{ROOT}/{table}/{kind.value}"


def seat_filter(kind: Kind, table: str) -> str:
    """Return the subscription filter for ``kind`` on every seat of ``table``.

    >>> seat_filter(Kind.ACTION, "t1")
    'livetable/t1/seat/+/action'
    """
    if kind not in SEAT_KINDS:
        raise TopicError(f"M-6: {kind.name} is not a per-seat topic")
    return f"{ROOT}/{check_table(table)}/" + kind.value.format(n="+")


@dataclass(frozen=True, slots=True)
class TopicRef:
    """A parsed topic: its kind, table id and seat (None for table-wide kinds)."""

    kind: Kind
    table: str
    seat: int | None = None


_SEAT_TAILS = {
    ("seat", "private"): Kind.PRIVATE,
    ("seat", "action"): Kind.ACTION,
    ("seat", "reply"): Kind.REPLY,
    ("seat", "chat"): Kind.SEAT_CHAT,
    ("seat", "lobby"): Kind.SEAT_LOBBY,
    ("seat", "lists"): Kind.SEAT_LISTS,
}
_PLAIN_TAILS = {k.value: k for k in Kind if k not in SEAT_KINDS and k is not Kind.LOBBY}


def parse(topic_str: str, max_seats: int = MAX_SEATS) -> TopicRef:
    """Parse a topic of the tree into a :class:`TopicRef`.

    Raises :class:`TopicError` (M-6) for anything else: other roots, unknown tails, seats
    outside 1..max_seats, seat numbers with signs or leading zeros.
    """
    parts = topic_str.split("/")
    if len(parts) < 3 or parts[0] != ROOT:
        raise TopicError(f"M-6: {topic_str!r} is not a livetable topic")
    if parts[1] == LOBBY and len(parts) == 3:
        return TopicRef(Kind.LOBBY, check_table(parts[2]))
    table = check_table(parts[1])
    tail = parts[2:]
    joined = "/".join(tail)
    if joined in _PLAIN_TAILS:
        return TopicRef(_PLAIN_TAILS[joined], table)
    if len(tail) == 3 and tail[:2] == ["presence", "seat"]:
        return TopicRef(Kind.SEAT_PRESENCE, table, _seat_number(tail[2], max_seats, topic_str))
    if len(tail) == 4 and (tail[0], tail[1], tail[3]) == ("room", "seats", "lists"):
        return TopicRef(Kind.ROOM_SEAT_LISTS, table, _seat_number(tail[2], max_seats, topic_str))
    if len(tail) == 3 and (tail[0], tail[2]) in _SEAT_TAILS:
        return TopicRef(_SEAT_TAILS[(tail[0], tail[2])], table, _seat_number(tail[1], max_seats, topic_str))
    raise TopicError(f"M-6: {topic_str!r} is not a livetable topic")


def _seat_number(text: str, max_seats: int, topic_str: str) -> int:
    # A seat is one or two digits: a longer run is refused before int(), which raises a plain
    # ValueError past 4,300 digits (a breaker's topic killed paho's network thread with it).
    if not 0 < len(text) <= 3 or not text.isdigit() or not text.isascii() or text != str(int(text)):
        raise TopicError(f"M-6: bad seat number in {topic_str!r}")
    return check_seat(int(text), max_seats)
