"""Where everything goes on the dealer display: a pure function of the state and the screen.

:func:`layout` turns one public state (docs/state.md) and a screen size in pixels into a
:class:`Layout`: boxes for the header (table, hand number, game/limit/stakes, street), the
fault banner, the board, the pots (or at showdown who won which pot), the action timer bar
(A-2) and every seat, plus each text with the font size chosen so that its measured size fits
its box. Text is measured by an injected ``measure(text, size) -> (w, h)``; the default,
:func:`display.fontmetrics.approx_measure`, needs no SDL, the renderer may pass pygame's.

Seats sit round the screen as round the table, seen from above with the dealer at the
bottom: seat 1 at the dealer's left (bottom of the left column), then clockwise up the left
side, along the top and down the right side, so the last seat is at the dealer's right.
Positions depend only on ``max_seats`` and the screen size, never on names or chips, so a
seat never moves during a session. The layout holds for 2..10 seats and 800x480..1920x1080
(and other sizes of similar shape): no box leaves the screen, no two seat boxes overlap and
every text fits its box (``tests/display/test_layout.py`` checks all three).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from controller.engine.cards import CardError, parse_card
from display.fontmetrics import approx_measure
from display.state import (
    chips,
    fault_title,
    game_title,
    pot_name,
    showdown_lines,
    street_text,
)

__all__ = [
    "Box",
    "Text",
    "CardSlot",
    "Marker",
    "SeatView",
    "TimerView",
    "Layout",
    "LayoutError",
    "Measure",
    "MIN_FONT",
    "layout",
    "card_label",
    "fit_size",
]

#: ``measure(text, size_px) -> (width_px, height_px)``
Measure = Callable[[str, int], tuple[int, int]]

#: the smallest font size (px) the layout uses; longer texts are cut with an ellipsis
MIN_FONT = 10
#: the largest font size (px) the layout uses
MAX_FONT = 160
ELLIPSIS = "\u2026"

#: seat ring per number of seats: (seats on each side column, seats along the top),
#: in order of preference; the best for the screen shape wins (see _choose_ring)
RINGS: dict[int, tuple[tuple[int, int], ...]] = {
    2: ((1, 0),),
    3: ((1, 1),),
    4: ((1, 2), (2, 0)),
    5: ((2, 1), (1, 3)),
    6: ((2, 2), (1, 4)),
    7: ((2, 3), (3, 1)),
    8: ((3, 2), (2, 4)),
    9: ((3, 3), (2, 5)),
    10: ((3, 4), (4, 2)),
}


class LayoutError(ValueError):
    """The screen is too small or the state cannot be laid out (e.g. more than 10 seats)."""


@dataclass(frozen=True, slots=True)
class Box:
    """A rectangle in screen pixels: left ``x``, top ``y``, width ``w``, height ``h``."""

    x: int
    y: int
    w: int
    h: int

    @property
    def right(self) -> int:
        """Return the x just past the right edge (``x + w``)."""
        return self.x + self.w

    @property
    def bottom(self) -> int:
        """Return the y just past the bottom edge (``y + h``)."""
        return self.y + self.h

    def inside(self, other: "Box") -> bool:
        """Return True if this box lies wholly within ``other``."""
        return (
            self.x >= other.x and self.y >= other.y
            and self.right <= other.right and self.bottom <= other.bottom
        )

    def overlaps(self, other: "Box") -> bool:
        """Return True if the two boxes share any pixel."""
        return (
            self.x < other.right and other.x < self.right
            and self.y < other.bottom and other.y < self.bottom
        )

    def inset(self, d: int) -> "Box":
        """Return the box shrunk by ``d`` pixels on every side (never below 1x1)."""
        return Box(self.x + d, self.y + d, max(1, self.w - 2 * d), max(1, self.h - 2 * d))

    def rows(self, *fractions: float, gap: int = 0) -> list["Box"]:
        """Split top to bottom into boxes whose heights follow ``fractions`` (gap between)."""
        total = sum(fractions)
        usable = self.h - gap * (len(fractions) - 1)
        out, y = [], self.y
        for i, f in enumerate(fractions):
            h = self.bottom - y if i == len(fractions) - 1 else int(usable * f / total)
            out.append(Box(self.x, y, self.w, max(0, h)))
            y += h + gap
        return out

    def as_tuple(self) -> tuple[int, int, int, int]:
        """Return ``(x, y, w, h)`` (what ``pygame.Rect`` takes)."""
        return (self.x, self.y, self.w, self.h)


@dataclass(frozen=True, slots=True)
class Text:
    """One text to draw: ``text`` at font ``size`` px inside ``box``.

    ``align`` is ``left`` | ``center`` | ``right`` (vertically always centred); ``role``
    tells the renderer the colour (``name``, ``stack``, ``info``, ``pot``, ``banner`` ...).
    """

    box: Box
    text: str
    size: int
    align: str = "left"
    role: str = "body"


@dataclass(frozen=True, slots=True)
class CardSlot:
    """One card place: ``card`` is a card text (``"As"``), ``None`` face down, ``""`` not dealt.

    ``rank`` is the rank as printed (``"10"`` for tens, ``"T"`` on cards too narrow for two
    digits, ``""`` when the card is too small for any rank or shows no face) and
    ``rank_size`` its font size (px), fitted to the card's upper half; the renderer draws
    the suit as a shape below it.
    """

    box: Box
    card: str | None
    rank_size: int
    rank: str = ""


@dataclass(frozen=True, slots=True)
class Marker:
    """A round table marker in a seat: ``kind`` ``button`` (D), ``sb`` or ``bb`` (T-1)."""

    box: Box
    kind: str
    label: str
    size: int


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat as drawn: its box, status (docs/state.md), texts, cards and markers.

    ``acting`` is True for the seat whose turn it is (A-2); ``winner`` for a seat that won
    a pot at showdown.
    """

    seat: int
    box: Box
    status: str
    acting: bool
    winner: bool
    texts: tuple[Text, ...]
    cards: tuple[CardSlot, ...]
    markers: tuple[Marker, ...]


