"""The house rake (R-1..R-3): a percentage of each pot, capped by players dealt in.

Pure functions; chips are integers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .settings import RakeSettings

__all__ = ["rake_amount", "rake_pots", "take_rake", "rake_paid"]


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


def rake_pots(
    rake: RakeSettings | None, pots: Sequence[int], *, players_dealt: int, flop_seen: bool, chip: int = 1
) -> list[int]:
    """Return the rake taken from each pot, main pot first (R-1: "a percentage of each pot
    up to a maximum"; R-2, R-3).

    Each pot gives ``percent`` of itself rounded down to the smallest ``chip``
    (:func:`rake_amount` of that pot, uncapped), so no pot pays more than its share: a short
    all-in's small main pot is not eaten by the rake of the side pot behind it. When the
    pots' rakes add up to more than the cap for ``players_dealt``, the cap is shared in
    proportion to them (:func:`take_rake`). ``pots`` are counted after uncalled bets are
    returned (R-3); with ``no_flop_no_drop`` nothing is taken before the flop.
    """
    if rake is None or (rake.no_flop_no_drop and not flop_seen):
        return [0] * len(pots)
    pct = rake.percent
    each = []
    for p in pots:
        r = (p * pct.numerator) // (100 * pct.denominator) if p > 0 else 0  # type: ignore[union-attr]
        each.append(r - r % chip)
    cap = rake.cap_for(players_dealt)
    if cap is None or sum(each) <= cap:
        return each
    return take_rake(each, cap, chip)


def take_rake(each: Sequence[int], cap: int, chip: int = 1) -> list[int]:
    """Return ``cap`` chips of rake shared over pots whose own rakes are ``each`` (R-1).

    ``sum(each)`` is more than ``cap``. Each pot gives its proportional part of the cap
    (``cap * each[k] / sum(each)``) rounded down to the smallest ``chip``; the chips the
    rounding leaves are taken one ``chip`` at a time from the largest pot rakes first
    (the earlier pot on a tie), never more than a pot's own rake. A cap that is not a
    multiple of ``chip`` leaves the odd part untaken (the rake is whole chips, S-10).
    """
    total = sum(each)
    out = [((cap * r) // total) // chip * chip for r in each]
    left = (cap - sum(out)) // chip
    order = sorted(range(len(each)), key=lambda k: (-each[k], k))
    while left > 0:
        moved = False
        for k in order:
            if left and out[k] + chip <= each[k]:
                out[k] += chip
                left -= 1
                moved = True
        if not moved:
            break
    return out


def rake_paid(record: dict[str, Any]) -> dict[int, int]:
    """Return seat -> chips of rake taken from the pots that seat won (R-1; the ledger's share).

    Each pot's rake is shared in proportion to the winners' shares, any remainder to the
    first winner in P-3 order (as the table's ledger books it). Empty for a voided hand.
    """
    out: dict[int, int] = {}
    for award in (record.get("result") or {}).get("awards") or []:
        r = int(award.get("rake") or 0)
        if not r:
            continue
        shares = {int(k): int(v) for k, v in (award.get("shares") or {}).items()}
        winners = [int(w) for w in award.get("winners") or []] or list(shares)
        total = sum(shares.get(w, 0) for w in winners)
        given = 0
        for w in winners:
            part = (r * shares.get(w, 0)) // total if total else 0
            out[w] = out.get(w, 0) + part
            given += part
        if winners:
            out[winners[0]] = out.get(winners[0], 0) + r - given
    return out
