"""Hand histories of the live table: PHH export and game recall from the journal (issue 9).

Two jobs, both read-only:

- :func:`record_to_phh` writes a finished (or voided) table hand as PHH text that
  ``livetable replay`` plays back to the same finishing stacks (:mod:`controller.history_phh`).
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

This module holds the recall's loop (:func:`recall`) and its text (:func:`format_hand`) and
re-exports the rest, split by what it does: :mod:`controller.history_phh` (PHH export and
the tablets' hand summary), :mod:`controller.history_journal` (opening the journal, the
snapshot to replay from), :mod:`controller.history_steps` (the steps of a hand, its
builder), :mod:`controller.history_seats` (seats, chips and faults between and in hands).
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Any

from controller.engine.table import effects as fx
from controller.engine.table.codec import from_json as event_from_json
from controller.engine.table.codec import to_json as event_to_json
from controller.engine.table.settings import TableSettings
from controller.engine.table.step import step
from controller.engine.table.state import TableState
from controller.history_journal import (HistoryError, _base, _compacted_upto, _load_snapshot, _set_aside,
                                        copy_journal,
                                        _snapshot_index, open_journal)
from controller.history_phh import _utc, hand_from_record, hand_summary, phh_order, rake_paid, record_to_phh
from controller.history_seats import _fault_step, _seat_steps, _set_aside_step
from controller.history_notes import NoteWords
from controller.history_steps import HandRecall, Recall, Step, _Builder, _notes
from controller.journal import payload_of

__all__ = ["record_to_phh", "hand_summary", "hand_from_record", "rake_paid", "phh_order", "HistoryError", "Step",
           "HandRecall", "Recall", "open_journal", "recall", "format_hand"]

_NAMES_LIMIT = {"no-limit": "No Limit", "pot-limit": "Pot Limit", "fixed-limit": "Fixed Limit"}
_GAME = {"holdem": "Hold'em", "omaha": "Omaha", "draw": "Five Card Draw"}


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

    The journal is read as it was at one moment: a running table may compact it meanwhile
    (issue 21), and its events then start after a newer snapshot than the one the recall
    began from; read across that moment, the recall replayed those events on the older
    state and showed no hand, silently. That moment is copied into memory in one short read
    transaction (:func:`~controller.history_journal.copy_journal`) and the replay reads the
    copy: a reader stopped mid-replay (SIGSTOP, a full pipe) no longer keeps the table from
    resetting its ``-wal`` file, which grew to 60.7 MB over 300 hands beside one.

    Raises:
        HistoryError: the journal is missing or unreadable, an event cannot be replayed, or
            hand ``hand`` is not in it.
    """
    db = copy_journal(path)  # one moment of the journal, read in one short transaction
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
    aside = _set_aside(db, after)  # skipped as the table's recovery skips them
    notes = NoteWords()  # issue 19: the tournament's and the simulation's records in sentences
    notes.prime(db, after)
    rows = db.execute("SELECT seq, at, kind, payload FROM events WHERE seq > ? ORDER BY seq", (after,))
    try:
        # The table as it was at each between-hands snapshot the replay passes (a journal an
        # older livetable wrote replays with today's rules, which may pay otherwise: a
        # replay over many hands drifted from the table's chips and lost hands).
        starts = [u for u, _h, between in index if between and u > after]
        for seq, at, kind, payload in rows:
            last_seq = int(seq)
            while starts and starts[0] < last_seq:
                upto = starts.pop(0)
                if cur is None and state.hand is None:
                    try:
                        state = TableState.from_json(_load_snapshot(db, upto)["table"])
                    except (KeyError, TypeError, ValueError) as exc:
                        raise HistoryError(f"journal snapshot at event {upto} cannot be read: {exc}") from None
            if last_seq in aside:
                when = float(at) if isinstance(at, (int, float)) else None
                (cur.recall.steps if cur is not None else pending).append(
                    _set_aside_step(last_seq, aside[last_seq], when))
                continue
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
                            cur.catch_up(rec["hand_record"]["events"], at, autos, data.get("kind", ""))
                            _notes(cur, data, effects, at, own)
                        cur.finish(rec, at)
                        built.append(cur.recall)
                        cur = None
                    elif state.hand is not None:
                        autos = [tuple(a) for a in state.info.auto][before_auto:]  # type: ignore[union-attr]
                        cur.catch_up(state.hand.events, at, autos, data.get("kind", ""))
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
            elif kind == "rejected" and isinstance(data.get("seq"), int) and data["seq"] in aside:
                continue  # said where the event it sets aside was
            else:
                if kind in ("tournament", "simulate"):  # issue 19: sentences, no clock snapshots
                    text = notes.text(kind, data)
                    if text is None:
                        continue
                    s = Step(at, "note", text, None, {"journal_kind": kind, "type": data.get("type")})
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
