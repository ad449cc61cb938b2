"""The orchestrator: the table's single writer (issue 9).

Every input reaches one queue (:meth:`Orchestrator.post`, safe from any thread): driver
events from the shuffler, the seat panel, the MQTT link and the camera; the floor's
decisions; expired timers. The loop thread takes them one at a time and, for each:

1. translates it into a table event (``controller.engine.table.events``) or a fault
   operation, or drops it (with a refusal to the player where one is due);
2. appends it to the :class:`~controller.journal.Journal` - durable before anything acts on it;
   a journal that cannot be written raises the ``journal-error`` fault and nothing is acted on;
3. steps the table (``step(state, event) -> (state, effects)``);
4. carries out the effects through the :class:`Ports`: cards asked of the dealer (the
   shuffler), timers, lights, views published to the tablets and the display, refusals,
   finished hands written to the history.

While a fault is open the table is paused: players' actions are refused (``F-1: the table
is paused``), timers stop, nothing is dealt; the floor ends the fault with one of its exits
(:mod:`controller.faults`), and a ``misdeal``/``void`` exit voids the hand with every wager
returned. Recovery after a crash is a replay of the journal (:meth:`Orchestrator.recover`).

Nothing here reads a clock except through the injected ``clock``.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from controller import views
from controller.engine.table import effects as fx
from controller.engine.table import events as ev
from controller.engine.table.codec import from_json as event_from_json
from controller.engine.table.codec import to_json as event_to_json
from controller.engine.table.play import cards_to_read, show_offer
from controller.engine.table.state import TableState
from controller.engine.table.step import step
from controller.faults import FaultBook, FaultError, FaultExit, FaultKind
from controller.journal import Journal, JournalError

__all__ = ["Orchestrator", "Ports", "FloorDecision", "ManualPause", "RaiseFault", "DeviceBack", "Dealer",
           "TournamentOwn", "TOURNAMENT_STAKES_KEYS", "tournament_refusal"]

log = logging.getLogger("livetable.orchestrator")

#: Hands between two state snapshots in the journal (issue 21). A snapshot is some 8 KB on
#: disk against some 3.4 KB of events a hand: one every hand was 70 % of the journal. Recovery
#: and the start-up check replay at most this many hands from a snapshot (a few ms a hand).
SNAPSHOT_EVERY = 20


class Dealer(Protocol):
    """Where cards come from: the shuffler driver, or the internal dealer of a simulation.

    ``deal(target, count, seat, reshuffle)`` asks for cards; they arrive later as
    ``CardDealt`` events through the orchestrator's inbox.
    """

    def deal(self, *, target: str, count: int, seat: int | None, reshuffle: bool, hand: int) -> None: ...


class Ports:
    """What the orchestrator drives; every method is optional (default: nothing).

    Subclass or set attributes; each is called from the loop thread only.
    """

    dealer: Dealer | None = None

    def publish_public(self, view: dict[str, Any]) -> None:
        """Publish the public state (docs/state.md) to tablets and the display."""

    def publish_private(self, seat: int, view: dict[str, Any] | None) -> None:
        """Publish (or clear, with None) a seat's private view."""

    def reply(self, seat: int, action_id: str, accepted: bool, reason: str | None) -> None:
        """Tell a seat's tablet its action was accepted or refused (with the rule-id reason)."""

    def lights(self, public: dict[str, Any], privates: dict[int, dict[str, Any]]) -> None:
        """Project the state onto the seat lights."""

    def hand_finished(self, hand: int, record: dict[str, Any]) -> None:
        """A hand ended: write its history, publish it. Called again with the same ``hand``
        when its uncontested winner shows after it ended (P-2): replace the first record."""

    def fault_changed(self, book: FaultBook) -> None:
        """The open faults changed (the public view already carries the current one)."""



@dataclass(frozen=True, slots=True)
class FloorDecision:
    """The dealer or the floor ends an open fault: ``kind``, ``exit``, ``by`` whom."""

    kind: str
    exit: str
    by: str
    note: str = ""


@dataclass(frozen=True, slots=True)
class ManualPause:
    """The dealer paused the table by hand (console ``pause``); resumed by a FloorDecision.

    ``between_hands``: only when no hand runs (the floor's ``close``, issue 17); while one
    runs it is dropped, and the floor desk asks again at the hand's end.
    """

    reason: str = "paused by the dealer"
    between_hands: bool = False


@dataclass(frozen=True, slots=True)
class RaiseFault:
    """A device reported trouble: open fault ``kind`` with ``message``."""

    kind: str
    message: str