@dataclass(frozen=True, slots=True)
class TimerView:
    """The action timer (A-2): the full-length ``bar`` and the text boxes beside it.

    The renderer shrinks the bar from ``started``..``deadline`` (Unix seconds) with its
    clock; ``seconds`` is sized for the widest count and drawn with the seconds left.
    """

    seat: int
    area: Box
    bar: Box
    label: Text
    seconds: Text
    started: float
    deadline: float


@dataclass(frozen=True, slots=True)
class Layout:
    """Everything on one screen, in pixels; see :func:`layout`."""

    size: tuple[int, int]
    header: Box
    header_texts: tuple[Text, ...]
    banner: Box | None
    banner_texts: tuple[Text, ...]
    center: Box
    board: Box | None
    board_cards: tuple[CardSlot, ...]
    pots: Box
    pot_texts: tuple[Text, ...]
    timer: TimerView | None
    seats: tuple[SeatView, ...]

    @property
    def screen(self) -> Box:
        """Return the whole screen as a box."""
        return Box(0, 0, self.size[0], self.size[1])

    def texts(self) -> Iterator[Text]:
        """Yield every text of the layout (the timer's seconds with their sizing text)."""
        yield from self.header_texts
        yield from self.banner_texts
        yield from self.pot_texts
        if self.timer is not None:
            yield self.timer.label
            yield self.timer.seconds
        for seat in self.seats:
            yield from seat.texts

    def cards(self) -> Iterator[CardSlot]:
        """Yield every card place (board and seats)."""
        yield from self.board_cards
        for seat in self.seats:
            yield from seat.cards

    def seat(self, number: int) -> SeatView:
        """Return the view of seat ``number``.

        Raises:
            KeyError: no such seat on this table.
        """
        for s in self.seats:
            if s.seat == number:
                return s
        raise KeyError(number)


# ---------------------------------------------------------------- text fitting


