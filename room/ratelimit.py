"""A small per-login rate limit for the players' desk (issue 18).

A breaker's phone wrote 1,351 rows into the room's log in 8 s. :class:`RateLimit` gives each
login (a phone's player, a floor login) a token bucket: ``burst`` requests at once, then
``rate`` per second. A refused request costs nothing but a counter: the refusals are logged
at most once per ``log_every`` seconds, with their count and the logins, never one line per
request. The clock is injected (tests pass a fake one).

Our own twenty lines rather than a library: the well-known ones (``limits``,
``pyrate-limiter``) bring storage back-ends and read their own clocks; the desk needs one
in-memory bucket per login and a clock it can give.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable

__all__ = ["RateLimit"]

log = logging.getLogger("livetable.room.ratelimit")


class RateLimit:
    """Token buckets per login.

    Args:
        rate: requests per second a login gets back (> 0); burst: the bucket's size (>= 1).
        clock: seconds (monotonic); log_every: seconds between two log lines of refusals.
        max_logins: buckets kept; beyond it, full buckets (idle logins) are forgotten.

    Raises:
        ValueError: ``rate`` or ``burst`` out of range.
    """

    def __init__(self, rate: float = 1.0, burst: int = 10, *, clock: Callable[[], float] = time.monotonic,
                 log_every: float = 1.0, max_logins: int = 10_000, logger: logging.Logger = log) -> None:
        if not rate > 0 or burst < 1:
            raise ValueError("a rate limit needs rate > 0 and burst >= 1")
        self.rate, self.burst, self.clock, self.log_every = float(rate), int(burst), clock, log_every
        self.max_logins, self.log = max_logins, logger
        self._buckets: dict[str, tuple[float, float]] = {}  # login -> (tokens, at)
        self.refused = 0  # in all
        self._since_log: dict[str, int] = {}
        self._logged_at = -math.inf
        self._refusing: set[str] = set()  # logins refused since their last allowed request
        self.first = False  # the last refusal was its login's first since it was last allowed

    def allow(self, login: str) -> float:
        """Take one request of ``login``; return 0.0 when it may go on, else the seconds
        until it may (the ``Retry-After``), counting the refusal (:attr:`first`: whether it is
        the login's first refusal since its last allowed request: tell the client once)."""
        now = self.clock()
        tokens, at = self._buckets.get(login, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - at) * self.rate)
        if tokens >= 1.0:
            if login not in self._buckets and len(self._buckets) >= self.max_logins:
                self._forget(now)
            self._buckets[login] = (tokens - 1.0, now)
            self._refusing.discard(login)
            return 0.0
        self._buckets[login] = (tokens, now)
        self.first = login not in self._refusing
        self._refusing.add(login)
        self.refused += 1
        self._since_log[login] = self._since_log.get(login, 0) + 1
        self.flush_log()
        return (1.0 - tokens) / self.rate

    def flush_log(self, force: bool = False) -> None:
        """Log the refusals counted since the last line (once per ``log_every`` seconds)."""
        now = self.clock()
        if not self._since_log or (not force and now - self._logged_at < self.log_every):
            return
        n = sum(self._since_log.values())
        top = sorted(self._since_log.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
        self.log.warning("rate limit: %d request(s) refused (%s)", n, ", ".join(f"{k} {v}" for k, v in top))
        self._since_log.clear()
        self._logged_at = now

    def _forget(self, now: float) -> None:
        for login, (tokens, at) in list(self._buckets.items()):
            if tokens + (now - at) * self.rate >= self.burst:
                del self._buckets[login]
                self._refusing.discard(login)
