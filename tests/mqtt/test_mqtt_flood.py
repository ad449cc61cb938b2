"""M-9 under a flood (issue 16, f): a tablet sending far more actions than the limit costs
the controller one reply and one log line per window, not one per message; an honest
tablet's actions are taken as before. Every refusal on a seat's topics goes through the
same window (issue 16 round 2: malformed JSON, too large, wrong schema, chat too fast, chat
not UTF-8, duplicate ids, retained inputs), and the window's count is logged when it closes.
No broker: the link's message handling is driven directly, with an injected clock, and every
publish and log line is counted."""

from __future__ import annotations

import json
import logging
import threading

import pytest

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
    assert any("989 more refusals on seat 3 dropped unanswered" in m and "M-9: 989" in m for m in lines), lines
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


def _payload(kind: str, i: int) -> tuple[Kind, bytes]:
    """One message of a flood of ``kind`` from seat 3 (the breaker's /tmp/b16/flood.py)."""
    if kind == "badjson":  # M-1
        return Kind.ACTION, b"{not json" + str(i).encode()
    if kind == "big":  # M-3
        return Kind.ACTION, b"x" * 2000
    if kind == "take_seat":  # M-2: no amount
        return Kind.ACTION, json.dumps({"schema": 1, "id": f"t{i}", "seat": 3, "seq": 1, "action": "take_seat",
                                        "name": "X", "post": True}).encode()
    if kind == "dupid":  # M-5
        return Kind.ACTION, codec.action_payload(seat=3, seq=1, action="fold", action_id="same")
    if kind == "chat":  # M-8 after the first 5
        return Kind.SEAT_CHAT, codec.chat_input_payload(seat=3, text=f"hi {i}", chat_id=f"c{i}")
    if kind == "badchat":  # M-1: not UTF-8
        return Kind.SEAT_CHAT, b"\xff\xfe"
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["badjson", "big", "take_seat", "dupid", "chat", "badchat"])
def test_every_kind_of_refusal_flood_costs_one_reply_and_one_line_per_window(kind: str, caplog) -> None:
    clock = Clock()
    link, events, replies = _link(clock)
    caplog.set_level(logging.INFO, logger="drivers.mqtt.link")
    for i in range(3000):  # 3,000 in 1.5 s: two windows
        what, payload = _payload(kind, i)
        link._handle(what, 3, payload, clock())
        clock.now += 0.0005
    taken = len(events)  # at most a handful taken (the first chat lines, the first duplicate)
    assert taken <= 5
    assert len(replies) == 2, len(replies)  # one per window, not 3,000
    refusals = [r for r in caplog.records if r.getMessage().startswith("refused seat 3")]
    assert len(refusals) == 2
    assert link.refused == 3000 - taken and link.flood_dropped == 3000 - taken - 2
    # The second window closes: its count is logged by the sweep, without another refusal.
    caplog.clear()
    clock.now += 1.0
    assert link.sweep() >= 1
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and "more refusals on seat 3 dropped unanswered" in lines[0], lines
    assert link.sweep() == 0 and len(caplog.records) == 1  # logged once


def test_windows_are_per_seat_and_shared_by_a_seats_topics() -> None:
    clock = Clock()
    link, events, replies = _link(clock)
    link._handle(Kind.ACTION, 3, b"{bad", clock())
    link._handle(Kind.SEAT_CHAT, 3, b"\xff", clock())  # seat 3's chat: the same window
    link._handle(Kind.ACTION, 4, b"{bad", clock())  # another seat: its own window
    assert replies == ["livetable/t1/seat/3/reply", "livetable/t1/seat/4/reply"]
    assert link.flood_dropped == 1


def test_retained_inputs_are_cleared_each_but_answered_once_a_window(caplog) -> None:
    clock = Clock()
    link, events, replies = _link(clock)
    cleared: list[str] = []
    inner = link._client.publish

    def publish(topic, payload=None, *a, **k):
        if payload == b"" and k.get("retain"):
            cleared.append(topic)
        return inner(topic, payload, *a, **k)

    link._client.publish = publish  # type: ignore[method-assign]
    caplog.set_level(logging.INFO, logger="drivers.mqtt.link")
    for i in range(100):
        link._refuse_retained(Kind.ACTION, 3, "livetable/t1/seat/3/action",
                              codec.action_payload(seat=3, seq=1, action="fold", action_id=f"r{i}"))
    assert len(cleared) == 100  # each cleared from the broker
    assert len(replies) == 1 and link.refused_retained == 100 and link.flood_dropped == 99
    assert len([r for r in caplog.records if "retained" in r.getMessage()]) == 1


class _Seen(logging.Handler):
    def __init__(self, text: str) -> None:
        super().__init__(logging.INFO)
        self.text, self.seen = text, threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if self.text in record.getMessage():
            self.seen.set()


def test_the_links_own_timer_logs_a_window_when_it_closes() -> None:
    clock = Clock()
    link, events, replies = _link(clock)
    seen = _Seen("2 more refusals on seat 3 dropped unanswered")
    logger = logging.getLogger("drivers.mqtt.link")
    logger.addHandler(seen)
    old = logger.level
    logger.setLevel(logging.INFO)
    link.start()  # no broker on port 1: the link keeps trying, its timer runs
    try:
        for _ in range(3):
            link._handle(Kind.ACTION, 3, b"{bad", clock())
        assert not seen.seen.is_set()  # still this window
        clock.now += 1.0  # the window closes; no further refusal comes
        assert seen.seen.wait(5.0), "the window's count was not logged when it closed"
    finally:
        link.stop(timeout=1.0)
        logger.removeHandler(seen)
        logger.setLevel(old)


class _Msg:
    """The parts of paho's MQTTMessage the link reads."""

    def __init__(self, topic: str, payload: bytes = b"x", retain: bool = False) -> None:
        self.topic, self.payload, self.retain = topic, payload, retain


def test_a_seat_of_thousands_of_digits_leaves_the_link_listening(caplog) -> None:
    """A breaker's topic ``presence/seat/<4,400 digits>`` made ``int()`` raise a plain ValueError
    in paho's network thread, which died: the table dealt on, deaf to every tablet, no fault."""
    clock = Clock()
    link, events, replies = _link(clock)
    caplog.set_level(logging.INFO, logger="drivers.mqtt.link")
    for tail in ("presence/seat/" + "1" * 4400, "seat/" + "7" * 60_000 + "/action"):
        link._on_message(link._client, None, _Msg(f"livetable/{TABLE}/{tail}"))  # must not raise
    # and the next honest action is still taken
    link._on_message(link._client, None, _Msg(f"livetable/{TABLE}/seat/3/action",
                                               codec.action_payload(seat=3, seq=1, action="check", action_id="z1")))
    assert any(isinstance(e, ActionReceived) for e in events)


def test_a_flood_on_topics_outside_the_tree_logs_a_line_a_second(caplog) -> None:
    clock = Clock()
    link, events, replies = _link(clock)
    caplog.set_level(logging.INFO, logger="drivers.mqtt.link")
    for i in range(3000):
        link._on_message(link._client, None, _Msg(f"livetable/{TABLE}/seat/99/action"))
        clock.now += 0.0005  # 1.5 s in all
    lines = [r.getMessage() for r in caplog.records if "ignored" in r.getMessage()]
    assert 2 <= len(lines) <= 4, lines
    assert any("more messages" in line for line in lines)
