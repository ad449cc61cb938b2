"""A table's SIGTERM/SIGINT handler (``TableRun.stop_on_signals``) survives a second signal
arriving while it runs (a nested handler): it takes no lock.

The old handler set a :class:`threading.Event`, whose ``set()`` holds a lock: a second
SIGTERM delivered inside it (the room's PR_SET_PDEATHSIG and a SIGTERM from its ``finally``,
say) ran the handler again, which waited forever on that lock: the table never stopped.
Here the second signal is simulated at *every* line the handler runs (``sys.settrace``),
each nested call run to its end before the first goes on, exactly as Python runs a signal
handler between two bytecodes of the main thread.
"""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any

from controller.composition import StopAsked, TableRun


class _Orch:
    def __init__(self) -> None:
        self.stops = 0

    def stop(self) -> None:
        self.stops += 1


def _handler_with_a_signal_at_every_line(handler: Any) -> int:
    """Run ``handler`` as a signal would, with another signal (the handler again, to its end)
    at every line it executes; return how many nested calls ran."""
    nested = [0]
    inside = [False]

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line" and not inside[0]:
            inside[0] = True
            try:
                nested[0] += 1
                handler(signal.SIGTERM, None)  # the second signal, before this line runs
            finally:
                inside[0] = False
        return trace

    sys.settrace(trace)
    try:
        handler(signal.SIGTERM, None)
    finally:
        sys.settrace(None)
    return nested[0]


def test_a_second_signal_inside_the_stop_handler_does_not_deadlock(tmp_path: Path) -> None:
    run = TableRun(None, tmp_path / "journal.sqlite", None, clock=lambda: 0.0)  # type: ignore[arg-type]
    orch = _Orch()
    run.orch = orch  # type: ignore[assignment]
    old = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        asked = run.stop_on_signals()
        handler = signal.getsignal(signal.SIGTERM)
        assert callable(handler) and signal.getsignal(signal.SIGINT) is handler
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    assert isinstance(asked, StopAsked) and not asked.is_set()
    result: list[int] = []
    worker = threading.Thread(target=lambda: result.append(_handler_with_a_signal_at_every_line(handler)),
                              daemon=True)
    worker.start()
    worker.join(30)  # a bound for a deadlock: the handler itself runs in microseconds
    assert not worker.is_alive(), "the stop handler deadlocked on a second signal"
    assert result and result[0] >= 2  # a signal came at each of the handler's lines
    assert asked.is_set() and asked.asked is True
    assert orch.stops == result[0] + 1  # every signal asked the loop to stop, none was lost


def test_stop_asked_is_a_plain_flag() -> None:
    asked = StopAsked()
    assert not asked.is_set()
    asked.asked = True
    assert asked.is_set()
    assert not any(isinstance(v, type(threading.Lock())) for v in vars(asked).values())
