"""The tournament on the dealer display (issue 19): a strip under the header and each
seat's stack in big blinds, from the public state's ``tournament_view``
(docs/tournament.md, "What the display shows").

The strip shows, left to right: the level and its blinds and ante (``Level 3 · 100/200
BB ante 200``, or ``BREAK`` on a break), the time left in the level (``8:42``, counted down
by the renderer from the view's ``at`` while the clock runs), the next level (``Next
200/400 BB ante 400``; ``Last level``), and the numbers (``Players 5/6 · Avg 2,400 · Pool
600``). Pure text and boxes; the layout places them, the renderer draws them.
"""

from __future__ import annotations

import math
from typing import Any

from display.geometry import MIN_FONT, Box, Measure, Text, fit_size, place_text
from display.i18n import _, chips

__all__ = ["view_of", "level_text", "next_text", "numbers_text", "time_left", "bb_text", "strip_texts",
           "CLOCK_ROLE", "ordinal", "out_text", "rebuy_pending_text", "move_texts", "moves_banner", "moves_until",
           "deal_banner"]

#: The role of the strip's time-left text (the renderer redraws it as the clock runs).
CLOCK_ROLE = "tournament-clock"
#: Shares of the strip's width: level, time left, next level, numbers.
SHARES = (0.30, 0.11, 0.25, 0.34)


def view_of(state: dict[str, Any]) -> dict[str, Any] | None:
    """Return the state's ``tournament_view`` when it is one (a dict with a level), else None."""
    tv = state.get("tournament_view")
    return tv if isinstance(tv, dict) and isinstance(tv.get("level"), dict) else None


def _stakes(lv: dict[str, Any]) -> str:
    text = f"{chips(lv.get('small_blind') or 0)}/{chips(lv.get('big_blind') or 0)}"
    if lv.get("big_blind_ante"):
        text += " " + _("BB ante {chips}").format(chips=chips(lv["big_blind_ante"]))
    elif lv.get("ante"):
        text += " " + _("ante {chips}").format(chips=chips(lv["ante"]))
    return text


def ordinal(n: int) -> str:
    """A place in words: ``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``22nd`` (Dutch ``5e``)."""
    if 11 <= n % 100 <= 13:
        return _("{n}th").format(n=n)
    return {1: _("{n}st"), 2: _("{n}nd"), 3: _("{n}rd")}.get(n % 10, _("{n}th")).format(n=n)


def out_text(out: Any) -> str:
    """What a seat shows after its player busted, until someone takes it: ``"OUT — 5th"``
    (``out`` is the view's ``out`` entry of the seat, ``{"place": 5, ...}``); ``""`` for
    anything else."""
    place = out.get("place") if isinstance(out, dict) else None
    if not isinstance(place, int) or isinstance(place, bool) or place < 1:
        return ""
    return _("OUT — {place}").format(place=ordinal(place))


def rebuy_pending_text(pending: Any) -> str:
    """What a seat kept for its busted player, who may still rebuy at the bust, shows
    (issue 19 TFIX 7; ``pending`` is the view's ``rebuy_pending`` entry of the seat,
    ``{"name": ..., "asked": bool}``): ``"BUSTED — REBUY?"``, or ``"REBUY — DEALER TO CONFIRM"``
    once his tablet asked for it (the next deal waits for the dealer, breaker 3 H1); ``""``
    for anything else."""
    if not isinstance(pending, dict):
        return ""
    return _("REBUY — DEALER TO CONFIRM") if pending.get("asked") is True else _("BUSTED — REBUY?")


def level_text(tv: dict[str, Any]) -> str:
    """``"Level 3 · 100/200 BB ante 200"``; on a break ``"BREAK · Level 3 next"``; ``"… · PAUSED"``
    while the director has stopped the clock."""
    lv = tv["level"]
    if tv.get("on_break"):
        text = _("BREAK") + " \u00b7 " + _("Level {n} next").format(n=lv.get("number"))
    else:
        text = _("Level {n}").format(n=lv.get("number")) + " \u00b7 " + _stakes(lv)
    if tv.get("running") is False and not tv.get("finished"):  # the director stopped the clock (issue 19)
        text += " \u00b7 " + _("PAUSED")
    return text


