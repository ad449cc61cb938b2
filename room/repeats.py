"""Say a repeated warning once, not every second (issue 19).

A table reports its tournament state every second or so; a report the room refuses for a
reason that does not go away (a player the room holds at another table, a stale process)
was logged at every report, the same line every second. :class:`Repeats` decides whether
to say it: the first time for a table, again when the reason changes, else at most once
every ``every`` seconds of the injected clock (with how many times it came since), and
afresh once a report of that table was taken again (:meth:`Repeats.clear`).
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["Repeats", "REPEAT_SECONDS"]

#: Seconds between two sayings of the same refusal of one table.
REPEAT_SECONDS = 60.0


class Repeats:
    """Whether a table's refusal is said now (see the module's doc).

    Args:
        clock: monotonic seconds (injected in tests: no sleeps).
        every: seconds between two sayings of the same reason for one table.
        most: the most tables (keys) kept; a key beyond them is always said (a bound on what
            unknown names in topics can make the room hold).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic, *, every: float = REPEAT_SECONDS,
                 most: int = 1000) -> None:
        self.clock, self.every, self.most = clock, every, most
        self._said: dict[str, tuple[str, float, int]] = {}  # key -> (reason, when said, repeats since)

    def say(self, key: str, reason: str, *, kind: str | None = None) -> str | None:
        """Return the words to log for ``key`` refused for ``reason`` now, or None to stay quiet.

        ``kind``: what counts as the same reason (default ``reason`` itself; e.g. ``"stale"``
        for reasons whose numbers change at every report). The words are ``reason``, followed
        by ``(again: N times in the last M s)`` on a repeat said after ``every`` seconds."""
        now, same = self.clock(), kind or reason
        last = self._said.get(key)
        if last is None or last[0] != same:
            if last is not None or len(self._said) < self.most:
                self._said[key] = (same, now, 0)
            return reason
        if now - last[1] < self.every:
            self._said[key] = (same, last[1], last[2] + 1)
            return None
        self._said[key] = (same, now, 0)
        return f"{reason} (again: {last[2] + 1} times in the last {now - last[1]:.0f} s)"

    def clear(self, key: str) -> None:
        """Forget ``key``'s last reason (its report was taken): a refusal after is said at once."""
        self._said.pop(key, None)
