"""What the dealer display and the tablets show of a tournament, as plain numbers (issue 19).

Pure: built from the clock's status, the standings and the stacks on the felt; the
display and the tablets (not yet wired) only format it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

from .clock import ClockStatus
from .results import Standings
from .settings import Level

__all__ = ["TournamentView", "tournament_view", "big_blinds", "big_blind_ante_posts"]


@dataclass(frozen=True, slots=True)
class TournamentView:
    """The tournament's public numbers at one moment.

    ``level``: the level being played (during a break: the one after it); ``seconds_left``
    (``None`` on the last level); ``next_level``: the level after ``level``, breaks
    skipped, or ``None`` on the last;
    ``on_break``; ``players_left``; ``entries``; ``average_stack`` (chips in play / players
    left, rounded down; 0 with nobody left); ``prize_pool`` (money); ``stacks_in_big_blinds``
    (player -> stack / big blind, rounded down to one decimal, as tenths: 125 = 12.5 BB).
    """

    level: Level
    seconds_left: int | None
    next_level: Level | None
    on_break: bool
    players_left: int
    entries: int
    average_stack: int
    prize_pool: int
    stacks_in_big_blinds: dict[str, int]


def big_blinds(stack: int, level: Level) -> Fraction:
    """Return ``stack`` in big blinds of ``level`` (exact)."""
    return Fraction(stack, level.big_blind)


def tournament_view(status: ClockStatus, standings: Standings, stacks: Mapping[str, int]) -> TournamentView:
    """Return what the display and tablets show; ``stacks`` are the live players' chips.

    Raises:
        ValueError: a stack for a player without a live entry.
    """
    alive = set(standings.alive)
    strangers = sorted(set(stacks) - alive)
    if strangers:
        raise ValueError(f"view: stacks for players without a live entry: {strangers}")
    left = len(alive)
    later = [x for x in standings.settings.schedule[status.index + 1:] if isinstance(x, Level)]
    if status.on_break:
        later = later[1:]  # the first level after a break is status.level itself
    nxt = later[0] if later else None
    return TournamentView(
        level=status.level,
        seconds_left=status.seconds_left,
        next_level=nxt,
        on_break=status.on_break,
        players_left=left,
        entries=len(standings.entries),
        average_stack=standings.chips_in_play() // left if left else 0,
        prize_pool=standings.prize_pool(),
        stacks_in_big_blinds={p: int(big_blinds(s, status.level) * 10) for p, s in stacks.items()},
    )


def big_blind_ante_posts(stack: int, level: Level) -> tuple[int, int]:
    """Return ``(big_blind, ante)`` posted by a big blind with ``stack`` chips at a
    big-blind-ante level: the big blind first, then the ante from what is left (TDA RP-11,
    big-blind-first; the ante is never reduced for fewer players). The hand engine posts
    the same (``HandSettings.big_blind_first``); a test checks them against each other.

    Raises:
        ValueError: a negative stack, or a level without a big-blind ante.
    """
    if stack < 0:
        raise ValueError(f"RP-11: stack must be >= 0, got {stack}")
    if not level.big_blind_ante:
        raise ValueError(f"RP-11: level {level.number} has no big-blind ante")
    blind = min(stack, level.big_blind)
    return blind, min(stack - blind, level.big_blind_ante)
