"""Seating draws, balancing and breaking tables, and the final-table redraw (TDA 7, 10, 11).

Pure functions over a description of tables: each :class:`Tables` entry lists who sits in
which seat and which seat was the big blind in its last hand. They return the moves to
carry out (between hands; the table does that, not yet wired) and the tables after them.
Randomness comes only from the ``random.Random`` passed in (seed it to replay a draw).

Seats are numbered 1..n clockwise. The next hand's big blind is the first occupied seat
clockwise after the last big blind's seat, and the next small blind is the last big
blind's seat (moving button, dead small blind) - the order the table's dead-button rules
give (not yet wired, docs/tournament.md).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Sequence

from .errors import BalancingError

__all__ = [
    "Table",
    "Move",
    "random_draw",
    "next_big_blind",
    "worst_empty_seats",
    "balance",
    "short_tables",
    "tables_needed",
    "break_table",
    "final_table_redraw",
    "free_seats_after_break",
    "rebalance",
]


@dataclass(frozen=True, slots=True)
class Table:
    """One table: ``table_id``, ``seats`` (index 0 = seat 1; a player id or ``None``),
    ``last_big_blind`` (the seat number that posted the big blind in the last hand, or
    ``None`` before the table's first hand).

    Raises:
        BalancingError: no seats, a player seated twice, ``last_big_blind`` out of range.
    """

    table_id: str
    seats: tuple[str | None, ...]
    last_big_blind: int | None = None

    def __post_init__(self) -> None:
        if not self.seats:
            raise BalancingError(f"table {self.table_id}: no seats")
        players = [p for p in self.seats if p is not None]
        if len(players) != len(set(players)):
            raise BalancingError(f"table {self.table_id}: a player seated twice: {players}")
        if self.last_big_blind is not None and not 1 <= self.last_big_blind <= len(self.seats):
            raise BalancingError(f"table {self.table_id}: last_big_blind {self.last_big_blind} is no seat")

    @property
    def players(self) -> tuple[str, ...]:
        """Return the seated players, seat 1 first."""
        return tuple(p for p in self.seats if p is not None)

    @property
    def count(self) -> int:
        """Return how many players are seated."""
        return len(self.players)

    def seat_of(self, player: str) -> int | None:
        """Return ``player``'s seat number, or ``None`` when not at this table."""
        try:
            return self.seats.index(player) + 1
        except ValueError:
            return None

    def with_seat(self, seat: int, player: str | None) -> "Table":
        """Return this table with ``seat`` (1-based) holding ``player`` (or emptied)."""
        seats = list(self.seats)
        seats[seat - 1] = player
        return replace(self, seats=tuple(seats))


@dataclass(frozen=True, slots=True)
class Move:
    """One player moved: from ``from_table`` seat ``from_seat`` (``None``/0 for a new
    entry or a redraw from nowhere) to ``to_table`` seat ``to_seat``; ``reason`` is
    ``"balance"`` (TDA 11), ``"break"`` (TDA 10), ``"redraw"`` (final table) or ``"draw"``."""

    player: str
    from_table: str | None
    from_seat: int
    to_table: str
    to_seat: int
    reason: str


def _clockwise(table: Table) -> list[int]:
    """Seat numbers in the order they reach the big blind: clockwise after the last big
    blind, that seat itself last (it is the next small blind)."""
    n = len(table.seats)
    start = table.last_big_blind or n  # before the first hand: seat 1 first
    return [(start + d - 1) % n + 1 for d in range(1, n + 1)]


def next_big_blind(table: Table) -> int | None:
    """Return the seat of the player who will be the big blind next, or ``None`` when empty."""
    for seat in _clockwise(table):
        if table.seats[seat - 1] is not None:
            return seat
    return None


def worst_empty_seats(table: Table) -> list[int]:
    """Return the empty seats, worst position first (TDA 11A): the seat that will be the
    big blind soonest first - a seat before the next big blind takes the single big blind
    at once - and the next small blind's seat never first (last).
    """
    return [s for s in _clockwise(table) if table.seats[s - 1] is None]


def random_draw(players: Sequence[str], table_ids: Sequence[str], seats_per_table: int,
                rng: random.Random) -> list[Table]:
    """Seat ``players`` at random at the tables ``table_ids`` (TDA 7: random seats).

    Two steps, each random: a table among those with the fewest players (so table sizes
    differ by at most one), then an empty seat at it.

    Raises:
        BalancingError: more players than seats, a player twice, no tables.
    """
    if not table_ids:
        raise BalancingError("draw: no tables")
    if len(set(players)) != len(players):
        raise BalancingError("draw: a player listed twice")
    if len(players) > len(table_ids) * seats_per_table:
        raise BalancingError(f"draw: {len(players)} players for {len(table_ids)} tables of {seats_per_table}")
    tables = {t: Table(t, (None,) * seats_per_table) for t in table_ids}
    order = list(players)
    rng.shuffle(order)
    for p in order:
        _, tables = _place_randomly(p, None, 0, tables, list(table_ids), rng, "draw")
    return [tables[t] for t in table_ids]


def _place_randomly(player, from_table, from_seat, tables: dict, candidates: list[str],
                    rng: random.Random, reason: str) -> tuple[Move, dict]:
    open_tables = [t for t in candidates if tables[t].count < len(tables[t].seats)]
    if not open_tables:
        raise BalancingError(f"no empty seat for {player}")
    fewest = min(tables[t].count for t in open_tables)
    table_id = rng.choice([t for t in open_tables if tables[t].count == fewest])
    empty = [i + 1 for i, p in enumerate(tables[table_id].seats) if p is None]
    seat = rng.choice(empty)
    tables = dict(tables)
    tables[table_id] = tables[table_id].with_seat(seat, player)
    return Move(player, from_table, from_seat, table_id, seat, reason), tables


def _check_tables(tables: Sequence[Table]) -> None:
    ids = [t.table_id for t in tables]
    if len(ids) != len(set(ids)):
        raise BalancingError(f"a table listed twice: {ids}")
    everyone = [p for t in tables for p in t.players]
    if len(everyone) != len(set(everyone)):
        raise BalancingError("a player seated at two tables")


def balance(tables: Sequence[Table], order: Sequence[str]) -> tuple[list[Move], list[Table]]:
    """Move players until table sizes differ by at most one (TDA 11).

    Each move (TDA 11A, flop games): from the table with the most players, the player who
    will be the big blind next moves to the worst position at the table with the fewest:
    the empty seat that will be the big blind soonest, taking the single big blind if it
    is open (even if he just paid it), never the small blind. TDA 11C, the table a player is
    moved from is set by a predetermined procedure: among the fullest tables, the first in
    ``order``; the player goes to the shortest table last in ``order`` (``order`` is the
    order tables break in, so a moved player is least likely to move again).

    Returns the moves in the order they are made and the tables after them (same order).
    Tables of different sizes: balancing stops when the shortest table has no empty seat.

    Raises:
        BalancingError: ``order`` does not list every table, a player seated twice.
    """
    _check_tables(tables)
    rank = {t: i for i, t in enumerate(order)}
    if any(t.table_id not in rank for t in tables):
        raise BalancingError(f"balance: order {list(order)} misses a table")
    state = {t.table_id: t for t in tables}
    moves: list[Move] = []
    while True:
        counts = {k: t.count for k, t in state.items()}
        hi, lo = max(counts.values()), min(counts.values())
        if hi - lo <= 1:
            break
        src = min((k for k in state if counts[k] == hi), key=rank.__getitem__)
        open_short = [k for k in state if counts[k] == lo and counts[k] < len(state[k].seats)]
        if not open_short:  # tables of different sizes: the shortest one is full
            break
        dst = max(open_short, key=rank.__getitem__)
        from_seat = next_big_blind(state[src])
        assert from_seat is not None  # hi >= 2
        player = state[src].seats[from_seat - 1]
        assert player is not None  # next_big_blind names an occupied seat
        to_seat = worst_empty_seats(state[dst])[0]
        state[src] = state[src].with_seat(from_seat, None)
        state[dst] = state[dst].with_seat(to_seat, player)
        moves.append(Move(player, src, from_seat, dst, to_seat, "balance"))
    return moves, [state[t.table_id] for t in tables]


def short_tables(tables: Sequence[Table], short_by: int = 3) -> list[str]:
    """Return the tables that halt play until balanced: ``short_by`` or more players fewer
    than the table with the most (TDA 11D, full-table play: 3)."""
    if not tables:
        return []
    most = max(t.count for t in tables)
    return [t.table_id for t in tables if most - t.count >= short_by]


def tables_needed(players: int, seats_per_table: int) -> int:
    """Return how many tables ``players`` need: ceil(players / seats_per_table), at least 1."""
    return max(1, -(-players // seats_per_table))


def break_table(tables: Sequence[Table], table_id: str, rng: random.Random) -> tuple[list[Move], list[Table]]:
    """Break ``table_id``: its players get new tables and seats by a two-step random draw
    (TDA 10: a table, then a seat; any seat, blinds and button included). Each draw picks
    among the tables with the fewest players, so sizes stay within one of each other.

    Returns the moves (in draw order) and the remaining tables (``table_id`` left out).

    Raises:
        BalancingError: an unknown table, not enough empty seats elsewhere.
    """
    _check_tables(tables)
    state = {t.table_id: t for t in tables}
    if table_id not in state:
        raise BalancingError(f"break: no table {table_id}")
    broken = state.pop(table_id)
    free = sum(len(t.seats) - t.count for t in state.values())
    if broken.count > free:
        raise BalancingError(f"break: {broken.count} players, {free} empty seats elsewhere")
    movers = [(p, broken.seat_of(p)) for p in broken.players]
    rng.shuffle(movers)
    moves = []
    for p, seat in movers:
        move, state = _place_randomly(p, table_id, seat, state, list(state), rng, "break")
        moves.append(move)
    return moves, [state[t.table_id] for t in tables if t.table_id != table_id]


def final_table_redraw(tables: Sequence[Table], final_table_id: str, seats_per_table: int,
                       rng: random.Random) -> tuple[list[Move], Table]:
    """Redraw every remaining player for a random seat at the final table (a room's
    custom the issue asks for; the TDA leaves it to the house). The new table has no
    last big blind: the button is drawn again before its first hand.

    Raises:
        BalancingError: more players than seats.
    """
    _check_tables(tables)
    players = [(t.table_id, s + 1, p) for t in tables for s, p in enumerate(t.seats) if p is not None]
    if len(players) > seats_per_table:
        raise BalancingError(f"redraw: {len(players)} players for {seats_per_table} seats")
    seats = rng.sample(range(1, seats_per_table + 1), len(players))
    final: list[str | None] = [None] * seats_per_table
    moves = []
    for (tid, from_seat, p), seat in zip(players, seats):
        final[seat - 1] = p
        moves.append(Move(p, tid, from_seat, final_table_id, seat, "redraw"))
    return moves, Table(final_table_id, tuple(final))


def free_seats_after_break(tables: Sequence[Table], table_id: str) -> int:
    """Return the empty seats the tables other than ``table_id`` would have once its
    players sat there (seats; negative: they do not fit)."""
    rest = [t for t in tables if t.table_id != table_id]
    return sum(len(t.seats) - t.count for t in rest) - sum(t.count for t in tables if t.table_id == table_id)


def rebalance(tables: Sequence[Table], break_order: Sequence[str], seats_per_table: int,
              rng: random.Random, final_redraw: bool = True, reserve: int = 0) -> tuple[list[Move], list[Table]]:
    """Everything the room does between hands: break tables in ``break_order`` while the
    players fit at one table fewer (TDA 10), then balance (TDA 11); when one table is
    left and ``final_redraw``, redraw it (the final table keeps the id of the last table
    in ``break_order``, the one that never breaks).

    ``reserve`` (seats, >= 0): the next table in ``break_order`` is broken only if the
    tables left keep at least that many empty seats after its players sit down (late
    registration: seats kept for late entries, TDA 9; the room passes the tournament's
    ``late_registration_free_seats`` while it is open, 0 after). Breaking stops at the first
    table the reserve keeps (never a later one first: the order of TDA 10 stands); balancing
    (TDA 11) goes on as usual. The reserve keeps no table when there are fewer than two
    players a table (a table of one deals no hand: it would wait for registration to close).

    Returns all moves in order and the tables after them.

    Raises:
        BalancingError: ``break_order`` misses a table, a player seated twice, ``reserve`` < 0.
    """
    _check_tables(tables)
    if any(t.table_id not in break_order for t in tables):
        raise BalancingError(f"rebalance: break order {list(break_order)} misses a table")
    if reserve < 0:
        raise BalancingError(f"rebalance: reserve must be >= 0 seats, got {reserve}")
    moves: list[Move] = []
    state = list(tables)
    broke = False
    while len(state) > tables_needed(sum(t.count for t in state), seats_per_table):
        playing = {t.table_id for t in state}
        victim = next(t for t in break_order if t in playing)
        players = sum(t.count for t in state)
        if free_seats_after_break(state, victim) < reserve and players >= 2 * len(state):
            break  # TDA 9: seats kept for late entries; the break waits for registration to close
        more, state = break_table(state, victim, rng)
        moves += more
        broke = True
    if len(state) == 1 and broke and final_redraw:
        more, final = final_table_redraw(state, state[0].table_id, seats_per_table, rng)
        return moves + more, [final]
    more, state = balance(state, break_order)
    return moves + more, state
