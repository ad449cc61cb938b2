"""The orchestrator: journal before acting, pause and exits, timers from the clock, S-8 equity (issue 9)."""

from __future__ import annotations

import pytest

from controller.bots import SimPlayers
from controller.clock import ManualClock
from controller.dealer import InternalDealer
from controller.engine.table import events as ev
from controller.engine.table.audit import audit
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import TableState
from controller.journal import Journal, JournalError
from controller.orchestrator import FloorDecision, ManualPause, Orchestrator, Ports, RaiseFault
from controller.runtime import all_in_equity, open_table


class Recorder(Ports):
    def __init__(self) -> None:
        self.public: list[dict] = []
        self.replies: list[tuple] = []
        self.finished: list[int] = []

    def publish_public(self, view):
        self.public.append(view)

    def reply(self, seat, action_id, accepted, reason):
        self.replies.append((seat, action_id, accepted, reason))

    def hand_finished(self, hand, record):
        self.finished.append(hand)


def _table(tmp_path, *, seats=3, journal=True, clock=None):
    clock = clock or ManualClock()
    ports = Recorder()
    settings = TableSettings(id="t", seats=seats, action_seconds=30)
    j = Journal(tmp_path / "j.sqlite") if journal else None
    orch = Orchestrator(TableState.new(settings), journal=j, clock=clock, ports=ports)
    orch.equity_fn = all_in_equity
    ports.dealer = InternalDealer(orch.post, clock, seed=5)
    for s in range(1, seats + 1):
        orch.post(ev.PlayerSatDown(at=clock(), seat=s, player=f"p{s}", name=f"P{s}"))
        orch.post(ev.BoughtIn(at=clock(), seat=s, amount=5000))
    orch.pump()
    return orch, ports, clock


def _start(orch, clock):
    orch.post(ev.HandStartRequested(at=clock()))
    orch.pump()
    assert orch.state.hand is not None and orch.state.dealing is None


def test_every_event_is_journalled_before_the_table_acts(tmp_path):
    orch, ports, clock = _table(tmp_path)
    _start(orch, clock)
    kinds = [e.payload["kind"] for e in orch.journal.entries(kinds=("table",))]
    assert kinds.count("player-sat-down") == 3 and kinds.count("card-dealt") == 6
    # Replaying the journal gives the very same state.
    again = Orchestrator.recover(orch.journal, lambda: TableState.new(orch.state.settings), clock=clock)
    assert again.state.to_json() == orch.state.to_json()


def test_journal_failure_pauses_and_nothing_is_acted_on(tmp_path):
    orch, ports, clock = _table(tmp_path)
    _start(orch, clock)
    seat = orch.state.hand.seat_to_act
    before = orch.state

    def broken(*a, **k):
        raise JournalError("disk full")

    orch.journal.append = broken
    orch.post(ev.ActionTaken(at=clock(), seat=seat, action="fold"))
    orch.pump()
    after = orch.state.to_json()
    assert after.pop("seq") == before.seq + 1  # only the pause shows
    expected = before.to_json()
    expected.pop("seq")
    assert after == expected
    assert orch.faults.current.kind.value == "journal-error"
    assert ports.public[-1]["paused"] is True and ports.public[-1]["fault"]["kind"] == "journal-error"


def test_paused_table_refuses_actions_and_void_returns_every_wager(tmp_path):
    orch, ports, clock = _table(tmp_path)
    _start(orch, clock)
    start = dict(orch.state.info.start_stacks)
    seat = orch.state.hand.seat_to_act
    orch.post(ev.ActionTaken(at=clock(), seat=seat, action="raise", amount=300))
    orch.pump()
    orch.post(ManualPause())
    orch.pump()
    nxt = orch.state.hand.seat_to_act
    orch.post(ev.ActionTaken(at=clock(), seat=nxt, action="call", action_id="a1"))
    orch.pump()
    assert ports.replies[-1][:3] == (nxt, "a1", False) and ports.replies[-1][3].startswith("F-1")
    # A person must decide; the dealer voids.
    orch.post(FloorDecision("paused", "void", "floor:anna"))
    orch.pump()
    assert not orch.faults.paused and orch.state.hand is None
    for s, stack in start.items():
        assert orch.state.seat(s).stack == stack
    assert audit(orch.state) == []
    ending = orch.faults.endings[-1]
    assert (ending.exit.value, ending.by) == ("void", "floor:anna")
    ended = [e.payload for e in orch.journal.entries(kinds=("fault-ended",))]
    assert ended[-1]["by"] == "floor:anna"


