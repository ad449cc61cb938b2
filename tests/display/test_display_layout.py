"""The pure layout (issue 8): boxes on screen, seats apart, every text fits, seats clockwise."""

from __future__ import annotations

import math
import random

import pytest

import display_states as S
from display.fontmetrics import approx_measure
from display.layout import MIN_FONT, LayoutError, fit_size, layout
from display.state import StateError, check_state
from display_checks import check_invariants

SIZES = [(800, 480), (1024, 600), (1024, 768), (1280, 720), (1280, 800), (1366, 768), (1920, 1080)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("n", range(2, 11))
def test_layout_fits_every_table_and_screen(n: int, size: tuple[int, int]) -> None:
    state = S.with_seats(n)
    check_invariants(layout(state, size), approx_measure)
    state["fault"] = {"kind": "board-mismatch", "message": "The camera reads 7h, the shuffler dealt 7d " * 2,
                      "since": S.T0}
    state["paused"] = True
    lay = layout(state, size, notices=("TABLE OFFLINE",))
    assert lay.banner is not None and "BOARD MISMATCH" in lay.banner_texts[0].text
    check_invariants(lay, approx_measure)


@pytest.mark.parametrize("size", [(800, 480), (1280, 720), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("builder", [S.preflop_blinds, S.three_way_all_in, S.split_showdown,
                                     S.fault_banner, S.ten_seats, S.draw_game, S.held_seats])
def test_layout_with_pygame_fonts(builder, size, renderer) -> None:
    """What the display really does: measure with pygame's font, then everything must fit."""
    check_invariants(layout(builder(), size, measure=renderer.measure), renderer.measure)


def test_approx_measure_never_under_measures_the_real_font(renderer) -> None:
    rng = random.Random(8)
    alphabet = "AaBbWwMmiIl1.,:;0123456789 -\u2014\u2026\u00b7'JjQqKkTtÉéüß%/+"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40)))
        size = rng.randint(MIN_FONT, 160)
        aw, ah = approx_measure(text, size)
        rw, rh = renderer.measure(text, size)
        assert aw >= rw and ah >= rh, f"{text!r} at {size}: approx {aw}x{ah} < real {rw}x{rh}"


def test_approx_measure_rejects_bad_sizes() -> None:
    with pytest.raises(ValueError):
        approx_measure("Ann", 0)


@pytest.mark.parametrize("n", range(2, 11))
def test_seats_go_clockwise_from_the_dealers_left(n: int) -> None:
    lay = layout(S.with_seats(n), (1280, 720))
    centre = lambda b: (b.x + b.w / 2, b.y + b.h / 2)  # noqa: E731
    first, last = lay.seat(1).box, lay.seat(n).box
    assert centre(first)[0] < 640 < centre(last)[0], "seat 1 on the left, the last seat on the right"
    assert first.y == last.y and first.w == last.w, "the ring is symmetric about the dealer"
    left = [s.box for s in lay.seats if centre(s.box)[0] < lay.center.x]
    assert first.y == max(b.y for b in left), "seat 1 is the lowest seat of the left side"
    # clockwise from the dealer (bottom): the angle from "down", turning through left, top,
    # right, keeps increasing with the seat number (screen y points down)
    cx, cy = centre(lay.center)
    angles = [math.atan2(-(centre(s.box)[0] - cx), centre(s.box)[1] - cy) % (2 * math.pi)
              for s in lay.seats]
    assert angles == sorted(angles), f"seats not clockwise: {angles}"


def test_seat_positions_do_not_depend_on_names_or_chips() -> None:
    a = layout(S.with_seats(9), (1024, 600))
    b = layout(S.with_seats(9, long_names=False), (1024, 600))
    assert [s.box for s in a.seats] == [s.box for s in b.seats]


def test_long_names_are_cut_with_an_ellipsis_not_shrunk_to_nothing() -> None:
    state = S.with_seats(10)
    state["seats"][0]["name"] = "W" * 60
    lay = layout(state, (800, 480))
    name = next(t for t in lay.seat(1).texts if t.role == "name")
    assert name.text.endswith("\u2026") and name.text.startswith("WW")
    other = next(t for t in lay.seat(2).texts if t.role == "name")
    assert other.size == name.size, "one font size for all names"


