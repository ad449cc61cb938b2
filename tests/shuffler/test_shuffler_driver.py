"""The driver against the emulator over a real pty (the production code path).

Every test checks the driver's card reports against the emulator's physical log: no card
lost, none invented, none reported twice.
"""

from __future__ import annotations

import pytest

from controller.engine.cards import FULL_DECK
from drivers.shuffler import events as E
from drivers.shuffler.emulator import Faults
from drivers.shuffler.link import ShufflerArgumentError
from drivers.shuffler.protocol import BOARD, BURN, DeviceState, Target

from .conftest import FAST, Rig


def reported(rig: Rig) -> list[tuple[Target, object]]:
    return [(e.target, e.card) for e in rig.events.of(E.CardDelivered)]


def assert_truthful(rig: Rig) -> None:
    """Every card the driver reported left the machine, in order, to that target, exactly once."""
    assert rig.emu.wait_idle()
    rig.sync()
    cards = reported(rig)
    assert len(set(c for _, c in cards)) == len(cards)
    assert cards == rig.emu.physical_log()


def test_handshake_identifies_device_and_stamps_with_injected_clock(rig: Rig) -> None:
    ident = rig.events.of(E.DeviceIdentified)[0]
    assert ident.device == rig.emu.device and ident.firmware == rig.emu.firmware
    assert ident.boot_id == rig.emu.boot_id and ident.protocol == 1
    assert all(e.at == float(i + 1) for i, e in enumerate(rig.events.events))


def test_full_deal_ten_seats_and_board(rig: Rig) -> None:
    ready = rig.new_deck()
    assert ready.remaining == 52 and ready.dealt == 0
    for rnd in range(2):  # one card at a time around the table, twice
        for seat in range(1, 11):
            rig.deal(seat)
    for n in (3, 1, 1):  # burn and flop, burn and turn, burn and river (G-1)
        rig.deal("burn")
        rig.deal("board", n)
    cards = rig.events.of(E.CardDelivered)
    assert len(cards) == 28 and [c.ordinal for c in cards] == list(range(1, 29))
    assert reported(rig) == rig.emu.physical_log()
    by_seat = {s: [c.card for c in cards if c.target == Target.seat_no(s)] for s in range(1, 11)}
    assert all(len(v) == 2 for v in by_seat.values())
    assert sum(c.target == BOARD for c in cards) == 5 and sum(c.target == BURN for c in cards) == 3
    st = rig.emu.status()
    assert st.dealt == 28 and st.left == 24
    assert not rig.events.of(E.RequestFailed) and not rig.events.of(E.CardFault)


def test_seeded_shuffles_repeat_and_differ_by_seed(make_rig) -> None:
    firsts = []
    for seed in (5, 5, 6):
        r = make_rig(seed=seed)
        r.new_deck()
        firsts.append([e.card for e in r.deal(1, 5)])
    assert firsts[0] == firsts[1] != firsts[2]


def test_draw_replacements_are_flagged(rig: Rig) -> None:
    rig.new_deck()
    for seat in (1, 2, 3):
        rig.deal(seat, 5)
    rid = rig.driver.draw(2, 3)
    rig.events.wait_for(E.DealDone, request_id=rid)
    drawn = [e for e in rig.events.of(E.CardDelivered) if e.request_id == rid]
    assert len(drawn) == 3 and all(e.draw and e.target == Target.seat_no(2) for e in drawn)
    assert reported(rig) == rig.emu.physical_log()


def test_g5_deal_without_verified_deck_is_refused(rig: Rig) -> None:
    rid = rig.driver.deal(1)
    failed = rig.events.wait_for(E.RequestFailed, request_id=rid)
    assert failed.code == "no-verified-deck" and "G-5" in failed.message
    assert rig.emu.physical_log() == []


def test_bad_arguments_raise_value_errors_naming_the_rule(rig: Rig) -> None:
    for call, rule in ((lambda: rig.driver.deal(11), "L-2"), (lambda: rig.driver.deal("river"), "target"),
                       (lambda: rig.driver.deal(1, 0), "count"), (lambda: rig.driver.draw(1, 6), "G-3")):
        with pytest.raises(ShufflerArgumentError, match=rule) as err:
            call()
        assert isinstance(err.value, ValueError)


def test_status_report(rig: Rig) -> None:
    rig.new_deck()
    rig.deal(4, 2)
    rid = rig.driver.status()
    st = rig.events.wait_for(E.StatusReport, request_id=rid).status
    assert st.state == DeviceState.READY and st.dealt == 2 and st.left == 50 and st.deck_no == 1


