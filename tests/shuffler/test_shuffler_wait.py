"""The shuffler link never waits in ``SimpleQueue.get(timeout=...)`` (issue 16 round 2).

CPython's ``SimpleQueue.get`` (3.11 here) computes the time left after taking its internal
lock; when the thread was descheduled past the deadline in between, it waits with that
negative time left, which means for ever: until the next put (tests/controller/test_loop_wait.py,
where the orchestrator had it). The link thread waited so in three places: for its next
input (the heartbeat's STATUS when the device is idle), for a reply (the resend after a
timeout) and between reconnect attempts. With a silent device, or no device, nothing puts:
no resend, no heartbeat, no reconnect, ever.

``HangingQueue`` behaves as that defect does on every timed get, so a link that waits in
``get(timeout=...)`` hangs here deterministically; the link must still keep its timeouts.
"""

from __future__ import annotations

import threading
from typing import Any

from hanging_queue import HangingQueue  # tests/hanging_queue.py

from drivers.shuffler.link import LinkTiming, ShufflerDriver

WAIT = 5.0
TIMING = LinkTiming(timeout=0.01, retries=0, reconnect=0.01, reconnect_max=0.02, heartbeat=0.01, quiet=0.01)


def _driver() -> ShufflerDriver:
    drv = ShufflerDriver("/nonexistent/ttyUSB9", post=lambda e: None, timing=TIMING)
    drv._inbox = HangingQueue()
    return drv


def _in_thread(fn) -> threading.Thread:
    t = threading.Thread(target=fn, daemon=True)
    t.start()
    t.join(WAIT)
    return t


def test_reconnect_attempts_go_on_when_nothing_is_put() -> None:
    drv = _driver()
    attempts = threading.Semaphore(0)

    def connect() -> bool:  # no device: every attempt fails
        attempts.release()
        return False

    drv._connect = connect  # type: ignore[method-assign]
    drv.start()
    try:
        for _ in range(3):
            assert attempts.acquire(timeout=WAIT), "the link hangs between reconnect attempts"
    finally:
        drv.stop(timeout=WAIT)


def test_a_reply_that_never_comes_times_out() -> None:
    drv = _driver()
    got: list[Any] = []
    t = _in_thread(lambda: got.append(drv._await(lambda reply: False, 0.01)))
    assert not t.is_alive(), "the wait for a reply outlived its timeout"
    assert got == [None]


def test_an_idle_link_still_sends_its_heartbeat() -> None:
    drv = _driver()
    asked = threading.Event()
    drv._query_status = asked.set  # type: ignore[method-assign]
    t = _in_thread(drv._serve_one)
    assert not t.is_alive() and asked.is_set(), "the idle link never asked for the STATUS"


def test_a_put_still_wakes_the_link_at_once() -> None:
    drv = _driver()
    drv._put(("stop",))
    assert drv._get(30.0) == ("stop",)
