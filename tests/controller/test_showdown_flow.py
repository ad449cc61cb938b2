"""Show or muck through the controller (P-2, P-4): the tablet's show/muck/auto_muck requests
and the seat buttons reach the table, the show-or-muck clock fires from the orchestrator's
clock, hand histories (JSON and PHH) get mucked and shown hands, an uncontested winner's
show rewrites its hand's history, and recovery from the journal gives the same table."""

from __future__ import annotations

import json
import random
import time
import tomllib
from dataclasses import replace

from controller.devices import DevicePorts, DriverAdapter, HistoryWriter
from controller.clock import ManualClock
from controller.dealer import InternalDealer
from controller.engine.replay import replay_file
from controller.history import recall
from controller.engine.table import events as ev
from controller.engine.table.audit import audit
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import TableState
from controller.journal import Journal
from controller.orchestrator import Orchestrator
from drivers.mqtt.events import ActionReceived
from drivers.seats.events import SeatButton
from drivers.seats.factory import mock_pin_factory
from drivers.seats.lights import ERROR
from drivers.seats.panel import SeatPanel
from drivers.seats.pinmap import DEFAULT_PIN_MAP
from drivers.seats.simulated import SimulatedHands

SETTINGS = TableSettings(id="t", seats=3, small_blind=50, big_blind=100, action_seconds=30,
                         showdown_seconds=6)
# button 1: hole cards go 2, 3, 1, 2, 3, 1; then burn, flop, burn, turn, burn, river
HOLES = {1: ["7c", "2d"], 2: ["As", "Ad"], 3: ["8s", "6d"]}
BOARD = ["Kh", "Qs", "4c", "9d", "3h"]


class FixedDealer(InternalDealer):
    """The internal dealer with a chosen deck order (cards of HOLES and BOARD)."""

    def deck(self, hand: int) -> list[str]:
        order = [HOLES[s][k] for k in range(2) for s in (2, 3, 1)]
        order += ["5c", *BOARD[:3], "5d", BOARD[3], "5h", BOARD[4]]
        rest = [c for c in super().deck(hand) if c not in order]
        return order + rest


class FakeLink:
    """What the MQTT link was asked to publish."""

    def __init__(self) -> None:
        self.private: list[tuple[int, dict | None]] = []
        self.history: list[list[dict]] = []
        self.replies: list[tuple] = []

    def publish_state(self, view):
        pass

    def publish_private(self, seat, view):
        self.private.append((seat, view))

    def publish_history(self, hands):
        self.history.append([dict(h) for h in hands])

    def reply(self, seat, action_id, accepted, reason):
        self.replies.append((seat, action_id, accepted, reason))


def _table(tmp_path, *, first_snapshot: bool = False):
    """Three players at a table with a fake link and hand files in ``tmp_path/hands``;
    ``first_snapshot``: as open_table gives a fresh journal (compaction starts from it)."""
    clock = ManualClock()
    ports = DevicePorts()
    ports.link = FakeLink()
    ports.history = HistoryWriter(tmp_path / "hands")
    # A snapshot every hand: compaction (test_compaction_shows) may end at any hand.
    orch = Orchestrator(TableState.new(SETTINGS), journal=Journal(tmp_path / "j.sqlite"), clock=clock, ports=ports,
                        snapshot_every=1)
    if first_snapshot:
        orch._snapshot(clock())  # noqa: SLF001 - as open_table does on a fresh journal
    adapter = DriverAdapter(orch, ports, clock=clock)
    orch.translate = adapter.translate
    orch.listeners.append(adapter.after_step)
    ports.dealer = FixedDealer(orch.post, clock, seed=3)
    for s in (1, 2, 3):
        orch.post(ev.PlayerSatDown(at=clock(), seat=s, player=f"p{s}", name=f"P{s}"))
        orch.post(ev.BoughtIn(at=clock(), seat=s, amount=5000))
    orch.post(ev.HandStartRequested(at=clock(), button=1))
    orch.pump()
    return orch, ports, clock


def _tablet(orch, clock, seat, action, action_id, choice=None):
    orch.post(ActionReceived(seat, action, None, action_id, orch.state.seq, clock(), choice=choice))
    orch.pump()


