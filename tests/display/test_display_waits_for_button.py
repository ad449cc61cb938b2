"""A seat that waits for the button says so on the dealer display (issue 19, T-4: the public
state's ``seats[].waits_for_button``, docs/state.md): ``WAITS FOR THE BUTTON`` (Dutch ``WACHT OP
DE BUTTON``) instead of ``WAITING``, laid out at every display and table size with the
layout's promises kept."""

from __future__ import annotations

import pytest

import display_states as S
from display.fontmetrics import approx_measure
from display.i18n import language
from display.layout import layout
from display_checks import check_invariants

SIZES = [(800, 480), (1024, 600), (1280, 720), (1920, 1080)]


def waiting(n: int, seat: int, for_button: bool) -> dict:
    state = S.with_seats(n)
    state["seats"][seat - 1].update(status="waiting", bet=0, last_action=None, waits_for_button=for_button,
                                    missed={"sb": False, "bb": False})
    return state


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("n", [2, 6, 10])
def test_waits_for_the_button_fits_every_table_and_screen(n: int, size: tuple[int, int]) -> None:
    lay = layout(waiting(n, 2, True), size)
    check_invariants(lay, approx_measure)
    info = [t.text for t in lay.seat(2).texts if t.role == "info"]
    assert info and (info[0] == "WAITS FOR THE BUTTON" or info[0].endswith("\u2026")), info


@pytest.mark.parametrize("lang, word", [("en", "WAITS FOR THE BUTTON"), ("nl", "WACHT OP DE BUTTON")])
def test_a_seat_waiting_for_the_button_says_so_and_one_waiting_otherwise_says_waiting(lang: str, word: str) -> None:
    with language(lang):
        lay = layout(waiting(6, 3, True), (1280, 720))
        other = layout(waiting(6, 3, False), (1280, 720))
    assert [t.text for t in lay.seat(3).texts if t.role == "info"] == [word]
    assert [t.text for t in other.seat(3).texts if t.role == "info"] == ["WAITING" if lang == "en" else "WACHT"]
