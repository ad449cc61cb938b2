"""The history writer: every finished hand as PHH and JSON in the history folder (issue 9)."""

from __future__ import annotations

import json
import logging
import os
import stat
import threading
import time
from pathlib import Path
from typing import Any

__all__ = ["HistoryWriter"]

log = logging.getLogger("livetable.devices.history")


class HistoryWriter:
    """Write every finished hand as PHH (``hand-<n>.phh``) plus its JSON record.

    Args:
        folder: where hand files go (created). ``None``: keep only the last hands in memory.
        keep: how many recent records :attr:`recent` holds (for ``livetable/<table>/history``).

    A temporary file a write left behind (the controller killed between writing and
    renaming it: ``hand-N.json.<pid>-<thread>.tmp``, one per writer at most, the loop's for
    the newest hand, compaction's for an older one) is removed once it is a minute old (no
    writer takes that long), by a thread of its own started at the first hand written: not
    at construction, which is before READY, where reading a folder of 50,000 hands' files
    took 160-330 ms of start-up (issue 21). Such a file is never read as a hand (its name is
    not ``hand-N.json``), so it waits harmlessly until then. :attr:`tidied` is set when the
    thread is done.
    """

    def __init__(self, folder: str | Path | None, keep: int = 20) -> None:
        self.folder = Path(folder) if folder else None
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
        self.keep = keep
        self.recent: list[dict[str, Any]] = []
        self.kept_aside: list[Path] = []  #: another hand's files this writer moved aside (never lost)
        self.tidied = threading.Event()  #: set once the left temporary files were looked for
        self._tidy_started = False

    def _start_tidy(self) -> None:
        """Start the thread that removes temporary files a kill left (once per writer)."""
        if self._tidy_started or self.folder is None:
            return
        self._tidy_started = True
        threading.Thread(target=self._tidy, args=(time.time() - 60,), name="history-tidy", daemon=True).start()

    def _tidy(self, before: float) -> None:
        """Remove ``hand-*.tmp`` files in the folder last changed before ``before`` (epoch
        seconds); errors are logged, never raised (another process's file, a read-only folder)."""
        assert self.folder is not None
        try:
            with os.scandir(self.folder) as names:
                left = [e.path for e in names if e.name.startswith("hand-") and e.name.endswith(".tmp")]
            for tmp in left:
                try:
                    if os.lstat(tmp).st_mtime < before:
                        os.unlink(tmp)
                except OSError as exc:  # another process's file, a read-only folder: leave it
                    log.warning("could not remove %s: %s", tmp, exc)
        except OSError as exc:
            log.warning("could not look for temporary hand files in %s: %s", self.folder, exc)
        finally:
            self.tidied.set()

    def write(self, hand: int, record: dict[str, Any]) -> None:
        """Record hand ``hand``; a write error is logged, never raised (the hand is in the journal).

        Writing a hand already recorded replaces it (its files too): the uncontested winner
        showed after the hand ended (P-2). Each file is replaced whole or not at all
        (:func:`controller.compaction.write_hand_files`): a power cut never tears one.

        Another hand's files under the same number (another table's, or this one's before its
        journal was lost: not the same ``table`` and ``started``) are never written over
        (issue 16 b): they are moved aside first, each linked to a free name
        ``hand-NNNNNN.json.kept-K`` (an exclusive link: nothing there is replaced) and then
        unlinked, and the error is logged (:attr:`kept_aside`).
        """
        self.recent = ([r for r in self.recent if r.get("hand") != hand] + [record])[-self.keep:]
        if self.folder is None:
            return
        self._start_tidy()
        try:
            from controller.compaction import history_files, write_hand_files  # the one writer of these files

            self._keep_another_hands(history_files(self.folder, hand), record)
            write_hand_files(self.folder, hand, record)
        except OSError as exc:
            log.error("could not write hand %s to %s: %s", hand, self.folder, exc)

    def _keep_another_hands(self, files: tuple[Path, Path], record: dict[str, Any]) -> None:
        """Move ``files`` (a hand's JSON and PHH) aside unless they are ``record``'s hand.

        Raises:
            OSError: a file could not be moved aside (then nothing is written over it).
        """
        from controller.compaction import _read_text  # never blocks on a FIFO (issue 16, round 2)

        js, phh = files
        if not os.path.lexists(js) and not os.path.lexists(phh):
            return
        try:
            # A FIFO, device or symlink under a hand's name is never opened for long, never
            # written through: it is moved aside like another hand's file.
            regular = all(not os.path.lexists(f) or stat.S_ISREG(os.lstat(f).st_mode) for f in files)
            old = json.loads(_read_text(js)) if regular else None
            same = (isinstance(old, dict) and old.get("table") == record.get("table")
                    and old.get("started") == record.get("started") and old.get("hand") == record.get("hand"))
        except (OSError, ValueError):
            same = False
        if same:
            return  # this hand again (P-2: the winner showed after it ended; or a restart between)
        for f in (js, phh):
            if not os.path.lexists(f):
                continue
            for n in range(1, 10_000):
                dst = f.with_name(f"{f.name}.kept-{n}")
                try:
                    os.link(f, dst)  # exclusive: fails if dst exists, never replaces a file
                    break
                except FileExistsError:
                    continue
            else:  # pragma: no cover
                raise OSError(f"no free name to keep {f} aside")
            os.unlink(f)
            self.kept_aside.append(dst)
            log.error("%s belonged to another hand %s (not table %r started at %s): kept as %s",
                      f, record.get("hand"), record.get("table"), record.get("started"), dst.name)
