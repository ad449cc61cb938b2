"""The simulated overhead camera: frames drawn of the dealt board (simulation only, issue 9).

Plugged in where ``cv2.VideoCapture`` would be (the :class:`vision.camera.Camera`'s
``capture_factory``), so the real camera thread, recognizer and board check read it.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Any, Callable

from controller.engine.cards import FULL_DECK

__all__ = ["SimulatedCamera"]


class SimulatedCamera:
    """The overhead camera of ``livetable simulate``: frames drawn of the board on the felt.

    ``board()`` returns the cards lying on the board (what the shuffler dealt there); each
    frame is :func:`vision.render.render_board` of them (1280x720), at most one every
    ``period`` seconds, read by the real :class:`vision.camera.Camera` and recognizer.

    Memory (issue 21: a cache of up to 65 rendered boards, 2.7 MB each, held some 180 MB):
    only the frame of the board on the felt now is kept (a board lies still for many
    frames: it is drawn once, when it changes) and the faces of the last
    :attr:`FACES_KEPT` cards drawn (0.1-0.4 MB each); nothing else outlives a frame.

    Faults for tests and demonstrations (any thread):

    - :meth:`unplug` / :meth:`plug`: the camera stops giving frames (``camera-lost``) / is back;
    - :meth:`swap` ``(dealt, seen)``: the felt shows ``seen`` where ``dealt`` lies (a card
      that is not the one the shuffler reported: ``board-mismatch``);
    - :meth:`hide` ``(card)``: that card is not visible (face down, covered: after the board
      check's timeout, ``card-unreadable``); :meth:`clear_faults` undoes swaps and hides.
    """

    SIZE = (1280, 720)
    #: Card faces kept for the next frames: a board's (drawn again when a fault changes what
    #: the camera sees; the next board's cards are drawn at their own size).
    FACES_KEPT = 5

    def __init__(self, board: Callable[[], list[str]], period: float = 0.05) -> None:
        self.board, self.period = board, period
        self._lock = threading.Lock()
        self._drawing = threading.Lock()
        self._plugged = threading.Event()
        self._plugged.set()
        self._swaps: dict[str, str] = {}
        self._hidden: set[str] = set()
        self._last: tuple[tuple[str, ...], Any] | None = None  # (cards, frame): the board on the felt now
        self._faces: OrderedDict[tuple[str, int], Any] = OrderedDict()  # (card, width) -> face, oldest first
        self.frames = 0
        self.renders = 0

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
        with self._drawing:  # one frame drawn at a time, whichever thread asks
            last = self._last
            if last is not None and last[0] == cards:
                img = last[1]
            else:
                from vision.render import render_board

                self._last = None  # the old frame goes before the new one is drawn
                img = render_board(cards, size=self.SIZE, background="green", face=self._face)
                self._last = (cards, img)
                self.renders += 1
            self.frames += 1
        return img

    def _face(self, card: Any, width: int) -> Any:
        """A card's face ``width`` pixels wide (:func:`vision.render.render_card`), from the
        :attr:`FACES_KEPT` last drawn."""
        key = (str(card), int(width))
        img = self._faces.get(key)
        if img is None:
            from vision.render import render_card

            img = self._faces[key] = render_card(card, width)
            while len(self._faces) > self.FACES_KEPT:
                self._faces.popitem(last=False)
        else:
            self._faces.move_to_end(key)
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
