"""The controller's TableLink against a real Mosquitto: actions, refusals, chat, presence (A-4),
reconnects and broker restarts (issue 7)."""

from __future__ import annotations

import itertools
import json
import shutil

import pytest

from drivers.mqtt import codec
from drivers.mqtt.codec import ViewError
from drivers.mqtt.events import ActionReceived, BrokerConnection, ChatReceived, TabletPresence
from drivers.mqtt.link import TableLink
from drivers.mqtt.topics import Kind, topic

from .conftest import TABLE, WAIT, Rig, events_until, next_connection, next_event, private_view, state_view

pytestmark = pytest.mark.broker


class FakeClock:
    """A clock the test moves by hand (Unix seconds)."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_an_action_reaches_the_table_once_and_the_reply_reaches_the_tablet(rig: Rig) -> None:
    clock = FakeClock()
    link, events = rig.link(clock=clock)
    link.publish_state(state_view(41))
    tab = rig.tablet(3)
    tab.wait_seq(41, WAIT)
    aid = tab.send_action("raise", 600)
    got = next_event(events, ActionReceived)
    assert got == ActionReceived(3, "raise", 600, aid, 41, clock.now)
    link.reply(3, aid, True)
    assert tab.wait_reply(aid, WAIT)["accepted"] is True
    late = tab.send_action("fold")
    next_event(events, ActionReceived)
    link.reply(3, late, False, "A-1: it is not your turn")  # out of turn: decided by the table
    reply = tab.wait_reply(late, WAIT)
    assert (reply["accepted"], reply["reason"], reply["seq"]) == (False, "A-1: it is not your turn", 41)


def test_draw_and_preselect_actions_carry_cards_and_choice(rig: Rig) -> None:
    link, events = rig.link()
    link.publish_state(state_view(1))
    tab = rig.tablet(3)
    tab.wait_seq(1, WAIT)
    tab.send_action("draw", cards=["2c", "7d"])
    tab.send_action("preselect", 100, choice="call")
    first, second = next_event(events, ActionReceived), next_event(events, ActionReceived)
    assert first.cards == ("2c", "7d") and (second.choice, second.amount) == ("call", 100)


def _bad_payloads(seq: int) -> dict[str, bytes]:
    good = {"schema": 1, "id": "x", "seat": 3, "seq": seq, "action": "fold", "amount": None}
    return {
        "M-1": b"\x00\x01 not json",
        "M-2": json.dumps({**good, "id": "b2", "action": "steal"}).encode(),
        "M-3": json.dumps({**good, "id": "b3", "pad": "x" * 10_000}).encode(),
        "M-6": json.dumps({**good, "id": "b6", "seat": 5}).encode(),
        "M-4": json.dumps({**good, "id": "b4", "seq": seq - 1}).encode(),
    }


def test_malformed_payloads_are_refused_on_the_reply_topic_and_change_nothing(rig: Rig) -> None:
    # A clock 2 s further on at every read: each refusal opens its own window, so each is
    # answered (a burst within one window is answered once: tests/mqtt/test_mqtt_flood.py).
    ticks = itertools.count()
    link, events = rig.link(clock=lambda: 1_800_000_000.0 + 2.0 * next(ticks))
    link.publish_state(state_view(9))
    tab = rig.tablet(3)
    tab.wait_seq(9, WAIT)
    bad = _bad_payloads(9)
    for payload in bad.values():
        tab.send_raw(topic(Kind.ACTION, TABLE, 3), payload)
    tab.send_raw(topic(Kind.SEAT_CHAT, TABLE, 3), b"{oops")
    aid = tab.send_action("check")
    got = events_until(events, ActionReceived)
    assert [e for e in got if isinstance(e, (ActionReceived, ChatReceived))] == [got[-1]]
    assert got[-1].action_id == aid
    tab.wait_for(lambda t: len(t.all_replies) >= len(bad) + 1, WAIT)
    codes = [r["reason"].split(":")[0] for r in tab.all_replies]
    assert codes == [*bad, "M-1"]
    assert all(r["accepted"] is False and r["seq"] == 9 for r in tab.all_replies)
    assert link.refused == len(bad) + 1 and link.connected


def test_a_replayed_action_id_is_refused_and_never_reaches_the_table_twice(rig: Rig) -> None:
    link, events = rig.link()
    link.publish_state(state_view(3))
    tab = rig.tablet(3)
    tab.wait_seq(3, WAIT)
    tab.send_action("call", action_id="same-id")
    tab.send_action("call", action_id="same-id")
    marker = tab.send_action("check")
    got = [e for e in events_until(events, ActionReceived) + events_until(events, ActionReceived)
           if isinstance(e, ActionReceived)]
    assert [e.action_id for e in got] == ["same-id", marker]
    reply = tab.wait_reply("same-id", WAIT)
    assert reply["accepted"] is False and reply["reason"].startswith("M-5")


def test_an_action_decided_on_an_older_state_is_refused_m4(rig: Rig) -> None:
    link, events = rig.link()
    link.publish_state(state_view(3))
    tab = rig.tablet(3)
    tab.wait_seq(3, WAIT)
    link.publish_state(state_view(4))
    stale = tab.send_action("call", seq=3)
    reply = tab.wait_reply(stale, WAIT)
    assert reply["reason"].startswith("M-4") and "seq 4" in reply["reason"]
    tab.wait_seq(4, WAIT)
    fresh = tab.send_action("call")
    assert next_event(events, ActionReceived).action_id == fresh


def test_seat_requests_and_preselections_are_not_refused_for_a_state_seen_before(rig: Rig) -> None:
    """At a busy table the state moves on while a request crosses it: only decisions on the
    hand are refused as stale (M-4); a seat request is the table's to decide as it is now."""
    link, events = rig.link()
    link.publish_state(state_view(3))
    tab = rig.tablet(3)
    tab.wait_seq(3, WAIT)
    link.publish_state(state_view(4))
    tab.wait_seq(4, WAIT)
    requests = [tab.send_action("sit_out", seq=3), tab.send_action("take_seat", 500, seq=3, name="Ann", post=False),
                tab.send_action("preselect", seq=3, choice="check_fold")]
    stale_fold = tab.send_action("fold", seq=3)
    got = [next_event(events, ActionReceived) for _ in requests]
    assert [(e.action_id, e.seq_seen) for e in got] == [(aid, 3) for aid in requests]
    assert tab.wait_reply(stale_fold, WAIT)["reason"].startswith("M-4")
    marker = tab.send_action("check")  # the stale fold never reached the loop: the next action is this
    assert next_event(events, ActionReceived).action_id == marker


