"""Payload codec for the table's MQTT topics (docs/mqtt.md, schema 1). Pure: no I/O, no clock.

Inbound payloads (actions, chat, presence) are untrusted bytes from tablets: every decoder
raises :class:`PayloadError` (a ``ValueError``) whose ``code`` is the protocol rule broken:

- ``M-1`` not UTF-8 JSON text holding one object
- ``M-2`` wrong schema: schema version, missing or unknown fields, wrong types or values
- ``M-3`` too large (actions 1 KiB, chat 2 KiB)
- ``M-4`` stale state sequence number (checked in :mod:`drivers.mqtt.guard`)
- ``M-5`` action id already received (checked in :mod:`drivers.mqtt.guard`)
- ``M-6`` wrong seat: the payload names another seat than its topic
- ``M-7`` chat text that is not valid text, empty or too long (L-3)
- ``M-8`` chat too fast (L-3, checked in :mod:`drivers.mqtt.link`)
- ``M-9`` actions too fast from one seat (checked in :mod:`drivers.mqtt.link`)
- ``M-10`` sent retained: an input with the retain flag is never acted on (:mod:`drivers.mqtt.link`)

Outbound views (public state, private seat view) are produced by ``controller/views.py``
following docs/state.md; here they are only checked (never changed) before publishing.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from drivers.mqtt.events import HeldSeat

SCHEMA = 1
MAX_ACTION_BYTES = 1024
MAX_CHAT_BYTES = 2048
MAX_CHAT_CHARS = 200
MAX_CHIPS = 10**12
MAX_NAME_CHARS = 20

#: Betting actions (A-1; keys of the private view's ``legal``; P-2 show or muck at the
#: showdown), A-3 pre-selection and the seat's own requests (T-3 take the free seat, T-4
#: post or wait for the big blind, T-5, T-7, T-8; P-2 the standing "muck losing hands" choice;
#: T-2 buy in again after busting; a tournament's rebuy and add-on, issue 19, confirmed by the dealer).
ACTIONS = frozenset({
    "fold", "check", "call", "bet", "raise", "all_in", "draw", "show", "muck",
    "preselect",
    "take_seat", "sit_out", "sit_in", "post_bb", "wait_bb", "top_up", "stand_up", "auto_muck", "buy_in",
    "rebuy", "addon", "decline_rebuy",
    "deal_accept", "deal_decline",
})
#: The seat's own requests (T-3, T-4, T-5, T-7, T-8, P-2's standing choice): taken whatever
#: the hand did meanwhile, as long as the seat holds the same player (scope "seat"): at a
#: busy table a "sit out" must not fail because someone folded, and one a previous player
#: left pending must never reach the next. A pre-selection (A-3) lasts its betting round
#: (scope "round").
SEAT_REQUESTS = frozenset({"take_seat", "sit_out", "sit_in", "post_bb", "wait_bb", "top_up", "stand_up",
                           "auto_muck", "buy_in", "rebuy", "addon", "decline_rebuy", "deal_accept", "deal_decline"})
#: A tournament deal offered to the final players (issue 19): the seat's answer to offer
#: number ``amount`` (the offer on its screen; an answer to an older offer is refused).
DEAL_ANSWERS = frozenset({"deal_accept", "deal_decline"})
#: Actions that need an integer chip ``amount`` (bet/raise: the street total "to";
#: take_seat and buy_in: the buy-in).
AMOUNT_REQUIRED = frozenset({"bet", "raise", "top_up", "take_seat", "buy_in"})
#: A-3 pre-selections; those in PRESELECT_AMOUNT carry the amount they were made for.
PRESELECT_CHOICES = frozenset({
    "none", "check_fold", "fold", "check", "call", "call_any", "bet", "raise", "raise_any", "all_in",
})
PRESELECT_AMOUNT = frozenset({"call", "bet", "raise"})
#: ``auto_muck``'s ``choice``: muck losing hands at the showdown without asking, or ask (P-2).
AUTO_MUCK_CHOICES = frozenset({"on", "off"})

_ID_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
_CARD_RE = re.compile(r"^[2-9TJQKA][cdhs]$")
_ACTION_FIELDS = {"schema", "id", "seat", "seq", "action", "amount", "choice", "cards", "name", "post"}
#: Characters a player's name may hold besides letters, digits and single spaces (T-3).
NAME_PUNCTUATION = "'.-_"
_CHAT_FIELDS = {"schema", "id", "seat", "text"}


class PayloadError(ValueError):
    """An inbound payload refused with protocol rule ``code`` (``M-1`` .. ``M-10``).

    ``str(error)`` is ``"<code>: <detail>"``, the text sent as the refusal reason;
    ``detail`` the text after the code; ``action_id`` is the payload's id when it could
    be read, else None.
    """

    def __init__(self, code: str, detail: str, action_id: str | None = None) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail
        self.action_id = action_id


@dataclass(frozen=True, slots=True)
class ActionRequest:
    """A decoded, well-formed action payload (not yet checked for seq or replay)."""

    action_id: str
    seat: int
    seq_seen: int
    action: str
    amount: int | None
    choice: str | None
    cards: tuple[str, ...]
    name: str | None = None
    post: bool | None = None


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """A decoded chat payload whose text passed :func:`clean_chat_text`."""

    chat_id: str
    seat: int
    text: str


def encode(obj: Any) -> bytes:
    """Encode ``obj`` as compact UTF-8 JSON bytes (no NaN/Infinity: ``ValueError``).

    A text no UTF-8 encoder takes (a lone surrogate, e.g. in a name that reached the table by
    another path than :func:`clean_name`) is sent with ``?`` in its place, never an error: one
    seat's name must not stop the table publishing its state (breaker 2 H4).
    """
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8", "replace")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def decode_object(payload: bytes, *, limit: int) -> dict[str, Any]:
    """Decode ``payload`` (at most ``limit`` bytes) as one JSON object.

    Raises :class:`PayloadError` M-3 when too large, M-1 when not UTF-8 JSON holding an
    object (NaN and Infinity are not JSON), M-2 when ``schema`` is not 1.
    """
    if len(payload) > limit:
        raise PayloadError("M-3", f"payload of {len(payload)} bytes is over the {limit} byte limit")
    try:
        obj = json.loads(payload.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise PayloadError("M-1", f"payload is not UTF-8 JSON ({type(exc).__name__})") from None
    if not isinstance(obj, dict):
        raise PayloadError("M-1", "payload is not a JSON object")
    aid = obj.get("id") if isinstance(obj.get("id"), str) and _ID_RE.match(obj["id"]) else None
    if type(obj.get("schema")) is not int or obj.get("schema") != SCHEMA:  # not true, not 1.0
        raise PayloadError("M-2", f"schema must be {SCHEMA}", aid)
    return obj


def payload_id(payload: bytes, *, limit: int = 4096) -> str | None:
    """Return the ``id`` of an inbound payload when it can be read, else None (never raises).

    For answering a request refused before it is decoded (M-10: sent retained): a JSON
    object of at most ``limit`` bytes whose ``id`` is a valid id.
    """
    try:
        obj = decode_object(payload, limit=limit)
    except PayloadError as exc:
        return exc.action_id
    aid = obj.get("id")
    return aid if isinstance(aid, str) and _ID_RE.match(aid) else None


def _int(obj: dict[str, Any], key: str, aid: str | None, *, lo: int, hi: int) -> int:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise PayloadError("M-2", f"{key!r} must be an integer in {lo}..{hi}", aid)
    return value


def _id_and_fields(obj: dict[str, Any], fields: set[str]) -> str:
    """Return the request's ``id``; M-2 for a bad id or a field not in ``fields``."""
    aid = obj.get("id")
    if not isinstance(aid, str) or not _ID_RE.match(aid):
        raise PayloadError("M-2", "'id' must be 1..64 characters of A-Z a-z 0-9 _ . : -")
    extra = set(obj) - fields
    if extra:
        raise PayloadError("M-2", f"unknown fields {sorted(extra)}", aid)
    return aid


