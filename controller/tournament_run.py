"""A single-table tournament at a running table (issue 19): ``livetable simulate --tournament``.

The running part of the tournament (journal, orchestrator, pacer): it lives beside
``controller/tournament/``, which stays pure (standard library only, no clock, no I/O).

:class:`TournamentTable` is an extra device of :class:`controller.composition.TableRun`
(``attach(run)`` / ``tick(orch)``), so the tournament plays through the same composition as
``livetable run``: orchestrator, journal, hand pacer, dealer. It:

- **draws the seats** (TDA 7), registers every entry and seats it with the starting stack
  (``PlayerSatDown`` + ``BoughtIn``), the first hand's button drawn by cards (one card face
  up a player, the highest by rank then suit wins: :func:`controller.tournament.button.button_draw`);
- **gives each deal its level**: the pacer asks :meth:`TournamentTable.hand_start` before it
  asks for a deck; the clock's level becomes the ``HandStartRequested.level`` (TDA 23: a
  new level applies from the next hand); on a break no hand is dealt;
- **records the busts** of every finished hand (``busts_of`` into ``Standings.bust``;
  players out in one hand placed by their starting stacks) and, once one player is left,
  the places and the payouts (summing to the prize pool to the unit);
- **checks after every table event** that the chips brought to the table equal the
  standings' chips in play (starting stacks + rebuys + add-ons), that no chip was cashed
  out or raked, and that the players seated are exactly the live entries.

Journaling (the same crash guarantee as a hand: :meth:`controller.journal.Journal.append`
is durable before it returns, and nothing acts on a tournament event before it is
journalled), as ``tournament`` entries of the table's own journal, ``payload["type"]``:

- ``start``: the settings (TOML text), the draw ``{player: seat}``, names, the button and
  ``button_draw`` (its cards: :meth:`controller.tournament.button.ButtonDraw.to_json`);
- ``entry``: ``player``, ``seat``, ``level`` (one per entry; seated only after it);
- ``clock``: a snapshot at every deal and every change of level or break: ``hand`` (the
  number the hand will have), ``level``, ``seconds_left``, ``paused``, ``on_break``,
  ``stakes`` (what the hand was given) and ``clock`` (:meth:`TournamentClock.to_json`);
- ``bust``: ``hand`` and ``busted`` ``{player: starting stack}`` (one per hand with busts);
- ``payouts``: ``places`` (players, 1st first), ``payouts`` (per place), ``prize_pool``;
- ``refund``: ``player``, ``seat``, ``kind``, ``chips``, ``reason``: a rebuy or add-on whose
  chips never reached the table, out of the standings (:meth:`TournamentTable._refund`);
- rebuy at the bust (TFIX 7): a ``bust`` with ``pending`` ``{player: seat}`` and ``level``
  holds its busts unplaced; each pending player's ``rebuy`` carrying ``bust`` (the hand) or
  ``declined`` (``player``, ``seat``, ``hand``, ``by``, ``reason``) ends his wait, and once
  none waits the others of the hand are placed (:meth:`TournamentTable.decline_rebuy`).
- a ``rebuy`` carries ``hands``: the table's hands dealt when it was booked (one rebuy a
  player between two hands: a repeated request is not booked twice, breaker 3 M1).
- a deal offered to the final players (issue 19, the TDA deal-making rule): ``deal-offer``
  (``offer`` number, ``method``, ``unit``, ``prizes``, ``total``, ``players``: ``player``,
  ``seat``, ``name``, ``stack``, ``share``; ``by``, ``reason``, ``hands``), ``deal-accept``
  (``offer``, ``seat``, ``player``, ``request``) and ``deal-end`` (``offer``, ``reason``,
  ``by``: a decline, the director's withdrawal, a hand dealt or a stack changed).

Recovery (kill -9 at any moment): the entries are replayed into new standings, the clock
restored from its last snapshot plus the time the journal shows went by after it (the
orchestrator's clock of the last event; in a simulation the table events after it: the
time the process was down does not count), entries journalled but not yet seated are
seated (nobody twice: a player already at the table is not seated again), a hand the
table finished whose busts were not yet journalled is taken from the table's
``last_result``, and a finished tournament without its payouts gets them.

Time: ``now`` is an injected monotonic clock in seconds. A simulation runs on
:class:`SimTime`, tournament seconds moved on by the table's events (and through breaks by
the loop's idle turns), so a run replays from its seed whatever the machine's speed.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import os
import random
import tomllib
from collections.abc import Callable
from typing import Any

from controller.crashpoint import CrashPoints
from controller.engine.table import effects as fx
from controller.engine.table import events as ev
from controller.engine.table.seating import hidden_in_name, player_for_name
from controller.engine.table.settings import TableSettings
from controller.journal import JournalError
from controller.orchestrator import RaiseFault, TournamentOwn

from controller.tournament.balancing import random_draw
from controller.tournament.button import ButtonDraw, button_draw
from controller.tournament.chiprace import chip_race, race_cards
from controller.tournament.clock import TournamentClock
from controller.tournament.deal import offer_entry
from controller.tournament.director import clock_command
from controller.tournament.errors import TournamentError
from controller.tournament.results import Standings, payout_amounts, prizes
from controller.tournament.settings import Break, Level, TournamentSettings, load_settings
from controller.tournament.table import busts_of, button_seat_words, level_json, level_stakes
from controller.tournament.view import tournament_view
from controller.tournament.words import players_left, stakes_words

__all__ = ["SIM_TOML", "SimTime", "TournamentTable", "replay_problem", "table_settings", "JOURNAL_KIND", "CRASH_ENV",
           "TournamentConfig", "tournament_config", "tournament_table_settings", "room_tournament_table_settings",
           "PLAYS", "PLAYS_META", "journal_plays", "plays_of_first", "journal_plays_refusal", "mark_journal_plays"]

log = logging.getLogger("livetable.tournament")

#: The journal kind of every tournament event.
JOURNAL_KIND = "tournament"
#: Hands between two ``clock`` entries that carry the tournament's whole history (issue 21):
#: the others carry the clock only. As the table's own snapshots (controller/orchestrator.py).
FULL_STATE_EVERY = 20
#: Test hook: ``"<point>:<n>"`` makes the process kill itself with SIGKILL (a real kill -9)
#: the n-th time it passes ``point`` (``entry``, ``level-change``, ``bust``,
#: ``hand-finished``: a hand's busts not yet journalled, ``payouts``, ``race``: a colour-up
#: journalled, not yet at the table; ``declined``: a rebuy at the bust declined and its hand
#: placed; ``rebuy-at-bust``: one journalled, its chips not yet at the table; ``deal-offer``,
#: ``deal-answer``: a deal offer or a seat's answer journalled, not yet published). Read once at start.
CRASH_ENV = "LIVETABLE_TOURNAMENT_CRASH"

#: The simulation's tournament: short levels, antes then big-blind antes, a break.
SIM_TOML = """
[tournament]
starting_stack = 2000
chips = [25, 100, 500, 1000]
seats_per_table = 10
late_registration_until_level = 0
entry = { price = 100, fee = 10 }

[[tournament.levels]]
small_blind = 25
big_blind = 50
minutes = 10

[[tournament.levels]]
small_blind = 50
big_blind = 100
ante = 25
minutes = 10

[[tournament.levels]]
break = 5

[[tournament.levels]]
small_blind = 100
big_blind = 200
big_blind_ante = 200
minutes = 10

[[tournament.levels]]
small_blind = 200
big_blind = 400
big_blind_ante = 400
minutes = 10

[[tournament.levels]]
small_blind = 500
big_blind = 1000
big_blind_ante = 1000
minutes = 10

[[tournament.levels]]
small_blind = 1000
big_blind = 2000
big_blind_ante = 2000
minutes = 10

[tournament.payouts]
unit = 5
[[tournament.payouts.brackets]]
min_entries = 2
percent = [100]
[[tournament.payouts.brackets]]
min_entries = 4
percent = [65, 35]
[[tournament.payouts.brackets]]
min_entries = 7
percent = [50, 30, 20]
"""

#: Tournament seconds a table event takes in a simulation (a hand is some 20 to 40 events:
#: a 10-minute level lasts a few hands).
SIM_SECONDS_PER_EVENT = 6.0
#: Tournament seconds an idle turn of the loop takes on a break in a simulation.
SIM_BREAK_STEP = 30.0


class SimTime:
    """A simulation's tournament clock (seconds, monotonic): moved on only by :meth:`advance`."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move on ``seconds`` (>= 0)."""
        self.now += max(0.0, seconds)


def first_level(ts: TournamentSettings) -> Level:
    """Return the tournament's first level (the schedule starts with one, settings check)."""
    return next(x for x in ts.schedule if isinstance(x, Level))


def table_settings(ts: TournamentSettings, *, table_id: str, game: str, limit: str, seats: int,
                   action_seconds: float = 30.0) -> TableSettings:
    """Return the settings of a table playing ``ts``: ``tournament=True``, the first level's
    blinds and antes, the smallest chip in play, no rake (a tournament's house money is the
    entry fee). Raises :class:`controller.engine.table.settings.SettingsError`."""
    lv = first_level(ts)
    return TableSettings(id=table_id, name=f"Tournament {game}", game=game, limit=limit, seats=seats,
                         small_blind=lv.small_blind, big_blind=lv.big_blind, ante=lv.ante,
                         big_blind_ante=lv.big_blind_ante, smallest_chip=ts.chips[0], tournament=True,
                         rake_percent=0, rake_caps=(), action_seconds=action_seconds)


def tournament_table_settings(base: TableSettings, ts: TournamentSettings) -> TableSettings:
    """Return ``base`` (a table's own settings: ``livetable run``'s config) made a table
    playing ``ts``: ``tournament=True``, the first level's blinds and antes, the smallest
    chip in play, no rake and no cash buy-in range (chips come as starting stacks, rebuys
    and add-ons). Raises :class:`controller.engine.table.settings.SettingsError`."""
    lv = first_level(ts)
    return dataclasses.replace(base, small_blind=lv.small_blind, big_blind=lv.big_blind, ante=lv.ante,
                               big_blind_ante=lv.big_blind_ante, small_bet=None, big_bet=None,
                               buy_in_min=None, buy_in_max=None, smallest_chip=ts.chips[0], tournament=True,
                               rake_percent=0, rake_caps=())


def room_tournament_table_settings(base: TableSettings, ts: TournamentSettings | None = None) -> TableSettings:
    """Return ``base`` (``livetable run``'s config) made one table of the room's multi-table
    tournament (issue 19, :mod:`controller.tournament_link`): with the room's tournament
    settings ``ts`` (the config's ``[tournament]``, the same TOML the room plays) as
    :func:`tournament_table_settings`; without them ``tournament=True``, no rake, no cash
    buy-in range or fixed-limit bets, the smallest chip 1 and the config's blinds until the
    room's first ``go`` brings the level's (TDA 23: every hand is dealt at the stakes of its
    ``go``). Raises :class:`controller.engine.table.settings.SettingsError`."""
    if ts is not None:
        return tournament_table_settings(base, ts)
    return dataclasses.replace(base, small_bet=None, big_bet=None, buy_in_min=None, buy_in_max=None,
                               tournament=True, rake_percent=0, rake_caps=())


@dataclasses.dataclass(frozen=True)
class TournamentConfig:
    """A tournament for ``livetable run``: its ``settings``, their TOML ``text`` (journalled
    at the start; :func:`load_settings` reads its ``[tournament]`` table) and ``source``
    (the file it came from)."""

    settings: TournamentSettings
    text: str
    source: str


#: The journal's ``meta`` key saying what its table plays (:data:`PLAYS`). Read by its
#: primary key at start-up, so telling a tournament's journal from a cash one costs no scan of
#: the events (131 ms over a 50k-hand journal's 2.35 M events, more from an SD card cold).
PLAYS_META = "plays"
#: What a table plays (issue 19): ``cash``; ``tournament``, a single-table tournament
#: (:class:`TournamentTable`); ``room-tournament``, one table of the room's multi-table
#: tournament (:class:`controller.tournament_link.RoomTournamentSeat`). A journal is played
#: as one of them only: its records mean nothing to the others.
PLAYS = ("cash", "tournament", "room-tournament")
_PLAYS_WORDS = {"cash": "a cash game", "tournament": "a single-table tournament",
                "room-tournament": "a table of the room's multi-table tournament"}
_PLAYS_HOW = {"cash": "livetable run without [tournament] and without [room] tournament = true; livetable "
                      "simulate without --tournament",
              "tournament": "livetable run with the config's [tournament] or --tournament-config FILE; livetable "
                            "simulate --tournament [--tournament-config FILE]",
              "room-tournament": "livetable run with [room] tournament = true or --tournament-room; livetable "
                                 "simulate --tournament --tournament-room"}


