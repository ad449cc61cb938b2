"""``livetable simulate``: the whole table with every device simulated (issue 9).

The same orchestrator, journal and table as ``livetable run``, with:

- the shuffler emulator on a pty driven by the real shuffler driver (``--devices all``,
  the default), or the internal seeded dealer (``--devices none``: no pty, no broker);
- gpiozero's MockFactory pins for the seat buttons and lights;
- the real local Mosquitto for the tablets and the display (``--mqtt-host/--mqtt-port``);
- a camera that sees frames drawn of the board cards the shuffler dealt, read by the real
  recognizer and checked against the shuffler;
- the dealer display in its own process unless ``--headless``;
- simulated players in every seat except those left to tablets (``--tablet-seats 3,5``:
  a "Tablet N" player is seated there; ``--join-seats 3,5``: the seats stay free until a
  player takes one from its tablet, T-3; simulate lets tablets seat players,
  ``tablet_join = "direct"``, or with ``--tablet-join confirm`` once the dealer's console
  confirm button says the chips were handed over).

``livetable simulate --hands N --headless`` plays N hands and prints a JSON summary
(hands, pots, rake, faults, recovery) and exits non-zero if an invariant broke (chips not
conserved, the ledger not balancing). With ``--journal FILE`` an existing journal is
recovered first: the crash test kills this process and starts it again on the same file.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shlex
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from controller.bots import STYLES
from controller.clock import system_clock
from controller.config import RESULT_SECONDS
from controller.engine.evaluator import describe_hand
from controller.engine.table import effects as fx
from controller.engine.table import events as ev
from controller.engine.table.audit import audit, chips_on_table
from controller.engine.table.settings import LANGUAGES, SettingsError, TableSettings
from controller.journal import JournalError
from controller.orchestrator import Orchestrator
from controller.runtime import OtherTablesJournal

__all__ = ["main", "build_parser", "Summary"]

log = logging.getLogger("livetable.simulate")

GAMES = ("holdem", "omaha", "draw")
LIMITS = ("no-limit", "pot-limit", "fixed-limit")


def build_parser() -> argparse.ArgumentParser:
    """Return the ``livetable simulate`` argument parser."""
    from controller.cli import help_text

    p = argparse.ArgumentParser(prog="livetable simulate", description=help_text(__doc__))
    p.add_argument("--game", choices=GAMES, default="holdem")
    p.add_argument("--limit", choices=LIMITS, default="no-limit")
    p.add_argument("--seats", type=int, default=None, help="seats at the table (default 6, draw 5)")
    p.add_argument("--players", type=int, default=None, help="simulated players (default: every seat)")
    p.add_argument("--sb", type=int, default=None, help="small blind in chips (default: half the big blind)")
    p.add_argument("--bb", type=int, default=100, help="big blind in chips (default 100)")
    p.add_argument("--ante", type=int, default=0)
    p.add_argument("--rake", type=float, default=5.0, help="rake percent (R-1)")
    p.add_argument("--rake-cap", type=int, default=300, help="rake cap in chips (R-1)")
    p.add_argument("--hands", type=int, default=None, help="stop after N hands (default: run until killed)")
    p.add_argument("--headless", action="store_true", help="no display window")
    p.add_argument("--speed", type=float, default=None,
                   help="players' thinking pace: 1 = a live table, 0 = instant (default 0 headless, 1 otherwise)")
    p.add_argument("--result-seconds", type=float, default=None,
                   help="seconds a hand's result stays before the next deal while a tablet seat is "
                        f"online (default: [table] result_seconds's, {RESULT_SECONDS:g})")
    p.add_argument("--seed", type=int, default=int.from_bytes(os.urandom(3), "big"),
                   help="the dealer's and players' seed (default: new each run)")
    p.add_argument("--journal", default=None, help="journal file (default: a new temporary one)")
    p.add_argument("--devices", choices=("all", "none"), default="all",
                   help="all: shuffler emulator on a pty, mock pins, MQTT, camera; none: internal dealer only")
    p.add_argument("--table", default="sim", help="the table id (MQTT topics)")
    p.add_argument("--name", default=None,
                   help="the table's name on the screens and in the lobby (default: 'Simulated <game>')")
    p.add_argument("--mqtt-host", default="127.0.0.1")
    p.add_argument("--mqtt-port", type=int, default=1883)
    p.add_argument("--mqtt-user", default=None, help="the controller's broker login (default: anonymous)")
    p.add_argument("--mqtt-password-file", default=None, help="a file holding that login's password")
    p.add_argument("--history-dir", default=None, help="also write every hand as PHH into this folder")
    p.add_argument("--keep-hands", type=int, default=0,
                   help="compact the journal to its last N hands once their histories are in "
                        "--history-dir (journal.keep_hands; default 0: keep every event)")
    p.add_argument("--tablet-seats", default="", help="seats left for real tablets, e.g. 3,5")
    p.add_argument("--join-seats", default="",
                   help="seats left free for a player to take from the seat's tablet (T-3), e.g. 3,5")
    p.add_argument("--tablet-join", choices=("direct", "confirm"), default="direct",
                   help="a tablet's buy-in comes at once, or when the dealer presses confirm (T-3)")
    p.add_argument("--players-style", choices=STYLES, default="random",
                   help="how the simulated players play: random (mostly check and call, sometimes bet, raise "
                        "or fold) or call (check or call every bet, never bet, raise or fold: a tablet "
                        "player's all-in is always called, so busting and buying in again take seconds)")
    p.add_argument("--leave-chance", type=float, default=0.0,
                   help="after each hand, the chance (0..1) each simulated player stands up, the seat left free "
                        "(the room's waiting lists fill it; default 0)")
    p.add_argument("--camera", choices=("on", "off"), default="on", help="board check by the simulated camera")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--room-outbox", action="store_true", help="send the journal to the room (controller/roomlink.py)")
    p.add_argument("--room-outbox-password-file", default=None,
                   help="the outbox's password on the table's broker (its login: <table>-outbox, "
                        "from livetable tablets provision)")
    p.add_argument("--room-resend", type=float, default=10.0, help=argparse.SUPPRESS)
    p.add_argument("--language", choices=LANGUAGES, default=None,
                   help="the table's language, as [table] language: the tablets' default and the dealer "
                        "display's (default en)")
    p.add_argument("--journal-removed", action="store_true", help=argparse.SUPPRESS)  # try-tablet's temporary folder
    p.add_argument("--tournament", action="store_true",
                   help="a single-table tournament to a winner, one player a seat (issue 19, docs/tournament.md)")
    p.add_argument("--tournament-config", default=None,
                   help="the tournament's [tournament] TOML (default: a short built-in one)")
    p.add_argument("--tournament-room", action="store_true",
                   help="with --tournament: a table of the room's multi-table tournament; the room seats "
                        "the players and gives every deal (controller/tournament_link.py)")
    p.add_argument("--tournament-room-password-file", default=None,
                   help="the room tournament link's password on the table's broker (its login: "
                        "<table>-tournament, from livetable tablets provision; default: --mqtt-user's login, "
                        "which only --devices none leaves to it)")
    return p


class Summary:
    """Counts for the end-of-run summary (hands, pots, rake, faults)."""

    def __init__(self, started: float | None = None) -> None:
        self.started = started  # the run's start (Unix seconds, the table's clock)
        self.hands = 0
        self.voided = 0
        self.pots = 0
        self.showdowns = 0
        self.rake = 0
        self.faults: list[dict[str, Any]] = []
        self.invariant_errors: list[str] = []

    def __call__(self, orch: Orchestrator, effects: list[Any]) -> None:
        for e in effects:
            if isinstance(e, fx.HandFinished):
                res = (e.record or {}).get("result") or {}
                if res.get("voided"):
                    self.voided += 1
                else:
                    self.hands += 1
                    awards = res.get("awards") or []
                    self.pots += len(awards)
                    awards = with_kickers(awards, e.record or {})
                    self.rake += int(res.get("rake") or 0)
                    names = {s.seat: s.name for s in orch.state.seats if s is not None}
                    log.info("hand %s: %s%s", e.hand, pots_line(awards, names) or "no pot",
                             f", rake {res.get('rake')}" if res.get("rake") else "")
        problems = audit(orch.state)
        if problems and len(self.invariant_errors) < 20:
            self.invariant_errors.extend(f"event {orch.events_handled}: {p}" for p in problems)

    def to_json(self, orch: Orchestrator, recovery: Any, seconds: float) -> dict[str, Any]:
        """The summary: ``hands``, ``voided``, ``pots``, ``rake`` of this run; ``unfinished``
        (the hand still being played when the table stopped, or None); ``room``: the table's
        meters since its journal began (chips in, out, rake) and the chips on the table now
        (``on_table``: stacks and pots; chips are conserved when ``total_in - total_out ==
        on_table + rake``, as ``invariant_errors`` checks after every event); ``recovery``: what became of
        a hand left unfinished when the table opened (docs/faults.md); ``faults``: each fault
        of this run (ended, or ``open``) with its times readable (:func:`readable_fault`)."""
        led = orch.state.ledger
        hand = orch.state.hand
        return {
            "hands": self.hands, "voided": self.voided, "pots": self.pots, "rake": self.rake,
            "unfinished": orch.state.info.number if hand is not None and orch.state.info else None,
            "room": {"total_in": led.total_in, "total_out": led.total_out, "rake": led.rake,
                     "on_table": chips_on_table(orch.state)},
            "faults": [readable_fault(f.to_json(), self.started) for f in orch.faults.endings]
            + [dict(readable_fault(f.to_json(), self.started), open=True) for f in orch.faults.open],
            "recovery": {"outcome": recovery.outcome, "hand": recovery.hand, "reason": recovery.reason,
                         "events_replayed": recovery.events},
            "events": orch.events_handled, "seconds": round(seconds, 3),
            "invariant_errors": self.invariant_errors,
        }


#: The options that make the table (its id, game, stakes, devices): a run opened again on its
#: journal gives them again, or the table changes (a changed setting applies between hands)
TABLE_OPTIONS = ("devices", "table", "game", "limit", "seats", "sb", "bb", "ante", "rake", "rake_cap",
                 "tournament", "tournament_config", "tournament_room")


def resume_words(args: argparse.Namespace, journal: str) -> str:
    """Return what the log says, after a run stopped in the middle of a hand, about going on.
    ``args``: the options as parsed, before any default was filled in (``--sb`` ...):
    the whole command that opens the table from ``journal`` (``.venv/bin/livetable simulate
    --journal FILE`` and every option of :data:`TABLE_OPTIONS` this run was given other than
    its default: ``--devices none`` above all) and what becomes of the hand then. With
    ``--devices none`` the hand is picked up where it stood (its deck is the journal's seed);
    with the emulated shuffler (``--devices all``) it is voided, every wager returned (the
    emulator's deck was in this process; docs/faults.md). A newcomer was told only
    ``--journal FILE``, and without ``--devices none`` the hand was voided, not resumed."""
    parser = build_parser()
    words = [".venv/bin/livetable", "simulate", "--journal", journal]
    for dest in TABLE_OPTIONS:
        value = getattr(args, dest, None)
        if value == parser.get_default(dest):
            continue
        flag = "--" + dest.replace("_", "-")
        words += [flag] if value is True else [flag, f"{value:g}" if isinstance(value, float) else str(value)]
    command = " ".join(shlex.quote(w) for w in words)
    if getattr(args, "devices", "all") == "none":
        return f"{command} opens the table from it and picks the hand up where it stood"
    return (f"{command} opens the table from it with the hand voided, every wager returned (the emulated "
            "shuffler's deck was in this process: only --devices none picks a hand up where it stood)")


def no_screen_words(speed: float) -> str:
    """What ``livetable simulate`` logs when it finds no screen (no ``DISPLAY``) and goes on
    headless at ``speed`` (the players' pace, as ``--speed``: 0 instant): at a live pace, how to
    get full speed (``--headless``, whose ``--speed`` defaults to 0, or ``--speed 0``); at full
    speed, just that."""
    if speed > 0:
        return ("no screen here (no DISPLAY): no display window; the table plays on at a live pace, "
                "one line per hand (--headless or --speed 0 for full speed)")
    return "no screen here (no DISPLAY): no display window; the table plays on at full speed, one line per hand"


def with_kickers(awards: list[dict[str, Any]], record: dict[str, Any]) -> list[dict[str, Any]]:
    """Return ``awards`` (a ``HandFinished`` record's ``result.awards``) with each shown
    winner's ``hand`` in words with its kickers (H-4, as ``livetable history`` gives them):
    ``"Two pair, queens and threes, king kicker"`` where the bare call (H-6) would make two
    pots won by different hands read alike. ``record``: the whole record (its ``game``,
    ``hand_record.board`` and ``result.hole``). An award without words (uncontested, not
    shown) stays without; one whose winner's cards are not known keeps its words as they
    were. The awards given are not changed (new dicts are returned)."""
    res = record.get("result") or {}
    hole = {str(k): [c for c in v if c and c != "??"] for k, v in (res.get("hole") or {}).items()}
    board = [c for c in (record.get("hand_record") or {}).get("board") or [] if c]
    game = str(getattr(record.get("game"), "value", record.get("game") or "holdem"))
    out = []
    for a in awards:
        winners = a.get("winners") or []
        if a.get("hand") and winners:
            try:
                a = dict(a, hand=describe_hand(hole.get(str(winners[0])) or [], board, game=game, kickers=True))
            except ValueError:  # HandError: the winner's cards are not all known
                pass
        out.append(a)
    return out


def pots_line(awards: list[dict[str, Any]], names: dict[int, str] | None = None) -> str:
    """Return the pots of one hand's result for the per-hand log line, main pot first (P-3):
    ``main pot 900, side pot 1 400 to seat 2 (flush, ace high); side pot 2 200 to seat 5 (two
    pair)``. Pots in a row won by the same seats with the same hand share one winner and one
    hand in words (issue 20: the words were repeated for every pot). ``awards``: the
    ``result.awards`` of a ``HandFinished`` record (``pot`` index, ``amount``, ``winners``,
    ``hand``). ``names``: seat number -> the player's name, when given each winner reads
    ``Player 3 at seat 3`` instead of the bare seat (issue 19: a newcomer could not tell who
    won)."""
    groups: list[tuple[list[str], tuple[Any, ...], str]] = []
    for a in awards:
        name = "main pot" if a.get("pot", 0) == 0 else f"side pot {a.get('pot')}"
        key = (tuple(a.get("winners") or ()), a.get("hand") or "")
        if groups and groups[-1][1] == key:
            groups[-1][0].append(f"{name} {a.get('amount')}")
        else:
            groups.append(([f"{name} {a.get('amount')}"], key, a.get("hand") or ""))
    def winners(seats: tuple[Any, ...]) -> str:
        if names and all(w in names for w in seats):
            return ", ".join(f"{names[w]} at seat {w}" for w in seats)
        return "seat " + ", ".join(str(w) for w in seats)

    return "; ".join(f"{', '.join(pots)} to {winners(key[0])}"
                     + (f" ({words})" if words else "") for pots, key, words in groups)


def readable_fault(fault: dict[str, Any], started: float | None) -> dict[str, Any]:
    """Return a fault record (``since``/``at`` in Unix seconds) for a person reading the
    summary: ``since`` and ``at`` as ISO 8601 UTC times (``2026-12-02T06:48:03.250Z``) and
    ``since_s``/``at_s``, the seconds since the run started (``started``, Unix seconds; left
    out when None). Other fields are kept. Issue 20: epoch floats said nothing to a reader;
    the summary's only readers (tests, the room's e2e test) look at ``kind`` alone."""
    out = dict(fault)
    for key in ("since", "at"):
        t = fault.get(key)
        if isinstance(t, (int, float)) and not isinstance(t, bool):
            out[key] = datetime.fromtimestamp(t, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
            if started is not None:
                out[f"{key}_s"] = round(t - started, 3)
    return out


def _check(args: argparse.Namespace) -> str | None:
    """Return what is wrong with the options (or None)."""
    if args.hands is not None and args.hands < 0:
        return f"--hands must be 0 or more, got {args.hands}"
    if args.tournament_room and not args.tournament:
        return "--tournament-room is a table of a tournament: give --tournament too"
    if args.keep_hands < 0:
        return f"--keep-hands must be 0 or more, got {args.keep_hands}"
    if args.keep_hands and not args.history_dir:
        return "--keep-hands needs --history-dir: hands leave the journal only once their histories are written"
    if args.history_dir and Path(args.history_dir).exists() and not Path(args.history_dir).is_dir():
        return f"--history-dir {args.history_dir} is a file, not a folder"
    if args.speed is not None and args.speed < 0:
        return f"--speed must be 0 or more, got {args.speed}"
    if args.result_seconds is not None and not 0 <= args.result_seconds <= 60:
        return f"--result-seconds must be 0..60, got {args.result_seconds}"
    if not 0 <= args.leave_chance <= 1:
        return f"--leave-chance must be 0..1, got {args.leave_chance}"
    if not (0 <= args.rake <= 25):
        return f"--rake must be a percent in 0..25, got {args.rake}"
    if args.ante < 0 or args.ante > args.bb:
        return f"--ante must be 0..the big blind, got {args.ante}"
    from drivers.mqtt.topics import TopicError, check_table

    try:
        check_table(args.table)
    except TopicError as exc:
        return f"--table: {exc}"
    try:
        args.tablet_set = {int(x) for x in args.tablet_seats.split(",") if x.strip()}
    except ValueError:
        return f"--tablet-seats takes seat numbers like 3,5, got {args.tablet_seats!r}"
    try:
        args.join_set = {int(x) for x in args.join_seats.split(",") if x.strip()}
    except ValueError:
        return f"--join-seats takes seat numbers like 3,5, got {args.join_seats!r}"
    return None


def _stored_seed(journal: str) -> int | None:
    """The seed a simulation's journal keeps (read-only: the table opens it afterwards)."""
    import sqlite3

    if not os.path.isfile(journal):  # none yet, or not a regular file (a FIFO would block the
        return None                  # open for ever): the table's own open refuses it by name
    try:
        db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True, timeout=1)
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'simulate_seed'").fetchone()
            if row is not None:
                return int(row[0])
            row = db.execute("SELECT payload FROM events WHERE kind = 'simulate' ORDER BY seq LIMIT 1").fetchone()
        finally:
            db.close()
    except (sqlite3.Error, ValueError):
        return None
    if row is None:
        return None
    seed = json.loads(row[0]).get("seed")
    return seed if isinstance(seed, int) else None


def _settings(args: argparse.Namespace) -> TableSettings:
    seats = args.seats or (5 if args.game == "draw" else 6)
    if args.sb is None:
        args.sb = max(1, args.bb // 2)
    kw: dict[str, Any] = dict(
        id=args.table, name=getattr(args, "name", None) or f"Simulated {args.game}", game=args.game, limit=args.limit,
        seats=seats, small_blind=args.sb, big_blind=args.bb, ante=args.ante,
        rake_percent=args.rake, rake_caps=((2, args.rake_cap),) if args.rake_cap else (),
        action_seconds=30.0, tablet_join=getattr(args, "tablet_join", "direct"),
    )
    return TableSettings(**kw)


def _tournament(args: argparse.Namespace) -> TableSettings:
    """The table of ``--tournament`` (every seat a player); sets ``args.director(players)``."""
    from controller.tournament_run import SIM_TOML, TournamentTable, table_settings
    from controller.tournament.settings import load_settings

    text = Path(args.tournament_config).read_text() if args.tournament_config else SIM_TOML
    ts = load_settings(text)
    settings = table_settings(ts, table_id=args.table, game=args.game, limit=args.limit,
                              seats=args.seats or (5 if args.game == "draw" else 6))
    args.director = lambda n: TournamentTable(ts, text, players=n, seed=args.seed)
    if args.tournament_room:  # issue 19: the room's tournament, over the table's broker
        from controller.composition import room_tournament_seat  # the same as livetable run's

        user, pw_file = args.mqtt_user, args.mqtt_password_file
        if args.tournament_room_password_file:  # its own login, as livetable run's [room] tournament_password_file
            from drivers.mqtt.provision import tournament_user

            user, pw_file = tournament_user(args.table), args.tournament_room_password_file
        pw = Path(pw_file).read_text().strip() if pw_file else None
        args.director = lambda n: room_tournament_seat(args.table, host=args.mqtt_host, port=args.mqtt_port,
                                                       username=user, password=pw)
    return settings


def _seat_players(orch: Orchestrator, seats: list[int], clock: Any, settings: TableSettings,
                  tablets: set[int] | frozenset[int] = frozenset()) -> None:
    """Seat a simulated player in each of ``seats`` and a tablet's player in each of ``tablets``
    (the floor seats a player; their tablet then plays the seat), each with the maximum buy-in."""
    amount = settings.buy_in_max or (settings.buy_in_min or 20 * settings.big_blind) * 2
    for s in sorted(set(seats) | set(tablets)):
        if orch.state.seat(s) is None:
            who, name = (f"tablet{s}", f"Tablet {s}") if s in tablets else (f"sim{s}", f"Player {s}")
            orch.post(ev.PlayerSatDown(at=clock(), seat=s, player=who, name=name))
            orch.post(ev.BoughtIn(at=clock(), seat=s, amount=amount))


def main(argv: list[str] | None = None) -> int:
    """Run ``livetable simulate``; return 0, 1 if an invariant broke, 2 on bad options."""
    args = build_parser().parse_args(argv)
    given = argparse.Namespace(**vars(args))  # as given: the options below fill in defaults (--sb ...)
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    problem = _check(args)
    if problem:
        print(f"livetable simulate: {problem}", file=sys.stderr)
        return 2
    try:
        settings = _settings(args) if not args.tournament else _tournament(args)
        if args.language is not None:
            settings = settings.changed(language=args.language)
    except (SettingsError, ValueError, OSError) as exc:
        print(f"livetable simulate: {exc}", file=sys.stderr)
        return 2
    tablet_seats = args.tablet_set
    join_seats = args.join_set - tablet_seats
    bad = sorted(s for s in tablet_seats | join_seats if not 1 <= s <= settings.seats)
    if bad:
        print(f"livetable simulate: seat {bad[0]} is not a seat of this table (1..{settings.seats})",
              file=sys.stderr)
        return 2
    n_players = (args.players if args.players is not None
                 else settings.seats - len(tablet_seats) - len(join_seats))
    bot_seats = [s for s in range(1, settings.seats + 1)
                 if s not in tablet_seats and s not in join_seats][:n_players]
    if len(bot_seats) + len(tablet_seats) < 2 or (args.hands and len(bot_seats) < 2 and not tablet_seats):
        print("livetable simulate: a hand needs two players: give --players 2 or more "
              "(or --tablet-seats for real tablets)", file=sys.stderr)
        return 2
    speed = args.speed if args.speed is not None else (0.0 if args.headless else 1.0)
    if not args.headless and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
                                  or os.environ.get("SDL_VIDEODRIVER")):
        log.info("%s", no_screen_words(speed))
        args.headless = True
    journal = args.journal or os.path.join(tempfile.mkdtemp(prefix="livetable-sim-"), "journal.sqlite")
    clock = system_clock

    from controller import simdevices
    from controller.composition import DeviceStartError, TableRun

    # The internal dealer's seed stands for the physical deck order: keep the journal's (in
    # its meta table, which compaction keeps; journals of before in their "simulate" entry).
    stored = _stored_seed(journal)
    if stored is not None:
        args.seed = stored
    players = simdevices.SimulatedPlayers(bot_seats, seed=args.seed, clock=clock, speed=speed,
                                          leave_chance=args.leave_chance, style=args.players_style)
    try:
        choice = simdevices.device_choice(args, settings, seed=args.seed)
    except OSError as exc:
        print(f"livetable simulate: --mqtt-password-file: {exc}", file=sys.stderr)
        return 2
    # A journal played as something else (a tournament's as a cash game ...) is refused by
    # run.open() before anything opens (JournalPlaysRefused, issue 19), which then marks it.
    director = args.director(n_players) if args.tournament else None
    run = TableRun(settings, journal, choice, clock=clock, keep_hands=args.keep_hands, rebuy=set(bot_seats),
                   bots=set(bot_seats), extras=[players] + ([director] if director else []),
                   result_seconds=RESULT_SECONDS if args.result_seconds is None else args.result_seconds)
    asked_to_stop = run.stop_on_signals()  # before open (issue 16)
    try:
        recovery = run.open()
    except OtherTablesJournal as exc:
        print(f"livetable simulate: the journal {journal} is table {exc.have!r}'s: give --table "
              f"{exc.have} to open it, or another --journal", file=sys.stderr)
        return 3
    except JournalError as exc:
        print(f"livetable simulate: {exc}", file=sys.stderr)
        return 3
    except DeviceStartError as exc:
        print(f"livetable simulate: {exc}", file=sys.stderr)
        return 2
    orch = run.orch
    assert orch is not None
    if orch.journal is not None:
        if simdevices.journal_seed(orch.journal) is None:
            orch.journal.append("simulate", {"seed": args.seed, "game": args.game, "limit": args.limit,
                                             "seats": settings.seats}, clock())
        orch.journal.set_meta("simulate_seed", str(args.seed))
    # A seat the journal shows held by someone else (a player who joined from the tablet, T-3)
    # stays theirs: no simulated player acts or buys in for them there.
    taken = [s for s in bot_seats if (seat := orch.state.seat(s)) is not None and seat.player != f"sim{s}"
             and director is None]
    if taken:
        log.info("seat %s: held by a player from the journal, not by a simulated player",
                 ", ".join(map(str, taken)))
        bot_seats = [s for s in bot_seats if s not in taken]
        players.bot_seats = bot_seats
        if players.players is not None:
            players.players.seats = set(bot_seats)
        assert run.pacer is not None
        run.pacer.rebuy = set(bot_seats)
        run.pacer.bots = set(bot_seats)
    summary = Summary(started=clock())
    from controller.roomlink import start_for_simulate  # issue 17: the outbox to the room

    outbox = start_for_simulate(args, orch, journal) if args.room_outbox else None
    if outbox is not None:
        run.room_outbox(outbox)  # compaction waits for the room's acknowledgements (issue 21)
    orch.listeners.append(summary)
    log.info("table %s: %s %s, %d seats, blinds %d/%d, seed %d; journal %s (%s)%s", settings.id,
             settings.limit, settings.game, settings.seats, settings.small_blind, settings.big_blind,
             args.seed, journal, recovery.outcome,
             f" - hand {recovery.hand} {recovery.outcome}" if recovery.hand else "")
    log.info("step-by-step recall of the hands: .venv/bin/livetable history --journal %s --hands 3", journal)
    if director is None:
        _seat_players(orch, bot_seats, clock, settings, tablet_seats)

    if asked_to_stop.is_set():  # asked while the table opened: the loop ends at once
        run.stop()
    t0 = time.perf_counter()
    target = args.hands

    def idle() -> None:
        if ((target is not None and summary.hands + summary.voided >= target or director and director.finished)
                and orch.state.hand is None):
            orch.stop()

    try:
        run.run(poll=0.01, on_idle=idle)
    finally:
        if run.adapter is not None:
            run.adapter.close()  # the devices stop; the journal stays open for the summary
    out = summary.to_json(orch, recovery, time.perf_counter() - t0)
    out["journal"] = journal
    if out["unfinished"] is not None and args.journal_removed:  # try-tablet removes its folder next
        log.info("hand %s was still being played; the journal goes with try-tablet's temporary folder "
                 "(its --dir keeps both for another run)", out["unfinished"])
    elif out["unfinished"] is not None:
        log.info("hand %s was still being played: it stays in the journal; %s", out["unfinished"],
                 resume_words(given, journal))
    out["devices"] = run.stats()
    if director is not None:
        out.update(director.summary())
        summary.invariant_errors.extend(director.problems)
    if outbox is not None:  # the room acknowledges what the journal holds, or 30 s went by
        out["room_link"] = outbox.stop(drain=30.0)
    run.close()
    print(json.dumps(out))
    return 1 if summary.invariant_errors else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
