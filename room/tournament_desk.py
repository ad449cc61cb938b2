"""The director's way in to the room's tournament from other threads (issue 19).

:class:`room.tournament.RoomTournament` is driven by one thread, the room's loop (reports,
``step``). The floor console answers HTTP requests on threads of its own, so it never
touches the tournament: it hands a function to :meth:`TournamentDesk.call`, which waits
while the loop runs it (:meth:`TournamentDesk.serve`, once every turn of the loop) and gives
back its result or raises its exception. A call the loop does not take within the timeout
is withdrawn, never carried out later.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["TournamentDesk", "NoTournament"]

T = TypeVar("T")


class NoTournament(RuntimeError):
    """No tournament is running in this room (none started, over and its loop gone, or the
    loop did not answer in time). The console answers it with 409."""


class _Call:
    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn
        self.done = threading.Event()
        self.lock = threading.Lock()
        self.state = "waiting"  # -> "running" (the loop took it) or "withdrawn" (the caller gave up)
        self.result: Any = None
        self.error: BaseException | None = None


class TournamentDesk:
    """Hands calls from the console's threads to the loop that drives the tournament.

    :attr:`director` is the tournament (None: none running); the loop sets it and calls
    :meth:`serve` every turn, and :meth:`close` when it stops.
    """

    def __init__(self, director: Any = None) -> None:
        self.director = director
        #: why the room's tournament is not running (``room serve``: a journal that did not
        #: replay), said by :class:`NoTournament`; None: the usual words
        self.refused: str | None = None
        self._calls: queue.SimpleQueue[_Call] = queue.SimpleQueue()
        self._open = True

    def call(self, fn: Callable[[Any], T], timeout: float = 5.0) -> T:
        """Run ``fn(director)`` on the loop's thread; return what it returns.

        Raises:
            NoTournament: no tournament, the desk closed, or the loop did not take the call
                within ``timeout`` seconds (it is then withdrawn: never carried out).
            Exception: whatever ``fn`` raised.
        """
        if self.director is None or not self._open:
            raise NoTournament(self.refused or "no tournament is running in this room")
        c = _Call(fn)
        self._calls.put(c)
        if not c.done.wait(timeout):
            with c.lock:
                if c.state == "waiting":
                    c.state = "withdrawn"
                    raise NoTournament(f"the room's tournament did not answer within {timeout:g} s")
            c.done.wait()  # the loop took it just now: its answer comes
        if c.error is not None:
            raise c.error
        return c.result

    def serve(self) -> int:
        """Run the calls waiting (the loop's thread, between its other work); return how many ran."""
        ran = 0
        while True:
            try:
                c = self._calls.get_nowait()
            except queue.Empty:
                return ran
            with c.lock:
                if c.state != "waiting":
                    continue
                c.state = "running"
            try:
                c.result = c.fn(self.director)
            except Exception as exc:  # noqa: BLE001 - handed to the caller's thread, which raises it
                c.error = exc
            ran += 1
            c.done.set()

    def close(self) -> None:
        """Refuse new calls (the loop stops); calls still waiting are answered ``NoTournament``."""
        self._open = False
        while True:
            try:
                c = self._calls.get_nowait()
            except queue.Empty:
                return
            with c.lock:
                if c.state == "waiting":
                    c.state = "running"
                    c.error = NoTournament("the room's tournament has stopped")
                    c.done.set()
