"""``livetable deal``: the deal calculator for the final players of a tournament (issue 19).

Usage::

    livetable deal --stacks 52000,31000,17000 --payouts 500,300,200 [--method icm|chip-chop] [--json]

``--stacks``: the chips of each player still in (integers > 0, comma separated, one per
player, in the order the output names them: P1, P2, ...); ``--payouts``: the prizes still to
be won, 1st first (money, integers >= 0). Fewer payouts than players: the last places get
nothing. More payouts than players: the places already taken were paid those (the lowest
prizes), so only the first ``len(stacks)`` payouts are shared. ``--method``: ``icm``
(Malmuth-Harville, exact; the default, at most :data:`MAX_ICM_PLAYERS` players) or
``chip-chop`` (each player the last place's prize, the rest by chips). ``--unit``: shares
are whole multiples of it (default 1).

Prints the method, the prizes shared and a line per player (stack, share); the shares are
integers summing exactly to the prizes shared (controller/tournament/deal.py). Nothing is
journalled: a deal is agreed by the players and paid by the director (docs/tournament.md
"Deals").

Exit status: 0 done, 2 bad input (the reason on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Sequence

from controller.tournament.deal import MAX_ICM_PLAYERS, chip_chop, icm_deal
from controller.tournament.errors import TournamentError

__all__ = ["METHODS", "DealError", "compute_deal", "render_deal", "main"]

#: ``--method`` -> the library function (shares by player, summing to the prizes)
METHODS = {"icm": icm_deal, "chip-chop": chip_chop}


class DealError(ValueError):
    """Bad input for a deal (the message says which and why)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise DealError(message)


def compute_deal(stacks: Sequence[int], payouts: Sequence[int], method: str = "icm", unit: int = 1,
                 names: Sequence[str] | None = None) -> dict[str, Any]:
    """Return the deal of ``payouts`` among players holding ``stacks``.

    Args:
        stacks: each player's chips (integers > 0), at least 2 players.
        payouts: the prizes not yet paid, money, 1st first; beyond ``len(stacks)`` they are
            the places already taken and are left out.
        method: a key of :data:`METHODS`; unit: shares are multiples of it (money).
        names: a name per player (default ``P1``, ``P2`` ...).

    Returns:
        ``{"method": str, "prizes": [money, 1st first], "left_out": [the payouts beyond the
        players, places already taken], "total": money, "unit": int,
        "players": [{"name", "stack" (chips), "share" (money)}]}``; the shares sum to ``total``.

    Raises:
        DealError: an unknown method, fewer than 2 players, a stack <= 0 or a prize < 0,
            not integers, more than :data:`MAX_ICM_PLAYERS` players for ICM, ``unit`` < 1.
    """
    if method not in METHODS:
        raise DealError(f"unknown method {method!r}: choose {' or '.join(METHODS)}")
    if any(isinstance(x, bool) or not isinstance(x, int) for x in (*stacks, *payouts, unit)):
        raise DealError("stacks, payouts and unit must be integers (chips, money)")
    if len(stacks) < 2:
        raise DealError(f"a deal needs at least 2 players, got {len(stacks)}")
    if method == "icm" and len(stacks) > MAX_ICM_PLAYERS:
        raise DealError(f"an exact ICM is limited to {MAX_ICM_PLAYERS} players (it grows as 2^players), "
                        f"got {len(stacks)}: use --method chip-chop")
    names = list(names) if names is not None else [f"P{i}" for i in range(1, len(stacks) + 1)]
    if len(names) != len(stacks):
        raise DealError(f"{len(names)} names for {len(stacks)} stacks")
    prizes = list(payouts[: len(stacks)])
    try:
        shares = METHODS[method](list(stacks), prizes, unit)
    except TournamentError as exc:
        raise DealError(str(exc)) from None
    return {"method": method, "prizes": prizes, "left_out": list(payouts[len(stacks):]), "total": sum(prizes),
            "unit": unit,
            "players": [{"name": n, "stack": s, "share": m} for n, s, m in zip(names, stacks, shares)]}


def render_deal(deal: dict[str, Any]) -> str:
    """Return the human-readable text of :func:`compute_deal`'s result."""
    method = {"icm": "ICM (Malmuth-Harville)", "chip-chop": "chip chop"}.get(deal["method"], deal["method"])
    chips = sum(p["stack"] for p in deal["players"])
    lines = [f"deal by {method}: {deal['total']} in prizes ({', '.join(map(str, deal['prizes'])) or 'none'}) "
             f"among {len(deal['players'])} players, {chips} chips"]
    width = max(len(p["name"]) for p in deal["players"])
    lines += [f"  {p['name'].ljust(width)}  stack {p['stack']:>9}  share {p['share']:>9}" for p in deal["players"]]
    if deal.get("left_out"):
        lines.append(f"left out: {', '.join(map(str, deal['left_out']))} (more payouts than players: "
                     "the places already taken)")
    lines.append("nothing is journalled: the players agree the deal and the director pays it")
    return "\n".join(lines)


def parse_ints(text: str, what: str) -> list[int]:
    """Return the integers of a comma-separated list (``52000,31000``).

    Raises:
        DealError: an empty list or an item that is not an integer.
    """
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise DealError(f"--{what}: no values")
    try:
        return [int(t) for t in items]
    except ValueError:
        raise DealError(f"--{what}: integers only, comma separated, got {text!r}") from None


def add_method_options(p: argparse.ArgumentParser, unit: int | None = 1) -> None:
    """Add ``--method`` and ``--unit`` (default ``unit``; None: the tournament's payout unit),
    shared with ``livetable floor deal``."""
    p.add_argument("--method", default="icm", choices=sorted(METHODS),
                   help=f"icm: Malmuth-Harville, exact (at most {MAX_ICM_PLAYERS} players); chip-chop: the last "
                        "place's prize each, the rest by chips (default %(default)s)")
    p.add_argument("--unit", type=int, default=unit, help="shares are multiples of it (money; default "
                   + ("the payouts' unit" if unit is None else str(unit)) + ")")


def main(argv: list[str]) -> int:
    """Run ``livetable deal``; return 0, or 2 on bad input."""
    p = _Parser(prog="livetable deal", description="a deal for the final players: ICM or chip chop")
    p.add_argument("--stacks", required=True, help="each player's chips, comma separated")
    p.add_argument("--payouts", required=True, help="the prizes not yet paid, 1st first, comma separated")
    p.add_argument("--names", default=None, help="the players' names, comma separated (default P1, P2 ...)")
    add_method_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    try:
        args = p.parse_args(argv)
        names = None if args.names is None else [n.strip() for n in args.names.split(",")]
        deal = compute_deal(parse_ints(args.stacks, "stacks"), parse_ints(args.payouts, "payouts"),
                            args.method, args.unit, names)
    except DealError as exc:
        print(f"livetable deal: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:  # --help
        return 0 if not exc.code else 2
    print(json.dumps(deal) if args.json else render_deal(deal))
    return 0
