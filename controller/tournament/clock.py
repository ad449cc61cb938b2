"""The tournament clock: levels, breaks, pause and resume, driven by an injected monotonic time.

Pure: the clock never reads the time. Every method takes ``now``, seconds of a monotonic
clock the caller owns (``time.monotonic()`` at the table, a fake in tests); ``now`` must not
go backwards. The clock walks the settings' schedule (levels and breaks in order); the last
level never ends (a tournament that outlasts its structure stays on its last level, as a
room's clock does); a schedule ending with a break goes back to its last level once the
break is over (the levels continue: the clock never runs out of schedule). State survives
a restart through :meth:`TournamentClock.to_json`.

TDA 23 (New Hand & New Limits): a new level applies from the next hand; a hand keeps the
level it started at. :meth:`TournamentClock.level_for_hand` is what the table asks when it
deals a hand, and it records the answer with the hand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import TournamentError
from .settings import Break, Level, TournamentSettings

__all__ = ["ClockStatus", "TournamentClock", "hand_for_hand"]


@dataclass(frozen=True, slots=True)
class ClockStatus:
    """What the display and the tablets show about the clock at one moment.

    ``index``: position in the schedule. ``current``: the level or break being played.
    ``level``: the level being played, or during a break the level that follows it.
    ``seconds_left``: whole seconds until the next level or break (rounded up; ``None``
    on the last level, which never ends). ``next``: the following level or break
    (``None`` on the last). ``running``: False before the start and while paused.
    """

    index: int
    current: Level | Break
    level: Level
    seconds_left: int | None
    next: Level | Break | None
    running: bool
    started: bool

    @property
    def on_break(self) -> bool:
        """Return True during a break (no hand is dealt)."""
        return isinstance(self.current, Break)


class TournamentClock:
    """The clock of one tournament (a single table's own, or the room's for many tables).

    Raises:
        TournamentError: ``now`` going backwards, pause while paused, resume while running,
            a hand dealt during a break or before the start.
    """

    def __init__(self, settings: TournamentSettings) -> None:
        schedule = settings.schedule
        if schedule and isinstance(schedule[-1], Break):  # the levels continue after a trailing break
            schedule = schedule + (next(x for x in reversed(schedule) if isinstance(x, Level)),)
        self._schedule = schedule
        self._index = 0
        self._elapsed = 0.0  # seconds played in schedule[_index] up to _since
        self._since: float | None = None  # monotonic time of the last resume, None when stopped
        self._started = False
        self._last_now: float | None = None

    # -- driving -------------------------------------------------------------------------
    def start(self, now: float) -> None:
        """Start the clock at the beginning of the first level.

        Raises:
            TournamentError: already started.
        """
        if self._started:
            raise TournamentError("clock: already started")
        self._check(now)
        self._started = True
        self._since = now

    def pause(self, now: float) -> None:
        """Stop the clock (the TD pauses; time left is kept).

        Raises:
            TournamentError: not running.
        """
        self._advance(now)
        if self._since is None:
            raise TournamentError("clock: not running, cannot pause")
        self._elapsed += now - self._since
        self._since = None

    def resume(self, now: float) -> None:
        """Run the clock again from where it was paused.

        Raises:
            TournamentError: not started, or already running.
        """
        self._check(now)
        if not self._started:
            raise TournamentError("clock: not started, cannot resume")
        if self._since is not None:
            raise TournamentError("clock: already running")
        self._since = now

    def next_level(self, now: float) -> None:
        """Move to the next level or break now (the TD skips ahead); a no-op on the last level."""
        self._advance(now)
        if self._index + 1 < len(self._schedule):
            self._index += 1
            self._elapsed = 0.0
            if self._since is not None:
                self._since = now

    def set_time_left(self, now: float, seconds: int) -> None:
        """Set the time left in the current level or break (the TD corrects the clock).

        Raises:
            TournamentError: ``seconds`` negative or longer than the level.
        """
        self._advance(now)
        length = self._schedule[self._index].seconds
        if not 0 <= seconds <= length:
            raise TournamentError(f"clock: time left must be 0..{length} s, got {seconds}")
        self._elapsed = float(length - seconds)
        if self._since is not None:
            self._since = now

    # -- reading -------------------------------------------------------------------------
    def status(self, now: float) -> ClockStatus:
        """Return the clock's status at ``now`` (advancing through levels that have ended)."""
        self._advance(now)
        cur = self._schedule[self._index]
        played = self._elapsed + (now - self._since if self._since is not None else 0.0)
        last = self._index == len(self._schedule) - 1
        left = None if last else max(0, math.ceil(cur.seconds - played - 1e-9))
        nxt = None if last else self._schedule[self._index + 1]
        level = cur if isinstance(cur, Level) else next(
            (x for x in self._schedule[self._index:] if isinstance(x, Level))
        )
        return ClockStatus(self._index, cur, level, left, nxt, self._since is not None, self._started)

    def level_for_hand(self, now: float) -> Level:
        """Return the level a hand dealt at ``now`` plays, all through the hand (TDA 23).

        Raises:
            TournamentError: the clock has not started, or a break is on (no hand is dealt).
        """
        st = self.status(now)
        if not st.started:
            raise TournamentError("clock: the tournament has not started")
        if st.on_break:
            raise TournamentError("clock: on a break, no hand is dealt")
        return st.level

    # -- persistence ---------------------------------------------------------------------
    def to_json(self, now: float) -> dict:
        """Return a JSON-able snapshot at ``now``: index, seconds played in it, running, started.

        A monotonic clock does not survive a restart, so the snapshot holds seconds played,
        not a timestamp; :meth:`from_json` restores it against the new process's clock.
        """
        self._advance(now)
        played = self._elapsed + (now - self._since if self._since is not None else 0.0)
        return {"index": self._index, "played": played, "running": self._since is not None,
                "started": self._started}

    @classmethod
    def from_json(cls, settings: TournamentSettings, data: dict, now: float) -> "TournamentClock":
        """Rebuild a clock from :meth:`to_json`'s snapshot, running (if it was) from ``now``.

        Raises:
            TournamentError: a snapshot that does not fit these settings.
        """
        clock = cls(settings)
        try:
            index, played = int(data["index"]), float(data["played"])
            running, started = bool(data["running"]), bool(data["started"])
        except (KeyError, TypeError, ValueError) as exc:
            raise TournamentError(f"clock: bad snapshot {data!r}") from exc
        if not 0 <= index < len(clock._schedule) or played < 0:
            raise TournamentError(f"clock: snapshot does not fit the schedule: {data!r}")
        clock._index, clock._elapsed, clock._started = index, played, started
        clock._since = now if running else None
        clock._last_now = now
        return clock

    # -- internals -----------------------------------------------------------------------
    def _check(self, now: float) -> None:
        if self._last_now is not None and now < self._last_now:
            raise TournamentError(f"clock: time went backwards ({now} < {self._last_now})")
        self._last_now = now

    def _advance(self, now: float) -> None:
        """Fold the running time into the state, moving past every level that ended."""
        self._check(now)
        if self._since is None:
            return
        self._elapsed += now - self._since
        self._since = now
        while self._index + 1 < len(self._schedule):
            length = self._schedule[self._index].seconds
            if self._elapsed < length:
                break
            self._elapsed -= length
            self._index += 1


def hand_for_hand(players_left: int, places_paid: int, tables: int, margin: int = 1) -> bool:
    """Return True when the tables should play hand-for-hand (near the money).

    True while more than one table is playing and ``players_left`` is above the places
    paid by at most ``margin`` (1: only on the bubble). A single table is hand-for-hand by
    nature and is never flagged. Busts in one hand-for-hand hand at different tables are
    one hand for places (see :func:`controller.tournament.results.Standings.bust`).

    Raises:
        ValueError: a negative count or a margin < 1.
    """
    if min(players_left, places_paid, tables) < 0 or margin < 1:
        raise ValueError("hand_for_hand: counts must be >= 0 and margin >= 1")
    return tables > 1 and places_paid < players_left <= places_paid + margin
