"""Helpers for the seat panel tests: mock pins that can be waited on, a fake clock, an event
recorder, and docs/state.md-shaped states. (Imported by name: tests/ has no packages.)"""

from __future__ import annotations

import threading
from typing import Any

from gpiozero.pins.mock import MockPWMPin

WAIT = 5.0  # seconds: generous timeout for anything that should happen at once


class WaitablePin(MockPWMPin):
    """gpiozero's MockPWMPin that lets a test wait for state changes instead of sleeping."""

    def __init__(self, factory: Any, info: Any) -> None:
        self.changed = threading.Condition()
        super().__init__(factory, info)

    def _change_state(self, value: Any) -> bool:
        with self.changed:
            result = super()._change_state(value)
            self.changed.notify_all()
            return result

    def wait_states(self, count: int, timeout: float = WAIT) -> list[Any]:
        """Wait until ``states`` holds ``count`` entries; return a copy (fails on timeout)."""
        with self.changed:
            ok = self.changed.wait_for(lambda: len(self.states) >= count, timeout)
            states = list(self.states)
        assert ok, f"pin {self.info.name}: only {len(states)} of {count} states: {states}"
        return states


class FakeClock:
    """A settable clock in Unix seconds."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Recorder:
    """The ``post`` callable: records events and lets a test wait for them."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self._cond = threading.Condition()

    def __call__(self, event: Any) -> None:
        with self._cond:
            self.events.append(event)
            self._cond.notify_all()

    def wait_for(self, count: int, timeout: float = WAIT) -> list[Any]:
        """Wait until ``count`` events arrived; return a copy (fails on timeout)."""
        with self._cond:
            ok = self._cond.wait_for(lambda: len(self.events) >= count, timeout)
            events = list(self.events)
        assert ok, f"only {len(events)} of {count} events: {events}"
        return events


def public_state(*, seq: int = 1, turn_seat: int | None = 2, now: float = 1_800_000_000.0,
                 seconds: float = 30.0, left: float | None = None, paused: bool = False,
                 fault: bool = False, street: str = "flop",
                 statuses: dict[int, str] | None = None,
                 bets: dict[int, int] | None = None) -> dict[str, Any]:
    """A docs/state.md public state; ``left`` is the share of the action time left at ``now``
    (default: all of it)."""
    statuses = statuses or {1: "active", 2: "acting", 3: "active", 4: "empty"}
    bets = bets or {}
    seats = [{"seat": n, "name": f"P{n}" if st != "empty" else None, "stack": 1000,
              "bet": bets.get(n, 0), "status": st} for n, st in sorted(statuses.items())]
    turn = None
    if turn_seat is not None:
        share = 1.0 if left is None else left
        deadline = now + share * seconds
        turn = {"seat": turn_seat, "started": deadline - seconds, "deadline": deadline,
                "seconds": seconds}
    return {"schema": 1, "table": "t1", "seq": seq, "hand": 7, "street": street,
            "seats": seats, "turn": turn, "paused": paused,
            "fault": {"kind": "jam", "message": "jam", "since": now} if fault else None}


def private_view(seat: int, *, fold: bool = True, check: bool = False, call: int | None = 100,
                 bet: dict | None = None, raise_: dict | None = None) -> dict[str, Any]:
    """A docs/state.md private seat view for the seat to act."""
    return {"schema": 1, "seat": seat, "to_act": True,
            "legal": {"fold": fold, "check": check, "call": call, "bet": bet,
                      "raise": raise_, "all_in": 1000, "draw": None}}


