"""``livetable run --config table.toml``: the table with its real devices (issue 9).

Start-up, in order (systemd is told READY=1 only at the end):

1. read and check the config (a mistake names its key and stops start-up, exit 2);
2. start the shuffler driver and ask the device what it holds (its deck number, how many
   cards it delivered from it, anything queued);
3. open the journal, check it and replay it (:func:`controller.runtime.open_table`); a hand
   the restart interrupted is **resumed** only when the shuffler's own count of cards
   delivered from its deck equals the journal's, nothing is queued or faulted, and the
   deck it holds is proven again (its stub and the hand's cards in the journal are the 52
   cards each once: :func:`prove_deck_again`); otherwise it is **voided** at once and every
   wager returned (never a pause only the floor can end);
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


def _answer(forward: Forward, rid: int, kinds: tuple[type, ...], timeout: float) -> Any | None:
    """Wait up to ``timeout`` s for the first event of ``kinds`` answering request ``rid``
    (its ``request_id``) in the start-up buffer; return it or None. Other events stay
    buffered, in order, for the loop."""
    deadline = time.monotonic() + timeout
    held: list[Any] = []
    found = None
    while time.monotonic() < deadline:
        try:
            item = forward.buffer.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            break
        if isinstance(item, kinds) and getattr(item, "request_id", None) == rid:
            found = item
            break
        held.append(item)
    for item in held:
        forward.buffer.put(item)
    return found


def shuffler_status(driver: Any, forward: Forward, timeout: float) -> Any | None:
    """Ask the shuffler for its status and wait up to ``timeout`` s; return it or None."""
    from drivers.shuffler.events import StatusReport

    report = _answer(forward, driver.status(), (StatusReport,), timeout)
    return None if report is None else report.status


def prove_deck_again(driver: Any, forward: Forward, hand: Any, timeout: float) -> tuple[bool, str, int | None]:
    """Prove again the deck the shuffler holds for the interrupted ``hand`` (G-5, issue 16).

    A restarted driver has no proven deck: without this, every resumed hand that needed
    another card paused with ``no-verified-deck`` until the floor ended it. The device is
    asked (``ShufflerDriver.resume_deck``: its stub and count) and the deck accepted only
    if its stub and the hand's cards in the journal are the 52 cards each once. Returns
    ``(ok, reason, deck_no)``; a hand holding a card dealt unread (``??``) cannot be proven.
    """
    from controller.engine.cards import parse_card
    from controller.engine.table.play import card_texts
    from controller.runtime import cards_taken_this_hand
    from drivers.shuffler.events import DeckCheckFailed, DeckReady, RequestFailed

    taken = card_texts(cards_taken_this_hand(hand))
    if any(c is None or c == "??" for c in taken):
        return False, "a card of the hand was dealt unread: the shuffler's deck cannot be proven again", None
    cards = [parse_card(c) for c in taken]
    got = _answer(forward, driver.resume_deck(cards), (DeckReady, DeckCheckFailed, RequestFailed), timeout)
    if isinstance(got, DeckReady):
        return True, "", got.deck_no
    if isinstance(got, DeckCheckFailed):
        return False, (f"G-5: the shuffler's deck does not match the journal (missing "
                       f"{' '.join(map(str, got.missing)) or '-'}, twice {' '.join(map(str, got.duplicates)) or '-'})"), None
    if isinstance(got, RequestFailed):
        return False, f"the shuffler could not check its deck ({got.code})", None
    return False, "the shuffler did not report its deck in time", None


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

    resumed_deck: dict[str, int | None] = {"no": None}

    def can_resume(orch: Any) -> tuple[bool, str]:
        if status is None:
            return False, "the shuffler did not say what it holds"
        mine = cards_dealt_this_hand(orch.state.hand)
        if status.queued or int(status.fault) != 0:
            return False, f"the shuffler has {status.queued} card(s) queued or a fault ({status.fault})"
        if status.dealt != mine:
            # Also a card on its way when the controller stopped that the machine did deal.
            return False, f"the shuffler delivered {status.dealt} cards from its deck, the journal {mine}"
        # Cards on their way (state.dealing) that the machine never dealt are asked for again.
        # The counts agree; the restarted driver must prove the deck again before it deals.
        try:
            ok, reason, deck_no = prove_deck_again(shuffler, forward, orch.state.hand, timeout=5.0)
        except Exception as exc:  # noqa: BLE001 - a hand the controller cannot prove is voided, never a crash loop
            log.exception("the shuffler's deck could not be proven again")
            return False, f"the shuffler's deck could not be proven again ({type(exc).__name__}: {exc})"
        resumed_deck["no"] = deck_no
        return ok, reason

    from controller.adapters import DevicePorts, DriverAdapter, HistoryWriter, ShufflerDealer

    ports = DevicePorts()
    if shuffler is not None:
        # Before the journal is opened: a resumed hand asks the dealer again for the cards
        # it is still owed (the shuffler said it never dealt them: its count is the journal's).
        ports.dealer = ShufflerDealer(shuffler)
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
        adapter._closers.append(shuffler.stop)  # noqa: SLF001 - the adapter closes what it holds
        if resumed_deck["no"] is not None:
            adapter.resumed_deck(resumed_deck["no"])
    try:
        adapter.build_real(dataclasses.replace(cfg, shuffler=None))
    except Exception as exc:
        print(f"livetable run: a device could not start: {exc}", file=sys.stderr)
        adapter.close()
        return 2
    forward.switch(orch.post)
    # The table as it stands, retained for the tablets and the display: a fresh table with
    # nobody seated must be seen too, or a tablet's take-seat waits for a first state (M-4).
    orch.publish_all()
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
