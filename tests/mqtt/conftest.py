"""Fixtures for the MQTT driver: a private Mosquitto built from the repo's config (issue 7).

Each broker test gets its own ``mosquitto -c`` on free loopback ports (MQTT and WebSockets),
with users and ACL made by ``drivers.mqtt.provision`` in a temporary folder; it is stopped at
the end. The shared anonymous broker on 1883 is never touched.
"""

from __future__ import annotations

import queue
import shutil
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from drivers.mqtt.broker import MOSQUITTO, BrokerProcess
from drivers.mqtt.events import BrokerConnection, MqttEvent
from drivers.mqtt.link import TableLink
from drivers.mqtt.provision import provision
from drivers.mqtt.tablet import Tablet

TABLE = "t1"
WAIT = 5.0  # seconds: every wait in these tests is bounded by this


def state_view(seq: int, *, table: str = TABLE, turn: int | None = 3, hand: int = 57) -> dict[str, Any]:
    """A 9-seat public state following docs/state.md (seat 3 to act)."""
    seats = []
    for n in range(1, 10):
        seats.append({"seat": n, "name": f"Player {n}", "stack": 10000 - 50 * n, "bet": 100 if n == 5 else 0,
                      "status": "acting" if n == turn else "active", "missed": {"sb": False, "bb": False},
                      "cards": 2, "shown": None, "drew": None, "connected": True, "posted_dead": 0})
    return {"schema": 1, "table": table, "name": "Table 1", "seq": seq, "hand": hand, "game": "holdem",
            "limit": "no-limit", "stakes": {"sb": 50, "bb": 100, "ante": 0, "small_bet": None, "big_bet": None},
            "max_seats": 9, "street": "preflop", "button": 3, "sb_seat": 4, "bb_seat": 5, "board": [],
            "pots": [{"amount": 150, "eligible": list(range(1, 10))}], "seats": seats,
            "turn": None if turn is None else {"seat": turn, "started": 1732900000.0,
                                              "deadline": 1732900030.0, "seconds": 30},
            "showdown": None, "all_in_equity": None, "fault": None, "paused": False, "rake": 0}


def private_view(seat: int, seq: int, cards: list[str], *, table: str = TABLE) -> dict[str, Any]:
    """A private seat view following docs/state.md."""
    return {"schema": 1, "table": table, "seat": seat, "seq": seq, "hand": 57, "cards": cards,
            "hand_words": "High card, ace", "to_act": seat == 3,
            "legal": {"fold": True, "check": False, "call": 100, "bet": None,
                      "raise": {"min": 200, "max": 9850}, "all_in": 9850, "draw": None} if seat == 3 else None,
            "preselect": None}


def next_event(q: "queue.Queue[MqttEvent]", kind: type, timeout: float = WAIT) -> Any:
    """Return the next event of type ``kind``, skipping others; fail after ``timeout`` s."""
    while True:
        try:
            event = q.get(timeout=timeout)
        except queue.Empty:
            pytest.fail(f"no {kind.__name__} within {timeout} s")
        if isinstance(event, kind):
            return event


def next_connection(q: "queue.Queue[MqttEvent]", up: bool, timeout: float = WAIT) -> BrokerConnection:
    """Return the next BrokerConnection event whose ``up`` is ``up`` (skipping the others)."""
    while True:
        event = next_event(q, BrokerConnection, timeout)
        if event.up is up:
            return event


def events_until(q: "queue.Queue[MqttEvent]", kind: type, timeout: float = WAIT) -> list[Any]:
    """Return every event up to and including the next one of type ``kind``."""
    out = []
    while not out or not isinstance(out[-1], kind):
        try:
            out.append(q.get(timeout=timeout))
        except queue.Empty:
            pytest.fail(f"no {kind.__name__} within {timeout} s; got {out}")
    return out


def drain(q: "queue.Queue[MqttEvent]", kind: type) -> list[Any]:
    """Return the events of type ``kind`` already queued (no waiting)."""
    out = []
    while True:
        try:
            event = q.get_nowait()
        except queue.Empty:
            return out
        if isinstance(event, kind):
            out.append(event)


class Rig:
    """A broker, the table's credentials, and factories for links and tablets (all stopped at the end)."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.creds = provision(workdir, TABLE, 10)
        self.broker = BrokerProcess(workdir).start()
        self._stops: list[Callable[[], None]] = []

    def password(self, seat: int) -> str:
        return str(self.creds["seat_users"][str(seat)]["password"])

    def link(self, *, start: bool = True, **kw: Any) -> tuple[TableLink, "queue.Queue[MqttEvent]"]:
        q: "queue.Queue[MqttEvent]" = queue.Queue()
        kw.setdefault("backoff", (0.05, 0.5))
        link = TableLink(TABLE, host="127.0.0.1", port=self.broker.mqtt_port, username="controller",
                         password=self.creds["controller"]["password"], post=q.put, **kw)
        self._stops.append(link.stop)
        if start:
            link.start()
            link.wait_connected(WAIT)
        return link, q

    def tablet(self, seat: int, *, user: str | None = "seat", password: str | None = None,
               as_seat: int | None = None, ws: bool = False, wait: bool = True) -> Tablet:
        """A tablet for ``seat`` logged in as seat ``as_seat`` (default the same), or anonymous."""
        login = as_seat or seat
        username = f"{TABLE}-seat{login}" if user == "seat" else user
        if user == "seat":
            password = self.password(login)
        elif user == "display":
            password = self.creds["display"]["password"]
        tab = Tablet(TABLE, None if user in (None, "display") else seat, host="127.0.0.1", port=self.broker.ws_port if ws else self.broker.mqtt_port,
                     username=username, password=password, transport="websockets" if ws else "tcp",
                     presence=user == "seat")
        self._stops.append(tab.stop)
        tab.start()
        if wait:
            tab.wait_connected(WAIT)
        return tab

    def close(self) -> None:
        for stop in reversed(self._stops):
            try:
                stop()
            except Exception:  # a crashed tablet or a stopped link: nothing left to stop
                pass
        self.broker.stop()


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    """A fresh broker with table t1 (10 seats) provisioned; stopped after the test."""
    if not Path(MOSQUITTO).exists() and shutil.which("mosquitto") is None:
        pytest.skip("mosquitto is not installed (scripts/setup.sh installs it)")
    r = Rig(tmp_path)
    try:
        yield r
    finally:
        r.close()
