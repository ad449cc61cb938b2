"""Idempotency and rate checks of the controller's MQTT driver (M-4, M-5, M-8). Pure, no clock.

QoS 1 delivers at least once, and tablets resend after reconnecting: every action carries a
unique id and the public state seq the player saw. :class:`ActionGuard` refuses an id seen
before (M-5, a duplicate is never replayed into the table) and an action made on a table
that has changed since in a way that matters to it (M-4): any new state for a decision on
the hand, a new betting round for a pre-selection, a new player in the seat for a seat
request.
:class:`RateLimit` bounds chat lines per seat in a sliding window (L-3, M-8). Thread-safe:
paho's network thread checks while the loop's thread records new states.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from typing import Any

from drivers.mqtt.codec import SEAT_REQUESTS, PayloadError


class ActionGuard:
    """Remember the recent published states and each seat's recent action ids.

    An action is checked against the state its player saw (its ``seq``), in one of three
    scopes (:func:`scope_of` gives an action's):

    - ``"state"``: a decision on the hand (fold .. muck) must carry the current seq.
    - ``"round"``: a pre-selection (A-3, one betting round) must carry a seq of the current
      hand and street: made on the flop, it never acts on the turn or in the next hand.
    - ``"seat"``: a seat request (take_seat, sit_out, top_up ...) must carry a seq from
      the seat's present stay (the same player sitting since, or the seat empty since): at
      a busy table it may cross new states, but one a previous player left pending never
      reaches the next, nor one a player left pending before she stood up and sat down again.
      A stay ends whenever a published state shows another holder (or none) in the seat.

    A seq older than the ``states`` last published, from before this guard's first state (a
    controller restart: it cannot tell what changed meanwhile) or never published is stale
    in every scope. ``ids_per_seat`` bounds memory: the oldest ids are forgotten first (a
    replay older than that many later actions fails the seq check, being older than
    ``states`` states).
    """

    SCOPES = ("state", "round", "seat")

    def __init__(self, *, ids_per_seat: int = 512, states: int = 1024) -> None:
        if ids_per_seat < 1 or states < 1:
            raise ValueError("ids_per_seat and states must be >= 1")
        self._lock = threading.Lock()
        self._seq: int | None = None
        self._ids: dict[int, OrderedDict[str, None]] = {}
        self._limit = ids_per_seat
        #: seq -> (betting round, each seat's stay number) of the last ``states`` states published
        self._seen: OrderedDict[int, tuple[object, tuple[int, ...]]] = OrderedDict()
        self._states = states
        self._first: int | None = None  # the first seq published (since this controller started)
        self._holders: tuple[object, ...] = ()  # who holds each seat in the last state
        self._stays: list[int] = []  # per seat: how many times its holder changed

    @property
    def seq(self) -> int | None:
        """The last published public state seq, or None before the first."""
        with self._lock:
            return self._seq

    def published(self, seq: int, *, round: object = None, occupants: tuple[object, ...] = ()) -> None:  # noqa: A002
        """Record that the state with ``seq`` was published.

        ``round``: what names its betting round; ``occupants``: who holds each seat, seat 1
        first, None for an empty one (both as :func:`view_facts` takes them from the view).
        Raises ``ValueError`` when ``seq`` is lower than the last one
        (docs/state.md: seq only rises); an equal seq (a republish) replaces what it holds.
        """
        with self._lock:
            if self._seq is not None and seq < self._seq:
                raise ValueError(f"state seq {seq} is lower than the published {self._seq}")
            if self._first is None:
                self._first = seq
            self._seq = seq
            holders = tuple(occupants)
            if len(self._stays) < len(holders):
                self._stays += [0] * (len(holders) - len(self._stays))
            for i, who in enumerate(holders):
                if who != (self._holders[i] if i < len(self._holders) else None):
                    self._stays[i] += 1  # a new stay (or the seat left empty)
            self._holders = holders
            self._seen[seq] = (round, tuple(self._stays))
            self._seen.move_to_end(seq)
            while len(self._seen) > self._states:
                self._seen.popitem(last=False)

    def admit(self, seat: int, action_id: str, seq_seen: int, *, scope: str = "state") -> None:
        """Admit one action or raise :class:`PayloadError` M-5 (id seen) or M-4 (stale seq).

        ``scope``: ``"state"``, ``"round"`` or ``"seat"`` (see the class). The id is consumed
        even when the seq check fails: a new attempt needs a new id. Raises ``ValueError``
        for an unknown scope.
        """
        if scope not in self.SCOPES:
            raise ValueError(f"scope must be one of {self.SCOPES}, got {scope!r}")
        with self._lock:
            ids = self._ids.setdefault(seat, OrderedDict())
            if action_id in ids:
                raise PayloadError("M-5", f"action id {action_id!r} was already received", action_id)
            ids[action_id] = None
            if len(ids) > self._limit:
                ids.popitem(last=False)
            if self._seq is None:
                raise PayloadError("M-4", "no table state has been published yet", action_id)
            if seq_seen == self._seq:
                return
            what = "stale" if seq_seen < self._seq else "unknown"
            then = self._seen.get(seq_seen)
            if then is None and seq_seen < self._first:  # type: ignore[operator]  # set with _seq
                raise PayloadError("M-4", f"stale state seq {seq_seen}: sent before the table restarted "
                                          f"(it is at seq {self._seq}): please ask again", action_id)
            if scope == "state" or then is None:
                raise PayloadError(
                    "M-4", f"{what} state seq {seq_seen}: the table is at seq {self._seq}", action_id)
            now = self._seen[self._seq]
            if scope == "round" and then[0] != now[0]:
                raise PayloadError("M-4", f"stale state seq {seq_seen}: the betting round it was made in is "
                                          "over (a pre-selection lasts one round, A-3)", action_id)
            if scope == "seat" and _stay(then[1], seat) != _stay(now[1], seat):
                raise PayloadError("M-4", f"stale state seq {seq_seen}: seat {seat} has changed players since",
                                   action_id)


def scope_of(action: str) -> str:
    """The :class:`ActionGuard` scope of a tablet ``action``: ``"seat"`` for a seat request
    (``codec.SEAT_REQUESTS``), ``"round"`` for ``preselect`` (A-3), ``"state"`` for the rest:
    the decisions on the hand (fold, check, call, bet, raise, all_in, draw, show, muck)."""
    if action in SEAT_REQUESTS:
        return "seat"
    return "round" if action == "preselect" else "state"


def view_facts(view: dict[str, Any]) -> dict[str, Any]:
    """What :meth:`ActionGuard.published` keeps of a public state (docs/state.md):
    ``round`` = ``(hand, street)``, ``occupants`` = per seat None when empty, else
    ``("seated", name)`` (the table's player id is the name for tablet joins, T-2)."""
    occupants: list[object] = []
    for s in view.get("seats") or ():
        if not isinstance(s, dict) or s.get("status") == "empty":
            occupants.append(None)
        else:
            occupants.append(("seated", s.get("name")))
    return {"round": (view.get("hand"), view.get("street")), "occupants": tuple(occupants)}


def _stay(stays: tuple[int, ...], seat: int) -> int:
    return stays[seat - 1] if 0 < seat <= len(stays) else 0


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