def test_views_that_break_the_contract_are_not_published(rig: Rig) -> None:
    link, _ = rig.link()
    link.publish_state(state_view(5))
    with pytest.raises(ViewError):
        link.publish_state(state_view(4))
    with pytest.raises(ViewError):
        link.publish_private(3, private_view(5, 5, ["As", "Kd"]))
    with pytest.raises(ValueError):
        link.publish_lobby({"table": "t2"})
    assert link.seq == 5


def test_chat_is_checked_rate_limited_and_published_with_names_l3(rig: Rig) -> None:
    clock = FakeClock()
    link, events = rig.link(clock=clock, chat_rate=(3, 10.0))
    link.publish_state(state_view(1))
    tab, other = rig.tablet(3), rig.tablet(6)
    ids = [tab.send_chat(f"line {n}") for n in range(4)]
    got = [next_event(events, ChatReceived) for _ in range(3)]
    assert [(e.seat, e.text, e.chat_id) for e in got] == [(3, f"line {n}", ids[n]) for n in range(3)]
    assert tab.wait_reply(ids[3], WAIT)["reason"].startswith("M-8")
    clock.now += 1.0  # the M-8 refusal's window (1 s) has closed: the next refusal is answered
    bad = tab.send_chat("\x1b[31mred")
    assert tab.wait_reply(bad, WAIT)["reason"].startswith("M-7")
    clock.now += 10.0
    again = tab.send_chat("line 4")
    assert next_event(events, ChatReceived).chat_id == again
    link.publish_chat(3, "Player 3", "line 0", chat_id=ids[0])
    other.wait_for(lambda t: t.chat is not None, WAIT)
    assert other.chat["messages"][-1] == {"seat": 3, "name": "Player 3", "text": "line 0", "id": ids[0],
                                          "at": clock.now}


