"""The overhead camera reader: cv2.VideoCapture in its own thread, posting events (issue 6).

:class:`Camera` opens a source (a device index, a video file, an image sequence such as
``frames/%04d.png``, or a network stream URL), reads frames, runs the recognizer on the
board region and posts a :class:`vision.events.BoardRead` per frame through ``post``. When
the source fails (cannot open, no frame, end of file) it posts :class:`CameraLost` once,
waits ``reopen_backoff`` seconds (doubling up to ``max_backoff``) and reopens; the first good
frame after that posts :class:`CameraBack`. A frame that cannot be read (wrong size for
the calibration, not an image) posts :class:`FrameRejected` and never a card.

A capture whose ``read()`` (or opening) never returns (a stalled network stream, a USB
camera that stops answering) cannot be interrupted; a watchdog thread notices it on the
injected clock: when one read has been waiting longer than ``stall_timeout`` seconds it
posts :class:`CameraLost` and starts a new reader on a fresh capture (the stuck one is
abandoned: whatever it returns later is dropped). A ``post`` that raises (a full queue, a
closed loop) is logged and the reader goes on.

A frame whose thumbnail matches the last read frame (nothing moved on the felt) reuses
that frame's readings instead of reading again (``reuse_static``), so a Pi keeps up.

The thread only posts events; the controller loop acts on them (DESIGN.md: foreign threads
only post).
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable

import cv2
import numpy as np

from vision.calibration import BoardRegion
from vision.events import BoardRead, CameraBack, CameraLost, CardSeen, FrameRejected
from vision.recognizer import FrameError, Recognizer

__all__ = ["Camera", "StillImage", "open_source"]

log = logging.getLogger(__name__)


#: the file endings taken for one still photo (not a video) when ``source`` names a file
STILL_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")


def open_source(source: int | str, *, still_period: float = 0.1) -> Any:
    """Return a capture for ``source``: a ``cv2.VideoCapture`` (int or digit string = device
    index; a video file, an image-sequence pattern such as ``f%04d.png``, a stream URL), or
    for one still photo (an existing file ending in :data:`STILL_SUFFIXES`, no ``%``) a
    :class:`StillImage` that gives that photo again every ``still_period`` seconds: a fixed
    scene, not a source that ends after one frame (which would make the table report the
    camera lost and back twice a second)."""
    if isinstance(source, str) and source.isdigit():
        source = int(source)
    if isinstance(source, str) and "%" not in source and source.lower().endswith(STILL_SUFFIXES):
        frame = cv2.imread(source, cv2.IMREAD_COLOR)
        if frame is not None:
            return StillImage(frame, still_period)
    return cv2.VideoCapture(source)


class StillImage:
    """A capture (the ``cv2.VideoCapture`` calls :class:`Camera` makes) that gives one photo,
    a BGR ``(H, W, 3)`` uint8 array, every ``period`` seconds for as long as it is read."""

    def __init__(self, frame: np.ndarray, period: float = 0.1) -> None:
        self.frame, self.period = frame, period
        self._first = True

    def isOpened(self) -> bool:  # noqa: N802 - cv2's name
        """Always True: the photo was read when the capture was made."""
        return True

    def read(self) -> tuple[bool, np.ndarray]:
        """Return ``(True, a copy of the photo)``; waits ``period`` s before all but the first."""
        if not self._first:
            time.sleep(self.period)  # a camera's frame rate: the reader thread must not spin
        self._first = False
        return True, self.frame.copy()

    def release(self) -> None:
        """Nothing to free."""


class Camera:
    """Read a camera in a thread and post readings.

    Args:
        source: device index, video file, image-sequence pattern or stream URL.
        post: called from the camera thread with each event (must be thread-safe, e.g.
            a queue's ``put``). If it raises, the error is logged and the event dropped;
            the camera keeps reading.
        clock: returns seconds (float), stamped on every event and timing the watchdog.
        recognizer: the :class:`Recognizer` (a default one if None).
        region: the calibrated :class:`BoardRegion`, or None for the whole frame.
        reopen_backoff / max_backoff: seconds to wait before reopening after a failure.
        every: read one frame in ``every`` (others are grabbed and dropped).
        capture_factory: builds the capture from ``source`` (``open_source`` by default).
        stall_timeout: seconds (on ``clock``) one ``read()`` or opening may take before the
            capture counts as lost (``CameraLost``, reason ``"stalled..."``) and a new one is
            opened; None turns the watchdog off.
        watch_every: real seconds between the watchdog's checks (None: no watchdog thread;
            call :meth:`check_stall` yourself). A read counts as stalled only when an
            earlier check already saw it waiting, so a clock that jumps ahead (simulations,
            tests) does not fake a stall.
        max_stuck: abandoned stuck readers kept at most; while that many are still stuck
            no new reader is started (each holds a thread), and the camera stays lost.
    """

    def __init__(self, source: int | str, post: Callable[[object], None], clock: Callable[[], float],
                 recognizer: Recognizer | None = None, region: BoardRegion | None = None,
                 reopen_backoff: float = 0.5, max_backoff: float = 5.0, every: int = 1,
                 capture_factory: Callable[[int | str], Any] = open_source,
                 reuse_static: bool = True, stall_timeout: float | None = 5.0,
                 watch_every: float | None = 0.5, max_stuck: int = 3) -> None:
        self.source = source
        self.post = post
        self.clock = clock
        self.recognizer = recognizer or Recognizer()
        self.region = region
        self.reopen_backoff = reopen_backoff
        self.max_backoff = max_backoff
        self.every = max(1, int(every))
        self.capture_factory = capture_factory
        self.reuse_static = reuse_static
        self.stall_timeout = stall_timeout
        self.watch_every = watch_every
        self.max_stuck = max(0, int(max_stuck))
        self._last_thumb: np.ndarray | None = None
        self._last_cards: tuple[CardSeen, ...] = ()
        self.reused = 0
        self._stop = threading.Event()
        self._lock = threading.RLock()
        self._thread: threading.Thread | None = None
        self._watchdog: threading.Thread | None = None
        self._gen = 0  # the reader generation that owns the camera; older ones were abandoned
        self._lost = False
        self._waiting: tuple[int, int, float] | None = None  # (gen, call no, clock) of a read/open
        self._calls = 0
        self._seen_waiting: tuple[int, int] | None = None  # the wait the last check saw
        self._stuck: list[threading.Thread] = []
        self._need_reader = False
        self.stalls = 0
        self.post_errors = 0
        self.frames = 0

    def start(self) -> "Camera":
        """Start the reader thread (and the watchdog); return self."""
        with self._lock:
            self._stop.clear()
            if self._thread is None or not self._thread.is_alive():
                self._start_reader()
            if self.stall_timeout is not None and self.watch_every is not None and \
                    (self._watchdog is None or not self._watchdog.is_alive()):
                self._watchdog = threading.Thread(target=self._watch, name="camera-watchdog", daemon=True)
                self._watchdog.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        """Ask the threads to stop and wait up to ``timeout`` seconds for each (a reader stuck
        in a capture that never returns is left behind: it is a daemon thread)."""
        self._stop.set()
        with self._lock:
            threads = (self._thread, self._watchdog)
        for t in threads:
            if t is not None and t is not threading.current_thread() and t.ident is not None:
                t.join(timeout)

    @property
    def running(self) -> bool:
        """True while the current reader thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def check_stall(self) -> bool:
        """The watchdog's check; return True when it declared the capture stalled.

        A read (or an opening) stalls when it has been waiting more than ``stall_timeout``
        seconds on ``clock`` and an earlier check already saw the same wait. Then
        :class:`CameraLost` is posted (once per loss), the stuck reader is abandoned and a
        new reader opens a fresh capture (unless ``max_stuck`` readers are still stuck).
        """
        if self.stall_timeout is None or self._stop.is_set():
            return False
        with self._lock:
            self._stuck = [t for t in self._stuck if t.is_alive()]
            if self._need_reader:  # too many readers were stuck: start one when one came free
                if len(self._stuck) < max(1, self.max_stuck):
                    self._need_reader = False
                    log.warning("vision: camera %s: a stuck reader ended, opening the camera again", self.source)
                    self._start_reader()
                return False
            w = self._waiting
            if w is None or w[0] != self._gen:
                self._seen_waiting = None
                return False
            seen_before = self._seen_waiting == (w[0], w[1])
            self._seen_waiting = (w[0], w[1])
            waited = self.clock() - w[2]
            if not seen_before or waited <= self.stall_timeout:
                return False
            self.stalls += 1
            if self._thread is not None:
                self._stuck.append(self._thread)
            self._thread = None
            self._gen += 1  # the stuck reader no longer owns the camera
            self._waiting = self._seen_waiting = None
            gen, room = self._gen, len(self._stuck) < max(1, self.max_stuck)
        log.error("vision: camera %s gave no frame for %.1f s: the capture stopped answering%s", self.source,
                  waited, ", opening it again" if room else f"; {len(self._stuck)} readers stuck, waiting for one")
        self._lose(gen, f"stalled: no frame for {waited:.1f} s")
        with self._lock:
            if gen == self._gen and not self._stop.is_set():
                if room:
                    self._start_reader()
                else:
                    self._need_reader = True
        return True

    def read_frame(self, frame: object) -> list[object]:
        """Turn one frame into the events it gives (used by the thread and by tests).

        Returns ``[BoardRead]`` or ``[FrameRejected]``; never raises on a bad frame.
        """
        now = self.clock()
        try:
            if self.region is not None:
                self.region.check_frame(frame)
            quad = self.region.quad if self.region is not None else None
            thumb = _thumb(frame) if self.reuse_static else None
            if thumb is not None and self._last_thumb is not None and _same(thumb, self._last_thumb):
                cards = self._last_cards  # nothing moved: the readings stand
                self.reused += 1
            else:
                reads = self.recognizer.recognize(frame, region=quad)  # type: ignore[arg-type]
                cards = tuple(CardSeen(r.card, r.confidence, r.outline) for r in reads)
                self._last_thumb, self._last_cards = thumb, cards
        except (FrameError, ValueError, cv2.error) as e:
            self._last_thumb = None
            return [FrameRejected(now, str(e))]
        except Exception as e:  # noqa: BLE001 - a recognizer bug must not kill the camera thread
            log.exception("vision: recognizer failed on a frame")
            self._last_thumb = None
            return [FrameRejected(now, f"recognizer error: {type(e).__name__}: {e}")]
        self.frames += 1
        return [BoardRead(now, cards, self.frames)]

    # -- the threads ------------------------------------------------------------------------

    def _start_reader(self) -> None:
        gen = self._gen
        t = threading.Thread(target=self._reader, args=(gen,), name=f"camera-{gen}", daemon=True)
        t.start()  # started before it is published: stop() may join it from another thread
        self._thread = t

    def _current(self, gen: int) -> bool:
        return gen == self._gen and not self._stop.is_set()

    def _watch(self) -> None:
        assert self.watch_every is not None
        while not self._stop.wait(self.watch_every):
            try:
                self.check_stall()
            except Exception:  # noqa: BLE001 - the watchdog must outlive a bad clock or post
                log.exception("vision: camera watchdog check failed")

    def _post(self, ev: object, gen: int | None = None) -> bool:
        """Post ``ev`` unless reader ``gen`` was abandoned; never raises. True if delivered."""
        if gen is not None and not self._current(gen):
            return False
        try:
            self.post(ev)
        except Exception:  # noqa: BLE001 - a full queue or a closed loop must not kill the reader
            self.post_errors += 1
            if self.post_errors == 1 or self.post_errors % 100 == 0:
                log.exception("vision: camera %s could not post %s (%d failed so far); reading on",
                              self.source, type(ev).__name__, self.post_errors)
            return False
        return True

    def _lose(self, gen: int, reason: str) -> None:
        with self._lock:
            if gen != self._gen or self._lost:
                return
            self._lost = True
        if not self._post(CameraLost(self.clock(), str(self.source), reason), gen):
            with self._lock:  # not delivered: the next failure tells the table again
                if gen == self._gen:
                    self._lost = False

    def _found(self, gen: int) -> None:
        with self._lock:
            if gen != self._gen or not self._lost:
                return
            self._lost = False
        if not self._post(CameraBack(self.clock(), str(self.source)), gen):
            with self._lock:
                if gen == self._gen:
                    self._lost = True

    def _wait_on(self, gen: int, call: Callable[[], Any]) -> Any:
        """Run a capture call that may never return, timed by the watchdog."""
        with self._lock:
            self._calls += 1
            self._waiting = (gen, self._calls, self.clock())
        try:
            return call()
        finally:
            with self._lock:
                if self._waiting is not None and self._waiting[0] == gen:
                    self._waiting = None

    def _reader(self, gen: int) -> None:
        backoff = self.reopen_backoff
        while self._current(gen):
            try:
                self._run(gen)
            except Exception:  # noqa: BLE001 - a bug here must not end the camera silently
                log.exception("vision: camera %s reader failed; starting again", self.source)
                self._stop.wait(backoff)
                backoff = min(backoff * 2, self.max_backoff)

    def _run(self, gen: int) -> None:
        backoff = self.reopen_backoff
        cap = None
        n = 0
        try:
            while self._current(gen):
                if cap is None:
                    try:
                        cap = self._wait_on(gen, lambda: self.capture_factory(self.source))
                        ok = cap is not None and bool(self._wait_on(gen, cap.isOpened))
                    except Exception as e:  # a driver that throws is a lost camera, not a crash
                        ok, reason = False, f"cannot open: {e}"
                    else:
                        reason = "cannot open"
                    if not self._current(gen):
                        break  # abandoned while opening
                    if not ok:
                        cap = self._release(cap)
                        self._lose(gen, reason)
                        self._stop.wait(backoff)
                        backoff = min(backoff * 2, self.max_backoff)
                        continue
                try:
                    ok, frame = self._wait_on(gen, cap.read)  # type: ignore[union-attr]  # opened above
                except Exception:  # noqa: BLE001 - a broken stream is a lost camera
                    ok, frame = False, None
                if not self._current(gen):
                    break  # abandoned while stuck in read(): the frame is stale, drop it
                if not ok or frame is None:
                    cap = self._release(cap)
                    self._lose(gen, "no frame")
                    self._stop.wait(backoff)
                    backoff = min(backoff * 2, self.max_backoff)
                    continue
                self._found(gen)
                backoff = self.reopen_backoff
                n += 1
                if n % self.every:
                    continue
                for ev in self.read_frame(frame):
                    self._post(ev, gen)
        finally:
            self._release(cap)

    @staticmethod
    def _release(cap: Any) -> None:
        try:
            if cap is not None:
                cap.release()
        except Exception:  # noqa: BLE001
            pass
        return None




def _thumb(frame: object) -> np.ndarray | None:
    """A 160x90 grey thumbnail of a frame (None if it is not an image)."""
    if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim not in (2, 3) or frame.size == 0:
        return None
    grey = frame if frame.ndim == 2 else cv2.cvtColor(frame[:, :, :3], cv2.COLOR_BGR2GRAY)
    return cv2.resize(grey, (160, 90), interpolation=cv2.INTER_AREA).astype(np.int16)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """True when two thumbnails show the same still scene (sensor noise only)."""
    if a.shape != b.shape:
        return False
    d = np.abs(a - b)
    return float(d.mean()) < 1.5 and int(d.max()) < 20
