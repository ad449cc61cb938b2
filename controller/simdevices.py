"""The simulated devices of ``livetable simulate`` (issue 9): a composition root.

:class:`Rig` builds, for ``--devices none``, the internal seeded dealer only; for
``--devices all`` the production drivers on simulated hardware: the shuffler driver on the
emulator's pty, the seat panel on gpiozero's MockFactory, the MQTT link on the local
Mosquitto, the simulated camera (frames drawn of the dealt board, read by the recognizer and
checked against the shuffler), and the display process. Simulated players act through the
orchestrator's inbox, after a thinking time scaled by ``--speed``; with the camera on they
also wait until it has read the board just dealt, so every street's board is checked.

Every hand gets one new deck, shuffled and proved (G-5) after the camera has read the last
board; the hand pacer (:class:`controller.runtime.HandPacer`, the same as ``livetable run``'s)
posts one hand start per deck and keeps it pending until the table has handled it (a second
shuffle would take the proven deck away from the hand about to be dealt). After a fault ends
the players decide again on the state as it is (an action refused while paused is not lost).

:class:`SimTable` runs the same composition in-process with its loop in a thread, for tests
and demonstrations: wait on conditions, inject device faults (docs/faults.md).
"""

from __future__ import annotations

import heapq
import itertools
import logging
import random
from typing import Any

from controller.adapters import DevicePorts, DriverAdapter
from controller.bots import SimPlayers
from controller.dealer import InternalDealer
from controller.engine.table.play import card_texts
from controller.engine.table.settings import TableSettings
from controller.orchestrator import Orchestrator
from controller.runtime import cards_taken_this_hand

__all__ = ["Rig", "journal_seed"]


def journal_seed(journal: Any) -> int | None:
    """Return the seed a simulation keeps in ``journal`` (its meta table, which compaction
    keeps; journals of before in their ``simulate`` entry), or None (a new journal, none)."""
    if journal is None:
        return None
    seed = journal.meta("simulate_seed")
    if seed is not None:
        return int(seed)
    stored = next(journal.entries(kinds=("simulate",)), None)
    seed = None if stored is None else stored.payload.get("seed")
    return seed if isinstance(seed, int) else None


log = logging.getLogger("livetable.simulate")


