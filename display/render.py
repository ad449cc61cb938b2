"""Drawing a :class:`display.layout.Layout` with pygame.

Everything is drawn in pygame's bundled ``freesansbold.ttf``. Cards are white rounded
rectangles with the rank above a suit drawn as a shape, in a four-colour deck so suits
read from across the table: spades black, hearts red, diamonds blue, clubs green.
The acting seat has a thick yellow frame and the timer bar (A-2); winners at showdown a gold
frame; folded and empty seats are dimmed; faults fill a red banner under the header.

:meth:`Renderer.draw` paints a whole frame; :meth:`Renderer.draw_timer` repaints only the
timer area and returns it, so a live display updates just that rectangle while the bar
shrinks.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from typing import Any

import pygame

from display.geometry import frame_width
from display.layout import Box, CardSlot, Layout, Marker, SeatView, Text, card_label
from display.timer import AMBER, GREEN, RED, TimerFrame, timer_frame

__all__ = ["Renderer", "FONT_PATH", "COLOURS", "SUIT_COLOURS", "TIMER_COLOURS", "draw_suit", "suit_box"]

FONT_PATH = os.path.join(os.path.dirname(pygame.__file__), pygame.font.get_default_font())

RGB = tuple[int, int, int]
COLOURS: dict[str, RGB] = {
    "background": (8, 46, 32),
    "felt": (14, 74, 50),
    "header": (16, 18, 24),
    "seat": (28, 32, 40),
    "seat-border": (90, 98, 110),
    "seat-dim": (20, 26, 28),
    "acting": (255, 212, 0),
    "winner": (255, 176, 32),
    "banner": (200, 16, 24),
    "banner-border": (255, 230, 0),
    "text": (240, 240, 240),
    "dim": (120, 128, 132),
    "header-text": (200, 205, 215),
    "game": (255, 255, 255),
    "street": (255, 212, 0),
    "info": (170, 210, 255),
    "all-in": (255, 110, 90),
    "equity": (255, 212, 0),
    "card": (250, 250, 250),
    "card-edge": (60, 60, 60),
    "card-back": (150, 24, 40),
    "card-back-line": (215, 120, 130),
    "slot": (30, 100, 70),
    "track": (40, 44, 52),
}
#: four-colour deck: spades black, hearts red, diamonds blue, clubs green
SUIT_COLOURS: dict[str, RGB] = {"s": (20, 20, 20), "h": (210, 0, 0), "d": (0, 80, 210), "c": (0, 130, 40)}
TIMER_COLOURS: dict[str, RGB] = {GREEN: (40, 200, 70), AMBER: (255, 170, 0), RED: (230, 30, 30)}
MARKER_COLOURS: dict[str, tuple[RGB, RGB]] = {
    "button": ((250, 250, 250), (10, 10, 10)),
    "sb": (( 40, 110, 230), (255, 255, 255)),
    "bb": ((255, 200, 0), (10, 10, 10)),
}


def _bytes(surf: pygame.Surface) -> int:
    """The bytes of a surface's pixels."""
    return surf.get_width() * surf.get_height() * surf.get_bytesize()


