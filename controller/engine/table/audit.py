"""Chip conservation and ledger checks over a table state (issue 3, CONTRIBUTING).

``audit(state)`` returns a list of problems (empty when the books balance):

- every chip brought to the table and not taken away is on it or raked:
  ``total_in - total_out == stacks + bets + pots + rake``;
- each seated player's account says what their stack says (between hands, or for seats not
  dealt in), and a player who left has nothing at the table;
- no stack is negative.

The orchestrator may call it after a replay; the tests call it after every event.
"""

from __future__ import annotations

from .state import TableState

__all__ = ["audit", "chips_on_table"]


def chips_on_table(state: TableState) -> int:
    """Return stacks of seats not in the hand + the running hand's stacks, bets and pots."""
    hand = state.hand
    dealt = hand.index if hand is not None else {}
    total = sum(s.stack for s in state.seats if s is not None and s.seat not in dealt)
    if hand is not None:
        total += sum(hand.stack) + sum(hand.committed) + hand.dead
    return total


def audit(state: TableState) -> list[str]:
    """Return the ways ``state`` breaks chip conservation or the ledger (empty: none)."""
    problems: list[str] = []
    led = state.ledger
    on_table = chips_on_table(state)
    if led.total_in - led.total_out != on_table + led.rake:
        problems.append(f"conservation: in {led.total_in} - out {led.total_out} != "
                        f"table {on_table} + rake {led.rake}")
    hand = state.hand
    dealt = hand.index if hand is not None else {}
    seated = set()
    for s in state.seats:
        if s is None:
            continue
        seated.add(s.player)
        if s.stack < 0:
            problems.append(f"seat {s.seat}: negative stack {s.stack}")
        acct = led.accounts.get(s.player)
        have = acct.at_table if acct is not None else 0
        if s.seat not in dealt and have != s.stack:
            problems.append(f"seat {s.seat} ({s.player}): ledger says {have}, stack is {s.stack}")
    for player, acct in led.accounts.items():
        if player not in seated and acct.at_table != 0:
            problems.append(f"{player} left but the ledger holds {acct.at_table} at the table")
    if sum(a.rake for a in led.accounts.values()) != led.rake:
        problems.append("rake: the players' shares do not add up to the room's meter")
    return problems
