"""What a tournament hands the table session, and what it reads back (issue 19, Play).

The table session (``controller.engine.table``) knows nothing of tournaments beyond its
``tournament`` and ``big_blind_ante`` settings; these helpers translate between it and this
package without either importing the other:

- :func:`level_stakes`: the blinds and antes of a clock level, as the ``level`` of the
  table's ``HandStartRequested`` (the table applies it at the deal, TDA 23);
- :func:`button_seat_words`: what becomes of a drawn button at the table (for its log);
- :func:`busts_of`: the players a finished hand busted, with the stacks they started it
  with, from the hand's record, for :meth:`~controller.tournament.results.Standings.bust`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .errors import TournamentError
from .settings import Level

__all__ = ["level_stakes", "level_json", "busts_of", "button_seat_words"]


def level_stakes(level: Level) -> dict[str, int]:
    """Return ``{"small_blind", "big_blind", "ante", "big_blind_ante"}`` (chips) of ``level``.

    Raises:
        TournamentError: ``level`` is a break (no hand is dealt on a break).
    """
    if not isinstance(level, Level):
        raise TournamentError(f"level_stakes: a level is needed, got {level!r}")
    return {"small_blind": level.small_blind, "big_blind": level.big_blind,
            "ante": level.ante, "big_blind_ante": level.big_blind_ante}


def level_json(level: Level | None) -> dict[str, int] | None:
    """A screen's ``level``/``next_level``: :func:`level_stakes` plus ``number`` (None for none)."""
    return None if level is None else dict(level_stakes(level), number=level.number)


def busts_of(record: Mapping[str, Any]) -> dict[str, int]:
    """Return ``{player: chips at the start of the hand}`` for every player the hand busted.

    ``record`` is the table's ``HandFinished.record`` at a tournament table (its ``busted``
    field). Empty when nobody busted.

    Raises:
        TournamentError: the record is not from a tournament table, or a starting stack
            is not a positive whole number of chips.
    """
    busted = record.get("busted")
    if not isinstance(busted, Mapping):
        raise TournamentError("busts_of: the hand record has no 'busted' (not a tournament table)")
    out: dict[str, int] = {}
    for player, start in busted.items():
        if isinstance(start, bool) or not isinstance(start, int) or start <= 0:
            raise TournamentError(f"busts_of: {player} started the hand with {start!r} chips")
        out[str(player)] = start
    return out


def button_seat_words(seats: Sequence[Any], button: int) -> tuple[bool, str]:
    """Say what becomes of the button drawn for seat ``button`` (1..N) at a tournament table
    whose ``seats`` are the table state's seats (None: empty; else ``.player``, ``.stack``,
    ``.sitting_out``), for the table's log at the deal of the hand it starts.

    A player sitting out or away keeps the button drawn for him: absent players are dealt
    in, blinded and anted in a tournament (TDA; the card-room rule deals them a card for the
    button too). A seat with nobody, or nobody with chips, cannot take it: the table gives
    the button to its lowest seat with a player (``blinds.plan_hand``'s fresh start), said
    here so that nobody wonders where the drawn button went.

    Returns ``(kept, words)``: whether the drawn seat takes the button, and the sentence.
    """
    s = seats[button - 1] if 1 <= button <= len(seats) else None
    if s is None or s.stack <= 0:
        return False, (f"the button drawn for seat {button} finds no player with chips there: the "
                       f"table's lowest seat with chips takes it")
    if s.sitting_out:
        return True, (f"seat {button} ({s.player}) is away and keeps the button drawn for him (absent players "
                f"are dealt in and blinded, TDA)")
    return True, f"the button is at seat {button} ({s.player}), as drawn"
