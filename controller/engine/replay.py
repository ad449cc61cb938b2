"""``livetable replay FILE...``: replay PHH hand histories through the engine.

Prints one JSON object per file and line: ``{"file": ..., "finishing_stacks": [...],
"error": null}`` (stacks in the file's own units, seat order p1..pN), or
``{"file": ..., "finishing_stacks": null, "error": "S-4: ..."}`` with the rule-id error
that stopped that file. A bad file (broken TOML, unknown variant, impossible cards,
nonsense amounts, a FIFO or a folder named ``.phh``) never stops the others.

A hand whose actions stop before it ends (a showdown where a hand was neither shown nor
mucked, cards still due, a player still to act) has no finishing stacks: its line says
``"error": "incomplete: ..."`` with what is missing and the chips still in the pot, and
``"complete": false``. A table's own hand (it has the ``_`` keys a table writes) is checked
against its replay: the rake taken must be its ``_rake`` (stacks + rake = the chips brought
in) and its ``finishing_stacks`` the replay's, or its line says which disagrees.
A hand the table voided (``_void = true``, written by
``controller.history``) finishes on its starting stacks, every wager returned (P-2: the
actions stop where it was voided), with ``"voided": true``.

Exit code: 0 when every file replayed, 1 when any failed or was incomplete, 2 for a usage
error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .errors import HandError
from .hand import Hand
from .phh import HandHistory, check_table_result, finishing_stacks, load_file, play

__all__ = ["main", "replay_file"]


def replay_file(path: str | Path) -> dict[str, Any]:
    """Return the replay record of one PHH file (see the module docstring).

    Extra keys: ``expected`` (the file's own ``finishing_stacks`` or ``null``),
    ``complete`` (whether the actions finished the hand) and ``voided`` (a voided table
    hand). Never raises for a bad file.
    """
    out: dict[str, Any] = {"file": str(path), "finishing_stacks": None, "error": None}
    try:
        hh = load_file(path)
        hand = play(hh)
        out["complete"] = hand.is_complete
        out["expected"] = hh.finishing_stacks
        if hand.is_complete:
            check_table_result(hand, hh)  # a table's hand: its rake and finishing stacks as replayed
            out["finishing_stacks"] = finishing_stacks(hand, hh)
        elif hh.extra.get("_void") is True:
            check_table_result(hand, hh)
            out["voided"] = True  # every wager returned: the stacks the hand started with
            out["finishing_stacks"] = [hh.unscale(x) for x in hh.starting_stacks]
        else:
            out["error"] = "incomplete: " + incomplete_reason(hand, hh)
    except (HandError, ValueError) as exc:
        out["error"] = str(exc)
    except Exception as exc:  # noqa: BLE001 - one bad file must not stop the others
        out["error"] = f"internal error: {type(exc).__name__}: {exc}"
    return out


def incomplete_reason(hand: Hand, hh: HandHistory) -> str:
    """Return what a hand whose actions stopped early still waits for, and the chips left in
    the pot (in the file's units), e.g. ``"the actions stop at the showdown: p2 has neither
    shown nor mucked (P-2); 200 chips are still in the pot"``."""
    pending = hand.pending_deal()
    if pending is not None:
        what = f"before the {pending.kind} cards are dealt"
    else:
        legal = hand.legal()
        who = f"p{legal.seat}"  # seats 1..N are p1..pN (phh.new_hand)
        if legal.show:
            what = f"at the showdown: {who} has neither shown nor mucked (P-2)"
        elif legal.draw is not None:
            what = f"at the draw: {who} has not drawn"
        else:
            what = f"on the {getattr(legal.street, 'value', legal.street)}: {who} is still to act"
    in_pot = sum(hh.starting_stacks) - sum(hand.stack)
    return f"the actions stop {what}; {hh.unscale(in_pot)} chips are still in the pot"


def _files(args: Iterable[str]) -> Iterable[Path]:
    for a in args:
        p = Path(a)
        if p.is_dir():
            yield from sorted(p.rglob("*.phh"))
        else:
            yield p


def main(argv: list[str]) -> int:
    """Run ``livetable replay``; return 0 if every file replayed, 1 if any failed, 2 on usage error."""
    ap = argparse.ArgumentParser(prog="livetable replay",
                                 description="Replay PHH hand histories through the engine; "
                                             "one JSON line per file (directories are searched for *.phh).")
    ap.add_argument("files", nargs="+", help="PHH files or directories")
    ap.add_argument("--check", action="store_true",
                    help="also report files whose finishing stacks differ from the file's own")
    try:
        ns = ap.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    bad = 0
    for f in _files(ns.files):
        rec = replay_file(f)
        line = {"file": rec["file"], "finishing_stacks": rec["finishing_stacks"], "error": rec["error"]}
        for key in ("complete", "voided"):
            if rec.get(key) is not None and (key == "voided" or rec[key] is False):
                line[key] = rec[key]
        if ns.check and rec["error"] is None and rec.get("expected") is not None:
            line["matches_file"] = rec["expected"] == rec["finishing_stacks"]
        if rec["error"] is not None:
            bad += 1
        print(json.dumps(line), flush=True)
    return 1 if bad else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
