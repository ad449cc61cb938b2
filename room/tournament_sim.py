"""``livetable room simulate --tournament``: a multi-table tournament through a simulated room (issue 19).

The room of ``livetable room simulate`` (:class:`room.simulate.RoomRig`: the room broker,
each table's broker bridged to it, the room service storing every table's journal) with
:class:`room.tournament.RoomTournament` as its tournament director, and per table
``livetable simulate --tournament --tournament-room --devices none`` (simulated players in
every seat, full speed). The tables play the hands the room gives them and carry out its
moves between hands; the room journals the tournament in its store (``room_tournament``).

Without ``--headless`` it serves the floor console (its address and login printed) and
prints a line per move (``t3 seat 2 Player 17 → t1 seat 6 (balancing, TDA 11)``), per
table broken, per level and when hand-for-hand starts or ends.

The last line of the output is one JSON object: ``places`` (player ids, 1st first),
``names`` (the same places by name), ``payouts`` (per place, money), ``prize_pool``,
``moves``, ``tables_broken``, ``hands``,
``ok`` (a winner; chips conserved at every check; every move completed with the chips
that left; payouts sum to the prize pool; the room's store holds every hand of every table
and its meters equal the tables'), plus ``entries``, ``checks``, ``problems``, ``clock``
(how much faster than real time the tournament clock ran), ``table_restarts`` (tables that
died and were started again from their journals), ``balanced``, ``per_table``,
``dir``, ``seconds``. Exit 0 when ``ok``, 1 when not.

``--entries-file FILE``: the entries by name, ``room serve``'s option and reader
(:func:`room.tournament_serve.add_entries_file`, :func:`room.tournament_serve.read_entries`).

The same ``--dir`` (and ``--store``) again resumes a tournament stopped or killed: the room
replays its journal from the store, each table its own (other settings, tables or
``--entries`` or ``--entries-file`` than the stored tournament's are refused: exit 2). The loop that drives the
director is ``livetable room serve --tournament``'s (:class:`room.tournament_serve.TournamentRunner`);
this module adds the rig, the table processes (started again when they die) and the checks.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from controller.tournament.words import plural
from controller.tournament_link import CRASH_ENV as LINK_CRASH_ENV
from drivers.mqtt.broker import REPO, die_with_parent

__all__ = ["ROOM_TOML", "run_tournament"]

log = logging.getLogger("livetable.room.tournament")

#: The simulation's tournament: one-minute levels (blinds, antes, a break, big-blind
#: antes), eight seats a table; nine places paid from 12 entries (the bubble comes with two
#: tables left: hand-for-hand).
ROOM_TOML = """
[tournament]
starting_stack = 2000
chips = [25, 100, 500, 1000]
seats_per_table = 8
late_registration_until_level = 0
entry = { price = 100, fee = 10 }

[[tournament.levels]]
small_blind = 25
big_blind = 50
minutes = 1

[[tournament.levels]]
small_blind = 50
big_blind = 100
ante = 25
minutes = 1

[[tournament.levels]]
break = 1

[[tournament.levels]]
small_blind = 100
big_blind = 200
big_blind_ante = 200
minutes = 1

[[tournament.levels]]
small_blind = 200
big_blind = 400
big_blind_ante = 400
minutes = 1

[[tournament.levels]]
small_blind = 500
big_blind = 1000
big_blind_ante = 1000
minutes = 1

[[tournament.levels]]
small_blind = 1000
big_blind = 2000
big_blind_ante = 2000
minutes = 1

[[tournament.levels]]
small_blind = 2500
big_blind = 5000
big_blind_ante = 5000
minutes = 1

