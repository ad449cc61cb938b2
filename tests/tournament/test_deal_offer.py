"""A deal offered to the final players on their tablets (issue 19, the TDA deal-making rule;
docs/tournament.md "Deals"): the director offers it (``livetable floor deal-offer``), it is
journalled and shown on every screen; each player accepts or declines at his own seat (the
seat is the topic's, never a name in the payload; a repeated accept is taken once); every
player accepting makes it agreed (no hand dealt until the director confirms or withdraws
it); a decline, a withdrawal, a hand dealt or a stack changed ends it; a restart keeps the
offer and its accepts."""

from __future__ import annotations

import json

import pytest

from controller.devices.mqtt import MqttAdapter
from drivers.mqtt import codec
from drivers.mqtt.codec import PayloadError
from drivers.mqtt.events import ActionReceived
from tests.tournament.test_director import BUY_TOML, LATE_TOML, _reopen, _table


class _Ports:
    """The adapter's ports: the answers to the seats, kept."""

    def __init__(self) -> None:
        self.answers: list[tuple] = []

    def reply(self, seat, action_id, accepted, reason) -> None:
        self.answers.append((seat, action_id, accepted, reason))


def _offered(tmp_path, method: str = "icm"):
    """A 4-player table between hands (none dealt) with a deal offered by the director."""
    run, director, clock, ask = _table(tmp_path, LATE_TOML)
    run.pacer.max_hands = 0
    run.orch.pump()
    ok, why, detail = ask("deal-offer", method=method)
    assert ok, why
    ports = _Ports()
    return run, director, clock, ask, MqttAdapter(run.orch, ports, clock=clock), ports


def _answer(adapter, clock, seat: int, action: str, offer: int, aid: str) -> None:
    assert adapter.translate(ActionReceived(seat, action, offer, aid, 0, clock())) == []


def _deal_events(orch) -> list[dict]:
    return [e.payload for e in orch.journal.entries()
            if e.kind == "tournament" and str(e.payload.get("type", "")).startswith("deal-")]


def test_a_deal_offered_is_journalled_shown_and_agreed_once_every_seat_accepts(tmp_path) -> None:
    run, director, clock, ask, adapter, ports = _offered(tmp_path)
    view = run.orch.public_view()["tournament_view"]["deal_offer"]
    seats = sorted(director.draw.values())
    assert [p["seat"] for p in view["players"]] == seats
    assert view["words"] == "0 of 4 accepted" and not view["agreed"]
    # the shares are the ICM of the stacks over the prizes left, summing to them exactly
    assert sum(p["share"] for p in view["players"]) == view["total"] == sum(view["prizes"]) > 0
    assert all(p["stack"] == 2000 for p in view["players"])  # equal stacks: equal shares (to the unit)
    assert max(p["share"] for p in view["players"]) - min(p["share"] for p in view["players"]) <= view["unit"]
    (offer,) = _deal_events(run.orch)
    assert offer["type"] == "deal-offer" and offer["by"] == "floor:Anna" and offer["method"] == "icm"

    _answer(adapter, clock, seats[0], "deal_accept", 1, "a1")
    _answer(adapter, clock, seats[0], "deal_accept", 1, "a1")  # the same request again
    _answer(adapter, clock, seats[0], "deal_accept", 1, "a2")  # a double tap
    assert [a[2] for a in ports.answers] == [True, True, True]
    assert [e["type"] for e in _deal_events(run.orch)] == ["deal-offer", "deal-accept"]
    assert director.deal_offer_view()["words"] == "1 of 4 accepted"
    from controller.floor_cli import _deal_offer_lines

    assert _deal_offer_lines(run.orch.public_view()["tournament_view"])[0] == "  deal offer 1 (icm): 1 of 4 accepted"
    assert _deal_offer_lines({"deal_offer": {"players": "junk"}, "deal_ended": 7}) == []
    assert director.deal_offer_view()["players"][0]["accepted"] is True

    _answer(adapter, clock, seats[1], "deal_accept", 2, "b1")  # not the offer on the screens
    assert ports.answers[-1][2:] == (False, "F-3: deal offer 2 is over: the offer now is number 1")
    empty = next(n for n in range(1, 7) if n not in seats)
    _answer(adapter, clock, empty, "deal_accept", 1, "c1")  # an empty seat is in no deal
    assert ports.answers[-1][2] is False and f"seat {empty} has no player" in ports.answers[-1][3]

    for n, seat in enumerate(seats[1:], 2):
        _answer(adapter, clock, seat, "deal_accept", 1, f"x{n}")
    view = run.orch.public_view()["tournament_view"]["deal_offer"]
    assert view["agreed"] and view["words"] == "Deal agreed \u2014 the director confirms"
    assert director.hand_start() is None  # no hand dealt until the director confirms or withdraws it
    _answer(adapter, clock, seats[0], "deal_decline", 1, "late")
    assert ports.answers[-1][2] is False and "agreed" in ports.answers[-1][3]
    from controller.floor import FloorDesk
    from controller.floor_cli import render

    status = FloorDesk(run.orch, lambda *a: None, clock=clock).status()  # what livetable floor status prints
    text = render({"command": "status", "accepted": True, "status": status})
    assert "  deal offer 1 (icm): AGREED by every player: pay it (livetable floor deal shows the figures) " \
           "or deal-withdraw" in text
    assert f"      seat {seats[0]} Player {seats[0]}: stack 2000, share " in text and text.count(" - accepted") == 4
    ok, _why, detail = ask("deal-withdraw")
    assert ok and "withdrawn" in detail and director.offer is None
    status = FloorDesk(run.orch, lambda *a: None, clock=clock).status()
    assert "  deal offer 1 is over: withdrawn by the director" in render(
        {"command": "status", "accepted": True, "status": status})
    assert director.hand_start() is not None  # play goes on
    assert [e["type"] for e in _deal_events(run.orch)] == ["deal-offer"] + ["deal-accept"] * 4 + ["deal-end"]
    run.close()


