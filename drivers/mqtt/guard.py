"""Idempotency and rate checks of the controller's MQTT driver (M-4, M-5, M-8). Pure, no clock.

QoS 1 delivers at least once, and tablets resend after reconnecting: every action carries a
unique id and the public state seq the player saw. :class:`ActionGuard` refuses an id seen
before (M-5, a duplicate is never replayed into the table) and a decision whose seq is not
the last state published (M-4, the player decided on a table that has changed since).
:class:`RateLimit` bounds chat lines per seat in a sliding window (L-3, M-8). Thread-safe:
paho's network thread checks while the loop's thread records new states.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque

from drivers.mqtt.codec import PayloadError


class ActionGuard:
    """Remember the last published state seq and each seat's recent action ids.

    ``ids_per_seat`` bounds memory: the oldest ids are forgotten first (a replay older than
    that many later actions still fails the seq check, since seq only rises).
    """

    def __init__(self, *, ids_per_seat: int = 512) -> None:
        if ids_per_seat < 1:
            raise ValueError("ids_per_seat must be >= 1")
        self._lock = threading.Lock()
        self._seq: int | None = None
        self._ids: dict[int, OrderedDict[str, None]] = {}
        self._limit = ids_per_seat

    @property
    def seq(self) -> int | None:
        """The last published public state seq, or None before the first."""
        with self._lock:
            return self._seq

    def published(self, seq: int) -> None:
        """Record that the state with ``seq`` was published.

        Raises ``ValueError`` when ``seq`` is lower than the last one (docs/state.md: seq
        only rises); an equal seq (a republish) is fine.
        """
        with self._lock:
            if self._seq is not None and seq < self._seq:
                raise ValueError(f"state seq {seq} is lower than the published {self._seq}")
            self._seq = seq

    def admit(self, seat: int, action_id: str, seq_seen: int, *, check_seq: bool = True) -> None:
        """Admit one action or raise :class:`PayloadError` M-5 (id seen) or M-4 (stale seq).

        ``check_seq`` False (a pre-selection or a seat request, not a decision on the hand:
        ``codec.DECISIONS``) skips the seq check but still needs a state published.
        The id is consumed even when the seq check fails: a new attempt needs a new id.
        """
        with self._lock:
            ids = self._ids.setdefault(seat, OrderedDict())
            if action_id in ids:
                raise PayloadError("M-5", f"action id {action_id!r} was already received", action_id)
            ids[action_id] = None
            if len(ids) > self._limit:
                ids.popitem(last=False)
            if self._seq is None:
                raise PayloadError("M-4", "no table state has been published yet", action_id)
            if check_seq and seq_seen != self._seq:
                what = "stale" if seq_seen < self._seq else "unknown"
                raise PayloadError(
                    "M-4", f"{what} state seq {seq_seen}: the table is at seq {self._seq}", action_id)


class RateLimit:
    """At most ``count`` events per key in any ``window`` seconds (L-3 chat: M-8).

    Times are given by the caller (Unix or monotonic seconds, float): no clock is read.
    """

    def __init__(self, *, count: int, window: float) -> None:
        if count < 1 or window <= 0:
            raise ValueError("count must be >= 1 and window > 0")
        self._count, self._window = count, window
        self._times: dict[object, deque[float]] = {}
        self._lock = threading.Lock()

    def allow(self, key: object, now: float) -> bool:
        """Return True and count the event if ``key`` is under its limit at ``now``."""
        with self._lock:
            times = self._times.setdefault(key, deque())
            while times and times[0] <= now - self._window:
                times.popleft()
            if len(times) >= self._count:
                return False
            times.append(now)
            return True
