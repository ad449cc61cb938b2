"""The controller's shuffler driver: the protocol over pyserial, results posted as events.

Usage (from the orchestrator's single loop thread)::

    drv = ShufflerDriver("/dev/ttyUSB0", post=loop_queue.put, clock=time.time)
    drv.start()                       # returns at once; DeviceIdentified or LinkLost follows
    rid = drv.shuffle()               # -> RequestAccepted(rid), then DeckReady / DeckCheckFailed
    drv.deal(3, count=2)              # seat 3; drv.deal("board", 3); drv.deal("burn")
    drv.draw(4, count=2)              # draw replacements (G-3)
    drv.deck_check(); drv.status(); drv.reset(keep_deck=False)
    drv.stop()

**Every request method is non-blocking**: it validates its arguments (raising
:class:`ShufflerArgumentError`, a ValueError, at once), queues the request and returns its
request id (int). The outcome is posted later through ``post(event)``:
:class:`RequestAccepted` / :class:`RequestFailed` / :class:`StatusReport`, then the device's
events (:class:`CardDelivered`, :class:`DeckReady`, :class:`Jammed` ...; see ``events.py``).
``post`` is called from the driver's link thread only, so it must be thread-safe
(``queue.Queue.put`` is). Every event is stamped with ``clock()``.

Threads: a reader thread per connection only decodes bytes into frames and hands them to the
link thread's inbox; the link thread owns the port, the request queue, retries, the deck
tracker and reconnection. Requests are sent one at a time (stop-and-wait).

Reliability (see docs/shuffler-protocol.md, "Link"):

- Every request waits ``timing.timeout`` for its reply, then is retried up to
  ``timing.retries`` times, each wait ``timing.backoff`` times longer
  (:meth:`LinkTiming.worst_case`: 3.75 s with the defaults), plus for a physical command one
  STATUS query before each retry. Requests queue behind each other (stop-and-wait).
- A physical command (shuffle, deal, draw, reset) is never blindly resent: after a timeout the
  driver asks STATUS, and if the device's ``last_seq`` is the request's SEQ the device did it
  (its reply was lost) and the request counts as accepted; otherwise it is resent with the same
  SEQ (the device executes a SEQ at most once). If the device never takes it while STATUS keeps
  answering, the request fails with code ``"timeout"`` and the link stays up.
- Device events carry a u32 event number; the driver acknowledges each, drops duplicates and
  waits for the device to resend after a gap, so no card report is lost or doubled.
- When the port fails or the device stays silent, the driver posts :class:`LinkLost` and
  reopens the port with backoff (``timing.reconnect`` doubling to ``timing.reconnect_max``) for
  as long as it runs. After reconnecting it resumes the session, asks STATUS, waits for the
  events the device queued meanwhile (they are posted as usual) and then posts
  :class:`LinkRestored` with the status and what became of the request that was in flight.
- Deck integrity (52 distinct cards, no card twice per deck) is checked by
  :class:`DeckTracker`; faults are posted as :class:`DeckCheckFailed` / :class:`CardFault`.
- Every frame in or out goes to the wire log (logger ``livetable.shuffler.wire``, DEBUG).
"""

from __future__ import annotations

import itertools
import logging
import queue
import struct
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import serial

from . import events as E
from . import protocol as P
from .codec import Decoder, Frame, encode
from .integrity import DeckTracker

if TYPE_CHECKING:
    from controller.engine.cards import Card

__all__ = ["LinkTiming", "ShufflerDriver", "ShufflerArgumentError"]

WIRE_LOG = logging.getLogger("livetable.shuffler.wire")
_RSP_TYPES = frozenset(int(r) for r in P.Rsp)
_NAMES = {P.Cmd.SHUFFLE: "shuffle", P.Cmd.DECK_CHECK: "deck-check", P.Cmd.DEAL: "deal",
          P.Cmd.DRAW: "draw", P.Cmd.RESET: "reset", P.Cmd.STATUS: "status", P.Cmd.HELLO: "hello"}


class ShufflerArgumentError(ValueError):
    """A request method got an impossible argument (a seat outside 1..10, a count of 0...)."""


