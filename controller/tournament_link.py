"""A table of the room's multi-table tournament (issue 19): ``livetable simulate --tournament-room``.

The room holds the tournament (``room/tournament.py``: settings, clock, standings, draw,
balancing, breaks, hand-for-hand, payouts); the table plays the hands it is told to and
carries out moves between hands. :class:`RoomTournamentSeat` is an extra device of
:class:`controller.composition.TableRun` (``attach(run)`` / ``tick(orch)``), like
:class:`controller.tournament_run.TournamentTable` for a single-table tournament.

**Protocol** (docs/tournament.md "Multi-table through the room"), over the table's broker
bridged to the room's: the room sends *orders* on ``livetable/<t>/tournament/order``, the
table answers with *reports* on ``livetable/<t>/tournament/report`` (QoS 1 both ways). The
table deals a hand only on the room's ``go`` for it: after every hand it waits (its report
says ``waiting``) until the room's next order, so every move is carried out between hands.

An order (JSON object, :func:`decode_order`)::

    {"schema": 1, "table": "t1", "id": 7,                      # orders rise per table
     "tournament": "9f3c0a1b2c3d4e5f",                          # the room's tournament (optional)
     "out": [{"move": 12, "seat": 4, "player": "p9"}],          # players who leave, with their chips
     "in": [{"move": 11, "seat": 2, "player": "p3", "name": "Player 3", "chips": 5200}],
     "go": {"hand": 31, "stakes": {"small_blind": 100, ...}} | null,   # deal hand 31 at these stakes
                                               # (+ "button": 5, drawn by cards, at the table's first
                                               # hand and the redrawn final table's first hand)
     "end": false,                                              # true: the table stops
     "reopen": false,                                           # true: an ended table plays again
     "buy": [{"purchase": 4, "seat": 2, "player": "p3", "kind": "rebuy", "chips": 2000}],  # optional
     "answers": {"1": {"purchase": 4}, "2": {"why": "addon: ..."},   # optional: to the table's requests
                 "3": {"entry": {"table": "t2", "table_name": "Oak", "seat": 4}},  # a re-entry's seat
                 "4": {"deal": 1}}}                  # a seat's answer to deal offer 1, taken

``tournament`` is the room's tournament's identity (made when the room starts it). The table
keeps the first one it takes in its journal's meta (:data:`TOURNAMENT_META`, before it
journals that order) and refuses every order of another one: a table started on an earlier
tournament's journal tells the room (its report's ``tournament`` and ``problems``: ``start the
table on a new journal``) instead of silently ignoring the new room's orders as repeats. A
journal whose orders carry no identity (an older room's) takes the first one it is sent.

``reopen`` (issue 19, late entries): the room reopens a table it broke (its ``end`` taken)
because a late entry finds every other seat taken. An ended table refuses every order but
one with ``reopen`` true: it journals it as any order (``room-order``), is no longer ended,
and reports ``waiting`` again; replayed after a kill, the order's ``reopen`` clears the
``ended`` of the orders before it, so a table killed after journalling it comes back open
(and a repeat of its id is only answered, never taken twice). An order with both ``end`` and
``reopen`` is refused.

The table takes each order id once (a repeat of one it took is only answered with a
report); an id it has not taken is taken even when lower than the last one
(a room restarted on a fresh store, a forged order with a huge id: the room's next order
is never ignored).

``out`` goes first (``StoodUp(moved=True)``: the stack leaves with the player, the ledger's
cash-out), then ``in`` (``PlayerSatDown`` + ``BoughtIn(chips)``; ``chips`` null: the chips
this same order moved out for that move, a move within the table at the final redraw).

Journal (kind ``tournament``, :meth:`controller.journal.Journal.append`, durable before the
table acts): ``room-order`` (the order), ``move-out`` (``move``, ``player``, ``seat``,
``chips``: written *before* the player stands up; no hand is dealt between the two, so the
chips are the stack that leaves), ``move-in`` (before the player sits down), ``order-done``
(every move of the order carried out), ``move-refused`` (``move``, ``seat``, ``why``: the seat
is taken or the player already sits here; nobody sits, the room reseats him), ``bust``
(``hand``, ``busted`` ``{player: starting stack}``, ``seats`` ``{player: seat}``: the seat a
re-entry may be asked from); rebuys, add-ons and re-entries (issue 19): ``asked``
(a tablet's, waiting for the dealer, who takes the money; a re-entry's at a busted player's
tablet, :meth:`RoomTournamentSeat.ask_reentry`; with no kind: the ask ended, ``was``
``reentry`` and ``why`` for a re-entry's), ``purchase-request`` (confirmed at the table by
the dealer or floor; or kind ``deal`` with ``offer`` and ``accept``, a seat's answer to the
deal offered at the room's final table, :meth:`RoomTournamentSeat.answer_deal`; sent to the
room until an order answers it), ``buy`` (``purchase``, ``player``, ``seat``, ``chips``,
``before``: the player's ``topped_up`` before it; written before the ``ToppedUp``, replayed
against the ledger so the chips come once), ``buy-refused``. Recovery replays them: an
order journalled but not carried out to its end is carried out again, idempotently (a
player no longer seated does not leave twice, a player already seated does not sit twice).
So a kill -9 of the table at any moment loses and doubles nothing: the report after the
restart gives the room every move's chips from the journal.

A report (``report()``): ``table``, ``tournament`` (the journal's tournament, None before the
first order), ``applied`` (the last order carried out), ``hands``,
``running`` (a hand is being played), ``waiting`` (between hands without a ``go``),
``seats`` ``{seat: [player, stack]}``, ``last_big_blind``, ``ledger`` ``{in, out}``,
``moved_out`` ``{move: chips}``, ``moved_in`` ``[move]`` (the chips are on the table: moves of
an order not carried out to its end are left out), ``refused_in`` ``{move: seat}``, ``busts`` ``{hand: {player:
stack}}``, ``bought`` ``[purchase]``, ``refused_buy`` ``{purchase: why}``, ``requests``
``{request: {kind, seat, player, by, reason}}``, ``ended``, ``pid`` (the table's process: the
room knows a report of a process it has replaced since, one still on its way when that
process died). The table sends one after every order and every hand, and every
``REPORT_EVERY`` seconds (a lost message, a room that restarted).
"""

from __future__ import annotations

import json
import logging
import os
import queue
import time
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from controller.crashpoint import CrashPoints
from controller.engine.table import effects as fx
from controller.engine.table import events as ev
from controller.journal import JournalError
from controller.orchestrator import TournamentOwn
from controller.tournament.deal import offer_entry
from controller.tournament.table import busts_of, button_seat_words
from controller.tournament_link_view import LinkView, decode_move_notice, decode_view

__all__ = ["RoomTournamentSeat", "decode_order", "order_topic", "report_topic", "OrderError", "JOURNAL_KIND",
           "CRASH_ENV"]

log = logging.getLogger("livetable.tournament.link")

