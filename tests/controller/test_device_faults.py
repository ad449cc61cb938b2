"""Each injected device fault ends in the documented paused state and its exits (issue 9).

Through the orchestrator and the real drivers on simulated hardware (:class:`SimTable`: the
shuffler driver on the emulator's pty, the camera read by the recognizer, the MQTT link on a
broker, the journal on SQLite), each fault of docs/faults.md is injected. For each:

- the table pauses: the public view says ``paused: true`` with the right ``fault.kind``;
- a player's action is refused while paused (``F-1``), and so is a seat request;
- every allowed exit (controller/faults.py ``ALLOWED_EXITS``) ends it as documented:
  ``resume``/``correction`` continue the hand to its end, ``misdeal``/``void`` return every
  wager (each stack back to the hand's start, chips conserved);
- the ending is logged with who decided it (``orchestrator.faults.endings`` and the
  journal's ``fault-ended`` entry).
"""

from __future__ import annotations

import itertools
import uuid
from pathlib import Path
from typing import Any, Callable

import pytest
from localbroker import needs_broker  # tests/controller is on sys.path

from controller.engine.table.audit import audit
from controller.faults import ALLOWED_EXITS, FaultKind
from controller.journal import Journal, JournalError
from controller.orchestrator import FloorDecision
from controller.simtable import SimTable
from drivers.mqtt.events import ActionReceived

WAIT = 25.0  # seconds: the bound on every wait below
_ids = itertools.count(1)


def _sim(tmp_path: Path, inject: Callable[[SimTable], None] | None = None, *, extra: tuple[str, ...] = (),
         max_hands: int | None = 1, camera: bool = False) -> SimTable:
    table = f"flt{uuid.uuid4().hex[:8]}"
    argv = ["--headless", "--table", table, "--seats", "4", "--seed", "5",
            "--camera", "on" if camera else "off", *extra]
    return SimTable(argv, str(tmp_path / "journal.sqlite"), max_hands=max_hands, before_start=inject).start()


def _wait_fault(sim: SimTable, kind: str) -> dict[str, Any]:
    """Wait for the public view announcing the pause; return it."""
    def seen(s: SimTable) -> bool:
        return any(v["paused"] and (v["fault"] or {}).get("kind") == kind for v in s.views)

    sim.wait(seen, WAIT, f"public view paused by {kind}")
    view = next(v for v in sim.views if v["paused"] and (v["fault"] or {}).get("kind") == kind)
    assert view["fault"]["message"] and isinstance(view["fault"]["since"], float)
    return view


def _refused_while_paused(sim: SimTable) -> None:
    """A player's action and a seat request are refused with F-1; the table does not move."""
    state = sim.orch.state
    assert sim.orch.faults.paused and state.hand is not None
    seat = state.hand.seat_to_act if state.hand.seat_to_act is not None else next(iter(state.info.dealt))
    act, req = f"a{next(_ids)}", f"r{next(_ids)}"
    now = sim.orch.clock()
    sim.orch.post(ActionReceived(seat, "fold", None, act, state.seq, now))
    sim.orch.post(ActionReceived(seat, "sit_out", None, req, state.seq, now))
    sim.wait(lambda s: {r[1] for r in s.replies} >= {act, req}, WAIT, "the refusals")
    for r in sim.replies:
        if r[1] in (act, req):
            assert r[0] == seat and r[2] is False and r[3].startswith("F-1: the table is paused"), r
    # Exactly one reply to each id (docs/mqtt.md: a tablet ignores a second one).
    assert sum(r[1] == req for r in sim.replies) == 1
    assert sim.orch.state.seq == state.seq or sim.orch.state.hand.seat_to_act == state.hand.seat_to_act


def _decide(sim: SimTable, kind: str, exit: str, by: str = "floor:anna") -> None:
    n = len(sim.orch.faults.endings)
    sim.orch.post(FloorDecision(kind, exit, by, note="test"))
    sim.wait(lambda s: len(s.orch.faults.endings) > n, WAIT, f"{kind} ended by {exit}")


def _ending(sim: SimTable, kind: str) -> Any:
    return next(e for e in sim.orch.faults.endings if e.kind.value == kind)


