"""``livetable run --config table.toml``: the table with its real devices (issue 9).

Start-up, in order (systemd is told READY=1 only at the end):

The table is composed by :class:`controller.composition.TableRun`, the same as
``livetable simulate``'s with simulated devices: here the devices the config names.

1. read and check the config (a mistake names its key and stops start-up, exit 2);
2. start the shuffler driver and ask the device what it holds (its deck number, how many
   cards it delivered from it, anything queued);
3. open the journal, check it and replay it (:func:`controller.runtime.open_table`); a hand
   the restart interrupted is **resumed** only when the shuffler's own count of cards
   delivered from its deck equals the journal's, nothing is queued or faulted, and the
   deck it holds is proven again (its stub and the hand's cards in the journal are the 52
   cards each once: :func:`controller.devices.shuffler.prove_deck_again`); otherwise it is **voided** at once and every
   wager returned (never a pause only the floor can end);
4. start the other devices (seat panel on the Pi's GPIO, the MQTT link, the camera);
5. ``READY=1``; then the loop runs, feeding the systemd watchdog, until SIGTERM.

The table plays a cash game, a single-table tournament (the config's ``[tournament]`` or
``--tournament-config``), or is one table of the room's multi-table tournament (``[room]
tournament = true`` or ``--tournament-room``: the room seats the players and gives every
deal over the table's broker, :func:`controller.composition.room_tournament_seat`); a
journal played as another of them is refused (exit 3, issue 19).

A journal that fails its check stops start-up (exit 3): the floor must look at it
(``livetable history --journal FILE``) rather than have the table guess.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from typing import Any

from controller.clock import system_clock
from controller.config import ConfigError, load_config
from controller.journal import JournalError
from controller.runtime import settings_from_config
from controller.sdnotify import notify, watchdog_interval

__all__ = ["main", "build_parser"]

log = logging.getLogger("livetable.run")


def build_parser() -> argparse.ArgumentParser:
    """Return the ``livetable run`` argument parser."""
    p = argparse.ArgumentParser(prog="livetable run", description=__doc__.split("\n\n")[0])
    p.add_argument("--config", required=True, help="the table's TOML config")
    p.add_argument("--check", action="store_true", help="check the config and exit")
    p.add_argument("--tournament-config", default=None,
                   help="a single-table tournament's [tournament] TOML (default: the config's own "
                        "[tournament] section; neither: a cash table; docs/tournament.md)")
    p.add_argument("--tournament-players", type=int, default=None,
                   help="entries drawn to seats at the tournament's start (default: every seat)")
    p.add_argument("--tournament-room", action=argparse.BooleanOptionalAction, default=None,
                   help="a table of the room's multi-table tournament: the room seats the players and gives "
                        "every deal over the table's broker (default: the config's [room] tournament; "
                        "docs/tournament.md)")
    p.add_argument("--log-level", default="INFO")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run ``livetable run``; exit 0 on SIGTERM or SIGINT, 2 on a config error, 3 on a bad
    journal; a Ctrl-C before the handlers are set (while the config is read, the modules
    import) ends it quietly with 130 (:func:`controller.cli.main`)."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        cfg = load_config(args.config)
        if cfg.gpio is not None:
            from drivers.seats import parse_pin_map

            parse_pin_map(cfg.gpio)
        settings = settings_from_config(cfg)
        from controller.roomlink import room_config  # issue 17: [room], the outbox to the room

        room = room_config(args.config)
        from controller.tournament_run import (room_tournament_table_settings, tournament_config,
                                               tournament_table_settings)

        tourney = tournament_config(args.config, args.tournament_config)  # issue 19
        in_room = room.tournament if args.tournament_room is None else args.tournament_room
        players = settings.seats if args.tournament_players is None else args.tournament_players
        if in_room:  # the room's tournament; [tournament], when given, is the room's settings
            if args.tournament_players is not None:
                raise ValueError("--tournament-players: the room draws a room tournament's players "
                                 "(--tournament-room, [room] tournament = true)")
            if tourney is not None and tourney.settings.seats_per_table > settings.seats:
                raise ValueError(f"{tourney.source}: tournament.seats_per_table "
                                 f"{tourney.settings.seats_per_table} is more than table.seats {settings.seats}")
            settings = room_tournament_table_settings(settings, tourney.settings if tourney else None)
        elif tourney is not None:
            settings = tournament_table_settings(settings, tourney.settings)
        if tourney is not None and not in_room and not 2 <= players <= settings.seats:
            raise ValueError(f"--tournament-players: {players}: a single-table tournament needs "
                             f"2..{settings.seats} players (table.seats)")
    except (ConfigError, ValueError) as exc:
        print(f"livetable run: {exc}", file=sys.stderr)
        return 2
    if cfg.mqtt.password_file and not os.access(cfg.mqtt.password_file, os.R_OK):
        print(f"livetable run: mqtt.password_file {cfg.mqtt.password_file}: no such file, or not "
              f"readable by this user (livetable tablets provision writes it)", file=sys.stderr)
        return 2
    if room.outbox and room.password_file is not None and not os.access(room.password_file, os.R_OK):
        print(f"livetable run: room.password_file {room.password_file}: no such file, or not readable by "
              f"this user (the outbox's login {cfg.table.id}-outbox: livetable tablets provision writes it)",
              file=sys.stderr)
        return 2
    if in_room and room.tournament_password_file is None:
        print(f"livetable run: room.tournament_password_file: a table of the room's tournament logs in to the "
              f"table's broker as {cfg.table.id}-tournament (livetable tablets provision writes its password; "
              f"on the controller's login it would end the table's MQTT link's session)", file=sys.stderr)
        return 2
    if in_room and room.tournament_password_file is not None and not os.access(room.tournament_password_file,
                                                                               os.R_OK):
        print(f"livetable run: room.tournament_password_file {room.tournament_password_file}: no such file, or "
              f"not readable by this user (the login {cfg.table.id}-tournament: livetable tablets provision "
              f"writes it)", file=sys.stderr)
        return 2
    if cfg.shuffler is None:
        print("livetable run: the config has no [shuffler]: a live table needs its shuffler to deal "
              "(livetable simulate plays without one)", file=sys.stderr)
        return 2
    if args.check:
        print(json.dumps({"config": args.config, "ok": True, "table": cfg.table.id,
                          "tournament": None if tourney is None else {"source": tourney.source,
                                                                      "players": None if in_room else players},
                          "room_tournament": bool(in_room)}))
        return 0
    notify("STATUS=starting: checking the journal")
    from controller.composition import DeviceStartError, TableRun
    from controller.devices import choice_from_config

    clock = system_clock
    try:
        choice = choice_from_config(cfg)
    except OSError as exc:
        print(f"livetable run: mqtt.password_file {cfg.mqtt.password_file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except ValueError as exc:  # not a regular file (a FIFO, /dev/zero), too large, not UTF-8
        print(f"livetable run: mqtt.password_file: {exc}", file=sys.stderr)
        return 2
    # A journal played as something else (a tournament's as a cash game, a cash game's as a
    # tournament table ...) is refused by run.open() before anything opens (issue 19).
    director: Any = None
    if in_room:  # the room's tournament over the table's broker, on its own login (<table>-tournament)
        from controller.composition import room_tournament_seat
        from controller.config import read_small_text
        from drivers.mqtt.provision import tournament_user

        assert room.tournament_password_file is not None  # checked above
        try:
            link_pw = read_small_text(room.tournament_password_file, what="password file").strip()
        except (OSError, ValueError) as exc:
            print(f"livetable run: room.tournament_password_file: {exc}", file=sys.stderr)
            return 2
        director = room_tournament_seat(cfg.table.id, host=cfg.mqtt.host, port=cfg.mqtt.port,
                                        username=tournament_user(cfg.table.id), password=link_pw)
    elif tourney is not None:  # the tournament's clock: monotonic seconds (its journal keeps the time played)
        from controller.tournament_run import TournamentTable

        director = TournamentTable(tourney.settings, tourney.text, players=players,
                                   seed=int.from_bytes(os.urandom(4), "big"), now=time.monotonic)
    run = TableRun(settings, cfg.journal.path, choice, clock=clock, keep_hands=cfg.journal.keep_hands,
                   result_seconds=cfg.table.result_seconds, extras=[director] if director else [])
    asked_to_stop = run.stop_on_signals()  # before open (issue 16)
    try:
        recovery = run.open()
    except JournalError as exc:
        print(f"livetable run: {exc}", file=sys.stderr)
        notify(f"STATUS=journal check failed: {exc}")
        return 3
    except DeviceStartError as exc:
        print(f"livetable run: {exc}", file=sys.stderr)
        return 2

    from controller.roomlink import start_from_config  # issue 17: None unless [room] outbox = true

    assert run.orch is not None
    outbox = start_from_config(args.config, cfg, run.orch)
    if outbox is not None:
        run.room_outbox(outbox)  # compaction waits for the room's acknowledgements (issue 21)
    if asked_to_stop.is_set():  # asked while the table opened: the loop ends at once
        run.stop()
    interval = watchdog_interval()
    last_ping = [0.0]

    def idle() -> None:
        if interval is not None and time.monotonic() - last_ping[0] >= interval:
            notify("WATCHDOG=1")
            last_ping[0] = time.monotonic()

    notify(f"READY=1\nSTATUS=table {cfg.table.id} ready ({recovery.outcome})")
    try:
        run.run(poll=0.02, on_idle=idle)
    finally:
        notify("STOPPING=1")
        if outbox is not None:
            outbox.stop()
        run.close()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
