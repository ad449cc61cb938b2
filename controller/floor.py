"""The floor's requests at a running table (``livetable floor``; docs/faults.md, docs/mqtt.md).

:class:`FloorDesk` runs on the loop thread, inside :class:`controller.devices.mqtt.MqttAdapter`.
It takes one :class:`drivers.mqtt.events.FloorRequestReceived` at a time and answers it
exactly once through ``answer(request_id, command, accepted, reason, detail, status)``:

- ``status``: answered at once with :meth:`FloorDesk.status`;
- ``resume|correction|misdeal|void FAULT``: checked against the open fault's allowed exits
  (:data:`controller.faults.ALLOWED_EXITS`), then posted to the orchestrator as a
  :class:`~controller.orchestrator.FloorDecision` decided by ``floor:<name>``, the way the
  dealer console's confirm posts one decided by ``dealer``; answered once the loop handled
  it (accepted when the fault's ending is in the book, i.e. journalled);
- ``read SEAT CARDS``: a ``hole-cards-read`` table event (``by`` ``floor:<name>``); the
  table's own refusal (G-5 / P-2) is the answer's reason;
- ``confirm-buyin SEAT``: a ``buy-in-confirmed`` event (T-3, ``tablet_join = "confirm"``);
- ``pause``: a :class:`~controller.orchestrator.ManualPause` (fault ``paused``);
- between hands (issue 17, the room's console), never into a running hand:
  ``seat SEAT PLAYER AMOUNT``: ``player-sat-down`` then ``bought-in`` (T-3, T-2: the table's
  buy-in range; a refused buy-in stands the player up again); the player is dealt in from
  the next hand. ``stakes``: a ``settings-changed`` (L-2, ``by`` ``floor:<name>``) of the
  blinds and ante, applied at once between hands or when the running hand ends (answered
  when the table took it, saying which). ``close``: no further hand is started; once the
  running hand (if any) has ended the table pauses (fault ``paused``, ``closed by
  floor:<name>``), answered then. ``open``: ends that pause (``resume``), or calls off a
  close still waiting for its hand's end. At a tournament table (a single table's or a
  table of the room's) ``seat``, ``stakes`` and ``close`` (:data:`CASH_COMMANDS`) are
  refused with ``F-3`` saying what to do instead (a late entry is a registration, the blinds
  are the levels', the room breaks its tables): chips in play, stacks and seats stay the
  tournament's; ``confirm-buyin`` there is always the tournament's rebuy or add-on.
- the tournament director's (issue 19, at a table playing one): ``clock-pause``,
  ``clock-resume``, ``clock-add SECONDS``, ``clock-level N``, ``register PLAYER [SEAT]``,
  ``rebuy SEAT``, ``addon SEAT`` (and ``confirm-buyin SEAT`` of one a tablet asked for),
  ``deal-offer`` (``method`` icm or chip-chop, ``amount`` the unit) and ``deal-withdraw``
  (a deal offered to the final players' tablets):
  :meth:`controller.tournament_run.TournamentTable.direct` journals and applies it, by
  ``floor:<name>`` with the reason; its refusal (``TDA 9: ...``, ``F-3: ...``) is the answer's.
  At a table of the room's tournament (``controller/tournament_link.py``) ``rebuy SEAT``,
  ``addon SEAT`` and ``confirm-buyin SEAT`` send the room's director a purchase request for
  the player the table has in the seat (:meth:`~controller.tournament_link.RoomTournamentSeat.confirm_purchase`):
  the room checks the rules and books it, the chips come between hands; the other director's
  commands are the room's (``livetable room director``).

Refusals start with a rule id: ``F-1`` the table is paused (and did not take it), ``F-2``
no such fault open or the exit is not one its kind allows, ``F-3`` the request is not for
anything the table waits for (no such buy-in waiting, no hole cards to read, already
paused), or the table's own reason (``G-5: ...``, ``P-2: ...``, ``T-3: ...``).
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from controller.engine.table import effects as fx
from controller.engine.table import events as ev
from controller.engine.table.audit import chips_on_table
from controller.engine.table.codec import to_json as event_to_json
from controller.engine.table.play import cards_to_read
from controller.faults import ALLOWED_EXITS, FaultError, FaultExit, FaultKind
from controller.journal import JournalError
from controller.tournament.errors import TournamentError
from controller.orchestrator import FloorDecision, ManualPause, Orchestrator
from drivers.mqtt.codec import FLOOR_TOURNAMENT_COMMANDS

__all__ = ["FloorDesk", "Answer", "TOURNAMENT_COMMANDS", "CASH_COMMANDS", "tournament_plays"]

#: The tournament director's requests (issue 19): :meth:`controller.tournament_run.TournamentTable.direct`
#: (the codec's set, which the floor's requests are checked against).
TOURNAMENT_COMMANDS = FLOOR_TOURNAMENT_COMMANDS

#: The cash game's floor commands refused at a tournament table (issue 19, "chips from nothing"):
#: ``seat`` (a player with a buy-in: chips from outside the tournament), ``stakes`` (the levels
#: set the blinds), ``close`` (a tournament table is not closed by its floor). Every other floor
#: command that could bring chips (``confirm-buyin``) is the tournament's there
#: (:meth:`FloorDesk._confirm`); there is no floor top-up, cash-out or stand-up with chips.
CASH_COMMANDS = frozenset({"seat", "stakes", "close"})

log = logging.getLogger("livetable.floor")

#: The fault exits (docs/faults.md), each a floor command that ends a fault.
_EXITS = frozenset(x.value for x in FaultExit)

#: ``answer(request_id, command, accepted, reason, detail, status)``
Answer = Callable[[str, str, bool, "str | None", "str | None", "dict[str, Any] | None"], None]


class FloorDesk:
    """Decide and answer floor requests for one orchestrator (loop thread only).

    Args:
        orch: the table's orchestrator (its ``post(item, done=)`` carries the decisions).
        answer: sends the reply (``TableLink.floor_reply`` through the adapter's ports).
        clock: Unix seconds, for the events' ``at``.
    """

    def __init__(self, orch: Orchestrator, answer: Answer, *, clock: Callable[[], float]) -> None:
        self.orch, self._answer, self.clock = orch, answer, clock
        self._refusal: str | None = None  # a Refuse the table gave the request in hand
        self._waiting: tuple[str, int] | None = None  # (event kind, seat) of the request in hand
        self._closing: Any = None  # the ``close`` request waiting for the hand's end
        self._close_posted = False  # its between-hands pause is in the inbox

    # ------------------------------------------------------------------ status
    def status(self) -> dict[str, Any]:
        """Return the table's status for the floor.

        ``{"table": str, "hand": int (hands started), "street": str, "turn": seat | None,
        "paused": bool, "faults": [{"id": 1.., "kind", "message", "since", "exits": [str]}],
        "buy_ins": [{"seat", "name", "amount" (chips), "since"}] (oldest first, T-3),
        "read_seat": seat whose hole cards the table waits for (P-2) | None,
        "chips": {"on_table", "rake", "brought", "taken"}, "stakes": {"small_blind", "big_blind",
        "ante"}, "closing": bool (a close waits for the hand's end), "closed": bool, "tournament":
        the public state's ``tournament_view`` or None, "journal": None, or what the floor must know
        of the journal: ``{"compaction": "failing", "since" (Unix s), "failures", "error",
        "message"}`` (:meth:`controller.compaction.JournalKeeper.health`; no fault: play goes on)}``
        (integers: chips; the chip audit holds when ``brought - taken == on_table + rake``).
        """
        state = self.orch.state
        public = self.orch.public_view()
        faults = [{"id": i, "kind": f.kind.value, "message": f.message, "since": f.since,
                   "exits": sorted(e.value for e in ALLOWED_EXITS[f.kind])}
                  for i, f in enumerate(self.orch.faults.open, 1)]
        waiting = sorted((s.pending_at, s.seat, s.name or s.player, s.buy_in_pending)
                         for s in state.seats if s is not None and s.buy_in_pending)
        turn = public.get("turn")
        return {
            "table": public["table"], "hand": public["hand"], "street": public["street"],
            "turn": turn["seat"] if turn else None, "paused": self.orch.faults.paused, "faults": faults,
            "buy_ins": [{"seat": seat, "name": name, "amount": amount, "since": at}
                        for at, seat, name, amount in waiting],
            "read_seat": cards_to_read(state),
            "chips": _chips(state),
            "stakes": {"small_blind": state.settings.small_blind, "big_blind": state.settings.big_blind,
                       "ante": state.settings.ante},
            "closing": self._closing is not None, "closed": self._closed() is not None,
            "tournament": public.get("tournament_view"),
            "journal": self._journal(),
        }

    def _journal(self) -> dict[str, Any] | None:
        """The status's ``journal`` (:attr:`Orchestrator.journal_status`), or None; never raises
        (a status must always be answered)."""
        health = self.orch.journal_status
        try:
            return health() if health is not None else None
        except Exception:  # noqa: BLE001 - the floor's status must not fail on its extra
            log.exception("the journal's health could not be read")
            return None

    # ------------------------------------------------------------------ requests
    def request(self, e: Any) -> None:
        """Take one floor request (a ``FloorRequestReceived``); it is answered exactly once,
        now (status, refusals) or once the loop has handled what it posted."""
        command = e.command
        try:
            if command == "status":
                self._reply(e, True, None)
            elif command in _EXITS:
                self._decide(e)
            elif command == "read":
                self._read(e)
            elif command == "confirm-buyin":
                self._confirm(e)
            elif command == "pause":
                self._pause(e)
            elif command in CASH_COMMANDS and (why := self._cash_at_tournament(command)) is not None:
                self._reply(e, False, why)
            elif command == "seat":
                self._seat(e)
            elif command == "stakes":
                self._stakes(e)
            elif command == "close":
                self._close(e)
            elif command == "open":
                self._open(e)
            elif command in TOURNAMENT_COMMANDS:
                self._tournament(e)
            else:
                self._reply(e, False, f"M-2: unknown command {command!r}")
        except Exception as exc:  # a bug here must never stop the loop; the floor hears of it
            log.exception("floor request %s failed", e.request_id)
            self._reply(e, False, f"F-0: the controller could not take it: {exc}")

    def after_step(self, orch: Orchestrator, effects: list[Any]) -> None:
        """Listener on the orchestrator: keep the table's refusal of the request in hand."""
        if self._waiting is not None and self._refusal is None:
            kind, seat = self._waiting
            refusal = next((x for x in effects if isinstance(x, fx.Refuse) and x.event == kind
                            and x.seat in (None, seat)), None)
            if refusal is not None:
                self._refusal = refusal.reason
        if self._closing is not None and orch.state.hand is None:
            self._try_close()

    def _decide(self, e: Any) -> None:
        book = self.orch.faults
        ref = e.fault
        if ref.isdigit():
            n = int(ref)
            if not 1 <= n <= len(book.open):
                self._reply(e, False, f"F-2: no fault number {n} is open ({_open_list(book)})")
                return
            kind = book.open[n - 1].kind
        else:
            try:
                kind = FaultKind(ref)
            except ValueError:
                known = ", ".join(k.value for k in FaultKind)
                self._reply(e, False, f"F-2: {ref!r} is no fault kind ({known})")
                return
        by = f"floor:{e.by}"
        try:  # the same checks the book makes, to answer with its reason
            book.end(kind, e.command, by=by, at=self.clock())
        except FaultError as exc:
            self._reply(e, False, f"F-2: {exc} ({_open_list(book)})")
            return
        if (kind is FaultKind.HOLE_CARDS_UNKNOWN and e.command == FaultExit.CORRECTION.value
                and (seat := cards_to_read(self.orch.state)) is not None):
            self._reply(e, False, f"P-2: the correction is the cards: enter seat {seat}'s hole cards as they "
                                  f"lie on the felt (livetable floor read {seat} CARDS... --by NAME), or void")
            return
        before = len(book.endings)
        running = self.orch.state.hand is not None

        def done() -> None:
            endings = self.orch.faults.endings
            if any(x.kind is kind and x.by == by for x in endings[before:]):
                if e.command not in ("misdeal", "void"):
                    what = "the table goes on"
                elif running:
                    what = "the hand is voided, every wager returned"
                else:
                    what = "no hand was running: the fault ended and nothing else"
                self._reply(e, True, None, f"{kind.value} ended by {e.command} ({by}): {what}")
            elif not any(f.kind is kind for f in self.orch.faults.open):
                last = next((x for x in reversed(endings) if x.kind is kind), None)
                who = f" by {last.exit.value} ({last.by})" if last is not None else ""
                self._reply(e, False, f"F-2: the {kind.value} fault ended meanwhile{who}")
            else:
                self._reply(e, False, self._not_taken(f"the {kind.value} fault is still open"))

        self.orch.post(FloorDecision(kind.value, e.command, by, note=e.reason or ""), done=done)

    def _read(self, e: Any) -> None:
        seat = cards_to_read(self.orch.state)
        if seat is None:
            self._reply(e, False, "F-3: the table is not waiting for anyone's hole cards (P-2)")
            return
        if seat != e.seat:
            self._reply(e, False, f"F-3: the table waits for seat {seat}'s hole cards, not seat {e.seat}'s (P-2)")
            return
        by = f"floor:{e.by}"
        event = ev.HoleCardsRead(at=self.clock(), seat=e.seat, cards=tuple(e.cards), by=by)
        self._post_event(e, event, f"seat {e.seat} read as {' '.join(e.cards)} ({by}); the showdown goes on")

    def _confirm(self, e: Any) -> None:
        s = self.orch.state.seat(e.seat)
        director = getattr(self.orch, "tournament_director", None) or getattr(self.orch, "tournament_purchases", None)
        if director is not None or tournament_plays(self.orch) is not None:
            # a tournament's rebuy or add-on the tablet asked for (issue 19); never a cash buy-in
            # there (its chips would come from outside the tournament): the director refuses
            # a seat with nothing asked ("F-3: seat N has no rebuy or add-on waiting")
            self._tournament(e)
            return
        if s is None or not s.buy_in_pending:
            waiting = sorted(x.seat for x in self.orch.state.seats if x is not None and x.buy_in_pending)
            self._reply(e, False, f"F-3: seat {e.seat} has no buy-in waiting (T-3; waiting: "
                                  f"{', '.join(map(str, waiting)) or 'none'})")
            return
        amount = s.buy_in_pending
        event = ev.BuyInConfirmed(at=self.clock(), seat=e.seat, by=f"floor:{e.by}")
        self._post_event(e, event, f"seat {e.seat}'s buy-in of {amount} chips is on the table (floor:{e.by})")

    def _pause(self, e: Any) -> None:
        if any(f.kind is FaultKind.PAUSED for f in self.orch.faults.open):
            self._reply(e, False, "F-3: the table is already paused (end it with: resume paused)")
            return
        reason = f"paused by floor:{e.by}" + (f": {e.reason}" if e.reason else "")

        def done() -> None:
            if any(f.kind is FaultKind.PAUSED for f in self.orch.faults.open):
                self._reply(e, True, None, reason)
            else:
                self._reply(e, False, self._not_taken("the table is not paused"))

        self.orch.post(ManualPause(reason), done=done)

    # ------------------------------------------------------------------ between hands (issue 17)
    def _seat(self, e: Any) -> None:
        from controller.engine.table.seating import player_for_name

        if self.orch.state.seat(e.seat) is not None:
            self._reply(e, False, f"T-3: seat {e.seat} is taken")
            return
        player = player_for_name(e.player)
        later = " (dealt in from the next hand)" if self.orch.state.hand is not None else ""

        def bought(refusal: str | None) -> None:
            if refusal is None:
                self._reply(e, True, None, f"{e.player} sits in seat {e.seat} with {e.amount} chips{later} "
                                           f"(floor:{e.by})")
                return
            # no seat without chips: the player stands up again, and the floor hears why
            self._post_event(None, ev.StoodUp(at=self.clock(), seat=e.seat), "",
                             then=lambda _: self._reply(e, False, refusal))

        def sat(refusal: str | None) -> None:
            if refusal is not None:
                self._reply(e, False, refusal)
                return
            self._post_event(None, ev.BoughtIn(at=self.clock(), seat=e.seat, amount=e.amount), "", then=bought)

        self._post_event(None, ev.PlayerSatDown(at=self.clock(), seat=e.seat, player=player, name=e.player),
                         "", then=sat)

    def _stakes(self, e: Any) -> None:
        changes = dict(e.stakes)
        if "small_blind" not in changes:
            changes["small_blind"] = self.orch.state.settings.small_blind
        when = "from the next hand" if self.orch.state.hand is not None else "now"
        what = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(changes.items()))
        self._post_event(e, ev.SettingsChanged(at=self.clock(), changes=changes, by=f"floor:{e.by}"),
                         f"stakes {what}: {when} (floor:{e.by})")

    def _closed(self) -> Any:
        return next((f for f in self.orch.faults.open
                     if f.kind is FaultKind.PAUSED and f.message.startswith("closed by ")), None)

    def _close(self, e: Any) -> None:
        if self._closed() is not None:
            self._reply(e, False, "F-3: the table is closed already (open it with: open)")
            return
        if self._closing is not None:
            self._reply(e, False, "F-3: the table closes already when this hand ends")
            return
        self.orch.closing = f"closed by floor:{e.by}" + (f": {e.reason}" if e.reason else "")
        self._closing = e
        if self.orch.state.hand is None:
            self._try_close()

    def _try_close(self) -> None:
        if self._close_posted or self._closing is None:
            return
        e, reason = self._closing, self.orch.closing

        def done() -> None:
            self._close_posted = False
            if self._closing is not e:
                return  # called off by an open meanwhile
            if self._closed() is not None:
                self._closing, self.orch.closing = None, None
                self._reply(e, True, None, f"{reason}: no further hand (after hand {self.orch.state.hands})")
            # else a hand started first: asked again at its end (after_step)

        self._close_posted = True
        self.orch.post(ManualPause(reason or "closed by the floor", between_hands=True), done=done)

    def _open(self, e: Any) -> None:
        if self._closing is not None:
            waiting, self._closing, self.orch.closing = self._closing, None, None
            self._reply(waiting, False, f"F-3: opened again by floor:{e.by} before the hand ended")
            self._reply(e, True, None, f"the close is called off; the table deals on (floor:{e.by})")
            return
        closed = self._closed()
        if closed is None:
            self._reply(e, False, "F-3: the table is not closed")
            return
        by = f"floor:{e.by}"
        before = len(self.orch.faults.endings)

        def done() -> None:
            if any(x.kind is FaultKind.PAUSED and x.by == by for x in self.orch.faults.endings[before:]):
                self._reply(e, True, None, f"the table is open; the next hand is dealt ({by})")
            else:
                self._reply(e, False, self._not_taken("the table is still closed"))

        self.orch.post(FloorDecision(FaultKind.PAUSED.value, FaultExit.RESUME.value, by, note=e.reason or ""),
                       done=done)

    # ------------------------------------------------------------------ the tournament director (issue 19)
    def _cash_at_tournament(self, command: str) -> str | None:
        """Why the cash game's ``command`` (one of :data:`CASH_COMMANDS`) is refused here, or None
        at a cash table. At a tournament table (a single table's or a table of the room's) the
        floor neither seats a player with chips, nor changes the stakes, nor closes the table:
        chips in play are the tournament's (starting stacks, rebuys, add-ons), its levels set
        the blinds, and its own flow seats and moves the players. The reason (``F-3: ...``) says
        what to do instead."""
        plays = tournament_plays(self.orch)
        if plays is None:
            return None
        room = plays == "room-tournament"
        what = "the room's tournament" if room else "a tournament"
        if command == "seat":
            how = ("a late entry is the room director's: livetable room director register NAME --by WHO "
                   "(the room seats the player at a table)" if room else
                   "a late entry is a registration: livetable floor register NAME [--seat N] --by WHO (TDA 9)")
            return (f"F-3: this table plays {what}: the floor seats no player with chips here (they would "
                    f"be chips from outside the tournament); {how}")
        if command == "stakes":
            st = self.orch.state.settings
            how = ("livetable room director clock-level N --reason TEXT" if room else
                   "livetable floor clock-level N --by WHO (or clock-add SECONDS)")
            return (f"F-3: this table plays {what}: its blinds and antes ({st.small_blind}/{st.big_blind}) come "
                    f"from the tournament's levels, not the floor's stakes; to change them move the clock: {how}")
        how = ("the room's director breaks a table (its balancing, in break_order) and moves its players "
               "with their chips" if room else
               "the tournament ends when one player is left; to stop the play: livetable floor pause --by WHO "
               "and clock-pause")
        return f"F-3: this table plays {what}: the floor does not close it; {how}"

    def _no_director(self, command: str) -> str:
        """Why a director's ``command`` is refused at a table without one: a cash table plays no
        tournament; a table of the room's tournament (its link shows the room's view but holds
        no director: ``controller/tournament_link.py``) is directed from the room."""
        if getattr(self.orch, "tournament_view_fn", None) is None:
            return f"F-3: no tournament is played at this table ({command} is a director's)"
        if command == "decline-rebuy":
            return ("F-3: this table plays the room's tournament: a busted player's seat is not kept for a "
                    "rebuy at its tables (the rebuy at the bust is a single table's; docs/tournament.md)")
        if command in ("deal-offer", "deal-withdraw"):  # issue 19: the room holds the prizes and the players left
            return (f"F-3: this table plays the room's tournament: the room's director offers the deal at its final "
                    f"table (livetable room director {command} ... --by NAME; docs/tournament.md \"Deals\")")
        how = "register NAME --by NAME" if command == "register" else f"{command} ... --reason TEXT"
        return (f"F-3: this table plays the room's tournament, which its director runs at the room: "
                f"livetable room director {how} (docs/tournament.md), not livetable floor at a table")

    def _tournament(self, e: Any) -> None:
        director = getattr(self.orch, "tournament_director", None)
        # a table of the room's tournament: rebuys and add-ons go to the room's director as
        # requests (controller/tournament_link.py), confirmed here at the seat
        room = getattr(self.orch, "tournament_purchases", None) if director is None else None
        if room is not None and e.command in ("rebuy", "addon", "confirm-buyin"):
            director = room
        if director is None:
            self._reply(e, False, self._no_director(e.command))
            return
        try:
            if e.command == "confirm-buyin":
                detail = director.confirm_purchase(e.seat, by=f"floor:{e.by}", reason=e.reason)
            elif room is not None and director is room:
                detail = director.confirm_purchase(e.seat, by=f"floor:{e.by}", kind=e.command, reason=e.reason)
            else:
                detail = director.direct(e.command, by=f"floor:{e.by}", reason=e.reason, amount=e.amount,
                                         seat=e.seat, player=e.player,
                                         **({"method": e.method} if getattr(e, "method", None) else {}))
        except TournamentError as exc:
            self._reply(e, False, str(exc))
            return
        except JournalError as exc:
            self._reply(e, False, f"F-1: not recorded: the journal cannot be written ({exc})")
            return
        self._reply(e, True, None, detail)

    def _post_event(self, e: Any, event: ev.Event, detail: str,
                    then: "Callable[[str | None], None] | None" = None) -> None:
        """Post ``event``; answer ``e`` (when not None) accepted with ``detail`` or refused
        with the table's reason; then call ``then(refusal or None)``."""
        before = self.orch.events_handled

        def done() -> None:
            refusal, self._refusal, self._waiting = self._refusal, None, None
            if refusal is None and self.orch.events_handled <= before:
                refusal = self._not_taken("not taken")
            if e is not None:
                if refusal is not None:
                    self._reply(e, False, refusal)
                else:
                    self._reply(e, True, None, detail)
            if then is not None:
                then(refusal)

        self._refusal, self._waiting = None, (str(event_to_json(event)["kind"]), int(getattr(event, "seat", 0)))
        self.orch.post(event, done=done)

    def _not_taken(self, what: str) -> str:
        fault = self.orch.faults.current
        if fault is not None and fault.kind is FaultKind.JOURNAL_ERROR:
            return f"F-1: not recorded: the journal cannot be written ({fault.message})"
        if fault is not None:
            return f"F-1: the table is paused ({fault.message}): {what}"
        return f"F-0: {what}"

    def _reply(self, e: Any, accepted: bool, reason: str | None, detail: str | None = None) -> None:
        try:
            status = self.status()
        except Exception:  # the answer still goes out
            log.exception("floor status failed")
            status = None
        try:
            self._answer(e.request_id, e.command, accepted, reason, detail, status)
        except Exception as exc:  # a reply must never stop the loop
            log.warning("could not answer floor request %s: %s", e.request_id, exc)


def tournament_plays(orch: Any) -> str | None:
    """What tournament ``orch`` (an :class:`~controller.orchestrator.Orchestrator`) plays:
    ``"tournament"`` (a single table's, ``controller/tournament_run.py``), ``"room-tournament"``
    (a table of the room's, ``controller/tournament_link.py``), or None at a cash table. Known
    from the tournament device attached (``orch.tournament``, its director or purchases) or,
    before one is, from the table's settings (``tournament = true``: a single table's)."""
    plays = getattr(orch, "tournament", None)
    if plays:
        return str(plays)
    if getattr(orch, "tournament_purchases", None) is not None:
        return "room-tournament"
    if getattr(orch, "tournament_director", None) is not None or orch.state.settings.tournament:
        return "tournament"
    return None


def _open_list(book: Any) -> str:
    if not book.open:
        return "no fault is open"
    return "open: " + ", ".join(f"{i} {f.kind.value}" for i, f in enumerate(book.open, 1))


def _chips(state: Any) -> dict[str, int]:
    """The chip audit's terms: on the table (stacks, bets, pots), rake, brought and taken away."""
    led = state.ledger
    return {"on_table": chips_on_table(state), "rake": led.rake, "brought": led.total_in, "taken": led.total_out}
