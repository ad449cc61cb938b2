"""Read a photo from a file and say when the file is damaged (issue 16, 10).

OpenCV's ``imread`` decodes a truncated JPEG without an error: libjpeg only prints
"Premature end of JPEG file" on stderr and the missing rows come back grey, and a damaged
PNG fares no better. :func:`read_image` reads the file once, checks its structure, decodes
the bytes with ``cv2.imdecode`` and checks the picture against the header:

- JPEG (ITU-T T.81, JFIF): starts with SOI; every segment's length stays inside the file; a
  frame header (SOF) gives the size; every scan (SOS) is followed, after its entropy-coded
  data (where 0xFF is only ever followed by 0x00 or a restart marker), by another marker;
  the file has an EOI (end marker); data after it is not looked at.
- PNG (ISO/IEC 15948): the signature, every chunk whole and its CRC-32 right (any bit flip
  anywhere in a chunk is caught), IHDR first, IEND last.
- A picture larger than :data:`MAX_PIXELS` by its header is refused before it is decoded
  (a 60000x60000 PNG would otherwise end in OpenCV's own assertion, or fill the memory).
- Other formats OpenCV reads (BMP, TIFF, WebP) are only decoded; OpenCV's refusal of one
  (its own size limit, say) is an :class:`ImageFileError` too.
- The decoded picture must have the header's width and height.
- A JPEG's compressed data is also decoded by libjpeg-turbo through simplejpeg with
  ``strict=True``, which raises on what libjpeg only warns about: "Corrupt JPEG data: ..."
  (a bit flip that desynchronises the compressed data is found only this way) makes the
  file damaged too. (OpenCV's ``imdecode`` prints those warnings on stderr and returns the
  picture; Pillow's decoder ignores them.) The check decodes at 1/8 scale in grey: the
  entropy-coded data is read whole all the same, at about half the cost of a full decode.
  (simplejpeg has no wheel for 32-bit ARM: there it is not installed and this one check is
  skipped; the rest stands.)

JPEG has no checksum: a bit flip inside the compressed picture that keeps the data in step
changes a few pixels and cannot be told from a sound file by any reader; such a photo is
read as it decodes (docs/vision.md).
"""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np

try:
    import simplejpeg
except ImportError:  # pragma: no cover - no wheel for 32-bit ARM (armv7l): that one check is skipped there
    simplejpeg = None

__all__ = ["ImageFileError", "read_image", "decode_image", "check_structure"]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_BYTES = 64 << 20  # a camera's photo is a few MB
#: the most pixels a picture may have by its header (50 megapixels, 150 MB decoded: more than
#: a phone's largest usual photo; the recognizer works on 1280x720 frames)
MAX_PIXELS = 50_000_000
# SOF markers that carry a frame header (not DHT C4, JPG C8, DAC CC).
_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}
_STANDALONE = {0x01, *range(0xD0, 0xD8)}  # TEM, RST0..7: no length


class ImageFileError(ValueError):
    """The file is missing, not a picture, or damaged; ``str()`` says which and where."""


def read_image(path: str | os.PathLike[str]) -> np.ndarray:
    """Read the photo at ``path`` as a BGR ``(H, W, 3)`` uint8 array.

    Raises :class:`ImageFileError` when the file is missing, a folder, unreadable, not an
    image, damaged, or larger than :data:`MAX_PIXELS` (see the module docstring).
    """
    p = Path(path)
    if not p.exists():
        raise ImageFileError(f"vision: {path}: no such file")
    if p.is_dir():
        raise ImageFileError(f"vision: {path} is a folder, not an image")
    if not p.is_file():  # a FIFO would block the reader for ever, a device never ends
        raise ImageFileError(f"vision: {path} is not a regular file")
    try:
        if p.stat().st_size > MAX_BYTES:
            raise ImageFileError(f"vision: {path} is {p.stat().st_size} bytes, over {MAX_BYTES} for a photo")
        data = p.read_bytes()
    except OSError as exc:
        raise ImageFileError(f"vision: {path}: cannot read it: {exc.strerror or exc}") from None
    return decode_image(data, str(path))


def decode_image(data: bytes, name: str = "image") -> np.ndarray:
    """Decode the bytes of an image file (as :func:`read_image`); ``name`` is for messages.

    Raises :class:`ImageFileError` (not an image, damaged, too large). Thread-safe.
    """
    size = check_structure(data, name)
    if size is not None and size[0] * size[1] > MAX_PIXELS:
        raise ImageFileError(f"vision: {name} is {size[0]}x{size[1]} pixels by its header, over the "
                             f"limit of {MAX_PIXELS:,} pixels (MAX_PIXELS) for a photo: not decoded")
    if data.startswith(b"\xff\xd8"):
        _check_jpeg_data(data, name)
    try:
        img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    except cv2.error as exc:  # e.g. its own size limit on a format not checked above
        raise ImageFileError(f"vision: {name}: OpenCV refuses it: {str(exc).strip().splitlines()[-1]}") from None
    if img is None:
        kind = "damaged" if size is not None else "not an image OpenCV can read"
        raise ImageFileError(f"vision: {name} is {kind}" + (": it does not decode" if size is not None else ""))
    if size is not None and (img.shape[1], img.shape[0]) != size:
        raise ImageFileError(f"vision: {name} is damaged: its header says {size[0]}x{size[1]} pixels, "
                             f"it decodes to {img.shape[1]}x{img.shape[0]}")
    return img