def test_the_private_view_is_cleared_after_the_hand(rig: Rig) -> None:
    link, _ = rig.link()
    link.publish_state(state_view(1))
    link.publish_private(3, private_view(3, 1, ["As", "Kd"]))
    tab = rig.tablet(3)
    tab.wait_for(lambda t: t.private is not None, WAIT)
    link.publish_private(3, None)
    tab.wait_for(lambda t: t.private is None, WAIT)
    link.publish_state(state_view(2))
    late = rig.tablet(3)
    late.wait_seq(2, WAIT)
    assert late.private is None
    assert topic(Kind.PRIVATE, TABLE, 3) not in {t for t, _, _ in late.messages}


def test_a_tablet_that_reconnects_gets_the_current_state_at_once(rig: Rig) -> None:
    link, _ = rig.link()
    link.publish_state(state_view(1))
    link.publish_private(3, private_view(3, 1, ["As", "Kd"]))
    rig.tablet(3).stop()
    witness = rig.tablet(6)
    for seq in (2, 3):
        link.publish_state(state_view(seq))
    link.publish_private(3, private_view(3, 4, ["As", "Kd"]))
    link.publish_state(state_view(4))
    witness.wait_seq(4, WAIT)  # the broker has routed everything up to seq 4
    back = rig.tablet(3)
    back.wait_seq(4, WAIT)
    back.wait_for(lambda t: t.private is not None, WAIT)
    assert back.states_received == 1 and back.private["seq"] == 4


def test_a_tablet_last_will_reports_it_offline_for_a4(rig: Rig) -> None:
    clock = FakeClock()
    link, events = rig.link(clock=clock)
    link.publish_state(state_view(1))
    tab = rig.tablet(4)
    assert next_event(events, TabletPresence) == TabletPresence(4, True, clock.now)
    clock.now += 5
    tab.crash()
    assert next_event(events, TabletPresence) == TabletPresence(4, False, clock.now)


def test_presence_is_reported_on_change_only_even_after_the_controller_reconnects(rig: Rig) -> None:
    link, events = rig.link()
    rig.tablet(4)
    assert next_event(events, TabletPresence).online is True
    link.stop()
    again, events2 = rig.link()  # retained presence: the new link learns seat 4 is online
    first = next_event(events2, TabletPresence)
    assert (first.seat, first.online) == (4, True)
    rig.tablet(4).stop()  # a second tablet on seat 4 comes and says goodbye
    assert next_event(events2, TabletPresence).online is False


def test_tablets_see_the_controller_go_offline_by_goodbye_or_last_will(rig: Rig) -> None:
    link, _ = rig.link()
    tab = rig.tablet(3)
    tab.wait_for(lambda t: t.controller_online is True, WAIT)
    link.stop()
    tab.wait_for(lambda t: t.controller_online is False, WAIT)
    crashing, _ = rig.link()
    tab.wait_for(lambda t: t.controller_online is True, WAIT)
    sock = crashing._client.socket()  # drop the TCP connection without DISCONNECT: a crash
    crashing._client.loop_stop()
    sock.close()
    tab.wait_for(lambda t: t.controller_online is False, WAIT)


