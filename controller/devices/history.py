"""The history writer: every finished hand as PHH and JSON in the history folder (issue 9)."""

from __future__ import annotations

import logging
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
    renaming it) is removed at start once it is a minute old (no writer takes that long).
    """

    def __init__(self, folder: str | Path | None, keep: int = 20) -> None:
        self.folder = Path(folder) if folder else None
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._tidy(time.time() - 60)
        self.keep = keep
        self.recent: list[dict[str, Any]] = []

    def _tidy(self, before: float) -> None:
        assert self.folder is not None
        for tmp in self.folder.glob("hand-*.tmp"):
            try:
                if tmp.stat().st_mtime < before:
                    tmp.unlink()
            except OSError as exc:  # another process's file, a read-only folder: leave it
                log.warning("could not remove %s: %s", tmp, exc)

    def write(self, hand: int, record: dict[str, Any]) -> None:
        """Record hand ``hand``; a write error is logged, never raised (the hand is in the journal).

        Writing a hand already recorded replaces it (its files too): the uncontested winner
        showed after the hand ended (P-2). Each file is replaced whole or not at all
        (:func:`controller.compaction.write_hand_files`): a power cut never tears one.
        """
        self.recent = ([r for r in self.recent if r.get("hand") != hand] + [record])[-self.keep:]
        if self.folder is None:
            return
        try:
            from controller.compaction import write_hand_files  # the one writer of these files

            write_hand_files(self.folder, hand, record)
        except OSError as exc:
            log.error("could not write hand %s to %s: %s", hand, self.folder, exc)
