"""Shuffler speed: codec frames per second, and request-to-reply latency over a pty (issue 4).

Anchors from the issue: the driver must add under 2 ms to any exchange on this machine; the
codec must keep up with the serial line (115200 baud 8N1 = 11,520 bytes/s). Ratios below 1.0
for "added / 2 ms" and above 1.0 for "codec / line rate" meet the goal.

Run: ``.venv/bin/python bench/bench_shuffler.py [--n 300]``
"""

from __future__ import annotations

import argparse
import queue
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import serial  # noqa: E402

from controller.engine.cards import FULL_DECK  # noqa: E402
from drivers.shuffler import events as E  # noqa: E402
from drivers.shuffler import protocol as P  # noqa: E402
from drivers.shuffler.codec import Decoder, Frame, encode  # noqa: E402
from drivers.shuffler.emulator import Emulator  # noqa: E402
from drivers.shuffler.link import LinkTiming, ShufflerDriver  # noqa: E402

LINE_BYTES_PER_S = 115200 / 10
ANCHOR_ADDED_S = 0.002


def bench_codec(n: int) -> None:
    frames = [Frame(0, P.Evt.CARD, P.pack_card_event(P.CardEvent(i, 3, P.Target.seat_no(1 + i % 10),
                                                                  FULL_DECK[i % 52], 1 + i % 52, 1, False)))
              for i in range(n)]
    t = time.perf_counter()
    raw = b"".join(encode(f) for f in frames)
    t_enc = time.perf_counter() - t
    dec = Decoder()
    t = time.perf_counter()
    out = []
    for i in range(0, len(raw), 64):  # reads of 64 bytes, as a serial port delivers them
        out += dec.feed(raw[i : i + 64])
    t_dec = time.perf_counter() - t
    assert out == frames
    line_fps = LINE_BYTES_PER_S / (len(raw) / n)
    print(f"codec: encode {n / t_enc:,.0f} frames/s, decode {n / t_dec:,.0f} frames/s "
          f"({len(raw) // n} B CARD frames); line rate {line_fps:,.0f} frames/s; "
          f"decode/line = {n / t_dec / line_fps:,.1f}x")


def _raw_exchange(port: serial.SerialBase, dec: Decoder, frame: Frame) -> Frame:
    port.write(encode(frame))
    while True:
        for f in dec.feed(port.read(port.in_waiting or 1)):
            if f.seq == frame.seq and f.type in (P.Rsp.ACK, P.Rsp.STATUS, P.Rsp.HELLO, P.Rsp.NAK):
                return f


def bench_latency(n: int) -> None:
    emu = Emulator(seed=1)
    path = emu.start()
    try:
        # Baseline: the same exchange by hand (pyserial + codec, no driver threads).
        port = serial.serial_for_url(path, baudrate=115200, timeout=1)
        dec = Decoder()
        _raw_exchange(port, dec, Frame(1, P.Cmd.HELLO, P.pack_hello_request(resume=False)))
        raw = []
        for i in range(n):
            seq = 2 + i % 250
            t = time.perf_counter()
            _raw_exchange(port, dec, Frame(seq, P.Cmd.STATUS))
            raw.append(time.perf_counter() - t)
        port.close()

        q: queue.Queue = queue.Queue()
        drv = ShufflerDriver(path, post=q.put, timing=LinkTiming(heartbeat=None))
        drv.start()
        while not isinstance(q.get(timeout=5), E.DeviceIdentified):
            pass
        via = []
        for _ in range(n):
            t = time.perf_counter()
            rid = drv.status()
            while True:
                e = q.get(timeout=5)
                if isinstance(e, E.StatusReport) and e.request_id == rid:
                    break
            via.append(time.perf_counter() - t)
        # A physical exchange: DEAL until the device accepted it (cards follow as events).
        drv.shuffle()
        while not isinstance(q.get(timeout=5), E.DeckReady):
            pass
        deals = []
        for i in range(40):
            t = time.perf_counter()
            rid = drv.deal("burn")
            while True:
                e = q.get(timeout=5)
                if isinstance(e, E.RequestAccepted) and e.request_id == rid:
                    break
            deals.append(time.perf_counter() - t)
            while not (isinstance(e, E.DealDone) and e.request_id == rid):
                e = q.get(timeout=5)
        # A whole hold'em deal for ten seats (20 hole cards, 3 burns, 5 board), emulator at
        # zero mechanical time: what the protocol and driver cost per hand.
        hands = []
        for _ in range(10):
            drv.shuffle()
            while not isinstance(q.get(timeout=5), E.DeckReady):
                pass
            t = time.perf_counter()
            plan = [(s, 2) for s in range(1, 11)] + [("burn", 1), ("board", 3), ("burn", 1),
                                                       ("board", 1), ("burn", 1), ("board", 1)]
            rids = {drv.deal(tgt, n) for tgt, n in plan}
            while rids:
                e = q.get(timeout=5)
                if isinstance(e, E.DealDone):
                    rids.discard(e.request_id)
            hands.append(time.perf_counter() - t)
        drv.stop()
    finally:
        emu.stop()
    print(f"full 10-seat hold'em deal (28 cards, 16 requests) by driver: median "
          f"{statistics.median(hands) * 1e3:.1f} ms (n={len(hands)})")
    med_raw, med_via = statistics.median(raw), statistics.median(via)
    p95 = lambda xs: sorted(xs)[int(len(xs) * 0.95)]  # noqa: E731
    added = med_via - med_raw
    print(f"STATUS over pty, by hand:   median {med_raw * 1e3:.3f} ms, p95 {p95(raw) * 1e3:.3f} ms (n={n})")
    print(f"STATUS over pty, by driver: median {med_via * 1e3:.3f} ms, p95 {p95(via) * 1e3:.3f} ms (n={n})")
    print(f"DEAL accepted, by driver:   median {statistics.median(deals) * 1e3:.3f} ms, "
          f"p95 {p95(deals) * 1e3:.3f} ms (n={len(deals)})")
    print(f"driver adds {added * 1e3:.3f} ms (median) / {(p95(via) - p95(raw)) * 1e3:.3f} ms (p95); "
          f"added / 2 ms anchor = {added / ANCHOR_ADDED_S:.2f} (goal < 1)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=300, help="exchanges per measurement")
    ap.add_argument("--frames", type=int, default=100_000, help="frames through the codec")
    args = ap.parse_args()
    bench_codec(args.frames)
    bench_latency(args.n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
