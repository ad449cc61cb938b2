"""One table, composed once for ``livetable run`` and ``livetable simulate`` (issue 16).

``livetable simulate`` is ``livetable run`` with simulated devices chosen by a
:class:`controller.devices.DeviceChoice`: the same start-up, recovery, orchestrator set-up,
hand pacing, guards (the M-9 action limit on the MQTT link, the deck proof G-5, the
shuffler's watchdog) and loop; only the device adapters differ. :class:`TableRun` does, in
order:

1. open the shuffler first (the driver on its serial port, or on the emulator's pty) and ask
   what it holds; with no shuffler, the internal seeded dealer stands for it;
2. open the journal and replay it (:func:`controller.runtime.open_table`): an interrupted
   hand is **resumed** only when the dealer can carry it on (no card was on its way, the
   shuffler's count of cards delivered equals the journal's, nothing queued or faulted, and
   its deck is proven again:
   :func:`controller.devices.shuffler.prove_deck_again`; the internal dealer: the hand's
   cards are its deck's first ones), else **voided** at once with every wager returned;
3. start the other devices (:func:`controller.devices.build_devices`), hand the buffered
   driver events to the loop, publish the table as it stands (a tablet can take a seat on a
   fresh table);
4. the hand pacer asks one proven deck per hand once the last board was read and the table
   is not paused; the loop runs (:meth:`run`) until stopped.

Simulated players in-process (``livetable simulate``) are an extra device: anything with
``attach(run)`` / ``tick(orch)`` given as ``extras``; simulated tablets on the broker
(:mod:`controller.simtablets`) need nothing here. So is a tournament's director: a
single-table tournament (:class:`controller.tournament_run.TournamentTable`) or one table of
the room's multi-table tournament (:func:`room_tournament_seat`), the same for both commands.
What the table plays (its director's ``plays``, else ``cash``;
:data:`controller.tournament_run.PLAYS`) is checked against the journal before anything
opens (:class:`JournalPlaysRefused`) and written to it once the table is open.
"""

from __future__ import annotations


import signal

import logging
import sqlite3
from pathlib import Path
from typing import Any, Callable

from controller.devices import DevicePorts, DeviceChoice, DriverAdapter, HistoryWriter, ShufflerDealer, build_devices
from controller.devices.shuffler import Forward, prove_deck_again, shuffler_status
from controller.engine.table.settings import TableSettings
from controller.journal import JournalError, file_damage
from controller.orchestrator import DeviceBack, Orchestrator
from controller.runtime import (SHOW_WINDOW_SECONDS, HandPacer, Recovery, cards_dealt_this_hand,
                                cards_taken_this_hand, open_table)

__all__ = ["TableRun", "DeviceStartError", "StopAsked", "JournalPlaysRefused", "room_tournament_seat"]

log = logging.getLogger("livetable.table")


def _cut_short(path: str | Path) -> bool:
    """True when the journal file at ``path`` is damaged by its shape alone
    (:func:`controller.journal.file_damage`: cut short, no SQLite header); False when it
    looks whole or is not there."""
    try:
        return Path(path).is_file() and file_damage(path) is not None
    except OSError:
        return False

class DeviceStartError(RuntimeError):
    """A device could not start (``livetable run`` exits 2 and names it)."""


class JournalPlaysRefused(JournalError):
    """The journal was played as something else than this table plays (issue 19: a
    tournament's journal opened as a cash game, a cash game's as a tournament table, a
    single-table tournament's as a table of the room's): nothing was opened or written
    (``livetable run`` and ``livetable simulate`` exit 3 and print the message, which
    names the journal, what it holds and how to open it)."""


