"""The tournament on the dealer display (issue 19): the strip under the header (level,
time left, next level, players left, average stack, prize pool) and each seat's stack in
big blinds, laid out at every display size and table size with the layout's promises kept
(on screen, no overlaps, every text fits), with pygame's fonts too; the clock counting
down from the published ``at``; Dutch words."""

from __future__ import annotations

import pygame
import pytest

import display_states as S
from display.fontmetrics import approx_measure
from display.i18n import language
from display.layout import layout
from display.tournament import CLOCK_ROLE, bb_text, time_left
from display_checks import check_invariants

SIZES = [(800, 480), (1024, 600), (1024, 768), (1280, 720), (1280, 800), (1366, 768), (1920, 1080)]


def with_tournament(state: dict, *, on_break: bool = False, last: bool = False) -> dict:
    seats = [s["seat"] for s in state["seats"] if s.get("status") != "empty"]
    state["tournament_view"] = {
        "level": {"number": 12, "small_blind": 10_000, "big_blind": 20_000, "ante": 0,
                  "big_blind_ante": 20_000},
        "next_level": None if last else {"number": 13, "small_blind": 15_000, "big_blind": 30_000, "ante": 0,
                                         "big_blind_ante": 30_000},
        "seconds_left": None if last else 1_199, "running": True, "at": S.T0, "on_break": on_break,
        "players_left": 118, "entries": 1_024, "average_stack": 1_388_135, "prize_pool": 1_234_560,
        "finished": False, "seats_bb": {str(n): 1_234 + n * 3 for n in seats},
    }
    return state


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("n", range(2, 11))
def test_tournament_strip_fits_every_table_and_screen(n: int, size: tuple[int, int]) -> None:
    lay = layout(with_tournament(S.with_seats(n)), size)
    check_invariants(lay, approx_measure)
    assert lay.tournament is not None and lay.tournament.y == lay.header.bottom
    for s in lay.seats:
        assert not s.box.overlaps(lay.tournament)
        assert lay.tournament.inside(lay.screen)
    texts = {t.role: t.text for t in lay.tournament_texts}
    assert texts[CLOCK_ROLE] == "19:59"
    if size[0] >= 1280:  # nothing cut on the bigger screens
        assert texts["tournament-level"] == "Level 12 \u00b7 10,000/20,000 BB ante 20,000"
        assert texts["tournament-next"] == "Next 15,000/30,000 BB ante 30,000"
        assert texts["tournament-numbers"] == "Players 118/1,024 \u00b7 Avg 1,388,135 \u00b7 Pool 1,234,560"


