"""The table's journal: an append-only event log on SQLite in WAL mode (issue 9).

Every event the table acts on is appended here and flushed to disk *before* the table acts
on it (``PRAGMA synchronous=FULL`` makes each commit durable in WAL mode). After a crash or
a power cut the controller opens the journal, checks it, loads the newest snapshot and
replays the events after it; recovery is a replay, and so is debugging.

Layout (one SQLite file):

- ``events(seq INTEGER PRIMARY KEY, at REAL, kind TEXT, payload TEXT)``: ``seq`` rises by
  one per event; ``at`` is the event's time (Unix seconds, from the injected clock);
  ``payload`` is JSON. A ``table`` event's payload leaves out its own ``"at"`` when it is the
  row's ``at`` (format 2: some 20 bytes of every event, issue 21) and has short names
  (format 3: ``{"k": "a", "a": "call", "q": 199, "s": 10}`` for ``{"kind": "action-taken",
  "action": "call", "seq": 199, "seat": 10}``, :data:`controller.engine.table.codec.SHORT_KEYS`);
  :meth:`Journal.entries` and :func:`payload_of` put both back, so every reader sees the
  event as it was appended.
- ``snapshots(upto INTEGER PRIMARY KEY, at REAL, state TEXT)``: the whole table state as
  JSON after applying every event with ``seq <= upto`` (written between hands).
- ``meta(key TEXT PRIMARY KEY, value TEXT)``: format version; ``compacted_upto`` (the seq
  the journal was compacted up to, see below); other small facts (:meth:`Journal.meta`).

A torn or partial write can only lose the last, uncommitted event: SQLite's WAL guarantees
a committed transaction is whole. A damaged file is reported by :meth:`Journal.check` and
never silently repaired.

**The mark** (``<path>.mark``, beside the journal): one 64-byte line holding the newest
committed seq and the hands the table had started at its newest snapshot, with a CRC. SQLite
cannot tell a lost or damaged ``-wal`` from a journal that never had those events (it reads
the WAL up to its last valid commit, or not at all), so the mark is the witness kept apart:
a journal that ends before its mark is missing committed events and :meth:`Journal.check`
says so (the table refuses to start, exit 3, docs/faults.md); until the floor accepts it
(:meth:`Journal.accept`), nothing more is written to it. Order and cost: the mark is
rewritten in place *after* each commit is durable, so a power cut between the two writes
leaves the mark behind the journal, never ahead of it (a mark behind is brought up to date
at the next open). Each append rewrites it with one ``pwrite`` and no fsync (a few
microseconds; a kill -9 loses nothing of it: the page cache has it); the mark is fsynced at
each snapshot (once per hand), at compaction and at close, so a power cut can leave it at
most the running hand behind (``bench/bench_journal_mark.py`` measures both).

**Compaction** (:meth:`Journal.compact`, driven by :class:`controller.compaction.JournalKeeper`
between hands): one transaction deletes the snapshots older than a between-hands snapshot
and sets ``compacted_upto`` to it. The journal then starts at event ``compacted_upto + 1``
and its oldest snapshot is the one at ``compacted_upto``: recovery (newest snapshot + the
events after it) and the floor's recall of the hands kept are unchanged; seqs keep rising.
A kill or power cut during compaction leaves the journal as it was before or after it,
never in between. The rows of the events it compacted are invisible from that commit on
(every reader starts after ``compacted_upto``) and are deleted afterwards in bounded
transactions (:meth:`Journal.purge_step`); the pages they free are given back in steps too
(:meth:`Journal.vacuum_step`, SQLite's ``incremental_vacuum``), so the file shrinks
(issue 21: each step holds the table's loop a few ms, ``bench/bench_journal.py``).

**The commit's cost** (issue 21, ``bench/bench_mqtt.py``): each append is one commit and
one ``fdatasync`` of the ``-wal``, and stays so (the event is on disk before the table acts on
it). Around it: the ``-wal`` is written ahead with zeros before the first append
(:data:`WAL_PREALLOC`), so a commit's sync flushes its data and not a file that grew; the
``-wal`` is checkpointed into the file on a thread of its own (:class:`_Checkpointer`), not
inside the commit that crosses SQLite's threshold on the table's loop.

**Size and start-up** (issue 21, ``bench/bench_journal.py``): a table event leaves out the
fields at their default and its own time (format 2) and has short names (format 3), ``meta``
has no rowid (one page less), the table snapshots every ``SNAPSHOT_EVERY`` hands
(:mod:`controller.orchestrator`), and start-up checks only what it replays
(:meth:`Journal.check` with ``full=False``): some 3.6 KB a hand at 10 seats, every seat in
the hand (2.4 KB at 6), and start-up does not read the older hands.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import logging
import os
import re
import shutil
import sqlite3
import stat
import threading
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.engine.table.codec import lengthen, shorten

log = logging.getLogger("livetable.journal")

__all__ = ["Journal", "JournalError", "JournalEntry", "FORMAT_VERSION", "Mark", "read_mark", "mark_path",
           "payload_of", "read_regular", "NotARegularFile", "JournalRefused", "floor_hint", "found_copies",
           "evidence_note", "JournalDamaged", "damaged_hint", "file_damage"]

#: 2: a table event's payload may leave out its ``at`` (the row's). 3: a table event's
#: payload has the codec's short names (``{"k": "a", "s": 10, ...}``, issue 21). An older
#: journal is read as it is (its rows keep their long names) and marked 3 at its first open
#: (a livetable reading only 1 or 2 refuses it then).
FORMAT_VERSION = 3
#: Bytes of the ``-wal`` written (zeros, synced) before a durable journal's first append
#: (issue 21): the commits then write over blocks the file already has, and their syncs flush
#: the data only, not the file system's metadata of a file that grew (appends to a growing
#: ``-wal`` took 5.0 ms at the 99th percentile on this ext4 disk, 0.9 ms written over:
#: bench/bench_journal_wal.py). SQLite never reads past its last valid frame:
#: what follows it (these zeros, the frames of an earlier round) is ignored. Some 750 commits
#: of a page; past it the ``-wal`` grows up to the next checkpoint (:data:`CHECKPOINT_EVERY`)
#: and is written over from its start after that, cut back to this size (SQLite's
#: ``journal_size_limit``).
WAL_PREALLOC = 3 * 1024 * 1024
#: Pages committed between two checkpoints of the ``-wal`` into the journal file (SQLite's
#: own default, so the ``-wal`` holds what it held before), made on the checkpointer's own
#: thread (:class:`_Checkpointer`), never inside a commit of the table's loop. A ``-wal`` of
#: 3/2 x as many frames (a burst of commits the checkpointer never catches whole) is
#: checkpointed by the loop itself between its writes (:meth:`Journal._committed`): at most
#: some 6 MB, SQLite's own ``-wal`` was some 4 MB.
CHECKPOINT_EVERY = 1000
#: The fixed size of the mark file (one line, padded with spaces): rewritten in place. A
#: format-1 mark (64 bytes) is read as it is; the next write makes it 128.
MARK_SIZE = 128
#: ``meta`` key saying the journal keeps a mark: a mark missing beside it is then damage,
#: not a journal from before marks (which gets one at its next open).
_MARK_META = "mark"


class JournalError(OSError):
    """The journal cannot be opened, written or trusted (fault kind ``journal-error``)."""


#: SQLite's primary result codes of a damaged file: SQLITE_CORRUPT ("database disk image is
#: malformed": a truncated file, overwritten pages) and SQLITE_NOTADB ("file is not a database").
DAMAGED_CODES = (11, 26)


class JournalDamaged(JournalError):
    """SQLite cannot read the journal file at ``path``: it is damaged (truncated, pages
    overwritten; ``detail`` is SQLite's words, e.g. ``database disk image is malformed``, or
    with ``sqlite=False`` what its shape says, :func:`file_damage`: cut inside a page).
    Neither the table nor ``livetable history --accept`` can use it: the floor needs a backup
    or a new journal (:func:`damaged_hint`; the runtime refuses it, exit 3)."""

    def __init__(self, path: str | Path, detail: str, *, sqlite: bool = True) -> None:
        self.path, self.detail = str(path), detail
        what = (f"SQLite cannot read it ({detail}; a file truncated or overwritten on the disk?)" if sqlite
                else f"{detail}")
        super().__init__(f"the journal file {path} is damaged: {what}; neither the table nor `livetable history "
                         "--accept` can use it")


#: The first bytes of every SQLite database file (its header, www.sqlite.org/fileformat.html 1.3).
SQLITE_MAGIC = b"SQLite format 3\x00"


def file_damage(path: str | Path, *, wal: bool | None = None) -> str | None:
    """Return why the journal file at ``path`` is damaged by its shape alone, or None.

    Read before SQLite opens it, which would take a file cut to a few bytes for a new, empty
    database and write a new journal over it. Damaged: an empty file; one with no SQLite
    header (shorter than its 100 bytes, or not starting with :data:`SQLITE_MAGIC`); a page
    size that is none; a file that is not a whole number of its pages (cut inside a page:
    SQLite reads the missing end as zeros, a payload cut short, and says nothing); fewer
    pages than its header counts (cut on a page boundary). The last two are judged only
    with no ``-wal`` holding frames (``wal``: None looks at ``path-wal``; True: there is
    one), which may hold those pages whole (a checkpoint that ran out of disk).

    Raises:
        OSError: the file cannot be read (missing, unreadable).
    """
    path = str(path)
    size = os.path.getsize(path)
    if size == 0:
        return "an empty file (truncated?)"
    with open(path, "rb") as f:
        head = f.read(100)
    if len(head) < 100 or not head.startswith(SQLITE_MAGIC):
        return (f"{size} bytes that do not start with SQLite's 100-byte header: a file cut short or "
                "overwritten from its start")
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    if page < 512 or page & (page - 1):
        return f"its header gives no page size ({page}): overwritten from its start"
    if wal is None:
        name = path + "-wal"
        wal = os.path.exists(name) and os.path.getsize(name) > 0
    if wal:
        return None
    if size % page:
        return f"cut short inside a page: {size} bytes, not a whole number of its {page}-byte pages"
    counted, changed, valid_for = (int.from_bytes(head[a:a + 4], "big") for a in (28, 24, 92))
    if counted and changed == valid_for and size // page < counted:  # the header's count is current
        return f"cut short: {size // page} of the {counted} pages its header counts"
    return None


def is_damage(exc: BaseException) -> bool:
    """True when ``exc`` (a ``sqlite3.Error``) says the database file is damaged
    (:data:`DAMAGED_CODES`), not locked, missing or unwritable."""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(code, int) and (code & 0xFF) in DAMAGED_CODES


@dataclass(frozen=True, slots=True)
class Mark:
    """What the mark file says: ``seq``, the newest committed event; ``hands``, how many
    hands the table had started by then (``table.hands``; 0 before any); and, when the
    table that wrote it had replayed or snapshotted its journal (format 2): ``snap``, the
    seq of the newest snapshot, and ``untaken``, how many ``table`` events after ``snap``
    the table refused (the state stayed as it was), up to event ``seq`` or the one before
    it. Recovery refuses a replay that refuses more or fewer events than the table did
    (issue 16: an edited event silently dropped every later one). ``snap`` and ``untaken``
    are None in a format-1 mark (nothing to compare) and are left out of ``==``."""

    seq: int
    hands: int
    snap: int | None = field(default=None, compare=False)
    untaken: int | None = field(default=None, compare=False)

    def encode(self) -> bytes:
        """Return the mark's :data:`MARK_SIZE` bytes: ``livetable-mark 1 seq=N hands=H
        crc=XXXXXXXX``, or ``livetable-mark 2 seq=N hands=H snap=S untaken=U crc=...``."""
        if self.snap is None or self.untaken is None:
            body = f"livetable-mark 1 seq={self.seq} hands={self.hands}"
        else:
            body = f"livetable-mark 2 seq={self.seq} hands={self.hands} snap={self.snap} untaken={self.untaken}"
        line = f"{body} crc={zlib.crc32(body.encode()):08x}"
        return line.ljust(MARK_SIZE - 1).encode() + b"\n"

    @staticmethod
    def decode(data: bytes) -> "Mark":
        """Parse a mark file's bytes (format 1 or 2).

        Raises:
            ValueError: not a mark, or its CRC does not match (a damaged mark).
        """
        m = re.fullmatch(rb"(livetable-mark (?:1 seq=(\d{1,18}) hands=(\d{1,18})|2 seq=(\d{1,18}) hands=(\d{1,18})"
                         rb" snap=(\d{1,18}) untaken=(\d{1,18}))) crc=([0-9a-f]{8}) *\n?", data)
        if m is None or int(m.group(8), 16) != zlib.crc32(m.group(1)):
            raise ValueError(f"not a livetable mark: {data[:MARK_SIZE]!r}")
        if m.group(2) is not None:
            return Mark(int(m.group(2)), int(m.group(3)))
        return Mark(int(m.group(4)), int(m.group(5)), int(m.group(6)), int(m.group(7)))


def _owner_and_group_only(path: str) -> None:
    """Make the journal and its ``-wal``/``-shm`` 0640 whatever the umask: hole cards are in
    them (issue 16, 7). SQLite gives a ``-wal`` it makes later the database's mode. A file
    this process does not own keeps its mode (the installer sets it)."""
    for name in (path, path + "-wal", path + "-shm"):
        try:
            if os.stat(name).st_mode & 0o037:
                os.chmod(name, 0o640)
        except OSError:
            pass


def _fsync_folder(folder: str) -> None:
    """Make the copies in ``folder`` durable (their data and the folder's entries)."""
    for name in os.listdir(folder):
        fd = os.open(os.path.join(folder, name), os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def mark_path(path: str | Path) -> str:
    """Return the mark file of the journal at ``path`` (``<path>.mark``)."""
    return str(path) + ".mark"


def read_mark(path: str | Path) -> Mark | None:
    """Return the mark of the journal at ``path``, or None when there is no mark file.

    Raises:
        JournalError: the mark cannot be read or is damaged (its CRC does not match).
    """
    name = mark_path(path)
    try:
        data = read_regular(name, 4 * MARK_SIZE)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise JournalError(f"the journal's mark {name}: {exc.strerror or exc}") from exc
    if not data:
        raise JournalError(f"the journal's mark {name} is empty (truncated?): it cannot say which events "
                           "were committed")
    try:
        return Mark.decode(data)
    except ValueError:
        raise JournalError(f"the journal's mark {name} is damaged ({data[:MARK_SIZE]!r}): "
                           "it cannot say which events were committed") from None


class NotARegularFile(OSError):
    """A table file (the mark, a hand file) is a FIFO, a device, a folder or a symlink:
    opening or reading it could block for ever (issue 16: a FIFO hung the table)."""


def read_regular(path: str | Path, limit: int) -> bytes:
    """Return up to ``limit`` bytes of the regular file at ``path``, never blocking: the file
    is opened ``O_NONBLOCK | O_NOFOLLOW`` and checked with ``fstat`` before it is read.

    Raises:
        FileNotFoundError: no such file.
        NotARegularFile: ``path`` is a FIFO, device, folder or symlink (its kind named).
        OSError: it cannot be read.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotARegularFile(errno.EINVAL, f"{path} is a symbolic link, not a file") from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotARegularFile(errno.EINVAL, f"{path} is {_kind_of(mode)}, not a file")
        chunks, left = [], limit
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _kind_of(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def payload_of(kind: str, at: float, text: str) -> Any:
    """Return an event row's payload as it was appended: the JSON ``text`` parsed, with a
    ``table`` event's ``"at"`` (left out when it was the row's ``at``) put back.

    Returns whatever the JSON holds (the caller refuses what is not an object).

    Raises:
        ValueError: ``text`` is not JSON.
    """
    data = json.loads(text)
    if kind == "table" and isinstance(data, dict):
        data = lengthen(data)  # format 3's short names (a format 1 or 2 event has none)
        if "at" not in data:
            data["at"] = at
    return data


def _stored(kind: str, payload: dict[str, Any], at: float) -> str:
    """The JSON stored for ``payload``: a ``table`` event without its ``"at"`` when it is ``at``
    (format 2), with the codec's short names (format 3: :func:`controller.engine.table.codec.shorten`)."""
    if kind == "table":
        if "at" in payload and payload["at"] == at and type(payload["at"]) is float:
            payload = {k: v for k, v in payload.items() if k != "at"}
        payload = shorten(payload)
    return json.dumps(payload, separators=(",", ":"), sort_keys=True)


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One journalled event: ``seq`` (1, 2, ...), ``at`` (Unix seconds), ``kind``, ``payload``."""

    seq: int
    at: float
    kind: str
    payload: dict[str, Any]


#: ``meta`` is WITHOUT ROWID (issue 21): its rows live in its key's b-tree, one page of the
#: file less (4 KB: a tournament of 15 hands journals some 270 bytes a hand less); a journal
#: made before keeps its ``meta`` as it is.
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY, at REAL NOT NULL, kind TEXT NOT NULL, payload TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS snapshots (
    upto INTEGER PRIMARY KEY, at REAL NOT NULL, state TEXT NOT NULL);
"""


class Journal:
    """An append-only, crash-safe event journal in one SQLite file.

    Args:
        path: the database file (created with its folder when missing), or ``":memory:"``.
        durable: ``True`` (default) fsyncs every append (``synchronous=FULL``); ``False``
            (``NORMAL``) is for benchmarks only.
        keep_evidence: keep the copy of a doubtful ``-wal`` (:meth:`_keep_evidence`) even when
            this open finds nothing missing: the caller checks more and calls
            :meth:`drop_evidence` once all passes (start-up, :func:`controller.runtime.open_table`).
        copy_aside: False: make no such copy (the file is already a private copy: ``livetable
            history --check``).

    Opening never refuses a journal that is missing events: :attr:`damage` (and
    :meth:`check`) says so, and nothing is written to it until :meth:`accept`.

    Raises:
        JournalError: the file cannot be opened, is not a journal, or has a newer format.
    """

    def __init__(self, path: str | Path, *, durable: bool = True, keep_evidence: bool = False,
                 copy_aside: bool = True) -> None:
        self.path = str(path)
        self._lock_fd: int | None = None
        self._mark_fd: int | None = None
        self._durable = durable
        #: Why committed events may be missing (a mark ahead of the journal, missing or
        #: damaged, a dropped table); None when nothing is. Appends are refused meanwhile.
        self._damage: list[str] = []
        self._hands = 0
        #: The mark's format-2 fields (:class:`Mark`): the newest snapshot's seq and the table
        #: events refused since; None until the table replayed (:meth:`note_recovered`) or
        #: snapshotted its journal (a mark without them is written meanwhile).
        self._snap: int | None = None
        self._untaken = 0
        #: Whether this journal wrote anything (close() then fsyncs the mark; a journal only
        #: read leaves its mark as found: the evidence of a refusal stays for the next start).
        self._wrote = False
        #: The mark as this open found it (None: none, or damaged): what recovery checks its
        #: replay against (:meth:`controller.orchestrator.Orchestrator.recover`).
        self.found_mark: Mark | None = None
        self._checked: tuple[bool, list[str]] | None = None  # check()'s (full, answer) until the next write
        #: Where a copy of the journal's files as they were found was kept (a ``-wal`` the mark
        #: doubts, see :meth:`_keep_evidence`); None when none was needed.
        self.evidence: str | None = None
        #: SQLite's words when :meth:`check` found the file itself damaged (``quick_check``
        #: failed, or a read said ``database disk image is malformed``); None: not found so.
        #: The refusal then tells the floor what to do with a damaged file (:func:`damaged_hint`).
        self.file_damaged: str | None = None
        self._shape_damaged = False  # file_damaged is what the file's shape says, not SQLite's words
        memory = self.path == ":memory:"
        #: Checkpoints the ``-wal`` off the table's loop (None for ``:memory:``).
        self.checkpointer: _Checkpointer | None = None if memory else _Checkpointer(self.path, durable)
        self._asked = 0  # the checkpointer's ``committed`` at the loop's last request or checkpoint
        self._wal_ready = memory or not durable  # _preallocate_wal before the first append
        existed = not memory and os.path.exists(self.path)
        try:
            if not memory:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
                self._lock()
                for name in (self.path, self.path + "-wal", self.path + "-shm"):
                    try:
                        mode = os.lstat(name).st_mode
                    except FileNotFoundError:
                        continue
                    if not stat.S_ISREG(mode):
                        raise JournalError(f"journal {name} is {_kind_of(mode)}, not a file: refusing to "
                                           "open it (it could block for ever); move it away")
                damage = file_damage(self.path) if existed else None
                if damage is not None:  # before SQLite: it would write a new journal over a cut one
                    raise JournalDamaged(self.path, damage, sqlite=False)
                if copy_aside:  # False: the file is already a private copy (history --check)
                    self._keep_evidence()
                wal = self.path + "-wal"
                if not existed and os.path.exists(wal) and os.path.getsize(wal) > 0:
                    # The journal deleted with its -wal left (issue 16 round 2, breaker's 2):
                    # whatever SQLite makes of the -wal, committed events may be gone.
                    self._damage.append(
                        f"the journal file {self.path} is missing but its -wal ({os.path.getsize(wal)} bytes) "
                        "is there: the journal was deleted, with the events it held")
            if not memory and durable:  # a -wal a kill left with its frames is left as it is
                wal = self.path + "-wal"
                self._wal_ready = os.path.exists(wal) and os.path.getsize(wal) > 0
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            # Before the first table: a new journal gives the pages compaction frees back to the
            # file system in steps (vacuum_step); on an older journal it changes nothing.
            self._db.execute("PRAGMA auto_vacuum=INCREMENTAL")
            self._db.execute("PRAGMA journal_mode=WAL")
            if not memory:
                _owner_and_group_only(self.path)
            self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
            if not memory:  # checkpoints run on the checkpointer's thread, never in the loop's commits
                self._db.execute("PRAGMA wal_autocheckpoint=0")
                # A -wal that grew past its write-ahead is cut back to it when SQLite starts it over.
                self._db.execute(f"PRAGMA journal_size_limit={int(WAL_PREALLOC)}")
            names = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if "meta" in names:
                for table in ("events", "snapshots"):
                    if table not in names:
                        # A dropped table would be created again, empty: a fresh-looking table.
                        self._damage.append(f"the journal's {table} table is missing (dropped or "
                                            f"damaged): every {table[:-1]} it held is lost")
            self._db.executescript(_SCHEMA)
            row = self._db.execute("SELECT value FROM meta WHERE key='format'").fetchone()
            if row is None:
                self._db.execute(
                    "INSERT INTO meta(key, value) VALUES('format', ?)", (str(FORMAT_VERSION),)
                )
            elif int(row[0]) > FORMAT_VERSION:
                raise JournalError(
                    f"journal {self.path} has format {row[0]}, this livetable reads "
                    f"{FORMAT_VERSION}: upgrade livetable"
                )
            elif int(row[0]) < FORMAT_VERSION:
                # What is in it reads as it is; what is appended from now on is the current format.
                self._db.execute("UPDATE meta SET value = ? WHERE key = 'format'", (str(FORMAT_VERSION),))
            last = self._db.execute("SELECT MAX(seq) FROM events").fetchone()[0]
            row = self._db.execute("SELECT value FROM meta WHERE key='compacted_upto'").fetchone()
            compacted = int(row[0]) if row is not None else 0
            self._compacted_upto = compacted
            # Compacted right after its last event, the journal may hold no event: seqs go on.
            self._last_seq = max(int(last or 0), compacted)
            if not memory:
                self._open_mark(existed)
                if not self._damage and not keep_evidence:
                    self._drop_evidence()
        except sqlite3.Error as exc:
            self._close_files()
            with contextlib.suppress(AttributeError, sqlite3.Error):  # the -wal and -shm go with it
                self._db.close()
            if is_damage(exc):  # the floor is told what the file is and what to do (damaged_hint)
                raise JournalDamaged(self.path, str(exc)) from exc
            raise JournalError(f"journal {self.path}: {exc}") from exc
        except OSError as exc:
            self._close_files()
            if isinstance(exc, JournalError):
                raise
            raise JournalError(f"journal {self.path}: {exc.strerror or exc}") from exc

    # ------------------------------------------------------------------ the evidence
    def _doubtful_wal(self) -> str | None:
        """Return why the ``-wal`` beside the journal may be damaged (None: it agrees with the
        mark, or there is no ``-wal``), read through a read-only connection: SQLite neither
        checkpoints nor rewrites a ``-wal`` for a reader, so nothing is changed here."""
        wal = self.path + "-wal"
        if not os.path.exists(wal) or os.path.getsize(wal) == 0:
            return None
        try:
            mark = read_mark(self.path)
        except JournalError as exc:
            return str(exc)
        if mark is None:
            return "the journal has no mark"
        try:
            db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=1)
            try:
                last = db.execute("SELECT MAX(seq) FROM events").fetchone()[0]
                row = db.execute("SELECT value FROM meta WHERE key='compacted_upto'").fetchone()
            finally:
                db.close()
            last = max(int(last or 0), int(row[0]) if row else 0)
        except (sqlite3.Error, ValueError) as exc:
            return f"it cannot be read: {exc}"
        if last < mark.seq:
            return f"it ends at event {last}, the mark says {mark.seq}"
        return None

    def _keep_evidence(self) -> None:
        """Before the first write-capable open: when the ``-wal`` disagrees with the mark, copy
        the journal, its ``-wal``, ``-shm`` and mark as they are into a new folder
        ``<journal>.found-<UTC time>`` (0750, files 0640: hole cards) and keep its path in
        :attr:`evidence` (issue 16 a).

        Why: a write-capable open (and the close after a refusal) lets SQLite recover the WAL
        up to its last valid commit, write over what follows and checkpoint it away, so the
        bytes the floor (or a recovery tool) needs would be gone by the time the table
        refuses. The copy is removed again at once when the open finds nothing missing
        (:meth:`_drop_evidence`). Only a doubtful ``-wal`` is copied (after a kill -9 the
        ``-wal`` agrees with the mark and nothing is copied). A copy that cannot be made is
        logged and the open goes on (the refusal still keeps every write away).
        """
        why = self._doubtful_wal()
        if why is None:
            return
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        folder = ""
        try:
            for n in range(100):
                folder = f"{self.path}.found-{stamp}" + (f"-{n}" if n else "")
                try:
                    os.mkdir(folder, 0o750)
                    break
                except FileExistsError:
                    continue
            else:  # pragma: no cover - a hundred copies in one second
                raise OSError(errno.EEXIST, "no free name for the copy")
            for name in (self.path, self.path + "-wal", self.path + "-shm", mark_path(self.path)):
                try:
                    mode = os.lstat(name).st_mode
                except FileNotFoundError:
                    continue
                if not stat.S_ISREG(mode):
                    continue  # a FIFO or device is never opened (the check names it)
                dst = os.path.join(folder, os.path.basename(name))
                # Created 0640 before a byte is written: a partial copy never shows hole cards.
                fd = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o640)
                os.fchmod(fd, 0o640)
                with os.fdopen(fd, "wb") as out, open(name, "rb") as src:
                    shutil.copyfileobj(src, out, 1 << 20)
            _fsync_folder(folder)
        except OSError as exc:
            # Disk full, read-only folder: no write-capable open may follow (it could
            # checkpoint the doubtful -wal away). The partial copy is removed; nothing changed.
            if folder and os.path.isdir(folder):
                shutil.rmtree(folder, ignore_errors=True)
            raise JournalRefused(self.path, [
                f"the -wal disagrees with the mark ({why}) and the journal's files could not be copied aside "
                f"before opening it ({exc.strerror or exc}): nothing was changed; free some space (or copy "
                f"{self.path}, {self.path}-wal and {mark_path(self.path)} elsewhere by hand) and start again"],
                hint=floor_hint(self.path)) from None
        self.evidence = folder
        log.warning("journal %s: the -wal disagrees with the mark (%s): a copy of the journal's files as "
                    "found is in %s", self.path, why, folder)

    def drop_evidence(self) -> None:
        """Remove the copy :meth:`_keep_evidence` made when the journal turned out whole (the
        caller that opened with ``keep_evidence=True`` calls it once its own checks pass)."""
        self._drop_evidence()

    def _drop_evidence(self) -> None:
        """Remove the copy :meth:`_keep_evidence` made when the journal turned out whole."""
        if self.evidence is not None:
            shutil.rmtree(self.evidence, ignore_errors=True)
            self.evidence = None

    # ------------------------------------------------------------------ the mark
    def _newest_snapshot_hands(self) -> tuple[int, int]:
        """Return ``(upto, hands)`` of the newest snapshot ((0, 0) when none or unreadable)."""
        try:
            row = self._db.execute(
                "SELECT upto, json_extract(state, '$.table.hands') FROM snapshots "
                "ORDER BY upto DESC LIMIT 1").fetchone()
        except sqlite3.Error:
            return 0, 0
        if row is None:
            return 0, 0
        try:
            return int(row[0]), int(row[1] or 0)
        except (TypeError, ValueError):
            return int(row[0]), 0

    def _open_mark(self, existed: bool) -> None:
        """Read the mark, compare it with the journal, and keep it open for rewriting."""
        newest_upto, self._hands = self._newest_snapshot_hands()
        flagged = self._db.execute("SELECT 1 FROM meta WHERE key = ?", (_MARK_META,)).fetchone() is not None
        regular = True
        try:
            mark = read_mark(self.path)
        except JournalError as exc:
            self._damage.append(str(exc))
            mark = None
            regular = not isinstance(exc.__cause__, NotARegularFile)
        else:
            self.found_mark = mark
            if mark is not None and mark.seq <= self._last_seq:
                self._hands = max(self._hands, mark.hands)  # the mark holds the real count

            if mark is None and flagged:
                self._damage.append(
                    f"the journal's mark {mark_path(self.path)} is missing: nothing can say whether "
                    "committed events are missing from the journal")
            elif mark is not None and mark.seq > self._last_seq:
                what = (f"the journal file {self.path} is missing" if not existed else
                        f"the journal ends at event {self._last_seq}"
                        + (f" (its newest snapshot after hand {self._hands})" if newest_upto else ""))
                self._damage.append(
                    f"committed events {self._last_seq + 1}..{mark.seq} are missing: {what}, its mark "
                    f"{mark_path(self.path)} says event {mark.seq} was committed (hand {mark.hands} "
                    "had started): the -wal beside the journal was lost or damaged?")
        if not regular:
            return  # never opened for writing (a FIFO, a device): the floor moves it away
        fd = os.open(mark_path(self.path), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o640)
        self._mark_fd = fd
        if self._damage:
            return  # keep the evidence: nothing is written until the floor accepts (accept())
        if newest_upto > self._last_seq:
            self._damage.append(
                f"the newest snapshot is at event {newest_upto} but the journal's events end at "
                f"{self._last_seq}: events before the snapshot are missing")
            return
        if not flagged:
            if mark is None and (self._last_seq or newest_upto):
                log.warning("journal %s had no mark (written by an older livetable): one is kept from "
                            "now on at event %d", self.path, self._last_seq)
            self._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?, '1')", (_MARK_META,))
        if mark is None or (mark.snap is None and (mark.seq != self._last_seq or mark.hands != self._hands)):
            # A mark behind the journal: a power cut between a commit and its mark. A format-2
            # mark is left as found until recovery has checked its replay against it (the next
            # append writes it): a refused start keeps its evidence.
            self._write_mark(sync=True)

    def _write_mark(self, *, sync: bool) -> None:
        """Rewrite the mark in place; fsync it when ``sync`` (and the journal is durable).

        Called only after the commit it records is durable, so it is never ahead of the journal.
        """
        if self._mark_fd is None:
            return
        self._wrote = True
        os.pwrite(self._mark_fd, Mark(self._last_seq, self._hands, self._snap,
                                      self._untaken if self._snap is not None else None).encode(), 0)
        if sync and self._durable:
            os.fdatasync(self._mark_fd)

    def note_step(self, taken: bool, hands: int) -> None:
        """The table stepped its newest ``table`` event: ``taken`` False when it refused it
        (its state stayed as it was); ``hands`` is ``table.hands`` now. Kept for the mark,
        written at the next append (no write here: a kill before it is allowed for)."""
        if not taken:
            self._untaken += 1
        self._hands = hands

    def note_recovered(self, snap: int, untaken: int, hands: int) -> None:
        """Recovery replayed from the snapshot at ``snap`` (0: none) and refused ``untaken``
        table events since; the table has started ``hands`` hands. The next mark says so."""
        self._snap, self._untaken, self._hands = snap, untaken, hands

    def _refuse_writes(self) -> None:
        if self._damage:
            raise JournalError(f"journal {self.path}: not written until the floor accepts it: "
                               + "; ".join(self._damage))

    @property
    def damage(self) -> list[str]:
        """Return why committed events may be missing (empty when the mark agrees): a mark
        ahead of the journal, a missing or damaged mark, a dropped table. Also in :meth:`check`."""
        return list(self._damage)

    def accept(self, *, by: str, reason: str, at: float, note: dict[str, Any] | None = None,
               damage: list[str] | None = None) -> int:
        """Accept the journal as it is (the floor's decision after :attr:`damage`); return
        the seq of the ``journal-accepted`` event recording it.

        The event's payload: ``{"by", "reason", "damage": [...], "mark": seq the mark had
        or None, "last_seq": the journal's newest event before it}``, plus ``note``'s keys;
        ``damage`` adds what the caller found wrong besides :attr:`damage`. Events lost beneath a
        newer snapshot (a dropped events table) are given up the way compaction does: the
        journal starts again at its newest snapshot (``compacted_upto``). The mark is then
        rewritten to the new event and fsynced.

        Raises:
            ValueError: ``by`` is empty (a person decides).
            JournalError: the write failed.
        """
        if not by.strip():
            raise ValueError("accepting a journal needs the name of who decided it")
        try:
            mark: Mark | None = read_mark(self.path) if self.path != ":memory:" else None
        except JournalError as exc:
            if isinstance(exc.__cause__, NotARegularFile):
                raise JournalError(f"{exc}: move it away (nothing was changed)") from None
            mark = None
        newest_upto, self._hands = self._newest_snapshot_hands()
        self._checked = None
        payload = {"by": by, "reason": reason, "damage": list(self._damage) + list(damage or ()),
                   "mark": mark.seq if mark else None, "last_seq": self._last_seq, **(note or {})}
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if newest_upto > self._last_seq:
                    self._db.execute("DELETE FROM events WHERE seq <= ?", (newest_upto,))
                    self._db.execute("DELETE FROM snapshots WHERE upto < ?", (newest_upto,))
                    self._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES('compacted_upto', ?)",
                                     (str(newest_upto),))
                    self._compacted_upto = self._last_seq = newest_upto
                    payload["restarted_at_snapshot"] = newest_upto
                seq = self._last_seq + 1
                self._db.execute("INSERT INTO events(seq, at, kind, payload) VALUES(?, ?, ?, ?)",
                                 (seq, float(at), "journal-accepted",
                                  json.dumps(payload, separators=(",", ":"), sort_keys=True)))
                self._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?, '1')", (_MARK_META,))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise JournalError(f"journal {self.path}: accepting it failed: {exc}") from exc
        self._last_seq = seq
        self._damage = []
        self._snap = None  # the floor took it as it is: the next replay is not compared with the old mark
        self.found_mark = None
        if self._mark_fd is None and self.path != ":memory:":
            self._mark_fd = os.open(mark_path(self.path), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o640)
        self._write_mark(sync=True)
        return seq

    def _lock(self) -> None:
        """Hold ``<path>.lock`` exclusively: one controller per journal (two would fork it).
        A lock path that is no regular file (a FIFO, a folder, a device) is refused, named."""
        name = self.path + ".lock"
        try:  # O_NONBLOCK: a FIFO opens at once and is refused below
            fd = os.open(name, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK, 0o640)
            mode = os.fstat(fd).st_mode
        except IsADirectoryError:
            mode, fd = stat.S_IFDIR, -1
        if not stat.S_ISREG(mode):
            if fd >= 0:
                os.close(fd)
            raise JournalError(f"{name} is {_kind_of(mode)}, not a lock file: remove it")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = os.pread(fd, 32, 0).decode(errors="replace").strip() or "another process"
            os.close(fd)
            raise JournalError(f"journal {self.path} is in use by pid {owner}") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        self._lock_fd = fd

    def _unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing the descriptor releases the lock
            self._lock_fd = None

    def _close_files(self) -> None:
        if self._mark_fd is not None:
            os.close(self._mark_fd)
            self._mark_fd = None
        self._unlock()

    @property
    def last_seq(self) -> int:
        """Return the seq of the newest event (0 for an empty journal)."""
        return self._last_seq

    @property
    def compacted_upto(self) -> int:
        """Return the seq the journal was compacted up to (0: never compacted); the oldest
        event kept is ``compacted_upto + 1`` and a snapshot at ``compacted_upto`` is kept."""
        return self._compacted_upto

    def meta(self, key: str) -> str | None:
        """Return the value stored under ``key`` in the journal's ``meta`` table, or None."""
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        """Store a small fact that must outlive compaction (``format`` and ``compacted_upto``
        are the journal's own).

        Raises:
            ValueError: ``key`` is one of the journal's own keys.
            JournalError: the write failed.
        """
        if key in ("format", "compacted_upto"):
            raise ValueError(f"meta key {key!r} belongs to the journal")
        try:
            self._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (key, value))
        except sqlite3.Error as exc:
            raise JournalError(f"journal {self.path}: meta write failed: {exc}") from exc
        self._checked = None

    def snapshot_index(self, newest: int | None = None) -> list[tuple[int, int, bool]]:
        """Return ``(upto, hands, between_hands)`` of every snapshot, oldest first: ``hands``
        is how many hands the table had started (``table.hands``), ``between_hands`` whether
        no hand was running (read with SQLite's JSON functions, not by parsing each state).
        ``newest=n``: of the ``n`` newest snapshots only (start-up: it does not read the others).

        Raises:
            JournalError: a snapshot is not JSON.
        """
        try:
            rows = self._db.execute(
                "SELECT * FROM (SELECT upto, json_extract(state, '$.table.hands'), json_type(state, '$.table.hand') "
                "FROM snapshots ORDER BY upto DESC LIMIT ?) ORDER BY 1",
                (-1 if newest is None else newest,)).fetchall()
        except sqlite3.Error as exc:
            raise JournalError(f"journal {self.path}: snapshots cannot be read: {exc}") from exc
        return [(int(u), int(h or 0), t in (None, "null")) for u, h, t in rows]

    def newest_snapshot_hands(self) -> int | None:
        """Return how many hands the table had started at the newest snapshot
        (``table.hands``; 0 when it does not say), or None when there is no snapshot."""
        try:
            row = self._db.execute("SELECT json_extract(state, '$.table.hands') FROM snapshots "
                                   "ORDER BY upto DESC LIMIT 1").fetchone()
        except sqlite3.Error:
            return 0  # not JSON: check() reports it
        if row is None:
            return None
        return row[0] if isinstance(row[0], int) else 0

    def snapshot_at(self, upto: int) -> dict[str, Any] | None:
        """Return the snapshot taken at event ``upto`` (parsed), or None when there is none.

        Raises:
            JournalError: the snapshot is not a JSON object.
        """
        row = self._db.execute("SELECT state FROM snapshots WHERE upto = ?", (upto,)).fetchone()
        return None if row is None else self._state(upto, row[0])

    def drop_snapshots(self, uptos: list[int]) -> None:
        """Delete the snapshots taken at the events ``uptos`` (the floor's accept drops those
        that disagree with the events, :func:`controller.journal_check.accept`); the snapshot
        compaction kept at ``compacted_upto`` stays.

        Raises:
            ValueError: ``uptos`` holds ``compacted_upto`` (recovery needs it).
            JournalError: the write failed (nothing was deleted).
        """
        if self._compacted_upto and self._compacted_upto in uptos:
            raise ValueError(f"the snapshot at event {self._compacted_upto} is where the compacted journal starts")
        self._checked = None
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany("DELETE FROM snapshots WHERE upto = ?", [(u,) for u in uptos])
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise JournalError(f"journal {self.path}: snapshots not deleted: {exc}") from exc

    def compact(self, upto: int) -> int:
        """Compact the journal up to event ``upto``: every event with ``seq <= upto`` and every
        snapshot older than ``upto`` leave it; return how many events left it.

        ``upto`` must be the seq of a snapshot taken between hands (it becomes the journal's
        oldest snapshot, where recovery and recall can start). The caller makes sure what is
        deleted is kept elsewhere first (the hands' histories:
        :class:`controller.compaction.JournalKeeper`).

        One durable transaction deletes the older snapshots and sets ``compacted_upto``: from
        its commit on, the events up to ``upto`` are gone for every reader (:meth:`entries`,
        :meth:`check`, recovery and recall start at a snapshot at or after ``upto``), and a kill
        or power cut leaves the journal as it was before it or after it, never in between. Their
        rows are deleted afterwards in bounded transactions by the caller (:meth:`purge_step`,
        the keeper: issue 21, one transaction of 20 hands' rows held the table's loop 53 ms).
        The freed pages are given back to the file system
        afterwards, a step at a time (:meth:`vacuum_step`), in a journal created
        ``auto_vacuum=INCREMENTAL``; an older journal reuses them for new events.

        Raises:
            ValueError: ``upto`` is older than the last compaction, newer than the newest
                event, or no between-hands snapshot was taken there.
            JournalError: the write failed (nothing was deleted).
        """
        if upto <= self._compacted_upto:
            return 0
        self._refuse_writes()
        self._checked = None
        if upto > self._last_seq:
            raise ValueError(f"cannot compact up to event {upto}: the newest is {self._last_seq}")
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute(
                    "SELECT json_type(state, '$.table.hand') FROM snapshots WHERE upto = ?", (upto,)
                ).fetchone()
                if row is None or row[0] not in (None, "null"):
                    raise ValueError(f"cannot compact up to event {upto}: no between-hands snapshot there")
                # rowid range: counted without reading the rows
                left = self._db.execute("SELECT COUNT(*) FROM events WHERE seq > ? AND seq <= ?",
                                        (self._compacted_upto, upto)).fetchone()[0]
                self._db.execute("DELETE FROM snapshots WHERE upto < ?", (upto,))
                self._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES('compacted_upto', ?)",
                                 (str(upto),))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise JournalError(f"journal {self.path}: compaction failed: {exc}") from exc
        self._compacted_upto = upto
        try:
            self._write_mark(sync=True)
        except OSError as exc:
            raise JournalError(f"journal {self.path}: mark write failed: {exc.strerror or exc}") from exc
        return int(left)

    def purge_step(self, rows: int = 256) -> int:
        """Delete up to ``rows`` of the oldest rows of events compaction took out of the journal
        (``seq <= compacted_upto``, :meth:`compact`); return how many were deleted (0: none left).

        One transaction over a range of seqs (the table's primary key: no scan), not synced to
        disk on its own (``synchronous=NORMAL`` for it): its rows are gone for every reader
        already, so a power cut that loses it loses nothing (the next step deletes them again),
        and SQLite's WAL keeps the file whole either way; the table's next durable append syncs
        it with its own. Its time grows with ``rows`` (some 10 µs a row here: see
        ``bench/bench_journal.py``).

        Raises:
            JournalError: the write failed, or the journal is damaged (:attr:`damage`).
        """
        self._refuse_writes()
        try:
            first = self._db.execute("SELECT MIN(seq) FROM events").fetchone()[0]
            if first is None or first > self._compacted_upto:
                return 0
            end = min(self._compacted_upto, int(first) + max(1, int(rows)) - 1)
            with self._unsynced():
                deleted = int(self._db.execute("DELETE FROM events WHERE seq <= ?", (end,)).rowcount)
            self._committed(1 + deleted // 50)
            return deleted
        except sqlite3.Error as exc:
            raise JournalError(f"journal {self.path}: compaction failed: {exc}") from exc

    @contextlib.contextmanager
    def _unsynced(self) -> Iterator[None]:
        """Run the statement inside without syncing its commit (housekeeping that loses
        nothing if a power cut undoes it); the journal's own ``synchronous`` after it."""
        if not self._durable:
            yield
            return
        self._db.execute("PRAGMA synchronous=NORMAL")
        try:
            yield
        finally:
            self._db.execute("PRAGMA synchronous=FULL")

    def _committed(self, pages: int) -> None:
        """Count a commit of about ``pages`` pages; every :data:`CHECKPOINT_EVERY` wake the
        checkpointer (its thread checkpoints; the loop only sets an event).

        Commits back to back (a burst with no pause between them: a tool, a bench, simulate)
        leave the checkpointer no moment where it has every frame: its checkpoint is whole as
        of its start, but the loop has added frames before its next write, so SQLite never
        starts the ``-wal`` over (issue 21/16, breaker J: a 96 MB ``-wal`` in 1,000 hands). The
        loop's bound is therefore on the ``-wal``'s actual frames (:meth:`_Checkpointer.frames`:
        the frames a checkpoint found, plus the pages committed since; none after a whole
        checkpoint nothing was committed during): past 3/2 x :data:`CHECKPOINT_EVERY`, the loop
        checkpoints itself between its writes (only the frames the checkpointer has not
        copied), which is whole (unless a reader holds older frames: then again at the next
        commit), and SQLite starts the ``-wal`` over at the next write (and truncates it back to
        :data:`WAL_PREALLOC`: ``journal_size_limit``)."""
        cp = self.checkpointer
        if cp is None:
            return
        cp.committed += pages
        if 2 * cp.frames() >= 3 * CHECKPOINT_EVERY:
            self._asked = cp.committed
            start = cp.committed
            try:
                _busy, frames, copied = self._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()[0]
            except sqlite3.Error as exc:  # the -wal keeps the events: nothing is lost
                log.warning("journal %s: checkpoint failed: %s", self.path, exc)
                frames = copied = 0  # tried again as many pages later, not at every commit
            cp.found(start, int(frames), int(copied), start)
        elif cp.committed - self._asked >= CHECKPOINT_EVERY:
            self._asked = cp.committed
            cp.request()

    def _preallocate_wal(self) -> None:
        """Write zeros after the ``-wal``'s end out to :data:`WAL_PREALLOC` bytes, synced (once,
        before the first append: a few ms), when there was no ``-wal`` when the journal opened
        (a journal closed cleanly, or new); one a kill left with its frames is left as it is.
        Bytes SQLite wrote are never touched (only what lies past the file's end is written).
        A journal only read (``livetable history``, its checks) is left as found. A failure
        (disk full part way) is logged and the ``-wal`` is cut back to its size before the
        write-ahead (SQLite's own bytes, never touched): the zeros written do not keep the
        disk's last space from the hand files; the ``-wal`` grows as it is written, as before."""
        wal = self.path + "-wal"
        try:
            fd = os.open(wal, os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return  # SQLite makes it at the first write
        ours = -1  # the -wal's size before the write-ahead: SQLite's bytes end there
        try:
            size = ours = os.fstat(fd).st_size
            chunk = bytes(256 * 1024)
            while size < WAL_PREALLOC:
                size += os.pwrite(fd, chunk[:WAL_PREALLOC - size], size)
            os.fdatasync(fd)
        except OSError as exc:
            log.warning("journal %s: the -wal could not be written ahead (%s): it grows as it is written",
                        self.path, exc.strerror or exc)
            if ours >= 0:  # the zeros it did write are given back (a full disk: hand files need them)
                try:
                    os.ftruncate(fd, ours)
                except OSError as again:  # pragma: no cover - a file that cannot shrink
                    log.warning("journal %s: the -wal's write-ahead could not be given back: %s",
                                self.path, again.strerror or again)
        finally:
            os.close(fd)

    def free_pages(self) -> tuple[int, int]:
        """Return ``(free, page_size)``: the file's pages compaction freed and not yet given
        back (:meth:`vacuum_step`), and their size in bytes."""
        free = self._db.execute("PRAGMA freelist_count").fetchone()[0]
        size = self._db.execute("PRAGMA page_size").fetchone()[0]
        return int(free), int(size)

    def vacuum_step(self, pages: int = 128) -> int:
        """Give back up to ``pages`` free pages to the file system (SQLite's
        ``incremental_vacuum``: one transaction, durable like an append); return how many
        free pages are left. The file shrinks when the WAL is next checkpointed.

        Only a journal created with ``auto_vacuum=INCREMENTAL`` (every journal this version
        creates) can shrink: on an older one this returns 0 and does nothing (its freed
        pages are reused by new events; ``VACUUM`` it once with the table closed).

        Why steps in the file and not ``VACUUM INTO`` a new file swapped in: a step's time is
        bounded by ``pages`` (128 pages, 512 KB: some 5-14 ms on a loaded 2-core x86), each
        step is a transaction SQLite keeps whole through a power cut, and nothing is swapped
        under the lock, the mark and the ``-wal``; ``VACUUM INTO`` copies every page kept, in
        one go.

        Raises:
            JournalError: the write failed, or the journal is damaged (:attr:`damage`).
        """
        self._refuse_writes()
        try:
            if self._db.execute("PRAGMA auto_vacuum").fetchone()[0] != 2:
                return 0
            # executescript steps the pragma to its end (a cursor's execute frees one page only).
            with self._unsynced():  # the pages it moves are free ones: a power cut loses nothing
                self._db.executescript(f"PRAGMA incremental_vacuum({max(1, int(pages))})")
            self._committed(max(1, int(pages)))
            return self.free_pages()[0]
        except sqlite3.Error as exc:
            raise JournalError(f"journal {self.path}: vacuum failed: {exc}") from exc

    def append(self, kind: str, payload: dict[str, Any], at: float) -> int:
        """Append one event and make it durable before returning; return its seq.

        Raises:
            JournalError: the write failed (disk full, I/O error): the event is not recorded
                and the table must not act on it; or the journal is missing committed events
                (:attr:`damage`) and the floor has not accepted it.
            TypeError: ``payload`` is not JSON-serialisable.
        """
        text = _stored(kind, payload, float(at))
        self._refuse_writes()
        self._checked = None
        if not self._wal_ready:
            self._wal_ready = True
            self._preallocate_wal()
        seq = self._last_seq + 1
        try:
            self._db.execute(
                "INSERT INTO events(seq, at, kind, payload) VALUES(?, ?, ?, ?)",
                (seq, float(at), kind, text),
            )
        except sqlite3.Error as exc:
            raise JournalError(f"journal {self.path}: append failed: {exc}") from exc
        self._last_seq = seq
        self._committed(1)
        try:
            self._write_mark(sync=False)  # after the commit: never ahead of the journal
        except OSError as exc:
            raise JournalError(f"journal {self.path}: event {seq} is committed but its mark "
                               f"could not be written: {exc.strerror or exc}") from exc
        return seq

    def snapshot(self, state: dict[str, Any], at: float) -> None:
        """Record the whole table state as of the newest event (a recovery starting point);
        the mark is fsynced with it.

        Raises:
            JournalError: the write failed, or the journal is damaged (:attr:`damage`).
        """
        text = json.dumps(state, separators=(",", ":"), sort_keys=True)
        self._refuse_writes()
        self._checked = None
        try:
            self._db.execute(
                "INSERT OR REPLACE INTO snapshots(upto, at, state) VALUES(?, ?, ?)",
                (self._last_seq, float(at), text),
            )
        except sqlite3.Error as exc:
            raise JournalError(f"journal {self.path}: snapshot failed: {exc}") from exc
        self._committed(1 + len(text) // 4096)
        table = state.get("table") if isinstance(state, dict) else None
        if isinstance(table, dict) and isinstance(table.get("hands"), int):
            self._hands = table["hands"]
        self._snap, self._untaken = self._last_seq, 0  # recovery starts here from now on
        try:
            self._write_mark(sync=True)  # once per hand: a power cut loses at most this hand's marks
        except OSError as exc:
            raise JournalError(f"journal {self.path}: mark write failed: {exc.strerror or exc}") from exc

    def latest_snapshot(self) -> tuple[int, dict[str, Any]] | None:
        """Return ``(upto, state)`` of the newest snapshot, or None when there is none.

        Raises:
            JournalError: the snapshot is not a JSON object.
        """
        row = self._db.execute(
            "SELECT upto, state FROM snapshots ORDER BY upto DESC LIMIT 1"
        ).fetchone()
        return None if row is None else (int(row[0]), self._state(int(row[0]), row[1]))

    def _state(self, upto: int, text: str) -> dict[str, Any]:
        try:
            state = json.loads(text)
        except (TypeError, ValueError) as exc:
            raise JournalError(f"journal {self.path}: the snapshot at event {upto} is not JSON: {exc}") from None
        if not isinstance(state, dict):
            raise JournalError(f"journal {self.path}: the snapshot at event {upto} is not a table state")
        return state

    def entries(self, after: int = 0, *, kinds: tuple[str, ...] = ()) -> Iterator[JournalEntry]:
        """Yield the events with ``seq > after`` in order, optionally only some kinds (never
        one compaction took out: ``seq <= compacted_upto``, whose rows may wait for
        :meth:`purge_step`).

        Raises:
            JournalError: a payload is not a JSON object.
        """
        sql = "SELECT seq, at, kind, payload FROM events WHERE seq > ?"
        # rows up to compacted_upto are compacted ones not purged yet (compact): gone
        args: list[Any] = [max(after, self._compacted_upto)]
        if kinds:
            sql += f" AND kind IN ({','.join('?' * len(kinds))})"
            args += list(kinds)
        for seq, at, kind, payload in self._db.execute(sql + " ORDER BY seq", args):
            try:
                data = payload_of(kind, float(at), payload)
            except (TypeError, ValueError):
                data = None
            if not isinstance(data, dict):
                raise JournalError(f"journal {self.path}: event {seq} ({kind}) is not a JSON object")
            yield JournalEntry(int(seq), float(at), str(kind), data)

    def check(self, *, full: bool = True) -> list[str]:
        """Check the file and the event sequence; return the problems found (empty = sound).

        Checks that no committed event is missing (:attr:`damage`: the mark, the tables),
        SQLite's ``quick_check``, that seqs have no gaps (from ``compacted_upto + 1`` on),
        that a compacted journal kept its snapshot at ``compacted_upto``, and that every
        payload and snapshot is a JSON object (in SQL). The answer is kept until this journal
        next writes (start-up asks twice; the lock keeps other controllers from writing
        meanwhile).

        ``full=False`` is the start-up check (issue 21: READY must not grow with the hands
        kept): the same checks, but of the events start-up reads only - those after the
        second newest snapshot, which the snapshot check (:mod:`controller.journal_check`)
        and recovery replay - and ``quick_check`` of the ``meta`` and ``snapshots`` tables
        (the events' pages of the window are read whole, so SQLite reports a damaged one);
        the journal's first and newest events are checked against ``compacted_upto`` and
        the mark whatever the window. Older events are checked by ``full=True`` (``livetable
        history --check``, :func:`controller.journal_check.problems`): at 50,000 hands
        (2.3 M events, 190 MB) the full check takes some 3 s, the start-up check a few ms.
        """
        if self._checked is not None and (self._checked[0] or not full):
            return list(self._checked[1])
        problems: list[str] = list(self._damage)
        base = self._compacted_upto
        try:
            if full:
                res = [r[0] for r in self._db.execute("PRAGMA quick_check")]
            else:
                res = [r[0] for r in self._db.execute("PRAGMA quick_check(meta)")]
            if res != ["ok"]:
                problems += [f"sqlite: {r}" for r in res]
                self.file_damaged = str(res[0])
            if base and self._db.execute("SELECT 1 FROM snapshots WHERE upto = ?", (base,)).fetchone() is None:
                problems.append(f"compacted up to event {base} but the snapshot there is missing")
            since = base if full else self._window_start()
            first = self._db.execute(  # the rowid: no scan; rows up to base are compacted ones (compact)
                "SELECT MIN(seq) FROM events WHERE seq > ?", (base,)).fetchone()[0]
            if first is not None and first != base + 1:
                problems.append(f"event seq {base + 1} missing (next is {first})")
            else:
                count, first, last = self._db.execute(
                    "SELECT COUNT(*), MIN(seq), MAX(seq) FROM events WHERE seq > ?", (since,)).fetchone()
                if count and (first != since + 1 or last - first + 1 != count):
                    expected = since + 1
                    for (seq,) in self._db.execute("SELECT seq FROM events WHERE seq > ? ORDER BY seq", (since,)):
                        if seq != expected:
                            problems.append(f"event seq {expected} missing (next is {seq})")
                            break
                        expected = seq + 1
            for (seq,) in self._db.execute(
                    "SELECT seq FROM events WHERE seq > ? AND (json_valid(payload) = 0 "
                    "OR json_type(payload) != 'object') ORDER BY seq LIMIT 5", (since,)):
                problems.append(f"event {seq}: payload is not a JSON object")
            for (upto,) in self._db.execute(
                    "SELECT upto FROM snapshots WHERE upto >= ? AND (json_valid(state) = 0 "
                    "OR json_type(state) != 'object') ORDER BY upto LIMIT 5", (since,)):
                problems.append(f"the snapshot at event {upto} is not a JSON object")
        except sqlite3.Error as exc:
            problems.append(f"sqlite: {exc}")
            if is_damage(exc):
                self.file_damaged = str(exc)
        if problems and self.file_damaged is None and self.path != ":memory:":
            # A -wal beside it kept file_damage from judging the file's length at the open: the
            # events read wrong, and a file cut inside a page is the why (not a lost -wal).
            with contextlib.suppress(OSError):
                self.file_damaged = file_damage(self.path, wal=False)
                self._shape_damaged = self.file_damaged is not None
        self._checked = (full, list(problems))  # start-up asks twice (journal_check, then recovery)
        return problems

    def damaged(self) -> JournalDamaged | None:
        """The error saying the file is damaged when :meth:`check` found it so
        (:attr:`file_damaged`), to refuse it with :func:`damaged_hint`; None: not found so."""
        if self.file_damaged is None:
            return None
        return JournalDamaged(self.path, self.file_damaged, sqlite=not self._shape_damaged)

    def startup_window(self) -> int:
        """Return the seq after which start-up reads events (:meth:`check` with ``full=False``)."""
        return self._window_start()

    def _window_start(self) -> int:
        """The seq after which start-up reads events: the second newest snapshot's (where the
        snapshot check replays from), else ``compacted_upto``."""
        row = self._db.execute("SELECT upto FROM snapshots ORDER BY upto DESC LIMIT 1 OFFSET 1").fetchone()
        return max(self._compacted_upto, int(row[0])) if row is not None else self._compacted_upto

    def close(self) -> None:
        """Close the file (the WAL is checkpointed by SQLite), fsync the mark, release the lock."""
        if self.checkpointer is not None:
            self.checkpointer.close()  # its connection first: the loop's, the last, checkpoints at close
        try:
            self._db.close()
        except sqlite3.Error:  # pragma: no cover - closing twice or a dead file
            pass
        if not self._damage and self._wrote:
            try:
                self._write_mark(sync=True)
            except OSError as exc:  # pragma: no cover - the next open brings a mark behind up to date
                log.warning("journal %s: mark not written at close: %s", self.path, exc)
        self._close_files()

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Checkpointer:
    """Checkpoint a journal's ``-wal`` into its file on a thread of its own (issue 21: SQLite's
    automatic checkpoint runs inside the commit that crosses its threshold, on the table's loop,
    with two more syncs). Its own connection, ``PRAGMA wal_checkpoint(PASSIVE)``: it never
    waits for the loop's writes nor makes them wait; the loop's next write after a whole
    checkpoint starts the ``-wal`` from its beginning again. Never raises: a failure is logged
    and the next request tries again (the ``-wal`` grows meanwhile; nothing is lost).
    """

    def __init__(self, path: str, durable: bool) -> None:
        self.path, self.durable = path, durable
        self._wake = threading.Event()
        self._stopping = False
        self._thread: threading.Thread | None = None
        #: checkpoints made (whole or not), and those that copied every frame of the ``-wal``
        self.done = self.whole = 0
        self._cond = threading.Condition()
        #: pages the loop committed (its estimate, :meth:`Journal._committed`), added by the loop only
        self.committed = 0
        #: the newest checkpoint's look at the -wal: (``committed`` when it started, frames
        #: the -wal then held past a start-over at the loop's next write; 0: it starts over)
        self._seen = (0, 0)

    def found(self, start: int, frames: int, copied: int, after: int) -> None:
        """Note a checkpoint's answer: begun when the loop had committed ``start`` pages, it
        found ``frames`` frames in the ``-wal`` and copied ``copied``; ``after``: the loop's
        count when it ended. Whole with nothing committed meanwhile: SQLite starts the ``-wal``
        over at the next write (0 frames then). An answer older than the one kept is ignored."""
        with self._cond:
            if start >= self._seen[0]:
                self._seen = (start, 0 if frames == copied and after == start else frames)

    def frames(self) -> int:
        """About how many frames the ``-wal`` holds now (at most: a start-over since the newest
        checkpoint is not seen until the next one): what that checkpoint found, plus the pages
        the loop committed since it began."""
        start, frames = self._seen
        return frames + self.committed - start

    def request(self) -> None:
        """Ask for a checkpoint (from the loop: sets an event, starts the thread once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="journal-checkpoint", daemon=True)
            self._thread.start()
        self._wake.set()

    def _run(self) -> None:
        db: sqlite3.Connection | None = None
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._stopping:
                break
            try:
                if db is None:
                    db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
                    db.execute(f"PRAGMA synchronous={'FULL' if self.durable else 'NORMAL'}")
                    db.execute("PRAGMA wal_autocheckpoint=0")
                for _ in range(4):  # frames the loop committed meanwhile: again, a few times at most
                    start = self.committed
                    _busy, frames, copied = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()[0]
                    self.found(start, int(frames), int(copied), self.committed)
                    if frames == copied:
                        self.whole += 1
                        break
            except sqlite3.Error as exc:
                log.warning("journal %s: checkpoint failed (the -wal keeps the events): %s", self.path, exc)
            with self._cond:
                self.done += 1
                self._cond.notify_all()
        if db is not None:
            db.close()

    def wait_done(self, count: int, timeout: float) -> bool:
        """Wait until ``count`` checkpoints were made (tests); return whether they were."""
        with self._cond:
            return self._cond.wait_for(lambda: self.done >= count, timeout)

    def close(self, timeout: float = 10.0) -> None:
        """Stop the thread (a checkpoint under way finishes first) and close its connection."""
        self._stopping = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)


# ---- the refusal of a journal (exit 3) and the floor's way on: docs/faults.md

def floor_hint(path: str | Path, history_dir: str | Path | None = None) -> str:
    """Return what the floor does about a refused journal at ``path`` (docs/faults.md);
    ``history_dir``: the table's hand files, given to the commands. A file cut short
    (:func:`file_damage`), which ``--accept`` cannot read, gets :func:`damaged_hint` instead."""
    with contextlib.suppress(OSError):
        if os.path.isfile(path) and file_damage(path) is not None:
            return damaged_hint(path, history_dir)
    hd = f" --history-dir {history_dir}" if history_dir else ""
    return (f"The table did not start. The floor: keep the table closed; "
            f"`livetable history --journal {path}{hd} --check` says what is wrong; put back the "
            f"journal's files from a backup if there is one ({path}, {path}-wal, {mark_path(path)}); "
            f"otherwise settle the hands the journal lost from the hand files (journal.history_dir) "
            f"and accept the journal as it is (an event of the wrong shape is then set aside, and "
            f"recovery skips it; the hands it lost are named and given up): `livetable history "
            f"--journal {path}{hd} --accept --by NAME --reason TEXT`, then start the table again "
            f"(docs/faults.md, 'A journal the table refuses').")


def damaged_hint(path: str | Path, history_dir: str | Path | None = None) -> str:
    """Return what the floor does about a journal file SQLite cannot read (:class:`JournalDamaged`;
    docs/faults.md, 'A damaged journal file'): keep the damaged files aside, put back a backup,
    or start a new journal beside the hand files in ``history_dir`` (``livetable history
    --accept``, numbered after their last hand) once the seats are settled from them."""
    path = str(path)
    files = " ".join(n for n in (path, path + "-wal", path + "-shm", mark_path(path)) if os.path.exists(n))
    aside = f"{path}.damaged"
    text = (f"The table did not start. The floor: keep the table closed and keep the damaged files for "
            f"whoever looks into them: move them aside together (`mkdir {aside} && mv {files or path} {aside}/`). "
            f"Then put back the journal's files from a backup if there is one ({path}, {path}-wal, "
            f"{mark_path(path)}) and start the table. ")
    if history_dir:
        return text + (f"Otherwise the finished hands are in the hand files in {history_dir} "
                       f"(hand-NNNNNN.phh; the highest number is the last hand the table finished): settle "
                       f"every seat's chips from the last of them and the players' and dealer's word, start a "
                       f"new journal beside them, numbered after their last hand: `livetable history --journal "
                       f"{path} --history-dir {history_dir} --accept --by NAME --reason TEXT`, then start the "
                       f"table and seat each player with the chips settled (`livetable floor seat SEAT PLAYER "
                       f"AMOUNT --by NAME`) (docs/faults.md, 'A damaged journal file').")
    return text + ("Otherwise settle every seat's chips from the players' and dealer's word (this table keeps "
                   "no hand files), start the table on a new journal (a fresh table) and seat each player with "
                   "the chips settled (`livetable floor seat SEAT PLAYER AMOUNT --by NAME`) (docs/faults.md, "
                   "'A damaged journal file').")


class JournalRefused(JournalError):
    """The journal is missing committed events or its snapshot disagrees with its events:
    the table must not start on it (exit 3). ``problems`` lists what is wrong."""

    def __init__(self, path: str | Path, found: list[str], *, evidence: str | None = None,
                 hint: str | None = None) -> None:
        self.problems = list(found)
        # Every copy an earlier start made is still the floor's to keep (the first holds the
        # files as the damage left them; a later start's open may have checkpointed the -wal).
        copies = found_copies(path)
        if evidence is not None and evidence not in copies:
            copies.append(evidence)
        evidence = ", ".join(copies) or None
        self.evidence = evidence
        super().__init__(f"journal check failed: {path}: " + "; ".join(found[:5])
                         + (f" (and {len(found) - 5} more)" if len(found) > 5 else "")
                         + ". " + (evidence_note(evidence) if evidence else "")
                         + (hint if hint is not None else floor_hint(path)))


def found_copies(path: str | Path) -> list[str]:
    """Return the folders ``<path>.found-*`` beside the journal at ``path`` (copies of its files
    as an earlier start found them, :meth:`Journal._keep_evidence`), oldest first."""
    folder, base = os.path.split(str(path))
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return []
    return sorted(os.path.join(folder, n) for n in names
                  if n.startswith(base + ".found-") and os.path.isdir(os.path.join(folder, n)))


def evidence_note(evidence: str) -> str:
    """The sentence telling the floor where the journal's files were copied as found."""
    return (f"A copy of the journal's files as they were found (journal, -wal, -shm, mark; before "
            f"SQLite could recover or checkpoint the -wal) is in {evidence}: keep it for whoever "
            f"recovers the lost events. ")
