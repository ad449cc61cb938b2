"""``livetable floor`` against a running table: the command's ``main`` in this process, the
real Mosquitto (a private broker with the repo's ACL, the ``floor`` login), the controller's
``TableLink``, the ``DriverAdapter`` and the orchestrator's loop in its own thread with a
SQLite journal (docs/faults.md "The floor's command")."""

from __future__ import annotations

import json
import socket
import threading

import pytest

from controller import floor_cli
from controller.devices import DevicePorts, DriverAdapter
from controller.clock import ManualClock
from controller.dealer import InternalDealer
from controller.engine.table import events as ev
from controller.engine.table.audit import audit
from controller.engine.table.play import cards_to_read
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import TableState
from controller.faults import FaultExit, FaultKind
from controller.journal import Journal
from controller.orchestrator import DeviceBack, Orchestrator, RaiseFault
from drivers.mqtt.events import ActionReceived
from drivers.mqtt.link import TableLink
from tests.controller.test_unknown_hole_cards import ORDER, UnreadDealer, _check_down
from tests.mqtt.conftest import TABLE, WAIT, rig  # noqa: F401 - the private broker fixture


class Table:
    """An orchestrator (journal, adapter, DevicePorts) whose loop runs in a thread once
    :meth:`start` connected its link to the rig's broker."""

    def __init__(self, tmp_path, *, seats: int = 3, tablet_join: str = "direct") -> None:
        self.clock = ManualClock()
        self.ports = DevicePorts()
        self.settings = TableSettings(id=TABLE, seats=seats, small_blind=5, big_blind=10, action_seconds=30,
                                      tablet_join=tablet_join)
        self.orch = Orchestrator(TableState.new(self.settings), journal=Journal(tmp_path / "j.sqlite"),
                                 clock=self.clock, ports=self.ports)
        self.adapter = DriverAdapter(self.orch, self.ports, clock=self.clock)
        self.orch.translate = self.adapter.translate
        self.orch.listeners.append(self.adapter.after_step)
        self.thread: threading.Thread | None = None

    def seat_players(self, seats=(1, 2, 3), amount: int = 1000) -> None:
        for s in seats:
            self.orch.post(ev.PlayerSatDown(at=self.clock(), seat=s, player=f"p{s}", name=f"P{s}"))
            self.orch.post(ev.BoughtIn(at=self.clock(), seat=s, amount=amount))
        self.orch.pump()

    def start(self, rig) -> None:  # noqa: F811
        link = TableLink(TABLE, host="127.0.0.1", port=rig.broker.mqtt_port, username="controller",
                         password=rig.creds["controller"]["password"], post=self.orch.post,
                         max_seats=self.settings.seats, backoff=(0.05, 0.5))
        rig._stops.append(link.stop)
        link.start()
        link.wait_connected(WAIT)
        self.ports.link = link
        self.thread = threading.Thread(target=self.orch.run, kwargs={"poll": 0.01}, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        if self.thread is not None:
            self.orch.stop()
            self.thread.join(WAIT)


@pytest.fixture
def table(tmp_path):
    t = Table(tmp_path)
    yield t
    t.stop()


@pytest.fixture
def floor(rig, tmp_path, capsys):  # noqa: F811
    """``floor(*args)`` runs ``livetable floor ARGS`` as the floor login: (exit code, stdout, stderr)."""
    path = tmp_path / "floor-password"
    path.write_text(rig.creds["floor"]["password"] + "\n")

    def run(*args: str) -> tuple[int, str, str]:
        code = floor_cli.main([*args, "--table", TABLE, "--port", str(rig.broker.mqtt_port),
                               "--password-file", str(path), "--timeout", str(WAIT)])
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


def _stacks(orch) -> dict[int, int]:
    return {s.seat: s.stack for s in orch.state.seats if s is not None}


def test_status_shows_the_open_fault_void_ends_it_and_every_wager_goes_back(rig, table, floor):  # noqa: F811
    table.ports.dealer = InternalDealer(table.orch.post, table.clock, seed=5)
    table.seat_players()
    before = _stacks(table.orch)
    table.orch.post(ev.HandStartRequested(at=table.clock(), button=1))
    table.orch.pump()
    # the first to act raises: chips are in the pot when the shuffler jams
    lg = table.orch.state.hand.legal()
    table.orch.post(ev.ActionTaken(at=table.clock(), seat=lg.seat, action="raise", amount=lg.raise_[0]))
    table.orch.post(RaiseFault(FaultKind.JAM.value, "shuffler jammed: test"))
    table.orch.pump()
    hand = table.orch.state.hand
    assert sum(hand.committed) >= lg.raise_[0] + 5 and table.orch.faults.paused  # raise + small blind
    table.start(rig)

    code, out, _ = floor("status")
    assert code == 0
    assert "fault 1 jam" in out and "exits: misdeal, resume, void" in out and "balanced" in out
    code, out, _ = floor("status", "--json")
    status = json.loads(out)["status"]
    assert status["faults"][0]["kind"] == "jam" and status["hand"] == 1 and status["paused"] is True

    # an exit the jam does not allow is refused with the reason; nothing changes
    code, out, _ = floor("correction", "jam", "--by", "Anna")
    assert code == 1 and "refused: F-2:" in out and "not correction" in out
    assert table.orch.faults.paused and table.orch.state.hand is not None

    code, out, _ = floor("void", "1", "--by", "Anna", "--reason", "jam at the flop")
    assert code == 0 and "jam ended by void (floor:Anna)" in out and "every wager returned" in out
    orch = table.orch
    assert not orch.faults.paused and orch.state.hand is None
    assert _stacks(orch) == before and audit(orch.state) == []
    ending = orch.faults.endings[-1]
    assert (ending.kind, ending.exit, ending.by, ending.note) == (
        FaultKind.JAM, FaultExit.VOID, "floor:Anna", "jam at the flop")
    journalled = [e.payload for e in orch.journal.entries(kinds=("fault-ended",))]
    assert journalled[-1]["by"] == "floor:Anna"
    # the fault is gone: the same decision again is refused, not repeated
    code, out, _ = floor("void", "jam", "--by", "Anna")
    assert code == 1 and "no jam fault is open" in out


def test_a_hole_cards_unknown_fault_is_ended_by_reading_the_cards(rig, table, floor):  # noqa: F811
    table.ports.dealer = UnreadDealer(table.orch.post, table.clock, ORDER, {"As"})
    table.seat_players()
    table.orch.post(ev.HandStartRequested(at=table.clock(), button=1))
    table.orch.pump()
    _check_down(table.orch, table.clock)
    assert table.orch.faults.current.kind is FaultKind.HOLE_CARDS_UNKNOWN and cards_to_read(table.orch.state) == 2
    table.start(rig)

    code, out, _ = floor("status")
    assert "fault 1 hole-cards-unknown" in out and "waiting for seat 2's hole cards" in out
    # a bare correction is no reading; the wrong seat and a card already dealt are refused
    code, out, _ = floor("correction", "hole-cards-unknown", "--by", "Anna")
    assert code == 1 and "P-2: the correction is the cards" in out
    code, out, _ = floor("read", "3", "8s", "6d", "--by", "Anna")
    assert code == 1 and "waits for seat 2's hole cards" in out
    code, out, _ = floor("read", "2", "Kh", "Ad", "--by", "Anna")
    assert code == 1 and "refused: G-5" in out and "Kh" in out
    assert table.orch.faults.paused

    code, out, _ = floor("read", "2", "as", "AD", "--by", "Anna")  # typed in any case
    assert code == 0 and "seat 2 read as As Ad" in out
    orch = table.orch
    assert not orch.faults.paused and cards_to_read(orch.state) is None
    ending = orch.faults.endings[-1]
    assert (ending.kind, ending.exit, ending.by) == (FaultKind.HOLE_CARDS_UNKNOWN, FaultExit.CORRECTION, "floor:Anna")
    assert audit(orch.state) == []


def test_confirm_buyin_brings_the_chips_and_pause_then_resume(rig, tmp_path, floor):  # noqa: F811
    t = Table(tmp_path, seats=4, tablet_join="confirm")
    try:
        t.ports.dealer = InternalDealer(t.orch.post, t.clock, seed=1)
        t.seat_players((1, 2))
        t.orch.post(ActionReceived(3, "take_seat", 600, "j1", t.orch.state.seq, t.clock(), name="Ann", post=False))
        t.orch.pump()
        total = t.orch.state.ledger.total_in
        assert t.orch.state.seat(3).buy_in_pending == 600
        t.start(rig)
        code, out, _ = floor("status")
        assert "buy-in waiting: seat 3 Ann, 600 chips" in out
        code, out, _ = floor("confirm-buyin", "4", "--by", "Anna")
        assert code == 1 and "seat 4 has no buy-in waiting" in out and "waiting: 3" in out
        code, out, _ = floor("confirm-buyin", "3", "--by", "Anna")
        assert code == 0 and "600 chips" in out
        seat = t.orch.state.seat(3)
        assert (seat.stack, seat.buy_in_pending) == (600, 0) and t.orch.state.ledger.total_in == total + 600
        assert audit(t.orch.state) == []

        code, out, _ = floor("pause", "--by", "Anna", "--reason", "dispute at seat 2")
        assert code == 0 and t.orch.faults.current.kind is FaultKind.PAUSED
        assert "paused by floor:Anna: dispute at seat 2" in t.orch.faults.current.message
        code, out, _ = floor("pause", "--by", "Anna")
        assert code == 1 and "already paused" in out
        code, out, _ = floor("resume", "paused", "--by", "Anna")
        assert code == 0 and not t.orch.faults.paused
    finally:
        t.stop()


def test_clear_errors_when_the_broker_or_the_table_does_not_answer(rig, table, floor, tmp_path, capsys):  # noqa: F811
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    code = floor_cli.main(["status", "--port", str(dead), "--timeout", "2"])
    assert code == 3 and "cannot reach the broker" in capsys.readouterr().err
    # a wrong password: the broker refuses the login
    bad = tmp_path / "bad"
    bad.write_text("nope\n")
    code = floor_cli.main(["status", "--port", str(rig.broker.mqtt_port), "--password-file", str(bad)])
    assert code == 3 and "refused the login" in capsys.readouterr().err
    # a table whose controller said goodbye (retained presence "offline"): no long wait
    table.seat_players()
    table.start(rig)
    assert floor("status")[0] == 0
    # the provisioning directory's shared logins serve as well as a password file
    code = floor_cli.main(["status", "--port", str(rig.broker.mqtt_port), "--credentials", str(rig.workdir)])
    assert code == 0 and "no fault open" in capsys.readouterr().out
    # anonymous (no login given and none on this machine): the broker lets it send nothing
    code = floor_cli.main(["status", "--port", str(rig.broker.mqtt_port), "--timeout", "1"])
    err = capsys.readouterr().err
    assert code in (3, 4) and "anonymous" in err, err
    table.stop()
    table.ports.link.stop()
    code, _, err = floor("status")
    assert code == 4 and "controller is offline" in err
    # usage errors: exit 2 before anything is sent
    assert floor_cli.main(["void", "jam"]) == 2  # --by is required
    assert floor_cli.main(["read", "2", "Xx", "--by", "Anna", "--port", str(dead)]) == 2


def test_a_decision_overtaken_by_the_system_is_refused_with_what_happened(tmp_path):
    """Loop only (no broker): the shuffler's link comes back between the floor's request and
    its turn in the loop; the floor hears that the fault ended meanwhile, and by whom."""
    from drivers.mqtt.events import FloorRequestReceived

    t = Table(tmp_path)
    t.seat_players()
    t.orch.post(RaiseFault(FaultKind.SHUFFLER_LOST.value, "link lost: test"))
    t.orch.pump()
    t.orch.post(FloorRequestReceived("f-1", "void", "Anna", t.clock(), fault="shuffler-lost"))
    t.orch.post(DeviceBack(FaultKind.SHUFFLER_LOST.value, "link restored"))
    t.orch.pump()
    assert list(t.ports.floor_replies) == [
        ("f-1", "void", False, "F-2: the shuffler-lost fault ended meanwhile by resume (system)", None)]
    assert [x.by for x in t.orch.faults.endings] == ["system"] and audit(t.orch.state) == []
