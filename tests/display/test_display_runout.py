"""The dealer display over a simulated table's real state stream: in an all-in run-out each
live hand is drawn face up with its equity beside it, on every street until the showdown;
no equity is drawn while a seat is to act (S-8, issue 15; docs/display.md)."""

from __future__ import annotations

from display.fontmetrics import approx_measure
from display.layout import layout
from tests.controller.test_equity_stream import play


def test_the_display_draws_runout_hands_face_up_with_equity_and_nothing_while_a_seat_acts() -> None:
    stream, _ = play("holdem", 60, seed=21)
    runout_states = 0
    for view in stream.public:
        eq = view["all_in_equity"]
        if eq is None:  # the display draws equity only from the state's (layout tests)
            continue
        lay = layout(view, (1280, 720), measure=approx_measure)
        drawn = {s.seat: next((t.text for t in s.texts if t.role == "equity"), None) for s in lay.seats}
        runout_states += 1
        assert lay.timer is None and view["turn"] is None  # nobody to act
        for s in view["seats"]:
            if str(s["seat"]) in eq:
                assert drawn[s["seat"]] and drawn[s["seat"]].endswith("%"), (s, drawn)
                assert [c.card for c in lay.seat(s["seat"]).cards] == s["shown"], "not face up"
            else:
                assert drawn[s["seat"]] is None
    assert runout_states >= 20, runout_states
