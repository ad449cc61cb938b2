"""Seats the room holds for players it called from a waiting list (issue 18, docs/players.md).

When a seat opens the room calls the first player of that game's list and holds the seat for
them for a few minutes. It tells the table on ``room/tables/<t>/holds`` (retained, bridged in
as ``livetable/<t>/room/holds``): every seat held now, for whom, until when. The table

- shows each held seat in its public state (``holds``: ``[{"seat", "name", "until"}]``,
  docs/state.md), so its tablets and the dealer display show "Held for Anna (2:41)" instead
  of an open seat;
- seats no walk-up there (a tablet's *Take this seat*, T-3: a held seat is not free) but the
  called player, by the name the room knows them by; the floor may seat anyone (its decision);
- stays autonomous: a hold lapses at its ``until`` by the table's own clock, whatever becomes
  of the room (a room that went away cannot keep a seat empty).

The room's clock and the table's are both NTP-synchronised Unix seconds.
"""

from __future__ import annotations

import unicodedata
from typing import Any, Iterable

from controller.tournament.words import minutes_seconds
from drivers.mqtt.events import HeldSeat

__all__ = ["SeatHolds", "HeldSeat"]


def _same_name(a: str, b: str) -> bool:
    def norm(x: str) -> str:
        return " ".join(unicodedata.normalize("NFC", x).casefold().split())
    return norm(a) == norm(b)


class SeatHolds:
    """The room's held seats at this table, as last told (see the module's text).

    Args:
        holds: the holds now (:class:`drivers.mqtt.events.HeldSeat`; ``until`` Unix s).
    """

    def __init__(self, holds: Iterable[HeldSeat] = ()) -> None:
        self._holds = {h.seat: h for h in holds}

    def of(self, seat: int, now: float) -> HeldSeat | None:
        """Return ``seat``'s hold while it lasts (``now`` < ``until``), else None."""
        h = self._holds.get(seat)
        return h if h is not None and now < h.until else None

    def refusal(self, seat: int, name: str | None, now: float) -> str | None:
        """Return why a tablet's *Take this seat* of ``seat`` under ``name`` is refused (T-3:
        the seat is held for another player), or None when it may go ahead (no hold, or
        ``name`` is the called player's id or name, letter case and spacing aside)."""
        h = self.of(seat, now)
        if h is None or (name and (_same_name(name, h.name) or _same_name(name, h.player))):
            return None
        left = max(0, int(h.until - now))
        return (f"T-3: seat {seat} is held for {h.name}, called from the waiting list "
                f"({minutes_seconds(left)} left)")

    def public(self, now: float) -> list[dict[str, Any]]:
        """Return the holds that last at ``now`` for the public state: ``[{"seat", "name",
        "until"}]`` by seat (the player's id stays in the room)."""
        return [{"seat": h.seat, "name": h.name, "until": h.until}
                for _, h in sorted(self._holds.items()) if now < h.until]
