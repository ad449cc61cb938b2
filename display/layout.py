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
every text fits its box (``tests/display/test_display_layout.py`` checks all three).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from display.fontmetrics import approx_measure
from display.i18n import _, hand_words
from display.geometry import (
    MIN_FONT,
    Box,
    Measure,
    Text,
    choose_ring,
    fit_size,
    frame_width,
    place_text,
    ring_geometry,
)
from display import tournament as tview
from display.seats import CardSlot, Marker, card_label, card_slots, plan_seat
from display.state import (
    chips,
    fault_title,
    held_seats,
    game_title,
    pot_line,
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

class LayoutError(ValueError):
    """The screen is too small or the state cannot be laid out (e.g. more than 10 seats)."""


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
    #: issue 19: the tournament strip under the header (display/tournament.py) and the
    #: ``tournament_view`` its clock counts down from; None at a cash table.
    tournament: Box | None = None
    tournament_texts: tuple[Text, ...] = ()
    tournament_view: dict[str, Any] | None = None
    #: issue 18: the first hold to end (Unix s) when a held seat counts down; the app draws
    #: the screen again each second while there is one
    holds_until: float | None = None
    #: issue 19: when the room's tournament's move notices in the banner end (Unix s, the
    #: table's clock); the app lays the screen out again then
    moves_until: float | None = None

    @property
    def screen(self) -> Box:
        """Return the whole screen as a box."""
        return Box(0, 0, self.size[0], self.size[1])

    def texts(self) -> Iterator[Text]:
        """Yield every text of the layout (the timer's seconds with their sizing text)."""
        yield from self.header_texts
        yield from self.tournament_texts
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


# ---------------------------------------------------------------- the layout


def _banner_items(state: dict[str, Any], notices: tuple[str, ...], now: float | None = None) -> tuple[str, str]:
    """Return (title, message) for the banner, or ("", "") when nothing is wrong."""
    titles: list[str] = []
    message = ""
    fault = state.get("fault")
    if isinstance(fault, dict):
        titles.append(fault_title(fault.get("kind")))
        message = str(fault.get("message") or "")
    titles.extend(_(n) for n in notices)
    if state.get("paused"):
        titles.append(_("TABLE PAUSED"))
        if not message:
            message = _("Wait for the floor")
    titles = list(dict.fromkeys(titles))  # "TABLE PAUSED · TABLE PAUSED" says it once
    moved, moves = tview.moves_banner(state, now)  # issue 19: players moved by the room's tournament
    if moved and not message:
        titles.append(moved)
        message = moves
    dealt, deal = tview.deal_banner(state)  # issue 19: the deal offered to the final players
    if dealt and not message:
        titles.append(dealt)
        message = deal
    return " \u00b7 ".join(titles), message


def layout(
    state: dict[str, Any],
    size: tuple[int, int],
    *,
    measure: Measure = approx_measure,
    notices: tuple[str, ...] = (),
    now: float | None = None,
) -> Layout:
    """Lay out one public state (docs/state.md) on a screen of ``size`` = (width, height) px.

    ``notices`` are banner titles from the display itself (``"TABLE OFFLINE"`` when the
    controller's presence is offline); a fault or ``paused`` in the state also makes a
    banner. Pure: no SDL, no clock; ``measure`` sizes text. ``now`` (Unix seconds): the seats
    the room holds for called players (``holds``, issue 18) show "HELD 2:41" with the
    player's name until their ``until`` (without ``now``: "HELD", however long).

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
    holds_until = None
    for h in held_seats(state, now):  # issue 18: a free seat held for a called player
        s = by_seat.get(h["seat"], {"seat": h["seat"], "status": "empty"})
        if s.get("status", "empty") == "empty":
            secs = None if now is None else int(h["until"] - now)
            by_seat[h["seat"]] = dict(s, held_name=h["name"], held_left=secs)
            holds_until = h["until"] if holds_until is None else min(holds_until, h["until"])
    unit = min(W, H)
    gap = max(4, round(unit * 0.012))

    # header: table and hand | game, limit, stakes | street
    head_h = max(28, round(H * 0.085))
    header = Box(0, 0, W, head_h)
    left = f"{state.get('name') or state.get('table') or ''}"
    if state.get("hand"):
        left += " \u00b7 " + _("Hand {n}").format(n=state["hand"])
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
        place_text(Box(inner.x, inner.y, side_w, inner.h), left, size_h, measure, align="left", role="header"),
        place_text(Box(inner.x + (inner.w - wc) // 2, inner.y, wc, inner.h), centre_t, size_h, measure,
              align="center", role="game"),
        place_text(Box(inner.right - side_w, inner.y, side_w, inner.h), right_t, size_h, measure,
              align="right", role="street"),
    )

    # issue 19: the tournament strip (level, time left, next level, players, average, pool)
    tv = tview.view_of(state)
    strip: Box | None = None
    strip_texts: tuple[Text, ...] = ()
    if tv is not None:
        strip = Box(0, head_h, W, max(22, round(H * 0.06)))
        strip_texts = tview.strip_texts(tv, strip, max(2, gap // 2), measure)
        head_h = strip.bottom

    # banner: faults, pause, display notices
    title, message = _banner_items(state, tuple(notices), now)
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
        texts = [place_text(r1, title, s1, measure, align="center", role="banner")]
        if r2 is not None:
            s2 = min(fit_size([message], r2.w, r2.h, measure), s1)
            texts.append(place_text(r2, message, s2, measure, align="center", role="banner-message"))
        banner_texts = tuple(texts)
        top = banner.bottom

    # seats round the table, centre for board, pots and timer
    full_area = Box(gap, head_h + gap, W - 2 * gap, H - head_h - 2 * gap)
    ring = choose_ring(n, full_area, gap)
    area = Box(gap, top + gap, W - 2 * gap, H - top - 2 * gap)
    got = ring_geometry(ring[0], ring[1], area, gap, strict=False)
    assert got is not None
    boxes, center, _spare = got

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

    # the five cards that won each pot, per winner (highlighted on the board and in the seat)
    best: dict[int, set[str]] = {}
    for entry in state.get("showdown") or []:
        if isinstance(entry, dict) and isinstance(entry.get("best"), dict):
            for w, five in entry["best"].items():
                if str(w).isdigit() and isinstance(five, list):
                    best.setdefault(int(w), set()).update(c for c in five if isinstance(c, str))
    on_board = set().union(*best.values()) if best else set()

    def mark(slots: tuple[CardSlot, ...], wins: set[str]) -> tuple[CardSlot, ...]:
        return tuple(replace(c, wins=True) if c.card and c.card in wins else c for c in slots)

    # per-seat rows, then one font size per row kind across all seats
    pad = max(frame_width(b) for b in boxes) + max(2, round(min(b.h for b in boxes) * 0.02))  # clear of the frame
    plans = [
        plan_seat(number, box, by_seat.get(number, {"seat": number, "status": "empty"}), pad,
                   markers_of.get(number, []), won.get(number, 0), equity or {})
        for number, box in enumerate(boxes, start=1)
    ]
    outs = tv.get("out") if tv is not None and isinstance(tv.get("out"), dict) else {}
    if outs:  # issue 19: a seat its player busted from says so until someone takes it
        said = {p.number: tview.out_text(outs.get(str(p.number))) for p in plans if p.status == "empty"}
        plans = [replace(p, info=said[p.number]) if said.get(p.number) else p for p in plans]
    held = tv.get("rebuy_pending") if tv is not None and isinstance(tv.get("rebuy_pending"), dict) else {}
    if held:  # issue 19 TFIX 7: a seat kept for its busted player while he may rebuy
        kept = {p.number: tview.rebuy_pending_text(held.get(str(p.number))) for p in plans if p.status == "empty"}
        plans = [replace(p, name=str(held[str(p.number)].get("name") or p.name), info=kept[p.number])
                 if kept.get(p.number) else p for p in plans]
    if tv is not None and isinstance(tv.get("seats_bb"), dict):  # issue 19: stacks in big blinds
        bbs = tv["seats_bb"]
        plans = [replace(p, stack=f"{p.stack} \u00b7 {tview.bb_text(bbs[str(p.number)])}")
                 if isinstance(bbs.get(str(p.number)), int) and p.stack else p for p in plans]

    def role_size(pairs: list[tuple[str, Box]], floor_frac: float = 0.6) -> int:
        """Largest size at which all texts fit their boxes; long outliers get cut instead."""
        pairs = [(t, b) for t, b in pairs if t]
        if not pairs:
            return MIN_FONT
        height_fit = min(fit_size(["Ag"], b.w, b.h, measure) for _t, b in pairs)
        every = min(fit_size([t], b.w, b.h, measure, hi=height_fit) for t, b in pairs)
        return max(every, int(height_fit * floor_frac), MIN_FONT)

    name_size = role_size([(p.name, p.name_box) for p in plans], 0.75)
    # a tournament's stacks carry their big blinds: smaller text rather than a cut count
    stack_size = role_size([(p.stack, p.stack_box) for p in plans], 0.8 if tv is None else 0.4)
    tag_size = min(role_size([(str(p.number), p.tag_box) for p in plans], 1.0), max(name_size, stack_size))
    info_size = role_size([(p.info, p.info_box) for p in plans], 0.5)

    def info_fit(p: Any) -> int:
        """The info line's size: the common one, smaller for a line that would not fit at it
        (chips and actions are never cut to an ellipsis: 'WINS…' hid what a winner took)."""
        if not p.info:
            return info_size
        return max(MIN_FONT, min(info_size, fit_size([p.info], p.info_box.w, p.info_box.h, measure)))

    side_size = role_size([(p.side, p.side_box) for p in plans], 0.5)
    mark_h = min([m.box.h for p in plans for m in p.markers] or [MIN_FONT + 4])
    mark_size = fit_size(["BB"], max(1, mark_h - 4), max(1, mark_h - 2), measure)
    seat_views = []
    for p in plans:
        texts = [
            place_text(p.tag_box, str(p.number), tag_size, measure, align="left", role="seatno"),
            place_text(p.name_box, p.name, name_size, measure, align="left", role="name"),
            place_text(p.stack_box, p.stack, stack_size, measure, align="left", role="stack"),
            place_text(p.info_box, p.info, info_fit(p), measure, align="left", role="info"),
        ]
        if p.side:
            texts.append(place_text(p.side_box, p.side, side_size, measure, align=p.side_align, role="equity"))
        seat_views.append(SeatView(
            seat=p.number, box=p.box, status=p.status, acting=(p.number == acting_seat),
            winner=p.number in won, texts=tuple(t for t in texts if t.text),
            cards=mark(card_slots(p.cards, p.card_area, measure, align=p.card_align), best.get(p.number, set())),
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
        slots: list[str | None] = [*board, *[""] * (5 - len(board))]
        board_cards = mark(card_slots(slots, r_board, measure, align="center"), on_board)

    # no timer without a turn, while paused (the clock is stopped) or when the display's own
    # notices say the state may be stale (controller offline, broker lost): pots take its place
    timed = bool(turn and isinstance(acting_seat, int) and 1 <= acting_seat <= n
                 and not state.get("paused") and not notices)
    if not timed:
        r_pots = Box(r_pots.x, r_pots.y, r_pots.w, r_timer.bottom - r_pots.y)
    roles: list[str] = []
    if state.get("showdown"):
        lines = []
        for who, hand in showdown_lines(state)[:5]:
            lines.append(who)
            roles.append("showdown")
            if hand:
                lines.append(hand_words(hand))
                roles.append("hand")
        role = "showdown"
    else:
        pots = [p for p in state.get("pots") or [] if isinstance(p, dict)]
        lines = [pot_line(i, p.get("amount")) for i, p in enumerate(pots)]
        role = "pot"
        bets = sum(s.get("bet") or 0 for s in seats_in if isinstance(s.get("bet"), int))
        if bets:
            total = bets + sum(p.get("amount") or 0 for p in pots if isinstance(p.get("amount"), int))
            lines.append(_("Total: {chips}").format(chips=chips(total)))
        if not lines:
            waiting = (state.get("street") or "waiting") == "waiting"
            lines = [_("Waiting for the next hand")] if waiting else [pot_line(0, 0)]
    lines = lines[:10]
    roles += [role] * (len(lines) - len(roles))
    # pots: one column, or two read row by row (Main pot | Side pot 1, Side pot 2 | Total) when
    # that gives bigger text; the showdown stays one column, each pot above its hand

    def pot_grid(columns: int) -> tuple[int, int, int, int, int]:
        per_col = -(-len(lines) // columns)
        col_gap = gap * 2 if columns > 1 else 0
        col_w = (r_pots.w - col_gap * (columns - 1)) // columns
        line_h = r_pots.h // max(2, per_col)
        size = fit_size(lines, col_w, line_h, measure, hi=max(MIN_FONT, int(line_h * 0.8)))
        return size, per_col, col_gap, col_w, line_h

    pot_size, per_col, col_gap, col_w, line_h = max(
        (pot_grid(c) for c in ((1, 2) if len(lines) > 2 and role == "pot" else (1,))), key=lambda g: g[0])
    columns = -(-len(lines) // per_col)
    y0 = r_pots.y + (r_pots.h - line_h * per_col) // 2
    pot_texts = tuple(
        place_text(Box(r_pots.x + (i % columns) * (col_w + col_gap), y0 + (i // columns) * line_h, col_w, line_h),
              line, pot_size, measure, align="center", role=roles[i])
        for i, line in enumerate(lines)
    )

    timer: TimerView | None = None
    if timed and turn is not None and isinstance(acting_seat, int):
        started = float(turn.get("started") or 0.0)
        deadline = float(turn.get("deadline") or started)
        digits = "8" * max(2, len(str(int(max(0.0, deadline - started)))))
        r_label, r_bar = r_timer.rows(0.45, 0.55, gap=max(1, gap // 2))
        sec_size = fit_size([digits], r_bar.w // 4, r_bar.h, measure)
        sec_w = measure(digits, sec_size)[0] + gap
        bar = Box(r_bar.x, r_bar.y, max(1, r_bar.w - sec_w - gap), r_bar.h)
        sec_box = Box(bar.right + gap, r_bar.y, r_bar.right - bar.right - gap, r_bar.h)
        who = str(by_seat.get(acting_seat, {}).get("name") or _("Seat {n}").format(n=acting_seat))
        # P-2: at the showdown the turn is the choice to show or muck, not a bet
        showdown = turn.get("showdown") is True or state.get("street") == "showdown"
        label_t = (_("{name} to show or muck") if showdown else _("{name} to act")).format(name=who)
        label_size = fit_size([label_t], r_label.w, r_label.h, measure)
        timer = TimerView(
            seat=acting_seat, area=r_timer, bar=bar,
            label=place_text(r_label, label_t, label_size, measure, align="center", role="timer"),
            seconds=Text(sec_box, digits, sec_size, "right", "seconds"),
            started=started, deadline=deadline,
        )

    return Layout(
        size=(W, H), header=header, header_texts=header_texts, banner=banner,
        banner_texts=banner_texts, center=center,
        board=r_board, board_cards=board_cards, pots=r_pots, pot_texts=pot_texts,
        timer=timer, seats=tuple(seat_views),
        tournament=strip, tournament_texts=strip_texts, tournament_view=tv,
        holds_until=holds_until if now is not None else None,
        moves_until=tview.moves_until(state, now) if now is not None else None,
    )