@dataclass(frozen=True, slots=True)
class LinkTiming:
    """Timing of the link, in seconds (inject short values in tests).

    ``timeout``: first wait for a reply; ``retries``: resends after the first try;
    ``backoff``: factor on the wait per retry; ``reconnect`` / ``reconnect_max``: first and
    largest delay between attempts to reopen the port; ``heartbeat``: STATUS when idle this
    long (``None``: never); ``catchup``: longest wait for queued device events after a
    reconnect; ``quiet``: the reader's poll interval, after which a partial frame is dropped.
    """

    timeout: float = 0.25
    retries: int = 3
    backoff: float = 2.0
    reconnect: float = 0.2
    reconnect_max: float = 5.0
    heartbeat: float | None = 2.0
    catchup: float = 2.0
    quiet: float = 0.05
    baudrate: int = 115200

    def worst_case(self) -> float:
        """Return the longest one request may wait for replies before the link is declared lost."""
        return sum(self.timeout * self.backoff**i for i in range(self.retries + 1))


@dataclass(frozen=True, slots=True)
class _Req:
    id: int
    cmd: P.Cmd
    payload: bytes

    @property
    def name(self) -> str:
        return _NAMES.get(self.cmd, self.cmd.name.lower())


class _LinkDown(Exception):
    pass


class _Stop(Exception):
    pass