@pytest.mark.parametrize("size", [(800, 480), (1280, 720), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("builder", [S.preflop_blinds, S.three_way_all_in, S.fault_banner, S.ten_seats,
                                     S.draw_game])
def test_tournament_layout_with_pygame_fonts(builder, size, renderer) -> None:
    lay = layout(with_tournament(builder()), size, measure=renderer.measure)
    check_invariants(lay, renderer.measure)
    stacks = [t.text for s in lay.seats for t in s.texts if t.role == "stack"]
    assert stacks and all(" BB" in t or "\u2026" in t for t in stacks)


def test_each_seat_shows_its_stack_in_big_blinds() -> None:
    state = with_tournament(S.with_seats(6, long_names=False))
    lay = layout(state, (1920, 1080))
    for s in lay.seats:
        (stack,) = [t.text for t in s.texts if t.role == "stack"]
        tenths = state["tournament_view"]["seats_bb"][str(s.seat)]
        assert stack.endswith(f"\u00b7 {bb_text(tenths)}"), stack


def test_a_break_and_the_last_level() -> None:
    lay = layout(with_tournament(S.with_seats(4), on_break=True), (1280, 720))
    texts = {t.role: t.text for t in lay.tournament_texts}
    assert texts["tournament-level"] == "BREAK \u00b7 Level 12 next"
    assert texts["tournament-next"].startswith("Next 10,000/20,000")  # the level after the break
    lay = layout(with_tournament(S.with_seats(4), last=True), (1280, 720))
    texts = {t.role: t.text for t in lay.tournament_texts}
    assert texts[CLOCK_ROLE] == "--:--" and texts["tournament-next"] == "Last level"


def test_a_cash_table_has_no_strip() -> None:
    lay = layout(S.with_seats(6), (1280, 720))
    assert lay.tournament is None and lay.tournament_texts == ()


def test_the_clock_counts_down_from_the_published_moment_while_it_runs() -> None:
    tv = with_tournament(S.with_seats(2))["tournament_view"]
    assert time_left(tv, S.T0) == "19:59"
    assert time_left(tv, S.T0 + 59.5) == "19:00"
    assert time_left(tv, S.T0 + 5_000) == "0:00"
    tv["running"] = False  # paused by the director: the time left stands
    assert time_left(tv, S.T0 + 600) == "19:59"


def test_the_renderer_repaints_the_strip_only_when_the_time_left_changes(renderer) -> None:
    surface = pygame.Surface((1280, 720))
    lay = layout(with_tournament(S.with_seats(6)), (1280, 720), measure=renderer.measure)
    renderer.draw(surface, lay, S.T0)
    assert renderer.draw_tournament_clock(surface, lay, S.T0 + 0.5) is None  # still 19:59
    assert renderer.draw_tournament_clock(surface, lay, S.T0 + 1.5) == lay.tournament
    assert renderer.last_clock == "19:58"


def test_dutch_words_on_the_strip() -> None:
    with language("nl"):
        lay = layout(with_tournament(S.with_seats(4)), (1920, 1080))
        texts = {t.role: t.text for t in lay.tournament_texts}
        assert texts["tournament-level"] == "Niveau 12 \u00b7 10.000/20.000 BB-ante 20.000"
        assert bb_text(125) == "12,5 BB" and bb_text(1_230) == "123 BB"


@pytest.mark.parametrize("lang, word", [("en", "OUT \u2014 5th"), ("nl", "UIT \u2014 5e")])
def test_a_busted_seat_says_out_and_its_place_until_someone_takes_it(lang: str, word: str) -> None:
    """Issue 19 (a newcomer's finding): the dealer display called a busted seat "OPEN"."""
    state = with_tournament(S.with_seats(6))
    state["seats"][4] = {"seat": 5, "name": "", "stack": 0, "bet": 0, "status": "empty", "missed": {},
                         "cards": 0}
    state["seats"][5] = {"seat": 6, "name": "", "stack": 0, "bet": 0, "status": "empty", "missed": {},
                         "cards": 0}
    state["tournament_view"]["out"] = {"5": {"name": "Player 5", "place": 5, "tied_to": 5, "prize": 0}}
    with language(lang):
        lay = layout(state, (1280, 720))
        check_invariants(lay, approx_measure)
    info = {n: [t.text for t in lay.seat(n).texts if t.role == "info"] for n in (5, 6)}
    assert info[5] == [word]
    assert info[6] != [word] and info[6] and "5" not in info[6][0]  # a seat nobody busted from stays open


@pytest.mark.parametrize("lang, word", [("en", "BUSTED \u2014 REBUY?"), ("nl", "ERUIT \u2014 REBUY?")])
def test_a_seat_kept_for_a_rebuy_at_the_bust_says_busted_rebuy(lang: str, word: str) -> None:
    """Issue 19 TFIX 7: the seat of a player busted in the rebuy period is kept, unplaced,
    until he rebuys or declines (the view's ``rebuy_pending``): it shows his name and asks."""
    state = with_tournament(S.with_seats(6))
    state["seats"][4] = {"seat": 5, "name": "", "stack": 0, "bet": 0, "status": "empty", "missed": {},
                         "cards": 0}
    state["tournament_view"]["rebuy_pending"] = {"5": {"name": "Player 5"}}
    with language(lang):
        lay = layout(state, (1280, 720))
        check_invariants(lay, approx_measure)
    texts = {t.role: t.text for t in lay.seat(5).texts}
    assert texts["info"] == word and texts["name"] == "Player 5"


def test_places_in_words() -> None:
    from display.tournament import ordinal

    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"]


def test_the_strip_says_paused_while_the_director_has_stopped_the_clock() -> None:
    """Issue 19: the director's ``livetable floor clock-pause`` shows on the dealer display."""
    from display.tournament import level_text

    tv = with_tournament(S.with_seats(4))["tournament_view"]
    assert level_text(tv) == "Level 12 \u00b7 10,000/20,000 BB ante 20,000"
    tv["running"] = False
    assert level_text(tv) == "Level 12 \u00b7 10,000/20,000 BB ante 20,000 \u00b7 PAUSED"
    with language("nl"):
        assert level_text(tv).endswith("GEPAUZEERD")
    lay = layout(with_tournament(S.with_seats(10)) | {"tournament_view": tv}, (800, 480))
    check_invariants(lay, approx_measure)


def test_tda_chip_race_the_strip_says_who_won_a_chip_at_the_colour_up() -> None:
    from display.tournament import numbers_text

    tv = with_tournament(S.with_seats(6), on_break=True)["tournament_view"]
    tv["chip_race"] = {"removed": [25], "chip": 100, "seats": {"5": {"won": True}, "2": {"won": True},
                                                              "4": {"won": False}}}
    assert numbers_text(tv).endswith("\u00b7 CHIP RACE: SEATS 2, 5 WIN A 100")
    lay = layout(with_tournament(S.with_seats(6), on_break=True) | {"tournament_view": tv}, (1280, 720))
    check_invariants(lay, approx_measure)
