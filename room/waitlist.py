"""Waiting lists of the card room (issue 18): a pure model, every change recorded.

Nothing here reads a clock, a broker or a database: :class:`WaitingLists` takes an injected
``clock`` (Unix seconds) and returns what happened; the room service (``room/players.py``)
feeds it the tables' seat changes and sends the calls to the players' phones.

Terms (as card rooms use them):

- A **list** is per game and stakes (:class:`ListKey`, e.g. ``("nlhe", "1/2")``). A player
  **joins** a list (from the phone page, a tablet or the floor) and **leaves** it.
- A seat **opens** at a table of that game (the table reports the player standing up). The
  room **calls** the first eligible player: the seat is **held** for them for
  ``hold_seconds``; they **accept** (seated, off the list), **pass** (keep their place, this
  seat goes to the next) or let the call **lapse** (off the list, the next is called). No
  seat is ever offered to two players at once, and no player holds two calls at once.
- Order of priority for a seat at table T of list K (the common practice of card rooms):
  1. **table-change requests**: players seated at another table of K who asked to move, in
     the order they asked;
  2. **must-move**: players seated at a must-move table that feeds K (:meth:`feed`), in the
     order they sat down there;
  3. the **list** of K, in the order players joined.
  *Eligible* means: not already seated at T, not holding another call, not having passed
  this opening.
- A seat with nobody eligible stays open; the next player to join is called for it.
- A seat of a table **offline** (the room has no link to it: :meth:`WaitingLists.table_offline`)
  is called for nobody: nobody would be seated there. A call already out stays (the
  player's phone says the table is offline). When the table is back online its open seats
  are called as usual (:meth:`WaitingLists.table_online`).
- When a change or must-move player accepts, their old seat opens and is called in turn.
- An **accepted seat** stays the accepting player's (:attr:`WaitingLists.accepted`) until the
  table reports it taken (by them or anyone else) or the acceptance **lapses**: the table
  has not reported them seated within ``seat_seconds`` (:data:`DEFAULT_SEAT_SECONDS`); the
  seat is then open again and called (recorded as an ``open`` naming that player).
- A **must-move table** usually plays the game it feeds (the card rooms' must-move game: a
  second table of the main game whose players move to the main table as seats open there);
  its players are never called for a seat of a must-move table (they would move from one
  must-move table to another and never reach the main game). A feed making a loop between
  games (the main game's must-move tables feed, directly or through others, the table's own
  other game) is refused: the same players would be called back and forth, never the list
  (:meth:`WaitingLists.feed`).

Every join, leave, call, pass, lapse, seat, removal and change request is appended to
:attr:`WaitingLists.log` as an :class:`Entry` with the time, the player and who did it (the
player, ``floor:<name>``, ``table:<t>``, ``system``): the floor answers "why was he seated
before me" with :meth:`WaitingLists.why`.
"""

from __future__ import annotations

import json

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ListKey", "Entry", "Call", "WaitingLists", "WaitListError", "DEFAULT_HOLD_SECONDS",
           "DEFAULT_SEAT_SECONDS"]

#: How long a called player's seat is held (seconds) unless the room configures another.
DEFAULT_HOLD_SECONDS = 180.0

#: How long an accepted seat waits for the table to report the player seated (seconds)
#: before the acceptance lapses and the seat is called again.
DEFAULT_SEAT_SECONDS = 300.0


class WaitListError(ValueError):
    """An operation that the lists refuse (the message says why); nothing was changed."""


@dataclass(frozen=True, slots=True, order=True)
class ListKey:
    """A waiting list's game and stakes: ``game`` (e.g. ``"nlhe"``), ``stakes`` (``"1/2"``)."""

    game: str
    stakes: str

    def __str__(self) -> str:
        return f"{self.game} {self.stakes}"

    def to_json(self) -> dict[str, str]:
        """Return ``{"game", "stakes"}``."""
        return {"game": self.game, "stakes": self.stakes}