def room_tournament_seat(table: str, *, host: str, port: int, username: str | None = None,
                         password: str | None = None) -> Any:
    """Return the extra device that makes a :class:`TableRun` one table of the room's
    multi-table tournament (issue 19; :class:`controller.tournament_link.RoomTournamentSeat`,
    ``plays = "room-tournament"``): it takes the room's orders on
    ``livetable/<table>/tournament/order`` and reports on ``.../report`` through the table's
    broker at ``host``:``port`` (bridged to the room's, :mod:`room.provision`), logged in as
    ``username`` with ``password`` (None: anonymous): the table's ``<table>-tournament``
    login (:func:`drivers.mqtt.provision.tournament_user`), never the ``controller`` one the
    table's MQTT link uses (the broker takes a login as the client's id: the two would end
    each other's session, the table paused ``broker-lost``). The one way both
    ``livetable run`` (``[room] tournament = true``, ``--tournament-room``) and ``livetable
    simulate --tournament --tournament-room`` build it; it connects only once attached."""
    from controller.tournament_link import RoomTournamentSeat

    return RoomTournamentSeat(table, host=host, port=port, username=username, password=password)


def _journal_last_seq(path: str | Path) -> int:
    """The journal's newest event seq, read without opening (or locking) it; 0 if none."""
    from controller.roomlink import read_only_uri

    if not Path(path).exists():
        return 0
    try:
        db = sqlite3.connect(read_only_uri(path), uri=True, timeout=1)  # the path quoted: # ? %
        try:
            return int(db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:
        return 0


class StopAsked:
    """A stop asked by a signal: a plain flag, set from a signal handler without a lock
    (:class:`threading.Event` takes one, so a second signal in the handler deadlocked it)."""

    def __init__(self) -> None:
        self.asked = False

    def is_set(self) -> bool:
        """True once a signal asked the table to stop."""
        return self.asked


class TableRun:
    """One table: its devices, journal, orchestrator, pacer and loop (see the module docstring).

    Args:
        settings: the table settings.
        journal: the journal file.
        choice: the devices (:class:`controller.devices.DeviceChoice`).
        clock: the injected clock (Unix seconds).
        keep_hands: compact the journal to its last N hands once their histories are in
            ``choice.history_dir`` (0: keep every event).
        rebuy: seats whose busted simulated players buy in again; ``bots``: seats of
            simulated players (they never show after a hand, P-2).
        max_hands: the pacer starts no hand after this many have finished (None: no limit).
        extras: simulated devices with ``attach(run)`` and ``tick(orch)`` (and ``close()``).
    """

    def __init__(self, settings: TableSettings, journal: str | Path, choice: DeviceChoice, *,
                 clock: Callable[[], float], keep_hands: int = 0, rebuy: set[int] | None = None,
                 bots: set[int] | None = None, max_hands: int | None = None,
                 extras: list[Any] | None = None, result_seconds: float = 0.0) -> None:
        # the pacer's hold of a hand's result (issue 20): `livetable run` passes the config's,
        # `livetable simulate` its --result-seconds (0 here: in-process tables deal at once)
        self.result_seconds = result_seconds
        self.settings, self.journal_path, self.choice, self.clock = settings, journal, choice, clock
        self.keep_hands = keep_hands
        self.rebuy, self.bots, self.max_hands = set(rebuy or ()), set(bots or ()), max_hands
        self.extras = list(extras or [])
        #: what the table plays: its tournament director's ``plays``, else ``cash``
        self.plays: str = next((p for e in self.extras if isinstance(p := getattr(e, "plays", None), str)), "cash")
        self.forward = Forward()
        self.ports = DevicePorts()
        self.orch: Orchestrator | None = None
        self.adapter: DriverAdapter | None = None
        self.pacer: HandPacer | None = None
        self.recovery: Recovery | None = None
        self.internal: Any = None
        self.status: Any = None
        self._shuffler: Any = None
        self._emulator: Any = None
        self._resumed_deck: int | None = None
        self._deck_wanted: int | None = None
        self._early_closers: list[Callable[[], None]] = []
        self.keeper: Any = None  # the journal's compaction (controller.compaction.JournalKeeper)

    # ------------------------------------------------------------------ start-up
    def open(self) -> Recovery:
        """Start the shuffler, open the journal, start the devices; return the recovery.

        Raises:
            JournalPlaysRefused: the journal was played as something else than
                :attr:`plays` (checked first: nothing is opened or written).
            controller.journal.JournalError: the journal cannot be opened (the devices
                started so far are stopped).
            DeviceStartError: a device could not start (everything is stopped).
        """
        from controller.tournament_run import journal_plays_refusal, mark_journal_plays

        # A file cut short is refused by the journal's open (exit 3, the floor's steps), and
        # read here by nobody: SQLite's read-only look would leave a -wal and -shm beside it.
        refusal = None if _cut_short(self.journal_path) else journal_plays_refusal(self.journal_path, self.plays)
        if refusal:  # issue 19: a journal is played as one thing only
            raise JournalPlaysRefused(refusal)
        c = self.choice
        try:
            if c.shuffler is not None:
                self._open_shuffler()
            else:
                from controller.dealer import InternalDealer

                self.internal = InternalDealer(self.forward, self.clock, seed=c.internal_seed)
                self.ports.dealer = self.internal
            orch, self.recovery = open_table(self.journal_path, self.settings, clock=self.clock,
                                             ports=self.ports, can_resume=self._can_resume,
                                             history_dir=c.history_dir, plays=self.plays)
        except BaseException:
            self._close_early()
            raise
        self.orch = orch
        log.info("recovery: %s", self.recovery)
        adapter = self.adapter = DriverAdapter(orch, self.ports, clock=self.clock)
        orch.translate = adapter.translate
        adapter.closers.extend(self._early_closers)
        self._early_closers = []
        adapter.shuffler, adapter.emulator = self._shuffler, self._emulator
        if self._resumed_deck is not None:
            adapter.resumed_deck(self._resumed_deck)
        try:
            # Finished hands go to the history folder and, from there, the last ones to the
            # tablets' history topics (P-4); with no folder (a simulation without
            # --history-dir) the table keeps no history.
            self.ports.history = HistoryWriter(c.history_dir) if c.history_dir else None
        except OSError as exc:
            adapter.close()
            self._close_journal()
            raise DeviceStartError(f"journal.history_dir {c.history_dir}: {exc.strerror or exc}") from exc
        try:
            build_devices(adapter, c)
        except Exception as exc:
            adapter.close()
            self._close_journal()
            raise DeviceStartError(f"a device could not start: {exc}") from exc
        self.forward.switch(orch.post)
        if self.status is not None and int(self.status.fault) == 0:
            # The shuffler answers and is sound: a shuffler-lost fault from before the restart ends.
            orch.post(DeviceBack("shuffler-lost", "the shuffler answered at start-up"))
        orch.listeners.append(adapter.after_step)
        self.pacer = HandPacer(orch.post, self.clock, new_deck=self._new_deck, rebuy=self.rebuy,
                               max_hands=self.max_hands, show_window=SHOW_WINDOW_SECONDS, bots=self.bots,
                               result_seconds=self.result_seconds)
        orch.listeners.append(self.pacer)
        adapter.on_deck_failed = self._deck_failed
        if self.keep_hands and orch.journal is not None:
            from controller.compaction import JournalKeeper

            assert c.history_dir is not None  # keep_hands needs one: the config's default, simulate checks

            # Compaction ends at a snapshot: one at least every keep_hands hands (issue 21).
            orch.snapshot_every = max(1, min(orch.snapshot_every, self.keep_hands))
            # Between hands, hands beyond the last keep_hands leave the journal once their
            # histories are safely in history_dir (controller/compaction.py): prepared on the
            # keeper's thread, deleted on the loop a snapshot's hands at a time (issue 21).
            self.keeper = JournalKeeper(orch.journal, keep_hands=self.keep_hands, history_dir=c.history_dir,
                                        background=True, max_hands_per_run=20, wall=self.clock)
            orch.listeners.append(self.keeper)
            orch.journal_status = self.keeper.health  # compaction failing: the floor's status says so
        for extra in self.extras:
            extra.attach(self)
        mark_journal_plays(orch.journal, self.plays)  # the next start reads it without a scan
        # The table as it stands, retained for the tablets and the display: a fresh table with
        # nobody seated must be seen too, or a tablet's take-seat waits for a first state (M-4).
        orch.publish_all()
        return self.recovery

    def _open_shuffler(self) -> None:
        from drivers.shuffler.link import ShufflerDriver

        path = self.choice.shuffler
        if path == "emulator":
            from drivers.shuffler.emulator import Emulator

            # A table opened again from its journal must not deal its first decks again: the
            # emulator's shuffles go on from a seed moved on by the journal's length.
            seed, done = self.choice.emulator_seed, _journal_last_seq(self.journal_path)
            self._emulator = Emulator(seed=seed if not done else seed ^ (done * 0x9E3779B1))
            path = self._emulator.start()
            self._early_closers.append(self._emulator.stop)
        assert path is not None
        self._shuffler = ShufflerDriver(path, post=self.forward, clock=self.clock)
        self._shuffler.start()
        self._early_closers.insert(0, self._shuffler.stop)
        self.ports.dealer = ShufflerDealer(self._shuffler)
        self.status = shuffler_status(self._shuffler, self.forward, timeout=3.0)
        log.info("shuffler status at start-up: %s", self.status)

    def _can_resume(self, orch: Orchestrator) -> tuple[bool, str]:
        """Whether the dealer can carry on the interrupted hand (see the module docstring)."""
        hand, info = orch.state.hand, orch.state.info
        if self.internal is not None:
            if orch.state.dealing is not None:
                return False, "a card was on its way when the controller stopped"
            if hand is None or info is None:
                return True, ""
            from controller.engine.table.play import card_texts

            cards = cards_taken_this_hand(hand)
            if {c for c in card_texts(cards) if c is not None} != set(self.internal.deck(info.number)[:len(cards)]):
                return False, ("its cards did not come from the simulation's own deck (the journal was "
                               "written with a shuffler): no further card of it can be dealt")
            self.internal.seek(info.number, len(cards))
            return True, ""
        if orch.state.dealing is not None:
            # Its deal requests may still reach the machine from the process that stopped
            # (a kill loop once saw a board dealt twice after such a hand was resumed): void.
            return False, "a card was on its way when the controller stopped"
        status = self.status
        if status is None:
            return False, "the shuffler did not say what it holds"
        mine = cards_dealt_this_hand(hand)
        if status.queued or int(status.fault) != 0:
            return False, f"the shuffler has {status.queued} card(s) queued or a fault ({status.fault})"
        if status.dealt != mine:
            # Also a card on its way when the controller stopped that the machine did deal.
            return False, f"the shuffler delivered {status.dealt} cards from its deck, the journal {mine}"
        # The counts agree; the restarted driver must prove the deck again before it deals.
        try:
            ok, reason, deck_no = prove_deck_again(self._shuffler, self.forward, hand, timeout=5.0)
        except Exception as exc:  # noqa: BLE001 - a hand the controller cannot prove is voided, never a crash loop
            log.exception("the shuffler's deck could not be proven again")
            return False, f"the shuffler's deck could not be proven again ({type(exc).__name__}: {exc})"
        self._resumed_deck = deck_no
        return ok, reason

    # ------------------------------------------------------------------ pacing
    def _new_deck(self, hand: int) -> None:
        """The pacer wants the deck of hand ``hand``: the internal dealer's at once; the
        shuffler's once the camera has read the last board and the table is not paused
        (:meth:`idle` asks again)."""
        if self.internal is not None:
            self.internal.seek(hand, 0)
            assert self.pacer is not None
            self.pacer.deck_ready()
            return
        self._deck_wanted = hand
        self._ask_deck()

    def _ask_deck(self) -> None:
        adapter, orch, pacer = self.adapter, self.orch, self.pacer
        if self._deck_wanted is None or adapter is None or orch is None or pacer is None:
            return
        if orch.faults.paused or not adapter.board_settled:
            return
        self._deck_wanted = None
        adapter.new_deck(on_ready=pacer.deck_ready)

    def _deck_failed(self) -> None:
        """The deck did not come (failed check, link lost): the pacer asks again after the fault."""
        self._deck_wanted = None
        if self.pacer is not None:
            self.pacer.deck_failed()

    # ------------------------------------------------------------------ the loop
    def idle(self) -> None:
        """The loop's idle turn (loop thread): devices' time-based checks, the next deck and
        hand, simulated devices."""
        orch, adapter, pacer = self.orch, self.adapter, self.pacer
        assert orch is not None and adapter is not None and pacer is not None
        for extra in self.extras:
            extra.tick(orch)
        self._ask_deck()
        if orch.state.hand is None:
            pacer.kick(orch)
        adapter.tick(self.clock())

    def run(self, *, poll: float = 0.02, on_idle: Callable[[], None] | None = None) -> None:
        """Run the loop until :meth:`stop` (``on_idle`` after every idle turn)."""
        assert self.orch is not None

        def idle() -> None:
            self.idle()
            if on_idle is not None:
                on_idle()

        self.orch.nudge()
        self.orch.run(poll=poll, on_idle=idle)

    def room_outbox(self, link: Any) -> None:
        """The journal goes to the room through ``link`` (:class:`controller.roomlink.RoomLink`):
        compaction keeps every record after the room's last acknowledgement (issue 21)."""
        if self.keeper is not None:
            self.keeper.acked = lambda: link.acked

    def stop(self) -> None:
        """Ask the loop to stop (safe from a signal handler)."""
        if self.orch is not None:
            self.orch.stop()

    def stop_on_signals(self) -> "StopAsked":
        """Make SIGTERM and SIGINT stop the table (exit 0), from now on: call it before
        :meth:`open`, so a signal while the shuffler and the journal open never ends in a
        traceback or 130 (issue 16). Returns the :class:`StopAsked` flag raised when one came;
        the caller stops the loop at once after ``open`` when it is set (the loop did not exist
        yet). The handler takes no lock: a second signal arriving while it runs (a nested
        handler) would wait forever on a lock the first one holds."""
        asked = StopAsked()

        def _stop(*_: object) -> None:
            asked.asked = True
            self.stop()

        signal.signal(signal.SIGTERM, _stop)
        signal.signal(signal.SIGINT, _stop)
        return asked

    def close(self) -> None:
        """Stop every device and close the journal (idempotent)."""
        for extra in self.extras:
            close = getattr(extra, "close", None)
            if close is not None:
                close()
        if self.adapter is not None:
            self.adapter.close()
        if self.keeper is not None:
            self.keeper.close()
        self._close_early()
        self._close_journal()

    def _close_journal(self) -> None:
        if self.orch is not None and self.orch.journal is not None:
            self.orch.journal.close()

    def _close_early(self) -> None:
        for close in self._early_closers:
            try:
                close()
            except Exception as exc:  # noqa: BLE001
                log.warning("closing a device: %s", exc)
        self._early_closers = []

    def stats(self) -> dict[str, Any]:
        """What the devices did: ``decks`` shuffled and proven (G-5), ``board_checks``
        (boards, partial ones included, the camera read as dealt), ``boards`` (hands that
        ended with cards on the board, counted at the next shuffle) and ``boards_matched``
        (of those, the final board the camera read as dealt), ``camera_frames`` drawn by the
        simulated camera; empty with the internal dealer."""
        a = self.adapter
        if a is None or self.internal is not None:
            return {}
        return {"decks": a.decks, "board_checks": a.board_checks, "boards": a.boards,
                "boards_matched": a.boards_matched,
                "camera_frames": a.sim_camera.frames if a.sim_camera is not None else 0}