def test_timer_fires_from_the_injected_clock_and_stops_while_paused(tmp_path):
    orch, ports, clock = _table(tmp_path)
    _start(orch, clock)
    seat = orch.state.hand.seat_to_act
    clock.advance(29)
    orch.pump()
    assert orch.state.hand.seat_to_act == seat
    orch.post(RaiseFault("camera-lost", "camera unplugged"))
    orch.pump()
    clock.advance(120)
    orch.pump()
    assert orch.state.hand.seat_to_act == seat  # no timeout while paused
    orch.post(FloorDecision("camera-lost", "resume", "system"))
    orch.pump()
    clock.advance(29)
    orch.pump()
    assert orch.state.hand.seat_to_act == seat  # the whole time again after a pause
    clock.advance(2)
    orch.pump()
    assert orch.state.hand is None or orch.state.hand.seat_to_act != seat  # timed out
    assert orch.state.seat(seat).sitting_out


def test_all_in_hands_show_equity_s8(tmp_path):
    orch, ports, clock = _table(tmp_path, seats=2)
    _start(orch, clock)
    a = orch.state.hand.seat_to_act
    orch.post(ev.ActionTaken(at=clock(), seat=a, action="all_in"))
    orch.pump()
    b = orch.state.hand.seat_to_act
    facing = ports.public[-1]
    # b, chips behind, faces the all-in: a decision, so no equity and no hand face up
    assert facing["turn"]["seat"] == b and facing["all_in_equity"] is None
    assert all(s["shown"] is None for s in facing["seats"])
    n = len(ports.public)
    orch.post(ev.ActionTaken(at=clock(), seat=b, action="call"))
    orch.pump()
    runout = [v for v in ports.public[n:] if v["street"] != "waiting"]
    # every state from the call to the showdown: flop, turn and river, each while dealt
    streets = [v["street"] for v in runout]
    assert streets[0] == "flop" and {"flop", "turn", "river"} <= set(streets)
    for v in runout:
        eq = v["all_in_equity"]
        assert eq is not None, f"no equity on the {v['street']} of the run-out: {v}"
        assert set(eq) == {str(a), str(b)} and abs(sum(eq.values()) - 1) < 1e-3
        assert v["turn"] is None and all(s["shown"] for s in v["seats"] if s["cards"])
    assert ports.public[-1]["street"] == "waiting" and ports.public[-1]["all_in_equity"] is None


def test_recovery_voids_a_hand_interrupted_mid_deal(tmp_path):
    clock = ManualClock()
    orch, ports, clock = _table(tmp_path, clock=clock)
    orch.ports.dealer = None  # the deal never completes: a card is "on its way"
    orch.post(ev.HandStartRequested(at=clock()))
    orch.pump()
    assert orch.state.dealing is not None
    start = dict(orch.state.info.start_stacks)
    orch.journal.close()
    again, rec = open_table(tmp_path / "j.sqlite", orch.state.settings, clock=clock)
    assert rec.outcome == "voided" and "on its way" in rec.reason
    assert again.state.hand is None
    for s, stack in start.items():
        assert again.state.seat(s).stack == stack
    assert audit(again.state) == []


def test_simulated_players_finish_hands(tmp_path):
    orch, ports, clock = _table(tmp_path, journal=False, seats=4)
    orch.listeners.append(SimPlayers(range(1, 5), orch.post, clock, seed=2))
    for _ in range(5):
        orch.post(ev.HandStartRequested(at=clock()))
        for _ in range(200):
            if orch.pump() == 0:
                if orch.state.hand is None:
                    break
                clock.advance(31)
        assert orch.state.hand is None
        assert audit(orch.state) == []
    assert len(ports.finished) == 5


def test_a_void_the_floor_decided_survives_a_crash_before_it_was_carried_out(tmp_path):
    orch, ports, clock = _table(tmp_path)
    _start(orch, clock)
    start = dict(orch.state.info.start_stacks)
    orch.post(ev.ActionTaken(at=clock(), seat=orch.state.hand.seat_to_act, action="raise", amount=300))
    orch.post(ManualPause())
    orch.pump()
    # The decision reaches the journal; the power fails before the void does.
    orch._journal("fault-ended", {"kind": "paused", "message": "paused by the dealer", "since": clock(),
                                  "exit": "misdeal", "by": "floor:anna", "at": clock(), "note": ""}, clock())
    settings = orch.state.settings
    orch.journal.close()
    again, rec = open_table(tmp_path / "j.sqlite", settings, clock=clock)
    assert rec.outcome == "voided" and "floor:anna" in rec.reason
    assert again.state.hand is None
    assert {s: again.state.seat(s).stack for s in start} == start


def test_a_changed_config_applies_between_hands_and_another_tables_journal_is_refused(tmp_path):
    clock = ManualClock()
    first, rec = open_table(tmp_path / "j.sqlite", TableSettings(id="t", seats=3, action_seconds=30), clock=clock)
    assert rec.outcome == "fresh"
    first.handle(ev.PlayerSatDown(at=clock(), seat=1, player="p1"))
    first.journal.close()
    changed = TableSettings(id="t", seats=3, action_seconds=30, big_blind=200, small_blind=100)
    again, rec = open_table(tmp_path / "j.sqlite", changed, clock=clock)
    assert again.state.settings.big_blind == 200
    kinds = [e.payload["kind"] for e in again.journal.entries(kinds=("table",))]
    assert kinds[-1] == "settings-changed"
    again.journal.close()
    with pytest.raises(JournalError, match="journal is table 't'"):
        open_table(tmp_path / "j.sqlite", TableSettings(id="other", seats=3), clock=clock)


