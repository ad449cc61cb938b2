"""Every state a hand passes through, on the three screens a room hangs over a table
(800x480, 1280x720, 1920x1080), checked by layout, not by pixels (issue 20): nothing leaves
the screen, nothing overlaps, every text fits its box at the size pygame's own font measures
(display_checks.check_invariants), and in the centre the pot lines, the board and the timer
keep apart and inside it. Each screen is written to artifacts/display/hand-<state>-<size>-<language>.png
for a person to look at."""

from __future__ import annotations

import copy
from typing import Any

import pygame
import pytest

import display_states as S
from display.app import render_state
from display.i18n import language
from display.layout import Layout
from display_checks import check_invariants
from test_display_snapshots import save

SIZES = [(800, 480), (1280, 720), (1920, 1080)]
T0 = S.T0


def _hand() -> dict[str, dict[str, Any]]:
    """Named states of one six-handed hand with an all-in run-out, then the other cases."""
    pre = S.preflop_blinds()
    flop = copy.deepcopy(pre)
    flop.update(street="flop", board=["Jh", "8c", "3d"], pots=[{"amount": 450, "eligible": [1, 3, 4, 5, 6]}])
    for s in flop["seats"]:
        s["bet"] = 0
    flop["seats"][5]["bet"] = 300
    flop["turn"] = {"seat": 1, "started": T0, "deadline": T0 + 30, "seconds": 30}
    turn = copy.deepcopy(flop)
    turn.update(street="turn", board=["Jh", "8c", "3d", "Qs"])
    river = copy.deepcopy(turn)
    river.update(street="river", board=["Jh", "8c", "3d", "Qs", "2c"])
    allin = S.three_way_all_in()  # everyone all-in: hands face up with equities (S-8)
    runout = copy.deepcopy(allin)
    runout.update(street="river", board=["Jh", "8c", "3d", "9d", "Ad"],
                  all_in_equity={"1": 1.0, "2": 0.0, "3": 0.0, "4": 0.0})
    split = S.split_showdown()
    split.update(street="waiting", rake=150)
    split["showdown"].append({"pot": 2, "amount": 3_538, "winners": [3], "shares": {"3": 3_538},
                              "hand": "Three of a kind, kings"})
    waiting = S.base(seq=1, street="waiting", seats=[S.seat(1, "Ann"), S.seat(2, "Bob"), S.empty(3)],
                     max_seats=6, hand=0)
    paused = S.fault_banner()
    pause_only = copy.deepcopy(flop)
    pause_only.update(paused=True, fault={"kind": "paused", "message": "Paused by the floor", "since": T0})
    return {"waiting": waiting, "preflop": pre, "flop": flop, "turn": turn, "river": river,
            "all-in": allin, "run-out": runout, "split-side-pots": split, "fault": paused,
            "paused": pause_only, "ten-seats": S.ten_seats(), "draw": S.draw_game()}


STATES = _hand()


def check_centre(lay: Layout) -> None:
    """The centre's texts stay inside it and apart from each other, the board and the timer."""
    texts = [t for t in lay.pot_texts if t.text]
    for t in texts:
        assert t.box.inside(lay.center), f"{t.text!r} leaves the centre"
        for c in lay.board_cards:
            assert not t.box.overlaps(c.box), f"{t.text!r} covers a board card"
        if lay.timer is not None:
            assert not t.box.overlaps(lay.timer.area), f"{t.text!r} covers the timer"
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            assert not a.box.overlaps(b.box), f"{a.text!r} and {b.text!r} overlap"
    if lay.timer is not None:
        assert lay.timer.area.inside(lay.center)
        for c in lay.board_cards:
            assert not c.box.overlaps(lay.timer.area), "the timer covers the board"


@pytest.mark.parametrize("lang", ["en", "nl"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", list(STATES))
def test_every_state_of_a_hand_fits_each_screen(name: str, size: tuple[int, int], lang: str, renderer,
                                                tmp_path) -> None:
    state = STATES[name]
    notices = ("TABLE OFFLINE",) if name == "fault" else ()
    with language(lang):
        surface, lay = render_state(state, size, now=T0 + 12, notices=notices, renderer=renderer)
    save(surface, f"hand-{name}-{size[0]}x{size[1]}-{lang}", tmp_path)
    check_invariants(lay, renderer.measure)
    check_centre(lay)
    assert all(not t.text.endswith("\u2026") for t in lay.pot_texts), "pot and showdown lines are not cut"
    cut = [t.text for s in lay.seats for t in s.texts if t.role in ("info", "stack") and t.text.endswith("\u2026")]
    assert cut == [], "a seat's chips or action are never cut (a name may be)"
    if name == "split-side-pots":
        assert [t.text for t in lay.pot_texts][-1] == "Rake 150"
        assert lay.header_texts[2].text == "SHOWDOWN"
    if name == "flop" and lang == "nl":
        assert lay.timer is not None and lay.timer.label.text == "Ann is aan de beurt"
    assert isinstance(surface, pygame.Surface)
