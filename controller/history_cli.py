"""``livetable history``: game recall for the floor, read from the table's journal (issue 9).

    livetable history [--journal FILE] [--hands N] [--hand K] [--json] [--utc] [--config FILE]
    livetable history --journal FILE --check
    livetable history --journal FILE --accept --by NAME [--reason TEXT] [--history-dir DIR]

Prints the last ``N`` finished hands (default 1), oldest first, plus the hand running now
(marked IN PROGRESS, and PAUSED with the open fault when the table is paused), step by
step: hand number, time (UTC), button and blinds, posts, every player's hole cards (mucked
ones marked: this is the floor's tool, P-4), each action with its amount and the stack
after, the board by street, pots and who won what with the hand in words, rake, and every
fault, void and restart during the hand with who decided it. ``--hand K`` shows hand K
only. ``--json`` prints ``{"hands": [...], "faults": [...], "last_seq": n}``.

The journal (default ``$LIVETABLE_JOURNAL``, else ``/var/lib/livetable/journal.sqlite``)
is opened read-only, so this runs beside the table. Exit codes: 0 shown, 2 usage error or
a missing, unreadable or broken journal (a clear message on stderr), 1 when the journal
holds no hand yet.

A journal the table refuses to start on (exit 3 of ``livetable run``: committed events
missing, a snapshot the events do not give; docs/faults.md) is the floor's to decide, with
the table stopped: ``--check`` runs the table's own start-up check and lists what is wrong
(exit 0 sound, 3 refused); ``--accept --by NAME`` takes the journal as it is: snapshots the
events do not give are dropped, a ``journal-accepted`` event records who decided, why and
what was wrong, and the table starts on what the journal holds (exit 0; 2 when it cannot
be accepted, e.g. a file SQLite itself reports damaged: restore it from a backup). A journal
gone with its ``-wal`` and mark beside a history folder of hand files (``--history-dir``) is
refused the same way; ``--accept --history-dir DIR`` creates a new journal that numbers its
hands after the folder's.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from controller.history import HistoryError, format_hand, recall

__all__ = ["main", "DEFAULT_JOURNAL"]

DEFAULT_JOURNAL = "/var/lib/livetable/journal.sqlite"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="livetable history",
                                description="Show the last hands step by step from the table's journal "
                                            "(game recall for the floor).")
    p.add_argument("--journal", default=None,
                   help=f"journal file (default $LIVETABLE_JOURNAL or {DEFAULT_JOURNAL})")
    p.add_argument("--hands", type=int, default=1, help="the last N finished hands (default 1)")
    p.add_argument("--hand", type=int, default=None, help="only hand number K")
    p.add_argument("--json", action="store_true", help="print JSON instead of text (times in Unix seconds)")
    p.add_argument("--utc", action="store_true", help="times in UTC (default: this machine's local time)")
    p.add_argument("--config", default=None,
                   help="the table's config file, needed only for a journal with no snapshot before the "
                        "hands asked for (begun by an older livetable or another tool; docs/history.md)")
    p.add_argument("--check", action="store_true",
                   help="run the table's start-up check of the journal (the table stopped); exit 3 if refused")
    p.add_argument("--accept", action="store_true",
                   help="accept a journal the table refuses, as it is (needs --by; the table stopped)")
    p.add_argument("--history-dir", default=None,
                   help="the table's hand files (journal.history_dir): --check and --accept of a journal "
                        "gone beside them (a new journal numbers its hands after theirs)")
    p.add_argument("--by", default="", help="who accepts the journal (--accept), e.g. floor:Anna")
    p.add_argument("--reason", default="", help="why (--accept), kept in the journal")
    return p


def _check_or_accept(path: str, ns: argparse.Namespace) -> int:
    """Run ``--check`` or ``--accept`` on the journal at ``path`` (the table stopped)."""
    import time

    from controller.journal import Journal, JournalError
    from controller.journal_check import (accept, accept_beside_history, history_hint, history_problems,
                                          last_hand_file)

    gone = history_problems(path, ns.history_dir)
    if gone:  # the journal is gone beside a folder of hand files (issue 16 b)
        if ns.check:
            if ns.json:
                print(json.dumps({"journal": path, "ok": False, "problems": gone, "copy": None}))
            else:
                print(f"journal {path}: the table refuses it:\n" + "\n".join(f"- {p}" for p in gone) + "\n\n"
                      + history_hint(path, ns.history_dir, last_hand_file(ns.history_dir)))
            return 3
        return _accept_and_say(
            path, ns, lambda: accept_beside_history(path, ns.history_dir, by=ns.by, reason=ns.reason, at=time.time()),
            lambda done: (f"journal {path} created and accepted by {ns.by} (event {done['seq']}) beside the hand "
                          f"files of {ns.history_dir}: the table numbers its hands from {done['history_hands'] + 1}"))
    if ns.check:
        return _check(path, ns)
    if not os.path.lexists(path) and not os.path.exists(path + ".mark"):  # a FIFO: Journal names it
        print(f"livetable history: no journal at {path}"
              + ("" if ns.history_dir else " (give --history-dir to check it against the hand files)"),
              file=sys.stderr)
        return 2
    try:
        journal = Journal(path)
    except JournalError as exc:
        print(f"livetable history: {exc}", file=sys.stderr)
        return 2
    try:
        return _accept_and_say(
            path, ns, lambda: accept(journal, by=ns.by, reason=ns.reason, at=time.time(),
                                     history_dir=ns.history_dir),
            lambda done: (f"journal {path} accepted as it is by {ns.by} (event {done['seq']}): "
                          + "; ".join(done["problems"])
                          + (f"; snapshots dropped at events {done['dropped_snapshots']}"
                             if done["dropped_snapshots"] else "")
                          + (f"; events set aside (recovery skips them): {done['set_aside']}"
                             if done["set_aside"] else "")
                          + (f"; hands given up (the journal no longer holds them; settle them from the "
                             f"hand files): {done['hands_given_up']['first']}..{done['hands_given_up']['last']}"
                             if done["hands_given_up"] else "")))
    finally:
        journal.close()


def _check(path: str, ns: argparse.Namespace) -> int:
    """``--check``: run the table's start-up check on a copy of the journal's files, so that
    nothing of the journal, its ``-wal`` or its mark is changed (a write-capable open lets
    SQLite checkpoint the ``-wal`` away: issue 16 round 2, breaker's 4). The copy (files 0640)
    is made in a private temporary folder and removed; the journal's lock, when a table left
    one, is held meanwhile (a running table's journal is refused, exit 2; a FIFO as the lock
    is named, exit 2) and none is created. Return 0 sound, 3 refused, 2 when it cannot be
    checked."""
    import fcntl
    import shutil
    import stat
    import tempfile

    from controller.journal import Journal, JournalDamaged, JournalError, _kind_of, damaged_hint, mark_path
    from controller.journal_check import evidence_note, floor_hint, found_copies, problems, replay_problems

    def say(found: list[str], damaged: bool = False) -> int:
        copies = ", ".join(found_copies(path)) or None
        if ns.json:
            print(json.dumps({"journal": path, "ok": not found, "problems": found, "copy": copies}))
        elif found:  # a damaged file gets its own steps: --accept cannot read it
            print(f"journal {path}: the table refuses it:\n" + "\n".join(f"- {p}" for p in found)
                  + "\n\n" + (evidence_note(copies) if copies else "")
                  + (damaged_hint if damaged else floor_hint)(path, ns.history_dir))
        return 3 if found else 0

    names = (path, path + "-wal", mark_path(path))
    for name in names:
        try:
            mode = os.lstat(name).st_mode
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(mode):
            return say([f"{name} is not a regular file (a FIFO, device, folder or link): the table never "
                        "opens it; move it away"])
    if not any(os.path.exists(n) for n in names):
        print(f"livetable history: no journal at {path}"
              + ("" if ns.history_dir else " (give --history-dir to check it against the hand files)"),
              file=sys.stderr)
        return 2
    # The table's lock, when there is one (a table that ran here left it), is held meanwhile;
    # none is created (the check reads a copy: it changes nothing beside the journal) and it is
    # opened read-only, so a read-only file system is checked too. Without it no table runs
    # on the journal: the journal itself is locked (SQLite's own locks are not flock's).
    try:
        lock = os.open(path + ".lock", os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        lock = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC) if os.path.exists(path) else -1
    except OSError as exc:
        print(f"livetable history: {path}.lock: {exc.strerror or exc}", file=sys.stderr)
        return 2
    if lock >= 0 and not stat.S_ISREG(mode := os.fstat(lock).st_mode):
        os.close(lock)  # a FIFO as the lock: the table refuses to start on it too (Journal._lock)
        print(f"livetable history: {path}.lock is {_kind_of(mode)}, not a lock file: remove it", file=sys.stderr)
        return 2
    tmp = None
    try:
        try:
            if lock >= 0:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = os.pread(lock, 32, 0).decode(errors="replace").strip() or "another process"
            print(f"livetable history: journal {path} is in use by pid {owner}: stop the table first",
                  file=sys.stderr)
            return 2
        try:
            tmp = tempfile.mkdtemp(prefix="livetable-check-")
            copy = os.path.join(tmp, os.path.basename(path))
            for name, dst in zip(names, (copy, copy + "-wal", mark_path(copy))):
                if os.path.exists(name):
                    fd = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o640)
                    with os.fdopen(fd, "wb") as out, open(name, "rb") as src:
                        shutil.copyfileobj(src, out, 1 << 20)
        except OSError as exc:
            print(f"livetable history: the journal could not be copied to check it ({exc.strerror or exc}); "
                  "nothing was changed", file=sys.stderr)
            return 2
        try:
            journal = Journal(copy, copy_aside=False)
        except JournalError as exc:
            if "in use by" in str(exc):  # pragma: no cover - the copy is private
                raise
            # Not a journal SQLite can open (a malformed file): refused, with the floor's steps.
            return say([str(exc).replace(copy, path)], isinstance(exc, JournalDamaged))
        try:
            found = problems(journal) or replay_problems(journal, ns.history_dir)
            last = journal.last_seq
            damaged = journal.file_damaged is not None
        finally:
            journal.close()
        found = [p.replace(copy, path) for p in found]
        if not found and not ns.json:
            print(f"journal {path}: sound ({last} events; the table starts on it)")
            return 0
        return say(found, damaged)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        if lock >= 0:
            os.close(lock)


def _accept_and_say(path: str, ns: argparse.Namespace, do: Callable[[], dict[str, Any]],
                    say: Callable[[dict[str, Any]], str]) -> int:
    """Run the floor's accept ``do()`` and print what it did (``say(done)``, or JSON); return
    0, or 2 when it cannot be accepted (the reason on stderr)."""
    from controller.journal import JournalError

    try:
        done = do()
    except (ValueError, JournalError) as exc:
        print(f"livetable history: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({"journal": path, **done}) if ns.json else say(done))
    return 0


def main(argv: list[str]) -> int:
    """Run ``livetable history``; return 0, 1 (no hand yet) or 2 (usage or journal error);
    with ``--check`` 0 (sound) or 3 (the table refuses the journal)."""
    try:
        ns = _parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if ns.hands < 1:
        print("livetable history: --hands must be at least 1", file=sys.stderr)
        return 2
    if ns.hand is not None and ns.hand < 1:
        print("livetable history: --hand must be at least 1", file=sys.stderr)
        return 2
    path = ns.journal or os.environ.get("LIVETABLE_JOURNAL") or DEFAULT_JOURNAL
    if ns.check and ns.accept:
        print("livetable history: --check or --accept, not both", file=sys.stderr)
        return 2
    if ns.accept and not ns.by.strip():
        print("livetable history: --accept needs --by NAME (who decided it)", file=sys.stderr)
        return 2
    if ns.check or ns.accept:
        return _check_or_accept(path, ns)
    settings = None
    if ns.config:
        try:
            from controller.config import load_config
            from controller.runtime import settings_from_config

            settings = settings_from_config(load_config(ns.config))
        except Exception as exc:  # noqa: BLE001 - any config problem is the user's to fix
            print(f"livetable history: config {ns.config}: {exc}", file=sys.stderr)
            return 2
    try:
        found = recall(path, hands=ns.hands, hand=ns.hand, settings=settings)
    except HistoryError as exc:
        print(f"livetable history: {exc}", file=sys.stderr)
        return 2
    # `livetable history | head`: a reader that goes away ends the command as the livetable
    # command's BrokenPipeError handler says (141, no traceback).
    if ns.json:
        print(json.dumps({"hands": [h.to_json() for h in found.hands], "faults": found.faults,
                          "last_seq": found.last_seq}))
        return 0 if found.hands else 1
    if not found.hands:
        print(f"livetable history: no hand in {path} yet", file=sys.stderr)
        return 1
    print("\n\n".join(format_hand(h, utc=ns.utc) for h in found.hands))
    if found.faults:
        print("\nOpen faults (table paused): " + "; ".join(
            f"{f.get('kind')}: {f.get('message')}" for f in found.faults))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
