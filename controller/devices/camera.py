"""The camera's adapter: board readings in, board checks against the shuffler (issue 9).

The board check (:class:`vision.boardcheck.BoardCheck`) compares what the camera reads with
the board cards the shuffler dealt: a card read differently -> ``board-mismatch``; a dealt
card unread in time -> ``card-unreadable`` (resumed by the system once the camera reads it);
the camera lost -> ``camera-lost`` (resumed when frames come again).
"""

from __future__ import annotations

from typing import Any, Callable

from controller.devices.base import DeviceAdapter, describe
from controller.faults import FaultKind
from controller.orchestrator import DeviceBack, FloorDecision, Orchestrator, RaiseFault

__all__ = ["CameraAdapter"]


class CameraAdapter(DeviceAdapter):
    """Translate the camera's events (``vision``); hold the board check.

    Attributes: ``camera`` (the :class:`vision.camera.Camera`, or None), ``boardcheck``,
    ``sim_camera`` (simulation: the :class:`controller.simcamera.SimulatedCamera` it reads),
    ``board_checks`` (boards read as dealt), ``boards`` / ``boards_matched`` (hands that ended
    with a board / of those, the final board read as dealt).
    """

    def __init__(self, orch: Orchestrator, ports: Any, *, clock: Callable[[], float]) -> None:
        super().__init__(orch, ports, clock=clock)
        self.camera: Any = None
        self.boardcheck: Any = None
        self.sim_camera: Any = None
        self.board_checks = 0
        self.boards = 0
        self.boards_matched = 0
        self.dealt_board: list[str] = []

    def translate(self, e: Any) -> list[Any]:
        """Return what camera event ``e`` means for the table (see the module docstring)."""
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
                out.append(RaiseFault(FaultKind.BOARD_MISMATCH.value, describe(r)))
            elif kind == "BoardUnreadable":
                out.append(RaiseFault(FaultKind.CARD_UNREADABLE.value,
                                      f"dealer: please straighten the board card(s): {describe(r)}"))
            elif kind == "BoardMatch":
                self.board_checks += 1
                if any(f.kind is FaultKind.CARD_UNREADABLE for f in self.orch.faults.open):
                    out.append(FloorDecision(FaultKind.CARD_UNREADABLE.value, "resume", "system: camera read it"))
        return out

    def board_dealt(self, card: str) -> None:
        """A board card left the shuffler: the camera must read it."""
        self.dealt_board.append(card)
        if self.boardcheck is not None:
            self.boardcheck.dealt(list(self.dealt_board))

    @property
    def board_settled(self) -> bool:
        """Return True unless the camera is still to read the board dealt (the next hand
        waits, as a dealer waits for the board check before collecting the cards)."""
        return self.boardcheck is None or self.boardcheck.state != "waiting"

    def collect(self) -> None:
        """The dealer collects the last hand's cards (a new deck is asked for): count the
        board and start the board check afresh."""
        if self.boardcheck is not None:
            if self.dealt_board:
                self.boards += 1
                self.boards_matched += self.boardcheck.state == "matched"
            self.boardcheck.reset()
        self.dealt_board = []

    def tick(self, now: float) -> None:
        """Poll the board check's unreadable timeout (loop thread, not while paused)."""
        if self.boardcheck is not None and not self.orch.faults.paused:
            for item in self._board_events(self.boardcheck.poll()):
                self.orch.post(item)
