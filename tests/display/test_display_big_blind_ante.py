"""The header's stakes show a big-blind ante (issue 19, TDA RP-11): the public state's
``stakes.bba`` (docs/state.md) as ``100/200 BBA 200`` on the dealer display, laid out at every
display size with the layout's promises kept; an ante stays ``ante 25``; none: ``100/200``."""

from __future__ import annotations

import pytest

import display_states as S
from display.fontmetrics import approx_measure
from display.i18n import language
from display.layout import layout
from display.state import stakes_text
from display_checks import check_invariants

SIZES = [(800, 480), (1024, 600), (1280, 720), (1920, 1080)]


def bba(state: dict, sb: int = 100, bb: int = 200, big_blind_ante: int = 200) -> dict:
    state["stakes"].update(sb=sb, bb=bb, ante=0, bba=big_blind_ante)
    return state


def test_the_stakes_say_the_big_blind_ante() -> None:
    state = bba(S.with_seats(6))
    assert stakes_text(state) == "100/200 BBA 200"
    state["stakes"].update(ante=25, bba=0)
    assert stakes_text(state) == "100/200 ante 25"
    state["stakes"].update(ante=0)
    assert stakes_text(state) == "100/200"
    with language("nl"):
        assert stakes_text(bba(S.with_seats(6), 10_000, 20_000, 20_000)) == "10.000/20.000 BBA 20.000"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_header_shows_it_at_every_size(size: tuple[int, int]) -> None:
    state = bba(S.with_seats(10), 10_000, 20_000, 20_000)
    lay = layout(state, size)
    check_invariants(lay, approx_measure)
    game = [t.text for t in lay.header_texts if t.role == "game"]
    assert game and (game[0].endswith("10,000/20,000 BBA 20,000") or game[0].endswith("\u2026")), game
    if size[0] >= 1280:
        assert game[0].endswith("10,000/20,000 BBA 20,000"), game