# --- link faults ---------------------------------------------------------------------------


def test_lost_reply_to_a_deal_is_recovered_by_asking_status_not_by_resending(rig: Rig) -> None:
    rig.new_deck()
    rig.sync()
    rig.emu.set_faults(drop_replies=1)
    rid = rig.driver.deal(3, 2)
    rig.events.wait_for(E.RequestAccepted, request_id=rid)
    rig.events.wait_for(E.DealDone, request_id=rid)
    assert rig.driver.stats["status_queries"] >= 1 and rig.driver.stats["timeouts"] >= 1
    assert rig.driver.stats["resends"] == 0
    assert len(rig.emu.physical_log()) == 2  # dealt once, not twice
    assert_truthful(rig)


def test_deal_lost_on_the_way_is_resent_after_status_shows_it_was_not_done(rig: Rig) -> None:
    rig.new_deck()
    rig.sync()  # so the dropped frame is the DEAL, not the DECK event's acknowledgement
    rig.emu.set_faults(drop_rx=1)
    rid = rig.driver.deal("board", 3)
    rig.events.wait_for(E.RequestAccepted, request_id=rid)
    rig.events.wait_for(E.DealDone, request_id=rid)
    cards = [e for e in rig.events.of(E.CardDelivered) if e.request_id == rid]
    assert len(cards) == 3 and len(rig.emu.physical_log()) == 3
    assert rig.driver.stats["resends"] >= 1 and rig.driver.stats["status_queries"] >= 1


@pytest.mark.parametrize("fault", [dict(corrupt_tx=4), dict(garbage_tx=4), dict(drop_events=3),
                                   dict(reply_delay=0.08)])
def test_line_faults_lose_and_invent_nothing(rig: Rig, fault: dict) -> None:
    rig.new_deck()
    rig.emu.set_faults(**fault)
    for seat in range(1, 7):
        rig.deal(seat, 2)
    assert reported(rig) == rig.emu.physical_log()
    assert len(rig.events.of(E.CardDelivered)) == 12
    assert not rig.events.of(E.CardFault) and not rig.events.of(E.LinkLost)
    assert not rig.events.of(E.RequestFailed)


def test_corrupted_handshake_replies_end_in_link_lost_then_connect(make_rig) -> None:
    # Every HELLO reply of the first attempt is corrupted: the driver reports the link lost,
    # retries, and restores it once the line is clean.
    rig = make_rig(faults=Faults(corrupt_tx=FAST.retries + 1))
    assert rig.events.of(E.LinkLost)
    restored = rig.events.wait_for(E.LinkRestored)
    assert restored.status.state == DeviceState.NO_DECK and restored.replayed == 0
    assert rig.new_deck().remaining == 52


# --- machine faults ------------------------------------------------------------------------


def test_jam_mid_deal_reports_undelivered_and_resumes_after_reset(make_rig) -> None:
    rig = make_rig(faults=Faults(jam_at=4))
    rig.new_deck()
    rid = rig.driver.deal(1, 5)
    jam = rig.events.wait_for(E.Jammed, request_id=rid)
    assert jam.undelivered == 2 and jam.target == Target.seat_no(1)
    assert len(rig.events.of(E.CardDelivered)) == 3 == len(rig.emu.physical_log())
    refused = rig.driver.deal(2)
    assert rig.events.wait_for(E.RequestFailed, request_id=refused).code == "jammed"
    reset = rig.driver.reset(keep_deck=True)
    rig.events.wait_for(E.RequestAccepted, request_id=reset)
    cards = rig.deal(1, 2)
    assert [c.ordinal for c in cards] == [4, 5]
    assert reported(rig) == rig.emu.physical_log()


@pytest.mark.parametrize("fault", ["duplicate", "missing"])
def test_g5_bad_deck_is_refused_and_named(make_rig, fault: str) -> None:
    rig = make_rig(faults=Faults(**{fault: True}))
    rid = rig.driver.shuffle()
    failed = rig.events.wait_for(E.DeckCheckFailed, request_id=rid)
    assert failed.pauses_hand and len(failed.missing) == 1
    if fault == "duplicate":
        assert failed.count == 52 and len(failed.duplicates) == 1
    else:
        assert failed.count == 51 and failed.duplicates == ()
    # Nothing is dealt from it; a new shuffle brings a good deck.
    deal = rig.driver.deal(1)
    assert rig.events.wait_for(E.RequestFailed, request_id=deal).code == "no-verified-deck"
    assert rig.new_deck().remaining == 52


