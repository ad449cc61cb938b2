"""The words of the recall for table events outside the hand engine (issue 9): seats and
chips between and during hands (T-2..T-8, A-4, P-2, L-2), refusals, faults and recoveries.

Part of :mod:`controller.history`.
"""

from __future__ import annotations

import json
from typing import Any

from controller.engine.table import effects as fx
from controller.engine.table.play import runout
from controller.engine.table.state import SIT_OUT_LIMIT, TableState
from controller.history_steps import Step


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
    if kind == "chips-raced":  # issue 19: a tournament's colour-up (TDA chip race), between hands
        for n in data.get("seats") or []:
            before, now = prev.seat(n), state.seat(n)
            if before is not None and now is not None and now.stack != before.stack:
                delta = now.stack - before.stack
                chips(own, n, delta, "wins a chip in the colour-up's chip race" if delta > 0
                      else "has odd chips raced off in the colour-up")
        return own, after
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
        elif isinstance(e, fx.SeatFreed) and e.reason == "busted" and not paid_at_end.get(e.seat):
            # a tournament's bust (issue 19): out of the tournament, not a T-5 sit-out
            hand_no = getattr(effects[cut], "hand", None) if cut < len(effects) else None
            line(after, e.seat, f"{who(e.seat)} busted out" + (f" in hand {hand_no}" if hand_no else ""),
                 rule=e.reason, event="seat-freed", amount=0)
        elif isinstance(e, fx.SeatFreed):
            amount = paid_at_end.get(e.seat, 0)
            why = ("leaves the table with {a} (T-8)" if e.reason == "T-8" else
                   f"loses the seat after sitting out {SIT_OUT_LIMIT} hands and is paid out {{a}} ({e.reason})")
            chips(after, e.seat, -amount, why.format(a=amount), event="seat-freed", rule=e.reason)
    return own, after


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


def _set_aside_step(seq: int, aside: dict[str, Any], at: float | None) -> Step:
    """Return the recall line of journal event ``seq``, set aside by a ``rejected`` event
    (``aside``: one entry of :func:`controller.history_journal._set_aside`) and so not
    replayed, as the table's recovery skips it: who set it aside (the floor with
    ``livetable history --accept``, or the live table that could not take it), why, and
    what was wrong. ``at`` the event's own time (None when unreadable)."""
    by, reason, error = aside["by"], aside["reason"], aside["error"]
    who = f"by {by}" + (f" ({reason})" if reason else "") if by else "by the table, which could not take it"
    what = f" ({error})" if error else ""
    return Step(at, "set-aside", f"Journal event {seq} set aside {who}: not replayed, as the table's "
                                 f"recovery skips it{what}", None,
                {"set_aside": seq, "by": by or "system: table", "reason": reason, "error": error,
                 "rejected_seq": aside["rejected_seq"]})