def next_text(tv: dict[str, Any]) -> str:
    """``"Next 200/400 BB ante 400"`` or ``"Last level"``."""
    nxt = tv.get("next_level")
    if tv.get("on_break"):
        nxt = tv["level"]
    if not isinstance(nxt, dict):
        return _("Last level")
    return _("Next {stakes}").format(stakes=_stakes(nxt))


def numbers_text(tv: dict[str, Any]) -> str:
    """``"Players 5/6 · Avg 2,400 · Pool 600"`` (at the room's tables ``"· Paid 9"`` and, on the
    bubble, ``"· HAND FOR HAND"``); on a colour-up's break the chip race's
    winners too (``"· CHIP RACE: SEATS 2, 5 WIN A 100"``, TDA chip race)."""
    parts = [
        _("Players {left}/{entries}").format(left=chips(tv.get("players_left") or 0),
                                               entries=chips(tv.get("entries") or 0)),
        _("Avg {chips}").format(chips=chips(tv.get("average_stack") or 0)),
        _("Pool {money}").format(money=chips(tv.get("prize_pool") or 0)),
    ]
    if isinstance(tv.get("places_paid"), int) and tv["places_paid"] > 0:  # the room's multi-table tournament
        parts.append(_("Paid {n}").format(n=chips(tv["places_paid"])))
    if tv.get("hand_for_hand"):
        parts.append(_("HAND FOR HAND"))
    race = tv.get("chip_race")
    if isinstance(race, dict) and isinstance(race.get("seats"), dict):
        won = sorted(int(n) for n, x in race["seats"].items()
                     if str(n).isdigit() and isinstance(x, dict) and x.get("won"))
        parts.append(_("CHIP RACE: SEATS {seats} WIN A {chip}").format(seats=", ".join(map(str, won)),
                                                                        chip=chips(race.get("chip")))
                     if won else _("CHIP RACE: NO CHIP WON"))
    return " \u00b7 ".join(parts)


def time_left(tv: dict[str, Any], now: float | None) -> str:
    """The time left in the level as ``m:ss`` at ``now`` (Unix s; None: as published);
    ``"--:--"`` on the last level (it never ends)."""
    left = tv.get("seconds_left")
    if not isinstance(left, (int, float)):
        return "--:--"
    at = tv.get("at")
    if now is not None and tv.get("running") and isinstance(at, (int, float)):
        left = left - max(0.0, now - at)
    secs = max(0, math.ceil(left))
    return f"{secs // 60}:{secs % 60:02d}"


def bb_text(tenths: int) -> str:
    """A stack in big blinds from tenths: ``125`` -> ``"12.5 BB"`` (``"12,5 BB"`` in Dutch)."""
    whole, tenth = divmod(int(tenths), 10)
    if tenth:
        return _("{whole}.{tenth} BB").format(whole=chips(whole), tenth=tenth)
    return _("{bb} BB").format(bb=chips(whole))


def strip_texts(tv: dict[str, Any], box: Box, gap: int, measure: Measure) -> tuple[Text, ...]:
    """The strip's four texts in ``box``, one font size for all (texts too long at the
    smallest size are cut); the time left sized for ``"88:88"``."""
    texts = [level_text(tv), time_left(tv, None), next_text(tv), numbers_text(tv)]
    inner = box.inset(gap)
    boxes: list[Box] = []
    x = inner.x
    for share in SHARES:
        w = int(inner.w * share)
        boxes.append(Box(x, inner.y, max(1, w - gap), inner.h))
        x += w
    sizing = [texts[0], "88:88", texts[2], texts[3]]
    size = max(MIN_FONT, min(fit_size([t], b.w, b.h, measure) for t, b in zip(sizing, boxes)))
    roles = ("tournament-level", CLOCK_ROLE, "tournament-next", "tournament-numbers")
    aligns = ("left", "center", "left", "right")
    return tuple(place_text(b, t, size, measure, align=a, role=r)
                 for t, b, a, r in zip(texts, boxes, aligns, roles))