def _finish(sim: SimTable, kind: str, exit: str, by: str, *, voided: bool) -> None:
    """Wait for the hand to end; check the books, the stacks and the logged ending."""
    sim.wait(lambda s: s.orch.hands_finished >= 1 and s.orch.state.hand is None and not s.orch.faults.paused,
             WAIT, "the hand's end")
    state = sim.orch.state
    assert audit(state) == []
    stacks = {s.seat: s.stack for s in state.seats if s is not None}
    if voided:
        # Misdeal / void: every wager returned, each stack as the hand found it.
        assert stacks == sim.stacks_before
    ending = _ending(sim, kind)
    assert (ending.exit.value, ending.by) == (exit, by)
    sim.stop()
    with Journal(sim.journal_path) as j:
        ended = [e.payload for e in j.entries(kinds=("fault-ended",))]
        records = [e.payload for e in j.entries(kinds=("table",)) if e.payload.get("kind") == "hand-voided"]
    assert any(p["kind"] == kind and p["exit"] == exit and p["by"] == by for p in ended), ended
    assert bool(records) is voided, records


# --------------------------------------------------------------------------- shuffler


@pytest.mark.parametrize("exit", sorted(e.value for e in ALLOWED_EXITS[FaultKind.JAM]))
def test_jam_mid_deal(tmp_path, exit):
    sim = _sim(tmp_path, lambda s: s.rig.adapter.emulator.set_faults(jam_at=5))
    try:
        _wait_fault(sim, "jam")
        _refused_while_paused(sim)
        _decide(sim, "jam", exit)
        _finish(sim, "jam", exit, "floor:anna", voided=exit != "resume")
    finally:
        sim.stop()


@pytest.mark.parametrize("exit", sorted(e.value for e in ALLOWED_EXITS[FaultKind.MISREAD] if e.value != "resume"))
def test_misread_card(tmp_path, exit):
    sim = _sim(tmp_path, lambda s: s.rig.adapter.emulator.set_faults(misread_at=3))
    try:
        _wait_fault(sim, "misread")
        _refused_while_paused(sim)
        _decide(sim, "misread", exit)
        _finish(sim, "misread", exit, "floor:anna", voided=exit != "correction")
    finally:
        sim.stop()


def test_misread_hole_card_played_unread_is_read_from_the_felt_at_the_showdown(tmp_path):
    """``misread`` ended by ``resume``: the player keeps the unread hole card, the table
    records ``??``; at the showdown the hand must be shown, the table pauses with
    ``hole-cards-unknown`` naming the seat, and the dealer's reading (checked: a card dealt
    elsewhere is refused) lets the hand finish. Seed 5: the third card (seat 4's first)
    goes unread and seat 4 reaches the showdown."""
    from controller.engine.table import events as ev

    sim = _sim(tmp_path, lambda s: s.rig.adapter.emulator.set_faults(misread_at=3))
    try:
        _wait_fault(sim, "misread")
        _decide(sim, "misread", "resume")
        view = _wait_fault(sim, "hole-cards-unknown")
        message = view["fault"]["message"]
        assert message.startswith("dealer: read seat 4's hole cards"), message
        hand = sim.orch.state.hand
        assert hand is not None and hand.hole_cards(4)[0] is None
        physical = sim.rig.adapter.emulator.physical_log()
        seat4 = [str(c) for t, c in physical if t.kind == "seat" and t.seat == 4]
        elsewhere = [str(c) for t, c in physical if not (t.kind == "seat" and t.seat == 4)]
        assert len(seat4) == 2 and str(hand.hole_cards(4)[1]) == seat4[1]
        n = len(sim.orch.faults.endings)
        # a card that went elsewhere this hand is refused (G-5): still paused
        sim.orch.post(ev.HoleCardsRead(at=sim.orch.clock(), seat=4, cards=(elsewhere[0], seat4[1]),
                                       by="floor:anna"))
        sim.orch.post(ev.HoleCardsRead(at=sim.orch.clock(), seat=4, cards=tuple(seat4), by="floor:anna"))
        sim.wait(lambda s: len(s.orch.faults.endings) > n, WAIT, "the reading taken")
        ending = sim.orch.faults.endings[n]
        assert (ending.kind.value, ending.exit.value, ending.by) == ("hole-cards-unknown", "correction",
                                                                     "floor:anna")
        assert ending.note == f"seat 4 read as {seat4[0]} {seat4[1]}"
        _finish(sim, "hole-cards-unknown", "correction", "floor:anna", voided=False)
        with Journal(sim.journal_path) as j:
            reads = [e.payload for e in j.entries(kinds=("table",)) if e.payload.get("kind") == "hole-cards-read"]
        assert len(reads) == 2  # both journalled; the first was refused by the table
        rec = sim.orch.state.last_result  # max_hands=1: the hand that was read
        mine = next(x for x in rec["seats"] if x["seat"] == 4)
        assert (mine["cards"], mine["showed"]) == (seat4, "shown")
    finally:
        sim.stop()


