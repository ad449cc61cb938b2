"""The shuffler/dealer machine itself: state, commands, card reports and faults, no I/O.

:class:`Machine` is what the emulator runs on its pty (``emulator.py``): frames in through
:meth:`Machine.on_frame`, bytes out through the ``line`` callable (``None`` while the cable is
out), time-driven work through :meth:`Machine.run_due`. It plays docs/shuffler-protocol.md:
sessions, at-most-once requests, reliable numbered events, a seeded shuffle, deck checks that
report identities sorted by index, dealing with jams, misreads, an empty stub and the door.
It is driven from a single thread (the emulator's); only :meth:`physical_log` and
:meth:`wait_idle` may be called from others.
"""

from __future__ import annotations

import heapq
import itertools
import random
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, fields

from controller.engine.cards import FULL_DECK, Card

from . import protocol as P
from .codec import Frame, encode

__all__ = ["Faults", "Machine"]


@dataclass
class Faults:
    """Fault injection settings (mutable; change them through :meth:`Emulator.set_faults`)."""

    drop_rx: int = 0
    drop_commands: int = 0
    drop_replies: int = 0
    drop_events: int = 0
    corrupt_tx: int = 0
    garbage_tx: int = 0
    reply_delay: float = 0.0
    jam_at: int | None = None
    misread_at: int | None = None
    misreport_at: int | None = None
    empty_at: int | None = None
    duplicate: bool = False
    missing: bool = False
    vanish_at: int | None = None
    vanish_for: float = 1.0
    garble: str | None = None
    stall_at: int | None = None

    #: ``garble`` values: the next event of that class is sent intact (a right CRC) but
    #: unusable: ``card`` a CARD whose card code is no card (0x60), ``deck`` a DECK one byte
    #: short of its count, ``jam``/``empty``/``done`` a payload one byte short, ``door`` an
    #: open flag of 2, ``unknown`` the event sent under an unknown type (0xCE), ``number``
    #: any event with its event number cut to 3 bytes (sent again and again, never acked).
    GARBLE = ("card", "deck", "jam", "empty", "done", "door", "unknown", "number")

    @classmethod
    def parse(cls, items: list[str]) -> "Faults":
        """Return Faults from ``["jam_at=5", "duplicate", "reply_delay=0.2"]``.

        Raises:
            ValueError: unknown key or a value of the wrong type.
        """
        f = cls()
        for item in items:
            key, _, value = item.partition("=")
            key = key.strip().replace("-", "_")
            f.update(**{key: value.strip() if value else "1"})
        return f

    def update(self, **changes: object) -> None:
        """Set fields by name, converting text values. Raises ValueError on unknown keys."""
        types = {f.name: f.type for f in fields(self)}
        for key, value in changes.items():
            if key not in types:
                raise ValueError(f"shuffler emulator: unknown fault {key!r} (known: {', '.join(types)})")
            kind = types[key]
            if isinstance(value, str):
                if "None" in kind and value.lower() == "none":
                    value = None
                elif kind == "bool":
                    value = value.lower() not in ("0", "false", "no", "")
                elif kind == "float":
                    value = float(value)
                elif kind.startswith("str"):
                    pass
                else:
                    value = int(value)
            if key == "garble" and value is not None and value not in self.GARBLE:
                raise ValueError(f"shuffler emulator: garble must be one of {', '.join(self.GARBLE)}, "
                                 f"got {value!r}")
            setattr(self, key, value)


@dataclass
class _Work:
    cmd_seq: int
    target: P.Target
    count: int
    draw: bool
    delivered: int = 0


