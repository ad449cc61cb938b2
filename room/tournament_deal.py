"""A deal offered on the players' tablets at the room's final table (issue 19).

The single table's offer (:meth:`controller.tournament_run.TournamentTable.offer_deal`,
docs/tournament.md "A deal offered on the players' tablets") at a table of the room's
multi-table tournament: the room holds the prizes, the places and the players left, so the
room's director offers it (``livetable room director deal-offer``, the floor console's
``POST /api/tournament``) and the room decides every answer. :class:`RoomDeal` is the room's
side, one per :class:`room.tournament.RoomTournament` (its ``deal``):

- :meth:`RoomDeal.offer_deal`: only with one table left (the final table; every player left
  seated there, as its last report shows), between hands (its last report plays no hand
  and has taken the room's last order: :meth:`RoomDeal.between`), nothing on its way
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
DEAL_EVENTS = ("deal-offer", "deal-accept", "deal-end")


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

    # ------------------------------------------------------------------ the journal
    def apply(self, kind: str, p: dict[str, Any]) -> None:
        """Apply one journalled deal event (``kind`` of :data:`DEAL_EVENTS`; replay and live alike)."""
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
        the same transaction as the ``deal-offer`` event.

        Raises:
            controller.tournament.errors.TournamentError: ``F-3: ...``: the tournament over or
                not started, an offer open already, more than one table left, the final table
                playing a hand or not yet done with its last order, moves or purchases on their
                way, players left not all seated there, a unit outside 1..the prize pool, or
                what the deal calculator refuses (more than 12 players by ICM).
            room.store.StoreError: it could not be journalled (nothing changed).
        """
        from controller.deal_cli import DealError, compute_deal

        d = self.d
        if d.result is not None:
            raise TournamentError("F-3: the tournament is over: its prizes are paid")
        if not d.clock.status(d.now()).started:
            raise TournamentError("F-3: the tournament has not started")
        if self.offer is not None:
            raise TournamentError(f"F-3: deal offer {self.offer['offer']} is open already: withdraw it first "
                                  "(deal-withdraw)")
        t = self.final_table()
        if t is None:
            raise TournamentError("F-3: a deal is offered at the final table: more than one table still plays")
        rep = d.reports.get(t)
        if rep is None or not self.between(t):
            raise TournamentError(f"F-3: a deal is offered between hands: {t} is playing a hand (or has not "
                                  "carried out the room's last order yet); offer it when the hand ends")
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
        n = self.offers_made + 1
        payload = {"offer": n, "table": t, "method": method, "unit": unit, "prizes": deal["prizes"],
                   "total": deal["total"], "by": by, "reason": reason, "hands": int(rep["hands"]),
                   "players": [{"player": p, "seat": seats[p][0], "name": x["name"], "stack": x["stack"],
                                "share": x["share"]} for p, x in zip(order, deal["players"])]}
        said = (f"deal offer {n} ({method}) on the players' tablets at {t}: "
                + ", ".join(f"seat {p['seat']} {p['name']} {p['share']:,}" for p in payload["players"])
                + f"; no hand is dealt there until every player answers or the offer is withdrawn ({by})")
        self._journal("deal-offer", payload, record, said)
        log.info("deal offer %d (%s) at %s by %s: %s", n, method, t, by,
                 ", ".join(f"{p['name']} {p['share']}" for p in payload["players"]))
        self._tell(t)
        return said

    def withdraw(self, *, by: str, reason: str | None = None, record: Callable[[Any, str], None] | None = None) -> str:
        """The director withdraws the open offer (agreed or not): journalled (``deal-end``,
        ``by``); play goes on (the final table's next ``go``). Return what was done.

        Raises:
            controller.tournament.errors.TournamentError: no offer open.
            room.store.StoreError: it could not be journalled (nothing changed).
        """
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
        """True while an offer is open at ``t``: the room gives it no ``go``."""
        return self.offer is not None and self.offer["table"] == t

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
        o = self.offer
        if o is None:
            return None
        return {"table": o["table"], **(self.view(o["table"])["deal_offer"] or {})}
