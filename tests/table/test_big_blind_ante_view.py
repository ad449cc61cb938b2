"""The public state's stakes carry the big-blind ante (issue 19, TDA RP-11: ``stakes.bba``,
docs/state.md): the display's and tablets' header stakes need it; the view had ``ante`` only."""

from __future__ import annotations

from controller.views import public_view

from .test_tournament_table import TOUR, seated


def test_the_public_stakes_carry_the_big_blind_ante() -> None:
    b = seated({1: 5000, 3: 5000}, TOUR.changed(big_blind_ante=200))
    assert public_view(b.state)["stakes"]["bba"] == 200 and public_view(b.state)["stakes"]["ante"] == 0
    assert public_view(seated({1: 5000, 3: 5000}, TOUR).state)["stakes"]["bba"] == 0