@dataclass(frozen=True, slots=True)
class TournamentOwn:
    """A tournament's own seating or chips event (issue 19): posted (or handled) by the table's
    tournament device (:class:`controller.tournament_run.TournamentTable`: the draw, late
    entries, rebuys, add-ons, the colour-up; :class:`controller.tournament_link.RoomTournamentSeat`:
    the room's moves and purchases). At a tournament table only these bring chips in or out,
    seat players or change the stakes (:func:`tournament_refusal`)."""

    event: ev.Event


#: The settings a tournament's levels (or its colour-up) set: no cash-game path changes them at
#: a tournament table (``rake_*``: a tournament takes no rake; ``tournament``: no switch to cash).
TOURNAMENT_STAKES_KEYS = frozenset({"small_blind", "big_blind", "ante", "big_blind_ante", "smallest_chip",
                                    "tournament", "rake_percent", "rake_caps", "buy_in_min", "buy_in_max"})

#: Events that seat a player or bring chips to the table (or take a moved player's away).
_SEATING_EVENTS = (ev.PlayerSatDown, ev.BoughtIn, ev.PlayerJoined, ev.ToppedUp, ev.BuyInConfirmed, ev.ChipsRaced)


def tournament_refusal(event: ev.Event) -> str | None:
    """Why a tournament table refuses ``event`` when it does not come from its tournament (a
    :class:`TournamentOwn`), or None when any path may post it (F-3, issue 19 "chips from
    nothing"): a seat, buy-in, top-up, confirmed buy-in or chip race (chips would come from
    outside the tournament's chips in play), a move out (``StoodUp(moved=True)``: chips would
    leave), a settings change of the stakes, chips, rake, buy-in range or tournament flag
    (:data:`TOURNAMENT_STAKES_KEYS`: the levels set them). A plain ``StoodUp`` is left to the
    table (T-8: no cash-out at a tournament table while the player has chips)."""
    if isinstance(event, _SEATING_EVENTS):
        what = {"player-sat-down": "seats a player", "player-joined": "seats a player"}.get(event.kind, "brings chips")
        return (f"F-3: a tournament table takes no {event.kind} from outside the tournament (it {what}): "
                f"players enter by registration, chips come as starting stacks, rebuys and add-ons")
    if isinstance(event, ev.StoodUp) and event.moved:
        return "F-3: only the tournament moves a player to another table with his chips"
    if isinstance(event, ev.SettingsChanged) and TOURNAMENT_STAKES_KEYS & set(event.changes):
        keys = ", ".join(sorted(TOURNAMENT_STAKES_KEYS & set(event.changes)))
        return f"F-3: a tournament table's {keys} come from the tournament's levels, not a settings change"
    return None


@dataclass(frozen=True, slots=True)
class DeviceBack:
    """A device recovered: end fault ``kind`` by ``resume``, decided by the system."""

    kind: str
    note: str = ""


def _read_message(seat: int, known: tuple[str, ...]) -> str:
    """The ``hole-cards-unknown`` fault's message: what the dealer must do, naming the seat."""
    return f"dealer: read seat {seat}'s hole cards (the shuffler reported {' '.join(known)})"


@dataclass(frozen=True, slots=True)
class _Stop:
    pass


@dataclass(frozen=True, slots=True)
class _Tracked:
    """An input posted with ``done``: called once the loop has handled ``item``."""

    item: Any
    done: Callable[[], None]


@dataclass
class _Timers:
    """Running timers by name: (seq, deadline in clock seconds)."""

    running: dict[str, tuple[int, float]] = field(default_factory=dict)

    def next_due(self, now: float) -> list[tuple[str, int]]:
        due = [(name, seq) for name, (seq, at) in self.running.items() if at <= now]
        for name, _ in due:
            del self.running[name]
        return due