[[tournament.levels]]
small_blind = 5000
big_blind = 10000
big_blind_ante = 10000
minutes = 1

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
[[tournament.payouts.brackets]]
min_entries = 12
percent = [30, 20, 14, 10, 8, 6, 5, 4, 3]
"""


def _table_held(store: Any, rig: Any, row: dict[str, Any]) -> bool:
    """``row`` of :func:`room.simulate.balance` holds, voided hands aside: the store holds every
    hand file of the table, and every hand it holds without a file was voided; its meters and
    applied position equal the table's."""
    t = row["table"]
    held = {int(n): bool(v) for n, v in store.query("SELECT number, voided FROM room_hands WHERE table_id = ?",
                                                     (t,))}
    files = {int(f.stem.split("-")[1]) for f in rig.history_dir(t).glob("hand-*.json")}
    meters = all(row["room"].get(k) == row["table_meters"].get(k) for k in ("total_in", "total_out", "rake"))
    return (files <= set(held) and all(held[n] for n in set(held) - files) and meters
            and row["applied"] == row["journal"])


def run_tournament(args: argparse.Namespace, store: Any, workdir: Path, tables: list[str]) -> int:
    """Run the tournament of ``livetable room simulate --tournament`` (the module docstring);
    return 0 when ``ok``, 1 when not, 2 on bad options."""
    from controller.tournament.errors import TournamentError
    from controller.tournament.settings import load_settings
    from room.service import RoomService
    from room.rig import RoomRig, balance, table_name
    from room.tournament_serve import TournamentRunner, check_entries_count, read_entries

    text = Path(args.tournament_config).read_text() if args.tournament_config else ROOM_TOML
    try:
        settings = load_settings(text)
    except ValueError as exc:
        print(f"livetable room simulate: --tournament-config: {exc}", file=sys.stderr)
        return 2
    names = None  # --entries-file's players (room serve's reader): player id -> name
    if getattr(args, "entries_file", None) is not None:
        try:
            names = read_entries(args.entries_file)
            check_entries_count(names, settings, tables)
        except ValueError as exc:  # EntriesFileError too
            print(f"livetable room simulate: {exc}", file=sys.stderr)
            return 2
    entries = len(names) if names is not None else (
        args.entries if args.entries is not None else settings.seats_per_table * len(tables))
    if not 2 <= entries <= settings.seats_per_table * len(tables) or args.speed <= 0:
        print(f"livetable room simulate: --entries must be 2..{settings.seats_per_table * len(tables)} "
              f"({plural(len(tables), 'table')} of {settings.seats_per_table} seats) and --speed above 0",
              file=sys.stderr)
        return 2
    workdir.mkdir(parents=True, exist_ok=True)
    conf = workdir / "tournament.toml"
    if not conf.exists():
        conf.write_text(text)
    t0 = time.monotonic()
    rig = RoomRig(workdir, tables).start()
    service = RoomService(store, host="127.0.0.1", port=rig.room_broker.mqtt_port, **rig.room_creds)
    # the loop, the director and the console's way in to it: room serve's (room/tournament_serve.py)
    runner = TournamentRunner(store, service, text, tables, speed=args.speed)
    service.start()
    console = None
    if not args.headless:  # issue 19: the floor console, and the tournament's moves and levels as they come
        from room.console import serve_console

        console = serve_console(service, workdir / "room" / "floor-logins", port=args.http_port,
                                tournament=runner.desk)
        print(f"room simulate: the floor console: {console.url} (login {console.login_hint})", flush=True)
        say = logging.StreamHandler(sys.stdout)
        say.setFormatter(logging.Formatter("room simulate: %(message)s"))
        tlog = logging.getLogger("livetable.room.tournament")
        tlog.addHandler(say)
        tlog.setLevel(logging.INFO)
        tlog.propagate = False
    speed = args.speed
    director = runner.director
    director.table_names = {t: table_name(t) for t in tables}  # the screens
    try:
        resumed = runner.open(args.entries, args.seed, names=names)
    except (TournamentError, ValueError) as exc:
        print(f"livetable room simulate: {exc}", file=sys.stderr)
        if console is not None:
            console.stop()
        service.stop()
        rig.stop()
        return 2
    print(f"room simulate: tournament of {plural(len(director.standings.entries), 'entry', 'entries')} on "
          f"{plural(len(tables), 'table')}; "
          f"the clock runs {speed:g}x real time{' (resumed from the store)' if resumed else ''}", flush=True)

    def interrupt(*_: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGINT, interrupt)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    extra = ["--tournament", "--tournament-room", "--tournament-config", str(conf),
             "--seats", str(settings.seats_per_table), "--result-seconds", "0"]

    def spawn(i: int, t: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
        login = ["--tournament-room-password-file", str(rig.tournament_password[t])]  # as livetable run's
        proc = subprocess.Popen(rig.table_command(t, 10**9, args.seed + i, devices="none", extra=extra + login),
                                stdout=subprocess.PIPE, stderr=(workdir / t / "table.log").open("ab"),
                                env=env, cwd=str(REPO), preexec_fn=die_with_parent())
        director.table_pids[t] = proc.pid  # a report of the process it replaced is stale
        return proc

    procs = {t: spawn(i, t, env) for i, t in enumerate(tables)}
    # A table that dies before the room ended it starts again from its journal, as systemd's
    # Restart= does on a Pi (the test hooks' kill points are not set again).
    again_env = {k: v for k, v in env.items() if k not in (LINK_CRASH_ENV, "LIVETABLE_TOURNAMENT_CRASH")}
    restarts: list[str] = []
    summaries: dict[str, dict[str, Any]] = {}
    timed_out = False
    try:
        deadline = time.monotonic() + args.tournament_timeout
        while not runner.finished:
            runner.turn()
            for i, t in enumerate(tables):
                code = procs[t].poll()
                if code is not None:
                    log.warning("table %s stopped (exit %s) before the room ended it: started again from its "
                                "journal", t, procs[t].returncode)
                    procs[t].communicate()
                    restarts.append(t)
                    procs[t] = spawn(i, t, again_env)
            if time.monotonic() > deadline or all(p.poll() is not None for p in procs.values()):
                timed_out = True
                log.error("the tournament did not finish (%s)", "timeout" if time.monotonic() > deadline
                          else "every table stopped")
                break
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        timed_out = True
    finally:
        runner.stop()
        for t, p in procs.items():  # ended tables stay up until the room has their last report
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for t, p in procs.items():
            stdout, _ = p.communicate()
            lines = stdout.decode(errors="replace").strip().splitlines()
            try:
                summaries[t] = json.loads(lines[-1])
            except (IndexError, ValueError):
                log.error("table %s ended with %s and no summary", t, p.returncode)
        for t, s in summaries.items():
            last = (s.get("room_link") or {}).get("last_seq") or 0
            service.wait_applied(t, last, args.timeout)
        if console is not None:
            console.stop()
        service.stop()
        rig.stop()
    result = balance(store, summaries, rig)
    # A hand voided when a table started again (a card on its way when it stopped) is in the
    # store but has no hand file: balance() counts files, so its per-table hands differ by it.
    result["balanced"] = all(_table_held(store, rig, row) for row in result["per_table"]) and bool(summaries)
    out = director.summary()
    problems = [f"{t}: {p}" for t, s in summaries.items() for p in (s.get("tournament") or {}).get("problems", [])]
    out["problems"] += problems
    out.update(ok=bool(out["ok"] and not timed_out and result["balanced"] and not problems
                       and len(summaries) == len(tables)),
               clock=f"{speed:g}x real time", table_restarts=restarts, balanced=result["balanced"],
               per_table=result["per_table"],
               screens={t: (s.get("tournament") or {}).get("screens") for t, s in summaries.items()},
               tables=len(tables), store=store.dialect, dir=str(workdir), seconds=round(time.monotonic() - t0, 2))
    store.close()
    print(json.dumps(out, separators=(",", ":")))
    return 0 if out["ok"] else 1