def mark_journal_plays(journal: Any, plays: str) -> None:
    """Record in ``journal`` (a :class:`controller.journal.Journal`) what its table plays
    (:data:`PLAYS_META`, one of :data:`PLAYS`); written once, when it changes.

    Raises:
        ValueError: ``plays`` is not one of :data:`PLAYS`.
        controller.journal.JournalError: the journal cannot be written."""
    if plays not in PLAYS:
        raise ValueError(f"plays: one of {', '.join(PLAYS)}, got {plays!r}")
    if journal is not None and journal.meta(PLAYS_META) != plays:
        journal.set_meta(PLAYS_META, plays)


def journal_plays(journal: str | os.PathLike[str]) -> str | None:
    """What the journal file ``journal`` was played as (one of :data:`PLAYS`), read-only, or
    None: no such file, not readable as a journal, or nothing says (a journal written
    before :data:`PLAYS_META` was kept with no tournament record: taken for what the table
    opening it plays, which then marks it). The meta key answers at once; a journal written
    before it is looked through once for its first ``tournament`` record (``room-order``:
    the room's tournament, anything else: a single-table one)."""
    import json
    import sqlite3
    from urllib.parse import quote

    path = os.fspath(journal)
    if not os.path.isfile(path):
        return None
    try:
        db = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro", uri=True, timeout=5)
        try:
            plays = db.execute("SELECT value FROM meta WHERE key = ?", (PLAYS_META,)).fetchone()
            if plays is not None:
                return str(plays[0]) if plays[0] in PLAYS else None
            row = db.execute("SELECT payload FROM events WHERE kind = ? ORDER BY seq LIMIT 1",
                             (JOURNAL_KIND,)).fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return None
    if row is None:
        return None
    try:
        first = json.loads(row[0])
    except (TypeError, ValueError):
        first = None
    return plays_of_first(first)


def plays_of_first(first: Any) -> str:
    """What a journal whose first ``tournament`` record is ``first`` (its payload) was played
    as: ``room-tournament`` for the room's order, else ``tournament`` (a single table's)."""
    return "room-tournament" if isinstance(first, dict) and first.get("type") == "room-order" else "tournament"


def journal_plays_refusal(journal: str | os.PathLike[str], plays: str) -> str | None:
    """Why a table playing ``plays`` (one of :data:`PLAYS`) may not open ``journal``, or None
    (issue 19): the journal was played as something else (:func:`journal_plays`). Opened as
    a cash game a tournament's journal went on silently at the cash blinds, the prize pool's
    chips counted as bought in; a cash journal opened as a tournament table would count the
    cash players' stacks as tournament chips. A journal that does not exist or cannot be
    read as one is left to the journal's own checks (None).

    Raises:
        ValueError: ``plays`` is not one of :data:`PLAYS`."""
    if plays not in PLAYS:
        raise ValueError(f"plays: one of {', '.join(PLAYS)}, got {plays!r}")
    have = journal_plays(journal)
    if have is None or have == plays:
        return None
    path = os.fspath(journal)
    held = "holds a tournament" if have != "cash" else "holds a cash game"
    return (f"the journal {path} {held} ({_PLAYS_WORDS[have]}): open it as {_PLAYS_WORDS[have]} "
            f"({_PLAYS_HOW[have]}), not as {_PLAYS_WORDS[plays]}; a new {_PLAYS_WORDS[plays]} needs "
            f"its own journal (journal.path)")


def tournament_journal_refusal(journal: str | os.PathLike[str]) -> str | None:
    """Why a cash table may not open ``journal``, or None: :func:`journal_plays_refusal`
    with ``plays="cash"`` (the journal holds a tournament, single-table or the room's)."""
    return journal_plays_refusal(journal, "cash")


def tournament_config(table_config: str, tournament_file: str | None = None) -> TournamentConfig | None:
    """Return the tournament a table plays (issue 19): ``tournament_file``'s ``[tournament]``
    (``livetable run --tournament-config FILE``), else the table config's own
    ``[tournament]`` section, else None (a cash table).

    Both files are read as :func:`controller.config.read_small_text` reads the config (a
    regular file only, a BOM left out).

    Raises:
        ValueError: a file cannot be read or is not TOML, or the settings are wrong
            (every problem, one a line, each starting with ``tournament.`` and its field path).
    """
    from controller.config import MAX_CONFIG_BYTES, read_small_text

    path = tournament_file or table_config
    try:
        text = read_small_text(path, limit=MAX_CONFIG_BYTES, what="tournament config")
    except OSError as exc:
        raise ValueError(f"{path}: {exc.strerror or exc}") from exc
    if tournament_file is None:
        try:
            if "tournament" not in tomllib.loads(text):
                return None
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"{path}: not valid TOML: {exc}") from exc
    try:
        ts = load_settings(text)
    except TournamentError as exc:
        problems = getattr(exc, "problems", [str(exc)])
        raise ValueError("\n".join(f"{path}: tournament.{p}" for p in problems)) from exc
    return TournamentConfig(ts, text, str(path))


def replay_problem(journal: Any) -> str | None:
    """Why a single-table tournament could not start on ``journal`` (a
    :class:`controller.journal.Journal`, only read), or None: its tournament events are
    replayed as :meth:`TournamentTable.attach` does (one pass; the journal's ``start``
    settings replace :data:`SIM_TOML`'s), writing nothing. The start-up check's
    (:func:`controller.journal_check.problems`): such a journal used to be called sound,
    then the table stopped on a traceback. Returns the replay's ``journal event N: ...``."""
    table = TournamentTable(load_settings(SIM_TOML), SIM_TOML, players=2, seed=0)
    try:
        table._replay(journal, write=False)
    except TournamentError as exc:
        return str(exc)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:  # the last clock entry's data
        return f"the tournament's last clock entry cannot be replayed: {exc!r}"
    return None


