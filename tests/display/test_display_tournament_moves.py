"""The room's multi-table tournament's moves on the dealer display (issue 19): the banner
says who moves where ("Player 17 moves to Birch (t2) seat 6", "Player 17 from Aspen (t1)",
"Table breaks: players move to …") at every display size and table size, the layout's
promises kept (on screen, no overlaps, every text fits), with pygame's fonts too; Dutch."""

from __future__ import annotations

import pytest

import display_states as S
from display.fontmetrics import approx_measure
from display.i18n import language
from display.layout import layout
from display_checks import check_invariants
from test_display_tournament import SIZES, with_tournament

OUT = {"kind": "out", "player": "p17", "name": "Player 17", "seat": 3, "table": "t2", "table_name": "Birch",
       "to_seat": 6, "until": S.T0 + 12}
IN = {"kind": "in", "player": "p9", "name": "Player 9", "seat": 5, "table": "t1", "table_name": "Aspen",
      "until": S.T0 + 12}
BREAK = {"kind": "break", "tables": ["Aspen (t1)", "Birch (t2)"], "until": S.T0 + 12}


def with_moves(state: dict, *moves: dict) -> dict:
    with_tournament(state)["tournament_view"]["moves"] = list(moves)
    return state


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("n", [2, 6, 10])
def test_a_move_notice_fits_every_table_and_screen(n: int, size: tuple[int, int]) -> None:
    lay = layout(with_moves(S.with_seats(n), OUT, IN), size)
    check_invariants(lay, approx_measure)
    assert lay.banner is not None and lay.tournament is not None and lay.banner.y == lay.tournament.bottom
    texts = {t.role: t.text for t in lay.banner_texts}
    assert texts["banner"] == "PLAYERS MOVE"
    if size[0] >= 1280:
        assert texts["banner-message"] == "Player 17 moves to Birch (t2) seat 6 \u00b7 Player 9 from Aspen (t1)"


@pytest.mark.parametrize("size", [(800, 480), (1280, 720), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_table_break_with_pygame_fonts(size, renderer) -> None:
    lay = layout(with_moves(S.with_seats(8), BREAK, OUT, dict(OUT, name="Player 4", seat=4, to_seat=1)), size,
                 measure=renderer.measure)
    check_invariants(lay, renderer.measure)
    texts = {t.role: t.text for t in lay.banner_texts}
    assert texts["banner"] == "TABLE BREAKS"
    assert texts["banner-message"].startswith("Table breaks: players move to Aspen (t1), Birch (t2)") or \
        texts["banner-message"].endswith("\u2026")


def test_a_fault_keeps_its_message_and_no_moves_no_banner() -> None:
    lay = layout(with_moves(S.fault_banner(), OUT), (1280, 720))
    texts = {t.role: t.text for t in lay.banner_texts}
    assert "PLAYERS MOVE" not in texts["banner"]  # the fault's message is what the dealer needs
    assert layout(with_moves(S.with_seats(4)), (1280, 720)).banner is None
    assert layout(with_moves(S.with_seats(4), {"kind": "out"}, "junk"), (1280, 720)).banner is None  # type: ignore[arg-type]


def test_moves_in_dutch() -> None:
    with language("nl"):
        lay = layout(with_moves(S.with_seats(4), OUT, IN), (1920, 1080))
    texts = {t.role: t.text for t in lay.banner_texts}
    assert texts["banner"] == "SPELERS VERHUIZEN"
    assert texts["banner-message"] == "Player 17 gaat naar Birch (t2) stoel 6 \u00b7 Player 9 komt van Aspen (t1)"


def test_places_paid_and_hand_for_hand_at_the_room_tables() -> None:
    state = with_tournament(S.with_seats(6))
    state["tournament_view"].update(places_paid=9, hand_for_hand=True)
    texts = {t.role: t.text for t in layout(state, (1920, 1080)).tournament_texts}
    assert texts["tournament-numbers"].endswith("\u00b7 Paid 9 \u00b7 HAND FOR HAND")


def test_the_notices_end_at_their_time() -> None:
    state = with_moves(S.with_seats(6), OUT, dict(IN, until=S.T0 + 30))
    lay = layout(state, (1920, 1080), now=S.T0 + 1)
    assert lay.moves_until == S.T0 + 12 and {t.role: t.text for t in lay.banner_texts}["banner-message"] == \
        "Player 17 moves to Birch (t2) seat 6 \u00b7 Player 9 from Aspen (t1)"
    lay = layout(state, (1920, 1080), now=S.T0 + 12)  # the first one ended: the app lays out again then
    assert lay.moves_until == S.T0 + 30
    assert {t.role: t.text for t in lay.banner_texts}["banner-message"] == "Player 9 from Aspen (t1)"
    lay = layout(state, (1920, 1080), now=S.T0 + 30)
    assert lay.banner is None and lay.moves_until is None