def _common(obj: dict[str, Any], fields: set[str], topic_seat: int) -> str:
    aid = _id_and_fields(obj, fields)
    seat = _int(obj, "seat", aid, lo=1, hi=99)
    if seat != topic_seat:
        raise PayloadError("M-6", f"payload for seat {seat} sent on seat {topic_seat}'s topic", aid)
    return aid


def decode_action(payload: bytes, *, seat: int) -> ActionRequest:
    """Decode an action sent on ``livetable/<table>/seat/<seat>/action``.

    Payload: ``{"schema": 1, "id": str, "seat": int, "seq": int, "action": str,
    "amount": int | null, "choice": str | null, "cards": [card] | null}`` (docs/mqtt.md);
    ``take_seat`` (T-3) also carries ``"name": str`` (see :func:`clean_name`) and
    ``"post": bool`` (T-4), and its ``amount`` is the buy-in, at least 1.
    Raises :class:`PayloadError` M-1/M-2/M-3/M-6. Legality at the table (A-1, S-, T-) is
    the table's decision, not this function's.
    """
    obj = decode_object(payload, limit=MAX_ACTION_BYTES)
    aid = _common(obj, _ACTION_FIELDS, seat)
    seq = _int(obj, "seq", aid, lo=0, hi=2**53)
    action = obj.get("action")
    if not isinstance(action, str) or action not in ACTIONS:  # a list or object is no action (not a TypeError)
        raise PayloadError("M-2", f"'action' must be one of {sorted(ACTIONS)}", aid)
    amount = obj.get("amount")
    if amount is not None:
        amount = _int(obj, "amount", aid, lo=0, hi=MAX_CHIPS)
    choice = obj.get("choice")
    if action == "preselect":
        if not isinstance(choice, str) or choice not in PRESELECT_CHOICES:
            raise PayloadError("M-2", f"'choice' must be one of {sorted(PRESELECT_CHOICES)}", aid)
        if choice in PRESELECT_AMOUNT and amount is None:
            raise PayloadError("M-2", f"pre-selection {choice!r} needs an 'amount' (A-3)", aid)
    elif action == "auto_muck":
        if not isinstance(choice, str) or choice not in AUTO_MUCK_CHOICES:
            raise PayloadError("M-2", f"'choice' must be one of {sorted(AUTO_MUCK_CHOICES)} (P-2)", aid)
    elif choice is not None:
        raise PayloadError("M-2", "'choice' is only for actions 'preselect' and 'auto_muck'", aid)
    if action in AMOUNT_REQUIRED and amount is None:
        raise PayloadError("M-2", f"action {action!r} needs an integer 'amount' in chips", aid)
    if action in DEAL_ANSWERS and (amount is None or amount < 1):
        raise PayloadError("M-2", f"action {action!r} needs 'amount': the number of the deal offer answered "
                                  "(1 or more)", aid)
    cards = obj.get("cards")
    if action == "draw":
        if (not isinstance(cards, list) or len(cards) > 5 or len(set(map(str, cards))) != len(cards)
                or not all(isinstance(c, str) and _CARD_RE.match(c) for c in cards)):
            raise PayloadError("M-2", "'cards' must list 0..5 distinct cards to discard (G-3)", aid)
    elif cards is not None:
        raise PayloadError("M-2", "'cards' is only for action 'draw'", aid)
    name, post = obj.get("name"), obj.get("post")
    if action == "take_seat":
        if amount is None or amount < 1:
            raise PayloadError("M-2", "'amount' (the buy-in) must be an integer of at least 1 chip (T-2)", aid)
        try:
            name = clean_name(name)
        except PayloadError as exc:
            raise PayloadError(exc.code, exc.detail, aid) from None
        if not isinstance(post, bool):
            raise PayloadError("M-2", "'post' must be true (post the big blind now) or false "
                                      "(wait for the big blind) (T-4)", aid)
    elif name is not None or post is not None:
        raise PayloadError("M-2", "'name' and 'post' are only for action 'take_seat'", aid)
    return ActionRequest(aid, seat, seq, action, amount, choice, tuple(cards or ()), name, post)