def _check_down(orch, clock):
    n = 0
    while orch.state.hand is not None and orch.state.hand.street.value != "showdown":
        lg = orch.state.hand.legal()
        _tablet(orch, clock, orch.state.hand.seat_to_act, "check" if lg.check else "call", f"a{n}")
        n += 1
        assert n < 30


def _recovers(orch, clock):
    again = Orchestrator.recover(orch.journal, lambda: TableState.new(SETTINGS), clock=clock)
    assert json.dumps(again.state.to_json(), sort_keys=True) == json.dumps(orch.state.to_json(), sort_keys=True)


def test_tablet_muck_the_clock_and_the_history(tmp_path):
    orch, ports, clock = _table(tmp_path)
    _check_down(orch, clock)
    assert orch.state.hand.seat_to_act == 3  # seat 2's aces were tabled; 8-6 is asked
    seat3 = [v for s, v in ports.link.private if s == 3 and v is not None][-1]
    assert seat3["legal"]["show"] and seat3["legal"]["muck"] and seat3["to_act"]
    _tablet(orch, clock, 3, "muck", "m1")
    assert (3, "m1", True, None) in ports.link.replies
    assert orch.state.hand.seat_to_act == 1
    # seat 1 lets the show-or-muck clock run out: the orchestrator's timer mucks for it
    clock.advance(SETTINGS.showdown_seconds - 1)
    orch.fire_timers()
    orch.pump()
    assert orch.state.hand is not None
    clock.advance(1.5)
    orch.fire_timers()
    orch.pump()
    assert orch.state.hand is None and not orch.state.seat(1).sitting_out
    rec = json.loads((tmp_path / "hands" / "hand-000001.json").read_text())
    assert {s["seat"]: s["showed"] for s in rec["seats"]} == {1: "mucked", 2: "shown", 3: "mucked"}
    assert rec["auto"] == [[2, "show", "P-2"], [1, "muck", "A-2"]]
    # P-4 on the wire: the public history holds seat 2's shown cards and no mucked card in
    # any field; the seated history adds the mucked hands
    from drivers.mqtt.codec import history_views

    public, seated = history_views(ports.link.history[-1])
    mucked = [c for st in rec["seats"] if st["showed"] == "mucked" for c in st["cards"]]
    assert len(mucked) == 4 and not any(c in json.dumps(public) for c in mucked), public
    assert all(c in json.dumps(seated) for c in mucked)
    assert all(c in json.dumps(public) for st in rec["seats"] if st["showed"] == "shown" for c in st["cards"])
    summary = public["hands"][-1]
    assert summary["hand"] == 1 and summary["board"] == rec["hand_record"]["board"]
    assert sum(st["net"] for st in summary["seats"]) == -summary["rake"]  # chips only move
    phh = tomllib.loads((tmp_path / "hands" / "hand-000001.phh").read_text())
    assert len(phh["_mucked"]) == 2  # P-4: both mucked hands are in the file
    replayed = replay_file(tmp_path / "hands" / "hand-000001.phh")  # ``livetable replay``
    assert replayed["error"] is None and replayed["finishing_stacks"] == phh["finishing_stacks"]
    assert audit(orch.state) == []
    _recovers(orch, clock)


def _press(orch, panel, clock, seat, button) -> bool:
    """Press a seat button through gpiozero's mock pins; return whether the table changed."""
    seq = orch.state.seq
    clock.advance(1)  # past the panel's bounce time since this button's last edge
    SimulatedHands(panel).press(seat, button)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # gpiozero may call back on its own thread
        orch.pump()
        if orch.state.seq != seq:
            return True
        if button is SeatButton.BET_RAISE and panel.patterns().get(seat) == ERROR:
            return False  # ignored by the panel, with the error blink
        time.sleep(0.01)
    return False


