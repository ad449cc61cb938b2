"""Journal compaction between hands: the live journal keeps the last hands only (issue 9).

Without it every event is kept forever and a snapshot is added every hand: at 300 hands a
day the journal gains about 15,000 events and 2 MB of snapshots a day, and start-up
(:meth:`controller.journal.Journal.check` reads every event) slows down with it.

What is kept, and why:

- **recovery** replays from the newest snapshot: compaction never touches it, nor anything
  after it;
- **the floor's recall** (``livetable history``) of the last ``keep_hands`` hands, step by
  step with every fault, void and restart: their events stay, from the between-hands
  snapshot before the oldest of them;
- **older hands** leave the journal only once their hand histories are safely on disk in
  ``journal.history_dir`` (``hand-<n>.json``, the table's full record, and ``hand-<n>.phh``,
  as :class:`controller.devices.HistoryWriter` writes them): each is read back and checked;
  one that is missing or torn (a kill while it was written, a full disk then) is rebuilt by
  replaying the journal, written to a temporary file, fsynced and renamed; then every file
  and the folder are fsynced, and only then are the events deleted. Whole files are checked
  against each other and the chain of stacks without a replay (:meth:`JournalKeeper._doubts`);
  a doubt replays the range and a file the replay does not give is written again.

Safe against a kill or power cut at any moment: the files are whole before the journal
forgets anything (rename is atomic, fsync makes it durable), and the deletion is one SQLite
transaction (:meth:`~controller.journal.Journal.compact`). Doing it again is harmless.

:class:`JournalKeeper` runs as an orchestrator listener after a hand finishes (the snapshot
of that moment is written first), at most ``max_hands_per_run`` hands at a time, so an old
journal is trimmed over the next hands instead of stopping the table.

**In the background** (``background=True``, as ``livetable run`` has it; issue 21: the file
work on the loop held it 0.2-1.1 s): the plan, the history files' checks, rebuilds and
fsyncs run on the keeper's own thread with its own read-only SQLite connection (WAL: the
loop's appends never wait on it); the loop only commits what was prepared at its next event
(:meth:`Journal.compact`: one small transaction that sets ``compacted_upto``), then deletes
the compacted rows a bounded step per event (:meth:`Journal.purge_step`) and gives the
freed pages back a vacuum step per hand. Each step's size adapts to its measured time
(:attr:`JournalKeeper.step_budget`, 10 ms: halved after a slower step, doubled after one
under a quarter of it), and every step's hold of the loop is kept in
:attr:`JournalKeeper.holds`. ``bench/bench_journal.py`` prints the longest.

**The room's acknowledgements** (``acked``, :attr:`controller.roomlink.RoomLink.acked`): with
an outbox to the room, nothing the room has not acknowledged leaves the journal: compaction
ends at a snapshot at or before the room's last acknowledged seq, so every record after the
first unacknowledged one stays (the outbox sends from the journal; a record compacted away
before the room had it would be lost to the room).
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
import tomllib
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from controller.config import DEFAULT_KEEP_HANDS
from controller.engine.table import effects as fx
from controller.engine.table.codec import SHORT_KINDS
from controller.engine.table.codec import from_json as event_from_json
from controller.engine.table.state import TableState
from controller.engine.table.step import step
from controller.journal import Journal, JournalError, read_regular

__all__ = ["JournalKeeper", "Compacted", "Prepared", "JournalReader", "history_files", "write_hand_files",
           "DEFAULT_KEEP_HANDS", "FAILING_AFTER"]

log = logging.getLogger("livetable.compaction")
HAND_FILE_MODE = 0o640  # hand files (hole cards): owner and group only, whatever the umask
#: Bounds of a step's size on the loop: rows of a purge (some 10 us a row here), pages of a
#: vacuum step (4 KB each; 128 took 1-37 ms on a loaded 2-core x86).
STEP_ROWS = (16, 4096)
STEP_PAGES = (8, 1024)
#: Compaction failing on this many hands in a row is shown to the floor (:meth:`JournalKeeper.health`):
#: one failure may be passing (a full disk freed at once); three in a row is the journal growing.
FAILING_AFTER = 3
#: A compaction (or its deletion) still failing after that is logged at most once per this
#: many failed hands or this many seconds (``wall``), whichever comes first, with the count
#: since the line before: a try per hand logged each time was 800 ERROR lines a session.
LOG_EVERY_FAILURES = 50
LOG_EVERY_SECONDS = 30 * 60.0


def history_files(folder: str | Path, hand: int) -> tuple[Path, Path]:
    """Return the ``(json, phh)`` paths of hand ``hand`` in ``folder`` (``hand-000042.json``):
    where :class:`controller.devices.HistoryWriter` writes them and compaction reads them."""
    base = Path(folder) / f"hand-{hand:06d}"
    return base.with_suffix(".json"), base.with_suffix(".phh")


def write_hand_files(folder: str | Path, hand: int, record: dict[str, Any]) -> None:
    """Write hand ``hand``'s JSON record and its PHH file (:func:`history_files`) in ``folder``.

    Each file is written whole or not at all (a temporary file, fsynced, renamed over the
    old one), so a power cut leaves the hand's previous files or the new ones, never a torn
    file for the floor to read. A record the PHH export cannot take is logged and only the
    JSON record is written. Raises ``OSError`` when a file cannot be written.
    """
    js, phh = history_files(folder, hand)
    _atomic_write(js, json.dumps(record, sort_keys=True))
    text = _phh(record)
    if text is not None:
        _atomic_write(phh, text)


@dataclass(frozen=True, slots=True)
class Compacted:
    """One compaction: hands ``first``..``last`` left the journal (``events`` deleted, up to
    event ``upto``); ``rewritten`` lists the hands whose history files had to be rebuilt."""

    upto: int
    first: int
    last: int
    events: int
    rewritten: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Prepared:
    """A compaction made ready off the loop: hands ``first``..``last`` (``base_upto`` to
    ``upto``) have their history files whole and fsynced; only the deletion is left."""

    base_upto: int
    upto: int
    first: int
    last: int
    rewritten: tuple[int, ...]


class _Streak:
    """The failures in a row of one of the keeper's tries (``what``: ``compaction``, or its
    ``deletion`` of the compacted rows): how many, since when (``wall`` seconds), the last
    error, and the count and time of the last line logged. Read and changed under the
    keeper's guard."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.count = 0
        self.since: float | None = None
        self.error = ""
        self.logged_count = 0
        self.logged_at = 0.0


