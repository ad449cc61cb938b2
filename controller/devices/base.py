"""What every device adapter shares: the orchestrator it serves and the event's description."""

from __future__ import annotations

from typing import Any, Callable

from controller.orchestrator import Orchestrator

__all__ = ["DeviceAdapter", "describe"]


class DeviceAdapter:
    """Base of the per-device adapters: ``translate(event) -> list`` of table events and
    fault operations for one device's driver events (loop thread only).

    Args:
        orch: the orchestrator; ``ports``: its :class:`~controller.devices.ports.DevicePorts`;
        clock: the injected clock (Unix seconds).
    """

    def __init__(self, orch: Orchestrator, ports: Any, *, clock: Callable[[], float]) -> None:
        self.orch, self.ports, self.clock = orch, ports, clock

    def translate(self, e: Any) -> list[Any]:  # pragma: no cover - each device says
        """Return what driver event ``e`` means for the table."""
        raise NotImplementedError


def describe(e: Any) -> str:
    """Return ``e``'s fields as ``k=v, ...`` (for fault messages and logs)."""
    fields = getattr(e, "__dataclass_fields__", {})
    parts = [f"{k}={getattr(e, k)}" for k in fields if k not in ("at",)]
    return ", ".join(parts) or type(e).__name__
