"""``livetable equity``: print each player's exact all-in equity as JSON (S-8).

Usage::

    livetable equity AsKs QdQh [--board "Jh 8c 3d"] [--dead "2c 7d"] [--game omaha]

One argument per player (``AsKs`` or ``"As Ks"``; four cards each for Omaha, which
is detected from the count or forced with ``--game omaha``). Prints one JSON object::

    {"game": "holdem", "players": ["AsKs", "QdQh"], "board": ["Jh", "8c", "3d"],
     "dead": [], "equity": [0.2474..., 0.7525...]}

Exit status: 0 on success, 2 on bad input (the reason, with its rule id, on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(message)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="livetable equity",
        description="Exact all-in equity of each player by enumerating every remaining board.",
    )
    p.add_argument("players", nargs="+", metavar="HAND",
                   help="one player's hole cards, e.g. AsKs or 'As Ks' (4 cards for Omaha)")
    p.add_argument("--board", default="", help="known board cards, e.g. 'Jh 8c 3d'")
    p.add_argument("--dead", default="", help="cards out of the deck (mucked, burned face up)")
    p.add_argument("--game", choices=("holdem", "omaha"), default=None,
                   help="the game; by default Omaha when everyone has four hole cards")
    return p


def main(argv: list[str]) -> int:
    """Run ``livetable equity`` with ``argv`` (without the command name).

    Prints the JSON result on stdout and returns 0, or prints the reason on stderr and
    returns 2 (bad arguments or impossible cards: G-1, G-2, G-5).
    """
    from .equity import EquityError, equity, parse_equity_input

    try:
        args = _parser().parse_args(argv)
    except _UsageError as exc:
        print(f"livetable equity: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    try:
        holes, board, dead, game = parse_equity_input(args.players, args.board, args.dead,
                                                      args.game)
        shares = equity(holes, board, dead, game=game)
    except EquityError as exc:
        print(f"livetable equity: {exc}", file=sys.stderr)
        return 2
    out = {
        "game": game,
        "players": ["".join(map(str, h)) for h in holes],
        "board": [str(c) for c in board],
        "dead": [str(c) for c in dead],
        "equity": shares,
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
