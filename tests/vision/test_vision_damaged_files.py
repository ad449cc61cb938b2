"""`livetable recognize` says a truncated or corrupt photo is damaged (issue 16, 10).

OpenCV's imread decodes a truncated JPEG with no error (the missing rows come back grey),
so the breaker's three damaged JPEGs were read as photos. Damaged copies are made in a
temporary folder, from pictures the test draws and from real photos in ../shared/data
(skipped when absent; nothing derived from them is kept).
"""

from __future__ import annotations

import json
import os
import random
import struct
import threading
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.cli import main as livetable
from tests.conftest import shared_path
from vision import cli_vision, imagefile
from vision.imagefile import ImageFileError, check_structure, decode_image, read_image
from vision.render import render_board

CARDS = ["Jh", "8c", "3d"]
REAL = ["epfl2022__train_16_board.jpg", "epfl2022__kings.jpg", "animanoproject__datenbeispiel.jpg"]
CUTS = (0.02, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99)
needs_simplejpeg = pytest.mark.skipif(imagefile.simplejpeg is None,
                                      reason="simplejpeg is not installed (no wheel for 32-bit ARM)")


def drawn(ext: str) -> bytes:
    ok, buf = cv2.imencode(ext, render_board(CARDS, (1280, 720), "green"))
    assert ok
    return buf.tobytes()


def recognize(capsys: pytest.CaptureFixture[str], *paths: Path) -> tuple[int, list[dict]]:
    capsys.readouterr()
    code = livetable(["recognize", *map(str, paths)])
    return code, [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def truncations(data: bytes) -> list[bytes]:
    return [data[: int(len(data) * f)] for f in CUTS] + [data[:-1], data[:-2]]


def flip(data: bytes, pos: int, bit: int) -> bytes:
    b = bytearray(data)
    b[pos] ^= 1 << bit
    return bytes(b)


def jpeg_marker_bytes(data: bytes) -> list[int]:
    """Positions of the 0xFF of every marker from the first segment to the first scan's data,
    and of the end marker (EOI) at the end."""
    out, pos = [], 2
    while True:
        out.append(pos)
        marker, length = data[pos + 1], struct.unpack_from(">H", data, pos + 2)[0]
        pos += 2 + length
        if marker == 0xDA:
            break
    return out + [len(data) - 2, len(data) - 1]


def assert_damaged(results: list[dict], code: int) -> None:
    assert code == 1
    for r in results:
        assert r["cards"] == [] and "damaged" in r.get("error", ""), r


@pytest.mark.parametrize("ext", [".jpg", ".png"])
def test_a_sound_drawn_picture_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str], ext: str) -> None:
    path = tmp_path / f"board{ext}"
    path.write_bytes(drawn(ext))
    code, [out] = recognize(capsys, path)
    assert code == 0 and "error" not in out and sorted(out["cards"]) == sorted(CARDS)


@pytest.mark.parametrize("ext", [".jpg", ".png"])
def test_truncated_copies_of_a_drawn_picture_are_damaged(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         ext: str) -> None:
    paths = []
    for i, cut in enumerate(truncations(drawn(ext))):
        paths.append(tmp_path / f"cut{i}{ext}")
        paths[-1].write_bytes(cut)
    code, results = recognize(capsys, *paths)
    assert_damaged(results, code)


def test_truncated_copies_of_real_photos_are_damaged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = []
    for name in REAL:
        data = shared_path("data", "vision", "dev", name).read_bytes()
        for i, cut in enumerate(truncations(data)):
            paths.append(tmp_path / f"{Path(name).stem}-cut{i}.jpg")
            paths[-1].write_bytes(cut)
    code, results = recognize(capsys, *paths)
    assert_damaged(results, code)
    assert len(results) == len(REAL) * (len(CUTS) + 2)


def test_a_bit_flipped_anywhere_in_a_png_is_damaged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = drawn(".png")
    rng = random.Random(16)
    paths = []
    for i in range(40):  # past the 8-byte signature: every chunk has a CRC
        paths.append(tmp_path / f"flip{i}.png")
        paths[-1].write_bytes(flip(data, rng.randrange(8, len(data)), rng.randrange(8)))
    code, results = recognize(capsys, *paths)
    assert_damaged(results, code)


@pytest.mark.parametrize("source", ["drawn", "real"])
def test_a_bit_flipped_in_a_jpegs_markers_is_damaged(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      source: str) -> None:
    data = drawn(".jpg") if source == "drawn" else shared_path("data", "vision", "dev", REAL[0]).read_bytes()
    paths = []
    for pos in jpeg_marker_bytes(data):
        for bit in range(8):
            paths.append(tmp_path / f"flip{pos}-{bit}.jpg")
            paths[-1].write_bytes(flip(data, pos, bit))
    code, results = recognize(capsys, *paths)
    assert_damaged(results, code)