def test_broker_restart_mid_hand_loses_no_action_and_delivers_it_once(rig: Rig) -> None:
    link, events = rig.link()
    link.publish_state(state_view(20))
    link.publish_private(3, private_view(3, 20, ["As", "Kd"]))
    tab = rig.tablet(3)
    tab.wait_seq(20, WAIT)
    rig.broker.stop()
    next_connection(events, False)
    tab.wait_for(lambda t: not t.connected, WAIT)
    aid = tab.send_action("call")  # queued in the tablet while the broker is down
    rig.broker.start()
    next_connection(events, True)
    got = next_event(events, ActionReceived)
    assert (got.action_id, got.seq_seen) == (aid, 20)
    tab.send_action("call", action_id=aid)  # a duplicate delivery after a lost PUBACK
    marker = tab.send_action("check")
    later = [e for e in events_until(events, ActionReceived) if isinstance(e, ActionReceived)]
    assert [e.action_id for e in later] == [marker]
    assert tab.wait_reply(aid, WAIT)["reason"].startswith("M-5")


def test_actions_queued_for_a_restarting_controller_survive_a_broker_restart(rig: Rig) -> None:
    link, events = rig.link(client_id="ctl-t1")
    link.publish_state(state_view(30))
    tab = rig.tablet(3)
    tab.wait_seq(30, WAIT)
    link.stop()  # the controller goes away; its persistent session stays in the broker
    aid = "queued-1"
    tab.send_raw(topic(Kind.ACTION, TABLE, 3), codec.action_payload(
        seat=3, seq=30, action="fold", action_id=aid)).wait_for_publish(WAIT)  # PUBACK: queued for the controller
    rig.broker.restart()  # persistence keeps the queued action
    back, events2 = rig.link(client_id="ctl-t1")  # the restarted controller connects first...
    back.publish_state(state_view(30))  # ...and publishes the state recovered from its journal
    got = next_event(events2, ActionReceived)
    assert (got.action_id, got.seat) == (aid, 3)
    marker = tab.send_action("check")
    assert next_event(events2, ActionReceived).action_id == marker


def test_the_controller_republishes_its_retained_views_to_a_broker_that_lost_them(rig: Rig) -> None:
    link, events = rig.link()
    link.publish_state(state_view(50))
    link.publish_private(3, private_view(3, 50, ["As", "Kd"]))
    link.publish_chat(None, "Floor", "Welcome")
    rig.broker.stop()
    next_connection(events, False)
    shutil.rmtree(rig.broker.data_dir)  # the broker comes back with an empty store
    rig.broker.start()
    next_connection(events, True)
    fresh = rig.tablet(3)
    fresh.wait_seq(50, WAIT)
    fresh.wait_for(lambda t: t.private is not None and t.chat is not None and t.controller_online, WAIT)
    assert fresh.private["cards"] == ["As", "Kd"] and fresh.chat["messages"][0]["text"] == "Welcome"


def test_a_packet_over_the_brokers_limit_drops_that_tablet_not_the_table(rig: Rig) -> None:
    link, events = rig.link()
    link.publish_state(state_view(1))
    rogue, honest = rig.tablet(3), rig.tablet(4)
    honest.wait_seq(1, WAIT)
    rogue.send_raw(topic(Kind.ACTION, TABLE, 3), b"{" + b" " * 300_000 + b"}")  # over max_packet_size
    rogue.wait_for(lambda t: not t.connected, WAIT)
    aid = honest.send_action("check")
    got = events_until(events, ActionReceived)
    assert got[-1].action_id == aid and not [e for e in got[:-1] if isinstance(e, ActionReceived)]
    assert link.connected


def test_a_garbled_presence_message_is_ignored(rig: Rig) -> None:
    link, events = rig.link()
    link.publish_state(state_view(1))
    tab = rig.tablet(5)
    tab.wait_seq(1, WAIT)
    assert next_event(events, TabletPresence).online is True
    tab.send_raw(topic(Kind.SEAT_PRESENCE, TABLE, 5), b'{"schema": 1, "online": "maybe"}')
    aid = tab.send_action("fold")
    got = events_until(events, ActionReceived)
    assert got[-1].action_id == aid and not [e for e in got if isinstance(e, TabletPresence)]
    assert tab.all_replies == []  # presence is not answered


