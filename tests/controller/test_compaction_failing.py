"""A journal compaction that keeps failing is seen by the floor, and the table plays on
(docs/faults.md, "A journal compaction that keeps failing"; docs/mqtt.md "status").

Damage to a journal's older pages (bytes overwritten while the table was stopped) is beyond
what start-up reads: the table starts, and every compaction fails with "database disk image
is malformed", which only the log said, at every hand, while the journal grew without bound.
After ``FAILING_AFTER`` (3) hands in a row the floor's status carries ``journal`` (not a
fault: no pause), and it clears itself when a compaction succeeds again.

The damaged journal is a real one: a table played in-process (tests/controller/test_history_support.py),
stopped, 64 bytes overwritten in the middle of its file, then opened again as ``livetable
run`` opens it (:func:`controller.runtime.open_table`) with the keeper in the background, as
``livetable run`` has it. Clearing is shown with the failure injected at the keeper's reader.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from controller import compaction
from controller.bots import SimPlayers
from controller.clock import ManualClock
from controller.compaction import FAILING_AFTER, JournalKeeper
from controller.dealer import InternalDealer
from controller.engine.table.audit import audit
from controller.engine.table.settings import TableSettings
from controller.floor import FloorDesk
from controller.floor_cli import render
from controller.orchestrator import Orchestrator
from controller.runtime import HandPacer, open_table

from tests.controller.test_history_support import RecordingPorts, Table

SETTINGS = TableSettings(id="dmg", name="Dmg", seats=4, small_blind=50, big_blind=100)
SEATS = [1, 2, 3, 4]
WAIT = 30.0  # seconds: a bound on waiting for the keeper's thread, never a synchronisation


def _damaged_journal(tmp_path: Path) -> Path:
    """80 hands played and the table stopped; then 64 bytes overwritten in the middle of the
    journal's file: pages of older hands, which start-up does not read."""
    t = Table(tmp_path / "j.sqlite", SETTINGS, seats=SEATS, seed=3)
    t.orch.snapshot_every = 20
    t.orch._snapshot(t.clock())  # noqa: SLF001 - as open_table does on a fresh journal
    t.play(80)
    t.journal.close()
    path = tmp_path / "j.sqlite"
    with open(path, "r+b") as f:
        f.seek(path.stat().st_size // 2 // 4096 * 4096)
        f.write(b"\xa5" * 64)
    return path


def _attach(orch: Orchestrator, clock: ManualClock, ports: RecordingPorts, keeper: JournalKeeper) -> HandPacer:
    """The dealer, the simulated players, the pacer and the keeper, as the table's run has them."""
    ports.dealer = InternalDealer(orch.post, clock, seed=3)
    pacer = HandPacer(orch.post, clock, rebuy=set(SEATS))
    orch.listeners += [SimPlayers(SEATS, orch.post, clock, seed=3), pacer, keeper]
    orch.journal_status = keeper.health  # as controller.composition.TableRun wires it
    return pacer


def _play_hand(orch: Orchestrator, clock: ManualClock, pacer: HandPacer, keeper: JournalKeeper) -> None:
    """Play one more hand, then wait (bounded) for the keeper's try after it (a compaction it
    prepared is committed at the loop's next event)."""
    want = orch.hands_finished + 1
    pacer.max_hands = want
    orch.nudge()
    for _ in range(100_000):
        clock.advance(0.5)
        if orch.pump() == 0 and not orch.timers.running and orch.inbox.empty():
            break
    assert orch.hands_finished == want, "the table stopped playing"
    assert keeper.wait_prepared(WAIT)


def test_a_compaction_failing_on_a_damaged_journal_is_in_the_floors_status_and_play_goes_on(tmp_path):
    path = _damaged_journal(tmp_path)
    clock, ports = ManualClock(start=2_000_000_000.0), RecordingPorts()
    orch, rec = open_table(path, SETTINGS, clock=clock, ports=ports, history_dir=tmp_path / "hands")
    assert rec.outcome == "clean"  # start-up does not read the damaged pages
    keeper = JournalKeeper(orch.journal, keep_hands=10, history_dir=tmp_path / "hands", every=5,
                           background=True, max_hands_per_run=20, wall=clock)
    pacer = _attach(orch, clock, ports, keeper)
    desk = FloorDesk(orch, lambda *a: None, clock=clock)
    started = clock()
    try:
        for n in range(1, FAILING_AFTER):
            _play_hand(orch, clock, pacer, keeper)
            assert keeper.failures == n and desk.status()["journal"] is None  # one or two: not yet
        first_tries = clock()
        _play_hand(orch, clock, pacer, keeper)
        status = desk.status()
        jn = status["journal"]
        assert jn is not None and jn["compaction"] == "failing" and jn["failures"] == FAILING_AFTER
        assert "database disk image is malformed" in jn["error"]
        assert started <= jn["since"] <= first_tries  # when the first of them failed
        assert str(path) in jn["message"] and "--check" in jn["message"]
        # not a fault: nothing paused, and the table plays on
        assert status["paused"] is False and status["faults"] == [] and not orch.faults.paused
        _play_hand(orch, clock, pacer, keeper)
        assert desk.status()["journal"]["failures"] == FAILING_AFTER + 1
        assert keeper.runs == [] and orch.journal.compacted_upto == 0  # nothing left the journal
        assert audit(orch.state) == []
        # Where the floor looks: `livetable floor status`.
        text = render({"command": "status", "accepted": True, "status": desk.status()})
        assert "JOURNAL: compaction failing since" in text and "(4 hands in a row)" in text
        assert "database disk image is malformed" in text and "no fault open" in text
    finally:
        keeper.close()
        orch.journal.close()


def test_the_floors_status_clears_itself_when_a_compaction_succeeds_again(tmp_path, monkeypatch):
    broken = [True]
    real = compaction.JournalReader

    def reader(path: Any) -> Any:
        if broken[0]:
            raise sqlite3.DatabaseError("database disk image is malformed")
        return real(path)

    monkeypatch.setattr(compaction, "JournalReader", reader)
    t = Table(tmp_path / "j.sqlite", SETTINGS, seats=SEATS, seed=5)
    t.orch.snapshot_every = 5
    t.orch._snapshot(t.clock())  # noqa: SLF001 - as open_table does on a fresh journal
    keeper = JournalKeeper(t.journal, keep_hands=5, history_dir=tmp_path / "hands", every=5,
                           background=True, wall=t.clock)
    t.orch.listeners.append(keeper)
    t.orch.journal_status = keeper.health
    desk = FloorDesk(t.orch, lambda *a: None, clock=t.clock)
    try:
        for n in range(1, 16):
            t.play(n)
            assert keeper.wait_prepared(WAIT)
        assert keeper.failures == 15 and desk.status()["journal"]["failures"] == 15
        assert not t.orch.faults.paused and keeper.runs == []
        broken[0] = False
        t.play(16)
        assert keeper.wait_prepared(WAIT)
        t.play(17)
        assert keeper.runs, "no compaction once the reader could read"
        assert keeper.failures == 0 and desk.status()["journal"] is None
        assert keeper.health() is None
    finally:
        keeper.close()
        t.close()


def test_one_or_two_failures_are_not_shown_and_a_success_between_starts_the_count_again(tmp_path):
    clock = ManualClock()
    keeper = JournalKeeper(object(), keep_hands=5, history_dir=tmp_path, wall=clock)  # type: ignore[arg-type]
    keeper._failed(OSError("No space left on device"))  # noqa: SLF001 - the counting alone
    keeper._failed(OSError("No space left on device"))  # noqa: SLF001
    keeper._succeeded()  # noqa: SLF001
    keeper._failed(OSError("No space left on device"))  # noqa: SLF001
    keeper._failed(OSError("No space left on device"))  # noqa: SLF001
    assert keeper.health() is None