@pytest.mark.parametrize("exit", sorted(e.value for e in ALLOWED_EXITS[FaultKind.DECK_CHECK]))
@pytest.mark.parametrize("fault", ["duplicate", "missing"])
def test_deck_check_failure_before_the_hand(tmp_path, exit, fault):
    sim = _sim(tmp_path, lambda s: s.rig.adapter.emulator.set_faults(**{fault: True}))
    try:
        view = _wait_fault(sim, "deck-check")
        # G-5: nothing is dealt from a deck that failed its check; no hand starts.
        assert view["hand"] == 0 and sim.orch.state.hand is None and sim.orch.state.hands == 0
        _decide(sim, "deck-check", exit)
        # Whatever the exit, the next hand is dealt from a new deck that passes its check.
        _finish(sim, "deck-check", exit, "floor:anna", voided=False)
        assert sim.rig.adapter.decks >= 1
    finally:
        sim.stop()


def test_shuffler_link_lost_then_back_resumes_by_itself(tmp_path):
    # The cable falls out as the deck's 4th card is dealt (the machine goes on dealing).
    sim = _sim(tmp_path, lambda s: s.rig.adapter.emulator.set_faults(vanish_at=4, vanish_for=600.0))
    try:
        _wait_fault(sim, "shuffler-lost")
        _refused_while_paused(sim)
        # The cable is plugged back: the driver catches up and the system resumes the hand.
        sim.rig.adapter.emulator.come_back()
        _finish(sim, "shuffler-lost", "resume", "system", voided=False)
    finally:
        sim.stop()


@pytest.mark.parametrize("exit", ["misdeal", "void"])
def test_shuffler_link_lost_for_good_floor_ends_the_hand(tmp_path, exit):
    sim = _sim(tmp_path, lambda s: s.rig.adapter.emulator.set_faults(vanish_at=4, vanish_for=600.0))
    try:
        _wait_fault(sim, "shuffler-lost")
        _refused_while_paused(sim)
        _decide(sim, "shuffler-lost", exit)
        sim.wait(lambda s: s.orch.state.hand is None, WAIT, "the hand voided")
        assert {s.seat: s.stack for s in sim.orch.state.seats if s} == sim.stacks_before
        # The shuffler is still away: the table stays paused until it is back.
        sim.rig.adapter.emulator.come_back()
        _finish(sim, "shuffler-lost", exit, "floor:anna", voided=True)
    finally:
        sim.stop()


# --------------------------------------------------------------------------- camera


@pytest.mark.parametrize("exit", sorted(e.value for e in ALLOWED_EXITS[FaultKind.BOARD_MISMATCH]))
def test_board_mismatch(tmp_path, exit):
    sim = _sim(tmp_path, lambda s: s.rig.adapter.sim_camera.swap_first(), camera=True, extra=("--players", "2"))
    try:
        view = _wait_fault(sim, "board-mismatch")
        assert view["board"], "the mismatch is about a board the shuffler dealt"
        _refused_while_paused(sim)
        sim.rig.adapter.sim_camera.clear_faults()  # the dealer puts the right card out
        _decide(sim, "board-mismatch", exit, by="dealer")
        _finish(sim, "board-mismatch", exit, "dealer", voided=exit == "void")
    finally:
        sim.stop()


def _short_board_timeout(s: SimTable) -> None:
    s.rig.adapter.boardcheck.timeout = 1.0
    s.rig.adapter.sim_camera.hide_first()


@pytest.mark.parametrize("exit", sorted(e.value for e in ALLOWED_EXITS[FaultKind.CARD_UNREADABLE]))
def test_board_card_unreadable_in_time(tmp_path, exit):
    sim = _sim(tmp_path, _short_board_timeout, camera=True, extra=("--players", "2"))
    try:
        _wait_fault(sim, "card-unreadable")
        _refused_while_paused(sim)
        sim.rig.adapter.sim_camera.clear_faults()  # the dealer straightens the card
        if exit == "resume":
            # The camera reads it now: the system resumes (camera read it).
            _finish(sim, "card-unreadable", "resume", "system: camera read it", voided=False)
        else:
            _decide(sim, "card-unreadable", exit)
            _finish(sim, "card-unreadable", exit, "floor:anna", voided=exit == "void")
    finally:
        sim.stop()