def test_a_decline_at_one_seat_ends_the_offer_for_everyone(tmp_path) -> None:
    run, director, clock, ask, adapter, ports = _offered(tmp_path, "chip-chop")
    seats = sorted(director.draw.values())
    _answer(adapter, clock, seats[0], "deal_accept", 1, "a1")
    _answer(adapter, clock, seats[2], "deal_decline", 1, "d1")
    assert ports.answers[-1][2] is True
    tv = run.orch.public_view()["tournament_view"]
    assert tv["deal_offer"] is None
    assert tv["deal_ended"] == {"offer": 1, "reason": f"Player {seats[2]} declined"}
    _answer(adapter, clock, seats[1], "deal_accept", 1, "a2")
    assert ports.answers[-1][2:] == (False, "F-3: no deal is offered now")
    ok, _why, _detail = ask("deal-offer", method="icm")  # a new offer, numbered on
    assert ok and director.offer["offer"] == 2
    from controller.history_notes import NoteWords

    words = NoteWords()  # the history's lines (livetable history)
    lines = [x for x in (words.text("tournament", p) for p in _deal_events(run.orch)) if x]
    assert lines[0].startswith("Deal offer 1 (chip-chop) by floor:Anna: Player ")
    assert lines[1:3] == [f"Seat {seats[0]} accepts deal offer 1", f"Deal offer 1 is over: Player {seats[2]} declined"]
    run.close()


def test_the_seat_is_the_topics_never_the_payloads() -> None:
    """A tablet answers only for its own seat: a payload naming another seat is refused
    (M-6) before the table sees it, and an answer needs the offer's number (M-2)."""
    def payload(**over) -> bytes:
        return json.dumps({"schema": 1, "id": "q1", "seat": 3, "seq": 1, "action": "deal_accept",
                           "amount": 1, **over}).encode()

    assert codec.decode_action(payload(), seat=3).seat == 3
    with pytest.raises(PayloadError) as exc:
        codec.decode_action(payload(), seat=4)  # sent on seat 4's topic, naming seat 3
    assert exc.value.code == "M-6"
    for bad in ({"amount": None}, {"amount": 0}, {"amount": "1"}, {"choice": "yes"}):
        with pytest.raises(PayloadError) as exc:
            codec.decode_action(payload(**bad), seat=3)
        assert exc.value.code == "M-2"


def _run_idle(run, clock, after_hands: int, idles: int = 30) -> None:
    """Run the table (the bots play) until ``after_hands`` hands have finished and it then
    stayed idle for ``idles`` turns with no hand in play (a hand held stays held)."""
    orch, seen = run.orch, [0]

    def idle() -> None:
        clock.advance(1.0)
        if orch.hands_finished >= after_hands and orch.state.hand is None:
            seen[0] += 1
            if seen[0] >= idles:
                orch.stop()

    run.run(poll=0.001, on_idle=idle)