class JournalKeeper:
    """Keep the live journal to its last ``keep_hands`` hands (see the module docstring).

    Attach with ``orch.listeners.append(keeper)``; or call :meth:`run`.

    Args:
        journal: the table's journal (the orchestrator's, on the loop thread).
        keep_hands: hands whose events stay in the journal (>= 1).
        history_dir: where the hand histories are (``journal.history_dir``).
        every: compact once at least this many hands can leave (fewer, larger deletions).
        max_hands_per_run: at most this many hands leave per run (bounds the pause).
        background: prepare each compaction on the keeper's own thread (see the module
            docstring); False: all of it in the listener's call (tests, tools).
        acked: returns the room's last acknowledged seq (the outbox's
            :attr:`~controller.roomlink.RoomLink.acked`); nothing after it is compacted.
            None: no room to wait for.
        clock: seconds (float, monotonic) to time the loop's steps with (tests inject one).
        step_budget: seconds a step on the loop should take at most (the rows of a purge
            and the pages of a vacuum step are sized from the last step's time).
        wall: Unix seconds (the table's clock): when a run of failures began (:meth:`health`).
        failing_after: failed compactions in a row (one try per finished hand) before
            :meth:`health` tells the floor (:data:`FAILING_AFTER`).
        log_every, log_seconds: a failure still going on after ``failing_after`` is logged
            at most once per ``log_every`` failed hands or ``log_seconds`` ``wall`` seconds,
            whichever comes first (:data:`LOG_EVERY_FAILURES`, :data:`LOG_EVERY_SECONDS`).

    A compaction that fails (the history files cannot be written, the journal's older pages
    cannot be read: ``database disk image is malformed``) is logged and tried again at the
    next hand; the table plays on, never paused (it is no device fault). Failing on
    ``failing_after`` hands in a row, it is in the floor's status (:meth:`health`, the
    status's ``journal``) until a try ends without an error (a compaction done, or none due).
    The deletion of the compacted rows (:meth:`purge`) is counted the same way, on its own:
    failing on ``failing_after`` hands in a row (one try per finished hand), it is in the
    same status until a deletion step ends without an error. The log has the first failure,
    the floor's status taking it, then a line per ``log_every`` failures or ``log_seconds``
    at most, and the end (``works again after N failures in a row``).

    Raises:
        ValueError: ``keep_hands``, ``every`` or ``max_hands_per_run`` below 1.
    """

    def __init__(self, journal: Journal, *, keep_hands: int, history_dir: str | Path, every: int = 10,
                 max_hands_per_run: int = 50, background: bool = False,
                 acked: Callable[[], int] | None = None, clock: Callable[[], float] = time.perf_counter,
                 step_budget: float = 0.010, wall: Callable[[], float] = time.time,
                 failing_after: int = FAILING_AFTER, log_every: int = LOG_EVERY_FAILURES,
                 log_seconds: float = LOG_EVERY_SECONDS) -> None:
        if keep_hands < 1 or every < 1 or max_hands_per_run < 1:
            raise ValueError("keep_hands, every and max_hands_per_run must be at least 1")
        self.journal = journal
        self.keep_hands = keep_hands
        self.folder = Path(history_dir)
        self.every = every
        self.max_hands_per_run = max_hands_per_run
        self.background = background
        self.acked = acked
        #: others whose journal events must stay (a tournament's state, issue 19): each returns
        #: the seq of the oldest event it still needs (None: none); compaction ends before it
        self.keep_from: list[Callable[[], int | None]] = []
        self.runs: list[Compacted] = []
        self.clock = clock
        self.step_budget = step_budget
        #: pages given back per vacuum step (:meth:`shrink`), resized after each step to its
        #: time (:data:`STEP_PAGES`); rows deleted per purge step (:meth:`purge`, :data:`STEP_ROWS`)
        self.vacuum_pages = 128
        #: free pages the last vacuum step left (None: not known, read before the next step); a
        #: deletion sets it unknown again. Reading it is a read transaction on the loop, and one
        #: at every finished hand stalled the loop 4-16 ms beside the keeper's thread (issue 21)
        self._free_left: int | None = None
        self.purge_rows = 256
        #: the loop's steps, newest last: ``(kind, units, seconds)``, kind ``compact`` (the
        #: commit, units: events), ``purge`` (rows) or ``vacuum`` (pages)
        self.holds: deque[tuple[str, int, float]] = deque(maxlen=10_000)
        self._purging = True  # compacted rows may be left from a run that stopped (looked at once)
        self._warned = False
        self._guard = threading.Condition()
        self._ready: Prepared | None = None
        self._busy = False
        self._wake = threading.Event()
        self._closing = threading.Event()
        self._thread: threading.Thread | None = None
        #: background preparations finished (whatever they found): tests wait on it
        self.prepared = 0
        self.wall = wall
        self.failing_after = max(1, failing_after)
        self.log_every = max(1, log_every)
        self.log_seconds = log_seconds
        #: compactions failed in a row (0 after one that ended without an error), since when
        #: and the last one's error; the deletions' (:meth:`purge`) apart; read with :meth:`health`
        self._compaction = _Streak("compaction")
        self._deletion = _Streak("compaction's deletion")
        self._failed_total = 0  # every failure so far: run() tells a failed commit from a success
        self._purge_again = False  # a deletion step failed: tried again at the next finished hand
        self._deletion_tried = False  # a failed deletion counted for this hand (one per hand)
        #: the PHH files :meth:`_sound` read in this preparation, by hand (:meth:`_disagreement`)
        self._read_phh: dict[int, dict[str, Any]] = {}

    def __call__(self, orch: Any, effects: list[Any]) -> None:
        finished = orch.state.hand is None and any(isinstance(e, fx.HandFinished) for e in effects)
        if self.background:
            self.step(finished)
        elif finished and self.run() is None:
            self.shrink()

    def step(self, hand_finished: bool) -> None:
        """The loop's part in the background (called after every event): commit what the
        keeper's thread prepared, if anything (one small transaction); else delete a step of
        the compacted rows while any are left (:meth:`purge`); else, after a finished hand,
        give back a vacuum step and wake the thread to prepare the next compaction. Never
        raises (a failure is logged; the next hand tries again)."""
        with self._guard:
            ready, self._ready = self._ready, None
            busy = self._busy
        if ready is not None:
            self.commit(ready)
            return
        if hand_finished:
            self._purging = self._purging or self._purge_again  # a failed deletion: once a hand
        if self._purging:
            self.purge()
            if hand_finished:
                self._deletion_tried = False  # a failure from now on is the next hand's
            if not (hand_finished and self._purge_again):  # failed: the hand's own work goes on
                return
        elif hand_finished:
            self._deletion_tried = False
        if not hand_finished:
            return
        self.shrink()
        if not busy:
            self._start()
            with self._guard:
                self._wake.set()

    @property
    def purging(self) -> bool:
        """True while rows of compacted events may be left to delete (:meth:`purge`)."""
        return self._purging

    @property
    def idle(self) -> bool:
        """True when the keeper's thread prepares nothing and nothing waits for the loop."""
        with self._guard:
            return not self._busy and self._ready is None and not self._wake.is_set()

    def _start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._closing.clear()
            self._thread = threading.Thread(target=self._work, name="journal-keeper", daemon=True)
            self._thread.start()

    def close(self, timeout: float = 10.0) -> None:
        """Stop the keeper's thread (waiting up to ``timeout`` s for a preparation under way:
        what it wrote is whole; nothing was deleted)."""
        self._closing.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _work(self) -> None:
        while True:
            self._wake.wait()
            with self._guard:  # the wake and the busy flag change together (wait_prepared)
                self._wake.clear()
                if self._closing.is_set() or self._ready is not None:
                    self._guard.notify_all()  # the loop has not taken the last one yet
                    if self._closing.is_set():
                        return
                    continue
                self._busy = True
            prepared = None
            try:
                reader = JournalReader(self.journal.path)
                try:
                    prepared = self._prepare(reader)
                finally:
                    reader.close()
            except (OSError, JournalError, ValueError, KeyError, TypeError, sqlite3.Error) as exc:
                self._failed(exc)  # logged there: the first, then a line now and then
            except Exception as exc:  # noqa: BLE001 - the keeper's thread must go on
                self._failed(exc, trace=True)
            else:
                if prepared is None:  # read without an error: nothing due (the commit judges the rest)
                    self._succeeded()
            with self._guard:
                self._ready, self._busy = prepared, False
                self.prepared += 1
                self._guard.notify_all()

    @property
    def failures(self) -> int:
        """Compactions failed in a row (0 after a try that ended without an error)."""
        return self._compaction.count

    @property
    def deletion_failures(self) -> int:
        """Finished hands in a row whose deletion step of the compacted rows failed (:meth:`purge`)."""
        return self._deletion.count

    def _failed(self, exc: BaseException, *, deletion: bool = False, trace: bool = False) -> None:
        """Count a failed compaction (``deletion``: a failed deletion step, :meth:`purge`) on
        any thread, and log it when due: the first of a run (with the traceback when
        ``trace``: an error no one expected), the ``failing_after``-th (now in the floor's
        status), then at most one line per :attr:`log_every` failures or :attr:`log_seconds`
        seconds, with the count since the line before."""
        streak = self._deletion if deletion else self._compaction
        with self._guard:
            now = self.wall()
            if streak.count == 0:
                streak.since = now
            streak.count += 1
            if not deletion:
                self._failed_total += 1
            streak.error = str(exc) or type(exc).__name__
            n, since_line, since = streak.count, streak.count - streak.logged_count, streak.since
            due = (n in (1, self.failing_after) or
                   (n > self.failing_after and (since_line >= self.log_every or
                                                now - streak.logged_at >= self.log_seconds)))
            if due:
                streak.logged_count, streak.logged_at = n, now
        if not due:
            return
        what = streak.what
        if n == self.failing_after:
            log.error("journal %s has failed on %d hands in a row: the floor's status shows it (the table plays "
                      "on; the journal is not trimmed and grows): %s", what, n, exc, exc_info=trace and n == 1)
        elif n == 1:
            log.error("journal %s failed: %s (tried again at each hand; the floor's status shows it after %d in a "
                      "row; logged again at most every %d failures or %d minutes)", what, exc, self.failing_after,
                      self.log_every, self.log_seconds // 60, exc_info=trace)
        else:
            log.error("journal %s still failing: %d hands in a row since %s, %d since the last line: %s", what, n,
                      time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(since or 0)), since_line, exc)

    def _succeeded(self, *, deletion: bool = False) -> None:
        """A try ended without an error (``deletion``: a deletion step): its failures in a
        row are over, logged when there were any (``works again after N failures``)."""
        streak = self._deletion if deletion else self._compaction
        with self._guard:
            failures = streak.count
            if not failures:
                return
            streak.count, streak.since, streak.error, streak.logged_count = 0, None, "", 0
        log.warning("journal %s works again after %d failures in a row", streak.what, failures)

    def health(self) -> dict[str, Any] | None:
        """Return what the floor's status says of the journal (``FloorDesk.status``'s
        ``journal``, docs/mqtt.md): None while compaction and its deletions work, or after
        fewer than :attr:`failing_after` failures in a row; else ``{"compaction": "failing",
        "since": Unix seconds of the first failure of the run, "failures": failed tries in a
        row (one a finished hand), "error": the last one's error (``database disk image is
        malformed``), "message": what it means for the floor and where to read on}``, of the
        compaction's failures, else of its deletions' (:meth:`purge`). Any thread."""
        with self._guard:
            streak = next((k for k in (self._compaction, self._deletion)
                           if k.count >= self.failing_after and k.since is not None), None)
            if streak is None:
                return None
            since, failures, error = streak.since, streak.count, streak.error
        if streak is self._compaction:
            what = (f"journal compaction has failed on the last {failures} hands: {error}. The table plays on and "
                    "records every hand, but its journal is no longer trimmed and grows")
        else:
            what = (f"journal compaction's deletion of the events that left the journal has failed on the last "
                    f"{failures} hands: {error}. The table plays on and records every hand (the hands that left "
                    "are in their hand files), but the journal keeps their rows and grows")
        return {"compaction": "failing", "since": since, "failures": failures, "error": error,
                "message": (f"{what}: once the table is stopped, `livetable history --journal {self.journal.path} "
                            "--check` says what is wrong (docs/faults.md, 'A journal compaction that keeps failing')")}

    def wait_prepared(self, timeout: float) -> bool:
        """Wait until the keeper's thread has nothing under way (:attr:`idle`, or a
        preparation waiting for the loop); return whether it came within ``timeout`` s."""
        with self._guard:
            return self._guard.wait_for(lambda: not self._busy and not self._wake.is_set(), timeout)

    def commit(self, prepared: Prepared) -> Compacted | None:
        """Delete the events ``prepared`` made ready (:meth:`Journal.compact`, on the journal's
        own thread); return what was done, None when it no longer applies (compacted already,
        or the room's acknowledgement went back before it). Never raises."""
        try:
            if prepared.base_upto != self.journal.compacted_upto:
                return None  # compacted meanwhile (a run of the keeper's own on this thread)
            acked = self.limit()
            if acked is not None and prepared.upto > acked:
                log.info("journal compaction to event %d waits: the room (or a tournament's state) "
                         "needs the events after %d", prepared.upto, acked)
                return None
            t0 = self.clock()
            events = self.journal.compact(prepared.upto)  # the rows: a bounded step at a time (purge)
            self.holds.append(("compact", events, self.clock() - t0))
            self._purging, self._free_left = True, None
            if not self.background:
                self._purge_all()
        except (JournalError, ValueError, sqlite3.Error) as exc:
            self._failed(exc)  # logged there: the first, then a line now and then
            return None
        self._succeeded()
        done = Compacted(prepared.upto, prepared.first, prepared.last, events, prepared.rewritten)
        self.runs.append(done)
        log.info("journal compacted: hands %d..%d left it (%d events; histories in %s)%s",
                 done.first, done.last, events, self.folder,
                 f", {len(done.rewritten)} history files rebuilt" if done.rewritten else "")
        return done

    def shrink(self) -> int:
        """Give back one step of the pages compaction freed (:meth:`Journal.vacuum_step`,
        :attr:`vacuum_pages` pages, then resized to the step's time: :meth:`_resized`) and
        return the free pages left; called between hands when there was nothing to compact,
        so a compacted journal shrinks over the next hands, a step at a time. Never raises (a
        failure is logged; the next hand tries again)."""
        if self._free_left == 0:
            return 0  # none left by the last step, none freed since: nothing to read on the loop
        try:
            free, _size = self.journal.free_pages()
            if not free:
                self._free_left = 0
                return 0
            pages, t0 = self.vacuum_pages, self.clock()
            left = self.journal.vacuum_step(pages)
            dt = self.clock() - t0
        except JournalError as exc:
            log.error("journal vacuum skipped: %s", exc)
            return 0
        self._free_left = left
        self.holds.append(("vacuum", min(pages, free), dt))
        self.vacuum_pages = self._resized(pages, dt, STEP_PAGES)
        return left

    def purge(self) -> int:
        """Delete one step of the rows of compacted events (:meth:`Journal.purge_step`,
        :attr:`purge_rows` rows, then resized to the step's time: :meth:`_resized`); return how
        many were deleted (0: none was left, and the next steps stop looking). Never raises: a
        failure stops the steps until the next finished hand, which tries again, and is
        counted (one a hand) as compaction's are (:meth:`health`, the floor's status)."""
        rows, t0 = self.purge_rows, self.clock()
        try:
            done = self.journal.purge_step(rows)
        except (JournalError, sqlite3.Error) as exc:
            self._purging, self._purge_again = False, True
            if not self._deletion_tried:  # a run of compaction's own may purge twice a hand
                self._deletion_tried = True
                self._failed(exc, deletion=True)
            return 0
        self._purge_again = False
        self._succeeded(deletion=True)
        dt = self.clock() - t0
        if done:
            self._free_left = None  # the rows' pages are free now: the next vacuum step looks
            self.holds.append(("purge", done, dt))
            self.purge_rows = self._resized(rows, dt, STEP_ROWS)
        if done < rows:
            self._purging = False
        return done

    def _purge_all(self) -> None:
        """Delete every row of compacted events left, a bounded transaction at a time."""
        while self._purging and self.purge():
            pass

    def _resized(self, size: int, seconds: float, bounds: tuple[int, int]) -> int:
        """The next step's size after a step of ``size`` took ``seconds``: halved when it took
        longer than :attr:`step_budget`, doubled when it took under a quarter of it, within
        ``bounds`` (the machine's load changes: the size follows it, a step at a time)."""
        if seconds > self.step_budget:
            size //= 2
        elif seconds < self.step_budget / 4:
            size *= 2
        return max(bounds[0], min(bounds[1], size))

    def run(self) -> Compacted | None:
        """Compact if enough hands are beyond the last ``keep_hands``; return what was done.

        Never raises: a problem (a history file that cannot be written, a journal error, a
        hand with no record) is logged and the journal kept as it is; the next hand tries
        again. Nothing is deleted whose history is not safely on disk.
        """
        failed = self._failed_total
        self._deletion_tried = False  # one try a finished hand: a failed deletion is counted once
        self._purging = self._purging or self._purge_again
        try:
            done = self._run()
        except (OSError, JournalError, ValueError, KeyError, TypeError, sqlite3.Error) as exc:
            self._failed(exc)  # logged there: the first, then a line now and then
        except Exception as exc:  # noqa: BLE001 - a replay bug must not reach the table's loop
            self._failed(exc, trace=True)
        else:
            if self._failed_total == failed:  # no failed commit within: a try without an error
                self._succeeded()
            return done
        return None

    def plan(self, journal: Journal | None = None) -> tuple[tuple[int, int], tuple[int, int]] | None:
        """Return ``((base_upto, base_hands), (target_upto, target_hands))``: compact from
        the journal's oldest snapshot to the target snapshot (never past the room's last
        acknowledged seq, :attr:`acked`); None when not due. ``journal``: read this one
        (the keeper's thread's :class:`JournalReader`) instead of :attr:`journal`."""
        journal = journal or self.journal
        index = journal.snapshot_index()
        base_upto = journal.compacted_upto
        base = next(((u, h) for u, h, between in index if u == base_upto and between), None)
        if base is None:
            if index and not self._warned:
                self._warned = True
                log.warning("journal compaction: no between-hands snapshot at event %d to start from: "
                            "the journal is kept whole", base_upto)
            return None
        newest = max((h for u, h, between in index if between), default=0)
        limit = min(newest - self.keep_hands, base[1] + self.max_hands_per_run)
        # Where compaction may end: a between-hands snapshot after the base; with a room, at
        # or before its last acknowledged seq (everything after the first record it has not
        # acknowledged stays).
        acked = self.limit()
        ends = [(u, h) for u, h, between in index
                if between and u > base_upto and (acked is None or u <= acked)]
        target = None
        for u, h in ends:
            if h <= limit:
                target = (u, h)
        if target is None:  # snapshots farther apart than max_hands_per_run: up to the next one
            target = next(((u, h) for u, h in ends if h <= newest - self.keep_hands), None)
        if target is None or target[1] - base[1] < self.every:
            return None
        return base, target

    def limit(self) -> int | None:
        """Return the newest seq compaction may end at: the room's last acknowledgement
        (:attr:`acked`) and the event before the oldest one a :attr:`keep_from` still needs,
        whichever is older; None: no limit."""
        limits = [self.acked()] if self.acked is not None else []
        for keep in self.keep_from:
            need = keep()
            if need is not None:
                limits.append(need - 1)
        return min(limits, default=None)

    def _run(self) -> Compacted | None:
        self._purge_all()  # rows a run that stopped left (a kill between its commit and its purge)
        prepared = self._prepare(self.journal)
        return None if prepared is None else self.commit(prepared)

    def _prepare(self, journal: Journal) -> Prepared | None:
        """Plan, then make every hand that will leave the journal safe in its history files
        (checked, rebuilt where missing or torn, fsynced): all but the deletion. Reads
        ``journal`` only (the journal, or the keeper's thread's reader)."""
        planned = self.plan(journal)
        if planned is None:
            return None
        (base_upto, base_hands), (upto, hands) = planned
        numbers = range(base_hands + 1, hands + 1)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._read_phh.clear()
        rewrite = [n for n in numbers if not self._sound(n)]
        # The last hand's winner may show after the snapshot that ends the range (P-2): look
        # as far as the next hand's start, where the offer ends.
        end = self._offer_end(upto, journal)
        # Sound files are trusted only when they agree with each other, with the chips of the
        # hands around them and with the table's snapshots (no replay: :meth:`_doubts`); a
        # doubt replays the range, and a file the replay does not give is written again.
        if rewrite or self._shown_after(base_upto, end, journal) or self._doubts(numbers, base_upto, upto, journal):
            # Replay: rebuild what is missing, and, where a winner showed after the hand
            # (P-2: the hand's record was written again), what a failed rewrite left behind.
            records = self._records(base_upto, end, journal)
            lost = [n for n in rewrite if n not in records]
            if lost:
                log.error("journal compaction: hands %s have no record in the journal: kept", lost[:5])
                return None
            ends = self._table_ends(base_upto, end, journal)
            differ = [n for n in numbers if n not in rewrite and n in records and not self._current(n, records[n])]
            # each hand judged once (a file read, a warning logged): the table's own file, kept
            kept = {n: self._file(n) for n in rewrite + differ if self._kept(n, records[n], ends)}
            rewrite += [n for n in differ if n not in kept]
            for n in rewrite:
                self._write(n, kept.get(n, records[n]))
        for n in numbers:
            for path in history_files(self.folder, n):
                if path.exists():
                    _fsync(path)
        _fsync(self.folder)
        return Prepared(base_upto, upto, base_hands + 1, hands, tuple(rewrite))

    def _sound(self, hand: int) -> bool:
        """True when hand ``hand``'s JSON record is whole and its PHH file reads as TOML."""
        js, phh = history_files(self.folder, hand)
        try:
            record = json.loads(_read_text(js))
        except (OSError, ValueError, UnicodeDecodeError):
            return False
        if not isinstance(record, dict) or record.get("hand") != hand:
            return False
        try:
            self._read_phh[hand] = tomllib.loads(_read_text(phh))  # read once: :meth:`_disagreement`
            return True
        except FileNotFoundError:
            return _phh(record) is None  # a hand the PHH writer cannot express: JSON only
        except (OSError, ValueError, UnicodeDecodeError):
            return False

    def _doubts(self, numbers: range, base_upto: int, upto: int, journal: Journal) -> list[str]:
        """Why the sound history files of hands ``numbers`` (events ``base_upto+1..upto``)
        cannot be trusted without the journal's replay, one line each (empty: they can); each
        is logged as a warning. Cheap: the files :meth:`_sound` read, the range's table
        events picked in SQL and its between-hands snapshots, no replay (on the 2-core
        development machine 0.2-0.3 ms a hand against the replay's 2.1-3.6 ms).

        - each hand's JSON record pays out what it took in (R-1: the seats' starts = their
          ends + the rake; ``result.stacks`` are the seats' ends) and agrees with its PHH
          file (:func:`_disagreement`: stacks, rake, actions, players);
        - the chain of stacks (T-2, T-3, T-7, T-8): a seat held by the same player starts a
          hand, and is in a between-hands snapshot (the range's first, its last and any
          between), with the chips it last had, more only after a top-up or a confirmed
          buy-in, never fewer: chips leave with the player (a stand-up, a seat taken again, a
          buy-in, a tournament's chip race start the seat's chain again; :func:`_chain`).
        """
        records: dict[int, dict[str, Any]] = {}
        out: list[str] = []
        for n in numbers:
            mine = self._file(n)
            records[n] = mine
            why = _unbalanced(mine) or self._disagreement(n, mine)
            if why:
                out.append(f"hand {n}: {why}")
        if not out:
            out = _chain(records, base_upto, upto, journal)
        for why in out[:5]:
            log.warning("journal compaction: %s: the hands %d..%d are replayed from the journal and a "
                        "file the replay does not give is written again", why, numbers[0], numbers[-1])
        return out

    def _disagreement(self, hand: int, record: dict[str, Any]) -> str | None:
        """Why hand ``hand``'s PHH file and its JSON ``record`` do not tell the same hand, or
        None: by the PHH's ``seats`` (p1..pN: table seats), its ``starting_stacks``,
        ``finishing_stacks`` (a voided hand's may be left out), ``_rake``, ``_rake_paid``
        and ``_player_ids`` are the JSON's seats' ``start``/``end``, ``result.rake``, the
        rake each seat paid (:func:`controller.engine.rake.rake_paid`) and players, and its
        ``actions`` are the JSON's hand events as the PHH writes them (:func:`_phh_actions`:
        every card, bet and fold). Nothing is replayed: a TOML read and list compares. None
        for a hand with no PHH file that the PHH writer cannot express (JSON only)."""
        _, phh = history_files(self.folder, hand)
        try:
            theirs = self._read_phh.pop(hand, None) or tomllib.loads(_read_text(phh))
        except FileNotFoundError:
            return None if _phh(record) is None else "no PHH file"
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            return f"its PHH file cannot be read: {exc}"
        from controller.engine.rake import rake_paid

        try:
            by_seat = {int(s["seat"]): s for s in record["seats"]}
            seats = [int(x) for x in theirs["seats"]]
            paid = rake_paid(record)
            res = record.get("result") or {}
            mine: dict[str, Any] = {
                "starting_stacks": [by_seat[x]["start"] for x in seats],
                "finishing_stacks": [by_seat[x]["end"] for x in seats],
                "_rake": int(res.get("rake") or 0),
                "_rake_paid": [paid.get(x, 0) for x in seats],
                "_player_ids": [str(by_seat[x].get("player") or "") for x in seats],
                "actions": _phh_actions(record["hand_record"]["events"], {x: k + 1 for k, x in enumerate(seats)}),
            }
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            return f"its PHH file's seats are not the JSON record's ({type(exc).__name__}: {exc})"
        if "finishing_stacks" not in theirs and (record.get("voided") or res.get("voided")):
            del mine["finishing_stacks"]  # a voided hand's PHH stops where it was voided
        for key, value in mine.items():
            if theirs.get(key) != value:
                return f"the PHH file's {key} {theirs.get(key)} are not the JSON record's {value}"
        return None

    def _current(self, hand: int, record: dict[str, Any]) -> bool:
        """True when hand ``hand``'s files hold ``record``: its JSON, and its PHH text (a kill
        between the two renames leaves a new JSON beside an old PHH file)."""
        js, phh = history_files(self.folder, hand)
        try:
            if json.loads(_read_text(js)) != json.loads(json.dumps(record, sort_keys=True)):
                return False
            text = _phh(record)
            return (not phh.exists()) if text is None else _read_text(phh) == text
        except (OSError, ValueError, UnicodeDecodeError):
            return False

    def _file(self, hand: int) -> dict[str, Any]:
        """Hand ``hand``'s JSON file as a whole record of it, or ``{}`` (missing, torn, not
        JSON, another hand's)."""
        js, _ = history_files(self.folder, hand)
        try:
            mine = json.loads(_read_text(js))
        except (OSError, ValueError, UnicodeDecodeError):
            return {}
        return mine if isinstance(mine, dict) and mine.get("hand") == hand else {}

    def _kept(self, hand: int, replayed: dict[str, Any], ends: dict[int, dict[int, int]]) -> bool:
        """True when hand ``hand``'s JSON file, not ``replayed`` (the journal's replay), is
        what the table did, and is kept as it is (its PHH file written again from it): it
        pays other chips than the replay (:func:`_chips`), and the table's own between-hands
        snapshot at the hand's end (``ends``, :meth:`_table_ends`) has the file's end stacks
        and not the replay's: a journal an older livetable wrote, whose rules paid
        differently (issue 21's breaker). On a journal this livetable wrote the replay is
        what the table did: a file with other chips was edited or damaged, and is written
        again from the journal (breaker 2: a forged file outlived the journal's events).
        False with no such snapshot (today's journals snapshot every ``SNAPSHOT_EVERY``
        hands)."""
        mine = self._file(hand)
        if not mine or hand not in ends:
            return False
        theirs = json.loads(json.dumps(replayed, sort_keys=True))
        if _chips(mine) == _chips(theirs) or _ends_at(theirs, ends[hand]) or not _ends_at(mine, ends[hand]):
            return False
        js, _ = history_files(self.folder, hand)
        log.warning("journal compaction: the journal's replay of hand %d pays other chips than its file %s, "
                    "whose end stacks the table's snapshot has (a journal an older livetable wrote): "
                    "the table's file is kept as it is", hand, js)
        return True

    def _table_ends(self, base_upto: int, upto: int, journal: Journal) -> dict[int, dict[int, int]]:
        """Every seat's stack by seat number at the end of each hand that has a between-hands
        snapshot in events ``base_upto+1..upto`` (the oldest one after it), by hand number."""
        out: dict[int, dict[int, int]] = {}
        for u, h, between in journal.snapshot_index():
            if between and base_upto < u <= upto and h not in out:
                snap = journal.snapshot_at(u) or {}
                seats = (snap.get("table") or {}).get("seats") if isinstance(snap, dict) else None
                if isinstance(seats, list):
                    out[h] = {s["seat"]: s["stack"] for s in seats
                              if isinstance(s, dict) and "seat" in s and "stack" in s}
        return out

    def _offer_end(self, upto: int, journal: Journal | None = None) -> int:
        """The seq of the first hand start after event ``upto`` (the end of the last hand's
        P-2 show offer), or the journal's last seq."""
        journal = journal or self.journal
        for e in journal.entries(after=upto, kinds=("table",)):
            if e.payload.get("kind") == "hand-start-requested":
                return e.seq
        return journal.last_seq

    def _shown_after(self, base_upto: int, upto: int, journal: Journal | None = None) -> bool:
        """True when events ``base_upto+1..upto`` hold a ``show`` (P-2: the uncontested
        winner showed after the hand, and the table wrote that hand's record again)."""
        journal = journal or self.journal
        return any(e.payload.get("action") == "show" for e in journal.entries(after=base_upto, kinds=("table",))
                   if e.seq <= upto)

    def _records(self, base_upto: int, upto: int, journal: Journal | None = None) -> dict[int, dict[str, Any]]:
        """Replay events ``base_upto+1..upto`` from the snapshot at ``base_upto`` and return
        every finished hand's last record by number (what the table wrote when it finished,
        or again when its winner showed after it: P-2).

        The replay starts again from each between-hands snapshot it passes (the table as it
        was then, as recovery would start from it): a journal an older livetable wrote (a
        snapshot every hand, before issue 21) replayed by this one can drift from what the
        table did (the rake split between pots changed since), and a drifted hand that never
        finished had no record, so compaction stopped at its missing file for good."""
        journal = journal or self.journal
        snap = journal.snapshot_at(base_upto)
        if snap is None:
            raise ValueError(f"no snapshot at event {base_upto}")
        state = TableState.from_json(snap["table"])
        from controller.orchestrator import set_aside_seqs  # what recovery skips, read as it reads it

        rejected = set_aside_seqs(journal, base_upto)
        out: dict[int, dict[str, Any]] = {}
        starts = [u for u, _h, between in journal.snapshot_index() if between and base_upto < u < upto]
        for e in journal.entries(after=base_upto, kinds=("table",)):
            if e.seq > upto:
                break
            while starts and starts[0] < e.seq:  # a snapshot before this event: the table then
                at = journal.snapshot_at(starts.pop(0))
                if at is not None and isinstance(at.get("table"), dict):
                    state = TableState.from_json(at["table"])
            if e.seq in rejected:
                continue  # the live table could not take it either
            state, effects = step(state, event_from_json(e.payload))
            for f in effects:
                if isinstance(f, (fx.HandFinished, fx.HandShown)):
                    out[f.hand] = f.record
        return out

    def _write(self, hand: int, record: dict[str, Any]) -> None:
        write_hand_files(self.folder, hand, record)


