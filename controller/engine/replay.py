"""``livetable replay FILE...``: replay PHH hand histories through the engine.

Prints one JSON object per file and line: ``{"file": ..., "finishing_stacks": [...],
"error": null}`` (stacks in the file's own units, seat order p1..pN), or
``{"file": ..., "finishing_stacks": null, "error": "S-4: ..."}`` with the rule-id error
that stopped that file. A bad file (broken TOML, unknown variant, impossible cards)
never stops the others. Exit code: 0 when every file replayed, 1 when any failed,
2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path

from .errors import HandError
from .phh import finishing_stacks, load_file, play

__all__ = ["main", "replay_file"]


def replay_file(path: str | Path) -> dict:
    """Return the replay record of one PHH file (see the module docstring).

    Extra keys: ``expected`` (the file's own ``finishing_stacks`` or ``null``) and
    ``complete`` (whether the actions finished the hand). Never raises for a bad file.
    """
    out: dict = {"file": str(path), "finishing_stacks": None, "error": None}
    try:
        hh = load_file(path)
        hand = play(hh)
        out["finishing_stacks"] = finishing_stacks(hand, hh)
        out["complete"] = hand.is_complete
        out["expected"] = hh.finishing_stacks
    except (HandError, ValueError) as exc:
        out["error"] = str(exc)
    except Exception as exc:  # noqa: BLE001 - one bad file must not stop the others
        out["error"] = f"internal error: {type(exc).__name__}: {exc}"
    return out


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
        if ns.check and rec["error"] is None and rec.get("expected") is not None:
            line["matches_file"] = rec["expected"] == rec["finishing_stacks"]
        if rec["error"] is not None:
            bad += 1
        print(json.dumps(line), flush=True)
    return 1 if bad else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
