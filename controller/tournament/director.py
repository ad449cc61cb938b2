"""The tournament director's clock commands (issue 19), one rule for every clock.

Pure like the rest of this package: :func:`clock_command` takes a clock and ``now``
(seconds of the caller's monotonic clock) and returns a *new* clock with the command
applied, never changing the one given, so the caller journals the result first and only
then takes it (the crash guarantee of every tournament event). The single table
(:meth:`controller.tournament_run.TournamentTable.direct`, ``livetable floor clock-*``)
and the room (:meth:`room.tournament.RoomTournament.direct`, the floor console and
``livetable room director``) give the same answers and refuse the same requests.

Commands (:data:`CLOCK_COMMANDS`):

- ``clock-pause`` / ``clock-resume``: stop / run the level's clock; the time left is kept.
  Hands are still dealt while the clock is paused, at the clock's level (TDA 23).
- ``clock-add``: ``amount`` seconds more (negative: fewer) in the current level or break;
  the time left stays within 0..the level's length.
- ``clock-level``: go to the start of level number ``amount`` (forward or back); a paused
  clock stays paused. The new level applies from the next hand (TDA 23).
"""

from __future__ import annotations

from .clock import TournamentClock
from .errors import TournamentError
from .settings import Level, TournamentSettings

__all__ = ["CLOCK_COMMANDS", "CommandError", "clock_command", "level_numbers", "mmss"]

#: The director's clock commands.
CLOCK_COMMANDS = ("clock-pause", "clock-resume", "clock-add", "clock-level")


class CommandError(TournamentError):
    """A request that is no clock command: an unknown command, an amount that is not a whole
    number, a level the schedule does not have. (A :class:`TournamentError` that is not a
    ``CommandError`` is a request refused because of the clock's state.)"""


def mmss(seconds: int | None) -> str:
    """Return ``seconds`` as ``m:ss`` (``8:42``); ``no end`` for None (the last level)."""
    return "no end" if seconds is None else f"{seconds // 60}:{seconds % 60:02d}"


def level_numbers(settings: TournamentSettings) -> list[int]:
    """Return the numbers of the schedule's levels (breaks left out), in order."""
    return [x.number for x in settings.schedule if isinstance(x, Level)]


def clock_command(settings: TournamentSettings, clock: TournamentClock, now: float, command: str,
                  amount: int | None = None) -> tuple[TournamentClock, str]:
    """Apply the director's ``command`` to a copy of ``clock`` at ``now``; return the new
    clock and what was done in words (``the clock is paused at level 3 (8:42 left)``).

    Args:
        settings: the tournament's settings (the clock's schedule).
        clock: the clock now; it is not changed.
        now: seconds of the caller's monotonic clock (not going backwards).
        command: one of :data:`CLOCK_COMMANDS`.
        amount: ``clock-add``: seconds (an int, may be negative); ``clock-level``: the
            level's number; unused otherwise.

    Raises:
        CommandError: an unknown command, ``amount`` not an int, no such level.
        TournamentError: refused by the clock's state (``F-3: ...``): pausing a paused clock,
            resuming a running one, time on the last level (which never ends), time left
            going below 0 or above the level's length.
    """
    if command not in CLOCK_COMMANDS:
        raise CommandError(f"M-2: {command!r} is no director's command (known: {', '.join(CLOCK_COMMANDS)})")
    if command in ("clock-add", "clock-level") and (isinstance(amount, bool) or not isinstance(amount, int)):
        what = "seconds" if command == "clock-add" else "a level number"
        raise CommandError(f"{command} needs {what} as a whole number, got {amount!r}")
    new = TournamentClock.from_json(settings, clock.to_json(now), now)
    st = new.status(now)
    if command == "clock-pause":
        if not st.running:
            raise TournamentError("F-3: the clock is paused already")
        new.pause(now)
        return new, f"the clock is paused at level {st.level.number} ({mmss(st.seconds_left)} left)"
    if command == "clock-resume":
        if st.running:
            raise TournamentError("F-3: the clock is running")
        new.resume(now)
        return new, f"the clock runs again at level {st.level.number} ({mmss(st.seconds_left)} left)"
    assert amount is not None
    if command == "clock-add":
        if st.seconds_left is None:
            raise TournamentError("F-3: the last level has no end: no time to add")
        length = st.current.seconds
        if st.seconds_left + amount < 0:
            raise TournamentError(f"F-3: {st.seconds_left} s are left: at most {st.seconds_left} s can be "
                                  f"taken off, not {-amount}")
        if st.seconds_left + amount > length:
            raise TournamentError(f"F-3: {st.seconds_left} s are left of {length}: at most "
                                  f"{length - st.seconds_left} s can be added")
        new.set_time_left(now, st.seconds_left + amount)
        return new, f"{amount} s added: {mmss(st.seconds_left + amount)} left"
    index = next((i for i, x in enumerate(settings.schedule) if isinstance(x, Level) and x.number == amount), None)
    if index is None:
        numbers = level_numbers(settings)
        raise CommandError(f"F-3: no level {amount} (levels {numbers[0]}..{numbers[-1]})")
    new = TournamentClock.from_json(settings, {"index": index, "played": 0.0, "running": st.running,
                                               "started": True}, now)
    lv = settings.schedule[index]
    assert isinstance(lv, Level)
    return new, (f"level {amount} ({lv.small_blind}/{lv.big_blind}) from the next hand (TDA 23)"
                 + ("" if st.running else "; the clock stays paused"))
