"""Camera: cv2.VideoCapture in a thread, posting readings, reopening on failure (issue 6)."""

from __future__ import annotations

import queue
import threading

import cv2
import numpy as np
import pytest

from controller.engine.cards import parse_cards
from vision.calibration import BoardRegion
from vision.camera import Camera
from vision.events import BoardRead, CameraBack, CameraLost, FrameRejected
from vision.recognizer import Recognizer
from vision.render import render_board


@pytest.fixture(scope="module")
def rec() -> Recognizer:
    return Recognizer()


def next_event(q: "queue.Queue[object]", kind: type, timeout: float = 20.0) -> object:
    """Return the next event of ``kind`` from the queue (others are dropped)."""
    while True:
        ev = q.get(timeout=timeout)
        if isinstance(ev, kind):
            return ev


def test_image_sequence_is_read_and_its_end_is_a_lost_camera_then_reopened(tmp_path, rec):
    for i, board in enumerate(["Jh 8c 3d", "Jh 8c 3d 5s"]):
        cv2.imwrite(str(tmp_path / f"f{i:03d}.png"), render_board(board.split(), (640, 360), "green"))
    q: "queue.Queue[object]" = queue.Queue()
    t = [0.0]
    cam = Camera(str(tmp_path / "f%03d.png"), q.put, clock=lambda: t[0], recognizer=rec,
                 reopen_backoff=0.01, max_backoff=0.02)
    cam.start()
    try:
        first = next_event(q, BoardRead)
        assert sorted(map(str, first.named)) == sorted("Jh 8c 3d".split())
        second = next_event(q, BoardRead)
        assert set(second.named) == set(parse_cards("Jh 8c 3d 5s"))
        lost = next_event(q, CameraLost)
        assert lost.reason == "no frame" and "f%03d" in lost.source
        back = next_event(q, CameraBack)  # the sequence opens again from its start
        assert back.source == lost.source
        again = next_event(q, BoardRead)
        assert again.frame_no > second.frame_no
    finally:
        cam.stop()
    assert not cam.running


class FlakyCapture:
    """A capture that fails to open ``fail_opens`` times, then gives ``frames``."""

    opens = 0

    def __init__(self, frames: list[object], fail_opens: int) -> None:
        FlakyCapture.opens += 1
        self.ok = FlakyCapture.opens > fail_opens
        self.frames = list(frames)

    def isOpened(self) -> bool:  # noqa: N802 - cv2 name
        return self.ok

    def read(self) -> tuple[bool, object]:
        if not self.frames:
            return False, None
        return True, self.frames.pop(0)

    def release(self) -> None:
        pass


def test_a_camera_that_will_not_open_is_reported_once_and_retried(rec):
    FlakyCapture.opens = 0
    frame = render_board(["As", "Kd", "Qc"], (640, 360), "blue")
    q: "queue.Queue[object]" = queue.Queue()
    cam = Camera(0, q.put, clock=lambda: 5.0, recognizer=rec, reopen_backoff=0.01, max_backoff=0.01,
                 capture_factory=lambda src: FlakyCapture([frame], fail_opens=3))
    cam.start()
    try:
        lost = next_event(q, CameraLost)
        assert lost.reason == "cannot open" and lost.at == 5.0
        assert isinstance(q.get(timeout=20), CameraBack)  # not one CameraLost per attempt
        read = next_event(q, BoardRead)
        assert sorted(map(str, read.named)) == ["As", "Kd", "Qc"]
    finally:
        cam.stop()
    assert FlakyCapture.opens >= 4


def test_bad_frames_are_rejected_not_read(rec):
    region = BoardRegion(np.array([[0, 0], [639, 0], [639, 359], [0, 359]], np.float32), (640, 360))
    events: list[object] = []
    cam = Camera(0, events.append, clock=lambda: 1.0, recognizer=rec, region=region)
    other_size = render_board(["As", "Kd", "Qc"], (1280, 720), "green")
    assert isinstance(cam.read_frame(other_size)[0], FrameRejected)
    assert isinstance(cam.read_frame(None)[0], FrameRejected)
    assert isinstance(cam.read_frame(np.zeros((360, 640), np.float64))[0], FrameRejected)
    black = cam.read_frame(np.zeros((360, 640, 3), np.uint8))[0]
    assert isinstance(black, BoardRead) and black.cards == ()
    good = cam.read_frame(render_board(["As", "Kd", "Qc"], (640, 360), "green"))[0]
    assert sorted(map(str, good.named)) == ["As", "Kd", "Qc"]


def test_a_capture_that_raises_is_a_lost_camera_not_a_crash(rec):
    q: "queue.Queue[object]" = queue.Queue()
    calls = threading.Event()

    def boom(src: object) -> object:
        calls.set()
        raise RuntimeError("USB unplugged")

    cam = Camera("rtsp://camera.invalid/stream", q.put, clock=lambda: 2.0, recognizer=rec,
                 reopen_backoff=0.01, max_backoff=0.01, capture_factory=boom)
    cam.start()
    try:
        lost = next_event(q, CameraLost)
        assert "USB unplugged" in lost.reason
        assert cam.running
    finally:
        cam.stop()


def test_a_still_scene_reuses_its_reading_and_a_changed_card_is_read_again(rec):
    cam = Camera(0, lambda ev: None, clock=lambda: 1.0, recognizer=rec)
    rng = np.random.default_rng(3)
    flop = render_board(["Jh", "8c", "3d"], (1280, 720), "green")

    def noisy(img: np.ndarray) -> np.ndarray:
        return np.clip(img.astype(np.int16) + rng.integers(-3, 4, img.shape), 0, 255).astype(np.uint8)

    first = cam.read_frame(noisy(flop))[0]
    again = cam.read_frame(noisy(flop))[0]
    assert cam.reused == 1 and again.named == first.named and again.frame_no == first.frame_no + 1
    turn = cam.read_frame(render_board(["Jh", "8c", "3s"], (1280, 720), "green"))[0]
    assert cam.reused == 1
    assert sorted(map(str, turn.named)) == ["3s", "8c", "Jh"]


def test_a_recognizer_bug_rejects_the_frame_and_the_thread_keeps_reading():
    class Broken:
        calls = 0

        def recognize(self, frame, region=None):
            Broken.calls += 1
            if Broken.calls == 1:
                raise IndexError("bug")
            return []

    frames = [render_board(["As"], (640, 360), "green"), render_board(["Kd"], (640, 360), "green")]
    q: "queue.Queue[object]" = queue.Queue()
    cam = Camera(0, q.put, clock=lambda: 3.0, recognizer=Broken(), reopen_backoff=0.01, max_backoff=0.01,
                 capture_factory=lambda src: FlakyCapture(list(frames), fail_opens=0))
    FlakyCapture.opens = 0
    cam.start()
    try:
        rejected = next_event(q, FrameRejected)
        assert "IndexError" in rejected.reason
        assert isinstance(next_event(q, BoardRead), BoardRead)
    finally:
        cam.stop()
