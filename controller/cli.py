"""The ``livetable`` command: one entry point, one sub-command per job.

Each sub-command lives in the module that owns the work and exposes
``main(argv: list[str]) -> int``; this file only dispatches, importing the module
lazily so that ``livetable replay`` never loads pygame or OpenCV.
"""

from __future__ import annotations

import importlib
import os
import re
import signal
import sys

#: sub-command -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("controller.app", "run the table with the devices named in the config"),
    "simulate": ("controller.simulate", "run a whole table with every device simulated"),
    "try-tablet": ("controller.try_tablet", "a simulated table whose seat tablets a browser opens"),
    "replay": ("controller.engine.replay", "replay PHH hand histories through the engine"),
    "equity": ("controller.engine.equity_cli", "print each player's equity as JSON"),
    "deal": ("controller.deal_cli", "a deal for the final players: ICM or chip chop (issue 19)"),
    "history": ("controller.history_cli", "show the last hands step by step (game recall)"),
    "shuffler-emulator": ("drivers.shuffler.emulator", "play the card shuffler on a pty"),
    "recognize": ("vision.cli", "read the cards in photos; one JSON line per image"),
    "vision": ("vision.cli_vision", "camera and deck tools: vision enroll, vision calibrate"),
    "tablets": ("drivers.mqtt.provision", "seat tablet credentials: tablets provision"),
    "floor": ("controller.floor_cli", "floor decisions at a running table: status, void, read ..."),
    "display": ("display.app", "the overhead dealer display (pygame)"),
    "wiring": ("drivers.seats.wiring", "print the GPIO wiring table from a config"),
    "room": ("room.cli", "the room service: room serve|provision|simulate (issue 17)"),
}


def _usage() -> str:
    width = max(len(c) for c in COMMANDS)
    lines = ["usage: livetable COMMAND [options]", "", "commands:"]
    lines += [f"  {name.ljust(width)}  {help_}" for name, (_, help_) in COMMANDS.items()]
    lines += ["", "livetable COMMAND --help shows a command's options."]
    return "\n".join(lines)


#: The exit code of a Ctrl-C (SIGINT) that comes before a command has set its own handlers
#: (while its modules import, its config is read): 128 + SIGINT, as a shell reports it.
INTERRUPTED = 128 + signal.SIGINT


def main(argv: list[str] | None = None) -> int:
    """Run ``livetable``; return the process exit code (0 ok, 2 usage error, 130 interrupted
    by Ctrl-C before the command set its own handlers, 141 the reader of its output went
    away: a broken pipe, as Unix tools end on SIGPIPE).

    A ``KeyboardInterrupt`` that reaches here (SIGINT in the first moments of ``livetable
    run``, inside the imports of paho or dataclasses, before the table's handlers are set;
    issue 16) ends the command quietly with :data:`INTERRUPTED`, never a traceback: nothing
    had started. Once ``run`` has set its handlers a SIGINT stops the table (exit 0)."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        return INTERRUPTED


def _main(argv: list[str] | None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0 if args else 2
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"livetable: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # no pygame banner on stdout
    module = importlib.import_module(COMMANDS[name][0])
    try:
        return int(module.main(rest) or 0)
    except BrokenPipeError:
        # The reader went away (``livetable replay ... | head``): stop quietly, as Unix
        # tools do on SIGPIPE, and keep Python from complaining when it flushes stdout.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


def help_text(doc: str | None) -> str:
    """Return a command module's first docstring paragraph as ``--help`` prints it: without
    reST markup (double backquotes) or the issue numbers kept for developers."""
    first = (doc or "").split("\n\n")[0]
    return re.sub(r"\s*\(issue \d+\)", "", first.replace("``", ""))
