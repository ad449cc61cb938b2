"""One seat's box on the dealer display: its rows, words, cards and markers (pure, no SDL).

:func:`plan_seat` splits a seat box into rows (seat number and name, stack, info line with
the D/SB/BB markers, cards with the equity or draw count) and says what goes in them; the
layout then picks one font size per kind of text across all seats.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.engine.cards import CardError, parse_card
from display.geometry import Box, Measure, fit_size
from display.i18n import _
from display.state import chips

__all__ = ["CardSlot", "Marker", "SeatPlan", "card_label", "card_slots", "plan_seat", "seat_info", "equity_text"]


@dataclass(frozen=True, slots=True)
class CardSlot:
    """One card place: ``card`` is a card text (``"As"``), ``None`` face down, ``""`` not dealt.

    ``rank`` is the rank as printed (``"10"`` for tens, ``"T"`` on cards too narrow for two
    digits, ``""`` when the card is too small for any rank or shows no face) and
    ``rank_size`` its font size (px), fitted to the card's upper half; the renderer draws
    the suit as a shape below it. ``wins``: one of the five cards that won a pot at the
    showdown (drawn with a gold frame, issue 20).
    """

    box: Box
    card: str | None
    rank_size: int
    rank: str = ""
    wins: bool = False


@dataclass(frozen=True, slots=True)
class Marker:
    """A round table marker in a seat: ``kind`` ``button`` (D), ``sb`` or ``bb`` (T-1)."""

    box: Box
    kind: str
    label: str
    size: int


def card_label(card: str) -> tuple[str, str]:
    """Return (rank as printed on a card, suit letter) for a card text: ``"Td"`` -> ``("10", "d")``.

    Unreadable card texts give ``("?", "")``.
    """
    try:
        c = parse_card(card)
    except (CardError, TypeError, ValueError):
        return "?", ""
    rank = "10" if c.rank == 10 else "23456789TJQKA"[c.rank - 2]
    return rank, c.suit


def card_slots(
    cards: list[str | None], area: Box, measure: Measure, *, max_h: int | None = None, align: str = "left"
) -> tuple[CardSlot, ...]:
    """Lay ``cards`` out in a row inside ``area`` as big as fits (card aspect 5:7)."""
    k = len(cards)
    if k == 0 or area.w < 8 or area.h < 10:
        return ()
    ch = min(area.h, max_h or area.h)
    cw = int(ch * 0.72)
    cg = max(2, cw // 8)
    if k * cw + (k - 1) * cg > area.w:
        cw = max(6, (area.w - (k - 1) * max(2, cg)) // k)
        cg = max(2, min(cg, cw // 8))
        ch = min(ch, int(cw / 0.72))
        cw = min(cw, (area.w - (k - 1) * cg) // k)
    total = k * cw + (k - 1) * cg
    x0 = area.x + (area.w - total) // 2 if align == "center" else area.x
    y0 = area.y + (area.h - ch) // 2
    rank_w, rank_h = max(1, cw - 4), max(1, int(ch * 0.52))
    rank_size = fit_size(["10"], rank_w, rank_h, measure)

    def fits(text: str) -> bool:
        w, h = measure(text, rank_size)
        return w <= rank_w and h <= rank_h

    ten = "10" if fits("10") else "T" if fits("T") else ""
    slots = []
    for i, c in enumerate(cards):
        rank = ""
        if c:
            printed, _suit = card_label(c)
            rank = ten if printed == "10" else printed
            rank = rank if rank and fits(rank) else ""
        slots.append(CardSlot(Box(x0 + i * (cw + cg), y0, cw, ch), c, rank_size, rank))
    return tuple(slots)


def seat_info(s: dict[str, Any], status: str, won: int) -> str:
    """Return the seat's info line: the last action this round (``CHECK``, ``CALL 300``,
    ``BET 300``, ``RAISE TO 900``, ``ALL-IN 5,000``; else the bet), status word (``WAITS FOR
    THE BUTTON``: not dealt in until the button passed, T-4, issue 19), missed-blind marks,
    winnings, or the buy-in a player who took the seat from its tablet waits for the
    dealer to confirm (T-3); a seat held for a called player (status ``held``, issue 18):
    ``HELD 2:41`` (``held_left`` whole seconds) or ``HELD``."""
    bet = s.get("bet") or 0
    missed = s.get("missed") or {}
    marks = [k.upper() for k in ("sb", "bb") if missed.get(k)]
    miss = _("MISSED {blinds}").format(blinds="+".join(_(m) for m in marks)) if marks else ""
    if won:
        return _("WINS {chips}").format(chips=chips(won))
    if status == "empty":
        return _("OPEN")
    if status == "held":  # issue 18: held for a player called from the waiting list
        left = s.get("held_left")
        return _("HELD {time}").format(time=f"{left // 60}:{left % 60:02d}") if isinstance(left, int) else _("HELD")
    if status == "folded":
        return _("FOLDED")
    if status == "all-in":
        to = (s.get("last_action") or {}).get("to") if isinstance(s.get("last_action"), dict) else None
        return _("ALL-IN {chips}").format(chips=chips(to or bet)) if (to or bet) else _("ALL-IN")
    if status in ("sitting-out", "waiting") and s.get("buy_in_pending"):
        # T-3: the dealer's confirm brings these chips (a new seat's, or a busted player's again)
        return _("BUY-IN {chips} TO CONFIRM").format(chips=chips(s["buy_in_pending"]))
    if status == "sitting-out":
        return _("SAT OUT") + (f" \u00b7 {miss}" if miss else "")
    if status == "waiting" and s.get("waits_for_button"):  # T-4: dealt in once the button passed (issue 19)
        return _("WAITS FOR THE BUTTON")
    if status == "waiting":
        return _("WAITING") + (f" \u00b7 {miss}" if miss else "")
    parts = []
    last: dict[str, Any] = s["last_action"] if isinstance(s.get("last_action"), dict) else {}
    to = chips(last.get("to"))
    said = {"check": _("CHECK"), "call": _("CALL {chips}").format(chips=chips(bet)) if bet else _("CALL"),
            "bet": _("BET {chips}").format(chips=to), "raise": _("RAISE TO {chips}").format(chips=to),
            "all_in": _("ALL-IN {chips}").format(chips=to)}.get(str(last.get("action")))
    if said and "?" not in said:  # the seat's last action this round (issue 20)
        parts.append(said)
    elif bet:
        parts.append(_("BET {chips}").format(chips=chips(bet)))
    if s.get("posted_dead"):
        parts.append(_("DEAD {chips}").format(chips=chips(s["posted_dead"])))
    if not parts and miss:
        parts.append(miss)
    return " \u00b7 ".join(parts)


def equity_text(value: Any) -> str:
    """Return an all-in equity share (0..1) as a whole percent, ``<1%``/``>99%`` at the ends."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        return ""
    if 0 < v < 0.01:
        return "<1%"
    if 0.99 < v < 1:
        return ">99%"
    return f"{round(v * 100)}%"