def test_auto_muck_from_the_tablet_and_a_seat_button_show(tmp_path):
    orch, ports, clock = _table(tmp_path)
    panel = SeatPanel(DEFAULT_PIN_MAP, mock_pin_factory(), orch.post, clock, auto_refresh=False)
    ports.panel = panel
    try:
        _tablet(orch, clock, 3, "auto_muck", "p1", choice="on")
        assert orch.state.seat(3).auto_muck and (3, "p1", True, None) in ports.link.replies
        _check_down(orch, clock)
        assert orch.state.hand.seat_to_act == 1  # seat 3 was mucked without asking
        # seat 1's check/call button shows the hand at the showdown; bet/raise does nothing
        assert not _press(orch, panel, clock, 1, SeatButton.BET_RAISE)
        assert orch.state.hand is not None
        assert _press(orch, panel, clock, 1, SeatButton.CHECK_CALL)
        assert orch.state.hand is None
    finally:
        panel.close()
    rec = ports.history.recent[-1]
    assert {s["seat"]: s["showed"] for s in rec["seats"]} == {1: "shown", 2: "shown", 3: "mucked"}
    _recovers(orch, clock)


def test_uncontested_winner_shows_from_the_tablet_and_the_history_is_rewritten(tmp_path):
    orch, ports, clock = _table(tmp_path)
    n = 0
    while orch.state.hand is not None:  # everyone folds to the big blind (seat 3)
        _tablet(orch, clock, orch.state.hand.seat_to_act, "fold", f"f{n}")
        n += 1
    first = json.loads((tmp_path / "hands" / "hand-000001.json").read_text())
    assert {s["seat"]: s["showed"] for s in first["seats"]}[3] == "folded"
    offer = ports.link.private[-1]
    assert offer[0] == 3 and offer[1]["legal"]["show"] and offer[1]["cards"] == HOLES[3]
    assert all(v is None for s, v in ports.link.private[-3:] if s != 3)
    _tablet(orch, clock, 3, "show", "s1")
    assert (3, "s1", True, None) in ports.link.replies
    assert ports.link.private[-1] == (3, None)  # the offer is gone
    again = json.loads((tmp_path / "hands" / "hand-000001.json").read_text())
    assert {s["seat"]: s["showed"] for s in again["seats"]}[3] == "shown"
    assert [r["hand"] for r in ports.history.recent] == [1]  # replaced, not added
    from controller.history import hand_summary

    assert ports.link.history[-1] == [hand_summary(again)]  # published again, as a summary
    assert {st["seat"]: st["cards"] for st in hand_summary(again)["seats"]}[3] == HOLES[3]
    phh = tomllib.loads((tmp_path / "hands" / "hand-000001.phh").read_text())
    assert phh["actions"][-1].endswith("sm 8s6d")
    replayed = replay_file(tmp_path / "hands" / "hand-000001.phh")  # the show after the hand replays
    assert replayed["error"] is None and replayed["finishing_stacks"] == phh["finishing_stacks"]
    public = orch.public_view()
    assert next(s for s in public["seats"] if s["seat"] == 3)["shown"] == HOLES[3]
    # the floor's game recall (livetable history) shows the show after the hand
    last = recall(tmp_path / "j.sqlite", hands=1).hands[-1]
    assert last.number == 1 and last.steps[-1].kind == "show" and last.steps[-1].seat == 3
    assert last.steps[-1].data["cards"] == HOLES[3] and "after the hand" in last.steps[-1].text
    _recovers(orch, clock)


def test_simulated_players_answer_show_or_muck_without_the_clock():
    """``livetable simulate``'s players choose at the showdown (P-2), so the table never
    waits out the show-or-muck clock for them."""
    from controller.bots import SimPlayers, choose_action

    none = {"fold": False, "check": False, "call": None, "bet": None, "raise": None, "all_in": None, "draw": None}
    picks = {choose_action({**none, "show": True, "muck": True}, ["As", "Kd"], random.Random(s))["action"]
             for s in range(40)}
    assert picks == {"show", "muck"}
    chosen = 0
    for seed in range(12):
        clock = ManualClock()
        ports = DevicePorts()
        orch = Orchestrator(TableState.new(SETTINGS), journal=None, clock=clock, ports=ports)
        ports.dealer = FixedDealer(orch.post, clock, seed=seed)
        for s in (1, 2, 3):
            orch.post(ev.PlayerSatDown(at=clock(), seat=s, player=f"p{s}", name=f"P{s}"))
            orch.post(ev.BoughtIn(at=clock(), seat=s, amount=5000))
        orch.listeners.append(SimPlayers((1, 2, 3), orch.post, clock, seed=seed))
        records: list[dict] = []
        ports.hand_finished = lambda hand, record: records.append(record)  # type: ignore[method-assign]
        orch.post(ev.HandStartRequested(at=clock(), button=1))
        for _ in range(500):
            if orch.pump() == 0:
                break
        assert orch.state.hand is None, "a simulated player left the table waiting"
        rec = records[-1]
        assert not [a for a in rec["auto"] if a[2] == "A-2"]
        mine = [e for e in rec["hand_record"]["events"] if e["t"] in ("show", "muck")
                and [e["seat"], e["t"], "P-2"] not in rec["auto"]]
        chosen += len(mine)
        assert audit(orch.state) == []
    assert chosen > 0, "no simulated player ever had a show-or-muck turn"