class Orchestrator:
    """The single writer of one table.

    Args:
        state: the table state to start from (``TableState.new(settings)`` or recovered).
        journal: the durable event journal (or None in pure unit tests: nothing is written).
        clock: Unix seconds; stamps every event (``controller.clock``).
        ports: the devices and publishers (:class:`Ports`).
        translate: optional ``f(orchestrator, driver_event) -> list`` that turns driver events
            into table events / :class:`RaiseFault` / :class:`DeviceBack` / :class:`FloorDecision`
            (see ``controller.devices``); table events and those records pass unchanged.
        snapshot_every: write a state snapshot into the journal after this many hands
            (default :data:`SNAPSHOT_EVERY`).

    Thread model: :meth:`post` from any thread; everything else from the loop thread
    (:meth:`run`) or, in tests, by calling :meth:`pump`.
    """

    #: ``f(state) -> {seat: share} | None`` behind :meth:`equity` (set by the runtime)
    equity_fn: Callable[[TableState], dict[str, float] | None] | None = None

    def __init__(
        self,
        state: TableState,
        *,
        journal: Journal | None,
        clock: Callable[[], float],
        ports: Ports | None = None,
        translate: Callable[["Orchestrator", Any], list[Any]] | None = None,
        snapshot_every: int | None = None,
    ) -> None:
        self.state = state
        self.journal = journal
        self.clock = clock
        self.ports = ports or Ports()
        self.translate = translate
        self.faults = FaultBook()
        # SimpleQueue: its put is reentrant, so a signal handler (SIGTERM -> stop) may post
        # while the loop thread is inside get; queue.Queue's lock deadlocks the loop then.
        self.inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
        # The loop never waits in SimpleQueue.get(timeout=...): CPython's (3.11 here) can block
        # far past its timeout, until the next put (see run). It waits on this lock instead:
        # held while there is nothing to wake for, released by every post (from a signal
        # handler too: a release never blocks); Lock.acquire's timeout is kept exactly.
        self._wake = threading.Lock()
        self._wake.acquire()
        self.timers = _Timers()
        self.snapshot_every = max(1, SNAPSHOT_EVERY if snapshot_every is None else snapshot_every)
        self.events_handled = 0
        self.hands_finished = 0
        self.listeners: list[Callable[["Orchestrator", list[Any]], None]] = []
        self._stopping = False  # a plain flag: set from a signal handler, no lock taken
        #: A misdeal/void the floor decided that a crash kept from being carried out.
        self.pending_void: str | None = None
        #: The floor's ``close`` waiting for the running hand's end (its pause reason): the
        #: hand pacer starts no hand meanwhile (controller/floor.py, issue 17).
        self.closing: str | None = None
        #: What the table's tournament device plays (``"tournament"``, ``"room-tournament"``), set
        #: by its ``attach``; None at a cash table. While set, seating, chips and stakes events
        #: not wrapped in :class:`TournamentOwn` are refused (:func:`tournament_refusal`).
        self.tournament: str | None = None
        self._own = False  # the event in hand is the tournament's own (a TournamentOwn)
        #: After :meth:`recover`: the seq of the snapshot recovery started from (0: none, the
        #: journal's first event) and how many journal events after it were replayed (events
        #: set aside by a ``rejected`` event not counted). 0 and 0 for a table not recovered.
        self.recovered_from = 0
        self.replayed = 0
        #: What the floor's status says of the journal (``FloorDesk.status``'s ``journal``):
        #: ``f() -> dict | None`` (None: nothing to report), set by the journal's keeper
        #: (:meth:`controller.compaction.JournalKeeper.health`); None: no keeper.
        self.journal_status: Callable[[], dict[str, Any] | None] | None = None

    # ------------------------------------------------------------------ inputs
    def post(self, item: Any, *, done: Callable[[], None] | None = None) -> None:
        """Queue a driver event, table event or floor decision (thread-safe, never blocks).

        ``done()``, if given, is called on the loop thread right after the loop has handled
        ``item``, whatever became of it: stepped (its listeners already called), refused,
        dropped because the table is paused, not journalled, or dropped as malformed. So a
        poster can keep one request outstanding at a time (the hand pacer's start).
        """
        self.inbox.put(item if done is None else _Tracked(item, done))
        self._wake_up()

    def stop(self) -> None:
        """Ask :meth:`run` to return after the event in hand (safe from a signal handler)."""
        self._stopping = True
        self.inbox.put(_Stop())
        self._wake_up()

    def _wake_up(self) -> None:
        try:
            self._wake.release()
        except RuntimeError:  # released already: the loop is awake or will be at once
            pass

    def _next(self, poll: float) -> Any:
        """The next input, waiting at most ``poll`` seconds (None when nothing came).

        Not ``inbox.get(timeout=poll)``: CPython's ``SimpleQueue.get`` computes the time
        left after taking its internal lock and, when the thread was descheduled past the
        deadline in between (10 ms under a load average above 10), waits with that negative
        time left, which means for ever: until the next put. At a simulated table every input
        comes from the loop itself (its players' decisions, its timers), so the table stood
        still mid-hand, its action timer never fired (the loop never got back to it) and no
        fault was raised (docs/room.md). ``Lock.acquire`` checks for that case.
        """
        try:
            return self.inbox.get_nowait()
        except queue.Empty:
            pass
        self._wake.acquire(timeout=poll)
        try:
            return self.inbox.get_nowait()
        except queue.Empty:
            return None

    def run(self, *, poll: float = 0.02, on_idle: Callable[[], None] | None = None) -> None:
        """Handle events until :meth:`stop`; fire timers as the clock passes their deadline.

        ``on_idle`` is called at least every ``poll`` seconds (the watchdog is fed there).
        """
        while not self._stopping:
            item = self._next(poll)
            if item is not None and not isinstance(item, _Stop):
                self.handle(item)
            self.fire_timers()
            if on_idle is not None:
                on_idle()

    def pump(self, limit: int = 1_000_000) -> int:
        """Handle every queued item (and due timers) without waiting; return how many."""
        n = 0
        while n < limit:
            try:
                item = self.inbox.get_nowait()
            except queue.Empty:
                break
            if not isinstance(item, _Stop):
                self.handle(item)
            n += 1
            self.fire_timers()
        self.fire_timers()
        return n

    def fire_timers(self) -> None:
        """Post ``TimerExpired`` for every running timer whose deadline has passed."""
        if self.faults.paused or not self.timers.running:
            return
        now = self.clock()
        for name, seq in self.timers.next_due(now):
            self.handle(ev.TimerExpired(at=now, timer=name, seq=seq))

    # ------------------------------------------------------------------ the loop body
    def handle(self, item: Any) -> None:
        """Translate, journal, step and carry out one input (loop thread only).

        Whatever goes wrong with one input (a malformed record from a driver, a bug) is
        logged and that input dropped: the loop, and the table, keep running.
        """
        if isinstance(item, _Tracked):
            try:
                self.handle(item.item)
            finally:
                try:
                    item.done()
                except Exception:
                    log.exception("the done() of an input failed: %r", item.item)
            return
        try:
            items = [item]
            if self.translate is not None and not isinstance(
                item, (ev.Event, FloorDecision, ManualPause, RaiseFault, DeviceBack, TournamentOwn)
            ):
                items = self.translate(self, item)
            for one in items:
                self._handle_one(one)
        except Exception:
            log.exception("dropped an input that could not be handled: %r", item)

    def _handle_one(self, item: Any) -> None:
        now = self.clock()
        if isinstance(item, TournamentOwn):
            self._own = True
            try:
                self._handle_one(item.event)
            finally:
                self._own = False
            return
        if isinstance(item, RaiseFault):
            self._fault_raise(item.kind, item.message, now)
            return
        if isinstance(item, ManualPause):
            if item.between_hands and self.state.hand is not None:
                return  # never mid-hand: asked again when the hand has ended
            self._fault_raise(FaultKind.PAUSED.value, item.reason, now)
            return
        if isinstance(item, DeviceBack):
            if any(f.kind.value == item.kind for f in self.faults.open):
                self._fault_end(item.kind, "resume", "system", item.note, now)
            return
        if isinstance(item, FloorDecision):
            if (item.kind == FaultKind.HOLE_CARDS_UNKNOWN.value and item.exit == FaultExit.CORRECTION.value
                    and cards_to_read(self.state) is not None):
                # P-2: the correction is the cards themselves (a hole-cards-read event)
                log.warning("fault decision refused: enter seat %s's hole cards as they lie on the "
                            "felt (hole-cards-read), or void the hand", cards_to_read(self.state))
                return
            self._fault_end(item.kind, item.exit, item.by, item.note, now)
            return
        if not isinstance(item, ev.Event):
            log.warning("dropped an input the table does not know: %r", item)
            return
        if self.faults.paused and not self._allowed_while_paused(item):
            self._refuse_paused(item)
            return
        if self.tournament is not None and not self._own and (why := tournament_refusal(item)) is not None:
            self._refuse_at_tournament(item, why)
            return
        self._apply(item)

    def _refuse_at_tournament(self, event: ev.Event, why: str) -> None:
        """Refuse a cash-game seating, chips or stakes event at a tournament table: nothing is
        journalled (a replay must not take it either), the state is unchanged; the refusal goes
        to the seat's tablet and to the listeners (the floor's answer) as the table's own would."""
        log.warning("tournament table: refused %s: %s", event.kind, why)
        refusal = fx.Refuse(event=event.kind, rule="F-3", reason=why, seat=getattr(event, "seat", None),
                            action_id=getattr(event, "action_id", ""))
        self._carry_out([refusal], event)
        for listener in list(self.listeners):
            listener(self, [refusal])

    def _allowed_while_paused(self, event: ev.Event) -> bool:
        # Cards already on their way are facts; the floor may void or change settings (they
        # wait for the hand's end). Players' decisions and seat requests during a paused hand
        # are refused once with F-1 (docs/faults.md); timers wait.
        if isinstance(event, (ev.CardDealt, ev.HandVoided, ev.TabletConnected, ev.TabletDisconnected,
                              ev.SettingsChanged, ev.HoleCardsRead)):
            return True
        if self.state.hand is None and not isinstance(event, (ev.HandStartRequested, ev.TimerExpired)):
            return True
        return False

    def _refuse_paused(self, event: ev.Event) -> None:
        seat = getattr(event, "seat", None)
        action_id = getattr(event, "action_id", "")
        if isinstance(event, ev.ActionTaken) and seat is not None:
            fault = self.faults.current
            what = fault.message if fault else "a fault"
            self.ports.reply(seat, action_id, False, f"F-1: the table is paused ({what})")

    def _apply(self, event: ev.Event) -> None:
        payload = event_to_json(event, defaults=False)  # the fields left at their default are not stored
        if not self._journal("table", payload, event.at):
            return
        try:
            before = self.state
            self.state, effects = step(self.state, event)
        except Exception as exc:  # a bug must not stop the room: pause and keep the state
            log.exception("the table step failed on %s", payload)
            if self.journal is not None:
                # Mark it, so that recovery skips this event instead of failing on it forever.
                self._journal("rejected", {"seq": self.journal.last_seq, "error": str(exc)}, event.at)
            self._fault_raise("journal-error", f"internal error on {payload.get('kind')}: {exc}", event.at)
            return
        self.events_handled += 1
        note = getattr(self.journal, "note_step", None)
        if note is not None:  # the mark counts what the table refused: recovery must refuse the same
            note(self.state is not before, self.state.hands)
        if isinstance(event, ev.HoleCardsRead) and not any(isinstance(e, fx.Refuse) for e in effects):
            # The dealer's reading was taken: the hand goes on (another unread hand opens the
            # fault again from the effects below, naming its seat).
            if any(f.kind is FaultKind.HOLE_CARDS_UNKNOWN for f in self.faults.open):
                self._fault_end(FaultKind.HOLE_CARDS_UNKNOWN.value, FaultExit.CORRECTION.value, event.by,
                                f"seat {event.seat} read as {' '.join(event.cards)}", event.at)
        self._carry_out(effects, event)
        for listener in list(self.listeners):
            listener(self, effects)

    def _journal(self, kind: str, payload: dict[str, Any], at: float) -> bool:
        if self.journal is None:
            return True
        try:
            self.journal.append(kind, payload, at)
            return True
        except JournalError as exc:
            log.error("journal write failed: %s", exc)
            # Not journalled: the fault is still raised in memory so the table stops acting.
            self.faults = self.faults.raise_fault(FaultKind.JOURNAL_ERROR, str(exc), at)
            self._bump()
            self._publish_all()
            return False

    # ------------------------------------------------------------------ faults
    def _bump(self) -> None:
        """Raise the state's ``seq``: a fault opening or ending changes what everyone sees
        (docs/state.md: a consumer drops a state whose seq is not higher). Replayed the same
        way from the journal's fault entries, so recovery gives the same seq."""
        self.state = replace(self.state, seq=self.state.seq + 1)

    def _fault_raise(self, kind: str, message: str, now: float) -> None:
        book = self.faults.raise_fault(kind, message, now)
        if book is self.faults:
            return
        if not self._journal("fault-raised", {"kind": kind, "message": message}, now):
            return
        self.faults = book
        self._bump()
        log.warning("fault %s: %s (table paused)", kind, message)
        self.timers.running.clear()
        self.ports.fault_changed(self.faults)
        self._publish_all()

    def _fault_end(self, kind: str, exit: str, by: str, note: str, now: float) -> None:
        try:
            book, ending = self.faults.end(kind, exit, by=by, at=now, note=note)
        except (FaultError, ValueError) as exc:
            log.warning("fault decision refused: %s", exc)
            return
        if not self._journal("fault-ended", ending.to_json(), now):
            return
        self.faults = book
        self._bump()
        log.warning("fault %s ended by %s (%s)", kind, exit, by)
        self.ports.fault_changed(self.faults)
        if ending.exit in (FaultExit.MISDEAL, FaultExit.VOID) and self.state.hand is not None:
            self._apply(ev.HandVoided(at=now, reason=f"{ending.exit.value}: {ending.message}", by=by))
        else:
            self._rearm_timer()
        self._publish_all()

    # ------------------------------------------------------------------ effects
    def _carry_out(self, effects: list[Any], event: ev.Event) -> None:
        publish_public = False
        private: dict[int, bool] = {}
        light = False
        for effect in effects:
            if isinstance(effect, fx.DealCards):
                dealer = self.ports.dealer
                if dealer is not None:
                    hand = self.state.info.number if self.state.info else 0
                    try:
                        dealer.deal(target=effect.target, count=effect.count, seat=effect.seat,
                                    reshuffle=effect.reshuffle, hand=hand)
                    except Exception as exc:  # the dealer refused: pause, never guess a card
                        log.error("dealer refused %s: %s", effect, exc)
                        self._fault_raise("jam", f"the dealer could not deal: {exc}", event.at)
            elif isinstance(effect, fx.StartTimer):
                self.timers.running[effect.timer] = (effect.seq, event.at + effect.seconds)
            elif isinstance(effect, fx.CancelTimer):
                running = self.timers.running.get(effect.timer)
                if running and running[0] == effect.seq:
                    del self.timers.running[effect.timer]
            elif isinstance(effect, fx.PublishPublic):
                publish_public = True
            elif isinstance(effect, fx.PublishPrivate):
                for seat in effect.seats:
                    private[seat] = private.get(seat, False) or effect.clear
            elif isinstance(effect, fx.LightSeats):
                light = True
            elif isinstance(effect, fx.Refuse):
                if effect.seat is not None:
                    self.ports.reply(effect.seat, effect.action_id, False, effect.reason)
                elif effect.event == "hole-cards-read":
                    # The reading contradicts the hand or repeats a dealt card: the fault
                    # stays open; whoever entered it reads the reason here and in the journal.
                    log.warning("hole cards reading refused: %s", effect.reason)
                elif effect.event == "card-dealt":
                    # The dealer reported a card the hand cannot take (a duplicate, a card
                    # nobody asked for): never guess - pause for the floor.
                    self._fault_raise("misread", f"the dealer reported a card the hand cannot take: "
                                      f"{effect.reason}", event.at)
            elif isinstance(effect, fx.HandFinished):
                self.hands_finished += 1
                self.ports.hand_finished(effect.hand, effect.record)
                if self.journal is not None and self._snapshot_due():
                    self._snapshot(event.at)
            elif isinstance(effect, fx.ReadHoleCards):
                # P-2 / S-8: a hand to show holds a card the shuffler could not read
                self._fault_raise(FaultKind.HOLE_CARDS_UNKNOWN.value,
                                  _read_message(effect.seat, effect.known), event.at)
            elif isinstance(effect, fx.HandShown):
                self.ports.hand_finished(effect.hand, effect.record)  # P-2: the record, shown
        if isinstance(event, ev.ActionTaken) and event.action_id and not any(
            isinstance(e, fx.Refuse) for e in effects
        ):
            self.ports.reply(event.seat, event.action_id, True, None)
        if not (publish_public or light or private):
            return
        # The public state first: a tablet that gets its new legal actions (private view)
        # already holds the state they were computed on (its pot-size amounts use both). It is
        # sent before the private views are even made (issue 21: the acting tablet waits for it).
        public = self.public_view()
        if publish_public:
            self.ports.publish_public(public)
        privates = self._private_views()
        for seat, clear in sorted(private.items()):
            self.ports.publish_private(seat, None if clear else privates.get(seat))
        self.ports.lights(public, privates)

    def _private_views(self) -> dict[int, dict[str, Any]]:
        out: dict[int, dict[str, Any]] = {}
        if self.state.hand is not None and self.state.info is not None:
            seats: tuple[int, ...] = self.state.info.dealt
        else:  # between hands: only an uncontested winner's offer to show (P-2)
            offer = show_offer(self.state)
            seats = () if offer is None else (offer,)
        for seat in seats:
            view = views.private_view(self.state, seat)
            if view is not None:
                out[seat] = view
        return out

    def publish_all(self) -> None:
        """Publish the table as it stands: the public view, every private view, the lights.

        Called once the devices are up (a fresh or clean start publishes nothing by itself:
        without a public state no tablet can take a seat, docs/mqtt.md M-4)."""
        self._publish_all()

    def _publish_all(self) -> None:
        """Publish the public view, every private view and the lights (after a fault change,
        at start-up). A seat with no private view now has its view cleared: the broker may
        still hold a retained one from before a restart (an earlier occupant's hole cards)."""
        public = self.public_view()
        privates = self._private_views()
        self.ports.publish_public(public)
        for seat in range(1, len(self.state.seats) + 1):
            self.ports.publish_private(seat, privates.get(seat))
        self.ports.lights(public, privates)

    def public_view(self) -> dict[str, Any]:
        """Return the public state of docs/state.md, with the open fault and pause, the seats
        the room holds (``holds``, issue 18) (and, at a tournament table, ``tournament_view``:
        docs/tournament.md)."""
        fault = self.faults.current
        view = views.public_view(
            self.state, fault=fault.to_json() if fault else None, paused=self.faults.paused,
            equity=self.equity(),
        )
        # the seats the room holds for called players (issue 18, controller/holds.py); set by
        # the MQTT adapter when the room says
        holds = getattr(self, "seat_holds", None)
        view["holds"] = holds.public(self.clock()) if holds is not None else []
        tournament = getattr(self, "tournament_view_fn", None)  # set by controller.tournament_run
        if tournament is not None:
            view["tournament_view"] = tournament(view)
        return view

    def equity(self) -> dict[str, float] | None:
        """Return each live seat's equity in an all-in run-out (S-8), else None.

        ``controller.views.public_view`` publishes it only while
        :func:`~controller.engine.table.play.all_in_runout` holds. Override point:
        ``controller.simulate``/``app`` set :attr:`equity_fn`.
        """
        fn = getattr(self, "equity_fn", None)
        return fn(self.state) if fn is not None else None

    def _rearm_timer(self) -> None:
        timer = getattr(self.state, "timer", None)
        if timer is not None and not self.faults.paused:
            # After a pause the player gets their whole time again, from now.
            seconds = max(0.0, timer.deadline - timer.started)
            self.timers.running["action"] = (timer.seq, self.clock() + seconds)

    def _snapshot_due(self) -> bool:
        """True when the newest snapshot is ``snapshot_every`` hands old or more (counted in
        the table's hands, so restarts do not put it off), or there is none."""
        assert self.journal is not None
        newest = self.journal.newest_snapshot_hands()
        return newest is None or self.state.hands - newest >= self.snapshot_every

    def _snapshot(self, at: float) -> None:
        assert self.journal is not None
        try:
            self.journal.snapshot(
                {"table": self.state.to_json(), "faults": [f.to_json() for f in self.faults.open]}, at
            )
        except JournalError as exc:
            self._fault_raise("journal-error", str(exc), at)

    # ------------------------------------------------------------------ recovery
    @classmethod
    def recover(
        cls, journal: Journal, fresh: Callable[[], TableState], **kwargs: Any
    ) -> "Orchestrator":
        """Rebuild the orchestrator from ``journal``: newest snapshot, then replay the rest.

        ``fresh()`` gives the state for an empty journal. Open faults are restored. Effects of
        replayed events are not carried out again (the cards are already on the table); the
        caller then decides whether an interrupted hand resumes (:meth:`resume_after_recovery`)
        or is voided (:meth:`void_interrupted_hand`).

        Raises:
            JournalError: the journal fails its start-up check (``Journal.check(full=False)``:
                the table must not start on it).
        """
        problems = journal.check(full=False)  # what recovery reads (the snapshot, the events after it)
        if problems:
            raise JournalError("journal check failed: " + "; ".join(problems[:5]))
        snap = journal.latest_snapshot()
        if snap is None:
            state, after, book = fresh(), 0, FaultBook()
        else:
            after, data = snap
            try:
                state = TableState.from_json(data["table"])
                book = FaultBook()
                for f in data.get("faults", []):
                    book = book.raise_fault(f["kind"], f["message"], f["since"])
            except Exception as exc:
                raise JournalError(f"journal snapshot at event {after} cannot be read: {exc}") from exc
        pending_void: str | None = None
        rejected = set_aside_seqs(journal, after)
        mark = getattr(journal, "found_mark", None)
        # The mark says how many table events the table refused after this snapshot (format 2):
        # the replay must refuse as many by the mark's event, or events were changed.
        check_at = mark.seq if (mark is not None and mark.snap is not None and mark.snap == after
                                and mark.seq >= after) else None
        untaken: list[tuple[int, str]] = []  # (seq, why) of the table events the replay refused
        replayed = 0
        if check_at == after:
            _compare_untaken(mark, untaken, after, after)
        for entry in journal.entries(after=after):
            if entry.kind not in KNOWN_KINDS:
                raise JournalError(f"journal event {entry.seq} is of a kind the table does not know "
                                   f"({entry.kind[:40]!r}): the journal was changed or written by another "
                                   "program")
            try:
                if entry.seq in rejected:
                    # The live table could not take it either (logged then), or the floor set
                    # aside an event of the wrong shape (livetable history --accept).
                    pass
                elif entry.kind == "table":
                    new, effects = step(state, event_from_json(entry.payload))
                    if new is state:
                        why = next((e.reason for e in effects if isinstance(e, fx.Refuse)), "no effect")
                        sub = entry.payload.get("kind")
                        untaken.append((entry.seq, f"{sub}: {why}"))
                    state = new
                    if entry.payload.get("kind") == "hand-voided" or state.hand is None:
                        pending_void = None
                elif entry.kind == "fault-raised":
                    raised = book.raise_fault(entry.payload["kind"], entry.payload["message"], entry.at)
                    if raised is not book:
                        book, state = raised, replace(state, seq=state.seq + 1)
                elif entry.kind == "fault-ended":
                    p = entry.payload
                    try:
                        book, ending = book.end(p["kind"], p["exit"], by=p["by"], at=p["at"],
                                                note=p.get("note", ""))
                    except FaultError:
                        pass
                    else:
                        state = replace(state, seq=state.seq + 1)
                        if ending.exit in (FaultExit.MISDEAL, FaultExit.VOID) and state.hand is not None:
                            pending_void = f"{ending.exit.value}: {ending.message} (decided by {ending.by})"
            except Exception as exc:
                raise JournalError(
                    f"journal event {entry.seq} ({entry.kind}) cannot be replayed: {exc}"
                ) from exc
            replayed += entry.seq not in rejected
            if entry.seq == check_at:
                _compare_untaken(mark, untaken, after, entry.seq)
        note = getattr(journal, "note_recovered", None)
        if note is not None:
            note(after, len(untaken), state.hands)
        orch = cls(state, journal=journal, **kwargs)
        orch.faults = book
        orch.pending_void = pending_void
        orch.recovered_from, orch.replayed = after, replayed
        return orch

    def nudge(self) -> None:
        """Call every listener once with no effects (after start-up or recovery, so that
        whoever acts next - a simulated player, the hand pacer - sees the current state)."""
        for listener in list(self.listeners):
            listener(self, [])

    def void_interrupted_hand(self, reason: str, *, by: str = "system: recovery") -> None:
        """Void the running hand (every wager returned) after a crash the cards cannot survive."""
        if self.state.hand is not None:
            self._apply(ev.HandVoided(at=self.clock(), reason=reason, by=by))

    def resume_after_recovery(self) -> None:
        """Re-arm the running timer and ask again for cards still owed; publish everything.

        A hand waiting for the dealer to read a seat's hole cards whose fault the crash kept
        from the journal is paused again (``hole-cards-unknown``, P-2).
        """
        self._rearm_timer()
        seat = cards_to_read(self.state)
        if seat is not None and self.state.hand is not None:
            known = tuple(str(c) if c is not None else "??" for c in self.state.hand.hole_cards(seat))
            self._fault_raise(FaultKind.HOLE_CARDS_UNKNOWN.value, _read_message(seat, known), self.clock())
        dealing = getattr(self.state, "dealing", None)
        if dealing is not None and self.ports.dealer is not None:
            done = len(dealing.cards)
            n = 0
            for target, count in dealing.batches:
                remaining = min(count, max(0, n + count - done))
                n += count
                if remaining:
                    self.ports.dealer.deal(target=target, count=remaining, seat=dealing.seat,
                                           reshuffle=False, hand=self.state.info.number if self.state.info else 0)
        self._publish_all()


