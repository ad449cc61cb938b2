"""controller/views.py: the docs/state.md projections of the table state."""

from __future__ import annotations

import json
import re
from pathlib import Path

from controller.engine.table import events as ev
from controller.views import lights, private_view, public_view
from drivers.mqtt.codec import check_private, check_state, history_views

from .harness import Bench
from .test_session import NL, _bench

DOC = Path(__file__).resolve().parents[2] / "docs" / "state.md"


def _doc_examples() -> list[dict]:
    blocks = re.findall(r"```json\n(.*?)```", DOC.read_text(), re.S)
    return [json.loads(b) for b in blocks]


def test_public_view_has_every_field_of_docs_state_md():
    public_doc, private_doc = _doc_examples()[:2]
    b = _bench(1, 3, 4)
    b.start(1)
    view = public_view(b.state)
    json.dumps(view)
    assert set(view) == set(public_doc)
    assert set(view["stakes"]) == set(public_doc["stakes"])
    assert all(set(s) == set(public_doc["seats"][0]) for s in view["seats"])
    assert set(view["turn"]) == set(public_doc["turn"])
    priv = private_view(b.state, b.to_act)
    assert set(priv) == set(private_doc)
    assert set(priv["legal"]) == set(private_doc["legal"])
    assert check_state(view, NL.id) == b.state.seq
    check_private(priv, NL.id, b.to_act)


def test_public_view_during_a_hand_shows_turn_statuses_and_no_hole_cards():
    b = _bench(1, 3, 4, 6)
    b.do(ev.SatOut, seat=6)
    b.start(1)  # SB 3, BB 4; seat 1 first
    b.act(1, "raise", 40)
    b.act(3, "fold")
    view = public_view(b.state)
    seats = {s["seat"]: s for s in view["seats"]}
    assert seats[4]["status"] == "acting" and seats[3]["status"] == "folded"
    assert seats[6]["status"] == "sitting-out" and seats[2]["status"] == "empty"
    assert seats[1]["bet"] == 40 and seats[1]["stack"] == 960 and seats[1]["cards"] == 2
    assert seats[3]["cards"] == 0
    assert view["turn"]["seat"] == 4
    assert view["turn"]["deadline"] - view["turn"]["started"] == NL.action_seconds
    assert (view["button"], view["sb_seat"], view["bb_seat"]) == (1, 3, 4)
    text = json.dumps(view)
    for seat in (1, 4):
        for card in private_view(b.state, seat)["cards"]:
            assert card not in text


def test_pots_board_and_showdown_after_the_hand():
    b = _bench(1, 2)
    b.deal({1: ["As", "Ad"], 2: ["7c", "2d"]}, ["Kh", "9s", "4c", "3d", "Jh"])
    b.start(1)
    b.act(1, "call")
    b.act(2, "check")
    view = public_view(b.state)
    assert view["street"] == "flop" and view["board"] == ["Kh", "9s", "4c"]
    assert view["pots"] == [{"amount": 20, "eligible": [1, 2]}]
    b.act(2, "bet", 10)
    b.act(1, "call")
    b.act(2, "check")
    b.act(1, "check")
    b.act(2, "check")
    b.act(1, "check")
    view = public_view(b.state)
    assert view["street"] == "waiting" and view["turn"] is None
    assert view["showdown"][0]["winners"] == [1] and view["showdown"][0]["amount"] == 40
    assert view["board"] == ["Kh", "9s", "4c", "3d", "Jh"]
    assert private_view(b.state, 1) is None
    # the record feeds the tablets' history (P-4): shown cards only in public
    public, seated = history_views([b.hands[-1]])
    shown = {s["seat"]: s["cards"] for s in public["hands"][0]["seats"]}
    assert shown[1] == ["As", "Ad"]


def test_private_view_words_legal_and_preselect():
    b = _bench(1, 2, 3)
    b.deal({1: ["Qs", "Qd"], 2: ["7c", "2d"], 3: ["Ah", "Kh"]})
    b.start(1)
    me = private_view(b.state, 1)
    assert me["cards"] == ["Qs", "Qd"] and me["hand_words"] == "Pair of queens"
    assert me["to_act"] and me["legal"]["call"] == 10 and me["legal"]["check"] is False
    assert me["legal"]["raise"] == {"min": 20, "max": 1000}
    other = private_view(b.state, 3)
    assert other["hand_words"] == "High card, ace" and other["legal"] is None
    b.do(ev.PreselectSet, seat=3, choice="call_any")
    assert private_view(b.state, 3)["preselect"] == {"choice": "call_any", "amount": None}
    assert private_view(b.state, 3)["seq"] == b.state.seq


def test_waiting_and_missed_marks_in_the_public_view():
    b = _bench(1, 3, 5)
    b.start(1)  # SB 3, BB 5
    while b.state.hand is not None:
        b.act(b.to_act, "fold")
    b.do(ev.PlayerSatDown, seat=2, player="new", name="New")
    b.do(ev.BoughtIn, seat=2, amount=500)
    b.do(ev.SatOut, seat=3)
    seats = {s["seat"]: s for s in public_view(b.state)["seats"]}
    assert seats[2]["status"] == "waiting" and seats[3]["status"] == "sitting-out"
    b.start()  # BB 1; only 1 and 5 play: heads-up, 5 has the button (S-3); 3 owes nothing
    view = public_view(b.state)
    seats = {s["seat"]: s for s in view["seats"]}
    assert (view["button"], view["sb_seat"], view["bb_seat"]) == (5, 5, 1)
    assert seats[2]["status"] == "waiting" and seats[3]["missed"] == {"sb": False, "bb": False}


def test_lights_follow_the_turn_and_the_clock():
    b = _bench(1, 2, 3)
    b.do(ev.SatOut, seat=3)
    b.do(ev.SatIn, seat=3)
    b.start(1)
    t = b.state.timer
    start = lights(b.state, t.started)
    half = lights(b.state, t.started + NL.action_seconds / 2)
    late = lights(b.state, t.deadline + 5)
    seat = t.seat
    assert start[seat]["turn"] and start[seat]["fraction_left"] == 1.0
    assert half[seat]["fraction_left"] == 0.5 and late[seat]["fraction_left"] == 0.0
    others = [s for s in start if s != seat]
    assert all(not start[s]["turn"] and start[s]["fraction_left"] is None for s in others)
    b.do(ev.SatOut, seat=2)
    assert lights(b.state, b.t)[2]["sitting_out"]


def test_bench_is_a_plain_helper():
    assert isinstance(Bench(NL).state.seq, int)
