"""The draw for the button by cards (issue 19; controller/tournament/button.py).

WSOP Tournament Rule 85 (2026) "There will be a draw for the button with 3, 2 and 1 table(s)
remaining"; card rooms start every tournament table the same way ("the starting position of
the button is determined by dealing for the high card", absent players dealt in). One card
face up to each player from seat 1 upwards; the highest card wins; equal ranks by suit,
spades, hearts, diamonds, clubs: the chip race's order (``chiprace.card_order``). The TDA
Rules draw the seats (Rule 7) and leave the button to the house."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from controller.journal import payload_of

from controller.tournament.button import ButtonDraw, button_draw, new_deck
from controller.tournament.errors import TournamentError
from controller.tournament.table import button_seat_words


def test_wsop_85_button_drawn_by_cards_highest_card_wins_dealt_from_seat_1_upwards() -> None:
    # the seats in any order: the cards go from the lowest seat up, off the top of the deck
    d = button_draw([7, 1, 3], ["7h", "Ks", "2c", "Ad"])
    assert d.cards == {1: "7h", 3: "Ks", 7: "2c"} and list(d.cards) == [1, 3, 7]
    assert d.button == 3
    assert d.words() == "seat 1 7h, seat 3 Ks, seat 7 2c — button seat 3 (Ks)"


def test_wsop_85_button_draw_a_tie_of_rank_is_broken_by_suit_spades_hearts_diamonds_clubs() -> None:
    assert button_draw([1, 2], ["Ah", "As"]).button == 2  # spades over hearts
    assert button_draw([1, 2, 5], ["Kc", "Kd", "Qs"]).button == 2  # diamonds over clubs; rank before suit
    assert button_draw([2, 4, 6, 8], ["9c", "9d", "9s", "9h"]).button == 6
    assert button_draw([4, 6], ["Th", "Td"]).button == 4  # hearts over diamonds


def test_wsop_85_button_draw_from_a_seeded_shuffle_is_the_same_again_and_deals_distinct_cards() -> None:
    a = button_draw(range(1, 10), random.Random("seed-1"))
    b = button_draw(range(1, 10), random.Random("seed-1"))
    assert a == b and len(set(a.cards.values())) == 9
    assert set(a.cards.values()) <= set(new_deck()) and len(set(new_deck())) == 52
    draws = {button_draw(range(1, 10), random.Random(f"seed-{n}")).button for n in range(40)}
    assert len(draws) > 3  # not always the same seat


def test_wsop_85_button_draw_journalled_reads_back_and_a_forged_button_is_refused() -> None:
    d = button_draw([2, 5, 8], ["3d", "Jc", "Jh"])
    assert d.to_json() == {"cards": {"2": "3d", "5": "Jc", "8": "Jh"}, "button": 8}
    assert ButtonDraw.from_json(d.to_json()) == d
    with pytest.raises(TournamentError, match="not the highest"):
        ButtonDraw.from_json({"cards": {"2": "3d", "5": "Jc", "8": "Jh"}, "button": 5})
    with pytest.raises(TournamentError):
        ButtonDraw.from_json({"cards": "no"})


@pytest.mark.parametrize("seats, deck", [
    ([], ["As"]),  # nobody to draw
    ([1, 1], ["As", "Kd"]),  # a seat twice
    ([0, 2], ["As", "Kd"]),  # no seat 0
    ([1, 2, 3], ["As", "Kd"]),  # too few cards
    ([1, 2], ["As", "As"]),  # a card twice
    ([1, 2], ["As", "Xx"]),  # no card
])
def test_wsop_85_button_draw_refuses_what_no_dealer_could_deal(seats, deck) -> None:
    with pytest.raises(TournamentError):
        button_draw(seats, deck)


def test_an_absent_player_keeps_the_button_drawn_for_him_an_empty_seat_is_said() -> None:
    """Absent players are dealt in and blinded in a tournament (TDA): the drawn seat keeps the
    button when its player is away; a seat with no player with chips cannot have it, and the
    table's log says where it goes instead (its lowest seat with chips)."""
    away = SimpleNamespace(player="p3", stack=5000, sitting_out=True)
    here = SimpleNamespace(player="p1", stack=5000, sitting_out=False)
    broke = SimpleNamespace(player="p2", stack=0, sitting_out=True)
    seats = [here, broke, away, None]
    kept, words = button_seat_words(seats, 3)
    assert kept and "away and keeps the button" in words
    assert button_seat_words(seats, 1) == (True, "the button is at seat 1 (p1), as drawn")
    for seat in (2, 4, 9):
        kept, words = button_seat_words(seats, seat)
        assert not kept and "lowest seat with chips takes it" in words


