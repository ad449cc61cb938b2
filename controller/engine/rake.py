"""The house rake (R-1..R-3): a percentage of the pots, capped by players dealt in.

Pure functions; chips are integers.
"""

from __future__ import annotations

from collections.abc import Sequence

from .settings import RakeSettings

__all__ = ["rake_amount", "take_rake"]


def rake_amount(
    rake: RakeSettings | None, pot_total: int, *, players_dealt: int, flop_seen: bool, chip: int = 1
) -> int:
    """Return the rake in chips for a hand whose pots hold ``pot_total`` chips (R-1, R-2).

    ``pot_total`` is counted after uncalled bets are returned (R-3). ``flop_seen``
    says whether the flop (or, in draw with ``draw_counts_as_flop``, the draw) was
    reached; with ``no_flop_no_drop`` no rake is taken otherwise. The amount is
    ``percent`` of the pot rounded down to the smallest ``chip``, at most the cap for
    ``players_dealt`` players.
    """
    if rake is None or pot_total <= 0:
        return 0
    if rake.no_flop_no_drop and not flop_seen:
        return 0
    pct = rake.percent
    amount = (pot_total * pct.numerator) // (100 * pct.denominator)  # type: ignore[union-attr]
    amount -= amount % chip
    cap = rake.cap_for(players_dealt)
    if cap is not None and amount > cap:
        amount = cap
    return amount


def take_rake(pots: Sequence[int], amount: int) -> list[int]:
    """Return the rake taken from each pot, main pot first, totalling ``amount`` (R-1)."""
    out = []
    for p in pots:
        t = p if p < amount else amount
        out.append(t)
        amount -= t
    return out
