"""The deal offered to the final players on the dealer display (issue 19): the banner shows
every player's share and how many accepted ("DEAL OFFERED", "Ann 402 · Bob 334 — 1 of 2
accepted"), then "DEAL AGREED … the director confirms"; at every display size, the
layout's promises kept; a fault's message comes first; Dutch."""

from __future__ import annotations

import pytest

import display_states as S
from display.fontmetrics import approx_measure
from display.i18n import language
from display.layout import layout
from display_checks import check_invariants
from test_display_tournament import SIZES, with_tournament

PLAYERS = [{"seat": 1, "name": "Ann", "stack": 6000, "share": 402, "accepted": False},
           {"seat": 4, "name": "Bob", "stack": 4000, "share": 1334, "accepted": True}]


def with_offer(state: dict, *, agreed: bool = False) -> dict:
    players = [dict(p, accepted=True) for p in PLAYERS] if agreed else PLAYERS
    with_tournament(state)["tournament_view"]["deal_offer"] = {
        "offer": 1, "method": "icm", "unit": 1, "total": 1736, "prizes": [1000, 736], "players": players,
        "accepted": 2 if agreed else 1, "of": 2, "agreed": agreed, "words": ""}
    return state


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_deal_offered_fits_every_screen(size: tuple[int, int]) -> None:
    lay = layout(with_offer(S.with_seats(2)), size)
    check_invariants(lay, approx_measure)
    texts = {t.role: t.text for t in lay.banner_texts}
    assert texts["banner"] == "DEAL OFFERED"
    if size[0] >= 1280:
        assert texts["banner-message"] == "Ann 402 \u00b7 Bob 1,334 \u2014 1 of 2 accepted"


def test_the_deal_agreed_says_the_director_confirms_and_a_fault_comes_first() -> None:
    texts = {t.role: t.text for t in layout(with_offer(S.with_seats(2), agreed=True), (1920, 1080)).banner_texts}
    assert texts == {"banner": "DEAL AGREED", "banner-message": "Ann 402 \u00b7 Bob 1,334 \u2014 the director confirms"}
    lay = layout(with_offer(S.fault_banner()), (1920, 1080))
    assert "DEAL OFFERED" not in {t.text for t in lay.banner_texts}
    state = with_tournament(S.with_seats(2))
    state["tournament_view"]["deal_offer"] = {"players": "junk"}
    assert layout(state, (1280, 720)).banner is None


def test_the_deal_in_dutch() -> None:
    with language("nl"):
        texts = {t.role: t.text for t in layout(with_offer(S.with_seats(2)), (1920, 1080)).banner_texts}
    assert texts == {"banner": "DEALVOORSTEL", "banner-message": "Ann 402 \u00b7 Bob 1.334 \u2014 1 van 2 akkoord"}
