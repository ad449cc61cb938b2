"""A seat that waits for the button to pass says so (issue 19, T-4; docs/tournament.md "At the
table"): :attr:`Plan.button_waits` (of ``Plan.waiting``, those on the button or between it and
the big blind, not those waiting for the big blind), kept in the hand's ``HandInfo`` (and its
JSON), and the public state's ``seats[].waits_for_button`` (docs/state.md): while a hand runs
the seats its plan left out, between hands those the next hand's plan would leave out."""

from __future__ import annotations

from controller.engine.table import events as ev
from controller.engine.table.blinds import Candidate, Rotation, plan_hand
from controller.engine.table.state import TableState
from controller.views import public_view

from .test_tournament_table import TOUR, fold_around, rotation, seated


def _waits(state: TableState) -> dict[int, tuple[str, bool]]:
    return {s["seat"]: (s["status"], s["waits_for_button"]) for s in public_view(state)["seats"]
            if s["status"] != "empty"}


def test_a_moved_player_between_the_button_and_the_big_blind_is_shown_waiting_for_the_button() -> None:
    """Seats 1, 3, 5, 7 of nine, hand 1 button 1; players arrive at 2 and 4 (moved in): hand 2
    (button 3, big blind 7) deals 2 in at once, 4 waits for the button (between the button and
    the big blind); hand 3 deals him in."""
    b = seated({1: 5000, 3: 5000, 5: 5000, 7: 5000}, TOUR.changed(seats=9))
    b.do(ev.HandStartRequested, button=1)
    assert not any(w for _, w in _waits(b.state).values())
    fold_around(b)
    for seat in (2, 4):
        b.do(ev.PlayerSatDown, seat=seat, player=f"p{seat}")
        b.do(ev.BoughtIn, seat=seat, amount=5000)
    # between hands: the next hand's plan says it already
    assert _waits(b.state)[4] == ("waiting", True) and _waits(b.state)[2] == ("waiting", False)
    b.do(ev.HandStartRequested)
    assert rotation(b) == (3, 5, 7) and b.state.info.button_waits == (4,)
    w = _waits(b.state)
    assert w[4] == ("waiting", True) and not any(v[1] for s, v in w.items() if s != 4), w
    # the state's JSON keeps it (a restart mid-hand shows the same)
    again = TableState.from_json(b.state.to_json())
    assert again.info.button_waits == (4,) and _waits(again)[4] == ("waiting", True)
    fold_around(b)
    b.do(ev.HandStartRequested)
    assert 4 in b.state.info.dealt and b.state.info.button_waits == ()
    assert not any(w for _, w in _waits(b.state).values())


def test_an_older_states_json_without_it_reads_as_nobody_waiting() -> None:
    b = seated({1: 5000, 3: 5000}, TOUR)
    b.do(ev.HandStartRequested, button=1)
    data = b.state.to_json()
    del data["info"]["button_waits"]
    assert TableState.from_json(data).info.button_waits == ()


def test_plan_button_waits_is_the_button_zone_not_the_big_blind_wait() -> None:
    players = {s: Candidate(s, new=False) for s in (1, 3, 4, 5)}
    players[2] = Candidate(2, new=True, post=True)  # seat 2 changed hands: on the dead button
    plan = plan_hand(seats=9, players=players, sitting_out=(), last=Rotation(1, 2, 3), small_blind=1, big_blind=2)
    assert plan.button == 2 and plan.waiting == (2,) and plan.button_waits == (2,)
    players = {s: Candidate(s, new=False) for s in (1, 2, 3)}
    players[5] = Candidate(5, new=False, missed_sb=True, missed_bb=True)  # waits for the big blind (T-6)
    plan = plan_hand(seats=5, players=players, sitting_out=(), last=Rotation(4, 1, 2), small_blind=1, big_blind=2)
    assert plan.waiting == (5,) and plan.button_waits == ()
