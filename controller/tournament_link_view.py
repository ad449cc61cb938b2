"""The room's multi-table tournament on a table's screens (issue 19): the public state's
``tournament_view`` at a table of ``livetable room simulate --tournament``.

The room (:mod:`room.tournament_view`) puts the numbers the screens need into every order
it sends a table (``view``): ``level`` and ``next_level`` (``number``, ``small_blind``,
``big_blind``, ``ante``, ``big_blind_ante``, chips; ``next_level`` None on the last level),
``seconds_left`` (tournament seconds at the order's time; None on the last level),
``running`` (False: the director paused the clock), ``on_break``, ``players_left``,
``entries``, ``average_stack`` (chips), ``prize_pool`` (money), ``places_paid``,
``hand_for_hand``, ``finished``, ``clock_speed`` (a simulation's clock, times real time;
None: real time), ``prizes_left`` (money, 1st first: the payouts of the places the players
left will take), the payouts' ``unit`` (for ``livetable floor deal``) and ``out`` (the
places of the players who busted at this table, by the seat they left: ``{"5": {"name",
"place", "tied_to", "prize"}}``, once the room placed them; at most 64 seats). Its moves name
where each player goes (``out``: ``to``, ``to_name``, ``to_seat``, ``reason``) and comes
from (``in``: ``from``, ``from_name``).

:class:`LinkView` keeps the last one and the move notices, and builds the public state's
``tournament_view`` in the shape of a single-table tournament's
(:meth:`controller.tournament_run.TournamentTable.view_json`, docs/tournament.md), the time
left counted down by the table's own clock since the order came, its ``deal`` (what
``livetable floor deal`` needs: the stacks and names of the players here by seat, the
prizes left, the unit: :func:`controller.floor_cli.table_deal` refuses it while players are
left at other tables), plus ``places_paid``,
``hand_for_hand`` and ``moves``: the notices of players who move (``kind`` ``out``: ``name``,
``seat`` (the seat left), ``table``, ``table_name``, ``to_seat``; ``in``: ``name``, ``seat``
(the seat taken), ``table``, ``table_name`` (where from); ``break``: ``tables``, the names of
the tables its players move to), each shown :data:`NOTICE_SECONDS` seconds from the order.
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["LinkView", "decode_view", "decode_move_notice", "NOTICE_SECONDS", "table_label"]

#: Seconds (the table's clock) a move notice stays in the view after its order came.
NOTICE_SECONDS = 12.0

_LEVEL_KEYS = ("number", "small_blind", "big_blind", "ante", "big_blind_ante")
_COUNTS = ("players_left", "entries", "average_stack", "prize_pool", "places_paid")


def _count(v: Any, what: str, hi: int = 10**12) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= hi:
        raise ValueError(f"{what!r} must be an integer 0..{hi}, got {v!r}")
    return v


def _level(v: Any, what: str) -> dict[str, int] | None:
    if v is None:
        return None
    if not isinstance(v, dict):
        raise ValueError(f"{what!r} must be a level object or null")
    return {k: _count(v.get(k, 0), f"{what}.{k}", 10**9) for k in _LEVEL_KEYS}


def decode_view(obj: Any) -> dict[str, Any] | None:
    """Check an order's ``view`` (shape: the module docstring); return it with only the known
    keys (None for none).

    Raises:
        ValueError: not an object, a level without its numbers, a count not an integer 0..10^12,
            an ``out`` seat not 1..64 or its finish without a name or a place of 1 or more.
    """
    if obj is None:
        return None
    if not isinstance(obj, dict):
        raise ValueError("'view' must be an object")
    level = _level(obj.get("level"), "level")
    if level is None or not level["big_blind"]:
        raise ValueError("'view.level' needs a big_blind of 1 chip or more")
    left = obj.get("seconds_left")
    if left is not None and (isinstance(left, bool) or not isinstance(left, (int, float)) or not 0 <= left < 10**7):
        raise ValueError(f"'view.seconds_left' must be a number of seconds or null, got {left!r}")
    speed = obj.get("clock_speed")
    if speed is not None:
        speed = _count(speed, "view.clock_speed", 10**6) or None
    out: dict[str, Any] = {"level": level, "next_level": _level(obj.get("next_level"), "next_level"),
                           "seconds_left": left, "clock_speed": speed}
    out.update({k: _count(obj.get(k, 0), f"view.{k}") for k in _COUNTS})
    prizes = obj.get("prizes_left", [])
    if not isinstance(prizes, list) or len(prizes) > 10_000:
        raise ValueError("'view.prizes_left' must be a list of at most 10,000 prizes")
    out["prizes_left"] = [_count(a, "view.prizes_left[]") for a in prizes]
    out["unit"] = max(1, _count(obj.get("unit", 1), "view.unit", 10**9))
    out["out"] = _outs({} if obj.get("out") is None else obj["out"])
    out.update({k: bool(obj.get(k)) for k in ("on_break", "hand_for_hand", "finished")})
    out["running"] = obj.get("running") is not False
    offers = obj.get("offers") or {}
    if not isinstance(offers, dict) or any(
            not (isinstance(n, str) and n.isdigit() and 1 <= int(n) <= 64 and isinstance(k, list)
                 and set(k) <= {"rebuy", "addon"}) for n, k in offers.items()):
        raise ValueError("'view.offers' must be {seat: [rebuy | addon]}")
    out["offers"] = {n: list(dict.fromkeys(k)) for n, k in offers.items()}
    sizes = obj.get("purchase_chips") or {}
    if not isinstance(sizes, dict):
        raise ValueError("'view.purchase_chips' must be {rebuy, addon}")
    out["purchase_chips"] = {k: _count(sizes.get(k, 0), f"view.purchase_chips.{k}", 10**9) for k in ("rebuy", "addon")}
    reentry = obj.get("reentry") or {}  # issue 19: seat -> {left, until_level}, the busted player may re-enter
    if not isinstance(reentry, dict) or len(reentry) > 64 or any(
            not (isinstance(n, str) and n.isdigit() and 1 <= int(n) <= 64 and isinstance(r, dict))
            for n, r in reentry.items()):
        raise ValueError("'view.reentry' must be {seat: {left, until_level}}")
    out["reentry"] = {str(int(n)): {"left": _count(r.get("left"), "view.reentry[].left", 1000),
                                    "until_level": _count(r.get("until_level"), "view.reentry[].until_level", 10**6)}
                      for n, r in reentry.items()}
    out["deal_offer"] = _deal_offer(obj.get("deal_offer"))
    ended = obj.get("deal_ended")
    if ended is not None and not isinstance(ended, dict):
        raise ValueError("'view.deal_ended' must be {offer, reason} or null")
    out["deal_ended"] = None if ended is None else {
        "offer": _count(ended.get("offer"), "view.deal_ended.offer", 10**6),
        "reason": _reason(ended.get("reason"), "view.deal_ended.reason")}
    return out


def _reason(v: Any, what: str) -> str:
    if not isinstance(v, str) or not 1 <= len(v) <= 300:
        raise ValueError(f"{what!r} must be a text of 1..300 characters, got {str(v)[:40]!r}")
    import unicodedata

    from controller.engine.table.seating import HIDDEN_CATEGORIES

    return "".join("\ufffd" if unicodedata.category(c) in HIDDEN_CATEGORIES else c for c in v)


def _deal_offer(o: Any) -> dict[str, Any] | None:
    """Check a view's ``deal_offer`` (the deal offered at the room's final table, issue 19:
    :meth:`room.tournament_deal.RoomDeal.view`, the single table's shape with each player's
    room id ``player``); return it with only the known keys, None for none.

    Raises:
        ValueError: not that shape (shares, stacks, prizes not whole amounts, seats not 1..64,
            more than 64 players, the counts not the players').
    """
    if o is None:
        return None
    if not isinstance(o, dict) or o.get("method") not in ("icm", "chip-chop"):
        raise ValueError("'view.deal_offer' must be an offer object (method icm or chip-chop) or null")
    players = o.get("players")
    if not isinstance(players, list) or not 2 <= len(players) <= 64 or not all(isinstance(p, dict) for p in players):
        raise ValueError("'view.deal_offer.players' must be a list of 2..64 players")
    prizes = o.get("prizes")
    if not isinstance(prizes, list) or len(prizes) > 64:
        raise ValueError("'view.deal_offer.prizes' must be a list of at most 64 prizes")
    rows = [{"player": _text(p.get("player"), "view.deal_offer.players[].player"),
             "seat": _count(p.get("seat"), "view.deal_offer.players[].seat", 64),
             "name": _text(p.get("name"), "view.deal_offer.players[].name"),
             "stack": _count(p.get("stack"), "view.deal_offer.players[].stack"),
             "share": _count(p.get("share"), "view.deal_offer.players[].share"),
             "accepted": bool(p.get("accepted"))} for p in players]
    n = sum(1 for p in rows if p["accepted"])
    if _count(o.get("accepted"), "view.deal_offer.accepted", 64) != n or o.get("of") != len(rows):
        raise ValueError("'view.deal_offer' counts are not its players'")
    return {"offer": _count(o.get("offer"), "view.deal_offer.offer", 10**6), "method": o["method"],
            "unit": _count(o.get("unit"), "view.deal_offer.unit"),
            "total": _count(o.get("total"), "view.deal_offer.total"),
            "prizes": [_count(a, "view.deal_offer.prizes[]") for a in prizes], "accepted": n, "of": len(rows),
            "agreed": n == len(rows), "players": rows,
            "words": "Deal agreed \u2014 the director confirms" if n == len(rows) else f"{n} of {len(rows)} accepted"}


def _shown_offer(o: dict[str, Any] | None) -> dict[str, Any] | None:
    """The public state's ``deal_offer`` of a view's (the single table's shape: its players without room ids)."""
    if o is None:
        return None
    return {**o, "prizes": list(o["prizes"]),
            "players": [{k: v for k, v in p.items() if k != "player"} for p in o["players"]]}


def _text(v: Any, what: str) -> str:
    """A text of the room's (1..64 characters), characters no screen can show (control,
    format, lone surrogates...) replaced by U+FFFD (breaker 2 H4)."""
    import unicodedata

    from controller.engine.table.seating import HIDDEN_CATEGORIES

    if not isinstance(v, str) or not 1 <= len(v) <= 64:
        raise ValueError(f"{what!r} must be a text of 1..64 characters, got {v!r}")
    return "".join("\ufffd" if unicodedata.category(c) in HIDDEN_CATEGORIES else c for c in v)


def _outs(obj: Any) -> dict[str, dict[str, Any]]:
    """Check a view's ``out`` (``{seat: {name, place, tied_to, prize}}``, seats 1..64)."""
    if not isinstance(obj, dict) or len(obj) > 64:
        raise ValueError("'view.out' must be an object of at most 64 seats")
    outs: dict[str, dict[str, Any]] = {}
    for seat, o in obj.items():
        if not (isinstance(seat, str) and seat.isdigit() and 1 <= int(seat) <= 64) or not isinstance(o, dict):
            raise ValueError(f"'view.out' seat {seat!r}: must be a seat 1..64 with its finish")
        place = _count(o.get("place"), "view.out[].place", 10**6)
        tied = _count(o.get("tied_to", place), "view.out[].tied_to", 10**6)
        if place < 1 or tied < place:
            raise ValueError(f"'view.out' seat {seat}: place {place}, tied to {tied}")
        outs[str(int(seat))] = {"name": _text(o.get("name"), "view.out[].name"), "place": place, "tied_to": tied,
                                "prize": _count(o.get("prize", 0), "view.out[].prize")}
    return outs


def decode_move_notice(move: Mapping[str, Any], key: str) -> dict[str, Any]:
    """Return the optional notice fields of one move of an order's ``key`` (``out``: ``to``,
    ``to_name``, ``to_seat``, ``reason``, ``name``; ``in``: ``from``, ``from_name``); {} when
    the room sent none.

    Raises:
        ValueError: a field of the wrong type (a text of 1..64 characters; ``to_seat``, a seat
        of the target table, 0..64).
    """
    out: dict[str, Any] = {}
    names = ("to", "to_name", "reason", "name") if key == "out" else ("from", "from_name")
    for k in names:
        if move.get(k) is not None:
            out[k] = _text(move[k], k)
    if key == "out" and move.get("to_seat") is not None:
        out["to_seat"] = _count(move["to_seat"], "to_seat", 64)
    return out


def table_label(table: str, name: str | None) -> str:
    """``"Birch (t2)"`` (``"t2"`` when the table has no name of its own)."""
    return f"{name} ({table})" if name and name != table else table


class LinkView:
    """The room's view and the move notices at one table (see the module docstring)."""

    def __init__(self) -> None:
        self.view: dict[str, Any] | None = None
        self.at = 0.0  # the table's clock (Unix s) when the view came
        self.notices: list[dict[str, Any]] = []
        self.shown = 0  # views published (the table's summary: ``screens``)
        self.said: list[list[Any]] = []  # the first notices taken, ``[kind, player, table]`` (summary)

    def take(self, order: Mapping[str, Any], now: float) -> None:
        """Take an order's ``view`` and its moves' notices at ``now`` (the table's clock, Unix s)."""
        if order.get("view") is not None:
            self.view, self.at = dict(order["view"]), now
        until = now + NOTICE_SECONDS
        notices: list[dict[str, Any]] = []
        targets: list[str] = []
        for m in order.get("out") or []:
            if not m.get("to"):
                continue
            label = table_label(m["to"], m.get("to_name"))
            if str(m.get("reason", "")).startswith("break") and label not in targets:
                targets.append(label)
            notices.append({"kind": "out", "player": m["player"], "name": m.get("name") or m["player"],
                            "seat": m["seat"], "table": m["to"], "table_name": m.get("to_name") or m["to"],
                            "to_seat": m.get("to_seat"), "until": until})
        for m in order.get("in") or []:
            if m.get("from"):
                notices.append({"kind": "in", "player": m["player"], "name": m.get("name") or m["player"],
                                "seat": m["seat"], "table": m["from"],
                                "table_name": m.get("from_name") or m["from"], "until": until})
        if targets:
            notices.insert(0, {"kind": "break", "tables": targets, "until": until})
        if notices:
            self.notices = notices
            self.said += [[n["kind"], n.get("player"), n.get("table")] for n in notices][:max(0, 200 - len(self.said))]

    def summary(self) -> dict[str, Any]:
        """``{"views": views published, "moves": [[kind, player, table], ...]}`` (the first 200
        notices: ``out`` with the table the player goes to, ``in`` with the one he comes from;
        ``break`` with no player)."""
        return {"views": self.shown, "moves": list(self.said)}

    def json(self, public: Mapping[str, Any], now: float) -> dict[str, Any] | None:
        """Return the public state's ``tournament_view`` for ``public`` at ``now`` (the table's
        clock, Unix s), None before the first order with a view. ``seats_bb``: each seated
        player's stack in big blinds of the view's level, in tenths, by seat (``{"3": 125}``);
        ``out``: the room's places of the players busted here, by seat, but for a seat
        ``public`` shows taken (someone sat there since the order came); ``offers`` (seat ->
        ``rebuy`` / ``addon``: what the room's rules allowed each seated player at the order,
        the tablet's buttons), ``purchase_chips`` (``{"rebuy", "addon"}``: chips) and
        ``reentry`` (seat -> ``{left, until_level}``: the busted player who may re-enter, at an
        empty seat; issue 19, TDA 9); ``deal_offer`` and ``deal_ended``: the deal offered on
        the tablets at the room's final table, as a single table shows it (issue 19)."""
        v = self.view
        if v is None:
            return None
        left = v["seconds_left"]
        if left is not None and v["running"]:
            left = max(0, int(left - (now - self.at) * (v["clock_speed"] or 1)))
        bb = v["level"]["big_blind"]
        seats_bb = {str(s["seat"]): int(s.get("stack") or 0) * 10 // bb for s in public.get("seats") or []
                    if isinstance(s, dict) and s.get("status") != "empty" and isinstance(s.get("stack"), int)}
        self.notices = [n for n in self.notices if n["until"] > now]
        self.shown += 1
        live = [s for s in public.get("seats") or [] if isinstance(s, dict) and s.get("status") != "empty"
                and isinstance(s.get("stack"), int) and (s["stack"] > 0 or s.get("status") == "all-in")]
        # a busted seat says its player's place (the room's ``out``) until someone sits there
        taken = {str(s.get("seat")) for s in public.get("seats") or [] if isinstance(s, dict)
                 and s.get("status") != "empty"}
        deal = {"stacks": {str(s["seat"]): s["stack"] for s in live},
                "names": {str(s["seat"]): s.get("name") or "" for s in live},
                "prizes_left": list(v.get("prizes_left") or []), "unit": v.get("unit") or 1}
        return {"level": v["level"], "next_level": v["next_level"], "seconds_left": left,
                "running": v["running"], "at": now, "on_break": v["on_break"],
                "players_left": v["players_left"], "entries": v["entries"], "average_stack": v["average_stack"],
                "prize_pool": v["prize_pool"], "finished": v["finished"], "seats_bb": seats_bb,
                "out": {s: dict(o) for s, o in (v.get("out") or {}).items() if s not in taken},
                "clock_speed": v["clock_speed"], "places_paid": v["places_paid"],
                "hand_for_hand": v["hand_for_hand"], "moves": [dict(n) for n in self.notices], "deal": deal,
                # the tablet's Rebuy / Add-on buttons (the room's rules as its last order saw them)
                "offers": {n: list(k) for n, k in (v.get("offers") or {}).items() if n in taken},
                "purchase_chips": dict(v.get("purchase_chips") or {}),
                # issue 19: the busted player's Re-enter at his empty seat (TDA 9; the room's rules at the order)
                "reentry": {n: dict(r) for n, r in (v.get("reentry") or {}).items() if n not in taken},
                # issue 19: the deal offered at the room's final table, the single table's shape (no room ids)
                "deal_offer": _shown_offer(v.get("deal_offer")),
                "deal_ended": dict(v["deal_ended"]) if v.get("deal_ended") else None}