def clean_name(text: object) -> str:
    """Return a player's name for the table (T-3), or raise :class:`PayloadError` M-2.

    A name is 1..20 characters (code points) after stripping and NFC normalisation: letters
    and digits of any script (at least one), single spaces between words, and ``' . - _``;
    nothing else (no control or
    format characters, no line breaks, no emoji), so the display and every tablet can draw it.
    """
    if not isinstance(text, str) or not _utf8_ok(text):
        raise PayloadError("M-2", "'name' must be text (T-3)")
    name = unicodedata.normalize("NFC", text.strip())
    if not name:
        raise PayloadError("M-2", "'name' is empty (T-3)")
    if len(name) > MAX_NAME_CHARS:
        raise PayloadError("M-2", f"'name' is over {MAX_NAME_CHARS} characters (T-3)")
    if "  " in name:
        raise PayloadError("M-2", "'name' has two spaces in a row (T-3)")
    for c in name:
        cat = unicodedata.category(c)
        if not (cat[0] in "LN" or cat in ("Mn", "Mc") or c == " " or c in NAME_PUNCTUATION):
            raise PayloadError("M-2", f"'name' may hold letters, digits, spaces and {NAME_PUNCTUATION} only, "
                                      f"not U+{ord(c):04X} (T-3)")
    if not any(unicodedata.category(c)[0] in "LN" for c in name):
        raise PayloadError("M-2", "'name' needs at least one letter or digit (T-3)")
    return name