def check_structure(data: bytes, name: str = "image") -> tuple[int, int] | None:
    """Check a JPEG's or PNG's structure; return its ``(width, height)`` from the header.

    Returns None for other formats (not checked here). Raises :class:`ImageFileError`
    naming what is wrong and at which byte.
    """
    if data.startswith(b"\xff\xd8"):
        return _check_jpeg(data, name)
    if data.startswith(PNG_SIGNATURE[:4]):
        return _check_png(data, name)
    if not data:
        raise ImageFileError(f"vision: {name} is an empty file")
    return None


def _damaged(name: str, what: str) -> ImageFileError:
    return ImageFileError(f"vision: {name} is damaged (truncated or corrupt): {what}")


def _check_jpeg(data: bytes, name: str) -> tuple[int, int]:
    n, pos, size = len(data), 2, None
    while True:
        if pos >= n:
            raise _damaged(name, f"the JPEG ends at byte {n} without its end marker (EOI)")
        if data[pos] != 0xFF:
            raise _damaged(name, f"byte {pos} should start a JPEG marker (0xFF), found 0x{data[pos]:02X}")
        while pos < n and data[pos] == 0xFF:  # fill bytes before a marker
            pos += 1
        if pos >= n:
            raise _damaged(name, f"the JPEG ends at byte {n} inside a marker")
        marker = data[pos]
        pos += 1
        if marker == 0xD9:  # EOI
            if size is None:
                raise _damaged(name, "the JPEG ends before any frame header (SOF)")
            return size  # data after EOI (a camera's extras) is not part of the picture
        if marker in _STANDALONE:
            continue
        if marker in (0x00, 0xD8):
            raise _damaged(name, f"unexpected JPEG marker 0xFF{marker:02X} at byte {pos - 2}")
        if pos + 2 > n:
            raise _damaged(name, f"the JPEG ends at byte {n} inside the length of marker 0xFF{marker:02X}")
        length = struct.unpack_from(">H", data, pos)[0]
        if length < 2 or pos + length > n:
            raise _damaged(name, f"segment 0xFF{marker:02X} at byte {pos - 2} claims {length} bytes, "
                                 f"{n - pos} are left")
        if marker in _SOF:
            if length < 8:
                raise _damaged(name, f"frame header at byte {pos - 2} is {length} bytes")
            height, width = struct.unpack_from(">HH", data, pos + 3)
            if width == 0 or height == 0:
                raise _damaged(name, f"frame header at byte {pos - 2} gives a size of {width}x{height}")
            size = (width, height)
        pos += length
        if marker == 0xDA:  # SOS: entropy-coded data up to the next marker that is not RST
            if size is None:
                raise _damaged(name, f"scan at byte {pos - length - 2} before any frame header (SOF)")
            while True:
                pos = data.find(b"\xff", pos)
                if pos < 0 or pos + 1 >= n:
                    raise _damaged(name, f"the JPEG ends at byte {n} inside compressed data (truncated)")
                nxt = data[pos + 1]
                if nxt == 0x00 or 0xD0 <= nxt <= 0xD7:
                    pos += 2
                elif nxt == 0xFF:
                    pos += 1  # fill byte
                else:
                    break  # a marker: the scan is over


def _check_png(data: bytes, name: str) -> tuple[int, int]:
    if not data.startswith(PNG_SIGNATURE):
        raise _damaged(name, "the PNG signature is wrong")
    n, pos, size, first = len(data), len(PNG_SIGNATURE), None, True
    while True:
        if pos + 8 > n:
            raise _damaged(name, f"the PNG ends at byte {n} without its end chunk (IEND)")
        length, kind = struct.unpack_from(">I4s", data, pos)
        if length > n - pos - 12:
            raise _damaged(name, f"chunk {kind!r} at byte {pos} claims {length} bytes, {max(0, n - pos - 12)} "
                                 "are left")
        body = data[pos + 4: pos + 8 + length]
        crc = struct.unpack_from(">I", data, pos + 8 + length)[0]
        if zlib.crc32(body) != crc:
            raise _damaged(name, f"chunk {kind!r} at byte {pos} fails its CRC check")
        if first:
            if kind != b"IHDR" or length < 8:
                raise _damaged(name, "the PNG does not start with its header chunk (IHDR)")
            width, height = struct.unpack_from(">II", data, pos + 8)
            size, first = (width, height), False
        pos += 12 + length
        if kind == b"IEND":
            assert size is not None
            return size


def _check_jpeg_data(data: bytes, name: str) -> None:
    """Raise :class:`ImageFileError` when libjpeg-turbo finds a JPEG's compressed data corrupt.

    simplejpeg (libjpeg-turbo's TurboJPEG API) with ``strict=True`` raises ``ValueError`` on
    what libjpeg only warns about ("Corrupt JPEG data: ...", "Premature end of JPEG file").
    Decoded at 1/8 scale in grey: the whole entropy-coded data is still read. Skipped where
    simplejpeg is not installed (32-bit ARM has no wheel of it: pyproject.toml).
    """
    if simplejpeg is None:
        return
    try:
        colours = simplejpeg.decode_jpeg_header(data)[2]
        simplejpeg.decode_jpeg(data, colorspace="CMYK" if colours in ("CMYK", "YCCK") else "GRAY",
                               min_factor=8, strict=True)
    except ValueError as exc:
        raise ImageFileError(f"vision: {name} is damaged: the JPEG decoder says {str(exc)!r}") from None
