"""Breaker J (issue 21 against issue 16's promise): holes found in the journal's write-ahead of
its ``-wal`` (controller/journal.py ``_preallocate_wal``), fixed in the jfix branch (issue 21/16); the tests stay.

Reproduction by hand (root, a 2 MB tmpfs): ``mount -t tmpfs -o size=2m tmpfs /mnt/small`` then
``livetable simulate --devices none --headless --seed 5 --seats 4 --hands 3 --journal
/mnt/small/j.sqlite --history-dir /mnt/small/h``: int logs ``the -wal could not be written ahead
(No space left on device): it grows as it is written`` and then ``could not write hand 1 ..
No space left on device`` for every hand (the zeros filled the disk and stay there: the -wal is
2,052,096 bytes after the clean close, not checkpointed); main writes all three hand files and
closes with no -wal (36 KB journal).
"""

from __future__ import annotations

import errno
import os

from controller.journal import WAL_PREALLOC, Journal


def test_a_write_ahead_the_disk_cannot_hold_gives_its_zeros_back(tmp_path, monkeypatch):
    """A disk with less than WAL_PREALLOC free: the write-ahead fails part way (ENOSPC) and
    is logged as 'it grows as it is written', but the zeros it did write are left in the
    -wal, so the space the table's hand files and checkpoints need is gone (a table on a
    nearly full SD card stops writing hand histories at its first hand; main did not)."""
    free = 256 * 1024  # what the disk still had: the write-ahead gets this far
    real = os.pwrite

    def pwrite(fd: int, data: bytes, offset: int) -> int:
        if offset >= free:  # a full disk: a short write, then ENOSPC
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data[:free - offset], offset)

    monkeypatch.setattr(os, "pwrite", pwrite)
    path = tmp_path / "j.sqlite"
    j = Journal(path)
    try:
        j.append("table", {"kind": "x", "n": 0}, 0.0)
        wal = os.path.getsize(str(path) + "-wal")
        assert wal < WAL_PREALLOC  # the write-ahead did fail
        # What SQLite wrote (a header and a frame or two) and no more: the zeros given back.
        assert wal <= 64 * 1024, f"the failed write-ahead left {wal} bytes of zeros in the -wal"
    finally:
        j.close()


def test_a_burst_of_appends_keeps_the_wal_bounded(tmp_path, monkeypatch):
    """_committed promises: after 2 x CHECKPOINT_EVERY pages with no whole checkpoint the loop
    checkpoints itself, so the -wal cannot grow without end in a burst. It does: the
    checkpointer reports whole checkpoints (frames == copied at its moment), which reset the
    loop's count, but the loop's next commit has always added frames first, so SQLite never
    starts the -wal over. ``livetable simulate --devices none --headless --quiet --seed 7
    --seats 6 --hands 300`` leaves a -wal of 59.8 MB at its largest on int, 4.2 MB on main
    (sampled every 0.1 s: /tmp/brkj/walmax.sh in breaker J's report)."""
    from controller import journal as journal_mod

    frame = 24 + 4096
    monkeypatch.setattr(journal_mod, "CHECKPOINT_EVERY", 10)
    monkeypatch.setattr(journal_mod, "WAL_PREALLOC", 64 * frame)  # the file grows past it only
    path = tmp_path / "j.sqlite"
    j = Journal(path)
    try:
        largest = 0
        for n in range(300):  # back to back, as simulate, a tool or a bench commits
            j.append("table", {"kind": "x", "n": n}, float(n))
            largest = max(largest, os.path.getsize(str(path) + "-wal"))
        # 64 frames without a start-over: three times the loop's own bound of 2 x 10 pages
        assert largest <= 64 * frame + 32, f"the -wal grew to {largest // frame} frames in a burst"
    finally:
        j.close()
