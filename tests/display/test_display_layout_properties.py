"""Any state the feed accepts lays out within the screen with every text fitting (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from display.app import render_state
from display.fontmetrics import approx_measure
from display.layout import layout
from display.state import SEAT_STATUSES, check_state
from display_checks import check_invariants

CARDS = [r + s for r in "23456789TJQKA" for s in "cdhs"]
chips = st.integers(min_value=0, max_value=10**10)
names = st.one_of(st.none(), st.text(min_size=0, max_size=40),
                  st.sampled_from(["Ann", "W" * 30, "José Ñúñez", "李小龍", "O'Brien-Smythe"]))


@st.composite
def states(draw) -> dict:
    n = draw(st.integers(min_value=2, max_value=10))
    seats = []
    for i in range(1, n + 1):
        if draw(st.booleans()) and i > 2:
            continue  # seats missing from the list are drawn empty
        shown = draw(st.one_of(st.none(), st.lists(st.sampled_from(CARDS + ["??", "Xx"]), max_size=5)))
        seats.append({
            "seat": i, "name": draw(names), "stack": draw(chips), "bet": draw(chips),
            "status": draw(st.sampled_from(SEAT_STATUSES + ("weird",))),
            "missed": {"sb": draw(st.booleans()), "bb": draw(st.booleans())},
            "cards": draw(st.integers(0, 7)), "shown": shown,
            "drew": draw(st.one_of(st.none(), st.integers(0, 5))), "posted_dead": draw(st.integers(0, 500)),
        })
    numbers = [s["seat"] for s in seats]
    seat_no = st.sampled_from(numbers)
    pots = draw(st.lists(st.fixed_dictionaries({"amount": chips, "eligible": st.just(numbers)}), max_size=7))
    showdown = draw(st.one_of(st.none(), st.lists(st.fixed_dictionaries({
        "pot": st.integers(0, 6), "amount": chips, "winners": st.lists(seat_no, min_size=1, max_size=4, unique=True),
        "hand": st.one_of(st.just(""), st.text(max_size=60), st.just("Full house, kings over fives")),
    }), max_size=6)))
    if showdown:
        for entry in showdown:
            entry["shares"] = {str(w): entry["amount"] // len(entry["winners"]) for w in entry["winners"]}
    turn = draw(st.one_of(st.none(), st.fixed_dictionaries({
        "seat": st.integers(1, 10), "started": st.just(1e9), "deadline": st.sampled_from([1e9, 1e9 + 30, 1e9 + 999]),
        "seconds": st.just(30)})))
    return {
        "schema": 1, "table": "t1", "name": draw(st.one_of(st.none(), st.text(max_size=50))), "seq": 1,
        "hand": draw(st.one_of(st.none(), st.integers(0, 10**9))),
        "game": draw(st.sampled_from(["holdem", "omaha", "draw", "stud"])),
        "limit": draw(st.sampled_from(["no-limit", "pot-limit", "fixed-limit"])),
        "stakes": {"sb": draw(chips), "bb": draw(chips), "ante": draw(st.integers(0, 10**6)),
                   "small_bet": draw(st.one_of(st.none(), chips)), "big_bet": draw(st.one_of(st.none(), chips))},
        "max_seats": n, "street": draw(st.sampled_from(["waiting", "preflop", "flop", "river", "showdown", "odd"])),
        "button": draw(st.one_of(st.none(), seat_no)), "sb_seat": draw(st.one_of(st.none(), seat_no)),
        "bb_seat": draw(st.one_of(st.none(), seat_no)),
        "board": draw(st.lists(st.sampled_from(CARDS), max_size=6)), "pots": pots, "seats": seats,
        "turn": turn, "showdown": showdown,
        "all_in_equity": draw(st.one_of(st.none(), st.dictionaries(st.sampled_from([str(x) for x in numbers]),
                                                                   st.floats(0, 1)))),
        "fault": draw(st.one_of(st.none(), st.fixed_dictionaries({
            "kind": st.sampled_from(["jam", "board-mismatch", "new-kind"]), "message": st.text(max_size=200),
            "since": st.just(1e9)}))),
        "paused": draw(st.booleans()), "rake": 0,
    }


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(state=states(), size=st.sampled_from([(800, 480), (1024, 600), (1280, 720), (1920, 1080)]),
       offline=st.booleans())
def test_any_accepted_state_lays_out_cleanly(state: dict, size: tuple[int, int], offline: bool) -> None:
    check_state(state)
    lay = layout(state, size, notices=("TABLE OFFLINE",) if offline else ())
    check_invariants(lay, approx_measure)


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(state=states(), size=st.sampled_from([(800, 480), (1280, 720)]))
def test_any_accepted_state_renders_with_pygame_fonts(state: dict, size: tuple[int, int], renderer) -> None:
    """What the live display does: pygame measures, pygame draws (control characters and all)."""
    check_state(state)
    surface, lay = render_state(state, size, now=1e9 + 10, renderer=renderer)
    assert surface.get_size() == size
    check_invariants(lay, renderer.measure)


def test_control_characters_never_reach_pygame(renderer) -> None:
    state = {"schema": 1, "seq": 1, "max_seats": 2, "name": "Table\x00 1\n",
             "seats": [{"seat": 1, "name": "A\x00nn\tB", "stack": 5, "bet": 0, "status": "active"}],
             "fault": {"kind": "jam", "message": "line one\nline two\x07"}}
    surface, lay = render_state(check_state(state), (800, 480), now=0.0, renderer=renderer)
    texts = [t.text for t in lay.texts()]
    assert "Ann B" in texts, texts
    assert "line one line two" in texts
    assert all("\x00" not in t and "\n" not in t for t in texts)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=10,
)


@st.composite
def mutated(draw) -> dict:
    """A good state with one field, anywhere in it, replaced by any JSON value."""
    state = draw(states())
    node, path = state, []
    while True:
        keys = list(node.keys()) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            break
        key = draw(st.sampled_from(keys))
        path.append(key)
        if isinstance(node[key], (dict, list)) and node[key] and draw(st.booleans()):
            node = node[key]
            continue
        node[key] = draw(json_values)
        break
    return state


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(state=mutated())
def test_whatever_the_feed_accepts_can_be_laid_out(state: dict) -> None:
    """The contract between feed and screen: refuse a payload (StateError) or draw it."""
    try:
        check_state(state)
    except ValueError:
        return
    check_invariants(layout(state, (1024, 600)), approx_measure)