class ShufflerDriver:
    """Drive the card shuffler over a serial URL (``/dev/ttyUSB0``, a pty, ``socket://h:p``).

    ``post(event)`` receives every :mod:`events` value; ``clock()`` stamps them (default
    :func:`time.time`); ``timing`` sets timeouts and retries (:class:`LinkTiming`);
    ``wire_log`` is the logger for raw frames. See the module docstring for the threads and
    the reliability rules.
    """

    def __init__(self, url: str, *, post: Callable[[E.ShufflerEvent], None],
                 clock: Callable[[], float] = time.time, timing: LinkTiming | None = None,
                 wire_log: logging.Logger | None = None) -> None:
        self.url = url
        self._post_fn = post
        self._clock = clock
        self.timing = timing or LinkTiming()
        self._log = wire_log or WIRE_LOG
        self._inbox: queue.SimpleQueue[tuple] = queue.SimpleQueue()
        # The link thread never waits in SimpleQueue.get(timeout=...): CPython's (3.11 here)
        # can block far past its timeout, until the next put, when the thread is descheduled
        # past the deadline (controller/orchestrator.py had it; tests/controller/test_loop_wait.py).
        # A silent device then meant no resend, no heartbeat, no reconnect, ever. It waits on
        # this lock instead (:meth:`_get`): held while there is nothing to wake for, released
        # by every put (:meth:`_put`); Lock.acquire keeps its timeout exactly.
        self._wake = threading.Lock()
        self._wake.acquire()
        self._backlog: deque[tuple] = deque()
        self._ids = itertools.count(1)
        self._seq = 0
        self._device_last = 0
        self._deck_seq: int | None = None
        self._port: serial.SerialBase | None = None
        self._gen = 0
        self._reader: threading.Thread | None = None
        self._reader_stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.tracker = DeckTracker()
        self._expected = 1
        self._boot_id: int | None = None
        self._seq_req: dict[int, int] = {}
        self._inflight: tuple[int, _Req] | None = None
        self._stray: dict[int, Frame] = {}
        self._last_unusable: tuple[int, bytes] | None = None
        self._resume_cards: dict[int, tuple] = {}  # resume_deck request id -> the journal's cards
        self._lost = False
        self._expected_at_loss = 1
        self._last_rx = 0.0
        self._connected = threading.Event()
        self.device: P.Hello | None = None
        self.stats = dict.fromkeys(("tx", "rx", "resends", "timeouts", "status_queries",
                                    "reconnects", "duplicate_events", "stray_replies",
                                    "bad_payloads", "noise_bytes"), 0)

    # --- public API (any thread; non-blocking) -------------------------------------------

    @property
    def connected(self) -> bool:
        """Return true while the link is up and the handshake done."""
        return self._connected.is_set()

    def start(self) -> None:
        """Start the link thread (returns at once). Raises RuntimeError if already started."""
        if self._thread is not None:
            raise RuntimeError("shuffler driver already started")
        self._thread = threading.Thread(target=self._run, name="shuffler-link", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Stop the link thread and close the port (idempotent; waits up to ``timeout`` s)."""
        if self._thread is None:
            return
        self._put(("stop",))
        self._thread.join(timeout)
        self._thread = None

    def shuffle(self) -> int:
        """Shuffle a new deck; return the request id. Posts RequestAccepted, then DeckReady
        (52 distinct cards, G-5) or DeckCheckFailed. Until DeckReady nothing may be dealt."""
        return self._queue(P.Cmd.SHUFFLE, b"")

    def deck_check(self) -> int:
        """Re-read the stub; return the request id. Posts DeckReady or DeckCheckFailed."""
        return self._queue(P.Cmd.DECK_CHECK, b"")

    def deal(self, target: P.Target | int | str, count: int = 1) -> int:
        """Deliver ``count`` (1..10) cards to ``target`` (seat 1..10, ``"board"``, ``"burn"``).

        Returns the request id; posts RequestAccepted/RequestFailed, one CardDelivered (or
        Misread / CardFault) per card, then DealDone, or Jammed / Empty if dealing stops.
        A deal without a verified deck fails with code ``"no-verified-deck"`` (G-5).

        Raises:
            ShufflerArgumentError: bad target or count.
        """
        try:
            tgt = P.Target.parse(target)
        except ValueError as exc:
            raise ShufflerArgumentError(str(exc)) from None
        self._check_count(count, 10)
        return self._queue(P.Cmd.DEAL, bytes((tgt.code, count)))

    def draw(self, seat: int, count: int) -> int:
        """Deliver ``count`` (1..5) draw replacements to ``seat`` (G-3); as :meth:`deal`.

        Raises:
            ShufflerArgumentError: seat not 1..10 or count not 1..5.
        """
        try:
            tgt = P.Target.seat_no(seat)
        except ValueError as exc:
            raise ShufflerArgumentError(str(exc)) from None
        self._check_count(count, 5, rule="G-3: a draw")
        return self._queue(P.Cmd.DRAW, bytes((tgt.code, count)))

    def resume_deck(self, cards_dealt: "list[Card] | tuple[Card, ...]") -> int:
        """Prove again the deck the device holds, after this controller restarted (G-5).

        A restarted driver has no proven deck, so a hand it resumes could not be dealt
        another card (``no-verified-deck``). This asks the device (DECK_CHECK: the stub it
        holds and how many cards it dealt from it) and accepts the deck only when that stub
        and ``cards_dealt`` (the cards the table's journal says came from it) are the 52
        cards each once, and the device's count is the journal's
        (:meth:`DeckTracker.resume`). Returns the request id; posts ``DeckReady`` (with
        ``dealt`` = ``len(cards_dealt)``) or ``DeckCheckFailed``, or ``RequestFailed``
        (no deck, busy, door open ...). Nothing else may be queued before its answer.
        """
        cards = tuple(cards_dealt)
        req = _Req(next(self._ids), P.Cmd.DECK_CHECK, b"")
        self._put(("cmd", req, cards))
        return req.id

    def status(self) -> int:
        """Ask the device's status; return the request id. Posts StatusReport."""
        return self._queue(P.Cmd.STATUS, b"")

    def reset(self, *, keep_deck: bool = False) -> int:
        """Clear a fault; without ``keep_deck`` the deck is taken out (a misdeal: the next
        hand needs a shuffle). Returns the request id; posts RequestAccepted/RequestFailed."""
        return self._queue(P.Cmd.RESET, bytes((1 if keep_deck else 0,)))

    @staticmethod
    def _check_count(count: int, most: int, *, rule: str = "shuffler protocol: DEAL") -> None:
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= most:
            raise ShufflerArgumentError(f"{rule}: count must be 1..{most}, got {count!r}")

    def _queue(self, cmd: P.Cmd, payload: bytes) -> int:
        req = _Req(next(self._ids), cmd, payload)
        self._put(("cmd", req))
        return req.id

    def _put(self, item: tuple) -> None:
        """Queue ``item`` for the link thread and wake it (any thread; never blocks)."""
        self._inbox.put(item)
        try:
            self._wake.release()
        except RuntimeError:  # released already: the link thread is awake or will be at once
            pass

    def _get(self, timeout: float) -> tuple:
        """The next inbox item, waiting at most ``timeout`` seconds (link thread only).

        Raises ``queue.Empty`` when nothing came by then. Not ``SimpleQueue.get(timeout=...)``
        (see ``_wake`` in ``__init__``): ``Lock.acquire(timeout=...)`` returns at its deadline
        even when the thread was descheduled past it; a wake-up whose item was already taken
        only loops once more."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self._inbox.get_nowait()
            except queue.Empty:
                pass
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise queue.Empty
            self._wake.acquire(timeout=remaining)

    # --- link thread ----------------------------------------------------------------------

    def _post(self, cls: type, *args: object, **kw: object) -> None:
        event = cls(self._clock(), *args, **kw)
        try:
            self._post_fn(event)
        except Exception:  # noqa: BLE001 - the table's post must not kill the link thread
            logging.getLogger(__name__).exception("shuffler: post(%r) failed", event)

    def _run(self) -> None:
        delay = self.timing.reconnect
        try:
            while True:
                if self._port is None:
                    if self._connect():
                        delay = self.timing.reconnect
                    else:
                        self._sleep_disconnected(delay)
                        delay = min(delay * 2, self.timing.reconnect_max)
                    continue
                try:
                    self._serve_one()
                except _LinkDown as exc:
                    self._link_down(str(exc))
                except (_Stop, KeyboardInterrupt):
                    raise
                except Exception as exc:  # noqa: BLE001 - a driver bug: log, reconnect, go on
                    logging.getLogger(__name__).exception("shuffler link thread error")
                    self._link_down(f"driver error: {type(exc).__name__}: {exc}")
        except _Stop:
            pass
        finally:
            self._close_port()
            self._connected.clear()

    def _serve_one(self) -> None:
        if self._backlog:
            item = self._backlog.popleft()
        else:
            wait = 0.5
            hb = self.timing.heartbeat
            if hb is not None:
                wait = max(0.0, self._last_rx + hb - time.monotonic())
            try:
                item = self._get(wait)
            except queue.Empty:
                if hb is not None and time.monotonic() - self._last_rx >= hb:
                    self._query_status()
                return
        self._handle_item(item, None)

    def _handle_item(self, item: tuple, backlog: deque | None) -> Frame | None:
        """Handle one inbox item; return a reply frame (never posts it)."""
        kind = item[0]
        if kind == "stop":
            raise _Stop
        if kind == "cmd":
            if backlog is not None:
                backlog.append(item)
            else:
                if len(item) > 2:  # resume_deck: the DECK report that answers it is checked so
                    self._resume_cards[item[1].id] = item[2]
                self._execute(item[1])
            return None
        if item[1] != self._gen:
            return None
        if kind == "porterr":
            raise _LinkDown(f"serial port failed: {item[2]}")
        if kind == "noise":
            self.stats["noise_bytes"] += item[2]
            self._log.debug("RX noise: %d bytes dropped while hunting for frames", item[2])
            return None
        frame: Frame = item[2]
        self._last_rx = time.monotonic()
        self.stats["rx"] += 1
        if self._log.isEnabledFor(logging.DEBUG):
            self._log.debug("RX seq=%d type=0x%02x %s", frame.seq, frame.type, frame.payload.hex())
        if frame.type in _RSP_TYPES:
            return frame
        self._on_event(frame)
        return None

    def _await(self, until: Callable[[Frame | None], bool], timeout: float) -> Frame | None:
        """Process inbox items until ``until(reply)`` is true (return it) or ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                item = self._get(remaining)
            except queue.Empty:
                return None
            reply = self._handle_item(item, self._backlog)
            if until(reply):
                return reply
            if reply is not None:
                self.stats["stray_replies"] += 1
                self._stray[reply.seq] = reply

    def _send(self, frame: Frame) -> None:
        raw = encode(frame)
        if self._log.isEnabledFor(logging.DEBUG):
            self._log.debug("TX seq=%d type=0x%02x %s | %s", frame.seq, frame.type,
                            frame.payload.hex(), raw.hex())
        try:
            assert self._port is not None
            self._port.write(raw)
        except (serial.SerialException, OSError, AssertionError) as exc:
            raise _LinkDown(f"write failed: {exc}") from None
        self.stats["tx"] += 1

    def _next_seq(self) -> int:
        # Skip the SEQ of the device's last executed request: after a wrap, a new request with
        # that SEQ would be taken for a resend (at most once) and STATUS could not tell them apart.
        self._seq = self._seq % 255 + 1
        if self._seq == self._device_last:
            self._seq = self._seq % 255 + 1
        self._stray.pop(self._seq, None)
        return self._seq

    def _exchange(self, cmd: P.Cmd, payload: bytes, *, req_id: int | None = None) -> Frame:
        """Send an idempotent request, resending on timeout; return its reply or raise _LinkDown."""
        frame = Frame(self._next_seq(), cmd, payload)
        if req_id is not None:
            self._seq_req[frame.seq] = req_id  # its events may overtake a slow or lost reply
        timeout = self.timing.timeout
        for attempt in range(self.timing.retries + 1):
            self._send(frame)
            self.stats["resends"] += attempt > 0
            reply = self._stray.pop(frame.seq, None) or self._await(
                lambda r: r is not None and r.seq == frame.seq, timeout)
            if reply is not None:
                return reply
            self.stats["timeouts"] += 1
            timeout *= self.timing.backoff
        raise _LinkDown(f"no reply to {cmd.name} after {self.timing.retries + 1} tries")

    def _query_status(self) -> P.DeviceStatus:
        self.stats["status_queries"] += 1
        reply = self._exchange(P.Cmd.STATUS, b"")
        if reply.type != P.Rsp.STATUS:
            raise _LinkDown(f"STATUS answered with type 0x{reply.type:02x}")
        try:
            st = P.unpack_status(reply.payload)
        except P.PayloadError as exc:
            raise _LinkDown(str(exc)) from None
        self._device_last = st.last_seq
        return st

    def _physical(self, req: _Req) -> Frame | None:
        """Send a physical command; never resend it without asking STATUS what the device did.

        Returns the reply (real, or read from STATUS), or None when STATUS keeps answering but
        the device never took the request; raises _LinkDown when STATUS does not answer.
        """
        frame = Frame(self._next_seq(), req.cmd, req.payload)
        self._seq_req[frame.seq] = req.id
        self._inflight = (frame.seq, req)
        timeout = self.timing.timeout
        for attempt in range(self.timing.retries + 1):
            if attempt:
                reply = self._stray.pop(frame.seq, None)
                if reply is not None:
                    return reply
                st = self._query_status()
                reply = self._stray.pop(frame.seq, None)
                if reply is not None:
                    return reply
                if st.last_seq == frame.seq:
                    code = st.last_code
                    return Frame(frame.seq, P.Rsp.ACK) if code == 0 else Frame(frame.seq, P.Rsp.NAK, bytes((code,)))
                self.stats["resends"] += 1
            self._send(frame)
            reply = self._await(lambda r: r is not None and r.seq == frame.seq, timeout)
            if reply is not None:
                return reply
            self.stats["timeouts"] += 1
            timeout *= self.timing.backoff
        st = self._query_status()
        if st.last_seq == frame.seq:
            code = st.last_code
            return Frame(frame.seq, P.Rsp.ACK) if code == 0 else Frame(frame.seq, P.Rsp.NAK, bytes((code,)))
        return None  # STATUS answers but the device never took this request: it did not do it

    def _execute(self, req: _Req) -> None:
        if req.cmd in (P.Cmd.DEAL, P.Cmd.DRAW) and not self.tracker.verified:
            self._post(E.RequestFailed, req.id, req.name, "no-verified-deck",
                       "G-5: no deck has been verified as 52 distinct cards; shuffle first")
            return
        if req.cmd in P.PHYSICAL_COMMANDS:
            reply = self._physical(req)  # on _LinkDown, _inflight names it for LinkLost/Restored
            self._inflight = None
            if reply is None:
                self._post(E.RequestFailed, req.id, req.name, "timeout",
                           f"the shuffler never took {req.name} in {self.timing.retries + 1} tries "
                           "and says it did not do it")
                return
            self._settle(req, reply)
            self._check_session(reply)
            return
        try:
            if req.cmd == P.Cmd.STATUS:
                self._post(E.StatusReport, req.id, self._query_status())
                return
            reply = self._exchange(req.cmd, req.payload, req_id=req.id)
        except _LinkDown:
            self._fail_down(req)
            raise
        self._settle(req, reply)
        self._check_session(reply)

    def _check_session(self, reply: Frame) -> None:
        if reply.type == P.Rsp.NAK and reply.payload[:1] == bytes((P.ErrorCode.NO_SESSION,)):
            raise _LinkDown("the shuffler lost the session (it restarted); reconnecting")

    def _settle(self, req: _Req, reply: Frame) -> None:
        if reply.type in (P.Rsp.ACK, P.Rsp.NAK):
            self._device_last = reply.seq  # the device records every request but HELLO/STATUS
        if reply.type == P.Rsp.ACK:
            # The old deck is gone once a shuffle or a full reset is accepted; the new deck's
            # DECK event may already have overtaken this reply (then keep that proven deck).
            if (req.cmd == P.Cmd.SHUFFLE and self._deck_seq != reply.seq) or (
                    req.cmd == P.Cmd.RESET and req.payload == b"\x00"):
                self.tracker.forget()
            self._post(E.RequestAccepted, req.id, req.name)
            return
        if reply.type == P.Rsp.NAK and len(reply.payload) >= 1:
            try:
                code = P.ErrorCode(reply.payload[0]).name.lower().replace("_", "-")
            except ValueError:
                code = f"error-{reply.payload[0]}"
            self._post(E.RequestFailed, req.id, req.name, code, f"the shuffler refused {req.name}: {code}")
            return
        self._post(E.RequestFailed, req.id, req.name, "protocol",
                   f"unexpected reply type 0x{reply.type:02x} to {req.name}")

    # --- events ---------------------------------------------------------------------------

    def _ack(self, event_no: int) -> None:
        self._send(Frame(0, P.Cmd.EVENT_ACK, event_no.to_bytes(4, "big")))

    def _on_event(self, frame: Frame) -> None:
        try:
            no = P.unpack_event_no(frame.payload)
        except P.PayloadError as exc:
            self.stats["bad_payloads"] += 1
            # Its number unreadable, it cannot be acknowledged: the device sends it again
            # and again. Posted once per run of the same bytes (the table pauses once).
            if self._last_unusable != (frame.type, frame.payload):
                self._last_unusable = (frame.type, frame.payload)
                self._unusable(frame, None, str(exc))
            return
        if no < self._expected:
            self.stats["duplicate_events"] += 1
            self._ack(self._expected - 1)
            return
        if no > self._expected:
            return  # a gap: the device resends from the first unacknowledged event
        try:
            self._dispatch(frame)
        except (P.PayloadError, ValueError) as exc:
            self.stats["bad_payloads"] += 1
            self._unusable(frame, no, str(exc))
        self._expected = no + 1
        self._ack(no)

    def _unusable(self, frame: Frame, no: int | None, reason: str) -> None:
        """Post what the table must know of an event it cannot use (never only a log line).

        A CARD whose other fields are sound but whose card code is no card (a reader fault
        that passed the CRC) is a card that left the machine unread: it is posted as a
        :class:`Misread` (the tracker counts it), so the hand pauses as for the device's own
        MISREAD and the floor's exits apply. Anything else is an :class:`EventUnusable`.
        """
        self._log.error("shuffler event %s (type 0x%02x) unusable: %s [%s]", no, frame.type, reason,
                        frame.payload.hex())
        try:
            name = P.Evt(frame.type).name.lower()
        except ValueError:
            name = "unknown"
        rid: int | None = None
        if name in ("card", "misread") and len(frame.payload) == struct.calcsize(P.CARD_LAYOUT):
            _ev, seq, tgt, _code, ordinal, deck, _flags = struct.unpack(P.CARD_LAYOUT, frame.payload)
            try:
                target = P.Target.from_code(tgt)
            except P.PayloadError:
                target = None
            if target is not None and 1 <= ordinal <= 52:
                self.tracker.misread(deck)
                self._post(E.Misread, self._seq_req.get(seq), target, deck, ordinal, reason=reason)
                return
        if name not in ("unknown", "door") and len(frame.payload) >= 5:
            rid = self._seq_req.get(frame.payload[4])  # every other event names its request next
        if name == "deck":
            self._deck_seq = None  # whatever deck it reported is not proven
            self.tracker.forget()
        self._post(E.EventUnusable, frame.type, name, no, rid, reason, frame.payload.hex())

    def _dispatch(self, frame: Frame) -> None:
        t, p = frame.type, frame.payload
        if t in (P.Evt.CARD, P.Evt.MISREAD):
            ev = P.unpack_card_event(p)
            rid = self._seq_req.get(ev.cmd_seq)
            if ev.card is None or t == P.Evt.MISREAD:
                self.tracker.misread(ev.deck_no)
                self._post(E.Misread, rid, ev.target, ev.deck_no, ev.ordinal)
                return
            verdict = self.tracker.deliver(ev.deck_no, ev.card, ev.target)
            if verdict.ok:
                self._post(E.CardDelivered, rid, ev.target, ev.card, ev.deck_no, ev.ordinal, ev.draw)
            else:
                self._post(E.CardFault, rid, verdict.kind, ev.card, ev.target, ev.deck_no,
                           ev.ordinal, verdict.first_target)
        elif t == P.Evt.DECK:
            d = P.unpack_deck_event(p)
            resumed = self._resume_cards.pop(self._seq_req.get(d.cmd_seq, -1), None)
            if resumed is not None:
                v = self.tracker.resume(d.deck_no, d.cards, dealt=d.dealt, cards_dealt=resumed)
            else:
                v = self.tracker.check(d.deck_no, d.cards, dealt=d.dealt)
            self._deck_seq = d.cmd_seq if v.ok else None
            if v.ok:
                self._post(E.DeckReady, self._seq_req.get(d.cmd_seq), d.deck_no, v.count, v.dealt)
            else:
                self._post(E.DeckCheckFailed, self._seq_req.get(d.cmd_seq), d.deck_no, v.count, v.duplicates,
                           v.missing, v.unreadable)
        elif t in (P.Evt.JAM, P.Evt.EMPTY):
            s = P.unpack_stop_event(p)
            cls = E.Jammed if t == P.Evt.JAM else E.Empty
            self._post(cls, self._seq_req.get(s.cmd_seq), s.target, s.deck_no, s.undelivered)
        elif t == P.Evt.DOOR:
            door = P.unpack_door_event(p)
            self._post(E.DoorOpened if door.open else E.DoorClosed)
        elif t == P.Evt.DONE:
            done = P.unpack_done_event(p)
            self._post(E.DealDone, self._seq_req.get(done.cmd_seq), done.delivered)
        else:
            raise P.PayloadError(f"shuffler protocol: unknown event type 0x{t:02x}")

    # --- connection -----------------------------------------------------------------------

    def _open_port(self) -> None:
        port = serial.serial_for_url(self.url, baudrate=self.timing.baudrate, timeout=self.timing.quiet,
                                     write_timeout=max(1.0, self.timing.timeout))
        self._gen += 1
        self._port = port
        self._reader_stop = threading.Event()
        self._reader = threading.Thread(target=self._read_loop, args=(port, self._gen, self._reader_stop),
                                        name="shuffler-reader", daemon=True)
        self._reader.start()

    def _read_loop(self, port: serial.SerialBase, gen: int, stop: threading.Event) -> None:
        """Reader thread: bytes -> frames -> the link thread's inbox. Nothing else."""
        dec = Decoder()
        put = self._put
        while not stop.is_set():
            try:
                data = port.read(port.in_waiting or 1)  # type: ignore[attr-defined] # Serial's, not SerialBase's
            except Exception as exc:  # noqa: BLE001 - any failure of the port ends this reader
                if not stop.is_set():
                    put(("porterr", gen, f"{type(exc).__name__}: {exc}"))
                return
            dropped = dec.dropped
            frames = dec.feed(data) if data else dec.expire() if dec.pending else ()
            for f in frames:
                put(("frame", gen, f))
            if dec.dropped != dropped:
                put(("noise", gen, dec.dropped - dropped))

    def _close_port(self) -> None:
        port, self._port = self._port, None
        self._connected.clear()
        if port is None:
            return
        self._reader_stop.set()
        try:
            port.cancel_read()  # type: ignore[attr-defined] # Serial's (POSIX), not SerialBase's
        except Exception:  # noqa: BLE001 - the port may already be gone
            pass
        if self._reader is not None:
            self._reader.join(1.0)
        try:
            port.close()
        except Exception:  # noqa: BLE001
            pass

    def _connect(self) -> bool:
        try:
            self._open_port()
        except (serial.SerialException, OSError, ValueError) as exc:
            if not self._lost:
                self._lost = True
                self._expected_at_loss = self._expected
                self._post(E.LinkLost, f"cannot open {self.url}: {exc}")
            return False
        try:
            self._handshake()
        except _LinkDown as exc:
            self._close_port()
            self._fail_backlog()
            if not self._lost:
                self._lost = True
                self._expected_at_loss = self._expected
                self._post(E.LinkLost, f"no handshake on {self.url}: {exc}")
            return False
        return True

    def _handshake(self) -> None:
        resume = self._boot_id is not None
        reply = self._exchange(P.Cmd.HELLO, P.pack_hello_request(resume=resume))
        if reply.type != P.Rsp.HELLO:
            raise _LinkDown(f"HELLO answered with type 0x{reply.type:02x}")
        try:
            hello = P.unpack_hello(reply.payload)
        except P.PayloadError as exc:
            raise _LinkDown(str(exc)) from None
        rebooted = resume and hello.boot_id != self._boot_id
        if not resume or rebooted:
            self._expected = self._expected_at_loss = hello.last_event + 1
            self._device_last = 0
            self.tracker.forget()
        self._boot_id = hello.boot_id
        self.device = hello
        if not resume or rebooted:
            self._post(E.DeviceIdentified, hello.device, hello.firmware, hello.version, hello.boot_id)
        self._last_rx = time.monotonic()
        if not self._lost:
            self._connected.set()
            return
        self.stats["reconnects"] += 1
        st = self._query_status()
        executed: list[int] = []
        not_executed: list[int] = []
        if self._inflight is not None:
            seq, req = self._inflight
            self._inflight = None
            if not rebooted and st.last_seq == seq:
                executed.append(req.id)
                code = st.last_code
                self._settle(req, Frame(seq, P.Rsp.ACK) if code == 0 else Frame(seq, P.Rsp.NAK, bytes((code,))))
            elif rebooted:
                not_executed.append(req.id)
                self._post(E.RequestFailed, req.id, req.name, "device-restarted",
                           f"the shuffler restarted; whether it did {req.name} before is unknown")
            else:
                not_executed.append(req.id)
                self._post(E.RequestFailed, req.id, req.name, "link-down",
                           f"the link was lost before the shuffler took {req.name}; it did not do it")
        if self._expected <= st.last_event:
            self._await(lambda r: self._expected > st.last_event, self.timing.catchup)
        replayed = self._expected - self._expected_at_loss
        self._lost = False
        self._connected.set()
        self._post(E.LinkRestored, st, replayed, rebooted, tuple(executed), tuple(not_executed))

    def _link_down(self, reason: str) -> None:
        self._close_port()
        pending = () if self._inflight is None else (self._inflight[1].id,)
        if not self._lost:
            self._lost = True
            self._expected_at_loss = self._expected
            self._post(E.LinkLost, reason, pending)
        self._fail_backlog()

    def _fail_backlog(self) -> None:
        while self._backlog:
            item = self._backlog.popleft()
            if item[0] == "cmd":
                self._fail_down(item[1])

    def _fail_down(self, req: _Req) -> None:
        self._post(E.RequestFailed, req.id, req.name, "link-down",
                   f"the shuffler link is down; {req.name} was not sent")

    def _sleep_disconnected(self, delay: float) -> None:
        deadline = time.monotonic() + delay
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                item = self._get(remaining)
            except queue.Empty:
                return
            if item[0] == "stop":
                raise _Stop
            if item[0] == "cmd":
                self._fail_down(item[1])
