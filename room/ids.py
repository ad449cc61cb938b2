"""The room's player ids (issue 18): one rule for the phone's login, the desk's lists and
the floor's new players.

A player id is 1..32 of ``a-z 0-9 _ -``, starting with a letter or digit: it is one MQTT
topic level (``room/players/<id>/...``) and the login ``player-<id>`` of the room broker
(:mod:`room.provision`). A table knows a player the floor seated under their id ``p`` as
``name:p`` (:func:`controller.engine.table.seating.player_for_name`); :func:`room_player`
maps it back.
"""

from __future__ import annotations

import re

__all__ = ["PLAYER_ID", "PlayerIdError", "check_player_id", "room_player"]

#: The rule (the phone's login, the desk's lists, the floor's "new player").
PLAYER_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")


class PlayerIdError(ValueError):
    """Not a player id (the message gives the rule)."""


def check_player_id(player: object) -> str:
    """Return ``player`` when it is a player id (see the module's text).

    Raises:
        PlayerIdError: anything else (not a string, empty, upper case, spaces, too long).
    """
    if not isinstance(player, str) or not PLAYER_ID.match(player):
        shown = player[:40] if isinstance(player, str) else type(player).__name__
        raise PlayerIdError(f"player id {shown!r}: 1..32 of a-z 0-9 _ -, starting with a letter or digit")
    return player


def room_player(table_player: str) -> str:
    """Return the room's id of a table's player: ``name:p`` (seated by the floor, or from a
    tablet, under the name ``p``) is the room's player ``p`` when ``p`` is a player id;
    any other id (a simulated ``sim3``, ``name:ann smith``) is kept as it is."""
    rest = table_player[5:] if table_player.startswith("name:") else None
    return rest if rest is not None and PLAYER_ID.match(rest) else table_player
