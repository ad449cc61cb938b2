"""Entries, rebuys, add-ons, bust-outs, places, the prize pool and the payouts (issue 19).

Money (prices, fees, prize pool, prizes) is in the room's money unit; chips are chips; both
are integers. Two conservation laws hold and are tested:

- chips in play = starting stacks of every entry + rebuy chips + add-on chips
  (+ what chip races added or removed, :meth:`Standings.adjust_chips`);
- the prizes paid sum to the prize pool, to the unit (:func:`payout_amounts`, :func:`prizes`).

Places come from the bust-out order (the last player standing is 1st). Players busted in
the same hand - at one table, or at different tables in one hand-for-hand hand - are
placed by the chips they started that hand with, more chips the better place; with equal
starting stacks they tie and share the prizes of the places they cover (TDA, simultaneous
eliminations; docs/tournament.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from .errors import TournamentError
from .settings import Payouts, TournamentSettings

__all__ = ["Entry", "Finish", "Standings", "payout_amounts", "prizes"]


@dataclass(frozen=True, slots=True)
class Entry:
    """One buy-in: ``entry_id`` (1, 2, ... in registration order), the ``player`` who bought
    it, ``reentry`` True for a re-entry (a new entry after a bust)."""

    entry_id: int
    player: str
    reentry: bool


@dataclass(frozen=True, slots=True)
class Finish:
    """Where an entry finished: ``place`` (1 = winner) and ``tied_to`` the worst place of
    a tie (== ``place`` when not tied; a tie covers places ``place..tied_to``)."""

    entry_id: int
    player: str
    place: int
    tied_to: int


class Standings:
    """Entries, purchases and bust-outs of one tournament; places and chips from them.

    Levels are passed in by the caller (from the clock): ``level`` is the number of the
    level being played (0 before the start). Every method validates before it changes
    anything: an error leaves the standings as they were.

    Raises:
        TournamentError: registration closed, a player already alive, no re-entry left,
            a rebuy or add-on not allowed now, an unknown or already busted player.
    """

    def __init__(self, settings: TournamentSettings) -> None:
        self.settings = settings
        self.entries: list[Entry] = []
        self._alive: dict[str, int] = {}  # player -> live entry id
        self._rebuys: dict[str, int] = {}
        self._addons: dict[str, int] = {}
        self._groups: list[list[tuple[int, int]]] = []  # per busting hand: (entry id, starting stack)
        self._chip_adjust = 0

    # -- money in --------------------------------------------------------------------------
    def register(self, player: str, level: int, *, name: str | None = None) -> Entry:
        """Buy an entry (or a re-entry, after a bust) for ``player`` at level ``level``
        (``name``: the player as the floor knows him, for the refusals; default ``player``).

        Late registration: entries are accepted until level
        ``settings.late_registration_until_level`` ends (TDA 9: alternates, late
        registrations and re-entries get a full starting stack).

        Raises:
            TournamentError: registration closed, the player has a live entry, no
                re-entries left.
        """
        s = self.settings
        if level > s.late_registration_until_level:
            raise TournamentError(
                f"registration: closed after level {s.late_registration_until_level}, now level {level}"
            )
        who = player if name is None else name
        if player in self._alive:
            raise TournamentError(f"registration: {who} already has a live entry")
        before = self.entries_of(player)
        if before and before - 1 >= s.reentries:
            raise TournamentError(f"registration: {who} has used all {s.reentries} re-entries" if s.reentries
                                  else f"registration: {who} is out of a freezeout (reentry.max = 0)")
        entry = Entry(len(self.entries) + 1, player, reentry=before > 0)
        self.entries.append(entry)
        self._alive[player] = entry.entry_id
        return entry

    def rebuy(self, player: str, level: int, stack: int) -> int:
        """Record a rebuy by a live ``player`` whose stack is ``stack`` chips; return the
        chips added (``settings.rebuy.chips``).

        Raises:
            TournamentError: no rebuys, past ``rebuy.until_level``, stack above
                ``rebuy.max_stack``, the player's rebuys used up, or not alive.
        """
        r = self.settings.rebuy
        self._need_alive(player)
        if not r.max:
            raise TournamentError("rebuy: this tournament has no rebuys")
        if level > r.until_level:
            raise TournamentError(f"rebuy: allowed until level {r.until_level}, now level {level}")
        if stack > r.max_stack:
            raise TournamentError(f"rebuy: stack {stack} is above the {r.max_stack} allowed")
        if self._rebuys.get(player, 0) >= r.max:
            raise TournamentError(f"rebuy: {player} has used all {r.max} rebuys")
        self._rebuys[player] = self._rebuys.get(player, 0) + 1
        return r.chips

    def addon(self, player: str, break_after_level: int) -> int:
        """Record an add-on by a live ``player`` at the break after ``break_after_level``;
        return the chips added.

        Raises:
            TournamentError: no add-on, not the add-on break, already taken, not alive.
        """
        a = self.settings.addon
        self._need_alive(player)
        if not a.max:
            raise TournamentError("addon: this tournament has no add-on")
        if break_after_level != a.at_break:
            raise TournamentError(f"addon: offered at the break after level {a.at_break} only")
        if self._addons.get(player, 0) >= a.max:
            raise TournamentError(f"addon: {player} has taken the {a.max} add-on(s) allowed")
        self._addons[player] = self._addons.get(player, 0) + 1
        return a.chips

    def refund(self, player: str, kind: str) -> int:
        """Take back ``player``'s latest ``kind`` purchase (``"rebuy"`` or ``"addon"``) whose
        chips never reached the table (issue 19: the table refused them); return its chips.
        Its price leaves the prize pool and its chips the chips in play. The player may be
        busted (a purchase confirmed as the hand they busted in started).

        Raises:
            TournamentError: an unknown kind, or no such purchase of ``player`` to refund.
        """
        if kind not in ("rebuy", "addon"):
            raise TournamentError(f"refund: {kind!r} is no purchase (rebuy or addon)")
        bought = self._rebuys if kind == "rebuy" else self._addons
        if not bought.get(player):
            raise TournamentError(f"refund: {player} has no {kind} to refund")
        bought[player] -= 1
        return (self.settings.rebuy if kind == "rebuy" else self.settings.addon).chips

    def entries_of(self, player: str) -> int:
        """Return how many entries ``player`` bought (the first and every re-entry)."""
        return sum(1 for e in self.entries if e.player == player)

    def chips_bought(self, player: str) -> int:
        """Return the chips ``player``'s entries (re-entries too), rebuys and add-ons brought."""
        s = self.settings
        return (self.entries_of(player) * s.starting_stack + self._rebuys.get(player, 0) * s.rebuy.chips
                + self._addons.get(player, 0) * s.addon.chips)

    def adjust_chips(self, delta: int) -> None:
        """Record chips a chip race added (> 0) or removed (< 0) (colour-up, TDA chip race)."""
        self._chip_adjust += int(delta)

    # -- totals ----------------------------------------------------------------------------
    @property
    def rebuys(self) -> int:
        """Return the number of rebuys bought."""
        return sum(self._rebuys.values())

    @property
    def addons(self) -> int:
        """Return the number of add-ons bought."""
        return sum(self._addons.values())

    def chips_in_play(self) -> int:
        """Return the chips that must be on the tables: stacks of every entry + rebuys +
        add-ons + chip-race adjustments. Busted entries' chips stay in play (won by others)."""
        s = self.settings
        return (len(self.entries) * s.starting_stack + self.rebuys * s.rebuy.chips
                + self.addons * s.addon.chips + self._chip_adjust)

    def prize_pool(self) -> int:
        """Return the prize pool in money: the prices paid into the pool by entries and
        re-entries, rebuys and add-ons; fees go to the house and are not in it.
        With fixed payouts, the pool is the fixed prizes' sum (what the house guarantees)."""
        s = self.settings
        if s.payouts.fixed:
            return sum(s.payouts.fixed[: s.payouts.places_paid(len(self.entries))])
        return len(self.entries) * s.entry.price + self.rebuys * s.rebuy.price + self.addons * s.addon.price

    def fees(self) -> int:
        """Return the fees collected for the house, in money."""
        s = self.settings
        return len(self.entries) * s.entry.fee + self.rebuys * s.rebuy.fee + self.addons * s.addon.fee

    @property
    def alive(self) -> tuple[str, ...]:
        """Return the players with a live entry, in registration order."""
        return tuple(self._alive)

    # -- bust-outs and places --------------------------------------------------------------
    def bust(self, starting_stacks: Mapping[str, int]) -> None:
        """Record the players busted in one hand, each with the chips they started it with.

        Busts at different tables in one hand-for-hand hand are one call. The mapping's
        order is the seat order from the button's left (it orders odd money units of a
        tied prize, :func:`prizes`).

        Raises:
            TournamentError: an empty hand, a player not alive, a negative stack, or every
                live player busted (someone wins the hand).
        """
        if not starting_stacks:
            raise TournamentError("bust: no player given")
        for player, stack in starting_stacks.items():
            self._need_alive(player)
            if not isinstance(stack, int) or stack <= 0:
                raise TournamentError(f"bust: {player} must have started the hand with chips, got {stack!r}")
        if len(starting_stacks) >= len(self._alive):
            raise TournamentError("bust: every live player cannot bust in one hand")
        self._groups.append([(self._alive.pop(p), st) for p, st in starting_stacks.items()])

    def finishes(self, registration_closed: bool = True) -> list[Finish]:
        """Return every entry's finish, 1st first, once the tournament has a winner; before
        that, the busted entries only (their places are final once registration closed).

        Places: with N entries, the k-th entry out is N-k+1. Busts of one hand are placed by
        starting stack (more chips, better place); equal stacks tie (TDA simultaneous
        eliminations).
        """
        n = len(self.entries)
        by_id = {e.entry_id: e for e in self.entries}
        out: list[Finish] = []
        worst = n
        for group in self._groups:
            stacks = sorted({st for _, st in group})
            for st in stacks:  # smallest stack out first: worst places
                tied = [eid for eid, s2 in group if s2 == st]
                best = worst - len(tied) + 1
                out.extend(Finish(eid, by_id[eid].player, best, worst) for eid in tied)
                worst = best - 1
        if len(self._alive) == 1 and registration_closed:
            (player, eid), = self._alive.items()
            out.append(Finish(eid, player, 1, 1))
        out.sort(key=lambda f: (f.place, f.entry_id))
        return out

    def _need_alive(self, player: str) -> None:
        if player not in self._alive:
            raise TournamentError(f"{player} has no live entry")


