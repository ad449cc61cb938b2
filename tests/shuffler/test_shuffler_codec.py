"""Codec tests: round trips, every corruption detected, resynchronisation after garbage."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.shuffler.codec import MAX_PAYLOAD, OVERHEAD, Decoder, Frame, FrameError, crc16, encode

frames = st.builds(Frame, st.integers(0, 255), st.integers(0, 255), st.binary(max_size=MAX_PAYLOAD))

SAMPLES = [
    Frame(0, 0xC1, bytes(range(11))),
    Frame(7, 0x05, b"\x03\x02"),
    Frame(255, 0x7E, b"\x7e\x7e\x7e"),  # sync bytes inside: no stuffing needed
    Frame(1, 0x02, b""),
    Frame(9, 0xC2, bytes(range(60))),
]


def drain(data: bytes) -> list[Frame]:
    """Decode ``data`` completely, expiring partial frames as a quiet line would."""
    dec = Decoder()
    out = dec.feed(data)
    while dec.pending:
        out += dec.expire()
    return out


def test_crc16_is_ccitt_false() -> None:
    # The published check value of CRC-16/CCITT-FALSE.
    assert crc16(b"123456789") == 0x29B1


@given(st.lists(frames, max_size=8))
def test_round_trip_any_frames_any_chunking(fs: list[Frame]) -> None:
    data = b"".join(encode(f) for f in fs)
    assert Decoder().feed(data) == fs
    dec = Decoder()
    got = [f for b in data for f in dec.feed(bytes((b,)))]
    assert got == fs
    assert dec.pending == 0


def test_encoded_size_and_layout() -> None:
    f = Frame(7, 0x05, b"\x03\x02")
    raw = encode(f)
    assert len(raw) == 2 + OVERHEAD
    assert raw[:4] == bytes((0x7E, 2, 7, 5))
    assert int.from_bytes(raw[-2:], "big") == crc16(raw[1:-2])


@pytest.mark.parametrize("bad", [Frame(256, 1), Frame(-1, 1), Frame(1, 300), Frame(1, 1, bytes(MAX_PAYLOAD + 1))])
def test_encode_rejects_out_of_range_fields(bad: Frame) -> None:
    with pytest.raises(FrameError) as err:
        encode(bad)
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize("frame", SAMPLES)
def test_every_single_bit_flip_is_detected(frame: Frame) -> None:
    raw = encode(frame)
    for i in range(len(raw)):
        for bit in range(8):
            bad = bytearray(raw)
            bad[i] ^= 1 << bit
            assert drain(bytes(bad)) == [], (i, bit)


@pytest.mark.parametrize("frame", SAMPLES)
def test_every_byte_replacement_is_detected(frame: Frame) -> None:
    raw = encode(frame)
    for i in range(len(raw)):
        for value in range(256):
            if value == raw[i]:
                continue
            bad = bytearray(raw)
            bad[i] = value
            assert drain(bytes(bad)) == [], (i, value)


@pytest.mark.parametrize("frame", SAMPLES)
def test_truncation_and_dropped_bytes_are_detected(frame: Frame) -> None:
    raw = encode(frame)
    for n in range(len(raw)):
        assert drain(raw[:n]) == []
        assert drain(raw[:n] + raw[n + 1 :]) == [], n


def test_a_corrupted_frame_does_not_hide_the_next_one() -> None:
    a, b = encode(SAMPLES[0]), encode(SAMPLES[1])
    for i in range(1, len(a)):
        bad = bytearray(a)
        bad[i] ^= 0xFF
        assert drain(bytes(bad) + b) == [SAMPLES[1]], i


def test_resync_after_garbage_with_false_sync_bytes() -> None:
    garbage = b"\x7e\x50\x01\x02" + b"\x7e" * 5 + b"hello\x7e\x03"
    data = garbage + encode(SAMPLES[1]) + garbage + encode(SAMPLES[0]) + garbage
    dec = Decoder()
    got = dec.feed(data)
    while dec.pending:
        got += dec.expire()
    assert got == [SAMPLES[1], SAMPLES[0]]
    assert dec.dropped >= 2 * len(garbage)


def test_expire_recovers_a_frame_swallowed_by_a_false_length() -> None:
    # "7E 50" announces an 80-byte payload; the real frame behind it must not wait forever.
    dec = Decoder()
    assert dec.feed(b"\x7e\x50" + encode(SAMPLES[1])) == []
    assert dec.expire() == [SAMPLES[1]]
    assert dec.pending == 0
