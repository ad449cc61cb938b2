"""Tournament facts in words for people reading a log, a history or ``floor status`` (issue 19,
a newcomer's findings: ``1 players left``, levels without their antes). Standard library
only; used by the single-table run, the room's tournament, the history and the floor CLI."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def plural(n: int, word: str, words: str | None = None) -> str:
    """``1 player``, ``3 players`` (``words``: an irregular plural, ``1 entry``/``6 entries``)."""
    return f"{n} {word if n == 1 else (words or word + 's')}"


def players_left(n: int) -> str:
    """``1 player left``, ``5 players left``."""
    return plural(n, "player") + " left"


def ordinal(n: int) -> str:
    """A place in words: ``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``22nd``."""
    if 11 <= n % 100 <= 13:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def minutes_seconds(seconds: int) -> str:
    """A time left as ``m:ss``: ``161`` -> ``2:41``, ``3600`` -> ``60:00``."""
    return f"{seconds // 60}:{seconds % 60:02d}"


def stakes_words(stakes: Mapping[str, Any]) -> str:
    """A level's stakes in words, antes included (TDA 23, RP-11): ``100/200, big-blind ante
    200``, ``50/100, ante 25``, ``25/50``. ``stakes``: ``small_blind``, ``big_blind`` and
    optionally ``ante``/``big_blind_ante`` (chips, integers)."""
    text = f"{stakes.get('small_blind')}/{stakes.get('big_blind')}"
    if stakes.get("big_blind_ante"):
        text += f", big-blind ante {stakes['big_blind_ante']}"
    elif stakes.get("ante"):
        text += f", ante {stakes['ante']}"
    return text
