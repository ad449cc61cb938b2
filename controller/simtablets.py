"""Simulated players as seat tablets on the broker: simulation only (issue 16).

A :class:`TabletPlayer` is a :class:`drivers.mqtt.tablet.Tablet` (the same paho client a
test's tablet is, logged in as one seat) with the random legal player of
:func:`controller.bots.choose_action`. It plays a table run by ``livetable run`` exactly as a
tablet in the room does, so the controller's production path (the MQTT link, its M-4 / M-5 /
M-9 guards, seat requests and replies, recovery after a restart) is the one exercised; it
outlives the controller, so a kill loop can kill the controller under it.

What it does, from its own thread (checking every ``poll`` seconds; every wait is bounded):

- its seat free in the public state: ``take_seat`` with ``buy_in`` chips under ``name``
  (asked again if refused or unanswered after ``patience`` seconds);
- its seat busted (stack 0) between hands: ``stand_up``, then take the seat again;
- its private view says it is to act: one random legal action carrying the view's ``seq``;
  asked again if refused, or unanswered after ``patience`` seconds (a controller killed
  before it journalled the action: the restarted one never saw it).
"""

from __future__ import annotations

import random
import threading
import time
from typing import Any

from controller.bots import choose_action
from drivers.mqtt.tablet import Tablet

__all__ = ["TabletPlayer"]


class TabletPlayer:
    """One seat played by a random legal player through its tablet (see the module docstring).

    Args:
        table: the table id; ``seat``: 1..10; ``host``/``port``: the broker.
        name: the player's name (T-3); ``buy_in``: chips brought at each take-seat (T-2).
        seed: the player's random choices.
        username/password: the seat's broker login (None: anonymous, a broker without ACL).
        patience: seconds an action or request may go unanswered before it is asked again.
        poll: seconds between looks at the table.
    """

    def __init__(self, table: str, seat: int, *, host: str, port: int, name: str, buy_in: int,
                 seed: int = 0, username: str | None = None, password: str | None = None,
                 patience: float = 1.5, poll: float = 0.02) -> None:
        self.seat, self.name, self.buy_in = seat, name, buy_in
        self.patience, self.poll = patience, poll
        self.tablet = Tablet(table, seat, host=host, port=port, username=username, password=password)
        self.rng = random.Random(f"tablet:{seed}:{seat}")
        self.actions = 0
        self.requests = 0
        self._pending: tuple[str, str, int, float] | None = None  # (what, id, seq, sent at)
        self._last: tuple[int | None, str] = (None, "")  # the last answered request's seq, outcome
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"tablet-player-{seat}", daemon=True)

    def start(self) -> "TabletPlayer":
        """Connect and start playing; return self."""
        self.tablet.start()
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop playing and disconnect (idempotent)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(5)
        self.tablet.stop()

    def _run(self) -> None:
        while not self._stop.wait(self.poll):
            try:
                self._look()
            except ValueError:
                pass  # no state yet, or a view the tablet could not send from: look again

    def _answered(self, now: float) -> bool:
        """True when nothing is outstanding: the last request was answered (or given up:
        then it counts as lost, and the same state may be answered again)."""
        if self._pending is None:
            return True
        _what, aid, seq, sent = self._pending
        with self.tablet.cond:
            reply = self.tablet.replies.get(aid)
        if reply is not None:
            self._pending, self._last = None, (seq, "accepted" if reply.get("accepted") else "refused")
            return True
        if now - sent > self.patience:
            self._pending, self._last = None, (seq, "lost")
            return True
        return False

    def _look(self) -> None:
        now = time.monotonic()
        with self.tablet.cond:
            state, private = self.tablet.state, self.tablet.private
        if state is None or not self._answered(now):
            return
        mine = state["seats"][self.seat - 1]
        if mine.get("status") == "empty" and (self._last[0] != state["seq"] or self._last[1] == "lost"):
            self._send("take_seat", state["seq"], amount=self.buy_in, name=self.name, post=False)
            return
        if mine.get("name") != self.name:
            return  # someone else sits here
        if mine.get("stack") == 0 and state.get("street") == "waiting" and (
                self._last[0] != state["seq"] or self._last[1] == "lost"):
            self._send("stand_up", state["seq"])
            return
        if private and private.get("to_act") and private.get("legal") and (
                self._last[0] != private["seq"] or self._last[1] == "lost"):
            choice = choose_action(private["legal"], [c for c in private["cards"] if c != "??"], self.rng)
            self._send(choice["action"], private["seq"], amount=choice["amount"],
                       cards=list(choice["discards"]) if choice["action"] == "draw" else None)

    def _send(self, action: str, seq: int, **kw: Any) -> None:
        aid = self.tablet.send_action(action, kw.pop("amount", None), seq=seq, **kw)
        self._pending = (action, aid, seq, time.monotonic())
        if action in ("take_seat", "stand_up"):
            self.requests += 1
        else:
            self.actions += 1
