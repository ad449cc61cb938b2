"""``livetable run --config table.toml``: the table with its real devices (issue 9).

Start-up, in order (systemd is told READY=1 only at the end):

1. read and check the config (a mistake names its key and stops start-up, exit 2);
2. start the shuffler driver and ask the device what it holds (its deck number, how many
   cards it delivered from it, anything queued);
3. open the journal, check it and replay it (:func:`controller.runtime.open_table`); a hand
   the restart interrupted is **resumed** only when the shuffler's own count of cards
   delivered from its deck equals the journal's and nothing is queued or faulted; otherwise
   it is **voided** and every wager returned;
4. start the other devices (seat panel on the Pi's GPIO, the MQTT link, the camera);
5. ``READY=1``; then the loop runs, feeding the systemd watchdog, until SIGTERM.

A journal that fails its check stops start-up (exit 3): the floor must look at it
(``livetable history --journal FILE``) rather than have the table guess.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import queue
import signal
import sys
import time
from typing import Any

from controller.clock import system_clock
from controller.config import ConfigError, load_config
from controller.journal import JournalError
from controller.runtime import (SHOW_WINDOW_SECONDS, HandPacer, cards_dealt_this_hand, open_table,
                                settings_from_config)
from controller.sdnotify import notify, watchdog_interval

__all__ = ["main", "Forward", "shuffler_status"]

log = logging.getLogger("livetable.run")


class Forward:
    """A ``post`` callable whose destination can be switched: buffer first, the loop later."""

    def __init__(self) -> None:
        self.buffer: queue.Queue[Any] = queue.Queue()
        self.target = self.buffer.put

    def __call__(self, item: Any) -> None:
        self.target(item)

    def switch(self, target: Any) -> None:
        """Send everything buffered so far, then every later item, to ``target``."""
        self.target = target
        while True:
            try:
                target(self.buffer.get_nowait())
            except queue.Empty:
                return


def shuffler_status(driver: Any, forward: Forward, timeout: float) -> Any | None:
    """Ask the shuffler for its status and wait up to ``timeout`` s; return it or None."""
    from drivers.shuffler.events import StatusReport

    deadline = time.monotonic() + timeout
    rid = driver.status()
    held: list[Any] = []
    status = None
    while time.monotonic() < deadline:
        try:
            item = forward.buffer.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            break
        if isinstance(item, StatusReport) and item.request_id == rid:
            status = item.status
            break
        held.append(item)
    for item in held:
        forward.buffer.put(item)
    return status


def build_parser() -> argparse.ArgumentParser:
    """Return the ``livetable run`` argument parser."""
    p = argparse.ArgumentParser(prog="livetable run", description=__doc__.split("\n\n")[0])
    p.add_argument("--config", required=True, help="the table's TOML config")
    p.add_argument("--check", action="store_true", help="check the config and exit")
    p.add_argument("--log-level", default="INFO")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run ``livetable run``; exit 0 on SIGTERM, 2 on a config error, 3 on a bad journal."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        cfg = load_config(args.config)
        if cfg.gpio is not None:
            from drivers.seats import parse_pin_map

            parse_pin_map(cfg.gpio)
        settings = settings_from_config(cfg)
    except (ConfigError, ValueError) as exc:
        print(f"livetable run: {exc}", file=sys.stderr)
        return 2
    if cfg.mqtt.password_file and not os.access(cfg.mqtt.password_file, os.R_OK):
        print(f"livetable run: mqtt.password_file {cfg.mqtt.password_file}: no such file, or not "
              f"readable by this user (livetable tablets provision writes it)", file=sys.stderr)
        return 2
    if cfg.shuffler is None:
        print("livetable run: the config has no [shuffler]: a live table needs its shuffler to deal "
              "(livetable simulate plays without one)", file=sys.stderr)
        return 2
    if args.check:
        print(json.dumps({"config": args.config, "ok": True, "table": cfg.table.id}))
        return 0
    notify("STATUS=starting: checking the journal")
    clock = system_clock
    forward = Forward()
    shuffler = None
    status = None
    if cfg.shuffler is not None:
        from drivers.shuffler.link import ShufflerDriver

        shuffler = ShufflerDriver(cfg.shuffler.port, post=forward, clock=clock)
        shuffler.start()
        status = shuffler_status(shuffler, forward, timeout=3.0)
        log.info("shuffler status at start-up: %s", status)

    def can_resume(orch: Any) -> tuple[bool, str]:
        if status is None:
            return False, "the shuffler did not say what it holds"
        mine = cards_dealt_this_hand(orch.state.hand)
        if status.queued or int(status.fault) != 0:
            return False, f"the shuffler has {status.queued} card(s) queued or a fault ({status.fault})"
        if status.dealt != mine:
            return False, f"the shuffler delivered {status.dealt} cards from its deck, the journal {mine}"
        return True, ""

    from controller.adapters import DevicePorts, DriverAdapter, HistoryWriter, ShufflerDealer

    ports = DevicePorts()
    try:
        orch, recovery = open_table(cfg.journal.path, settings, clock=clock, ports=ports, can_resume=can_resume)
    except JournalError as exc:
        print(f"livetable run: {exc}", file=sys.stderr)
        notify(f"STATUS=journal check failed: {exc}")
        if shuffler is not None:
            shuffler.stop()
        return 3
    log.info("recovery: %s", recovery)
    adapter = DriverAdapter(orch, ports, clock=clock)
    orch.translate = adapter.translate
    try:
        ports.history = HistoryWriter(cfg.journal.history_dir)
    except OSError as exc:
        print(f"livetable run: journal.history_dir {cfg.journal.history_dir}: {exc.strerror or exc}",
              file=sys.stderr)
        if shuffler is not None:
            shuffler.stop()
        return 2
    if shuffler is not None:
        adapter.shuffler = shuffler
        ports.dealer = ShufflerDealer(shuffler)
        adapter._closers.append(shuffler.stop)  # noqa: SLF001 - the adapter closes what it holds
    try:
        adapter.build_real(dataclasses.replace(cfg, shuffler=None))
    except Exception as exc:
        print(f"livetable run: a device could not start: {exc}", file=sys.stderr)
        adapter.close()
        return 2
    forward.switch(orch.post)
    if status is not None and int(status.fault) == 0:
        # The shuffler answers and is sound: a shuffler-lost fault from before the restart ends.
        from controller.orchestrator import DeviceBack

        orch.post(DeviceBack("shuffler-lost", "the shuffler answered at start-up"))
    orch.listeners.append(adapter.after_step)
    pacer = HandPacer(orch.post, clock, new_deck=(lambda _n: adapter.new_deck(on_ready=pacer.deck_ready))
                      if shuffler is not None else None, show_window=SHOW_WINDOW_SECONDS)
    orch.listeners.append(pacer)
    # A failed deck check or a shuffle lost with the link: the pacer may ask for a deck again.
    adapter.on_deck_failed = pacer.deck_failed
    if cfg.journal.keep_hands and orch.journal is not None:
        from controller.compaction import JournalKeeper

        # Compaction ends at a snapshot: one at least every keep_hands hands (issue 21).
        orch.snapshot_every = max(1, min(orch.snapshot_every, cfg.journal.keep_hands))

        # Between hands, hands beyond the last keep_hands leave the journal once their
        # histories are safely in history_dir (controller/compaction.py).
        orch.listeners.append(JournalKeeper(orch.journal, keep_hands=cfg.journal.keep_hands,
                                            history_dir=cfg.journal.history_dir))

    signal.signal(signal.SIGTERM, lambda *_: orch.stop())
    signal.signal(signal.SIGINT, lambda *_: orch.stop())
    interval = watchdog_interval()
    last_ping = [0.0]

    def idle() -> None:
        adapter.tick(clock())
        if orch.state.hand is None:
            pacer.kick(orch)
        if interval is not None and time.monotonic() - last_ping[0] >= interval:
            notify("WATCHDOG=1")
            last_ping[0] = time.monotonic()

    orch.nudge()
    notify(f"READY=1\nSTATUS=table {cfg.table.id} ready ({recovery.outcome})")
    try:
        orch.run(poll=0.02, on_idle=idle)
    finally:
        notify("STOPPING=1")
        adapter.close()
        if orch.journal is not None:
            orch.journal.close()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