def fit_size(texts: list[str], w: int, h: int, measure: Measure, *, hi: int = MAX_FONT) -> int:
    """Return the largest font size in ``MIN_FONT..hi`` at which every text fits ``w`` x ``h``.

    Returns ``MIN_FONT`` when even that does not fit (the caller then cuts the text).
    """
    def fits(size: int) -> bool:
        for t in texts:
            tw, th = measure(t, size)
            if tw > w or th > h:
                return False
        return True

    lo, hi = MIN_FONT, max(MIN_FONT, hi)
    if not fits(lo):
        return MIN_FONT
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _clip(text: str, size: int, w: int, measure: Measure) -> str:
    """Return ``text`` cut with an ellipsis so that it is at most ``w`` px wide at ``size``."""
    if measure(text, size)[0] <= w:
        return text
    for end in range(len(text) - 1, 0, -1):
        cut = text[:end].rstrip() + ELLIPSIS
        if measure(cut, size)[0] <= w:
            return cut
    return ""


def _text(box: Box, text: str, size: int, measure: Measure, *, align: str, role: str) -> Text:
    """Return a Text at ``size`` cut to fit ``box``; a box too low for the font gets no text."""
    if measure(text, size)[1] > box.h:
        text = ""
    return Text(box, _clip(text, size, box.w, measure), size, align, role)


# ---------------------------------------------------------------- geometry