def clean_chat_text(text: object) -> str:
    """Return chat ``text`` stripped, or raise :class:`PayloadError` M-7 (L-3).

    Valid text: a ``str`` of 1..200 characters after stripping, encodable as UTF-8 (no lone
    surrogates), with no control or format characters (categories Cc, Cf, Cs, Co, Cn);
    line breaks and tabs are refused too: one chat line is one line.
    """
    if not isinstance(text, str):
        raise PayloadError("M-7", "chat 'text' must be a string (L-3)")
    clean = unicodedata.normalize("NFC", text.strip()) if _utf8_ok(text) else None
    if clean is None:
        raise PayloadError("M-7", "chat text is not valid Unicode (L-3)")
    text = clean
    if not text:
        raise PayloadError("M-7", "chat text is empty (L-3)")
    if len(text) > MAX_CHAT_CHARS:
        raise PayloadError("M-7", f"chat text is over {MAX_CHAT_CHARS} characters (L-3)")
    bad = next((c for c in text if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn")), None)
    if bad is not None:
        raise PayloadError("M-7", f"chat text holds control character U+{ord(bad):04X} (L-3)")
    return text


def _utf8_ok(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def decode_chat(payload: bytes, *, seat: int) -> ChatRequest:
    """Decode a chat line sent on ``livetable/<table>/seat/<seat>/chat`` (L-3).

    Payload: ``{"schema": 1, "id": str, "seat": int, "text": str}``.
    Raises :class:`PayloadError` M-1/M-2/M-3/M-6/M-7.
    """
    obj = decode_object(payload, limit=MAX_CHAT_BYTES)
    aid = _common(obj, _CHAT_FIELDS, seat)
    try:
        text = clean_chat_text(obj.get("text"))
    except PayloadError as exc:
        raise PayloadError(exc.code, exc.detail, aid) from None
    return ChatRequest(aid, seat, text)


def decode_presence(payload: bytes) -> bool:
    """Decode a presence payload ``{"schema": 1, "online": bool}``; return ``online``.

    Raises :class:`PayloadError` M-1/M-2/M-3 (limit 256 bytes).
    """
    obj = decode_object(payload, limit=256)
    if not isinstance(obj.get("online"), bool):
        raise PayloadError("M-2", "'online' must be true or false")
    return bool(obj["online"])


def presence_payload(online: bool) -> bytes:
    """Encode a presence (birth / Last Will) payload."""
    return encode({"schema": SCHEMA, "online": bool(online)})


def reply_payload(*, table: str, seat: int, action_id: str | None, accepted: bool,
                  reason: str | None, seq: int | None) -> bytes:
    """Encode the answer to an action or chat line on ``.../seat/<n>/reply``.

    ``reason`` (refusals only) starts with the rule id: ``"A-1: not your turn"``,
    ``"M-4: ..."``; ``seq`` is the last public state seq the controller published.
    Raises ``ValueError`` when a refusal has no reason or an acceptance has one.
    """
    if accepted == (reason is not None):
        raise ValueError("a refusal needs a reason and an acceptance has none")
    return encode({"schema": SCHEMA, "table": table, "seat": seat, "id": action_id,
                   "accepted": bool(accepted), "reason": reason, "seq": seq})


def action_payload(*, seat: int, seq: int, action: str, action_id: str, amount: int | None = None,
                   choice: str | None = None, cards: list[str] | None = None,
                   name: str | None = None, post: bool | None = None) -> bytes:
    """Encode an action as a tablet sends it (used by the tablet simulator and tests)."""
    obj: dict[str, Any] = {"schema": SCHEMA, "id": action_id, "seat": seat, "seq": seq,
                           "action": action, "amount": amount}
    if choice is not None:
        obj["choice"] = choice
    if cards is not None:
        obj["cards"] = cards
    if name is not None:
        obj["name"] = name
    if post is not None:
        obj["post"] = post
    return encode(obj)


def chat_input_payload(*, seat: int, text: str, chat_id: str) -> bytes:
    """Encode a chat line as a tablet sends it."""
    return encode({"schema": SCHEMA, "id": chat_id, "seat": seat, "text": text})


class ViewError(ValueError):
    """A view handed to the driver that does not follow docs/state.md; nothing is published."""


def check_state(view: Any, table: str) -> int:
    """Check a public state view (docs/state.md) for ``table``; return its ``seq``.

    Checks what the driver relies on and what would leak a secret: ``schema`` 1, ``table``,
    an integer ``seq`` >= 0, ``seats`` whose ``cards`` are counts, never card lists (hole
    cards only ever go to the private topic). Raises :class:`ViewError`.
    """
    if not isinstance(view, dict) or view.get("schema") != SCHEMA or view.get("table") != table:
        raise ViewError(f"state view must be a dict with schema {SCHEMA} and table {table!r}")
    seq = view.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
        raise ViewError("state view 'seq' must be an integer >= 0")
    for s in view.get("seats") or []:
        if not isinstance(s, dict) or isinstance(s.get("cards"), (list, tuple, str)):
            raise ViewError("public seats carry a count of hole cards, never the cards")
    return seq


def check_private(view: Any, table: str, seat: int) -> None:
    """Check a private seat view (docs/state.md) is for ``table`` and ``seat``.

    Raises :class:`ViewError` when it is not a dict with schema 1 naming that table and seat,
    so one seat's cards can never be published on another seat's topic.
    """
    if (not isinstance(view, dict) or view.get("schema") != SCHEMA or view.get("table") != table
            or view.get("seat") != seat):
        raise ViewError(f"private view must be a dict with schema {SCHEMA}, table {table!r}, seat {seat}")


def lobby_summary(state: dict[str, Any], *, online: bool = True) -> dict[str, Any]:
    """Project a public state (docs/state.md) into the lobby entry of its table (L-1).

    Returns ``{"schema", "table", "name", "game", "limit", "stakes", "max_seats",
    "players": [{"seat", "name"}] (occupied seats), "seated": int, "hand", "online"}``.
    Raises ``KeyError`` when ``state`` lacks a field of docs/state.md.
    """
    players = [{"seat": s["seat"], "name": s["name"]} for s in state["seats"]
               if s.get("status") != "empty" and s.get("name")]
    return {"schema": SCHEMA, "table": state["table"], "name": state["name"], "game": state["game"],
            "limit": state["limit"], "stakes": dict(state["stakes"]), "max_seats": state["max_seats"],
            "players": players, "seated": len(players), "hand": state["hand"], "online": bool(online)}


#: The fields of a hand summary on the history topics (docs/mqtt.md); any other is dropped.
HISTORY_FIELDS = ("hand", "table", "game", "limit", "started", "ended", "voided", "board", "pots",
                  "rake")
#: The fields of a seat in a hand summary; ``cards`` are then kept per view (P-4).
HISTORY_SEAT_FIELDS = ("seat", "name", "showed", "net")


def history_views(hands: list[dict[str, Any]], *, keep: int = 10) -> tuple[dict[str, Any], dict[str, Any]]:
    """Split hand summaries into the public and the seated players' history (P-4).

    ``hands``: oldest first, each ``{"hand": int, ..., "seats": [{"seat", "name", "cards",
    "showed", ...}]}`` with ``showed`` one of ``"shown"``, ``"mucked"``, ``"folded"``
    (docs/mqtt.md). Only the last ``keep`` hands are kept. Public view: cards only of hands
    shown. Seated view: also mucked hands (P-4). Folded hands' cards appear in neither.
    Returns ``(public, seated)`` payload dicts ``{"schema", "hands": [...], "view"}``.
    Raises ``ValueError`` when a seat's ``showed`` is not one of the three.
    """
    public, seated = [], []
    for hand in hands[-keep:] if keep > 0 else []:
        pub_seats, seat_seats = [], []
        for s in hand.get("seats", []):
            showed = s.get("showed")
            if showed not in ("shown", "mucked", "folded"):
                raise ValueError(f"P-4: seat {s.get('seat')} 'showed' must be shown, mucked or folded")
            kept = {k: s[k] for k in HISTORY_SEAT_FIELDS if k in s}
            pub_seats.append({**kept, "cards": s.get("cards") if showed == "shown" else None})
            seat_seats.append({**kept, "cards": s.get("cards") if showed != "folded" else None})
        # only the summary's own fields: a whole table record (every hole card in its
        # ``result`` and engine events) must never reach these retained topics
        summary = {k: hand[k] for k in HISTORY_FIELDS if k in hand}
        public.append({**summary, "seats": pub_seats})
        seated.append({**summary, "seats": seat_seats})
    return ({"schema": SCHEMA, "view": "public", "hands": public},
            {"schema": SCHEMA, "view": "seated", "hands": seated})



# -- the floor's requests (``livetable floor``; docs/mqtt.md "Floor") ----------------------
MAX_FLOOR_BYTES = 1024
#: What the floor may ask: the table's status; end a fault by one of its exits
#: (docs/faults.md); enter a seat's hole cards for ``hole-cards-unknown``; confirm a
#: tablet player's buy-in (T-3); pause the table; between hands (issue 17, the room's
#: console): seat a player with a buy-in, close the table (no further hand) or open it
#: again, change the stakes.
FLOOR_DECISIONS = frozenset({"resume", "correction", "misdeal", "void"})
FLOOR_TABLE_COMMANDS = frozenset({"seat", "open", "close", "stakes"})
#: The tournament director's (issue 19, docs/tournament.md "The director"): pause and resume
#: the clock, add time to the level (``amount`` seconds), go to a level (``amount``: its
#: number), register a late entry (``player``; ``seat`` optional), book a rebuy or add-on
#: at ``seat``, or say that the player busted at ``seat`` does not rebuy (``decline-rebuy``).
FLOOR_TOURNAMENT_COMMANDS = frozenset({"clock-pause", "clock-resume", "clock-add", "clock-level", "register",
                                       "rebuy", "addon", "decline-rebuy", "deal-offer", "deal-withdraw"})
#: ``deal-offer``'s ``method`` (issue 19: a deal offered to the final players' tablets;
#: ``amount``, optional, the shares' unit in money).
DEAL_METHODS = ("icm", "chip-chop")
FLOOR_COMMANDS = (frozenset({"status", "read", "confirm-buyin", "pause"}) | FLOOR_DECISIONS | FLOOR_TABLE_COMMANDS
                  | FLOOR_TOURNAMENT_COMMANDS)
#: The most seconds ``clock-add`` adds, and the highest level ``clock-level`` goes to.
MAX_CLOCK_ADD, MAX_LEVEL = 24 * 3600, 999
_FLOOR_FIELDS = {"schema", "id", "command", "by", "fault", "seat", "cards", "reason", "player", "amount", "stakes",
                 "method"}
#: The stakes the floor may change (chips); big_blind is required.
FLOOR_STAKES = ("small_blind", "big_blind", "ante")
MAX_FLOOR_CHIPS = 10**9
_FAULT_REF_RE = re.compile(r"^(?:[a-z][a-z-]{0,31}|[1-9][0-9]?)$")


@dataclass(frozen=True, slots=True)
class FloorRequest:
    """A decoded floor request; see :func:`decode_floor_request`."""

    request_id: str
    command: str
    by: str | None
    fault: str | None
    seat: int | None
    cards: tuple[str, ...]
    reason: str | None
    player: str | None = None
    amount: int | None = None
    stakes: dict[str, int] | None = None
    method: str | None = None


def decode_floor_request(payload: bytes) -> FloorRequest:
    """Decode a request sent on ``livetable/<table>/floor/request`` (at most 1 KiB).

    Payload: ``{"schema": 1, "id": str, "command": str, "by": str | null,
    "fault": str | null, "seat": int | null, "cards": [card] | null, "reason": str | null}``:

    - ``command``: one of :data:`FLOOR_COMMANDS`;
    - ``by``: the floor person's name (:func:`clean_name` rules), required for every
      command but ``status``;
    - ``fault`` (only and required for ``resume|correction|misdeal|void``): a fault kind
      (``jam``, ``hole-cards-unknown``) or its number 1..99 in the status list;
    - ``seat`` 1..10 (only and required for ``read`` and ``confirm-buyin``);
    - ``cards`` (only and required for ``read``): 1..5 distinct cards (``As``, ``Td``);
    - ``reason``: optional text (:func:`clean_chat_text` rules) for the journal's note;
    - ``seat`` (issue 17): also ``seat`` 1..10, ``player`` (the player's name,
      :func:`clean_name` rules) and ``amount`` (the buy-in, chips 1..10^9);
    - ``stakes`` (issue 17): ``{"big_blind", "small_blind"?, "ante"?}``, whole chips
      0..10^9 (the blinds at least 1), the small blind and the ante at most the big blind (S-1);
    - ``open``, ``close``: nothing more than ``by`` and ``reason``;
    - the tournament director's (issue 19): ``clock-pause``, ``clock-resume``;
      ``clock-add`` with ``amount`` (seconds 1..86,400 added to the level); ``clock-level``
      with ``amount`` (the level's number); ``register`` with ``player`` (the entry's name)
      and optionally ``seat``; ``deal-offer`` with ``method`` (``icm`` or ``chip-chop``) and
      optionally ``amount`` (the shares' unit, money 1..10^9); ``deal-withdraw``.

    Raises :class:`PayloadError` M-1/M-2/M-3 (the ``reason`` field's text problems are
    M-2 here). Whether the table can do it (fault open, exit allowed) is the controller's
    decision.
    """
    obj = decode_object(payload, limit=MAX_FLOOR_BYTES)
    aid = _id_and_fields(obj, _FLOOR_FIELDS)
    command = obj.get("command")
    if not isinstance(command, str) or command not in FLOOR_COMMANDS:
        raise PayloadError("M-2", f"'command' must be one of {sorted(FLOOR_COMMANDS)}", aid)
    by = obj.get("by")
    if by is not None or command != "status":
        try:
            by = clean_name(by)
        except PayloadError as exc:
            raise PayloadError("M-2", "'by' (who decides): " + exc.detail, aid) from None
    fault = obj.get("fault")
    if command in FLOOR_DECISIONS:
        if not isinstance(fault, str) or not _FAULT_REF_RE.match(fault):
            raise PayloadError("M-2", "'fault' must be a fault kind (e.g. 'jam') or its number in the status", aid)
    elif fault is not None:
        raise PayloadError("M-2", "'fault' is only for resume, correction, misdeal and void", aid)
    seat = obj.get("seat")
    if command in ("read", "confirm-buyin", "seat", "rebuy", "addon", "decline-rebuy") \
            or (command == "register" and seat is not None):
        seat = _int(obj, "seat", aid, lo=1, hi=10)
    elif seat is not None:
        raise PayloadError("M-2", "'seat' is only for read, confirm-buyin, seat, register, rebuy, addon and "
                                  "decline-rebuy", aid)
    player, amount = obj.get("player"), obj.get("amount")
    if command in ("seat", "register"):
        try:
            player = clean_name(player)
        except PayloadError as exc:
            raise PayloadError("M-2", "'player' (who sits down): " + exc.detail, aid) from None
        amount = _int(obj, "amount", aid, lo=1, hi=MAX_FLOOR_CHIPS) if command == "seat" else amount
        if command == "register" and amount is not None:
            raise PayloadError("M-2", "'amount' is not for register (an entry gets the starting stack, TDA 9)", aid)
    elif command == "deal-offer":
        if player is not None:
            raise PayloadError("M-2", "'player' is not for deal-offer", aid)
        amount = None if amount is None else _int(obj, "amount", aid, lo=1, hi=MAX_FLOOR_CHIPS)
    elif command in ("clock-add", "clock-level"):
        if player is not None:
            raise PayloadError("M-2", f"'player' is not for {command}", aid)
        amount = (_int(obj, "amount", aid, lo=1, hi=MAX_CLOCK_ADD) if command == "clock-add"
                  else _int(obj, "amount", aid, lo=1, hi=MAX_LEVEL))
    elif player is not None or amount is not None:
        raise PayloadError("M-2", "'player' and 'amount' are only for seat, register, clock-add, clock-level "
                                  "and deal-offer", aid)
    method = obj.get("method")
    if command == "deal-offer":
        if method not in DEAL_METHODS:
            raise PayloadError("M-2", f"'method' must be one of {', '.join(DEAL_METHODS)} (the deal's)", aid)
    elif method is not None:
        raise PayloadError("M-2", "'method' is only for deal-offer", aid)
    stakes = obj.get("stakes")
    if command == "stakes":
        if (not isinstance(stakes, dict) or "big_blind" not in stakes
                or not set(stakes) <= set(FLOOR_STAKES)):
            raise PayloadError("M-2", f"'stakes' must be an object of {', '.join(FLOOR_STAKES)} in chips, "
                                      "with big_blind", aid)
        stakes = {k: _int(stakes, k, aid, lo=0 if k == "ante" else 1, hi=MAX_FLOOR_CHIPS) for k in stakes}
        _check_stakes(stakes, aid)
    elif stakes is not None:
        raise PayloadError("M-2", "'stakes' is only for stakes", aid)
    cards = obj.get("cards")
    if command == "read":
        if (not isinstance(cards, list) or not 1 <= len(cards) <= 5
                or not all(isinstance(c, str) and _CARD_RE.match(c) for c in cards)
                or len(set(cards)) != len(cards)):
            raise PayloadError("M-2", "'cards' must list the seat's 1..5 distinct hole cards, "
                                      "written like As Td (G-5)", aid)
    elif cards is not None:
        raise PayloadError("M-2", "'cards' is only for read", aid)
    reason = obj.get("reason")
    if reason is not None:
        try:
            reason = clean_chat_text(reason)
        except PayloadError as exc:
            raise PayloadError("M-2", "'reason': " + exc.detail, aid) from None
    return FloorRequest(aid, command, by, fault, seat, tuple(cards or ()), reason, player, amount, stakes, method)


def _check_stakes(stakes: dict[str, int], aid: str | None) -> None:
    """Refuse (M-2, naming S-1) stakes that are no stakes: a small blind above the big blind,
    an ante above the big blind (``{"big_blind": 200, "ante": 10**9}``)."""
    big = stakes["big_blind"]
    for key, words in (("small_blind", "small blind"), ("ante", "ante")):
        if stakes.get(key, 0) > big:
            raise PayloadError("M-2", f"S-1: the {words} ({stakes[key]:,}) must be at most the big blind "
                                      f"({big:,})", aid)


def floor_request_payload(*, request_id: str, command: str, by: str | None = None, fault: str | None = None,
                          seat: int | None = None, cards: list[str] | None = None,
                          reason: str | None = None, player: str | None = None, amount: int | None = None,
                          stakes: dict[str, int] | None = None, method: str | None = None) -> bytes:
    """Encode a floor request as ``livetable floor`` sends it (fields left None are null;
    ``player``, ``amount``, ``stakes`` and ``method`` only when given, so older tables read the rest)."""
    extra = {k: v for k, v in (("player", player), ("amount", amount), ("stakes", stakes), ("method", method))
             if v is not None}
    return encode({"schema": SCHEMA, "id": request_id, "command": command, "by": by, "fault": fault,
                   "seat": seat, "cards": cards, "reason": reason, **extra})


def floor_reply_payload(*, table: str, request_id: str | None, command: str | None, accepted: bool,
                        reason: str | None, detail: str | None = None, status: dict[str, Any] | None = None,
                        seq: int | None = None) -> bytes:
    """Encode the controller's answer on ``livetable/<table>/floor/reply``.

    ``{"schema": 1, "table", "id", "command", "accepted", "reason", "detail", "status",
    "seq"}``: ``reason`` (refusals only) starts with the rule id (``M-2: ...``,
    ``F-2: a jam fault ends by misdeal, resume, void, not correction``); ``detail`` says
    what was done; ``status`` is the table's status (``status`` command, and after every
    accepted request). Raises ``ValueError`` when a refusal has no reason or an
    acceptance has one.
    """
    if accepted == (reason is not None):
        raise ValueError("a refusal needs a reason and an acceptance has none")
    return encode({"schema": SCHEMA, "table": table, "id": request_id, "command": command,
                   "accepted": bool(accepted), "reason": reason, "detail": detail, "status": status,
                   "seq": seq})


#: The room's holds message is at most this big (a table has at most 10 seats).
HOLDS_LIMIT = 4096


def decode_holds(payload: bytes, table: str, max_seats: int) -> tuple[HeldSeat, ...]:
    """Decode the room's held seats for ``table`` (issue 18, docs/players.md):
    ``{"schema": 1, "table", "holds": [{"seat", "player", "name", "until"}]}``; an empty
    payload (the retained message cleared) is no hold.

    Raises :class:`PayloadError` M-1/M-2/M-3: not JSON, another table, a seat outside
    1..``max_seats`` or twice, a player or name not 1..40 characters, ``until`` not a
    finite number; nothing of a refused message is taken.
    """
    if not payload:
        return ()
    obj = decode_object(payload, limit=HOLDS_LIMIT)
    if obj.get("table") != table:
        raise PayloadError("M-2", f"holds for table {obj.get('table')!r}, not {table!r}")
    items = obj.get("holds")
    if not isinstance(items, list):
        raise PayloadError("M-2", "'holds' must be a list")
    out: list[HeldSeat] = []
    for h in items:
        if not isinstance(h, dict):
            raise PayloadError("M-2", "a hold must be an object")
        seat, player, name, until = h.get("seat"), h.get("player"), h.get("name"), h.get("until")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 1 <= seat <= max_seats:
            raise PayloadError("M-2", f"hold of seat {seat!r}: not a seat 1..{max_seats}")
        if any(x.seat == seat for x in out):
            raise PayloadError("M-2", f"seat {seat} held twice")
        for what, text in (("player", player), ("name", name)):
            if not isinstance(text, str) or not 1 <= len(text) <= 40 or not text.isprintable():
                raise PayloadError("M-2", f"hold of seat {seat}: {what} must be 1..40 printable characters")
        if not isinstance(until, (int, float)) or isinstance(until, bool) or not math.isfinite(until):
            raise PayloadError("M-2", f"hold of seat {seat}: 'until' must be a number of seconds")
        assert isinstance(player, str) and isinstance(name, str)  # checked just above
        out.append(HeldSeat(seat, player, name, float(until)))
    return tuple(sorted(out, key=lambda x: x.seat))


# -- waiting lists from the seat's tablet (issue 18, docs/players.md) ------------------------
MAX_LOBBY_BYTES = 1024
MAX_LIST_CHARS = 100
#: ``reenter``: the busted player's re-entry asked at his seat's tablet (issue 19, TDA 9), no list
LOBBY_OPS = frozenset({"join", "leave", "status", "reenter"})
_LOBBY_FIELDS = {"schema", "id", "seat", "op", "list"}


@dataclass(frozen=True, slots=True)
class LobbyRequest:
    """A seat's waiting-list request: ``op`` join, leave or status; ``list`` the list's id as
    the room's lobby names it (``"no-limit holdem 1/2"``; None for status); or ``op``
    reenter (issue 19: a tournament re-entry for the player who busted from the seat, no list)."""

    request_id: str
    seat: int
    op: str
    list: str | None


def decode_lobby_request(payload: bytes, *, seat: int) -> LobbyRequest:
    """Decode a request sent on ``livetable/<table>/seat/<seat>/lobby`` (issue 18).

    Payload: ``{"schema": 1, "id": str, "seat": int, "op": "join"|"leave"|"status"|"reenter",
    "list": str}`` (``list`` 1..100 printable characters, required but for status; none
    for reenter: issue 19, a tournament re-entry, TDA 9).
    Whether the list exists is the room's decision. Raises :class:`PayloadError`
    M-1/M-2/M-3 (over 1 KiB)/M-6 (another seat's payload).
    """
    obj = decode_object(payload, limit=MAX_LOBBY_BYTES)
    aid = _common(obj, _LOBBY_FIELDS, seat)
    op = obj.get("op")
    if not isinstance(op, str) or op not in LOBBY_OPS:  # a list or object is no op (not a TypeError)
        raise PayloadError("M-2", f"'op' must be one of {sorted(LOBBY_OPS)}", aid)
    name = obj.get("list")
    if op == "status" and name is None:
        return LobbyRequest(aid, seat, op, None)
    if op == "reenter":
        if name is not None:
            raise PayloadError("M-2", "'list' is not for a re-entry", aid)
        return LobbyRequest(aid, seat, op, None)
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_LIST_CHARS or not name.isprintable():
        raise PayloadError("M-2", f"'list' must be a list's id: 1..{MAX_LIST_CHARS} printable characters", aid)
    return LobbyRequest(aid, seat, op, name)


def lobby_request_payload(*, seat: int, op: str, list_id: str | None, request_id: str) -> bytes:
    """Encode a tablet's waiting-list request (the tests' and the simulators' side)."""
    return encode({"schema": SCHEMA, "id": request_id, "seat": seat, "op": op, "list": list_id})


#: The room's answer about a seat's player is at most this big.
SEAT_LISTS_LIMIT = 16384


def decode_seat_lists(payload: bytes, table: str, seat: int) -> dict[str, Any]:
    """Decode the room's answer on ``livetable/<table>/room/seats/<seat>/lists`` (issue 18):
    ``{"schema": 1, "table", "seat", "player", "id": str | None, "ok": bool, "error": str |
    None, "lists": [{"list", "game", "stakes", "place", "waiting"}]}``; return it.

    Raises :class:`PayloadError` M-1/M-2/M-3: not JSON, another table or seat, fields of the
    wrong type; nothing of a refused message is forwarded.
    """
    obj = decode_object(payload, limit=SEAT_LISTS_LIMIT)
    if obj.get("table") != table or obj.get("seat") != seat:
        raise PayloadError("M-2", f"lists for {obj.get('table')!r} seat {obj.get('seat')!r}, not {table} seat {seat}")
    if not isinstance(obj.get("player"), str) or not isinstance(obj.get("ok"), bool):
        raise PayloadError("M-2", "'player' must be text and 'ok' true or false")
    if obj.get("error") is not None and not isinstance(obj["error"], str):
        raise PayloadError("M-2", "'error' must be text or null")
    if obj.get("id") is not None and (not isinstance(obj["id"], str) or not _ID_RE.match(obj["id"])):
        raise PayloadError("M-2", "'id' must be a request id or null")
    lists = obj.get("lists")
    if not isinstance(lists, list) or not all(
            isinstance(x, dict) and isinstance(x.get("list"), str) and isinstance(x.get("place"), int)
            and isinstance(x.get("waiting"), int) for x in lists):
        raise PayloadError("M-2", "'lists' must be a list of {list, place, waiting}")
    return obj
