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


def test_a_still_photo_as_the_source_is_a_fixed_scene_not_a_camera_that_ends(tmp_path, rec):
    """One photo named as the camera's source (a room trying its config on a laptop): the
    board is read again and again from it, never "camera lost" after its one frame (that
    made the table pause and resume twice a second), and unchanged frames reuse the reading."""
    path = tmp_path / "board.jpg"
    cv2.imwrite(str(path), render_board("Jh 8c 3d".split(), (640, 360), "green"))
    q: "queue.Queue[object]" = queue.Queue()
    cam = Camera(str(path), q.put, clock=lambda: 1.0, recognizer=rec, reopen_backoff=0.01, max_backoff=0.02)
    cam.start()
    try:
        seen = []
        while sum(isinstance(e, BoardRead) for e in seen) < 4:
            seen.append(q.get(timeout=20))
    finally:
        cam.stop()
    assert not [e for e in seen if isinstance(e, (CameraLost, CameraBack, FrameRejected))], seen
    assert all(sorted(map(str, e.named)) == ["3d", "8c", "Jh"] for e in seen)
    assert cam.reused >= 3


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


class GatedCapture:
    """A capture whose every ``read()`` waits for the test to open the gate (or forever: a
    stalled stream). ``entered`` counts reads begun; frames are marked with ``mark``."""

    def __init__(self, mark: int) -> None:
        self.mark = mark
        self.entered = threading.Semaphore(0)
        self.gate = threading.Semaphore(0)
        self.released = threading.Event()

    def isOpened(self) -> bool:  # noqa: N802 - cv2 name
        return True

    def read(self) -> tuple[bool, object]:
        self.entered.release()
        self.gate.acquire()
        return True, np.full((36, 64, 3), self.mark, np.uint8)

    def release(self) -> None:
        self.released.set()

    def open_gate(self, n: int = 1) -> None:
        for _ in range(n):
            self.gate.release()

    def wait_in_read(self) -> None:
        assert self.entered.acquire(timeout=20), "the reader never called read()"


class Marks:
    """A recognizer stand-in recording the mark of each frame it is given."""

    def __init__(self) -> None:
        self.seen: list[int] = []

    def recognize(self, frame, region=None):
        self.seen.append(int(frame[0, 0, 0]))
        return []


def test_a_read_that_never_returns_is_a_lost_camera_and_a_fresh_capture_takes_over():
    """C2: the watchdog times one read() on the injected clock; a clock that jumped during
    a read seen only once is no stall; the stuck reader's late frame is dropped."""
    t = [100.0]
    caps = [GatedCapture(1), GatedCapture(2)]
    made = iter(caps)
    q: "queue.Queue[object]" = queue.Queue()
    marks = Marks()
    cam = Camera("rtsp://table-cam/stream", q.put, clock=lambda: t[0], recognizer=marks, reuse_static=False,
                 capture_factory=lambda src: next(made), stall_timeout=3.0, watch_every=None)
    cam.start()
    try:
        stuck = caps[0]
        stuck.wait_in_read()
        t[0] += 50.0  # the clock jumps while read #1 waits: one look is not enough
        assert cam.check_stall() is False
        stuck.open_gate()  # read #1 returns a frame
        assert isinstance(next_event(q, BoardRead), BoardRead)
        stuck.wait_in_read()  # read #2 begins, and never returns
        assert cam.check_stall() is False
        t[0] += 2.9
        assert cam.check_stall() is False  # within stall_timeout
        t[0] += 0.2
        assert cam.check_stall() is True
        lost = next_event(q, CameraLost)
        assert lost.reason == "stalled: no frame for 3.1 s" and lost.at == t[0] and "table-cam" in lost.source
        fresh = caps[1]
        fresh.wait_in_read()
        fresh.open_gate()
        assert isinstance(q.get(timeout=20), CameraBack)
        assert isinstance(next_event(q, BoardRead), BoardRead)
        assert cam.running and cam.stalls == 1
        stuck.open_gate()  # the stuck stream wakes up late: its frame is stale
        assert stuck.released.wait(20)
        fresh.wait_in_read()
        assert marks.seen == [1, 2]
        assert cam.check_stall() is False  # the fresh reader's wait is new
    finally:
        cam.stop(timeout=0.5)
        for c in caps:
            c.open_gate(10)


def test_the_watchdog_thread_posts_camera_lost_by_itself():
    t = [0.0]
    cap = GatedCapture(1)
    opened = threading.Event()

    def factory(src: object) -> object:
        if opened.is_set():
            raise RuntimeError("the device is busy")  # reopening fails: still one CameraLost
        opened.set()
        return cap

    q: "queue.Queue[object]" = queue.Queue()
    cam = Camera(0, q.put, clock=lambda: t[0], recognizer=Marks(), capture_factory=factory,
                 stall_timeout=5.0, watch_every=0.005, reopen_backoff=0.01, max_backoff=0.01)
    cam.start()
    try:
        cap.wait_in_read()
        t[0] += 60.0
        lost = next_event(q, CameraLost)
        assert lost.reason.startswith("stalled: no frame for 60")
        assert cam.stalls == 1
    finally:
        cam.stop(timeout=0.5)
        cap.open_gate(10)
    assert all(not isinstance(e, CameraLost) for e in list(q.queue))  # once, not per reopen attempt


def test_a_post_that_raises_is_logged_and_the_camera_reads_on(caplog):
    """C3: a full queue or a closed loop once must not end the camera thread silently."""
    import logging

    cap = GatedCapture(7)
    got: list[object] = []
    third = threading.Event()
    calls = [0]

    def post(ev: object) -> None:
        calls[0] += 1
        if calls[0] == 2:
            raise queue.Full()
        got.append(ev)
        if len(got) == 2:
            third.set()

    cam = Camera(0, post, clock=lambda: 1.0, recognizer=Marks(), reuse_static=False,
                 capture_factory=lambda src: cap, stall_timeout=None)
    with caplog.at_level(logging.ERROR, logger="vision.camera"):
        cam.start()
        try:
            cap.open_gate(3)
            assert third.wait(20), "the camera stopped after post() raised"
            assert cam.running and cam.post_errors == 1
        finally:
            cam.stop(timeout=0.5)
            cap.open_gate(10)
    assert [type(e) for e in got] == [BoardRead, BoardRead]
    assert "could not post BoardRead" in caplog.text