class JournalReader(Journal):
    """The journal at ``path`` read on a connection of its own, read-only (the keeper's
    thread's: SQLite's WAL lets it read while the table's loop appends; nothing waits on
    it). Reads as :class:`Journal` does (:meth:`~Journal.snapshot_index`,
    :meth:`~Journal.entries`, :meth:`~Journal.snapshot_at`, ...) the journal as it was when
    it was opened for ``compacted_upto`` and ``last_seq``; every write raises
    :class:`JournalError`. Takes neither the journal's lock nor its mark.

    Raises:
        JournalError: the file cannot be opened.
    """

    def __init__(self, path: str | Path) -> None:  # noqa: D107 - see the class
        self.path = str(path)
        self._damage, self._checked = [], None
        self._lock_fd = self._mark_fd = None
        try:
            self._db = sqlite3.connect(f"file:{Path(path).resolve()}?mode=ro", uri=True, check_same_thread=False)
            row = self._db.execute("SELECT value FROM meta WHERE key='compacted_upto'").fetchone()
            self._compacted_upto = int(row[0]) if row is not None else 0
            last = self._db.execute("SELECT MAX(seq) FROM events").fetchone()[0]
        except sqlite3.Error as exc:
            raise JournalError(f"journal {path}: cannot be read: {exc}") from exc
        self._last_seq = max(int(last or 0), self._compacted_upto)

    def close(self) -> None:
        """Close the reader's connection."""
        self._db.close()


