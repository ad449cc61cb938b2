"""The machine's Mosquitto on 127.0.0.1:1883, which the controller tests that play a whole
table need (scripts/setup.sh starts one): ``needs_broker`` skips a test, with the reason,
where none answers. Imported as ``from localbroker import needs_broker`` (tests/controller
has no ``__init__.py``: pytest puts it on ``sys.path``)."""

from __future__ import annotations

import socket

import pytest


def broker_up(host: str = "127.0.0.1", port: int = 1883) -> bool:
    """Return whether something answers on ``host:port`` within a second."""
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return True
    except OSError:
        return False


needs_broker = pytest.mark.skipif(not broker_up(), reason="no Mosquitto on 127.0.0.1:1883")
