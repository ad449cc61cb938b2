"""The room's tournament loop (issue 19), shared by ``livetable room serve --tournament`` and
``livetable room simulate --tournament``.

:class:`TournamentRunner` puts a :class:`room.tournament.RoomTournament` on a
:class:`room.service.RoomService`: the service hands it every table's tournament report
(``room/tables/<t>/tournament/report``, paho's thread, into a queue), the director sends its
orders with the service's :meth:`~room.service.RoomService.tournament_order`, and it journals
in the room's store (``room_tournament``, :class:`room.tournament.StoreJournal`). One thread
drives the director (:meth:`TournamentRunner.turn`: the reports waiting, the console's calls
through :attr:`TournamentRunner.desk`, one ``step``); ``room serve`` runs it on a thread of its
own (:meth:`TournamentRunner.start`), ``room simulate`` in its own loop, between its checks of
its table processes.

A store that holds a tournament resumes it (:meth:`TournamentRunner.open`: the journal
replayed, "resumed from the store"), but only with the same settings and tables, and the same
entries when they are given (:func:`check_stored`): anything else is refused
(:class:`StoredTournamentMismatch`), so a room restarted with other arguments never plays
another tournament over the journal of the first. The draw's seed is the stored one.

One director a store (:func:`lock_director`): ``room serve --tournament`` takes an exclusive
lock on the store before it starts anything (PostgreSQL: a session advisory lock,
``pg_try_advisory_lock``, on the store's connection; SQLite: ``flock`` on ``<store>.lock``),
held until the process ends; a second process on the same store is refused
(:class:`DirectorLockHeld`, naming the holder's pid and host).

The entries are ``p1``..``pN`` (``Player N``) or, by name, those of an entries file
(``room serve --entries-file``, :func:`read_entries`): one player a line, ``name`` or
``player_id,name``; a restart with the same players (ids and names) resumes, other ones are
refused as other entries are.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import queue
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.tournament.settings import TournamentSettings, load_settings
from room.tournament import RoomTournament, StoreJournal
from room.tournament_desk import TournamentDesk

__all__ = ["TournamentRunner", "StoredTournamentMismatch", "check_stored", "stored_start", "DirectorLock",
           "DirectorLockHeld", "lock_director", "read_entries", "EntriesFileError", "add_entries_file",
           "entries_file_refused", "check_entries_count"]

log = logging.getLogger("livetable.room.tournament")


class StoredTournamentMismatch(ValueError):
    """The room's store holds another tournament than the one asked for (other settings,
    tables or entries); the message says what differs."""


class DirectorLockHeld(RuntimeError):
    """Another process runs the tournament's director on this store; the message names its
    pid and host when they are known."""


#: The advisory lock's two keys on PostgreSQL (``pg_locks``: classid, objid): "LT", issue 19.
PG_LOCK_KEYS = (0x4C54, 19)


class DirectorLock:
    """The store's director lock, held (see :func:`lock_director`); :meth:`release` lets it go
    (closing the store or ending the process does too)."""

    def __init__(self, store: Any, fd: int | None) -> None:
        self.store, self.fd = store, fd

    def release(self) -> None:
        """Let the lock go (idempotent)."""
        if self.fd is not None:
            os.close(self.fd)  # the flock goes with the file
            self.fd = None
        elif self.store is not None:
            try:
                self.store.query("SELECT pg_advisory_unlock(?, ?)", PG_LOCK_KEYS)
            except Exception:  # the connection is gone: so is its lock
                pass
            self.store = None


def _holder() -> str:
    return f"pid {os.getpid()} on {socket.gethostname()}"


def lock_director(store: Any) -> DirectorLock:
    """Take the store's exclusive director lock (one tournament director a store, issue 19).

    PostgreSQL: ``pg_try_advisory_lock(19528, 19)`` on the store's connection (a session lock:
    the connection's end lets it go; its ``application_name`` says ``livetable room serve pid
    N on HOST`` for the next one's message). A lock held by a session that says it is this host's
    and whose pid no longer runs (a room killed while PostgreSQL had not yet noticed) is ended
    (``pg_terminate_backend``, which waits up to 5 s for its end) and taken. SQLite: an
    exclusive ``flock`` on ``<store>.lock`` (the holder's pid and host written in it); the
    kernel lets it go when the process ends.
    An in-memory SQLite store needs none.

    Raises:
        DirectorLockHeld: another process holds it (the message names its pid and host).
        room.store.StoreError: the lock could not be asked for.
    """
    if store.dialect == "postgresql":
        for _ in range(2):
            if store.query("SELECT pg_try_advisory_lock(?, ?)", PG_LOCK_KEYS)[0][0]:
                store.query("SELECT set_config('application_name', ?, false)",
                            (f"livetable room serve {_holder()}"[:63],))
                return DirectorLock(store, None)
            rows = store.query(
                "SELECT a.pid, a.application_name, a.client_addr::text FROM pg_locks l JOIN pg_stat_activity a"
                " ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted AND l.classid = ? AND l.objid = ?"
                " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())",
                PG_LOCK_KEYS)
            if not rows:
                continue  # let go meanwhile: ask again
            backend, name, addr = rows[0]
            name = str(name or "")
            if _stale(name):
                log.warning("the director lock was held by %r, which no longer runs: its session is ended", name)
                store.query("SELECT pg_terminate_backend(?, 5000)", (backend,))  # waits for its end (PG 14)
                continue
            who = name.removeprefix("livetable room serve ") if name else "a session"
            raise DirectorLockHeld(f"another room service runs this store's tournament ({who}, connected from "
                                   f"{addr or 'this host'}): stop it first, or use another store")
        raise DirectorLockHeld("another room service runs this store's tournament: stop it first, "
                               "or use another store")
    if store.where == ":memory:":
        return DirectorLock(None, None)
    path = f"{store.where}.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o640)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        try:
            who = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "unknown pid"
        finally:
            os.close(fd)
        raise DirectorLockHeld(f"another room service runs this store's tournament ({who}; lock {path}): "
                               "stop it first, or use another store") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, _holder().encode(), 0)
    return DirectorLock(None, fd)


def _stale(name: str) -> bool:
    """True when application_name ``name`` is a room service of this host whose pid is gone."""
    prefix = "livetable room serve pid "
    if not name.startswith(prefix):
        return False
    pid, _, host = name.removeprefix(prefix).partition(" on ")
    if host != socket.gethostname() or not pid.isdigit() or int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


class EntriesFileError(ValueError):
    """An entries file cannot be read or holds a bad line; the message names the file and
    every bad line by its number (the first ten)."""


def read_entries(path: str | Path) -> dict[str, str]:
    """Read the tournament's entries from the file ``path``; return player id -> name, in the
    file's order (the order the seats are drawn in).

    The file: UTF-8 (at most :data:`controller.config.MAX_SMALL_FILE` bytes, read with
    :func:`controller.config.read_small_text`), one player a line, ``name`` or
    ``player_id,name`` (the first comma parts them: a line with a comma starts with a player
    id, :func:`room.ids.check_player_id`); a line starting with ``#`` (spaces before it
    allowed) is a comment. A name follows :meth:`room.tournament.RoomTournament.register`'s
    rule (:func:`room.tournament.entry_name`: one line of 1..40 characters, no control
    characters), spaces around it are dropped. A player without an id gets ``pN``: N the
    smallest number not yet taken, counting from 1 in the file's order.

    Raises:
        EntriesFileError: the file cannot be read (missing, not a regular file, too large,
            not UTF-8) or no player in it; a line is empty, holds a control character, a bad
            name or player id, or a player id or name another line has (names compared as a
            table compares them: case, spacing and punctuation around them ignored).
    """
    from controller.config import read_small_text
    from controller.engine.table.seating import player_for_name
    from room.ids import PlayerIdError, check_player_id
    from room.tournament import entry_name

    try:
        text = read_small_text(path, what="entries file")
    except (OSError, ValueError) as exc:
        raise EntriesFileError(f"the entries file {path}: {exc}") from None
    problems: list[str] = []
    rows: list[tuple[str | None, str]] = []
    ids: dict[str, int] = {}
    keys: dict[str, int] = {}
    lines = text.split("\n")  # not splitlines(): a vertical tab or a form feed inside a line is refused
    if lines and lines[-1] == "":
        lines.pop()  # the file's last newline
    for no, raw in enumerate(lines, 1):
        line = raw[:-1] if raw.endswith("\r") else raw  # a Windows line end
        if line.strip().startswith("#"):
            continue
        if not line.strip():
            problems.append(f"line {no}: empty (one player a line: name or player_id,name; # starts a comment)")
            continue
        pid: str | None = None
        name = line
        if "," in line:
            first, name = line.split(",", 1)
            try:
                pid = check_player_id(first.strip())
            except PlayerIdError as exc:
                problems.append(f"line {no}: {exc} (a line with a comma is player_id,name)")
                continue
        try:
            name = entry_name(name)
        except ValueError as exc:
            problems.append(f"line {no}: {exc}")
            continue
        key = player_for_name(name)
        if key in keys:
            problems.append(f"line {no}: the name {name!r} is on line {keys[key]} already")
            continue
        if pid is not None and pid in ids:
            problems.append(f"line {no}: the player id {pid!r} is on line {ids[pid]} already")
            continue
        keys[key] = no
        if pid is not None:
            ids[pid] = no
        rows.append((pid, name))
    if problems:
        more = f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""
        raise EntriesFileError(f"the entries file {path}: " + "; ".join(problems[:10]) + more)
    if not rows:
        raise EntriesFileError(f"the entries file {path}: no player in it")
    out: dict[str, str] = {}
    n = 0
    for pid, name in rows:
        if pid is None:
            n += 1
            while f"p{n}" in ids:
                n += 1
            pid = f"p{n}"
        out[pid] = name
    return out


def add_entries_file(p: Any) -> None:
    """Add ``--entries-file FILE`` to the argparse parser ``p`` (``livetable room serve`` and
    ``room simulate --tournament``: one option, one file format, :func:`read_entries`)."""
    p.add_argument("--entries-file", metavar="FILE", default=None,
                   help="the tournament's entries by name: one player a line, name or player_id,name (UTF-8, # "
                        "comments); instead of --entries; checked against the stored tournament when given")


def entries_file_refused(entries: int | None, entries_file: str | None, tournament: bool) -> str | None:
    """Why ``--entries-file`` cannot go with the other options, or None: ``--entries`` given too,
    or no tournament asked (``--tournament``)."""
    if entries_file is None:
        return None
    if not tournament:
        return "--entries-file goes with --tournament"
    return "--entries and --entries-file: one or the other" if entries is not None else None


def check_entries_count(names: dict[str, str], settings: TournamentSettings, tables: list[str]) -> None:
    """Check a new tournament's entries file holds 2 players up to a seat of every table.

    Raises:
        ValueError: fewer than 2 or more players than seats (the message says how many fit).
    """
    from controller.tournament.words import plural

    seats = settings.seats_per_table * len(tables)
    if not 2 <= len(names) <= seats:
        raise ValueError(f"--entries-file: {plural(len(names), 'player')}; a tournament on "
                         f"{plural(len(tables), 'table')} of {settings.seats_per_table} seats takes 2..{seats}")


def stored_start(store: Any) -> dict[str, Any] | None:
    """Return the ``start`` event's payload of the tournament in ``store`` (``settings``: the
    TOML text, ``tables``, ``seed``, ``entries``, ``names``), or None when it holds none."""
    rows = store.query("SELECT payload FROM room_tournament WHERE type = 'start' ORDER BY id LIMIT 1")
    return json.loads(rows[0][0]) if rows else None


def check_stored(store: Any, settings: TournamentSettings, tables: list[str], entries: int | None = None,
                 names: dict[str, str] | None = None) -> bool:
    """Check the tournament in ``store`` against the one asked for; return whether it holds one.

    The settings are compared as loaded (a TOML written differently with the same settings is
    the same tournament), the tables in order (the first is the final table, the break order
    is theirs reversed), ``entries`` only when given, and so ``names`` (player id -> name, the
    entries at the start, :func:`read_entries`): the same players under the same names, in
    any order.

    Raises:
        StoredTournamentMismatch: the stored tournament differs (the message names what).
        ValueError: the stored settings no longer load.
    """
    start = stored_start(store)
    if start is None:
        return False
    if load_settings(start["settings"]) != settings:
        raise StoredTournamentMismatch("the room's store holds a tournament with other settings: start the room "
                                       "with that tournament's settings, or with another store")
    if list(start["tables"]) != list(tables):
        raise StoredTournamentMismatch(f"the room's store holds a tournament on tables {','.join(start['tables'])}, "
                                       f"not {','.join(tables)}")
    if entries is not None and int(start["entries"]) != entries:
        raise StoredTournamentMismatch(f"the room's store holds a tournament of {start['entries']} entries, "
                                       f"not {entries}")
    if names is not None and dict(start["names"]) != names:
        stored = dict(start["names"])
        p = next(p for p in [*stored, *names] if stored.get(p) != names.get(p))
        said = [repr(v) if v is not None else "none" for v in (stored.get(p), names.get(p))]
        raise StoredTournamentMismatch(
            f"the room's store holds a tournament of other entries than the entries file's ({len(stored)} stored, "
            f"{len(names)} in the file; player {p}: {said[0]} stored, {said[1]} in the file)")
    return True


class TournamentRunner:
    """The room's tournament director on a room service, and the loop that drives it.

    Args:
        store: the room's store (the service's): the journal, ``room_tournament``.
        service: the :class:`room.service.RoomService`; its ``on_tournament_report`` is taken
            (set it before the service connects, or reports arriving first are lost until the
            tables send again: they do, every report repeats their whole state).
        text: the tournament's settings, the TOML text (``[tournament]``).
        tables: the tournament's table ids; the first is the final table.
        speed: the tournament clock runs this many times faster than real time (1 in a card
            room; a simulation and tests run it faster).

    Raises:
        ValueError: ``text`` is no valid tournament (the message names the key), ``speed`` <= 0
            or no tables.
    """

    def __init__(self, store: Any, service: Any, text: str, tables: list[str], *, speed: float = 1.0) -> None:
        if speed <= 0 or not tables or len(set(tables)) != len(tables):
            raise ValueError("a tournament needs tables (each once) and a clock speed above 0")
        self.store, self.service, self.text, self.tables = store, service, text, list(tables)
        self.settings = load_settings(text)
        self.speed = speed
        self._t0 = time.monotonic()
        self.reports: queue.SimpleQueue[tuple[str, bytes]] = queue.SimpleQueue()
        service.on_tournament_report = lambda t, p: self.reports.put((t, p))
        self.director = RoomTournament(self.settings, text, self.tables, StoreJournal(store),
                                       service.tournament_order, self.now)
        self.director.clock_speed = speed
        #: the console's way in (``/api/tournament``); its director is set by :meth:`open`
        self.desk = TournamentDesk()
        self.resumed = False
        self.result_logged = False
        #: ``f(result)`` once, on the loop's thread, when the tournament is over (:meth:`result`)
        self.on_finished: Callable[[dict[str, Any]], None] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def now(self) -> float:
        """The room's tournament clock: monotonic seconds since the runner was made, times ``speed``."""
        return (time.monotonic() - self._t0) * self.speed

    def open(self, entries: int | None, seed: int, *, check_entries: bool = True,
             names: dict[str, str] | None = None) -> bool:
        """Resume the tournament in the store, or start a new one; return True when resumed.

        A new one registers ``entries`` players (``p1``..``pN``, named ``Player N``; None: a
        full field, ``seats_per_table`` a table), or the players of ``names`` (player id ->
        name, :func:`read_entries`), and draws their seats with ``seed`` (TDA 7).
        A stored one is checked first (:func:`check_stored`; its entries only when
        ``check_entries`` and ``entries`` or ``names`` is given) and replayed.

        Raises:
            StoredTournamentMismatch: the store holds another tournament.
            controller.tournament.errors.TournamentError: entries not 2..the seats of the tables.
            ValueError: the journal cannot be replayed.
            room.store.StoreError: the store cannot be written.
        """
        check_stored(self.store, self.settings, self.tables, entries if check_entries else None,
                     names if check_entries else None)
        self.resumed = self.director.restore()
        if not self.resumed:
            self.director.start(entries if entries is not None else self.settings.seats_per_table * len(self.tables),
                                seed, names)
        self.desk.director = self.director
        return self.resumed

    @property
    def finished(self) -> bool:
        """True once the tournament is over and every table reported its end (the director's)."""
        return self.director.finished

    def turn(self, wait: float = 0.05) -> None:
        """One turn of the loop: take the tables' reports (waiting up to ``wait`` seconds for
        the first), run the console's calls, step the director (until it is finished); the
        first turn that finds it finished logs the result (:meth:`result`) and hands it to
        :attr:`on_finished`."""
        try:
            t, payload = self.reports.get(timeout=wait)
            self.director.report(t, payload)
            while True:
                t, payload = self.reports.get_nowait()
                self.director.report(t, payload)
        except queue.Empty:
            pass
        self.desk.serve()
        if self.director.finished:
            if not self.result_logged:
                self.result_logged = True
                result = self.result()
                log.info("the tournament's result (kept in the room's store): %s",
                         json.dumps(result, separators=(",", ":")))
                if self.on_finished is not None:
                    self.on_finished(result)
            return
        self.director.step()

    def result(self) -> dict[str, Any]:
        """The tournament's summary (:meth:`room.tournament.RoomTournament.summary`: ``places``,
        ``names``, ``payouts`` (money, per place, 1st first), ``prize_pool``, ``moves``,
        ``tables_broken``, ``hands``, ``entries``, ``checks``, ``problems``, ``ok``) plus
        ``resumed`` and ``clock`` (the clock's speed in words)."""
        out = self.director.summary()
        out.update(resumed=self.resumed, clock=f"{self.speed:g}x real time")
        return out

    # ------------------------------------------------------------------ on a thread of its own
    def start(self) -> "TournamentRunner":
        """Drive the tournament on a thread of its own (``room serve``) until :meth:`stop`;
        after its end the thread goes on serving the console's status. An error of a turn
        (the store away) is logged and the loop goes on a second later."""
        self._thread = threading.Thread(target=self._run, name="room-tournament", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.turn(0.05 if not self.director.finished else 0.2)
            except Exception:  # the room's loop must not die of one bad turn: the service keeps serving
                log.exception("the tournament's loop: a turn failed; again in a second")
                self._stop.wait(1.0)

    def stop(self) -> None:
        """Stop the loop's thread (if started) and close the console's way in (409 from then)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)
        self.desk.close()