def test_the_pacer_waits_a_moment_for_the_uncalled_winner_to_show(tmp_path):
    """P-2: the next hand is asked for only after the show window, or as soon as the
    winner showed; a simulated player or an offline winner is not waited for."""
    from controller.runtime import HandPacer

    orch, ports, clock = _table(tmp_path)
    pacer = HandPacer(orch.post, clock, show_window=3.0)
    n = 0
    while orch.state.hand is not None:  # everyone folds to seat 3
        _tablet(orch, clock, orch.state.hand.seat_to_act, "fold", f"f{n}")
        n += 1
    pacer.kick(orch)
    orch.pump()
    assert orch.state.hand is None and pacer.holding(orch.state)
    clock.advance(2.9)
    pacer.kick(orch)
    orch.pump()
    assert orch.state.hand is None  # still inside the window
    _tablet(orch, clock, 3, "show", "s1")
    assert not pacer.holding(orch.state)
    pacer.kick(orch)
    orch.pump()
    assert orch.state.hand is not None  # shown: the next hand at once
    while orch.state.hand is not None:
        _tablet(orch, clock, orch.state.hand.seat_to_act, "fold", f"f{n}")
        n += 1
    winner = next(w for a in orch.state.last_result["result"]["awards"] for w in a["winners"])
    assert pacer.holding(orch.state)
    assert not HandPacer(orch.post, clock, show_window=3.0, bots={winner}).holding(orch.state)
    assert not HandPacer(orch.post, clock).holding(orch.state)  # no window
    clock.advance(3.1)
    assert not pacer.holding(orch.state)  # the window is over


def _to_the_end(orch, clock):
    """Check the hand down and muck every show-or-muck turn (seat 2's aces win, seed 3)."""
    _check_down(orch, clock)
    n = 0
    while orch.state.hand is not None:
        _tablet(orch, clock, orch.state.hand.seat_to_act, "muck", f"m{n}")
        n += 1
        assert n < 10


def test_the_pacer_holds_a_showdowns_result_while_a_players_tablet_is_online(tmp_path):
    """Issue 20: after a showdown the next hand started ~1 s later and the shown hands and
    awards were never seen: the pacer holds the result ``result_seconds`` (the injected
    clock) while a seat that is not a bot is connected; a bots-only table deals at once."""
    from controller.runtime import HandPacer

    orch, ports, clock = _table(tmp_path)
    decks: list[int] = []
    pacer = HandPacer(orch.post, clock, new_deck=decks.append, result_seconds=5.0)
    orch.listeners.append(pacer)
    _to_the_end(orch, clock)
    assert orch.state.last_result["result"]["showdown_order"]  # a showdown
    assert decks == [] and pacer.holding(orch.state)
    clock.advance(4.9)
    pacer.kick(orch)
    assert decks == [], "the next deck was asked for while the result was still on show"
    clock.advance(0.2)
    pacer.kick(orch)
    assert decks == [2]  # the hold is over: hand 2's deck
    # bots only (every seat simulated) or every tablet offline: no hold
    assert not HandPacer(orch.post, clock, result_seconds=5.0, bots={1, 2, 3})._showing_result(
        replace(orch.state, last_result={**orch.state.last_result, "ended": clock()}))
    for s in (1, 2, 3):
        orch.post(ev.TabletDisconnected(at=clock(), seat=s))
    orch.pump()
    assert not HandPacer(orch.post, clock, result_seconds=5.0)._showing_result(
        replace(orch.state, last_result={**orch.state.last_result, "ended": clock()}))
    assert audit(orch.state) == []

