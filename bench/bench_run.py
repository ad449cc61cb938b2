"""Issue 9 speed: start-up to READY, the controller's memory, a full hand's wall time.

Goals (issue 9): READY in under 3 s; under 150 MB resident with the camera and display
running; no step of a hand that a player waits on slower than 50 ms.

    .venv/bin/python bench/bench_run.py [--hands 200]

Prints one line per measure with the ratio to its goal (< 1 meets it).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def rss_mb(pid: int) -> float:
    """Return the resident set size of ``pid`` in MB (from /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def startup_to_ready(tmp: Path, runs: int = 5) -> list[float]:
    from drivers.shuffler.emulator import Emulator

    emu = Emulator(seed=1)
    port = emu.start()
    cfg = tmp / "table.toml"
    cfg.write_text(f'[table]\nid = "bench"\nbig_blind = 100\n[shuffler]\nport = "{port}"\n'
                   f'[journal]\npath = "{tmp / "j.sqlite"}"\nhistory_dir = "{tmp / "hands"}"\n')
    try:
        return ready_times(cfg, tmp, runs)
    finally:
        emu.stop()


def ready_times(cfg: Path, tmp: Path, runs: int, *, timeout: float = 60.0) -> list[float]:
    """Start ``livetable run --config cfg`` ``runs`` times; return seconds to READY=1 each
    (read from a NOTIFY_SOCKET in ``tmp``, as systemd would), stopping each with SIGTERM."""
    times = []
    for i in range(runs):
        sock_path = str(tmp / f"n{i}.sock")
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
            server.bind(sock_path)
            server.settimeout(timeout)
            t0 = time.perf_counter()
            proc = subprocess.Popen([sys.executable, "-m", "controller", "run", "--config", str(cfg)],
                                    cwd=REPO, env=dict(os.environ, NOTIFY_SOCKET=sock_path),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            while b"READY=1" not in server.recv(4096):
                pass
            times.append(time.perf_counter() - t0)
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout)
        os.unlink(sock_path)
    return times


def memory_with_camera_and_display(tmp: Path, seconds: float = 20.0) -> tuple[float, float]:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    proc = subprocess.Popen([sys.executable, "-m", "controller", "simulate", "--devices", "all",
                             "--speed", "4", "--quiet", "--table", "benchmem", "--journal", str(tmp / "m.sqlite")],
                            cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = disp_peak = 0.0
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end and proc.poll() is None:
            peak = max(peak, rss_mb(proc.pid))
            kids = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
            for k in kids:
                try:
                    disp_peak = max(disp_peak, rss_mb(int(k)))
                except (OSError, ValueError):
                    pass
            time.sleep(0.5)  # sampling interval of the measurement, not a synchronisation
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
    return peak, disp_peak


def hand_steps(hands: int) -> tuple[list[float], float]:
    from controller.bots import SimPlayers
    from controller.clock import ManualClock
    from controller.dealer import InternalDealer
    from controller.engine.table import events as ev
    from controller.engine.table.settings import TableSettings
    from controller.engine.table.state import TableState
    from controller.journal import Journal
    from controller.orchestrator import Orchestrator, Ports

    clock = ManualClock()
    tmp = tempfile.mkdtemp()
    orch = Orchestrator(TableState.new(TableSettings(id="b", seats=6)), journal=Journal(f"{tmp}/j.sqlite"),
                        clock=clock, ports=Ports())
    orch.ports.dealer = InternalDealer(orch.post, clock, seed=1)
    orch.listeners.append(SimPlayers(range(1, 7), orch.post, clock, seed=1))
    for s in range(1, 7):
        orch.post(ev.PlayerSatDown(at=clock(), seat=s, player=f"p{s}"))
        orch.post(ev.BoughtIn(at=clock(), seat=s, amount=10000))
    orch.pump()
    steps: list[float] = []
    t_all = time.perf_counter()
    done = 0
    while done < hands:
        for seat in orch.state.seats:
            if seat is not None and seat.stack == 0:
                orch.post(ev.BoughtIn(at=clock(), seat=seat.seat, amount=10000))
        orch.post(ev.HandStartRequested(at=clock()))
        while True:
            try:
                item = orch.inbox.get_nowait()
            except Exception:
                if orch.state.hand is None:
                    break
                clock.advance(31)
                orch.fire_timers()
                continue
            t = time.perf_counter()
            orch.handle(item)
            steps.append(time.perf_counter() - t)
        done += 1
    return steps, (time.perf_counter() - t_all) / hands


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--hands", type=int, default=200)
    p.add_argument("--skip-memory", action="store_true")
    a = p.parse_args()
    tmp = Path(tempfile.mkdtemp())
    ready = startup_to_ready(tmp)
    med = statistics.median(ready)
    print(f"start-up to READY: median {med:.2f} s, max {max(ready):.2f} s; ratio to 3 s goal {med / 3:.2f}")
    steps, per_hand = hand_steps(a.hands)
    steps.sort()
    p99 = steps[int(0.99 * (len(steps) - 1))]
    print(f"hand step (journal fsync + table + views), {len(steps)} steps: median "
          f"{statistics.median(steps) * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms, max {steps[-1] * 1000:.2f} ms; "
          f"ratio p99 to 50 ms goal {p99 / 0.05:.3f}")
    print(f"full six-max hand with instant players (durable journal): {per_hand * 1000:.1f} ms per hand")
    if not a.skip_memory:
        ctl, disp = memory_with_camera_and_display(tmp)
        print(f"controller RSS with simulated camera + devices: peak {ctl:.0f} MB; ratio to 150 MB {ctl / 150:.2f}; "
              f"display process peak {disp:.0f} MB")
    print(json.dumps({"load_average": os.getloadavg()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
