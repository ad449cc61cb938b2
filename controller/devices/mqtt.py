"""The MQTT link's adapter: tablets' actions and requests in, one answer each (issue 9).

Tablet seat requests (take the seat, sit out, sit in, top up, stand up, preselect) get
exactly one reply, after the table decided: accepted, or refused with the table's rule id
(``F-1`` when the table is paused and did not take it); docs/mqtt.md: a tablet ignores a
second reply. Floor requests (``livetable floor``) go to :class:`controller.floor.FloorDesk`.
A seat's waiting-list requests (issue 18: join, leave, status from the tablet's Lobby tab) go
to the room with the seated player as the table knows them (never as the tablet says), and
the room's answer about that player back to the seat's tablet while they still sit there.
A lost broker is ``broker-lost`` (resumed by the system when paho reconnects).
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from controller.devices.base import DeviceAdapter
from controller.engine.table import events as ev
from controller.engine.table.seating import player_for_name
from controller.faults import FaultKind
from controller.orchestrator import DeviceBack, Orchestrator, RaiseFault

__all__ = ["MqttAdapter", "player_for_name"]

log = logging.getLogger("livetable.devices.mqtt")


class MqttAdapter(DeviceAdapter):
    """Translate the MQTT link's events (``drivers.mqtt``) and answer tablets' requests."""

    def __init__(self, orch: Orchestrator, ports: Any, *, clock: Callable[[], float]) -> None:
        super().__init__(orch, ports, clock=clock)
        self._request: tuple[int, str, int] | None = None
        self._lists_for: dict[int, str] = {}  # seat -> the player whose lists its tablet was given
        from controller.floor import FloorDesk

        self.floor = FloorDesk(orch, getattr(self.ports, "floor_reply", lambda *_: None), clock=clock)

    def translate(self, e: Any) -> list[Any]:
        """Return what MQTT link event ``e`` means for the table (see the module docstring)."""
        name = type(e).__name__
        if name == "BrokerConnection":
            if e.up:
                return [DeviceBack(FaultKind.BROKER_LOST.value, "broker connection restored")]
            return [RaiseFault(FaultKind.BROKER_LOST.value, f"broker lost: {e.reason or 'no reason'}")]
        if name == "TabletPresence":
            cls = ev.TabletConnected if e.online else ev.TabletDisconnected
            return [cls(at=e.at, seat=e.seat)]
        if name == "SeatHoldsReceived":  # issue 18: the room's held seats, every one now
            from controller.holds import SeatHolds

            self.orch.seat_holds = SeatHolds(e.holds)  # type: ignore[attr-defined]  # read in public_view
            self.ports.publish_public(self.orch.public_view())
            return []
        if name == "FloorRequestReceived":
            self.floor.request(e)  # answered once on livetable/<table>/floor/reply
            return []
        if name == "LobbyRequestReceived":  # issue 18: join or leave a waiting list from the tablet
            self.lobby_request(e)
            return []
        if name == "SeatListsReceived":
            self.seat_lists(e)
            return []
        if name == "ChatReceived":
            if self.ports.link is not None:
                s = self.orch.state.seat(e.seat)
                who = (s.name or s.player) if s is not None else f"Seat {e.seat}"
                self.ports.link.publish_chat(e.seat, who, e.text, chat_id=e.chat_id)
            return []
        if name != "ActionReceived":
            return []
        a = e.action
        common = dict(at=e.at, seat=e.seat)
        if a in ("fold", "check", "call", "bet", "raise", "all_in", "draw", "show", "muck"):
            return [ev.ActionTaken(**common, action=a, amount=e.amount if a in ("bet", "raise") else None,
                                   discards=tuple(e.cards), seq=e.seq_seen, action_id=e.action_id)]
        if a in ("rebuy", "addon", "decline_rebuy"):  # issue 19: asked at the seat, the dealer confirms
            self._purchase(a, e)
            return []
        if a in ("deal_accept", "deal_decline"):  # issue 19: the seat's answer to the deal offered
            self._deal_answer(e)
            return []
        if a == "buy_in" and self.orch.state.settings.tablet_join == "off":
            # T-2/T-3: only the floor seats players and books their chips here
            if e.action_id:
                self._answer(e.seat, e.action_id, False,
                             "T-3: at this table the floor books a buy-in: ask the floor")
            return []
        holds = getattr(self.orch, "seat_holds", None)
        held = holds.refusal(e.seat, e.name, e.at) if a == "take_seat" and holds is not None else None
        if held is not None:  # T-3: a seat held for a called player is not free (issue 18)
            if e.action_id:
                self._answer(e.seat, e.action_id, False, held)
            return []
        try:
            out = self._seat_request(a, e, common, pending=self.orch.state.settings.tablet_join == "confirm")
        except (TypeError, ValueError) as exc:  # an event the table cannot even hold
            self._answer(e.seat, e.action_id, False, f"M-2: {a}: {exc}")
            return []
        if out and e.action_id:
            self._settle_request()
            self._request = (e.seat, e.action_id, self.orch.events_handled)
        elif e.action_id:
            self._answer(e.seat, e.action_id, False, f"M-2: unknown action {a!r}")
        return out

    def lobby_request(self, e: Any) -> None:
        """Forward seat ``e.seat``'s waiting-list request (:class:`drivers.mqtt.events.
        LobbyRequestReceived`: ``op`` join, leave or status, ``list`` the list's id) to the room
        as ``{"schema": 1, "table", "seat", "player", "name", "op", "list", "id"}`` with the
        player seated there as this table knows them (the tablet only names its seat), and
        answer the tablet once: accepted (sent to the room; the room's answer comes on
        ``seat/<n>/lists``) or refused ``L-1`` (nobody sits in the seat, or the table has no
        link to send it by). ``op`` reenter goes to the tournament instead (:meth:`reentry`).
        Never raises."""
        if e.op == "reenter":
            self.reentry(e)
            return
        s = self.orch.state.seat(e.seat)
        link = getattr(self.ports, "link", None)
        if s is None or not s.player:
            self._answer(e.seat, e.request_id, False,
                         f"L-1: seat {e.seat} is empty: only the player seated here can join a waiting list")
            return
        if link is None:
            self._answer(e.seat, e.request_id, False, "L-1: this table has no link to the room's waiting lists")
            return
        try:
            link.forward_lobby_request({"schema": 1, "table": link.table, "seat": e.seat, "player": s.player,
                                        "name": s.name or s.player, "op": e.op, "list": e.list, "id": e.request_id})
        except Exception as exc:  # the table keeps running whatever the link does
            log.warning("seat %s: the waiting-list request could not be sent to the room: %s", e.seat, exc)
            self._answer(e.seat, e.request_id, False, f"L-1: the request could not be sent to the room ({exc})")
            return
        self._answer(e.seat, e.request_id, True, None)

    def reentry(self, e: Any) -> None:
        """A tournament re-entry asked at seat ``e.seat``'s tablet (issue 19, TDA 9; ``op``
        reenter on the seat's own lobby topic): at a table of the room's tournament, for the
        player the table saw bust from that seat (the tablet names only its seat), journalled
        as asked: it waits for the dealer, who takes the money and confirms it (``livetable
        floor confirm-buyin SEAT``, T-3), and only then goes to the room's director
        (:meth:`controller.tournament_link.RoomTournamentSeat.ask_reentry`); the room's answer
        shows at the seat (the tournament view's ``reentry_answer``). Answered now: asked, or
        refused with the reason (no room tournament here: a single table's re-entry is the
        director's, ``livetable floor register``). Never raises."""
        from controller.journal import JournalError
        from controller.tournament.errors import TournamentError

        room = getattr(self.orch, "tournament_purchases", None)
        try:
            if room is None or not hasattr(room, "ask_reentry"):
                raise TournamentError("F-3: a re-entry here is registered by the director: ask the floor")
            room.ask_reentry(e.seat)
        except (TournamentError, JournalError) as exc:
            self._answer(e.seat, e.request_id, False, str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - the table keeps running whatever the request
            log.warning("seat %s: the re-entry request failed: %s", e.seat, exc)
            self._answer(e.seat, e.request_id, False, f"F-3: the re-entry could not be asked ({exc})")
            return
        self._answer(e.seat, e.request_id, True, None)
        self.orch.publish_all()  # the seat's tablet shows it waiting for the dealer

    def seat_lists(self, e: Any) -> None:
        """Give seat ``e.seat``'s tablet the room's answer about its player (:class:`drivers.
        mqtt.events.SeatListsReceived`), retained on ``seat/<n>/lists`` without the table's
        player id, with ``name``: only while the player the room answers about still sits
        there (an answer for a player who left is dropped). Never raises."""
        s = self.orch.state.seat(e.seat)
        link = getattr(self.ports, "link", None)
        if s is None or s.player != e.answer.get("player") or link is None:
            log.info("seat %s: the room's lists for %r dropped: they do not sit there now",
                     e.seat, str(e.answer.get("player"))[:40])
            return
        out = {k: v for k, v in e.answer.items() if k != "player"}
        out["name"] = s.name or s.player
        try:
            link.publish_seat_lists(e.seat, out)
            self._lists_for[e.seat] = s.player
        except Exception as exc:  # noqa: BLE001 - a publish must never stop the loop
            log.warning("seat %s: the lists could not be published: %s", e.seat, exc)

    def _clear_lists(self) -> None:
        """Clear a seat's lists once the player they were about left it (the next player
        never reads the last one's places)."""
        link = getattr(self.ports, "link", None)
        for seat, player in list(self._lists_for.items()):
            s = self.orch.state.seat(seat)
            if s is None or s.player != player:
                del self._lists_for[seat]
                if link is not None:
                    try:
                        link.publish_seat_lists(seat, None)
                    except Exception as exc:  # noqa: BLE001
                        log.warning("seat %s: the lists could not be cleared: %s", seat, exc)

    def _purchase(self, kind: str, e: Any) -> None:
        """A tournament's rebuy or add-on asked from the seat's tablet (issue 19): the
        director checks and journals it, then it waits for the dealer's confirm; answered now.
        ``decline_rebuy``: the player busted at the seat does not rebuy at the bust (TFIX 7:
        placed at once, :meth:`TournamentTable.decline_rebuy`)."""
        from controller.tournament.errors import TournamentError

        director = getattr(self.orch, "tournament_director", None) or getattr(self.orch, "tournament_purchases", None)

        def ask() -> None:
            if director is None:
                raise TournamentError(f"M-2: {kind}: no tournament is played at this table")
            if kind == "decline_rebuy":
                director.decline_rebuy(e.seat, by=f"seat {e.seat}", reason="declined at the seat")
            else:
                director.ask_purchase(kind, e.seat)

        if self._answered(e, ask):
            self.orch.publish_all()  # the seat's tablet and the display show it waiting for the dealer

    def _deal_answer(self, e: Any) -> None:
        """The seat's answer to the deal offered to the final players (issue 19, TDA deal-making):
        ``deal_accept`` or ``deal_decline`` of offer number ``e.amount``, for the player the
        table has at ``e.seat`` (the topic's seat, never a name from the payload); answered
        once: accepted, or refused with the reason (another seat's offer, an offer over). At a
        table of the room's tournament the room offers it (its final table) and decides the
        answer: :meth:`controller.tournament_link.RoomTournamentSeat.answer_deal` sends it."""
        from controller.tournament.errors import TournamentError

        director = getattr(self.orch, "tournament_director", None)
        room = getattr(self.orch, "tournament_purchases", None)
        if director is None and room is not None and hasattr(room, "answer_deal"):
            director = room  # the room's final table: the answer goes to the room in the table's report

        def answer() -> None:
            if director is None:
                raise TournamentError("F-3: no deal is offered at this table (the director of a single "
                                      "table's tournament offers one)")
            director.answer_deal(e.seat, int(e.amount or 0), e.action == "deal_accept", request_id=e.action_id)

        self._answered(e, answer)

    def _answered(self, e: Any, act: Callable[[], None]) -> bool:
        """Run a seat's tournament request ``act`` and answer the tablet's ``e.action_id``:
        accepted, or refused with the error's words (a ``TournamentError`` or ``JournalError``);
        return whether it was accepted."""
        from controller.journal import JournalError
        from controller.tournament.errors import TournamentError

        try:
            act()
        except (TournamentError, JournalError) as exc:
            if e.action_id:
                self._answer(e.seat, e.action_id, False, str(exc))
            return False
        if e.action_id:
            self._answer(e.seat, e.action_id, True, None)
        return True

    @staticmethod
    def _seat_request(a: str, e: Any, common: dict[str, Any], *, pending: bool = False) -> list[Any]:
        """Return the table event(s) for a tablet's seat request ``a`` (A-3, T-3..T-8);
        ``pending``: a ``buy_in`` waits for the dealer's confirm (``tablet_join`` confirm)."""
        out: list[Any] = []
        if a == "preselect":
            if e.choice in (None, "", "none", "clear"):
                out = [ev.PreselectCleared(**common)]
            else:
                out = [ev.PreselectSet(**common, choice=e.choice, amount=e.amount)]
        elif a == "take_seat":
            out = [ev.PlayerJoined(**common, player=player_for_name(e.name), name=e.name,
                                   amount=int(e.amount or 0), post=bool(e.post))]
        elif a == "sit_out":
            out = [ev.SatOut(**common)]
        elif a in ("sit_in", "post_bb"):
            out = [ev.SatIn(**common, post=True)]
        elif a == "wait_bb":
            out = [ev.SatIn(**common, post=False)]
        elif a == "top_up":
            out = [ev.ToppedUp(**common, amount=int(e.amount or 0))]
        elif a == "buy_in":  # T-2: again after busting; at a confirm table the dealer confirms it (T-3)
            out = [ev.BoughtIn(**common, amount=int(e.amount or 0), pending=pending)]
        elif a == "stand_up":
            out = [ev.StoodUp(**common)]
        elif a == "auto_muck":
            out = [ev.AutoMuckSet(**common, on=e.choice == "on")]
        return out

    def _answer(self, seat: int, action_id: str, accepted: bool, reason: str | None) -> None:
        try:
            self.ports.reply(seat, action_id, accepted, reason)
        except Exception as exc:  # a reply must never stop the loop
            log.warning("could not reply to seat %s: %s", seat, exc)

    def _settle_request(self, effects: list[Any] | None = None) -> None:
        """Answer the seat-management request in hand, once, after the table decided.

        Called by :meth:`after_step` with the step's effects (the table took or refused it:
        a ``Refuse`` for that seat carries the rule id), and by :meth:`tick` or the next
        request when no step followed (the table was paused: ``F-1``, or the journal failed).
        """
        if self._request is None:
            return
        seat, action_id, before = self._request
        self._request = None
        if effects is None and self.orch.events_handled > before:
            # Stepped, but after_step (the listener that answers) did not see it: say so.
            log.warning("seat %s request %s: the table took it but no answer was sent "
                        "(the adapter's after_step is not an orchestrator listener)", seat, action_id)
            return
        if effects is None:
            fault = self.orch.faults.current
            what = fault.message if fault is not None else "not recorded"
            self._answer(seat, action_id, False, f"F-1: the table is paused ({what})")
            return
        refusal = next((x for x in effects if type(x).__name__ == "Refuse" and x.seat == seat), None)
        if refusal is not None:
            self._answer(seat, action_id, False, refusal.reason)
        else:
            self._answer(seat, action_id, True, None)

    def after_step(self, orch: Orchestrator, effects: list[Any]) -> None:
        """Listener on the orchestrator: answer a seat-management request once the table
        decided it (accepted, or refused with the rule id of the ``Refuse`` effect)."""
        if self._request is not None and orch.events_handled == self._request[2] + 1:
            self._settle_request(effects)
        self.floor.after_step(orch, effects)
        if self._lists_for:
            self._clear_lists()


