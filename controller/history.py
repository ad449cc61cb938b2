"""Hand histories of the live table: PHH export and game recall from the journal (issue 9).

Two jobs, both read-only:

- :func:`record_to_phh` turns the ``hand-finished`` record of the table
  (``controller.engine.table.play.finish_hand``, docs/table.md) into PHH text (TOML) that
  ``livetable replay`` plays back to the same finishing stacks. Standard PHH keys plus our
  extension keys (docs/history.md): table, hand number, time, seat names, button and blind
  seats, antes, dead blinds (T-6), rake (R-1), mucked hands (P-4), and ``_void`` for a
  voided hand.
- :func:`recall` reads the journal (``controller.journal``: SQLite, opened **read-only**,
  so it works beside a running table) and rebuilds the last hands step by step for the
  floor (``livetable history``, :mod:`controller.history_cli`): posts, every hole card
  (mucked ones marked), each action with its amount and the stack after, the board by
  street, pots, winners with the hand in words and its kickers (H-4), rake, every seat and
  chip change (sitting down, buy-ins and their confirmation, top-ups, standing up, sitting
  out and in: T-2..T-8) between and during hands, and every fault, void and recovery with
  who decided it. A hand still running (or paused by a fault) is shown up to now and
  marked in progress.

Nothing here changes the journal or the table; the recall replays journalled table events
through the same pure ``step`` function the table uses.
"""

from __future__ import annotations

import json
import sqlite3
import tomllib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote

from controller.engine import evaluator, phh
from controller.engine.hand import Hand
from controller.engine.settings import HandSettings, PlayerSetup
from controller.engine.table import effects as fx
from controller.engine.table.codec import from_json as event_from_json
from controller.engine.table.codec import to_json as event_to_json
from controller.engine.table.play import runout
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import SIT_OUT_LIMIT, TableState
from controller.engine.table.step import step
from controller.journal import payload_of

__all__ = ["record_to_phh", "hand_summary", "hand_from_record", "rake_paid", "phh_order", "HistoryError", "Step",
           "HandRecall", "Recall", "open_journal", "recall", "format_hand"]


class HistoryError(Exception):
    """The journal cannot be read or does not hold what was asked (``livetable history`` exit 2)."""


# ------------------------------------------------------------------------------ PHH export

def hand_summary(record: dict[str, Any]) -> dict[str, Any]:
    """Return the summary of one finished hand that the tablets' history topics carry (P-4).

    ``record``: the table's ``HandFinished`` record (``controller/engine/table/play.py``). The
    summary keeps only what docs/mqtt.md lists: ``hand``, ``table``, ``game``, ``limit``,
    ``started``, ``ended``, ``voided``, ``board`` (the cards dealt face up), ``seats``
    (``seat``, ``name``, ``cards``, ``showed``, ``net`` chips won or lost in the hand),
    ``pots`` (``amount``, ``winners``, ``hand`` in words) and ``rake``. Every seat's
    ``cards`` are still here; :func:`drivers.mqtt.codec.history_views` blanks them per view.
    Nothing else of the record (the engine's events, every hole card in ``result``) is
    copied, so no private card reaches the history topics by another field.
    """
    res = record.get("result") or {}
    board = (record.get("hand_record") or {}).get("board") or []
    seats = []
    for s in record.get("seats") or []:
        start, end = s.get("start"), s.get("end")
        net = end - start if isinstance(start, int) and isinstance(end, int) else None
        seats.append({"seat": s.get("seat"), "name": s.get("name"), "cards": s.get("cards"),
                      "showed": s.get("showed"), "net": net})
    pots = [{"amount": a.get("amount"), "winners": list(a.get("winners") or []), "hand": a.get("hand")}
            for a in res.get("awards") or []]
    return {"hand": record.get("hand"), "table": record.get("table"), "game": record.get("game"),
            "limit": record.get("limit"), "started": record.get("started"), "ended": record.get("ended"),
            "voided": bool(record.get("voided")), "board": [c for c in board if isinstance(c, str)],
            "seats": seats, "pots": pots, "rake": res.get("rake", 0)}


def hand_from_record(record: dict[str, Any]) -> Hand:
    """Return the finished hand engine :class:`Hand` rebuilt from a ``hand-finished`` record.

    Replays ``record["hand_record"]`` (settings, players with posts, button/blinds, events).

    Raises:
        KeyError: the record has no ``hand_record``.
        HandError (ValueError): the record's events do not replay (a corrupt record).
    """
    return Hand.from_snapshot(record["hand_record"])


def rake_paid(record: dict[str, Any]) -> dict[int, int]:
    """Return seat -> chips of rake taken from the pots that seat won (R-1; the ledger's share).

    Each pot's rake is shared in proportion to the winners' shares, any remainder to the
    first winner in P-3 order (as the table's ledger books it). Empty for a voided hand.
    """
    out: dict[int, int] = {}
    for award in (record.get("result") or {}).get("awards") or []:
        r = int(award.get("rake") or 0)
        if not r:
            continue
        shares = {int(k): int(v) for k, v in (award.get("shares") or {}).items()}
        winners = [int(w) for w in award.get("winners") or []] or list(shares)
        total = sum(shares.get(w, 0) for w in winners)
        given = 0
        for w in winners:
            part = (r * shares.get(w, 0)) // total if total else 0
            out[w] = out.get(w, 0) + part
            given += part
        if winners:
            out[winners[0]] = out.get(winners[0], 0) + r - given
    return out