def test_misread_is_reported_and_never_guessed(make_rig) -> None:
    rig = make_rig(faults=Faults(misread_at=2))
    rig.new_deck()
    rid = rig.driver.deal(5, 2)
    rig.events.wait_for(E.DealDone, request_id=rid)
    mis = rig.events.wait_for(E.Misread)
    assert mis.request_id == rid and mis.target == Target.seat_no(5) and mis.ordinal == 2
    physical = rig.emu.physical_log()
    assert len(physical) == 2 and reported(rig) == physical[:1]


def test_g5_card_reported_twice_in_a_hand_is_a_fault(make_rig) -> None:
    rig = make_rig(faults=Faults(misreport_at=3))
    rig.new_deck()
    rig.deal(1, 2)
    rid = rig.driver.deal(2)
    fault = rig.events.wait_for(E.CardFault, request_id=rid)
    first = rig.events.of(E.CardDelivered)[1]
    assert fault.kind == "duplicate" and fault.card == first.card and fault.first_target == Target.seat_no(1)
    assert len(rig.events.of(E.CardDelivered)) == 2


def test_empty_stub_stops_the_deal(make_rig) -> None:
    rig = make_rig(faults=Faults(empty_at=3))
    rig.new_deck()
    rid = rig.driver.deal("board", 3)
    empty = rig.events.wait_for(E.Empty, request_id=rid)
    assert empty.undelivered == 1 and len(rig.emu.physical_log()) == 2


def test_natural_end_of_deck(rig: Rig) -> None:
    rig.new_deck()
    for _ in range(5):
        rig.deal("burn", 10)
    rid = rig.driver.deal("burn", 5)
    assert rig.events.wait_for(E.Empty, request_id=rid).undelivered == 3
    assert sorted(c for _, c in reported(rig)) == sorted(FULL_DECK)
    refused = rig.driver.deal(1)
    assert rig.events.wait_for(E.RequestFailed, request_id=refused).code == "empty"


def test_door_open_stops_dealing_until_closed(rig: Rig) -> None:
    rig.new_deck()
    rig.emu.open_door()
    rig.events.wait_for(E.DoorOpened)
    rid = rig.driver.deal(1)
    assert rig.events.wait_for(E.RequestFailed, request_id=rid).code == "door-open"
    rig.emu.close_door()
    rig.events.wait_for(E.DoorClosed)
    assert len(rig.deal(1)) == 1


# --- the cable -----------------------------------------------------------------------------


def test_pulled_cable_reconnects_and_reports_what_the_device_did_meanwhile(make_rig) -> None:
    rig = make_rig(deal_time=0.02)
    rig.new_deck()
    rid = rig.driver.deal(1, 6)
    rig.events.wait_for(E.CardDelivered, request_id=rid)
    rig.emu.vanish()  # the machine keeps dealing with nobody listening
    lost = rig.events.wait_for(E.LinkLost)
    assert lost.pauses_hand
    assert rig.emu.wait_idle()
    rig.emu.come_back()
    restored = rig.events.wait_for(E.LinkRestored)
    assert not restored.rebooted and restored.status.dealt == 6 and restored.status.queued == 0
    events = rig.events.events
    cards_before = [e for e in events[: events.index(restored)] if isinstance(e, E.CardDelivered)]
    assert len(cards_before) == 6  # every card dealt meanwhile was posted before LinkRestored
    assert restored.replayed >= 1
    assert reported(rig) == rig.emu.physical_log()
    assert len(rig.deal(2, 1)) == 1  # and the table carries on


def test_request_in_flight_when_device_goes_deaf_is_reported_not_done(make_rig) -> None:
    rig = make_rig()
    rig.new_deck()
    rig.emu.set_faults(drop_rx=10_000)
    rid = rig.driver.deal(1, 2)
    lost = rig.events.wait_for(E.LinkLost)
    assert lost.pending == (rid,)
    rig.emu.set_faults(drop_rx=0)
    restored = rig.events.wait_for(E.LinkRestored)
    assert restored.not_executed == (rid,) and restored.executed == ()
    assert rig.events.wait_for(E.RequestFailed, request_id=rid).code == "link-down"
    assert rig.emu.physical_log() == []


def test_request_done_while_replies_were_lost_is_reported_done(make_rig) -> None:
    rig = make_rig()
    rig.new_deck()
    rig.emu.set_faults(drop_replies=10_000)
    rid = rig.driver.deal(2, 2)
    lost = rig.events.wait_for(E.LinkLost)
    assert lost.pending == (rid,)
    rig.emu.set_faults(drop_replies=0)
    restored = rig.events.wait_for(E.LinkRestored)
    assert restored.executed == (rid,)
    rig.events.wait_for(E.RequestAccepted, request_id=rid)
    rig.events.wait_for(E.DealDone, request_id=rid)
    assert reported(rig) == rig.emu.physical_log() and len(reported(rig)) == 2