class Machine:
    """The card shuffler/dealer: a seeded shuffle, card reports and injected faults.

    Keyword arguments: ``seed`` (the shuffle's random seed), ``faults``, ``deal_time`` and
    ``shuffle_time`` (seconds a card / a shuffle takes), ``event_retry`` (seconds before
    unacknowledged events are sent again), ``device`` and ``firmware`` (reported in HELLO).
    ``line`` is the callable that puts bytes on the wire, or ``None`` while the cable is out;
    ``on_vanish(seconds)`` pulls the cable for that long (the ``vanish_at`` fault);
    ``frames_received`` counts frames that reached the machine.
    """

    def __init__(self, *, seed: int = 0, faults: Faults | None = None, deal_time: float = 0.0,
                 shuffle_time: float = 0.0, event_retry: float = 0.05,
                 device: str = "LT-SHUFFLER-EMU", firmware: str = "emu-1.0") -> None:
        self.faults = faults or Faults()
        self._rng = random.Random(seed)
        self._noise = random.Random(seed ^ 0x5EED)
        self.deal_time, self.shuffle_time, self.event_retry = deal_time, shuffle_time, event_retry
        self.device, self.firmware = device, firmware
        self.line: Callable[[bytes], None] | None = None
        self.on_vanish: Callable[[float], None] | None = None
        self.frames_received = 0
        self._lock = threading.Lock()
        self._physical: list[tuple[P.Target, Card]] = []
        self._idle = threading.Event()
        self._tick = itertools.count()
        self.power_on()

    def power_on(self) -> None:
        """Start (or restart) the machine: new boot id, no session, no deck, no queued work."""
        self.boot_id = self._noise.getrandbits(32)
        self._session = False
        self._last_seq = 0
        self._last_type = -1
        self._last_code = 0
        self._last_reply: bytes | None = None
        self._event_no = 0
        self._unacked: list[tuple[int, bytes]] = []
        self._event_tx_at = 0.0
        self._stub: list[Card] | None = None
        self._deck_no = 0
        self._dealt = 0
        self._reported: list[Card] = []
        self._shuffling = False
        self._shuffle_seq = 0
        self._door = False
        self._fault = P.Fault.NONE
        self._work: deque[_Work] = deque()
        self._dealing = False
        self._timers: list[tuple[float, int, Callable[[], None]]] = []
        self._idle.set()

    # --- time -----------------------------------------------------------------------------

    def _later(self, delay: float, fn: Callable[[], None]) -> None:
        heapq.heappush(self._timers, (time.monotonic() + delay, next(self._tick), fn))

    def next_deadline(self) -> float | None:
        """Return the monotonic time of the next scheduled work or event resend, or None."""
        times = []
        if self._timers:
            times.append(self._timers[0][0])
        if self._unacked and self.line is not None:
            times.append(self._event_tx_at + self.event_retry)
        return min(times) if times else None

    def run_due(self, now: float) -> None:
        """Run the work due at monotonic time ``now`` and resend unacknowledged events."""
        while self._timers and self._timers[0][0] <= now:
            _, _, fn = heapq.heappop(self._timers)
            fn()
        if self._unacked and self.line is not None and now >= self._event_tx_at + self.event_retry:
            self._event_tx_at = now
            for _, raw in list(self._unacked):
                self._send_event_bytes(raw)

    # --- observation (any thread) ---------------------------------------------------------

    def physical_log(self) -> list[tuple[P.Target, Card]]:
        """Return every card that physically left the machine, in order, with its real identity."""
        with self._lock:
            return list(self._physical)

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Wait until no shuffle or deal is in progress; return False on timeout."""
        return self._idle.wait(timeout)

    def status(self) -> P.DeviceStatus:
        """Return the machine's status as STATUS reports it."""
        return self._status()

    def on_frame(self, frame: Frame) -> None:
        """Handle one frame received from the host."""
        self._on_frame(frame)

    def set_door(self, is_open: bool) -> None:
        """Open or close the door (a DOOR event; opening stops dealing)."""
        self._set_door(is_open)

    # --- the protocol ---------------------------------------------------------------------

    def _write(self, raw: bytes) -> None:
        line = self.line
        if line is None:
            return  # the cable is out: lost on the wire
        f = self.faults
        if f.garbage_tx > 0:
            f.garbage_tx -= 1
            junk = bytes(self._noise.randrange(256) for _ in range(self._noise.randint(1, 12)))
            raw = b"\x7e" + junk + raw
        if f.corrupt_tx > 0:
            f.corrupt_tx -= 1
            buf = bytearray(raw)
            i = self._noise.randrange(len(buf))
            buf[i] ^= 1 << self._noise.randrange(8)
            raw = bytes(buf)
        line(raw)

    def _send_event_bytes(self, raw: bytes) -> None:
        if self.faults.drop_events > 0:
            self.faults.drop_events -= 1
            return
        self._write(raw)

    def _emit(self, typ: P.Evt, build: Callable[[int], bytes]) -> None:
        self._event_no += 1
        payload, wire_type = build(self._event_no), int(typ)
        g = self.faults.garble
        name = typ.name.lower()
        if g is not None and (g == name or g in ("unknown", "number")):
            self.faults.garble = None
            if g == "card":
                payload = payload[:6] + b"\x60" + payload[7:]   # no card has code 0x60
            elif g == "door":
                payload = payload[:4] + b"\x02"
            elif g == "unknown":
                wire_type = 0xCE
            elif g == "number":
                payload = payload[:3]
            else:
                payload = payload[:-1]
        raw = encode(Frame(0, wire_type, payload))
        if not self._unacked:
            self._event_tx_at = time.monotonic()
        self._unacked.append((self._event_no, raw))
        self._send_event_bytes(raw)

    def _reply(self, frame: Frame, typ: P.Rsp, payload: bytes = b"", *, record: bool) -> None:
        raw = encode(Frame(frame.seq, typ, payload))
        if record:
            self._last_seq, self._last_type, self._last_reply = frame.seq, frame.type, raw
            self._last_code = payload[0] if typ == P.Rsp.NAK else 0
        if self.faults.drop_replies > 0:
            self.faults.drop_replies -= 1
            return
        if self.faults.reply_delay > 0:
            self._later(self.faults.reply_delay, lambda: self._write(raw))
        else:
            self._write(raw)

    def _nak(self, frame: Frame, code: P.ErrorCode, *, record: bool = True) -> None:
        self._reply(frame, P.Rsp.NAK, bytes((code,)), record=record)

    def _status(self) -> P.DeviceStatus:
        if self._fault != P.Fault.NONE:
            state = P.DeviceState.FAULT
        elif self._shuffling:
            state = P.DeviceState.SHUFFLING
        elif self._stub is None:
            state = P.DeviceState.NO_DECK
        elif self._work:
            state = P.DeviceState.DEALING
        else:
            state = P.DeviceState.READY
        return P.DeviceStatus(state, self._fault, self._door, self._deck_no, self._dealt,
                              len(self._stub or ()), self._last_seq, self._last_code,
                              self._event_no, sum(w.count - w.delivered for w in self._work))

    def _on_frame(self, frame: Frame) -> None:
        self.frames_received += 1
        if self.faults.drop_rx > 0:
            self.faults.drop_rx -= 1
            return
        if self.faults.drop_commands > 0 and frame.type in P.PHYSICAL_COMMANDS:
            self.faults.drop_commands -= 1
            return
        if frame.type == P.Cmd.EVENT_ACK:
            if len(frame.payload) == 4:
                n = int.from_bytes(frame.payload, "big")
                self._unacked = [(no, raw) for no, raw in self._unacked if no > n]
            return
        if frame.type == P.Cmd.HELLO:
            try:
                version, resume = P.unpack_hello_request(frame.payload)
            except P.PayloadError:
                return self._nak(frame, P.ErrorCode.BAD_PAYLOAD, record=False)
            if version != P.PROTOCOL_VERSION:
                return self._nak(frame, P.ErrorCode.VERSION, record=False)
            if not resume or not self._session:
                self._last_seq, self._last_type, self._last_reply = 0, -1, None
                self._unacked = []
            self._session = True
            self._event_tx_at = 0.0  # resend what is unacknowledged right after this reply
            hello = P.Hello(P.PROTOCOL_VERSION, self.boot_id, self._event_no, self.device, self.firmware)
            return self._reply(frame, P.Rsp.HELLO, P.pack_hello(hello), record=False)
        if not self._session:
            return self._nak(frame, P.ErrorCode.NO_SESSION, record=False)
        if frame.type == P.Cmd.STATUS:
            return self._reply(frame, P.Rsp.STATUS, P.pack_status(self._status()), record=False)
        if frame.seq == self._last_seq and frame.type == self._last_type and self._last_reply:
            self._write(self._last_reply)  # a resend of what we already did: answer, do nothing
            return
        handler = {
            P.Cmd.SHUFFLE: self._cmd_shuffle, P.Cmd.DECK_CHECK: self._cmd_deck_check,
            P.Cmd.DEAL: self._cmd_deal, P.Cmd.DRAW: self._cmd_deal, P.Cmd.RESET: self._cmd_reset,
        }.get(frame.type)  # type: ignore[call-overload]
        if handler is None:
            return self._nak(frame, P.ErrorCode.UNKNOWN_COMMAND)
        code = handler(frame)
        if code is None:
            self._reply(frame, P.Rsp.ACK, record=True)
        else:
            self._nak(frame, code)

    def _blocked(self) -> P.ErrorCode | None:
        if self._door:
            return P.ErrorCode.DOOR_OPEN
        if self._fault == P.Fault.JAM:
            return P.ErrorCode.JAMMED
        return None

    def _cmd_shuffle(self, frame: Frame) -> P.ErrorCode | None:
        if frame.payload:
            return P.ErrorCode.BAD_PAYLOAD
        if (code := self._blocked()) is not None:
            return code
        if self._shuffling or self._work:
            return P.ErrorCode.BUSY
        self._shuffling = True
        self._shuffle_seq = frame.seq
        self._idle.clear()
        self._fault = P.Fault.NONE
        self._later(self.shuffle_time, self._finish_shuffle)
        return None

    def _finish_shuffle(self) -> None:
        deck = list(FULL_DECK)
        self._rng.shuffle(deck)
        if self.faults.duplicate:
            self.faults.duplicate = False
            deck[self._rng.randrange(1, 52)] = deck[0]
        if self.faults.missing:
            self.faults.missing = False
            deck.pop(self._rng.randrange(52))
        self._stub, self._deck_no, self._dealt, self._reported = deck, (self._deck_no + 1) & 0xFFFF, 0, []
        self._shuffling = False
        self._report_deck(self._shuffle_seq)
        self._idle.set()

    def _report_deck(self, cmd_seq: int) -> None:
        stub = sorted(self._stub or (), key=lambda c: c.index)
        deck_no, dealt = self._deck_no, self._dealt
        self._emit(P.Evt.DECK, lambda n: P.pack_deck_event(P.DeckEvent(n, cmd_seq, deck_no, dealt, tuple(stub))))

    def _cmd_deck_check(self, frame: Frame) -> P.ErrorCode | None:
        if frame.payload:
            return P.ErrorCode.BAD_PAYLOAD
        if self._stub is None:
            return P.ErrorCode.NO_DECK
        if self._shuffling or self._work:
            return P.ErrorCode.BUSY
        if self._door:
            return P.ErrorCode.DOOR_OPEN
        self._later(0.0, lambda: self._report_deck(frame.seq))
        return None

    def _cmd_deal(self, frame: Frame) -> P.ErrorCode | None:
        draw = frame.type == P.Cmd.DRAW
        if len(frame.payload) != 2:
            return P.ErrorCode.BAD_PAYLOAD
        code, count = frame.payload
        try:
            target = P.Target.from_code(code)
        except P.PayloadError:
            return P.ErrorCode.BAD_TARGET
        if draw and target.kind != "seat":
            return P.ErrorCode.BAD_TARGET
        if not 1 <= count <= 10:
            return P.ErrorCode.BAD_PAYLOAD
        if self._stub is None:
            return P.ErrorCode.NO_DECK
        if (err := self._blocked()) is not None:
            return err
        if self._shuffling:
            return P.ErrorCode.BUSY
        if not self._stub or self._fault == P.Fault.EMPTY:
            return P.ErrorCode.EMPTY
        self._work.append(_Work(frame.seq, target, count, draw))
        self._idle.clear()
        if not self._dealing:
            self._dealing = True
            self._later(self.deal_time, self._deal_one)
        return None

    def _stop_work(self, typ: P.Evt) -> None:
        ordinal, deck_no = self._dealt + 1, self._deck_no
        while self._work:
            w = self._work.popleft()
            und = w.count - w.delivered

            def build(n: int, w: _Work = w, und: int = und) -> bytes:
                return P.pack_stop_event(P.StopEvent(n, w.cmd_seq, w.target, deck_no, ordinal, und))

            self._emit(typ, build)
        self._idle.set()

    def _deal_one(self) -> None:
        self._dealing = False
        if not self._work or self._door or self._fault != P.Fault.NONE or self._stub is None:
            if not self._work:
                self._idle.set()
            return
        f = self.faults
        ordinal = self._dealt + 1
        if f.stall_at == ordinal:
            f.stall_at = None  # the machine hangs silently: no card, no event, work still queued
            return
        if f.jam_at == ordinal:
            f.jam_at = None
            self._fault = P.Fault.JAM
            return self._stop_work(P.Evt.JAM)
        if not self._stub or f.empty_at == ordinal:
            if f.empty_at == ordinal:
                f.empty_at = None
            self._fault = P.Fault.EMPTY
            return self._stop_work(P.Evt.EMPTY)
        w = self._work[0]
        card = self._stub.pop(0)
        self._dealt = ordinal
        w.delivered += 1
        with self._lock:
            self._physical.append((w.target, card))
        reported: Card | None = card
        typ = P.Evt.CARD
        if f.misread_at == ordinal:
            f.misread_at = None
            reported, typ = None, P.Evt.MISREAD
        elif f.misreport_at == ordinal and self._reported:
            f.misreport_at = None
            reported = self._reported[-1]
        if reported is not None:
            self._reported.append(card)
        deck_no = self._deck_no
        if f.vanish_at == ordinal and self.on_vanish is not None:
            f.vanish_at = None
            self.on_vanish(f.vanish_for)  # the cable falls out as this card leaves
        self._emit(typ, lambda n: P.pack_card_event(
            P.CardEvent(n, w.cmd_seq, w.target, reported, ordinal, deck_no, w.draw)))
        if w.delivered == w.count:
            self._work.popleft()
            self._emit(P.Evt.DONE, lambda n: P.pack_done_event(P.DoneEvent(n, w.cmd_seq, w.delivered)))
        if self._work:
            self._dealing = True
            self._later(self.deal_time, self._deal_one)
        else:
            self._idle.set()

    def _cmd_reset(self, frame: Frame) -> P.ErrorCode | None:
        if len(frame.payload) != 1 or frame.payload[0] > 1:
            return P.ErrorCode.BAD_PAYLOAD
        keep = frame.payload[0] == 1
        self._work.clear()
        self._fault = P.Fault.NONE
        self._shuffling = False
        self._timers = [t for t in self._timers if t[2] != self._finish_shuffle]
        heapq.heapify(self._timers)
        if not keep:
            self._stub = None
        self._idle.set()
        return None

    def _set_door(self, is_open: bool) -> None:
        if is_open == self._door:
            return
        self._door = is_open
        self._emit(P.Evt.DOOR, lambda n: P.pack_door_event(P.DoorEvent(n, is_open)))
        if is_open:
            self._fault = P.Fault.DOOR
            self._stop_work(P.Evt.JAM)  # every interrupted request is reported, nothing dropped
        elif self._fault == P.Fault.DOOR:
            self._fault = P.Fault.NONE
