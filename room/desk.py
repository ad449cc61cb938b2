"""The players' desk of the room service (issue 18): waiting lists, calls to phones, the lobby.

:class:`PlayersDesk` joins a running :class:`room.service.RoomService`:

- it observes the room's replay (:class:`room.players.Players`): accounts and sessions go to
  the store in the batch's transaction; after the commit (the room's ``on_applied``) the
  seat changes reach the waiting lists (:class:`room.waitlist.WaitingLists`) — a seat opens
  the moment the table journals the player standing up, and the first eligible player is
  called; every free seat of a table is an opening (a table seen for the first time offers
  its empty seats);
- it publishes, on the room broker, the lobby (``room/lobby/lobby``, retained,
  :mod:`room.lobby`) and each player's status (``room/players/<p>/notices/status``,
  retained): their places on the lists, their call (table, seat, until when the seat is
  held) or their seat. Only what changed is published;
- it takes the players' requests from their phones on ``room/players/<p>/requests``
  (``{"op": "join"|"leave", "game", "stakes"}``, ``{"op": "accept"|"pass"|"change"}``):
  the broker's ACL lets a player's login write only its own (docs/players.md), so the
  topic names the player;
- it takes a seated player's requests from the seat's tablet, forwarded by the table on
  ``room/tables/<t>/players/request`` (:meth:`PlayersDesk.table_request`; only table t's
  bridge may write it), and answers on ``room/tables/<t>/seats/<n>/lists`` with the player's
  lists and places (again whenever they change while the player sits there);
- it lapses the calls whose hold ended (a tick every ``tick`` seconds);
- it records every change of the lists in the store (``room_waitlist_log``) and, started
  again, rebuilds the lists from it (places kept) and offers every free seat again (a
  call that was out is made again, to the first eligible player, with a new hold).

:func:`serve_desk` serves its pages over HTTP: the lobby for a TV (``/lobby``, public), the
phone page (``/phone``, public: it logs in to the broker itself, over WebSockets, with the
player's login; ``/phone-qr.png``, its address as a QR code for the TV, made with segno),
and the floor's list view (``/floor``, behind the floor's logins, HTTP
basic authentication against the console's ``floor-logins.json``). JSON: ``GET
/api/lobby`` (public); with a floor login ``GET /api/lists``, ``GET /api/why?player=``,
``GET /api/players?q=``, ``POST /api/lists`` ``{"op", "player", "game"?, "stakes"?,
"reason"?, "name"?, "card"?}`` (``op``: join, leave, accept, pass, change, seat-open
with ``table`` and ``seat`` (a free seat the table has), register, new-player (the account
and the player's login with a one-time password and its QR code: :meth:`PlayersDesk.new_player`);
must-move with ``player`` the must-move table and ``game``/``stakes`` the main game it
feeds). Every ``player`` follows the phone's id rule (:mod:`room.ids`). A login's requests
pass a token bucket (:mod:`room.ratelimit`): HTTP answers 429 with ``Retry-After``.

Threads: the room's worker (records), paho's (requests), the tick and the HTTP handlers all
go through one lock.
"""

from __future__ import annotations

import base64
import json
import logging
import math
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from drivers.mqtt.provision import check_password
from room.lobby import LOBBY_TOPIC, lobby_view, table_entry
from room.players import AccountExistsError, PlayerError, Players
from room.ratelimit import RateLimit
from room.ids import PLAYER_ID, PlayerIdError, check_player_id, room_player
from room.httpbody import BodyError, json_from_same_site, read_body, send
from room.store import StoreError
from room.waitlist import Call, ListKey, WaitingLists, WaitListError

__all__ = ["PlayersDesk", "serve_desk", "notice_topic", "request_topic", "holds_topic", "seat_lists_topic",
           "DeskServer"]

log = logging.getLogger("livetable.room.desk")

PAGES = Path(__file__).resolve().parent / "phone"
VENDOR = Path(__file__).resolve().parents[1] / "tablet" / "vendor" / "mqtt.min.js"
MAX_BODY = 4096
MAX_REQUEST = 1024


#: The players who can have a phone: ids a room login ``player-<id>`` can carry (as
#: :mod:`room.provision` makes them), and so safe as one topic level (:mod:`room.ids`, the
#: one rule). Others (a table's own ids, e.g. derived from a name with spaces) are in the
#: log all the same when a table seats them; they just get no notices.
PHONE_ID = PLAYER_ID


def notice_topic(player: str) -> str:
    """Return ``room/players/<player>/notices/status`` (retained: the player's status)."""
    return f"room/players/{player}/notices/status"


def holds_topic(table: str) -> str:
    """Return ``room/tables/<table>/holds`` (retained: the seats held at that table)."""
    return f"room/tables/{table}/holds"


def seat_lists_topic(table: str, seat: int) -> str:
    """Return ``room/tables/<table>/seats/<seat>/lists`` (the room's answer to a seat's tablet
    about its player, bridged in as ``livetable/<t>/room/seats/<n>/lists``)."""
    return f"room/tables/{table}/seats/{int(seat)}/lists"


TABLE_REQUEST_FILTER = "room/tables/+/players/request"
_TABLE_REQUEST_FIELDS = {"schema", "table", "seat", "player", "name", "op", "list", "id"}


def request_topic(player: str) -> str:
    """Return ``room/players/<player>/requests`` (the player's phone writes here)."""
    return f"room/players/{player}/requests"