def _toml(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    raise ValueError(f"cannot write {v!r} as TOML")


def _utc(at: float) -> datetime:
    return datetime.fromtimestamp(float(at), tz=timezone.utc)


def record_to_phh(record: dict[str, Any]) -> str:
    """Return a finished (or voided) table hand as PHH text (TOML).

    Args:
        record: the ``hand-finished`` record (docs/table.md): ``hand``, ``table``, ``seats``
            (seat, name, player, cards, showed, start, end), ``started``/``ended`` (Unix
            seconds), ``button``, ``sb_seat``, ``bb_seat``, ``hand_record``, ``result``,
            ``voided``.

    Returns:
        PHH TOML text written by :func:`controller.engine.phh.dump` (variant, antes,
        blinds, stakes, starting stacks, ``seats``, ``dead_posts``, the actions with every
        hole card known, mucked ones included: P-4) followed by the standard optional keys
        ``table``, ``hand``, ``players`` (names, p1..pN), ``day``/``month``/``year``,
        ``time`` and ``time_zone`` (UTC), and user-defined keys (PHH: names starting with
        ``_``, which readers ignore): ``_player_ids``, ``_button``, ``_small_blind_seat``
        (0 = dead), ``_big_blind_seat``, ``_started``/``_ended`` (Unix seconds),
        ``_smallest_chip`` (S-10: splits and rake are made to it, P-3), ``_cap_bets`` and
        ``_cap_lifted_heads_up`` (S-6 fixed-limit cap), ``_rake``
        (total), the rake settings ``_rake_percent`` (a fraction as text, ``"5"``),
        ``_rake_cap``, ``_rake_caps`` (``[[players, cap], ...]``), ``_no_flop_no_drop``,
        ``_draw_counts_as_flop``, ``_rake_paid`` (per player, p1..pN), ``_shown`` and
        ``_mucked`` (p-numbers), ``_auto`` (``["p3", "fold", "A-2"]``: what the table did for
        a player), and for a voided hand ``_void = true`` and ``_void_reason`` plus a first
        line comment ``# VOID: ...``. ``finishing_stacks`` are the table's stacks after rake;
        a voided hand's are its starting stacks (every wager returned) while its actions stop
        where the hand was voided.

    Raises:
        KeyError / ValueError: a record without ``hand_record`` or whose events do not replay.
    """
    hand = hand_from_record(record)
    order = [p.seat for p in phh_order(hand)]
    pno = {seat: k + 1 for k, seat in enumerate(order)}
    by_seat = {int(s["seat"]): s for s in record.get("seats") or []}
    text = phh.dump(hand)
    lines: list[str] = []
    voided = bool(record.get("voided") or (record.get("result") or {}).get("voided"))
    reason = ""
    if voided:
        reason = next((e.get("reason", "") for e in record["hand_record"].get("events", [])
                       if e.get("t") == "void"), "")
        lines.append(f"# VOID: hand {record.get('hand')} was voided ({_one_line(reason)}); "
                     "every wager was returned")
    lines.append(text.rstrip("\n"))
    meta: list[tuple[str, Any]] = []
    if record.get("table") is not None:
        meta.append(("table", str(record["table"])))
    if record.get("hand") is not None:
        meta.append(("hand", int(record["hand"])))
    meta.append(("players", [str(by_seat.get(s, {}).get("name") or f"Seat {s}") for s in order]))
    if record.get("started") is not None:
        t = _utc(record["started"])
        meta += [("day", t.day), ("month", t.month), ("year", t.year)]
    meta.append(("_player_ids", [str(by_seat.get(s, {}).get("player") or "") for s in order]))
    meta.append(("_button", int(record.get("button") or hand.button)))
    sb = record.get("sb_seat", hand.sb_seat)
    meta.append(("_small_blind_seat", int(sb or 0)))
    meta.append(("_big_blind_seat", int(record.get("bb_seat") or hand.bb_seat)))
    if record.get("started") is not None:
        meta.append(("_started", float(record["started"])))
    if record.get("ended") is not None:
        meta.append(("_ended", float(record["ended"])))
    res = record.get("result") or {}
    hs = hand.settings
    # betting settings a reader needs beyond the PHH keys (S-10, P-3, S-6)
    meta += [("_smallest_chip", int(hs.smallest_chip)), ("_cap_bets", int(hs.cap_bets)),
             ("_cap_lifted_heads_up", bool(hs.cap_lifted_heads_up))]
    rake = hs.rake
    meta.append(("_rake", int(res.get("rake") or 0)))
    if rake is not None:  # what a reader needs to take the same rake
        meta.append(("_rake_percent", str(rake.percent)))
        if rake.cap is not None:
            meta.append(("_rake_cap", int(rake.cap)))
        meta.append(("_rake_caps", [[int(n), int(c)] for n, c in rake.caps]))
        meta.append(("_no_flop_no_drop", bool(rake.no_flop_no_drop)))
        meta.append(("_draw_counts_as_flop", bool(rake.draw_counts_as_flop)))
    paid = rake_paid(record)
    meta.append(("_rake_paid", [paid.get(s, 0) for s in order]))
    meta.append(("_shown", [f"p{pno[int(s)]}" for s in (res.get("shown") or {}) if int(s) in pno]))
    meta.append(("_mucked", [f"p{pno[int(s)]}" for s in (res.get("mucked") or []) if int(s) in pno]))
    meta.append(("_auto", [[f"p{pno[int(a[0])]}", str(a[1]), str(a[2])]
                           for a in record.get("auto") or [] if int(a[0]) in pno]))
    if voided:
        meta += [("_void", True), ("_void_reason", str(reason))]
    written = set(tomllib.loads(text))  # a key the writer already gives is not repeated (TOML)
    for k, v in meta:
        if k not in written:
            lines.append(f"{k} = {_toml(v)}")
    if record.get("started") is not None and "time" not in written:
        t = _utc(record["started"])
        lines.append(f"time = {t.strftime('%H:%M:%S')}")  # a TOML local time, as PHH wants
        lines.append('time_zone = "UTC"')
    return "\n".join(lines) + "\n"


def phh_order(hand: Hand) -> list[PlayerSetup]:
    """Return the hand's players in PHH order: p1 = first seat left of the button."""
    seats = sorted(p.seat for p in hand.setup)
    first = next((k for k, s in enumerate(seats) if s > hand.button), 0)
    ordered = seats[first:] + seats[:first]
    setup = {p.seat: p for p in hand.setup}
    return [setup[s] for s in ordered]


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


# ------------------------------------------------------------------------------ recall

@dataclass
class Step:
    """One line of a hand's recall.

    ``at`` Unix seconds (None when unknown); ``kind``: ``post``, ``deal`` (draw cards),
    ``board``, ``action``, ``draw``, ``show``, ``muck``, ``return`` (uncalled bet, S-9),
    ``pot`` (an award), ``rake``, ``void``, ``fault``, ``fault-ended``, ``recovery``,
    ``seat`` (seats and chips, T-2..T-8: see :func:`_seat_steps`), ``note``;
    ``seat`` the seat concerned or None; ``text`` the readable line; ``data`` the facts
    (``amount``/``to``/``stack`` in chips, ``cards``, ``rule``, ``by``...; ``between``
    True for what happened between the previous hand and this one).
    """

    at: float | None
    kind: str
    text: str
    seat: int | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Return ``{"at", "kind", "seat", "text", **data}``."""
        return {"at": self.at, "kind": self.kind, "seat": self.seat, "text": self.text, **self.data}


@dataclass
class HandRecall:
    """One hand rebuilt from the journal.

    ``number`` the table's hand number; ``seats`` per seat dealt in: ``seat``, ``name``,
    ``player``, ``start`` (stack before posting), ``end`` (None while running), ``cards``
    (every hole card known, ``"??"`` unknown), ``status`` (``folded``, ``mucked``,
    ``shown``, ``won`` uncontested, ``live`` while running, ``void``); ``steps`` in order;
    ``in_progress`` True when the journal ends inside the hand; ``paused`` the open
    fault (``{"kind", "message", "since"}``) when the table is paused; ``record`` the
    ``hand-finished`` record when the hand ended.
    """

    number: int
    table: str
    game: str
    limit: str
    started: float
    button: int
    sb_seat: int | None
    bb_seat: int
    stakes: dict[str, Any]
    seats: list[dict[str, Any]]
    steps: list[Step]
    ended: float | None = None
    in_progress: bool = True
    voided: bool = False
    rake: int = 0
    board: list[str] = field(default_factory=list)
    paused: dict[str, Any] | None = None
    to_act: int | None = None
    pots: list[dict[str, Any]] = field(default_factory=list)
    record: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-able dict (``livetable history --json``)."""
        return {
            "hand": self.number, "table": self.table, "game": self.game, "limit": self.limit,
            "started": self.started, "ended": self.ended, "in_progress": self.in_progress,
            "voided": self.voided, "button": self.button, "sb_seat": self.sb_seat,
            "bb_seat": self.bb_seat, "stakes": self.stakes, "seats": self.seats,
            "board": self.board, "rake": self.rake, "paused": self.paused, "to_act": self.to_act,
            "pots": self.pots,
            "steps": [s.to_json() for s in self.steps],
        }


@dataclass
class Recall:
    """What :func:`recall` found: ``hands`` oldest first, the table's open ``faults`` at the
    end of the journal, and ``last_seq`` (the newest journal event read)."""

    hands: list[HandRecall]
    faults: list[dict[str, Any]]
    last_seq: int


_NAMES_LIMIT = {"no-limit": "No Limit", "pot-limit": "Pot Limit", "fixed-limit": "Fixed Limit"}
_GAME = {"holdem": "Hold'em", "omaha": "Omaha", "draw": "Five Card Draw"}
_AUTO_WHY = {
    "A-2": "time ran out (A-2)", "A-3": "pre-selected (A-3)", "A-4": "tablet disconnected (A-4)",
    "T-8": "player leaving (T-8)", "P-2": "decided by the table at showdown (P-2)",
}


def open_journal(path: str | Path) -> sqlite3.Connection:
    """Open the journal at ``path`` read-only (SQLite URI ``mode=ro``; a running table may
    keep writing it: WAL lets readers in).

    Raises:
        HistoryError: no such file, not a SQLite database, or not a livetable journal.
    """
    p = Path(path)
    if not p.is_file():
        raise HistoryError(f"no journal at {p} (give --journal FILE or set $LIVETABLE_JOURNAL)")
    try:
        db = sqlite3.connect(f"file:{quote(str(p.resolve()))}?mode=ro", uri=True, timeout=5)
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.Error as exc:
        raise HistoryError(f"{p} is not a readable journal: {exc}") from None
    if not {"events", "snapshots"} <= names:
        db.close()
        raise HistoryError(f"{p} is not a livetable journal (no events/snapshots tables)")
    return db


def _snapshot_index(db: sqlite3.Connection) -> list[tuple[int, int, bool]]:
    """Return ``(upto, hands, between_hands)`` of every snapshot, oldest first, reading only
    those two fields of each (SQLite's JSON functions; the states can be large)."""
    try:
        rows = db.execute("SELECT upto, json_extract(state, '$.table.hands'), "
                          "json_type(state, '$.table.hand') FROM snapshots ORDER BY upto").fetchall()
        return [(int(u), int(h or 0), t in (None, "null")) for u, h, t in rows]
    except sqlite3.OperationalError as exc:
        if "malformed JSON" in str(exc):
            raise HistoryError(f"a journal snapshot is not JSON: {exc}") from None
        out = []  # an SQLite without JSON functions: read each state
        for upto, text in db.execute("SELECT upto, state FROM snapshots ORDER BY upto"):
            table = _load_snapshot_text(upto, text).get("table") or {}
            out.append((int(upto), int(table.get("hands", 0)), table.get("hand") is None))
        return out


def _load_snapshot_text(upto: int, text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise HistoryError(f"journal snapshot at event {upto} is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise HistoryError(f"journal snapshot at event {upto} is not a table state")
    return data


def _load_snapshot(db: sqlite3.Connection, upto: int) -> dict[str, Any]:
    row = db.execute("SELECT state FROM snapshots WHERE upto = ?", (upto,)).fetchone()
    return _load_snapshot_text(upto, row[0])


def _base(db: sqlite3.Connection, index: list[tuple[int, int, bool]], before_hand: int,
          settings: TableSettings | None) -> tuple[int, TableState, list[dict[str, Any]]]:
    """Return (after seq, state, open faults) to replay from so that hand ``before_hand + 1``
    and every later hand are rebuilt: the newest snapshot taken between hands with at most
    ``before_hand`` hands played, else an empty table (settings from ``settings`` or from
    the first snapshot when no change was logged before it)."""
    compacted = _compacted_upto(db)
    for upto, hands, between in reversed(index):
        # A compacted journal starts at its oldest snapshot: older hands are in history_dir.
        if between and (hands <= before_hand or (compacted and upto == compacted)):
            snap = _load_snapshot(db, upto)
            try:
                return upto, TableState.from_json(snap["table"]), list(snap.get("faults") or [])
            except (KeyError, TypeError, ValueError) as exc:
                raise HistoryError(f"journal snapshot at event {upto} cannot be read: {exc}") from None
    if compacted:
        raise HistoryError(f"the journal was compacted up to event {compacted} but its snapshot there is missing")
    if settings is None and index:
        first = _load_snapshot(db, index[0][0]).get("table") or {}
        if not first.get("settings_log"):
            try:
                settings = TableSettings.from_json(first["settings"])
            except (KeyError, TypeError, ValueError):
                settings = None
    if settings is None:
        raise HistoryError("the journal has no snapshot before these hands, so the table settings "
                           "are unknown: give --config FILE (the table's config)")
    return 0, TableState.new(settings), []


def _compacted_upto(db: sqlite3.Connection) -> int:
    """Return the seq the journal was compacted up to (``controller.compaction``), 0 if never."""
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'compacted_upto'").fetchone()
    except sqlite3.OperationalError:  # a journal without a meta table: never compacted
        return 0
    return int(row[0]) if row is not None else 0


class _Builder:
    """Follows one hand through the journal with a replica hand engine, writing steps."""

    def __init__(self, state: TableState, at: float) -> None:
        hand, info = state.hand, state.info
        assert hand is not None and info is not None
        self.replica = Hand(hand.settings, list(hand.setup), button=hand.button,
                            sb_seat=hand.sb_seat, bb_seat=hand.bb_seat)
        self.done = 0  # engine events applied to the replica
        self.auto_done = 0
        s: HandSettings = hand.settings
        stakes: dict[str, Any] = {"small_blind": s.small_blind, "big_blind": s.big_blind,
                                  "ante": s.ante}
        if s.limit.value == "fixed-limit":
            stakes.update(small_bet=s.small_bet, big_bet=s.big_bet)
        if s.rake is not None:
            stakes["rake_percent"] = str(s.rake.percent)
        seats = []
        for p in sorted(hand.setup, key=lambda p: p.seat):
            seat = state.seat(p.seat)
            seats.append({"seat": p.seat, "name": seat.name if seat else f"Seat {p.seat}",
                          "player": info.players.get(p.seat, ""), "start": p.stack, "end": None,
                          "cards": [], "status": "live"})
        self.recall = HandRecall(
            number=info.number, table=str(state.settings.id), game=s.game.value,
            limit=s.limit.value, started=info.started_at, button=info.button,
            sb_seat=info.sb_seat, bb_seat=info.bb_seat, stakes=stakes, seats=seats, steps=[])
        self.names = {x["seat"]: x["name"] for x in seats}
        self._posts(at)

    def who(self, seat: int) -> str:
        return f"Seat {seat} ({self.names.get(seat, '?')})"

    def add(self, at: float | None, kind: str, text: str, seat: int | None = None, **data: Any) -> None:
        self.recall.steps.append(Step(at, kind, text, seat, data))

    def _posts(self, at: float) -> None:
        """Antes first, then the small blind, the big blind, other live posts, dead posts."""
        r, h = self.recall, self.replica
        posts: list[tuple[int, int, str, str, int]] = []  # (order, seat, kind, text, amount)
        for p in sorted(h.setup, key=lambda p: p.seat):
            left = p.stack
            ante = min(h.settings.ante if p.ante is None else p.ante, left)
            left -= ante
            live = min(p.live_post, left)
            left -= live
            dead = min(p.dead_post, left)
            left -= dead
            allin = " (all-in)" if left == 0 else ""
            if ante:
                posts.append((0, p.seat, "ante", f"posts the ante {ante}", ante))
            if live:
                if p.seat == r.sb_seat:
                    posts.append((1, p.seat, "small blind", f"posts the small blind {live}{allin}", live))
                elif p.seat == r.bb_seat:
                    posts.append((2, p.seat, "big blind", f"posts the big blind {live}{allin}", live))
                else:
                    posts.append((3, p.seat, "live", f"posts a big blind {live} to play (T-4/T-6){allin}", live))
            if dead:
                posts.append((4, p.seat, "dead", f"posts {dead} dead (missed blind, T-6){allin}", dead))
        posts.sort(key=lambda x: (x[0], (x[1] - h.button - 1) % 100))  # clockwise from the button
        for _, seat, kind, text, amount in posts:
            self.add(at, "post", f"{self.who(seat)} {text}", seat, post=kind, amount=amount)
        if r.sb_seat is None:
            self.add(at, "post", "The small blind is dead (T-1)", None, post="dead small blind")

    # -------------------------------------------------------------- engine events
    def catch_up(self, events: list[dict[str, Any]], at: float, autos: list[tuple[int, str, str]],
                 trigger: str) -> None:
        """Apply the hand engine events not yet seen; ``autos`` the table's automatic actions
        added in this step (``(seat, action, rule)``); ``trigger`` the table event kind."""
        queue = list(autos)
        for e in events[self.done:]:
            self._one(e, at, queue, trigger)
            self.done += 1

    def _one(self, e: dict[str, Any], at: float, autos: list[tuple[int, str, str]], trigger: str) -> None:
        h = self.replica
        t = e.get("t")
        seat = e.get("seat")
        i = h.index.get(seat) if seat is not None else None
        before_stack = h.stack[i] if i is not None else 0
        before_bet = h.bet[i] if i is not None else 0
        street = h.street.value
        n_board = len(h.board)
        current = h.current
        h.apply(e)
        why = ""
        rule = None
        if seat is not None and autos and autos[0][0] == seat and t not in ("deal_hole", "deal_draw"):
            rule = autos.pop(0)[2]
            why = f" [{_AUTO_WHY.get(rule, rule)}]"
        elif trigger == "timer-expired" and t in ("fold", "check", "draw"):
            rule = "A-2"
            why = f" [{_AUTO_WHY['A-2']}]"
        if t == "deal_hole":
            return  # hole cards are listed per seat
        if t == "deal_board":
            cards = e.get("cards", "")
            n = len(cards.split())
            name = {0: "Flop", 3: "Turn", 4: "River"}.get(n_board, "Board") if n_board + n <= 5 else "Board"
            burn = f" (burn {e['burn']})" if e.get("burn") else ""
            self.add(at, "board", f"{name}: {cards}{burn}", None, street=name.lower(),
                     cards=cards.split(), burn=e.get("burn"))
            return
        if t == "deal_draw":
            cards = e.get("cards", "")
            burn = f" (burn {e['burn']})" if e.get("burn") else ""
            self.add(at, "deal", f"{self.who(seat)} receives {cards}{burn}", seat, cards=cards.split(),
                     burn=e.get("burn"))
            return
        if t == "void":
            return  # written by the table's hand-voided event with who decided it
        assert i is not None
        stack = h.stack[i]
        if h.street.value == "complete" and street != "complete":
            # the action closed the hand and the engine awarded the pots in the same step (every
            # other player all-in): the stack now holds the winnings, so count from before it
            stack = before_stack - {"call": min(max(0, current - before_bet), before_stack),
                                    "all_in": before_stack,
                                    "bet": int(e.get("to") or before_bet) - before_bet}.get(str(t), 0)
        put = before_stack - stack
        to = before_bet + put
        facts: dict[str, Any] = {"street": street, "action": t, "stack": stack}
        if rule:
            facts["rule"] = rule
        if t == "fold":
            text = f"{self.who(seat)} folds"
        elif t == "leave":
            text = f"{self.who(seat)} folds: the player stood up (T-8)"
        elif t == "check":
            text = f"{self.who(seat)} checks"
        elif t == "call":
            text = f"{self.who(seat)} calls {put}" + (" (all-in)" if stack == 0 else "")
            facts.update(amount=put, to=to)
        elif t == "bet":
            verb = "bets" if current == 0 else "raises to"
            text = f"{self.who(seat)} {verb} {to}" + (" (all-in)" if stack == 0 else "")
            facts.update(amount=put, to=to)
        elif t == "all_in":
            how = (("bets" if current == 0 else "raises to") + f" {to}") if e.get("raise") else "calls"
            text = f"{self.who(seat)} goes all-in for {put} ({how})"
            facts.update(amount=put, to=to)
        elif t == "draw":
            cards = (e.get("cards") or "").split()
            text = (f"{self.who(seat)} discards {len(cards)}: {' '.join(cards)}" if cards
                    else f"{self.who(seat)} stands pat")
            facts.update(discards=cards)
            self.add(at, "draw", text + why, seat, **facts)
            return
        elif t == "show":
            cards = [c for c in (e.get("cards") or "").split()] or [
                str(c) for c in h.hole_cards(seat) if c is not None]
            words = _words(h, seat)
            full = _words(h, seat, kickers=True)  # the floor sees the kickers (H-4)
            text = f"{self.who(seat)} shows {' '.join(cards)}" + (f" ({full})" if full else "")
            self.add(at, "show", text + why, seat, cards=cards, hand=words, hand_kickers=full,
                     **({"rule": rule} if rule else {}))
            return
        elif t == "muck":
            cards = [str(c) if c is not None else "??" for c in h.hole_cards(seat)]
            self.add(at, "muck", f"{self.who(seat)} mucks [{' '.join(cards)}] (P-4: not shown publicly)" + why,
                     seat, cards=cards, **({"rule": rule} if rule else {}))
            return
        else:
            text = f"{self.who(seat)} {t}"
        if t not in ("fold", "leave"):
            text += f", stack {stack}"
        self.add(at, "action", text + why, seat, **facts)

    # -------------------------------------------------------------- end
    def finish(self, record: dict[str, Any], at: float) -> None:
        """Close the hand with its ``hand-finished`` record: returns, pots, rake, stacks."""
        r = self.recall
        r.record = record
        r.in_progress = False
        r.ended = float(record.get("ended", at))
        res = record.get("result") or {}
        r.voided = bool(record.get("voided") or res.get("voided"))
        r.rake = int(res.get("rake") or 0)
        r.board = [c for c in (record.get("hand_record") or {}).get("board") or [] if c]
        final = {int(k): v for k, v in (res.get("stacks") or {}).items()}
        shown = {int(k) for k in res.get("shown") or {}}
        mucked = {int(k) for k in res.get("mucked") or []}
        hole = {int(k): v for k, v in (res.get("hole") or {}).items()}
        winners = {int(w) for a in res.get("awards") or [] for w in a.get("winners") or []}
        for s in r.seats:
            n = s["seat"]
            s["end"] = final.get(n)
            known = hole.get(n) or [str(c) if c is not None else None for c in self.replica.hole_cards(n)]
            s["cards"] = [c or "??" for c in known]
            i = self.replica.index[n]
            s["status"] = ("void" if r.voided else "shown" if n in shown else "mucked" if n in mucked
                           else "folded" if self.replica.folded[i] else "won" if n in winners else "folded")
        if r.voided:
            return
        # hands the table turned up itself (S-8 all-in, P-2 a hand that can win) had no line
        told = {st.seat for st in r.steps if st.kind == "show"}
        for n in sorted(shown - told):
            cards = [c for c in (res.get("shown") or {}).get(str(n)) or [] if c]
            full = _words(self.replica, n, kickers=True)
            self.add(r.ended, "show", f"{self.who(n)} shows {' '.join(cards)}" + (f" ({full})" if full else ""),
                     n, cards=cards, hand=_words(self.replica, n), hand_kickers=full, by="table")
        for seat, amount in sorted((res.get("returned") or {}).items(), key=lambda x: int(x[0])):
            if amount:
                self.add(r.ended, "return", f"Uncalled {amount} returned to {self.who(int(seat))} (S-9)",
                         int(seat), amount=amount)
        awards = res.get("awards") or []
        for k, a in enumerate(awards):
            name = "Main pot" if k == 0 else (f"Side pot {k}" if len(awards) > 2 else "Side pot")
            shares = {int(x): v for x, v in (a.get("shares") or {}).items()}
            who = ", ".join(f"{self.who(w)} wins {shares.get(w, 0)}" for w in a.get("winners") or shares)
            words = a.get("hand") or ""
            full = ""
            if words:
                full, beaten = self._kickers(a, res, shown)
                how = f" with {full or words}"
                for seat, theirs in beaten:  # same call, decided by the kickers (H-4)
                    how += f"; beats {self.who(seat)}'s {theirs} on the kickers (H-4)"
            elif (a.get("winners") or shares) and all(int(w) in shown for w in a.get("winners") or shares):
                how = " (shown; no other hand contested it)"  # the others mucked, or a pot of its own
            else:
                how = " (uncontested, not shown)"
            rake = f", rake {a['rake']}" if a.get("rake") else ""
            self.add(r.ended, "pot", f"{name} {a.get('amount')}{rake}: {who}{how}", None,
                     pot=k, amount=a.get("amount"), rake=a.get("rake", 0), shares=shares, hand=words,
                     hand_kickers=full)
        self.add(r.ended, "rake", f"Rake {r.rake}" + ("" if r.rake else " (R-1/R-2: none taken)"), None,
                 amount=r.rake)

    def _kickers(self, award: dict[str, Any], res: dict[str, Any], shown: set[int]
                 ) -> tuple[str, list[tuple[int, str]]]:
        """Return the pot winner's hand in words with its kickers (H-4), and the shown hands
        it beat that have the same H-6 call (``(seat, words with kickers)``): the pots the
        kickers decided. ``("", [])`` when the winner's cards are not known."""
        board = [c for c in self.recall.board if c]
        game = self.replica.settings.game.value
        hole = {int(k): [c for c in v if c] for k, v in (res.get("hole") or {}).items()}

        def full(seat: int) -> str:
            try:
                return evaluator.describe_hand(hole.get(seat) or [], board, game=game, kickers=True)
            except ValueError:
                return ""

        winners = [int(w) for w in award.get("winners") or []]
        if not winners:
            return "", []
        mine = full(winners[0])
        beaten = []
        for seat in award.get("eligible") or []:
            seat = int(seat)
            if seat in winners or seat not in shown:
                continue
            try:
                call = evaluator.describe_hand(hole.get(seat) or [], board, game=game)
            except ValueError:
                continue
            if call == award.get("hand"):
                beaten.append((seat, full(seat)))
        return mine, beaten

    def snapshot_now(self, state: TableState) -> None:
        """Fill in the running hand's current facts (in progress)."""
        r, h = self.recall, self.replica
        r.in_progress = True
        r.board = [str(c) for c in h.board_cards() if c is not None]
        r.to_act = h.seat_to_act
        for s in r.seats:
            i = h.index[s["seat"]]
            s["cards"] = [str(c) if c is not None else "??" for c in h.hole_cards(s["seat"])]
            s["stack"] = h.stack[i]
            s["status"] = ("folded" if h.folded[i] else "mucked" if h.mucked[i]
                           else "shown" if h.exposed[i] else "live")
        pots = h.pots()
        bets = sum(h.bet)
        r.pots = [{"amount": p.amount, "eligible": list(p.eligible)} for p in pots]
        text = ", ".join(f"{'main' if k == 0 else 'side'} pot {p.amount}" for k, p in enumerate(pots)) or "no pot yet"
        if bets:
            text += f", {bets} in bets this round"
        now = f"Now: {text}; "
        if state.dealing is not None:
            now += f"waiting for cards ({state.dealing.kind})"
        elif r.to_act is not None:
            now += f"{self.who(r.to_act)} to act"
        else:
            now += "waiting"
        self.add(None, "note", now, None, pots=[p.amount for p in pots], bets=bets)


def _words(h: Hand, seat: int, *, kickers: bool = False) -> str | None:
    """The seat's hand in words (H-6), with its kickers when ``kickers`` (H-4); None when
    its cards cannot be described."""
    hole = [str(c) for c in h.hole_cards(seat) if c is not None]
    board = [str(c) for c in h.board_cards() if c is not None]
    try:
        return evaluator.describe_hand(hole, board, game=h.settings.game.value, kickers=kickers)
    except ValueError:
        return None


def recall(path: str | Path, *, hands: int = 1, hand: int | None = None,
           settings: TableSettings | None = None) -> Recall:
    """Rebuild hands from the journal at ``path`` (opened read-only).

    Args:
        hands: the last ``hands`` finished hands (>= 1), plus the running hand if any.
        hand: only hand number ``hand`` (finished or running) instead.
        settings: the table settings to start from when the journal has no snapshot before
            the hands asked for (a journal still in its first hand).

    Returns:
        :class:`Recall` with the hands oldest first.

    Raises:
        HistoryError: the journal is missing or unreadable, an event cannot be replayed, or
            hand ``hand`` is not in it.
    """
    db = open_journal(path)
    try:
        return _recall(db, hands=hands, hand=hand, settings=settings)
    except sqlite3.Error as exc:
        raise HistoryError(f"journal {path}: {exc}") from None
    finally:
        db.close()


def _recall(db: sqlite3.Connection, *, hands: int, hand: int | None,
            settings: TableSettings | None) -> Recall:
    if hands < 1:
        raise HistoryError(f"--hands must be at least 1, got {hands}")
    index = _snapshot_index(db)
    last_hands = index[-1][1] if index else 0
    before = (hand - 1) if hand is not None else max(0, last_hands - hands)
    after, state, faults = _base(db, index, before, settings)
    open_faults: list[dict[str, Any]] = list(faults)
    built: list[HandRecall] = []
    cur: _Builder | None = None
    last_seq = after
    pending: list[Step] = []  # faults and recoveries between hands: shown with the next hand
    rows = db.execute("SELECT seq, at, kind, payload FROM events WHERE seq > ? ORDER BY seq", (after,))
    try:
        for seq, at, kind, payload in rows:
            last_seq = int(seq)
            try:
                data = payload_of(str(kind), float(at), payload)
            except (TypeError, ValueError):
                raise HistoryError(f"journal event {seq} is not JSON") from None
            if not isinstance(data, dict):
                raise HistoryError(f"journal event {seq} ({kind}) is not a JSON object: {payload[:80]!r}")
            try:
                at = float(at)
            except (TypeError, ValueError):
                raise HistoryError(f"journal event {seq} ({kind}) has no time: {at!r}") from None
            if kind == "table":
                try:
                    event = event_from_json(data)
                except Exception as exc:  # noqa: BLE001 - any decoding problem is a bad journal
                    raise HistoryError(f"journal event {seq} ({data.get('kind')}) cannot be read: {exc}") from None
                data = event_to_json(event)  # every field, also those stored only by their default
                before_auto = len(state.info.auto) if (state.hand is not None and state.info) else 0
                prev = state
                try:
                    state, effects = step(state, event)
                except Exception as exc:  # noqa: BLE001
                    raise HistoryError(f"journal event {seq} ({data.get('kind')}) does not replay: {exc}") from None
                # seats and chips (T-2..T-8): the event's own lines, and what the hand's end did
                own, after_hand = _seat_steps(prev, state, data, effects, at)
                if cur is None:
                    pending += own
                if cur is None and state.hand is not None:
                    cur = _Builder(state, state.info.started_at if state.info else at)
                    for p in pending:
                        p.data["between"] = True
                    cur.recall.steps[0:0] = pending  # before the hand, in journal order
                    pending = []
                    before_auto = 0
                finished = [e for e in effects if isinstance(e, fx.HandFinished)]
                for e in effects:  # P-2: the uncalled winner showed after the hand
                    if isinstance(e, fx.HandShown) and built and built[-1].number == e.hand:
                        who = state.seat(e.seat)
                        built[-1].steps.append(Step(
                            at, "show", f"Seat {e.seat} ({who.name if who else '?'}) shows {' '.join(e.cards)} "
                            "after the hand (P-2: won uncalled, chose to show)", e.seat,
                            {"cards": list(e.cards), "rule": "P-2"}))
                if cur is not None:
                    if finished:
                        rec = finished[0].record
                        autos = [tuple(a) for a in rec.get("auto") or []][before_auto:]
                        if data.get("kind") == "hand-voided":
                            cur.catch_up(rec["hand_record"]["events"], at, [], "")
                            cur.add(at, "void", f"HAND VOIDED by {data.get('by') or 'the floor'}: "
                                                f"{data.get('reason', '')}; every wager returned", None,
                                    reason=data.get("reason", ""), by=data.get("by", ""))
                        else:
                            cur.catch_up(rec["hand_record"]["events"], at, autos, data.get("kind", ""))  # type: ignore[arg-type]
                            _notes(cur, data, effects, at, own)
                        cur.finish(rec, at)
                        built.append(cur.recall)
                        cur = None
                    elif state.hand is not None:
                        autos = [tuple(a) for a in state.info.auto][before_auto:]  # type: ignore[union-attr]
                        cur.catch_up(state.hand.events, at, autos, data.get("kind", ""))  # type: ignore[arg-type]
                        _notes(cur, data, effects, at, own)
                    if state.hand is not None and cur is None:  # pragma: no cover - a hand ending and
                        cur = _Builder(state, at)                # the next starting in one step
                pending += after_hand
            elif kind in ("fault-raised", "fault-ended", "recovery"):
                s = _fault_step(kind, data, at)
                if kind == "fault-raised":
                    open_faults.append({"kind": data.get("kind"), "message": data.get("message"), "since": at})
                elif kind == "fault-ended":
                    open_faults = [f for f in open_faults if f.get("kind") != data.get("kind")]
                if cur is not None:
                    cur.recall.steps.append(s)
                else:
                    pending.append(s)
            else:
                s = Step(at, "note", f"{kind}: {json.dumps(data, sort_keys=True)}", None, {"journal_kind": kind})
                (cur.recall.steps if cur is not None else pending).append(s)
    except (AttributeError, KeyError, TypeError, IndexError, ValueError) as exc:
        # an event whose fields have the wrong shape (hand-edited, damaged): name it, no traceback
        raise HistoryError(f"journal event {last_seq} has the wrong shape: {type(exc).__name__}: {exc}") from None
    if pending and built and cur is None:  # after the last hand (the table paused between hands)
        built[-1].steps += [Step(p.at, p.kind, p.text + " (after the hand)", p.seat, p.data) for p in pending]
    if cur is not None:
        cur.snapshot_now(state)
        if open_faults:
            cur.recall.paused = open_faults[0]
        built.append(cur.recall)
    if hand is not None:
        chosen = [h for h in built if h.number == hand]
        if not chosen:
            older = built and hand < built[0].number and _compacted_upto(db)
            here = (f"hands here: {built[0].number}..{built[-1].number}" if built else
                    f"the last hand is {state.hands}" if state.hands else "no hand yet")
            raise HistoryError(f"hand {hand} is not in the journal ({here})"
                               + (f"; older hands left it when it was compacted: see hand-{hand:06d}.phh "
                                  "in the table's journal.history_dir" if older else ""))
    else:
        done = [h for h in built if not h.in_progress][-hands:]
        chosen = done + [h for h in built if h.in_progress]
    return Recall(chosen, open_faults, last_seq)


_SEAT_NOTES = {
    "tablet-disconnected": "tablet disconnected (A-4)", "tablet-connected": "tablet back online",
    "sat-out": "sits out from the next hand (T-5)",
}

#: What a refused seat event asked for, by event kind (the refusal's reason says why).
_ASKED = {
    "player-sat-down": "sitting down", "bought-in": "buy-in of {amount}",
    "player-joined": "joining from the tablet with {amount}", "buy-in-confirmed": "buy-in confirmation",
    "topped-up": "top-up of {amount}", "stood-up": "standing up", "sat-out": "sitting out",
    "sat-in": "sitting in", "auto-muck-set": "auto-muck setting", "settings-changed": "settings change",
}


def _leaving_note(state: TableState, seat: int) -> str:
    """T-8: what became of the hand of a player who stood up during it (recall wording)."""
    hand = state.hand
    i = hand.index.get(seat) if hand is not None else None
    then = "the seat is freed when the hand ends"
    if hand is None or i is None or hand.folded[i]:
        return f"T-8: the hand is folded; {then}"
    if hand.allin[i] or runout(hand):
        return f"T-8: no decision left (all-in or all-in run-out, S-8), the hand plays to the showdown; {then}"
    if hand.street.value == "showdown":
        return f"T-8: at the showdown the hand is shown if it can win, else mucked (P-2); {then}"
    return f"T-8: the hand is folded once the cards being dealt are out; {then}"


def _seat_steps(prev: TableState, state: TableState, data: dict[str, Any], effects: list[Any],
                at: float) -> tuple[list[Step], list[Step]]:
    """Return the recall lines of one table event about seats and chips (T-2..T-8, A-4,
    P-2, L-2): ``(own, after_hand)``.

    ``own`` says what the event did, where it happened (in the running hand or between
    hands): sitting down, a buy-in (``bought-in``; a tablet's ``player-joined``; the
    ``buy-in-confirmed`` of ``floor:<name>`` or the dealer), a top-up, standing up, sitting
    out or in, a tablet coming or going, the auto-muck choice, a settings change, or its
    refusal with the rule. ``after_hand`` is what the table did when this event ended a
    hand: top-ups asked for during it added (T-7), players leaving (T-8) or sat out too
    long (T-5) paid out. Chip lines are kind ``"seat"`` with ``amount`` (chips to or from
    the table), ``stack_before`` and ``stack`` (the seat's stack after), so the stacks of
    consecutive hands add up: end of one hand + buy-ins/top-ups - cash-outs = start of the
    next. ``prev`` / ``state`` the table before and after the event.
    """
    kind = str(data.get("kind", ""))
    seat_no = data.get("seat")
    own: list[Step] = []
    after: list[Step] = []
    cut = next((k for k, e in enumerate(effects) if isinstance(e, fx.HandFinished)), len(effects))

    def who(n: int) -> str:
        s = state.seat(n) or prev.seat(n)
        return f"Seat {n} ({s.name if s else '?'})"

    def chips(out: list[Step], n: int, amount: int, text: str, **facts: Any) -> None:
        s = state.seat(n)
        stack = s.stack if s is not None else 0
        out.append(Step(at, "seat", f"{who(n)} {text}, stack {stack - amount} -> {stack}", n,
                        {"event": kind, "amount": amount, "stack_before": stack - amount,
                         "stack": stack, **facts}))

    def line(out: list[Step], n: int | None, text: str, **facts: Any) -> None:
        out.append(Step(at, "seat" if n is not None else "note", text, n, {"event": kind, **facts}))

    refused = [e for e in effects[:cut] if isinstance(e, fx.Refuse) and e.event == kind and kind in _ASKED]
    if isinstance(seat_no, int) and refused:
        asked = _ASKED[kind].format(amount=data.get("amount"))
        for e in refused:
            line(own, seat_no, f"{who(seat_no)}: {asked} refused ({e.reason})", rule=e.rule, refused=True)
    elif isinstance(seat_no, int) or kind == "settings-changed":
        taken = sum(e.amount for e in effects[:cut] if isinstance(e, fx.TakeChips) and e.seat == seat_no)
        paid = sum(e.amount for e in effects[:cut] if isinstance(e, fx.PayOut) and e.seat == seat_no)
        freed = any(isinstance(e, fx.SeatFreed) and e.seat == seat_no for e in effects[:cut])
        n = seat_no if isinstance(seat_no, int) else 0
        then = state.seat(n) if n else None
        wait = " and will post a big blind to play at once (T-4)" if data.get("post") else ""
        if kind == "player-sat-down":
            line(own, n, f"{who(n)} sits down, player {data.get('player')} (T-3){wait}",
                 player=data.get("player"))
        elif kind == "bought-in" and taken:
            again = " again" if (prev.seat(n) and prev.seat(n).out_reason == "busted") else ""  # type: ignore[union-attr]
            chips(own, n, taken, f"buys in{again} for {taken} (T-2)")
        elif kind == "bought-in" and data.get("pending") and then is not None and then.buy_in_pending:
            line(own, n, f"{who(n)} asks to buy in again for {then.buy_in_pending} from the tablet: the "
                         "chips wait for the dealer or the floor to confirm them (T-3)",
                 amount=then.buy_in_pending, pending=True)
        elif kind == "player-joined":
            joined = f"{who(n)} sits down from the seat's tablet, player {data.get('player')} (T-3){wait}"
            line(own, n, joined, player=data.get("player"))
            if taken:
                chips(own, n, taken, f"buys in for {taken} from the tablet (T-2)")
            elif then is not None and then.buy_in_pending:
                line(own, n, f"{who(n)} asks to buy in for {then.buy_in_pending} from the tablet: the chips "
                             "wait for the dealer or the floor to confirm them (T-3)",
                     amount=then.buy_in_pending, pending=True)
        elif kind == "buy-in-confirmed" and taken:
            by = data.get("by") or "the dealer"
            chips(own, n, taken, f"buy-in of {taken} confirmed by {by}: the chips are on the table (T-3)",
                  by=by)
        elif kind == "topped-up":
            if taken:
                chips(own, n, taken, f"tops up {taken} (T-7)")
            else:
                line(own, n, f"{who(n)} asks to top up {data.get('amount')} (T-7: added when the hand ends)",
                     amount=data.get("amount"), pending=True)
        elif kind == "stood-up":
            if freed:
                chips(own, n, -paid, f"stands up and leaves the table with {paid} (T-8)")
            else:
                line(own, n, f"{who(n)} stands up ({_leaving_note(state, n)})")
        elif kind == "sat-in":
            how = (" and pays what is owed to play the next hand (T-4/T-6)" if data.get("post")
                   else " and waits for the big blind (T-4/T-6)")
            line(own, n, f"{who(n)} sits in{how}")
        elif kind == "auto-muck-set":
            line(own, n, f"{who(n)} turns auto-muck of losing hands {'on' if data.get('on') else 'off'} (P-2)",
                 on=bool(data.get("on")))
        elif kind in _SEAT_NOTES:
            line(own, n, f"{who(n)} {_SEAT_NOTES[kind]}")
        elif kind == "settings-changed":
            line(own, None, f"Settings change by {data.get('by') or '?'}"
                            f"{' (from the next hand)' if prev.hand is not None else ''}: "
                            f"{json.dumps(data.get('changes'), sort_keys=True)}", by=data.get("by", ""))
    # what the end of a hand did to the seats (T-7 top-ups, T-8 and T-5 departures)
    rest = effects[cut + 1:] if cut < len(effects) else []
    paid_at_end = {e.seat: e.amount for e in rest if isinstance(e, fx.PayOut)}
    for e in rest:
        if isinstance(e, fx.TakeChips):
            chips(after, e.seat, e.amount, f"top-up of {e.amount} added after the hand (T-7)", event="topped-up")
        elif isinstance(e, fx.Refuse) and e.event == "topped-up" and e.seat is not None:
            line(after, e.seat, f"{who(e.seat)}: top-up refused ({e.reason})", rule=e.rule, refused=True,
                 event="topped-up")
        elif isinstance(e, fx.SeatFreed):
            amount = paid_at_end.get(e.seat, 0)
            why = ("leaves the table with {a} (T-8)" if e.reason == "T-8" else
                   f"loses the seat after sitting out {SIT_OUT_LIMIT} hands and is paid out {{a}} ({e.reason})")
            chips(after, e.seat, -amount, why.format(a=amount), event="seat-freed", rule=e.reason)
    return own, after


def _notes(cur: _Builder, data: dict[str, Any], effects: list[Any], at: float, own: list[Step]) -> None:
    """Add the table events a floor person wants to see inside a hand: seat changes
    (``own``, from :func:`_seat_steps`), and every refusal of a player's action or of a
    card."""
    cur.recall.steps += own
    for e in effects:
        if not isinstance(e, fx.Refuse):
            continue
        if e.event == "card-dealt":
            cur.add(at, "note", f"Card refused: {e.reason}", None, rule=e.rule, event=e.event)
        elif e.seat is not None and e.event == "action-taken":
            what = data.get("action", "")
            if data.get("amount") is not None:
                what += f" {data['amount']}"
            cur.add(at, "note", f"{cur.who(e.seat)} tried to {what}: refused ({e.reason})", e.seat,
                    rule=e.rule, event=e.event)


def _fault_step(kind: str, d: dict[str, Any], at: float) -> Step:
    if kind == "fault-raised":
        return Step(at, "fault", f"FAULT {d.get('kind')}: {d.get('message')} (table paused)", None,
                    {"fault": d.get("kind"), "message": d.get("message")})
    if kind == "fault-ended":
        note = f" ({d.get('note')})" if d.get("note") else ""
        return Step(at, "fault-ended", f"Fault {d.get('kind')} ended: {d.get('exit')}, decided by "
                                       f"{d.get('by')}{note}", None,
                    {"fault": d.get("kind"), "exit": d.get("exit"), "by": d.get("by"), "note": d.get("note", "")})
    reason = f" ({d.get('reason')})" if d.get("reason") else ""
    what = {"resumed": f"hand {d.get('hand')} resumed", "voided": f"hand {d.get('hand')} to be voided",
            "clean": "between hands", "fresh": "new journal"}.get(str(d.get("outcome")), str(d.get("outcome")))
    return Step(at, "recovery", f"Controller restarted: {what}{reason}; decided by the system", None,
                {"outcome": d.get("outcome"), "hand": d.get("hand"), "reason": d.get("reason", ""),
                 "by": "system: recovery"})


# ------------------------------------------------------------------------------ text

def _when(at: float, utc: bool) -> datetime:
    t = _utc(at)
    return t if utc else t.astimezone()  # the machine's zone: the card room's clock


def _clock(at: float | None, utc: bool) -> str:
    return _when(at, utc).strftime("%H:%M:%S") if at is not None else "        "


def format_hand(h: HandRecall, *, utc: bool = False) -> str:
    """Return one recalled hand as readable text for the floor.

    Times are the machine's local time (the card room's clock, zone named in the header),
    or UTC with ``utc=True``.
    """
    game = f"{_GAME.get(h.game, h.game)} {_NAMES_LIMIT.get(h.limit, h.limit)}"
    st = h.stakes
    stakes = f"{st['small_blind']}/{st['big_blind']}"
    if st.get("small_bet"):
        stakes += f", bets {st['small_bet']}/{st['big_bet']}"
    if st.get("ante"):
        stakes += f", ante {st['ante']}"
    if st.get("rake_percent"):
        stakes += f", rake {st['rake_percent']}%"
    state = " - IN PROGRESS" if h.in_progress else (" - VOID" if h.voided else "")
    if h.in_progress and h.paused:
        state += f", PAUSED by fault {h.paused.get('kind')}: {h.paused.get('message')}"
    lines = [f"Hand #{h.number}{state}",
             f"Table {h.table} - {game} {stakes} - {_when(h.started, utc).strftime('%Y-%m-%d %H:%M:%S %Z')}",
             f"Button: seat {h.button}; small blind: "
             f"{'dead' if h.sb_seat is None else 'seat %d' % h.sb_seat}; big blind: seat {h.bb_seat}"]
    steps = list(h.steps)
    between = 0  # what happened since the hand before (seats, chips, faults): in time order
    while between < len(steps) and steps[between].data.get("between"):
        between += 1
    if between:
        lines.append("Between hands:")
        lines += [f"  {_clock(x.at, utc)}  {x.text}" for x in steps[:between]]
    lines.append("Seats:")
    for s in h.seats:
        end = f" -> {s['end']}" if s.get("end") is not None else (
            f" (now {s['stack']})" if s.get("stack") is not None else "")
        cards = " ".join(s.get("cards") or []) or "-"
        lines.append(f"  Seat {s['seat']} {s['name']} ({s['player']}): {s['start']}{end}  "
                     f"[{cards}] {s.get('status', '')}")
    for step_ in steps[between:]:
        lines.append(f"  {_clock(step_.at, utc)}  {step_.text}")
    if h.board:
        lines.append(f"Board: {' '.join(h.board)}")
    return "\n".join(lines)