def test_header_always_shows_game_limit_stakes_and_hand() -> None:
    for size in ((800, 480), (1920, 1080)):
        lay = layout(S.draw_game(), size)
        texts = [t.text for t in lay.header_texts]
        assert "FL 5-Card Draw 100/200" in texts
        assert any("Hand 57" in t for t in texts)
        state = S.preflop_blinds()
        state["stakes"]["ante"] = 25
        assert "NL Hold'em 50/100 ante 25" in [t.text for t in layout(state, size).header_texts]


def test_seat_marks_button_blinds_status_and_missed_blind() -> None:
    lay = layout(S.preflop_blinds(), (1280, 720))
    assert [m.label for m in lay.seat(3).markers] == ["D"]
    assert [m.label for m in lay.seat(4).markers] == ["SB"]
    assert [m.label for m in lay.seat(5).markers] == ["BB"]
    info = {s.seat: next((t.text for t in s.texts if t.role == "info"), "") for s in lay.seats}
    assert info[4] == "BET 50" and info[5] == "BET 100"
    assert info[2] == "FOLDED" and info[8] == "OPEN" and info[9] == "WAITING"
    assert info[7] == "SAT OUT \u00b7 MISSED BB"
    assert lay.seat(6).acting and not lay.seat(5).acting
    assert lay.timer is not None and lay.timer.seat == 6 and "Farouk" in lay.timer.label.text
    assert [t.text for t in lay.pot_texts] == ["Total: 150"]
    assert [c.card for c in lay.board_cards] == [""] * 5, "five empty board places before the flop"


def test_all_in_shows_cards_equity_and_every_pot() -> None:
    lay = layout(S.three_way_all_in(), (1280, 720))
    assert [t.text for t in lay.pot_texts] == ["Main pot: 4,050", "Side pot 1: 6,000", "Side pot 2: 6,000"]
    eq = {s.seat: next((t.text for t in s.texts if t.role == "equity"), None) for s in lay.seats}
    assert eq == {1: "46%", 2: "25%", 3: "18%", 4: "10%", 5: None, 6: None}
    assert [c.card for c in lay.seat(1).cards] == ["As", "Ah"]
    assert lay.seat(5).cards == (), "a folded seat shows no cards"
    assert [c.card for c in lay.board_cards] == ["Jh", "8c", "3d", "", ""]
    assert lay.timer is None


def test_showdown_names_winners_shares_and_hands() -> None:
    lay = layout(S.split_showdown(), (1280, 720))
    texts = [t.text for t in lay.pot_texts]
    assert texts == ["Main pot 2,400 split: Ann 1,200, Bob 1,200", "Straight, ace high",
                     "Side pot 1 800: Bob wins 800", "Straight, ace high"]
    assert lay.seat(1).winner and lay.seat(2).winner and not lay.seat(3).winner
    wins = {s.seat: next(t.text for t in s.texts if t.role == "info") for s in lay.seats if s.winner}
    assert wins == {1: "WINS 1,200", 2: "WINS 2,000"}


def test_draw_game_has_no_board_and_shows_draws() -> None:
    lay = layout(S.draw_game(), (1024, 600))
    assert lay.board is None and lay.board_cards == ()
    side = {s.seat: next((t.text for t in s.texts if t.role == "equity"), None) for s in lay.seats}
    assert side[1] == "DREW 2" and side[2] == "PAT" and side[3] is None
    assert len(lay.seat(1).cards) == 5


def test_fit_size_is_the_largest_that_fits() -> None:
    size = fit_size(["Main pot 4,050"], 300, 60, approx_measure)
    assert approx_measure("Main pot 4,050", size)[0] <= 300
    assert approx_measure("Main pot 4,050", size + 1)[0] > 300 or approx_measure("x", size + 1)[1] > 60


