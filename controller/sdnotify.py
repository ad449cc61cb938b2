"""systemd's notify protocol: READY=1, WATCHDOG=1, STATUS= (issue 9).

The protocol is one datagram to the socket named in ``$NOTIFY_SOCKET``; a few lines of the
standard library do it, so the Pi needs neither libsystemd headers nor a compiled package.
Outside systemd (no ``$NOTIFY_SOCKET``) every call is a no-op that returns False.
"""

from __future__ import annotations

import os
import socket

__all__ = ["notify", "watchdog_interval"]


def notify(message: str, *, env: dict[str, str] | None = None) -> bool:
    """Send ``message`` (e.g. ``"READY=1"``, ``"WATCHDOG=1"``) to systemd; return True if sent.

    Errors sending (the socket gone) are swallowed: the table must not stop because systemd
    cannot be told something; the watchdog will notice.
    """
    addr = (env if env is not None else os.environ).get("NOTIFY_SOCKET")
    if not addr:
        return False
    if addr.startswith("@"):
        addr = "\0" + addr[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(addr)
            sock.sendall(message.encode())
        return True
    except OSError:
        return False


def watchdog_interval(env: dict[str, str] | None = None) -> float | None:
    """Return how often to send ``WATCHDOG=1`` (half of ``$WATCHDOG_USEC``), or None if off."""
    e = env if env is not None else os.environ
    usec = e.get("WATCHDOG_USEC")
    if not usec or not usec.isdigit():
        return None
    pid = e.get("WATCHDOG_PID")
    if pid and pid.isdigit() and int(pid) != os.getpid():
        return None
    return int(usec) / 2e6
