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
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from controller.tournament.settings import TournamentSettings, load_settings
from room.tournament import RoomTournament, StoreJournal
from room.tournament_desk import TournamentDesk

__all__ = ["TournamentRunner", "StoredTournamentMismatch", "check_stored", "stored_start"]

log = logging.getLogger("livetable.room.tournament")


class StoredTournamentMismatch(ValueError):
    """The room's store holds another tournament than the one asked for (other settings,
    tables or entries); the message says what differs."""


def stored_start(store: Any) -> dict[str, Any] | None:
    """Return the ``start`` event's payload of the tournament in ``store`` (``settings``: the
    TOML text, ``tables``, ``seed``, ``entries``, ``names``), or None when it holds none."""
    rows = store.query("SELECT payload FROM room_tournament WHERE type = 'start' ORDER BY id LIMIT 1")
    return json.loads(rows[0][0]) if rows else None


def check_stored(store: Any, settings: TournamentSettings, tables: list[str], entries: int | None = None) -> bool:
    """Check the tournament in ``store`` against the one asked for; return whether it holds one.

    The settings are compared as loaded (a TOML written differently with the same settings is
    the same tournament), the tables in order (the first is the final table, the break order
    is theirs reversed), ``entries`` only when given.

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

    def open(self, entries: int | None, seed: int, *, check_entries: bool = True) -> bool:
        """Resume the tournament in the store, or start a new one; return True when resumed.

        A new one registers ``entries`` players (``p1``..``pN``, named ``Player N``; None: a
        full field, ``seats_per_table`` a table) and draws their seats with ``seed`` (TDA 7).
        A stored one is checked first (:func:`check_stored`; its entries only when
        ``check_entries`` and ``entries`` is given) and replayed.

        Raises:
            StoredTournamentMismatch: the store holds another tournament.
            controller.tournament.errors.TournamentError: entries not 2..the seats of the tables.
            ValueError: the journal cannot be replayed.
            room.store.StoreError: the store cannot be written.
        """
        check_stored(self.store, self.settings, self.tables, entries if check_entries else None)
        self.resumed = self.director.restore()
        if not self.resumed:
            self.director.start(entries if entries is not None else self.settings.seats_per_table * len(self.tables),
                                seed)
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
