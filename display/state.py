"""Checking and wording the public state (docs/state.md, schema 1) for the dealer display.

The display draws the public state JSON the controller publishes retained on
``livetable/<table>/state``. :func:`check_state` accepts a decoded payload or raises
:class:`StateError`; everything else here turns checked state into the words people read
(chips as ``12,345``, the game as ``NL Hold'em 50/100``). Pure: no SDL, no clock.
"""

from __future__ import annotations

import math
from typing import Any, TypeGuard

from display.i18n import N_, _
from display.i18n import chips as _chips

__all__ = [
    "held_seats",
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
    "pot_line",
    "showdown_lines",
]

#: the public state schema this display draws (docs/state.md)
SCHEMA = 1

GAMES = {"holdem": "Hold'em", "omaha": "Omaha", "draw": "5-Card Draw"}
LIMITS = {"no-limit": "NL", "pot-limit": "PL", "fixed-limit": "FL"}
STREETS = {
    "waiting": N_("WAITING"),
    "preflop": N_("PRE-FLOP"),
    "flop": N_("FLOP"),
    "turn": N_("TURN"),
    "river": N_("RIVER"),
    "predraw": N_("BEFORE DRAW"),
    "draw": N_("DRAW"),
    "postdraw": N_("AFTER DRAW"),
    "showdown": N_("SHOWDOWN"),
}
FAULTS = {
    "shuffler-lost": N_("SHUFFLER LOST"),
    "jam": N_("SHUFFLER JAM"),
    "deck-check": N_("DECK CHECK FAILED"),
    "board-mismatch": N_("BOARD MISMATCH"),
    "camera-lost": N_("CAMERA LOST"),
    "broker-lost": N_("NETWORK LOST"),
    "journal-error": N_("JOURNAL ERROR"),
    "misread": N_("CARD MISREAD"),
    "hole-cards-unknown": N_("READ HOLE CARDS"),
    "paused": N_("TABLE PAUSED"),
}
SEAT_STATUSES = ("empty", "waiting", "active", "acting", "folded", "all-in", "sitting-out")


class StateError(ValueError):
    """A payload is not a public state this display can draw (docs/state.md, schema 1)."""


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_num(value: Any) -> bool:
    return (_is_int(value) or isinstance(value, float)) and math.isfinite(value)


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise StateError(message)


def _opt(obj: dict[str, Any], key: str, test: Any, what: str, where: str = "state") -> None:
    """Check that ``obj[key]`` is missing, null or passes ``test``."""
    value = obj.get(key)
    _check(value is None or test(value), f"{where} {key} must be {what} or null, got {value!r}"[:200])


def _check_seat(s: Any, numbers: set[int]) -> None:
    _check(isinstance(s, dict) and _is_int(s.get("seat")) and 1 <= s["seat"] <= 10,
           f"each seat needs a seat number 1..10, got {s!r}"[:200])
    n = s["seat"]
    _check(n not in numbers, f"seat {n} appears twice")
    numbers.add(n)
    where = f"seat {n}"
    for key in ("stack", "bet", "posted_dead", "cards", "drew", "buy_in_pending"):
        _opt(s, key, _is_int, "integer", where)
    for key in ("name", "status"):
        _opt(s, key, lambda v: isinstance(v, str), "text", where)
    _opt(s, "shown", lambda v: isinstance(v, list) and all(isinstance(c, str) for c in v),
         "a list of cards", where)
    _opt(s, "missed", lambda v: isinstance(v, dict), "an object", where)
    _opt(s, "last_action", lambda v: isinstance(v, dict) and isinstance(v.get("action"), str)
         and (v.get("to") is None or _is_int(v.get("to"))), "{action: text, to: integer or null}", where)


def _check_showdown(entry: Any) -> None:
    _check(isinstance(entry, dict), f"showdown entries must be objects, got {entry!r}"[:200])
    _opt(entry, "pot", _is_int, "an integer", "showdown")
    _opt(entry, "amount", _is_int, "integer chips", "showdown")
    _opt(entry, "winners", lambda v: isinstance(v, list) and all(_is_int(w) for w in v),
         "a list of seat numbers", "showdown")
    _opt(entry, "shares", lambda v: isinstance(v, dict) and all(_is_int(c) for c in v.values()),
         "an object of integer chips", "showdown")
    _opt(entry, "hand", lambda v: isinstance(v, str), "text", "showdown")
    _opt(entry, "rake", _is_int, "integer chips", "showdown")
    _opt(entry, "best", lambda v: isinstance(v, dict) and all(
        isinstance(c, list) and all(isinstance(x, str) for x in c) for c in v.values()),
         "an object of card lists", "showdown")


