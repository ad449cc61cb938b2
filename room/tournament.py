"""The room's multi-table tournament (issue 19): ``livetable room simulate --tournament``.

:class:`RoomTournament` is the tournament director of the room: it holds the settings, the
clock (the room's), the standings (entries, busts, places, payouts), the random draw to
tables and seats (TDA 7), balancing and table breaks (:func:`controller.tournament.balancing.rebalance`
decides who moves where: TDA 10, 11), hand-for-hand play on the bubble and the final table
redraw, the button drawn by cards at each table at the start and again at the redrawn final table
(:meth:`RoomTournament._draw_buttons`; the TDA leaves it to the house, WSOP Rule 85 draws it).
The tables (``livetable simulate --tournament --tournament-room``,
:mod:`controller.tournament_link`) play the hands it gives them and carry out its moves
between hands; the protocol (orders and reports) is in that module's docstring and in
docs/tournament.md "Multi-table through the room".

How the director decides, for a table whose report says it waits between hands and has
carried out the last order it was sent:

- the busts of its new hands go to :meth:`Standings.bust` (on the bubble, hand-for-hand:
  only once every table waits, all of that hand's busts in one call: one hand for places);
- with no moves outstanding, :func:`rebalance` over every table as the reports show them
  (while late registration is open, with the tournament's ``late_registration_free_seats``
  kept: no table breaks that would leave fewer seats free for late entries, TDA 9;
  :meth:`RoomTournament.late_reserve`);
  the tables one plan breaks (TDA 10; with a final table redraw: every table) get no more
  ``go`` and break together, in the set order, once every one of them waits (never a part
  of a plan: a later table would break first, and players sent to the seats the whole plan
  gives them leave the table sizes further apart); then of the balancing (TDA 11) the
  first moves whose source table waits (the player who moves is the one the rules pick
  *now*, between hands: TDA 11A's next big blind), the rest when their tables wait; they
  are journalled as one ``round`` with the tables they were decided on;
- its order: the players who leave it (``out``), the players whose chips are known who
  arrive (``in``: entries with the starting stack, moved players with the chips their old
  table reported), and ``go`` for its next hand at the clock's level (TDA 23), except while
  a move of the round involves it, on a break, with fewer than two players, held for a
  break, 3 or more players short of the fullest table until balanced (TDA 11D:
  :meth:`RoomTournament.halted_short`), or on the bubble until every table waits
  (hand-for-hand); ``end`` once it has broken or the tournament is over.

The tournament's identity (:attr:`RoomTournament.tournament_id`, made at :meth:`RoomTournament.start`
and journalled in ``start``) is in every order; a table whose journal holds another
tournament refuses them and says so, and its reports (``tournament``: another id) are refused
here, the floor told in :attr:`RoomTournament.problems` to start that table on a new journal.

Reports are refused (logged; but for stale ones, in :attr:`RoomTournament.problems`) when
stale (``applied`` went back, or its ``pid`` is of a table process the room has replaced since),
seating a player twice, or seating or busting a player the room holds
at another table; a move-out's chips are the stack of the table's last report (a report
saying otherwise is flagged); a refused move-in (``refused_in``) is given another seat.

Chips: a move's chips are in transit from the source's report of its ``move-out`` to the
target's report of its ``move-in``. After every report the director checks, with each
table's latest report: the tables' chips (bought in minus moved out, the ledger) + chips
in transit (moves, and purchases not yet at their seats) + starting stacks of entries not
seated yet = the standings' chips in play (entries × starting stack + rebuys + add-ons).
Every move is checked when it completes: the chips that arrived are the chips that left.

Journal (the room's store, table ``room_tournament``: ``type`` and a JSON ``payload``,
written before anything acts on it): ``start`` (settings, tables, seed, entries, names,
``tournament``: its identity),
``entry``, ``round`` (the tables and the moves decided; ``buttons``: the draws for the button
by cards at the tables it draws, the start's and the final redraw's),
``moved-out``, ``moved-in``,
``cancelled`` (a player busted before the move), ``reseat`` (a refused move-in's new seat),
``register`` (a late entry or re-entry and its seat: :meth:`RoomTournament.register`; with
``reopen``: the broken table reopened for him, every other seat taken, whose next order is a
``reopen`` the table takes after its ``end``),
``purchase`` (a rebuy or add-on booked: :meth:`RoomTournament.purchase`), ``purchase-in`` (its
chips brought to the seat), ``refund`` (its chips never came: refused by the table, or a bust first),
``bust``, ``broken``, ``order`` (the last order per table), ``clock`` (every level and every
:data:`CLOCK_EVERY` seconds, and every director's command: :meth:`RoomTournament.direct`),
``payouts``, ``deal-offer``, ``deal-accept``, ``deal-end`` (the deal offered on the final
table's tablets: room/tournament_deal.py). :meth:`RoomTournament.restore` replays it.

Time: ``now()`` is the room's clock in tournament seconds (monotonic); a simulation runs it
faster than real time (``speed``), said in its output.
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import random
import secrets
import time
from collections.abc import Callable
from typing import Any

from controller.tournament.balancing import Move, Table, random_draw, rebalance, short_tables
from controller.tournament.button import ButtonDraw, button_draw
from controller.tournament.clock import TournamentClock, hand_for_hand
from controller.tournament.director import clock_command, level_numbers
from controller.tournament.errors import BalancingError, TournamentError
from controller.tournament.results import Standings, payout_amounts, prizes
from controller.tournament.settings import Break, TournamentSettings, load_settings
from controller.tournament.table import level_stakes
from controller.tournament.words import ordinal, players_left, stakes_words
from room.repeats import Repeats
from room.tournament_deal import DEAL_EVENTS, RoomDeal
from room.tournament_view import move_notice, order_view, view_changed

__all__ = ["RoomTournament", "StoreJournal", "entry_name"]

log = logging.getLogger("livetable.room.tournament")

#: Seconds before an order the table has not reported carried out is sent again.
RESEND_SECONDS = 1.5
#: Tournament seconds between two ``clock`` events of one level (a restarted room loses at most this).
CLOCK_EVERY = 10.0
#: Seconds (monotonic) within which a broken table must have reported for a late entry to
#: reopen it (:meth:`RoomTournament._reopenable`): an ended table reports every second
#: (``controller.tournament_link.REPORT_EVERY``); a table silent longer is not running.
REOPEN_HEARD_SECONDS = 5.0
#: The most request answers one order carries (:meth:`RoomTournament._order`; the rest go in the
#: next orders): a table refuses an order of more than 64 (``controller.tournament_link.decode_order``)
#: or of more than its 16,384 bytes (an answer's ``why`` is up to :data:`ANSWER_WHY_CHARS` characters), and the room
#: would send it again for ever (breaker, high: the table stuck).
MAX_ORDER_ANSWERS = 32
#: The most characters of a refusal's ``why`` in an order's answer (:meth:`RoomTournament._take_requests`
#: cuts every one: a longer one, e.g. many tables named in "wait until ... report", made the
#: table refuse the whole order).
ANSWER_WHY_CHARS = 300


class StoreJournal:
    """The tournament's journal in the room's store (``room_tournament``; migration 3)."""

    def __init__(self, store: Any, clock: Callable[[], float] = time.time) -> None:
        self.store, self.clock = store, clock

    def append(self, kind: str, payload: dict[str, Any], also: Callable[[Any], None] | None = None) -> None:
        """Store one event (committed when this returns), and with ``also(tx)`` further writes
        in the same transaction (all or none). Raises :class:`room.store.StoreError`."""
        with self.store.transaction() as tx:
            tx.execute("INSERT INTO room_tournament(at, type, payload) VALUES (?, ?, ?)",
                       (self.clock(), kind, json.dumps(payload, separators=(",", ":"))))
            if also is not None:
                also(tx)

    def append_many(self, events: list[tuple[str, dict[str, Any]]]) -> None:
        """Store ``events`` in one transaction: all or none. Raises :class:`room.store.StoreError`."""
        with self.store.transaction() as tx:
            for kind, payload in events:
                tx.execute("INSERT INTO room_tournament(at, type, payload) VALUES (?, ?, ?)",
                           (self.clock(), kind, json.dumps(payload, separators=(",", ":"))))

    def events(self) -> list[tuple[str, dict[str, Any]]]:
        """Return every event, oldest first, as ``(type, payload)``."""
        return [(str(k), json.loads(p)) for k, p in
                self.store.query("SELECT type, payload FROM room_tournament ORDER BY id")]


def entry_name(name: object) -> str:
    """Return ``name`` stripped and NFC-normalised when it is a player's name for
    :meth:`RoomTournament.register`: one line of 1..40 characters, no control characters (C0,
    DEL, C1), line or paragraph separators, nor invisible or unencodable ones (format characters
    such as a zero-width space or a bidi override, lone surrogates, private use, unassigned:
    :func:`controller.engine.table.seating.hidden_in_name`, the rule the table's own names
    follow; breaker 2 H1, H4, M1). A name goes to the tables' screens and the room's output,
    and is compared as :func:`controller.engine.table.seating.player_for_name` folds it.

    Raises:
        ValueError: anything else (the message gives the rule).
    """
    import unicodedata

    from controller.engine.table.seating import hidden_in_name

    raw = name if isinstance(name, str) else ""
    text = raw.strip()
    if not text or len(text) > 40:
        raise ValueError("a player's name is one line of 1..40 characters, no control characters")
    bad = hidden_in_name(raw)
    if bad is not None:
        raise ValueError(f"a player's name is one line of 1..40 characters, no control characters nor invisible "
                         f"ones (not {bad})")
    return unicodedata.normalize("NFC", text)


_MOVE_WHY = {"balance": "balancing, TDA 11", "break": "table broken, TDA 10", "redraw": "final table redraw",
             "draw": "seat draw, TDA 7", "late": "late entry, TDA 9"}


def move_line(m: Move, name: str) -> str:
    """One player's move in words for the room's output (issue 19): ``t3 seat 2 Player 17 →
    t1 seat 6 (balancing, TDA 11)``; ``name`` the player's name."""
    src = f"{m.from_table} seat {m.from_seat} " if m.from_table else ""
    why = "; ".join(_MOVE_WHY.get(r, r) for r in m.reason.split("+"))  # a move for two reasons: break+redraw
    return f"{src}{name} → {m.to_table} seat {m.to_seat} ({why})"