def test_no_hand_is_dealt_while_an_offer_is_open(tmp_path) -> None:
    """Issue 19 (newcomer): hands run back to back (a simulation, a dealer dealing on), and
    the next hand ended every offer ("a hand is dealt") before the players could answer.
    While an offer is open the table deals no hand, as at the room's final table."""
    run, director, clock, ask, adapter, ports = _offered(tmp_path)
    seats = sorted(director.draw.values())
    _answer(adapter, clock, seats[0], "deal_accept", 1, "a1")
    run.pacer.max_hands = None
    _run_idle(run, clock, 0)
    assert run.orch.state.hands == 0 and director.offer is not None
    assert [e["type"] for e in _deal_events(run.orch)] == ["deal-offer", "deal-accept"]
    director.withdraw_deal(by="floor:Anna")
    assert director.hand_start() is not None  # withdrawn: play goes on
    run.close()


def test_a_stack_changed_between_hands_ends_the_offer(tmp_path) -> None:
    """A rebuy booked while the offer is open brings chips: the figures are gone."""
    run, director, clock, ask = _table(tmp_path, BUY_TOML)
    run.pacer.max_hands = 0
    run.orch.pump()
    assert ask("deal-offer", method="icm")[0]
    seat = sorted(director.draw.values())[0]
    ok, why, _ = ask("rebuy", seat=seat)
    assert ok, why
    run.orch.pump()
    assert director.offer is None
    assert director.offer_ended["reason"] == f"Player {seat}'s stack changed (2,000 to 4,000 chips)"
    run.close()


def test_a_restart_keeps_the_offer_and_its_accepts(tmp_path) -> None:
    run, director, clock, ask, adapter, ports = _offered(tmp_path)
    seats = sorted(director.draw.values())
    _answer(adapter, clock, seats[0], "deal_accept", 1, "a1")
    _answer(adapter, clock, seats[3], "deal_accept", 1, "a4")
    before = director.deal_offer_view()
    run.close()
    run2, director2 = _reopen(tmp_path, LATE_TOML, clock)
    assert director2.deal_offer_view() == before and before["words"] == "2 of 4 accepted"
    ports2 = _Ports()
    adapter2 = MqttAdapter(run2.orch, ports2, clock=clock)
    _answer(adapter2, clock, seats[0], "deal_accept", 1, "a1")  # the tablet sends it again
    assert ports2.answers[-1][2] is True
    assert [e["type"] for e in _deal_events(run2.orch)] == ["deal-offer", "deal-accept", "deal-accept"]
    director2.withdraw_deal(by="floor:Anna")
    run2.close()
    run3, director3 = _reopen(tmp_path, LATE_TOML, clock)
    assert director3.offer is None and director3.offer_ended["reason"] == "withdrawn by the director"
    assert director3.offers_made == 1
    run3.close()


def test_the_director_is_refused_a_second_offer_and_a_bad_unit(tmp_path) -> None:
    run, director, clock, ask, adapter, ports = _offered(tmp_path)
    ok, why, _ = ask("deal-offer", method="chip-chop")
    assert not ok and why.startswith("F-3: deal offer 1 is open already")
    ask("deal-withdraw")
    ok, why, _ = ask("deal-offer", method="icm", amount=10**9)
    assert not ok and "unit" in why
    ok, why, _ = ask("deal-withdraw")
    assert not ok and why == "F-3: no deal is offered now"
    run.close()


@pytest.mark.parametrize("payload, error", [
    ({"command": "deal-offer", "by": "Anna"}, "'method' must be one of icm, chip-chop"),
    ({"command": "deal-offer", "by": "Anna", "method": "even"}, "'method' must be one of"),
    ({"command": "deal-withdraw", "by": "Anna", "method": "icm"}, "'method' is only for deal-offer"),
    ({"command": "deal-offer", "by": "Anna", "method": "icm", "amount": 0}, "amount"),
])
def test_deal_offer_requests_are_checked_on_the_wire(payload, error) -> None:
    with pytest.raises(PayloadError, match=error):
        codec.decode_floor_request(json.dumps({"schema": 1, "id": "r1", **payload}).encode())