class Rig:
    """Everything simulated around one table; see the module docstring.

    Args:
        args: the parsed ``livetable simulate`` options.
        settings: the table settings.
        clock: Unix seconds.
        bot_seats: seats played by simulated players.
        speed: 0 = instant players; 1 = a live pace (about a second per decision).
    """

    def __init__(self, args: Any, settings: TableSettings, *, clock: Any, bot_seats: list[int],
                 speed: float) -> None:
        self.args, self.settings, self.clock = args, settings, clock
        self.bot_seats = bot_seats
        self.speed = speed
        self.rng = random.Random(args.seed)
        self.ports = DevicePorts()
        self.pacer: Any = None
        self.orch: Orchestrator | None = None
        self._later: list[tuple[float, int, Any, Any]] = []  # (due, n, event, done)
        self._n = itertools.count()
        self.adapter: DriverAdapter | None = None
        self.internal: InternalDealer | None = None
        self._deck_wanted: int | None = None
        self._was_paused = False
        self.players: SimPlayers | None = None

    # -------------------------------------------------------------- composition
    def attach(self, orch: Orchestrator) -> None:
        """Build the devices around ``orch`` and start them."""
        self.orch = orch
        self.adapter = DriverAdapter(orch, self.ports, clock=self.clock)
        self.adapter.on_deck_failed = self._deck_failed
        orch.translate = self.adapter.translate
        if self.args.devices == "none":
            self.internal = InternalDealer(orch.post, self.clock, seed=self.args.seed)
            self.ports.dealer = self.internal
            if getattr(self.args, "history_dir", None):
                from controller.adapters import HistoryWriter

                self.ports.history = HistoryWriter(self.args.history_dir)
        else:
            self.adapter.build_simulated(self.args, self.settings, headless=self.args.headless)
        self.players = SimPlayers(self.bot_seats, self._post_later, self.clock, seed=self.args.seed)
        orch.listeners.append(self.players)
        orch.listeners.append(self.adapter.after_step)

    def new_deck(self, orch: Orchestrator) -> Any:
        """Return the pacer's ``new_deck(hand)``: a shuffle and deck check, then the pacer's
        ``deck_ready`` (set :attr:`pacer` first).

        With the shuffler, the deck is asked for once the camera has read the last hand's
        board (:attr:`DriverAdapter.board_settled`: cards are collected after the check) and
        the table is not paused. The pacer never asks while its hand start is pending.
        """

        def new_deck(hand: int) -> None:
            if self.internal is not None:
                self.internal.seek(hand, 0)
                self._deck_ready()
            else:
                self._deck_wanted = hand
                self._ask_deck()

        return new_deck

    def _ask_deck(self) -> None:
        assert self.adapter is not None
        assert self.orch is not None
        if self._deck_wanted is None or self.orch.faults.paused or not self.adapter.board_settled:
            return
        self._deck_wanted = None
        self.adapter.new_deck(on_ready=self._deck_ready)

    def _deck_ready(self) -> None:
        """The dealer holds a checked deck: the pacer posts the hand start."""
        if self.pacer is not None:
            self.pacer.deck_ready()

    def _deck_failed(self) -> None:
        """The deck did not come (failed check, link lost): the pacer asks again after the fault."""
        self._deck_wanted = None
        if self.pacer is not None:
            self.pacer.deck_failed()

    def seek(self, hand: int, position: int) -> None:
        """Continue hand ``hand`` at card ``position`` (internal dealer; after a crash)."""
        if self.internal is not None:
            self.internal.seek(hand, position)

    def can_resume(self, orch: Orchestrator) -> tuple[bool, str]:
        """Whether the dealer can carry on an interrupted hand.

        The internal dealer can when the hand came from its own deck (its order is a
        function of the journal's seed and the hand number): the cards the hand has taken
        must be that deck's first ones. A hand the emulated shuffler dealt (a journal of
        ``--devices all``) cannot: that deck ran inside the process that stopped.
        """
        if self.args.devices != "none":
            return False, "the shuffler's deck did not survive the restart"
        if orch.state.dealing is not None:
            return False, "a card was on its way when the controller stopped"
        hand, info = orch.state.hand, orch.state.info
        if hand is None or info is None:
            return True, ""
        seed = journal_seed(orch.journal)
        deck = InternalDealer(lambda _e: None, self.clock, seed=self.args.seed if seed is None else seed)
        cards = cards_taken_this_hand(hand)
        if {c for c in card_texts(cards) if c is not None} != set(deck.deck(info.number)[:len(cards)]):
            return False, ("its cards did not come from the simulation's own deck (the journal was "
                           "written with the emulated shuffler): no further card of it can be dealt")
        return True, ""

    # -------------------------------------------------------------- pacing
    def _camera_waiting(self) -> bool:
        return self.adapter is not None and not self.adapter.board_settled

    def _post_later(self, item: Any, *, done: Any = None) -> None:
        # Players look at the board before they act: while the camera has not yet read the
        # cards just dealt, their decisions wait (so every street's board is checked).
        if self.speed <= 0 and not self._camera_waiting():
            assert self.orch is not None
            self.orch.post(item, done=done)
            return
        think = self.rng.uniform(0.4, 1.6) / self.speed if self.speed > 0 else 0.0
        heapq.heappush(self._later, (self.clock() + think, next(self._n), item, done))

    def tick(self, orch: Orchestrator) -> None:
        """Poll the devices; release simulated players' decisions whose thinking time is
        over (and, with the camera, once it has read the board); start the next hand.

        When a fault ends, decisions held during the pause are dropped and the players
        decide again on the state as it is now (a refused or unjournalled action is not
        lost: the player acts again, as at a live table)."""
        paused = orch.faults.paused
        if self._was_paused and not paused:
            self._later.clear()
            if self.players is not None:
                self.players.forget(orch)  # the held decisions are gone: decide again
        self._was_paused = paused
        self._ask_deck()
        if self.pacer is not None and orch.state.hand is None:
            self.pacer.kick(orch)
        now = self.clock()
        while self._later and self._later[0][0] <= now and not paused and not self._camera_waiting():
            _, _, item, done = heapq.heappop(self._later)
            orch.post(item, done=done)
        if self.adapter is not None:
            self.adapter.tick(now)

    def stats(self) -> dict[str, Any]:
        """Return what the simulated devices did: ``decks`` shuffled and proved (G-5),
        ``board_checks`` (boards, partial ones included, the camera read as dealt),
        ``boards`` (hands that ended with cards on the board, counted at the next shuffle)
        and ``boards_matched`` (of those, the final board the camera read as dealt),
        ``camera_frames`` drawn; empty with ``--devices none``."""
        a = self.adapter
        if a is None or self.internal is not None:
            return {}
        return {"decks": a.decks, "board_checks": a.board_checks, "boards": a.boards,
                "boards_matched": a.boards_matched,
                "camera_frames": a.sim_camera.frames if a.sim_camera is not None else 0}

    def close(self) -> None:
        """Stop every device (drivers, emulator, display process)."""
        if self.adapter is not None:
            self.adapter.close()