class PlayersDesk:
    """The players' side of a room service (see the module's text).

    Args:
        service: the running (or about to start) :class:`room.service.RoomService`.
        hold_seconds: how long a call holds its seat.
        clock: Unix seconds.
        publish: ``f(topic, payload_text, retain)``; default: the service's own connection.
        tick: seconds between checks of the holds.
        limit: the per-login rate limit of the phones' requests (default:
            :class:`room.ratelimit.RateLimit`, 10 at once then 1 a second); the floor's logins
            have their own, wider one (:attr:`floor_limit`: 60 at once, then 5 a second).
        logins: ``make(player) -> {"username", "password"}``, the floor's "new player"
            (:func:`room.provision.login_maker`); None: the desk makes no logins.
    """

    def __init__(self, service: Any, *, hold_seconds: float = 180.0, clock: Callable[[], float] = time.time,
                 publish: Callable[[str, str, bool], None] | None = None, tick: float = 1.0,
                 limit: RateLimit | None = None, logins: Callable[[str], dict[str, str]] | None = None) -> None:
        self.service = service
        self.store = service.store
        self.clock = clock
        self.lock = threading.RLock()
        self.lists = WaitingLists(clock, hold_seconds)
        self.lists.listeners.append(self._logged)
        self.players = Players(self.store, clock).attach(service.room)
        self.entries: dict[str, dict[str, Any]] = {}
        self.tick = tick
        self._delivered: dict[str, int] = {}
        self._sizes: dict[str, int] = {}  # table -> its seats as last seen
        self._published: dict[str, str] = {}
        self._touched: set[str] = set()
        self._stop = threading.Event()
        self.offline: dict[str, float] = {}  # table -> since when the room has no link to it (Unix s)
        self._holds: dict[str, str] = {}  # table -> its holds message as last published
        # player -> the call they accepted, until the table reports them in that seat (or its
        # hold ends): the seat stays held for them, their phone says "Go to ..." (issue 18)
        self.going: dict[str, Call] = {}
        # room player -> (table, seat, the table's id of them): players who asked from a seat's
        # tablet; their lists go to that seat again whenever they change while they sit there
        self.tablets: dict[str, tuple[str, int, str]] = {}
        self._tablet_sent: dict[str, str] = {}  # room player -> the lists last sent to their seat
        self._publish = publish or self._service_publish
        self.stats = {"requests": 0, "refused": 0, "calls": 0, "notices": 0, "limited": 0}
        self.limit = limit or RateLimit()
        self.floor_limit = RateLimit(rate=5.0, burst=60)
        self.logins = logins
        chained = service.room.on_applied

        def on_applied(table: str, ack: Any) -> None:
            # the lists first: whoever waits for the acknowledgement finds them up to date
            try:
                self._after_commit(table, ack.upto)
            finally:
                if chained is not None:
                    chained(table, ack)
        service.room.on_applied = on_applied
        self.lists.restore(self.players.waitlist_entries())  # a restart keeps everyone's place
        self._load()

    # ------------------------------------------------------------------ start, stop
    def _service_publish(self, topic: str, payload: str, retain: bool) -> None:
        # The service's own connection (its login may write room/#). A public publish() on
        # RoomService would be the cleaner seam; this keeps issue 17's file untouched.
        client = self.service._client  # noqa: SLF001
        client.publish(topic, payload, qos=1, retain=retain)

    def start(self) -> "PlayersDesk":
        """Subscribe to the players' requests (at every connect) and start the tick."""
        client = getattr(self.service, "_client", None)
        if client is not None:
            client.message_callback_add("room/players/+/requests", self._on_request)
            client.message_callback_add(TABLE_REQUEST_FILTER, self._on_table_request)
            chained = client.on_connect

            def on_connect(c: Any, userdata: Any, flags: Any, reason: Any, props: Any = None) -> None:
                chained(c, userdata, flags, reason, props)
                if not getattr(reason, "is_failure", False):
                    c.subscribe([("room/players/+/requests", 1), (TABLE_REQUEST_FILTER, 1)])
                    with self.lock:
                        self._published.clear()  # a broker that restarted may have lost them
                        self._holds.clear()
                        self._touched |= set(self._all_players())
                        self._flush()
            client.on_connect = on_connect
            connected = getattr(self.service, "_connected", None)
            if connected is not None and connected.is_set():  # started before the desk
                client.subscribe([("room/players/+/requests", 1), (TABLE_REQUEST_FILTER, 1)])
        threading.Thread(target=self._ticker, name="room-desk-tick", daemon=True).start()
        return self

    def stop(self) -> None:
        """Stop the tick."""
        self._stop.set()

    def _load(self) -> None:
        from controller.engine.table.state import TableState

        for t in self.store.table_ids():
            row = self.store.table_row(t)
            if not row or not row["state"]:
                continue
            try:
                st = TableState.from_json(row["state"]["table"])
            except Exception:  # a state this code cannot read: the table's next record brings it
                log.warning("table %s: its stored state is unreadable; the lobby waits for its next record", t)
                continue
            self._table_state(t, st, opening=True)  # its free seats are offered again
            self._delivered[t] = int(row["applied_upto"])

    # ------------------------------------------------------------------ the tables
    def _table_state(self, table: str, state: Any, *, opening: bool) -> None:
        from room.players import list_key

        key = list_key(state.settings)
        first = table not in self.entries or self.lists.key_of(table) != key
        if first and self.lists.key_of(table) not in (None, key):
            # new stakes (L-2): its open seats now belong to another list
            for t, n in sorted(self.lists.openings):
                if t == table:
                    self.lists.seat_closed(t, n, "system")
        self.lists.table(table, key)
        if first and key in self.lists.list_feeds and table not in self.lists.feeds:  # a must-move list's new table
            try:
                self.lists.feed(table, self.lists.list_feeds[key], "system", f"a table of the must-move list {key}")
            except WaitListError as exc:  # a loop made since: the table plays on, not a must-move table
                log.warning("table %s: %s", table, exc)
        self.entries[table] = dict(table_entry(state), table=table)  # the room's id for it
        seated = {s.seat: s.player for s in state.seats if s is not None}
        for s in state.seats:
            if s is not None:
                who = self._who(table, s.seat, s.player)
                self.lists.seated[who] = (table, s.seat)
                self._arrived(table, s.seat, who)
        if first and opening:
            for n in range(1, len(state.seats) + 1):
                if n not in seated and (table, n) not in self.lists.accepted:  # accepted: on their way
                    self._handle(self.lists.seat_opened(table, n, "system"))
        elif opening:
            # the table changed size (L-2): seats gone end their openings, new ones open
            for t, n in sorted(self.lists.openings):
                if t == table and n > len(state.seats):
                    self.lists.seat_closed(t, n, "system")
            for n in range(self._sizes.get(table, len(state.seats)) + 1, len(state.seats) + 1):
                if n not in seated and (table, n) not in self.lists.accepted:
                    self._handle(self.lists.seat_opened(table, n, "system"))
        self._sizes[table] = len(state.seats)

    def _after_commit(self, table: str, upto: int) -> None:
        keep, now, done = [], [], set()
        for item in self.players.pending:
            if item[1] != table:
                keep.append(item)
            elif item[-1] <= upto:
                mark = (item[0], table, item[-1], "" if item[0] == "state" else repr(item[2:-1]))
                if item[-1] > self._delivered.get(table, 0) and mark not in done:
                    now.append(item)
                    done.add(mark)
            else:
                keep.append(item)
        self.players.pending[:] = keep
        if not now:
            return
        with self.lock:
            for item in now:
                try:
                    self._apply(item)
                except WaitListError as exc:
                    log.warning("table %s: %s", table, exc)
            self._delivered[table] = max(self._delivered.get(table, 0), upto)
            self._flush()

    def _apply(self, item: tuple[Any, ...]) -> None:
        what, table = item[0], item[1]
        if what == "state":
            self._table_state(table, item[2], opening=True)
        elif what == "table":
            pass  # the "state" item of the same record brings the new game or stakes with the seats
        elif what == "opened":
            player = self._who(table, item[2], item[3])  # the room seated its "p" as "name:p"
            self._touched.add(player)
            self._handle(self.lists.seat_opened(table, item[2], f"table:{table}", player=player))
        elif what == "taken":
            player = self._who(table, item[2], item[3])
            seating = getattr(self.service, "seating", None)
            if seating is not None and seating.get((table, item[2]), ("",))[0] == player:
                seating.pop((table, item[2]), None)  # the room's seat request is done
            self._touched.add(player)
            self._handle(self.lists.sat(table, item[2], player, f"table:{table}"))
            self._arrived(table, item[2], player)

    def _arrived(self, table: str, seat: int, player: str) -> None:
        # ``table`` reports ``player`` in ``seat``: whoever was on their way to that seat is done,
        # and so is ``player`` on their way to that table (a change player still sits at the old one)
        for p, c in list(self.going.items()):
            if (c.table, c.seat) == (table, seat) or (p == player and c.table == table):
                del self.going[p]
                self._touched.add(p)

    def _going_ends(self) -> None:
        # a seat held for a player on their way is held until the call's time, no longer
        now = self.clock()
        for p, c in list(self.going.items()):
            if c.until <= now:
                del self.going[p]
                self._touched.add(p)

    def _who(self, table: str, seat: int, table_player: str) -> str:
        """Return the room's id of ``table_player`` in ``table``'s ``seat``. A table knows a
        player the room seated under its id ``p`` as ``name:p`` — and a walk-in who typed ``p``
        at a tablet by the same id. Only the room's own seating counts as its player ``p``: the
        seat ``p`` accepted or sits in by the lists, or the room's ``seat`` request for ``p`` in
        that seat (:attr:`room.service.RoomService.seating`); anyone else keeps the table's id
        (a walk-in, never taken for the room's player)."""
        p = room_player(table_player)
        if p == table_player:
            return p
        if self.lists.seated.get(p) == (table, seat) or self.lists.accepted.get((table, seat), ("",))[0] == p:
            return p
        seating = getattr(self.service, "seating", None)
        if seating is not None and seating.get((table, seat), ("",))[0] == p:
            return p
        return table_player

    # ------------------------------------------------------------------ calls and notices
    def _handle(self, calls: list[Call]) -> None:
        for c in calls:
            self.stats["calls"] += 1
            self._touched.add(c.player)

    def _logged(self, entry: Any) -> None:
        if entry.player:
            self._touched.add(entry.player)
        try:
            self.players.record_waitlist(entry)
        except StoreError as exc:  # the lists go on; the log line says what was not stored
            log.error("the waiting lists' log: not stored: %s (%s)", entry.to_json(), exc)

    def _all_players(self) -> set[str]:
        out = {p for lst in self.lists.lists.values() for p in lst}
        out |= {c.player for c in self.lists.calls()}
        return out

    def status(self, player: str) -> dict[str, Any]:
        """Return ``player``'s status as the phone shows it: ``{"schema": 1, "player", "at",
        "lists": [{"list", "game", "stakes", "place", "waiting"}], "call": {...} | None,
        "seated": {"table", "seat"} | None, "going": {"table", "seat", "until"} | None (the call
        they accepted: the seat is held for them until ``until``, Unix s, until the table reports
        them in it; "seated" is then that seat too), "change": whether they asked for a table
        change, "last": the last recorded change about them, "lapsed": {"table", "seat", "at",
        "game", "stakes"} | None (their last call lapsed at ``at`` and took them off that list,
        and they have not joined, been called or seated since)}``."""
        lists = []
        for key, lst in sorted(self.lists.lists.items()):
            if player in lst:
                lists.append({**key.to_json(), "list": str(key), "place": lst.index(player) + 1, "waiting": len(lst)})
        call = self.lists.call_of(player)
        where = self.lists.seated.get(player)
        last = next((e for e in reversed(self.lists.log) if e.player == player), None)
        lapsed = None
        for e in reversed(self.lists.log):
            if e.player != player or e.action not in ("lapse", "join", "call", "seat"):
                continue
            if e.action == "lapse" and e.key is not None and player not in self.lists.lists.get(e.key, []):
                lapsed = {"table": e.table, "seat": e.seat, "at": e.at, **e.key.to_json()}
            break
        going = self.going.get(player)
        return {"schema": 1, "player": player, "at": self.clock(), "lists": lists,
                "call": call.to_json() if call else None,
                "seated": {"table": where[0], "seat": where[1]} if where else None,
                "going": {"table": going.table, "seat": going.seat, "until": going.until} if going else None,
                "lapsed": lapsed,
                "change": any(player in lst for lst in self.lists.changes.values()),
                "last": last.to_json() if last else None}

    def story(self, player: str) -> list[dict[str, Any]]:
        """Return ``player``'s story for the floor (``GET /api/why``, L-1): their own entries
        (join, call, pass, lapse, seat, leave, ...) and every seat given to another player on a
        list ``player`` was on while they were on it ("why was he seated before me"), as
        :meth:`room.waitlist.Entry.to_json` dicts, oldest first. Other players' calls, passes,
        lapses and requests are theirs, not this player's story (issue 18)."""
        with self.lock:
            return [e.to_json() for e in self.lists.why(player) if e.player == player or e.action == "seat"]

    def lobby(self) -> dict[str, Any]:
        """Return the room's lobby (:func:`room.lobby.lobby_view`)."""
        with self.lock:
            return lobby_view(self.entries, self.lists, self.store, self.clock(), self.offline,
                              self.going.values())

    def links(self) -> None:
        """Follow the tables' links (issue 18, :meth:`room.service.RoomService.offline`): a
        table offline has its seats called for nobody and the lobby says since when; back
        online, its open seats are called. Called by the tick (with the lock held)."""
        offline_fn = getattr(self.service, "offline", None)
        now = dict(offline_fn()) if offline_fn is not None else {}
        for t in sorted(set(now) - set(self.offline)):
            self.lists.table_offline(t)
        for t in sorted(set(self.offline) - set(now)):
            self._handle(self.lists.table_online(t))
        self.offline = now

    def holds(self, table: str) -> dict[str, Any]:
        """Return ``table``'s held seats as the room tells the table (retained on
        ``room/tables/<t>/holds``, bridged in as ``livetable/<t>/room/holds``; docs/players.md):
        ``{"schema": 1, "table", "holds": [{"seat", "player", "name", "until"}]}`` — a seat
        called for a player is held for them until ``until`` (Unix s); the table seats no
        walk-up there until then, whatever becomes of the room."""
        out = []
        for c in [*self.lists.calls(), *self.going.values()]:  # called, or accepted and on their way
            if c.table == table:
                out.append({"seat": c.seat, "player": c.player, "name": self._name(c.player), "until": c.until})
        return {"schema": 1, "table": table, "holds": sorted(out, key=lambda h: h["seat"])}

    def _name(self, player: str) -> str:
        try:
            rows = self.store.query("SELECT name FROM room_players WHERE player = ?", (player,))
        except StoreError:
            rows = []
        return str(rows[0][0]) if rows and rows[0][0] else player

    def _flush(self) -> None:
        # everyone on a list too: one leaving moves up every player behind them
        touched, self._touched = self._touched | self._all_players(), set()
        for p in sorted(touched):
            if not PHONE_ID.match(p):
                continue
            st = self.status(p)
            text = json.dumps({k: v for k, v in st.items() if k != "at"}, sort_keys=True)
            if self._published.get(p) != text:
                self._published[p] = text
                self.stats["notices"] += 1
                self._publish(notice_topic(p), json.dumps(st), True)
        for p in sorted(self.tablets):
            self._tablet_lists(p, None)
        for t in sorted(set(self.lists.table_key) | set(self._holds)):
            held = self.holds(t)
            text = json.dumps(held, sort_keys=True)
            if self._holds.get(t) != text:
                self._holds[t] = text
                self._publish(holds_topic(t), text, True)
        try:
            lobby = lobby_view(self.entries, self.lists, self.store, self.clock(), self.offline,
                               self.going.values())
        except StoreError as exc:
            log.error("the lobby: %s", exc)
            return
        text = json.dumps({k: v for k, v in lobby.items() if k != "at"}, sort_keys=True)
        if self._published.get("\0lobby") != text:
            self._published["\0lobby"] = text
            self._publish(LOBBY_TOPIC, json.dumps(lobby), True)

    def _ticker(self) -> None:
        while not self._stop.wait(self.tick):
            try:
                with self.lock:
                    self.links()
                    self._handle(self.lists.expire())
                    self._going_ends()
                    self._flush()
            except Exception:  # the tick must go on
                log.exception("the desk's tick")

    def check_seat(self, table: Any, seat: Any) -> tuple[str, int]:
        """Return ``(table, seat)`` when ``seat`` is a free seat of a table of the room (the
        floor's ``seat-open``: only a seat that exists and nobody sits in is called).

        Raises:
            WaitListError: an unknown table, a seat that is not a whole number in 1..the
                table's seats (L-2), or a seat a player sits in (the reason names them).
        """
        if not isinstance(table, str) or table not in self._sizes:
            raise WaitListError(f"seat-open: no table {str(table)[:40]!r} in the room")
        seats = self._sizes[table]
        if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= seats:
            raise WaitListError(f"seat-open: table {table} has seats 1..{seats}, not {str(seat)[:20]}")
        sitter = next((p for p, where in self.lists.seated.items() if where == (table, seat)), None)
        if sitter is not None:
            raise WaitListError(f"seat-open: seat {seat} of table {table} is taken by {sitter}")
        return table, seat

    def register(self, player: str, name: Any, card: Any, by: str, same_person: Any = False) -> dict[str, Any]:
        """The floor's ``register`` (and the account of ``new-player``): make ``player``'s
        account with ``name`` (default: the id) and ``card`` (the room's card number, or None).
        An id that has an account already is refused unless the floor says it is the same
        person (``same_person`` true): then the name (and the card, when one is given) are
        updated and the decision is recorded in the lists' log (``account``, by ``by``).
        Return the account (:meth:`room.players.Players.account`).

        Raises:
            PlayerIdError: ``player`` breaks the id rule; PlayerError: name or card not text,
                an empty name, a card number another player holds; AccountExistsError: the id
                has an account and ``same_person`` is not true (nothing changed).
            room.store.StoreError: the database failed.
        """
        check_player_id(player)
        if name is not None and not isinstance(name, str) or card is not None and not isinstance(card, str):
            raise PlayerError("name and card are text")
        with self.lock:
            old = self.players.account(player)
            if old is not None and same_person is not True:
                raise AccountExistsError(
                    f"player {player} has an account already ({old['name']}"
                    + (f", card {old['card']}" if old["card"] else "") + "): another person needs another id; "
                    "the same person: send \"same_person\": true")
            new_card = (card or None) and card[:32]
            if old is not None and new_card is None:
                new_card = old["card"]  # the same person keeps their card unless given another
            account = self.players.register(player, (name or (old or {}).get("name") or player)[:64], new_card)
            if old is not None:
                self.lists.note("account", player, by, detail=f"same person: {old['name']!r} now {account['name']!r}"
                                + (f", card {old['card']} now {account['card']}" if old["card"] != account["card"]
                                   else ""))
                self._flush()
        return account

    def new_player(self, player: str, name: Any, card: Any, by: str, phone_url: str,
                   same_person: Any = False) -> dict[str, Any]:
        """The floor's "new player" at the desk: the account (name, card number) and the
        player's login on the room broker with a one-time password, recorded in the lists'
        log (``login``, by ``floor:<name>``; never the password). Return ``{"ok", "account",
        "login", "password", "phone_link"`` (the phone page, logged in), ``"qr"`` (that link as
        a PNG data URL for the player's phone camera)``}``. Issuing again (``same_person``
        true: :meth:`register`) gives a new password. Whether the broker can be told to reread
        its logins is checked first: when it cannot, nothing is made.

        Raises:
            PlayerIdError: ``player`` breaks the id rule; PlayerError: an empty name, a card
                number another player holds; AccountExistsError: the id is taken (see
                :meth:`register`); WaitListError: this desk makes no logins;
            OSError, room.provision.ProvisionError: the broker cannot be told to reload
                (room.provision.ReloadError, nothing made), the login files cannot be written.
        """
        import io
        from urllib.parse import quote

        import segno

        check_player_id(player)
        if self.logins is None:
            raise WaitListError("this room service makes no player logins (livetable room serve --provision-dir)")
        ready = getattr(self.logins, "check", None)
        if ready is not None:
            ready()  # the broker can be told: else nothing is made (no account, no login)
        account = self.register(player, name, card, by, same_person)
        creds = self.logins(player)
        with self.lock:
            self.lists.note("login", player, by, detail=f"login {creds['username']} made at the desk"
                            + (f"; card {account['card']}" if account.get("card") else ""))
            self._flush()
        link = f"{phone_url}#u={quote(player)}&p={quote(creds['password'])}"
        out = io.BytesIO()
        segno.make(link, error="m").save(out, kind="png", scale=6, border=2)
        qr = "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()
        return {"ok": True, "account": account, "login": creds["username"], "password": creds["password"],
                "phone_link": link, "qr": qr}

    def floor_lists(self, body: dict[str, Any], player: str, by: str) -> dict[str, Any]:
        """The floor's must-move control: ``{"op": "must-move-list", "game", "stakes",
        "main_game", "main_stakes", "reason"}`` marks a game's list as a must-move list feeding
        the main game (every table of it, and those that open later, after a restart too,
        become must-move tables: :meth:`room.waitlist.WaitingLists.feed_list`); ``{"op":
        "move", "player", "game", "stakes", "to_game", "to_stakes", "reason"}`` moves a player
        from one list to the end of another (:meth:`room.waitlist.WaitingLists.move`). Both
        recorded with who, when and why. Return ``{"ok": True, ...}``.

        Raises:
            WaitListError: a missing reason, a list the room does not play, a player not on
                the list (nothing changed).
        """
        why = _reason(body)
        games = set(self.lists.table_key.values())
        a = ListKey(str(body.get("game") or "")[:64], str(body.get("stakes") or "")[:32])
        if a not in games:
            raise WaitListError(f"no table of {a} in the room")
        with self.lock:
            if body["op"] == "must-move-list":
                main = ListKey(str(body.get("main_game") or "")[:64], str(body.get("main_stakes") or "")[:32])
                tables = self.lists.feed_list(a, main, by, why)
                self._flush()
                return {"ok": True, "tables": tables, "feeds": main.to_json()}
            b = ListKey(str(body.get("to_game") or "")[:64], str(body.get("to_stakes") or "")[:32])
            if b not in games:
                raise WaitListError(f"no table of {b} in the room")
            self._handle(self.lists.move(player, a, b, by, why))
            self._touched.add(player)
            self._flush()
            return {"ok": True, "status": self.status(player)}

    # ------------------------------------------------------------------ requests
    def request(self, player: str, req: Any, by: str | None = None) -> dict[str, Any]:
        """Do one request of ``player`` (from their phone, or the floor with ``by``
        ``floor:<name>``); return ``{"ok": True, "status": ...}`` or ``{"ok": False,
        "error": text}``. Never raises for a bad request."""
        by = by or player
        if not isinstance(req, dict) or not isinstance(req.get("op"), str):
            return {"ok": False, "error": "a request is {\"op\": ...}"}
        try:
            check_player_id(player)  # the phone's rule for every name on the lists (room/ids.py)
        except PlayerIdError as exc:
            return {"ok": False, "error": str(exc)}
        op = req["op"]
        with self.lock:
            try:
                if op in ("join", "leave"):
                    game, stakes = req.get("game"), req.get("stakes")
                    if not isinstance(game, str) or not isinstance(stakes, str) or not game or not stakes:
                        raise WaitListError("game and stakes are required")
                    key = ListKey(game[:64], stakes[:32])
                    if op == "join":
                        if key not in set(self.lists.table_key.values()):
                            raise WaitListError(f"no table of {key} in the room")
                        self._handle(self.lists.join(key, player, by))
                    else:
                        self._handle(self.lists.leave(key, player, by, str(req.get("reason") or "")[:200]))
                elif op == "accept":
                    called = self.lists.call_of(player)
                    self._handle(self.lists.accept(player, by))
                    if called is not None:  # held for them until the table reports them seated
                        self.going[player] = called
                elif op == "pass":
                    self._handle(self.lists.pass_(player, by))
                elif op == "change":
                    self._handle(self.lists.request_change(player, by))
                else:
                    raise WaitListError(f"unknown op {op!r} (join, leave, accept, pass, change)")
            except WaitListError as exc:
                self.stats["refused"] += 1
                self._touched.add(player)
                self._flush()
                return {"ok": False, "error": str(exc)}
            self._touched.add(player)
            self._flush()
            return {"ok": True, "status": self.status(player)}

    def table_request(self, table: str, payload: Any) -> dict[str, Any] | None:
        """Do a seated player's waiting-list request from the seat's tablet, forwarded by
        ``table`` (issue 18; ``room/tables/<table>/players/request``, which only that table's
        bridge may write): ``{"schema": 1, "table", "seat", "player", "name", "op": "join" |
        "leave" | "status", "list": the list's id (``str(ListKey)``, as the lobby's ``lists``
        name it), "id": the tablet's request id}``. ``player`` is the table's id of whoever sits
        in the seat; the room takes them as its player only when its own replay of the table
        has them in that seat (:meth:`_who`; a walk-in is never taken for a room player of the
        same name). Applied as a phone's request, recorded with ``by`` the player and the
        detail ``via table <t> seat <n>``. Answers the seat on ``room/tables/<t>/seats/<n>/lists``
        with ``{"schema": 1, "table", "seat", "player" (the table's id), "id", "ok", "error",
        "lists": [{"list", "game", "stakes", "place", "waiting"}]}`` and returns it, or returns
        None (nothing published) for a payload that names no seat of ``table``. Never raises."""
        if not isinstance(payload, dict) or payload.get("table") != table or set(payload) - _TABLE_REQUEST_FIELDS:
            return None
        seat, tplayer = payload.get("seat"), payload.get("player")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= 10:
            return None
        if not isinstance(tplayer, str) or not 1 <= len(tplayer) <= 64:
            return None
        rid = payload.get("id") if isinstance(payload.get("id"), str) and len(payload["id"]) <= 64 else None
        self.stats["requests"] += 1
        with self.lock:
            who = self._who(table, seat, tplayer)
            error = None
            try:
                if self.lists.seated.get(who) != (table, seat):
                    raise WaitListError(f"the room does not see {payload.get('name') or tplayer} in seat {seat} "
                                        f"of {table} yet: try again in a moment")
                try:
                    check_player_id(who)
                except PlayerIdError:
                    raise WaitListError("the room has no account for you: ask the floor to register you") from None
                if self.limit.allow(f"table:{table}:{seat}") > 0:
                    raise WaitListError("too many requests: try again in a few seconds")
                op, name = payload.get("op"), payload.get("list")
                via = f"via table {table} seat {seat}"
                if op in ("join", "leave"):
                    key = next((k for k in set(self.lists.table_key.values()) | set(self.lists.lists)
                                if isinstance(name, str) and str(k) == name), None)
                    if key is None:
                        raise WaitListError(f"no list {str(name)[:100]!r} in the room")
                    if op == "join":
                        if key not in set(self.lists.table_key.values()):
                            raise WaitListError(f"no table of {key} in the room")
                        self._handle(self.lists.join(key, who, who, detail=via))
                    else:
                        self._handle(self.lists.leave(key, who, who, via))
                elif op != "status":
                    raise WaitListError(f"unknown op {str(op)[:20]!r} (join, leave, status)")
            except WaitListError as exc:
                self.stats["refused"] += 1
                error = str(exc)
            self._touched.add(who)
            self._flush()
            answer = self._lists_answer(who, table, seat, tplayer, rid, error)
            self._publish(seat_lists_topic(table, seat), json.dumps(answer), False)
            if error is None and PHONE_ID.match(who):
                self.tablets[who] = (table, seat, tplayer)
                self._tablet_sent[who] = json.dumps(answer["lists"], sort_keys=True)
            return answer

    def _lists_answer(self, who: str, table: str, seat: int, tplayer: str, rid: str | None,
                      error: str | None) -> dict[str, Any]:
        lists = self.status(who)["lists"] if PHONE_ID.match(who) else []
        return {"schema": 1, "table": table, "seat": seat, "player": tplayer, "id": rid, "ok": error is None,
                "error": error, "lists": lists}

    def _tablet_lists(self, player: str, _: Any) -> None:
        # a player who asked from a seat's tablet: their places moved (someone ahead left, was
        # called, ...) while they still sit there: the seat hears it; gone from the seat: forgotten
        table, seat, tplayer = self.tablets[player]
        if self.lists.seated.get(player) != (table, seat):
            del self.tablets[player]
            self._tablet_sent.pop(player, None)
            return
        answer = self._lists_answer(player, table, seat, tplayer, None, None)
        text = json.dumps(answer["lists"], sort_keys=True)
        if self._tablet_sent.get(player) != text:
            self._tablet_sent[player] = text
            self._publish(seat_lists_topic(table, seat), json.dumps(answer), False)

    def _on_table_request(self, client: Any, userdata: Any, msg: Any) -> None:
        parts = msg.topic.split("/")
        if len(parts) != 5 or len(msg.payload) > MAX_REQUEST or getattr(msg, "retain", False):
            return
        try:
            payload = json.loads(msg.payload)
        except (ValueError, RecursionError):
            log.info("table %s: a waiting-list request that is not JSON ignored", parts[2][:40])
            return
        try:
            out = self.table_request(parts[2], payload)
        except Exception:  # paho's thread: one message never stops the desk
            log.exception("table %s: a waiting-list request could not be handled", parts[2][:40])
            return
        if out is None:
            log.info("table %s: a waiting-list request naming no seat of it ignored", parts[2][:40])
        elif not out["ok"]:
            log.info("table %s seat %s: waiting-list request refused: %s", parts[2], out["seat"], out["error"])

    def _on_request(self, client: Any, userdata: Any, msg: Any) -> None:
        parts = msg.topic.split("/")
        if len(parts) != 4 or not PHONE_ID.match(parts[2]) or len(msg.payload) > MAX_REQUEST:
            return
        if getattr(msg, "retain", False):  # a retained request is replayed at every subscribe: never acted on
            log.info("player %s: a retained request ignored (a phone sends its requests not retained)", parts[2])
            return
        self.stats["requests"] += 1
        with self.lock:
            wait = self.limit.allow(parts[2])
            first = self.limit.first
        if wait > 0:  # counted and logged once a second by the limit; the phone hears it once
            self.stats["limited"] += 1
            if not first:
                return
            st = dict(self.status(parts[2]), error=f"too many requests: try again in {math.ceil(wait)} s",
                      retry_after=math.ceil(wait))
            self._publish(notice_topic(parts[2]), json.dumps(st), True)
            with self.lock:
                self._published.pop(parts[2], None)
            return
        try:
            req = json.loads(msg.payload)
        except ValueError:
            req = None
        out = self.request(parts[2], req)
        if not out["ok"]:
            log.info("player %s: request refused: %s", parts[2], out["error"])
            # the status carries the refusal so the phone can say it
            st = dict(self.status(parts[2]), error=out["error"])
            self._publish(notice_topic(parts[2]), json.dumps(st), True)
            with self.lock:
                self._published.pop(parts[2], None)