def test_layout_refuses_tiny_screens_and_eleven_seats() -> None:
    with pytest.raises(LayoutError):
        layout(S.preflop_blinds(), (200, 100))
    state = S.preflop_blinds()
    state["seats"].append(S.seat(11))
    with pytest.raises(LayoutError):
        layout(state, (1280, 720))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_many_pots_and_a_three_pot_showdown_fit(size: tuple[int, int]) -> None:
    state = S.three_way_all_in()
    state["pots"] += [{"amount": 4_410, "eligible": [3, 4]}, {"amount": 999_999, "eligible": [4]}]
    state["seats"][3]["bet"] = 500
    lay = layout(state, size)
    check_invariants(lay, approx_measure)
    total = sum(p["amount"] for p in state["pots"]) + 500
    assert [t.text for t in lay.pot_texts][-1] == f"Total: {total:,}"
    sizes = {t.size for t in lay.pot_texts}
    assert len(sizes) == 1 and min(sizes) >= 14, "six pot lines, one size, readable (two columns if bigger)"
    state = S.split_showdown()
    state["showdown"].append({"pot": 2, "amount": 300, "winners": [3], "shares": {"3": 300},
                              "hand": "Three of a kind, kings"})
    lay = layout(state, size)
    check_invariants(lay, approx_measure)
    texts = [t.text for t in lay.pot_texts]
    assert texts[4:] == ["Side pot 2 300: Carla wins 300", "Three of a kind, kings"]
    assert all(not t.endswith("\u2026") for t in texts), "showdown lines are not cut"
    info = next(t for t in lay.seat(3).texts if t.role == "info")
    assert info.text == "WINS 300"


def test_a_paused_table_shows_no_running_timer() -> None:
    state = S.preflop_blinds()
    assert layout(state, (1280, 720)).timer is not None
    state["paused"] = True
    lay = layout(state, (1280, 720))
    assert lay.timer is None and lay.banner_texts[0].text == "TABLE PAUSED"
    assert lay.seat(6).acting, "whose turn it is still shows"


def test_p2_a_show_or_muck_turn_says_so_and_a_betting_turn_says_to_act() -> None:
    state = S.preflop_blinds()
    assert layout(state, (1280, 720)).timer.label.text.endswith("to act")
    state.update(street="showdown", pots=[{"amount": 600, "eligible": [4, 6]}],
                 turn={"seat": 6, "started": S.T0, "deadline": S.T0 + 10, "seconds": 10, "showdown": True})
    lay = layout(state, (1280, 720))
    assert lay.timer is not None and lay.timer.label.text.endswith("to show or muck")
    assert lay.seat(6).acting
    check_invariants(lay, approx_measure)


def test_a_buy_in_waiting_for_the_dealer_is_shown_on_its_seat() -> None:
    """T-3, tablet_join = confirm: the seat says how much the dealer's confirm brings in;
    a bad value is refused by the state check, not drawn."""
    state = S.preflop_blinds()
    seat9 = next(s for s in state["seats"] if s["seat"] == 9)
    seat9.update(status="waiting", stack=0, buy_in_pending=10000)
    lay = layout(state, (1280, 720))
    info = next(t.text for t in lay.seat(9).texts if t.role == "info")
    assert info == "BUY-IN 10,000 TO CONFIRM"
    seat9["buy_in_pending"] = "lots"
    with pytest.raises(StateError, match="buy_in_pending"):
        check_state(state)


def test_pots_read_in_order_row_by_row_with_their_chips_apart_from_their_number() -> None:
    """Issue 20: in two columns "Side pot 2" came before "Side pot 1" (read row by row), and
    "Side pot 2 3,538" read as 23,538."""
    state = S.three_way_all_in()
    state["pots"] = [{"amount": 50_100, "eligible": [1, 2, 3, 4]}, {"amount": 12_000, "eligible": [1, 2, 3]},
                     {"amount": 3_538, "eligible": [1, 2]}]
    state["seats"][0]["bet"] = 500
    for size in ((800, 480), (1280, 720), (1920, 1080)):
        lay = layout(state, size)
        check_invariants(lay, approx_measure)
        order = sorted(lay.pot_texts, key=lambda t: (t.box.y, t.box.x))  # as a reader reads them
        assert [t.text for t in order] == ["Main pot: 50,100", "Side pot 1: 12,000", "Side pot 2: 3,538",
                                           "Total: 66,138"], size


