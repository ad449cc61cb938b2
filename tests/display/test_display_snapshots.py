"""Snapshot PNGs of the states issue 8 names, checked for the facts they must show.

Each PNG is written to ``tmp_path`` and to ``artifacts/display/`` (gitignored; CI keeps it
for a person to look at). Facts are checked on the pure layout and on pixels where it
matters: the acting seat's frame, the timer bar's colour and length (A-2), the banner, the
four-colour suits, winners' frames.
"""

from __future__ import annotations

import json
from pathlib import Path

import pygame
import pytest

import display_states as S
from display.app import main, render_state, snapshot
from display.fontmetrics import approx_measure
from display.layout import Box, layout
from display.render import COLOURS, SUIT_COLOURS, TIMER_COLOURS, suit_box
from display.timer import AMBER, GREEN, RED
from display_checks import check_invariants

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "display"


def save(surface: pygame.Surface, name: str, tmp_path: Path) -> pygame.Surface:
    """Write the PNG to tmp_path and artifacts/display/; return it read back from disk."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for folder in (tmp_path, ARTIFACTS):
        pygame.image.save(surface, str(folder / f"{name}.png"))
    return pygame.image.load(str(tmp_path / f"{name}.png"))


def px(img: pygame.Surface, x: float, y: float) -> tuple[int, int, int]:
    return tuple(img.get_at((int(x), int(y))))[:3]


def frame_pixel(img: pygame.Surface, box: Box) -> tuple[int, int, int]:
    """A pixel on the middle of a seat box's left frame."""
    return px(img, box.x + 1, box.y + box.h // 2)


def suit_pixel(img: pygame.Surface, card: Box, suit: str) -> tuple[int, int, int]:
    b = suit_box(card)
    fy = {"h": 0.62, "d": 0.5, "s": 0.45, "c": 0.8}[suit]
    return px(img, b.x + b.w / 2, b.y + b.h * fy)


def test_preflop_with_blinds(tmp_path, renderer) -> None:
    state = S.preflop_blinds()
    t0 = state["turn"]["started"]
    for elapsed, colour in ((5, GREEN), (20, AMBER), (27, RED)):
        surface, lay = render_state(state, (1280, 720), now=t0 + elapsed, renderer=renderer)
        img = save(surface, f"preflop_blinds_{colour}", tmp_path)
        bar = lay.timer.bar
        fill = round(bar.w * (30 - elapsed) / 30)
        assert px(img, bar.x + fill // 2, bar.y + bar.h // 2) == TIMER_COLOURS[colour]
        assert px(img, bar.x + fill + 4, bar.y + bar.h // 2) == COLOURS["track"], "bar shrinks from the right"
    check_invariants(lay, renderer.measure)
    assert frame_pixel(img, lay.seat(6).box) == COLOURS["acting"]
    assert frame_pixel(img, lay.seat(5).box) != COLOURS["acting"]
    for seat, kind in ((3, "button"), (4, "sb"), (5, "bb")):
        (marker,) = lay.seat(seat).markers
        assert marker.kind == kind
        b = marker.box
        assert px(img, b.x + b.w // 2, b.y + 2) != COLOURS["seat"], f"{kind} marker drawn"
    # five empty board places: the felt shows through their middle
    slot = lay.board_cards[0].box
    assert px(img, slot.x + slot.w // 2, slot.y + slot.h // 2) == COLOURS["felt"]


def test_three_way_all_in_with_two_side_pots(tmp_path, renderer) -> None:
    surface, lay = render_state(S.three_way_all_in(), (1280, 720), now=0.0, renderer=renderer)
    img = save(surface, "three_way_all_in", tmp_path)
    check_invariants(lay, renderer.measure)
    assert [t.text for t in lay.pot_texts] == ["Main pot: 4,050", "Side pot 1: 6,000", "Side pot 2: 6,000"]
    for seat, cards in ((1, ["As", "Ah"]), (2, ["Kd", "Kc"]), (3, ["Qs", "Jd"]), (4, ["9c", "9h"])):
        slots = lay.seat(seat).cards
        assert [c.card for c in slots] == cards
        for slot in slots:
            suit = slot.card[1]
            assert suit_pixel(img, slot.box, suit) == SUIT_COLOURS[suit], f"{slot.card}: four-colour suit"
            assert px(img, slot.box.x + slot.box.w // 2, slot.box.y + 2) == COLOURS["card"]
    eq = {s.seat: t.text for s in lay.seats for t in s.texts if t.role == "equity"}
    assert eq == {1: "46%", 2: "25%", 3: "18%", 4: "10%"}
    for slot in lay.board_cards[:3]:
        suit = slot.card[1]
        assert suit_pixel(img, slot.box, suit) == SUIT_COLOURS[suit]
    assert lay.timer is None


def test_showdown_with_a_split_pot(tmp_path, renderer) -> None:
    surface, lay = render_state(S.split_showdown(), (1280, 720), now=0.0, renderer=renderer)
    img = save(surface, "split_showdown", tmp_path)
    check_invariants(lay, renderer.measure)
    texts = [t.text for t in lay.pot_texts]
    assert texts[0] == "Main pot 2,400 split: Ann 1,200, Bob 1,200" and texts[1] == "Straight, ace high"
    assert frame_pixel(img, lay.seat(1).box) == COLOURS["winner"]
    assert frame_pixel(img, lay.seat(2).box) == COLOURS["winner"]
    assert frame_pixel(img, lay.seat(3).box) != COLOURS["winner"]
    assert lay.header_texts[2].text == "SHOWDOWN"


def test_fault_banner(tmp_path, renderer) -> None:
    surface, lay = render_state(S.fault_banner(), (1280, 720), now=0.0, renderer=renderer)
    img = save(surface, "fault_banner", tmp_path)
    check_invariants(lay, renderer.measure)
    b = lay.banner
    assert b is not None and b.w == 1280 and b.h >= 0.15 * 720, "a banner across the whole screen"
    assert lay.banner_texts[0].text == "SHUFFLER JAM \u00b7 TABLE PAUSED"
    assert "open the lid" in lay.banner_texts[1].text
    assert px(img, b.x + 12, b.y + b.h // 2) == COLOURS["banner"]
    assert px(img, b.x + 1, b.y + 1) == COLOURS["banner-border"]
    title = lay.banner_texts[0]
    assert title.size >= 40, "big enough to read from across the room"
    # the offline notice from the display itself uses the same banner
    surface, lay = render_state(S.preflop_blinds(), (800, 480), now=0.0, notices=("TABLE OFFLINE",),
                                renderer=renderer)
    save(surface, "table_offline_800x480", tmp_path)
    assert lay.banner_texts[0].text == "TABLE OFFLINE"
    assert lay.timer is None, "a stale turn's timer does not run on"


def test_ten_seats_at_800x480(tmp_path, renderer) -> None:
    state = S.ten_seats()
    surface, lay = render_state(state, (800, 480), now=state["turn"]["started"] + 10, renderer=renderer)
    img = save(surface, "ten_seats_800x480", tmp_path)
    check_invariants(lay, renderer.measure)
    check_invariants(layout(state, (800, 480)), approx_measure)
    assert len(lay.seats) == 10
    assert [c.rank for c in lay.board_cards[:4]] == ["10", "10", "9", "8"]
    names = {s.seat: next(t for t in s.texts if t.role == "name") for s in lay.seats}
    assert names[2].text == "Bartholomew", "a name that fits is not cut"
    assert min(t.size for t in names.values()) >= 12
    for s in lay.seats:  # every name was really drawn: text-coloured pixels in its box
        box = names[s.seat].box
        colours = {px(img, x, box.y + box.h // 2) for x in range(box.x, box.right)}
        assert (240, 240, 240) in colours or any(min(c) > 200 for c in colours), f"seat {s.seat} name not drawn"


def test_cli_snapshot_writes_a_png_of_the_asked_size(tmp_path, capsys) -> None:
    state_path = tmp_path / "state.json"
    state_path.write_text(json.dumps(S.three_way_all_in()))
    out = tmp_path / "out" / "snap.png"
    assert main(["--snapshot", str(state_path), str(out), "--size", "1024x600"]) == 0
    assert pygame.image.load(str(out)).get_size() == (1024, 600)
    lay = snapshot(state_path, tmp_path / "again.png", (800, 480))
    assert lay.size == (800, 480)
    state_path.write_text("{not json")
    assert main(["--snapshot", str(state_path), str(out)]) == 1
    assert "not JSON" in capsys.readouterr().err
    assert main([]) == 2
    with pytest.raises(SystemExit):
        main(["--snapshot", str(state_path), str(out), "--size", "big"])