@needs_simplejpeg
def test_what_the_jpeg_decoder_reports_makes_the_file_damaged(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Bytes slipped into the compressed data keep the structure whole; libjpeg notices
    ("Corrupt JPEG data: 16 extraneous bytes before marker 0xd9"), imread does not say."""
    data = drawn(".jpg")
    bad = data[:-2] + b"\x00" * 16 + data[-2:]
    assert check_structure(bad) == (1280, 720)
    assert cv2.imdecode(np.frombuffer(bad, np.uint8), cv2.IMREAD_COLOR) is not None  # silently "fine"
    path = tmp_path / "slipped.jpg"
    path.write_bytes(bad)
    code, results = recognize(capsys, path)
    assert_damaged(results, code)
    assert "Corrupt JPEG data" in results[0]["error"]


def test_every_real_photo_is_sound(capsys: pytest.CaptureFixture[str]) -> None:
    """No false alarm: each photo of ../shared/data/vision/dev checks and decodes whole."""
    photos = sorted(shared_path("data", "vision", "dev").glob("*.jpg"))
    assert photos
    for photo in photos:
        img = read_image(photo)
        assert img.ndim == 3 and img.shape[2] == 3, photo


def test_the_size_decoded_must_be_the_headers(tmp_path: Path) -> None:
    data = bytearray(drawn(".jpg"))
    sof = next(p for p in jpeg_marker_bytes(bytes(data)) if data[p + 1] == 0xC0)
    struct.pack_into(">H", data, sof + 5, 700)  # the frame header now says 700 rows
    with pytest.raises(ImageFileError, match="damaged"):
        decode_image(bytes(data), "short.jpg")


def test_enroll_and_calibrate_skip_or_refuse_a_damaged_photo(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    cut = tmp_path / "Jh_8c_3d.jpg"
    cut.write_bytes(drawn(".jpg")[:-5000])
    assert cli_vision.main(["calibrate", str(cut), "--out", str(tmp_path / "c.json")]) == 2
    assert "damaged" in capsys.readouterr().err
    cli_vision.main(["enroll", "--out", str(tmp_path / "deck.npz"), str(cut)])
    err = capsys.readouterr().err
    assert "damaged" in err and "skipped" in err


def test_a_fifo_named_like_a_photo_is_refused_not_waited_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "board.jpg"
    os.mkfifo(fifo)
    code, [out] = recognize(capsys, fifo)
    assert code == 1 and out["error"].endswith("is not a regular file")


def _png(width: int, height: int) -> bytes:
    """A PNG whose chunks are all whole and their CRCs right, with the given header size and
    a tiny compressed picture (the header is what a reader allocates for)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00" * 64))
            + chunk(b"IEND", b""))


def test_an_oversized_png_is_refused_by_its_header_before_decoding(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """issue 16: a 60000x60000 PNG ended in a raw OpenCV assertion (cv2.error); it is refused
    by its header, the limit named, and ``recognize`` goes on with the next file."""
    big = _png(60000, 60000)
    assert check_structure(big) == (60000, 60000)
    with pytest.raises(ImageFileError, match=r"60000x60000 pixels .* limit of 50,000,000 pixels"):
        decode_image(big, "huge.png")
    (tmp_path / "huge.png").write_bytes(big)
    (tmp_path / "sound.png").write_bytes(drawn(".png"))
    code, results = recognize(capsys, tmp_path / "huge.png", tmp_path / "sound.png")
    assert code == 1 and "limit" in results[0]["error"] and sorted(results[1]["cards"]) == sorted(CARDS)


def test_an_oversized_jpeg_is_refused_by_its_header(tmp_path: Path) -> None:
    data = bytearray(drawn(".jpg"))
    sof = next(p for p in jpeg_marker_bytes(bytes(data)) if data[p + 1] == 0xC0)
    struct.pack_into(">HH", data, sof + 5, 60000, 60000)  # the frame header: 60000 rows, 60000 columns
    with pytest.raises(ImageFileError, match=r"60000x60000 pixels .*\(MAX_PIXELS\)"):
        decode_image(bytes(data), "huge.jpg")


def test_a_picture_at_the_limit_is_still_checked_not_refused_for_its_size() -> None:
    assert imagefile.MAX_PIXELS >= 1280 * 720 * 4  # a camera's and a phone's photos pass
    with pytest.raises(ImageFileError, match="damaged"):  # its IDAT holds far too few rows
        decode_image(_png(2000, 1000), "small.png")


@needs_simplejpeg
def test_a_bit_flip_that_desynchronises_a_jpegs_data_is_damaged_in_any_thread() -> None:
    """issue 16: a bit-damaged JPEG with its structure intact read as sound unless the caller
    listened to stderr (single-threaded programs only). libjpeg-turbo's warning now raises,
    in any thread; a flip that keeps the data in step is read as it decodes (no checksum)."""
    data = drawn(".jpg")
    start = data.index(b"\xff\xda")
    damaged = sound = 0
    for pos in range(start + 40, len(data) - 40, (len(data) - start) // 40):
        bad = flip(data, pos, 4)
        if 0xFF in bad[pos - 1: pos + 2]:
            continue  # a marker byte: the structure check's business
        assert check_structure(bad) == (1280, 720)  # the structure is intact
        box: list[BaseException | None] = []

        def read(bad: bytes = bad) -> None:
            try:
                decode_image(bad, "flipped.jpg")
                box.append(None)
            except ImageFileError as exc:
                box.append(exc)

        t = threading.Thread(target=read)
        t.start()
        t.join(30)
        assert box, "the decode did not return"
        if box[0] is None:
            sound += 1
        else:
            assert "damaged" in str(box[0]) and "Corrupt JPEG data" in str(box[0])
            damaged += 1
    assert damaged >= 5, (damaged, sound)
