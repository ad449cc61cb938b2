"""The chip ledger: every chip that comes to or leaves the table, per player and for the room.

Per player (by room player id): buy-ins, top-ups, cash-outs, the net result of every hand
they played and the rake taken from pots they won. Room meters: total in (buy-ins and
top-ups), total out (cash-outs) and rake. The meters always balance:

    total_in - total_out == chips on the table (stacks + bets + pots) + rake

and for each player ``at_table == bought_in + topped_up + won - cashed_out`` equals their
stack between hands (0 once they left). Values are immutable; each method returns a new
ledger. Chips are integers.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

__all__ = ["Account", "Ledger", "LedgerError"]


class LedgerError(ValueError):
    """A ledger entry would break the books (a negative amount, an unknown player)."""


@dataclass(frozen=True, slots=True)
class Account:
    """One player's chips at this table, all integers (T-2, T-7, T-8).

    ``won`` is the sum over hands of (stack after - stack before), so it is negative for a
    losing player and already net of rake; ``rake`` is the rake taken from pots the player
    won (for the room's reports); ``hands`` counts hands dealt.
    """

    player: str
    bought_in: int = 0
    topped_up: int = 0
    cashed_out: int = 0
    won: int = 0
    rake: int = 0
    hands: int = 0

    @property
    def at_table(self) -> int:
        """Return the chips this player should have on the table now."""
        return self.bought_in + self.topped_up + self.won - self.cashed_out

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-ready dict of the account."""
        return {"player": self.player, "bought_in": self.bought_in, "topped_up": self.topped_up,
                "cashed_out": self.cashed_out, "won": self.won, "rake": self.rake,
                "hands": self.hands}


@dataclass(frozen=True, slots=True)
class Ledger:
    """The table's books: ``accounts`` by player id and the room meters (integers)."""

    accounts: dict[str, Account] = field(default_factory=dict)
    total_in: int = 0
    total_out: int = 0
    rake: int = 0

    def _with(self, acct: Account, **meters: int) -> "Ledger":
        accounts = dict(self.accounts)
        accounts[acct.player] = acct
        return replace(self, accounts=accounts, **meters)

    def _acct(self, player: str) -> Account:
        return self.accounts.get(player) or Account(player)

    def buy_in(self, player: str, amount: int) -> "Ledger":
        """Return the ledger after ``player`` brought ``amount`` chips (T-2, T-3).

        Raises:
            LedgerError: ``amount`` is not positive.
        """
        if amount <= 0:
            raise LedgerError(f"T-2: buy-in must be positive, got {amount}")
        a = self._acct(player)
        return self._with(replace(a, bought_in=a.bought_in + amount), total_in=self.total_in + amount)

    def top_up(self, player: str, amount: int) -> "Ledger":
        """Return the ledger after ``player`` added ``amount`` chips (T-7).

        Raises:
            LedgerError: ``amount`` is not positive.
        """
        if amount <= 0:
            raise LedgerError(f"T-7: top-up must be positive, got {amount}")
        a = self._acct(player)
        return self._with(replace(a, topped_up=a.topped_up + amount), total_in=self.total_in + amount)

    def raced(self, player: str, delta: int) -> "Ledger":
        """Return the ledger after a tournament's chip race (issue 19) changed ``player``'s
        stack by ``delta`` chips (> 0: a chip of the next denomination won; < 0: odd chips
        raced off): the chips brought to the table move with it (``topped_up``,
        ``total_in``), so stacks + pots + rake = chips brought still holds."""
        a = self._acct(player)
        return self._with(replace(a, topped_up=a.topped_up + delta), total_in=self.total_in + delta)

    def cash_out(self, player: str, amount: int) -> "Ledger":
        """Return the ledger after ``player`` took ``amount`` chips back to their balance (T-8).

        Raises:
            LedgerError: negative amount, or more than the player has at the table.
        """
        a = self._acct(player)
        if amount < 0 or amount > a.at_table:
            raise LedgerError(f"T-8: cash-out of {amount} for {player!r} who has {a.at_table}")
        if amount == 0 and player not in self.accounts:
            return self  # a seat that never held chips (a buy-in never confirmed): no account
        return self._with(replace(a, cashed_out=a.cashed_out + amount),
                          total_out=self.total_out + amount)

    def hand(self, results: dict[str, tuple[int, int]], rake: int) -> "Ledger":
        """Return the ledger after one hand.

        Args:
            results: player -> (net chips won or lost in the hand, rake taken from their wins).
            rake: the hand's total rake (R-1); equals the sum of the per-player rake.

        Raises:
            LedgerError: the per-player rake does not add up to ``rake``.
        """
        if sum(r for _, r in results.values()) != rake:
            raise LedgerError(f"R-1: rake {rake} does not match the winners' shares {results}")
        accounts = dict(self.accounts)
        for player, (net, r) in results.items():
            a = accounts.get(player) or Account(player)
            # built directly, not with dataclasses.replace: this runs for every player at
            # every hand's end, the slowest table step (issue 21, table step p99)
            accounts[player] = Account(player, a.bought_in, a.topped_up, a.cashed_out,
                                       a.won + net, a.rake + r, a.hands + 1)
        return Ledger(accounts, self.total_in, self.total_out, self.rake + rake)

    @property
    def on_table(self) -> int:
        """Return the chips that should be on the table: total in - total out - rake."""
        return self.total_in - self.total_out - self.rake

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-ready dict: meters and accounts (sorted by player id)."""
        return {"total_in": self.total_in, "total_out": self.total_out, "rake": self.rake,
                "accounts": [self.accounts[p].to_json() for p in sorted(self.accounts)]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Ledger":
        """Return the ledger from :meth:`to_json` output."""
        accounts = {a["player"]: Account(**a) for a in data.get("accounts", ())}
        return cls(accounts, data["total_in"], data["total_out"], data["rake"])