@dataclass(frozen=True, slots=True)
class Entry:
    """One recorded change: ``at`` (Unix s), ``action`` (``join``, ``leave``, ``call``,
    ``pass``, ``lapse``, ``seat``, ``remove``, ``change-request``, ``open``, ``cancel``,
    ``offline``, ``online``, ``feed``: a must-move table; ``feed-list``: a must-move list, the
    main game it feeds in the detail as ``feeds {"game", "stakes"}``),
    the ``player`` (or ``""``), the list, ``by`` whom, the seat, and a ``detail``."""

    at: float
    action: str
    player: str
    key: ListKey | None
    by: str
    table: str | None = None
    seat: int | None = None
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        """Return the entry as JSON (``key`` as ``"game stakes"``)."""
        return {"at": self.at, "action": self.action, "player": self.player,
                "list": str(self.key) if self.key else None, "by": self.by, "table": self.table,
                "seat": self.seat, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class Call:
    """An open seat held for one player until ``until`` (Unix s); ``source`` is ``"change"``,
    ``"must-move"`` or ``"list"``."""

    player: str
    key: ListKey
    table: str
    seat: int
    at: float
    until: float
    source: str

    def to_json(self) -> dict[str, Any]:
        """Return the phone's notice of this call."""
        return {"player": self.player, "game": self.key.game, "stakes": self.key.stakes,
                "table": self.table, "seat": self.seat, "at": self.at, "until": self.until,
                "source": self.source}


@dataclass
class _Opening:
    key: ListKey
    table: str
    seat: int
    opened: float
    passed: set[str] = field(default_factory=set)
    call: Call | None = None


class WaitingLists:
    """Every list of the room, the open seats and the calls (see the module's text).

    Args:
        clock: Unix seconds (injected; tests pass a fake).
        hold_seconds: how long a call holds its seat (> 0).
        seat_seconds: how long an accepted seat waits for the table's report of the player
            seated (> 0) before the acceptance lapses (the seat is called again).

    Raises:
        WaitListError: from the operations, when refused (unknown player, no such call, ...).
    """

    def __init__(self, clock: Callable[[], float], hold_seconds: float = DEFAULT_HOLD_SECONDS,
                 seat_seconds: float = DEFAULT_SEAT_SECONDS) -> None:
        if not hold_seconds > 0 or not seat_seconds > 0:
            raise WaitListError("hold_seconds and seat_seconds must be > 0")
        self.clock = clock
        self.hold_seconds = float(hold_seconds)
        self.seat_seconds = float(seat_seconds)
        #: (table, seat) -> (player, accepted at): accepted, the table's report not seen yet
        self.accepted: dict[tuple[str, int], tuple[str, float]] = {}
        self.lists: dict[ListKey, list[str]] = {}
        self.changes: dict[ListKey, list[str]] = {}
        self.table_key: dict[str, ListKey] = {}
        self.seated: dict[str, tuple[str, int]] = {}  # player -> (table, seat)
        self.feeds: dict[str, ListKey] = {}  # must-move table -> the main game's list
        # must-move list -> the main game it feeds: its tables that open later feed it too
        self.list_feeds: dict[ListKey, ListKey] = {}
        self.must_move: dict[ListKey, list[str]] = {}
        self.openings: dict[tuple[str, int], _Opening] = {}
        self.offline: set[str] = set()  # tables the room has no link to: their seats are called for nobody
        self.log: list[Entry] = []
        self.listeners: list[Callable[[Entry], None]] = []

    # ------------------------------------------------------------------ helpers
    def _record(self, action: str, player: str, key: ListKey | None, by: str, table: str | None = None,
                seat: int | None = None, detail: str = "") -> Entry:
        e = Entry(self.clock(), action, player, key, by, table, seat, detail)
        self.log.append(e)
        for f in self.listeners:
            f(e)
        return e

    def note(self, action: str, player: str, by: str, key: ListKey | None = None, detail: str = "") -> Entry:
        """Record a change the lists do not make themselves (``login``: the floor made a
        player's login at the desk; ``move``: the floor moved a player between lists;
        ``account``: the floor said a second registration of an id is the same person), with
        the time and who did it. Return the entry.

        Raises:
            WaitListError: an action the lists' own (join, call, seat, ...): those only they record.
        """
        if action not in ("login", "move", "account"):
            raise WaitListError(f"note: {action!r} is not a note (login, move, account)")
        return self._record(action, player, key, by, detail=detail)

    def calls(self) -> list[Call]:
        """Return the calls outstanding (oldest first)."""
        return sorted((o.call for o in self.openings.values() if o.call), key=lambda c: (c.at, c.table, c.seat))

    def call_of(self, player: str) -> Call | None:
        """Return ``player``'s outstanding call, or None."""
        for o in self.openings.values():
            if o.call and o.call.player == player:
                return o.call
        return None

    def position(self, key: ListKey, player: str) -> int | None:
        """Return ``player``'s place on list ``key`` (1 = next), or None."""
        lst = self.lists.get(key, [])
        return lst.index(player) + 1 if player in lst else None

    def key_of(self, table: str) -> ListKey | None:
        """Return the list of ``table``'s game, or None when the table is not known."""
        return self.table_key.get(table)

    def candidates(self, key: ListKey) -> list[tuple[str, str]]:
        """Return ``[(player, source)]`` in order of priority for a seat of ``key``."""
        out: list[tuple[str, str]] = [(p, "change") for p in self.changes.get(key, [])]
        out += [(p, "must-move") for p in self.must_move.get(key, []) if p not in dict(out)]
        seen = {p for p, _ in out}
        out += [(p, "list") for p in self.lists.get(key, []) if p not in seen]
        return out

    def _eligible(self, opening: _Opening) -> tuple[str, str] | None:
        for p, source in self.candidates(opening.key):
            if p in opening.passed or self.call_of(p) is not None:
                continue
            if self.seated.get(p, ("", 0))[0] == opening.table:
                continue
            if source == "must-move" and opening.table in self.feeds:
                continue  # from one must-move table to another: never nearer the main game
            return p, source
        return None

    def _call_next(self, opening: _Opening, out: list[Call]) -> None:
        if opening.call is not None or opening.table in self.offline:
            return
        nxt = self._eligible(opening)
        if nxt is None:
            return
        now = self.clock()
        opening.call = Call(nxt[0], opening.key, opening.table, opening.seat, now, now + self.hold_seconds, nxt[1])
        self._record("call", nxt[0], opening.key, "system", opening.table, opening.seat,
                     f"{nxt[1]}; seat held {self.hold_seconds:.0f} s")
        out.append(opening.call)

    def _fill_open(self, key: ListKey | None = None) -> list[Call]:
        out: list[Call] = []
        for o in sorted(self.openings.values(), key=lambda o: (o.opened, o.table, o.seat)):
            if key is None or o.key == key:
                self._call_next(o, out)
        return out

    def _drop(self, player: str) -> None:
        for d in (self.lists, self.changes, self.must_move):
            for lst in d.values():
                if player in lst:
                    lst.remove(player)

    # ------------------------------------------------------------------ the tables
    def table(self, table: str, key: ListKey) -> None:
        """Declare ``table``'s game and stakes (a table opened or its stakes changed)."""
        self.table_key[table] = key

    def table_offline(self, table: str, by: str = "system") -> None:
        """The room lost its link to ``table``: its open seats are called for nobody until
        :meth:`table_online` (recorded as ``offline``; a repeat is ignored)."""
        if table in self.offline:
            return
        self.offline.add(table)
        self._record("offline", "", self.table_key.get(table), by, table, None, "no link to the room")

    def table_online(self, table: str, by: str = "system") -> list[Call]:
        """``table`` is back: its open seats are called again (recorded as ``online``).
        Return the calls this makes."""
        if table not in self.offline:
            return []
        self.offline.discard(table)
        self._record("online", "", self.table_key.get(table), by, table, None, "")
        return self._fill_open()

    def feed(self, must_move_table: str, main: ListKey, by: str = "system", why: str = "") -> None:
        """Make ``must_move_table`` a must-move table feeding the main game ``main``: its
        players (in the order they sit down there) come before the main list. ``why``: the
        floor's reason, recorded.

        A table playing ``main`` itself is the usual must-move table (its players are called
        for the seats of ``main``'s other tables, never of a must-move table: :meth:`_eligible`).

        Raises:
            WaitListError: the feed makes a loop between games: ``main``'s must-move tables
                feed, directly or through others, the table's own other game (their players
                would be called back and forth, never the lists). Nothing is changed.
        """
        own = self.table_key.get(must_move_table)
        if own is not None and own != main:
            reach, todo = {main}, [main]
            while todo:  # the games the main game's must-move tables feed, and theirs
                g = todo.pop()
                for t, k in self.feeds.items():
                    if t != must_move_table and self.table_key.get(t) == g and k not in reach:
                        reach.add(k)
                        todo.append(k)
            if own in reach:
                raise WaitListError(f"must-move: table {must_move_table} ({own}) feeding {main} makes a loop: "
                                    f"{main}'s must-move tables feed {own} already")
        self.feeds[must_move_table] = main
        self._record("feed", "", main, by, must_move_table, None, "must-move table" + (f": {why}" if why else ""))

    def feed_list(self, must_move: ListKey, main: ListKey, by: str, why: str) -> list[str]:
        """Mark the list ``must_move`` as a must-move list feeding the main game ``main``:
        every table of ``must_move`` becomes a must-move table (:meth:`feed`); the caller
        feeds the tables of that game that open later. Return those tables.

        Raises:
            WaitListError: the same list twice, or no table plays ``must_move`` or ``main``.
        """
        if must_move == main:
            raise WaitListError(f"must-move: the {main} list cannot feed itself")
        tables = sorted(t for t, k in self.table_key.items() if k == must_move)
        if not tables or main not in set(self.table_key.values()):
            raise WaitListError(f"must-move: the room has no table of {must_move if not tables else main}")
        saved = dict(self.feeds)
        try:
            for t in tables:
                self.feed(t, main, by, why or f"the {must_move} list feeds {main}")
        except WaitListError:
            self.feeds = saved
            raise
        self.list_feeds[must_move] = main
        # recorded (the must-move list, the main game in its detail) so a restart keeps
        # feeding the list's tables that open later (restore)
        self._record("feed-list", "", must_move, by, None, None,
                     "feeds " + json.dumps(main.to_json()) + (f": {why}" if why else ""))
        return tables

    def move(self, player: str, source: ListKey, target: ListKey, by: str, why: str) -> list[Call]:
        """The floor moves ``player`` from list ``source`` to the end of list ``target``
        (their call for a seat of ``source`` ends and goes to the next player): recorded as
        the removal (with ``why`` and where to) and the join, each with who did it. Return the
        calls this makes.

        Raises:
            WaitListError: no reason, the same list, ``player`` not on ``source`` or already
                on ``target`` (nothing changed).
        """
        if not why.strip():
            raise WaitListError("a move needs the reason")
        if source == target:
            raise WaitListError(f"{player} is on the {target} list already")
        if player in self.lists.get(target, []):
            raise WaitListError(f"{player} is already on the {target} list")
        out = self.leave(source, player, by, f"moved to {target}: {why.strip()}")
        out += self.join(target, player, by)
        return out

    def sat(self, table: str, seat: int, player: str, by: str) -> list[Call]:
        """The table reports ``player`` sitting in ``seat``: an opening of that seat ends (its
        call, if for another player, is cancelled). A seat another player accepted is theirs no
        more (recorded as a ``cancel`` for them); a seat ``player`` accepted elsewhere and never
        took opens again. Return the calls this makes."""
        out: list[Call] = []
        o = self.openings.pop((table, seat), None)
        if o is not None and o.call is not None and o.call.player != player:
            self._record("cancel", o.call.player, o.key, by, table, seat, f"seat taken by {player}")
        held = self.accepted.pop((table, seat), None)
        if held is not None and held[0] != player:
            if self.seated.get(held[0]) == (table, seat):
                del self.seated[held[0]]
            self._record("cancel", held[0], self.table_key.get(table), by, table, seat,
                         f"accepted seat taken by {player}")
        old = self.seated.get(player)
        if old is not None and old != (table, seat) and self.accepted.get(old, ("",))[0] == player:
            del self.accepted[old]  # accepted there, seated here: that seat is still free
            reopen: tuple[str, int] | None = old
            old = None
        else:
            reopen = None
        self.seated[player] = (table, seat)
        key = self.table_key.get(table)
        if player in sum(self.lists.values(), []):
            for k, lst in self.lists.items():
                if player in lst:
                    lst.remove(player)
                    self._record("remove", player, k, by, table, seat, "seated without a call")
        if old is not None and old != (table, seat):
            self.openings.pop(old, None)
        main = self.feeds.get(table)
        if main is not None and player not in self.must_move.setdefault(main, []):
            self.must_move[main].append(player)
        self._record("seat", player, key, by, table, seat, "")
        if reopen is not None and reopen[0] in self.table_key:
            out += self.seat_opened(reopen[0], reopen[1], "system")
        out += self._fill_open()
        return out

    def seat_opened(self, table: str, seat: int, by: str, player: str | None = None, detail: str = "") -> list[Call]:
        """The table reports ``seat`` free (``player`` stood up). Call the first eligible
        player of the table's list; return the calls made (none when nobody is eligible;
        the seat stays open for the next to join). An acceptance of that seat ends.
        ``detail``: recorded with the opening.

        Raises:
            WaitListError: the table's game is not known (:meth:`table`).
        """
        key = self.table_key.get(table)
        if key is None:
            raise WaitListError(f"table {table!r}: its game and stakes are not known")
        self.accepted.pop((table, seat), None)
        if player is not None and self.seated.get(player) == (table, seat):
            del self.seated[player]
            for lst in list(self.must_move.values()) + list(self.changes.values()):
                if player in lst:
                    lst.remove(player)
        if (table, seat) in self.openings:
            return []  # already open (a repeated report): one opening, at most one call
        o = _Opening(key, table, seat, self.clock())
        self.openings[(table, seat)] = o
        self._record("open", player or "", key, by, table, seat, detail)
        out: list[Call] = []
        self._call_next(o, out)
        return out

    def seat_closed(self, table: str, seat: int, by: str) -> None:
        """The seat is no longer to be filled (table closed, seat taken off): its call ends."""
        o = self.openings.pop((table, seat), None)
        self.accepted.pop((table, seat), None)
        if o and o.call:
            self._record("cancel", o.call.player, o.key, by, table, seat, "seat closed")

    # ------------------------------------------------------------------ the players
    def join(self, key: ListKey, player: str, by: str, detail: str = "") -> list[Call]:
        """Put ``player`` at the end of list ``key``; return the calls this makes (a seat of
        that game open with nobody eligible is called now). ``detail``: added to the log's
        entry after the place (``via table t1 seat 3``: asked from that seat's tablet).

        Raises:
            WaitListError: ``player`` is empty or already on that list.
        """
        if not player:
            raise WaitListError("a player's id is required")
        lst = self.lists.setdefault(key, [])
        if player in lst:
            raise WaitListError(f"{player} is already on the {key} list (place {lst.index(player) + 1})")
        lst.append(player)
        self._record("join", player, key, by, detail=f"place {len(lst)}" + (f", {detail}" if detail else ""))
        return self._fill_open(key)

    def request_change(self, player: str, by: str) -> list[Call]:
        """``player``, seated, asks to move to another table of the same game (priority
        over that game's list). Return the calls this makes.

        Raises:
            WaitListError: the player is not seated, or has asked already.
        """
        where = self.seated.get(player)
        if where is None or where[0] not in self.table_key:
            raise WaitListError(f"{player} is not seated at a known table")
        key = self.table_key[where[0]]
        lst = self.changes.setdefault(key, [])
        if player in lst:
            raise WaitListError(f"{player} has asked for a table change already")
        lst.append(player)
        self._record("change-request", player, key, by, where[0], where[1], "")
        return self._fill_open(key)

    def leave(self, key: ListKey, player: str, by: str, reason: str = "") -> list[Call]:
        """Take ``player`` off list ``key`` (their call for a seat of it ends and the next
        player is called). Return the calls this makes.

        Raises:
            WaitListError: ``player`` is not on that list.
        """
        lst = self.lists.get(key, [])
        if player not in lst:
            raise WaitListError(f"{player} is not on the {key} list")
        lst.remove(player)
        self._record("leave" if by == player else "remove", player, key, by, detail=reason)
        out: list[Call] = []
        for o in list(self.openings.values()):
            if o.call and o.call.player == player and o.key == key and o.call.source == "list":
                o.call = None
                self._call_next(o, out)
        return out

    def _opening_of(self, player: str) -> _Opening:
        for o in self.openings.values():
            if o.call and o.call.player == player:
                return o
        raise WaitListError(f"{player} has no call outstanding")

    def accept(self, player: str, by: str) -> list[Call]:
        """``player`` takes the seat they were called for: seated there, off every list; a
        change or must-move player's old seat opens (and is called). Return new calls.

        Raises:
            WaitListError: ``player`` has no call outstanding (or it lapsed).
        """
        self.expire()
        o = self._opening_of(player)
        assert o.call is not None, "an opening held for a player has its call"
        del self.openings[(o.table, o.seat)]
        old = self.seated.get(player)
        self._drop(player)
        self.seated[player] = (o.table, o.seat)
        self.accepted[(o.table, o.seat)] = (player, self.clock())
        self._record("seat", player, o.key, by, o.table, o.seat, f"accepted ({o.call.source})")
        out: list[Call] = []
        main = self.feeds.get(o.table)
        if main is not None:
            self.must_move.setdefault(main, []).append(player)
        if old is not None and old[0] in self.table_key:  # named: the seat they leave for this one
            out += self.seat_opened(old[0], old[1], "system", player=player, detail=f"{player} moves to "
                                    f"{o.table} seat {o.seat}")
        out += self._fill_open()
        return out

    def pass_(self, player: str, by: str) -> list[Call]:
        """``player`` passes on the seat they were called for: they keep their place; the
        next eligible player is called for it. Return the calls this makes.

        Raises:
            WaitListError: ``player`` has no call outstanding.
        """
        self.expire()
        o = self._opening_of(player)
        o.passed.add(player)
        o.call = None
        self._record("pass", player, o.key, by, o.table, o.seat, "keeps the place")
        out: list[Call] = []
        self._call_next(o, out)
        out += self._fill_open()
        return out

    def expire(self) -> list[Call]:
        """Lapse every call past its hold: the player is taken off the list (a no-show) and
        the next eligible player is called. Lapse every acceptance the table has not confirmed
        within ``seat_seconds``: the seat opens again (an ``open`` naming the player) and is
        called. Return the calls this makes."""
        now = self.clock()
        out: list[Call] = []
        for (t, n), (p, at) in sorted(self.accepted.items(), key=lambda kv: (kv[1][1], kv[0])):
            if now >= at + self.seat_seconds and t in self.table_key:
                out += self.seat_opened(t, n, "system", player=p,
                                        detail=f"{p} accepted but was not seen seated by the table within "
                                               f"{self.seat_seconds:.0f} s")
        for o in sorted(self.openings.values(), key=lambda o: (o.opened, o.table, o.seat)):
            c = o.call
            if c is not None and now >= c.until:
                o.call = None
                o.passed.add(c.player)
                self._record("lapse", c.player, o.key, "system", o.table, o.seat, "no answer in time")
                if c.source == "list" and c.player in self.lists.get(o.key, []):
                    self.lists[o.key].remove(c.player)
                    self._record("remove", c.player, o.key, "system", detail="call lapsed")
                elif c.source == "change" and c.player in self.changes.get(o.key, []):
                    self.changes[o.key].remove(c.player)
                self._call_next(o, out)
        out += self._fill_open()
        return out

    def restore(self, entries: list[Entry]) -> None:
        """Rebuild the lists from a stored log (a room service started again): who is on
        which list in which order, table-change requests, must-move players and tables, who
        sits where, the accepted seats the tables have not reported taken yet (with their
        acceptance's time: :attr:`accepted`). Nothing is recorded again but this: the calls that
        were out (a stop or a kill -9 came before their answer) are closed in the log, each a
        ``cancel`` by ``restart`` (an operation of its own), so the log stays checkable
        (:func:`room.fairness.check_log`); the caller offers the free seats again
        (:meth:`seat_opened`)."""
        source: dict[str, str] = {}
        out: dict[tuple[str, int], tuple[str, ListKey | None]] = {}  # seat -> its call still out
        for e in entries:
            k, p = e.key, e.player
            where = (e.table, e.seat) if e.table is not None and e.seat is not None else None
            if where is not None:
                if e.action == "call":
                    out[where] = (p, k)
                elif e.action in ("pass", "lapse", "cancel", "open", "seat"):
                    out.pop(where, None)
                if e.action == "open" or e.action == "seat" and not e.detail.startswith("accepted"):
                    self.accepted.pop(where, None)
                    for w, (q, _) in list(self.accepted.items()):
                        if q == p and e.action == "seat":
                            del self.accepted[w]
                elif e.action == "seat":
                    self.accepted[where] = (p, e.at)
                elif e.action == "cancel" and e.detail.startswith("accepted seat taken"):
                    self.accepted.pop(where, None)
            elif e.action in ("leave", "remove") and e.detail != "seated without a call":
                for w, (q, ck) in list(out.items()):
                    if q == p and ck == k:
                        del out[w]
            if e.action == "join" and k is not None and p not in self.lists.setdefault(k, []):
                self.lists[k].append(p)
            elif e.action in ("leave", "remove") and k is not None and p in self.lists.get(k, []):
                self.lists[k].remove(p)
            elif e.action == "change-request" and k is not None and p not in self.changes.setdefault(k, []):
                self.changes[k].append(p)
            elif e.action == "feed" and k is not None and e.table:
                self.feeds[e.table] = k
            elif e.action == "feed-list" and k is not None and e.detail.startswith("feeds "):
                try:
                    main, _ = json.JSONDecoder().raw_decode(e.detail, len("feeds "))
                    self.list_feeds[k] = ListKey(str(main["game"]), str(main["stakes"]))
                except (ValueError, KeyError, TypeError, RecursionError):  # damaged: the tables' feeds still hold
                    pass
            elif e.action == "call":
                source[p] = e.detail.split(";")[0]
            elif e.action == "lapse" and source.get(p) == "change" and k is not None and p in self.changes.get(k, []):
                self.changes[k].remove(p)
            elif e.action == "open" and p and e.table is not None and self.seated.get(p) == (e.table, e.seat):
                del self.seated[p]
                for lst in list(self.must_move.values()) + list(self.changes.values()):
                    if p in lst:
                        lst.remove(p)
            elif e.action == "seat" and e.table is not None and e.seat is not None:
                if e.detail.startswith("accepted"):
                    self._drop(p)
                self.seated[p] = (e.table, e.seat)
                main = self.feeds.get(e.table)
                if main is not None and p not in self.must_move.setdefault(main, []):
                    self.must_move[main].append(p)
            elif e.action == "cancel" and e.detail.startswith("accepted seat taken") and where is not None \
                    and self.seated.get(p) == where:
                del self.seated[p]
        for (t, n), (p, k) in sorted(out.items()):
            self._record("cancel", p, k, "restart", t, n, "restart: the call ended; the seat is offered again")

    # ------------------------------------------------------------------ the floor's answers
    def why(self, player: str) -> list[Entry]:
        """Return every recorded change about ``player``, and every seat given on a list
        ``player`` was on while they were on it (the floor's "why was he seated before me")."""
        spans: list[tuple[ListKey, int, float]] = []
        start: dict[ListKey, int] = {}
        for i, e in enumerate(self.log):
            if e.player != player:
                continue
            if e.action == "join" and e.key:
                start[e.key] = i
            elif e.action in ("leave", "remove", "seat") and e.key in start:
                spans.append((e.key, start.pop(e.key), i))
        spans += [(k, i, float("inf")) for k, i in start.items()]
        return [e for i, e in enumerate(self.log)
                if e.player == player or (e.action in ("call", "seat", "pass", "lapse")
                                          and any(e.key == k and a <= i <= b for k, a, b in spans))]

    def snapshot(self) -> dict[str, Any]:
        """Return the lists, open seats and calls as JSON (the floor's list view, the lobby)."""
        keys = sorted(set(self.lists) | set(self.table_key.values()) | set(self.changes))
        return {"lists": [{**k.to_json(), "players": list(self.lists.get(k, [])),
                           "changes": list(self.changes.get(k, [])),
                           "must_move": list(self.must_move.get(k, []))} for k in keys],
                "open": [{"table": o.table, "seat": o.seat, **o.key.to_json(), "opened": o.opened,
                          "call": o.call.to_json() if o.call else None}
                         for o in sorted(self.openings.values(), key=lambda o: (o.opened, o.table, o.seat))]}