def test_commands_while_link_is_down_fail_fast(make_rig) -> None:
    rig = make_rig()
    rig.emu.vanish()
    rig.events.wait_for(E.LinkLost)
    rid = rig.driver.status()
    assert rig.events.wait_for(E.RequestFailed, request_id=rid).code == "link-down"
    rig.emu.come_back()
    rig.events.wait_for(E.LinkRestored)


def test_device_reboot_while_away_drops_the_deck(make_rig) -> None:
    rig = make_rig()
    rig.new_deck()
    rig.emu.vanish()
    rig.events.wait_for(E.LinkLost)
    rig.emu.reboot()
    rig.emu.come_back()
    restored = rig.events.wait_for(E.LinkRestored)
    assert restored.rebooted and restored.status.state == DeviceState.NO_DECK
    assert len(rig.events.of(E.DeviceIdentified)) == 2
    rid = rig.driver.deal(1)
    assert rig.events.wait_for(E.RequestFailed, request_id=rid).code == "no-verified-deck"
    assert rig.new_deck().deck_no == 1


def test_idle_heartbeat_notices_a_silent_device(make_rig) -> None:
    from dataclasses import replace

    from .conftest import FAST
    rig = make_rig(timing=replace(FAST, heartbeat=0.05))
    rig.emu.set_faults(drop_rx=10_000)
    lost = rig.events.wait_for(E.LinkLost)
    assert lost.pending == () and "STATUS" in lost.reason
    rig.emu.set_faults(drop_rx=0)
    rig.events.wait_for(E.LinkRestored)


def test_wire_log_records_frames_and_noise(rig: Rig, caplog) -> None:
    caplog.set_level("DEBUG", logger="livetable.shuffler.wire")
    rig.emu.set_faults(garbage_tx=2)
    rig.new_deck()
    rig.sync()
    text = caplog.text
    assert "TX seq=" in text and "type=0x03" in text  # the SHUFFLE went out
    assert "RX seq=" in text and "type=0xc2" in text  # the DECK event came in
    assert "noise" in text and rig.driver.stats["noise_bytes"] > 0


def test_device_restart_on_a_live_link_is_noticed_and_resumed(rig: Rig) -> None:
    rig.new_deck()
    rig.emu.reboot()  # the port stays open; the device forgot the session
    rid = rig.driver.deal(1)
    assert rig.events.wait_for(E.RequestFailed, request_id=rid).code == "no-session"
    restored = rig.events.wait_for(E.LinkRestored)
    assert restored.rebooted and restored.status.state == DeviceState.NO_DECK
    assert rig.emu.physical_log() == []
    rig.new_deck()
    assert len(rig.deal(1)) == 1


def test_seq_wrap_never_reuses_the_last_executed_seq(rig: Rig) -> None:
    # After 255 requests the SEQ wraps. If a new deal reused the SEQ of the last deal the
    # device executed, a lost deal would look done to STATUS (and a real one like a resend).
    rig.new_deck()
    rig.deal(1)
    last = rig.emu.status().last_seq
    while rig.driver._seq % 255 + 1 != last:  # walk the SEQ round to just before it
        rig.sync()
    rig.emu.set_faults(drop_rx=1)  # and lose the next deal on the way
    cards = rig.deal(2)
    assert len(cards) == 1 and reported(rig) == rig.emu.physical_log()
    assert rig.emu.status().last_seq != last


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_full_deal_under_random_line_faults_loses_and_invents_nothing(rig: Rig, seed: int) -> None:
    import random
    rng = random.Random(seed)
    rig.new_deck()
    kinds = ["drop_rx", "drop_replies", "drop_events", "corrupt_tx", "garbage_tx", None]
    plan = [(s, 2) for s in range(1, 11)] + [("burn", 1), ("board", 3), ("burn", 1), ("board", 1),
                                               ("burn", 1), ("board", 1)]
    for target, count in plan:
        kind = rng.choice(kinds)
        if kind:
            rig.emu.set_faults(**{kind: rng.randint(1, 2)})
        rig.deal(target, count)
    assert_truthful(rig)
    assert len(reported(rig)) == 28
    assert not rig.events.of(E.CardFault) and not rig.events.of(E.RequestFailed)