def _nat(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise ValueError(f"{v!r} is not a count of 0 or more")
    return v


def _check_report(rep: Any, table: str) -> None:
    """Raise ValueError unless ``rep`` is ``table``'s report (controller/tournament_link.py)."""
    if not isinstance(rep, dict) or rep.get("table") != table:
        raise ValueError("not this table's report")
    for k in ("applied", "hands"):
        _nat(rep[k])
    _nat(rep["ledger"]["in"]), _nat(rep["ledger"]["out"])
    for seat, (player, stack) in rep["seats"].items():
        if not (isinstance(player, str) and seat.isdigit()):
            raise ValueError(f"seat {seat!r}: {player!r}")
        _nat(stack)
    for move, chips in rep.get("moved_out", {}).items():
        _nat(int(move)), _nat(chips)
    for move in rep.get("moved_in", []):
        _nat(move)
    for move, seat in rep.get("refused_in", {}).items():
        _nat(int(move)), _nat(seat)
    for hand, busted in rep.get("busts", {}).items():
        _nat(int(hand))
        for player, stack in busted.items():
            if not isinstance(player, str):
                raise ValueError(f"bust {player!r}")
            _nat(stack)
    for pid in rep.get("bought", []):
        _nat(pid)
    for pid, why in rep.get("refused_buy", {}).items():
        _nat(int(pid))
        if not isinstance(why, str):
            raise ValueError(f"refused purchase {pid}: {why!r}")
    for rid, req in rep.get("requests", {}).items():
        _nat(int(rid))
        if not (isinstance(req, dict) and req.get("kind") in ("rebuy", "addon", "reentry", "deal")
                and isinstance(req.get("player"), str) and isinstance(req.get("by"), str)
                and isinstance(req.get("reason") or "", str)):
            raise ValueError(f"purchase request {rid}: {req!r}")
        _nat(req["seat"])
        if req["kind"] == "deal" and not (isinstance(req.get("accept"), bool) and _nat(req.get("offer")) >= 1):
            raise ValueError(f"deal answer {rid}: {req!r}")
    if rep.get("last_big_blind") is not None:
        _nat(rep["last_big_blind"])
    if rep.get("pid") is not None:
        _nat(rep["pid"])


class _Batch:
    """Collects events for :meth:`StoreJournal.append_many`."""

    def __init__(self, events: list[tuple[str, dict[str, Any]]]) -> None:
        self.events = events

    def append(self, kind: str, payload: dict[str, Any]) -> None:
        self.events.append((kind, payload))


class RoomTournament:
    """The room's tournament director (see the module docstring).

    Args:
        settings, toml: the tournament (its TOML text is journalled at the start).
        tables: the table ids, in the order they break last to first (the first one is the final table).
        journal: a :class:`StoreJournal` (or any ``append(type, payload)``, ``append_many(events)``, ``events()``).
        send: ``send(table, payload_bytes)``: an order to a table.
        now: the room's clock, tournament seconds (monotonic).

    Call :meth:`restore` (a journal that holds a tournament) or :meth:`start` (a new one:
    ``entries`` players drawn with ``seed``), then :meth:`report` for every table report and
    :meth:`step` on every turn of the room's loop; :attr:`finished`, :meth:`summary`.
    """

    def __init__(self, settings: TournamentSettings, toml: str, tables: list[str], journal: Any,
                 send: Callable[[str, bytes], None], now: Callable[[], float]) -> None:
        self.settings, self.toml = settings, toml
        self.tables = list(tables)
        self.break_order = list(reversed(tables))  # the first table is the final table
        self.journal, self.send, self.now = journal, send, now
        self.standings = Standings(settings)
        self.clock = TournamentClock(settings)
        self.names: dict[str, str] = {}
        self._h4h_said: bool | None = None  # hand-for-hand as last logged
        self.seed = 0
        #: the tournament's identity, in every order (the tables keep the first one they take)
        self.tournament_id = ""
        self.reports: dict[str, dict[str, Any]] = {}
        #: restored from the journal (:meth:`restore`): the tables' seating is known again only
        #: from their reports taken since (reports are not journalled; breaker 2 H3)
        self._restored = False
        self.moves: dict[int, dict[str, Any]] = {}
        self.rounds = 0
        self.busted_seen: set[tuple[str, int]] = set()
        self.broken: list[str] = []
        self.sent: dict[str, dict[str, Any]] = {}  # table -> the last order sent
        self.sent_at: dict[str, float] = {}
        self.result: dict[str, Any] | None = None
        self.problems: list[str] = []
        self.checks = 0
        self.refused = 0  # reports refused (stale, forged, not adding up)
        self._level: int | None = None
        #: the screens (room/tournament_view.py): table id -> name ("Birch"), the clock's speed
        self.table_names: dict[str, str] = {}
        self.clock_speed: float | None = None
        self._clock_at = 0.0  # tournament seconds of the last ``clock`` event
        #: table id -> the pid of its process, where the room started it (``livetable room simulate``):
        #: a report of another process (``pid``) is one a dead, replaced process sent, refused as stale
        self.table_pids: dict[str, int] = {}
        #: tables the last plan breaks (or redraws) while one of them is in a hand: no ``go``,
        #: they wait for each other (TDA 10; :meth:`_plan`)
        self._held: set[str] = set()
        #: the buttons drawn by cards (:meth:`_draw_buttons`: at the start, each table's; at the
        #: redrawn final table, its own) by table, ``{"table", "player", "seat", "draw", "why"}``,
        #: until that table's next ``go`` carries it
        self._buttons: dict[str, dict[str, Any]] = {}
        self._said: set[str] = set()  # the problems logged once (a table on another tournament's journal)
        #: a table's refused reports said once a reason, then at most once a minute (room/repeats.py)
        self.repeats = Repeats()
        #: rebuys and add-ons (:meth:`purchase`): id -> ``{"id", "kind", "player", "table", "seat",
        #: "chips", "price", "state": "planned" | "in" | "refunded", "request", "by", ...}``
        self.purchases: dict[int, dict[str, Any]] = {}
        #: a table's purchase request (``"t1:3"``) -> the purchase booked for it
        self._requested: dict[str, int] = {}
        #: table -> request id -> the answer its next order carries (``{"purchase": id}`` or ``{"why": text}``)
        self._answers: dict[str, dict[str, dict[str, Any]]] = {}
        #: a table's re-entry request (``"t1:4"``, asked at the busted player's tablet) -> the move seating him
        self._entered: dict[str, int] = {}
        #: broken tables reopened for a late entry (:meth:`register`): table -> the entry's move id
        #: (the break moves before it no longer count the table as gone)
        self._reopened: dict[str, int] = {}
        #: table -> when (``time.monotonic()``) the room last took a report of it
        self.heard: dict[str, float] = {}
        #: the deal offered on the final table's tablets (room/tournament_deal.py)
        self.deal = RoomDeal(self)

    # ------------------------------------------------------------------ start and restore
    def start(self, entries: int, seed: int, names: dict[str, str] | None = None) -> None:
        """Register ``entries`` players (p1..pN, named ``Player N``; or ``names``: player id ->
        name, in the order drawn, ``entries`` then its length; level 0: before the start,
        TDA 9) and draw their tables and seats (TDA 7); start the clock.

        Raises:
            controller.tournament.errors.TournamentError: more entries than seats, or fewer than 2.
        """
        self.seed = seed
        self.tournament_id = secrets.token_hex(8)
        if names is not None:
            entries = len(names)
        players = list(names) if names is not None else [f"p{n}" for n in range(1, entries + 1)]
        if entries > len(self.tables) * self.settings.seats_per_table or entries < 2:
            from controller.tournament.errors import TournamentError

            raise TournamentError(f"{entries} entries for {len(self.tables)} tables of "
                                  f"{self.settings.seats_per_table} seats")
        self.names = dict(names) if names is not None else {p: f"Player {p[1:]}" for p in players}
        drawn = random_draw(players, self.tables, self.settings.seats_per_table, random.Random(seed))
        moves = [Move(p, "", 0, t.table_id, s, "draw") for t in drawn for s, p in enumerate(t.seats, 1) if p]
        # the start, every entry and the draw in one transaction: a room killed meanwhile has all or none
        batch: list[tuple[str, dict[str, Any]]] = [("start", {
            "settings": self.toml, "tables": self.tables, "seed": seed, "entries": entries, "names": self.names,
            "tournament": self.tournament_id})]
        batch += [("entry", {"player": m.player, "level": 0}) for m in moves]
        real, self.journal = self.journal, _Batch(batch)
        try:
            self._round([], moves, self._draw_buttons(moves))
        finally:
            self.journal = real
        real.append_many(batch)
        for m in moves:
            self.standings.register(m.player, 0)
        self.clock.start(self.now())
        self._snapshot()

    def restore(self) -> bool:
        """Replay the journal; return False when it holds no tournament.

        Raises:
            ValueError: an event cannot be replayed (the message names it).
        """
        events = self.journal.events()
        if not events:
            return False
        self._restored = True
        clock: dict[str, Any] | None = None
        for kind, p in events:
            if kind == "start":
                self.toml = p["settings"]
                self.settings = load_settings(self.toml)
                self.standings, self.clock = Standings(self.settings), TournamentClock(self.settings)
                self.tables, self.seed, self.names = list(p["tables"]), int(p["seed"]), dict(p["names"])
                self.break_order = list(reversed(self.tables))
                # a store started before tournaments had one: an identity of its start, the same at every restore
                self.tournament_id = str(p.get("tournament") or hashlib.sha256(
                    json.dumps(p, sort_keys=True).encode()).hexdigest()[:16])
            elif kind == "entry":
                self.standings.register(p["player"], int(p["level"]))
            elif kind == "register":  # a late entry or re-entry (register): the entry and its seat, one event
                self.standings.register(p["player"], int(p["level"]))
                self.names.setdefault(str(p["player"]), str(p["name"]))  # a re-entry keeps his name
                self.moves[int(p["move"]["id"])] = dict(p["move"])
                if p.get("request"):  # asked from a table: that request is answered, never booked twice
                    self._entered[str(p["request"])] = int(p["move"]["id"])
                if p.get("reopen"):  # every seat was taken: a broken table reopened for him
                    self._reopen(str(p["reopen"]), int(p["move"]["id"]))
            elif kind == "round":
                self.rounds += 1
                for m in p["moves"]:
                    self.moves[int(m["id"])] = dict(m)
                if p.get("button"):  # an older journal's final table, its button drawn at random
                    self._buttons[str(p["button"]["table"])] = dict(p["button"], why="final")
                for b in p.get("buttons") or []:
                    self._buttons[str(b["table"])] = dict(b)
            elif kind == "moved-out":
                self.moves[int(p["move"])].update(chips=int(p["chips"]), state="out")
            elif kind == "moved-in":
                self.moves[int(p["move"])]["state"] = "in"
            elif kind == "cancelled":
                self.moves[int(p["move"])]["state"] = "cancelled"
            elif kind == "reseat":
                self.moves[int(p["move"])]["to_seat"] = int(p["to_seat"])
                if p.get("to"):  # re-planned at another table (its own was full)
                    self.moves[int(p["move"])]["to"] = str(p["to"])
            elif kind == "purchase":
                self._book(dict(p))
            elif kind == "purchase-in":
                self.purchases[int(p["purchase"])]["state"] = "in"
            elif kind == "refund":
                self._unbook(int(p["purchase"]))
            elif kind == "bust":
                self.standings.bust({str(k): int(v) for k, v in p["busted"].items()})
                for t, h in p["hands"]:
                    self.busted_seen.add((str(t), int(h)))
            elif kind == "broken":
                self.broken.append(p["table"])
            elif kind == "order":
                self.sent[p["table"]] = p
                if p.get("go") is not None:
                    # the table's first go after the draw took its button (_go), carried or said missing
                    self._buttons.pop(str(p["table"]), None)
            elif kind == "clock":
                clock = p["clock"]
            elif kind == "payouts":
                self.result = {k: p[k] for k in ("places", "payouts", "prize_pool")}
            elif kind in DEAL_EVENTS:
                self.deal.apply(kind, p)
        if clock is not None:
            self.clock = TournamentClock.from_json(self.settings, clock, self.now())
        if not self.clock.status(self.now()).started:
            # killed between the start's events and the clock's first one: the clock starts now
            # (else no hand could ever be dealt: level_for_hand refuses a clock not started)
            self.clock.start(self.now())
            self._snapshot()
        return True

    # ------------------------------------------------------------------ reports
    def report(self, table: str, payload: bytes) -> None:
        """Take one table's report (shape: :mod:`controller.tournament_link`); a malformed
        one is logged and changes nothing."""
        try:
            rep = json.loads(payload)
            _check_report(rep, table)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            if (said := self.repeats.say(table, str(exc))) is not None:  # once, not at every report
                log.warning("table %s: a tournament report was refused: %s", table, said)
            return
        if table not in self.tables:
            return
        if rep.get("tournament") not in (None, self.tournament_id):
            self.refused += 1
            msg = (f"table {table}: its journal holds another tournament ({rep['tournament']}, this room's is "
                   f"{self.tournament_id}): it refuses this room's orders; start it on a new journal")
            if msg not in self._said:
                self._said.add(msg)
                log.error("%s", msg)
                if len(self.problems) < 20:
                    self.problems.append(msg)
            return
        pid, current = rep.get("pid"), self.table_pids.get(table)
        if pid is not None and current is not None and pid != current:
            self.refused += 1  # stale: no problem, the process that replaced it reports what it holds
            log.info("table %s: a report of process %s, replaced by %s, was refused (stale)", table, pid, current)
            return
        why = self._refuse(table, rep)
        if why:
            self.refused += 1
            stale = why.startswith("stale")
            said = self.repeats.say(table, why, kind="stale" if stale else None)  # once a reason, not every second
            if said is not None:
                log.warning("table %s: a tournament report was refused: %s", table, said)
            if len(self.problems) < 20 and not stale and said == why:  # a duplicate (QoS 1) is no fault
                self.problems.append(f"table {table}: report refused: {why}")
            return
        self.repeats.clear(table)
        self.heard[table] = time.monotonic()
        prev, self.reports[table] = self.reports.get(table), rep
        self._confirm_moves(table, rep, prev)
        self._confirm_purchases(table, rep)
        self.deal.check()  # a hand dealt, a bust, a stack changed: the deal offered is over
        self.check()

    def _where(self) -> dict[str, str]:
        """Return ``{player: table}``: where the room holds every player it moved or drew
        (a planned move: still at its source; moved out: at its target, in transit)."""
        where: dict[str, str] = {}
        for mid in sorted(self.moves):
            m = self.moves[mid]
            stays = m["state"] in ("planned", "cancelled") and m["from"]
            where[m["player"]] = str(m["from"] if stays else m["to"])
        return where

    def _refuse(self, table: str, rep: dict[str, Any]) -> str | None:
        """Return why ``table``'s report is refused, or None: older than the last one taken
        (``applied`` went back: ``stale ...``), a player seated twice, a player seated or busted
        whom the room holds at another table (a stale, duplicated or forged report)."""
        prev = self.reports.get(table)
        if prev is not None and int(rep["applied"]) < int(prev["applied"]):
            return f"stale (order {rep['applied']}, the last taken carried out {prev['applied']})"
        where = self._where()
        seated = [str(v[0]) for v in rep["seats"].values()]
        if len(set(seated)) != len(seated):
            return "a player seated twice"
        for player in seated:
            if where.get(player) != table:
                return f"{player} is seated, the room has him at {where.get(player) or 'no table'}"
        for h, busted in rep.get("busts", {}).items():
            if (table, int(h)) in self.busted_seen:
                continue
            for player in busted:
                if player in self.standings.alive and where.get(player) != table:
                    return f"{player} busted in hand {h}, the room has him at {where.get(player) or 'no table'}"
        return None

    def _confirm_moves(self, table: str, rep: dict[str, Any], prev: dict[str, Any] | None) -> None:
        """Take the report's move-outs, move-ins and refused move-ins of the room's moves.

        A move-out's chips are the stack ``prev`` (the table's last report taken, between
        hands: nothing was dealt since) showed for the player; a report that says otherwise
        is flagged in :attr:`problems` and the known stack travels (never chips that were
        not there). A refused move-in (seat taken) gets another free seat (``reseat``)."""
        moved_out = {int(k): int(v) for k, v in rep.get("moved_out", {}).items()}
        moved_in = {int(k) for k in rep.get("moved_in", [])}
        refused = {int(k): int(v) for k, v in rep.get("refused_in", {}).items()}
        now_here = {str(v[0]) for v in rep["seats"].values()}
        for mid, m in self.moves.items():
            if m["state"] == "planned" and m["from"] == table and mid in moved_out:
                chips = moved_out[mid]
                known = None if prev is None else next(
                    (int(v[1]) for v in prev["seats"].values() if v[0] == m["player"]), 0)
                if chips == 0 and m["player"] in now_here:
                    self.problems.append(f"move {mid}: {table} says {m['player']} left with no chips, "
                                         f"he is still seated")
                    continue
                if chips and known is not None and chips != known:
                    self.problems.append(f"move {mid}: {table} says {m['player']} left with {chips} chips, "
                                         f"its last report showed {known}: {known} travel")
                    log.warning("table %s: %s", table, self.problems[-1])
                    chips = known
                if chips == 0:  # busted before the move: nothing travels
                    self.journal.append("cancelled", {"move": mid})
                    m["state"] = "cancelled"
                    continue
                self.journal.append("moved-out", {"move": mid, "chips": chips, "table": table})
                m.update(chips=chips, state="out")
            if m["state"] in ("out", "planned") and m["to"] == table and mid in moved_in:
                if m["state"] == "planned" and m["from"]:
                    self.problems.append(f"move {mid}: arrived at {table} before it left {m['from']}")
                seat = rep["seats"].get(str(m["to_seat"]))
                # a move-in heard late (the room restarted, a report lost): the table may have dealt
                # the go of the same order since, and the player busted there
                busted_here = any(m["player"] in b for b in rep.get("busts", {}).values())
                if (seat is None or seat[0] != m["player"]) and not busted_here:
                    self.problems.append(f"move {mid}: {m['player']} is not in seat {m['to_seat']} of {table}")
                self.journal.append("moved-in", {"move": mid, "table": table})
                m["state"] = "in"
            elif m["state"] in ("out", "planned") and m["to"] == table and refused.get(mid) == m["to_seat"]:
                self._reseat(table, rep, mid, m)

    def _reseat(self, table: str, rep: dict[str, Any], mid: int, m: dict[str, Any]) -> None:
        """Move ``mid``'s move-in refused by ``table`` to another free seat there (a ``reseat``
        event); when none is free there, a late entry or a player already moved out goes to the
        table with the fewest players of those known to have a free seat (``reseat`` with ``to``;
        breaker 2 H3); a player the table already seats, or no free seat anywhere known, is
        flagged in :attr:`problems` (his chips stay in transit)."""
        if any(v[0] == m["player"] for v in rep["seats"].values()):
            msg = f"move {mid}: {table} refused {m['player']}, it seats him already"
            if msg not in self.problems:
                self.problems.append(msg)
            return
        taken = set(self._seats(table)) | {int(s) for s in rep["seats"]} | {int(m["to_seat"])}  # not the refused seat
        free = [n for n in range(1, self.settings.seats_per_table + 1) if n not in taken]
        if not free and (m["state"] == "out" or not m["from"]):  # breaker 2 H3: another table's free seat
            counts, seats, _unknown = self._open_seats(skip=table)
            if counts:
                other = min(counts, key=lambda t: (counts[t], t))
                self.journal.append("reseat", {"move": mid, "to_seat": seats[other][0], "to": other})
                log.warning("table %s: move %d refused seat %d and no other seat is free there: %s goes to %s "
                            "seat %d", table, mid, m["to_seat"], m["player"], other, seats[other][0])
                m["to"], m["to_seat"] = other, seats[other][0]
                return
        if not free:
            self.problems.append(f"move {mid}: {table} refused seat {m['to_seat']}, no other seat is free")
            return
        self.journal.append("reseat", {"move": mid, "to_seat": free[0]})
        log.warning("table %s: move %d refused seat %d: %s sits in seat %d", table, mid, m["to_seat"],
                    m["player"], free[0])
        m["to_seat"] = free[0]

    # ------------------------------------------------------------------ the room's turn
    def step(self) -> None:
        """Decide for every table that waits (see the module docstring); send orders again
        that were not carried out within :data:`RESEND_SECONDS`."""
        now = time.monotonic()
        for t in sorted(self._reopened):  # a table reopened for a late entry, its ended order the last sent
            if self.result is None and t not in self.broken and self.sent.get(t, {}).get("end"):
                self._order(t, [], [], None, reopen=True)
        ready = {t for t in self.tables if self._ready(t) and not self.sent.get(t, {}).get("end")}
        for t, order in self.sent.items():
            rep = self.reports.get(t)
            if (rep is None or int(rep["applied"]) < order["id"]) and now - self.sent_at.get(t, 0) > RESEND_SECONDS:
                self._send(t, order, journal=False)
        if self.result is None:
            self._busts(ready)
        if self.result is None and len(self.standings.alive) == 1:
            self._finish()
        if self.result is not None:
            self.deal.due(ready)  # a deal offered when a hand ends: dropped, the tournament is over
            for t in self.tables:
                if self._ready(t) and not self.sent.get(t, {}).get("end"):
                    self._order(t, [], [], None, end=True)
            return
        for t in sorted(ready):
            self._take_requests(t)
        if not self._outstanding() and ready:
            self._plan(ready)
        self._clock_snapshot()
        h4h = self.hand_for_hand()
        if h4h != self._h4h_said:
            if h4h or self._h4h_said is not None:
                log.info("hand-for-hand %s (%s)", "on" if h4h else "off", players_left(len(self.standings.alive)))
            self._h4h_said = h4h
        everyone = {t for t in self._live() if self._players_after(t) > 0}
        short = self.halted_short()
        for t in sorted(ready):
            outs = [(mid, m) for mid, m in self.moves.items() if m["state"] == "planned" and m["from"] == t]
            ins = [(mid, m) for mid, m in self.moves.items() if m["to"] == t and (
                m["state"] == "out" or (m["state"] == "planned" and (not m["from"] or m["from"] == t)))]
            now_ids = {mid for mid, _ in outs + ins}
            involved = any(m["state"] in ("planned", "out") and t in (m["from"], m["to"])
                           for mid, m in self.moves.items() if mid not in now_ids)
            players = self._players_after(t, outs, ins)
            if t in self._gone and players == 0 and not involved:
                if t not in self.broken:
                    self.journal.append("broken", {"table": t})
                    self.broken.append(t)
                    log.info("table %s broken (TDA 10)", t)
                self._order(t, outs, ins, None, end=True)
                continue
            go = None
            if (not involved and players >= 2 and (not h4h or everyone <= ready) and t not in self._held
                    and t not in short and not self.deal.holds(t)):  # a deal offered: the players answer first
                go = self._go(t)
            if outs or ins or go is not None or self._buys(t) or self._answers.get(t):
                self._order(t, outs, ins, go)
            elif view_changed(self.sent.get(t, {}).get("view"), order_view(self, t)):
                self._order(t, [], [], None)  # a break began, a bust at another table: the screens hear it
        self.deal.due(ready)  # a deal offered during a hand: made now that the hand is over (the go held)
        self.deal.step(ready)  # the deal offered at the final table: its answers, its screens

    def halted_short(self) -> set[str]:
        """Return the tables where play halts until balanced (TDA 11D, full-table play: 3 or
        more players short of the fullest table): among the tables that play on (not broken,
        not breaking, not held for a break), each counted as it will be once the moves
        outstanding are made (players planned or on their way to it in, those planned to
        leave it out). A table that is short waits (no ``go``) for the balancing moves
        (TDA 11), which come once their source tables wait."""
        views = []
        for t in self._live():
            if t in self._held:
                continue
            rep = self.reports.get(t) or {"seats": {}}
            here = {str(v[0]) for v in rep["seats"].values()}
            for m in self.moves.values():
                if m["state"] == "planned" and m["from"] == t and m["to"] != t:
                    here.discard(m["player"])
                if m["state"] in ("planned", "out") and m["to"] == t:
                    here.add(m["player"])
            seats = sorted(here)
            views.append(Table(t, (*seats, *(None,) * (self.settings.seats_per_table - len(seats)))))
        return set(short_tables(views, 3))

    def _ready(self, t: str) -> bool:
        rep = self.reports.get(t)
        if rep is None or not rep.get("waiting"):
            return False
        return int(rep["applied"]) >= int(self.sent.get(t, {}).get("id", 0))

    def _live(self) -> list[str]:
        return [t for t in self.tables if t not in self._gone]

    @property
    def _gone(self) -> set[str]:
        """Tables a round broke (TDA 10: every player moved away) and tables broken; a table
        reopened for a late entry is gone again only by a break after it (:meth:`_reopen`)."""
        return {str(m["from"]) for mid, m in self.moves.items() if m["reason"].startswith("break")
                and mid > self._reopened.get(str(m["from"]), 0)} | set(self.broken)

    def _outstanding(self) -> bool:
        """Moves on their way, or purchases whose chips have not reached their table: no
        balancing is planned meanwhile (a player never moves away from chips sent to his seat)."""
        return (any(m["state"] in ("planned", "out") for m in self.moves.values())
                or any(b["state"] == "planned" for b in self.purchases.values()))

    def _seats(self, t: str) -> dict[int, str]:
        rep = self.reports.get(t) or {"seats": {}}
        seats = {int(s): str(v[0]) for s, v in rep["seats"].items()}
        for m in self.moves.values():  # entries and moves on their way here hold their seats
            if m["to"] == t and m["state"] in ("planned", "out"):
                seats[int(m["to_seat"])] = m["player"]
        return seats

    def _players_after(self, t: str, outs: list[Any] | None = None, ins: list[Any] | None = None) -> int:
        rep = self.reports.get(t) or {"seats": {}}
        here = {str(v[0]) for v in rep["seats"].values()}
        here -= {m["player"] for _, m in outs or []}
        here |= {m["player"] for _, m in ins or []}
        return len(here)

    # ------------------------------------------------------------------ busts and balancing
    def _busts(self, ready: set[str]) -> None:
        new: dict[str, int] = {}
        hands: list[tuple[str, int]] = []
        for t, rep in self.reports.items():
            for h, busted in rep.get("busts", {}).items():
                if (t, int(h)) not in self.busted_seen:
                    hands.append((t, int(h)))
                    new.update({str(k): int(v) for k, v in busted.items()})
        if not new:
            return
        if self.hand_for_hand() and not set(self._live()) <= ready:
            return  # hand-for-hand: the hand's busts at every table are one hand for places
        new = {p: v for p, v in new.items() if p in self.standings.alive}
        # a player busted before his move: it is called off, in the bust's transaction (a room
        # killed between the two came back with a busted player's move still to be carried out)
        called_off = [mid for mid, m in self.moves.items() if m["player"] in new and m["state"] == "planned"]
        # a purchase whose chips had not reached him: refunded (its price out of the prize pool)
        unpaid = [b for b in self.purchases.values() if b["player"] in new and b["state"] == "planned"]
        self.journal.append_many([("bust", {"busted": new, "hands": hands})]
                                 + [("cancelled", {"move": mid}) for mid in called_off]
                                 + [("refund", {"purchase": b["id"], "why": "the player was out before the chips came"})
                                    for b in unpaid])
        for b in unpaid:
            self._unbook(int(b["id"]))
        self.busted_seen.update(hands)
        if new:
            self.standings.bust(new)
            log.info("%s out; %s", ", ".join(self.names.get(p, p) for p in sorted(new, key=lambda p: -new[p])),
                     players_left(len(self.standings.alive)))
        for mid in called_off:
            self.moves[mid]["state"] = "cancelled"

    def last_seats(self) -> dict[str, tuple[str, int]]:
        """Return ``{player: (table, seat)}``: the seat each player the room seated took last,
        by its moves carried out (``in``: the draw, a balancing or breaking move, the final
        redraw; a refused move-in's ``reseat`` counted). A busted player's is the seat he
        busted from (a move called off at his bust never took him anywhere)."""
        where: dict[str, tuple[str, int]] = {}
        for mid in sorted(self.moves):
            m = self.moves[mid]
            if m["state"] == "in":
                where[str(m["player"])] = (str(m["to"]), int(m["to_seat"]))
        return where

    def out_seats(self, table: str) -> dict[str, dict[str, Any]]:
        """Return the places of the players who busted at ``table`` by the seat they busted
        from, while nobody has taken it since (no player there in the table's last report,
        none on his way to it): ``{"5": {"name": "Player 5", "place": 6, "tied_to": 6,
        "prize": 0}}``, the shape of a single table's view (``TournamentTable.out_seats``).
        ``place`` as the standings give it once the room placed the bust (TDA simultaneous
        eliminations: busts of one hand, or of one hand-for-hand hand at every table, by
        their starting stacks; ``tied_to`` > ``place``: equal stacks share the places), the
        ``prize`` in money (0 out of the money) as the prize pool stands now."""
        finishes = [f for f in self.standings.finishes() if f.player not in self.standings.alive]
        if not finishes:
            return {}
        amounts = payout_amounts(self.settings.payouts, self.standings.prize_pool(), len(self.standings.entries))
        paid = prizes(finishes, amounts, self.settings.payouts.unit)
        where, taken = self.last_seats(), set(self._seats(table))
        out: dict[str, dict[str, Any]] = {}
        for f in sorted(finishes, key=lambda f: -f.place):  # a seat's latest bust last
            at = where.get(f.player)
            if at is not None and at[0] == table and at[1] not in taken:
                out[str(at[1])] = {"name": self.names.get(f.player, f.player), "place": f.place,
                                   "tied_to": f.tied_to, "prize": paid.get(f.entry_id, 0)}
        return out

    def hand_for_hand(self) -> bool:
        """True on the bubble with more than one table playing (TDA: hand-for-hand)."""
        entries = len(self.standings.entries)
        paid = sum(1 for a in payout_amounts(self.settings.payouts, self.standings.prize_pool(), entries) if a)
        return hand_for_hand(len(self.standings.alive), paid, len(self._live()))

    def late_reserve(self) -> int:
        """Return the empty seats a table break must leave for late entries (seats): the
        tournament's ``late_registration_free_seats`` (default: one table's seats) while late
        registration is open (TDA 9: until the end of level ``late_registration_until_level``
        by the room's clock, the test :meth:`register` makes), else 0. A plan made while it
        is open breaks no table that would leave fewer (:func:`rebalance`'s ``reserve``); the
        first plan after it closes breaks them, in the set order (TDA 10). It depends on
        journalled state only (the settings of ``start``, the clock of ``clock``), so a room
        restored after a kill plans as it would have."""
        until = self.settings.late_registration_until_level
        st = self.clock.status(self.now())
        if not until or not st.started or st.level.number > until:
            return 0
        return self.settings.late_free_seats

    def _plan(self, ready: set[str]) -> None:
        live = [t for t in self.tables if t not in self._gone]
        views = []
        for t in live:
            seats = self._seats(t)
            rep = self.reports.get(t) or {}
            views.append(Table(t, tuple(seats.get(n) for n in range(1, self.settings.seats_per_table + 1)),
                               rep.get("last_big_blind")))
        if any(t not in self.reports for t in live):
            return
        rng = random.Random(f"{self.seed}-{self.rounds}")
        try:
            moves, _ = rebalance(views, [t for t in self.break_order if t in live], self.settings.seats_per_table,
                                 rng, reserve=self.late_reserve())
        except BalancingError as exc:  # the reports are checked (_refuse): this should not happen; the room goes on
            if len(self.problems) < 20:
                self.problems.append(f"balancing: {exc}")
            log.error("balancing refused the tables as reported: %s", exc)
            return
        moves = self._merge(moves)
        held = self._held_by(moves)
        self._held = held if not held <= ready else set()
        if not moves or self._held:
            # TDA 10: the tables one plan breaks break together, in the set order, once every one
            # of them waits; till then they are dealt no more (step). A break cut in part (the
            # tables that wait) would break a later table first or send players to the seats a
            # whole plan gives them: table sizes further apart.
            return
        if not any("redraw" in m.reason for m in moves):
            # every break (their tables wait), then of the balancing (TDA 11, on the tables as
            # they stand after the breaks) the first moves whose source waits: the player the
            # rules pick now, between hands. Each move evens the tables a little (the fullest
            # to the shortest); the rest follow when their tables wait.
            keep = [m for m in moves if m.reason.startswith("break")]
            for m in moves:
                if m.reason.startswith("break"):
                    continue
                if m.from_table not in ready:
                    break
                keep.append(m)
            moves = keep
        if moves:
            self._round(views, moves, self._draw_buttons(moves))

    def _draw_buttons(self, moves: list[Move]) -> list[dict[str, Any]]:
        """Draw for the button by cards at every table whose seats ``moves`` all draw: each
        table of the start's draw (TDA 7) and the redrawn final table (WSOP Rule 85 "There
        will be a draw for the button with 3, 2 and 1 table(s) remaining"; the TDA Rules leave
        the button at a new table to the house: docs/tournament.md). One card face up to each
        player there, seat 1 upwards, the highest card (rank, then suit: spades, hearts,
        diamonds, clubs) wins (:func:`controller.tournament.button.button_draw`); the deck
        shuffled with the tournament's seed, the round and the table (the same on a restart;
        the cards are journalled with the round besides). Return one
        ``{"table", "player", "seat", "draw": ButtonDraw.to_json(), "why": "start" | "final"}``
        a table of 2 or more players, by table; none when ``moves`` draw no table."""
        tables: dict[str, dict[int, str]] = {}
        why = "final"
        for m in moves:
            if m.reason == "draw" or "redraw" in m.reason:
                tables.setdefault(str(m.to_table), {})[int(m.to_seat)] = m.player
                why = "start" if m.reason == "draw" else why
        out = []
        for table, seats in sorted(tables.items()):
            if len(seats) < 2:
                continue  # nobody to draw against: the table's first deal places its button
            drawn = button_draw(seats, random.Random(f"{self.seed}-button-{self.rounds}-{table}"))
            out.append({"table": table, "player": seats[drawn.button], "seat": drawn.button,
                        "draw": drawn.to_json(), "why": why})
        return out

    @staticmethod
    def _held_by(moves: list[Move]) -> set[str]:
        """Return the tables ``moves`` (one plan, merged) must wait for before any of them is
        made: every table a break moves players from (TDA 10), and with a final table redraw
        every table it moves players from (the final table too: its players are redrawn)."""
        if any("redraw" in m.reason for m in moves):
            return {str(m.from_table) for m in moves if m.from_table}
        return {str(m.from_table) for m in moves if m.reason.startswith("break") and m.from_table}

    @staticmethod
    def _merge(moves: list[Move]) -> list[Move]:
        """One move per player: a player moved twice in one plan (a break, then another break
        or the final redraw) moves once, from his seat to his last one."""
        first: dict[str, Move] = {}
        for m in moves:
            f = first.get(m.player)
            first[m.player] = m if f is None else Move(m.player, f.from_table, f.from_seat, m.to_table, m.to_seat,
                                                       f"{f.reason}+{m.reason}")
        return list(first.values())

    def _round(self, views: list[Table], moves: list[Move], buttons: list[dict[str, Any]] | None = None) -> None:
        """Journal and take one round of ``moves`` decided on ``views``; ``buttons``: the
        buttons drawn by cards at the tables it draws (:meth:`_draw_buttons`), each given with
        its table's next ``go``."""
        base = max(self.moves, default=0)
        moves = self._merge(moves)
        rows: list[dict[str, Any]] = [
            {"id": base + i, "player": m.player, "from": m.from_table, "from_seat": m.from_seat,
                 "to": m.to_table, "to_seat": m.to_seat, "reason": m.reason, "state": "planned",
                 "chips": self.settings.starting_stack if m.reason == "draw" else None}
                for i, m in enumerate(moves, 1)]
        event: dict[str, Any] = {"tables": [{"table": v.table_id, "seats": list(v.seats),
                                             "last_big_blind": v.last_big_blind} for v in views], "moves": rows}
        if buttons:
            event["buttons"] = buttons
        self.journal.append("round", event)
        self.rounds += 1
        for b in buttons or []:
            self._buttons[str(b["table"])] = dict(b)
        for r in rows:
            self.moves[int(r["id"])] = r
        drawn = [m for m in moves if m.reason == "draw"]
        if drawn:
            log.info("seats drawn (TDA 7): %s", ", ".join(f"{self.names.get(m.player, m.player)} {m.to_table} seat "
                                                         f"{m.to_seat}" for m in drawn))
        for m in moves:
            if m.reason != "draw":
                log.info("%s", move_line(m, self.names.get(m.player, m.player)))
        for b in buttons or []:
            log.info("%s %s: button draw (WSOP 85, high card): %s %s",
                     "final table" if b["why"] == "final" else "table", b["table"],
                     ButtonDraw.from_json(b["draw"]).words(), self.names.get(b["player"], b["player"]))

    # ------------------------------------------------------------------ orders
    def _go(self, t: str) -> dict[str, Any] | None:
        now = self.now()
        if self.clock.status(now).on_break:
            return None
        level = self.clock.level_for_hand(now)
        go: dict[str, Any] = {"hand": int(self.reports[t]["hands"]) + 1, "stakes": level_stakes(level)}
        b = self._buttons.pop(t, None)
        if b is not None:
            # the table's first hand after its draw for the button (the start, the redrawn final
            # table): the button at the seat its winner holds now (the moves of this order are
            # carried out before the deal; a refused move-in's reseat counted)
            player = str(b["player"])
            last = next((m for _, m in sorted(self.moves.items(), reverse=True)
                         if m["player"] == player and m["state"] != "cancelled"), None)
            if b.get("why") == "start" and int(self.reports[t]["hands"]) > 0:
                log.warning("table %s: the button drawn at the start comes after its first hand: the "
                            "table's rotation keeps it", t)
            elif last is not None and last["to"] == t:
                go["button"] = int(last["to_seat"])
            else:
                log.warning("table %s: %s, who won the draw for the button, no longer sits there: the "
                            "table's rotation places it", t, self.names.get(player, player))
        return go

    def _order(self, t: str, outs: list[Any], ins: list[Any], go: dict[str, Any] | None, end: bool = False,
               reopen: bool = False) -> None:
        oid = int(self.sent.get(t, {}).get("id", 0)) + 1
        order = {"schema": 1, "table": t, "id": oid, "tournament": self.tournament_id,
                 "out": [{"move": mid, "seat": m["from_seat"], "player": m["player"], **move_notice(self, t, m)}
                         for mid, m in outs],
                 "in": [{"move": mid, "seat": m["to_seat"], "player": m["player"],
                         "name": self.names.get(m["player"], m["player"]),
                         "chips": None if m["from"] == t else m["chips"], **move_notice(self, t, m)}
                        for mid, m in ins],
                 "go": go, "end": end, "view": order_view(self, t)}
        buys = self._buys(t)
        if buys:
            order["buy"] = [{"purchase": b["id"], "seat": b["seat"], "player": b["player"], "kind": b["kind"],
                             "chips": b["chips"]} for b in buys]
        answers = self._answers.pop(t, None)
        if answers:  # at most MAX_ORDER_ANSWERS, the first requests first; the rest in the next order
            keys = sorted(answers, key=int)
            order["answers"] = {k: answers[k] for k in keys[:MAX_ORDER_ANSWERS]}
            if len(keys) > MAX_ORDER_ANSWERS:
                self._answers[t] = {k: answers[k] for k in keys[MAX_ORDER_ANSWERS:]}
        if reopen:  # a broken table opened again for a late entry (the table takes it after its end)
            order["reopen"] = True
        self._send(t, order, journal=True)

    def _send(self, t: str, order: dict[str, Any], *, journal: bool) -> None:
        if journal:
            self.journal.append("order", order)
        self.sent[t], self.sent_at[t] = order, time.monotonic()
        self.send(t, json.dumps(order, separators=(",", ":")).encode())

    # ------------------------------------------------------------------ the end
    def _finish(self) -> None:
        finishes = self.standings.finishes()
        pool = self.standings.prize_pool()
        amounts = payout_amounts(self.settings.payouts, pool, len(self.standings.entries))
        paid = prizes(finishes, amounts, self.settings.payouts.unit)
        places, payouts = [f.player for f in finishes], [paid[f.entry_id] for f in finishes]
        if sum(payouts) != pool:
            self.problems.append(f"payouts sum to {sum(payouts)}, the prize pool is {pool}")
        self.result = {"places": places, "payouts": payouts, "prize_pool": pool}
        self.journal.append("payouts", self.result)
        log.info("the tournament is over: %s", ", ".join(
            f"{ordinal(n)} {self.names.get(p, p)} {m}" for n, (p, m) in enumerate(zip(places, payouts), 1) if m))

    def _clock_snapshot(self) -> None:
        now = self.now()
        st = self.clock.status(now)
        if st.index != self._level or now - self._clock_at >= CLOCK_EVERY:
            if st.index != self._level:
                log.info("break before level %d" if st.on_break else "level %d: blinds %s (TDA 23)", st.level.number,
                         *(() if st.on_break else (stakes_words(level_stakes(st.level)),)))
            self._level = st.index
            self._snapshot()

    def _snapshot(self) -> None:
        now = self._clock_at = self.now()
        st = self.clock.status(now)
        self.journal.append("clock", {"level": st.level.number, "on_break": st.on_break,
                                      "clock": self.clock.to_json(now)})

    # ------------------------------------------------------------------ checks and output
    def check(self) -> None:
        """Chips after a report (the module docstring): the tables' chips + in transit +
        entries not yet seated = chips in play. A break is recorded in :attr:`problems`."""
        if any(t not in self.reports for t in self.tables) or len(self.problems) >= 20:
            return
        tables = sum(int(r["ledger"]["in"]) - int(r["ledger"]["out"]) for r in self.reports.values())
        transit = sum(int(m["chips"] or 0) for m in self.moves.values()
                      if m["state"] == "out" or (m["state"] == "planned" and not m["from"]))
        transit += sum(int(b["chips"]) for b in self.purchases.values() if b["state"] == "planned")
        self.checks += 1
        if tables + transit != self.standings.chips_in_play():
            self.problems.append(f"chips: tables {tables} + in transit {transit} != chips in play "
                                 f"{self.standings.chips_in_play()}")

    @property
    def finished(self) -> bool:
        """True once the payouts are journalled and every table reported carrying out the order
        that ended it (so every move's chips are in the room's books)."""
        return self.result is not None and all(
            self.sent.get(t, {}).get("end") and t in self.reports and self.reports[t].get("ended")
            and int(self.reports[t]["applied"]) >= int(self.sent[t]["id"]) for t in self.tables)

    def summary(self) -> dict[str, Any]:
        """The JSON summary: ``places`` (player ids, 1st first), ``names`` (the same places by
        name: ``Player 17``), ``payouts``, ``prize_pool``, ``moves`` (players moved
        between or within tables, entries not counted), ``tables_broken``, ``hands`` (every
        table's), ``checks``, ``problems`` and ``ok``."""
        out: dict[str, Any] = dict(self.result) if self.result else {
            "places": [], "payouts": [], "prize_pool": self.standings.prize_pool()}
        done = [m for m in self.moves.values() if m["from"] and m["state"] == "in"]
        open_moves = [m for m in self.moves.values() if m["state"] in ("planned", "out")]
        open_moves += [b for b in self.purchases.values() if b["state"] == "planned"]
        out.update(moves=len(done), tables_broken=len(self.broken),
                   hands=sum(int(r["hands"]) for r in self.reports.values()), checks=self.checks,
                   entries=len(self.standings.entries), rebuys=self.standings.rebuys, addons=self.standings.addons,
                   problems=list(self.problems))
        out["names"] = [self.names.get(p, p) for p in out["places"]]
        out["ok"] = (not self.problems and self.result is not None and not open_moves
                     and sum(out["payouts"]) == out["prize_pool"] and self.checks > 0)
        return out

    # ------------------------------------------------------------------ the director's clock (issue 19)
    def direct(self, command: str, *, by: str, reason: str | None = None, amount: int | None = None,
               record: Callable[[Any, str], None] | None = None) -> str:
        """Carry out the tournament director's clock ``command`` (the floor console's
        ``POST /api/tournament``, ``livetable room director``; the room's loop thread) and
        return what was done in words, ending with ``(by)``.

        ``clock-pause`` / ``clock-resume`` stop / run the room's clock, the time left kept
        (hands are still dealt at the clock's level); ``clock-add`` gives ``amount`` seconds
        more (negative: fewer) to the level or break, within 0..its length; ``clock-level``
        goes to the start of level number ``amount``, which every table plays from its next
        hand (TDA 23: a hand keeps the level it was dealt at). The same rule as the single
        table's (:func:`controller.tournament.director.clock_command`).

        Journalled before the clock changes, as a ``clock`` event carrying ``director``
        (``command``, ``by``, ``reason``, ``amount``): :meth:`restore` takes the newest
        ``clock`` event, so a room killed after it comes back paused if it was, with the same
        time left. Every table that waits between hands is sent the new view at once; the
        others get it with their next order. ``record(tx, words)``: written in the same
        transaction as the ``clock`` event (the console's floor record: both or neither; needs
        a :class:`StoreJournal`).

        Raises:
            controller.tournament.director.CommandError: an unknown command, ``amount`` not
                an int, no such level (nothing journalled).
            controller.tournament.errors.TournamentError: refused by the tournament's state:
                over, not started, pausing a paused clock, time beyond the level (``F-3: ...``).
            room.store.StoreError: it could not be journalled (nothing changed).
        """
        if self.result is not None:
            raise TournamentError("F-3: the tournament is over")
        now = self.now()
        if not self.clock.status(now).started:
            raise TournamentError("F-3: the tournament has not started")
        clock, detail = clock_command(self.settings, self.clock, now, command, amount)
        st = clock.status(now)
        event = {"level": st.level.number, "on_break": st.on_break, "clock": clock.to_json(now),
                 "director": {"command": command, "by": by, "reason": reason, "amount": amount}}
        self._journal_with("clock", event, record, f"{detail} ({by})")
        self.clock, self._clock_at = clock, now
        log.info("director %s: %s%s", by, detail, f" ({reason})" if reason else "")
        for t in self.tables:  # the tables waiting between hands see it now; the others with their next order
            if self._ready(t) and not self.sent.get(t, {}).get("end"):
                self._order(t, [], [], None)
        return f"{detail} ({by})"

    def register(self, name: str, *, by: str, player: str | None = None, reason: str | None = None,
                 record: Callable[[Any, str], None] | None = None, request: str | None = None) -> str:
        """Register a late entry, or a re-entry of a busted player (the floor console's
        ``POST /api/tournament`` ``register``, ``livetable room director register``; the room's
        loop thread); return what was done in words, ending with ``(by)``.

        ``name``: the player as the floor knows him (one line, 1..40 characters, no control
        characters); ``player``: his room player id (:func:`room.ids.check_player_id`), None:
        the player already registered under ``name`` (case, spacing and punctuation around it
        ignored, as a table compares names) or a new id ``pN``. A known player is a re-entry:
        only once he is out (his bust taken by the room) and while he has re-entries left
        (``reentry.max``); a player id of someone else's name, or a known player id under
        another name (his earlier entries keep theirs), is refused. Names are compared as
        :func:`controller.engine.table.seating.player_for_name` folds them (NFKC, case, format
        characters), so a zero-width or full-width variant is the same player (breaker 2 H1).

        TDA 9: accepted until the end of level ``late_registration_until_level`` (the level
        the room's clock is at now, as at a single table: :meth:`controller.tournament_run.TournamentTable`);
        a full starting stack (chips), the entry's price added to the prize pool (money).
        Seated at the table with the fewest players (counting the moves on their way, among the
        tables that play on: not broken, breaking or held for a break; a tie drawn at random),
        in a random free seat there (TDA 9: a seat drawn from the seats open to new players).
        With every seat taken, the broken table that broke last and still reports is reopened
        for him (:meth:`_reopenable`; house policy, the TDA is silent: the ``register`` event
        carries ``reopen``, the table is sent a ``reopen`` order, then the entry, and balancing,
        TDA 11, fills it).
        The table is sent the order to seat him between hands (an ``in`` with the starting
        stack, as a draw's entry: the table's link seats him), in transit in the room's books
        until its report shows him seated (the conservation check holds meanwhile).

        Journalled, before anything changes, as one ``register`` event (``player``, ``name``,
        ``level``, ``by``, ``reason``, ``move``: the seat): :meth:`restore` replays it, so a room
        killed after it comes back with the entry counted and seated once. ``record(tx, words)``:
        written in the same transaction as the ``register`` event (the console's floor record:
        both or neither, breaker 2 H2; needs a :class:`StoreJournal`). ``request``: the table's
        re-entry request it answers (``"<table>:<request id>"``, :meth:`_take_requests`),
        journalled with the event: that request is answered with this entry from then on.

        Raises:
            controller.tournament.errors.TournamentError: refused (nothing journalled): the
                tournament over or not started, late registration closed, a bad name or player
                id, the player still in, no re-entry left, no free seat.
            room.store.StoreError: it could not be journalled (nothing changed).
        """
        import copy

        from controller.engine.table.seating import player_for_name
        from room.ids import PlayerIdError, check_player_id

        if self.result is not None:
            raise TournamentError("F-3: the tournament is over")
        now = self.now()
        st = self.clock.status(now)
        if not st.started:
            raise TournamentError("F-3: the tournament has not started")
        try:
            text = entry_name(name)
            key = player_for_name(text)
            if player is not None:
                player = check_player_id(player)
        except (ValueError, PlayerIdError) as exc:
            raise TournamentError(f"TDA 9: {exc}") from None
        level, until = st.level.number, self.settings.late_registration_until_level
        if level > until:
            raise TournamentError(f"TDA 9: late registration closed at the end of level {until} (level {level} now)"
                                  if until else "TDA 9: this tournament takes entries before the start only")
        named = next((p for p, n in self.names.items() if player_for_name(n) == key), None)
        if player is None:
            player = named
        elif named is not None and named != player:
            raise TournamentError(f"F-3: {text} is the name of player {named}, not {player}")
        if player is not None and player in self.standings.alive:
            late = [m for _, m in sorted(self.moves.items()) if m["player"] == player and m["reason"] == "late"]
            done = (f": his entry at {late[-1]['to']} seat {late[-1]['to_seat']} is registered already (a retry "
                    "after a lost answer changes nothing)" if late else "")
            raise TournamentError(f"F-3: {self.names.get(player, text)} is still in the tournament "
                                  f"(a re-entry comes after a bust){done}")
        if player in self.names and player_for_name(self.names[player]) != key:  # M-2 (breaker 2): no renaming
            raise TournamentError(f"F-3: player {player} is registered as {self.names[player]}, not {text} "
                                  "(a re-entry keeps the player's name)")
        reentry = player is not None and self.standings.entries_of(player) > 0
        if player is None:
            n = len(self.names) + 1
            while f"p{n}" in self.names:
                n += 1
            player = f"p{n}"
        trial = copy.deepcopy(self.standings)
        try:  # reentry.max: the standings' own check, before the journal
            trial.register(player, level, name=self.names.get(player, text))
        except TournamentError as exc:
            raise TournamentError(f"TDA 9: {exc}") from None
        table, seat = self._late_seat(player)
        reopen = table in self.broken  # every seat was taken: a broken table opens again (_late_seat)
        mid = max(self.moves, default=0) + 1
        row: dict[str, Any] = {"id": mid, "player": player, "from": "", "from_seat": 0, "to": table,
               "to_seat": seat, "reason": "late", "state": "planned", "chips": self.settings.starting_stack}
        what = "re-enters" if reentry else "enters"
        said = (f"{self.names.get(player, text)} ({player}) {what} at level {level}: {table} seat {seat}, "
                f"{self.settings.starting_stack:,} chips ({by})")
        event = {"player": player, "name": text, "level": level, "by": by, "reason": reason, "reentry": reentry,
                 "move": row, **({"request": request} if request else {}), **({"reopen": table} if reopen else {})}
        if reopen:
            said = said.replace(f": {table} seat", f": {table} (reopened: every other seat is taken) seat", 1)
        self._journal_with("register", event, record, said)
        if request:
            self._entered[request] = mid
        if reopen:
            self._reopen(table, mid)
        self.standings.register(player, level)  # TDA 9: a full starting stack
        self.names.setdefault(player, text)  # a re-entry keeps the name he entered under (M2)
        self.moves[mid] = row
        log.info("late entry: %s (%s) %s at level %d: %s seat %d (%s)", text, player, what, level, table, seat, by)
        return said

    def _late_seat(self, player: str) -> tuple[str, int]:
        """Return ``(table, seat)`` for a late entry: the table with the fewest players of those
        that play on (each counted with the moves on their way: in and out), a tie drawn at
        random; a random free seat there (TDA 9). Only a table whose seating the room knows is
        a candidate: after :meth:`restore`, one that has reported since (reports are not
        journalled, and a table not heard from is not empty; breaker 2 H3).

        Tables are not broken while late registration would keep fewer free seats than
        ``late_registration_free_seats`` (:meth:`late_reserve`), so a late entry finds one
        unless entries outran the reserve (or it is 0).

        Raises:
            TournamentError: no seat free (every seat taken: the reason says the reserve is
                filled and that a broken table is not reopened); or none known free while a
                table has not reported since the room started ("wait until tX reports", the
                console's 409).
        """
        rng = random.Random(f"{self.seed}:register:{len(self.standings.entries)}")
        counts, free, unknown = self._open_seats()
        if not counts:
            if unknown:
                raise TournamentError(f"F-3: no seat is known to be free: wait until {', '.join(unknown)} "
                                      f"report{'s' if len(unknown) == 1 else ''} (the room has not heard from "
                                      f"{'it' if len(unknown) == 1 else 'them'} since it restarted), "
                                      "then register again")
            if any(t in self._held for t in self._live()):
                raise TournamentError("F-3: no seat is free: a table break or the final table redraw is under way "
                                      "(TDA 10); register again once its players are seated")
            table = self._reopenable()
            if table is not None:  # house policy (the TDA is silent): a card room opens a table
                return table, rng.choice(range(1, self.settings.seats_per_table + 1))
            reserve = self.settings.late_free_seats
            raise TournamentError(
                "F-3: no seat is free at the tables that play on: every seat is taken (late_registration_free_seats "
                f"= {reserve}: the seats kept for late entries are filled{'' if reserve else ', none were kept'}); "
                "no broken table can be reopened (none was broken, or none reported ended and empty in the last "
                f"{REOPEN_HEARD_SECONDS:g} s: its table process is not running): register again after a bust "
                "frees a seat")
        fewest = min(counts.values())
        table = rng.choice([t for t in self.tables if counts.get(t) == fewest])
        return table, rng.choice(free[table])

    def _reopenable(self) -> str | None:
        """Return the broken table a late entry who finds every seat taken reopens, the last
        broken first, or None: one whose table process still reports (its report taken within
        :data:`REOPEN_HEARD_SECONDS`, of the process the room knows), saying it carried out the
        room's last order, its ``end``, and has nobody seated (house policy: the TDA is silent
        on reopening; TDA 9 seats a late entry in a seat open to new players)."""
        now = time.monotonic()
        for t in reversed(self.broken):
            rep, sent = self.reports.get(t), self.sent.get(t, {})
            if (rep is not None and rep.get("ended") and not rep["seats"] and sent.get("end")
                    and int(rep["applied"]) >= int(sent.get("id", 0)) and t not in self._held
                    and now - self.heard.get(t, float("-inf")) <= REOPEN_HEARD_SECONDS):
                return t
        return None

    def _reopen(self, table: str, mid: int) -> None:
        """Take ``table`` back among the tables that play on: a late entry (move ``mid``, its
        ``register`` journalled with ``reopen``) is seated there. The next :meth:`step` sends it
        an order with ``reopen`` (the table takes it after its ``end``; sent again after a
        restart until the table reports it), then the entry; balancing (TDA 11) fills it."""
        if table in self.broken:
            self.broken.remove(table)
        self._reopened[table] = mid
        log.info("table %s reopened for a late entry (every other seat is taken)", table)

    def _open_seats(self, skip: str = "") -> tuple[dict[str, int], dict[str, list[int]], list[str]]:
        """Return ``(players, free seats, unknown)``: for each table that plays on (not ``skip``,
        held for a break or ended) whose seating the room knows, its players and its free seats
        (the moves on their way counted, the draw's before a first report), when it has a free
        seat; ``unknown``: the tables not heard from since the room was restored (:meth:`restore`:
        their seating unknown, never counted as empty)."""
        counts: dict[str, int] = {}
        free: dict[str, list[int]] = {}
        unknown: list[str] = []
        for t in self._live():
            reopening = t in self._reopened and t not in self.broken  # its reopen order not sent yet
            if t == skip or t in self._held or (self.sent.get(t, {}).get("end") and not reopening):
                continue
            rep = self.reports.get(t)
            if rep is None and self._restored:
                unknown.append(t)
                continue
            here = {str(v[0]) for v in (rep or {"seats": {}})["seats"].values()}  # not reported: the draw's
            taken = set(self._seats(t))
            for m in self.moves.values():
                if m["state"] in ("planned", "out") and m["to"] == t:
                    here.add(m["player"])
                if m["state"] == "planned" and m["from"] == t and m["to"] != t:
                    here.discard(m["player"])
                    taken.add(int(m["from_seat"]))  # still sitting there until the order is carried out
            open_seats = [n for n in range(1, self.settings.seats_per_table + 1) if n not in taken]
            if open_seats:
                counts[t], free[t] = len(here), open_seats
        return counts, free, unknown

    # ------------------------------------------------------------------ rebuys and add-ons (issue 19)
    def _journal_with(self, kind: str, event: dict[str, Any], record: Callable[[Any, str], None] | None,
                      words: str) -> None:
        """Journal ``event`` as ``kind``; with ``record``, ``record(tx, words)`` (the console's
        floor record) is written in the same transaction (both or neither; needs a
        :class:`StoreJournal`)."""
        if record is None:
            self.journal.append(kind, event)
        else:
            self.journal.append(kind, event, also=lambda tx: record(tx, words))

    def purchase(self, kind: str, player: str, *, by: str, reason: str | None = None,
                 request: str | None = None, record: Callable[[Any, str], None] | None = None) -> str:
        """Book a rebuy or an add-on (``kind``) of ``player`` (his room id, or his name as the
        floor knows him) and return what was done in words, ending with ``(by)``: the
        director's command (``POST /api/tournament``, ``livetable room director rebuy|addon``)
        or a table's request (``request``: ``"<table>:<request id>"``, the player the table
        has in the seat; the room's loop thread).

        The single table's rules (:meth:`controller.tournament.results.Standings.rebuy` and
        ``addon``, checked on a copy of the standings): a rebuy at a level up to
        ``rebuy.until_level`` of the room's clock, the player's stack (his table's last report,
        which must be one between hands: refused with ``wait for the hand to end`` while his
        table plays a hand, breaker 3 M2; with the chips of his purchases on their way) at
        most ``rebuy.max_stack``, rebuys left, and one rebuy between two hands (breaker 3 M1, as
        at a single table: a second rebuy of the player booked while his table's report says the
        same ``hands`` dealt as at the first, a double-click or the dealer and the floor both, is
        refused ``F-3: ... one rebuy between two hands``; the purchase row keeps ``hands``);
        an add-on on the break after level ``addon.at_break``, add-ons left. The player must be
        seated at a table that plays on, with no move of his on its way.

        Journalled, before anything changes, as one ``purchase`` event (``id``, ``kind``,
        ``player``, ``table``, ``seat``, ``chips``, ``price`` (money), ``level``, ``stack`` or
        ``after_level``, ``by``, ``reason``, ``request``), replayed by :meth:`restore`; then
        its price is in the prize pool and its chips in play, in transit (the conservation
        check holds) until the table's report says they are at the seat (``bought``:
        ``purchase-in``). The table is ordered to bring them between hands (an order's
        ``buy``); a table that cannot (the player left the seat or is out) says so
        (``refused_buy``) and the purchase is refunded (``refund``: its price out of the
        prize pool, its chips out of play), as it is when the player busts before they came.
        ``record(tx, words)``: written in the same transaction as the ``purchase`` event (the
        console's floor record: both or neither, as for ``register``; needs a
        :class:`StoreJournal`).

        Raises:
            controller.tournament.errors.TournamentError: refused (nothing journalled; the
                message gives the rule: ``rebuy: ...``, ``addon: ...``, ``F-3: ...``).
            room.store.StoreError: it could not be journalled (nothing changed).
        """
        if kind not in ("rebuy", "addon"):
            raise TournamentError(f"F-3: {kind!r} is no purchase (rebuy or addon)")
        if self.result is not None:
            raise TournamentError("F-3: the tournament is over")
        st = self.clock.status(self.now())
        if not st.started:
            raise TournamentError("F-3: the tournament has not started")
        player = self._player_id(player)
        name = self.names.get(player, player)
        row = self._check_purchase(kind, player, copy.deepcopy(self.standings), st)
        table, seat = row["table"], row["seat"]
        bought = self.settings.rebuy if kind == "rebuy" else self.settings.addon
        row.update(id=max(self.purchases, default=0) + 1, chips=bought.chips, price=bought.price, state="planned",
                   request=request, by=by, reason=reason)
        what = "rebuy" if kind == "rebuy" else "add-on"
        said = (f"{name}'s {what} at {table} seat {seat}: {bought.chips:,} chips, {bought.price:,} to the prize "
                f"pool; the chips are brought between hands ({by})")
        self._journal_with("purchase", row, record, said)
        self._book(dict(row))
        log.info("%s: %s's %s at %s seat %d, %d chips (%s)", kind, name, what, table, seat, bought.chips, by)
        return said

    def _check_purchase(self, kind: str, player: str, trial: Standings, st: Any) -> dict[str, Any]:
        """Check a ``kind`` purchase of ``player`` now (clock status ``st``) with the rules of
        :meth:`Standings.rebuy` / ``addon`` on ``trial`` (a copy of the standings: the purchase
        is recorded there); return the ``purchase`` event's fields so far (``kind``, ``player``,
        ``table``, ``seat``, ``level`` + ``stack`` + ``hands`` or ``after_level``). Decided on a report of
        his table between hands only (breaker 3 M2): while its last report says a hand runs
        (``running``: the stack is the chips behind, not those in the pot) it is refused,
        ``F-3: ... wait for the hand to end``, and the director asks again after the hand.

        Raises:
            controller.tournament.errors.TournamentError: not allowed (the rule's message).
        """
        name = self.names.get(player, player)
        if player not in self.standings.alive:
            raise TournamentError(f"F-3: {name} is not in the tournament")
        if any(m["player"] == player and m["state"] in ("planned", "out") for m in self.moves.values()):
            raise TournamentError(f"F-3: {name} is on his way to a seat: ask again once he is seated")
        at = next(((t, int(n), int(v[1])) for t, r in self.reports.items() if t in self._live()
                   and not self.sent.get(t, {}).get("end") for n, v in r["seats"].items() if v[0] == player), None)
        if at is None:
            raise TournamentError(f"F-3: {name} is not seated at a table that plays on")
        table, seat, stack = at
        if self.reports[table].get("running"):  # breaker 3 M2: its stack is the chips behind, the pot not counted
            raise TournamentError(f"F-3: {name}'s table {table} is playing a hand: wait for the hand to end "
                                  "(a purchase is decided on the stack between hands)")
        row: dict[str, Any] = {"kind": kind, "player": player, "table": table, "seat": seat}
        try:
            if kind == "rebuy":  # max_stack: the chips of his purchases on their way count
                stack += sum(int(b["chips"]) for b in self.purchases.values()
                             if b["player"] == player and b["state"] == "planned")
                hands = int(self.reports[table].get("hands", 0))
                row.update(level=st.level.number, stack=stack, hands=hands)
                trial.rebuy(player, st.level.number, stack)  # the rules' reasons first
                if any(b["player"] == player and b["kind"] == "rebuy" and b["state"] != "refunded"
                       and b.get("table") == table and b.get("hands") == hands for b in self.purchases.values()):
                    raise TournamentError(  # as at a single table (breaker 3 M1): a double-click, dealer and floor
                        f"F-3: {name} has rebought since the last hand already: one rebuy between two hands "
                        "(a repeated request is not booked twice); ask again after the next hand")
            else:
                row["after_level"] = st.current.after_level if isinstance(st.current, Break) else -1
                trial.addon(player, row["after_level"])
        except TournamentError as exc:
            raise TournamentError(str(exc).replace(f" {player} ", f" {name} ")) from None
        return row

    def offers(self, table: str) -> dict[str, list[str]]:
        """Return what each player of ``table`` (its last report) may buy now, by seat:
        ``{"3": ["rebuy", "addon"]}`` (the rules of :meth:`purchase`; seats with nothing left
        out), what the seat's tablet offers (``Rebuy 2,000``) at a table of the room's
        tournament; {} in a tournament without rebuys or add-ons."""
        if self.result is not None or not (self.settings.rebuy.max or self.settings.addon.max):
            return {}
        st = self.clock.status(self.now())
        if not st.started:
            return {}
        trial = copy.deepcopy(self.standings)
        out: dict[str, list[str]] = {}
        for seat, (player, _stack) in sorted((self.reports.get(table) or {"seats": {}})["seats"].items()):
            kinds = []
            for kind in ("rebuy", "addon"):
                if not (self.settings.rebuy if kind == "rebuy" else self.settings.addon).max:
                    continue
                try:
                    self._check_purchase(kind, str(player), trial, st)
                except TournamentError:
                    continue
                trial.refund(str(player), kind)  # the copy as it was: the next check sees no purchase
                kinds.append(kind)
            if kinds:
                out[str(seat)] = kinds
        return out

    def _player_id(self, player: str) -> str:
        """Return the room id of ``player`` (an id, or a name as the floor knows him: case,
        spacing and punctuation around it ignored). Raises TournamentError: nobody of that id or name."""
        from controller.engine.table.seating import player_for_name

        if player in self.names:
            return player
        key = player_for_name(str(player)) if isinstance(player, str) and player.strip() else ""
        found = next((p for p, n in self.names.items() if key and player_for_name(n) == key), None)
        if found is None:
            raise TournamentError(f"F-3: no player {str(player)[:40]!r} in the tournament")
        return found

    def _book(self, row: dict[str, Any]) -> None:
        """Take a journalled ``purchase`` into the standings (its price into the prize pool)."""
        if row["kind"] == "rebuy":
            self.standings.rebuy(row["player"], int(row["level"]), int(row["stack"]))
        else:
            self.standings.addon(row["player"], int(row["after_level"]))
        self.purchases[int(row["id"])] = row
        if row.get("request"):
            self._requested[str(row["request"])] = int(row["id"])

    def _unbook(self, pid: int) -> None:
        """Take a journalled ``refund`` of purchase ``pid``: out of the standings and of play."""
        b = self.purchases[pid]
        if b["state"] == "planned":
            self.standings.refund(b["player"], b["kind"])
            b["state"] = "refunded"

    def _buys(self, t: str) -> list[dict[str, Any]]:
        """The purchases whose chips ``t`` is to bring (an order's ``buy``), oldest first."""
        return [b for _, b in sorted(self.purchases.items()) if b["table"] == t and b["state"] == "planned"]

    def _take_requests(self, t: str) -> None:
        """Decide the purchase requests of ``t``'s last report (the table waits between hands):
        each booked once (:meth:`purchase`, by the player the table's report has in the seat) or
        refused with the rule; the answer goes with ``t``'s next order."""
        rep = self.reports.get(t) or {}
        answers = self._answers.setdefault(t, {})
        for rid, req in sorted((rep.get("requests") or {}).items(), key=lambda kv: int(kv[0])):
            key = f"{t}:{int(rid)}"
            if req["kind"] == "reentry":
                answer = self._reentry_request(t, key, req, rep)
                if answer is not None:  # None: his bust is not taken yet (hand-for-hand): decided later
                    answers[str(rid)] = answer
                continue
            if req["kind"] == "deal":  # a seat's answer to the deal offered (room/tournament_deal.py)
                answers[str(rid)] = self.deal.answer(t, key, req, rep)
                continue
            if key in self._requested:
                answers[str(rid)] = self._answer_again(t, int(rid), req, self.purchases[self._requested[key]]["player"],
                                                       self.purchases[self._requested[key]]["kind"],
                                                       {"purchase": self._requested[key]})
                continue
            seat = rep["seats"].get(str(req["seat"]))
            if seat is None or seat[0] != req["player"]:
                answers[str(rid)] = {"why": f"F-3: seat {req['seat']} has no such player now"}
                continue
            try:
                self.purchase(str(req["kind"]), str(req["player"]), by=str(req["by"]),
                              reason=req.get("reason"), request=key)
                answers[str(rid)] = {"purchase": self._requested[key]}
            except TournamentError as exc:
                answers[str(rid)] = {"why": str(exc)}
                log.info("table %s: a %s request for seat %s refused: %s", t, req["kind"], req["seat"], exc)
        for a in answers.values():  # every refusal, whatever its kind, fits the order the table takes
            if isinstance(a.get("why"), str):
                a["why"] = a["why"][:ANSWER_WHY_CHARS]
        if not answers:
            self._answers.pop(t, None)

    def _answer_again(self, t: str, rid: int, req: dict[str, Any], player: str, kind: str,
                      answer: dict[str, Any]) -> dict[str, Any]:
        """The answer to table ``t``'s request ``rid`` (``req``) the room decided before, for
        ``player``'s ``kind``: ``answer`` again when ``req`` is that request sent again (a
        lost answer, a restart: never booked twice); else ``{"why": ...}``: the table gave
        the id again to another request (it numbered them afresh: a table started on a new
        journal), which is not booked under the old one (breaker: it was answered with the
        old booking, the new purchase never made)."""
        if str(req["player"]) == player and str(req["kind"]) == kind:
            return answer
        log.warning("table %s: request %d (%s for %s) reuses the id of %s's %s: refused", t, rid, req["kind"],
                    req["player"], player, kind)
        return {"why": f"F-3: request {rid} of {t} was {self.names.get(player, player)}'s {kind} (the table numbers "
                       "its requests afresh: a new journal?); nothing booked: ask again"}

    def _reentry_request(self, t: str, key: str, req: dict[str, Any], rep: dict[str, Any]) -> dict[str, Any] | None:
        """Decide table ``t``'s re-entry request ``key`` (``"t1:4"``), asked at the tablet of
        ``req["seat"]`` for ``req["player"]``, the player the table saw bust from that seat:
        :meth:`register` of that player (TDA 9: late registration open, ``reentry.max``), once
        (a request answered before gets the same entry). Refused while the room does not have
        him out of that seat (someone sits there, or he busted elsewhere since). Return the
        answer for ``t``'s next order: ``{"entry": {"table", "seat"}}`` or ``{"why": words}``;
        None while ``t`` reports him busted and the room has not taken that bust yet
        (hand-for-hand: a hand's busts wait for every table's), decided at a later turn. A
        request ``by`` the player's tablet (``player via table ...``: not confirmed by a dealer
        who took the money, T-3; an older table's) is refused, nothing booked."""
        mid = self._entered.get(key)
        if mid is not None and self.moves[mid]["player"] != req["player"]:
            return self._answer_again(t, int(key.split(":")[-1]), req, str(self.moves[mid]["player"]), "reentry", {})
        if mid is None:
            player, seat = str(req["player"]), int(req["seat"])
            if str(req["by"]).startswith("player via "):
                # breaker (money): a table before the dealer's confirm sent the tablet's press as
                # it came; nobody took the entry's price: never booked into the prize pool
                return {"why": "T-3: a re-entry is paid to the dealer, who confirms it at the table "
                               "(livetable floor confirm-buyin SEAT): nothing booked"}
            if player in self.standings.alive and any(
                    (t, int(h)) not in self.busted_seen and player in busted
                    for h, busted in (rep.get("busts") or {}).items()):
                return None  # reported out, the bust not taken yet (hand-for-hand: every table's hand first)
            if str(seat) in rep["seats"] or self.last_seats().get(player) != (t, seat):
                return {"why": f"F-3: seat {seat} of {t} has no busted player {self.names.get(player, player)} now"}
            try:
                self.register(self.names.get(player, player), by=str(req["by"]), player=player,
                              reason=req.get("reason"), request=key)
            except TournamentError as exc:
                log.info("table %s: a re-entry request for seat %s refused: %s", t, seat, exc)
                return {"why": str(exc)}  # cut to ANSWER_WHY_CHARS with every answer (_take_requests)
            mid = self._entered[key]
        m = self.moves[mid]
        return {"entry": {"table": m["to"], "table_name": self.table_names.get(m["to"], m["to"]),
                          "seat": int(m["to_seat"])}}

    def reentry_offers(self, table: str) -> dict[str, dict[str, int]]:
        """Return, by the seat they busted from at ``table`` (while nobody took it, as
        :meth:`out_seats`), the players who may re-enter now: ``{"5": {"left": 1,
        "until_level": 4}}`` (re-entries left of ``reentry.max``; late registration open to
        the end of that level, TDA 9): what the busted player's tablet offers (``Re-enter``)."""
        if self.result is not None or not self.settings.reentries:
            return {}
        st = self.clock.status(self.now())
        until = self.settings.late_registration_until_level
        if not st.started or st.level.number > until:
            return {}
        taken, out = set(self._seats(table)), {}
        for player, (t, seat) in self.last_seats().items():
            if t != table or seat in taken or player in self.standings.alive:
                continue
            left = self.settings.reentries - (self.standings.entries_of(player) - 1)
            if left > 0:
                out[str(seat)] = {"left": left, "until_level": until}
        return out

    def _confirm_purchases(self, table: str, rep: dict[str, Any]) -> None:
        """Take the report's purchases brought (``bought``: ``purchase-in``) and refused
        (``refused_buy``: ``refund``) of the room's purchases at ``table`` still on their way."""
        bought = {int(x) for x in rep.get("bought", [])}
        refused = {int(k): str(v) for k, v in rep.get("refused_buy", {}).items()}
        for pid, b in sorted(self.purchases.items()):
            if b["table"] != table or b["state"] != "planned":
                continue
            if pid in bought:
                self.journal.append("purchase-in", {"purchase": pid, "table": table})
                b["state"] = "in"
            elif pid in refused:
                self.journal.append("refund", {"purchase": pid, "why": refused[pid][:200]})
                self._unbook(pid)
                log.warning("table %s: %s's %s refunded: %s", table, self.names.get(b["player"], b["player"]),
                            b["kind"], refused[pid])

    def director_status(self) -> dict[str, Any]:
        """Return the tournament as the director sees it (``GET /api/tournament``): the
        tables' view (:func:`room.tournament_view.order_view`: ``level``, ``next_level``,
        ``seconds_left`` (tournament seconds, None on the last level), ``running``,
        ``on_break``, ``players_left``, ``entries``, ``average_stack`` (chips),
        ``prize_pool`` (money), ``places_paid``, ``hand_for_hand``, ``finished``,
        ``clock_speed``), plus ``paused`` (the director stopped the clock), ``problems`` (the
        last 5 of :attr:`problems`: a table on another tournament's journal...), ``levels``
        (``[first, last]`` level number, what ``clock-level`` takes), ``tables``: one
        ``{table, name, players, hands, playing, broken}`` a table, as its last report shows it,
        and what the floor follows (the console's tournament panel):

        - ``moves``: the moves under way (ordered, not yet carried out at both ends), oldest
          first: ``{player, name, from, from_seat, to, to_seat, reason, why, state}``; ``from``
          None and ``from_seat`` 0 for an entry (the draw, a late entry); ``reason`` as
          journalled (``balance``, ``break``, ``redraw``, ``draw``, ``late``, two joined by
          ``+``), ``why`` in words (``balancing, TDA 11``); ``state`` ``planned`` (ordered) or
          ``out`` (left his seat, chips on the way).
        - ``broken_order``: the tables broken, in the order they broke (the first first); a table
          reopened for a late entry leaves it (:meth:`_reopen`) until it breaks again.
        - ``busts``: the places so far, best first (the latest bust first; the winner too once
          one is left): ``{player, name, place, tied_to, prize}``, ``tied_to`` > ``place`` a
          tie sharing those places, ``prize`` in money as the prize pool stands now (0 out of
          the money). A re-entered player's earlier entry has its own row.
        - ``deal``: the deal offered at the final table (:meth:`room.tournament_deal.RoomDeal.status_lines`:
          ``table``, ``offer``, ``method``, ``players`` with ``share`` and ``accepted``, ``words``), None."""
        st = self.clock.status(self.now())
        numbers = level_numbers(self.settings)
        tables = []
        for t in self.tables:
            rep = self.reports.get(t) or {}
            tables.append({"table": t, "name": self.table_names.get(t, t), "players": len(rep.get("seats") or {}),
                           "hands": int(rep.get("hands") or 0), "playing": bool(rep.get("running")),
                           "broken": t in self.broken})
        moves = [{"player": m["player"], "name": self.names.get(m["player"], m["player"]), "from": m["from"] or None,
                  "from_seat": int(m["from_seat"]), "to": m["to"], "to_seat": int(m["to_seat"]),
                  "reason": m["reason"], "why": "; ".join(_MOVE_WHY.get(r, r) for r in str(m["reason"]).split("+")),
                  "state": m["state"]}
                 for _, m in sorted(self.moves.items()) if m["state"] in ("planned", "out")]
        finishes = self.standings.finishes()
        amounts = payout_amounts(self.settings.payouts, self.standings.prize_pool(), len(self.standings.entries))
        paid = prizes(finishes, amounts, self.settings.payouts.unit) if finishes else {}
        busts = [{"player": f.player, "name": self.names.get(f.player, f.player), "place": f.place,
                  "tied_to": f.tied_to, "prize": paid.get(f.entry_id, 0)} for f in finishes]
        return {**order_view(self), "paused": st.started and not st.running, "levels": [numbers[0], numbers[-1]],
                "tables": tables, "problems": self.problems[-5:], "moves": moves, "broken_order": list(self.broken),
                "busts": busts, "deal": self.deal.status_lines()}