JOURNAL_KIND = "tournament"
#: Seconds between two reports when nothing happens.
REPORT_EVERY = 1.0
#: Test hook: ``"<point>:<n>"``, a real kill -9 the n-th time the table passes ``point``
#: (``move-out``: journalled, the player still seated; ``move-in``: journalled, not seated yet;
#: ``sat-down``: seated, his chips not bought in yet; ``buy``: a purchase journalled, its chips not brought yet;
#: ``deal-answer``: a seat's answer to a deal offered journalled, not yet reported).
CRASH_ENV = "LIVETABLE_TOURNAMENT_LINK_CRASH"
#: The journal's meta key holding the room's tournament the table plays (its first order's).
TOURNAMENT_META = "room_tournament"
#: The journal's meta key holding the last purchase or re-entry request id the table gave
#: (the room answers a ``"<table>:<id>"`` it has seen with its old booking: an id is never
#: given twice, also once compaction took every ``purchase-request`` event; breaker).
REQUEST_META = "room_tournament_request"
#: The most bytes of an order.
MAX_ORDER_BYTES = 16_384


def order_topic(table: str) -> str:
    """Return the topic of the room's orders to ``table`` (in, through the bridge)."""
    return f"livetable/{table}/tournament/order"


def report_topic(table: str) -> str:
    """Return the topic of ``table``'s reports to the room (out, through the bridge)."""
    return f"livetable/{table}/tournament/report"


class OrderError(ValueError):
    """An order from the room is malformed (the message says what is wrong)."""


def _int(obj: dict[str, Any], key: str, lo: int, hi: int, *, none: bool = False) -> Any:
    v = obj.get(key)
    if v is None and none:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise OrderError(f"{key!r} must be an integer {lo}..{hi}, got {v!r}")
    return v


def shown_name(name: str) -> str:
    """Return ``name`` (a player's name in the room's order) with each character no name may
    hold (:data:`controller.engine.table.seating.HIDDEN_CATEGORIES`: control, format, lone
    surrogates, private use, unassigned) replaced by U+FFFD: the table's screens and its MQTT
    state can show it, and the order is still carried out (breaker 2 H4: a lone surrogate in a
    name stopped the table publishing; the room refuses such names since, an older room may not)."""
    import unicodedata

    from controller.engine.table.seating import HIDDEN_CATEGORIES

    return "".join("\ufffd" if unicodedata.category(c) in HIDDEN_CATEGORIES else c for c in name)


def _str(obj: dict[str, Any], key: str) -> str:
    v = obj.get(key)
    if not isinstance(v, str) or not 1 <= len(v) <= 64:
        raise OrderError(f"{key!r} must be a text of 1..64 characters, got {v!r}")
    return v


def decode_order(payload: bytes, table: str, seats: int) -> dict[str, Any]:
    """Decode and check one order (shape: the module docstring) for ``table`` with
    ``seats`` seats; return it as a dict (chips are integers 1..10^9, seats 1..``seats``).

    Raises:
        OrderError: not JSON, too long, another table's, a field missing or out of range.
    """
    if len(payload) > MAX_ORDER_BYTES:
        raise OrderError(f"an order is at most {MAX_ORDER_BYTES} bytes, got {len(payload)}")
    try:
        obj = json.loads(payload)
    except ValueError as exc:
        raise OrderError(f"not JSON: {exc}") from None
    if not isinstance(obj, dict) or obj.get("schema") != 1:
        raise OrderError("an order is a JSON object with schema 1")
    if obj.get("table") != table:
        raise OrderError(f"the order is table {obj.get('table')!r}'s, this is {table!r}")
    out = {"id": _int(obj, "id", 1, 10**12), "out": [], "in": [], "go": None, "end": bool(obj.get("end")),
           "tournament": _str(obj, "tournament") if obj.get("tournament") is not None else None}
    if obj.get("reopen") is not None and not isinstance(obj["reopen"], bool):
        raise OrderError(f"'reopen' must be true or false, got {obj.get('reopen')!r}")
    if obj.get("reopen"):  # an ended table plays again (a late entry found every other seat taken)
        if out["end"]:
            raise OrderError("an order cannot both end and reopen the table")
        out["reopen"] = True
    for key in ("out", "in"):
        items = obj.get(key) or []
        if not isinstance(items, list) or len(items) > 64:
            raise OrderError(f"{key!r} must be a list of at most 64 moves")
        for m in items:
            if not isinstance(m, dict):
                raise OrderError(f"each of {key!r} is an object")
            move = {"move": _int(m, "move", 1, 10**12), "seat": _int(m, "seat", 1, seats),
                    "player": _str(m, "player")}
            if key == "in":
                move["name"] = shown_name(_str(m, "name"))
                move["chips"] = _int(m, "chips", 1, 10**9, none=True)
            try:  # where the player goes or comes from, for the screens (tournament_link_view)
                move.update(decode_move_notice(m, key))
            except ValueError as exc:
                raise OrderError(str(exc)) from None
            out[key].append(move)
    buys = obj.get("buy") or []
    if not isinstance(buys, list) or len(buys) > 64:
        raise OrderError("'buy' must be a list of at most 64 purchases")
    out["buy"] = []
    for b in buys:
        if not isinstance(b, dict) or b.get("kind") not in ("rebuy", "addon"):
            raise OrderError("each of 'buy' is an object with a kind rebuy or addon")
        out["buy"].append({"purchase": _int(b, "purchase", 1, 10**12), "seat": _int(b, "seat", 1, seats),
                           "player": _str(b, "player"), "kind": b["kind"], "chips": _int(b, "chips", 1, 10**9)})
    answers = obj.get("answers") or {}
    if not isinstance(answers, dict) or len(answers) > 64:
        raise OrderError("'answers' must be an object of at most 64 answers")
    out["answers"] = {}
    for rid, a in answers.items():
        if not (isinstance(rid, str) and rid.isdigit() and len(rid) <= 12 and isinstance(a, dict)):
            raise OrderError(f"answer {rid!r}: a request id and an object")
        if a.get("why") is not None:
            if not isinstance(a["why"], str) or not 1 <= len(a["why"]) <= 300:
                raise OrderError(f"answer {rid}: 'why' must be a text of 1..300 characters")
            out["answers"][int(rid)] = {"why": a["why"]}
        elif a.get("entry") is not None:  # a re-entry's seat (issue 19)
            e = a["entry"]
            if not isinstance(e, dict):
                raise OrderError(f"answer {rid}: 'entry' must be {{table, table_name, seat}}")
            out["answers"][int(rid)] = {"entry": {"table": _str(e, "table"),
                                                  "table_name": _str(e, "table_name"),
                                                  "seat": _int(e, "seat", 1, 64)}}
        elif a.get("deal") is not None:  # a seat's answer to the deal offered, taken (issue 19)
            out["answers"][int(rid)] = {"deal": _int(a, "deal", 1, 10**6)}
        else:
            out["answers"][int(rid)] = {"purchase": _int(a, "purchase", 1, 10**12)}
    go = obj.get("go")
    if go is not None:
        if not isinstance(go, dict) or not isinstance(go.get("stakes"), dict):
            raise OrderError("'go' must be {hand, stakes}")
        stakes = {k: _int(go["stakes"], k, 0, 10**9) for k in ("small_blind", "big_blind", "ante",
                                                               "big_blind_ante") if k in go["stakes"]}
        if not stakes.get("big_blind"):
            raise OrderError("'go.stakes' needs a big_blind of 1 chip or more")
        out["go"] = {"hand": _int(go, "hand", 1, 10**9), "stakes": stakes}
        if go.get("button") is not None:  # the final table's button drawn again (its seats redrawn)
            out["go"]["button"] = _int(go, "button", 1, seats)
    if obj.get("view") is not None:  # what the screens show (controller/tournament_link_view.py)
        try:
            out["view"] = decode_view(obj["view"])
        except ValueError as exc:
            raise OrderError(str(exc)) from None
    return out


