"""The shuffler's adapter: its driver's events in, the table's dealer out (issue 9, 16).

:class:`ShufflerDealer` is the table's dealer port on :class:`drivers.shuffler.ShufflerDriver`;
:class:`ShufflerAdapter` translates the driver's events, asks for new proven decks (G-5),
carries out the exits of the shuffler's faults and watches that no hand waits on the machine
past a bounded time. :func:`shuffler_status` and :func:`prove_deck_again` are what start-up
asks the device before the journal's interrupted hand is resumed or voided.

Fault mapping (docs/faults.md): link lost -> ``shuffler-lost``; jam, empty, door open, a
failed request, an unusable JAM/EMPTY/DONE/DOOR report, silence past ``deal_timeout`` ->
``jam``; deck check failed, an unusable DECK report, no deck within ``shuffle_timeout`` ->
``deck-check``; misread, a card reported twice, a card code that is no card -> ``misread``
(its ``resume`` plays a misread hole card as ``??``).
"""

from __future__ import annotations

import logging
import queue
import time
from typing import Any, Callable

from controller.devices.base import DeviceAdapter, describe
from controller.engine.table import events as ev
from controller.faults import FaultExit, FaultKind
from controller.orchestrator import DeviceBack, Orchestrator, RaiseFault

__all__ = ["ShufflerDealer", "ShufflerAdapter", "Forward", "shuffler_status", "prove_deck_again"]

log = logging.getLogger("livetable.devices.shuffler")


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


class ShufflerAdapter(DeviceAdapter):
    """Translate the shuffler driver's events; ask for decks; end its faults as decided.

    Args:
        orch, ports, clock: as :class:`~controller.devices.base.DeviceAdapter`.
        camera: the camera's adapter (board cards dealt go to its board check; a new deck
            collects the last board).

    Attributes: ``shuffler`` (the driver, or None), ``emulator`` (simulation: the emulator
    whose pty the driver opened), ``on_deck_failed`` (the pacer's), ``decks`` proven,
    ``deal_timeout`` / ``shuffle_timeout`` (seconds, the watchdog's bounds).
    """

    def __init__(self, orch: Orchestrator, ports: Any, *, clock: Callable[[], float], camera: Any) -> None:
        super().__init__(orch, ports, clock=clock)
        self.camera = camera
        self.shuffler: Any = None
        self.emulator: Any = None
        self.on_deck_failed: Callable[[], None] | None = None
        self.decks = 0
        self._on_deck: Callable[[], None] | None = None
        self._redo: list[int] = []
        self._fresh_deck = False
        self._deck_no: int | None = None
        self._dead_decks: set[int] = set()
        self._shuffler_stopped = False
        self._unread = 0  # hole/draw cards delivered unread since the last misread decision
        self._seen_endings = 0
        #: Seconds the table waits on the shuffler without a word before a fault (watchdog):
        #: for the cards a deal owes, and for a new checked deck.
        self.deal_timeout = 15.0
        self.shuffle_timeout = 120.0
        self._progress_at = 0.0
        self._waiting: tuple[str, float] | None = None

    def translate(self, e: Any) -> list[Any]:
        """Return what shuffler event ``e`` means for the table (fault mapping above)."""
        name = type(e).__name__
        if name in ("CardDelivered", "Misread", "CardFault") and e.deck_no in self._dead_decks:
            # A card of a hand the floor voided (the machine went on dealing while the link was
            # down): the dealer collects it; it is no card of any hand.
            log.warning("card from voided deck %s ignored: %s", e.deck_no, describe(e))
            return []
        self._progress_at = self.clock()  # the device spoke: the watchdog starts again
        if name == "EventUnusable":
            return self._unusable(e)
        if name == "CardDelivered":
            self._fresh_deck = False
            card = str(e.card)
            if getattr(e.target, "kind", None) == "board":
                self.camera.board_dealt(card)
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
            return [RaiseFault(FaultKind.DECK_CHECK.value, f"G-5: deck check failed: {describe(e)}")]
        if name in ("Jammed", "Empty", "DoorOpened"):
            self._shuffler_stopped = True
            return [RaiseFault(FaultKind.JAM.value, f"shuffler {name.lower()}: {describe(e)}")]
        if name in ("Misread", "CardFault"):
            if name == "Misread" and getattr(e.target, "kind", None) == "seat":
                self._unread += 1  # a hole or draw card: may be played unread (exit resume)
            return [RaiseFault(FaultKind.MISREAD.value, f"{name.lower()}: {describe(e)}")]
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
        self.camera.collect()
        self._redo = []
        self._on_deck = on_ready
        self.shuffler.shuffle()

    def fault_changed(self, book: Any) -> None:
        """A fault ended: put the shuffler back to work as the exit says.

        ``resume`` of a jam/misread/shuffler-lost: clear the device's fault keeping the deck
        (``reset(keep_deck=True)``) and ask again for the cards the hand is still owed;
        ``resume`` of a misread hole card: the player keeps it, the table gets it as ``??``;
        ``misdeal``/``void``: take the deck out (``reset()``); the next hand shuffles anew.
        """
        if not book.endings or self.shuffler is None:
            return
        ending = book.endings[-1]
        if self._seen_endings >= len(book.endings):
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