def test_showdown_says_what_each_winner_takes_after_the_rake_and_the_rake() -> None:
    """Issue 20: the header said WAITING, the centre "Main pot 50,100: Player 4" while the seat
    said WINS 49,800, and the rake was never shown."""
    state = S.split_showdown()
    state["street"] = "waiting"  # the hand is over: what the controller publishes with the awards
    state["rake"] = 300
    state["showdown"] = [{"pot": 1, "amount": 800, "winners": [2], "shares": {"2": 800}, "hand": "Flush"},
                         {"pot": 0, "amount": 50_100, "winners": [1], "shares": {"1": 49_800},
                          "hand": "Straight, ace high"}]
    lay = layout(state, (1280, 720))
    check_invariants(lay, approx_measure)
    texts = [t.text for t in lay.pot_texts]
    assert texts == ["Main pot 50,100: Ann wins 49,800", "Straight, ace high", "Side pot 1 800: Bob wins 800",
                     "Flush", "Rake 300"]
    assert next(t.text for t in lay.seat(1).texts if t.role == "info") == "WINS 49,800"
    assert lay.header_texts[2].text == "SHOWDOWN"
    state["showdown"] = [{"pot": 0, "amount": 150, "winners": [1], "shares": {"1": 150}, "hand": None}]
    assert layout(state, (1280, 720)).header_texts[2].text == "HAND OVER"  # won uncontested
    # the controller says which pot the rake came from: shown there, no total line
    state["showdown"] = [{"pot": 0, "amount": 50_100, "winners": [1], "shares": {"1": 49_800}, "rake": 300,
                          "hand": "Straight, ace high"},
                         {"pot": 1, "amount": 800, "winners": [2], "shares": {"2": 800}, "rake": 0, "hand": "Flush"}]
    texts = [t.text for t in layout(state, (1280, 720)).pot_texts]
    assert texts == ["Main pot 50,100: Ann wins 49,800 \u00b7 rake 300", "Straight, ace high",
                     "Side pot 1 800: Bob wins 800", "Flush"]


def test_a_pause_fault_names_the_pause_once() -> None:
    """Issue 20: the banner said "FAULT: PAUSED · TABLE PAUSED"."""
    state = S.preflop_blinds()
    state["paused"] = True
    state["fault"] = {"kind": "paused", "message": "Paused by the floor", "since": 1.0}
    lay = layout(state, (1280, 720))
    assert [t.text for t in lay.banner_texts] == ["TABLE PAUSED", "Paused by the floor"]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_held_seat_shows_for_whom_and_how_long(size: tuple[int, int], renderer) -> None:
    """Issue 18: a free seat the room holds for a called player reads "HELD 2:41" with the
    player's name instead of OPEN, until the hold's time; then it is open again."""
    state = check_state(S.held_seats())
    lay = layout(state, size, measure=renderer.measure, now=S.T0 + 20)
    check_invariants(lay, renderer.measure)
    texts = {v.seat: {t.role: t.text for t in v.texts} for v in lay.seats}
    assert [v.status for v in lay.seats if v.seat in (2, 8, 9)] == ["held", "held", "empty"]
    assert texts[8]["info"] == "HELD 2:21" and texts[8]["name"].startswith("Max")
    assert texts[2]["info"] == "HELD 0:39" and texts[2]["name"] == "Bo"
    assert texts[9]["info"] == "OPEN"
    assert lay.holds_until == S.T0 + 59  # the display draws the screen again each second
    later = layout(state, size, measure=renderer.measure, now=S.T0 + 59)  # seat 2's hold is over
    assert [v.status for v in later.seats if v.seat in (2, 8)] == ["empty", "held"]