def payout_amounts(payouts: Payouts, prize_pool: int, entries: int) -> tuple[int, ...]:
    """Return the prize of each paid place, 1st first; they sum to ``prize_pool`` exactly.

    Percent brackets: each place gets its percent of the pool rounded down to the
    ``unit``; the units left over go one each to 1st, 2nd, ... (again from 1st while any
    remain); a remainder smaller than one unit (a pool not a multiple of the unit) goes
    to 1st. A better place never gets less than a worse one. Fixed prizes are returned as
    they are (the pool is their sum, :meth:`Standings.prize_pool`).

    Raises:
        TournamentError: a negative pool, no bracket for this many entries, or fixed
            prizes that do not sum to ``prize_pool``.
    """
    if prize_pool < 0 or entries < 0:
        raise TournamentError(f"payouts: pool and entries must be >= 0, got {prize_pool}, {entries}")
    if payouts.fixed:
        fixed = tuple(payouts.fixed[: payouts.places_paid(entries)])
        if sum(fixed) != prize_pool:
            raise TournamentError(f"payouts: fixed prizes sum to {sum(fixed)}, not the pool {prize_pool}")
        return fixed
    percents = payouts.percents_for(entries)  # never more places than entries (validated)
    if not percents:
        raise TournamentError(f"payouts: no payout bracket for {entries} entries")
    unit = payouts.unit
    amounts = [(prize_pool * p // 100) // unit * unit for p in percents]
    left = prize_pool - sum(amounts)
    i = 0
    while left >= unit:
        amounts[i % len(amounts)] += unit
        left -= unit
        i += 1
    amounts[0] += left
    return tuple(amounts)


def prizes(finishes: Sequence[Finish], amounts: Sequence[int], unit: int = 1,
           order: Iterable[int] | None = None) -> dict[int, int]:
    """Return each entry's prize (money), by entry id; entries out of the money get 0.

    A tie over places ``a..b`` shares the prizes of those places equally, rounded down to
    ``unit``; the units left go one each to the tied entries in ``order`` (entry ids, the
    seat order from the button's left; default: entry id order). The prizes sum to
    ``sum(amounts)`` whenever every paid place is filled.

    Raises:
        TournamentError: ``unit`` < 1.
    """
    if unit < 1:
        raise TournamentError(f"prizes: unit must be >= 1, got {unit}")
    rank = {eid: i for i, eid in enumerate(order or ())}
    out = {f.entry_id: 0 for f in finishes}
    ties: dict[tuple[int, int], list[int]] = {}
    for f in finishes:
        ties.setdefault((f.place, f.tied_to), []).append(f.entry_id)
    for (a, b), ids in ties.items():
        pot = sum(amounts[p - 1] for p in range(a, b + 1) if p <= len(amounts))
        if not pot:
            continue
        ids.sort(key=lambda e: (rank.get(e, len(rank)), e))
        share = pot // len(ids) // unit * unit
        left = pot - share * len(ids)
        for i, eid in enumerate(ids):
            out[eid] = share
        i = 0
        while left > 0:
            step = min(unit, left)
            out[ids[i % len(ids)]] += step
            left -= step
            i += 1
    return out
