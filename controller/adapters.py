"""Driver events in, table events out; table effects out to the devices (issue 9).

The only module that knows both the drivers' events and the table's. :class:`DriverAdapter`
plays two roles for the orchestrator:

- ``translate(orch, item)``: a shuffler, seat-panel, MQTT or camera event becomes table
  events, fault operations (``RaiseFault`` / ``DeviceBack`` / ``FloorDecision`` /
  ``ManualPause``) or nothing;
- the :class:`~controller.orchestrator.Ports` it fills: the dealer (the shuffler driver),
  the public and private views to the MQTT link, the lights to the seat panel, refusals to
  the tablets' reply topics, finished hands to the history.

It also composes the devices: :meth:`build_simulated` (``livetable simulate``: the shuffler
emulator on a pty, MockFactory pins, the local broker, a camera seeing drawn frames of the
dealt board, the display process) and :meth:`build_real` (``livetable run``).

Fault mapping (docs/state.md kinds): shuffler link lost -> ``shuffler-lost``; jam, empty,
door open, a failed request -> ``jam``; deck check failed -> ``deck-check``; misread or a
card reported twice -> ``misread`` (its ``resume`` plays a misread hole card as ``??``); camera and shuffler disagree -> ``board-mismatch``;
a dealt board card unread in time -> ``card-unreadable``; camera lost -> ``camera-lost``;
broker lost -> ``broker-lost``. Floor requests (``livetable floor`` over MQTT) go to
:class:`controller.floor.FloorDesk`, which posts decisions decided by ``floor:<name>``. The dealer console's ``confirm`` ends the oldest fault by
``correction`` (or ``resume`` where correction is not an exit), decided by ``dealer``; with
no fault open it confirms the oldest buy-in a tablet's player is waiting to hand over
(T-3, ``tablet_join = "confirm"``: ``BuyInConfirmed``); its
``pause`` button pauses the table (fault ``paused``) and, pressed again, resumes it.

Tablet seat requests (take the seat, sit out, sit in, top up, stand up, preselect) get exactly one reply,
after the table decided: accepted, or refused with the table's rule id (``F-1`` when the
table is paused and did not take it); docs/mqtt.md: a tablet ignores a second reply.
"""

from __future__ import annotations

import logging
from collections import deque
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

from controller import views
from controller.engine.cards import FULL_DECK
from controller.engine.table import events as ev
from controller.faults import ALLOWED_EXITS, FaultExit, FaultKind
from controller.orchestrator import DeviceBack, FloorDecision, ManualPause, Orchestrator, Ports, RaiseFault

__all__ = ["DriverAdapter", "DevicePorts", "HistoryWriter", "SimulatedCamera", "player_for_name"]

log = logging.getLogger("livetable.adapters")


class HistoryWriter:
    """Write every finished hand as PHH (``hand-<n>.phh``) plus its JSON record.

    Args:
        folder: where hand files go (created). ``None``: keep only the last hands in memory.
        keep: how many recent records :attr:`recent` holds (for ``livetable/<table>/history``).

    A temporary file a write left behind (the controller killed between writing and
    renaming it) is removed at start once it is a minute old (no writer takes that long).
    """

    def __init__(self, folder: str | Path | None, keep: int = 20) -> None:
        self.folder = Path(folder) if folder else None
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._tidy(time.time() - 60)
        self.keep = keep
        self.recent: list[dict[str, Any]] = []

    def _tidy(self, before: float) -> None:
        assert self.folder is not None
        for tmp in self.folder.glob("hand-*.tmp"):
            try:
                if tmp.stat().st_mtime < before:
                    tmp.unlink()
            except OSError as exc:  # another process's file, a read-only folder: leave it
                log.warning("could not remove %s: %s", tmp, exc)

    def write(self, hand: int, record: dict[str, Any]) -> None:
        """Record hand ``hand``; a write error is logged, never raised (the hand is in the journal).

        Writing a hand already recorded replaces it (its files too): the uncontested winner
        showed after the hand ended (P-2). Each file is replaced whole or not at all
        (:func:`controller.compaction.write_hand_files`): a power cut never tears one.
        """
        self.recent = ([r for r in self.recent if r.get("hand") != hand] + [record])[-self.keep:]
        if self.folder is None:
            return
        try:
            from controller.compaction import write_hand_files  # the one writer of these files

            write_hand_files(self.folder, hand, record)
        except OSError as exc:
            log.error("could not write hand %s to %s: %s", hand, self.folder, exc)


