"""Socket tuning shared by the controller's link and the tablet simulator."""

from __future__ import annotations

import socket
from typing import Any


def set_nodelay(client: Any, userdata: Any, sock: Any) -> None:
    """paho ``on_socket_open`` callback: turn Nagle's algorithm off on the new socket.

    paho does not set TCP_NODELAY; a state message followed at once by the private view and
    the reply then waits for the peer's delayed ACK (~40 ms on Linux), four times the issue's
    10 ms goal. For MQTT over WebSockets paho hands over its wrapper, whose TCP socket is
    ``_socket``. Errors (a socket type without TCP) are ignored: it is only a speed-up.
    """
    raw = getattr(sock, "_socket", sock)
    try:
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except (OSError, AttributeError):
        pass
