"""The tournament director at a running table (issue 19, docs/tournament.md "The
director"): ``livetable floor`` pauses and resumes the clock, adds time, goes to a level and
registers late entries (TDA 9), each journalled with who and why, shown on the screens,
and carried through a restart; chips conserved (chips in play = entries' starting stacks)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from controller.clock import ManualClock
from controller.composition import TableRun
from controller.devices import DeviceChoice
from controller.floor import FloorDesk
from controller.simdevices import SimulatedPlayers
from controller.tournament.settings import load_settings
from controller.tournament_run import SIM_TOML, TournamentTable, table_settings
from drivers.mqtt import codec
from drivers.mqtt.codec import PayloadError
from drivers.mqtt.events import FloorRequestReceived

LATE_TOML = SIM_TOML.replace("late_registration_until_level = 0", "late_registration_until_level = 2")


def _table(tmp_path, toml: str = LATE_TOML, players: int = 4):
    ts = load_settings(toml)
    settings = table_settings(ts, table_id="td", game="holdem", limit="no-limit", seats=6)
    clock = ManualClock()
    director = TournamentTable(ts, toml, players=players, seed=3)
    bots = SimulatedPlayers(list(range(1, 7)), seed=3, clock=clock, speed=0)
    choice = DeviceChoice(table="td", seats=6, shuffler=None, internal_seed=3, mqtt=False)
    run = TableRun(settings, tmp_path / "j.sqlite", choice, clock=clock, extras=[bots, director])
    run.open()
    replies: list[tuple[bool, str | None, str | None]] = []
    desk = FloorDesk(run.orch, lambda rid, cmd, ok, reason, detail, status: replies.append((ok, reason, detail)),
                     clock=clock)
    n = iter(range(1, 1000))

    def ask(command: str, **kw) -> tuple[bool, str | None, str | None]:
        desk.request(FloorRequestReceived(f"r{next(n)}", command, "Anna", clock(), reason="the TD's call", **kw))
        return replies[-1]

    return run, director, clock, ask


def _reopen(tmp_path, toml: str, clock, *, bots: bool = False) -> tuple[TableRun, TournamentTable]:
    """The same table started again on its journal (a restart)."""
    director = TournamentTable(load_settings(toml), toml, players=4, seed=3)
    extras = [SimulatedPlayers(list(range(1, 7)), seed=3, clock=clock, speed=0)] if bots else []
    run = TableRun(table_settings(load_settings(toml), table_id="td", game="holdem", limit="no-limit", seats=6),
                   tmp_path / "j.sqlite", DeviceChoice(table="td", seats=6, shuffler=None, internal_seed=3, mqtt=False),
                   clock=clock, extras=extras + [director])
    run.open()
    return run, director


def _drain(run, director) -> None:
    """Let the table take what the requests posted (the seatings)."""
    run.orch.pump()
    assert not director._seating_pending()


def _finish(run, director, clock) -> None:
    orch = run.orch

    def idle() -> None:
        clock.advance(1.0)  # a show window ends (P-2)
        if director.finished and orch.state.hand is None:
            orch.stop()

    run.run(poll=0.001, on_idle=idle)


def test_director_pauses_resumes_adds_time_and_goes_to_a_level_journalled_with_who_and_why(tmp_path) -> None:
    run, director, clock, ask = _table(tmp_path)
    ok, reason, detail = ask("clock-pause")
    assert ok and "paused at level 1" in detail and "floor:Anna" in detail
    tv = run.orch.public_view()["tournament_view"]
    assert tv["running"] is False  # the screens say "Paused"
    assert ask("clock-pause")[:2] == (False, "F-3: the clock is paused already")
    assert ask("clock-level", amount=99)[1] == "F-3: no level 99 (levels 1..6)"
    assert ask("clock-resume")[0]
    director.time.advance(100)  # 100 s of the level played: 500 left
    ok, reason, detail = ask("clock-add", amount=60)
    assert ok and "9:20 left" in detail, (reason, detail)
    assert director.clock.status(director.time()).seconds_left == 560
    assert ask("clock-add", amount=100)[1].startswith("F-3: 560 s are left of 600: at most 40 s")
    ok, _reason, detail = ask("clock-level", amount=2)
    assert ok and "level 2 (50/100) from the next hand (TDA 23)" in detail
    st = director.clock.status(director.time())
    assert st.level.number == 2 and st.seconds_left == 600 and st.running
    db = sqlite3.connect(f"file:{tmp_path / 'j.sqlite'}?mode=ro", uri=True)
    rows = [json.loads(p) for (p,) in db.execute("SELECT payload FROM events WHERE kind = 'tournament'")]
    db.close()
    done = [r["director"] for r in rows if r["type"] == "clock" and "director" in r]
    assert [(d["command"], d["by"], d["reason"]) for d in done] == [
        ("clock-pause", "floor:Anna", "the TD's call"), ("clock-resume", "floor:Anna", "the TD's call"),
        ("clock-add", "floor:Anna", "the TD's call"), ("clock-level", "floor:Anna", "the TD's call")]
    run.close()
    # a restart keeps what the director did: level 2, the clock running
    run2, again = _reopen(tmp_path, LATE_TOML, clock)
    st = again.clock.status(again.time())
    assert st.level.number == 2 and st.running
    run2.close()


def test_tda_9_late_registration_gets_a_full_stack_until_registration_closes(tmp_path) -> None:
    run, director, clock, ask = _table(tmp_path)
    ok, reason, detail = ask("register", player="Zoe")
    assert ok, reason
    assert "Zoe enters at level 1" in detail and "2000 chips" in detail
    taken = set(director.draw.values())  # posted, not yet taken by the loop
    assert ask("register", player="Zoe")[1].startswith("F-3: Zoe is still in the tournament")
    busy = next(iter(taken))
    assert ask("register", player="Yan", seat=busy)[1].startswith(f"F-3: seat {busy} is taken")
    assert ask("clock-level", amount=3)[0]
    assert ask("register", player="Yan")[1] == "TDA 9: registration closed at the end of level 2 (level 3 now)"
    assert ask("clock-level", amount=2)[0]
    free = min(set(range(1, 7)) - taken)
    ok, reason, detail = ask("register", player="Yan", seat=free)
    assert ok, reason
    _drain(run, director)
    seated = {s.name: s.player for s in run.orch.state.occupied()}
    accounts = run.orch.state.ledger.accounts
    assert accounts[seated["Zoe"]].bought_in == accounts[seated["Yan"]].bought_in == 2000  # TDA 9: a full stack
    assert director.standings.chips_in_play() == 6 * 2000 == run.orch.state.ledger.total_in
    _finish(run, director, clock)
    run.close()
    assert director.finished and director.problems == []
    s = director.summary()
    assert s["tournament"]["entries"] == 6 and s["prize_pool"] == 600 and sum(s["payouts"]) == 600
    assert {director.names[p] for p in s["places"]} >= {"Zoe", "Yan"}


def test_tda_9_a_freezeout_takes_no_entry_after_the_start(tmp_path) -> None:
    run, _director, _clock, ask = _table(tmp_path, SIM_TOML)
    assert ask("register", player="Zoe")[:2] == (False, "TDA 9: this tournament takes entries before the start "
                                                       "only")
    run.close()


def test_director_requests_at_a_cash_table_are_refused(tmp_path) -> None:
    from controller.engine.table.settings import TableSettings

    run = TableRun(TableSettings(id="cash", seats=6), tmp_path / "c.sqlite",
                   DeviceChoice(table="cash", seats=6, shuffler=None, internal_seed=1, mqtt=False),
                   clock=ManualClock())
    run.open()
    replies = []
    desk = FloorDesk(run.orch, lambda *a: replies.append(a), clock=ManualClock())
    desk.request(FloorRequestReceived("r1", "clock-pause", "Anna", 0.0))
    assert replies[-1][2:4] == (False, "F-3: no tournament is played at this table (clock-pause is a director's)")
    run.close()


@pytest.mark.parametrize("payload, error", [
    ({"command": "clock-add", "by": "Anna"}, "'amount' must be an integer in 1..86400"),
    ({"command": "clock-add", "by": "Anna", "amount": 0}, "'amount' must be an integer in 1..86400"),
    ({"command": "clock-level", "by": "Anna", "amount": 1000}, "'amount' must be an integer in 1..999"),
    ({"command": "register", "by": "Anna"}, "'player' (who sits down)"),
    ({"command": "register", "by": "Anna", "player": "Zoe", "amount": 5}, "'amount' is not for register"),
    ({"command": "clock-pause", "by": "Anna", "seat": 3}, "'seat' is only for"),
    ({"command": "clock-pause"}, "'by' (who decides)"),
])
def test_director_requests_are_checked_on_the_wire(payload, error) -> None:
    with pytest.raises(PayloadError) as exc:
        codec.decode_floor_request(json.dumps({"schema": 1, "id": "x1", **payload}).encode())
    assert error in str(exc.value)
    ok = codec.decode_floor_request(json.dumps({"schema": 1, "id": "x2", "command": "register", "by": "Anna",
                                                "player": "Zoe", "seat": 4}).encode())
    assert (ok.command, ok.player, ok.seat) == ("register", "Zoe", 4)


def test_livetable_floor_builds_the_directors_requests_and_shows_the_clock() -> None:
    from controller.floor_cli import _parser, _request, render

    def req(*argv: str) -> dict:
        return _request(_parser().parse_args(list(argv)))

    assert req("clock-add", "60", "--by", "Anna", "--reason", "a long dispute") == {
        "command": "clock-add", "by": "Anna", "amount": 60, "reason": "a long dispute"}
    assert req("clock-level", "4", "--by", "Anna")["amount"] == 4
    assert req("register", "Zoe", "--seat", "3", "--by", "Anna") == {
        "command": "register", "by": "Anna", "player": "Zoe", "seat": 3}
    assert req("clock-pause", "--by", "Anna") == {"command": "clock-pause", "by": "Anna"}
    with pytest.raises(PayloadError):
        req("clock-add", "0", "--by", "Anna")
    status = {"table": "td", "hand": 7, "street": "waiting", "turn": None, "faults": [],
              "tournament": {"level": {"number": 3, "small_blind": 100, "big_blind": 200}, "seconds_left": 522,
                             "running": False, "on_break": False, "players_left": 5, "entries": 6,
                             "prize_pool": 600}}
    text = render({"command": "status", "accepted": True, "status": status})
    assert "tournament: level 3 (100/200), 8:42 left, CLOCK PAUSED; players 5/6, pool 600" in text


BUY_TOML = LATE_TOML.replace("entry = { price = 100, fee = 10 }", """entry = { price = 100, fee = 10 }
rebuy = { price = 100, fee = 10, chips = 2000, max = 2, until_level = 2, max_stack = 2000 }
addon = { price = 100, fee = 10, chips = 3000, max = 1, at_break = 2 }""")


def test_rebuy_asked_at_the_seat_confirmed_by_the_dealer_and_the_addon_at_its_break(tmp_path) -> None:
    """Rebuys (while the stack is at most max_stack, until their level) and the add-on (at the
    break after at_break): asked from the tablet, the dealer confirms; chips in play = starting
    stacks + rebuys + add-ons, their prices in the prize pool; journalled and replayed."""
    run, director, clock, ask = _table(tmp_path, BUY_TOML)
    run.pacer.max_hands = 0  # between hands while the purchases are made
    run.orch.pump()  # the entries seated
    seat = min(director.draw.values())
    player = next(p for p, n in director.draw.items() if n == seat)
    tv = run.orch.public_view()["tournament_view"]
    assert tv["offers"][str(seat)] == ["rebuy"] and tv["purchase_chips"] == {"rebuy": 2000, "addon": 3000}
    director.ask_purchase("rebuy", seat)  # the tablet's request
    with pytest.raises(Exception, match="waits for the dealer already"):
        director.ask_purchase("rebuy", seat)
    assert run.orch.public_view()["tournament_view"]["asked"] == {str(seat): "rebuy"}
    ok, reason, detail = ask("confirm-buyin", seat=seat)
    assert ok, reason
    assert "rebuy at seat" in detail and "2000 chips" in detail
    run.orch.pump()
    acct = run.orch.state.ledger.accounts[player]
    assert acct.bought_in + acct.topped_up == 4000
    assert run.orch.state.ledger.total_in == director.standings.chips_in_play() == 5 * 2000
    assert director.standings.prize_pool() == 500 and director.problems == []
    assert ask("rebuy", seat=seat)[1] == "rebuy: stack 4000 is above the 2000 allowed"
    assert ask("addon", seat=seat)[1] == "addon: offered at the break after level 2 only"
    assert ask("confirm-buyin", seat=seat)[1].startswith("F-3: seat")  # nothing waiting any more
    director.time.advance(1200 - director.clock.to_json(director.time())["played"])  # to the break
    assert director.clock.status(director.time()).on_break
    assert "addon" in run.orch.public_view()["tournament_view"]["offers"][str(seat)]
    ok, reason, detail = ask("addon", seat=seat)
    assert ok, reason
    run.orch.pump()
    assert run.orch.state.ledger.total_in == director.standings.chips_in_play() == 5 * 2000 + 3000
    assert ask("addon", seat=seat)[1].endswith("has taken the 1 add-on(s) allowed")
    run.close()
    run2, again = _reopen(tmp_path, BUY_TOML, clock, bots=True)
    assert again.standings.chips_in_play() == 13000 and again.standings.prize_pool() == 600
    _finish(run2, again, clock)
    run2.close()
    assert again.finished and again.problems == []
    assert sum(again.result["payouts"]) == again.result["prize_pool"] == 600


def test_a_purchase_journalled_but_not_brought_before_a_crash_is_brought_at_the_restart(tmp_path) -> None:
    run, director, clock, ask = _table(tmp_path, BUY_TOML)
    run.pacer.max_hands = 0
    run.orch.pump()
    seat = min(director.draw.values())
    player = next(p for p, n in director.draw.items() if n == seat)
    post = run.orch.post
    # the tournament's own events come wrapped (TournamentOwn): a cash path's are refused
    run.orch.post = lambda item, done=None: (None if type(getattr(item, "event", item)).__name__ == "ToppedUp"
                                             else post(item, done))
    assert ask("rebuy", seat=seat)[0]  # journalled; the crash keeps its chips from the table
    run.orch.post = post
    run.close()
    run2, again = _reopen(tmp_path, BUY_TOML, clock)
    run2.orch.pump()
    acct = run2.orch.state.ledger.accounts[player]
    assert acct.bought_in + acct.topped_up == 4000
    assert run2.orch.state.ledger.total_in == again.standings.chips_in_play() == 10000
    assert again.problems == []
    run2.close()


def test_the_seats_tablet_asks_for_a_rebuy_and_hears_the_answer(tmp_path) -> None:
    """The tablet's ``rebuy`` / ``addon`` request (drivers/mqtt, a seat request): checked and
    journalled by the director, answered at once; the dealer confirms it (above)."""
    from controller.devices.mqtt import MqttAdapter
    from drivers.mqtt.events import ActionReceived

    run, director, clock, _ask = _table(tmp_path, BUY_TOML)
    run.pacer.max_hands = 0
    run.orch.pump()
    answers: list[tuple] = []

    class Ports:
        def reply(self, seat, action_id, accepted, reason) -> None:
            answers.append((seat, action_id, accepted, reason))

    adapter = MqttAdapter(run.orch, Ports(), clock=clock)
    seat = min(director.draw.values())
    assert adapter.translate(ActionReceived(seat, "rebuy", None, "a1", 0, clock())) == []
    assert answers[-1] == (seat, "a1", True, None) and director.asked == {seat: "rebuy"}
    adapter.translate(ActionReceived(seat, "addon", None, "a2", 0, clock()))
    assert answers[-1][2:] == (False, f"T-3: seat {seat}'s rebuy waits for the dealer already")
    adapter.translate(ActionReceived(seat + 1 if seat < 6 else 1, "addon", None, "a3", 0, clock()))
    assert answers[-1][2] is False
    assert codec.decode_action(json.dumps({"schema": 1, "id": "a4", "seat": 3, "seq": 1,
                                           "action": "rebuy"}).encode(), seat=3).action == "rebuy"
    run.close()


REENTRY_TOML = LATE_TOML.replace("entry = { price = 100, fee = 10 }", """entry = { price = 100, fee = 10 }
reentry = { max = 1 }""").replace("late_registration_until_level = 2", "late_registration_until_level = 5")


def test_tda_9_a_busted_player_re_enters_with_a_full_stack_once(tmp_path) -> None:
    """A re-entry (TDA 9: a full starting stack, until registration closes): the busted
    player's name registered again is the same player with a second entry (its own place);
    registering a player still in is refused (``reentry.max`` is the standings' check,
    tests/tournament/test_results.py); chips in play = the entries' stacks."""
    run, director, clock, ask = _table(tmp_path, REENTRY_TOML)
    orch = run.orch
    answers: list[tuple] = []

    def idle() -> None:
        clock.advance(1.0)
        if not answers and director.busted_hands and orch.state.hand is None:
            out = [p for p in director.draw if p not in director.standings.alive]
            name = director.names[out[0]]
            answers.append((out[0], ask("register", player=name)))
            answers.append((out[0], ask("register", player=name)))  # still in: refused
        if director.finished and orch.state.hand is None:
            orch.stop()

    run.run(poll=0.001, on_idle=idle)
    run.close()
    assert answers, "nobody busted before the end"
    (player, first), (_, second) = answers
    assert first[0] and "re-enters at level" in first[2], first
    assert second[1].startswith("F-3:") and "still in the tournament" in second[1]
    assert director.finished and director.problems == []
    s = director.summary()
    assert s["tournament"]["entries"] == 5 and s["places"].count(player) == 2
    assert s["prize_pool"] == sum(s["payouts"]) == 500
    assert director.standings.chips_in_play() == 5 * 2000
