"""A device emulator that plays the card shuffler/dealer on a pty (docs/shuffler-protocol.md).

In-process use (tests, ``livetable simulate``)::

    emu = Emulator(seed=7, faults=Faults(jam_at=5))
    path = emu.start()          # a stable symlink to the pty slave, e.g. /tmp/lt-shuf-x/tty
    driver = ShufflerDriver(path, post=...)
    ...
    emu.set_faults(drop_replies=1)   # change faults at run time, from any thread
    emu.vanish(); emu.come_back()    # pull and replug the cable (new pty, same symlink)
    emu.open_door(); emu.close_door(); emu.reboot()
    emu.stop()

The emulator runs one thread that owns the pty master and all device state; the control
methods above hand work to that thread and return once it is done. ``physical_log()`` is the
ground truth of what left the machine (target and the real card), for tests that prove no
card is lost or invented.

Command line: ``livetable shuffler-emulator [--seed N] [--fault KEY=VALUE ...] [--link PATH]``
prints the device path on stdout and runs until killed; lines on stdin control it at run time
(``door open``, ``door close``, ``vanish SECONDS``, ``reboot``, ``fault KEY=VALUE``).

Faults (:class:`Faults`; counts are consumed as they fire, ``*_at`` positions are one-shot):
``drop_rx`` (ignore the next N frames received), ``drop_commands`` (ignore the next N
shuffle/deal/draw/reset frames, STATUS still answers), ``drop_replies`` (execute but do not send the
next N replies), ``drop_events`` (do not send the next N event transmissions; they are resent),
``corrupt_tx`` (flip a byte in the next N frames sent), ``garbage_tx`` (send random bytes
before the next N frames), ``reply_delay`` (seconds before each reply), ``jam_at`` /
``misread_at`` / ``misreport_at`` / ``empty_at`` (the deck's N-th dealt card jams / is
unreadable / is reported as a card already dealt / finds the stub empty), ``duplicate`` and
``missing`` (the next shuffled deck holds one card twice and lacks another / lacks one card).
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import os
import random
import select
import signal
import sys
import tempfile
import threading
import time
import tty
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path

from controller.engine.cards import FULL_DECK, Card

from . import protocol as P
from .codec import Decoder, Frame, encode

__all__ = ["Faults", "Emulator", "main"]


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
                else:
                    value = int(value)
            setattr(self, key, value)


@dataclass
class _Work:
    cmd_seq: int
    target: P.Target
    count: int
    draw: bool
    delivered: int = 0


class Emulator:
    """The shuffler/dealer machine on a pty: a seeded shuffle, card reports and injected faults.

    Keyword arguments: ``seed`` (the shuffle's random seed), ``faults``, ``link_path`` (the
    stable symlink to create; default a fresh temp dir), ``deal_time`` and ``shuffle_time``
    (seconds a card / a shuffle takes), ``event_retry`` (seconds before unacknowledged events
    are sent again), ``device`` and ``firmware`` (reported in HELLO).
    """

    def __init__(self, *, seed: int = 0, faults: Faults | None = None, link_path: str | None = None,
                 deal_time: float = 0.0, shuffle_time: float = 0.0, event_retry: float = 0.05,
                 device: str = "LT-SHUFFLER-EMU", firmware: str = "emu-1.0") -> None:
        self.faults = faults or Faults()
        self._rng = random.Random(seed)
        self._noise = random.Random(seed ^ 0x5EED)
        self._link = Path(link_path) if link_path else None
        self._tmpdir: str | None = None
        self.deal_time, self.shuffle_time, self.event_retry = deal_time, shuffle_time, event_retry
        self.device, self.firmware = device, firmware
        self._master: int | None = None
        self._slave: int | None = None
        self._slave_name = ""
        self._wake_r, self._wake_w = -1, -1
        self._calls: deque[tuple[Callable[[], object], threading.Event | None]] = deque()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._lock = threading.Lock()
        self._physical: list[tuple[P.Target, Card]] = []
        self._idle = threading.Event()
        self._idle.set()
        self._timers: list[tuple[float, int, Callable[[], None]]] = []
        self._tick = itertools.count()
        self._power_on()
        self.frames_received = 0

    # --- device state -------------------------------------------------------------------

    def _power_on(self) -> None:
        self.boot_id = self._noise.getrandbits(32)
        self._decoder = Decoder()
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
        self._timers = []
        if hasattr(self, "_idle"):
            self._idle.set()

    # --- public control -------------------------------------------------------------------

    @property
    def path(self) -> str:
        """Return the stable device path (the symlink the driver opens)."""
        return str(self._link)

    @property
    def slave_name(self) -> str:
        """Return the current pty slave (``/dev/pts/N``); it changes after :meth:`come_back`."""
        return self._slave_name

    def start(self) -> str:
        """Open the pty, start the device thread and return the device path (a symlink)."""
        if self._link is None:
            self._tmpdir = tempfile.mkdtemp(prefix="lt-shuffler-")
            self._link = Path(self._tmpdir) / "tty"
        self._wake_r, self._wake_w = os.pipe()
        self._open_pty()
        self._thread = threading.Thread(target=self._run, name="shuffler-emulator", daemon=True)
        self._thread.start()
        return self.path

    def stop(self) -> None:
        """Stop the device thread and close the pty (idempotent)."""
        if self._thread is None:
            return
        self._stopping = True
        os.write(self._wake_w, b"x")
        self._thread.join(5)
        self._thread = None
        self._close_pty()
        for fd in (self._wake_r, self._wake_w):
            os.close(fd)
        if self._tmpdir:
            try:
                os.rmdir(self._tmpdir)
            except OSError:
                pass

    def __enter__(self) -> "Emulator":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def set_faults(self, **changes: object) -> None:
        """Change fault settings at run time (see :class:`Faults`); returns once applied."""
        self._call(lambda: self.faults.update(**changes))

    def open_door(self) -> None:
        """Open the machine's door: dealing stops, a DOOR event is sent."""
        self._call(lambda: self._set_door(True))

    def close_door(self) -> None:
        """Close the door again (clears the door fault)."""
        self._call(lambda: self._set_door(False))

    def vanish(self) -> None:
        """Pull the cable: close the pty (the driver's reads fail); the machine keeps working."""
        self._call(self._close_pty)

    def come_back(self) -> None:
        """Plug the cable back: a new pty behind the same symlink."""
        self._call(self._open_pty)

    def reboot(self) -> None:
        """Power-cycle the machine: new boot id, no deck, no session, event numbers restart."""
        self._call(self._power_on)

    def send_raw(self, data: bytes) -> None:
        """Put ``data`` on the line as it is (line noise, hand-made frames); no faults applied."""
        def write() -> None:
            if self._master is not None:
                try:
                    os.write(self._master, data)
                except OSError:
                    pass
        self._call(write)

    def status(self) -> P.DeviceStatus:
        """Return the machine's status as STATUS would report it."""
        return self._call(self._status)  # type: ignore[return-value]

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Wait until no shuffle or deal is in progress; return False on timeout."""
        return self._idle.wait(timeout)

    def physical_log(self) -> list[tuple[P.Target, Card]]:
        """Return every card that physically left the machine, in order, with its real identity."""
        with self._lock:
            return list(self._physical)

    def _call(self, fn: Callable[[], object]) -> object:
        if self._thread is None or threading.current_thread() is self._thread:
            return fn()
        done = threading.Event()
        box: list[object] = []
        self._calls.append((lambda: box.append(fn()), done))
        os.write(self._wake_w, b"x")
        if not done.wait(5):
            raise TimeoutError("shuffler emulator: the device thread did not answer in 5 s")
        return box[0] if box else None

    # --- pty ------------------------------------------------------------------------------

    def _open_pty(self) -> None:
        if self._master is not None:
            return
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self._slave_name = os.ttyname(slave)
        assert self._link is not None
        tmp = self._link.with_name(self._link.name + ".new")
        try:
            tmp.unlink()
        except FileNotFoundError:
            pass
        tmp.symlink_to(self._slave_name)
        os.replace(tmp, self._link)
        self._decoder = Decoder()

    def _close_pty(self) -> None:
        if self._master is None:
            return
        try:
            self._link.unlink()  # type: ignore[union-attr]
        except (FileNotFoundError, AttributeError):
            pass
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None

    # --- the device thread ----------------------------------------------------------------

    def _later(self, delay: float, fn: Callable[[], None]) -> None:
        heapq.heappush(self._timers, (time.monotonic() + delay, next(self._tick), fn))

    def _run(self) -> None:
        while not self._stopping:
            now = time.monotonic()
            timeout = 0.5
            if self._timers:
                timeout = min(timeout, max(0.0, self._timers[0][0] - now))
            if self._unacked and self._master is not None:
                timeout = min(timeout, max(0.0, self._event_tx_at + self.event_retry - now))
            fds = [self._wake_r] + ([self._master] if self._master is not None else [])
            ready, _, _ = select.select(fds, [], [], timeout)
            if self._wake_r in ready:
                os.read(self._wake_r, 512)
                while self._calls:
                    fn, done = self._calls.popleft()
                    try:
                        fn()
                    finally:
                        if done is not None:
                            done.set()
            if self._master is not None and self._master in ready:
                try:
                    data = os.read(self._master, 4096)
                except (BlockingIOError, InterruptedError):
                    data = b""
                except OSError:
                    data = b""
                for frame in self._decoder.feed(data):
                    self._on_frame(frame)
            now = time.monotonic()
            while self._timers and self._timers[0][0] <= now:
                _, _, fn = heapq.heappop(self._timers)
                fn()
            if self._unacked and self._master is not None and now >= self._event_tx_at + self.event_retry:
                self._event_tx_at = now
                for _, raw in list(self._unacked):
                    self._send_event_bytes(raw)

    def _write(self, raw: bytes) -> None:
        if self._master is None:
            return
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
        try:
            os.write(self._master, raw)
        except OSError:
            pass  # nobody listening and the buffer is full: lost on the wire

    def _send_event_bytes(self, raw: bytes) -> None:
        if self.faults.drop_events > 0:
            self.faults.drop_events -= 1
            return
        self._write(raw)

    def _emit(self, typ: P.Evt, build: Callable[[int], bytes]) -> None:
        self._event_no += 1
        raw = encode(Frame(0, typ, build(self._event_no)))
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
            self._emit(typ, lambda n, w=w, und=und: P.pack_stop_event(
                P.StopEvent(n, w.cmd_seq, w.target, deck_no, ordinal, und)))
        self._idle.set()

    def _deal_one(self) -> None:
        self._dealing = False
        if not self._work or self._door or self._fault != P.Fault.NONE or self._stub is None:
            if not self._work:
                self._idle.set()
            return
        f = self.faults
        ordinal = self._dealt + 1
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


def main(argv: list[str]) -> int:
    """Run ``livetable shuffler-emulator``: print the device path, play the machine until killed.

    Returns 0 on SIGINT/SIGTERM (the end of stdin does not stop it), 2 on a bad fault option.
    """
    ap = argparse.ArgumentParser(
        prog="livetable shuffler-emulator", description="Play the card shuffler/dealer on a pty.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="faults: " + ", ".join(f.name for f in fields(Faults)) + "\n"
               "stdin control lines: door open | door close | vanish SECONDS | reboot | fault KEY=VALUE")
    ap.add_argument("--seed", type=int, default=0, help="shuffle seed (default 0)")
    ap.add_argument("--fault", action="append", default=[], metavar="KEY[=VALUE]",
                    help="inject a fault, e.g. jam_at=5, drop_replies=1, duplicate, reply_delay=0.2")
    ap.add_argument("--link", default=None, help="stable symlink to create (default: a temp dir)")
    ap.add_argument("--deal-time", type=float, default=0.2, help="seconds per card (default 0.2)")
    ap.add_argument("--shuffle-time", type=float, default=2.0, help="seconds per shuffle (default 2)")
    args = ap.parse_args(argv)
    try:
        faults = Faults.parse(args.fault)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    emu = Emulator(seed=args.seed, faults=faults, link_path=args.link,
                   deal_time=args.deal_time, shuffle_time=args.shuffle_time)
    path = emu.start()
    print(path, flush=True)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    threading.Thread(target=_control, args=(emu, stop), daemon=True).start()
    stop.wait()
    emu.stop()
    return 0


def _control(emu: Emulator, stop: threading.Event) -> None:
    """Read control lines from stdin (``door open``, ``vanish 2``, ``reboot``, ``fault k=v``)."""
    for line in sys.stdin:
        words = line.split()
        try:
            if words[:2] == ["door", "open"]:
                emu.open_door()
            elif words[:2] == ["door", "close"]:
                emu.close_door()
            elif words[:1] == ["vanish"]:
                emu.vanish()
                stop.wait(float(words[1]) if len(words) > 1 else 2.0)
                emu.come_back()
            elif words[:1] == ["reboot"]:
                emu.reboot()
            elif words[:1] == ["fault"]:
                for item in words[1:]:
                    key, _, value = item.partition("=")
                    emu.set_faults(**{key: value or "1"})
            elif words:
                print(f"unknown control line: {line.strip()!r}", file=sys.stderr)
        except (ValueError, IndexError) as exc:
            print(f"bad control line {line.strip()!r}: {exc}", file=sys.stderr)
        print(f"status: {emu.status()}", file=sys.stderr, flush=True)
