"""The room's lobby (RULES L-1, issue 18): every table by game and stakes, from the tables'
own records.

Per table (:func:`table_entry`, the table's L-1 entry as its tablets' Lobby tab knows it,
:func:`drivers.mqtt.codec.lobby_summary`, plus the room's figures): ``table``, ``name``,
``game``, ``limit``, ``stakes``, ``max_seats``, ``players`` (``[{"seat", "name"}]``),
``seated``, ``free``, ``held`` (of the free seats, those held for a called player or one
who accepted and is on the way; issue 18), ``list`` (the waiting list's name), ``waiting`` (its length),
``avg_pot`` (chips, mean pot of the hands that ended in the last hour; None with none) and
``hands_per_hour`` (:func:`pace`: the hands that ended in the last hour over the part of that
hour the table played, a whole number; None — shown "—" — until the table played at least
:data:`PACE_MIN_HANDS` hands there over at least :data:`PACE_MIN_SPAN` seconds: a burst of
simulated hands in two minutes is not a pace of hundreds an hour). :func:`lobby_view` groups
them by game (Hold'em, Omaha, Draw, as L-1 lists them) then stakes, and adds every list with
its length and open seats.

The room service publishes the view retained on ``room/lobby/lobby`` (the room broker; a
table id is never ``lobby``, so it cannot collide with a table's own ``room/lobby/<t>``),
and the lobby page for a TV (``/lobby`` of the players' desk) shows it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from controller.views import public_view
from drivers.mqtt.codec import lobby_summary
from room.players import list_key
from room.store import Store
from room.waitlist import Call, ListKey, WaitingLists

__all__ = ["table_entry", "pace", "lobby_view", "LOBBY_TOPIC", "GAME_ORDER", "PACE_MIN_HANDS", "PACE_MIN_SPAN"]

#: The room broker's topic of the whole room's lobby (retained).
LOBBY_TOPIC = "room/lobby/lobby"
#: L-1: tables are listed by game in this order.
GAME_ORDER = ("holdem", "omaha", "draw")
HOUR = 3600.0
#: hands per hour is shown only over at least this many hands ended in the last hour ...
PACE_MIN_HANDS = 10
#: ... played over at least this many seconds of it (from the first of them to now)
PACE_MIN_SPAN = 900.0


def table_entry(state: Any) -> dict[str, Any]:
    """Return the lobby entry of a :class:`controller.engine.table.state.TableState` (see the
    module's text; ``waiting``, ``avg_pot`` and ``hands_per_hour`` are added by
    :func:`lobby_view`)."""
    entry = lobby_summary(public_view(state))
    key = list_key(state.settings)
    entry["list"] = str(key)
    entry["key"] = key.to_json()
    entry["free"] = int(entry["max_seats"]) - int(entry["seated"])
    return entry


def pace(store: Store, now: float) -> dict[str, tuple[int | None, int | None]]:
    """Return ``{table: (avg_pot, hands_per_hour)}`` over the hour before ``now`` (Unix s;
    voided hands left out).

    ``avg_pot``: chips, the mean pot of those hands (integer division). ``hands_per_hour``:
    those hands over the time from the first of them to ``now`` (the whole hour when the
    table played all of it), rounded to a whole number; None below :data:`PACE_MIN_HANDS`
    hands or :data:`PACE_MIN_SPAN` seconds (too few to tell a pace). A table with no hand in
    the hour is not in the result.
    """
    since = now - HOUR
    out: dict[str, tuple[int | None, int | None]] = {}
    for t, n, pot, first in store.query(
            "SELECT table_id, COUNT(*), COALESCE(SUM(pot), 0), MIN(COALESCE(started_at, ended_at)) FROM room_hands"
            " WHERE ended_at >= ? AND voided = 0 GROUP BY table_id", (since,)):
        n = int(n)
        span = now - max(float(first), since)
        rate = round(n * HOUR / span) if n >= PACE_MIN_HANDS and span >= PACE_MIN_SPAN else None
        out[str(t)] = (int(pot) // n if n else None, rate)
    return out


def _order(entry: dict[str, Any]) -> tuple[Any, ...]:
    g = entry.get("game")
    s = entry.get("stakes") or {}
    return (GAME_ORDER.index(g) if g in GAME_ORDER else len(GAME_ORDER), str(g), int(s.get("bb") or 0),
            int(s.get("sb") or 0), str(entry.get("table")))


def lobby_view(entries: dict[str, dict[str, Any]], lists: WaitingLists, store: Store, now: float,
               offline: dict[str, float] | None = None, going: Iterable[Call] = ()) -> dict[str, Any]:
    """Return the room's lobby: ``{"schema": 1, "at", "tables": [...], "lists": [{"game",
    "stakes", "list", "waiting", "open_seats", "tables"}], "pace": {"min_hands", "min_span"}}``
    (see the module's text; ``pace``: when hands per hour is shown, :data:`PACE_MIN_HANDS`
    and :data:`PACE_MIN_SPAN` seconds, for the page's footnote).

    ``going``: the calls accepted whose players the tables have not reported seated yet
    (their seats are held, counted in ``held`` with the calls out).

    ``entries``: each table's :func:`table_entry`; ``offline``: ``{table: since}`` (Unix s)
    of the tables the room has no link to (shown, with ``online`` false and
    ``offline_since``; issue 18); every other table has ``online`` true and
    ``offline_since`` None.
    """
    figures = pace(store, now)
    held_seats = {(o.table, o.seat) for o in lists.openings.values() if o.call is not None}
    held_seats |= {(c.table, c.seat) for c in going}
    tables = []
    keys: dict[ListKey, dict[str, Any]] = {}
    for t, e in entries.items():
        key = ListKey(e["key"]["game"], e["key"]["stakes"])
        avg, rate = figures.get(t, (None, None))
        tables.append({**{k: v for k, v in e.items() if k != "key"}, "game_list": key.to_json(),
                       "waiting": len(lists.lists.get(key, [])), "avg_pot": avg, "hands_per_hour": rate,
                       "held": sum(1 for h in held_seats if h[0] == t),
                       "online": t not in (offline or {}), "offline_since": (offline or {}).get(t)})
        keys.setdefault(key, {"tables": []})["tables"].append(t)
    for key in lists.lists:
        keys.setdefault(key, {"tables": []})
    open_seats: dict[ListKey, int] = {}
    for o in lists.openings.values():
        open_seats[o.key] = open_seats.get(o.key, 0) + 1
    tables.sort(key=_order)
    return {"schema": 1, "at": now, "tables": tables,
            "pace": {"min_hands": PACE_MIN_HANDS, "min_span": PACE_MIN_SPAN},
            "lists": [{**k.to_json(), "list": str(k), "waiting": len(lists.lists.get(k, [])),
                       "open_seats": open_seats.get(k, 0), "tables": sorted(v["tables"])}
                      for k, v in sorted(keys.items())]}