def test_bad_inputs_never_stop_the_loop(tmp_path):
    orch, ports, clock = _table(tmp_path)
    for junk in (object(), RaiseFault("gremlin", "x"), ManualPause(reason=object()), None, 42):
        orch.handle(junk)
    _start(orch, clock)  # still deals


def test_a_fault_raises_the_seq_and_recovery_gives_the_same_seq(tmp_path):
    orch, ports, clock = _table(tmp_path)
    _start(orch, clock)
    before = ports.public[-1]["seq"]
    orch.post(RaiseFault("jam", "card stuck"))
    orch.pump()
    assert ports.public[-1]["seq"] > before and ports.public[-1]["paused"] is True
    orch.post(FloorDecision("jam", "resume", "dealer"))
    orch.pump()
    assert ports.public[-1]["seq"] > before + 1 and ports.public[-1]["paused"] is False
    again = Orchestrator.recover(orch.journal, lambda: TableState.new(orch.state.settings), clock=clock)
    assert again.state.seq == orch.state.seq
    assert again.state.to_json() == orch.state.to_json()


def test_an_event_the_table_cannot_take_pauses_and_recovery_skips_it(tmp_path, monkeypatch):
    orch, ports, clock = _table(tmp_path)
    import controller.orchestrator as o

    real = o.step

    def broken(state, event):
        if isinstance(event, ev.SatOut):
            raise RuntimeError("a bug")
        return real(state, event)

    monkeypatch.setattr(o, "step", broken)
    orch.post(ev.SatOut(at=clock(), seat=2))
    orch.pump()
    assert orch.faults.current.kind.value == "journal-error"
    monkeypatch.setattr(o, "step", real)
    again = Orchestrator.recover(orch.journal, lambda: TableState.new(orch.state.settings), clock=clock)
    assert not again.state.seat(2).sitting_out and again.faults.paused


_SIGNAL_CHILD = r'''
import signal, sys
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import TableState
from controller.orchestrator import Orchestrator

orch = Orchestrator(TableState.new(TableSettings(id="sig", seats=2)), journal=None, clock=lambda: 0.0)
orch.translate = lambda o, item: []  # driver noise, translated to nothing
state = {"signals": 0, "busy": False}

def on_signal(*_):  # as livetable run's SIGTERM handler: post, and at last stop
    state["busy"] = True
    state["signals"] += 1
    orch.post("posted by a signal handler")
    if state["signals"] >= 300:
        orch.stop()
    state["busy"] = False

def every_call(frame, event, arg):  # a signal at every call the loop makes, inside locks too
    if not state["busy"] and event in ("call", "c_call"):
        signal.raise_signal(signal.SIGUSR1)

signal.signal(signal.SIGUSR1, on_signal)
for _ in range(20):
    orch.post("queued before")
sys.setprofile(every_call)
orch.run(poll=0.001)
sys.setprofile(None)
print("stopped", state["signals"])
'''


def test_stop_and_post_from_a_signal_handler_never_deadlock_the_loop():
    """SIGTERM's handler calls ``orch.stop()`` (a ``post``) in the loop's own thread, at any
    point of the loop: also while the loop is inside the inbox's ``get``. A lock there
    (``queue.Queue``) deadlocked ``livetable run`` on SIGTERM; the signal is raised here at
    every call the loop makes, in a child process that must stop by itself."""
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    try:
        res = subprocess.run([sys.executable, "-c", _SIGNAL_CHILD], cwd=repo, capture_output=True,
                             text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the loop deadlocked on a post from a signal handler")
    assert res.returncode == 0 and res.stdout.startswith("stopped"), res.stderr[-2000:]


def test_start_up_clears_the_private_view_of_every_seat_not_dealt_in(tmp_path):
    """After a restart the broker may still hold an earlier occupant's retained private view
    (hole cards, "your turn"): publishing everything clears it for seats not dealt in."""
    orch, ports, clock = _table(tmp_path, seats=4)  # seats 1..4 filled
    orch.post(ev.StoodUp(at=clock(), seat=4))
    orch.pump()
    _start(orch, clock)
    sent: list[tuple] = []
    ports.publish_private = lambda seat, view: sent.append((seat, view))  # type: ignore[method-assign]
    orch.resume_after_recovery()
    by_seat = dict(sent)
    assert sorted(by_seat) == [1, 2, 3, 4]
    assert by_seat[4] is None  # left the table: nothing may stay on its topic
    assert all(by_seat[s]["seat"] == s and len(by_seat[s]["cards"]) == 2 for s in (1, 2, 3))
