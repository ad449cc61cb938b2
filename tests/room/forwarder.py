"""A TCP forwarder between a table's bridge and the room broker that a test cuts and heals.

It stands for the network link (issue 17, 3): the bridge connects to :attr:`Forwarder.port`,
the forwarder to the room broker. Two ways to block the link, as networks fail:

- :meth:`cut` ``"reset"``: every open connection is closed at once (both ends see it, as a
  router's reset or a reboot would do), and new connections are closed on arrival until
  :meth:`heal`;
- :meth:`cut` ``"stall"``: nothing moves any more, both ways, with the connections left open
  (a cable pulled, a switch port blocked): each end notices only by its MQTT keep-alive, or
  not at all when the link heals first, and then what waited in the kernels' buffers flows.
  New connections are accepted and stall too.

Threads, plain sockets; nothing here sleeps for synchronisation (waits are on ``select`` with
a short timeout so a stop or a cut is seen, and on events).
"""

from __future__ import annotations

import select
import socket
import threading

from drivers.mqtt.broker import free_port

__all__ = ["Forwarder"]

_TICK = 0.1  # seconds: how soon a pump sees a stop


class Forwarder:
    """Forward 127.0.0.1:``port`` to 127.0.0.1:``target`` (set :attr:`target` before traffic)."""

    def __init__(self, target: int | None = None) -> None:
        self.target = target
        self.port = free_port()
        self._listen = socket.create_server(("127.0.0.1", self.port))
        self._flowing = threading.Event()
        self._flowing.set()
        self._refusing = False
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self.connections = 0  # accepted and forwarded, for the test's report
        self._acceptor = threading.Thread(target=self._accept, name=f"fwd-{self.port}", daemon=True)
        self._acceptor.start()

    def cut(self, how: str) -> None:
        """Block the link: ``"reset"`` (close every connection, refuse new ones) or ``"stall"``
        (nothing moves). Raises ``ValueError`` for another ``how``."""
        if how not in ("reset", "stall"):
            raise ValueError(f"cut how: reset or stall, not {how!r}")
        if how == "stall":
            self._flowing.clear()
            return
        with self._lock:
            self._refusing = True
            pairs, self._pairs = self._pairs, []
        for a, b in pairs:
            _close(a, b)

    def heal(self) -> None:
        """Let traffic through again (a stalled connection goes on where it stood)."""
        with self._lock:
            self._refusing = False
        self._flowing.set()

    def stop(self) -> None:
        """Close everything (the acceptor and every pump end)."""
        self._stopping.set()
        self._flowing.set()
        self._listen.close()
        with self._lock:
            pairs, self._pairs = self._pairs, []
        for a, b in pairs:
            _close(a, b)
        self._acceptor.join(5)

    # ------------------------------------------------------------------ threads
    def _accept(self) -> None:
        while not self._stopping.is_set():
            try:
                client, _ = self._listen.accept()
            except OSError:
                return
            with self._lock:
                refusing = self._refusing
            if refusing or self.target is None:
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self._lock:
                self._pairs.append((client, upstream))
                self.connections += 1
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while not self._stopping.is_set():
                if not self._flowing.wait(_TICK):
                    continue  # stalled: read nothing, so nothing moves and the buffers hold it
                ready, _, _ = select.select([src], [], [], _TICK)
                if not ready or not self._flowing.is_set():
                    continue
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except (OSError, ValueError):
            pass
        _close(src, dst)
        with self._lock:
            self._pairs = [p for p in self._pairs if src not in p]


def _close(a: socket.socket, b: socket.socket) -> None:
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        s.close()
