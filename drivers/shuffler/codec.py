"""The shuffler wire codec: frames to bytes and bytes to frames, no I/O (docs/shuffler-protocol.md).

A frame on the wire is::

    0x7E | LEN | SEQ | TYPE | PAYLOAD (LEN bytes) | CRC16 (2 bytes, big-endian)

``LEN`` is the payload length (0..:data:`MAX_PAYLOAD`); the CRC is CRC-16/CCITT-FALSE
(polynomial 0x1021, initial value 0xFFFF, as computed by :func:`binascii.crc_hqx`) over
``LEN SEQ TYPE PAYLOAD``. There is no byte stuffing: the decoder hunts for the sync byte and
checks the CRC; on any mismatch it drops only that sync byte and hunts again, so a real frame
that starts inside a false candidate is still found (the same resynchronisation idea as
Klipper's ``msgproto``/``serialqueue``).

This module is pure: :class:`Decoder` takes bytes and returns :class:`Frame` values, and
:func:`encode` returns bytes. The link (``drivers.shuffler.link``) and the emulator share it.
"""

from __future__ import annotations

from binascii import crc_hqx
from dataclasses import dataclass

__all__ = ["SYNC", "HEADER", "OVERHEAD", "MAX_PAYLOAD", "Frame", "FrameError", "crc16", "encode", "Decoder"]

#: The sync byte that starts every frame.
SYNC = 0x7E
#: Bytes before the payload: sync, length, sequence, type.
HEADER = 4
#: Bytes of a frame that are not payload: header plus the CRC.
OVERHEAD = HEADER + 2
#: Largest payload in bytes (the deck check, 61 bytes, is the largest message).
MAX_PAYLOAD = 80


class FrameError(ValueError):
    """A frame cannot be encoded: a field is out of range (shuffler protocol, section Frames)."""


def crc16(data: bytes) -> int:
    """Return the CRC-16/CCITT-FALSE of ``data`` (0..0xFFFF); ``crc16(b"123456789") == 0x29B1``."""
    return crc_hqx(data, 0xFFFF)


@dataclass(frozen=True, slots=True)
class Frame:
    """One decoded or to-be-encoded frame.

    ``seq`` is 0..255 (the request number, see the protocol), ``type`` 0..255 (the message
    type), ``payload`` 0..:data:`MAX_PAYLOAD` bytes.
    """

    seq: int
    type: int
    payload: bytes = b""


def encode(frame: Frame) -> bytes:
    """Return the wire bytes of ``frame`` (``len(payload) + 6`` bytes).

    Raises:
        FrameError: ``seq`` or ``type`` outside 0..255, or the payload longer than
            :data:`MAX_PAYLOAD`.
    """
    seq, typ, payload = frame.seq, frame.type, frame.payload
    if not (0 <= seq <= 0xFF and 0 <= typ <= 0xFF):
        raise FrameError(f"shuffler frame: seq and type must be 0..255, got {seq!r}, {typ!r}")
    if len(payload) > MAX_PAYLOAD:
        raise FrameError(f"shuffler frame: payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    body = bytes((len(payload), seq, typ)) + bytes(payload)
    return b"\x7e" + body + crc16(body).to_bytes(2, "big")


class Decoder:
    """Turn a byte stream into frames, resynchronising after garbage or corruption.

    Feed it any chunks (a frame may be split across chunks); it returns the complete, CRC-valid
    frames in order. Counters for the wire log: ``frames``, ``crc_errors`` (candidates with the
    sync byte and a sane length but a wrong CRC), ``dropped`` (bytes skipped while hunting).
    Never raises on any input.
    """

    __slots__ = ("_buf", "frames", "crc_errors", "dropped")

    def __init__(self) -> None:
        self._buf = bytearray()
        self.frames = 0
        self.crc_errors = 0
        self.dropped = 0

    @property
    def pending(self) -> int:
        """Return how many bytes are held waiting for the rest of a frame."""
        return len(self._buf)

    def expire(self) -> list[Frame]:
        """Give up on a partial frame; return the frames found in what was buffered after it.

        Call it when the line has been quiet longer than a frame takes. A corrupted length byte
        can make the decoder wait for up to ``MAX_PAYLOAD`` bytes that belong to later frames;
        expiring drops the false start's sync byte and hunts again in what is buffered, so
        nothing real is lost.
        """
        if not self._buf:
            return []
        del self._buf[0]
        self.dropped += 1
        return self.feed(b"")

    def feed(self, data: bytes) -> list[Frame]:
        """Add ``data`` (bytes-like) and return every frame completed by it, oldest first."""
        buf = self._buf
        buf += data
        out: list[Frame] = []
        while buf:
            if buf[0] != SYNC:
                i = buf.find(b"\x7e")
                n = len(buf) if i < 0 else i
                del buf[:n]
                self.dropped += n
                if not buf:
                    break
            if len(buf) < 2:
                break
            length = buf[1]
            if length > MAX_PAYLOAD:
                del buf[0]
                self.dropped += 1
                continue
            end = length + OVERHEAD
            if len(buf) < end:
                break
            body = bytes(buf[1 : end - 2])
            if crc_hqx(body, 0xFFFF) != (buf[end - 2] << 8 | buf[end - 1]):
                self.crc_errors += 1
                del buf[0]
                self.dropped += 1
                continue
            out.append(Frame(body[1], body[2], body[3:]))
            del buf[:end]
            self.frames += 1
        return out