def _ends_at(record: Any, table: dict[int, int]) -> bool:
    """True when every end stack of a hand record (``result.stacks`` and each seat's
    ``end``, by seat number) is the seat's stack in ``table`` (:meth:`JournalKeeper._table_ends`);
    False when one is not, or the record has another shape (or no stacks)."""
    try:
        ends = [(int(k), v) for k, v in (record["result"]["stacks"] or {}).items()]
        ends += [(int(s["seat"]), s["end"]) for s in record.get("seats") or []]
    except (AttributeError, KeyError, TypeError, ValueError):
        return False
    return bool(ends) and all(k in table and table[k] == v for k, v in ends)


#: table events after which a seat's stack may be anything (the seat changed hands, a buy-in
#: booked, a tournament's colour-up raced its odd chips off): :func:`_chain`
CHAIN_RESETS = ("stood-up", "player-sat-down", "player-joined", "bought-in", "chips-raced")
#: table events after which a seat's stack may be higher than it was (T-7, T-3): :func:`_chain`
CHAIN_ADDS = ("topped-up", "buy-in-confirmed")


def _phh_actions(events: list[dict[str, Any]], pno: dict[int, int]) -> list[str]:
    """The PHH ``actions`` of a hand record's events (``hand_record.events``), with the
    players numbered ``pno`` (table seat -> N of pN), as :func:`controller.engine.phh.dump`
    writes them, comments left out as a TOML reader leaves them out
    (:func:`controller.engine.phh.actions`); for :meth:`JournalKeeper._disagreement`, without
    replaying the hand.

    Raises:
        KeyError, TypeError: an event of another shape (the record is not one the table wrote).
    """
    from controller.engine.phh import actions

    return [a for a in actions(events, pno) if not a.startswith("#")]