def _ring_geometry(
    sides: int, top: int, area: Box, gap: int, *, strict: bool = True
) -> tuple[list[Box], Box, float] | None:
    """Return (seat boxes clockwise from seat 1, centre box, score) for a seat ring.

    ``sides`` seats on each side column, ``top`` along the top. With ``strict`` the ring is
    refused (None) when seats would be under 40 px or the centre too small for the board.
    """
    W, H = area.w, area.h
    if top > 0:
        sw = min((W - (top + 1) * gap) / (top + 2), 0.30 * W)
        tw = min((W - 2 * sw - (top + 1) * gap) / top, 1.3 * sw)
        sh = min((H - (sides - 1) * gap) / sides, 0.40 * H, sw)
    else:
        sw, tw = 0.28 * W, 0.0
        sh = min((H - (sides - 1) * gap) / sides, 0.62 * H, sw)
    sw_i, sh_i, tw_i = int(sw), max(1, int(sh)), int(tw)
    if strict and (sw_i < 40 or sh_i < 40):
        return None
    left_x, right_x = area.x, area.right - sw_i
    inner_x0, inner_x1 = left_x + sw_i + gap, right_x - gap
    lefts: list[Box] = []
    for j in range(sides):  # left column, bottom (seat 1) to top
        if sides > 1:
            y = area.y + H - sh_i - round(j * (H - sh_i) / (sides - 1))
        elif top:  # alone on its side: middle of the space below the top row
            y = area.y + sh_i + gap + max(0, (H - 2 * sh_i - gap) // 2)
            y = min(y, area.bottom - sh_i)
        else:
            y = area.y + (H - sh_i) // 2
        lefts.append(Box(left_x, y, sw_i, sh_i))
    tops = []
    for i in range(top):  # top row, left to right
        if top == 1:
            x = inner_x0 + (inner_x1 - inner_x0 - tw_i) // 2
        else:
            x = inner_x0 + round(i * (inner_x1 - inner_x0 - tw_i) / (top - 1))
        tops.append(Box(x, area.y, tw_i, sh_i))
    rights = [Box(right_x, b.y, sw_i, sh_i) for b in reversed(lefts)]  # top to bottom
    cy = area.y + (sh_i + gap if top else 0)
    center = Box(inner_x0, cy, max(1, inner_x1 - inner_x0), max(1, area.bottom - cy))
    if strict and (center.w < 0.38 * W or center.h < 0.42 * H):
        return None
    boxes = lefts + tops + rights
    score = min(min(b.w for b in boxes), sh_i * 1.35)
    return boxes, center, score


def _choose_ring(n: int, area: Box, gap: int) -> tuple[int, int]:
    """Return the (side, top) seat ring for ``n`` seats that gives the biggest seats."""
    best, best_score = RINGS[n][0], -1.0
    for ring in RINGS[n]:
        got = _ring_geometry(ring[0], ring[1], area, gap)
        if got is not None and got[2] > best_score + 0.5:
            best, best_score = ring, got[2]
    return best


# ---------------------------------------------------------------- the layout


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


def _card_slots(
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
            printed, _ = card_label(c)
            rank = ten if printed == "10" else printed
            rank = rank if rank and fits(rank) else ""
        slots.append(CardSlot(Box(x0 + i * (cw + cg), y0, cw, ch), c, rank_size, rank))
    return tuple(slots)


def _banner_items(state: dict[str, Any], notices: tuple[str, ...]) -> tuple[str, str]:
    """Return (title, message) for the banner, or ("", "") when nothing is wrong."""
    titles: list[str] = []
    message = ""
    fault = state.get("fault")
    if isinstance(fault, dict):
        titles.append(fault_title(fault.get("kind")))
        message = str(fault.get("message") or "")
    titles.extend(notices)
    if state.get("paused"):
        titles.append("TABLE PAUSED")
        if not message:
            message = "Wait for the floor"
    return " \u00b7 ".join(titles), message


def _seat_info(s: dict[str, Any], status: str, won: int) -> str:
    """Return the seat's info line: bet, status word, missed-blind marks, winnings."""
    bet = s.get("bet") or 0
    missed = s.get("missed") or {}
    marks = [k.upper() for k in ("sb", "bb") if missed.get(k)]
    miss = f"MISSED {'+'.join(marks)}" if marks else ""
    if won:
        return f"WINS {chips(won)}"
    if status == "empty":
        return "OPEN"
    if status == "folded":
        return "FOLDED"
    if status == "all-in":
        return f"ALL-IN {chips(bet)}" if bet else "ALL-IN"
    if status == "sitting-out":
        return "SAT OUT" + (f" \u00b7 {miss}" if miss else "")
    if status == "waiting":
        return "WAITING" + (f" \u00b7 {miss}" if miss else "")
    parts = []
    if bet:
        parts.append(f"BET {chips(bet)}")
    if s.get("posted_dead"):
        parts.append(f"DEAD {chips(s['posted_dead'])}")
    if not parts and miss:
        parts.append(miss)
    return " \u00b7 ".join(parts)


def _equity_text(value: Any) -> str:
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
class _SeatPlan:
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


def _plan_seat(number: int, box: Box, s: dict[str, Any], pad: int, marks: list[tuple[str, str]],
               won: int, equity: dict[str, Any]) -> _SeatPlan:
    """Split one seat box into its rows and say what goes in them (fonts come later).

    Boxes much wider than high put the cards in a right-hand column; others stack the
    cards under the texts. Rows: seat number and name, stack, info (bet or status, with
    the D/SB/BB markers on its right), cards with the equity or draw count beside them.
    """
    status = str(s.get("status") or "empty")
    inner = box.inset(pad)
    row_gap = max(1, pad // 2)
    side = ""
    if str(number) in equity:
        side = _equity_text(equity[str(number)])
    elif isinstance(s.get("drew"), int) and status not in ("folded", "empty"):
        side = "PAT" if s["drew"] == 0 else f"DREW {s['drew']}"
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
    marks = marks if status != "empty" else []
    m_side = r_info.h
    info_box = Box(r_info.x, r_info.y, max(1, r_info.w - len(marks) * (m_side + pad)), r_info.h)
    markers = tuple(
        Marker(Box(r_info.right - (i + 1) * m_side - i * pad, r_info.y, m_side, m_side), kind, label, 0)
        for i, (kind, label) in enumerate(reversed(marks))
    )
    shown = s.get("shown")
    if isinstance(shown, list) and shown:
        cards: list[str | None] = list(shown)[:5]
    elif status in ("active", "acting", "all-in") and isinstance(s.get("cards"), int):
        cards = [None] * max(0, min(5, s["cards"]))
    else:
        cards = []
    return _SeatPlan(
        number=number, box=box, status=status, tag_box=tag, name_box=name_box, stack_box=r_stack,
        info_row=r_info, info_box=info_box, card_area=card_area, card_align=card_align,
        side_box=side_box, side_align=side_align, markers=markers,
        name="" if status == "empty" else str(s.get("name") or f"Seat {number}"),
        stack="" if status == "empty" else chips(s.get("stack") or 0),
        info=_seat_info(s, status, won), side=side, cards=cards,
    )


def layout(
    state: dict[str, Any],
    size: tuple[int, int],
    *,
    measure: Measure = approx_measure,
    notices: tuple[str, ...] = (),
) -> Layout:
    """Lay out one public state (docs/state.md) on a screen of ``size`` = (width, height) px.

    ``notices`` are banner titles from the display itself (``"TABLE OFFLINE"`` when the
    controller's presence is offline); a fault or ``paused`` in the state also makes a
    banner. Pure: no SDL, no clock; ``measure`` sizes text.

    Returns:
        a :class:`Layout` in which no box leaves the screen, seat boxes do not overlap and
        every text fits its box (texts too long at ``MIN_FONT`` are cut with an ellipsis).

    Raises:
        LayoutError: a screen smaller than 320x240, or seats numbered beyond 10.
    """
    W, H = int(size[0]), int(size[1])
    if W < 320 or H < 240:
        raise LayoutError(f"screen {W}x{H} is too small (at least 320x240)")
    seats_in = [s for s in state.get("seats") or [] if isinstance(s, dict)]
    numbers = [s.get("seat") for s in seats_in if isinstance(s.get("seat"), int)]
    n = max([state.get("max_seats") or 2, 2] + numbers)
    if n > 10:
        raise LayoutError(f"a table has 2..10 seats, got seat {n}")
    by_seat = {s["seat"]: s for s in seats_in if isinstance(s.get("seat"), int)}
    unit = min(W, H)
    gap = max(4, round(unit * 0.012))

    # header: table and hand | game, limit, stakes | street
    head_h = max(28, round(H * 0.085))
    header = Box(0, 0, W, head_h)
    left = f"{state.get('name') or state.get('table') or ''}"
    if state.get("hand"):
        left += f" \u00b7 Hand {state['hand']}"
    centre_t, right_t = game_title(state), street_text(state)
    inner = header.inset(gap)
    size_h = fit_size([left, centre_t, right_t], W, inner.h, measure)

    def header_fits(sz: int) -> bool:
        wl, wc, wr = (measure(t, sz)[0] for t in (left, centre_t, right_t))
        return 2 * max(wl, wr) + wc + 4 * gap <= inner.w

    while size_h > MIN_FONT and not header_fits(size_h):
        size_h -= 1
    wl, wc, wr = (measure(t, size_h)[0] for t in (left, centre_t, right_t))
    wc = min(wc, inner.w)
    side_w = max(0, (inner.w - wc) // 2 - 2 * gap)
    header_texts = (
        _text(Box(inner.x, inner.y, side_w, inner.h), left, size_h, measure, align="left", role="header"),
        _text(Box(inner.x + (inner.w - wc) // 2, inner.y, wc, inner.h), centre_t, size_h, measure,
              align="center", role="game"),
        _text(Box(inner.right - side_w, inner.y, side_w, inner.h), right_t, size_h, measure,
              align="right", role="street"),
    )

    # banner: faults, pause, display notices
    title, message = _banner_items(state, tuple(notices))
    banner: Box | None = None
    banner_texts: tuple[Text, ...] = ()
    top = head_h
    if title:
        bh = max(48, round(H * 0.17))
        banner = Box(0, head_h, W, bh)
        b_in = banner.inset(gap)
        if message:
            r1, r2 = b_in.rows(0.6, 0.4)
        else:
            r1, r2 = b_in, None
        s1 = fit_size([title], r1.w, r1.h, measure)
        texts = [_text(r1, title, s1, measure, align="center", role="banner")]
        if r2 is not None:
            s2 = min(fit_size([message], r2.w, r2.h, measure), s1)
            texts.append(_text(r2, message, s2, measure, align="center", role="banner-message"))
        banner_texts = tuple(texts)
        top = banner.bottom

    # seats round the table, centre for board, pots and timer
    full_area = Box(gap, head_h + gap, W - 2 * gap, H - head_h - 2 * gap)
    ring = _choose_ring(n, full_area, gap)
    area = Box(gap, top + gap, W - 2 * gap, H - top - 2 * gap)
    got = _ring_geometry(ring[0], ring[1], area, gap, strict=False)
    assert got is not None
    boxes, center, _ = got

    turn = state.get("turn") if isinstance(state.get("turn"), dict) else None
    acting_seat = turn.get("seat") if turn else None
    won: dict[int, int] = {}
    for entry in state.get("showdown") or []:
        if isinstance(entry, dict):
            for w, amount in (entry.get("shares") or {}).items():
                if str(w).isdigit() and isinstance(amount, int):
                    won[int(w)] = won.get(int(w), 0) + amount
            for w in entry.get("winners") or []:
                if isinstance(w, int) and not entry.get("shares"):
                    won[w] = won.get(w, 0) + (entry.get("amount") or 0)
    equity = state.get("all_in_equity") if isinstance(state.get("all_in_equity"), dict) else {}
    markers_of: dict[int, list[tuple[str, str]]] = {}
    for key, kind, label in (("button", "button", "D"), ("sb_seat", "sb", "SB"), ("bb_seat", "bb", "BB")):
        if isinstance(state.get(key), int):
            markers_of.setdefault(state[key], []).append((kind, label))

    # per-seat rows, then one font size per row kind across all seats
    pad = max(3, round(min(b.h for b in boxes) * 0.05))
    plans = [
        _plan_seat(number, box, by_seat.get(number, {"seat": number, "status": "empty"}), pad,
                   markers_of.get(number, []), won.get(number, 0), equity or {})
        for number, box in enumerate(boxes, start=1)
    ]

    def role_size(pairs: list[tuple[str, Box]], floor_frac: float = 0.6) -> int:
        """Largest size at which all texts fit their boxes; long outliers get cut instead."""
        pairs = [(t, b) for t, b in pairs if t]
        if not pairs:
            return MIN_FONT
        height_fit = min(fit_size(["Ag"], b.w, b.h, measure) for _, b in pairs)
        every = min(fit_size([t], b.w, b.h, measure, hi=height_fit) for t, b in pairs)
        return max(every, int(height_fit * floor_frac), MIN_FONT)

    name_size = role_size([(p.name, p.name_box) for p in plans], 0.75)
    stack_size = role_size([(p.stack, p.stack_box) for p in plans], 0.8)
    tag_size = min(role_size([(str(p.number), p.tag_box) for p in plans], 1.0), max(name_size, stack_size))
    info_size = role_size([(p.info, p.info_box) for p in plans], 0.5)
    side_size = role_size([(p.side, p.side_box) for p in plans], 0.5)
    mark_h = min(p.info_row.h for p in plans)
    mark_size = fit_size(["BB"], max(1, mark_h - 4), max(1, mark_h - 2), measure)
    seat_views = []
    for p in plans:
        texts = [
            _text(p.tag_box, str(p.number), tag_size, measure, align="left", role="seatno"),
            _text(p.name_box, p.name, name_size, measure, align="left", role="name"),
            _text(p.stack_box, p.stack, stack_size, measure, align="left", role="stack"),
            _text(p.info_box, p.info, info_size, measure, align="left", role="info"),
        ]
        if p.side:
            texts.append(_text(p.side_box, p.side, side_size, measure, align=p.side_align, role="equity"))
        seat_views.append(SeatView(
            seat=p.number, box=p.box, status=p.status, acting=(p.number == acting_seat),
            winner=p.number in won, texts=tuple(t for t in texts if t.text),
            cards=_card_slots(p.cards, p.card_area, measure, align=p.card_align),
            markers=tuple(Marker(m.box, m.kind, m.label, mark_size) for m in p.markers),
        ))

    # centre: board, pots (or who won), timer
    c_in = center.inset(gap)
    has_board = state.get("game") != "draw"
    if has_board:
        r_board, r_pots, r_timer = c_in.rows(0.44, 0.33, 0.23, gap=gap)
    else:
        r_board = None
        r_pots, r_timer = c_in.rows(0.72, 0.28, gap=gap)
    board_cards: tuple[CardSlot, ...] = ()
    if r_board is not None:
        board = [c for c in state.get("board") or [] if isinstance(c, str)][:5]
        slots: list[str | None] = list(board) + [""] * (5 - len(board))
        board_cards = _card_slots(slots, r_board, measure, align="center")

    if not (turn and isinstance(acting_seat, int)):  # no timer: the pots take its place
        r_pots = Box(r_pots.x, r_pots.y, r_pots.w, r_timer.bottom - r_pots.y)
    roles: list[str] = []
    if state.get("showdown"):
        lines = []
        for who, hand in showdown_lines(state)[:5]:
            lines.append(who)
            roles.append("showdown")
            if hand:
                lines.append(hand)
                roles.append("hand")
        role = "showdown"
    else:
        pots = [p for p in state.get("pots") or [] if isinstance(p, dict)]
        lines = [f"{pot_name(i)} {chips(p.get('amount'))}" for i, p in enumerate(pots)]
        role = "pot"
        bets = sum(s.get("bet") or 0 for s in seats_in if isinstance(s.get("bet"), int))
        if bets:
            total = bets + sum(p.get("amount") or 0 for p in pots if isinstance(p.get("amount"), int))
            lines.append(f"Total {chips(total)}")
        if not lines:
            lines = ["Waiting for the next hand"] if (state.get("street") or "waiting") == "waiting" else ["Main pot 0"]
    lines = lines[:10]
    roles += [role] * (len(lines) - len(roles))
    # one column, or two when that gives bigger text (a showdown pot's two lines stay together)

    def pot_grid(columns: int) -> tuple[int, int, int, int, int]:
        per_col = -(-len(lines) // columns)
        if role == "showdown" and per_col % 2:
            per_col += 1
        col_gap = gap * 2 if columns > 1 else 0
        col_w = (r_pots.w - col_gap * (columns - 1)) // columns
        line_h = r_pots.h // max(2, per_col)
        size = fit_size(lines, col_w, line_h, measure, hi=max(MIN_FONT, int(line_h * 0.8)))
        return size, per_col, col_gap, col_w, line_h

    pot_size, per_col, col_gap, col_w, line_h = max(
        (pot_grid(c) for c in ((1, 2) if len(lines) > 2 else (1,))), key=lambda g: g[0])
    y0 = r_pots.y + (r_pots.h - line_h * per_col) // 2
    pot_texts = tuple(
        _text(Box(r_pots.x + (i // per_col) * (col_w + col_gap), y0 + (i % per_col) * line_h, col_w, line_h),
              line, pot_size, measure, align="center", role=roles[i])
        for i, line in enumerate(lines)
    )

    timer: TimerView | None = None
    if turn and isinstance(acting_seat, int) and 1 <= acting_seat <= n:
        started = float(turn.get("started") or 0.0)
        deadline = float(turn.get("deadline") or started)
        digits = "8" * max(2, len(str(int(max(0.0, deadline - started)))))
        r_label, r_bar = r_timer.rows(0.45, 0.55, gap=max(1, gap // 2))
        sec_size = fit_size([digits], r_bar.w // 4, r_bar.h, measure)
        sec_w = measure(digits, sec_size)[0] + gap
        bar = Box(r_bar.x, r_bar.y, max(1, r_bar.w - sec_w - gap), r_bar.h)
        sec_box = Box(bar.right + gap, r_bar.y, r_bar.right - bar.right - gap, r_bar.h)
        who = str(by_seat.get(acting_seat, {}).get("name") or f"Seat {acting_seat}")
        label_t = f"{who} to act"
        label_size = fit_size([label_t], r_label.w, r_label.h, measure)
        timer = TimerView(
            seat=acting_seat, area=r_timer, bar=bar,
            label=_text(r_label, label_t, label_size, measure, align="center", role="timer"),
            seconds=Text(sec_box, digits, sec_size, "right", "seconds"),
            started=started, deadline=deadline,
        )

    return Layout(
        size=(W, H), header=header, header_texts=header_texts, banner=banner,
        banner_texts=banner_texts, center=center,
        board=r_board, board_cards=board_cards, pots=r_pots, pot_texts=pot_texts,
        timer=timer, seats=tuple(seat_views),
    )
