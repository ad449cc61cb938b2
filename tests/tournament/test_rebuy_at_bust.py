"""Issue 19 TFIX 7: a rebuy at the bust (docs/tournament.md "Rebuys and add-ons").

While the rebuy period is open (level at most ``rebuy.until_level``) and the busted player
has rebuys left (``rebuy.max``), the seat he busted from is kept ("busted — rebuy?" on the
screens, the seat's tablet offered ``rebuy`` and ``decline_rebuy``) and he is not placed: a
confirmed rebuy brings its chips (a ``BoughtIn`` at his seat) and he plays on; a decline
(his tablet, ``livetable floor decline-rebuy SEAT``) or the next deal places him, with the
others of his hand by starting stacks (TDA simultaneous eliminations). After the period, or
with no rebuys left, he is placed at once, as before. Journalled and recovered (a restart
between the bust and the decision keeps the wait or places him, never both); chips in play
= starting stacks + rebuys + add-ons after every event; the rebuy's price in the prize pool.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from controller.engine.table import events as ev
from controller.history_notes import NoteWords
from controller.tournament.errors import TournamentError
from controller.tournament.words import ordinal
from controller.tournament_run import SIM_TOML
from controller.engine.table.blinds import Rotation, after, plan_hand
from controller.engine.table.play import candidates
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import evolve
from tests.tournament.test_director import LATE_TOML, _reopen, _table

#: rebuys in every level, two a player, whatever the stack (only the bust matters here)
BUST_TOML = LATE_TOML.replace("entry = { price = 100, fee = 10 }", """entry = { price = 100, fee = 10 }
rebuy = { price = 100, fee = 10, chips = 2000, max = 2, until_level = 6, max_stack = 100000 }""").replace(
    "late_registration_until_level = 2", "late_registration_until_level = 5")
#: rebuys until the end of level 2, one a player
SHORT_TOML = BUST_TOML.replace("max = 2, until_level = 6", "max = 1, until_level = 2")


def _to_first_bust(run, director, clock) -> None:
    """Play (simulated players) until a hand busts somebody; stop between hands before the
    next deal (the pacer's pause not over: its ``hand_start`` held back)."""
    orch = run.orch
    deal = run.pacer.hand_start
    busts = [0]

    def gate():
        if director.held is not None or busts[0]:
            orch.stop()
            return None
        return deal()

    def count(_o, effects) -> None:
        busts[0] += sum(1 for e in effects if type(e).__name__ == "HandFinished" and e.record.get("busted"))

    orch.listeners.append(count)
    run.pacer.hand_start = gate

    def idle() -> None:
        clock.advance(1.0)  # a show window ends (P-2)
        if director.finished or orch.state.hands > 400:
            orch.stop()

    run.run(poll=0.001, on_idle=idle)
    orch.listeners.remove(count)
    run.pacer.hand_start = deal
    assert busts[0], f"nobody busted in {orch.state.hands} hands"


def _kinds(orch) -> list[dict]:
    return [e.payload for e in orch.journal.entries() if e.kind == "tournament" and e.payload["type"] != "clock"]


def _held(director) -> tuple[int, str]:
    ((seat, player),) = list(director.held_seats().items())[:1]
    return seat, player


def _chips_conserved(run, director) -> None:
    led = run.orch.state.ledger
    assert led.total_in == director.standings.chips_in_play() == (
        len(director.standings.entries) * 2000 + director.standings.rebuys * 2000)
    assert led.total_out == 0 and director.problems == []


def test_a_player_busted_in_the_rebuy_period_keeps_his_seat_unplaced_and_rebuys_there(tmp_path) -> None:
    run, director, clock, ask = _table(tmp_path, BUST_TOML, players=6)
    _to_first_bust(run, director, clock)
    orch = run.orch
    assert director.held is not None, "a bust in the rebuy period is held for the rebuy"
    seat, player = _held(director)
    assert orch.state.seat(seat) is None  # the table freed the seat; the tournament keeps it
    assert player in director.standings.alive
    assert all(f.player != player for f in director.standings.finishes(False))
    tv = orch.public_view()["tournament_view"]
    assert tv["rebuy_pending"][str(seat)]["name"] == director.names[player]
    assert tv["offers"][str(seat)] == ["rebuy", "decline_rebuy"]
    assert str(seat) not in tv["out"]
    bust = [p for p in _kinds(orch) if p["type"] == "bust"][-1]
    assert bust["pending"] == {player: seat}
    # nobody else gets the kept seat
    assert ask("register", player="Zoe", seat=seat)[1].startswith(f"F-3: seat {seat} is taken")
    # the seat's tablet asks, the dealer confirms: the chips come, he is not placed
    run.pacer.max_hands = 0  # no further hand here
    director.ask_purchase("rebuy", seat)
    assert director.asked == {seat: "rebuy"}
    pool = director.standings.prize_pool()
    ok, reason, detail = ask("confirm-buyin", seat=seat)
    assert ok, reason
    assert "rebuy at the bust" in detail and "2000 chips" in detail
    orch.pump()
    s = orch.state.seat(seat)
    assert s is not None and s.player == player and s.stack == 2000
    assert director.held is None and player in director.standings.alive
    assert director.standings.prize_pool() == pool + 100 and director.standings.rebuys == 1
    assert [p for p in _kinds(orch) if p["type"] == "rebuy"][-1]["bust"] == bust["hand"]
    _chips_conserved(run, director)
    assert not director._seating_pending()
    # the tournament goes on to a winner, every entry placed once
    run.close()
    run2, again = _reopen(tmp_path, BUST_TOML, clock, bots=True)
    assert again.standings.rebuys == 1 and player in again.standings.alive and again.held is None

    def idle() -> None:
        clock.advance(1.0)
        if again.finished and run2.orch.state.hand is None:
            run2.orch.stop()

    run2.run(poll=0.001, on_idle=idle)
    run2.close()
    assert again.finished and again.problems == []
    assert sorted(again.result["places"]) == sorted(e.player for e in again.standings.entries)
    assert sum(again.result["payouts"]) == again.result["prize_pool"] == 600 + 100 * again.standings.rebuys


def test_a_declined_rebuy_places_the_player_at_once(tmp_path) -> None:
    run, director, clock, ask = _table(tmp_path, BUST_TOML, players=6)
    _to_first_bust(run, director, clock)
    orch = run.orch
    seat, player = _held(director)
    assert ask("decline-rebuy", seat=seat + 1 if seat < 6 else 1)[1].startswith("F-3: nobody busted at seat")
    ok, reason, detail = ask("decline-rebuy", seat=seat)
    assert ok, reason
    assert "does not rebuy" in detail
    assert director.held is None and player not in director.standings.alive
    declined = [p for p in _kinds(orch) if p["type"] == "declined"]
    assert [(d["player"], d["seat"], d["by"]) for d in declined] == [(player, seat, "floor:Anna")]
    tv = orch.public_view()["tournament_view"]
    assert tv["rebuy_pending"] == {} and tv["out"][str(seat)]["place"] >= 2
    assert str(seat) not in tv["offers"]
    assert ask("rebuy", seat=seat)[1].startswith("F-3: seat")  # too late
    _chips_conserved(run, director)
    # livetable history tells it: the bust held, then the decline placing him
    words = NoteWords()
    lines = [x for x in (words.text("tournament", p) for p in _kinds(orch)) if x]
    name = director.names[player]
    assert any(x.startswith(f"{name} busted in hand") and "rebuy?" in x for x in lines), lines
    placed = f"{name} ({ordinal(words.places[player])})"
    assert any(x.startswith(f"{name} at seat {seat} does not rebuy (the TD's call); ") and placed in x
               for x in lines), lines
    run.close()


def test_the_seats_tablet_declines_the_rebuy(tmp_path) -> None:
    from controller.devices.mqtt import MqttAdapter
    from drivers.mqtt.events import ActionReceived

    run, director, clock, _ask = _table(tmp_path, BUST_TOML, players=6)
    _to_first_bust(run, director, clock)
    seat, player = _held(director)
    answers: list[tuple] = []

    class Ports:
        def reply(self, seat, action_id, accepted, reason) -> None:
            answers.append((seat, action_id, accepted, reason))

    adapter = MqttAdapter(run.orch, Ports(), clock=clock)
    adapter.translate(ActionReceived(seat, "addon", None, "a1", 0, clock()))
    assert answers[-1][2] is False
    assert adapter.translate(ActionReceived(seat, "decline_rebuy", None, "a2", 0, clock())) == []
    assert answers[-1] == (seat, "a2", True, None)
    assert director.held is None and player not in director.standings.alive
    run.close()


def test_the_next_deal_places_a_player_who_did_not_decide(tmp_path) -> None:
    run, director, clock, _ask = _table(tmp_path, BUST_TOML, players=6)
    _to_first_bust(run, director, clock)
    orch = run.orch
    seat, player = _held(director)
    hands = orch.state.hands
    run.pacer.kick(orch)  # the pause is over: the pacer deals
    assert director.held is None and player not in director.standings.alive
    declined = [p for p in _kinds(orch) if p["type"] == "declined"]
    assert [(d["player"], d["by"], d["reason"]) for d in declined] == [(player, "table", "the next hand is dealt")]
    assert run.pacer.phase != run.pacer.IDLE  # the deal did not wait for him
    run.pacer.max_hands = hands
    orch.pump()
    assert orch.state.hands == hands + 1 or orch.state.hand is not None
    assert orch.state.seat(seat) is None
    _chips_conserved(run, director)
    run.close()


def test_an_asked_rebuy_at_the_bust_holds_the_deal_until_the_dealer_confirms_it(tmp_path) -> None:
    """Breaker 3 H1: the busted player's tablet asked for the rebuy (``asked``) before the
    pause ended; the deal does not decline him but waits for the dealer, the screens saying
    so ("REBUY — DEALER TO CONFIRM", ``deal_waits_for_dealer``); the dealer's confirm ends
    the wait and the next hand is dealt with him in it."""
    from display.tournament import rebuy_pending_text

    run, director, clock, ask = _table(tmp_path, BUST_TOML, players=6)
    _to_first_bust(run, director, clock)
    orch = run.orch
    seat, player = _held(director)
    director.ask_purchase("rebuy", seat)  # his tablet, before the pause is over
    hands = orch.state.hands
    for _ in range(3):  # the pause is over, and idle turns after it: no deal, no decline
        run.pacer.kick(orch)
        orch.pump()
    assert [p for p in _kinds(orch) if p["type"] == "declined"] == []
    assert director.held_seats() == {seat: player} and player in director.standings.alive
    assert run.pacer.phase == run.pacer.IDLE and orch.state.hand is None and orch.state.hands == hands
    tv = orch.public_view()["tournament_view"]
    assert tv["deal_waits_for_dealer"] == [seat] and tv["asked"] == {str(seat): "rebuy"}
    assert tv["rebuy_pending"][str(seat)]["asked"] is True
    assert rebuy_pending_text(tv["rebuy_pending"][str(seat)]) == "REBUY — DEALER TO CONFIRM"
    assert rebuy_pending_text({"name": "x", "asked": False}) == "BUSTED — REBUY?"
    run.pacer.max_hands = orch.hands_finished  # the chips brought, no deal yet
    ok, reason, detail = ask("confirm-buyin", seat=seat)
    assert ok and "rebuy at the bust" in detail, reason
    orch.pump()
    assert director.held is None and director.standings.rebuys == 1
    assert orch.public_view()["tournament_view"]["deal_waits_for_dealer"] == []
    s = orch.state.seat(seat)
    assert s is not None and s.player == player and s.stack == 2000
    run.pacer.max_hands = orch.hands_finished + 1
    run.pacer.kick(orch)  # the wait is over: the next hand is dealt, with him in it
    assert run.pacer.phase != run.pacer.IDLE
    orch.pump()
    assert orch.state.hands == hands + 1
    _chips_conserved(run, director)
    run.close()


@pytest.mark.parametrize("by", ["floor", "tablet"])
def test_the_refusal_of_an_asked_rebuy_at_the_bust_ends_the_deals_wait(tmp_path, by) -> None:
    """Breaker 3 H1: the deal's wait for an asked rebuy is never for ever: the floor's
    ``decline-rebuy SEAT`` (the dealer refuses it) or the player's ``decline_rebuy`` at his
    tablet places him, and the next idle turn deals."""
    run, director, clock, ask = _table(tmp_path, BUST_TOML, players=6)
    _to_first_bust(run, director, clock)
    orch = run.orch
    seat, player = _held(director)
    director.ask_purchase("rebuy", seat)
    run.pacer.kick(orch)
    assert run.pacer.phase == run.pacer.IDLE and director.held_seats() == {seat: player}
    if by == "floor":
        assert ask("decline-rebuy", seat=seat)[0]
    else:
        director.decline_rebuy(seat, by=f"seat {seat}", reason="declined at the seat")
    assert director.held is None and player not in director.standings.alive
    assert director.asked == {}
    run.pacer.kick(orch)
    assert run.pacer.phase != run.pacer.IDLE  # dealing
    _chips_conserved(run, director)
    run.close()


def test_a_restart_while_the_deal_waits_for_an_asked_rebuy_keeps_the_wait(tmp_path) -> None:
    """Breaker 3 H1: the table stopped (kill -9: the journal's ``asked`` is all the wait
    has; the close journals nothing of the tournament) while the deal waits for the
    dealer's confirm of an asked rebuy at the bust: the restart keeps the seat, the ask and
    the wait (no deal, no decline); the dealer's confirm then brings the chips once."""
    run, director, clock, _ask = _table(tmp_path, BUST_TOML, players=6)
    _to_first_bust(run, director, clock)
    seat, player = _held(director)
    director.ask_purchase("rebuy", seat)
    run.pacer.kick(run.orch)
    assert run.pacer.phase == run.pacer.IDLE
    journalled = len(_kinds(run.orch))
    run.close()
    run2, again = _reopen(tmp_path, BUST_TOML, clock)
    assert len(_kinds(run2.orch)) == journalled
    run2.pacer.kick(run2.orch)
    run2.orch.pump()
    assert again.held_seats() == {seat: player} and again.asked == {seat: "rebuy"}
    assert again.asked_at_bust() == {seat} and player in again.standings.alive
    assert run2.pacer.phase == run2.pacer.IDLE and run2.orch.state.hand is None
    assert [p for p in _kinds(run2.orch) if p["type"] == "declined"] == []
    run2.pacer.max_hands = 0
    assert "rebuy at the bust" in again.confirm_purchase(seat, by="floor:Anna")
    run2.orch.pump()
    s = run2.orch.state.seat(seat)
    assert s is not None and s.player == player and s.stack == 2000
    assert run2.orch.state.ledger.accounts[player].bought_in == 4000
    _chips_conserved(run2, again)
    run2.close()


def test_after_the_rebuy_period_a_busted_player_is_placed_at_once(tmp_path) -> None:
    run, director, clock, ask = _table(tmp_path, SHORT_TOML, players=6)
    assert ask("clock-level", amount=3)[0]  # past until_level 2
    _to_first_bust(run, director, clock)
    assert director.held is None
    busts = [p for p in _kinds(run.orch) if p["type"] == "bust"]
    assert busts and "pending" not in busts[0]
    assert all(p not in director.standings.alive for p in busts[0]["busted"])
    _chips_conserved(run, director)
    run.close()


def test_a_bust_in_a_hand_dealt_at_the_last_rebuy_level_may_rebuy_though_the_level_ended_during_it(
        tmp_path) -> None:
    """Breaker 3 M3: every hand dealt at level 2 (``until_level`` 2), the level's clock
    running out while it is played: the bust is judged by the hand's level (TDA 23), so the
    busted player is held for the rebuy at the bust, the ``bust`` journalled at level 2."""
    run, director, clock, ask = _table(tmp_path, SHORT_TOML, players=6)
    deal = run.pacer.hand_start
    levels: list[int] = []

    def at_level_2_running_out():
        if director.held is not None:
            run.orch.stop()
            return None
        assert ask("clock-level", amount=2)[0]
        fields = deal()
        if fields is not None:
            director.time.advance(599.5)  # level 2 ends while the hand is played
        return fields

    def at_the_bust(_o, effects) -> None:
        if any(type(e).__name__ == "HandFinished" and e.record.get("busted") for e in effects):
            levels.append(director.clock.status(director.time()).level.number)

    run.orch.listeners.append(at_the_bust)
    run.pacer.hand_start = at_level_2_running_out
    _to_first_bust(run, director, clock)
    assert levels and levels[-1] == 3  # the clock was at level 3 when the hand ended
    assert director.held is not None, "busted in a hand of level 2: he may rebuy"
    bust = [p for p in _kinds(run.orch) if p["type"] == "bust"][-1]
    assert bust["level"] == 2 and bust["pending"]
    seat, player = _held(director)
    assert ask("rebuy", seat=seat)[0]
    assert [p for p in _kinds(run.orch) if p["type"] == "rebuy"][-1]["level"] == 2
    run.close()


def test_a_rebuy_at_the_bust_booked_again_by_the_floor_is_refused_and_charged_once(tmp_path) -> None:
    """Breaker 3 M1: the dealer confirms the tablet's rebuy at the bust, the floor's
    ``rebuy SEAT`` for it comes a second later: refused (one rebuy between two hands), one
    rebuy charged, 2000 chips; the refusal holds after a restart; after the next hand a
    deliberate second rebuy is booked (the settings allow two)."""
    run, director, clock, ask = _table(tmp_path, BUST_TOML, players=6)
    _to_first_bust(run, director, clock)
    orch = run.orch
    seat, player = _held(director)
    run.pacer.max_hands = orch.hands_finished
    director.ask_purchase("rebuy", seat)
    assert ask("confirm-buyin", seat=seat)[0]
    orch.pump()
    pool = director.standings.prize_pool()
    ok, reason, _detail = ask("rebuy", seat=seat)  # the floor, a second later
    orch.pump()
    assert not ok and reason.startswith("F-3: ") and "one rebuy between two hands" in reason, reason
    assert director.standings.rebuys == 1 and director.standings.prize_pool() == pool
    assert orch.state.seat(seat).stack == 2000
    assert "rebuy" not in orch.public_view()["tournament_view"]["offers"].get(str(seat), [])
    with pytest.raises(TournamentError, match="one rebuy between two hands"):
        director.ask_purchase("rebuy", seat)
    _chips_conserved(run, director)
    run.close()
    run2, again = _reopen(tmp_path, BUST_TOML, clock, bots=True)
    run2.pacer.max_hands = run2.orch.hands_finished
    run2.orch.pump()
    with pytest.raises(TournamentError, match="one rebuy between two hands"):
        again.confirm_purchase(seat, by="floor:Anna", kind="rebuy")
    assert again.standings.rebuys == 1
    # a hand later his second rebuy is his to ask for
    hands = run2.orch.state.hands
    run2.pacer.max_hands = run2.orch.hands_finished + 1
    run2.pacer.kick(run2.orch)
    run2.orch.pump()
    assert run2.orch.state.hands == hands + 1 and run2.orch.state.hand is None
    s = run2.orch.state.seat(seat)
    assert s is not None and s.player == player and player in again.standings.alive
    assert "rebuy at seat" in again.confirm_purchase(seat, by="floor:Anna", kind="rebuy")
    run2.orch.pump()
    assert again.standings.rebuys == 2
    _chips_conserved(run2, again)
    run2.close()


def test_a_double_clicked_rebuy_is_booked_once(tmp_path) -> None:
    """Breaker 3 M1 (low): ``livetable floor rebuy SEAT`` sent twice between hands (room for
    both under max_stack, two rebuys allowed) books one rebuy; the second is refused with
    the rule, nothing journalled."""
    run, director, clock, ask = _table(tmp_path, BUST_TOML, players=6)
    run.pacer.max_hands = 0
    run.orch.pump()  # the entries seated
    seat = min(director.draw.values())
    assert ask("rebuy", seat=seat)[0]
    journalled = len(_kinds(run.orch))
    ok, reason, _detail = ask("rebuy", seat=seat)
    run.orch.pump()
    assert not ok and "one rebuy between two hands" in reason
    assert director.standings.rebuys == 1 and len(_kinds(run.orch)) == journalled
    assert run.orch.state.seat(seat).stack == 4000
    _chips_conserved(run, director)
    run.close()


def test_with_no_rebuys_left_a_busted_player_is_placed_at_once(tmp_path) -> None:
    run, director, clock, ask = _table(tmp_path, SHORT_TOML, players=6)
    run.pacer.max_hands = 0
    run.orch.pump()  # the entries seated
    for seat in sorted(director.draw.values()):  # each player's one rebuy used at level 1
        ok, reason, _detail = ask("rebuy", seat=seat)
        assert ok, reason
    run.orch.pump()
    run.pacer.max_hands = None
    _to_first_bust(run, director, clock)
    assert director.held is None
    busts = [p for p in _kinds(run.orch) if p["type"] == "bust"]
    assert busts and "pending" not in busts[0]
    assert all(p not in director.standings.alive for p in busts[0]["busted"])
    assert director.standings.rebuys == 6
    _chips_conserved(run, director)
    run.close()


def test_a_restart_between_the_bust_and_the_decision_keeps_the_wait(tmp_path) -> None:
    """Stopped with the player waiting (the journal's ``bust`` with ``pending``): the restart
    keeps his seat and leaves him unplaced (no second seat, no lost chips); his rebuy then
    comes as before; a decline after a second restart is not undone."""
    run, director, clock, _ask = _table(tmp_path, BUST_TOML, players=6)
    _to_first_bust(run, director, clock)
    seat, player = _held(director)
    run.close()
    run2, again = _reopen(tmp_path, BUST_TOML, clock)
    run2.pacer.max_hands = 0  # between hands: the pause not over
    run2.orch.pump()
    assert again.held_seats() == {seat: player} and player in again.standings.alive
    assert run2.orch.state.seat(seat) is None and again.problems == []
    assert all(f.player != player for f in again.standings.finishes(False))
    _chips_conserved(run2, again)
    assert not again._seating_pending()
    # the rebuy, its chips kept from the table by a crash: the restart seats him with them
    post = run2.orch.post
    run2.orch.post = lambda item, done=None: None if isinstance(getattr(item, "event", item),
                                                                (ev.PlayerSatDown, ev.BoughtIn)) \
        else post(item, done)
    assert again.direct("rebuy", by="floor:Anna", seat=seat).startswith(f"{again.names[player]}'s rebuy at the bust")
    run2.orch.post = post
    run2.close()
    run3, third = _reopen(tmp_path, BUST_TOML, clock)
    run3.pacer.max_hands = 0
    run3.orch.pump()
    s = run3.orch.state.seat(seat)
    assert s is not None and s.player == player and s.stack == 2000
    assert third.held is None and third.standings.rebuys == 1 and player in third.standings.alive
    _chips_conserved(run3, third)
    run3.close()
    run4, fourth = _reopen(tmp_path, BUST_TOML, clock)  # once more: seated once, nothing brought twice
    run4.pacer.max_hands = 0
    run4.orch.pump()
    assert run4.orch.state.ledger.accounts[player].bought_in == 4000
    _chips_conserved(run4, fourth)
    run4.close()


def test_a_restart_after_the_decline_keeps_him_placed(tmp_path) -> None:
    run, director, clock, ask = _table(tmp_path, BUST_TOML, players=6)
    _to_first_bust(run, director, clock)
    seat, player = _held(director)
    assert ask("decline-rebuy", seat=seat)[0]
    places = {f.player: f.place for f in director.standings.finishes(False)}
    run.close()
    run2, again = _reopen(tmp_path, BUST_TOML, clock)
    run2.pacer.max_hands = 0
    run2.orch.pump()
    assert again.held is None and player not in again.standings.alive
    assert {f.player: f.place for f in again.standings.finishes(False)} == places
    assert run2.orch.state.seat(seat) is None
    _chips_conserved(run2, again)
    run2.close()


def test_livetable_floor_decline_rebuy_on_the_wire() -> None:
    """``livetable floor decline-rebuy SEAT --by NAME`` (a director's request with its seat),
    and the seat's tablet's ``decline_rebuy`` (a seat request)."""
    import json

    from controller.floor_cli import _parser, _request
    from drivers.mqtt import codec

    req = _request(_parser().parse_args(["decline-rebuy", "3", "--by", "Anna", "--reason", "no money"]))
    assert req == {"command": "decline-rebuy", "by": "Anna", "seat": 3, "reason": "no money"}
    ok = codec.decode_floor_request(json.dumps({"schema": 1, "id": "x1", **req}).encode())
    assert (ok.command, ok.seat) == ("decline-rebuy", 3)
    assert codec.decode_action(json.dumps({"schema": 1, "id": "a1", "seat": 3, "seq": 1,
                                           "action": "decline_rebuy"}).encode(), seat=3).action == "decline_rebuy"


#: the simulation's tournament with rebuys through level 4 (its simulated players never
#: rebuy: every wait ends at the next deal)
SIM_REBUY_TOML = SIM_TOML.replace("entry = { price = 100, fee = 10 }", """entry = { price = 100, fee = 10 }
rebuy = { price = 100, fee = 10, chips = 2000, max = 2, until_level = 4, max_stack = 2000 }""")


@pytest.mark.parametrize("point", ["bust:1", "declined:1", "bust:2"])
def test_kill_9_between_the_bust_and_the_decision_resumes_placing_each_player_once(tmp_path, point) -> None:
    """A real SIGKILL of ``livetable simulate --tournament`` right after a bust held for a
    rebuy was journalled (``bust``), or right after the wait ended (``declined``): the
    restart keeps the wait or the place, never both; every player placed once, the chips
    checked after every journalled event (the journal replayed independently)."""
    import signal

    from tests.tournament.tourneyrun import check_finished, simulate, summary_of

    config = tmp_path / "rebuy.toml"
    config.write_text(SIM_REBUY_TOML)
    journal = tmp_path / "journal.sqlite"
    extra = ("--tournament-config", str(config))
    killed = simulate(journal, crash=point, game="holdem", seed=5, seats=6, extra=extra)
    assert killed.returncode == -signal.SIGKILL, (killed.returncode, killed.stderr[-2000:])
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    rows = [json.loads(p) for (p,) in db.execute("SELECT payload FROM events WHERE kind = 'tournament'")]
    db.close()
    last = [p for p in rows if p["type"] != "clock"][-1]
    assert last["type"] == point.split(":")[0] and (last["type"] == "declined" or last.get("pending")), last
    proc = simulate(journal, game="holdem", seed=5, seats=6, extra=extra)
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = summary_of(proc)
    assert summary["tournament"]["finished"]
    check_finished(journal, summary, 6)


def test_players_busted_in_one_hand_are_placed_together_by_starting_stacks_once_none_may_rebuy(tmp_path) -> None:
    """TDA simultaneous eliminations with a rebuy at the bust: a hand busts a short stack who
    may rebuy and a bigger one who has no rebuy left. The bigger stack is not placed before
    the short one decides (placed first he would take the worse place); once the short one
    declines, both are placed in one group, the bigger stack higher."""
    run, director, clock, ask = _table(tmp_path, SHORT_TOML, players=6)
    run.pacer.max_hands = 0
    run.orch.pump()
    by_seat = {n: p for p, n in director.draw.items()}
    (s1, short), (s2, big) = sorted(by_seat.items())[:2]
    assert ask("rebuy", seat=s2)[0]  # his one rebuy used at level 1
    run.orch.pump()
    hand = run.orch.state.hands + 1
    record = {"busted": {short: 500, big: 1500},
              "players": {str(s1): {"player": short, "start": 500}, str(s2): {"player": big, "start": 1500}}}
    director._hand_finished(hand, record)  # the table's report of the hand (its seats freed)
    assert director.held_seats() == {s1: short}
    assert director.held_players() == {short, big}
    assert short in director.standings.alive and big in director.standings.alive  # neither placed yet
    assert ask("decline-rebuy", seat=s2)[1].startswith("F-3: nobody busted at seat")
    assert ask("decline-rebuy", seat=s1)[0]
    places = {f.player: f.place for f in director.standings.finishes(False)}
    assert places == {big: 5, short: 6}
    assert director.held is None
    run.close()
    run2, again = _reopen(tmp_path, SHORT_TOML, clock)  # replayed alike
    assert {f.player: f.place for f in again.standings.finishes(False)} == {big: 5, short: 6}
    run2.close()


def _would_wait(state, seat: int) -> bool:
    """Whether a player newly seated at the free ``seat`` would wait for the button (T-4)."""
    from controller.engine.table.play import may_post_now

    return not may_post_now(state, seat)


def test_a_rebuy_at_the_bust_between_the_button_and_the_big_blind_is_dealt_into_the_next_hand(tmp_path) -> None:
    run, director, clock, ask = _table(tmp_path, BUST_TOML, players=6)
    _to_first_bust(run, director, clock)
    orch = run.orch
    seat, player = _held(director)
    last = orch.state.rotation
    assert seat == last.bb and _would_wait(orch.state, seat)  # a new player here would wait
    run.pacer.max_hands = 0
    director.ask_purchase("rebuy", seat)
    assert ask("confirm-buyin", seat=seat)[0]
    orch.pump()
    s = orch.state.seat(seat)
    assert s is not None and s.player == player and s.stack == 2000 and not s.new
    _chips_conserved(run, director)
    st = orch.state
    players, out = candidates(st)
    plan = plan_hand(seats=6, players=players, sitting_out=out, last=st.rotation,
                     small_blind=st.settings.small_blind, big_blind=st.settings.big_blind)
    assert plan is not None
    # dealt in at once; he had the big blind, so he owes the small blind (button, SB, BB in order)
    assert seat in plan.dealt and not plan.waiting
    assert (plan.button, plan.sb_seat, plan.bb_seat) == (last.sb, seat, after(seat, 6))
    _chips_conserved(run, director)


def test_a_rebuy_at_the_bust_on_the_button_is_dealt_into_the_next_hand() -> None:
    from tests.table.test_tournament_table import TOUR, seated

    for cfg in (TOUR, TableSettings(seats=6, small_blind=100, big_blind=200, buy_in_min=2000, buy_in_max=2000)):
        tournament = bool(cfg.tournament)
        b = seated({1: 2000, 2: 2000, 3: 2000, 4: 2000, 6: 2000}, cfg)
        # hands played (nobody new), seat 5 busted from the small blind: the next button
        b.state = evolve(b.state, rotation=Rotation(button=4, sb=5, bb=6, heads_up=False),
                         seats=[None if s is None else evolve(s, new=False) for s in b.state.seats])
        b.do(ev.PlayerSatDown, seat=5, player="p5", rebuy=True)
        b.do(ev.BoughtIn, seat=5, amount=2000)
        st = b.state
        players, out = candidates(st)
        cfg = st.settings
        plan = plan_hand(seats=6, players=players, sitting_out=out, last=st.rotation,
                         small_blind=cfg.small_blind, big_blind=cfg.big_blind)
        assert plan is not None and (plan.button, plan.sb_seat, plan.bb_seat) == (5, 6, 1)
        # a tournament: dealt in on the button; a cash game: unchanged, he waits for the button (T-4)
        assert (5 in plan.dealt) is tournament and (5 in plan.waiting) is not tournament
