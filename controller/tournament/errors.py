"""Errors of the tournament package; each message names the field or the rule it enforces.

Every class is a ``ValueError`` so callers may catch either. Messages start with the rule
(``"TDA 11: ..."``) or the settings field (``"levels[3].big_blind: ..."``) they are about.
"""

from __future__ import annotations

__all__ = ["TournamentError", "SettingsError", "BalancingError"]


class TournamentError(ValueError):
    """Base class of every tournament error (a ``ValueError``)."""


class SettingsError(TournamentError):
    """Tournament settings that cannot run: every problem found, not only the first.

    ``problems`` is the list of messages, each starting with the field path
    (``"levels[2].minutes: must be > 0, got 0"``); ``str(error)`` joins them one a line.
    """

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


class BalancingError(TournamentError):
    """A description of tables and seats that cannot be balanced or broken (TDA 10, 11)."""
