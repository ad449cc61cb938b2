"""A deal offered on the players' tablets at the room's final table (issue 19).

The single table's offer (:meth:`controller.tournament_run.TournamentTable.offer_deal`,
docs/tournament.md "A deal offered on the players' tablets") at a table of the room's
multi-table tournament: the room holds the prizes, the places and the players left, so the
room's director offers it (``livetable room director deal-offer``, the floor console's
``POST /api/tournament``) and the room decides every answer. :class:`RoomDeal` is the room's
side, one per :class:`room.tournament.RoomTournament` (its ``deal``):

- :meth:`RoomDeal.offer_deal`: only with one table left (the final table; every player left
  seated there, as its last report shows). Given while it plays a hand or holds (or is sent)
  the room's ``go`` for the next one, it is pending (``deal-pending``): the room holds the
  next ``go`` and :meth:`RoomDeal.due` makes it when that hand ends, with the stacks then
  (dropped, ``deal-end`` by the room, when it no longer applies: the tournament over, the
  players left changed); ``deal-withdraw`` cancels it. Made at once when the table waits
  between hands (:meth:`RoomDeal.settled`), nothing on its way
  (moves, purchases); the deal computed from the report's stacks (chips) and the prizes of
  the places left (money, 1st first) by :func:`controller.deal_cli.compute_deal`; journalled
  ``deal-offer`` (``offer``, ``table``, ``method``, ``unit``, ``prizes``, ``total``,
  ``players``: ``player``, ``seat``, ``name``, ``stack``, ``share``; ``by``, ``reason``,
  ``hands``: the table's hands dealt), then sent in
  the table's order's ``view`` (``deal_offer``, the single table's view shape with each
  player's room id, which the table keeps to itself).
- While it is open the room gives that table no ``go``, and the table drops a ``go`` it was
  given and has not dealt yet (:meth:`controller.tournament_link.RoomTournamentSeat._drop_go_for_deal`:
  the room gives a new one at the level then once the offer is over, TDA 23; breaker: the old
  one was dealt at its old stakes, or in a break): the players answer between hands (no
  table ``pause`` is needed as at a single table); a table that dealt its ``go`` before the
  offer reached it ends the offer (:meth:`RoomDeal.check`);
  the director withdraws it (:meth:`RoomDeal.withdraw`, ``deal-end``) to play on.
- A seat's answer comes in the table's report as a request of kind ``deal`` (``offer``,
  ``accept``, the player the table has at that seat: the table takes the seat from the
  tablet's topic, never a name from its payload): :meth:`RoomDeal.answer` journals an
  accept once (``deal-accept`` with ``request``: ``"<table>:<request id>"``), a decline as
  ``deal-end``; its answer (``{"deal": offer}`` or ``{"why": words}``) goes back in the next
  order's ``answers``. A request the journal answered is answered the same again (a table
  that did not hear it, a room restarted), never journalled twice.
- :meth:`RoomDeal.check` ends the offer (``deal-end``, ``by`` ``room``) once its figures are
  no longer the table's: a hand dealt, a player out or off his seat, a stack changed (a
  purchase's chips), the players left changed (a late entry).
- Every accepted: "Deal agreed — the director confirms"; the room deals no hand until the
  director pays it (the prizes are the room's: ``livetable floor deal`` at the final table
  shows the same figures) and stops, or withdraws it.

A room killed at any step replays these events (:meth:`RoomDeal.apply`): the offer, its
accepts and its end come back as they were journalled; the table's requests are sent again
until answered, and answered from the journal.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from controller.tournament.errors import TournamentError
from controller.tournament.results import payout_amounts

__all__ = ["RoomDeal", "DEAL_EVENTS"]

log = logging.getLogger("livetable.room.tournament")

#: The room journal's deal events (:meth:`RoomDeal.apply` replays them).
DEAL_EVENTS = ("deal-pending", "deal-offer", "deal-accept", "deal-end")


class RoomDeal:
    """The deal offered at the room's final table (see the module docstring).

    Args:
        director: the :class:`room.tournament.RoomTournament` (its journal, reports, standings, orders).
    """

    def __init__(self, director: Any) -> None:
        self.d = director
        #: the open offer: the ``deal-offer`` event plus ``accepted`` (seat -> request key)
        self.offer: dict[str, Any] | None = None
        self.offers_made = 0
        #: the last offer over: ``{"offer", "reason", "table", "hands"}`` (shown until a hand after it finishes)
        self.ended: dict[str, Any] | None = None
        #: a table's request (``"t1:3"``) -> the answer the journal gave it
        self.answered: dict[str, dict[str, Any]] = {}
        #: the offer given while the final table plays a hand (or a go is on its way): the
        #: ``deal-pending`` event, made when that hand ends (:meth:`due`)
        self.pending: dict[str, Any] | None = None

    # ------------------------------------------------------------------ the journal
    def apply(self, kind: str, p: dict[str, Any]) -> None:
        """Apply one journalled deal event (``kind`` of :data:`DEAL_EVENTS`; replay and live alike)."""
        if kind == "deal-pending":
            self.offers_made = max(self.offers_made, int(p["offer"]))
            self.pending = dict(p)
            return
        if self.pending is not None and int(p["offer"]) == int(self.pending["offer"]):
            self.pending = None  # made (deal-offer) or dropped (deal-end)
            if kind == "deal-end":
                return
        if kind == "deal-offer":
            self.offers_made = max(self.offers_made, int(p["offer"]))
            self.offer, self.ended = {**p, "accepted": {}}, None
            return
        if p.get("request"):
            self.answered[str(p["request"])] = {"deal": int(p["offer"])}
        if self.offer is None or int(p["offer"]) != self.offer["offer"]:
            return
        if kind == "deal-accept":
            self.offer["accepted"][int(p["seat"])] = str(p.get("request") or "")
        else:
            self.ended = {"offer": int(p["offer"]), "reason": str(p["reason"]), "table": self.offer["table"],
                          "hands": int(p.get("hands", self.offer["hands"]))}
            self.offer = None

    def _journal(self, kind: str, payload: dict[str, Any], record: Callable[[Any, str], None] | None = None,
                 words: str = "") -> None:
        self.d._journal_with(kind, payload, record, words)
        self.apply(kind, payload)

    # ------------------------------------------------------------------ the director's commands
    def final_table(self) -> str | None:
        """The one table left that plays on, None while more than one does."""
        live = [t for t in self.d._live() if not self.d.sent.get(t, {}).get("end")]
        return live[0] if len(live) == 1 else None

    def offer_deal(self, method: str, *, by: str, unit: int | None = None, reason: str | None = None,
                   record: Callable[[Any, str], None] | None = None) -> str:
        """Offer every player left a deal of the prizes not yet paid (the TDA's deal-making
        rule: the players' own agreement, every one of them agreeing; the house oversees it)
        by ``method`` (``icm``: Malmuth-Harville; ``chip-chop``), shares in multiples of
        ``unit`` (money; default the payouts' unit). Return what was done, ending with the
        figures and ``(by)``. ``record(tx, words)``: the console's floor record, written in
        the same transaction as the ``deal-offer`` (or ``deal-pending``) event.

        Given while the final table plays a hand or is about to (not :meth:`settled`: a ``go``
        sent or held, which the table deals at once): taken as "offer it when this hand ends",
        journalled ``deal-pending`` (``offer``, ``table``, ``method``, ``unit``, ``by``,
        ``reason``, ``hand``: the hand it waits for, ``hands``, ``players``: the room ids left)
        and answered "the deal will be offered when hand N ends; no next hand is dealt
        meanwhile"; the room gives the table no further ``go`` (:meth:`holds`) and
        :meth:`due` makes it with the stacks after that hand (newcomer, issue 19: the room
        sends the next ``go`` right after each hand's report, so an offer judged "between
        hands" from the last report was ended by that hand 4 tries of 4).

        Raises:
            controller.tournament.errors.TournamentError: ``F-3: ...``: the tournament over or
                not started, an offer open or pending already, more than one table left, the
                final table not reported yet, moves or purchases on their way, players left
                not all seated there, a unit outside 1..the prize pool, or what the deal
                calculator refuses (more than 12 players by ICM).
            room.store.StoreError: it could not be journalled (nothing changed).
        """
        d = self.d
        if d.result is not None:
            raise TournamentError("F-3: the tournament is over: its prizes are paid")
        if not d.clock.status(d.now()).started:
            raise TournamentError("F-3: the tournament has not started")
        if self.offer is not None:
            raise TournamentError(f"F-3: deal offer {self.offer['offer']} is open already: withdraw it first "
                                  "(deal-withdraw)")
        if self.pending is not None:
            raise TournamentError(f"F-3: deal offer {self.pending['offer']} is offered already when hand "
                                  f"{self.pending['hand']} ends: withdraw it first (deal-withdraw)")
        t = self.final_table()
        if t is None:
            raise TournamentError("F-3: a deal is offered at the final table: more than one table still plays")
        rep = d.reports.get(t)
        if rep is None:
            raise TournamentError(f"F-3: {t} has not reported yet: offer the deal once it has")
        n = self.offers_made + 1
        if not self.settled(t):
            # a hand is played there, or a go is on its way or held: offered when that hand ends
            self._figures(t, method, unit)  # refused now for a bad method or unit
            hand = self.playing(t)
            payload = {"offer": n, "table": t, "method": method, "unit": unit, "by": by, "reason": reason,
                       "hand": hand, "hands": int(rep["hands"]), "players": sorted(d.standings.alive)}
            said = (f"deal offer {n} ({method}) at {t}: the deal will be offered when hand {hand} ends; no "
                    f"next hand is dealt meanwhile ({by})")
            self._journal("deal-pending", payload, record, said)
            log.info("deal offer %d (%s) at %s by %s: offered when hand %d ends", n, method, t, by, hand)
            return said
        payload = self._figures(t, method, unit)
        payload.update({"offer": n, "by": by, "reason": reason})
        said = self._made(payload, record)
        self._tell(t)
        return said

    def _figures(self, t: str, method: str, unit: int | None) -> dict[str, Any]:
        """The ``deal-offer`` figures of ``t``'s last report (no ``offer``, ``by``, ``reason``).

        Raises:
            controller.tournament.errors.TournamentError: ``F-3``: moves or purchases on their
                way, players left not all seated at ``t``, a bad unit, what the calculator refuses.
        """
        from controller.deal_cli import DealError, compute_deal

        d = self.d
        rep = d.reports[t]
        if d._outstanding():
            raise TournamentError("F-3: players or chips are on their way to the final table (a move, a rebuy "
                                  "or add-on): offer the deal once they are at the seats")
        seats = {str(v[0]): (int(n), int(v[1])) for n, v in rep["seats"].items()}
        if set(seats) != set(d.standings.alive):
            raise TournamentError("F-3: a deal needs every player left, and some are not seated at the final table")
        pool = d.standings.prize_pool()
        unit = d.settings.payouts.unit if unit is None else unit
        if isinstance(unit, bool) or not isinstance(unit, int) or not 1 <= unit <= max(pool, 1):
            raise TournamentError(f"F-3: the deal's unit must be 1..the prize pool ({pool:,}), got {unit!r}")
        order = sorted(seats, key=lambda p: seats[p][0])
        amounts = payout_amounts(d.settings.payouts, pool, len(d.standings.entries))
        try:
            deal = compute_deal([seats[p][1] for p in order], list(amounts[:len(order)]), method, unit,
                                [d.names.get(p, p) for p in order])
        except DealError as exc:
            raise TournamentError(f"F-3: {exc}") from None
        return {"table": t, "method": method, "unit": unit, "prizes": deal["prizes"], "total": deal["total"],
                "hands": int(rep["hands"]),
                "players": [{"player": p, "seat": seats[p][0], "name": x["name"], "stack": x["stack"],
                             "share": x["share"]} for p, x in zip(order, deal["players"])]}

    def _made(self, payload: dict[str, Any], record: Callable[[Any, str], None] | None = None) -> str:
        n, t, method, by = payload["offer"], payload["table"], payload["method"], payload["by"]
        said = (f"deal offer {n} ({method}) on the players' tablets at {t}: "
                + ", ".join(f"seat {p['seat']} {p['name']} {p['share']:,}" for p in payload["players"])
                + f"; no hand is dealt there until every player answers or the offer is withdrawn ({by})")
        self._journal("deal-offer", payload, record, said)
        log.info("deal offer %d (%s) at %s by %s: %s", n, method, t, by,
                 ", ".join(f"{p['name']} {p['share']}" for p in payload["players"]))
        return said

    def settled(self, t: str) -> bool:
        """True when ``t`` is between hands with nothing on its way: its last report plays no
        hand, has taken the room's last order and holds no ``go`` (``waiting``). Else a hand
        is played there or about to be (a ``go`` sent or held, which the table may deal at
        once: newcomer, issue 19: every offer made then ended 200 ms later)."""
        rep = self.d.reports.get(t)
        return rep is not None and not rep.get("running") and self.d._ready(t)

    def playing(self, t: str) -> int:
        """The hand ``t`` plays (its last report's ``hands``: a hand is counted when dealt) or
        is about to play (one more: a ``go`` sent or held, not dealt yet)."""
        rep = self.d.reports[t]
        return int(rep["hands"]) + (0 if rep.get("running") else 1)

    def due(self, ready: set[str]) -> None:
        """The room's turn: make the pending offer once its table has ended the hand (it waits,
        ``ready``, the room holding its next ``go``: :meth:`holds`), with the stacks then;
        dropped (``deal-end`` by the room, said) when it no longer applies: the tournament over,
        the players left changed, more than one table, what the calculator refuses. Moves or
        purchases on their way: it waits for them."""
        p = self.pending
        if p is None:
            return
        d, t = self.d, str(p["table"])
        why = None
        if d.result is not None:
            why = "the tournament is over"
        elif set(d.standings.alive) != set(p["players"]):
            why = f"the players left changed ({len(d.standings.alive)} left): offer it again if it still applies"
        elif t not in ready or not self.settled(t):
            return
        elif self.final_table() != t:
            why = "more than one table plays"
        elif d._outstanding():
            return
        if why is None:
            try:
                payload = self._figures(t, str(p["method"]), p["unit"])
            except TournamentError as exc:
                why = str(exc).removeprefix("F-3: ")
            else:
                payload.update({"offer": int(p["offer"]), "by": p["by"], "reason": p["reason"]})
                self._made(payload)
                self._tell(t)
                return
        self._drop(why, "room")

    def _drop(self, why: str, by: str, *, record: Callable[[Any, str], None] | None = None,
              words: str = "") -> None:
        p = self.pending
        assert p is not None
        rep = self.d.reports.get(str(p["table"])) or {}
        said = words or f"deal offer {p['offer']} is not offered: {why}"
        self._journal("deal-end", {"offer": int(p["offer"]), "reason": why, "by": by,
                                   "hands": int(rep.get("hands", p["hands"])), "pending": True}, record, said)
        log.info("deal offer %d (offered when hand %d ends) is dropped: %s", p["offer"], p["hand"], why)

    def withdraw(self, *, by: str, reason: str | None = None, record: Callable[[Any, str], None] | None = None) -> str:
        """The director withdraws the open offer (agreed or not): journalled (``deal-end``,
        ``by``); play goes on (the final table's next ``go``). Return what was done.

        Raises:
            controller.tournament.errors.TournamentError: no offer open.
            room.store.StoreError: it could not be journalled (nothing changed).
        """
        if self.pending is not None:
            p = self.pending
            said = f"deal offer {p['offer']} (offered when hand {p['hand']} ends) withdrawn ({by})"
            self._drop("withdrawn by the director" + (f": {reason}" if reason else ""), by, record=record,
                       words=said)
            return said
        o = self.offer
        if o is None:
            raise TournamentError("F-3: no deal is offered now")
        said = f"deal offer {o['offer']} withdrawn ({by})"
        table = o["table"]
        self._end("withdrawn by the director" + (f": {reason}" if reason else ""), by, record=record, words=said)
        self._tell(table)
        return said

    def _end(self, why: str, by: str, *, request: str | None = None,
             record: Callable[[Any, str], None] | None = None, words: str = "") -> None:
        o = self.offer
        assert o is not None
        rep = self.d.reports.get(o["table"]) or {}
        payload: dict[str, Any] = {"offer": o["offer"], "reason": why, "by": by,
                                   "hands": int(rep.get("hands", o["hands"]))}
        if request:
            payload["request"] = request
        self._journal("deal-end", payload, record, words or why)
        log.info("deal offer %d is over: %s", payload["offer"], why)

    def between(self, t: str) -> bool:
        """True when ``t``'s last report is between hands (no hand running) with the room's last
        order taken: it may hold a ``go`` it has not dealt yet (the table deals it after its
        pause between hands), which it drops once its view shows an offer open
        (:meth:`controller.tournament_link.RoomTournamentSeat._drop_go_for_deal`)."""
        d = self.d
        rep = d.reports.get(t)
        return (rep is not None and not rep.get("running") and not d.sent.get(t, {}).get("end")
                and int(rep["applied"]) >= int(d.sent.get(t, {}).get("id", 0)))

    def _tell(self, t: str) -> None:
        """Send ``t`` the offer's new state at once when it is between hands (else its next order carries it)."""
        if self.between(t):
            self.d._order(t, [], [], None)

    def step(self, ready: set[str]) -> None:
        """The room's turn (:meth:`room.tournament.RoomTournament.step`, after its own orders):
        the offer's table between hands but not waiting (a ``go`` not yet dropped: the offer
        has not reached it) has its seats' answers taken and its new view sent; a table that waits
        (``ready``) has them through the room's own turn."""
        for t in {x for x in ((self.offer or {}).get("table"), (self.ended or {}).get("table")) if x}:
            if t in ready or not self.between(t):
                continue
            rep = self.d.reports[t]
            answers = self.d._answers.setdefault(t, {})
            for rid, req in sorted((rep.get("requests") or {}).items(), key=lambda kv: int(kv[0])):
                if req["kind"] == "deal":
                    answers[str(rid)] = self.answer(t, f"{t}:{int(rid)}", req, rep)
            sent = self.d.sent.get(t, {}).get("view") or {}
            now = self.view(t)
            if answers or any(sent.get(k) != v for k, v in now.items()):
                self.d._order(t, [], [], None)
            else:
                self.d._answers.pop(t, None)

    # ------------------------------------------------------------------ the seats' answers
    def answer(self, t: str, key: str, req: dict[str, Any], rep: dict[str, Any]) -> dict[str, Any]:
        """Decide table ``t``'s request ``key`` (``"t1:3"``): the answer of the player the
        table has at ``req["seat"]`` (``req["player"]``) to offer ``req["offer"]``,
        ``req["accept"]``; return the answer for ``t``'s next order: ``{"deal": offer}``
        (taken) or ``{"why": words}`` (refused, ``F-3``: no offer, another offer, another
        table, the seat's player not in it, the offer agreed already). An accept is journalled
        once (``deal-accept``), a decline ends the offer (``deal-end``, ``by`` ``seat N``)."""
        done = self.answered.get(key)
        if done is not None:
            return dict(done)
        o, seat = self.offer, int(req["seat"])
        offer = req.get("offer")
        if o is None or o["table"] != t or offer != o["offer"]:
            return {"why": f"F-3: deal offer {offer} is over" + (f": the offer now is number {o['offer']}"
                                                                if o is not None and o["table"] == t else "")}
        entry = next((p for p in o["players"] if p["seat"] == seat), None)
        now = rep["seats"].get(str(seat))
        if entry is None or entry["player"] != req["player"] or now is None or now[0] != entry["player"]:
            return {"why": f"F-3: seat {seat} has no player in deal offer {offer}"}
        accept = bool(req.get("accept"))
        if accept and seat in o["accepted"]:
            return {"deal": o["offer"]}
        if len(o["accepted"]) == len(o["players"]):
            return {"why": f"F-3: deal offer {offer} is agreed by every player: the director confirms it "
                           "(or withdraws it)"}
        if accept:
            self._journal("deal-accept", {"offer": o["offer"], "seat": seat, "player": entry["player"],
                                          "request": key})
            log.info("%s accepts deal offer %d (%d of %d)%s", entry["name"], o["offer"], len(o["accepted"]),
                     len(o["players"]), ": agreed, the director confirms it" if self.agreed() else "")
        else:
            self._end(f"{entry['name']} declined", f"seat {seat}", request=key)
        return {"deal": int(offer)}

    def agreed(self) -> bool:
        """True while the open offer has every player's accept."""
        o = self.offer
        return o is not None and len(o["accepted"]) == len(o["players"])

    def holds(self, t: str) -> bool:
        """True while an offer is open or pending at ``t``: the room gives it no ``go``."""
        return any(o is not None and o["table"] == t for o in (self.offer, self.pending))

    def check(self) -> None:
        """End the open offer (``deal-end`` by the room) once its figures are no longer its
        table's last report's: a hand dealt since, a player out or off his seat, a stack
        changed, the players left changed."""
        o = self.offer
        if o is None:
            return
        rep = self.d.reports.get(o["table"])
        if rep is None:
            return
        why = None
        if int(rep["hands"]) != o["hands"] or rep.get("running"):
            why = "a hand is dealt: the stacks change"
        elif set(self.d.standings.alive) != {p["player"] for p in o["players"]}:
            why = "the players left changed"
        for p in o["players"] if why is None else []:
            now = rep["seats"].get(str(p["seat"]))
            if now is None or now[0] != p["player"]:
                why = f"{p['name']} is no longer in at seat {p['seat']}"
            elif int(now[1]) != p["stack"]:
                why = f"{p['name']}'s stack changed ({p['stack']:,} to {int(now[1]):,} chips)"
            if why:
                break
        if why is not None:
            self._end(why, "room")

    # ------------------------------------------------------------------ the screens
    def view(self, t: str) -> dict[str, Any]:
        """The ``view`` fields of an order to ``t``: ``deal_offer`` (the single table's
        :meth:`controller.tournament_run.TournamentTable.deal_offer_view` shape, each player
        with his room id ``player`` too) and ``deal_ended`` (``{"offer", "reason"}``, until a
        hand after it finishes), None when there is none."""
        o = self.offer
        out: dict[str, Any] = {"deal_offer": None, "deal_ended": None}
        if o is not None and o["table"] == t:
            n, of = len(o["accepted"]), len(o["players"])
            out["deal_offer"] = {
                "offer": o["offer"], "method": o["method"], "unit": o["unit"], "total": o["total"],
                "prizes": list(o["prizes"]), "accepted": n, "of": of, "agreed": n == of,
                "players": [{"player": p["player"], "seat": p["seat"], "name": p["name"], "stack": p["stack"],
                             "share": p["share"], "accepted": p["seat"] in o["accepted"]} for p in o["players"]],
                "words": "Deal agreed \u2014 the director confirms" if n == of else f"{n} of {of} accepted"}
        e = self.ended
        if e is not None and e["table"] == t and int((self.d.reports.get(t) or {}).get("hands", 0)) <= e["hands"]:
            out["deal_ended"] = {"offer": e["offer"], "reason": e["reason"]}
        return out

    def status_lines(self) -> dict[str, Any] | None:
        """The open offer for the director's status (``GET /api/tournament`` ``deal``): the
        :meth:`view` of its table plus ``table``; None when none is open."""
        p = self.pending
        if p is not None:
            return {"table": p["table"], "offer": p["offer"], "method": p["method"], "pending": True,
                    "hand": p["hand"], "agreed": False, "players": [],
                    "words": f"offered when hand {p['hand']} ends; no next hand is dealt meanwhile"}
        o = self.offer
        if o is None:
            return None
        return {"table": o["table"], **(self.view(o["table"])["deal_offer"] or {})}
