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
``missing`` (the next shuffled deck holds one card twice and lacks another / lacks one card),
``vanish_at`` / ``vanish_for`` (the cable falls out as the deck's N-th card is dealt and is
plugged back ``vanish_for`` seconds later).
"""

from __future__ import annotations

import argparse
import atexit
import os
import select
import signal
import sys
import tempfile
import threading
import time
import tty
from collections import deque
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path

from controller.engine.cards import Card

from . import protocol as P
from .codec import Decoder
from .device import Faults, Machine

__all__ = ["Faults", "Emulator", "main"]


class Emulator:
    """The shuffler/dealer :class:`Machine` on a pty, run by its own thread.

    Keyword arguments: ``seed`` (the shuffle's random seed), ``faults``, ``link_path`` (the
    stable symlink to create; default a fresh temp dir), ``deal_time`` and ``shuffle_time``
    (seconds a card / a shuffle takes), ``event_retry`` (seconds before unacknowledged events
    are sent again), ``device`` and ``firmware`` (reported in HELLO). ``machine`` is the
    device itself; ``faults`` its fault settings (change them with :meth:`set_faults`).
    """

    def __init__(self, *, seed: int = 0, faults: Faults | None = None, link_path: str | None = None,
                 deal_time: float = 0.0, shuffle_time: float = 0.0, event_retry: float = 0.05,
                 device: str = "LT-SHUFFLER-EMU", firmware: str = "emu-1.0") -> None:
        self.machine = Machine(seed=seed, faults=faults, deal_time=deal_time, shuffle_time=shuffle_time,
                               event_retry=event_retry, device=device, firmware=firmware)
        self.faults = self.machine.faults
        self.machine.on_vanish = self._vanish_for
        self.device, self.firmware = device, firmware
        self._link = Path(link_path) if link_path else None
        self._tmpdir: str | None = None
        self._master: int | None = None
        self._slave: int | None = None
        self._slave_name = ""
        self._decoder = Decoder()
        self._wake_r, self._wake_w = -1, -1
        self._calls: deque[tuple[Callable[[], None], threading.Event]] = deque()
        self._thread: threading.Thread | None = None
        self._stopping = False

    # --- public control -------------------------------------------------------------------

    @property
    def path(self) -> str:
        """Return the stable device path (the symlink the driver opens)."""
        return str(self._link)

    @property
    def slave_name(self) -> str:
        """Return the current pty slave (``/dev/pts/N``); it changes after :meth:`come_back`."""
        return self._slave_name

    @property
    def boot_id(self) -> int:
        """Return the machine's boot id (new after :meth:`reboot`)."""
        return self.machine.boot_id

    @property
    def frames_received(self) -> int:
        """Return how many frames reached the machine."""
        return self.machine.frames_received

    def start(self) -> str:
        """Open the pty, start the device thread and return the device path (a symlink)."""
        if self._link is None:
            self._tmpdir = tempfile.mkdtemp(prefix="lt-shuffler-")
            self._link = Path(self._tmpdir) / "tty"
        self._wake_r, self._wake_w = os.pipe()
        self._open_pty()
        atexit.register(self._remove_files)  # a process that never calls stop() leaves no link
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
        self._remove_files()
        atexit.unregister(self._remove_files)

    def _remove_files(self) -> None:
        for path in (self._link, self._link.with_name(self._link.name + ".new") if self._link else None):
            try:
                if path is not None and path.is_symlink():
                    path.unlink()
            except OSError:
                pass
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
        """Change fault settings at run time (see :class:`Faults`); returns once applied.

        Raises:
            ValueError: an unknown fault name or a bad value.
        """
        self._call(lambda: self.faults.update(**changes))

    def open_door(self) -> None:
        """Open the machine's door: dealing stops, a DOOR event is sent."""
        self._call(lambda: self.machine.set_door(True))

    def close_door(self) -> None:
        """Close the door again (clears the door fault)."""
        self._call(lambda: self.machine.set_door(False))

    def vanish(self) -> None:
        """Pull the cable: close the pty (the driver's reads fail); the machine keeps working."""
        self._call(self._close_pty)

    def come_back(self) -> None:
        """Plug the cable back: a new pty behind the same symlink."""
        self._call(self._open_pty)

    def reboot(self) -> None:
        """Power-cycle the machine: new boot id, no deck, no session, event numbers restart."""
        self._call(self.machine.power_on)

    def send_raw(self, data: bytes) -> None:
        """Put ``data`` on the line as it is (line noise, hand-made frames); no faults applied."""
        self._call(lambda: self._line_write(data))

    def status(self) -> P.DeviceStatus:
        """Return the machine's status as STATUS would report it."""
        box: list[P.DeviceStatus] = []
        self._call(lambda: box.append(self.machine.status()))
        return box[0]

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Wait until no shuffle or deal is in progress; return False on timeout."""
        return self.machine.wait_idle(timeout)

    def physical_log(self) -> list[tuple[P.Target, Card]]:
        """Return every card that physically left the machine, in order, with its real identity."""
        return self.machine.physical_log()

    def _call(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the device thread (or here when it is not running); wait for it."""
        if self._thread is None or threading.current_thread() is self._thread:
            fn()
            return
        done = threading.Event()
        error: list[BaseException] = []

        def run() -> None:
            try:
                fn()
            except BaseException as exc:  # noqa: BLE001 - handed back to the caller
                error.append(exc)

        self._calls.append((run, done))
        os.write(self._wake_w, b"x")
        if not done.wait(5):
            raise TimeoutError("shuffler emulator: the device thread did not answer in 5 s")
        if error:
            raise error[0]

    # --- pty ------------------------------------------------------------------------------

    def _vanish_for(self, seconds: float) -> None:
        """On the device thread: pull the cable now, plug it back after ``seconds``."""
        self._close_pty()
        self.machine._later(seconds, self._open_pty)

    def _line_write(self, raw: bytes) -> None:
        if self._master is None:
            return
        try:
            os.write(self._master, raw)
        except OSError:
            pass  # nobody listening and the buffer is full: lost on the wire

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
        self.machine.line = self._line_write

    def _close_pty(self) -> None:
        if self._master is None:
            return
        self.machine.line = None
        try:
            self._link.unlink()  # type: ignore[union-attr]
        except (FileNotFoundError, AttributeError):
            pass
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None

    # --- the device thread ----------------------------------------------------------------

    def _run(self) -> None:
        machine = self.machine
        while not self._stopping:
            deadline = machine.next_deadline()
            timeout = 0.5 if deadline is None else min(0.5, max(0.0, deadline - time.monotonic()))
            fds = [self._wake_r] + ([self._master] if self._master is not None else [])
            ready, _, _ = select.select(fds, [], [], timeout)
            if self._wake_r in ready:
                os.read(self._wake_r, 512)
                while self._calls:
                    fn, done = self._calls.popleft()
                    fn()
                    done.set()
            if self._master is not None and self._master in ready:
                try:
                    data = os.read(self._master, 4096)
                except OSError:
                    data = b""
                for frame in self._decoder.feed(data):
                    machine.on_frame(frame)
            machine.run_due(time.monotonic())


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