class Renderer:
    """Draw layouts on a pygame surface; keeps fonts and rendered texts cached (the texts
    most recently drawn, at most ``cache_size`` of them and ``cache_bytes`` of pixels).

    Needs ``pygame.font`` (initialised here); works with any SDL video driver, including
    ``dummy``. Not thread-safe: use it from the display loop only.
    """

    #: Bytes of rendered texts kept (issue 21: 1,024 texts of every size held some 35 MB of the
    #: display's 106 MB over 200 hands; pots, stacks and timers make new texts all the time).
    CACHE_BYTES = 2 * 1024 * 1024

    def __init__(self, font_path: str = FONT_PATH, *, cache_size: int = 1024,
                 cache_bytes: int = CACHE_BYTES) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        self._font_path = font_path
        self._fonts: dict[int, pygame.font.Font] = {}
        self._texts: OrderedDict[tuple[str, int, RGB], pygame.Surface] = OrderedDict()
        self._cache_size = cache_size
        self._cache_bytes = cache_bytes
        self.cached_bytes = 0  # pixels' bytes of the texts kept
        self.last_timer: TimerFrame | None = None
        self.last_clock: str | None = None  # the tournament clock's text last painted (issue 19)

    # ------------------------------------------------------------ text

    def font(self, size: int) -> pygame.font.Font:
        """Return the bundled font at ``size`` px (cached)."""
        f = self._fonts.get(size)
        if f is None:
            f = self._fonts[size] = pygame.font.Font(self._font_path, size)
        return f

    def measure(self, text: str, size: int) -> tuple[int, int]:
        """Return the pixel ``(width, height)`` of ``text`` at ``size`` (a layout ``measure``)."""
        return self.font(size).size(text)

    def _render(self, text: str, size: int, colour: RGB) -> pygame.Surface:
        key = (text, size, colour)
        surf = self._texts.get(key)
        if surf is None:
            surf = self.font(size).render(text, True, colour)
            self._texts[key] = surf
            self.cached_bytes += _bytes(surf)
            while len(self._texts) > 1 and (len(self._texts) > self._cache_size
                                            or self.cached_bytes > self._cache_bytes):
                self.cached_bytes -= _bytes(self._texts.popitem(last=False)[1])
        else:
            self._texts.move_to_end(key)
        return surf

    def _text(self, surface: pygame.Surface, t: Text, colour: RGB, text: str | None = None) -> None:
        value = t.text if text is None else text
        if not value:
            return
        img = self._render(value, t.size, colour)
        b = t.box
        if t.align == "center":
            x = b.x + (b.w - img.get_width()) // 2
        elif t.align == "right":
            x = b.right - img.get_width()
        else:
            x = b.x
        y = b.y + (b.h - img.get_height()) // 2
        surface.blit(img, (x, y))

    # ------------------------------------------------------------ frame

    def draw(self, surface: pygame.Surface, lay: Layout, now: float) -> None:
        """Paint the whole of ``lay`` on ``surface``; the timer as it is at ``now`` (Unix s)."""
        surface.fill(COLOURS["background"])
        c = lay.center
        pygame.draw.rect(surface, COLOURS["felt"], c.as_tuple(), border_radius=max(8, c.h // 6))
        pygame.draw.rect(surface, COLOURS["header"], lay.header.as_tuple())
        roles = {"header": "header-text", "game": "game", "street": "street"}
        for t in lay.header_texts:
            self._text(surface, t, COLOURS[roles.get(t.role, "text")])
        self.last_clock = None
        self.draw_tournament_clock(surface, lay, now)
        for slot in lay.board_cards:
            self._card(surface, slot)
        for t in lay.pot_texts:
            self._text(surface, t, COLOURS["winner"] if t.role == "showdown" else COLOURS["text"])
        for seat in lay.seats:
            self._seat(surface, seat)
        if lay.banner is not None:
            b = lay.banner
            pygame.draw.rect(surface, COLOURS["banner"], b.as_tuple())
            edge = max(3, b.h // 14)
            pygame.draw.rect(surface, COLOURS["banner-border"], b.as_tuple(), width=edge)
            for t in lay.banner_texts:
                self._text(surface, t, COLOURS["text"])
        self.last_timer = None
        self.draw_timer(surface, lay, now)

    def draw_timer(self, surface: pygame.Surface, lay: Layout, now: float) -> Box | None:
        """Repaint the timer area if its look changed since the last paint; return the area.

        Returns None (and paints nothing) when there is no turn or the bar would look the
        same: the caller then has nothing to update on screen.
        """
        tv = lay.timer
        if tv is None:
            return None
        frame = timer_frame(tv.started, tv.deadline, now, tv.bar.w)
        if frame == self.last_timer:
            return None
        self.last_timer = frame
        pygame.draw.rect(surface, COLOURS["felt"], tv.area.as_tuple())
        self._text(surface, tv.label, COLOURS["text"])
        radius = max(2, tv.bar.h // 4)
        pygame.draw.rect(surface, COLOURS["track"], tv.bar.as_tuple(), border_radius=radius)
        if frame.width > 0:
            fill = Box(tv.bar.x, tv.bar.y, frame.width, tv.bar.h)
            pygame.draw.rect(surface, TIMER_COLOURS[frame.colour], fill.as_tuple(), border_radius=radius)
        self._text(surface, tv.seconds, TIMER_COLOURS[frame.colour], str(frame.seconds))
        return tv.area

    def draw_tournament_clock(self, surface: pygame.Surface, lay: Layout, now: float) -> Box | None:
        """Paint the tournament strip (issue 19) when its time left changed since the last
        paint (the clock counts down from the view's ``at`` to ``now``); return the strip,
        or None when there is none or nothing changed."""
        from display.tournament import CLOCK_ROLE, time_left

        if lay.tournament is None or lay.tournament_view is None:
            return None
        text = time_left(lay.tournament_view, now)
        if text == self.last_clock:
            return None
        self.last_clock = text
        pygame.draw.rect(surface, COLOURS["header"], lay.tournament.as_tuple())
        for t in lay.tournament_texts:
            clock = t.role == CLOCK_ROLE
            self._text(surface, t, COLOURS["game" if clock else "header-text"], text if clock else None)
        return lay.tournament

    def draw_message(self, surface: pygame.Surface, title: str, message: str) -> None:
        """Paint a whole-screen notice (no state yet): ``title`` big, ``message`` below."""
        from display.layout import fit_size

        w, h = surface.get_size()
        surface.fill(COLOURS["background"])
        s1 = fit_size([title], int(w * 0.9), h // 6, self.measure)
        s2 = min(s1, fit_size([message], int(w * 0.9), h // 12, self.measure))
        self._text(surface, Text(Box(0, h // 3, w, h // 6), title, s1, "center"), COLOURS["street"])
        self._text(surface, Text(Box(0, h // 2, w, h // 12), message, s2, "center"), COLOURS["text"])

    # ------------------------------------------------------------ pieces

    def _seat(self, surface: pygame.Surface, seat: SeatView) -> None:
        b = seat.box
        dim = seat.status in ("empty", "folded", "sitting-out")
        radius = max(6, min(b.w, b.h) // 10)
        pygame.draw.rect(surface, COLOURS["seat-dim" if dim else "seat"], b.as_tuple(), border_radius=radius)
        if seat.acting:
            edge, colour = frame_width(b), COLOURS["acting"]
        elif seat.winner:
            edge, colour = frame_width(b), COLOURS["winner"]
        else:
            edge, colour = 2, COLOURS["seat-border"]
        pygame.draw.rect(surface, colour, b.as_tuple(), width=edge, border_radius=radius)
        for t in seat.texts:
            if dim:
                col = COLOURS["dim"]
            elif t.role == "info" and seat.winner:
                col = COLOURS["winner"]
            elif t.role == "info" and seat.status == "all-in":
                col = COLOURS["all-in"]
            else:
                col = COLOURS.get({"seatno": "dim", "equity": "equity"}.get(t.role, ""), None) or (
                    COLOURS["info"] if t.role == "info" else COLOURS["text"])
            self._text(surface, t, col)
        for m in seat.markers:
            self._marker(surface, m)
        for slot in seat.cards:
            self._card(surface, slot)

    def _marker(self, surface: pygame.Surface, m: Marker) -> None:
        fill, ink = MARKER_COLOURS.get(m.kind, ((200, 200, 200), (0, 0, 0)))
        r = m.box.h // 2
        centre = (m.box.x + m.box.w // 2, m.box.y + m.box.h // 2)
        pygame.draw.circle(surface, fill, centre, r)
        pygame.draw.circle(surface, (0, 0, 0), centre, r, width=1)
        self._text(surface, Text(m.box, m.label, m.size, "center"), ink)

    def _card(self, surface: pygame.Surface, slot: CardSlot) -> None:
        b = slot.box
        radius = max(3, b.w // 8)
        if slot.card == "":
            pygame.draw.rect(surface, COLOURS["slot"], b.as_tuple(), width=max(1, b.w // 30), border_radius=radius)
            return
        if slot.card is None:  # a card back: white margin, red lattice (issue 20: real card backs)
            pygame.draw.rect(surface, COLOURS["card"], b.as_tuple(), border_radius=radius)
            inner = b.inset(max(2, b.w // 9))
            pygame.draw.rect(surface, COLOURS["card-back"], inner.as_tuple(), border_radius=max(2, radius // 2))
            clip = surface.get_clip()
            surface.set_clip(pygame.Rect(inner.as_tuple()).clip(clip))
            step = max(4, b.w // 5)
            for k in range(-inner.h, inner.w + inner.h, step):
                pygame.draw.line(surface, COLOURS["card-back-line"], (inner.x + k, inner.y),
                                 (inner.x + k + inner.h, inner.bottom), 1)
                pygame.draw.line(surface, COLOURS["card-back-line"], (inner.x + k, inner.bottom),
                                 (inner.x + k + inner.h, inner.y), 1)
            surface.set_clip(clip)
            pygame.draw.rect(surface, COLOURS["card-edge"], b.as_tuple(), width=1, border_radius=radius)
            return
        pygame.draw.rect(surface, COLOURS["card"], b.as_tuple(), border_radius=radius)
        pygame.draw.rect(surface, COLOURS["card-edge"], b.as_tuple(), width=1, border_radius=radius)
        if slot.wins:  # one of the five that won a pot: a gold frame inside the card's edge
            pygame.draw.rect(surface, COLOURS["winner"], b.as_tuple(), width=max(3, b.w // 14),
                             border_radius=radius)
        _, suit = card_label(slot.card)
        colour = SUIT_COLOURS.get(suit, (0, 0, 0))
        top = Box(b.x, b.y + b.h // 20, b.w, int(b.h * 0.52))
        self._text(surface, Text(top, slot.rank, slot.rank_size, "center"), colour)
        if suit:
            draw_suit(surface, suit, suit_box(b), colour)


def suit_box(card: Box) -> Box:
    """Return the square a card's suit symbol fills, under the rank."""
    side = int(min(card.w * 0.62, card.h * 0.38))
    return Box(card.x + (card.w - side) // 2, card.bottom - side - card.h // 12, side, side)


def draw_suit(surface: Any, suit: str, box: Box, colour: RGB) -> None:
    """Draw a suit symbol (``c d h s``) as a filled shape filling ``box``."""
    x, y, w, h = box.x, box.y, box.w, box.h
    cx = x + w / 2
    if suit == "d":
        pygame.draw.polygon(surface, colour, [(cx, y), (x + w * 0.9, y + h / 2), (cx, y + h), (x + w * 0.1, y + h / 2)])
        return
    r = max(1, round(w * 0.26))
    if suit == "h":
        pygame.draw.circle(surface, colour, (round(x + w * 0.28), round(y + h * 0.32)), r)
        pygame.draw.circle(surface, colour, (round(x + w * 0.72), round(y + h * 0.32)), r)
        pygame.draw.polygon(surface, colour, [(x + w * 0.03, y + h * 0.40), (x + w * 0.97, y + h * 0.40), (cx, y + h)])
        return
    stem = [(cx, y + h * 0.55), (x + w * 0.25, y + h), (x + w * 0.75, y + h)]
    if suit == "s":
        pygame.draw.polygon(surface, colour, [(cx, y), (x + w * 0.97, y + h * 0.58), (x + w * 0.03, y + h * 0.58)])
        pygame.draw.circle(surface, colour, (round(x + w * 0.28), round(y + h * 0.60)), r)
        pygame.draw.circle(surface, colour, (round(x + w * 0.72), round(y + h * 0.60)), r)
        pygame.draw.polygon(surface, colour, stem)
        return
    if suit == "c":
        r = max(1, round(w * 0.22))
        pygame.draw.circle(surface, colour, (round(cx), round(y + h * 0.24)), r)
        pygame.draw.circle(surface, colour, (round(x + w * 0.24), round(y + h * 0.58)), r)
        pygame.draw.circle(surface, colour, (round(x + w * 0.76), round(y + h * 0.58)), r)
        pygame.draw.polygon(surface, colour, stem)
