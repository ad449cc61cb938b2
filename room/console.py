"""The floor's console (issue 17): one web page for every table of the room, behind a login.

Served by the room service (:func:`serve_console`, Python's ``http.server``: a handful of
floor staff on the room's network, no framework needed). After the floor login
(``floor-logins.json``: name -> Mosquitto-style ``$7$`` PBKDF2 hash, made by
:func:`add_login`) the page (``room/console/index.html``) shows:

- every table: game and stakes, hands, the meters, who sits where with what (the table's
  live public state through its bridge), its open faults with the exits each allows and the
  buy-ins waiting for their chips (the table's own floor status, asked every few seconds),
  and a warning when its status says its journal's compaction keeps failing (``journal``; no
  fault: the table plays on);
- the floor's decisions: end a fault by one of its exits (resume, correction, misdeal,
  void), confirm a buy-in, pause a table. Each needs a reason; the name is the login's. Each
  is recorded in the store (``room_floor_actions``: when, table, what, who, why, the table's
  answer) and sent to the table as ``livetable floor`` sends it (docs/mqtt.md "Floor"): the
  table decides, journals it (``floor:<name>``) and answers;
- the archive: hands searched by player, table, time and number; a hand's record, its PHH
  (``/api/hands/<t>/<n>.phh``);
- the report per table and for the room over a shift (``/api/report`` and ``.csv``).

JSON API (all but ``/login`` need the session cookie; 401 otherwise):
``GET /api/tables``, ``POST /api/floor`` ``{table, command, fault?, seat?, reason}``,
``GET /api/floor``, ``GET /api/hands?player=&table=&since=&until=&hand=``,
``GET /api/hands/<t>/<n>`` (``.phh``; ``/steps``: as ``livetable history`` prints it),
``GET /api/report?since=&until=`` (``.csv``),
``GET /api/tournament`` and ``POST /api/tournament`` (the room's multi-table tournament, issue 19:
:func:`tournament_command`).
Times in queries are Unix seconds.

The tournament (``livetable room serve --tournament`` or ``room simulate --tournament``:
:class:`room.tournament_serve.TournamentRunner`, docs/tournament.md "The director at
the room"): ``GET /api/tournament`` is :meth:`room.tournament.RoomTournament.director_status`;
``POST /api/tournament`` ``{command, seconds | level, by?, reason}`` pauses, resumes, adds time
to or moves the room's clock (:meth:`room.tournament.RoomTournament.direct`), recorded in
``room_floor_actions`` (table ``tournament``) with the name (``by``, default the login's), the
reason, the request (with the ``login``) and the answer. 409 when no tournament runs.
``POST /api/tournament`` ``{"command": "register", name, player?, by?, reason?}`` registers a
late entry or a re-entry (:func:`register_command`, :meth:`room.tournament.RoomTournament.register`):
400 a bad name or player id, 409 refused (late registration closed, the player still in, no
re-entry left), recorded the same way. ``{"command": "rebuy" | "addon", player, by?, reason?}``
books a rebuy or an add-on of a seated player (:func:`purchase_command`,
:meth:`room.tournament.RoomTournament.purchase`): 400 a bad body, 409 refused (the rule:
past the rebuy levels, stack above the most, none left, not the add-on break), recorded the
same way. ``{"command": "deal-offer", method?, unit?, by?, reason?}`` offers the final table's
players a deal on their tablets, ``{"command": "deal-withdraw", by?, reason?}`` withdraws it
(:func:`deal_command`, :class:`room.tournament_deal.RoomDeal`): 409 refused (more than one table
left, a hand in play, an offer open), recorded the same way.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import secrets
import threading
import time
import unicodedata
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from controller.faults import ALLOWED_EXITS, FaultKind
from controller.engine.table.seating import hidden_in_name
from drivers.mqtt.provision import check_password, hash_password
from drivers.mqtt.topics import TopicError, check_table
from room.httpbody import BodyError, json_from_same_site, read_body, send
from room.store import StoreError
from room.tournament_desk import NoTournament

__all__ = ["serve_console", "add_login", "Console", "FLOOR_COMMANDS", "tournament_command"]

log = logging.getLogger("livetable.room.console")

PAGE = Path(__file__).resolve().parent / "console" / "index.html"
#: the room pages' shared script (the game label, the room's clock), served by the desk too
PAGES_JS = Path(__file__).resolve().parent / "phone" / "pages.js"
#: What the floor may decide from the console (the table's own floor commands).
FLOOR_COMMANDS = ("resume", "correction", "misdeal", "void", "confirm-buyin", "pause",
                  "seat", "stakes", "close", "open")  # the last four between hands (controller/floor.py)
MAX_BODY = 4096


def add_login(path: Path, name: str, password: str | None = None) -> str:
    """Add (or replace) the floor login ``name`` in ``path``; return its password.

    Raises:
        ValueError: an empty name or one longer than 40 characters.
    """
    name = name.strip()
    if not name or len(name) > 40:
        raise ValueError("a floor login's name is 1..40 characters")
    path = Path(path)
    logins = json.loads(path.read_text()) if path.exists() else {}
    password = password or secrets.token_urlsafe(12)
    logins[name] = hash_password(password)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(logins, indent=1, sort_keys=True) + "\n")
    tmp.chmod(0o600)
    tmp.replace(path)
    return password


class Console:
    """The running console: :attr:`url`, :attr:`login_hint`, :meth:`stop`."""

    def __init__(self, server: ThreadingHTTPServer, thread: threading.Thread, hint: str) -> None:
        self.server, self.thread, self.login_hint = server, thread, hint
        host, port = server.server_address[:2]
        self.url = f"http://{host!s}:{port}/"

    def stop(self) -> None:
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


_EXIT_ORDER = ("resume", "correction", "misdeal", "void")  # the usual first: the floor's default


def _ordered(exits: list[str]) -> list[str]:
    return sorted(exits, key=lambda x: _EXIT_ORDER.index(x) if x in _EXIT_ORDER else len(_EXIT_ORDER))


#: The largest hand number or row count a path or query may name (a table numbers its hands
#: 1..10^12, controller/engine/phh.py's MAX_HAND_NO).
MAX_NUMBER = 10**12


def _number(text: str, what: str, *, hi: int = MAX_NUMBER) -> int:
    """Return ``text`` (from the page's path or query) as a whole number 1..``hi``.

    Raises:
        ValueError: not plain digits (``x``, ``-1``, ``1e3``, 30 nines), naming ``what``.
    """
    if not (text.isascii() and text.isdigit() and len(text) <= len(str(hi)) and 1 <= int(text) <= hi):
        raise ValueError(f"{what} must be a whole number 1..{hi:,}, got {text[:40]!r}")
    return int(text)


def _fault_exits(kind: str) -> list[str]:
    try:
        return _ordered([e.value for e in ALLOWED_EXITS[FaultKind(kind)]])
    except (ValueError, KeyError):
        return []


def _between_hands(command: str, data: dict[str, Any]) -> dict[str, Any]:
    """The fields of a ``seat`` (``player``, ``amount``) or ``stakes`` (``stakes``) request
    from the console's JSON, checked as the table's codec checks them; ``{}`` for the other
    commands. Raises ``ValueError`` with what is wrong."""
    from drivers.mqtt.codec import PayloadError, decode_floor_request, floor_request_payload

    if command == "seat":
        extra = {"player": str(data.get("player") or "").strip(), "amount": data.get("amount")}
        probe: dict[str, Any] = {"seat": data.get("seat"), **extra}
    elif command == "stakes":
        stakes = data.get("stakes")
        if isinstance(stakes, dict):  # the page leaves empty fields out
            stakes = {k: v for k, v in stakes.items() if v is not None and v != ""}
        extra = probe = {"stakes": stakes}
    else:
        return {}
    try:
        decode_floor_request(floor_request_payload(request_id="check", command=command, by="floor", **probe))
    except PayloadError as exc:
        raise ValueError(exc.detail) from None
    return extra


def _stakes_against_live(stakes: dict[str, int], live: dict[str, Any] | None) -> None:
    """Refuse a stakes change that leaves out the small blind or the ante when the table's
    current one (``live``: its floor status's ``stakes``) would be above the new big blind
    (S-1; the table keeps what is left out). Raises ``ValueError`` with what to give."""
    big = stakes["big_blind"]
    for key, words in (("small_blind", "small blind"), ("ante", "ante")):
        now = (live or {}).get(key)
        if key not in stakes and isinstance(now, int) and now > big:
            raise ValueError(f"S-1: the table's {words} now ({now:,}) would be above the new big blind ({big:,}): "
                             f"give the {words} too")


#: Seconds ``clock-add`` takes at most either way (a level or break is at most 1440 minutes).
MAX_CLOCK_SECONDS = 86_400


def _one_line(v: Any, what: str, hi: int) -> str:
    if v is not None and not isinstance(v, str):
        raise ValueError(f"{what}: a text, not {type(v).__name__} (one line, at most {hi} characters)")
    text = (v or "").strip()
    if not text or len(text) > hi or "\n" in text or "\r" in text:
        raise ValueError(f"{what} (one line, at most {hi} characters)")
    if any(unicodedata.category(c) == "Cc" for c in text):  # NUL (PostgreSQL refuses it), escapes, tabs
        raise ValueError(f"{what}: no control characters (one line, at most {hi} characters)")
    bad = hidden_in_name(text)  # U+2028, zero-width and bidi characters, lone surrogates (breaker 2 M3)
    if bad is not None:
        raise ValueError(f"{what}: no control or invisible characters, not {bad} (one line, at most {hi} characters)")
    return text


def tournament_command(data: Any, login: str) -> tuple[str, int | None, str, str]:
    """Check a ``POST /api/tournament`` body; return ``(command, amount, by, reason)``.

    ``data``: ``{"command": "clock-pause" | "clock-resume" | "clock-add" | "clock-level",
    "seconds": N`` (clock-add: a whole number of seconds, not 0, at most
    :data:`MAX_CLOCK_SECONDS` either way) ``| "level": N`` (clock-level: a level number 1 or
    more; the schedule's range is the director's to check), ``"by"`` (optional, the login's
    name by default; at most 40 characters), ``"reason"`` (required, one line, at most 200
    characters) ``}``; ``by`` and ``reason`` are JSON strings with no control characters
    (NUL, escapes, tabs: refused, never stringified or stored).

    Raises:
        ValueError: what is wrong, in words (the console's 400).
    """
    from controller.tournament.director import CLOCK_COMMANDS

    if not isinstance(data, dict):
        raise ValueError("send a JSON object")
    command = data.get("command")
    if command not in CLOCK_COMMANDS:
        raise ValueError(f"command must be one of {', '.join(CLOCK_COMMANDS)}, got {str(command)[:40]!r}")
    amount: int | None = None
    if command == "clock-add":
        v = data.get("seconds")
        if isinstance(v, bool) or not isinstance(v, int) or v == 0 or abs(v) > MAX_CLOCK_SECONDS:
            raise ValueError(f"clock-add needs seconds: a whole number, not 0, -{MAX_CLOCK_SECONDS:,}.."
                             f"{MAX_CLOCK_SECONDS:,} (negative takes time off), got {str(v)[:40]!r}")
        amount = v
    elif command == "clock-level":
        v = data.get("level")
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 10**6:
            raise ValueError(f"clock-level needs level: a level number (a whole number 1 or more), got {str(v)[:40]!r}")
        amount = v
    by = _one_line(login if data.get("by") in (None, "") else data.get("by"), "by names who decides", 40)
    reason = _one_line(data.get("reason"), "every floor decision needs a reason", 200)
    return str(command), amount, by, reason


def register_command(data: dict[str, Any], login: str) -> dict[str, Any]:
    """Check a ``POST /api/tournament`` ``register`` body (issue 19: a late entry or a
    re-entry, :meth:`room.tournament.RoomTournament.register`); return ``{name, player, by,
    reason}``.

    ``data``: ``{"command": "register", "name"`` (required: one line of 1..40 characters, no
    control characters) ``, "player"`` (optional: the room player id, :func:`room.ids.check_player_id`)
    ``, "by"`` (optional, the login's name by default; at most 40 characters) ``, "reason"``
    (optional, one line, at most 200 characters) ``}``.

    Raises:
        ValueError: what is wrong, in words (the console's 400).
    """
    from room.ids import check_player_id
    from room.tournament import entry_name

    name = data.get("name")
    try:
        name = entry_name(name)
    except ValueError as exc:
        rule = str(exc).removeprefix("a player's name is ")
        raise ValueError(f"register needs name: {rule}, got {str(name)[:40]!r}") from None
    player = data.get("player")
    if player is not None:
        check_player_id(player)  # a PlayerIdError is a ValueError: the rule in words
    by = _one_line(data.get("by") or login, "by names who registers the player", 40)
    reason = data.get("reason")
    if reason is not None:
        reason = _one_line(reason, "reason", 200)
    return {"name": name, "player": player, "by": by, "reason": reason}


def purchase_command(data: dict[str, Any], login: str) -> dict[str, Any]:
    """Check a ``POST /api/tournament`` ``rebuy`` or ``addon`` body (issue 19: a purchase of a
    seated player's, :meth:`room.tournament.RoomTournament.purchase`); return ``{command,
    player, by, reason}``.

    ``data``: ``{"command": "rebuy" | "addon", "player"`` (required: the room player id or his
    name, one line of 1..40 characters) ``, "by"`` (optional, the login's name by default; at
    most 40 characters: who took the money) ``, "reason"`` (optional, one line, at most 200
    characters) ``}``.

    Raises:
        ValueError: what is wrong, in words (the console's 400).
    """
    from room.tournament import entry_name

    command = data.get("command")
    if command not in ("rebuy", "addon"):
        raise ValueError(f"a purchase is rebuy or addon, got {str(command)[:40]!r}")
    player = data.get("player")
    try:
        player = entry_name(player)
    except ValueError:
        raise ValueError(f"{command} needs player: the room player id or his name, one line of 1..40 "
                         f"characters, got {str(player)[:40]!r}") from None
    by = _one_line(data.get("by") or login, "by names who takes the money", 40)
    reason = data.get("reason")
    if reason is not None:
        reason = _one_line(reason, "reason", 200)
    return {"command": command, "player": player, "by": by, "reason": reason}


def deal_command(data: dict[str, Any], login: str) -> dict[str, Any]:
    """Check a ``POST /api/tournament`` ``deal-offer`` or ``deal-withdraw`` body (issue 19: the
    deal offered on the final table's tablets, :class:`room.tournament_deal.RoomDeal`); return
    ``{command, method, unit, by, reason}``.

    ``data``: ``{"command": "deal-offer" | "deal-withdraw", "method"`` (``icm``, the default, or
    ``chip-chop``) ``, "unit"`` (optional: the shares' unit, money, a whole number 1..10^9) ``,
    "by"`` (optional, the login's name by default; at most 40 characters) ``, "reason"``
    (optional, one line, at most 200 characters) ``}``.

    Raises:
        ValueError: what is wrong, in words (the console's 400).
    """
    command = data.get("command")
    if command not in ("deal-offer", "deal-withdraw"):
        raise ValueError(f"a deal command is deal-offer or deal-withdraw, got {str(command)[:40]!r}")
    method = data.get("method") or "icm"
    if method not in ("icm", "chip-chop"):
        raise ValueError(f"deal-offer's method is icm or chip-chop, got {str(method)[:40]!r}")
    unit = data.get("unit")
    if unit is not None and (isinstance(unit, bool) or not isinstance(unit, int) or not 1 <= unit <= 10**9):
        raise ValueError(f"deal-offer's unit is a whole amount of money 1..10^9, got {str(unit)[:40]!r}")
    by = _one_line(data.get("by") or login, "by names the director", 40)
    reason = data.get("reason")
    if reason is not None:
        reason = _one_line(reason, "reason", 200)
    return {"command": command, "method": method, "unit": unit, "by": by, "reason": reason}


#: Why the console offers no *Seat player*, *Change stakes* or *Close table* at a tournament table
#: (issue 19, F-3: the table refuses them, controller/floor.py ``CASH_COMMANDS``), and what to do instead.
CASH_REFUSED = {
    "room-tournament": ("F-3: this table plays the room's tournament: the floor seats no player with chips here "
                        "(a late entry is the tournament's Register above; the room seats him), its blinds and "
                        "antes come from the clock's levels (Go to level above), and the room breaks its tables "
                        "(balancing), not the floor"),
    "tournament": ("F-3: this table plays a tournament: the floor seats no player with chips here, its blinds "
                   "and antes come from the tournament's levels (the director's clock), and the floor does not "
                   "close it (docs/tournament.md, What the floor cannot do at a tournament table)"),
}


def tables_view(service: Any, tournament_tables: Iterable[str] = ()) -> list[dict[str, Any]]:
    """Return what the console shows of every table (see the module's doc).

    ``tournament_tables``: the tables of the room's tournament (:attr:`room.tournament.RoomTournament.tables`).
    Each row's ``tournament`` is None at a cash table, else why the floor's cash commands are
    refused there (:data:`CASH_REFUSED`, F-3): a table of the room's tournament, or one whose
    live state or floor status carries a ``tournament_view`` (a single table's tournament, or a
    table of the room's when the room's list could not be read)."""
    store = service.store
    room_tables = set(tournament_tables)
    out = []
    for t in sorted(set(store.table_ids()) | set(service.live)):
        row = store.table_row(t) or {}
        live = service.live.get(t) or {}
        status = service.floor_status.get(t)
        if status is not None:
            faults = [dict(f, exits=_ordered(f.get("exits") or _fault_exits(f.get("kind", ""))))
                      for f in status.get("faults", [])]
            buy_ins = status.get("buy_ins", [])
        else:  # the table has not answered: what its journal says is open
            faults = [dict(f, exits=_fault_exits(f["kind"])) for f in row.get("faults", [])]
            buy_ins = []
        seats = [{"seat": s.get("seat"), "name": s.get("name"), "stack": s.get("stack"), "status": s.get("status")}
                 for s in live.get("seats", []) if s.get("name")]
        out.append({
            "table": t, "name": row.get("name") or live.get("name"), "game": row.get("game") or live.get("game"),
            "stakes": row.get("stakes"), "hands": row.get("hands", 0), "total_in": row.get("total_in", 0),
            "total_out": row.get("total_out", 0), "rake": row.get("rake", 0),
            "records": row.get("applied_upto", 0), "hand": live.get("hand"), "street": live.get("street"),
            "paused": bool(live.get("paused")) or bool(faults), "faults": faults, "buy_ins": buy_ins,
            "seats": seats, "status_age": round(time.time() - status["received"], 1) if status else None,
            "closed": bool(status and status.get("closed")), "closing": bool(status and status.get("closing")),
            "live_stakes": status.get("stakes") if status else None,
            "journal": (status or {}).get("journal"),  # compaction failing: shown, not a fault (no pause)
            "tournament": _cash_refused(t, room_tables, live, status),
        })
    return out


def _cash_refused(table: str, room_tables: set[str], live: dict[str, Any],
                  status: dict[str, Any] | None) -> str | None:
    """Why the floor's cash commands are refused at ``table`` (:data:`CASH_REFUSED`), or None."""
    if table in room_tables:
        return CASH_REFUSED["room-tournament"]
    if live.get("tournament_view") or (status or {}).get("tournament"):
        return CASH_REFUSED["tournament"]
    return None


def serve_console(service: Any, logins: Path, *, host: str = "127.0.0.1", port: int = 0,
                  links: dict[str, int] | None = None, tournament: Any = None) -> Console:
    """Serve the console for ``service`` (a :class:`room.service.RoomService`) on ``host:port``
    (0: a free port). When ``logins`` does not exist a login ``floor`` is made in it and its
    password given in :attr:`Console.login_hint`. ``links``: ``{"floor": port}`` of the
    players' desk (the floor's waiting lists, ``/floor``) on this host, read at each request:
    ``GET /api/me`` gives it as ``floor_port`` and the console links to the lists (issue 18).
    ``/pages.js`` is the room pages' shared script (``room/phone/pages.js``: one game label).
    ``tournament``: a :class:`room.tournament_desk.TournamentDesk` (the room's multi-table
    tournament, ``/api/tournament``); None: no tournament here (409).

    Raises:
        OSError: the port cannot be bound.
    """
    logins = Path(logins)
    hint = "see " + str(logins)
    if not logins.exists():
        pw = add_login(logins, "floor")
        hint = f"floor / {pw}"
    sessions: dict[str, str] = {}
    known_tables: list[str] = []  # the room's tournament's tables, once asked

    class Handler(BaseHTTPRequestHandler):
        server_version = "livetable-room"

        def log_message(self, fmt: str, *args: Any) -> None:
            log.debug("console: " + fmt, *args)

        # -------------------------------------------------------------- helpers
        def _who(self) -> str | None:
            for part in self.headers.get("Cookie", "").split(";"):
                k, _, v = part.strip().partition("=")
                if k == "room_session" and v in sessions:
                    return sessions[v]
            return None

        def _send(self, code: int, body: bytes, ctype: str, headers: dict[str, str] | None = None) -> None:
            send(self, code, body, ctype, headers)

        def _json(self, obj: Any, code: int = 200) -> None:
            self._send(code, json.dumps(obj).encode(), "application/json")

        def _error(self, code: int, message: str) -> None:
            self._json({"error": message}, code)

        def _body(self) -> bytes | None:
            try:
                return read_body(self.headers, self.rfile, MAX_BODY)
            except BodyError as exc:
                self._error(exc.status, str(exc))
                return None

        def _tournament_tables(self) -> list[str]:
            """The room's tournament's tables (fixed from its start: asked once, then kept), or none."""
            if tournament is None:
                return []
            if not known_tables:
                try:
                    known_tables.extend(tournament.call(lambda d: list(d.tables), timeout=1.0))
                except NoTournament:
                    return []  # none running (yet): the tables' own views still say it
            return known_tables

        # -------------------------------------------------------------- routes
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            url = urlparse(self.path)
            if url.path in ("/", "/index.html"):
                self._send(200, PAGE.read_bytes(), "text/html; charset=utf-8")
                return
            if url.path == "/pages.js":
                self._send(200, PAGES_JS.read_bytes(), "text/javascript; charset=utf-8")
                return
            who = self._who()
            if who is None:
                self._error(401, "log in first")
                return
            q = {k: v[-1] for k, v in parse_qs(url.query).items()}
            try:
                self._get(url.path, q, who)
            except NoTournament as exc:
                self._error(409, str(exc))
            except (ValueError, TopicError) as exc:
                self._error(400, str(exc))
            except StoreError as exc:
                self._error(503, f"the room's store: {exc}")
            except Exception:  # noqa: BLE001 - logged; the page gets an answer, never a dropped connection
                log.exception("console: GET %s", url.path)
                self._error(500, "the console failed on this request (logged)")

        def _get(self, path: str, q: dict[str, str], who: str) -> None:
            store = service.store
            if path == "/api/me":
                self._json({"name": who, "floor_port": (links or {}).get("floor")})
            elif path == "/api/tables":
                self._json({"tables": tables_view(service, self._tournament_tables()), "totals": store.totals()})
            elif path == "/api/floor":
                rows = store.query("SELECT id, at, table_id, action, by_name, reason, request, outcome"
                                   " FROM room_floor_actions ORDER BY id DESC LIMIT 100")
                self._json({"actions": [{"id": r[0], "at": r[1], "table": r[2], "action": r[3], "by": r[4],
                                         "reason": r[5], "request": json.loads(r[6]),
                                         "outcome": json.loads(r[7]) if r[7] else None} for r in rows]})
            elif path == "/api/hands":
                num = lambda k: float(q[k]) if q.get(k) else None  # noqa: E731
                self._json({"hands": store.search_hands(
                    table=q.get("table") or None, player=q.get("player") or None, since=num("since"),
                    until=num("until"), number=_number(q["hand"], "hand") if q.get("hand") else None,
                    limit=_number(q.get("limit") or "100", "limit"))})  # the store takes at most 1,000
            elif path.startswith("/api/hands/") and path.endswith("/steps"):
                parts = path.split("/")
                if len(parts) != 6:
                    raise ValueError("/api/hands/<table>/<hand>/steps")
                from room.archive import hand_steps

                steps = hand_steps(store, check_table(parts[3]), _number(parts[4], "the hand's number"))
                if steps is None:
                    self._error(404, f"table {parts[3]} has no hand {parts[4]} in the archive")
                else:
                    self._json(steps)
            elif path.startswith("/api/hands/"):
                parts = path.split("/")
                if len(parts) != 5:
                    raise ValueError("/api/hands/<table>/<hand>[.phh]")
                table, number = check_table(parts[3]), parts[4]
                phh = number.endswith(".phh")
                record = store.hand(table, _number(number.removesuffix(".phh"), "the hand's number"))
                if record is None:
                    self._error(404, f"table {table} has no hand {number.removesuffix('.phh')} in the archive")
                elif phh:
                    from controller.history import record_to_phh

                    self._send(200, record_to_phh(record).encode(), "text/plain; charset=utf-8",
                               {"Content-Disposition": f'attachment; filename="{table}-hand-{record["hand"]}.phh"'})
                else:
                    self._json(record)
            elif path == "/api/tournament":
                if tournament is None:
                    raise NoTournament("no tournament is running in this room")
                self._json(tournament.call(lambda d: d.director_status()))
            elif path in ("/api/report", "/api/report.csv"):
                rows = store.report(float(q["since"]) if q.get("since") else None,
                                    float(q["until"]) if q.get("until") else None)
                if path.endswith(".csv"):
                    buf = io.StringIO()
                    w = csv.DictWriter(buf, fieldnames=["table", "hands", "voided", "rake", "chips_in",
                                                        "chips_out", "hours"], lineterminator="\n")
                    w.writeheader()
                    w.writerows(rows)
                    self._send(200, buf.getvalue().encode(), "text/csv; charset=utf-8",
                               {"Content-Disposition": 'attachment; filename="room-report.csv"'})
                else:
                    self._json({"report": rows})
            else:
                self._error(404, f"no such page: {path}")

        def do_POST(self) -> None:  # noqa: N802
            try:
                self._post()
            except StoreError as exc:
                self._error(503, f"the room's store: {exc}")
            except Exception:  # noqa: BLE001 - logged; the page gets an answer, never a dropped connection
                log.exception("console: POST %s", self.path)
                self._error(500, "the console failed on this request (logged)")

        def _post(self) -> None:
            url = urlparse(self.path)
            body = self._body()
            if body is None:
                return
            if url.path == "/login":
                try:
                    data = json.loads(body or b"{}")
                    name, password = str(data.get("name", "")).strip(), str(data.get("password", ""))
                except (ValueError, AttributeError):
                    self._error(400, "send {name, password}")
                    return
                known = json.loads(logins.read_text()) if logins.exists() else {}
                if name not in known or not check_password(password, known[name]):
                    self._error(401, "wrong name or password")
                    return
                token = secrets.token_urlsafe(24)
                sessions[token] = name
                self._send(200, json.dumps({"name": name}).encode(), "application/json",
                           {"Set-Cookie": f"room_session={token}; HttpOnly; SameSite=Strict; Path=/"})
                return
            who = self._who()
            if who is None:
                self._error(401, "log in first")
                return
            if url.path == "/logout":
                for k in [k for k, v in sessions.items() if v == who]:
                    sessions.pop(k, None)
                self._json({"ok": True})
            elif url.path == "/api/floor":
                self._floor(body, who)
            elif url.path == "/api/tournament":
                try:
                    json_from_same_site(self.headers)  # a login's cookie rides along with another site's form
                except BodyError as exc:
                    self._error(exc.status, str(exc))
                    return
                self._tournament(body, who)
            else:
                self._error(404, f"no such action: {url.path}")

        def _floor(self, body: bytes, who: str) -> None:
            try:
                data = json.loads(body)
                if not isinstance(data, dict):
                    raise ValueError("send a JSON object")
                table = check_table(str(data.get("table")))
                command = data.get("command")
                if command not in FLOOR_COMMANDS:
                    raise ValueError(f"command must be one of {', '.join(FLOOR_COMMANDS)}")
                reason = str(data.get("reason") or "").strip()
                if not reason or len(reason) > 200 or "\n" in reason:
                    raise ValueError("every floor decision needs a reason (one line, at most 200 characters)")
                fault = data.get("fault")
                seat = data.get("seat")
                if command in ("resume", "correction", "misdeal", "void") and not isinstance(fault, str):
                    raise ValueError(f"{command} ends a fault: name it (fault)")
                if command in ("confirm-buyin", "seat") and (isinstance(seat, bool) or not isinstance(seat, int)):
                    raise ValueError(f"{command} needs the seat")
                extra = _between_hands(command, data)
                if command == "stakes":
                    _stakes_against_live(extra["stakes"], (service.floor_status.get(table) or {}).get("stakes"))
            except (ValueError, TopicError) as exc:
                self._error(400, str(exc))
                return
            if table not in set(service.store.table_ids()) | set(service.live) | set(service.floor_status):
                self._error(404, f"no table {table} in this room: the floor's decisions go to a table the "
                                 "room knows (it has sent its state or its journal)")
                return
            request = {"command": command,
                       "fault": fault if command in ("resume", "correction", "misdeal", "void") else None,
                       "seat": seat if command in ("confirm-buyin", "seat") else None, **extra}
            rid = service.floor_request(table, command, by=who, reason=reason, fault=request["fault"],
                                        seat=request["seat"], **extra)
            with service.store.transaction() as tx:
                tx.execute("INSERT INTO room_floor_actions(at, table_id, action, by_name, reason, request_id, request)"
                           " VALUES (?,?,?,?,?,?,?)", (time.time(), table, command, who, reason, rid,
                                                       json.dumps(request)))
            self._json({"id": rid, "table": table, "command": command, "by": who})

        def _tournament(self, body: bytes, who: str) -> None:
            from controller.tournament.director import CommandError
            from controller.tournament.errors import TournamentError

            try:
                data = json.loads(body or b"null")
                if isinstance(data, dict) and data.get("command") == "register":
                    self._register(register_command(data, who), who)
                    return
                if isinstance(data, dict) and data.get("command") in ("rebuy", "addon"):
                    self._purchase(purchase_command(data, who), who)
                    return
                if isinstance(data, dict) and data.get("command") in ("deal-offer", "deal-withdraw"):
                    self._deal(deal_command(data, who), who)
                    return
                command, amount, by, reason = tournament_command(data, who)
            except ValueError as exc:
                self._error(400, str(exc))
                return
            if tournament is None:
                self._error(409, "no tournament is running in this room")
                return
            request = {"command": command, "amount": amount, "login": who}
            rid = f"tournament-{secrets.token_hex(6)}"

            def record(tx: Any, outcome: dict[str, Any]) -> None:
                tx.execute("INSERT INTO room_floor_actions(at, table_id, action, by_name, reason, request_id, request,"
                           " outcome) VALUES (?,?,?,?,?,?,?,?)",
                           (time.time(), "tournament", command, by, reason, rid, json.dumps(request),
                            json.dumps(outcome)))

            try:  # carried out: the clock's change and its floor record in one transaction (the director's)
                detail = tournament.call(lambda d: d.direct(command, by=by, reason=reason, amount=amount,
                                                            record=lambda tx, text: record(
                                                                tx, {"accepted": True, "detail": text})))
                outcome: dict[str, Any] = {"accepted": True, "detail": detail}
            except NoTournament as exc:
                self._error(409, str(exc))
                return
            except (CommandError, TournamentError) as exc:  # refused (no such level, a paused clock...): recorded
                outcome = {"accepted": False, "reason": str(exc)}
                with service.store.transaction() as tx:
                    record(tx, outcome)
                if isinstance(exc, CommandError):  # no such level: the schedule's, known only to the director
                    self._error(400, str(exc))
                    return
            if not outcome["accepted"]:
                self._json({"error": outcome["reason"], "refused": True}, 409)
                return
            try:
                status = tournament.call(lambda d: d.director_status())
            except NoTournament:  # the tournament ended just now: the command was carried out all the same
                status = None
            self._json({"ok": True, "command": command, "by": by, "detail": outcome["detail"], "status": status})

        def _register(self, req: dict[str, Any], who: str) -> None:
            """``register`` (issue 19): :meth:`room.tournament.RoomTournament.register`, recorded
            in ``room_floor_actions`` like the clock's commands; 409 refused (the reason)."""
            request = {"command": "register", "name": req["name"], "player": req["player"], "login": who}
            self._booked("register", req, request, lambda d, record: d.register(
                req["name"], by=req["by"], player=req["player"], reason=req["reason"], record=record))

        def _purchase(self, req: dict[str, Any], who: str) -> None:
            """``rebuy`` / ``addon`` (issue 19): :meth:`room.tournament.RoomTournament.purchase`,
            recorded in ``room_floor_actions`` like ``register``; 409 refused (the rule)."""
            command = req["command"]
            request = {"command": command, "player": req["player"], "login": who}
            self._booked(command, req, request, lambda d, record: d.purchase(
                command, req["player"], by=req["by"], reason=req["reason"], record=record))

        def _deal(self, req: dict[str, Any], who: str) -> None:
            """``deal-offer`` / ``deal-withdraw`` (issue 19): the deal on the final table's tablets
            (:class:`room.tournament_deal.RoomDeal`), recorded in ``room_floor_actions`` like
            ``register``; 409 refused (the rule)."""
            command = req["command"]
            request = {"command": command, "method": req["method"], "unit": req["unit"], "login": who}
            if command == "deal-offer":
                self._booked(command, req, request, lambda d, record: d.deal.offer_deal(
                    req["method"], by=req["by"], unit=req["unit"], reason=req["reason"], record=record))
            else:
                self._booked(command, req, request, lambda d, record: d.deal.withdraw(
                    by=req["by"], reason=req["reason"], record=record))

        def _booked(self, command: str, req: dict[str, Any], request: dict[str, Any],
                    act: Callable[[Any, Callable[[Any, str], None]], str]) -> None:
            """Carry out a director's ``register``, ``rebuy`` or ``addon`` (``act(director,
            record)``) and answer: its ``room_floor_actions`` row is written in the same
            transaction as the director's journal event (breaker 2 H2: both or neither, so a
            store failure answers 503 with nothing entered or booked); a refusal is recorded on
            its own and answered 409 with the reason."""
            from controller.tournament.errors import TournamentError

            if tournament is None:
                self._error(409, "no tournament is running in this room")
                return

            def record(tx: Any, outcome: dict[str, Any]) -> None:
                tx.execute("INSERT INTO room_floor_actions(at, table_id, action, by_name, reason, request_id, request,"
                           " outcome) VALUES (?,?,?,?,?,?,?,?)",
                           (time.time(), "tournament", command, req["by"], req["reason"] or "",
                            f"tournament-{secrets.token_hex(6)}", json.dumps(request), json.dumps(outcome)))

            try:
                detail = tournament.call(lambda d: act(
                    d, lambda tx, text: record(tx, {"accepted": True, "detail": text})))
                outcome: dict[str, Any] = {"accepted": True, "detail": detail}
            except NoTournament as exc:
                self._error(409, str(exc))
                return
            except TournamentError as exc:  # refused: nothing journalled; the refusal recorded
                outcome = {"accepted": False, "reason": str(exc)}
                with service.store.transaction() as tx:
                    record(tx, outcome)
            if not outcome["accepted"]:
                self._json({"error": outcome["reason"], "refused": True}, 409)
                return
            try:
                status = tournament.call(lambda d: d.director_status())
            except NoTournament:
                status = None
            self._json({"ok": True, "command": command, "by": req["by"], "detail": outcome["detail"],
                        "status": status})

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="room-console", daemon=True)
    thread.start()
    return Console(server, thread, hint)
