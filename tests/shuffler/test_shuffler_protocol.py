"""Payload layouts: round trips and clear errors for malformed payloads."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.engine.cards import FULL_DECK, parse_card
from drivers.shuffler import protocol as P

targets = st.one_of(st.integers(1, 10).map(P.Target.seat_no), st.sampled_from([P.BOARD, P.BURN]))
cards = st.one_of(st.none(), st.sampled_from(FULL_DECK))
u32 = st.integers(0, 2**32 - 1)


@given(u32, st.integers(0, 255), targets, cards, st.integers(1, 52), st.integers(0, 65535), st.booleans())
def test_card_event_round_trip(no, seq, target, card, ordinal, deck, draw) -> None:
    e = P.CardEvent(no, seq, target, card, ordinal, deck, draw)
    assert P.unpack_card_event(P.pack_card_event(e)) == e
    assert P.unpack_event_no(P.pack_card_event(e)) == no


@given(u32, st.integers(0, 255), st.integers(0, 65535), st.integers(0, 52), st.lists(cards, max_size=52))
def test_deck_event_round_trip(no, seq, deck, dealt, cs) -> None:
    e = P.DeckEvent(no, seq, deck, dealt, tuple(cs))
    assert P.unpack_deck_event(P.pack_deck_event(e)) == e


def test_status_hello_stop_door_done_round_trip() -> None:
    s = P.DeviceStatus(P.DeviceState.DEALING, P.Fault.NONE, False, 3, 20, 32, 17, 0, 123456, 2)
    assert P.unpack_status(P.pack_status(s)) == s
    h = P.Hello(1, 0xDEADBEEF, 42, "LT-SHUFFLER", "fw-2.1")
    assert P.unpack_hello(P.pack_hello(h)) == h
    stop = P.StopEvent(9, 4, P.BOARD, 3, 25, 2)
    assert P.unpack_stop_event(P.pack_stop_event(stop)) == stop
    assert P.unpack_door_event(P.pack_door_event(P.DoorEvent(5, True))) == P.DoorEvent(5, True)
    assert P.unpack_done_event(P.pack_done_event(P.DoneEvent(5, 7, 3))) == P.DoneEvent(5, 7, 3)
    assert P.unpack_hello_request(P.pack_hello_request(resume=True)) == (P.PROTOCOL_VERSION, True)


@pytest.mark.parametrize("fn, payload", [
    (P.unpack_status, b"\x00" * 13),
    (P.unpack_status, b"\x09" + b"\x00" * 13),      # state 9 does not exist
    (P.unpack_card_event, b"\x00" * 10),
    (P.unpack_card_event, b"\x00\x00\x00\x01\x01\x0b\x00\x01\x00\x01\x00"),  # target 11
    (P.unpack_card_event, b"\x00\x00\x00\x01\x01\x01\x34\x01\x00\x01\x00"),  # card 52
    (P.unpack_deck_event, b"\x00\x00\x00\x01\x07\x00\x01\x00\x03\x01\x02"),  # says 3, has 2
    (P.unpack_hello, b"\x01\x00\x00\x00\x01\x00\x00\x00\x00\x05ab\x00"),
    (P.unpack_event_no, b"\x00\x01"),
])
def test_malformed_payloads_raise_payload_error(fn, payload) -> None:
    with pytest.raises(P.PayloadError):
        fn(payload)


def test_target_parse_and_codes() -> None:
    assert P.Target.parse(3) == P.Target.seat_no(3) == P.Target.parse("seat 3")
    assert P.Target.parse("Board") is P.BOARD or P.Target.parse("Board") == P.BOARD
    assert [P.Target.from_code(t.code) for t in (P.BURN, P.BOARD, P.Target.seat_no(10))] == [P.BURN, P.BOARD, P.Target.seat_no(10)]
    for bad in (0, 11, "seat", "river", True, 2.0):
        with pytest.raises(ValueError):
            P.Target.parse(bad)


def test_card_codes_are_the_engine_index() -> None:
    assert P.card_code(parse_card("As")) == parse_card("As").index
    assert P.code_card(P.UNREADABLE) is None
    assert [P.code_card(P.card_code(c)) for c in FULL_DECK] == list(FULL_DECK)