def _unbalanced(record: dict[str, Any]) -> str | None:
    """Why a hand's JSON ``record`` does not pay out what it took in, or None: every
    seat's ``end`` is its ``result.stacks``, and the seats' starts add up to their ends
    plus the hand's rake (R-1; a voided hand's ends are its starts, no rake)."""
    try:
        seats = record["seats"]
        res = record["result"]
        stacks = {int(k): v for k, v in (res.get("stacks") or {}).items()}
        starts = sum(int(s["start"]) for s in seats)
        ends = sum(int(s["end"]) for s in seats)
        rake = int(res.get("rake") or 0)
        wrong = [s["seat"] for s in seats if stacks.get(int(s["seat"]), s["end"]) != s["end"]]
    except (KeyError, TypeError, ValueError, AttributeError):
        return "its JSON record has no seats' stacks"
    if wrong:
        return f"its JSON record's seat {wrong[0]} ends with other chips than its result's stacks"
    if starts != ends + rake:
        return f"its JSON record's seats start with {starts} chips and end with {ends} + rake {rake}"
    return None


def _table_events(journal: Journal, after: int, upto: int, kinds: tuple[str, ...]) -> list[tuple[int, str, Any]]:
    """``(seq, kind, seat)`` of the table events ``after+1..upto`` of ``kinds`` (``seat``
    None when the event has none), picked by SQLite's JSON functions without reading every
    payload in Python (a tenth of the time); read through :meth:`Journal.entries` where
    SQLite cannot (no JSON functions, a payload that is not JSON: ``entries`` names it).

    Raises:
        JournalError: a payload is not a JSON object (read through ``entries``).
    """
    try:
        # A format-3 row has the codec's short names ("k", "s"; no kind: an action or a card,
        # codec.SHORT_UNNAMED), an older one the long ones.
        short = [SHORT_KINDS.get(k, k) for k in kinds]
        rows = journal._db.execute(  # noqa: SLF001 - the journal's own connection, read only
            "SELECT seq, ek, COALESCE(json_extract(payload, '$.seat'), json_extract(payload, '$.s')) FROM "
            "(SELECT seq, COALESCE(json_extract(payload, '$.kind'), json_extract(payload, '$.k'), "
            "CASE WHEN json_type(payload, '$.a') IS NULL THEN 'card-dealt' ELSE 'action-taken' END) AS ek, payload "
            "FROM events WHERE kind = 'table' AND seq > ? AND seq <= ?) "
            f"WHERE ek IN ({','.join('?' * (len(kinds) + len(short)))}) ORDER BY seq",
            (max(after, journal.compacted_upto), upto, *kinds, *short))
        long = {v: k for k, v in SHORT_KINDS.items()}
        return [(int(seq), long.get(str(kind), str(kind)), seat) for seq, kind, seat in rows.fetchall()]
    except sqlite3.Error:
        return [(e.seq, str(e.payload.get("kind")), e.payload.get("seat"))
                for e in journal.entries(after=after, kinds=("table",))
                if e.seq <= upto and e.payload.get("kind") in kinds]