class TournamentTable:
    """One single-table tournament at a ``TableRun`` (see the module docstring).

    Args:
        settings: the tournament's settings (their TOML text in ``toml``, journalled at the
            start; a journal that holds a tournament keeps its own settings).
        players: entries at the start (2..the table's seats).
        seed: the draw's and the button's seed.
        now: the tournament's monotonic clock in seconds (default: a :class:`SimTime`
            moved on by the table's events).

    After :meth:`attach`: ``finished`` (a winner and the payouts journalled), ``problems``
    (broken invariants, empty when sound), :meth:`summary`.
    """

    #: What its table plays (:data:`PLAYS`): :class:`controller.composition.TableRun` refuses
    #: a journal played as anything else and marks the journal with it.
    plays = "tournament"

    def __init__(self, settings: TournamentSettings, toml: str, *, players: int, seed: int,
                 now: Callable[[], float] | None = None) -> None:
        self.settings, self.toml = settings, toml
        self.players, self.seed = players, seed
        self.sim = now is None
        self.time: Callable[[], float] = SimTime() if now is None else now
        self.standings = Standings(settings)
        self.clock = TournamentClock(settings)
        self.draw: dict[str, int] = {}
        self.names: dict[str, str] = {}
        self.button: int | None = None
        #: the draw for the button by cards at the start (None: an older journal's, drawn at random)
        self.button_cards: ButtonDraw | None = None
        self.result: dict[str, Any] | None = None
        self.problems: list[str] = []
        self.orch: Any = None
        self.busted_hands: set[int] = set()
        self._entered: set[str] = set()
        self._last_index: int | None = None
        self._last_level: int | None = None
        self._given: tuple[int, dict[str, int]] | None = None  # (hand, stakes) of the last deal
        self._dealt_level: tuple[int, int] | None = None  # (hand, level number) of the last deal
        self._crash = CrashPoints(CRASH_ENV)
        self._started = False
        #: the breaks (schedule index) whose colour-up was raced, and the race the table
        #: has still to take: its new stacks by player and the chips it adds (< 0: removes)
        self.raced: set[int] = set()
        self._race_waiting: tuple[dict[str, int], int, dict[str, int]] | None = None
        self.last_race: dict[str, Any] | None = None
        #: at a restart: the table journalled the last race's stacks (``chips-raced``) after it
        self._race_taken = False
        #: chips the colour-ups gave (> 0) or took (< 0) per player: the table books them as
        #: top-ups (``Ledger.raced``), they are no purchase
        self._raced_chips: dict[str, int] = {}
        #: rebuys and add-ons asked from a seat's tablet, waiting for the dealer: seat -> kind,
        #: and who asked (a request is the player's: it ends when he leaves the seat or busts)
        self.asked: dict[int, str] = {}
        self._asker: dict[int, str] = {}
        #: chips of confirmed rebuys and add-ons not yet booked by the table: player -> the
        #: chips (bought in + topped up) the player's account reaches once they are
        self._inflight: dict[str, int] = {}
        self._wall_start: float | None = None
        self._sim_start: float | None = None
        #: every tournament event so far but the clock snapshots (each snapshot carries it, so
        #: a compacted journal keeps the tournament: docs/tournament.md, "Compaction")
        self.history: list[dict[str, Any]] = []
        #: the seq of the newest event that holds the whole state (compaction keeps it)
        self.state_seq: int | None = None
        #: the table's hands when that event was written (the start, or a ``clock`` entry with
        #: the history); None before the tournament starts
        self._full_hands: int | None = None
        #: hands between two ``clock`` entries with the whole history (:data:`FULL_STATE_EVERY`,
        #: fewer when compaction keeps fewer hands)
        self.full_every = FULL_STATE_EVERY
        #: a rebuy at the bust (issue 19 TFIX 7): the busts of the last hand not placed yet
        #: because a player of it may still rebuy: ``{"hand", "level", "busted": {player:
        #: starting stack}, "pending": {player: seat}}`` (None: nobody is held)
        self.held: dict[str, Any] | None = None
        #: the held hand whose asked rebuy at the bust the deal was seen waiting for (H1: said once)
        self._deal_held: int | None = None
        #: chips of rebuys at the bust per player: they come as a ``BoughtIn`` (the seat was
        #: freed at the bust), so they count with the entries' starting stacks
        self._bust_rebuy_chips: dict[str, int] = {}
        #: the ledger's (in, out, rake) of the last chips-in-play violation that paused the table
        self._chips_faulted: tuple[int, int, int] | None = None
        #: player -> the table's hands dealt when his last rebuy was booked (M1: one between two hands)
        self._rebought_at: dict[str, int] = {}
        #: the deal offered to the final players (issue 19; None: none is open): the ``deal-offer``
        #: payload plus ``accepted`` {seat: request id}; the offers made so far; the last one
        #: ended (``{"offer", "reason"}``, shown until a hand finishes); the agreed offer the
        #: deal was seen held for (said once)
        self.offer: dict[str, Any] | None = None
        self.offers_made = 0
        self.offer_ended: dict[str, Any] | None = None
        #: a deal offered during a hand (or with the next one on its way): the ``deal-pending``
        #: payload, made when that hand ends (:meth:`_deal_due`); no hand is dealt meanwhile
        self.deal_pending: dict[str, Any] | None = None
        #: the table's hand pacer (set by :meth:`attach`): a hand start on its way refuses a
        #: deal's accept (the hand would end the offer a moment after it was agreed)
        self._pacer: Any = None
        self._agreed_said: int | None = None

    # ------------------------------------------------------------------ start-up
    def attach(self, run: Any) -> None:
        """Join ``run`` (a :class:`controller.composition.TableRun` after its ``open``):
        replay the journal's tournament events, settle what a crash left half done, seat the
        entries, and give the pacer its level at every deal.

        Raises:
            TournamentError: the table has no journal, or its tournament events cannot be replayed.
        """
        orch = self.orch = run.orch
        if orch.journal is None:
            raise TournamentError("a tournament needs the table's journal")
        started = self._replay(orch.journal)
        if not started:
            self._start()
        mark_journal_plays(orch.journal, "tournament")
        self._settle_last_hand()
        if len(self.standings.alive) == 1 and self.result is None:
            self._finish()
        self._check_offer()  # a hand a restart resumes, a bust settled: the offer's stacks are gone
        self._deal_due()  # killed after the hand a deal was offered for ended: made (or dropped) now
        self._seat_entries()
        self._restore_race()  # before the purchases: the chips the table booked for the race count
        self._resume_purchases()
        orch.tournament_view_fn = self.view_json
        orch.tournament_director = self  # the floor's director's requests (controller/floor.py)
        orch.tournament = self.plays  # only TournamentOwn events seat players, bring chips, set stakes
        self._wall_start, self._sim_start = orch.clock(), self.time()
        run.pacer.hand_start = self.hand_start
        run.pacer.rebuy = set()  # no cash re-buy: a busted player is out (or re-enters)
        self._pacer = run.pacer
        orch.listeners.insert(orch.listeners.index(run.pacer), self)
        if run.keeper is not None:  # compaction keeps the newest event holding the whole state
            run.keeper.keep_from.append(lambda: self.state_seq)
            # ... written often enough for compaction to keep no more than its hands (issue 21)
            self.full_every = max(1, min(FULL_STATE_EVERY, int(run.keeper.keep_hands)))

    def _replay(self, journal: Any, *, write: bool = True) -> bool:
        """Replay ``journal``'s tournament events (one pass) into this table's state; return
        whether the tournament had started. ``write=False`` is the start-up check's read-only
        replay (:func:`replay_problem`): the draw's players not yet entered are not journalled.

        Raises:
            TournamentError: an event that cannot be replayed (``journal event N: ...``), or a
                compacted journal with no start nor clock entry with the history."""
        clock_data = None
        clock_entry: Any = None
        table_after, last_at = 0, None  # table events after the last clock snapshot, the last event's time
        # A compacted journal whose start left it: the events before the first surviving clock
        # entry with the history are inside that history (it is written after them, and
        # compaction never ends past it: keep_from), so they are skipped, not applied to
        # empty standings; a clock entry without the history there only has clock data, which
        # the full one overwrites. A journal not compacted has its start first.
        compacted = int(getattr(journal, "compacted_upto", 0) or 0) > 0
        skipped: int | None = None  # the first tournament event skipped so
        for entry in journal.entries():
            if entry.kind != JOURNAL_KIND:
                table_after += entry.kind == "table"
                last_at = entry.at
                if entry.kind == "table" and isinstance(entry.payload, dict) \
                        and entry.payload.get("kind") == ev.ChipsRaced.kind:
                    self._race_taken = True  # the table took the last race's stacks
                continue
            p = entry.payload
            kind = p.get("type")
            if compacted and self.state_seq is None and kind != "start" \
                    and not (kind == "clock" and "history" in p):
                skipped = entry.seq if skipped is None else skipped
                continue
            try:
                if kind == "clock":
                    clock_data, clock_entry, table_after = p, entry, 0
                    if "history" in p:  # the whole state so far: what compaction may have taken
                        seen = None if self.last_race is None else self.last_race.get("index")
                        self._started = False
                        self.history = []
                        for h in p["history"]:
                            self._apply(h)
                        self.state_seq = entry.seq
                        if self.last_race is not None and self.last_race.get("index") != seen:
                            # a race known only from a snapshot's history (compacted away): a snapshot
                            # is written after the table took the race's stacks
                            self._race_taken = True
                else:
                    if kind == "start" and self.state_seq is None:
                        self.state_seq = entry.seq
                    if kind == "race":
                        self._race_taken = False  # until the table's chips-raced follows it
                    self._apply(p)
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise TournamentError(f"journal event {entry.seq}: a tournament {kind!r} event "
                                      f"cannot be replayed: {exc}") from exc
        if skipped is not None and self.state_seq is None:
            raise TournamentError(f"journal event {skipped}: the journal was compacted and holds no tournament "
                                  "start nor clock entry with the history after it: the tournament cannot be replayed")
        started = self._started
        # The first clock entry after a restart holds the whole state again (the hands at the
        # newest one are not kept): one entry more per restart.
        self._full_hands = -self.full_every if started else None
        if clock_data is not None:
            data = dict(clock_data["clock"])
            if data.get("running"):
                # The time played between the last snapshot and the crash is not lost: the
                # table's events after it measure it (a simulation's time is its events).
                data["played"] = float(data["played"]) + (
                    table_after * SIM_SECONDS_PER_EVENT if self.sim
                    else max(0.0, (last_at or clock_entry.at) - clock_entry.at))
            self.clock = TournamentClock.from_json(self.settings, data, self.time())
            self._last_index, self._last_level = clock_data.get("index"), clock_data.get("level")
            if clock_data.get("stakes") is not None:
                self._given = (int(clock_data["hand"]), clock_data["stakes"])
                self._dealt_level = (int(clock_data["hand"]), int(clock_data["level"]))
        elif started:
            self.clock.start(self.time())
        # Entries of the draw a crash kept from the journal are journalled now (not by a check).
        for player in self.draw:
            if write and started and player not in self._entered:
                self._enter(player)
        return started

    def _apply(self, p: dict[str, Any]) -> None:
        """Apply one journalled tournament event (not a ``clock`` snapshot) to the state and
        keep it in :attr:`history` (every clock snapshot carries that history). Raises
        ``KeyError``, ``TypeError``, ``ValueError`` on a payload of the wrong shape."""
        kind = p.get("type")
        if kind == "start":
            self._started = True
            self.toml = p["settings"]
            self.settings = load_settings(self.toml)
            self.standings, self.clock = Standings(self.settings), TournamentClock(self.settings)
            self.draw = {str(k): int(v) for k, v in p["draw"].items()}
            self.names = {str(k): str(v) for k, v in p["names"].items()}
            self.button = p.get("button")
            # an older journal's start has no cards (its button was drawn at random)
            self.button_cards = ButtonDraw.from_json(p["button_draw"]) if p.get("button_draw") else None
            self.history, self.busted_hands, self._entered, self.result = [], set(), set(), None
            self.raced, self.last_race, self._raced_chips = set(), None, {}
            self.held, self._bust_rebuy_chips, self._rebought_at = None, {}, {}
            self.offer, self.offers_made, self.offer_ended, self.deal_pending = None, 0, None, None
        elif kind in ("deal-pending", "deal-offer", "deal-accept", "deal-end"):
            self._deal_event(p)
        elif kind == "entry":
            self.standings.register(p["player"], int(p["level"]))
            self._entered.add(p["player"])
            if "name" in p:  # a late entry (the director's register): its seat and name
                self.draw[p["player"]], self.names[p["player"]] = int(p["seat"]), str(p["name"])
        elif kind == "bust":
            busted = {str(k): int(v) for k, v in p["busted"].items()}
            if p.get("pending"):  # a rebuy at the bust: placed once nobody of the hand may rebuy
                self.held = {"hand": int(p["hand"]), "level": int(p["level"]), "busted": busted,
                             "pending": {str(k): int(v) for k, v in p["pending"].items()}}
            else:
                self.standings.bust(busted)
            self.busted_hands.add(int(p["hand"]))
        elif kind == "declined":
            self._unhold(str(p["player"]), rebought=False)
        elif kind == "payouts":
            self.result = {k: p[k] for k in ("places", "payouts", "prize_pool")}
        elif kind == "rebuy":
            self.standings.rebuy(p["player"], int(p["level"]), int(p["stack"]))
            at = p.get("hands", p.get("bust"))  # an older journal's rebuy at the bust: its hand
            if at is not None:
                self._rebought_at[str(p["player"])] = int(at)
            self.asked.pop(int(p["seat"]), None)
            self._asker.pop(int(p["seat"]), None)
            if p.get("bust") is not None:  # a rebuy at the bust: its chips come as a buy-in
                player = str(p["player"])
                self._bust_rebuy_chips[player] = self._bust_rebuy_chips.get(player, 0) + int(p["chips"])
                self._unhold(player, rebought=True)
        elif kind == "addon":
            self.standings.addon(p["player"], int(p["after_level"]))
            self.asked.pop(int(p["seat"]), None)
            self._asker.pop(int(p["seat"]), None)
        elif kind == "refund":
            self.standings.refund(p["player"], p["kind"])
        elif kind == "race":
            self.standings.adjust_chips(int(p["delta"]))
            self.raced.add(int(p["index"]))
            if self.last_race is not None:  # the race before this one was taken by the table
                for player, d in self.last_race.get("deltas", {}).items():
                    self._raced_chips[str(player)] = self._raced_chips.get(str(player), 0) + int(d)
            self.last_race = p
        elif kind == "asked":
            if p.get("kind") is None:
                self.asked.pop(int(p["seat"]), None)
                self._asker.pop(int(p["seat"]), None)
            else:
                self.asked[int(p["seat"])] = str(p["kind"])
                if p.get("player") is not None:
                    self._asker[int(p["seat"])] = str(p["player"])
        self.history.append(p)

    def _start(self) -> None:
        rng = random.Random(self.seed)
        orch = self.orch
        seats = len(orch.state.seats)
        if not 2 <= self.players <= seats:
            raise TournamentError(f"a single-table tournament needs 2..{seats} players, got {self.players}")
        players = [f"p{n}" for n in range(1, self.players + 1)]
        (table,) = random_draw(players, ["table"], seats, rng)  # TDA 7: random seats
        self.draw = {p: n for n, p in enumerate(table.seats, 1) if p is not None}
        # named by the seat drawn, so the tablet at seat 3 reads "Player 3 (you)"
        self.names = {p: f"Player {n}" for p, n in self.draw.items()}
        # the draw for the button by cards (WSOP 85; controller/tournament/button.py)
        drawn = button_draw(self.draw.values(), rng)
        self.button, self.button_cards = drawn.button, drawn
        self._journal({"type": "start", "settings": self.toml, "draw": self.draw, "names": self.names,
                       "button": self.button, "button_draw": drawn.to_json(), "seed": self.seed})
        self._say_button_draw()
        for player in players:
            self._enter(player)
        self.clock.start(self.time())
        self._snapshot(None)

    def _say_button_draw(self) -> None:
        """Log the start's draw for the button: ``button draw: seat 1 7h, seat 3 Ks — button
        seat 3 (Ks) Player 3`` (WSOP 85; the cards a dealer would deal face up)."""
        drawn = self.button_cards
        if drawn is not None:
            by_seat = {n: p for p, n in self.draw.items()}
            log.info("button draw (WSOP 85, high card): %s %s", drawn.words(),
                     self.names.get(by_seat.get(drawn.button, ""), ""))

    def _enter(self, player: str) -> None:
        level = 0  # registration before the start (late registration is not offered at the table yet)
        self._journal({"type": "entry", "player": player, "seat": self.draw[player], "level": level})
        self.standings.register(player, level)  # TDA 9: a full starting stack
        self._entered.add(player)
        self._crash_point("entry")

    def _seat_entries(self) -> None:
        """Seat every live entry not at the table yet; give its stack to one seated without."""
        orch, now = self.orch, self.orch.clock()
        at_table = {s.player: s for s in orch.state.occupied()}
        held = self.held_players()
        for player in self.standings.alive:
            if player in held:
                continue  # busted, his seat kept while he may rebuy (TFIX 7): not seated again
            seat = at_table.get(player)
            # a new entry's starting stack; a rebuy at the bust's chips (the seat was freed)
            due = self._entry_chips_due(player) or self.settings.starting_stack
            if seat is None:
                n = self.draw[player]
                orch.post(TournamentOwn(ev.PlayerSatDown(at=now, seat=n, player=player,
                                                         name=self.names.get(player, player),
                                                         rebuy=self._rebought_at.get(player) == orch.state.hands
                                                         and player in self._bust_rebuy_chips)))
                orch.post(TournamentOwn(ev.BoughtIn(at=now, seat=n, amount=due)))
            elif seat.stack == 0 and orch.state.hand is None and self._entry_chips_due(player):
                orch.post(TournamentOwn(ev.BoughtIn(at=now, seat=seat.seat, amount=due)))

    def _resume_purchases(self) -> None:
        """Rebuys and add-ons journalled whose chips a crash kept from the table: brought now
        (refunded when their player is out of the tournament since: :meth:`_refund`)."""
        seated = {s.player for s in self.orch.state.occupied()}
        for p in dict.fromkeys(e.player for e in self.standings.entries):
            missing = self.standings.chips_bought(p) - self._booked(p)
            if p not in self.standings.alive and p not in seated and missing > 0:
                self._refund(p, self.draw.get(p, 0), missing, "the player was out before the chips came")
        for seat in self.orch.state.occupied():
            p = seat.player
            # all in with no chips behind in the hand a restart resumes: the top-up waits for its end
            if p not in self.standings.alive or (seat.stack == 0 and self.orch.state.hand is None):
                continue
            want = self.standings.chips_bought(p)
            booked = self._booked(p)
            if want > booked + seat.topup:
                self._inflight[p] = want
                self.orch.post(TournamentOwn(ev.ToppedUp(at=self.orch.clock(), seat=seat.seat,
                                                         amount=want - booked - seat.topup)))
            elif want > booked:
                self._inflight[p] = want

    def _entry_chips_due(self, player: str) -> int:
        """The starting stacks of ``player``'s entries (re-entries too) and the chips of his
        rebuys at the bust the table has not booked yet (``BoughtIn``; other rebuys, add-ons
        and chip races come as top-ups)."""
        acct = self.orch.state.ledger.accounts.get(player)
        want = (self.standings.entries_of(player) * self.settings.starting_stack
                + self._bust_rebuy_chips.get(player, 0))
        return max(0, want - (acct.bought_in if acct is not None else 0))

    def _settle_last_hand(self) -> None:
        """A hand the table finished whose busts a crash kept from the journal."""
        rec = self.orch.state.last_result
        if rec and rec.get("busted") and int(rec.get("hand", 0)) not in self.busted_hands:
            self._hand_finished(int(rec["hand"]), rec)

    # ------------------------------------------------------------------ the pacer's hook
    def hand_start(self) -> dict[str, Any] | None:
        """Return the fields of the next ``HandStartRequested`` (its ``level``, and the
        drawn ``button`` for the first hand), or None while no hand may be dealt: a break,
        entries still being seated, the tournament over. Journals a clock snapshot."""
        if self.result is not None or self._seating_pending():
            return None
        if self.deal_pending is not None:  # a deal offered when this hand ends: the next one waits
            # breaker: the hand it waited for may never come (its deck failed): the pacer asks
            # only between hands with nothing on its way, so it is due now (else held for good)
            try:
                self._deal_due()
            except JournalError as exc:  # as the listener: the table pauses, asked again after it
                log.error("tournament journal write failed: %s", exc)
                self.problems.append(f"journal: {exc}")
                self.orch.post(RaiseFault("journal-error", f"tournament event not journalled: {exc}"))
            return None
        if self.offer is not None and not self.deal_agreed():  # the players answer first (issue 19)
            return None
        if self.offer is not None and self.deal_agreed():  # the director confirms it or withdraws it
            if self._agreed_said != self.offer["offer"]:
                self._agreed_said = self.offer["offer"]
                log.info("deal offer %d agreed by every player: no hand is dealt until the director "
                         "confirms it (or withdraws it: deal-withdraw)", self.offer["offer"])
            return None
        now = self.time()
        status = self.clock.status(now)
        if status.on_break:
            if status.index != self._last_index:
                self._snapshot(None)
            if status.index not in self.raced and self._race_waiting is None:
                self._colour_up(status)
            return None
        if self.held is not None:  # TFIX 7: the deal places who has not asked to rebuy at the bust
            asked = self.asked_at_bust()
            for player, seat in sorted(self.held["pending"].items(), key=lambda x: x[1]):
                if seat not in asked:
                    self._decline(player, seat, by="table", reason="the next hand is dealt")
            if self.result is not None:
                return None
            if self.held is not None:  # H1: an asked rebuy waits for the dealer's confirm or refusal
                if self._deal_held != self.held["hand"]:
                    self._deal_held = self.held["hand"]
                    log.info("the deal waits for the dealer: the rebuy at the bust asked at seat %s",
                             ", ".join(str(n) for n in sorted(asked)))
                return None
        level = self.clock.level_for_hand(now)
        stakes = level_stakes(level)
        hand = self.orch.state.hands + 1
        if self._last_level is not None and level.number != self._last_level:
            log.info("level %d: blinds %s from hand %d (TDA 23)", level.number, stakes_words(stakes), hand)
        changed = self._last_level is not None and level.number != self._last_level
        self._snapshot(stakes, hand=hand)
        if changed:
            self._crash_point("level-change")
        self._given = (hand, stakes)
        self._dealt_level = (hand, level.number)
        fields: dict[str, Any] = {"level": stakes}
        if self.orch.state.hands == 0 and self.button is not None:
            fields["button"] = self.button
            kept, words = button_seat_words(self.orch.state.seats, self.button)
            log.log(logging.INFO if kept else logging.WARNING, "hand 1: %s", words)
        return fields

    def _seating_pending(self) -> bool:
        """Entries or purchases (rebuys, add-ons) whose chips the table has not booked yet:
        no hand is dealt until it has."""
        at_table = {s.player for s in self.orch.state.occupied() if s.stack > 0 or self.orch.state.hand}
        held = self.held_players()
        return (any(p not in at_table and p not in held for p in self.standings.alive)
                or self._pending_purchases() > 0)

    def _snapshot(self, stakes: dict[str, int] | None, *, hand: int | None = None,
                  clock: TournamentClock | None = None, director: dict[str, Any] | None = None) -> None:
        now = self.time()
        clock = clock or self.clock
        st = clock.status(now)
        payload: dict[str, Any] = {
            "type": "clock", "hand": hand, "index": st.index, "level": st.level.number,
            "seconds_left": st.seconds_left, "paused": not st.running, "on_break": st.on_break,
            "stakes": stakes, "clock": clock.to_json(now)}
        hands = self.orch.state.hands
        # Issue 21: the whole history (the settings' TOML with it) every full_every hands,
        # not at every deal (13 KB a hand at 10 seats): compaction keeps the newest one.
        full = self._full_hands is not None and hands - self._full_hands >= self.full_every
        if full:
            payload["history"] = self.history
        if director is not None:
            payload["director"] = director
        seq = self._journal(payload)
        if full:
            self.state_seq, self._full_hands = seq, hands
        self._last_index, self._last_level = st.index, st.level.number

    # ------------------------------------------------------------------ the table's events
    def __call__(self, orch: Any, effects: list[Any]) -> None:
        """The orchestrator's listener: after every table event (see the module docstring).
        A tournament event that cannot be journalled pauses the table (``journal-error``)."""
        try:
            self._after_event(effects)
        except JournalError as exc:
            log.error("tournament journal write failed: %s", exc)
            self.problems.append(f"journal: {exc}")
            orch.post(RaiseFault("journal-error", f"tournament event not journalled: {exc}"))

    def _after_event(self, effects: list[Any]) -> None:
        if self.sim and effects:
            self.time.advance(SIM_SECONDS_PER_EVENT)  # type: ignore[attr-defined]
        refused: set[int] = set()
        for e in effects:
            if isinstance(e, fx.HandFinished) and e.record.get("busted") is not None:
                self._check_level(e.hand, e.record)
                if e.record.get("busted"):
                    self._crash_point("hand-finished")
                    self._hand_finished(e.hand, e.record)
            elif isinstance(e, fx.Refuse) and e.event == "topped-up" and e.seat is not None:
                refused.add(e.seat)
        if self._inflight:
            self._refund_lost(refused)
        if self.asked:
            self._drop_stale_asks()
        if self.deal_pending is not None and self.orch.state.hand is None:
            self._deal_due()
        if self.offer is not None:
            self._check_offer()
        elif self.offer_ended is not None and any(isinstance(e, fx.HandFinished) for e in effects):
            self.offer_ended = None  # the screens said why the last offer ended for a hand
        if effects:
            self.check()

    def _drop_stale_asks(self) -> None:
        """A rebuy or add-on asked from a tablet belongs to the player who asked: it ends
        (journalled ``asked`` with no kind) once he is out of the tournament or off the seat
        (bust, move), so nobody seated there later is sold it and the screens stop showing it."""
        pending = {} if self.held is None else self.held["pending"]
        for seat in sorted(self.asked):
            s = self.orch.state.seat(seat)
            asker = self._asker.get(seat)
            if s is not None and s.player in self.standings.alive and asker in (None, s.player):
                continue
            if s is None and asker is not None and pending.get(asker) == seat:
                continue  # asked at the bust (TFIX 7): his seat is kept until he decides
            who = asker or (s.player if s is not None else None)
            self._journal({"type": "asked", "seat": seat, "kind": None, "player": who,
                           "reason": "the player left the seat or is out"})
            log.info("seat %d: the %s asked by %s ends: the player left the seat or is out", seat,
                     self.asked[seat], self.names.get(who or "", who))
            self.asked.pop(seat, None)
            self._asker.pop(seat, None)

    def tick(self, orch: Any) -> None:
        """The loop's idle turn: in a simulation, time passes on a break (no events come)."""
        if self.sim and self.result is None and orch.state.hand is None:
            if self.clock.status(self.time()).on_break:
                self.time.advance(SIM_BREAK_STEP)  # type: ignore[attr-defined]

    def _check_level(self, hand: int, record: dict[str, Any]) -> None:
        if self._given is not None and self._given[0] == hand and record.get("level") != self._given[1]:
            self.problems.append(f"hand {hand} played {record.get('level')}, its deal was given "
                                 f"{self._given[1]} (TDA 23)")

    def _hand_finished(self, hand: int, record: dict[str, Any]) -> None:
        try:
            busts = busts_of(record)
        except TournamentError as exc:
            self.problems.append(f"hand {hand}: {exc}")
            return
        if not busts or hand in self.busted_hands:
            return
        level = self._hand_level(hand)
        pending = self._may_rebuy_at_bust(busts, record, level)
        if pending:  # TFIX 7: kept unplaced until they rebuy or decline, or the next deal
            self._journal({"type": "bust", "hand": hand, "busted": busts, "pending": pending, "level": level})
            self.held = {"hand": hand, "level": level, "busted": dict(busts), "pending": dict(pending)}
            self.busted_hands.add(hand)
            log.info("hand %d: %s busted: rebuy? (the seat is kept until the next deal)", hand,
                     ", ".join(self.who(p) for p in sorted(pending, key=self._seat_of)))
            self._crash_point("bust")
            return
        self._journal({"type": "bust", "hand": hand, "busted": busts})
        try:
            self.standings.bust(busts)  # TDA simultaneous eliminations: by starting stacks
        except TournamentError as exc:
            self.problems.append(f"hand {hand}: {exc}")
            return
        self.busted_hands.add(hand)
        log.info("hand %d: %s out; %s", hand, ", ".join(self.who(p) for p in sorted(busts, key=self._seat_of)),
                 players_left(len(self.standings.alive)))
        self._crash_point("bust")
        if len(self.standings.alive) == 1:
            self._finish()

    def _hand_level(self, hand: int) -> int:
        """The level number ``hand`` was dealt at (TDA 23: a new level applies from the next
        hand, so the rebuy period of a bust in it is judged by it, breaker 3 M3); the clock's
        level now for a hand this table did not deal (none recorded)."""
        if self._dealt_level is not None and self._dealt_level[0] == hand:
            return self._dealt_level[1]
        return self.clock.status(self.time()).level.number

    # ------------------------------------------------------------------ rebuy at the bust (issue 19 TFIX 7)
    def held_players(self) -> set[str]:
        """The players busted in the held hand not placed yet (those who may still rebuy and
        the others of that hand, placed with them by starting stacks); empty when none is held."""
        return set() if self.held is None else set(self.held["busted"])

    def asked_at_bust(self) -> set[int]:
        """The seats of busted players waiting to rebuy at the bust (TFIX 7) whose tablet has
        asked for the rebuy (journalled ``asked``): the next deal waits for the dealer to
        confirm it (``confirm-buyin``) or for its refusal (``decline-rebuy``: the player's
        tablet or the floor), breaker 3 H1; empty when none is."""
        return {n for n in self.held_seats() if self.asked.get(n) == "rebuy"}

    def held_seats(self) -> dict[int, str]:
        """``{seat: player}`` of the busted players who may still rebuy (TFIX 7), seat order."""
        pending = {} if self.held is None else self.held["pending"]
        return {n: p for p, n in sorted(pending.items(), key=lambda x: x[1])}

    def _may_rebuy_at_bust(self, busts: dict[str, int], record: dict[str, Any], level: int) -> dict[str, int]:
        """``{player: seat}`` of the players of ``busts`` who may rebuy at the bust: the
        rebuy period open (``level`` at most ``rebuy.until_level``) and rebuys left
        (``rebuy.max``), the standings' own check on a copy (TDA to 2011 / FIDPA "Re-buys")."""
        if not self.settings.rebuy.max:
            return {}
        seat_of = {str(v.get("player")): int(n) for n, v in (record.get("players") or {}).items()
                   if isinstance(v, dict)}
        out: dict[str, int] = {}
        for player in busts:
            trial = copy.deepcopy(self.standings)
            try:
                trial.rebuy(player, level, 0)
            except TournamentError:
                continue
            out[player] = seat_of.get(player, self.draw.get(player, 0))
        return out

    def _unhold(self, player: str, *, rebought: bool) -> list[str]:
        """End ``player``'s wait to rebuy at the bust (state only: replay and live alike).
        Once nobody of the held hand may rebuy, the others of the hand are placed together,
        by the stacks they started it with (TDA simultaneous eliminations). Return the
        players placed (possibly none).

        Raises:
            TournamentError: ``player`` is not waiting to rebuy at the bust.
        """
        held = self.held
        if held is None or player not in held["pending"]:
            raise TournamentError(f"F-3: {self.names.get(player, player)} is not waiting to rebuy at the bust")
        seat = held["pending"].pop(player)
        self.asked.pop(seat, None)
        self._asker.pop(seat, None)
        if rebought:
            held["busted"].pop(player, None)
        if held["pending"]:
            return []
        self.held = None
        rest = dict(held["busted"])
        if rest:
            self.standings.bust(rest)
        return list(rest)

    def _decline(self, player: str, seat: int, *, by: str, reason: str) -> None:
        """Journal and carry out ``player``'s declined rebuy at the bust; place and finish."""
        hand = self.held["hand"] if self.held is not None else None
        self._journal({"type": "declined", "player": player, "seat": seat, "hand": hand, "by": by,
                       "reason": reason})
        placed = self._unhold(player, rebought=False)
        log.info("seat %d: %s does not rebuy (%s, %s)", seat, self.who(player), reason, by)
        if placed:
            log.info("hand %s: %s out; %s", hand, ", ".join(self.who(p) for p in sorted(placed, key=self._seat_of)),
                     players_left(len(self.standings.alive)))
        self._crash_point("declined")
        if len(self.standings.alive) == 1 and self.result is None:
            self._finish()

    def decline_rebuy(self, seat: int, *, by: str, reason: str | None = None) -> str:
        """The player busted at ``seat`` (or the dealer, ``livetable floor decline-rebuy
        SEAT``) does not rebuy at the bust (TFIX 7): journalled (``declined``), then he is
        placed (with the others of his hand once none of them may rebuy any more, by
        starting stacks). Return what was done.

        Raises:
            TournamentError: nobody busted at ``seat`` waits to rebuy.
            controller.journal.JournalError: it could not be journalled (nothing changed).
        """
        player = self.held_seats().get(seat)
        if player is None:
            raise TournamentError(f"F-3: nobody busted at seat {seat} waits to rebuy")
        self._decline(player, seat, by=by, reason=reason or "declined")
        name = self.names.get(player, player)
        return f"{name} at seat {seat} does not rebuy: out of the tournament ({by})"

    def _rebuy_at_bust(self, seat: int, player: str, *, by: str, reason: str | None) -> str:
        """Book the rebuy of ``player``, busted at ``seat`` and waiting (TFIX 7): checked
        (the rebuy period as at the bust, rebuys left), journalled (``rebuy`` with ``bust``:
        the hand, ``stack`` 0), recorded in the standings (its price into the prize pool),
        then the player sits down again at his seat with the rebuy's chips (``PlayerSatDown``
        + ``BoughtIn``; a restart in between seats him: :meth:`_seat_entries`). He is not
        placed; once nobody of his hand waits any more, the others busted in it are. Return
        what was done.

        Raises:
            TournamentError: not allowed now (a hand running, rebuys used up).
            controller.journal.JournalError: it could not be journalled (nothing changed).
        """
        held = self.held
        assert held is not None
        if self.orch.state.hand is not None:  # pragma: no cover - the deal ends every wait first
            raise TournamentError("F-3: a rebuy is added between hands")
        level = int(held["level"])
        trial = copy.deepcopy(self.standings)
        trial.rebuy(player, level, 0)
        chips = self.settings.rebuy.chips
        hands = self.orch.state.hands
        self._journal({"type": "rebuy", "player": player, "seat": seat, "chips": chips, "by": by,
                       "reason": reason, "level": level, "stack": 0, "bust": held["hand"], "hands": hands})
        self.standings.rebuy(player, level, 0)
        self._rebought_at[player] = hands
        self._bust_rebuy_chips[player] = self._bust_rebuy_chips.get(player, 0) + chips
        placed = self._unhold(player, rebought=True)
        self._crash_point("rebuy-at-bust")
        name = self.names.get(player, player)
        log.info("rebuy at the bust: %s at seat %d, %d chips (%s)", name, seat, chips, by)
        if placed:
            log.info("hand %s: %s out; %s", held["hand"], ", ".join(self.who(p) for p in placed),
                     players_left(len(self.standings.alive)))
        self._seat_entries()
        return (f"{name}'s rebuy at the bust at seat {seat}: {chips} chips, {self.settings.rebuy.price} "
                f"to the prize pool ({by})")

    def _finish(self) -> None:
        finishes = self.standings.finishes()
        pool = self.standings.prize_pool()
        amounts = payout_amounts(self.settings.payouts, pool, len(self.standings.entries))
        paid = prizes(finishes, amounts, self.settings.payouts.unit)
        result: dict[str, Any] = {"places": [f.player for f in finishes],
                                  "payouts": [paid[f.entry_id] for f in finishes], "prize_pool": pool}
        if sum(result["payouts"]) != pool:
            self.problems.append(f"payouts sum to {sum(result['payouts'])}, the prize pool is {pool}")
        self._journal(dict(result, type="payouts",
                           finishes=[{"player": f.player, "entry": f.entry_id, "place": f.place,
                                      "tied_to": f.tied_to, "prize": paid[f.entry_id]} for f in finishes]))
        self.result = result
        log.info("the tournament is over: %s", ", ".join(f"{n}. {self.who(p)} {m}" for n, (p, m) in
                                                       enumerate(zip(result["places"], result["payouts"]), 1)))
        self._crash_point("payouts")

    # ------------------------------------------------------------------ the director (issue 19)
    def direct(self, command: str, *, by: str, reason: str | None = None, amount: int | None = None,
               seat: int | None = None, player: str | None = None, method: str | None = None) -> str:
        """Carry out a tournament director's request (``livetable floor``, loop thread) and
        return what was done, for the floor's answer. Journalled before it applies, as a
        ``clock`` snapshot carrying ``director`` ``{command, by, reason, amount}`` (the clock
        commands) or an ``entry`` with ``by`` (``register``):

        - ``clock-pause`` / ``clock-resume``: stop / run the level's clock (the time left
          kept; hands are still dealt at the level, TDA 23);
        - ``clock-add``: ``amount`` seconds more in the level (or break), at most its length;
        - ``clock-level``: go to the start of level number ``amount`` (forward or back; the
          next hand is dealt at it, TDA 23);
        - ``register``: a late entry (TDA 9: a full starting stack, until the end of
          ``late_registration_until_level``) named ``player``, seated at ``seat`` or a free
          seat drawn at random, dealt in as a new player is;
        - ``rebuy`` / ``addon``: book one at ``seat`` (:meth:`confirm_purchase`; a rebuy at
          the bust too); ``decline-rebuy``: the player busted at ``seat`` does not rebuy
          (:meth:`decline_rebuy`);
        - ``deal-offer``: offer the final players a deal by ``method`` (``icm`` or
          ``chip-chop``; ``amount``: the shares' unit), :meth:`offer_deal`; ``deal-withdraw``:
          withdraw the open offer (:meth:`withdraw_deal`).

        Raises:
            TournamentError: the request cannot be carried out (the reason names the rule).
            controller.journal.JournalError: it could not be journalled (nothing changed).
        """
        if self.result is not None:
            raise TournamentError("F-3: the tournament is over")
        if command == "register":
            return self._register(str(player), seat, by, reason)
        if command in ("rebuy", "addon"):
            return self.confirm_purchase(int(seat or 0), by=by, kind=command, reason=reason)
        if command == "decline-rebuy":
            return self.decline_rebuy(int(seat or 0), by=by, reason=reason)
        if command == "deal-offer":
            return self.offer_deal(method or "icm", by=by, unit=amount, reason=reason)
        if command == "deal-withdraw":
            return self.withdraw_deal(by=by, reason=reason)
        clock, detail = clock_command(self.settings, self.clock, self.time(), command, amount)
        self._snapshot(None, clock=clock, director={"command": command, "by": by, "reason": reason,
                                                   "amount": amount})
        self.clock = clock
        log.info("director %s: %s%s", by, detail, f" ({reason})" if reason else "")
        return f"{detail} ({by})"

    # ------------------------------------------------------------------ a deal offered to the final players (issue 19)
    def offer_deal(self, method: str, *, by: str, unit: int | None = None, reason: str | None = None) -> str:
        """Offer every player left a deal of the prizes not yet paid (the TDA deal-making rule: a deal is the
        players' own agreement, every player left agreeing; the house oversees it): computed
        now, between hands, from each player's stack (chips) and the prizes of the places
        left (money, 1st first, as the standings give them) by ``method`` (``icm``:
        Malmuth-Harville; ``chip-chop``), in multiples of ``unit`` (money; default the
        payouts' unit); journalled (``deal-offer``) and published: each seat's tablet shows
        the figures with Accept and Decline (:meth:`answer_deal`); no hand is dealt while it
        is open (:meth:`hand_start`). Return what was done.

        Given during a hand, or with the next one on its way (the pacer's deck or start), it
        is taken as "offer it when this hand ends" (:meth:`_offer_at_hand_end`: ``deal-pending``,
        the next hand held, made with the stacks then; newcomer, issue 19: refused "offer it
        when this hand ends (livetable floor pause holds the next one)", but a pause freezes
        the hand in play, and hands run back to back).

        Raises:
            TournamentError: an offer open or pending already, chips on their way (a seating, a
                purchase, a rebuy at the bust, a chip race), players left who are not at this
                table, a unit not 1..the prize pool, or what the deal calculator refuses
                (:func:`controller.deal_cli.compute_deal`: more than 12 players for ICM).
            controller.journal.JournalError: it could not be journalled (nothing changed).
        """
        if self.result is not None:
            raise TournamentError("F-3: the tournament is over: its prizes are paid")
        if self.offer is not None:
            raise TournamentError(f"F-3: deal offer {self.offer['offer']} is open already: withdraw it first "
                                  "(deal-withdraw)")
        if self.deal_pending is not None:
            raise TournamentError(f"F-3: deal offer {self.deal_pending['offer']} is offered already when hand "
                                  f"{self.deal_pending['hand']} ends: withdraw it first (deal-withdraw)")
        if self.orch.state.hand is not None or self._hand_on_its_way():
            return self._offer_at_hand_end(method, by=by, unit=unit, reason=reason)
        payload = self._deal_figures(method, unit)
        payload.update({"offer": self.offers_made + 1, "by": by, "reason": reason})
        return self._make_offer(payload)

    def _offer_at_hand_end(self, method: str, *, by: str, unit: int | None, reason: str | None) -> str:
        """:meth:`offer_deal` during a hand (or with the next one on its way): journalled
        ``deal-pending`` (``offer``, ``method``, ``unit``, ``by``, ``reason``, ``hand``: the
        hand it waits for, ``players``: those left); no next hand is dealt (:meth:`hand_start`)
        and :meth:`_deal_due` makes it when that hand ends. A bad method or unit is refused now.

        Raises:
            TournamentError: ``F-3``: a method not icm or chip-chop, a unit not 1..the prize pool.
            controller.journal.JournalError: it could not be journalled (nothing changed).
        """
        pool = self.standings.prize_pool()
        from controller.deal_cli import METHODS

        if method not in METHODS:
            raise TournamentError(f"F-3: unknown method {method!r}: choose {' or '.join(METHODS)}")
        if unit is not None and not 1 <= unit <= max(pool, 1):
            raise TournamentError(f"F-3: the deal's unit must be 1..the prize pool ({pool:,}), got {unit:,}")
        st = self.orch.state
        hand = st.hands if st.hand is not None else st.hands + 1
        payload = {"type": "deal-pending", "offer": self.offers_made + 1, "method": method, "unit": unit,
                   "by": by, "reason": reason, "hand": hand, "players": sorted(self.standings.alive)}
        self._journal(payload)
        self._deal_event(payload)
        self._crash_point("deal-pending")
        log.info("deal offer %d (%s) by %s: offered when hand %d ends", payload["offer"], method, by, hand)
        self._publish()
        return (f"deal offer {payload['offer']} ({method}): the deal will be offered when hand {hand} ends; "
                f"no next hand is dealt meanwhile ({by})")

    def _deal_due(self) -> None:
        """Make the pending deal offer now that its hand has ended, with the stacks then
        (journalled ``deal-offer``, the same number, shown on the tablets); dropped
        (``deal-end`` with ``pending``, by the table, said in the log) when it no longer
        applies: the tournament over, the players left changed (a bust), a player busted who
        may rebuy, or what the calculator refuses then. Chips on their way (a seating, a
        purchase, a chip race): it waits for them."""
        p = self.deal_pending
        if p is None or self.orch.state.hand is not None or self._hand_on_its_way():
            return
        why = None
        if self.result is not None:
            why = "the tournament is over"
        elif set(self.standings.alive) != set(p["players"]) or self.held is not None:
            why = f"the players left changed ({len(self.standings.alive)} left): offer it again if it still applies"
        elif self._seating_pending() or self._race_pending():
            return
        if why is None:
            try:
                payload = self._deal_figures(str(p["method"]), p["unit"])
            except TournamentError as exc:
                why = str(exc).removeprefix("F-3: ")
            else:
                payload.update({"offer": int(p["offer"]), "by": p["by"], "reason": p["reason"]})
                self._make_offer(payload)
                return
        end = {"type": "deal-end", "offer": int(p["offer"]), "reason": why, "by": "table", "pending": True}
        self._journal(end)
        self._deal_event(end)
        log.info("deal offer %d (offered when hand %d ends) is not offered: %s", p["offer"], p["hand"], why)
        self._publish()

    def _deal_figures(self, method: str, unit: int | None) -> dict[str, Any]:
        """The ``deal-offer`` figures (no ``offer``, ``by``, ``reason``) of the stacks now.

        Raises:
            TournamentError: ``F-3``: chips on their way, players left not seated here, a
                unit not 1..the prize pool, what the deal calculator refuses.
        """
        from controller.deal_cli import DealError, compute_deal

        if self.held is not None or self._seating_pending() or self._race_pending():
            raise TournamentError("F-3: chips are on their way to the table (a seating, a rebuy or add-on, a chip "
                                  "race): offer the deal once they are at the seats")
        here = {s.player: s for s in self.orch.state.occupied() if s.player in self.standings.alive}
        if set(here) != set(self.standings.alive):
            raise TournamentError("F-3: a deal needs every player left, and some are not seated here")
        pool = self.standings.prize_pool()
        unit = self.settings.payouts.unit if unit is None else unit
        if not 1 <= unit <= max(pool, 1):
            raise TournamentError(f"F-3: the deal's unit must be 1..the prize pool ({pool:,}), got {unit:,}")
        order = sorted(here, key=lambda p: here[p].seat)
        amounts = payout_amounts(self.settings.payouts, pool, len(self.standings.entries))
        try:
            deal = compute_deal([here[p].stack for p in order], list(amounts[:len(order)]), method, unit,
                                [self.names.get(p, p) for p in order])
        except DealError as exc:
            raise TournamentError(f"F-3: {exc}") from None
        return {"type": "deal-offer", "method": method, "unit": unit,
                "prizes": deal["prizes"], "total": deal["total"], "hands": self.orch.state.hands,
                "players": [{"player": p, "seat": here[p].seat, "name": d["name"], "stack": d["stack"],
                             "share": d["share"]} for p, d in zip(order, deal["players"])]}

    def _make_offer(self, payload: dict[str, Any]) -> str:
        method, by = payload["method"], payload["by"]
        self._journal(payload)
        self._deal_event(payload)
        self._crash_point("deal-offer")
        log.info("deal offer %d (%s) by %s: %s", payload["offer"], method, by,
                 ", ".join(f"{p['name']} {p['share']}" for p in payload["players"]))
        self._publish()
        return (f"deal offer {payload['offer']} ({method}) on the players' tablets: "
                + ", ".join(f"seat {p['seat']} {p['name']} {p['share']:,}" for p in payload["players"])
                + f" ({by}); every player left accepts it at his seat (no hand is dealt meanwhile), then the "
                "director confirms it")

    def answer_deal(self, seat: int, offer: int, accept: bool, *, request_id: str) -> str:
        """The answer of the player seated at ``seat`` (the seat's own tablet: the seat comes
        from the topic, never from the payload) to deal offer number ``offer``: an accept is
        journalled (``deal-accept``) once (an accept repeated, by its request id or not, is
        taken again without a second record); a decline ends the offer for everyone
        (``deal-end``, TDA deal-making: every player left must agree). Once every player has accepted,
        the deal is agreed: no hand is dealt until the director confirms it or withdraws it.
        Return what was done.

        Raises:
            TournamentError: no offer open, ``offer`` not the open one, the seat's player not
                in it, the offer agreed already (the director's now), or an accept while the
                next hand is being dealt (the pacer's deck or hand start on its way: that hand
                ends the offer).
            controller.journal.JournalError: it could not be journalled (nothing changed).
        """
        o = self.offer
        s = self.orch.state.seat(seat)
        entry = offer_entry(o, offer, seat, None if s is None else str(s.player))
        assert o is not None and s is not None
        if seat in o["accepted"]:
            if accept:
                return f"{entry['name']} accepted deal offer {offer} already"
        if self.deal_agreed():
            raise TournamentError(f"F-3: deal offer {offer} is agreed by every player: the director confirms "
                                  "it (or withdraws it)")
        if accept and self._hand_on_its_way():
            # breaker: the hand asked for is dealt a moment later and ends the offer; an accept
            # taken now could make it agreed over a hand in play (no hand is dealt once agreed)
            raise TournamentError(f"F-3: the next hand is being dealt: deal offer {offer} ends with it "
                                  "(the director pauses the table to offer a deal between hands)")
        if accept:
            payload = {"type": "deal-accept", "offer": offer, "seat": seat, "player": entry["player"],
                       "request": request_id}
            self._journal(payload)
            self._deal_event(payload)
            done = f"{entry['name']} accepts deal offer {offer} ({len(o['accepted'])} of {len(o['players'])})"
        else:
            payload = {"type": "deal-end", "offer": offer, "reason": f"{entry['name']} declined",
                       "by": f"seat {seat}"}
            self._journal(payload)
            self._deal_event(payload)
            done = f"{entry['name']} declines deal offer {offer}: it is over"
        self._crash_point("deal-answer")
        log.info("%s", done)
        self._publish()
        return done

    def _hand_on_its_way(self) -> bool:
        """True between hands while the pacer has asked for the next one (its deck awaited or
        its start posted): that hand is dealt whatever a deal offer says, and ends it."""
        pacer = self._pacer
        return (self.orch.state.hand is None and pacer is not None
                and bool(pacer.waiting_deck or pacer.start_pending))

    def withdraw_deal(self, *, by: str, reason: str | None = None) -> str:
        """The director withdraws the open deal offer (agreed or not): journalled
        (``deal-end``); play goes on. Return what was done.

        Raises:
            TournamentError: no offer open.
            controller.journal.JournalError: it could not be journalled (nothing changed).
        """
        p = self.deal_pending
        if p is not None:
            end = {"type": "deal-end", "offer": int(p["offer"]), "reason": "withdrawn by the director" + (
                f": {reason}" if reason else ""), "by": by, "pending": True}
            self._journal(end)
            self._deal_event(end)
            log.info("deal offer %d (offered when hand %d ends) withdrawn (%s)", p["offer"], p["hand"], by)
            self._publish()
            return f"deal offer {p['offer']} (offered when hand {p['hand']} ends) withdrawn ({by})"
        if self.offer is None:
            raise TournamentError("F-3: no deal is offered now")
        n = self.offer["offer"]
        payload = {"type": "deal-end", "offer": n, "reason": "withdrawn by the director" + (
            f": {reason}" if reason else ""), "by": by}
        self._journal(payload)
        self._deal_event(payload)
        log.info("deal offer %d withdrawn (%s)", n, by)
        self._publish()
        return f"deal offer {n} withdrawn ({by})"

    def deal_agreed(self) -> bool:
        """True while the open offer has every player's accept."""
        o = self.offer
        return o is not None and len(o["accepted"]) == len(o["players"])

    def deal_offer_view(self) -> dict[str, Any] | None:
        """The open deal offer for the screens (None when none): ``offer`` (its number),
        ``method``, ``unit``, ``total`` and ``prizes`` (money, 1st first: what the places
        pay if play goes on), ``players`` (seat order: ``seat``, ``name``, ``stack`` in
        chips, ``share`` in money, ``accepted``), ``accepted`` and ``of`` (counts),
        ``agreed`` and ``words`` ("3 of 4 accepted", "Deal agreed — the director confirms")."""
        o = self.offer
        if o is None:
            return None
        n, of = len(o["accepted"]), len(o["players"])
        agreed = n == of
        return {"offer": o["offer"], "method": o["method"], "unit": o["unit"], "total": o["total"],
                "prizes": list(o["prizes"]), "accepted": n, "of": of, "agreed": agreed,
                "players": [{"seat": p["seat"], "name": p["name"], "stack": p["stack"], "share": p["share"],
                             "accepted": p["seat"] in o["accepted"]} for p in o["players"]],
                "words": "Deal agreed \u2014 the director confirms" if agreed else f"{n} of {of} accepted"}

    def _deal_event(self, p: dict[str, Any]) -> None:
        """Apply a journalled deal event (state only: replay and live alike)."""
        kind = p["type"]
        if kind == "deal-pending":
            self.offers_made = max(self.offers_made, int(p["offer"]))
            self.deal_pending = dict(p)
            return
        if self.deal_pending is not None and int(p["offer"]) == int(self.deal_pending["offer"]):
            self.deal_pending = None  # made (deal-offer) or dropped (deal-end)
            if kind == "deal-end":
                return
        if kind == "deal-offer":
            self.offers_made = max(self.offers_made, int(p["offer"]))
            self.offer = {**p, "accepted": {}}
            self.offer_ended = None
            return
        if self.offer is None or int(p["offer"]) != self.offer["offer"]:
            return  # an answer to an offer already over (journalled before its end was)
        if kind == "deal-accept":
            self.offer["accepted"][int(p["seat"])] = str(p.get("request") or "")
        else:
            self.offer, self.offer_ended = None, {"offer": int(p["offer"]), "reason": str(p["reason"])}

    def _check_offer(self) -> None:
        """End the open offer (journalled ``deal-end`` by the table) once its figures are no
        longer the table's: a hand dealt (the stacks change), a player out or off his seat,
        a stack changed (a rebuy's, add-on's or chip race's chips), the players left changed."""
        o = self.offer
        if o is None:
            return
        why = "a hand is dealt: the stacks change" if self.orch.state.hand is not None else None
        if why is None and len(self.standings.alive) != len(o["players"]):
            why = "the players left changed"
        for p in o["players"] if why is None else []:
            s = self.orch.state.seat(p["seat"])
            if p["player"] not in self.standings.alive or s is None or s.player != p["player"]:
                why = f"{p['name']} is no longer in at seat {p['seat']}"
            elif s.stack != p["stack"]:
                why = f"{p['name']}'s stack changed ({p['stack']:,} to {s.stack:,} chips)"
            if why:
                break
        if why is None:
            return
        payload = {"type": "deal-end", "offer": o["offer"], "reason": why, "by": "table"}
        self._journal(payload)
        self._deal_event(payload)
        log.info("deal offer %d is over: %s", payload["offer"], why)

    def _publish(self) -> None:
        """Show a change on the screens now (the tablets, the display); never raises."""
        try:
            self.orch.publish_all()
        except Exception as exc:  # noqa: BLE001 - a publish must never stop the loop
            log.warning("could not publish the table: %s", exc)

    # ------------------------------------------------------------------ the colour-up (issue 19, TDA chip race)
    def _colour_up(self, status: Any) -> None:
        """At a break with a ``colour_up``, between hands: race the odd chips of the
        denominations leaving play with cards from the table's deck (one card per odd chip,
        dealt round the table from the button's left; highest card by rank then suit wins;
        one chip at most a player; nobody raced out: :mod:`controller.tournament.chiprace`),
        journalled (``race``) before the table takes the new stacks (``ChipsRaced``) and the
        new smallest chip with the next level's stakes (``SettingsChanged``, by ``colour-up``)."""
        brk = status.current
        if not isinstance(brk, Break) or not brk.colour_up or self.orch.state.hand is not None:
            self.raced.add(status.index)  # nothing to race at this break
            return
        gone = {c for i, x in enumerate(self.settings.schedule) if i <= status.index and isinstance(x, Break)
                for c in x.colour_up}
        removed, chip = min(brk.colour_up), min(c for c in self.settings.chips if c not in gone)
        occupied = sorted(self.orch.state.occupied(), key=lambda x: x.seat)
        info = self.orch.state.info
        button = info.button if info is not None else 0
        occupied = [x for x in occupied if x.seat > button] + [x for x in occupied if x.seat <= button]
        stacks = {x.player: x.stack for x in occupied if x.player in self.standings.alive}
        odd = {p: (n % chip) // removed for p, n in stacks.items() if n % chip}
        deck = [r + u for r in "23456789TJQKA" for u in "cdhs"]
        random.Random(f"{self.seed}:race:{status.index}").shuffle(deck)  # the dealer's shuffled deck
        try:
            cards, ranking = race_cards(odd, [p for p in stacks if p in odd], deck)
            new, delta = chip_race(stacks, removed, chip, ranking)
        except TournamentError as exc:
            self.problems.append(f"colour-up at break {status.index}: {exc}")
            self.raced.add(status.index)
            return
        seat_of = {x.player: x.seat for x in occupied}
        race = {"type": "race", "index": status.index, "removed": list(brk.colour_up), "chip": chip,
                "cards": cards, "ranking": ranking, "won": [p for p in ranking if new[p] > stacks[p]],
                "stacks": new, "seats": {p: seat_of[p] for p in new}, "delta": delta,
                "deltas": {p: new[p] - stacks[p] for p in new if new[p] != stacks[p]}}
        self._journal(race)
        self.standings.adjust_chips(delta)
        self.raced.add(status.index)
        self.last_race = race
        self._crash_point("race")
        log.info("colour-up at break %d: %s raced off for %s chips; %s won one (%+d chips)", status.index,
                 "/".join(map(str, brk.colour_up)), chip, ", ".join(race["won"]) or "nobody", delta)
        self._post_race(race)

    def _post_race(self, race: dict[str, Any]) -> None:
        """Give the table a journalled race's stacks and smallest chip (start-up too)."""
        seats = {int(race["seats"][p]): int(n) for p, n in race["stacks"].items()}
        self._race_waiting = ({str(p): int(n) for p, n in race["stacks"].items()}, int(race["delta"]),
                              {str(p): int(d) for p, d in race.get("deltas", {}).items()})
        now = self.orch.clock()
        lv = self.clock.status(self.time()).level
        self.orch.post(TournamentOwn(ev.ChipsRaced(at=now, seats=tuple(sorted(seats)),
                                                   stacks=tuple(seats[n] for n in sorted(seats)))))
        self.orch.post(TournamentOwn(ev.SettingsChanged(
            at=now, changes=dict(level_stakes(lv), smallest_chip=int(race["chip"])), by="colour-up")))

    def _restore_race(self) -> None:
        """At a restart, carry the last colour-up out exactly once: a race the table did not
        take before the crash is given to it now (its stacks and smallest chip); a race it
        took keeps its stacks (hands since changed them) and only gets back the smallest chip
        in play, which the config file's settings (the first level's) reset at the opening."""
        race, orch = self.last_race, self.orch
        if race is None:
            return
        chip = int(race["chip"])
        if self._race_taken:  # its chips are booked at the table (Ledger.raced)
            for p, d in race.get("deltas", {}).items():
                self._raced_chips[str(p)] = self._raced_chips.get(str(p), 0) + int(d)
        else:
            if orch.state.hand is None:
                self._post_race(race)  # a crash came between the race's journal and the table
            return
        if orch.state.settings.smallest_chip != chip:
            log.info("restart: the smallest chip in play is %d since the colour-up at break %s", chip, race["index"])
            orch.post(TournamentOwn(ev.SettingsChanged(at=orch.clock(), changes={"smallest_chip": chip},
                                                       by="colour-up")))

    def _race_pending(self) -> int:
        """The chips of a journalled race the table has not taken yet (0 once it has)."""
        if self._race_waiting is None:
            return 0
        stacks = {s.player: s.stack for s in self.orch.state.occupied()}
        want, delta, deltas = self._race_waiting
        if all(stacks.get(p) == n for p, n in want.items()):
            self._race_waiting = None
            for p, d in deltas.items():  # the table booked them as top-ups (Ledger.raced)
                self._raced_chips[p] = self._raced_chips.get(p, 0) + d
            return 0
        return delta

    # ------------------------------------------------------------------ rebuys and add-ons (issue 19)
    def offers(self, seat: int) -> list[str]:
        """Return what the player at ``seat`` may buy now: ``"rebuy"`` (level at most
        ``rebuy.until_level``, stack at most ``rebuy.max_stack``, rebuys left) and ``"addon"``
        (on the break after level ``addon.at_break``, add-ons left); [] for anyone else."""
        out: list[str] = []
        if seat in self.held_seats():  # TFIX 7: busted, he may rebuy (or decline)
            return ["rebuy", "decline_rebuy"]
        for kind in ("rebuy", "addon"):
            if not (self.settings.rebuy if kind == "rebuy" else self.settings.addon).max:
                continue  # none in this tournament (every publish asks: no copy of the standings)
            try:
                self._check_purchase(kind, seat)
                out.append(kind)
            except TournamentError:
                pass
        return out

    def _check_purchase(self, kind: str, seat: int) -> tuple[str, dict[str, Any]]:
        """The player at ``seat`` and the journal fields of a ``kind`` purchase now, checked
        on a copy of the standings (a rebuy's fields: ``level``, ``stack`` in chips,
        ``hands``: the table's hands dealt). One rebuy a player between two hands (breaker 3
        M1): a rebuy, at the bust or not, booked since the last hand refuses another, so a
        double-click or the dealer's confirm and the floor's ``rebuy`` for the same rebuy
        book it once. Raises :class:`TournamentError` (the rule's reason)."""
        if self.result is not None:
            raise TournamentError("F-3: the tournament is over")
        s = self.orch.state.seat(seat)
        if s is None or s.player not in self.standings.alive:
            raise TournamentError(f"F-3: seat {seat} has no player in the tournament")
        st = self.clock.status(self.time())
        trial = copy.deepcopy(self.standings)
        if kind == "rebuy":  # max_stack: the chips of purchases confirmed but not at the seat yet count
            coming = max(0, self._inflight.get(s.player, 0) - self._booked(s.player) - s.topup)
            stack = s.stack + s.topup + coming
            fields: dict[str, Any] = {"level": st.level.number, "stack": stack, "hands": self.orch.state.hands}
            trial.rebuy(s.player, st.level.number, stack)  # the rules' reasons first
            if self._rebought_at.get(s.player) == self.orch.state.hands:
                raise TournamentError(  # breaker 3 M1: a double-click, or the dealer and the floor both
                    f"F-3: {self.names.get(s.player, s.player)} has rebought since the last hand already: one "
                    "rebuy between two hands (a repeated request is not booked twice); ask again after the next hand")
        else:
            after = st.current.after_level if isinstance(st.current, Break) else -1
            fields = {"after_level": after}
            trial.addon(s.player, after)
        return s.player, fields

    def ask_purchase(self, kind: str, seat: int) -> None:
        """A rebuy or add-on asked from the seat's tablet: checked, journalled (``asked``),
        then it waits for the dealer's confirm (:meth:`confirm_purchase`, ``livetable floor
        confirm-buyin SEAT``), as a confirm table's buy-in does (T-3). At a seat kept for its
        busted player (TFIX 7) only a rebuy is taken: a rebuy at the bust.

        Raises:
            TournamentError: not allowed now (the reason says why), or one is waiting already.
            controller.journal.JournalError: it could not be journalled.
        """
        if seat in self.asked:
            raise TournamentError(f"T-3: seat {seat}'s {self.asked[seat]} waits for the dealer already")
        waiting = self.held_seats().get(seat)
        if waiting is not None and self.held is not None:  # TFIX 7: busted, the seat kept: a rebuy only
            if kind != "rebuy":
                raise TournamentError(f"F-3: seat {seat} busted: only a rebuy (or declining it) is open")
            copy.deepcopy(self.standings).rebuy(waiting, int(self.held["level"]), 0)
            player = waiting
        else:
            player, _ = self._check_purchase(kind, seat)
        self._journal({"type": "asked", "seat": seat, "kind": kind, "player": player})
        self.asked[seat] = kind
        self._asker[seat] = player

    def confirm_purchase(self, seat: int, *, by: str, kind: str | None = None, reason: str | None = None) -> str:
        """Book a rebuy or add-on at ``seat`` (the one its tablet asked for, or ``kind``
        given by the floor): checked again, journalled (``rebuy`` / ``addon``: player, seat,
        chips, level or break, ``by``), recorded in the standings (its price into the prize
        pool), and its chips brought to the seat (``ToppedUp``: at once between hands, at
        the end of the hand otherwise: confirmed after the pacer decided the next deal, the
        chips wait for that hand's end and keep in a player who busts in it; refused by the
        table, the purchase is refunded, :meth:`_refund`). Return what was done.

        Raises:
            TournamentError: nothing asked at the seat, or not allowed now.
            controller.journal.JournalError: it could not be journalled (nothing changed).
        """
        if self.asked:
            self._drop_stale_asks()
        kind = kind or self.asked.get(seat)
        if kind is None:
            raise TournamentError(f"F-3: seat {seat} has no rebuy or add-on waiting")
        waiting = self.held_seats().get(seat)
        if waiting is not None:  # TFIX 7: a rebuy at the bust
            if kind != "rebuy":
                raise TournamentError(f"F-3: seat {seat} busted: only a rebuy (or declining it) is open")
            return self._rebuy_at_bust(seat, waiting, by=by, reason=reason)
        if self.orch.state.hand is not None:
            raise TournamentError(f"F-3: a {kind} is added between hands: confirm it when this hand ends")
        if self._race_pending():
            raise TournamentError(f"F-3: the chip race is being run: confirm the {kind} when it is done")
        player, fields = self._check_purchase(kind, seat)
        purchase = self.settings.rebuy if kind == "rebuy" else self.settings.addon
        booked = self._booked(player)
        self._journal({"type": kind, "player": player, "seat": seat, "chips": purchase.chips, "by": by,
                       "reason": reason, **fields})
        if kind == "rebuy":
            self.standings.rebuy(player, int(fields["level"]), int(fields["stack"]))
            self._rebought_at[player] = int(fields["hands"])
        else:
            self.standings.addon(player, int(fields["after_level"]))
        self.asked.pop(seat, None)
        self._asker.pop(seat, None)
        self._inflight[player] = max(self._inflight.get(player, 0), booked) + purchase.chips
        self.orch.post(TournamentOwn(ev.ToppedUp(at=self.orch.clock(), seat=seat, amount=purchase.chips)))
        name = self.names.get(player, player)
        log.info("%s: %s at seat %d, %d chips (%s)", kind, name, seat, purchase.chips, by)
        return f"{name}'s {kind} at seat {seat}: {purchase.chips} chips, {purchase.price} to the prize pool ({by})"

    def _refund_lost(self, refused: set[int]) -> None:
        """Refund the confirmed purchases whose chips can no longer reach the table: the
        table refused them (a ``topped-up`` refusal at ``refused`` seats) or their player
        left it or is out of the tournament. Chips already waiting at the seat for the end
        of the hand (``Seat.topup``) still come: they are not refunded."""
        seats = {s.player: s for s in self.orch.state.occupied()}
        for player, target in list(self._inflight.items()):
            s = seats.get(player)
            missing = target - self._booked(player) - (s.topup if s else 0)
            if missing <= 0:
                continue
            if s is None or s.seat in refused or player not in self.standings.alive:
                why = ("the table refused the chips" if s is not None and s.seat in refused
                       else "the player was out before the chips came")
                self._refund(player, s.seat if s else self.draw.get(player, 0), missing, why)

    def _refund(self, player: str, seat: int, missing: int, why: str) -> None:
        """Issue 19: take back ``player``'s latest purchases (rebuys, add-ons; newest first)
        whose ``missing`` chips never reached the table: each journalled first (``refund``:
        player, seat, kind, chips, reason), then out of the standings (its price out of the
        prize pool: the player is paid back), so a crash in between refunds none twice.
        The deal waits for them no more."""
        refunds: dict[str, int] = {}
        kinds: list[tuple[str, int]] = []
        for p in reversed(self.history):
            if p.get("player") != player:
                continue
            kind = str(p.get("type"))
            if kind == "refund":
                refunds[str(p["kind"])] = refunds.get(str(p["kind"]), 0) + 1
            elif kind in ("rebuy", "addon"):
                if refunds.get(kind):
                    refunds[kind] -= 1
                    continue
                kinds.append((kind, int(p["chips"])))
                if sum(c for _, c in kinds) >= missing:
                    break
        for kind, chips in kinds:
            self._journal({"type": "refund", "player": player, "seat": seat, "kind": kind, "chips": chips,
                           "reason": why})
            self.standings.refund(player, kind)
            log.warning("%s at seat %d: %s refunded (%d chips): %s", self.names.get(player, player), seat,
                        kind, chips, why)
        self._inflight.pop(player, None)
        if not kinds:  # no purchase of the player's to take back: say so, never wait for it
            self.problems.append(f"{player}: {missing} chips of purchases missing and none to refund ({why})")
        elif player in self.standings.alive and self.standings.chips_bought(player) > self._booked(player):
            self._inflight[player] = self.standings.chips_bought(player)  # chips waiting at the seat still come

    def _booked(self, player: str) -> int:
        """The chips of ``player``'s entries and purchases the table booked (its chip races' left out)."""
        acct = self.orch.state.ledger.accounts.get(player)
        return 0 if acct is None else acct.bought_in + acct.topped_up - self._raced_chips.get(player, 0)

    def _pending_purchases(self) -> int:
        """Chips of confirmed purchases the table has not booked yet (and forget the booked)."""
        pending = 0
        for player, target in list(self._inflight.items()):
            booked = self._booked(player)
            if booked >= target:
                del self._inflight[player]
            else:
                pending += target - booked
        return pending

    def _register(self, name: str, seat: int | None, by: str, reason: str | None) -> str:
        orch = self.orch
        level = self.clock.status(self.time()).level.number
        until = self.settings.late_registration_until_level
        if level > until:
            raise TournamentError(f"TDA 9: registration closed at the end of level {until} (level {level} now)"
                                  if until else "TDA 9: this tournament takes entries before the start only")
        taken = {s.seat for s in orch.state.occupied()} | {
            n for p, n in self.draw.items() if p in self.standings.alive}
        free = [n for n in range(1, len(orch.state.seats) + 1) if n not in taken]
        if seat is not None and not 1 <= seat <= len(orch.state.seats):
            raise TournamentError(f"F-3: no seat {seat} at this table (seats 1..{len(orch.state.seats)})")
        if seat is not None and seat not in free:
            raise TournamentError(f"F-3: seat {seat} is taken (free: {', '.join(map(str, free)) or 'none'})")
        if not free:
            raise TournamentError("F-3: no seat is free at this table")
        bad = hidden_in_name(name)  # the room's rule too (room.tournament.entry_name; breaker 2 H1)
        if bad is not None:
            raise TournamentError(f"TDA 9: a player's name holds no control or invisible characters (not {bad})")
        try:  # the name as the table's seating compares it (case, spacing, punctuation around it, NFKC)
            key = player_for_name(name)
        except ValueError as exc:
            raise TournamentError(f"TDA 9: {exc}") from exc
        before = next((p for p in self.draw if player_for_name(self.names.get(p, p)) == key), None)
        if before is not None and before in self.standings.alive:
            raise TournamentError(f"F-3: {name} is still in the tournament (a re-entry comes after a bust)")
        n = seat if seat is not None else random.Random(f"{self.seed}:{len(self.standings.entries)}").choice(free)
        player = before or f"p{len(self.draw) + 1}"  # a re-entry keeps the player (TDA 9: a full stack)
        trial = copy.deepcopy(self.standings)
        try:
            # reentry.max: the standings' own check, before the journal; named as the floor knows the player
            trial.register(player, level, name=self.names.get(player, name))
        except TournamentError as exc:
            raise TournamentError(f"TDA 9: {exc}") from exc
        self._journal({"type": "entry", "player": player, "seat": n, "level": level, "name": name, "by": by,
                       "reason": reason})
        self.standings.register(player, level)  # TDA 9: a full starting stack
        self.draw[player], self.names[player] = n, name
        self._entered.add(player)
        self._seat_entries()
        what = "re-enters" if before is not None else "enters"
        log.info("late entry: %s %s in seat %d at level %d (%s)", name, what, n, level, by)
        return f"{name} {what} at level {level}, seat {n}, {self.settings.starting_stack} chips ({by})"

    # ------------------------------------------------------------------ checks
    def check(self) -> None:
        """Chips and players after an event (docs/tournament.md, conservation): chips brought
        to the table + starting stacks still to be seated = chips in play; nothing cashed out
        or raked; the players at the table are the live entries."""
        state = self.orch.state
        led = state.ledger
        due = sum(self._entry_chips_due(p) for p in self.standings.alive)
        expect = self.standings.chips_in_play() - due - self._pending_purchases() - self._race_pending()
        if led.total_in != expect or led.total_out or led.rake:
            why = (f"event {self.orch.events_handled}: chips brought {led.total_in}, out "
                   f"{led.total_out}, rake {led.rake}; chips in play {expect}")
            self._chips_fault(why)
            if len(self.problems) < 20:
                self.problems.append(why)
        if len(self.problems) >= 20:
            return
        seated = {s.player for s in state.occupied()}
        if not due and seated != set(self.standings.alive) - self.held_players():
            self.problems.append(f"event {self.orch.events_handled}: seated {sorted(seated)}, live entries "
                                 f"{sorted(self.standings.alive)}")

    def _chips_fault(self, why: str) -> None:
        """A chips-in-play violation (:meth:`check`) pauses the table at once: a ``paused`` fault
        for the floor, saying why (``tournament chips: ...``), raised once per violation (a
        paused table is not paused again; an unchanged violation after a ``resume`` is not
        raised again). The table's ledger is the tournament's; nothing is corrected by guess."""
        led = self.orch.state.ledger
        key = (led.total_in, led.total_out, led.rake)
        if key == self._chips_faulted:
            return
        self._chips_faulted = key
        log.error("tournament chips in play broken: %s (table paused)", why)
        self.orch.post(RaiseFault("paused", f"tournament chips: {why}: the chips at the table are not the "
                                            f"tournament's chips in play; check the stacks before resuming"))

    # ------------------------------------------------------------------ output
    def view_json(self, public: dict[str, Any]) -> dict[str, Any]:
        """Return the public state's ``tournament_view`` (docs/tournament.md) for the
        ``public`` state being published: ``level`` and ``next_level`` (``number``,
        ``small_blind``, ``big_blind``, ``ante``, ``big_blind_ante``, chips; ``next_level``
        None on the last level), ``seconds_left`` (None on the last level) as of ``at``
        (the orchestrator's clock, Unix seconds; a screen counts down from it while
        ``running``), ``on_break``, ``players_left``, ``entries``, ``average_stack``
        (chips), ``prize_pool`` (money), ``finished``, and ``seats_bb``: each live player's
        stack in big blinds by seat, in tenths (``{"3": 125}``: seat 3 holds 12.5 BB);
        ``out`` (:meth:`out_seats`), ``offers`` (:meth:`offers`, by seat), ``asked``,
        ``purchase_chips``, and ``rebuy_pending``: the seats kept for a busted player who
        may still rebuy at the bust (``{"5": {"name": "Player 5", "asked": false}}``: "busted —
        rebuy?", TFIX 7; his seat's ``offers`` are ``["rebuy", "decline_rebuy"]``; ``asked``
        true once his tablet asked for it: "rebuy — dealer to confirm"), and
        ``deal_waits_for_dealer``: the seats (ints, ascending) whose asked rebuy at the bust
        the next deal waits for (breaker 3 H1; ``[]`` when the deal waits for none);
        ``deal_offer`` (:meth:`deal_offer_view`) and ``deal_ended`` (``{"offer", "reason"}``:
        why the last offer ended, until a hand finishes; else None); ``deal_pending``
        (``{"offer", "method", "hand"}``: a deal offered when hand ``hand`` ends; else None)."""
        st = self.clock.status(self.time())
        by_seat = {s.seat: s.player for s in self.orch.state.occupied()}
        alive = set(self.standings.alive)
        asked_at_bust = self.asked_at_bust()
        stacks, seat_of = {}, {}
        for v in public.get("seats") or []:
            player = by_seat.get(v.get("seat"))
            if player in alive:
                stacks[player], seat_of[player] = int(v.get("stack") or 0), v["seat"]
        tv = tournament_view(st, self.standings, stacks)
        return {"level": level_json(tv.level), "next_level": level_json(tv.next_level), "seconds_left": tv.seconds_left,
                "running": st.running, "at": self.orch.clock(), "on_break": tv.on_break,
                "players_left": tv.players_left, "entries": tv.entries, "average_stack": tv.average_stack,
                "prize_pool": tv.prize_pool, "finished": self.finished,
                "seats_bb": {str(seat_of[p]): bb for p, bb in tv.stacks_in_big_blinds.items()},
                "out": self.out_seats(set(by_seat) | set(self.held_seats())), "clock_speed": self.clock_speed(),
                "offers": {str(n): o for n in sorted(set(by_seat) | set(self.held_seats())) if (o := self.offers(n))},
                "rebuy_pending": {str(n): {"name": self.names.get(p, p), "asked": n in asked_at_bust}
                                  for n, p in self.held_seats().items()},
                "deal_waits_for_dealer": sorted(asked_at_bust),
                "asked": {str(n): k for n, k in sorted(self.asked.items())},
                "purchase_chips": {"rebuy": self.settings.rebuy.chips, "addon": self.settings.addon.chips},
                "chip_race": self._race_view(st), "deal": self._deal_view(tv.players_left, stacks, seat_of),
                "deal_offer": self.deal_offer_view(), "deal_ended": self.offer_ended,
                "deal_pending": None if self.deal_pending is None else {
                    k: self.deal_pending[k] for k in ("offer", "method", "hand")}}

    def _deal_view(self, left: int, stacks: dict[str, int], seat_of: dict[str, int]) -> dict[str, Any]:
        """What ``livetable floor deal`` shares: ``stacks`` (chips by seat of each live
        player here), ``names`` (theirs, by seat), ``prizes_left`` (money, 1st first: the payouts of the places the
        players left will take, as the standings give them now) and the payouts' ``unit``."""
        amounts = payout_amounts(self.settings.payouts, self.standings.prize_pool(), len(self.standings.entries))
        here = sorted(stacks, key=lambda p: seat_of[p])
        return {"stacks": {str(seat_of[p]): stacks[p] for p in here},
                "names": {str(seat_of[p]): self.names.get(p, p) for p in here},
                "prizes_left": list(amounts[:left]), "unit": self.settings.payouts.unit}

    def _race_view(self, st: Any) -> dict[str, Any] | None:
        """The colour-up of the break on now (None otherwise): the chip raced for, and per
        seat the race's cards and whether it won one."""
        race = self.last_race
        if race is None or not st.on_break or int(race["index"]) != st.index:
            return None
        won = set(race["won"])
        return {"removed": race["removed"], "chip": race["chip"],
                "seats": {str(race["seats"][p]): {"name": self.names.get(p, p), "cards": c, "won": p in won}
                          for p, c in race["cards"].items()}}

    def out_seats(self, occupied: set[int]) -> dict[str, dict[str, Any]]:
        """Return the seats whose player busted and that nobody has taken since, by seat
        (``{"5": {"name": "Player 5", "place": 6, "tied_to": 6, "prize": 0}}``): the
        place (``tied_to`` > ``place`` when entries busted in one hand with equal stacks share
        places, TDA simultaneous eliminations) and the prize (money; 0 out of the money) as
        the standings give them now (the pool can still grow until registration closes)."""
        finishes = [f for f in self.standings.finishes() if f.player not in self.standings.alive]
        if not finishes:
            return {}
        amounts = payout_amounts(self.settings.payouts, self.standings.prize_pool(), len(self.standings.entries))
        paid = prizes(finishes, amounts, self.settings.payouts.unit)
        out: dict[str, dict[str, Any]] = {}
        for f in sorted(finishes, key=lambda f: -f.place):  # the latest bust of a seat last
            seat = self.draw.get(f.player)
            if seat is not None and seat not in occupied:
                out[str(seat)] = {"name": self.names.get(f.player, f.player), "place": f.place,
                                  "tied_to": f.tied_to, "prize": paid.get(f.entry_id, 0)}
        return out

    def clock_speed(self) -> int | None:
        """Return how many times faster than the wall clock a simulation's tournament clock
        runs (its seconds / the wall's since the tournament started here, whole; at least
        1), or None for a real clock: the screens say "clock ×60 (simulated)"."""
        if not self.sim:
            return None
        wall = max(1e-3, self.orch.clock() - self._wall_start) if self._wall_start is not None else None
        played = self.time() - (self._sim_start or 0.0)
        return max(1, round(played / wall)) if wall else None

    def _seat_of(self, player: str) -> int:
        return self.draw.get(player, 0)

    def who(self, player: str) -> str:
        """The player's name for a reader (issue 19: the log named bare ids ``p5`` nobody could
        find at the table): ``Player 3`` when the name already says the seat, else
        ``Zoe (seat 4)``; the id itself when the player is unknown."""
        name, seat = self.names.get(player, player), self.draw.get(player)
        return name if seat is None or name == f"Player {seat}" else f"{name} (seat {seat})"

    @property
    def finished(self) -> bool:
        """True once the winner is known and the payouts are journalled."""
        return self.result is not None

    def summary(self) -> dict[str, Any]:
        """The JSON summary's tournament fields: ``places`` (player ids, 1st first; so far: the
        busted ones only), ``names`` (the same places as names a person finds at the table:
        ``Player 3``, ``Zoe (seat 4)``), ``payouts`` (per place), ``prize_pool``, ``tournament``:
        entries, players left, level, chips in play, fees, problems; and ``clock``: how fast the
        tournament's clock ran (``"72x real time (simulated: ...)"``, or ``"real time"``)."""
        out: dict[str, Any] = dict(self.result) if self.result else {
            "places": [], "payouts": [], "prize_pool": self.standings.prize_pool()}
        out["names"] = [self.who(p) for p in out["places"]]
        st = self.clock.status(self.time())
        out["tournament"] = {"finished": self.finished, "entries": len(self.standings.entries),
                             "players_left": len(self.standings.alive), "level": st.level.number,
                             "chips_in_play": self.standings.chips_in_play(), "fees": self.standings.fees(),
                             "problems": list(self.problems)}
        # newcomer F6: a simulation's clock runs on the table's events, far faster than the wall's
        speed = self.clock_speed()
        out["clock"] = (f"{speed}x real time (simulated: the clock runs on the table's events)" if speed
                        else "simulated: the clock runs on the table's events" if self.sim else "real time")
        return out

    # ------------------------------------------------------------------ internals
    def _journal(self, payload: dict[str, Any]) -> int:
        seq: int = self.orch.journal.append(JOURNAL_KIND, payload, self.orch.clock())
        if payload["type"] != "clock":
            self.history.append(payload)
            if payload["type"] == "start":
                self.state_seq, self._full_hands = seq, self.orch.state.hands
        return seq

    def _crash_point(self, point: str) -> None:
        self._crash.hit(point)