def _table(n: dict[str, Any]) -> str:
    table, name = str(n.get("table") or ""), n.get("table_name")
    return f"{name} ({table})" if isinstance(name, str) and name and name != table else table


def _live_moves(tv: dict[str, Any], now: float | None) -> list[dict[str, Any]]:
    moves = tv.get("moves")
    if not isinstance(moves, list):
        return []
    return [n for n in moves if isinstance(n, dict) and (
        now is None or not isinstance(n.get("until"), (int, float)) or n["until"] > now)]


def moves_until(state: dict[str, Any], now: float) -> float | None:
    """When the first move notice still shown at ``now`` ends (its ``until``), None without one."""
    tv = view_of(state)
    ends = [n["until"] for n in _live_moves(tv, now) if isinstance(n.get("until"), (int, float))] if tv else []
    return min(ends) if ends else None


def move_texts(tv: dict[str, Any], now: float | None = None) -> list[str]:
    """The move notices of the room's multi-table tournament (the view's ``moves``,
    controller/tournament_link_view.py), one text each: ``"Player 17 moves to Birch (t2)
    seat 6"`` (a player leaving), ``"Player 17 from Aspen (t1)"`` (a player arriving),
    ``"Table breaks: players move to Birch (t2), Cedar (t3)"`` (TDA 10); malformed ones skipped,
    and at ``now`` (Unix s) those whose ``until`` is past."""
    out: list[str] = []
    for n in _live_moves(tv, now):
        kind = n.get("kind")
        if kind == "break" and isinstance(n.get("tables"), list):
            out.append(_("Table breaks: players move to {tables}").format(
                tables=", ".join(str(x) for x in n["tables"])))
        elif kind == "out" and n.get("table"):
            text = _("{name} moves to {table}").format(name=n.get("name") or "?", table=_table(n))
            if isinstance(n.get("to_seat"), int):
                text = _("{name} moves to {table} seat {seat}").format(name=n.get("name") or "?", table=_table(n),
                                                                      seat=n["to_seat"])
            out.append(text)
        elif kind == "in" and n.get("table"):
            out.append(_("{name} from {table}").format(name=n.get("name") or "?", table=_table(n)))
    return out


def moves_banner(state: dict[str, Any], now: float | None = None) -> tuple[str, str]:
    """The banner (title, message) of the move notices in ``state``'s tournament view (at
    ``now``, Unix s: those not ended yet):
    ``("TABLE BREAKS", "Table breaks: players move to … · Player 3 moves to …")`` or
    ``("PLAYERS MOVE", "Player 17 moves to Birch (t2) seat 6")``; ``("", "")`` without any."""
    tv = view_of(state)
    texts = move_texts(tv, now) if tv is not None else []
    if not texts or tv is None:
        return "", ""
    breaks = any(n.get("kind") == "break" for n in _live_moves(tv, now))
    return (_("TABLE BREAKS") if breaks else _("PLAYERS MOVE")), " \u00b7 ".join(texts)


def deal_banner(state: dict[str, Any]) -> tuple[str, str]:
    """The banner (title, message) of the deal offered to the final players (issue 19, the
    view's ``deal_offer``): ``("DEAL OFFERED", "Ann 402 · Bob 334 · Cy 264 — 1 of 3
    accepted")`` while they answer, ``("DEAL AGREED", "... — the director confirms")`` once
    every player accepted; ``("", "")`` without an offer or with one not the shape expected."""
    tv = view_of(state)
    d = tv.get("deal_offer") if tv is not None else None
    if not isinstance(d, dict) or not isinstance(d.get("players"), list):
        return "", ""
    players = [p for p in d["players"] if isinstance(p, dict)]
    shares = " \u00b7 ".join(f"{p.get('name') or '?'} {chips(p.get('share') or 0)}" for p in players)
    if d.get("agreed") is True:
        return _("DEAL AGREED"), f"{shares} \u2014 " + _("the director confirms")
    accepted = sum(1 for p in players if p.get("accepted") is True)
    return _("DEAL OFFERED"), f"{shares} \u2014 " + _("{n} of {of} accepted").format(n=accepted, of=len(players))