def check_state(obj: Any) -> dict[str, Any]:
    """Return ``obj`` if it is a drawable public state (schema 1), else raise.

    Checks the type of every field the display draws (docs/state.md): ``schema == 1``, an
    integer ``seq``, ``max_seats`` 2..10, seats with distinct numbers 1..10 and integer chips,
    cards as texts, pots and showdown entries with integer chips, finite Unix times in
    ``turn`` and ``fault``, shares of equity as numbers. Optional fields may be missing or
    ``null``; the layout then uses defaults. Anything accepted here can be laid out and drawn.

    Raises:
        StateError: the payload is not such a state (the message names the field).
    """
    _check(isinstance(obj, dict), f"state must be a JSON object, got {type(obj).__name__}")
    _check(obj.get("schema") == SCHEMA, f"state schema must be {SCHEMA}, got {obj.get('schema')!r}"[:200])
    _check(_is_int(obj.get("seq")), f"state seq must be an integer, got {obj.get('seq')!r}"[:200])
    max_seats = obj.get("max_seats", 10)
    _check(_is_int(max_seats) and 2 <= max_seats <= 10, f"max_seats must be 2..10, got {max_seats!r}"[:200])
    for key in ("table", "name", "game", "limit", "street"):
        _opt(obj, key, lambda v: isinstance(v, str), "text")
    for key in ("hand", "button", "sb_seat", "bb_seat", "rake"):
        _opt(obj, key, _is_int, "an integer")
    _opt(obj, "paused", lambda v: isinstance(v, bool), "true or false")
    _opt(obj, "stakes", lambda v: isinstance(v, dict) and all(c is None or _is_int(c) for c in v.values()),
         "an object of integer chips")
    seats = obj.get("seats") or []
    _check(isinstance(seats, list), "seats must be a list")
    numbers: set[int] = set()
    for s in seats:
        _check_seat(s, numbers)
    _opt(obj, "board", lambda v: isinstance(v, list) and all(isinstance(c, str) for c in v),
         "a list of card texts")
    _opt(obj, "pots", lambda v: isinstance(v, list) and all(isinstance(p, dict) and _is_int(p.get("amount"))
                                                           for p in v),
         "a list of {amount: int, eligible: [...]}")
    turn = obj.get("turn")
    if turn is not None:
        _check(isinstance(turn, dict), "turn must be an object or null")
        _opt(turn, "seat", _is_int, "a seat number", "turn")
        for key in ("started", "deadline", "seconds"):
            _opt(turn, key, _is_num, "a finite number", "turn")
    showdown = obj.get("showdown")
    if showdown is not None:
        _check(isinstance(showdown, list), "showdown must be a list or null")
        for entry in showdown:
            _check_showdown(entry)
    _opt(obj, "all_in_equity", lambda v: isinstance(v, dict) and all(_is_num(e) for e in v.values()),
         "an object of numbers")
    _opt(obj, "holds", lambda v: isinstance(v, list) and all(
        isinstance(h, dict) and _is_int(h.get("seat")) and isinstance(h.get("name"), str) and _is_num(h.get("until"))
        for h in v), "a list of {seat: int, name: text, until: number}")
    fault = obj.get("fault")
    if fault is not None:
        _check(isinstance(fault, dict), "fault must be an object or null")
        for key in ("kind", "message"):
            _opt(fault, key, lambda v: isinstance(v, str), "text", "fault")
        _opt(fault, "since", _is_num, "a finite number", "fault")
    return obj


def held_seats(state: dict[str, Any], now: float | None) -> list[dict[str, Any]]:
    """Return the seats the room holds for called players (``holds``: ``[{"seat", "name",
    "until"}]``, docs/state.md, issue 18) that last at ``now`` (Unix s; None: all of them);
    entries that are not such are left out."""
    out = []
    for h in state.get("holds") or []:
        if (isinstance(h, dict) and _is_int(h.get("seat")) and isinstance(h.get("name"), str) and h["name"]
                and _is_num(h.get("until")) and (now is None or now < h["until"])):
            out.append(h)
    return out


def chips(amount: Any) -> str:
    """Return integer chips with thousands separators for the language (``12345`` ->
    ``"12,345"``, Dutch ``"12.345"``; display.i18n)."""
    return _chips(amount)


def stakes_text(state: dict[str, Any]) -> str:
    """Return the stakes: ``"50/100"``, ``"50/100 ante 10"``, ``"100/200 BBA 200"`` (a big-blind
    ante, TDA RP-11: the public state's ``stakes.bba``, issue 19); fixed limit ``"100/200"`` (bets)."""
    stakes = state.get("stakes") or {}
    if state.get("limit") == "fixed-limit" and stakes.get("small_bet") and stakes.get("big_bet"):
        text = f"{chips(stakes['small_bet'])}/{chips(stakes['big_bet'])}"
    else:
        text = f"{chips(stakes.get('sb'))}/{chips(stakes.get('bb'))}"
    if stakes.get("ante"):
        text += " " + _("ante {chips}").format(chips=chips(stakes["ante"]))
    elif stakes.get("bba"):
        text += " " + _("BBA {chips}").format(chips=chips(stakes["bba"]))
    return text


