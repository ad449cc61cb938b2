"""The display loop redraws only on a new state or when the timer bar moves (issue 8)."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import paho.mqtt.client as mqtt
import pygame
import pytest

import display_states as S
from display.app import DisplayLoop
from display.feed import OFFLINE, FeedState
from display_checks import BROKER, broker

REPO = Path(__file__).resolve().parents[2]


class Clock:
    """An injected clock: the test moves time."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def make_loop(feed: FeedState, clock: Clock, renderer, size=(1280, 720)) -> DisplayLoop:
    return DisplayLoop(pygame.Surface(size), feed.snapshot, clock=clock, renderer=renderer)


def test_nothing_new_means_nothing_redrawn(renderer) -> None:
    feed, clock = FeedState(), Clock(S.T0)
    loop = make_loop(feed, clock, renderer)
    assert len(loop.step()) == 1 and loop.layout is None, "waiting screen first"
    assert loop.step() == [] and loop.step() == []
    state = S.three_way_all_in()  # no turn: no timer
    feed.on_state_payload(json.dumps(state).encode())
    (full,) = loop.step()
    assert (full.w, full.h) == (1280, 720) and loop.layout is not None
    clock.now += 60
    assert loop.step() == [], "no timer, nothing changed: no redraw"
    feed.on_state_payload(b"{bad")
    assert loop.step() == [], "a malformed payload changes nothing on screen"
    feed.on_presence_payload(b"offline")
    assert loop.step() and loop.layout.banner_texts[0].text == OFFLINE


def test_a_held_seat_counts_down_once_a_second_and_opens_at_its_time(renderer) -> None:
    """Issue 18: the screen is drawn again each second while the room holds a seat (its
    countdown), not between, and no more once the last hold ended."""
    feed, clock = FeedState(), Clock(S.T0 + 20.2)
    loop = make_loop(feed, clock, renderer)
    state = S.held_seats()
    state["turn"] = None  # no timer bar: only the holds move
    feed.on_state_payload(json.dumps(state).encode())
    assert loop.step() and {t.text for v in loop.layout.seats if v.seat == 2 for t in v.texts} >= {"HELD 0:38"}
    clock.now += 0.5
    assert loop.step() == [], "the same second: nothing drawn"
    clock.now += 0.5
    assert loop.step() and {t.text for v in loop.layout.seats if v.seat == 2 for t in v.texts} >= {"HELD 0:37"}
    clock.now = S.T0 + 200  # every hold over: seat 2 and 8 open, and the screen rests
    assert loop.step() and [v.status for v in loop.layout.seats if v.seat in (2, 8)] == ["empty", "empty"]
    clock.now += 1
    assert loop.step() == []


def test_the_timer_redraws_only_its_area_when_the_bar_moves(renderer) -> None:
    feed, clock = FeedState(), Clock(S.T0)
    loop = make_loop(feed, clock, renderer)
    feed.on_state_payload(json.dumps(S.preflop_blinds()).encode())
    loop.step()
    full_before = loop.full_redraws
    bar = loop.layout.timer.bar
    pixel_time = 30 / bar.w
    clock.now += pixel_time / 4
    assert loop.step() == [], "less than a pixel: no redraw"
    clock.now += pixel_time * 2
    (area,) = loop.step()
    assert area == loop.layout.timer.area
    # run the whole turn at 15 frames a second: one timer repaint per pixel or second at most
    steps = 0
    while clock.now < S.T0 + 31:
        clock.now += 1 / 15
        loop.step()
        steps += 1
    assert loop.full_redraws == full_before, "the timer never repaints the whole screen"
    assert loop.timer_redraws <= min(steps, bar.w + 31)
    assert loop.timer_redraws >= min(steps, bar.w) * 0.9, "the bar keeps moving"
    assert loop.step() == [], "after the deadline the empty bar stays"


def test_a_state_that_cannot_be_drawn_keeps_the_last_frame(renderer, monkeypatch) -> None:
    feed, clock = FeedState(), Clock(S.T0)
    loop = make_loop(feed, clock, renderer)
    feed.on_state_payload(json.dumps(S.preflop_blinds()).encode())
    loop.step()
    good = loop.layout

    def boom(*args, **kwargs):
        raise RuntimeError("bug")

    monkeypatch.setattr("display.layout.layout", boom)
    later = S.preflop_blinds()
    later["seq"] += 1
    feed.on_state_payload(json.dumps(later).encode())
    assert loop.step() == [] and loop.layout is good


@broker
@pytest.mark.broker
def test_livetable_display_runs_live_and_stops_on_sigterm(tmp_path) -> None:
    """The real command: subscribes, draws the retained state, exits 0 on SIGTERM."""
    table = f"disp{uuid.uuid4().hex[:10]}"
    pub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"test-pub-{uuid.uuid4().hex[:8]}")
    pub.connect(*BROKER)
    pub.loop_start()
    topic = f"livetable/{table}/state"
    pub.publish(topic, json.dumps(S.preflop_blinds()), qos=1, retain=True).wait_for_publish(5)
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "display", "--table", table, "--host", BROKER[0],
         "--port", str(BROKER[1]), "--fps", "10", "--size", "800x480", "-v"],
        cwd=REPO, env=env, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stderr], daemon=True).start()
    try:
        seen: list[str] = []
        deadline = time.monotonic() + 20
        while not any("drew state seq 201" in line for line in seen) and time.monotonic() < deadline:
            try:
                seen.append(lines.get(timeout=max(0.01, deadline - time.monotonic())))
            except queue.Empty:
                break
        assert any("drew state seq 201" in line for line in seen), "".join(seen)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        pub.publish(topic, b"", qos=1, retain=True).wait_for_publish(5)
        pub.loop_stop()
        pub.disconnect()


def test_no_screen_is_a_clear_error_not_a_traceback() -> None:
    env = {**os.environ, "SDL_VIDEODRIVER": "no-such-driver", "PYTHONUNBUFFERED": "1"}
    res = subprocess.run([sys.executable, "-m", "controller.cli", "display", "--table", "t1"],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert res.returncode == 1, res.stderr
    assert "cannot open the screen with SDL_VIDEODRIVER=no-such-driver" in res.stderr
    assert "Traceback" not in res.stderr
