"""The orchestrator's loop never waits in ``SimpleQueue.get(timeout=...)`` (issue 17, 5).

CPython's ``SimpleQueue.get`` (3.11 here, the same code in 3.12 and 3.13) takes its internal
lock without waiting when it is free, then computes the time left; if the thread was
descheduled past the deadline in between, it waits with that negative time left, which
means for ever: until the next put. Under a load average above 10, with the loop's 10 ms
poll, it happened within minutes (tests/room/test_room_partition.py: a simulated table stood
still mid-hand, its action timer due for 28 s and its player's decision due for 57 s, the loop
in ``inbox.get``). At a simulated table every input comes from the loop itself, so nothing
ever put. docs/room.md gives a small script that shows the defect on this Python.

``HangingQueue`` behaves as that defect does on every timed get, so a loop that waits in
``get(timeout=...)`` hangs here deterministically; the loop must still fire its timers and
idle duties every ``poll``.
"""

from __future__ import annotations

import threading
import time

from hanging_queue import HangingQueue  # tests/hanging_queue.py

from controller.clock import ManualClock
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import TableState
from controller.orchestrator import Orchestrator

WAIT = 5.0


def test_the_loop_turns_every_poll_when_a_timed_get_would_hang() -> None:
    orch = Orchestrator(TableState.new(TableSettings()), journal=None, clock=ManualClock())
    orch.inbox = HangingQueue()
    turns = threading.Semaphore(0)
    loop = threading.Thread(target=orch.run, kwargs={"poll": 0.01, "on_idle": turns.release}, daemon=True)
    loop.start()
    try:
        for _ in range(3):  # idle turns come with nothing posted
            assert turns.acquire(timeout=WAIT), "the loop hangs in the inbox's timed get"
        handled = threading.Event()
        orch.post(object(), done=handled.set)  # a post still wakes it at once
        assert handled.wait(WAIT)
    finally:
        orch.stop()
        loop.join(WAIT)
    assert not loop.is_alive()


def test_a_post_from_another_thread_wakes_the_loop_before_its_poll() -> None:
    orch = Orchestrator(TableState.new(TableSettings()), journal=None, clock=ManualClock())
    loop = threading.Thread(target=orch.run, kwargs={"poll": 30.0}, daemon=True)
    loop.start()
    try:
        handled = threading.Event()
        t0 = time.monotonic()
        orch.post(object(), done=handled.set)
        assert handled.wait(WAIT) and time.monotonic() - t0 < WAIT  # not after the 30 s poll
    finally:
        orch.stop()
        loop.join(WAIT)
    assert not loop.is_alive()
