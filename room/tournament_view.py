"""What the room's multi-table tournament tells its tables' screens (issue 19).

:func:`order_view` is the ``view`` of every order :class:`room.tournament.RoomTournament`
sends (shape: :mod:`controller.tournament_link_view`); :func:`move_notice` the fields of a
move that say where its player goes (``out``) or comes from (``in``). The table link turns
them into the public state's ``tournament_view`` and its move notices.
"""

from __future__ import annotations

from typing import Any

from controller.tournament.results import payout_amounts
from controller.tournament.table import level_json
from controller.tournament.view import tournament_view

__all__ = ["order_view", "move_notice", "view_changed"]

#: What a table that waits (no hand to deal: a break, hand-for-hand) is sent again for.
_SHOWN = ("level", "on_break", "running", "players_left", "prize_pool", "hand_for_hand", "finished", "out", "reentry",
          "deal_offer", "deal_ended")


def order_view(director: Any, table: str | None = None) -> dict[str, Any]:
    """Return the ``view`` of an order sent now to ``table`` by ``director`` (a
    :class:`room.tournament.RoomTournament`): level, next level, ``seconds_left`` (tournament
    seconds, None on the last level), ``running``, ``on_break``, ``players_left``,
    ``entries``, ``average_stack`` (chips), ``prize_pool`` (money), ``places_paid`` (places
    the payouts pay now), ``hand_for_hand`` (the bubble with more than one table),
    ``finished``, ``clock_speed`` (the director's ``clock_speed``, None: real time),
    ``prizes_left`` (money, 1st first: the payouts of the places the players left will take,
    as the standings give them now) and the payouts' ``unit`` (a final table's ``livetable
    floor deal``, :func:`controller.floor_cli.table_deal`); with a ``table``, ``out``: the
    places of the players who busted there, by the seat they left while nobody took it
    (:meth:`room.tournament.RoomTournament.out_seats`: ``{"5": {"name", "place", "tied_to",
    "prize"}}``), what the table's screens say at an empty seat ("OUT — 7th"), ``offers`` (what
    each seat's player may buy now: :meth:`room.tournament.RoomTournament.offers`, the tablet's
    ``Rebuy`` / ``Add-on`` buttons), ``purchase_chips`` (``{"rebuy", "addon"}``: chips) and
    ``reentry`` (the busted players who may re-enter now, by the seat they left:
    :meth:`room.tournament.RoomTournament.reentry_offers`, the tablet's ``Re-enter``), ``deal_offer``
    and ``deal_ended`` (the deal offered on the final table's tablets:
    :meth:`room.tournament_deal.RoomDeal.view`)."""
    st = director.clock.status(director.now())
    standings = director.standings
    tv = tournament_view(st, standings, {})
    amounts = payout_amounts(director.settings.payouts, standings.prize_pool(), len(standings.entries))
    speed = getattr(director, "clock_speed", None)
    return {"level": level_json(tv.level), "next_level": level_json(tv.next_level), "seconds_left": tv.seconds_left,
            "running": st.running, "on_break": tv.on_break, "players_left": tv.players_left,
            "entries": tv.entries, "average_stack": tv.average_stack, "prize_pool": tv.prize_pool,
            "places_paid": sum(1 for a in amounts if a), "hand_for_hand": director.hand_for_hand(),
            "finished": director.result is not None,
            "clock_speed": int(speed) if speed and int(speed) > 1 else None,
            "prizes_left": list(amounts[:tv.players_left]), "unit": director.settings.payouts.unit,
            **({"out": director.out_seats(table)} if table is not None else {}),
            **({"reentry": director.reentry_offers(table)}
               if table is not None and hasattr(director, "reentry_offers") else {}),
            **(director.deal.view(table) if table is not None and hasattr(director, "deal") else {}),
            **({"offers": director.offers(table), "purchase_chips": {
                "rebuy": director.settings.rebuy.chips, "addon": director.settings.addon.chips}}
               if table is not None and hasattr(director, "offers") else {})}


def move_notice(director: Any, table: str, move: dict[str, Any]) -> dict[str, Any]:
    """Return the screens' fields of ``move`` (a row of the director's ``moves``) in the order
    to ``table``: at its source ``to``, ``to_name``, ``to_seat``, ``reason``, ``name``; at its
    target ``from``, ``from_name`` (nothing for an entry or a move within the table)."""
    names = getattr(director, "table_names", {}) or {}
    if move["from"] == table and move["to"] != table:
        return {"to": move["to"], "to_name": names.get(move["to"], move["to"]), "to_seat": move["to_seat"],
                "reason": move["reason"], "name": director.names.get(move["player"], move["player"])}
    if move["to"] == table and move["from"] and move["from"] != table:
        return {"from": move["from"], "from_name": names.get(move["from"], move["from"])}
    return {}


def view_changed(sent: dict[str, Any] | None, now: dict[str, Any]) -> bool:
    """True when ``now`` (:func:`order_view`) shows a table something the view of the last
    order it was ``sent`` did not (a break began or ended, a level, players left, the clock
    paused, a bust placed: ``out``): the director sends the table an order with the view only. Not the time left
    (the table counts it down)."""
    return sent is None or any(sent.get(k) != now.get(k) for k in _SHOWN)
