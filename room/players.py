"""Players in the room's store (issue 18): accounts, sessions at the tables, and the seat
changes that drive the waiting lists.

:class:`Players` is an observer of :class:`room.apply.Room`: after every table event the room
replays (the tables' own journal records: joins, buy-ins, top-ups, stand-ups, cash-outs,
hands), in the same transaction, it compares the seats before and after and

- opens a **session** when a player takes a seat (``room_sessions``: table, seat, player,
  start time and the journal position) and an **account** the first time the room sees the
  player (``room_players``: the id the tables know the player by, their name; the floor adds
  the card number with :meth:`Players.register`);
- keeps the session's chips up to date from the table's ledger: ``buy_in``, ``top_ups``,
  ``cash_out``, ``won`` (net of rake), ``hands`` — each the account's meter now less its
  value when the session began (integers, chips);
- closes it when the seat empties or changes hands (end time and position); hours are
  ``ended_at - started_at`` (or up to now for an open session);
- queues the seat's change for the waiting lists (:attr:`Players.pending`, drained by the
  service after the transaction commits, so a batch rolled back calls nobody):
  ``("opened", table, seat, player, seq)`` the moment a player stands up, ``("taken",
  table, seat, player, seq)`` when one sits, ``("table", table, key, seq)`` with the
  table's game and stakes, ``("state", table, TableState, seq)`` when its seats or settings
  changed (the lobby's entry); ``seq`` is the journal record's.

Because it derives everything from the records and the records are applied once each, in
order (``(table, seq)``), a resend or a room service killed mid-batch counts nothing twice.
A table seen first through a base snapshot with players already seated opens their sessions
at the first seat change of that table (their start is then that moment, not when they sat).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from room.store import Store
from room.waitlist import ListKey

__all__ = ["Players", "PlayerError", "AccountExistsError", "list_key"]


class PlayerError(ValueError):
    """A refused account change (duplicate card number, empty name); nothing was written."""


class AccountExistsError(PlayerError):
    """A new account under an id that has one already (the desk answers 409); nothing was written."""


def list_key(settings: Any) -> ListKey:
    """Return the waiting list of a table's settings: game ``"<limit> <game>"`` (e.g.
    ``"no-limit holdem"``), stakes ``"<sb>/<bb>"`` (chips; ``"/ante <n>"`` added with an ante)."""
    stakes = f"{settings.small_blind}/{settings.big_blind}"
    if getattr(settings, "ante", 0):
        stakes += f" ante {settings.ante}"
    return ListKey(f"{settings.limit} {settings.game}", stakes)


def _occupants(state: Any) -> dict[int, tuple[str, str]]:
    if state is None:
        return {}
    return {s.seat: (s.player, s.name) for s in state.seats if s is not None}


class Players:
    """Accounts and sessions in ``store`` (see the module's text).

    Args:
        store: the room's store (migrated with :mod:`room.players_schema`).
        clock: Unix seconds (hours of open sessions, accounts' creation).
    """

    def __init__(self, store: Store, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock
        self.pending: list[tuple[Any, ...]] = []
        self._keys: dict[str, ListKey] = {}

    def attach(self, room: Any) -> "Players":
        """Observe ``room`` (a :class:`room.apply.Room`); return self."""
        room.observers.append(self.observe)
        return self

    # ------------------------------------------------------------------ the observer
    def observe(self, tx: Any, table: str, seq: int, at: float, before: Any, after: Any) -> None:
        """Update sessions and accounts for one applied table event (in ``tx``)."""
        key = list_key(after.settings)
        old, new = _occupants(before), _occupants(after)
        moved = old != new
        if self._keys.get(table) != key:
            self._keys[table] = key
            self.pending.append(("table", table, key, seq))
        if moved or before is None or before.settings is not after.settings:
            self.pending.append(("state", table, after, seq))
        money = before is None or before.ledger.total_in != after.ledger.total_in or \
            before.ledger.total_out != after.ledger.total_out or before.hands != after.hands
        if not moved and not money:
            return
        open_rows = {int(r[1]): (int(r[0]), str(r[2])) for r in tx.execute(
            "SELECT id, seat, player FROM room_sessions WHERE table_id = ? AND ended_at IS NULL",
            (table,)).fetchall()}
        led_after = after.ledger
        # close the sessions whose seat emptied or changed hands
        for seat, (sid, player) in open_rows.items():
            if new.get(seat, ("",))[0] != player:
                self._figures(tx, sid, player, led_after)
                tx.execute("UPDATE room_sessions SET ended_at = ?, end_seq = ? WHERE id = ?", (at, seq, sid))
                if seat not in new:
                    self.pending.append(("opened", table, seat, player, seq))
        # open the sessions of new occupants
        base = before.ledger if before is not None else led_after
        for seat, (player, name) in new.items():
            if open_rows.get(seat, (0, ""))[1] == player:
                continue
            tx.execute("INSERT INTO room_players(player, name, created_at) VALUES (?,?,?)"
                       " ON CONFLICT (player) DO NOTHING", (player, name or player, at))
            acct = base.accounts.get(player)
            b = (acct.bought_in, acct.topped_up, acct.cashed_out, acct.won, acct.hands) if acct else (0,) * 5
            tx.execute("INSERT INTO room_sessions(table_id, seat, player, name, started_at, start_seq, base_in,"
                       " base_top, base_out, base_won, base_hands) VALUES (?,?,?,?,?,?,?,?,?,?,?)"
                       " ON CONFLICT (table_id, start_seq, seat) DO NOTHING",
                       (table, seat, player, name or player, at, seq, *b))
            self.pending.append(("taken", table, seat, player, seq))
        # chips of the sessions still open
        for sid, player in tx.execute(
                "SELECT id, player FROM room_sessions WHERE table_id = ? AND ended_at IS NULL", (table,)).fetchall():
            self._figures(tx, int(sid), str(player), led_after)

    @staticmethod
    def _figures(tx: Any, sid: int, player: str, ledger: Any) -> None:
        acct = ledger.accounts.get(player)
        if acct is None:
            return
        tx.execute("UPDATE room_sessions SET buy_in = ? - base_in, top_ups = ? - base_top, cash_out = ? - base_out,"
                   " won = ? - base_won, hands = ? - base_hands WHERE id = ?",
                   (acct.bought_in, acct.topped_up, acct.cashed_out, acct.won, acct.hands, sid))

    # ------------------------------------------------------------------ accounts
    def register(self, player: str, name: str, card: str | None = None) -> dict[str, Any]:
        """Create or update ``player``'s account (the floor, or the phone page's sign-up).

        Args:
            player: the id the tables know the player by (1..64 characters).
            name: the name shown; card: the room's card number (unique) or None.

        Raises:
            PlayerError: an empty id or name, or a card number another player holds.
            room.store.StoreError: the database failed.
        """
        if not player or len(player) > 64 or not name or not name.strip():
            raise PlayerError("a player needs an id (1..64 characters) and a name")
        if card is not None:
            card = card.strip() or None
        if card:
            held = self.store.query("SELECT player FROM room_players WHERE card = ?", (card,))
            if held and held[0][0] != player:
                raise PlayerError(f"card {card} belongs to another player")
        with self.store.transaction() as tx:
            tx.execute("INSERT INTO room_players(player, name, card, created_at) VALUES (?,?,?,?)"
                       " ON CONFLICT (player) DO UPDATE SET name = excluded.name, card = excluded.card",
                       (player, name.strip(), card, self.clock()))
        acct = self.account(player)
        assert acct is not None
        return acct

    def account(self, player: str) -> dict[str, Any] | None:
        """Return ``{"player", "name", "card", "created_at", "sessions", "hours", "buy_in",
        "top_ups", "cash_out", "won"}`` (totals over the player's sessions), or None."""
        rows = self.store.query("SELECT player, name, card, created_at FROM room_players WHERE player = ?", (player,))
        if not rows:
            return None
        s = self.sessions(player)
        return {"player": rows[0][0], "name": rows[0][1], "card": rows[0][2], "created_at": rows[0][3],
                "sessions": len(s), "hours": round(sum(x["hours"] for x in s), 3),
                **{k: sum(x[k] for x in s) for k in ("buy_in", "top_ups", "cash_out", "won")}}

    def find(self, text: str) -> list[dict[str, Any]]:
        """Return the accounts whose card number equals ``text`` or whose id or name
        contains it (case-insensitive), at most 50."""
        t = text.strip().lower()
        rows = self.store.query(
            "SELECT player FROM room_players WHERE card = ? OR LOWER(player) LIKE ? OR LOWER(name) LIKE ?"
            " ORDER BY name LIMIT 50", (text.strip(), f"%{t}%", f"%{t}%"))
        return [a for a in (self.account(r[0]) for r in rows) if a]

    def sessions(self, player: str | None = None, table: str | None = None,
                 open_only: bool = False) -> list[dict[str, Any]]:
        """Return sessions (of one player, one table, or all; newest first): ``table``,
        ``seat``, ``player``, ``name``, ``started``, ``ended`` (None while seated), ``hours``,
        ``buy_in``, ``top_ups``, ``cash_out``, ``won``, ``hands`` (chips: integers)."""
        where, args = ["1=1"], []
        if player is not None:
            where.append("player = ?")
            args.append(player)
        if table is not None:
            where.append("table_id = ?")
            args.append(table)
        if open_only:
            where.append("ended_at IS NULL")
        now = self.clock()
        out = []
        for r in self.store.query(
                "SELECT table_id, seat, player, name, started_at, ended_at, buy_in, top_ups, cash_out, won, hands"
                f" FROM room_sessions WHERE {' AND '.join(where)} ORDER BY started_at DESC, id DESC", args):
            end = r[5] if r[5] is not None else max(now, r[4])
            out.append({"table": r[0], "seat": int(r[1]), "player": r[2], "name": r[3], "started": r[4],
                        "ended": r[5], "hours": round((end - r[4]) / 3600, 3), "buy_in": int(r[6]),
                        "top_ups": int(r[7]), "cash_out": int(r[8]), "won": int(r[9]), "hands": int(r[10])})
        return out

    def record_waitlist(self, entry: Any) -> None:
        """Store one :class:`room.waitlist.Entry` in ``room_waitlist_log``; a failing database
        is logged by the caller (:class:`room.store.StoreError`)."""
        with self.store.transaction() as tx:
            tx.execute("INSERT INTO room_waitlist_log(at, action, player, game, stakes, by_name, table_id, seat,"
                       " detail) VALUES (?,?,?,?,?,?,?,?,?)",
                       (entry.at, entry.action, entry.player, entry.key.game if entry.key else None,
                        entry.key.stakes if entry.key else None, entry.by, entry.table, entry.seat, entry.detail))

    def waitlist_entries(self) -> list[Any]:
        """Return the whole stored waiting-list log as :class:`room.waitlist.Entry`, oldest
        first (:meth:`room.waitlist.WaitingLists.restore` rebuilds the lists from it)."""
        from room.waitlist import Entry

        return [Entry(float(r[0]), str(r[1]), str(r[2]), ListKey(r[3], r[4]) if r[3] is not None else None, str(r[5]),
                      r[6], int(r[7]) if r[7] is not None else None, str(r[8]))
                for r in self.store.query("SELECT at, action, player, game, stakes, by_name, table_id, seat, detail"
                                          " FROM room_waitlist_log ORDER BY id")]

    def waitlist_log(self, player: str | None = None, limit: int = 500) -> list[dict[str, Any]]:
        """Return the stored waiting-list changes (of one player, or all), oldest first."""
        args: list[Any] = []
        where = ""
        if player:
            where, args = "WHERE player = ?", [player]
        rows = self.store.query(
            f"SELECT at, action, player, game, stakes, by_name, table_id, seat, detail FROM room_waitlist_log {where}"
            " ORDER BY id DESC LIMIT ?", [*args, max(1, min(int(limit), 5000))])
        return [{"at": r[0], "action": r[1], "player": r[2], "list": f"{r[3]} {r[4]}" if r[3] else None,
                 "by": r[5], "table": r[6], "seat": r[7], "detail": r[8]} for r in reversed(rows)]


