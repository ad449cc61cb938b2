"""Fuzz the codec and the driver's frame handling with random bytes and random frames.

No exception escapes, no false frame is accepted, no card is posted that the deck does not
prove. ``derandomize`` keeps CI runs identical.
"""

from __future__ import annotations

import struct

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.engine.cards import FULL_DECK
from drivers.shuffler import events as E
from drivers.shuffler import protocol as P
from drivers.shuffler.codec import MAX_PAYLOAD, Decoder, Frame, encode
from drivers.shuffler.link import LinkTiming, ShufflerDriver

FUZZ = settings(derandomize=True, max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])
frames = st.builds(Frame, st.integers(0, 255), st.integers(0, 255), st.binary(max_size=MAX_PAYLOAD))


@FUZZ
@given(st.binary(max_size=2000))
def test_random_bytes_never_raise_and_every_frame_is_really_there(data: bytes) -> None:
    dec = Decoder()
    got = dec.feed(data)
    while dec.pending:
        got += dec.expire()
    for f in got:  # a frame is accepted only if its exact encoding, CRC and all, is in the input
        assert encode(f) in data


@FUZZ
@given(st.lists(st.tuples(st.binary(max_size=40), frames), max_size=6), st.binary(max_size=40),
       st.integers(1, 64))
def test_real_frames_survive_any_garbage_between_them(parts, tail: bytes, chunk: int) -> None:
    data = b"".join(g + encode(f) for g, f in parts) + tail
    dec = Decoder()
    got: list[Frame] = []
    for i in range(0, len(data), chunk):
        got += dec.feed(data[i : i + chunk])
    while dec.pending:
        got += dec.expire()
    real = [f for _, f in parts]
    it = iter(got)
    assert all(any(g == f for g in it) for f in real)  # every real frame, in order
    for f in got:
        assert encode(f) in data


class FakePort:
    """Stands in for the serial port so frames reach the driver's own handler directly."""

    def __init__(self) -> None:
        self.written = bytearray()

    def write(self, data: bytes) -> int:
        self.written += data
        return len(data)


def _driver() -> tuple[ShufflerDriver, list[E.ShufflerEvent]]:
    posted: list[E.ShufflerEvent] = []
    drv = ShufflerDriver("loop://", post=posted.append, clock=lambda: 0.0, timing=LinkTiming())
    drv._port = FakePort()  # type: ignore[assignment]
    drv._gen = 1
    return drv, posted


def _event(typ: int, no: int, body: bytes) -> Frame:
    return Frame(0, typ, struct.pack(">I", no) + body)


plausible = st.one_of(
    frames,
    st.builds(_event, st.sampled_from([int(e) for e in P.Evt]), st.integers(0, 4),
              st.binary(max_size=60)),
    st.builds(lambda no, d, cards: _event(P.Evt.DECK, no, struct.pack(">BHBB", 2, d, 0, len(cards)) + bytes(cards)),
              st.integers(0, 4), st.integers(0, 3),
              st.lists(st.integers(0, 60), max_size=53)),
    st.builds(lambda no, seq, tgt, card, ordn, d: _event(P.Evt.CARD, no, struct.pack(">BBBBHB", seq, tgt, card, ordn, d, 0)),
              st.integers(0, 4), st.integers(0, 255), st.integers(0, 16), st.integers(0, 60),
              st.integers(1, 52), st.integers(0, 3)),
)


@FUZZ
@given(st.lists(plausible, max_size=40))
def test_driver_frame_handling_survives_random_frames(fs: list[Frame]) -> None:
    drv, posted = _driver()
    for f in fs:
        drv._handle_item(("frame", 1, f), drv._backlog)  # the link thread's entry point
    assert all(isinstance(e, E.ShufflerEvent) for e in posted)
    # Nothing invented: a card is only ever posted from a proven deck, and never twice.
    cards = [e.card for e in posted if isinstance(e, E.CardDelivered)]
    assert len(cards) == len(set(cards))
    if cards:
        assert any(isinstance(e, E.DeckReady) for e in posted)


def test_driver_accepts_a_proper_deck_and_cards_then_rejects_a_repeat() -> None:
    # The positive control for the fuzz test: the same entry point does accept sound input.
    drv, posted = _driver()
    deck = _event(P.Evt.DECK, 1, struct.pack(">BHBB", 2, 1, 0, 52) + bytes(range(52)))
    card = _event(P.Evt.CARD, 2, struct.pack(">BBBBHB", 1, 3, 51, 1, 1, 0))
    again = _event(P.Evt.CARD, 3, struct.pack(">BBBBHB", 1, 4, 51, 2, 1, 0))
    for f in (deck, card, card, again):
        drv._handle_item(("frame", 1, f), drv._backlog)
    kinds = [type(e).__name__ for e in posted]
    assert kinds == ["DeckReady", "CardDelivered", "CardFault"]
    assert posted[1].card == FULL_DECK[51] and posted[2].kind == "duplicate"


def test_random_bytes_on_the_live_line_are_never_taken_for_frames(make_rig) -> None:
    # The production path: random bytes from the device side of a real pty reach the driver's
    # reader thread, codec and link thread. The driver keeps working and posts nothing false.
    from .conftest import Rig  # noqa: PLC0415

    rig: Rig = make_rig()
    rig.new_deck()
    baseline = len(rig.events.events)

    @settings(derandomize=True, max_examples=25, deadline=None)
    @given(st.binary(min_size=1, max_size=300))
    def noise(data: bytes) -> None:
        rig.emu.send_raw(data)
        rig.sync()

    noise()
    extra = rig.events.events[baseline:]
    assert extra and all(isinstance(e, E.StatusReport) for e in extra)
    assert len(rig.deal(3, 2)) == 2 and rig.driver.stats["noise_bytes"] > 0
