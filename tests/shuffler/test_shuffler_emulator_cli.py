"""`livetable shuffler-emulator` as a process: prints its device path, plays the machine."""

from __future__ import annotations

import queue
import subprocess
import sys
from pathlib import Path

from drivers.shuffler import events as E
from drivers.shuffler.emulator import Faults, main
from drivers.shuffler.link import ShufflerDriver

from .conftest import FAST

REPO = Path(__file__).resolve().parents[2]


def test_cli_prints_path_and_injects_faults_from_the_command_line() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller", "shuffler-emulator", "--seed", "3",
         "--fault", "jam_at=2", "--deal-time", "0", "--shuffle-time", "0"],
        cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        path = proc.stdout.readline().strip()
        assert Path(path).is_symlink() and Path(path).resolve().as_posix().startswith("/dev/pts/")
        q: queue.Queue = queue.Queue()
        drv = ShufflerDriver(path, post=q.put, timing=FAST)
        drv.start()
        try:
            seen: list = []

            def until(cls: type) -> E.ShufflerEvent:
                while True:
                    e = q.get(timeout=10)
                    seen.append(e)
                    if isinstance(e, cls):
                        return e

            until(E.DeviceIdentified)
            drv.shuffle()
            until(E.DeckReady)
            drv.deal(1, 3)
            jam = until(E.Jammed)
            assert jam.undelivered == 2
            assert sum(isinstance(e, E.CardDelivered) for e in seen) == 1
            proc.stdin.write("door open\n")
            proc.stdin.flush()
            until(E.DoorOpened)
        finally:
            drv.stop()
    finally:
        proc.terminate()
        proc.communicate(timeout=10)  # reaps it and closes the pipes
        assert proc.returncode == 0


def test_cli_rejects_unknown_fault(capsys) -> None:
    assert main(["--fault", "gremlins=3"]) == 2
    assert "unknown fault" in capsys.readouterr().err


def test_fault_parsing_converts_types() -> None:
    f = Faults.parse(["jam_at=5", "duplicate", "reply_delay=0.25", "drop-rx=2"])
    assert (f.jam_at, f.duplicate, f.reply_delay, f.drop_rx) == (5, True, 0.25, 2)


def test_cli_cable_pulled_mid_deal_from_the_command_line() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller", "shuffler-emulator", "--seed", "8",
         "--fault", "vanish_at=3", "--fault", "vanish_for=0.3", "--deal-time", "0.01",
         "--shuffle-time", "0"],
        cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        path = proc.stdout.readline().strip()
        q: queue.Queue = queue.Queue()
        drv = ShufflerDriver(path, post=q.put, timing=FAST)
        drv.start()
        seen: list = []
        try:
            def until(cls: type) -> E.ShufflerEvent:
                while True:
                    e = q.get(timeout=10)
                    seen.append(e)
                    if isinstance(e, cls):
                        return e

            drv.shuffle()
            until(E.DeckReady)
            rid = drv.deal(1, 6)
            until(E.LinkLost)
            restored = until(E.LinkRestored)  # cards 4..6 were dealt with the cable out
            assert restored.status.dealt == 6 and restored.replayed >= 3
            while not any(isinstance(e, E.DealDone) and e.request_id == rid for e in seen):
                until(E.DealDone)
            cards = [e.card for e in seen if isinstance(e, E.CardDelivered)]
            assert len(cards) == len(set(cards)) == 6
        finally:
            drv.stop()
    finally:
        proc.terminate()
        proc.communicate(timeout=10)  # reaps it and closes the pipes
        assert proc.returncode == 0