def test_door_opened_mid_deal_stops_it_and_accounts_for_every_card(make_rig) -> None:
    rig = make_rig(deal_time=0.02)
    rig.new_deck()
    rid = rig.driver.deal(1, 8)
    rig.events.wait_for(E.CardDelivered, request_id=rid)
    rig.emu.open_door()
    stopped = rig.events.wait_for(E.Jammed, request_id=rid)
    rig.events.wait_for(E.DoorOpened)
    assert rig.emu.wait_idle()
    delivered = [e for e in rig.events.of(E.CardDelivered) if e.request_id == rid]
    assert len(delivered) + stopped.undelivered == 8
    assert reported(rig) == rig.emu.physical_log()
    rig.emu.close_door()
    rig.events.wait_for(E.DoorClosed)
    assert len(rig.deal(1, 8 - len(delivered))) == stopped.undelivered


def test_reset_takes_the_deck_out(rig: Rig) -> None:
    rig.new_deck()
    rig.deal(1, 2)
    rid = rig.driver.reset()
    rig.events.wait_for(E.RequestAccepted, request_id=rid)
    assert rig.emu.status().state == DeviceState.NO_DECK
    deal = rig.driver.deal(1)
    assert rig.events.wait_for(E.RequestFailed, request_id=deal).code == "no-verified-deck"


def test_deck_check_mid_hand_proves_stub_plus_dealt(rig: Rig) -> None:
    rig.new_deck()
    rig.deal(1, 2)
    rig.deal("burn")
    rid = rig.driver.deck_check()
    ready = rig.events.wait_for(E.DeckReady, request_id=rid)
    assert (ready.remaining, ready.dealt) == (49, 3)


def test_deal_the_device_never_takes_times_out_without_dealing(rig: Rig) -> None:
    # Every DEAL frame is lost but STATUS answers: after the bounded tries the request fails
    # with "timeout"; the link stays up, nothing was dealt, and the next deal works.
    rig.new_deck()
    rig.emu.set_faults(drop_commands=FAST.retries + 1)
    rid = rig.driver.deal(1)
    failed = rig.events.wait_for(E.RequestFailed, request_id=rid)
    assert failed.code == "timeout"
    assert rig.driver.stats["status_queries"] >= FAST.retries
    assert rig.emu.physical_log() == [] and not rig.events.of(E.LinkLost)
    assert len(rig.deal(1)) == 1


def test_shuffle_refused_while_dealing_keeps_the_proven_deck(make_rig) -> None:
    rig = make_rig(deal_time=0.02)
    rig.new_deck()
    deal = rig.driver.deal(1, 5)
    shuffle = rig.driver.shuffle()
    assert rig.events.wait_for(E.RequestFailed, request_id=shuffle).code == "busy"
    rig.events.wait_for(E.DealDone, request_id=deal)
    assert len(rig.deal(2, 1)) == 1  # still dealing from the proven deck
    assert reported(rig) == rig.emu.physical_log()


def test_slow_shuffle_reply_does_not_forget_the_new_deck(rig: Rig) -> None:
    # The DECK event of the new deck overtakes the delayed ACK of the SHUFFLE.
    rig.emu.set_faults(reply_delay=0.03)
    rid = rig.driver.shuffle()
    rig.events.wait_for(E.RequestAccepted, request_id=rid)
    assert rig.events.of(E.DeckReady)
    rig.emu.set_faults(reply_delay=0.0)
    assert len(rig.deal(1, 2)) == 2


def test_request_in_flight_across_a_device_restart_is_unknown(make_rig) -> None:
    rig = make_rig()
    rig.new_deck()
    rig.emu.set_faults(drop_rx=10_000)
    rid = rig.driver.deal(1)
    assert rig.events.wait_for(E.LinkLost).pending == (rid,)
    rig.emu.reboot()
    rig.emu.set_faults(drop_rx=0)
    restored = rig.events.wait_for(E.LinkRestored)
    assert restored.rebooted and restored.not_executed == (rid,)
    assert rig.events.wait_for(E.RequestFailed, request_id=rid).code == "device-restarted"


def test_a_failing_post_does_not_stop_the_driver(make_rig) -> None:
    rig = make_rig()
    real = rig.driver._post_fn

    def flaky(event: E.ShufflerEvent) -> None:
        if isinstance(event, E.StatusReport):
            raise RuntimeError("the table's queue is broken")
        real(event)

    rig.driver._post_fn = flaky
    rig.driver.status()
    assert rig.new_deck().remaining == 52  # the link thread lived on
