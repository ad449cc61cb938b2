"""The overhead camera reader: cv2.VideoCapture in its own thread, posting events (issue 6).

:class:`Camera` opens a source (a device index, a video file, an image sequence such as
``frames/%04d.png``, or a network stream URL), reads frames, runs the recognizer on the
board region and posts a :class:`vision.events.BoardRead` per frame through ``post``. When
the source fails (cannot open, no frame, end of file) it posts :class:`CameraLost` once,
waits ``reopen_backoff`` seconds (doubling up to ``max_backoff``) and reopens; the first good
frame after that posts :class:`CameraBack`. A frame that cannot be read (wrong size for
the calibration, not an image) posts :class:`FrameRejected` and never a card.

A frame whose thumbnail matches the last read frame (nothing moved on the felt) reuses
that frame's readings instead of reading again (``reuse_static``), so a Pi keeps up.

The thread only posts events; the controller loop acts on them (DESIGN.md: foreign threads
only post).
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable

import cv2
import numpy as np

from vision.calibration import BoardRegion
from vision.events import BoardRead, CameraBack, CameraLost, CardSeen, FrameRejected
from vision.recognizer import FrameError, Recognizer

__all__ = ["Camera", "open_source"]

log = logging.getLogger(__name__)


def open_source(source: int | str) -> Any:
    """Return a ``cv2.VideoCapture`` for ``source`` (int or digit string = device index)."""
    if isinstance(source, str) and source.isdigit():
        source = int(source)
    return cv2.VideoCapture(source)


class Camera:
    """Read a camera in a thread and post readings.

    Args:
        source: device index, video file, image-sequence pattern or stream URL.
        post: called from the camera thread with each event (must be thread-safe, e.g.
            a queue's ``put``).
        clock: returns seconds (float), stamped on every event.
        recognizer: the :class:`Recognizer` (a default one if None).
        region: the calibrated :class:`BoardRegion`, or None for the whole frame.
        reopen_backoff / max_backoff: seconds to wait before reopening after a failure.
        every: read one frame in ``every`` (others are grabbed and dropped).
        capture_factory: builds the capture from ``source`` (``open_source`` by default).
    """

    def __init__(self, source: int | str, post: Callable[[object], None], clock: Callable[[], float],
                 recognizer: Recognizer | None = None, region: BoardRegion | None = None,
                 reopen_backoff: float = 0.5, max_backoff: float = 5.0, every: int = 1,
                 capture_factory: Callable[[int | str], Any] = open_source,
                 reuse_static: bool = True) -> None:
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
        self._last_thumb: np.ndarray | None = None
        self._last_cards: tuple[CardSeen, ...] = ()
        self.reused = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.frames = 0

    def start(self) -> "Camera":
        """Start the reader thread; return self."""
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        """Ask the thread to stop and wait up to ``timeout`` seconds for it."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        """True while the reader thread is alive."""
        return self._thread is not None and self._thread.is_alive()

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

    def _run(self) -> None:
        backoff = self.reopen_backoff
        lost = False
        cap = None
        n = 0
        while not self._stop.is_set():
            if cap is None:
                try:
                    cap = self.capture_factory(self.source)
                    ok = cap is not None and cap.isOpened()
                except Exception as e:  # a driver that throws is a lost camera, not a crash
                    ok, reason = False, f"cannot open: {e}"
                else:
                    reason = "cannot open"
                if not ok:
                    cap = self._release(cap)
                    if not lost:
                        self.post(CameraLost(self.clock(), str(self.source), reason))
                        lost = True
                    self._stop.wait(backoff)
                    backoff = min(backoff * 2, self.max_backoff)
                    continue
            try:
                ok, frame = cap.read()
            except Exception:  # noqa: BLE001 - a broken stream is a lost camera
                ok, frame = False, None
            if not ok or frame is None:
                cap = self._release(cap)
                if not lost:
                    self.post(CameraLost(self.clock(), str(self.source), "no frame"))
                    lost = True
                self._stop.wait(backoff)
                backoff = min(backoff * 2, self.max_backoff)
                continue
            if lost:
                self.post(CameraBack(self.clock(), str(self.source)))
                lost = False
            backoff = self.reopen_backoff
            n += 1
            if n % self.every:
                continue
            for ev in self.read_frame(frame):
                self.post(ev)
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
