"""The table's ports on the devices: what the orchestrator's effects reach (issue 9)."""

from __future__ import annotations

from collections import deque
from typing import Any, Callable

from controller.devices.history import HistoryWriter
from controller.orchestrator import Ports

__all__ = ["DevicePorts"]


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