def test_one_down_event_per_outage_and_a_refused_login_is_reported(rig: Rig) -> None:
    link, events = rig.link()
    rig.broker.stop()
    next_connection(events, False)
    rig.broker.start()
    got = events_until(events, BrokerConnection)
    assert [e.up for e in got if isinstance(e, BrokerConnection)] == [True]
    bad = TableLink(TABLE, host="127.0.0.1", port=rig.broker.mqtt_port, username="controller",
                    password="wrong", post=events.put, client_id="bad-login", backoff=(5.0, 5.0))
    bad.start()
    try:
        down = next_connection(events, False)
        assert down.reason is not None and not bad.connected
        with pytest.raises(TimeoutError):
            bad.wait_connected(0.05)
    finally:
        bad.stop()


def test_a_private_view_cleared_while_the_broker_was_down_does_not_come_back(rig: Rig) -> None:
    link, events = rig.link()
    link.publish_state(state_view(1))
    link.publish_lobby(codec.lobby_summary(state_view(1)))
    link.publish_private(3, private_view(3, 1, ["As", "Kd"]))
    rig.tablet(3).wait_for(lambda t: t.private is not None, WAIT)
    rig.broker.stop()  # the private view is in the broker's persistent store
    next_connection(events, False)
    link.publish_private(3, None)  # the hand ends while the broker is away
    link.publish_state(state_view(2))
    rig.broker.start()
    next_connection(events, True)
    witness = rig.tablet(6)
    witness.wait_seq(2, WAIT)  # the republished views have been routed
    late = rig.tablet(3)
    late.subscribe(topic(Kind.LOBBY, TABLE))  # a second SUBSCRIBE: its retained message comes last
    late.wait_for(lambda t: topic(Kind.LOBBY, TABLE) in {x for x, _, _ in t.messages}, WAIT)
    assert late.private is None


def test_a_tablet_flooding_actions_is_refused_m9(rig: Rig) -> None:
    clock = FakeClock()
    link, events = rig.link(clock=clock, action_rate=(3, 1.0))
    link.publish_state(state_view(1))
    tab = rig.tablet(3)
    tab.wait_seq(1, WAIT)
    ids = [tab.send_action("check") for _ in range(4)]
    got = [next_event(events, ActionReceived).action_id for _ in range(3)]
    assert got == ids[:3]
    assert tab.wait_reply(ids[3], WAIT)["reason"].startswith("M-9")
    clock.now += 1.0
    again = tab.send_action("check")
    assert next_event(events, ActionReceived).action_id == again


def test_a_chat_line_received_again_is_refused_m5_and_posted_once(rig: Rig) -> None:
    """A QoS 1 chat line the broker hands over again (restarted before the controller's
    PUBACK reached it) or a replay is not posted twice (issue 16: copies of a chat line)."""
    link, events = rig.link()
    link.publish_state(state_view(1))
    seat3 = rig.tablet(3)
    seat3.wait_seq(1, WAIT)
    payload = codec.chat_input_payload(seat=3, text="gl", chat_id="c-1")
    seat3.send_raw(topic(Kind.SEAT_CHAT, TABLE, 3), payload)
    assert next_event(events, ChatReceived).chat_id == "c-1"
    seat3.send_raw(topic(Kind.SEAT_CHAT, TABLE, 3), payload)
    reply = seat3.wait_reply("c-1", WAIT)
    assert reply["accepted"] is False and reply["reason"].startswith("M-5")
    last = seat3.send_chat("wp")
    got = events_until(events, ChatReceived)
    assert [e.chat_id for e in got if isinstance(e, ChatReceived)] == [last]
