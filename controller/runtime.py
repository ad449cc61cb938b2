"""The table runtime shared by ``livetable run`` and ``livetable simulate`` (issue 9).

:func:`open_table` opens (or creates) the journal, checks it, recovers the orchestrator by
replaying it, and decides what becomes of a hand the crash interrupted:

- **resume** when the physical cards can be trusted: no card was on its way when the
  controller stopped, and the dealer can carry on from the same place in the same deck;
- **void** otherwise: every wager is returned (card-room practice: a hand interrupted by a
  malfunction is void), logged with ``by="system: recovery"``.

:class:`HandPacer` starts the next hand (new deck, then ``HandStartRequested``) when the
table is idle and not paused, and lets simulated players buy in again when they bust.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

from controller.config import RESULT_SECONDS  # re-exported: [table] result_seconds's default
from controller.engine.table import effects as fx
from controller.engine.table import events as ev
from controller.engine.table.audit import audit
from controller.engine.table.play import all_in_runout, show_offer
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import TableState
from controller.journal import Journal, JournalDamaged, JournalError, damaged_hint
from controller.journal_check import (HISTORY_HANDS_META, JournalRefused, floor_hint, hands_problems, history_hint,
                                      history_problems, last_hand_file)
from controller.journal_check import problems as journal_problems
from controller.orchestrator import Orchestrator, Ports

__all__ = ["Recovery", "open_table", "HandPacer", "settings_from_config", "cards_dealt_this_hand",
           "cards_taken_this_hand", "SHOW_WINDOW_SECONDS", "RESULT_SECONDS"]

#: P-2: how long the next hand waits for a player who won uncalled to choose to show,
#: as a dealer pushes the pot and gathers the cards before shuffling up (seconds).
SHOW_WINDOW_SECONDS = 3.0


log = logging.getLogger("livetable.runtime")


@dataclass(frozen=True, slots=True)
class Recovery:
    """What start-up found: ``events``, how many journal events it replayed after the snapshot
    it started from (the seq ``since``; 0: the journal's first event); ``upto``, the journal's
    last event it read (its last seq then: with ``since`` and ``events``, every event after the
    snapshot was read); the interrupted ``hand`` (or None), and ``outcome``: ``"fresh"``,
    ``"clean"`` (between hands), ``"resumed"`` or ``"voided"``.

    After a compaction the journal's seqs go on (``upto`` 70,798) while recovery replays only
    the hands since its newest snapshot (``events`` some hundreds): ``events`` is what was
    replayed, never the journal's last seq."""

    events: int
    hand: int | None
    outcome: str
    reason: str = ""
    since: int = 0
    upto: int = 0

    def __str__(self) -> str:
        """One readable line for the logs (issue 19: start-up logged the dataclass's repr):
        ``a fresh journal``, ``clean, between hands (120 events replayed)``, ``hand 7 resumed
        (120 events replayed)``, ``hand 7 voided: REASON (120 events replayed)``; with the
        snapshot it started from when there was one: ``(120 events replayed from the snapshot
        at event 70,678)``."""
        replayed = f"({self.events:,} events replayed" + (
            f" from the snapshot at event {self.since:,})" if self.since else ")")
        if self.outcome == "fresh":
            return "a fresh journal"
        if self.outcome == "clean":
            return f"clean, between hands {replayed}"
        text = f"hand {self.hand} {self.outcome}" if self.hand is not None else self.outcome
        return f"{text}{': ' + self.reason if self.reason else ''} {replayed}"


def settings_from_config(cfg: Any) -> TableSettings:
    """Return the table's :class:`TableSettings` for a :class:`controller.config.Config`."""
    t, r = cfg.table, cfg.rake
    return TableSettings(
        id=t.id, name=t.name, game=t.game, limit=t.limit, seats=t.seats,
        small_blind=t.stakes.small_blind, big_blind=t.stakes.big_blind, ante=t.stakes.ante,
        small_bet=t.stakes.small_bet, big_bet=t.stakes.big_bet,
        buy_in_min=t.buy_in_min, buy_in_max=t.buy_in_max, action_seconds=t.action_seconds,
        showdown_seconds=t.showdown_seconds,
        cap_lifted_heads_up=t.cap_lifted_heads_up, rake_percent=r.percent, rake_caps=r.caps,
        no_flop_no_drop=r.no_flop_no_drop, draw_counts_as_flop=r.draw_counts_as_flop,
        tablet_join=t.tablet_join, language=t.language,
    )


def cards_taken_this_hand(hand: Any) -> list[Any]:
    """Return the cards the running ``hand`` has taken from the deck (hole cards, draw
    discards and replacements, board and burns), as the hand engine holds them (None for
    a card dealt unseen); the board's places not yet dealt are left out."""
    return [*itertools.chain(*hand.hole), *itertools.chain(*hand.discards),
            *(c for c in hand.board if c is not None), *hand.burns]


def cards_dealt_this_hand(hand: Any) -> int:
    """Return how many cards the running ``hand`` has taken from the deck
    (:func:`cards_taken_this_hand`)."""
    return len(cards_taken_this_hand(hand))


#: The build command the warning about a missing compiled equity module names.
EQUITY_BUILD = ".venv/bin/python -m pip install -e ."
_equity_started = threading.Lock()


def prepare_equity() -> bool:
    """Set up all-in equity (S-8) for the first all-in, off the table's loop; once a process.

    Without it the first all-in of a session paid the compiled module's set-up (some 20 ms)
    on the loop, or numpy's (0.1-0.3 s) where the module was not built (issue 21). Run on a
    daemon thread (:func:`controller.engine.equity.prepare_default`, thread-safe: an all-in
    meanwhile waits for the same set-up), started once the journal is replayed and run beside
    the rest of start-up: READY does not wait for it (some 30 ms of CPU with the compiled
    module). The evaluator's tables are built before (:func:`open_table`); the thread is named
    ``equity-prepare``. Where the compiled module was not built (a clone whose set-up did not
    run the build, no gcc or python3-dev), one warning says what is slower and the command
    that builds it. Returns False when it was started before (nothing done)."""
    if not _equity_started.acquire(blocking=False):
        return False
    import importlib

    try:  # loaded, not only found: a file that is there but will not load (damaged, another Python's) counts
        importlib.import_module("controller.engine._equity_c")
        why = ""
    except ImportError as exc:
        why = str(exc) or "not built"
    if why:
        log.warning("the compiled equity module (controller/engine/_equity_c.c) is not built or cannot be loaded "
                    "(%s): all-in equity "
                    "(S-8) is counted with numpy, at 0.1-0.2x the speed of native code (a 10-player or Omaha "
                    "all-in can take tens of ms on the table's loop) and some 30 MB more memory. Build it "
                    "from the checkout with `%s` (needs gcc and python3-dev; bash scripts/setup.sh "
                    "does it) and restart the table", why, EQUITY_BUILD)

    def run() -> None:
        try:
            from controller.engine.equity import prepare_default

            prepare_default()
        except Exception as exc:  # pragma: no cover - equity computes its set-up again on first use
            log.warning("equity could not be set up ahead of the first all-in: %s", exc)

    threading.Thread(target=run, name="equity-prepare", daemon=True).start()
    return True


def all_in_equity(state: Any) -> dict[str, float] | None:
    """Return ``{seat: share}`` (0..1, 4 decimals) for each live seat in an all-in run-out
    (S-8), else None.

    The run-out is :func:`controller.engine.table.play.all_in_runout`: no player can act any
    more and board cards are still to come, including while the dealer deals the next
    street (the shares are those of the board already dealt). Hold'em and Omaha only:
    five card draw never has a run-out (G-3, docs/state.md). None as well when a live hand
    or the board holds a card the shuffler could not read (the dealer reads a hand first,
    P-2), and when the equity cannot be computed (logged; the display's extra never stops
    the table).
    """
    hand = state.hand
    if not all_in_runout(state):
        return None
    live = [i for i in range(len(hand.seats)) if not hand.folded[i] and not hand.mucked[i]]
    try:
        from controller.engine.equity import equity
        from controller.engine.table.play import card_texts

        holes = [card_texts(hand.hole[i]) for i in live]
        if any(not h or any(c is None for c in h) for h in holes):
            return None
        board = card_texts(hand.board)
        if None in board:  # an unread board card: the shares would be of another board
            return None
        # cast: the checks above leave no None (an unread card) in holes or board
        shares = equity(cast("list[list[str]]", holes), board=cast("list[str]", board), game=state.settings.game)
    except Exception as exc:  # the display's extra must never stop the table
        log.warning("all-in equity not computed: %s", exc)
        return None
    return {str(hand.seats[i]): round(float(x), 4) for i, x in zip(live, shares)}


class OtherTablesJournal(JournalError):
    """The journal opened is another table's: ``have`` is its table id, ``want`` the id the
    config (or ``livetable simulate --table``) asked for."""

    def __init__(self, have: str, want: str) -> None:
        super().__init__(f"the journal is table {have!r}'s, the config is for {want!r}: "
                         "point journal.path at this table's journal")
        self.have, self.want = have, want


#: The settings a table of the room's tournament takes from the room's orders, not its config
#: (docs/tournament.md: its ``[table]`` stakes are "required, not used").
ROOM_TOURNAMENT_KEYS = frozenset({"small_blind", "big_blind", "ante", "big_blind_ante", "small_bet", "big_bet",
                                  "buy_in_min", "buy_in_max"})


def _apply_config_changes(orch: Orchestrator, settings: TableSettings, clock: Callable[[], float],
                          plays: str = "cash") -> None:
    """Make a changed config take effect the way the floor's changes do: journalled, between hands.
    At a table of the room's tournament (``plays``) the config's stakes and buy-ins are not used
    (:data:`ROOM_TOURNAMENT_KEYS`, the room's orders give the stakes): their changes are left
    out, without the misleading "applied between hands" (newcomer finding F7).

    Raises:
        OtherTablesJournal: the journal belongs to another table (its id differs).
    """
    have = orch.state.settings.to_json()
    want = settings.to_json()
    if have.get("id") != want.get("id"):
        raise OtherTablesJournal(str(have.get("id")), str(want.get("id")))
    changes = {k: v for k, v in want.items() if have.get(k) != v}
    if plays == "room-tournament":
        changes = {k: v for k, v in changes.items() if k not in ROOM_TOURNAMENT_KEYS}
    if changes:
        log.warning("the config changed %s since the journal's table was set up: applied between hands",
                    sorted(changes))
        orch.handle(ev.SettingsChanged(at=clock(), changes=changes, by="config file"))


def open_table(
    journal_path: str | Path,
    settings: TableSettings,
    *,
    clock: Callable[[], float],
    ports: Ports | None = None,
    can_resume: Callable[[Orchestrator], tuple[bool, str]] | None = None,
    history_dir: str | Path | None = None,
    plays: str = "cash",
) -> tuple[Orchestrator, Recovery]:
    """Open the journal, replay it and settle an interrupted hand; return the orchestrator.

    Args:
        plays: what the table plays (``cash``, ``tournament``, ``room-tournament``): a table
            of the room's tournament takes no stakes from a changed config.
        can_resume: ``f(orch) -> (ok, reason)``: whether the dealer can carry on the hand
            where it stopped. Default: yes unless a card was on its way.
        history_dir: the table's hand files (``journal.history_dir``): a journal gone with
            its ``-wal`` and mark beside a folder holding hands is refused before anything
            is created (:func:`controller.journal_check.history_problems`); a journal the
            floor accepted beside them numbers its hands after theirs; a journal whose replay
            ends on fewer hands than its mark or than this table's highest hand file there is
            refused (:func:`controller.journal_check.hands_problems`).

    Raises:
        controller.journal.JournalError: the journal cannot be opened or fails its check;
            :class:`controller.journal_check.JournalRefused` when committed events are missing
            or the snapshot disagrees with the events (the table must not start: exit 3).
    """
    found = history_problems(journal_path, history_dir)
    if found:  # issue 16 b: a new table would write its hands 1, 2, ... over the old ones
        raise JournalRefused(journal_path, found, hint=history_hint(journal_path, history_dir or "",
                                                                    last_hand_file(history_dir)))
    # The copy of a doubtful -wal is kept until every check below has passed.
    try:
        journal = Journal(journal_path, keep_evidence=True)
    except JournalDamaged as exc:  # SQLite cannot read the file: no --accept can help, say what can
        raise JournalRefused(journal_path, [str(exc)], hint=damaged_hint(journal_path, history_dir)) from exc
    # Committed events missing (a lost -wal), a snapshot the events do not give: refuse (exit 3).
    # The events start-up reads only (full=False): READY does not grow with the hands kept.
    found = journal_problems(journal, full=False)
    if found:
        journal.close()
        damaged = journal.damaged()
        if damaged is not None:  # SQLite's own check, or the file's length: the file is damaged
            hint = damaged_hint(journal_path, history_dir)
            found = [str(damaged)] + [
                p for p in found if not p.startswith("sqlite: ")]
        else:
            hint = floor_hint(journal_path, history_dir)
        raise JournalRefused(journal_path, found, evidence=journal.evidence, hint=hint)
    try:  # build the evaluator's tables now, not at the first showdown a player waits on
        from controller.engine import evaluator

        evaluator.rank_hand(["As", "Ks", "Qs", "Js", "Ts"])
    except Exception:  # pragma: no cover - a broken evaluator shows up at the showdown
        pass
    fresh_start = journal.last_seq == 0
    try:  # a journal the floor accepted beside older hand files numbers its hands after theirs
        before = int(journal.meta(HISTORY_HANDS_META) or 0)
    except ValueError:
        before = 0
    try:
        orch = Orchestrator.recover(journal, lambda: replace(TableState.new(settings), hands=before),
                                    clock=clock, ports=ports)
    except JournalRefused:
        journal.close()
        raise
    except JournalError as exc:  # an event that does not replay: the floor's, with its way on
        journal.close()
        raise JournalRefused(journal_path, [str(exc)], evidence=journal.evidence,
                             hint=floor_hint(journal_path, history_dir)) from exc
    # What else knows the last hand: the mark and the hand files (issue 16: a replay that
    # stopped taking events, an older backup put back, a -wal lost with the mark).
    found = hands_problems(journal, orch.state.hands, history_dir, orch.state.settings.id)
    if found:
        journal.close()
        raise JournalRefused(journal_path, found, evidence=journal.evidence,
                             hint=floor_hint(journal_path, history_dir))
    journal.drop_evidence()
    orch.equity_fn = all_in_equity
    prepare_equity()  # on a thread of its own: the first all-in does not wait for it
    # what recovery replayed, from the snapshot it started at (not the journal's last seq:
    # after a compaction that is far above the events replayed)
    replayed, since, upto = orch.replayed, orch.recovered_from, journal.last_seq
    problems = audit(orch.state)
    if problems:
        journal.close()
        raise JournalRefused(journal_path, [f"the recovered table does not balance: {p}" for p in problems])
    if fresh_start:
        # A snapshot from the first moment: the journal alone always says what the table is.
        orch._snapshot(clock())  # noqa: SLF001 - the runtime owns the journal's life cycle
        return orch, Recovery(0, None, "fresh")
    try:
        _apply_config_changes(orch, settings, clock, plays)
    except OtherTablesJournal:
        journal.close()  # not this table's: leave it as it was, and unlocked
        raise
    if orch.state.hand is None:
        rec = Recovery(replayed, None, "clean", since=since, upto=upto)
    else:
        number = orch.state.info.number if orch.state.info else None
        ok, reason = (True, "")
        if orch.pending_void:
            ok, reason = False, f"the floor had decided {orch.pending_void}"
        elif orch.state.dealing is not None:
            ok, reason = False, "a card was on its way when the controller stopped"
        if ok and can_resume is not None:
            ok, reason = can_resume(orch)
        rec = Recovery(replayed, number, "resumed" if ok else "voided", "" if ok else reason, since=since, upto=upto)
    # The floor sees every restart and what became of the hand in the journal.
    journal.append("recovery", {"outcome": rec.outcome, "hand": rec.hand, "reason": rec.reason,
                                "events_replayed": rec.events, "replayed_from": rec.since}, clock())
    if rec.outcome == "resumed":
        orch.resume_after_recovery()
    elif rec.outcome == "voided":
        orch.void_interrupted_hand(f"void after restart: {rec.reason}")
    return orch, rec


class HandPacer:
    """Start the next hand when the table is idle; re-buy busted simulated players.

    One pacer, set up once by :class:`controller.composition.TableRun` for ``livetable run``
    and ``livetable simulate`` alike (the shuffler, its emulator or the internal dealer). It asks for
    one new deck per hand (G-5) and posts one ``HandStartRequested`` per deck, then waits:

    - ``idle``: nothing asked; the next listener call or :meth:`kick` may ask for a deck when
      no hand runs, the table is not paused, ``max_hands`` is not reached, no simulated player
      needed a re-buy first, and the table changed since the last refused start. A busted
      simulated player's re-buy is posted once and stays pending until the loop has handled
      it (one ``bought-in`` per re-buy in the journal);
    - ``deck``: ``new_deck(hand)`` was called; the dealer's deck ready must end in
      :meth:`deck_ready`, its failure (failed deck check, link lost) in :meth:`deck_failed`;
    - ``start``: the hand start is posted and stays pending until the loop has handled it:
      stepped (the hand starts), refused by the table (not enough players ...; the pacer
      waits until the table changes) or dropped because the table is paused (asked again
      once the fault has ended). Meanwhile no second deck is asked for: a second shuffle
      would take the proven deck away from the hand about to be dealt (``no-verified-deck``).

    Attach with ``orch.listeners.append(pacer)``; call :meth:`kick` at start and from the
    loop's idle turns (after a fault ends no table event calls the listeners).

    Args:
        post: the orchestrator's ``post``; it must take ``done=`` (:meth:`Orchestrator.post`).
        clock: stamps events (Unix seconds).
        new_deck: ``f(hand_number)`` asks the dealer for a new, checked deck (None: the deck
            is always ready, as with a dealer that needs no shuffle).
        rebuy: seats whose busted players buy in again (simulated players), or empty.
        max_hands: stop starting hands after this many finished (None: never stop).
        show_window: seconds after a hand the winner of an uncalled pot may still show it
            (P-2) before the next deck and hand are asked for (0: no wait). Only for a
            winner whose tablet is online and whose seat is not in ``bots``. The caller
            must :meth:`kick` the pacer while idle (app and simulate do).
        bots: seats of simulated players (they never show after a hand).
        result_seconds: seconds the result of a hand that awarded a pot (a showdown or an
            uncalled pot; not a void hand) stays before the next deck and hand are asked for,
            while a seat not in ``bots`` is connected (a player's tablet is online; issue 20:
            the shown hands and the awards must be seen). 0: no hold (bots-only simulation).

    ``hand_start``: None, or ``f() -> dict | None`` asked before each deck: the extra fields
    of the next ``HandStartRequested`` (a tournament's ``level``, issue 19), or None to deal
    no hand now (a break). Set by :class:`controller.tournament_run.TournamentTable`.
    """

    IDLE, DECK, START = "idle", "deck", "start"

    def __init__(self, post: Callable[..., None], clock: Callable[[], float], *,
                 new_deck: Callable[[int], None] | None = None, rebuy: set[int] | None = None,
                 max_hands: int | None = None, show_window: float = 0.0,
                 bots: set[int] | None = None, result_seconds: float = 0.0) -> None:
        self.post, self.clock = post, clock
        self.new_deck = new_deck
        self.rebuy = rebuy or set()
        self.max_hands = max_hands
        self.show_window = show_window
        self.bots = bots or set()
        self.result_seconds = result_seconds
        self.phase = self.IDLE
        self.refused_seq: int | None = None
        self._rebuying: set[int] = set()  # seats whose re-buy the loop has not handled yet
        # seat -> player: who sat there when the pacer last looked; None until it first looks
        self._seen: dict[int, str] | None = None
        self._new: dict[int, str] = {}  # seats taken by the step the pacer was called for: not re-bought
        self.hand_start: Callable[[], dict[str, Any] | None] | None = None
        self._start_fields: dict[str, Any] = {}

    @property
    def waiting_deck(self) -> bool:
        """True while the dealer's new deck is awaited."""
        return self.phase == self.DECK

    @property
    def start_pending(self) -> bool:
        """True while a posted hand start has not yet been handled by the loop."""
        return self.phase == self.START

    def kick(self, orch: Orchestrator) -> None:
        """Ask for the next hand if none runs (call after start-up and after a fault ends)."""
        self(orch, [])

    def __call__(self, orch: Orchestrator, effects: list[Any]) -> None:
        state = orch.state
        self._look(state)
        for e in effects:
            if isinstance(e, fx.Refuse) and e.event == "hand-start-requested":
                # Not enough players (or the like): wait until the table changes.
                self.refused_seq = state.seq
                return
        if self.phase != self.IDLE:
            return  # a deck is on its way or a start is queued: one at a time
        if state.hand is not None or orch.faults.paused or getattr(orch, "closing", None):
            return  # closing: the floor closes the table once this hand has ended
        if self.max_hands is not None and orch.hands_finished >= self.max_hands:
            return
        if self._rebuying:
            return  # a re-buy is still in the inbox: one at a time, and no hand before it
        for seat in state.seats:
            if seat is not None and seat.seat in self.rebuy and seat.stack == 0:
                if self._new.get(seat.seat) == seat.player:
                    return  # just seated: its buy-in comes next (the floor's), or the next look re-buys
                amount = state.settings.buy_in_min or 20 * state.settings.big_blind
                self._rebuying.add(seat.seat)
                self.post(ev.BoughtIn(at=self.clock(), seat=seat.seat, amount=amount),
                          done=lambda s=seat.seat: self._rebuy_handled(orch, s))
                return
        if self.refused_seq == state.seq:
            return
        if self.holding(state):
            return
        if self.hand_start is not None:
            fields = self.hand_start()
            if fields is None:
                return
            self._start_fields = fields
        self.phase = self.DECK
        if self.new_deck is not None:
            self.new_deck(state.hands + 1)
        else:
            self.deck_ready()

    def _look(self, state: TableState) -> None:
        """Note the players who sat down in the step just handled: a player the floor seats
        has no chips until the floor's buy-in, posted once the sit-down is handled (T-3); a
        re-buy of the minimum posted from the sit-down's own step came first, and the
        floor's buy-in was refused (T-7: the seat has chips) and the player stood up again.
        Such a seat is not re-bought from that step (a later look may, once it is still
        without chips: a player who busted)."""
        now = {s.seat: s.player for s in state.seats if s is not None}
        seen, self._seen = self._seen, now
        self._new = {n: p for n, p in now.items() if seen is not None and seen.get(n) != p}

    def deck_ready(self) -> None:
        """The dealer holds a new checked deck: post the hand start (once per deck).

        A deck nobody waits for (a late one, after :meth:`deck_failed`) starts nothing.
        """
        if self.phase != self.DECK:
            log.warning("a deck was ready while the pacer was %s: no second hand start", self.phase)
            return
        self.phase = self.START
        fields, self._start_fields = self._start_fields, {}
        self.post(ev.HandStartRequested(at=self.clock(), **fields), done=self._start_handled)

    def deck_failed(self) -> None:
        """The deck asked for will not come (failed check, shuffle lost): ask again later."""
        if self.phase == self.DECK:
            self.phase = self.IDLE

    def _rebuy_handled(self, orch: Orchestrator, seat: int) -> None:
        # Stepped, refused or dropped while paused: look at the table again. A re-buy the
        # table refused (T-2: a player back within 20 minutes brings at least what they left
        # with) is not asked again and again (one refused bought-in after another in the
        # journal, no hand ever dealt): the busted simulated player leaves the seat (T-8).
        s = orch.state.seat(seat)
        if (s is not None and s.stack == 0 and not s.buy_in_pending and orch.state.hand is None
                and not orch.faults.paused):
            log.info("seat %d: the re-buy was refused; the busted simulated player stands up", seat)
            self.post(ev.StoodUp(at=self.clock(), seat=seat), done=lambda: self._stood_up(orch, seat))
            return
        self._rebuying.discard(seat)
        self(orch, [])

    def _stood_up(self, orch: Orchestrator, seat: int) -> None:
        self._rebuying.discard(seat)
        self(orch, [])

    def _start_handled(self) -> None:
        # Stepped, refused or dropped while paused: the next kick decides again.
        self.phase = self.IDLE

    def holding(self, state: TableState) -> bool:
        """Return whether the next hand waits: the uncalled winner of the last hand may
        still show it (P-2) and the show window since the hand ended is not over, or the
        last hand's result is still on show (``result_seconds``, issue 20)."""
        return self._showing_result(state) or self._show_window_open(state)

    def _showing_result(self, state: TableState) -> bool:
        rec = state.last_result
        if self.result_seconds <= 0 or state.hand is not None or not rec or rec.get("voided"):
            return False
        ended = rec.get("ended")
        if not isinstance(ended, (int, float)) or self.clock() >= ended + self.result_seconds:
            return False
        if not (rec.get("result") or {}).get("awards"):
            return False
        return any(s is not None and s.connected and s.seat not in self.bots for s in state.seats)

    def _show_window_open(self, state: TableState) -> bool:
        seat = show_offer(state) if self.show_window > 0 else None
        if seat is None or seat in self.bots:
            return False
        s = state.seat(seat)
        ended = (state.last_result or {}).get("ended")
        return (s is not None and s.connected and isinstance(ended, (int, float))
                and self.clock() < ended + self.show_window)
