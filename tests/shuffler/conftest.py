"""Fixtures for the shuffler tests: an emulator on a real pty and a driver with short timings."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest

from drivers.shuffler import events as E
from drivers.shuffler.emulator import Emulator, Faults
from drivers.shuffler.link import LinkTiming, ShufflerDriver

#: Short timings so fault tests finish fast: replies take ~0.3 ms on a pty; the link is only
#: declared lost after 1.55 s of silence, so a loaded CI machine does not fake a lost link.
FAST = LinkTiming(timeout=0.05, retries=4, backoff=2.0, reconnect=0.02, reconnect_max=0.1,
                  heartbeat=None, catchup=1.0, quiet=0.02)
WAIT = 5.0


class Collector:
    """The orchestrator's stand-in: ``post`` appends events; tests wait on a condition."""

    def __init__(self) -> None:
        self.events: list[E.ShufflerEvent] = []
        self._cond = threading.Condition()
        self.clock_calls = 0

    def post(self, event: E.ShufflerEvent) -> None:
        with self._cond:
            self.events.append(event)
            self._cond.notify_all()

    def clock(self) -> float:
        """An injected clock: 1.0, 2.0, ... so every event's stamp proves it came from here."""
        self.clock_calls += 1
        return float(self.clock_calls)

    def wait(self, pred: Callable[[list[E.ShufflerEvent]], bool], timeout: float = WAIT) -> list[E.ShufflerEvent]:
        """Wait until ``pred(events)`` holds; return a copy of the events. Fails on timeout."""
        with self._cond:
            ok = self._cond.wait_for(lambda: pred(self.events), timeout)
            snapshot = list(self.events)
        assert ok, f"timed out; events so far: {snapshot}"
        return snapshot

    def wait_for(self, cls: type, timeout: float = WAIT, **attrs: object) -> E.ShufflerEvent:
        """Wait for the first event of type ``cls`` whose attributes equal ``attrs``; return it."""
        def match(e: E.ShufflerEvent) -> bool:
            return isinstance(e, cls) and all(getattr(e, k) == v for k, v in attrs.items())
        events = self.wait(lambda evs: any(match(e) for e in evs), timeout)
        return next(e for e in events if match(e))

    def of(self, cls: type) -> list:
        """Return the events of type ``cls`` so far."""
        with self._cond:
            return [e for e in self.events if isinstance(e, cls)]


class Rig:
    """An emulator, a driver on its pty and the collector."""

    def __init__(self, emu: Emulator, driver: ShufflerDriver, events: Collector) -> None:
        self.emu, self.driver, self.events = emu, driver, events

    def new_deck(self) -> E.DeckReady:
        """Shuffle and wait for the verified deck."""
        rid = self.driver.shuffle()
        return self.events.wait_for(E.DeckReady, request_id=rid)

    def sync(self) -> None:
        """Finish the driver's pending work (event acknowledgements) with a STATUS round trip."""
        rid = self.driver.status()
        self.events.wait_for(E.StatusReport, request_id=rid)

    def deal(self, target: object, count: int = 1) -> list[E.CardDelivered]:
        """Deal and wait for DealDone; return this request's CardDelivered events."""
        rid = self.driver.deal(target, count)
        self.events.wait_for(E.DealDone, request_id=rid)
        return [e for e in self.events.of(E.CardDelivered) if e.request_id == rid]


@pytest.fixture
def make_rig() -> Iterator[Callable[..., Rig]]:
    """Build rigs: ``make_rig(seed=1, faults=Faults(...), deal_time=0.0, timing=FAST)``."""
    made: list[Rig] = []

    def make(*, seed: int = 1, faults: Faults | None = None, deal_time: float = 0.0,
             timing: LinkTiming = FAST, event_retry: float = 0.03) -> Rig:
        emu = Emulator(seed=seed, faults=faults, deal_time=deal_time, event_retry=event_retry)
        path = emu.start()
        events = Collector()
        drv = ShufflerDriver(path, post=events.post, clock=events.clock, timing=timing)
        rig = Rig(emu, drv, events)
        made.append(rig)
        drv.start()
        events.wait_for(E.DeviceIdentified)
        return rig

    yield make
    for rig in made:
        rig.driver.stop()
        rig.emu.stop()


@pytest.fixture
def rig(make_rig: Callable[..., Rig]) -> Rig:
    """A rig with no faults and seed 1."""
    return make_rig()