#: The kinds of journal event this livetable writes. Recovery refuses any other (issue 16:
#: an unknown kind was skipped silently, and every table event after it with it).
KNOWN_KINDS = frozenset({"table", "fault-raised", "fault-ended", "rejected", "recovery", "journal-accepted",
                         "simulate", "tournament"})


def set_aside_seqs(journal: Any, after: int) -> set[int]:
    """Return the events after ``after`` that recovery skips: those the floor set aside (a
    ``rejected`` event with ``by``, :func:`controller.journal_check.accept`), and those the
    live table failed on (a ``rejected`` event naming the event just before it), unless the
    floor set that ``rejected`` event itself aside."""
    floor: set[int] = set()
    live: dict[int, int] = {}
    for e in journal.entries(after=after, kinds=("rejected",)):
        seq = e.payload.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool):
            continue
        if "by" in e.payload:
            floor.add(seq)
        elif seq == e.seq - 1:
            live[e.seq] = seq
    return floor | {seq for own, seq in live.items() if own not in floor}


def _compare_untaken(mark: Any, untaken: list[tuple[int, str]], after: int, at: int) -> None:
    """Raise JournalError unless the replay refused as many table events after ``after`` up to
    event ``at`` (the mark's) as the table did: the mark's count, or one more when event
    ``at`` itself was refused (the table was stopped before its next append wrote the mark)."""
    n = len(untaken)
    if n == mark.untaken or (n == mark.untaken + 1 and untaken[-1][0] == at):
        return
    shown = "; ".join(f"event {seq} ({why})" for seq, why in untaken[:3]) or "none"
    raise JournalError(
        f"the replay of events {after + 1}..{at} does not give the table that ran: the table refused "
        f"{mark.untaken} of its events, the replay refuses {n} (first: {shown}): events were changed, "
        f"copied or removed, and every hand after the first of them would be lost")