def _single_table(journal, seed: int):
    from controller.clock import ManualClock
    from controller.composition import TableRun
    from controller.devices import DeviceChoice
    from controller.simdevices import SimulatedPlayers
    from controller.tournament.settings import load_settings
    from controller.tournament_run import SIM_TOML, TournamentTable, table_settings

    ts = load_settings(SIM_TOML)
    clock = ManualClock()
    director = TournamentTable(ts, SIM_TOML, players=5, seed=seed)
    bots = SimulatedPlayers(list(range(1, 7)), seed=seed, clock=clock, speed=0)
    choice = DeviceChoice(table="bd", seats=6, shuffler=None, internal_seed=seed, mqtt=False)
    run = TableRun(table_settings(ts, table_id="bd", game="holdem", limit="no-limit", seats=6),
                   journal, choice, clock=clock, extras=[bots, director])
    run.open()
    return run, director, clock


def _starts(journal) -> list[dict]:
    import json
    import sqlite3

    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        rows = [json.loads(p) for (p,) in db.execute("SELECT payload FROM events WHERE kind = 'tournament'")]
    finally:
        db.close()
    return [r for r in rows if r.get("type") == "start"]


def test_wsop_85_a_single_tables_button_is_drawn_by_cards_at_its_start_and_kept_after_a_restart(
        tmp_path, caplog) -> None:
    """The single-table tournament's start: one card to each drawn seat, the highest card's
    seat (rank, then suit) is the first hand's button; journalled with the start (its cards
    too) and logged. Started again on its journal (another seed given, as after a kill), the
    table keeps the journal's draw: the same button and cards, no second start."""
    from controller.tournament.chiprace import card_order

    caplog.set_level("INFO", logger="livetable.tournament")
    journal = tmp_path / "j.sqlite"
    run, director, clock = _single_table(journal, seed=11)
    (start,) = _starts(journal)
    cards = {int(s): c for s, c in start["button_draw"]["cards"].items()}
    assert sorted(cards) == sorted(start["draw"].values())  # every player dealt a card
    best = max(cards, key=lambda s: card_order(cards[s]))
    assert start["button"] == start["button_draw"]["button"] == best == director.button
    said = [r.getMessage() for r in caplog.records if "button draw" in r.getMessage()]
    assert said and director.button_cards.words() in said[0]
    orch = run.orch

    def idle() -> None:
        clock.advance(1.0)
        if orch.state.hands >= 1:
            orch.stop()

    run.run(poll=0.001, on_idle=idle)
    assert orch.state.info.button == best  # the first hand's button
    run.close()
    run2, again, _ = _single_table(journal, seed=12)
    assert again.button == best and again.button_cards == director.button_cards
    assert len(_starts(journal)) == 1
    run2.close()


def test_wsop_85_a_kill_9_after_the_start_keeps_the_button_drawn_by_cards(tmp_path) -> None:
    """``livetable simulate --tournament`` killed (-9) just after its start and first entry
    were journalled: started again, it deals its first hand with the button of the journal's
    draw (the highest card dealt), never drawing again."""
    import sqlite3

    from controller.tournament.chiprace import card_order
    from tests.tournament.tourneyrun import simulate

    journal = tmp_path / "j.sqlite"
    killed = simulate(journal, crash="entry:1", seed=5, seats=6)
    assert killed.returncode in (-9, 137), killed.stderr[-2000:]
    (before,) = _starts(journal)
    done = simulate(journal, seed=5, seats=6)
    assert done.returncode == 0, done.stderr[-2000:]
    assert _starts(journal) == [before]
    cards = {int(s): c for s, c in before["button_draw"]["cards"].items()}
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        first = next(e for e in (payload_of("table", at, p) for at, p in db.execute(  # format 3: short names
            "SELECT at, payload FROM events WHERE kind = 'table' ORDER BY seq")) if e["kind"] == "hand-start-requested")
    finally:
        db.close()
    assert first["button"] == before["button"] == max(cards, key=lambda s: card_order(cards[s]))