class SimTable:
    """One simulated table run in-process, its loop in a thread (tests, demonstrations).

    The same composition as ``livetable simulate`` (:class:`Rig`, the journal, the hand
    pacer, simulated players), with hooks to watch and disturb it:

    - :meth:`wait` ``(predicate, timeout)``: block until ``predicate(self)`` holds (checked
      on the loop thread's idle turns and after every public view), else ``TimeoutError``;
    - :attr:`views`: every public view published (docs/state.md), in order;
    - :attr:`replies`: every ``(seat, action_id, accepted, reason)`` sent to a tablet;
    - :attr:`stacks_before`: each seat's stack when the last hand started (before blinds);
    - :attr:`rig` (its ``adapter.emulator``, ``adapter.sim_camera``, ``ports.panel`` ...).

    Args:
        argv: ``livetable simulate`` options (``--devices all`` by default).
        journal: the journal file.
        max_hands: the pacer starts no hand after this many have finished (None: no limit).
        before_start: ``f(sim)`` called after the devices are built, before the first
            shuffle (inject device faults there).

    Raises:
        controller.journal.JournalError: the journal cannot be opened.
        ValueError: an option ``livetable simulate`` would refuse.
    """

    def __init__(self, argv: list[str], journal: str, *, max_hands: int | None = None,
                 before_start: Any = None) -> None:
        import threading

        from controller.runtime import HandPacer, open_table
        from controller.simulate import _check, _seat_players, _settings, build_parser

        self.args = build_parser().parse_args(argv)
        problem = _check(self.args)
        if problem:
            raise ValueError(f"livetable simulate: {problem}")
        if self.args.seed is None:
            self.args.seed = random.randrange(1 << 24)
        self.journal_path = journal
        self.settings = _settings(self.args)
        seats = list(range(1, self.settings.seats + 1))
        tablets = self.args.tablet_set | self.args.join_set  # left to tablets (T-3: join_set stays free)
        n = self.args.players if self.args.players is not None else len(seats) - len(tablets)
        bots = [s for s in seats if s not in tablets][:n]
        self.cond = threading.Condition()
        self.views: list[dict[str, Any]] = []
        self.stacks_before: dict[int, int] = {}
        self._idle_stacks: dict[int, int] | None = None
        self.rig = Rig(self.args, self.settings, clock=_clock, bot_seats=bots, speed=0.0)
        self.orch, self.recovery = open_table(journal, self.settings, clock=_clock, ports=self.rig.ports,
                                              can_resume=self.rig.can_resume)
        self.rig.attach(self.orch)
        self.rig.ports.observers.append(self._seen)
        self.orch.listeners.append(self._after)
        self.pacer = HandPacer(self.orch.post, _clock, new_deck=self.rig.new_deck(self.orch),
                               rebuy=set(bots), max_hands=max_hands)
        self.rig.pacer = self.pacer
        self.orch.listeners.append(self.pacer)
        if before_start is not None:
            before_start(self)
        _seat_players(self.orch, bots, _clock, self.settings)
        self._thread = threading.Thread(target=self._run, name="sim-table", daemon=True)
        self.error: BaseException | None = None

    @property
    def replies(self) -> list[tuple[int, str, bool, str | None]]:
        """Every reply sent to a tablet: ``(seat, action_id, accepted, reason)``."""
        return list(self.rig.ports.replies)

    def start(self) -> "SimTable":
        """Start the loop thread; return self."""
        self.orch.nudge()
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            self.orch.run(poll=0.01, on_idle=self._idle)
        except BaseException as exc:  # reported by wait()
            self.error = exc
            with self.cond:
                self.cond.notify_all()

    def _idle(self) -> None:
        self.rig.tick(self.orch)
        with self.cond:
            self.cond.notify_all()

    def _seen(self, view: dict[str, Any]) -> None:
        with self.cond:
            self.views.append(view)
            self.cond.notify_all()

    def _after(self, orch: Orchestrator, effects: list[Any]) -> None:
        if orch.state.hand is None:
            self._idle_stacks = {s.seat: s.stack for s in orch.state.seats if s is not None}
        elif self._idle_stacks is not None:
            self.stacks_before, self._idle_stacks = self._idle_stacks, None

    def wait(self, predicate: Any, timeout: float = 20.0, what: str = "") -> None:
        """Block until ``predicate(self)`` is true; raise ``TimeoutError`` after ``timeout`` s."""
        with self.cond:
            ok = self.cond.wait_for(lambda: self.error is not None or predicate(self), timeout)
        if self.error is not None:
            raise RuntimeError(f"the table loop failed: {self.error!r}") from self.error
        if not ok:
            fault = self.orch.faults.current
            raise TimeoutError(f"no {what or 'condition'} within {timeout} s (hand {self.orch.state.hands}, "
                               f"fault {fault}, street {getattr(self.orch.state.hand, 'street', None)})")

    def stop(self) -> None:
        """Stop the loop and every device; close the journal (idempotent)."""
        self.orch.stop()
        if self._thread.is_alive():
            self._thread.join(10)
        self.rig.close()
        if self.orch.journal is not None:
            self.orch.journal.close()

    def __enter__(self) -> "SimTable":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _clock() -> float:
    from controller.clock import system_clock

    return system_clock()