def _reason(body: dict[str, Any], required: bool = True) -> str:
    """The floor's reason of a request: one line, at most 200 characters.

    Raises:
        WaitListError: none given (when ``required``), or more than one line.
    """
    why = str(body.get("reason") or "").strip()
    if "\n" in why or len(why) > 200:
        raise WaitListError("the reason is one line of at most 200 characters")
    if required and not why:
        raise WaitListError("the floor's decisions need a reason (why)")
    return why


# ---------------------------------------------------------------------- HTTP
class DeskServer:
    """The desk's pages: :attr:`url`, :meth:`stop`."""

    def __init__(self, server: ThreadingHTTPServer, thread: threading.Thread) -> None:
        self.server, self.thread = server, thread
        host, port = server.server_address[:2]
        self.url = f"http://{host!s}:{port}/"

    def stop(self) -> None:
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


def serve_desk(desk: PlayersDesk, floor_logins: Path, *, host: str = "127.0.0.1", port: int = 8091,
               ws_url: str | None = None, public_url: str | None = None,
               links: dict[str, int] | None = None) -> DeskServer:
    """Serve the desk's pages (see the module's text) on ``host:port`` in a thread.

    ``ws_url``: the room broker's MQTT-over-WebSockets address for the phone page
    (``ws://room.local:9002``); ``public_url``: the address players' phones reach this
    server at (the lobby TV's QR code points at its ``/phone``); ``links``: ``{"console":
    port}`` of the floor console on this host, read at each request (the caller may fill it
    once the console is up): ``GET /api/lists`` gives it as ``console_port`` and the list
    view links to the console (issue 18).

    Raises:
        OSError: the port cannot be bound.
    """

    class Handler(BaseHTTPRequestHandler):
        server_version = "livetable-room-desk"

        def log_message(self, fmt: str, *args: Any) -> None:  # quiet: the room's own log says enough
            log.debug("%s " + fmt, self.address_string(), *args)

        def _send(self, code: int, body: bytes, ctype: str, extra: dict[str, str] | None = None) -> None:
            send(self, code, body, ctype, extra)

        def _json(self, code: int, data: Any) -> None:
            self._send(code, json.dumps(data).encode(), "application/json")

        def _floor(self) -> str | None:
            auth = self.headers.get("Authorization", "")
            if auth.startswith("Basic "):
                try:
                    name, _, pw = base64.b64decode(auth[6:]).decode().partition(":")
                    logins = json.loads(Path(floor_logins).read_text())
                    if name in logins and check_password(pw, logins[name]):
                        return name
                except (ValueError, OSError, UnicodeDecodeError):
                    pass
            self._send(401, b"floor login required", "text/plain",
                       {"WWW-Authenticate": 'Basic realm="livetable floor"'})
            return None

        def _page(self, name: str) -> None:
            try:
                self._send(200, (PAGES / name).read_bytes(), "text/html; charset=utf-8")
            except OSError:
                self._send(404, b"not found", "text/plain")

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            u = urlparse(self.path)
            q = {k: v[0] for k, v in parse_qs(u.query).items()}
            try:
                if u.path in ("/", "/lobby"):
                    return self._page("lobby.html")
                if u.path == "/phone":
                    return self._page("phone.html")
                if u.path == "/pages.js":
                    return self._send(200, (PAGES / "pages.js").read_bytes(), "application/javascript")
                if u.path == "/vendor/mqtt.min.js":
                    return self._send(200, VENDOR.read_bytes(), "application/javascript")
                if u.path == "/api/lobby":
                    return self._json(200, dict(desk.lobby(), phone_url=phone_base + "/phone"))
                if u.path == "/phone-qr.png":  # the TV's QR code: the phone page's address
                    import io

                    import segno

                    out = io.BytesIO()
                    segno.make(phone_base + "/phone", error="m").save(out, kind="png", scale=8, border=2)
                    return self._send(200, out.getvalue(), "image/png")
                if u.path == "/api/phone-config":
                    return self._json(200, {"ws": ws_url})
                if u.path in ("/floor", "/api/lists", "/api/why", "/api/players"):
                    who = self._floor()
                    if who is None:
                        return None
                    if u.path == "/floor":
                        return self._page("floor.html")
                    if u.path == "/api/lists":
                        with desk.lock:
                            snap = desk.lists.snapshot()
                        return self._json(200, dict(snap, log=desk.players.waitlist_log(limit=200), floor=who,
                                                    console_port=(links or {}).get("console")))
                    if u.path == "/api/why":
                        player = q.get("player", "").strip().lower()
                        if not player:
                            return self._json(400, {"error": "name a player: /api/why?player=NAME"})
                        return self._json(200, {"player": player, "entries": desk.story(player)})
                    return self._json(200, {"players": desk.players.find(q.get("q", ""))})
                self._send(404, b"not found", "text/plain")
            except StoreError as exc:
                self._json(503, {"error": str(exc)})

        def do_POST(self) -> None:  # noqa: N802
            u = urlparse(self.path)
            if u.path != "/api/lists":
                return self._send(404, b"not found", "text/plain")
            who = self._floor()
            if who is None:
                return None
            with desk.lock:
                wait = desk.floor_limit.allow(f"floor:{who}")
            if wait > 0:
                desk.stats["limited"] += 1
                after = math.ceil(wait)
                return self._send(429, json.dumps({"error": "too many requests", "retry_after": after}).encode(),
                                  "application/json", {"Retry-After": str(after)})
            try:
                json_from_same_site(self.headers)  # basic auth rides along with another site's form
                raw = read_body(self.headers, self.rfile, MAX_BODY)
            except BodyError as exc:
                return self._json(exc.status, {"error": str(exc)})
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                return self._json(400, {"error": "not JSON"})
            except RecursionError:
                return self._json(400, {"error": "JSON nested too deep"})
            if not isinstance(body, dict):
                return self._json(400, {"error": "send a JSON object"})
            if body.get("op") == "must-move-list":  # a list, no player
                body.setdefault("player", "-")
            if not isinstance(body.get("player"), str) or not body["player"]:
                return self._json(400, {"error": "player is required"})
            player = body["player"][:64]
            try:
                if body.get("op") not in ("must-move", "must-move-list"):  # there "player" names no player
                    check_player_id(player)
                if body.get("op") in ("must-move-list", "move"):
                    return self._json(200, desk.floor_lists(body, player, f"floor:{who}"))
                if body.get("op") == "register":
                    acct = desk.register(player, body.get("name"), body.get("card"), f"floor:{who}",
                                         body.get("same_person"))
                    return self._json(200, {"ok": True, "account": acct})
                if body.get("op") == "new-player":
                    return self._json(200, desk.new_player(player, body.get("name"), body.get("card"), f"floor:{who}",
                                                           phone_base + "/phone", body.get("same_person")))
                if body.get("op") == "must-move":  # body.player: the must-move table
                    key = ListKey(str(body.get("game") or ""), str(body.get("stakes") or ""))
                    if key not in set(desk.lists.table_key.values()) or player not in desk.lists.table_key:
                        raise WaitListError(f"must-move: table {player!r} and a game of the room ({key}) are needed")
                    with desk.lock:
                        desk.lists.feed(player, key, f"floor:{who}", _reason(body, required=False))
                        desk._flush()
                    return self._json(200, {"ok": True})
                if body.get("op") == "seat-open":
                    with desk.lock:
                        table, seat = desk.check_seat(body.get("table"), body.get("seat"))
                        desk._handle(desk.lists.seat_opened(table, seat, f"floor:{who}"))
                        desk._flush()
                    return self._json(200, {"ok": True})
            except AccountExistsError as exc:
                return self._json(409, {"ok": False, "error": str(exc)})
            except (PlayerError, WaitListError, PlayerIdError, ValueError) as exc:  # ProvisionError too
                return self._json(400, {"ok": False, "error": str(exc)})
            except (StoreError, OSError) as exc:  # ReloadError: why the broker cannot be told, nothing made
                return self._json(503, {"ok": False, "error": str(exc)})
            except Exception:  # a bug: answered, logged, the desk goes on
                log.exception("the floor's request %s", str(body.get("op"))[:40])
                return self._json(500, {"ok": False, "error": "internal error (logged)"})
            out = desk.request(player, body, by=f"floor:{who}")
            self._json(200 if out["ok"] else 400, out)

    server = ThreadingHTTPServer((host, port), Handler)
    # the phone links (the TV's QR code, a new player's link): --public-url, or the address
    # served; never the request's Host header, which any client writes as it likes
    bound_host, bound_port = server.server_address[:2]
    if str(bound_host) in ("", "0.0.0.0", "::"):  # every address: the machine's name
        import socket

        bound_host = socket.getfqdn()
    phone_base = (public_url or f"http://{bound_host!s}:{bound_port}").rstrip("/")
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="room-desk-http", daemon=True)
    thread.start()
    return DeskServer(server, thread)

