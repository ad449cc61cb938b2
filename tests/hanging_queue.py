"""``HangingQueue``: a SimpleQueue with CPython's timed-get defect on every timed get, shared by
the tests that a loop never waits in ``SimpleQueue.get(timeout=...)`` (the orchestrator's,
tests/controller/test_loop_wait.py; the shuffler link's, tests/shuffler/test_shuffler_wait.py).

CPython's ``SimpleQueue.get`` (3.11 here, the same code in 3.12 and 3.13) takes its internal
lock without waiting when it is free, then computes the time left; if the thread was
descheduled past the deadline in between, it waits with that negative time left, which means
for ever: until the next put. Here every timed get waits so, so code that relies on it hangs
deterministically.
"""

from __future__ import annotations

import queue
import threading
from typing import Any


class HangingQueue(queue.SimpleQueue):  # type: ignore[type-arg]
    """A SimpleQueue whose timed get outlives its timeout until the next put (the defect)."""

    def __init__(self) -> None:
        self._put = threading.Event()

    def put(self, item: Any, block: bool = True, timeout: float | None = None) -> None:
        super().put(item)
        self._put.set()

    def get(self, block: bool = True, timeout: float | None = None) -> Any:
        if block and timeout is not None:
            self._put.wait()  # past the timeout: only a put ends it
            self._put.clear()
        return super().get(block, timeout)
