"""``livetable room``: the room service's commands (issue 17, docs/room.md).

- ``livetable room serve``: the room service (store, broker subscription, floor console);
- ``livetable room serve-local``: ``room serve --tournament`` with its tables and brokers on this machine;
- ``livetable room provision``: the room broker's logins, ACL and each table's bridge;
- ``livetable room simulate``: a room of N simulated tables, one command;
- ``livetable room director``: the tournament director's clock through the floor console (issue 19).
"""

from __future__ import annotations

import importlib
import sys

COMMANDS = {
    "serve": ("room.serve", "run the room service (systemd: livetable-room.service)"),
    "serve-local": ("room.serve_local", "room serve --tournament with real table processes, all on this machine"),
    "provision": ("room.provision", "room broker logins, ACL and the tables' bridges"),
    "simulate": ("room.simulate", "a room of N simulated tables bridged to a room broker"),
    "crowd": ("room.crowd", "simulated players through the waiting lists; checks fairness"),
    "director": ("room.director_cli", "a multi-table tournament's clock: status, pause, resume, add time, level"),
}


def main(argv: list[str]) -> int:
    """Dispatch ``livetable room COMMAND``; 2 for an unknown command."""
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: livetable room COMMAND [options]\n\ncommands:\n" + "\n".join(
            f"  {k.ljust(11)} {h}" for k, (_, h) in COMMANDS.items()))
        return 0 if argv else 2
    if argv[0] not in COMMANDS:
        print(f"livetable room: unknown command {argv[0]!r} (known: {', '.join(COMMANDS)})", file=sys.stderr)
        return 2
    return int(importlib.import_module(COMMANDS[argv[0]][0]).main(argv[1:]) or 0)