def _chain(records: dict[int, dict[str, Any]], base_upto: int, upto: int, journal: Journal) -> list[str]:
    """Where the stacks of hand ``records`` (by number: the range of events
    ``base_upto+1..upto``) do not follow each other and the table's between-hands
    snapshots (:meth:`JournalKeeper._doubts`), one line each.

    Walked in the journal's order: each ``hand-start-requested`` followed by a card (not by
    another start: one refused, or asked for during a hand) starts the next hand of the
    range when there are as many as hands; else (a journal edited, a start the floor set
    aside) the hands by number, a chip race anywhere in the range leaving every seat out, and
    a player who left and took the same seat again for fewer chips doubted (one replay more).
    The snapshots at ``base_upto``, ``upto`` and between are read. A seat is compared only
    with what the same player (``player`` id) last had there: never fewer chips, and in the
    journal's order exactly as many unless a top-up or a confirmed buy-in came between
    (:data:`CHAIN_ADDS`); a stand-up, a sit-down, a buy-in or a chip race
    (:data:`CHAIN_RESETS`) starts the seat's chain again."""
    index = [(u, h) for u, h, between in journal.snapshot_index() if between and base_upto <= u <= upto]
    marking = ("hand-start-requested", "card-dealt", "hand-voided")
    events = _table_events(journal, base_upto, upto, (*marking, *CHAIN_RESETS, *CHAIN_ADDS))
    # a start that made a hand: a card (or the floor's void) comes before the next start (one
    # asked for during a hand, or refused, is followed by another start: the last one is taken)
    marks = [(seq, kind) for seq, kind, _seat in events if kind in marking]
    starts = [seq for (seq, kind), (_n, after) in zip(marks, marks[1:])
              if kind == "hand-start-requested" and after in ("card-dealt", "hand-voided")]
    resets = [(seq, seat if kind != "chips-raced" else None) for seq, kind, seat in events if kind in CHAIN_RESETS]
    numbers = sorted(records)
    items: list[tuple[tuple[int, int], str, Any]] = []
    exact = len(starts) == len(numbers)
    if exact:  # each start made the next hand: the journal's order
        items += [((seq, 1), "hand", n) for seq, n in zip(starts, numbers)]
        items += [((u, 3), "snapshot", u) for u, _h in index]  # taken after event u
        items += [((seq, 2), "reset", seat) for seq, seat in resets]
        items += [((seq, 2), "add", seat) for seq, kind, seat in events if kind in CHAIN_ADDS]
        gone: set[Any] = set()
    else:  # hands by number, each snapshot after its hand; a seat changing hands is seen by
        # its player id and a snapshot's empty seat, a chip race frees every seat
        first = numbers[0] - 1 if numbers else 0
        items += [((n, 1), "hand", n) for n in numbers]
        items += [((max(h, first), 2), "snapshot", u) for u, h in index]
        gone = {None} if any(seat is None for _seq, seat in resets) else set()
    last: dict[int, tuple[Any, int, str]] = {}  # seat -> (player, chips, where they were seen)
    grown: set[Any] = set()  # seats with a top-up or a buy-in confirmed since they were seen
    out: list[str] = []

    def see(seat: Any, player: Any, start: Any, end: Any, now: str, then: str) -> None:
        if not isinstance(seat, int) or not isinstance(end, int) or seat in gone or None in gone:
            return
        had = last.get(seat)
        if had is not None and had[0] == player and isinstance(start, int):
            if start < had[1]:
                out.append(f"seat {seat} ({player}) has {start} chips in {now}, {had[1]} in {had[2]}: "
                           "fewer, and no one left the seat")
            elif start > had[1] and exact and seat not in grown:
                out.append(f"seat {seat} ({player}) has {start} chips in {now}, {had[1]} in {had[2]}: "
                           "more, and no buy-in or top-up came")
        last[seat] = (player, end, then)
        grown.discard(seat)

    for _key, kind, what in sorted(items, key=lambda i: i[0]):
        if kind == "add":
            grown.add(what)
        elif kind == "reset":
            if what is None:
                last.clear()
            else:
                last.pop(what, None)
        elif kind == "snapshot":
            snap = journal.snapshot_at(what) or {}
            table = snap.get("table") if isinstance(snap, dict) else None
            seats = table.get("seats") if isinstance(table, dict) else None
            held = {s.get("seat") for s in seats or [] if isinstance(s, dict)}
            for seat in [s for s in last if s not in held]:
                del last[seat]  # an empty seat in the table's snapshot: the player left
            for s in seats or []:
                if isinstance(s, dict):
                    where = f"the table's snapshot at event {what}"
                    see(s.get("seat"), s.get("player"), s.get("stack"), s.get("stack"), where, where)
        else:
            for s in records[what].get("seats") or []:
                if isinstance(s, dict):
                    see(s.get("seat"), s.get("player"), s.get("start"), s.get("end"),
                        f"hand {what}'s start", f"hand {what}'s end")
    return out


