"""The journal's files as a breaker leaves them (issue 16, round 2: breaker's 3, 4, 5, 10, 12).

A FIFO as a hand file or as the mark never blocks the table; ``history --check`` changes
nothing (checksums of the journal, its ``-wal`` and its mark before and after) and names
every ``found-*`` copy; a copy aside that fails (disk full) refuses before any write-capable
open; the floor's ``--by``/``--reason`` are plain text; small wording and numbering faults.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from controller.devices.history import HistoryWriter
from controller.journal import Journal, JournalError, read_mark
from controller.journal_check import JournalRefused, last_hand_file

REPO = Path(__file__).resolve().parents[2]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=60)


def _in_thread(fn, timeout: float = 20.0):
    """Run ``fn()`` in a thread; return its result, or fail when it is still blocked at ``timeout``."""
    out: dict[str, object] = {}

    def run() -> None:
        try:
            out["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            out["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout)
    return t.is_alive(), out


def _unblock(fifo: Path) -> None:
    """Give a reader blocked on ``fifo`` its end of file (so an old build's test ends)."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        pass


def test_a_fifo_as_a_hand_file_is_moved_aside_never_read(tmp_path):
    folder = tmp_path / "hands"
    writer = HistoryWriter(folder)
    fifo = folder / "hand-000011.json"
    os.mkfifo(fifo)
    record = {"hand": 11, "table": "t1", "started": 1.0}
    blocked, out = _in_thread(lambda: writer.write(11, record))
    _unblock(fifo)
    assert not blocked, "the history writer blocked on a FIFO"
    assert "error" not in out
    assert (folder / "hand-000011.json.kept-1").exists() and not (folder / "hand-000011.json").is_fifo()
    assert '"hand": 11' in (folder / "hand-000011.json").read_text() or \
           '"hand":11' in (folder / "hand-000011.json").read_text()


def _journal(tmp_path: Path, events: int = 5) -> Path:
    path = tmp_path / "j" / "journal.sqlite"
    with Journal(path) as j:
        for i in range(events):
            j.append("simulate", {"i": i}, float(i))
    return path


def test_a_fifo_as_the_mark_is_refused_never_opened(tmp_path):
    path = _journal(tmp_path)
    mark = Path(str(path) + ".mark")
    mark.unlink()
    os.mkfifo(mark)
    blocked, out = _in_thread(lambda: Journal(path).check())
    _unblock(mark)
    assert not blocked, "opening the journal blocked on a FIFO mark"
    assert any("FIFO" in p for p in out["value"]), out
    check = _cli("history", "--journal", str(path), "--check")
    assert check.returncode == 3 and "FIFO" in check.stdout, check.stdout + check.stderr
    assert mark.is_fifo()


def _sums(path: Path) -> dict[str, str]:
    return {s: hashlib.sha256(Path(str(path) + s).read_bytes()).hexdigest()
            for s in ("", "-wal", ".mark") if os.path.exists(str(path) + s)}


def _killed_with_a_flipped_wal(tmp_path: Path) -> Path:
    """A journal copied while open (a kill -9: its -wal holds the events) with one bit flipped
    in the -wal's last frame."""
    live = tmp_path / "live" / "journal.sqlite"
    j = Journal(live)
    for i in range(40):
        j.append("simulate", {"i": i}, float(i))
    dead = tmp_path / "dead" / "journal.sqlite"
    dead.parent.mkdir()
    for s in ("", "-wal", ".mark"):
        shutil.copyfile(str(live) + s, str(dead) + s)
    j.close()
    wal = Path(str(dead) + "-wal")
    data = bytearray(wal.read_bytes())
    data[_wal_end(data) - 100] ^= 0x10  # the -wal is written ahead (WAL_PREALLOC): its frames end first
    wal.write_bytes(bytes(data))
    return dead


def _wal_end(data: bytes) -> int:
    """Where the -wal's frames end (SQLite's format: a 32-byte header, then frames of a 24-byte
    header and a page, each carrying the header's salts); what follows is not read by SQLite."""
    page = int.from_bytes(data[8:12], "big")
    salts, end = data[16:24], 32
    while end + 24 + page <= len(data) and data[end + 8:end + 16] == salts:
        end += 24 + page
    return end


def test_check_changes_nothing_and_later_refusals_name_every_copy(tmp_path):
    path = _killed_with_a_flipped_wal(tmp_path)
    before = _sums(path)
    assert set(before) == {"", "-wal", ".mark"}
    check = _cli("history", "--journal", str(path), "--check")
    assert check.returncode == 3, check.stdout + check.stderr
    assert _sums(path) == before, "history --check changed the journal's files"
    with pytest.raises(JournalRefused) as first:  # the table's start: copies aside, then refuses
        from controller.engine.table.settings import TableSettings
        from controller.runtime import open_table

        open_table(path, TableSettings(id="t1", seats=4), clock=lambda: 2e9)
    copies = sorted(p for p in path.parent.iterdir() if ".found-" in p.name)
    assert len(copies) == 1 and str(copies[0]) in str(first.value)
    again = _cli("history", "--journal", str(path), "--check")
    assert again.returncode == 3 and str(copies[0]) in again.stdout


def test_a_copy_aside_that_fails_refuses_before_opening(tmp_path, monkeypatch):
    """Disk full while copying the doubtful -wal aside: exit 3, nothing changed, no partial copy."""
    path = _killed_with_a_flipped_wal(tmp_path)
    before = _sums(path)
    real = shutil.copyfileobj

    def full(src, dst, length=0):
        dst.write(src.read(1000))  # a partial copy, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(shutil, "copyfileobj", full)
    with pytest.raises(JournalRefused) as refused:
        Journal(path)
    monkeypatch.setattr(shutil, "copyfileobj", real)
    text = str(refused.value)
    assert "could not be copied aside" in text and "nothing was changed" in text and "No space left" in text
    assert not [p for p in path.parent.iterdir() if ".found-" in p.name]
    assert _sums(path) == before


@pytest.mark.parametrize("by, reason, what", [
    ("floor:Anna\nfloor: accepted by the room manager", "x", "U+000A"),
    ("floor:\u202eannA", "x", "U+202E"),
    ("floor:Anna", "ok \x1b[2J", "U+001B"),
    ("floor:Anna", "x" * 1001, "at most 1000"),
])
def test_accept_takes_plain_text_only(tmp_path, by, reason, what):
    path = _journal(tmp_path)
    Path(str(path) + ".mark").write_bytes(b"")  # something to accept
    res = _cli("history", "--journal", str(path), "--accept", "--by", by, "--reason", reason)
    assert res.returncode == 2 and what in res.stderr, res.stderr
    with Journal(path) as j:
        assert not list(j.entries(kinds=("journal-accepted",)))


def test_an_empty_mark_is_called_empty_not_damaged(tmp_path):
    path = _journal(tmp_path)
    Path(str(path) + ".mark").write_bytes(b"")
    with pytest.raises(JournalError, match="is empty"):
        read_mark(path)


def test_a_malformed_database_is_refused_with_the_floors_steps(tmp_path):
    path = tmp_path / "journal.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    res = _cli("history", "--journal", str(path), "--check")
    assert res.returncode == 3, res.stdout + res.stderr
    # not the --accept of a journal that lost events, which cannot read it: the damaged file's steps
    assert "is damaged: " in res.stdout and f"mkdir {path}.damaged" in res.stdout and "Traceback" not in res.stderr
    assert "settle the hands the journal lost" not in res.stdout


def test_the_mark_holds_the_hands_started(tmp_path):
    """It said hand 0 after 13 hands (it held the newest snapshot's count; one every 20 hands)."""
    path = tmp_path / "journal.sqlite"
    res = _cli("simulate", "--devices", "none", "--headless", "--quiet", "--seed", "2", "--hands", "3",
               "--journal", str(path))
    assert res.returncode == 0, res.stderr[-2000:]
    assert read_mark(path).hands == 3


def test_hand_file_numbers_come_from_hand_records_only(tmp_path):
    folder = tmp_path / "hands"
    folder.mkdir()
    (folder / "hand-000003.json").write_text('{"hand": 3, "table": "t1"}')
    (folder / "hand-999999999999.json").write_bytes(b"")  # not a hand: never the numbering
    (folder / "hand-000007.json").write_text('{"hand": 7, "table": "t2"}')  # another table's
    os.mkfifo(folder / "hand-000009.json")
    assert last_hand_file(folder, "t1") == 3
    assert last_hand_file(folder) == 7
    (folder / "hand-1000000000000.json").write_text('{"hand": 1000000000000, "table": "t1"}')
    assert last_hand_file(folder, "t1") == 10**12  # 13 digits are seen


def test_sqlite_sees_the_copy_the_check_made_as_a_journal(tmp_path):
    """--check reads a copy: a sound journal is still sound (and its files unchanged)."""
    path = _journal(tmp_path)
    before = _sums(path)
    res = _cli("history", "--journal", str(path), "--check")
    assert res.returncode == 0 and "sound (5 events" in res.stdout, res.stdout + res.stderr
    assert _sums(path) == before
    assert sqlite3.connect(path).execute("SELECT COUNT(*) FROM events").fetchone()[0] == 5


def test_check_runs_on_a_read_only_folder(tmp_path, monkeypatch, capsys):
    """The breaker's 12: --check on a read-only file system ended in exit 2 (it could not
    create its lock file); it reads a copy, so it needs no write there."""
    from controller import history_cli

    path = _journal(tmp_path)
    real = os.open

    def read_only(name, flags, *args):
        if str(name).startswith(str(path)) and flags & (os.O_CREAT | os.O_WRONLY | os.O_RDWR):
            raise OSError(errno.EROFS, "Read-only file system")
        return real(name, flags, *args)

    monkeypatch.setattr(os, "open", read_only)
    assert history_cli.main(["--journal", str(path), "--check"]) == 0
    assert "sound (5 events" in capsys.readouterr().out


def test_simulate_never_blocks_on_a_fifo_journal(tmp_path):
    """Breaker's second pass: ``simulate --journal`` on a FIFO hung in ``open()`` (its seed
    lookup connected before any check that the journal is a regular file)."""
    from controller.simulate import _stored_seed

    fifo = tmp_path / "journal.sqlite"
    os.mkfifo(fifo)
    try:
        blocked, out = _in_thread(lambda: _stored_seed(str(fifo)), timeout=10)
        assert not blocked, "the seed lookup blocked on the FIFO"
        assert out.get("value") is None
    finally:
        _unblock(fifo)


# -- brief L item 2: a FIFO where the lock or the journal should be -----------------------------

def test_a_fifo_as_the_lock_is_named_not_invalid_argument(tmp_path):
    """It said only "Invalid argument" (ftruncate on a FIFO): the table refuses it by name."""
    path = _journal(tmp_path)
    lock = Path(str(path) + ".lock")
    lock.unlink()
    os.mkfifo(lock)
    blocked, out = _in_thread(lambda: Journal(path))
    _unblock(lock)
    assert not blocked, "opening the journal blocked on a FIFO lock"
    assert isinstance(out.get("error"), JournalError), out
    assert str(out["error"]) == f"{lock} is a FIFO (named pipe), not a lock file: remove it"
    check = _cli("history", "--journal", str(path), "--check")
    assert check.returncode == 2 and f"{lock} is a FIFO (named pipe), not a lock file: remove it" in check.stderr, \
        check.stdout + check.stderr
    assert lock.is_fifo()


def test_recall_on_a_fifo_journal_says_it_is_a_fifo(tmp_path):
    """``livetable history`` on a FIFO said "no journal at ..."."""
    fifo = tmp_path / "journal.sqlite"
    os.mkfifo(fifo)
    res = _cli("history", "--journal", str(fifo))
    assert res.returncode == 2, res.stdout + res.stderr
    assert f"{fifo} is a FIFO (named pipe), not a journal file: move it away" in res.stderr
    assert "no journal" not in res.stderr
    accept = _cli("history", "--journal", str(fifo), "--accept", "--by", "floor:Anna")
    assert accept.returncode == 2 and "FIFO" in accept.stderr and "no journal" not in accept.stderr, accept.stderr


def test_check_creates_no_lock_file(tmp_path):
    """``history --check`` made an empty ``journal.sqlite.lock`` beside a journal that had none;
    it still refuses a journal a table holds (its lock)."""
    path = _journal(tmp_path)
    lock = Path(str(path) + ".lock")
    lock.unlink()
    before = sorted(p.name for p in path.parent.iterdir())
    check = _cli("history", "--journal", str(path), "--check")
    assert check.returncode == 0, check.stdout + check.stderr
    assert sorted(p.name for p in path.parent.iterdir()) == before
    with Journal(path):  # a running table: its lock is held
        busy = _cli("history", "--journal", str(path), "--check")
    assert busy.returncode == 2 and "in use by pid" in busy.stderr, busy.stdout + busy.stderr