class RoomTournamentSeat:
    """One table of the room's tournament (see the module docstring).

    Args:
        table: the table's id.
        host, port, username, password: the table's broker (bridged to the room's).
    """

    #: What its table plays (:data:`controller.tournament_run.PLAYS`):
    #: :class:`controller.composition.TableRun` refuses a journal played as anything else
    #: (a cash game's, a single-table tournament's) and marks the journal with it.
    plays = "room-tournament"

    def __init__(self, table: str, *, host: str, port: int, username: str | None = None,
                 password: str | None = None) -> None:
        self.table = table
        self.orch: Any = None
        self.applied = 0
        self.moved_out: dict[int, int] = {}
        self.moved_in: set[int] = set()
        self.refused_in: dict[int, int] = {}  # move -> the seat refused (taken, or the player already here)
        self.done: set[int] = set()  # every order id taken (journalled): a repeat is not carried out twice
        self.busts: dict[int, dict[str, int]] = {}
        self.ended = False
        self.go: dict[str, Any] | None = None
        #: the button the room drew for the redrawn final table, carried by a ``go`` dropped for a
        #: deal offered (:meth:`_drop_go_for_deal`): put on the room's next ``go`` (seat number)
        self._dropped_button: int | None = None
        self.problems: list[str] = []
        #: the room's tournament this table's journal plays (its first order's; None: none yet)
        self.tournament: str | None = None
        self.foreign: str | None = None  # the last other tournament whose orders were refused
        self.screen = LinkView()  # the public state's tournament_view (controller/tournament_link_view.py)
        #: rebuys, add-ons and re-entries (issue 19): asked from a seat's tablet, waiting for the
        #: dealer, who takes the money and confirms (T-3) (seat -> kind)
        self.asked: dict[int, str] = {}
        self._asker: dict[int, str] = {}  # seat -> the player an ask is for (a re-entry's: who busted there)
        #: confirmed at the table, sent to the room in every report until its answer comes (id -> request)
        self.requests: dict[int, dict[str, Any]] = {}
        self._request_seq = 0
        #: a refusal of the room's, shown at the seat until its player asks again or leaves (seat -> why, player)
        self.purchase_refused: dict[int, tuple[str, str]] = {}
        #: the player who busted from each seat, by this table's hands (seat -> player): a
        #: re-entry asked at that seat's tablet is his, while nobody sits there (issue 19)
        self.out_at: dict[int, str] = {}
        #: the room's answer to a seat's re-entry request (seat -> answer, player): ``{"entry":
        #: {"table", "table_name", "seat"}}`` or ``{"why": words}``
        self.reentry_answer: dict[int, tuple[dict[str, Any], str]] = {}
        #: the room's purchases brought to a seat: id -> the player's ``topped_up`` before them
        self.bought: dict[int, int] = {}
        self.refused_buy: dict[int, str] = {}  # the room's purchases the table could not bring: id -> why
        self._orders: queue.SimpleQueue[bytes] = queue.SimpleQueue()
        self._pending: dict[str, Any] | None = None  # a journalled order not yet carried out to its end
        self._report_due = True
        self._reported_at = 0.0
        self._client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"{table}-tournament",
                                   protocol=mqtt.MQTTv311, clean_session=True)
        if username:
            self._client.username_pw_set(username, password)
        self._client.on_connect = self._on_connect
        self._client.on_message = lambda c, u, msg: self._orders.put(bytes(msg.payload))
        self._client.reconnect_delay_set(0.2, 5)  # type: ignore[arg-type] # paho annotates int seconds
        self._host, self._port = host, port
        self._crash = CrashPoints(CRASH_ENV)

    # ------------------------------------------------------------------ start-up
    def attach(self, run: Any) -> None:
        """Join ``run`` after its ``open``: replay the journal's tournament events, connect
        to the broker, deal only on the room's ``go``.

        Raises:
            ValueError: the table has no journal.
        """
        orch = self.orch = run.orch
        if orch.journal is None:
            raise ValueError("a tournament table needs its journal")
        self.tournament = orch.journal.meta(TOURNAMENT_META)
        self._request_seq = int(orch.journal.meta(REQUEST_META) or 0)  # what compaction took counts too
        for entry in orch.journal.entries():
            if entry.kind != JOURNAL_KIND:
                continue
            p = entry.payload
            kind = p.get("type")
            if kind == "room-order":
                self.tournament = self.tournament or p["order"].get("tournament")
                self.applied = int(p["id"])
                self.done.add(int(p["id"]))
                self._pending = p["order"]
                self._take_go(p["order"])  # as when taken: an order without one keeps the go held
                # an ended table stays ended, but for a ``reopen`` (the room reopened it for a late entry)
                self.ended = bool(p["order"].get("end")) or (self.ended and not p["order"].get("reopen"))
                self.screen.take(p["order"], entry.at)
                self._answered(p["order"])
                if p["order"].get("end"):
                    self._end_requests()
            elif kind == "asked":
                if p.get("kind"):
                    self.asked[int(p["seat"])] = str(p["kind"])
                    self._asker[int(p["seat"])] = str(p.get("player"))
                else:
                    self.asked.pop(int(p["seat"]), None)
                    self._asker.pop(int(p["seat"]), None)
                    if p.get("was") == "reentry" and p.get("why"):  # a re-entry asked, ended: said at the seat
                        self.reentry_answer[int(p["seat"])] = ({"why": str(p["why"])}, str(p.get("player")))
            elif kind == "purchase-request":
                self.requests[int(p["request"])] = {k: p[k] for k in ("kind", "seat", "player", "by", "reason")
                                                    + (("offer", "accept") if p["kind"] == "deal" else ())}
                self._request_seq = max(self._request_seq, int(p["request"]))
                if p["kind"] != "deal":  # a seat's deal answer leaves its asks as they are (as when made)
                    self.asked.pop(int(p["seat"]), None)
                    self._asker.pop(int(p["seat"]), None)
                if p["kind"] == "reentry":
                    self.reentry_answer.pop(int(p["seat"]), None)
            elif kind == "buy":
                self.bought[int(p["purchase"])] = int(p["before"])
            elif kind == "buy-refused":
                self.bought.pop(int(p["purchase"]), None)
                self.refused_buy[int(p["purchase"])] = str(p["why"])
            elif kind == "order-done" and self._pending is not None and self._pending["id"] == p["id"]:
                self._pending = None
            elif kind == "move-out":
                self.moved_out[int(p["move"])] = int(p["chips"])
            elif kind == "move-in":
                self.moved_in.add(int(p["move"]))
                self.refused_in.pop(int(p["move"]), None)
            elif kind == "move-refused":
                self.moved_in.discard(int(p["move"]))
                self.refused_in[int(p["move"])] = int(p["seat"])
            elif kind == "bust":
                self.busts[int(p["hand"])] = {str(k): int(v) for k, v in p["busted"].items()}
                for player, seat in (p.get("seats") or {}).items():
                    self.out_at[int(seat)] = str(player)
                    self.reentry_answer.pop(int(seat), None)  # a new bust there: the old answer is over
        rec = orch.state.last_result  # a hand finished whose busts a kill kept from the journal
        if rec and rec.get("busted") and int(rec.get("hand", 0)) not in self.busts:
            self._bust(int(rec["hand"]), rec)
        run.pacer.hand_start = self.hand_start
        run.pacer.rebuy = set()  # no cash re-buy: a busted player is out
        orch.listeners.insert(orch.listeners.index(run.pacer), self)
        orch.tournament_view_fn = self.view_json
        orch.tournament_purchases = self  # rebuys and add-ons go to the room (controller/floor.py)
        orch.tournament = self.plays  # only TournamentOwn events seat players, bring chips, set stakes
        self._client.connect_async(self._host, self._port, keepalive=30)
        self._client.loop_start()

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any = None) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("table %s: the broker refused the tournament link: %s", self.table, reason)
            return
        client.subscribe(order_topic(self.table), 1)
        self._report_due = True

    def close(self) -> None:
        """Send a last report and disconnect."""
        if self.orch is not None:
            self._publish()
        self._client.loop_stop()
        self._client.disconnect()

    # ------------------------------------------------------------------ the pacer's hook
    def hand_start(self) -> dict[str, Any] | None:
        """Return the next ``HandStartRequested`` fields (``level``: the room's stakes,
        TDA 23) when the room gave the ``go`` for this hand, with ``button`` and ``redraw``
        when the ``go`` carries the button the room drew by cards for this table's start or
        its redrawn final table (the rotation starts afresh there; logged, and said when the
        seat holds no player with chips: :func:`button_seat_words`); None: wait (between
        hands, the table holds for the room; while the room's view shows a deal offered, the
        ``go`` is dropped: the room gives a new one once the offer is over, :meth:`_drop_go_for_deal`)."""
        go, hand = self.go, self.orch.state.hands + 1
        if self.ended or self._pending is not None or go is None or go["hand"] != hand:
            return None
        if (self.screen.view or {}).get("deal_offer") is not None:
            return None  # a deal offered (the room's final table): the players answer first (issue 19)
        self.go = None
        if go.get("button") is not None:
            kept, words = button_seat_words(self.orch.state.seats, int(go["button"]))
            log.log(logging.INFO if kept else logging.WARNING, "table %s hand %d: %s", self.table, hand, words)
            return {"level": dict(go["stakes"]), "button": int(go["button"]), "redraw": True}
        return {"level": dict(go["stakes"])}

    # ------------------------------------------------------------------ the loop's turns
    def __call__(self, orch: Any, effects: list[Any]) -> None:
        """The orchestrator's listener: a finished hand's busts are journalled; a report follows."""
        for e in effects:
            if isinstance(e, fx.HandFinished):
                if e.record.get("busted"):
                    self._bust(e.hand, e.record)
                self._report_due = True

    def _bust(self, hand: int, record: dict[str, Any]) -> None:
        busted = busts_of(record)
        if busted and hand not in self.busts:
            seats = {str(v["player"]): int(n) for n, v in (record.get("players") or {}).items()
                     if isinstance(v, dict) and v.get("player") in busted}
            self._journal({"type": "bust", "hand": hand, "busted": busted, "seats": seats})
            self.busts[hand] = busted
            for player, seat in seats.items():
                self.out_at[seat] = player
                # the room's answer to an earlier re-entry asked there is over (breaker: a player
                # re-entered into the seat he busted from and busted again may ask again)
                self.reentry_answer.pop(seat, None)

    def tick(self, orch: Any) -> None:
        """The loop's idle turn: take the room's orders, carry one out between hands, end a
        re-entry ask that is over (:meth:`_end_reentry_asks`), report."""
        while True:
            try:
                raw = self._orders.get_nowait()
            except queue.Empty:
                break
            self._take(raw)
        if self._pending is not None and orch.state.hand is None and not orch.faults.paused:
            try:
                done = self._carry_out(self._pending)
                if done:
                    self._journal({"type": "order-done", "id": self._pending["id"]})
            except JournalError as exc:
                self.problems.append(f"journal: {exc}")
                log.error("table %s: a tournament move was not journalled: %s", self.table, exc)
                return
            if not done:  # the table refused a move (a fault meanwhile): tried again next turn
                return
            self._pending = None
            self._report_due = True
        if "reentry" in self.asked.values():
            try:
                self._end_reentry_asks()
            except JournalError as exc:  # asked again next turn
                self.problems.append(f"journal: {exc}")
                log.error("table %s: the end of a re-entry ask was not journalled: %s", self.table, exc)
        if self._report_due or time.monotonic() - self._reported_at >= REPORT_EVERY:
            self._publish()

    def _take(self, raw: bytes) -> None:
        try:
            order = decode_order(raw, self.table, len(self.orch.state.seats))
        except OrderError as exc:
            log.warning("table %s: an order from the room was refused: %s: %r", self.table, exc, raw[:200])
            return
        tid = order["tournament"]
        if tid is not None and self.tournament is not None and tid != self.tournament:
            self._refuse_tournament(tid)
            return
        if order["id"] in self.done or (self.ended and not order.get("reopen")):
            self._report_due = True  # already taken, or the table ended: the room hears it again
            return
        if self._pending is not None:
            return  # one order at a time; the room sends the next after the report
        if tid is not None and self.tournament is None:  # the journal's tournament, before its first order
            self.orch.journal.set_meta(TOURNAMENT_META, tid)
            self.tournament = tid
        self._journal({"type": "room-order", "id": order["id"], "order": order})
        self.done.add(order["id"])
        self.applied, self._pending = order["id"], order
        self.screen.take(order, self.orch.clock())
        self._answered(order)
        if order["end"]:
            self._end_requests()
        if order["end"] and not self.ended:  # said once (newcomer F2: the tables said nothing at the end)
            log.info("table %s: the room ended this table's play (broken, or the tournament is over): it deals "
                     "no more hands and keeps reporting to the room until it is stopped", self.table)
        if order.get("reopen"):
            log.info("table %s: the room reopened this table (a late entry found every other seat taken): it "
                     "takes the room's orders and deals again", self.table)
        self.ended = order["end"]
        self._take_go(order)

    def _take_go(self, order: dict[str, Any]) -> None:
        """Take ``order``'s ``go`` (an order without one keeps the go held), then
        :meth:`_drop_go_for_deal`; a ``go`` after one dropped with the final table's drawn
        button gets that button (the room gives it once). Live and replayed alike."""
        if order.get("go") is not None:
            go = dict(order["go"])
            if go.get("button") is None and self._dropped_button is not None:
                go["button"] = self._dropped_button
            self.go, self._dropped_button = go, None
        self._drop_go_for_deal(order)

    def _drop_go_for_deal(self, order: dict[str, Any]) -> None:
        """Drop the ``go`` held when ``order``'s view shows a deal offered (the room's final
        table, issue 19): the offer may stay open past the level's end or into the tournament's
        break, so the table waits (reports ``waiting``) for the room's next ``go`` after it, at
        the level then (TDA 23; none on a break), never deals the old one; its drawn button
        (the redrawn final table's first hand) is kept for the next ``go``. Worked out from
        the order alone, live and replayed alike (breaker: a withdrawn offer dealt the held go
        at the stakes of the level it was given in)."""
        if (order.get("view") or {}).get("deal_offer") is not None and self.go is not None:
            if self.go.get("button") is not None:
                self._dropped_button = int(self.go["button"])
            self.go = None

    def _refuse_tournament(self, tid: str) -> None:
        """Refuse an order of tournament ``tid``, not this journal's: said once (log, the
        report's ``problems`` first), reported at once."""
        self._report_due = True
        if self.foreign == tid:
            return
        self.foreign = tid
        msg = (f"the room's orders are for tournament {tid}, this table's journal holds tournament "
               f"{self.tournament}: start the table on a new journal")
        self.problems.insert(0, msg)
        log.error("table %s: %s", self.table, msg)

    def _carry_out(self, order: dict[str, Any]) -> bool:
        """Carry out ``order``'s moves, idempotently (again after a restart); return False when
        a player who should have left is still seated (the order stays pending)."""
        orch = self.orch
        now = orch.clock()
        out_chips: dict[int, int] = {}
        for m in order["out"]:
            seat = orch.state.seat(m["seat"])
            if m["move"] in self.moved_out:
                out_chips[m["move"]] = self.moved_out[m["move"]]
                if seat is not None and seat.player == m["player"]:
                    self._crash_point("move-out")
                    orch.handle(TournamentOwn(ev.StoodUp(at=now, seat=m["seat"], moved=True)))
                continue
            if seat is None or seat.player != m["player"]:
                self.moved_out[m["move"]] = 0  # busted meanwhile, or never here: nothing leaves
                self._journal({"type": "move-out", "move": m["move"], "player": m["player"], "seat": m["seat"],
                               "chips": 0})
                continue
            chips = seat.stack
            self._journal({"type": "move-out", "move": m["move"], "player": m["player"], "seat": m["seat"],
                           "chips": chips})
            self.moved_out[m["move"]] = out_chips[m["move"]] = chips
            self._crash_point("move-out")
            orch.handle(TournamentOwn(ev.StoodUp(at=now, seat=m["seat"], moved=True)))
        left = [m for m in order["out"] if (s := orch.state.seat(m["seat"])) is not None and s.player == m["player"]]
        if left:
            log.warning("table %s: %s did not leave (a fault?): the order is carried out again", self.table,
                        ", ".join(m["player"] for m in left))
            return False
        for m in order["in"]:
            chips = m["chips"] if m["chips"] is not None else out_chips.get(m["move"], 0)
            if chips:
                self._move_in(m, chips, now)
        for b in order.get("buy", []):
            self._buy(b, now)
        return True

    def view_json(self, public: dict[str, Any]) -> dict[str, Any] | None:
        """Return the public state's ``tournament_view`` (:class:`LinkView`, docs/tournament.md)
        for the ``public`` state being published; None before the room's first order. With
        ``asked`` (seat -> ``rebuy`` | ``addon`` | ``reentry``: asked at the tablet, waiting for
        the dealer, or sent to the room), ``sent`` (seat -> kind: of those, the ones the dealer
        or floor confirmed, waiting for the room's director), ``purchase_refused`` (seat -> the
        room's reason, while its player is there) and ``reentry_answer``."""
        out = self.screen.json(public, self.orch.clock())
        if out is not None:
            asked = {str(n): k for n, k in self.asked.items()}
            sent = {str(r["seat"]): str(r["kind"]) for r in self.requests.values() if r["kind"] != "deal"}
            asked.update(sent)
            out["asked"] = asked
            out["sent"] = sent
            out["purchase_refused"] = {str(n): why for n, (why, who) in self.purchase_refused.items()
                                       if (s := self.orch.state.seat(n)) is not None and s.player == who}
            out["reentry_answer"] = {str(n): a for n, (a, who) in self.reentry_answer.items()
                                     if self.orch.state.seat(n) is None and self.out_at.get(n) == who}
        return out

    def _move_in(self, m: dict[str, Any], chips: int, now: float) -> None:
        """Seat move ``m`` with ``chips``, idempotently: the ``move-in`` is journalled before the
        player sits down; replayed (a kill between ``PlayerSatDown`` and ``BoughtIn``), a player
        found in the move's seat with no chips buys in then. A move-in to a taken seat, or of a
        player already seated here, is refused (``move-refused``; reported in ``refused_in``
        with the seat, for the room to reseat him): nobody sits, no chips arrive."""
        orch = self.orch
        here = next((s for s in orch.state.occupied() if s.player == m["player"]), None)
        if m["move"] in self.moved_in and here is not None and here.seat == m["seat"]:
            if here.stack == 0:  # sat down, the buy-in lost to a kill: the chips arrive now
                orch.handle(TournamentOwn(ev.BoughtIn(at=now, seat=m["seat"], amount=chips)))
            return
        taken = orch.state.seat(m["seat"]) is not None
        if here is not None or taken:
            why = (f"{m['player']} is already seated in seat {here.seat}" if here is not None
                   else f"seat {m['seat']} is taken")
            self._journal({"type": "move-refused", "move": m["move"], "seat": m["seat"], "why": why})
            self.moved_in.discard(m["move"])
            self.refused_in[m["move"]] = m["seat"]
            self.problems.append(f"move {m['move']} refused: {why}")
            log.warning("table %s: move %d refused: %s", self.table, m["move"], why)
            return
        if m["move"] not in self.moved_in:
            self._journal({"type": "move-in", "move": m["move"], "player": m["player"], "seat": m["seat"],
                           "chips": chips})
            self.moved_in.add(m["move"])
            self.refused_in.pop(m["move"], None)
            self._crash_point("move-in")
        orch.handle(TournamentOwn(ev.PlayerSatDown(at=now, seat=m["seat"], player=m["player"], name=m["name"])))
        self._crash_point("sat-down")
        orch.handle(TournamentOwn(ev.BoughtIn(at=now, seat=m["seat"], amount=chips)))

    # ------------------------------------------------------------------ rebuys and add-ons (issue 19)
    def ask_purchase(self, kind: str, seat: int) -> None:
        """A rebuy or add-on (``kind``) asked from ``seat``'s tablet: journalled (``asked``), it
        waits for the dealer's confirm (:meth:`confirm_purchase`, ``livetable floor confirm-buyin
        SEAT``), as at a single table (T-3). The room's director checks the rules once confirmed.

        Raises:
            controller.tournament.errors.TournamentError: no player with chips at the seat, one
                asked or waiting for the room already, the table's part of the tournament over.
            controller.journal.JournalError: it could not be journalled.
        """
        player = self._purchase_seat(kind, seat)
        self._journal({"type": "asked", "seat": seat, "kind": kind, "player": player})
        self.asked[seat] = kind
        self._asker[seat] = player
        self.purchase_refused.pop(seat, None)

    def confirm_purchase(self, seat: int, *, by: str, kind: str | None = None, reason: str | None = None) -> str:
        """Send the room a rebuy or add-on at ``seat``: the one its tablet asked for, confirmed by
        the dealer (``kind`` None; a re-entry asked there: :meth:`_confirm_reentry`), or ``kind``
        booked by the floor (``livetable floor rebuy|addon SEAT``). The request
        (``purchase-request``: ``request`` id, ``kind``, ``seat``, the player the table has in the
        seat, ``by``, ``reason``) is journalled, then carried by every report (``requests``)
        until the room answers in an order: its chips (``buy``), brought between hands, or its
        refusal, shown at the seat (the view's ``purchase_refused``).
        Return what was done, for the floor's answer.

        Raises:
            controller.tournament.errors.TournamentError: nothing asked at the seat, no player
                with chips there, a request of the seat's waiting for the room already.
            controller.journal.JournalError: it could not be journalled (nothing changed).
        """
        from controller.tournament.errors import TournamentError

        if kind is None and self.asked.get(seat) == "reentry":
            return self._confirm_reentry(seat, by=by, reason=reason)
        kind = kind or self.asked.get(seat)
        if kind is None:
            raise TournamentError(f"F-3: seat {seat} has no rebuy or add-on waiting")
        asked = self.asked.get(seat) == kind
        self.asked.pop(seat, None)  # checked again below; an ask of a player who left ends here
        player = self._purchase_seat(kind, seat)
        if asked:
            self.asked[seat] = kind
        self._send_request({"kind": kind, "seat": seat, "player": player, "by": by, "reason": reason})
        self.purchase_refused.pop(seat, None)
        what = "rebuy" if kind == "rebuy" else "add-on"
        return (f"seat {seat}'s {what} is sent to the room's director, who checks and books it; "
                f"its chips come between hands ({by})")

    def _purchase_seat(self, kind: str, seat: int) -> str:
        """The player at ``seat`` who may ask the room for a ``kind``. Raises TournamentError."""
        from controller.tournament.errors import TournamentError

        if kind not in ("rebuy", "addon"):
            raise TournamentError(f"F-3: {kind!r} is no purchase (rebuy or addon)")
        if self.ended:
            raise TournamentError("F-3: this table's part of the tournament is over")
        s = self.orch.state.seat(seat)
        if s is None or (s.stack == 0 and self.orch.state.hand is None):
            raise TournamentError(f"F-3: seat {seat} has no player in the tournament")
        if seat in self.asked:
            raise TournamentError(f"T-3: seat {seat}'s {self.asked[seat]} waits for the dealer already")
        if any(r["seat"] == seat and r["kind"] in ("rebuy", "addon") for r in self.requests.values()):
            raise TournamentError(f"F-3: seat {seat}'s purchase waits for the room's director already")
        return str(s.player)

    def ask_reentry(self, seat: int) -> str:
        """A re-entry asked at ``seat``'s tablet (issue 19, TDA 9 late registration): for the
        player this table saw bust from ``seat`` (:attr:`out_at`, never a name the tablet
        gives), while nobody sits there and the room offers it there (the view's ``reentry``).
        Only journalled (``asked`` of kind ``reentry``, with the player): like a rebuy at the
        room's tables (T-3) it waits for the dealer, who takes the entry's price and confirms
        (:meth:`confirm_purchase`, ``livetable floor confirm-buyin SEAT``); the room hears of it
        only then (breaker: the press went straight to the room, which booked the entry and its
        price into the prize pool ``by`` the player's tablet: anyone at an empty seat's tablet
        booked it, nobody took the money). Shown at the seat (the view's ``asked``); ended
        (:meth:`_end_reentry_asks`) when someone sits there, the table's part is over or the room
        offers it there no more. Return what was done, for the tablet's answer.

        Raises:
            controller.tournament.errors.TournamentError: the table's part over, someone sits
                at the seat, nobody busted from it here, the room offers no re-entry there, his
                re-entry asked or waiting for the room or booked already.
            controller.journal.JournalError: it could not be journalled (nothing changed).
        """
        from controller.tournament.errors import TournamentError

        if self.ended:
            raise TournamentError("F-3: this table's part of the tournament is over")
        player = self.out_at.get(seat)
        if self.orch.state.seat(seat) is not None or player is None:
            raise TournamentError(f"F-3: seat {seat} has no busted player to re-enter: only the player who "
                                  "busted from this seat can ask here")
        if self.asked.get(seat) == "reentry":
            raise TournamentError(f"T-3: seat {seat}'s re-entry waits for the dealer already: pay the dealer, "
                                  "who confirms it")
        if any(r["seat"] == seat and r["kind"] == "reentry" for r in self.requests.values()):
            raise TournamentError(f"F-3: seat {seat}'s re-entry waits for the room's director already")
        done = self.reentry_answer.get(seat)
        if done is not None and done[1] == player and done[0].get("entry"):
            to = done[0]["entry"]
            raise TournamentError(f"F-3: the re-entry is booked already: {to.get('table_name') or to.get('table')} "
                                  f"seat {to.get('seat')}")
        if not self._reentry_offered(seat):
            raise TournamentError(f"TDA 9: the room offers no re-entry at seat {seat} now (late registration "
                                  "closed, or none left): ask the director")
        if seat in self.asked:  # a rebuy or add-on its player asked before he busted: over (never sold)
            self._journal({"type": "asked", "seat": seat, "kind": None, "player": self._asker.get(seat),
                           "reason": "the player left the seat"})
            self.asked.pop(seat, None)
            self._asker.pop(seat, None)
        self._journal({"type": "asked", "seat": seat, "kind": "reentry", "player": player})
        self.asked[seat] = "reentry"
        self._asker[seat] = player
        self.reentry_answer.pop(seat, None)
        return f"seat {seat}'s re-entry is asked: pay the dealer, who confirms it"

    def _reentry_offered(self, seat: int) -> bool:
        """Whether the room's last view offers a re-entry at ``seat`` (its ``reentry``; True
        before any view: the room's director decides)."""
        view = self.screen.view
        return view is None or str(seat) in (view.get("reentry") or {})

    def _confirm_reentry(self, seat: int, *, by: str, reason: str | None) -> str:
        """The dealer (or floor) took the price of the re-entry asked at ``seat``'s tablet and
        confirms it (``livetable floor confirm-buyin SEAT``, T-3): journalled as a
        ``purchase-request`` of kind ``reentry`` for the player who busted there, ``by`` the
        confirming dealer, ``reason`` noting the tablet's ask, then sent to the room in every
        report until an order answers it: the room's director registers him
        (:meth:`room.tournament.RoomTournament.register`, TDA 9 late registration and
        ``reentry.max``) and seats him where it draws, or refuses with its reason, shown at
        the seat (the view's ``reentry_answer``). Return what was done, for the floor's answer.

        Raises:
            controller.tournament.errors.TournamentError: the ask is over (someone sat there,
                the table's part over, the room offers it no more: ended and said at the seat).
            controller.journal.JournalError: it could not be journalled (nothing sent).
        """
        from controller.tournament.errors import TournamentError

        why = self._end_reentry_asks().get(seat)
        if why is not None:
            raise TournamentError(f"{why} (the re-entry asked at seat {seat} ends: give the money back)")
        player = self._asker.get(seat) or self.out_at[seat]
        noted = f"asked at the tablet of table {self.table} seat {seat}"
        self._send_request({"kind": "reentry", "seat": seat, "player": player, "by": by,
                            "reason": f"{noted}; {reason}" if reason else noted})
        self.reentry_answer.pop(seat, None)
        return (f"seat {seat}'s re-entry is sent to the room's director, who registers it (TDA 9) and seats "
                f"the player where he draws ({by})")

    def _end_reentry_asks(self) -> dict[int, str]:
        """End every re-entry asked at a tablet that is over: someone sits at its seat (or
        another player busted there since), the table's part of the tournament is over, or
        the room's last view offers no re-entry there (late registration closed, TDA 9, or
        none left). Each end is journalled (``asked`` with no kind, ``was`` ``reentry`` and
        ``why``; replayed alike) and said at the seat (the view's ``reentry_answer``), as the
        room's refusal would be. Return seat -> why of those ended. Raises JournalError."""
        ended: dict[int, str] = {}
        for seat in sorted(n for n, k in self.asked.items() if k == "reentry"):
            who = self._asker.get(seat)
            if self.ended:
                why = "F-3: this table's part of the tournament is over: ask the director"
            elif self.orch.state.seat(seat) is not None or self.out_at.get(seat) != who:
                why = f"F-3: someone sat down at seat {seat}"
            elif not self._reentry_offered(seat):
                why = (f"TDA 9: the room offers no re-entry at seat {seat} now (late registration closed, "
                       "or none left): ask the director")
            else:
                continue
            self._journal({"type": "asked", "seat": seat, "kind": None, "player": who, "was": "reentry",
                           "why": why})
            self.asked.pop(seat, None)
            self._asker.pop(seat, None)
            self.reentry_answer[seat] = ({"why": why}, str(who))
            log.info("table %s: the re-entry asked at seat %d for %s ends: %s", self.table, seat, who, why)
            ended[seat] = why
        return ended

    def _send_request(self, req: dict[str, Any], *, crash: str | None = None) -> int:
        """Journal ``req`` as a ``purchase-request`` under a new id and carry it in every
        report until the room answers; a purchase or re-entry ends its seat's ask (as replay
        does), a seat's deal answer leaves it. ``crash``: a crash point after the journal.
        Return the id. Raises JournalError: it could not be journalled (nothing sent)."""
        rid = self._next_request()
        self._journal({"type": "purchase-request", "request": rid, **req})
        if crash is not None:
            self._crash_point(crash)
        self.requests[rid] = req
        if req["kind"] != "deal":
            self.asked.pop(int(req["seat"]), None)
            self._asker.pop(int(req["seat"]), None)
        self._report_due = True
        return rid

    def _next_request(self) -> int:
        """Return a new request id (1, 2, ...), never one given before: kept in the journal's
        meta (:data:`REQUEST_META`) before the request is journalled, as compaction
        (``journal.keep_hands``) takes the ``purchase-request`` events in time. Raises
        JournalError: it could not be kept (nothing asked; an id skipped is harmless)."""
        rid = self._request_seq + 1
        self.orch.journal.set_meta(REQUEST_META, str(rid))
        self._request_seq = rid
        return rid

    def answer_deal(self, seat: int, offer: int, accept: bool, *, request_id: str | None = None) -> str:
        """The answer of the player seated at ``seat`` (the seat's own tablet: the seat comes
        from the topic, never from the payload) to deal offer number ``offer`` at the room's
        final table (issue 19; the room's offer is in the last order's view,
        :class:`room.tournament_deal.RoomDeal`). Journalled as a ``purchase-request`` of kind
        ``deal`` (``offer``, ``accept``, the player the table has at the seat, ``by`` ``seat
        N``) and sent to the room in every report until an order answers it; the room decides
        it (an accept recorded once, a decline ends the offer) and its next view shows it. An
        accept the view already shows, or an answer the same as one still waiting for the
        room, is answered again without a second request; a seat has at most two answers to an
        offer waiting for the room (it changed its mind once: each tap sent one, and over 64 the
        room's answers came in an order the table refuses). ``request_id``: the tablet's (only logged).
        Return what was done, for the tablet's answer.

        Raises:
            controller.tournament.errors.TournamentError: no offer here, ``offer`` not the one
                open, the seat's player not in it, the offer agreed by every player already,
                two answers of the seat waiting for the room already.
            controller.journal.JournalError: it could not be journalled (nothing changed).
        """
        from controller.tournament.errors import TournamentError

        o = None if self.ended else (self.screen.view or {}).get("deal_offer")
        s = self.orch.state.seat(seat)
        entry = offer_entry(o, offer, seat, None if s is None else str(s.player))
        assert o is not None and s is not None
        if accept and entry["accepted"]:
            return f"{entry['name']} accepted deal offer {offer} already"
        waiting = [r for _, r in sorted(self.requests.items()) if r["kind"] == "deal" and r["seat"] == seat
                   and r["offer"] == offer]
        if waiting and waiting[-1]["accept"] == accept:  # the seat's last answer sent
            return f"{entry['name']}'s answer to deal offer {offer} is with the room already"
        if len(waiting) >= 2:  # breaker (high): a new request a tap; over 64 the room's answers stuck the table
            raise TournamentError(f"F-3: seat {seat}'s answers to deal offer {offer} wait for the room: answer "
                                  "again once it has answered them")
        if o["agreed"]:
            raise TournamentError(f"F-3: deal offer {offer} is agreed by every player: the director confirms "
                                  "it (or withdraws it)")
        self._send_request({"kind": "deal", "seat": seat, "player": str(s.player), "by": f"seat {seat}",
                            "reason": None, "offer": offer, "accept": accept}, crash="deal-answer")
        log.info("table %s: seat %d %s deal offer %d (request %s)", self.table, seat,
                 "accepts" if accept else "declines", offer, request_id)
        return f"{entry['name']} {'accepts' if accept else 'declines'} deal offer {offer}: sent to the room"

    def _answered(self, order: dict[str, Any]) -> None:
        """Take the room's answers to this table's purchase and re-entry requests (an order's ``answers``)."""
        for rid, a in (order.get("answers") or {}).items():
            req = self.requests.pop(int(rid), None)
            if req is not None and req["kind"] == "reentry":
                self.reentry_answer[int(req["seat"])] = (dict(a), str(req["player"]))
                log.info("table %s: seat %s's re-entry: %s", self.table, req["seat"], a)
                continue
            if req is not None and req["kind"] == "deal":  # the room's view shows the offer as it stands
                log.info("table %s: seat %s's answer to deal offer %s: %s", self.table, req["seat"], req["offer"], a)
                continue
            if req is not None and a.get("why"):
                self.purchase_refused[int(req["seat"])] = (str(a["why"]), str(req["player"]))
                log.info("table %s: seat %s's %s refused by the room: %s", self.table, req["seat"], req["kind"],
                         a["why"])

    def _end_requests(self) -> None:
        """The room ended this table (broken, or the tournament over): it takes no order after
        that one but a ``reopen`` (which answers nothing), and the room decides no request of
        an ended table, so a request its end left unanswered never will be; each is refused at
        its seat (the view's ``reentry_answer`` or ``purchase_refused``) and no longer reported.
        Worked out from the journalled order alone (replay does the same; breaker: a
        re-entry pressed as the end was on its way said "sent" for good)."""
        why = "F-3: this table's part of the tournament is over: ask the director"
        for rid, req in sorted(self.requests.items()):
            if req["kind"] == "reentry":
                self.reentry_answer[int(req["seat"])] = ({"why": why}, str(req["player"]))
            else:
                self.purchase_refused[int(req["seat"])] = (why, str(req["player"]))
            log.info("table %s: seat %s's %s, not answered before the room ended the table, refused", self.table,
                     req["seat"], req["kind"])
            del self.requests[rid]

    def _buy(self, b: dict[str, Any], now: float) -> None:
        """Bring a room's purchase's chips to its seat (``ToppedUp``), exactly once: ``buy``
        (with the player's ``topped_up`` before it) is journalled first; replayed after a kill,
        the chips come only when the ledger does not hold them yet. A seat whose player is not
        there (left, busted) or a top-up the table refuses: ``buy-refused`` (the room refunds)."""
        pid = b["purchase"]
        if pid in self.refused_buy:
            return
        s = self.orch.state.seat(b["seat"])
        acct = self.orch.state.ledger.accounts.get(b["player"])
        topped = acct.topped_up if acct is not None else 0
        here = s is not None and s.player == b["player"] and s.stack > 0
        if pid in self.bought:
            if here and topped < self.bought[pid] + b["chips"]:  # journalled, a kill before the chips came
                self.orch.handle(TournamentOwn(ev.ToppedUp(at=now, seat=b["seat"], amount=b["chips"])))
            return
        why = None if here else f"seat {b['seat']} has no {b['player']} with chips now"
        if why is None:
            self._journal({"type": "buy", "purchase": pid, "player": b["player"], "seat": b["seat"],
                           "kind": b["kind"], "chips": b["chips"], "before": topped})
            self.bought[pid] = topped
            self._crash_point("buy")
            self.orch.handle(TournamentOwn(ev.ToppedUp(at=now, seat=b["seat"], amount=b["chips"])))
            acct = self.orch.state.ledger.accounts.get(b["player"])
            if acct is not None and acct.topped_up >= topped + b["chips"]:
                log.info("table %s: seat %d's %s, %d chips, brought", self.table, b["seat"], b["kind"], b["chips"])
                return
            why = "the table refused the chips"
            self.bought.pop(pid, None)
        self._journal({"type": "buy-refused", "purchase": pid, "why": why})
        self.refused_buy[pid] = why
        self.problems.append(f"purchase {pid} refused: {why}")
        log.warning("table %s: purchase %d refused: %s", self.table, pid, why)

    # ------------------------------------------------------------------ reports
    def report(self) -> dict[str, Any]:
        """Return this table's report (shape: the module docstring)."""
        st = self.orch.state
        rot = st.rotation
        pending = ({m["move"] for m in self._pending["out"] + self._pending["in"]} if self._pending is not None
                   else set())
        buying = {b["purchase"] for b in self._pending.get("buy", [])} if self._pending is not None else set()
        return {"schema": 1, "table": self.table, "tournament": self.tournament, "applied": self.applied,
                "hands": st.hands,
                "running": st.hand is not None,
                "waiting": (st.hand is None and self._pending is None and not self.ended
                            and (self.go is None or self.go["hand"] != st.hands + 1)),
                "seats": {str(s.seat): [s.player, s.stack] for s in st.occupied()},
                "last_big_blind": rot.bb if rot is not None else None,
                "ledger": {"in": st.ledger.total_in, "out": st.ledger.total_out},
                # a move of an order not yet carried out to its end is not reported: its player
                # may still be seated (the room would seat him at the other table too)
                "moved_out": {str(k): v for k, v in self.moved_out.items() if k not in pending},
                # a move-in is reported once its order is carried out: the chips are on the table
                "moved_in": sorted(self.moved_in - pending),
                "refused_in": {str(k): v for k, v in self.refused_in.items() if k not in pending},
                # the room's purchases brought to their seats (or refused), once their order is carried out
                "bought": sorted(set(self.bought) - buying),
                "refused_buy": {str(k): v for k, v in self.refused_buy.items() if k not in buying},
                "requests": {str(k): dict(v) for k, v in sorted(self.requests.items())},
                "busts": {str(k): v for k, v in self.busts.items()}, "ended": self.ended,
                "problems": self.problems[:5], "pid": os.getpid()}

    def _publish(self) -> None:
        self._report_due = False
        self._reported_at = time.monotonic()
        try:
            self._client.publish(report_topic(self.table), json.dumps(self.report(), separators=(",", ":")), qos=1)
        except (OSError, ValueError) as exc:  # the next turn sends again
            log.warning("table %s: report not sent: %s", self.table, exc)

    #: Never True: an ended table (broken, or the tournament over) deals no more but stays up and
    #: reports, so that a room restarted meanwhile still hears the chips of its last moves; the
    #: room's side stops it (``livetable room simulate``: SIGTERM once every table's last report is in).
    finished = False

    def summary(self) -> dict[str, Any]:
        """The table's part of the JSON summary: ``tournament`` (orders, moves, busts, problems)."""
        return {"tournament": {"applied": self.applied, "moved_out": len(self.moved_out),
                               "moved_in": len(self.moved_in), "busts": len(self.busts),
                               "problems": list(self.problems), "screens": self.screen.summary()}}

    def _journal(self, payload: dict[str, Any]) -> None:
        self.orch.journal.append(JOURNAL_KIND, payload, self.orch.clock())

    def _crash_point(self, point: str) -> None:
        self._crash.hit(point)