@dataclass(frozen=True, slots=True)
class SeatPlan:
    """One seat's boxes and texts before the fonts are chosen (see :func:`plan_seat`)."""

    number: int
    box: Box
    status: str
    tag_box: Box
    name_box: Box
    stack_box: Box
    info_row: Box
    info_box: Box
    card_area: Box
    card_align: str
    side_box: Box
    side_align: str
    markers: tuple[Marker, ...]
    name: str
    stack: str
    info: str
    side: str
    cards: list[str | None]


def plan_seat(number: int, box: Box, s: dict[str, Any], pad: int, marks: list[tuple[str, str]],
               won: int, equity: dict[str, Any]) -> SeatPlan:
    """Split one seat box into its rows and say what goes in them (fonts come later).

    Boxes much wider than high put the cards in a right-hand column; others stack the
    cards under the texts. Rows: seat number and name, stack, info (bet or status, with
    the D/SB/BB markers on its right), cards with the equity or draw count beside them.
    """
    status = str(s.get("status") or "empty")
    if status == "empty" and isinstance(s.get("held_name"), str):
        status = "held"  # issue 18: the layout marks an empty seat the room holds
    inner = box.inset(pad)
    row_gap = max(1, pad // 2)
    side = ""
    if str(number) in equity:
        side = equity_text(equity[str(number)])
    elif isinstance(s.get("drew"), int) and status not in ("folded", "empty"):
        side = _("PAT") if s["drew"] == 0 else _("DREW {n}").format(n=s["drew"])
    if inner.w >= 1.55 * inner.h:
        r_title, rest = inner.rows(0.34, 0.66, gap=row_gap)
        left = Box(rest.x, rest.y, int(rest.w * 0.60), rest.h)
        right = Box(left.right + pad, rest.y, rest.right - left.right - pad, rest.h)
        r_stack, r_info = left.rows(0.52, 0.48, gap=row_gap)
        if side:
            card_area, side_box = right.rows(0.62, 0.38, gap=row_gap)
        else:
            card_area, side_box = right, Box(right.x, right.bottom, right.w, 0)
        card_align, side_align = "center", "center"
    else:
        r_title, r_stack, r_info, r_cards = inner.rows(0.25, 0.23, 0.19, 0.33, gap=row_gap)
        split = int(r_cards.w * 0.56) if side else r_cards.w
        card_area = Box(r_cards.x, r_cards.y, max(1, split - pad), r_cards.h)
        side_box = Box(r_cards.x + split, r_cards.y, r_cards.w - split, r_cards.h)
        card_align, side_align = "left", "right"
    tag_w = min(r_title.w // 3, int(r_title.h * 1.25))
    tag = Box(r_title.x, r_title.y, tag_w, r_title.h)
    name_box = Box(tag.right + pad, r_title.y, r_title.w - tag_w - pad, r_title.h)
    marks = marks if status not in ("empty", "held") else []
    m_side = min(r_info.h, max(8, int(inner.h * 0.26)))
    info_box = Box(r_info.x, r_info.y, max(1, r_info.w - len(marks) * (m_side + pad)), r_info.h)
    markers = tuple(
        Marker(Box(r_info.right - (i + 1) * m_side - i * pad, r_info.y + (r_info.h - m_side) // 2, m_side, m_side),
               kind, label, 0)
        for i, (kind, label) in enumerate(reversed(marks))
    )
    shown = s.get("shown")
    if isinstance(shown, list) and shown:
        cards: list[str | None] = list(shown)[:5]
    elif status in ("active", "acting", "all-in") and isinstance(s.get("cards"), int):
        cards = [None] * max(0, min(5, s["cards"]))
    else:
        cards = []
    return SeatPlan(
        number=number, box=box, status=status, tag_box=tag, name_box=name_box, stack_box=r_stack,
        info_row=r_info, info_box=info_box, card_area=card_area, card_align=card_align,
        side_box=side_box, side_align=side_align, markers=markers,
        name="" if status == "empty" else str(s["held_name"]) if status == "held"
        else str(s.get("name") or _("Seat {n}").format(n=number)),
        stack="" if status in ("empty", "held") else chips(s.get("stack") or 0),
        info=seat_info(s, status, won), side=side, cards=cards,
    )