@pytest.mark.parametrize("exit", sorted(e.value for e in ALLOWED_EXITS[FaultKind.CAMERA_LOST]))
def test_camera_lost(tmp_path, exit):
    def unplug_at_flop(s: SimTable) -> None:
        cam = s.rig.adapter.sim_camera

        def listener(orch: Any, effects: list) -> None:
            if orch.state.hand is not None and any(orch.state.hand.board) and cam._plugged.is_set() \
                    and not orch.faults.endings:
                cam.unplug()
        s.orch.listeners.append(listener)

    sim = _sim(tmp_path, unplug_at_flop, camera=True, extra=("--players", "2"), max_hands=None)
    try:
        _wait_fault(sim, "camera-lost")
        sim.pacer.max_hands = sim.orch.hands_finished + 1
        # The players wait for the camera's read of the board: the hand is still running.
        _refused_while_paused(sim)
        if exit == "resume":
            sim.rig.adapter.sim_camera.plug()  # the system resumes when frames come again
            _finish(sim, "camera-lost", "resume", "system", voided=False)
        else:
            _decide(sim, "camera-lost", exit, by="dealer")
            sim.rig.adapter.sim_camera.plug()
            _finish(sim, "camera-lost", exit, "dealer", voided=False)
    finally:
        sim.stop()


# --------------------------------------------------------------------------- broker and journal


ANON_CONF = """\
listener 1883
listener 9001
protocol websockets
allow_anonymous true
persistence true
persistence_location /tmp/
log_dest stderr
"""


def test_broker_lost_pauses_until_it_is_back(tmp_path):
    from drivers.mqtt.broker import BrokerProcess

    conf = tmp_path / "anon.conf"
    conf.write_text(ANON_CONF)
    broker = BrokerProcess(tmp_path / "broker", config=conf).start()
    stopped = {"done": False}

    def stop_broker_mid_hand(s: SimTable) -> None:
        def listener(orch: Any, effects: list) -> None:
            hand = orch.state.hand
            if hand is not None and orch.state.dealing is None and hand.seat_to_act is not None \
                    and not stopped["done"]:
                stopped["done"] = True
                broker.stop()
        s.orch.listeners.append(listener)
        assert s.rig.ports.link is not None
        s.rig.ports.link.wait_connected(10)

    try:
        sim = _sim(tmp_path, stop_broker_mid_hand, extra=("--mqtt-port", str(broker.mqtt_port)))
        try:
            _wait_fault(sim, "broker-lost")
            _refused_while_paused(sim)
            broker.start()  # paho reconnects; the system resumes
            _finish(sim, "broker-lost", "resume", "system", voided=False)
        finally:
            sim.stop()
    finally:
        broker.stop()


class FailingJournal(Journal):
    """A journal whose appends fail (a full or broken disk) while :attr:`failing` is set."""

    failing = False
    trigger: Callable[[str, dict], bool] | None = None

    def append(self, kind: str, payload: dict[str, Any], at: float) -> int:
        if self.trigger is not None and self.trigger(kind, payload):
            self.failing, self.trigger = True, None
        if self.failing:
            raise JournalError("disk I/O error (injected)")
        return super().append(kind, payload, at)


@pytest.mark.parametrize("exit", sorted(e.value for e in ALLOWED_EXITS[FaultKind.JOURNAL_ERROR]))
def test_journal_write_fails(tmp_path, exit):
    holder: dict[str, FailingJournal] = {}

    def swap_journal(s: SimTable) -> None:
        path = s.orch.journal.path
        s.orch.journal.close()
        j = FailingJournal(path)
        j.trigger = lambda kind, payload: kind == "table" and payload.get("kind") == "action-taken"
        s.orch.journal = holder.setdefault("j", j)

    sim = _sim(tmp_path, swap_journal)
    try:
        _wait_fault(sim, "journal-error")
        _refused_while_paused(sim)
        # While the disk still fails, the floor's decision cannot be journalled: still paused
        # (the refusals below are handled after the decision: one loop, in order).
        sim.orch.post(FloorDecision("journal-error", exit, "floor:anna"))
        _refused_while_paused(sim)
        assert sim.orch.faults.endings == ()
        holder["j"].failing = False  # the disk is fixed
        _decide(sim, "journal-error", exit)
        _finish(sim, "journal-error", exit, "floor:anna", voided=exit == "void")
    finally:
        sim.stop()