def test_livetable_floor_builds_the_deal_offer() -> None:
    from controller import floor_cli

    args = floor_cli._parser().parse_args(["deal-offer", "--method", "chip-chop", "--unit", "5", "--by", "Anna"])
    assert floor_cli._request(args) == {"command": "deal-offer", "by": "Anna", "method": "chip-chop", "amount": 5}
    args = floor_cli._parser().parse_args(["deal-offer", "--by", "Anna"])
    assert floor_cli._request(args) == {"command": "deal-offer", "by": "Anna", "method": "icm"}
    args = floor_cli._parser().parse_args(["deal-withdraw", "--by", "Anna", "--reason", "play on"])
    assert floor_cli._request(args) == {"command": "deal-withdraw", "by": "Anna", "reason": "play on"}


#: the child process of the kill -9 test: a table, a deal offered, seats accepting until the
#: crash point kills the process (SIGKILL) right after the second accept was journalled
_CHILD = """
import sys
from pathlib import Path
from controller.devices.mqtt import MqttAdapter
from drivers.mqtt.events import ActionReceived
from tests.tournament.test_director import LATE_TOML, _table
from tests.tournament.test_deal_offer import _Ports

run, director, clock, ask = _table(Path(sys.argv[1]), LATE_TOML)
run.pacer.max_hands = 0
run.orch.pump()
assert ask("deal-offer", method="icm")[0]
adapter = MqttAdapter(run.orch, _Ports(), clock=clock)
for n, seat in enumerate(sorted(director.draw.values())):
    adapter.translate(ActionReceived(seat, "deal_accept", 1, f"a{n}", 0, clock()))
print("not killed")
"""


def test_a_kill_9_after_an_accept_keeps_the_offer_and_the_accepts(tmp_path) -> None:
    """A real SIGKILL right after the second accept was journalled (before anything else):
    the table started again on its journal shows the same offer with those two accepts, and
    the tablets' answers repeated are not recorded twice."""
    import os
    import signal
    import subprocess
    import sys

    from controller.clock import ManualClock
    from controller.tournament_run import CRASH_ENV

    env = dict(os.environ, **{CRASH_ENV: "deal-answer:2"})
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]  # ``python -c`` finds ``tests`` from there
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(tmp_path)], capture_output=True, text=True,
                          timeout=120, env=env, cwd=repo)
    assert proc.returncode == -signal.SIGKILL, (proc.returncode, proc.stdout, proc.stderr[-2000:])
    clock = ManualClock()
    run, director = _reopen(tmp_path, LATE_TOML, clock)
    seats = sorted(director.draw.values())
    view = director.deal_offer_view()
    assert view is not None and view["words"] == "2 of 4 accepted"
    assert [p["seat"] for p in view["players"] if p["accepted"]] == seats[:2]
    ports = _Ports()
    adapter = MqttAdapter(run.orch, ports, clock=clock)
    for n, seat in enumerate(seats):  # the tablets send their answers again (no reply came)
        _answer(adapter, clock, seat, "deal_accept", 1, f"a{n}")
    assert [a[2] for a in ports.answers] == [True] * 4
    assert [e["type"] for e in _deal_events(run.orch)] == ["deal-offer"] + ["deal-accept"] * 4
    assert director.deal_agreed()
    run.close()


def test_at_a_table_of_the_rooms_tournament_the_offer_is_refused_saying_why(tmp_path) -> None:
    """At a table of the room's tournament the offer is the room's director's: the table's
    own ``livetable floor deal-offer`` is refused, saying so, and a tablet's answer while the
    room's view shows no offer is refused (tests/room/test_room_tournament_deal.py: the room's)."""
    from controller.clock import ManualClock
    from controller.composition import TableRun
    from controller.devices import DeviceChoice
    from controller.engine.table.settings import TableSettings
    from controller.floor import FloorDesk
    from controller.tournament_link import RoomTournamentSeat
    from drivers.mqtt.events import FloorRequestReceived

    clock = ManualClock()
    run = TableRun(TableSettings(id="t1", seats=8), tmp_path / "j.sqlite",
                   DeviceChoice(table="t1", seats=8, shuffler=None, internal_seed=1, mqtt=False), clock=clock)
    run.open()
    link = RoomTournamentSeat("t1", host="127.0.0.1", port=1)  # never connected
    try:
        link.attach(run)
        replies: list[tuple] = []
        desk = FloorDesk(run.orch, lambda *a: replies.append(a), clock=clock)
        desk.request(FloorRequestReceived("r1", "deal-offer", "Anna", 0.0, method="icm"))
        assert replies[-1][2] is False and replies[-1][3].startswith(
            "F-3: this table plays the room's tournament: the room's director offers the deal at its final table "
            "(livetable room director deal-offer")
        ports = _Ports()
        _answer(MqttAdapter(run.orch, ports, clock=clock), clock, 3, "deal_accept", 1, "a1")
        assert ports.answers[-1][2] is False and ports.answers[-1][3].startswith("F-3: no deal is offered")
    finally:
        link._client.loop_stop()
        run.close()


