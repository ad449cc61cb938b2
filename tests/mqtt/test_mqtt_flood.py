"""M-9 under a flood (issue 16, f): a tablet sending far more actions than the limit costs
the controller one reply and one log line per window, not one per message; an honest
tablet's actions are taken as before. No broker: the link's message handling is driven
directly, with an injected clock, and every publish and log line is counted."""

from __future__ import annotations

import logging

from drivers.mqtt import codec
from drivers.mqtt.events import ActionReceived
from drivers.mqtt.link import TableLink
from drivers.mqtt.topics import Kind

from .conftest import TABLE, state_view


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def _link(clock: Clock) -> tuple[TableLink, list, list[str]]:
    events: list = []
    link = TableLink(TABLE, host="127.0.0.1", port=1, username=None, password=None, post=events.append,
                     clock=clock, action_rate=(10, 1.0), auto_lobby=False)
    link.publish_state(state_view(1))
    replies: list[str] = []
    real = link._client.publish

    def publish(topic, payload=None, *a, **k):
        if topic.endswith("/reply"):
            replies.append(topic)
        return real(topic, payload, *a, **k)

    link._client.publish = publish  # type: ignore[method-assign]
    return link, events, replies


def _send(link: TableLink, clock: Clock, n: int, *, seat: int = 3, step: float = 0.0, tag: str = "a") -> None:
    for i in range(n):
        payload = codec.action_payload(seat=seat, seq=1, action="check", action_id=f"{tag}{i}")
        link._handle(Kind.ACTION, seat, payload, clock())
        clock.now += step


def test_a_flood_costs_one_reply_and_one_log_line_per_window(caplog) -> None:
    clock = Clock()
    link, events, replies = _link(clock)
    caplog.set_level(logging.INFO, logger="drivers.mqtt.link")
    _send(link, clock, 1000, step=0.0005)  # 1,000 actions in half a second
    taken = [e for e in events if isinstance(e, ActionReceived)]
    assert len(taken) == 10  # the limit: 10 a second
    refusal_lines = [r for r in caplog.records if "M-9" in r.getMessage()]
    assert len(replies) == 1 + 0 and len(refusal_lines) == 1  # taken actions need no reply here
    assert link.flood_dropped == 989 and link.refused == 990
    # The next window: its first refusal is answered, and the last window's count logged once.
    clock.now += 1.0
    caplog.clear()
    _send(link, clock, 12, tag="b")
    lines = [r.getMessage() for r in caplog.records if "M-9" in r.getMessage()]
    assert any("989 more actions from seat 3 dropped unanswered" in m for m in lines), lines
    assert len(lines) == 2  # the count, and the new window's one refusal
    assert len(replies) == 2


def test_an_honest_tablet_is_taken_as_before() -> None:
    clock = Clock()
    link, events, replies = _link(clock)
    _send(link, clock, 50, step=0.2)  # 5 a second, for 10 seconds
    assert len([e for e in events if isinstance(e, ActionReceived)]) == 50
    assert replies == [] and link.refused == 0 and link.flood_dropped == 0
    # Just over the limit: every refused one in its own window is answered.
    clock.now += 5
    _send(link, clock, 11, tag="b")
    clock.now += 1.0
    _send(link, clock, 11, tag="c")
    assert len(replies) == 2 and link.flood_dropped == 0
