"""Checking and wording the public state (docs/state.md, schema 1) for the dealer display.

The display draws the public state JSON the controller publishes retained on
``livetable/<table>/state``. :func:`check_state` accepts a decoded payload or raises
:class:`StateError`; everything else here turns checked state into the words people read
(chips as ``12,345``, the game as ``NL Hold'em 50/100``). Pure: no SDL, no clock.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "SCHEMA",
    "StateError",
    "check_state",
    "chips",
    "game_title",
    "stakes_text",
    "street_text",
    "fault_title",
    "seat_name",
    "pot_name",
    "showdown_lines",
]

#: the public state schema this display draws (docs/state.md)
SCHEMA = 1

GAMES = {"holdem": "Hold'em", "omaha": "Omaha", "draw": "5-Card Draw"}
LIMITS = {"no-limit": "NL", "pot-limit": "PL", "fixed-limit": "FL"}
STREETS = {
    "waiting": "WAITING",
    "preflop": "PRE-FLOP",
    "flop": "FLOP",
    "turn": "TURN",
    "river": "RIVER",
    "predraw": "BEFORE DRAW",
    "draw": "DRAW",
    "postdraw": "AFTER DRAW",
    "showdown": "SHOWDOWN",
}
FAULTS = {
    "shuffler-lost": "SHUFFLER LOST",
    "jam": "SHUFFLER JAM",
    "deck-check": "DECK CHECK FAILED",
    "board-mismatch": "BOARD MISMATCH",
    "camera-lost": "CAMERA LOST",
    "broker-lost": "NETWORK LOST",
    "journal-error": "JOURNAL ERROR",
    "misread": "CARD MISREAD",
}
SEAT_STATUSES = ("empty", "waiting", "active", "acting", "folded", "all-in", "sitting-out")


class StateError(ValueError):
    """A payload is not a public state this display can draw (docs/state.md, schema 1)."""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_state(obj: Any) -> dict[str, Any]:
    """Return ``obj`` if it is a drawable public state (schema 1), else raise.

    Checks what the display relies on: a dict with ``schema == 1``, an integer ``seq``,
    ``max_seats`` 2..10, a list of seat dicts with integer ``seat`` 1..10 and integer
    ``stack``/``bet``, a list ``board`` of card texts, a list of pots with integer
    ``amount``. Optional fields may be missing or ``null``; the layout uses defaults.

    Raises:
        StateError: the payload is not such a state (the message names the field).
    """
    if not isinstance(obj, dict):
        raise StateError(f"state must be a JSON object, got {type(obj).__name__}")
    if obj.get("schema") != SCHEMA:
        raise StateError(f"state schema must be {SCHEMA}, got {obj.get('schema')!r}")
    if not _is_int(obj.get("seq")):
        raise StateError(f"state seq must be an integer, got {obj.get('seq')!r}")
    max_seats = obj.get("max_seats", 10)
    if not _is_int(max_seats) or not 2 <= max_seats <= 10:
        raise StateError(f"max_seats must be 2..10, got {max_seats!r}")
    seats = obj.get("seats", [])
    if not isinstance(seats, list):
        raise StateError("seats must be a list")
    numbers = set()
    for s in seats:
        if not isinstance(s, dict) or not _is_int(s.get("seat")) or not 1 <= s["seat"] <= 10:
            raise StateError(f"each seat needs a seat number 1..10, got {s!r}")
        if s["seat"] in numbers:
            raise StateError(f"seat {s['seat']} appears twice")
        numbers.add(s["seat"])
        for key in ("stack", "bet"):
            if key in s and s[key] is not None and not _is_int(s[key]):
                raise StateError(f"seat {s['seat']} {key} must be integer chips, got {s[key]!r}")
        shown = s.get("shown")
        if shown is not None and not (isinstance(shown, list) and all(isinstance(c, str) for c in shown)):
            raise StateError(f"seat {s['seat']} shown must be a list of cards")
    board = obj.get("board") or []
    if not isinstance(board, list) or not all(isinstance(c, str) for c in board):
        raise StateError("board must be a list of card texts")
    pots = obj.get("pots") or []
    if not isinstance(pots, list) or not all(isinstance(p, dict) and _is_int(p.get("amount")) for p in pots):
        raise StateError("pots must be a list of {amount: int, eligible: [...]}")
    for key in ("turn", "fault", "stakes"):
        if obj.get(key) is not None and not isinstance(obj[key], dict):
            raise StateError(f"{key} must be an object or null")
    for key in ("showdown",):
        if obj.get(key) is not None and not isinstance(obj[key], list):
            raise StateError(f"{key} must be a list or null")
    if obj.get("all_in_equity") is not None and not isinstance(obj["all_in_equity"], dict):
        raise StateError("all_in_equity must be an object or null")
    return obj


def chips(amount: Any) -> str:
    """Return integer chips with thousands separators (``12345`` -> ``"12,345"``)."""
    return f"{amount:,}" if _is_int(amount) else "?"


def stakes_text(state: dict[str, Any]) -> str:
    """Return the stakes: ``"50/100"``, ``"50/100 ante 10"``; fixed limit ``"100/200"`` (bets)."""
    stakes = state.get("stakes") or {}
    if state.get("limit") == "fixed-limit" and stakes.get("small_bet") and stakes.get("big_bet"):
        text = f"{chips(stakes['small_bet'])}/{chips(stakes['big_bet'])}"
    else:
        text = f"{chips(stakes.get('sb'))}/{chips(stakes.get('bb'))}"
    if stakes.get("ante"):
        text += f" ante {chips(stakes['ante'])}"
    return text


def game_title(state: dict[str, Any]) -> str:
    """Return game, limit and stakes in card-room shorthand: ``"NL Hold'em 50/100"`` (L-1)."""
    limit = LIMITS.get(state.get("limit", ""), str(state.get("limit", "")).upper())
    game = GAMES.get(state.get("game", ""), str(state.get("game", "")).title())
    return f"{limit} {game} {stakes_text(state)}".strip()


def street_text(state: dict[str, Any]) -> str:
    """Return the street in capitals (``"FLOP"``); unknown streets as given."""
    street = state.get("street") or "waiting"
    return STREETS.get(street, str(street).upper())


def fault_title(kind: Any) -> str:
    """Return the banner title for a fault kind (``"jam"`` -> ``"SHUFFLER JAM"``)."""
    return FAULTS.get(kind, f"FAULT: {str(kind).upper()}" if kind else "FAULT")


def seat_name(state: dict[str, Any], seat: int) -> str:
    """Return the name of the player in ``seat``, or ``"Seat N"`` when unnamed."""
    for s in state.get("seats") or []:
        if s.get("seat") == seat and s.get("name"):
            return str(s["name"])
    return f"Seat {seat}"


def pot_name(index: int) -> str:
    """Return ``"Main pot"`` for pot 0, ``"Side pot N"`` for pot N (P-1)."""
    return "Main pot" if index == 0 else f"Side pot {index}"


def showdown_lines(state: dict[str, Any]) -> list[tuple[str, str]]:
    """Return per awarded pot ``(who won what, the winning hand in words)`` (P-1, P-3).

    ``("Main pot 600: Ann", "Three of a kind, kings")``; a split pot names every winner
    with their share: ``("Side pot 1 200: Ann 100, Bob 100", "Straight, nine high")``.
    The hand is ``""`` when the pot was won uncontested.
    """
    lines = []
    for entry in state.get("showdown") or []:
        if not isinstance(entry, dict):
            continue
        index = entry.get("pot", 0) if _is_int(entry.get("pot")) else 0
        winners = [w for w in entry.get("winners") or [] if _is_int(w)]
        shares = entry.get("shares") or {}
        if len(winners) > 1:
            who = ", ".join(
                f"{seat_name(state, w)} {chips(shares.get(str(w)))}" if str(w) in shares
                else seat_name(state, w)
                for w in winners
            )
        else:
            who = ", ".join(seat_name(state, w) for w in winners) or "?"
        lines.append((f"{pot_name(index)} {chips(entry.get('amount'))}: {who}", str(entry.get("hand") or "")))
    return lines