@needs_broker
def test_tablets_see_the_pause_on_the_broker(tmp_path):
    """A fault raises the public seq, so a tablet (which drops a state whose seq is not
    higher, docs/state.md) sees ``paused: true`` and the fault's kind."""
    from drivers.mqtt.tablet import Tablet

    table = f"tp{uuid.uuid4().hex[:8]}"
    viewer = Tablet(table, None, host="127.0.0.1", port=1883, username=None, password=None).start()
    try:
        viewer.wait_connected(10)
        sim = SimTable(["--headless", "--table", table, "--seats", "3", "--camera", "off"],
                       str(tmp_path / "journal.sqlite"), max_hands=1,
                       before_start=lambda s: s.rig.adapter.emulator.set_faults(jam_at=4)).start()
        try:
            _wait_fault(sim, "jam")
            viewer.wait_for(lambda t: t.state is not None and t.state["paused"]
                            and t.state["fault"]["kind"] == "jam", 3)
        finally:
            sim.stop()
    finally:
        viewer.stop()


# ------------------------------------------------------- unusable frames, the watchdog (issue 16)


@pytest.mark.parametrize("garble,kind,exit,voided", [
    ("card", "misread", "void", True),         # a CARD with an impossible card code, mid-hand
    ("card", "misread", "correction", False),  # the dealer takes it out; the machine deals another
    ("done", "jam", "resume", False),           # a DONE one byte short, mid-hand
    ("jam", "jam", "resume", False),            # the JAM report itself unusable (jam_at=5)
    ("deck", "deck-check", "resume", False),    # the new deck's report unusable: not proven
    ("unknown", "jam", "resume", False),        # an event of an unknown type (the deck's)
])
def test_an_unusable_shuffler_report_pauses_with_exits(tmp_path, garble, kind, exit, voided):
    """One bad frame (a right CRC, a wrong payload) froze the table: logged, the card lost,
    the hand waiting for ever. Now the table pauses with the fault's exits and goes on."""
    faults = dict(garble=garble, **({"jam_at": 5} if garble == "jam" else {}))
    sim = _sim(tmp_path, lambda s: s.rig.adapter.emulator.set_faults(**faults))
    try:
        view = _wait_fault(sim, kind)
        assert "cannot use" in view["fault"]["message"] or "card code" in view["fault"]["message"]
        if garble in ("card", "done", "jam"):
            _refused_while_paused(sim)
        _decide(sim, kind, exit)
        _finish(sim, kind, exit, "floor:anna", voided=voided)
    finally:
        sim.stop()


def test_a_silent_shuffler_mid_deal_is_a_fault_not_a_wait_for_ever(tmp_path):
    """The machine hangs before the 4th card with no word (``stall_at``): past the
    watchdog's bound (on the table's clock) the table pauses with ``jam``; ``resume`` clears
    the machine and asks again for the cards owed, and the hand plays to its end."""
    def inject(s: SimTable) -> None:
        s.rig.adapter.deal_timeout = 0.5
        s.rig.adapter.emulator.set_faults(stall_at=4)

    sim = _sim(tmp_path, inject)
    try:
        view = _wait_fault(sim, "jam")
        assert view["fault"]["message"].startswith("shuffler silent: no card for 0.5 s")
        _decide(sim, "jam", "resume")
        _finish(sim, "jam", "resume", "floor:anna", voided=False)
    finally:
        sim.stop()


def test_the_watchdog_counts_on_the_injected_clock():
    """No fault before the bound, one past it; the device's word starts the wait again."""
    from controller.devices import DevicePorts, DriverAdapter
    from controller.engine.table.settings import TableSettings
    from controller.engine.table.state import TableState
    from controller.orchestrator import Orchestrator, RaiseFault
    from drivers.shuffler.events import DealDone

    now = [1000.0]
    orch = Orchestrator(TableState.new(TableSettings()), journal=None, clock=lambda: now[0])
    adapter = DriverAdapter(orch, DevicePorts(), clock=lambda: now[0])
    part = adapter.shuffler_part
    adapter.shuffler = object()
    part._on_deck = lambda: None  # a deck asked for  # noqa: SLF001
    part.shuffle_timeout = 30.0
    assert part._watchdog(now[0]) == []  # noqa: SLF001
    now[0] += 29.0
    assert part._watchdog(now[0]) == []  # noqa: SLF001
    adapter.translate(orch, DealDone(now[0], 1, 1))  # the device spoke
    now[0] += 29.0
    assert part._watchdog(now[0]) == []  # noqa: SLF001
    now[0] += 2.0
    out = part._watchdog(now[0])  # noqa: SLF001
    assert len(out) == 1 and isinstance(out[0], RaiseFault) and out[0].kind == "deck-check"
    assert part._on_deck is None  # the pacer asks again after the fault  # noqa: SLF001