class Forward:
    """A ``post`` callable whose destination can be switched: buffer first, the loop later."""

    def __init__(self) -> None:
        self.buffer: queue.Queue[Any] = queue.Queue()
        self.target = self.buffer.put

    def __call__(self, item: Any) -> None:
        self.target(item)

    def switch(self, target: Any) -> None:
        """Send everything buffered so far, then every later item, to ``target``."""
        self.target = target
        while True:
            try:
                target(self.buffer.get_nowait())
            except queue.Empty:
                return


def _answer(forward: Forward, rid: int, kinds: tuple[type, ...], timeout: float) -> Any | None:
    """Wait up to ``timeout`` s for the first event of ``kinds`` answering request ``rid``
    (its ``request_id``) in the start-up buffer; return it or None. Other events stay
    buffered, in order, for the loop."""
    deadline = time.monotonic() + timeout
    held: list[Any] = []
    found = None
    while time.monotonic() < deadline:
        try:
            item = forward.buffer.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            break
        if isinstance(item, kinds) and getattr(item, "request_id", None) == rid:
            found = item
            break
        held.append(item)
    for item in held:
        forward.buffer.put(item)
    return found


def shuffler_status(driver: Any, forward: Forward, timeout: float) -> Any | None:
    """Ask the shuffler for its status and wait up to ``timeout`` s; return it or None."""
    from drivers.shuffler.events import StatusReport

    report = _answer(forward, driver.status(), (StatusReport,), timeout)
    return None if report is None else report.status


def prove_deck_again(driver: Any, forward: Forward, hand: Any, timeout: float) -> tuple[bool, str, int | None]:
    """Prove again the deck the shuffler holds for the interrupted ``hand`` (G-5, issue 16).

    A restarted driver has no proven deck: without this, every resumed hand that needed
    another card paused with ``no-verified-deck`` until the floor ended it. The device is
    asked (``ShufflerDriver.resume_deck``: its stub and count) and the deck accepted only
    if its stub and the hand's cards in the journal are the 52 cards each once. Returns
    ``(ok, reason, deck_no)``; a hand holding a card dealt unread (``??``) cannot be proven.
    """
    from controller.engine.cards import parse_card
    from controller.engine.table.play import card_texts
    from controller.runtime import cards_taken_this_hand
    from drivers.shuffler.events import DeckCheckFailed, DeckReady, RequestFailed

    taken = card_texts(cards_taken_this_hand(hand))
    if any(c is None or c == "??" for c in taken):
        return False, "a card of the hand was dealt unread: the shuffler's deck cannot be proven again", None
    cards = [parse_card(c) for c in taken if c is not None]  # none is None (checked above)
    got = _answer(forward, driver.resume_deck(cards), (DeckReady, DeckCheckFailed, RequestFailed), timeout)
    if isinstance(got, DeckReady):
        return True, "", got.deck_no
    if isinstance(got, DeckCheckFailed):
        return False, (f"G-5: the shuffler's deck does not match the journal (missing "
                       f"{' '.join(map(str, got.missing)) or '-'}, "
                       f"twice {' '.join(map(str, got.duplicates)) or '-'})"), None
    if isinstance(got, RequestFailed):
        return False, f"the shuffler could not check its deck ({got.code})", None
    return False, "the shuffler did not report its deck in time", None