def test_the_last_accept_is_taken_no_hand_being_dealt_while_the_offer_is_open(tmp_path) -> None:
    """A deal accept racing a hand start (breaker): the pacer asked for the next hand while
    the last player accepted. Now the pacer asks for no hand while an offer is open, so the
    last accept makes the deal agreed (an accept while a hand is on its way is still refused)."""
    run, director, clock, ask, adapter, ports = _offered(tmp_path)
    seats = sorted(director.draw.values())
    for n, seat in enumerate(seats[:-1]):
        _answer(adapter, clock, seat, "deal_accept", 1, f"a{n}")
    pacer, orch = run.pacer, run.orch
    decks: list[int] = []
    pacer.new_deck = decks.append
    pacer.max_hands = None
    pacer.kick(orch)
    assert not pacer.waiting_deck and decks == []  # no hand asked for while the offer is open
    _answer(adapter, clock, seats[-1], "deal_accept", 1, "last")
    assert ports.answers[-1][2] is True and director.deal_agreed()
    run.close()


def test_a_deal_offered_while_the_next_hand_is_being_dealt_is_made_when_it_ends(tmp_path) -> None:
    """Issue 19 (newcomer): offered during a hand (here its deck on the way) the offer was
    refused "offer it when this hand ends (livetable floor pause holds the next one)", but a
    pause freezes the hand in play, and hands run back to back: never offered in ~15 hands.
    Now it is journalled pending, made with the stacks when that hand ends, and the next
    hand waits for the players' answers."""
    run, director, clock, ask = _table(tmp_path, LATE_TOML)
    run.pacer.max_hands = 0
    run.orch.pump()
    decks: list[int] = []
    run.pacer.new_deck = decks.append
    run.pacer.max_hands = None
    run.pacer.kick(run.orch)
    assert run.pacer.waiting_deck
    ok, why, detail = ask("deal-offer", method="icm")
    assert ok, why
    assert "deal offer 1 (icm): the deal will be offered when hand 1 ends; no next hand is dealt meanwhile" in detail
    assert [e["type"] for e in _deal_events(run.orch)] == ["deal-pending"] and director.offer is None
    ok, why, _ = ask("deal-offer", method="icm")
    assert not ok and "offered already when hand 1 ends" in why
    from controller.floor_cli import _deal_offer_lines
    tv = run.orch.public_view()["tournament_view"]
    assert tv["deal_pending"] == {"offer": 1, "method": "icm", "hand": 1} and tv["deal_offer"] is None
    assert _deal_offer_lines(tv) == ["  deal offer 1 (icm): offered when hand 1 ends; no next hand is dealt "
                                     "meanwhile (deal-withdraw cancels it)"]
    run.pacer.new_deck = None
    run.pacer.deck_ready()  # hand 1 is dealt and played out
    _run_idle(run, clock, 1)
    orch = run.orch
    assert orch.state.hands == 1 and decks == [1]  # no hand 2: the players answer first
    assert [e["type"] for e in _deal_events(orch)] == ["deal-pending", "deal-offer"]
    made = _deal_events(orch)[1]
    assert made["offer"] == 1 and made["hands"] == 1 and made["by"] == "floor:Anna"
    assert {p["seat"]: p["stack"] for p in made["players"]} == {
        s.seat: s.stack for s in orch.state.occupied() if s.stack > 0}
    assert sum(p["stack"] for p in made["players"]) == 8000
    assert orch.public_view()["tournament_view"]["deal_offer"]["offer"] == 1
    assert orch.public_view()["tournament_view"]["deal_pending"] is None
    run.close()
    run2, director2 = _reopen(tmp_path, LATE_TOML, clock)  # a restart: the offer open, nothing twice
    assert director2.offer is not None and director2.deal_pending is None
    assert [e["type"] for e in _deal_events(run2.orch)] == ["deal-pending", "deal-offer"]
    run2.close()