def _chips(record: Any) -> Any:
    """The chips a hand's record pays (:meth:`JournalKeeper._kept`): each seat's
    ``(seat, start, end)``, and the result's ``stacks``, ``rake``, ``returned`` and each
    award's ``(amount, rake, shares)``; None for a record of another shape."""
    try:
        res = record.get("result") or {}
        return ([(s.get("seat"), s.get("start"), s.get("end")) for s in record.get("seats") or []],
                res.get("stacks"), res.get("rake"), res.get("returned"),
                [(a.get("amount"), a.get("rake"), a.get("shares")) for a in res.get("awards") or []])
    except AttributeError:
        return None


def _phh(record: dict[str, Any]) -> str | None:
    try:
        from controller.history import record_to_phh

        return record_to_phh(record)
    except Exception as exc:  # noqa: BLE001 - the history must never stop the table: the JSON record is kept
        log.warning("PHH export of hand %s failed: %s", record.get("hand"), exc)
        return None


#: A hand file larger than this is not one (a record is a few KB): never read whole.
HAND_FILE_MAX = 4 * 1024 * 1024


def _read_text(path: Path) -> str:
    """Return the UTF-8 text of the hand file at ``path``, never blocking: a FIFO, device or
    symlink named like a hand file raises instead of hanging the table (issue 16, round 2).

    Raises:
        OSError: missing, not a regular file, unreadable, or over :data:`HAND_FILE_MAX`.
        UnicodeDecodeError: not UTF-8.
    """
    data = read_regular(path, HAND_FILE_MAX + 1)
    if len(data) > HAND_FILE_MAX:
        raise OSError(f"{path} is over {HAND_FILE_MAX} bytes: not a hand file")
    return data.decode("utf-8")


def _atomic_write(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all: a temporary file, fsynced, renamed over it;
    mode :data:`HAND_FILE_MODE` (0640) whatever the umask.

    The temporary file's name is the writer's own (process and thread), so two writers of
    one folder never write into each other's file."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}-{threading.get_ident()}.tmp")
    try:
        # 0640 whatever the umask: a hand file holds the hole cards (issue 16).
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, HAND_FILE_MODE)
        with open(fd, "w", encoding="utf-8") as f:
            os.fchmod(f.fileno(), HAND_FILE_MODE)
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