class DevicePorts(Ports):
    """Ports wired to the concrete drivers (any of them may be None: not present)."""

    def __init__(self) -> None:
        self.dealer: Any = None
        self.link: Any = None
        self.panel: Any = None
        self.history: HistoryWriter | None = None
        self.on_board: Callable[[list[str]], None] | None = None
        self.on_fault_changed: Callable[[Any], None] | None = None
        self.observers: list[Callable[[dict[str, Any]], None]] = []
        self.replies: deque[tuple[int, str, bool, str | None]] = deque(maxlen=500)
        self.floor_replies: deque[tuple[str, str, bool, str | None, str | None]] = deque(maxlen=100)

    def fault_changed(self, book: Any) -> None:
        if self.on_fault_changed is not None:
            self.on_fault_changed(book)

    def publish_public(self, view: dict[str, Any]) -> None:
        if self.link is not None:
            self.link.publish_state(view)
        if self.on_board is not None:
            self.on_board(view.get("board") or [])
        for observe in list(self.observers):
            observe(view)

    def publish_private(self, seat: int, view: dict[str, Any] | None) -> None:
        if self.link is not None:
            self.link.publish_private(seat, view)

    def reply(self, seat: int, action_id: str, accepted: bool, reason: str | None) -> None:
        self.replies.append((seat, action_id, accepted, reason))
        if self.link is not None and action_id:
            self.link.reply(seat, action_id, accepted, reason)

    def floor_reply(self, request_id: str, command: str, accepted: bool, reason: str | None,
                    detail: str | None, status: dict[str, Any] | None) -> None:
        """Answer a floor request (``livetable floor``) on the table's floor reply topic."""
        self.floor_replies.append((request_id, command, accepted, reason, detail))
        if self.link is not None:
            self.link.floor_reply(request_id, command, accepted, reason, detail=detail, status=status)

    def lights(self, public: dict[str, Any], privates: dict[int, dict[str, Any]]) -> None:
        if self.panel is not None:
            self.panel.update(public, privates)

    def hand_finished(self, hand: int, record: dict[str, Any]) -> None:
        if self.history is not None:
            self.history.write(hand, record)
            if self.link is not None:
                from controller.history import hand_summary

                self.link.publish_history([hand_summary(r) for r in self.history.recent])


class ShufflerDealer:
    """The table's dealer port on the shuffler driver: DealCards -> deal/draw requests.

    :attr:`sent` maps each request id to what it asked, as the table's
    ``(target, count, seat)`` (``target``: seat, draw, burn, board), so a request the link
    lost can be asked again (:meth:`redo`).
    """

    def __init__(self, driver: Any) -> None:
        self.driver = driver
        self.sent: dict[int, tuple[str, int, int | None]] = {}

    def deal(self, *, target: str, count: int, seat: int | None, reshuffle: bool, hand: int) -> None:
        if target == "seat":
            self.sent[self.driver.deal(seat, count=count)] = (target, count, seat)
        elif target == "draw":
            self.sent[self.driver.draw(seat, count=count)] = (target, count, seat)
        elif target == "burn":
            for _ in range(count):
                self.sent[self.driver.deal("burn")] = (target, 1, None)
        else:
            self.sent[self.driver.deal("board", count=count)] = ("board", count, None)
        if len(self.sent) > 512:  # only the last hand's requests can matter
            for rid in sorted(self.sent)[:256]:
                del self.sent[rid]

    def redo(self, request_id: int, hand: int) -> bool:
        """Ask again what request ``request_id`` asked; return False if it is unknown."""
        what = self.sent.pop(request_id, None)
        if what is None:
            return False
        target, count, seat = what
        self.deal(target=target, count=count, seat=seat, reshuffle=False, hand=hand)
        return True


class SimulatedCamera:
    """The overhead camera of ``livetable simulate``: frames drawn of the board on the felt.

    ``board()`` returns the cards lying on the board (what the shuffler dealt there); each
    frame is :func:`vision.render.render_board` of them (1280x720, cached per board), at most
    one every ``period`` seconds, read by the real :class:`vision.camera.Camera` and
    recognizer. Faults for tests and demonstrations (any thread):

    - :meth:`unplug` / :meth:`plug`: the camera stops giving frames (``camera-lost``) / is back;
    - :meth:`swap` ``(dealt, seen)``: the felt shows ``seen`` where ``dealt`` lies (a card
      that is not the one the shuffler reported: ``board-mismatch``);
    - :meth:`hide` ``(card)``: that card is not visible (face down, covered: after the board
      check's timeout, ``card-unreadable``); :meth:`clear_faults` undoes swaps and hides.
    """

    SIZE = (1280, 720)

    def __init__(self, board: Callable[[], list[str]], period: float = 0.05) -> None:
        self.board, self.period = board, period
        self._lock = threading.Lock()
        self._plugged = threading.Event()
        self._plugged.set()
        self._swaps: dict[str, str] = {}
        self._hidden: set[str] = set()
        self._cache: dict[tuple[str, ...], Any] = {}
        self.frames = 0

    def unplug(self) -> None:
        """The cable falls out: no more frames until :meth:`plug`."""
        self._plugged.clear()

    def plug(self) -> None:
        """Plug the camera back in."""
        self._plugged.set()

    def swap(self, dealt: str, seen: str) -> None:
        """Show card ``seen`` where ``dealt`` lies (both card texts, e.g. ``"Jh"``, ``"3s"``)."""
        with self._lock:
            self._swaps[dealt] = seen

    def hide(self, card: str) -> None:
        """Hide ``card`` from the camera (it lies face down or covered)."""
        with self._lock:
            self._hidden.add(card)

    def clear_faults(self) -> None:
        """Show the felt as it is again."""
        with self._lock:
            self._swaps.clear()
            self._hidden.clear()

    def swap_first(self) -> None:
        """Show a card that was not dealt in place of the board's first card (any board)."""
        with self._lock:
            self._swaps["*first*"] = "*other*"

    def hide_first(self) -> None:
        """Hide the board's first card from the camera (any board)."""
        with self._lock:
            self._hidden.add("*first*")

    def frame(self) -> Any:
        """Return the frame the camera sees now (a BGR ``(720, 1280, 3)`` uint8 array)."""
        with self._lock:
            board = list(self.board())
            if board and "*first*" in self._swaps:
                other = next(str(c) for c in FULL_DECK if str(c) not in board)
                board[0] = other
            if board and "*first*" in self._hidden:
                board = board[1:]
            cards = tuple(self._swaps.get(c, c) for c in board if c not in self._hidden)
        img = self._cache.get(cards)
        if img is None:
            from vision.render import render_board

            img = render_board(cards, size=self.SIZE, background="green")
            if len(self._cache) > 64:
                self._cache.clear()
            self._cache[cards] = img
        self.frames += 1
        return img

    def capture(self, _source: Any = None) -> "_SimCapture":
        """Return a ``cv2.VideoCapture`` stand-in (the :class:`Camera`'s ``capture_factory``)."""
        return _SimCapture(self)