def game_title(state: dict[str, Any]) -> str:
    """Return game, limit and stakes in card-room shorthand: ``"NL Hold'em 50/100"`` (L-1)."""
    limit = LIMITS.get(state.get("limit", ""), str(state.get("limit", "")).upper())
    game = GAMES.get(state.get("game", ""), str(state.get("game", "")).title())
    return f"{limit} {game} {stakes_text(state)}".strip()


def street_text(state: dict[str, Any]) -> str:
    """Return the street in capitals (``"FLOP"``); unknown streets as given.

    Between hands with the last hand's awards on screen it is ``"SHOWDOWN"`` when a hand
    was shown down, ``"HAND OVER"`` when the pot went uncontested (it said ``WAITING`` while
    the centre named the winners, issue 20).
    """
    street = state.get("street") or "waiting"
    awards = [a for a in state.get("showdown") or [] if isinstance(a, dict)]
    if street == "waiting" and awards:
        return _("SHOWDOWN") if any(a.get("hand") for a in awards) else _("HAND OVER")
    return _(STREETS[street]) if street in STREETS else str(street).upper()


def fault_title(kind: Any) -> str:
    """Return the banner title for a fault kind (``"jam"`` -> ``"SHUFFLER JAM"``)."""
    if kind in FAULTS:
        return _(FAULTS[kind])
    return _("FAULT: {kind}").format(kind=str(kind).upper()) if kind else _("FAULT")


def seat_name(state: dict[str, Any], seat: int) -> str:
    """Return the name of the player in ``seat``, or ``"Seat N"`` when unnamed."""
    for s in state.get("seats") or []:
        if s.get("seat") == seat and s.get("name"):
            return str(s["name"])
    return _("Seat {n}").format(n=seat)


def pot_name(index: int) -> str:
    """Return ``"Main pot"`` for pot 0, ``"Side pot N"`` for pot N (P-1)."""
    return _("Main pot") if index == 0 else _("Side pot {n}").format(n=index)


def pot_line(index: int, amount: Any) -> str:
    """Return a pot with its chips as a dealer calls it: ``"Side pot 2: 3,538"`` (P-1).

    The colon keeps the pot's number apart from its chips (``Side pot 2 3,538`` read as
    23,538, issue 20).
    """
    return f"{pot_name(index)}: {chips(amount)}"


def showdown_lines(state: dict[str, Any]) -> list[tuple[str, str]]:
    """Return per awarded pot, main pot first, ``(who won what, the winning hand in words)``
    as a dealer announces it (P-1, P-3, R-1), with the rake of the pot it was taken from
    (``"Main pot 600: Ann wins 570 · rake 30"``); a state without per-pot rake gets the
    total as a last line, ``("Rake 300", "")``.

    ``("Main pot 600: Ann wins 570", "Three of a kind, kings")``: the pot, then what the
    winner takes after the rake (the seat says ``WINS 570``; the centre said only "Ann",
    issue 20); a split pot names every share: ``("Side pot 1 200 split: Ann 100, Bob 100",
    "Straight, nine high")``. The hand is ``""`` when the pot was won uncontested.
    """
    lines = []
    entries = [e for e in state.get("showdown") or [] if isinstance(e, dict)]
    entries.sort(key=lambda e: e["pot"] if _is_int(e.get("pot")) else 0)
    for entry in entries:
        index = entry.get("pot", 0) if _is_int(entry.get("pot")) else 0
        winners = [w for w in entry.get("winners") or [] if _is_int(w)]
        shares: dict[str, Any] = entry["shares"] if isinstance(entry.get("shares"), dict) else {}
        pot = f"{pot_name(index)} {chips(entry.get('amount'))}"
        if len(winners) > 1:
            who = ", ".join(
                f"{seat_name(state, w)} {chips(shares.get(str(w)))}" if str(w) in shares
                else seat_name(state, w)
                for w in winners
            )
            text = _("{pot} split: {who}").format(pot=pot, who=who)
        elif winners:
            won = shares.get(str(winners[0]), entry.get("amount"))
            text = _("{pot}: {name} wins {chips}").format(pot=pot, name=seat_name(state, winners[0]), chips=chips(won))
        else:
            text = f"{pot}: ?"
        if _is_int(entry.get("rake")) and entry["rake"] > 0:  # the rake where it was taken
            text += " \u00b7 " + _("rake {chips}").format(chips=chips(entry["rake"]))
        lines.append((text, str(entry.get("hand") or "")))
    rake = state.get("rake")
    per_pot = any("rake" in e for e in entries)
    if lines and _is_int(rake) and rake > 0 and not per_pot:  # an older state: the total only
        lines.append((_("Rake {chips}").format(chips=chips(rake)), ""))
    return lines