def test_a_pending_offer_is_withdrawn_and_after_a_restart_with_no_hand_in_play_made(tmp_path) -> None:
    run, director, clock, ask = _table(tmp_path, LATE_TOML)
    run.pacer.max_hands = 0
    run.orch.pump()
    run.pacer.new_deck = [].append
    run.pacer.max_hands = None
    run.pacer.kick(run.orch)
    assert ask("deal-offer", method="chip-chop")[0]
    assert director.hand_start() is None  # pending: no next hand
    assert director.withdraw_deal(by="floor:Anna") == "deal offer 1 (offered when hand 1 ends) withdrawn (floor:Anna)"
    assert director.deal_pending is None and director.offer is None
    assert [e["type"] for e in _deal_events(run.orch)] == ["deal-pending", "deal-end"]
    assert director.hand_start() is not None  # the hold is released
    assert ask("deal-offer", method="chip-chop")[0]  # offer 2, pending: the deck asked for is on its way
    assert director.deal_pending is not None and director.deal_pending["offer"] == 2
    run.close()  # killed before the hand it waits for was dealt: the restart deals none
    run2, director2 = _reopen(tmp_path, LATE_TOML, clock)
    assert director2.deal_pending is None and director2.offer is not None and director2.offer["offer"] == 2
    assert director2.offer["hands"] == 0  # made at once, with the stacks between hands
    assert [e["type"] for e in _deal_events(run2.orch)] == ["deal-pending", "deal-end", "deal-pending", "deal-offer"]
    run2.close()


def test_a_deal_pending_on_a_deck_that_never_comes_is_made_at_the_next_idle_turn(tmp_path) -> None:
    """Breaker (issue 19): offered while the next hand's deck was on its way, the deck then
    failed (a failed check, a shuffle lost: the pacer asks again later) and no hand was dealt.
    The pending offer waited for a table event that never came, and held every next hand:
    the table stuck for good. Now the pacer's next look between hands makes it."""
    run, director, clock, ask = _table(tmp_path, LATE_TOML)
    run.pacer.max_hands = 0
    run.orch.pump()
    run.pacer.new_deck = [].append
    run.pacer.max_hands = None
    run.pacer.kick(run.orch)
    assert run.pacer.waiting_deck
    assert ask("deal-offer", method="icm")[0]
    assert director.deal_pending is not None
    run.pacer.deck_failed()  # the deck will not come: no hand 1, no table event
    run.pacer.kick(run.orch)  # the loop's idle turn
    assert director.deal_pending is None and director.offer is not None and director.offer["offer"] == 1
    assert director.offer["hands"] == 0 and run.orch.state.hands == 0
    assert [e["type"] for e in _deal_events(run.orch)] == ["deal-pending", "deal-offer"]
    assert not run.pacer.waiting_deck  # and no hand is asked for while the players answer
    run.close()


def test_a_pending_deal_that_cannot_be_journalled_at_the_pacers_look_pauses_the_table(tmp_path) -> None:
    """The pacer's look making a pending deal (above) journals it: a journal that cannot be
    written pauses the table (``journal-error``) as the listener does, the deal still
    pending and nothing dealt, and the look after the fault makes it."""
    from controller.journal import JournalError

    run, director, clock, ask = _table(tmp_path, LATE_TOML)
    run.pacer.max_hands = 0
    run.orch.pump()
    run.pacer.new_deck = [].append
    run.pacer.max_hands = None
    run.pacer.kick(run.orch)
    assert ask("deal-offer", method="icm")[0]
    run.pacer.deck_failed()
    real = director._journal

    def broken(payload):
        raise JournalError("disk full")

    director._journal = broken
    run.pacer.kick(run.orch)  # no exception out of the loop's idle turn
    run.orch.pump()
    assert director.deal_pending is not None and director.offer is None and not run.pacer.waiting_deck
    assert run.orch.faults.paused and any("disk full" in p for p in director.problems)
    director._journal = real
    assert director.hand_start() is None  # the next look makes it
    assert director.deal_pending is None and director.offer is not None
    run.close()