class _SimCapture:
    """A cv2.VideoCapture stand-in reading a :class:`SimulatedCamera`."""

    def __init__(self, cam: SimulatedCamera) -> None:
        self.cam = cam
        self._last = 0.0
        self._stop = threading.Event()

    def isOpened(self) -> bool:  # noqa: N802 - cv2's name
        return self.cam._plugged.is_set() and not self._stop.is_set()

    def read(self) -> tuple[bool, Any]:
        # The device's own frame pacing (a camera delivers frames at its rate).
        wait = self._last + self.cam.period - time.monotonic()
        if wait > 0:
            self._stop.wait(wait)
        self._last = time.monotonic()
        if not self.cam._plugged.is_set() or self._stop.is_set():
            return False, None
        return True, self.cam.frame()

    def grab(self) -> bool:
        return self.isOpened()

    def release(self) -> None:
        self._stop.set()


class DriverAdapter:
    """Translate driver events for one orchestrator and compose its devices.

    Args:
        orch: the orchestrator (its ``post`` receives the drivers' events).
        ports: the :class:`DevicePorts` the orchestrator was given.
        clock: Unix seconds.
    """

    def __init__(self, orch: Orchestrator, ports: DevicePorts, *, clock: Callable[[], float]) -> None:
        self.orch, self.clock = orch, clock
        self.ports = ports
        self.shuffler: Any = None
        self.emulator: Any = None
        self.camera: Any = None
        self.boardcheck: Any = None
        self.display: subprocess.Popen[bytes] | None = None
        self.sim_camera: SimulatedCamera | None = None
        self.on_deck_failed: Callable[[], None] | None = None
        self.decks = 0
        self.board_checks = 0
        self.boards = 0
        self.boards_matched = 0
        self._on_deck: Callable[[], None] | None = None
        self._dealt_board: list[str] = []
        self._closers: list[Callable[[], None]] = []
        self._request: tuple[int, str, int] | None = None
        self._redo: list[int] = []
        self._fresh_deck = False
        self._deck_no: int | None = None
        self._dead_decks: set[int] = set()
        self._shuffler_stopped = False
        self._unread = 0  # hole/draw cards delivered unread since the last misread decision
        #: Seconds the table waits on the shuffler without a word before a fault (watchdog):
        #: for the cards a deal owes, and for a new checked deck.
        self.deal_timeout = 15.0
        self.shuffle_timeout = 120.0
        self._progress_at = 0.0
        self._waiting: tuple[str, float] | None = None
        self.ports.on_fault_changed = self._fault_changed
        from controller.floor import FloorDesk

        self.floor = FloorDesk(orch, getattr(self.ports, "floor_reply", lambda *_: None), clock=clock)

    # ------------------------------------------------------------------ translate
    def translate(self, orch: Orchestrator, item: Any) -> list[Any]:
        """Return what driver event ``item`` means for the table (see the module docstring)."""
        mod = type(item).__module__
        try:
            if mod.startswith("drivers.shuffler"):
                return self._shuffler(item)
            if mod.startswith("drivers.seats"):
                return self._seats(item)
            if mod.startswith("drivers.mqtt"):
                return self._mqtt(item)
            if mod.startswith("vision"):
                return self._vision(item)
        except Exception:  # a translation bug must not stop the loop
            log.exception("could not translate %r", item)
            return []
        log.warning("unknown input %r", item)
        return []

    def _shuffler(self, e: Any) -> list[Any]:
        name = type(e).__name__
        if name in ("CardDelivered", "Misread", "CardFault") and e.deck_no in self._dead_decks:
            # A card of a hand the floor voided (the machine went on dealing while the link was
            # down): the dealer collects it; it is no card of any hand.
            log.warning("card from voided deck %s ignored: %s", e.deck_no, _describe(e))
            return []
        self._progress_at = self.clock()  # the device spoke: the watchdog starts again
        if name == "EventUnusable":
            return self._unusable(e)
        if name == "CardDelivered":
            self._fresh_deck = False
            card = str(e.card)
            if getattr(e.target, "kind", None) == "board":
                self._board_dealt(card)
            return [ev.CardDealt(at=e.at, card=card)]
        if name == "DeckReady":
            if self._on_deck is not None and e.dealt == 0:
                cb, self._on_deck = self._on_deck, None
                self.decks += 1
                self._deck_no = e.deck_no
                self._dead_decks.discard(e.deck_no)  # a new deck (numbers restart on a reboot)
                self._fresh_deck = True
                cb()
            return []
        if name == "DeckCheckFailed":
            self._deck_lost()
            return [RaiseFault(FaultKind.DECK_CHECK.value, f"G-5: deck check failed: {_describe(e)}")]
        if name in ("Jammed", "Empty", "DoorOpened"):
            self._shuffler_stopped = True
            return [RaiseFault(FaultKind.JAM.value, f"shuffler {name.lower()}: {_describe(e)}")]
        if name in ("Misread", "CardFault"):
            if name == "Misread" and getattr(e.target, "kind", None) == "seat":
                self._unread += 1  # a hole or draw card: may be played unread (exit resume)
            return [RaiseFault(FaultKind.MISREAD.value, f"{name.lower()}: {_describe(e)}")]
        if name == "RequestFailed":
            if e.command == "shuffle":
                self._deck_lost()
            if e.code in ("link-down", "device-restarted"):
                if e.command in ("deal", "draw"):
                    self._redo.append(e.request_id)  # not dealt: asked again on resume
                return [RaiseFault(FaultKind.SHUFFLER_LOST.value,
                                   f"the shuffler's serial link is lost ({e.command} not done: {e.code})")]
            if e.command == "reset":
                return []  # a reset refused (door still open...): the open fault says why
            return [RaiseFault(FaultKind.JAM.value, f"shuffler refused {e.command}: {e.code}: {e.message}")]
        if name == "LinkLost":
            return [RaiseFault(FaultKind.SHUFFLER_LOST.value, f"the shuffler's serial link is lost: {e.reason}")]
        if name == "LinkRestored":
            if e.rebooted:
                self._deck_lost()
                if self.orch.state.hand is not None:
                    # Its deck and the cards it may have dealt are gone: only the floor decides.
                    return []
            return [DeviceBack(FaultKind.SHUFFLER_LOST.value,
                               f"link restored ({e.replayed} events caught up)")]
        return []

    def _unusable(self, e: Any) -> list[Any]:
        """A device event arrived intact but unusable (issue 16): never only a log line.

        Its report is lost, so the table pauses with exits: a DECK report -> ``deck-check``
        (the deck is not proven; ``resume`` asks for a new shuffle); a card report whose
        target cannot be read -> ``misread`` (a card left the machine, where to is unknown);
        anything else (a JAM, EMPTY, DONE or DOOR report, an unknown type, an unreadable
        event number) -> ``jam``. Its ``resume``: after an unusable JAM or EMPTY report the
        machine has stopped, so it is cleared keeping its deck and asked again for the cards
        the deal still owes; otherwise the machine may still be dealing, so the hand simply
        goes on (if nothing comes, the watchdog raises ``jam`` again, and that one clears
        and asks again: after its bound nothing is on its way).
        """
        what = f"the shuffler sent a {e.name} report the table cannot use ({e.reason})"
        if e.name in ("deck", "unknown", "number") or e.event_no is None:
            self._deck_lost()  # the deck asked for may be what was lost: asked again after the fault
        if e.name == "deck":
            return [RaiseFault(FaultKind.DECK_CHECK.value, f"G-5: {what}")]
        if e.name in ("card", "misread"):
            return [RaiseFault(FaultKind.MISREAD.value, f"{what}: a card left the machine unread")]
        if e.name in ("jam", "empty"):
            self._shuffler_stopped = True
        return [RaiseFault(FaultKind.JAM.value, what)]

    def _watchdog(self, now: float) -> list[Any]:
        """Return a fault when the table has waited on the shuffler past a bounded time.

        Waiting: the hand is owed cards (``dealing``), or a new deck was asked for. The wait
        is measured on the injected clock from the last thing the shuffler said (or from
        when the wait began), and not while the table is paused. Past :attr:`deal_timeout`
        (cards) or :attr:`shuffle_timeout` (a deck) seconds: ``jam`` (``resume`` clears the
        machine and asks again for what is owed) or ``deck-check`` (``resume`` shuffles
        anew). No hand ever waits on the device for ever without the floor being told.
        """
        if self.shuffler is None or self.orch.faults.paused:
            self._waiting = None
            return []
        dealing = self.orch.state.dealing is not None
        deck = self._on_deck is not None
        kind = "cards" if dealing else "deck" if deck else None
        if kind is None:
            self._waiting = None
            return []
        if self._waiting is None or self._waiting[0] != kind:
            self._waiting = (kind, now)
        since = max(self._waiting[1], self._progress_at)
        limit = self.deal_timeout if kind == "cards" else self.shuffle_timeout
        if now - since <= limit:
            return []
        self._waiting = None
        if kind == "cards":
            self._shuffler_stopped = True
            owed = self.orch.state.dealing
            n = sum(c for _t, c in owed.batches) - len(owed.cards) if owed is not None else 0
            return [RaiseFault(FaultKind.JAM.value, f"shuffler silent: no card for {limit:g} s while the hand "
                                                    f"waits for {n} card(s)")]
        self._deck_lost()
        return [RaiseFault(FaultKind.DECK_CHECK.value, f"G-5: no checked deck from the shuffler in {limit:g} s")]

    def resumed_deck(self, deck_no: int) -> None:
        """The shuffler's deck ``deck_no`` was proven again for a hand resumed after a restart
        (``controller.app.prove_deck_again``): its cards still to come belong to that hand."""
        self._deck_no = deck_no
        self._dead_decks.discard(deck_no)

    def _deck_lost(self) -> None:
        """The deck asked for will not come: let the hand pacer ask again after the fault."""
        self._fresh_deck = False
        if self._on_deck is not None:
            self._on_deck = None
            if self.on_deck_failed is not None:
                self.on_deck_failed()

    def _seats(self, e: Any) -> list[Any]:
        name = type(e).__name__
        state = self.orch.state
        if name == "ConsoleButtonPressed":
            button = str(e.name)
            if button == "pause":
                # The console's pause button toggles (drivers.seats: pause or resume).
                if any(f.kind is FaultKind.PAUSED for f in self.orch.faults.open):
                    return [FloorDecision(FaultKind.PAUSED.value, FaultExit.RESUME.value, "dealer")]
                return [ManualPause("paused by the dealer")]
            if button == "confirm":
                fault = self.orch.faults.current
                if fault is None:
                    return self._confirm_buy_in(e.at)
                allowed = ALLOWED_EXITS[fault.kind]
                exit = FaultExit.CORRECTION if FaultExit.CORRECTION in allowed else FaultExit.RESUME
                return [FloorDecision(fault.kind.value, exit.value, "dealer")]
            if button == "start" and state.hand is None:
                return [ev.HandStartRequested(at=e.at)]
            return []
        seat = e.seat
        button = str(e.button)
        if name == "SeatButtonHeld" and button == "sit":
            s = state.seat(seat)
            if s is None:
                return []
            return [ev.SatIn(at=e.at, seat=seat, post=True) if s.sitting_out else ev.SatOut(at=e.at, seat=seat)]
        if name != "SeatButtonPressed":
            return []
        view = views.private_view(state, seat)
        legal = (view or {}).get("legal")
        if not legal:
            return []  # the turn moved on: the panel's check raced a state change
        if legal.get("show") or legal.get("muck"):
            # P-2 at the showdown (or the uncontested winner after the hand): check/call
            # tables the hand, fold mucks it; bet/raise means nothing here
            if button == "check_call" and legal.get("show"):
                return [ev.ActionTaken(at=e.at, seat=seat, action="show")]
            if button == "fold" and legal.get("muck"):
                return [ev.ActionTaken(at=e.at, seat=seat, action="muck")]
            return []
        if button == "fold":
            return [ev.ActionTaken(at=e.at, seat=seat, action="fold")] if legal.get("fold") else []
        if button == "check_call":
            if legal.get("check"):
                return [ev.ActionTaken(at=e.at, seat=seat, action="check")]
            if legal.get("call"):
                return [ev.ActionTaken(at=e.at, seat=seat, action="call")]
            return []
        if button == "bet_raise":
            for kind in ("raise", "bet"):
                if legal.get(kind):
                    return [ev.ActionTaken(at=e.at, seat=seat, action=kind, amount=legal[kind]["min"])]
        return []

    def _confirm_buy_in(self, at: float) -> list[Any]:
        """The dealer's confirm with no fault open: the oldest buy-in asked for from a tablet
        has been handed over (T-3, ``tablet_join`` ``confirm``); nothing when none waits."""
        waiting = sorted((s.pending_at, s.seat) for s in self.orch.state.seats if s is not None and s.buy_in_pending)
        if not waiting:
            return []
        return [ev.BuyInConfirmed(at=at, seat=waiting[0][1], by="dealer")]

    def _mqtt(self, e: Any) -> list[Any]:
        name = type(e).__name__
        if name == "BrokerConnection":
            if e.up:
                return [DeviceBack(FaultKind.BROKER_LOST.value, "broker connection restored")]
            return [RaiseFault(FaultKind.BROKER_LOST.value, f"broker lost: {e.reason or 'no reason'}")]
        if name == "TabletPresence":
            cls = ev.TabletConnected if e.online else ev.TabletDisconnected
            return [cls(at=e.at, seat=e.seat)]
        if name == "FloorRequestReceived":
            self.floor.request(e)  # answered once on livetable/<table>/floor/reply
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
        try:
            out = self._seat_request(a, e, common)
        except (TypeError, ValueError) as exc:  # an event the table cannot even hold
            self._answer(e.seat, e.action_id, False, f"M-2: {a}: {exc}")
            return []
        if out and e.action_id:
            self._settle_request()
            self._request = (e.seat, e.action_id, self.orch.events_handled)
        elif e.action_id:
            self._answer(e.seat, e.action_id, False, f"M-2: unknown action {a!r}")
        return out

    @staticmethod
    def _seat_request(a: str, e: Any, common: dict[str, Any]) -> list[Any]:
        """Return the table event(s) for a tablet's seat request ``a`` (A-3, T-3..T-8)."""
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
                        "(DriverAdapter.after_step is not an orchestrator listener)", seat, action_id)
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

    def _vision(self, e: Any) -> list[Any]:
        name = type(e).__name__
        if name == "CameraLost":
            return [RaiseFault(FaultKind.CAMERA_LOST.value, f"camera lost: {e.reason}")]
        if name == "CameraBack":
            return [DeviceBack(FaultKind.CAMERA_LOST.value, "camera back")]
        if name == "BoardRead" and self.boardcheck is not None:
            return self._board_events(self.boardcheck.seen(e))
        return []

    def _board_events(self, results: list[Any]) -> list[Any]:
        out: list[Any] = []
        for r in results:
            kind = type(r).__name__
            if kind == "BoardMismatch":
                out.append(RaiseFault(FaultKind.BOARD_MISMATCH.value, _describe(r)))
            elif kind == "BoardUnreadable":
                out.append(RaiseFault(FaultKind.CARD_UNREADABLE.value,
                                      f"dealer: please straighten the board card(s): {_describe(r)}"))
            elif kind == "BoardMatch":
                self.board_checks += 1
                if any(f.kind is FaultKind.CARD_UNREADABLE for f in self.orch.faults.open):
                    out.append(FloorDecision(FaultKind.CARD_UNREADABLE.value, "resume", "system: camera read it"))
        return out

    def _board_dealt(self, card: str) -> None:
        self._dealt_board.append(card)
        if self.boardcheck is not None:
            self.boardcheck.dealt(list(self._dealt_board))

    # ------------------------------------------------------------------ per step / tick
    def after_step(self, orch: Orchestrator, effects: list[Any]) -> None:
        """Listener on the orchestrator: answer a seat-management request once the table
        decided it (accepted, or refused with the rule id of the ``Refuse`` effect)."""
        if self._request is not None and orch.events_handled == self._request[2] + 1:
            self._settle_request(effects)
        self.floor.after_step(orch, effects)

    def tick(self, now: float) -> None:
        """Poll time-based checks (loop thread, on idle, ``now`` from the injected clock): the
        shuffler watchdog (:meth:`_watchdog`), the board check's unreadable timeout, and a seat
        request the table never stepped (refused ``F-1`` while paused)."""
        self._settle_request()
        for item in self._watchdog(now):
            self.orch.post(item)
        if self.boardcheck is not None and not self.orch.faults.paused:
            for item in self._board_events(self.boardcheck.poll()):
                self.orch.post(item)

    @property
    def board_settled(self) -> bool:
        """Return True unless the camera is still to read the board dealt (the next hand
        waits, as a dealer waits for the board check before collecting the cards)."""
        return self.boardcheck is None or self.boardcheck.state != "waiting"

    def new_deck(self, *, on_ready: Callable[[], None]) -> None:
        """Ask the shuffler for a new, checked deck (shuffle + deck check, G-5).

        ``on_ready()`` is called (loop thread) on the shuffler's ``DeckReady``; if the deck
        fails its check or the shuffle cannot be done, :attr:`on_deck_failed` is called
        instead and the fault pauses the table. The camera's board is cleared (the cards
        of the last hand are collected). Asked again while a shuffle is on its way, it
        only takes the new ``on_ready``; asked while a proven deck is still unused (its hand
        start not yet handled), it calls ``on_ready`` at once and does not shuffle.
        """
        if self._on_deck is not None:
            self._on_deck = on_ready  # a shuffle is on its way: one deck, not two
            return
        if self._fresh_deck:
            # A proven deck nothing was dealt from (its hand start may still be queued):
            # shuffling again would take it from under that hand (no-verified-deck, G-5).
            on_ready()
            return
        if self.boardcheck is not None:
            if self._dealt_board:
                self.boards += 1
                self.boards_matched += self.boardcheck.state == "matched"
            self.boardcheck.reset()
        self._dealt_board = []
        self._redo = []
        self._on_deck = on_ready
        self.shuffler.shuffle()

    def _fault_changed(self, book: Any) -> None:
        """A fault ended: put the shuffler back to work as the exit says.

        ``resume`` of a jam/misread/shuffler-lost: clear the device's fault keeping the deck
        (``reset(keep_deck=True)``) and ask again for the cards the hand is still owed;
        ``resume`` of a misread hole card: the player keeps it, the table gets it as ``??``;
        ``misdeal``/``void``: take the deck out (``reset()``); the next hand shuffles anew.
        """
        if not book.endings or self.shuffler is None:
            return
        ending = book.endings[-1]
        if getattr(self, "_seen_endings", 0) >= len(book.endings):
            return
        self._seen_endings = len(book.endings)
        if ending.exit in (FaultExit.MISDEAL, FaultExit.VOID) and self._deck_no is not None:
            self._dead_decks.add(self._deck_no)  # its cards still to come belong to no hand
        kinds = (FaultKind.JAM, FaultKind.MISREAD, FaultKind.SHUFFLER_LOST, FaultKind.DECK_CHECK)
        if ending.kind not in kinds:
            return
        unread, self._unread = (self._unread, 0) if ending.kind is FaultKind.MISREAD else (0, self._unread)
        if ending.exit in (FaultExit.MISDEAL, FaultExit.VOID):
            self._redo = []
            self._fresh_deck = False
            self._on_deck = None
            self._shuffler_stopped = False
            self.shuffler.reset(keep_deck=False)
            return
        if ending.kind is FaultKind.SHUFFLER_LOST:
            # The device kept dealing what it had taken (its cards were caught up before the
            # link was declared back); only the requests the link lost are asked again.
            redo, self._redo = self._redo, []
            hand = self.orch.state.info.number if self.orch.state.info else 0
            for rid in redo:
                if self.orch.state.dealing is not None and hasattr(self.ports.dealer, "redo"):
                    self.ports.dealer.redo(rid, hand)
            return
        if self._shuffler_stopped:
            # A jam (or the door) stopped the machine: nothing after it was dealt.
            self._shuffler_stopped = False
            self._redo = []
            self.shuffler.reset(keep_deck=True)
            if self.orch.state.dealing is not None:
                self._ask_owed()
        elif ending.kind is FaultKind.MISREAD and ending.exit is FaultExit.RESUME and unread:
            # The player keeps the unread hole card(s) face down: the table records each as
            # unknown ("??"); the dealer reads it if the hand must be shown (hole-cards-unknown).
            for _ in range(unread):
                self.orch.post(ev.CardDealt(at=ending.at, card="??"))
        elif ending.kind is FaultKind.MISREAD and ending.exit in (FaultExit.CORRECTION, FaultExit.RESUME):
            # The unread card is taken out by the dealer; the machine deals one in its place
            # (also a resume of a board or burn card: the table never plays those unread).
            if ending.exit is FaultExit.RESUME:
                log.warning("misread: only a hole card can be played unread; the dealer takes it out")
            if self.orch.state.dealing is not None:
                self._ask_owed()

    def _ask_owed(self) -> None:
        """Ask the dealer again for the cards of the current deal not yet delivered."""
        dealing = self.orch.state.dealing
        dealer = self.ports.dealer
        if dealing is None or dealer is None:
            return
        done, n = len(dealing.cards), 0
        hand = self.orch.state.info.number if self.orch.state.info else 0
        for target, count in dealing.batches:
            remaining = min(count, max(0, n + count - done))
            n += count
            if remaining:
                dealer.deal(target=target, count=remaining, seat=dealing.seat, reshuffle=False, hand=hand)

    # ------------------------------------------------------------------ composition
    def build_simulated(self, args: Any, settings: Any, *, headless: bool) -> None:
        """Start the simulated devices of ``livetable simulate --devices all``."""
        from drivers.shuffler.emulator import Emulator
        from drivers.shuffler.link import ShufflerDriver

        # A table opened again from its journal must not deal its first decks again: the
        # emulator's shuffles go on from a seed moved on by the hands already played.
        seed, played = (args.seed if args.seed is not None else 0), self.orch.state.hands
        self.emulator = Emulator(seed=seed if not played else seed ^ (played * 0x9E3779B1))
        path = self.emulator.start()
        self._closers.append(self.emulator.stop)
        self.shuffler = ShufflerDriver(path, post=self.orch.post, clock=self.clock)
        self.shuffler.start()
        self._closers.insert(0, self.shuffler.stop)
        self.ports.dealer = ShufflerDealer(self.shuffler)

        try:
            from drivers.seats import DEFAULT_PIN_MAP, SeatPanel, mock_pin_factory

            self.ports.panel = SeatPanel(DEFAULT_PIN_MAP, mock_pin_factory(), post=self.orch.post,
                                         clock=self.clock)
            self._closers.insert(0, self.ports.panel.close)
        except Exception as exc:  # the panel is optional in a simulation
            log.warning("seat panel not simulated: %s", exc)

        # Simulated players may act many times a second: M-9's flood guard is for tablets.
        password = None
        if getattr(args, "mqtt_password_file", None):
            password = Path(args.mqtt_password_file).read_text().strip()
        self._start_mqtt(args.table, args.mqtt_host, args.mqtt_port, getattr(args, "mqtt_user", None),
                         password, settings.seats, action_rate=(1000, 1.0))
        # With --history-dir every hand is written as PHH there and the last hands reach the
        # tablets' history topic (P-4: seated players see mucked hands after the hand).
        if getattr(args, "history_dir", None):
            self.ports.history = HistoryWriter(args.history_dir)
        if getattr(args, "camera", "on") == "on":
            self._start_sim_camera()
        if not headless:
            self._start_display(args.table, args.mqtt_host, args.mqtt_port)

    def build_real(self, cfg: Any) -> None:
        """Start the devices named in a :class:`controller.config.Config` (``livetable run``)."""
        if cfg.shuffler is not None:
            from drivers.shuffler.link import ShufflerDriver

            self.shuffler = ShufflerDriver(cfg.shuffler.port, post=self.orch.post, clock=self.clock)
            self.shuffler.start()
            self._closers.insert(0, self.shuffler.stop)
            self.ports.dealer = ShufflerDealer(self.shuffler)
        if cfg.gpio is not None:
            from drivers.seats import SeatPanel, parse_pin_map, real_pin_factory

            self.ports.panel = SeatPanel(parse_pin_map(cfg.gpio), real_pin_factory(), post=self.orch.post,
                                         clock=self.clock)
            self._closers.insert(0, self.ports.panel.close)
        password = None
        if cfg.mqtt.password_file:
            password = Path(cfg.mqtt.password_file).read_text().strip()
        self._start_mqtt(cfg.table.id, cfg.mqtt.host, cfg.mqtt.port, cfg.mqtt.username, password,
                         cfg.table.seats)
        if cfg.camera is not None:
            from vision.boardcheck import BoardCheck
            from vision.camera import Camera

            from vision.recognizer import Recognizer

            region = enrolment = None
            if cfg.camera.calibration:
                from vision import calibration

                try:
                    region = calibration.load_region(cfg.camera.calibration)
                except (OSError, ValueError) as exc:  # the table runs on: the whole frame is searched
                    log.error("camera.calibration %s not used: %s; reading the whole frame",
                              cfg.camera.calibration, exc)
            if cfg.camera.enrolment:
                from vision.enroll import Enrollment

                try:
                    enrolment = Enrollment.load(cfg.camera.enrolment)
                except (OSError, ValueError) as exc:  # the synthetic glyph bank still reads cards
                    log.error("camera.enrolment %s not used (%s); reading with the synthetic glyphs only",
                              cfg.camera.enrolment, exc)
            try:
                recognizer = Recognizer(enrollment=enrolment, corners=cfg.camera.corners)
            except Exception as exc:  # noqa: BLE001 - an enrolment Enrollment.load let through
                if enrolment is None:
                    raise
                log.error("camera.enrolment %s not used (%s: %s); reading with the synthetic glyphs only",
                          cfg.camera.enrolment, type(exc).__name__, exc)
                recognizer = Recognizer(enrollment=None, corners=cfg.camera.corners)
            self.boardcheck = BoardCheck(self.clock, timeout=cfg.camera.read_timeout)
            self.camera = Camera(cfg.camera.source, self.orch.post, self.clock, recognizer=recognizer,
                                 region=region, stall_timeout=cfg.camera.stall_timeout).start()
            self._closers.insert(0, self.camera.stop)

    def _start_mqtt(self, table: str, host: str, port: int, user: str | None, password: str | None,
                    seats: int, **options: Any) -> None:
        from drivers.mqtt.link import TableLink

        link = TableLink(table, host=host, port=port, username=user, password=password,
                         post=self.orch.post, clock=self.clock, max_seats=seats, **options)
        link.start()
        self.ports.link = link
        self._closers.insert(0, link.stop)

    def _start_sim_camera(self, *, timeout: float = 10.0, period: float = 0.05) -> None:
        from vision.boardcheck import BoardCheck
        from vision.camera import Camera

        self.boardcheck = BoardCheck(self.clock, timeout=timeout)
        board = lambda: list(self._dealt_board)  # noqa: E731 - what lies on the felt
        self.sim_camera = SimulatedCamera(board, period=period)
        self.camera = Camera("simulated", self.orch.post, self.clock, capture_factory=self.sim_camera.capture,
                             reopen_backoff=0.1, max_backoff=0.5).start()
        self._closers.insert(0, self.camera.stop)

    def _start_display(self, table: str, host: str, port: int) -> None:
        cmd = [sys.executable, "-m", "controller", "display", "--table", table, "--host", host,
               "--port", str(port)]
        try:
            self.display = subprocess.Popen(cmd)
        except OSError as exc:
            log.warning("display not started: %s", exc)
            return

        def stop_display() -> None:
            assert self.display is not None
            self.display.terminate()
            try:
                self.display.wait(5)
            except subprocess.TimeoutExpired:
                self.display.kill()

        self._closers.append(stop_display)

    def close(self) -> None:
        """Stop every device this adapter started (newest first); errors are logged."""
        for close in self._closers:
            try:
                close()
            except Exception as exc:
                log.warning("closing a device: %s", exc)
        self._closers = []


def player_for_name(name: str) -> str:
    """Return the table's player id for a player who joins from a tablet under ``name`` (T-3).

    The controller has no room accounts: the name (case and spacing ignored) is the player's
    identity at this table, so the T-2 20-minute return rule knows "Ann" coming back, and
    two players cannot sit under the same name. Ids of tablet players start ``name:``.

    Raises:
        ValueError: ``name`` is empty.
    """
    key = " ".join(str(name).casefold().split())
    if not key:
        raise ValueError("T-3: a player needs a name")
    return f"name:{key}"


def _describe(e: Any) -> str:
    fields = getattr(e, "__dataclass_fields__", {})
    parts = [f"{k}={getattr(e, k)}" for k in fields if k not in ("at",)]
    return ", ".join(parts) or type(e).__name__
