"""A test hook that kills this process at a named point: ``<ENV>=point:n`` dies at the n-th pass.

Used by the tournament table (``LIVETABLE_TOURNAMENT_CRASH``) and its room link
(``LIVETABLE_TOURNAMENT_LINK_CRASH``) to prove that the journal recovers from a crash anywhere.
"""

from __future__ import annotations

import logging
import os
import signal

__all__ = ["CrashPoints"]

log = logging.getLogger(__name__)


class CrashPoints:
    """Reads ``env`` once (``point`` or ``point:n``, n ≥ 1); :meth:`hit` counts passes of a point."""

    def __init__(self, env: str) -> None:
        self.env = env
        self.plan: tuple[str, int] | None = None
        self._passed: dict[str, int] = {}
        raw = os.environ.get(env, "")
        point, _, n = raw.partition(":")
        if not point:
            return
        try:
            self.plan = point, max(1, int(n or 1))
        except ValueError:
            log.warning("%s=%r ignored (want point:n)", env, raw)

    def hit(self, point: str) -> None:
        """Kill this process (SIGKILL) if ``point`` is the planned one and this is its n-th pass."""
        if self.plan is None or self.plan[0] != point:
            return
        self._passed[point] = self._passed.get(point, 0) + 1
        if self._passed[point] == self.plan[1]:
            log.warning("%s: killing this process at %s #%d", self.env, point, self.plan[1])
            os.kill(os.getpid(), signal.SIGKILL)
