"""Shared by the display tests: layout checks (on screen, no overlaps, text fits), the broker."""

from __future__ import annotations

import socket

import pytest

from display.geometry import frame_width
from display.layout import MIN_FONT, Box, Layout

#: the Mosquitto every plain test may use
BROKER = ("127.0.0.1", 1883)


def all_boxes(lay: Layout) -> list[tuple[str, Box]]:
    """Every box of a layout with a name for the failure message."""
    out = [("header", lay.header), ("center", lay.center), ("pots", lay.pots)]
    if lay.banner:
        out.append(("banner", lay.banner))
    if lay.board:
        out.append(("board", lay.board))
    if lay.timer:
        out += [("timer", lay.timer.area), ("timer-bar", lay.timer.bar)]
    out += [(f"text {t.text!r}", t.box) for t in lay.texts()]
    out += [(f"card {c.card!r}", c.box) for c in lay.cards()]
    for s in lay.seats:
        out.append((f"seat {s.seat}", s.box))
        out += [(f"seat {s.seat} marker {m.label}", m.box) for m in s.markers]
    return out


def check_invariants(lay: Layout, measure) -> None:
    """Assert the three promises of the layout, plus texts and cards staying in their seat."""
    screen = lay.screen
    for name, box in all_boxes(lay):
        assert box.inside(screen), f"{name} {box} leaves the {screen.w}x{screen.h} screen"
        assert box.w >= 0 and box.h >= 0, name
    seats = lay.seats
    for i, a in enumerate(seats):
        for b in seats[i + 1:]:
            assert not a.box.overlaps(b.box), f"seats {a.seat} and {b.seat} overlap: {a.box} {b.box}"
        assert not a.box.overlaps(lay.center), f"seat {a.seat} covers the centre"
        assert not a.box.overlaps(lay.header), f"seat {a.seat} covers the header"
        if lay.banner:
            assert not a.box.overlaps(lay.banner), f"seat {a.seat} is under the banner"
        clear = a.box.inset(frame_width(a.box))
        for t in a.texts:
            assert t.box.inside(clear), f"seat {a.seat} text {t.text!r} outside its seat or under its frame"
        for c in a.cards:
            assert c.box.inside(a.box), f"seat {a.seat} card outside its seat"
        for m in a.markers:
            assert m.box.inside(a.box)
            for t in a.texts:
                assert not t.box.overlaps(m.box), f"seat {a.seat} marker {m.label} covers {t.text!r}"
    for t in lay.texts():
        if not t.text:
            continue  # nothing is drawn
        assert t.size >= MIN_FONT, f"{t.text!r} at {t.size}px"
        w, h = measure(t.text, t.size)
        assert w <= t.box.w and h <= t.box.h, f"{t.text!r} {w}x{h} at {t.size}px overflows {t.box}"
    for c in lay.cards():
        if c.rank:
            w, h = measure(c.rank, c.rank_size)
            assert w <= c.box.w and h <= c.box.h, f"rank {c.rank} at {c.rank_size}px overflows card {c.box}"


def _broker_up() -> bool:
    try:
        with socket.create_connection(BROKER, timeout=1):
            return True
    except OSError:
        return False


broker = pytest.mark.skipif(not _broker_up(), reason="no Mosquitto on 127.0.0.1:1883")
