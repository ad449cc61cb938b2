"""Events the seat buttons and the dealer's console post to the controller's loop.

gpiozero calls the panel on its own threads (the pin's edge callback, the hold thread); the
panel only stamps the time, checks the press against the last table situation it was told,
and posts one of these small frozen records with the ``post`` callable it was given. The
controller's loop is the single writer: it maps them to table actions and re-checks legality
against the current state (A-1), dropping a press judged against an older ``seq``.

What each event asks for (the orchestrator's mapping, issue 5):

- ``SeatButtonPressed(seat, FOLD)``: fold (A-1).
- ``SeatButtonPressed(seat, CHECK_CALL)``: check when checking is legal, else call.
- ``SeatButtonPressed(seat, BET_RAISE)``: bet or raise to the amount chosen on the seat's
  tablet, or the minimum bet/raise when none is chosen (S-rules give the minimum).
- ``SeatButtonHeld(seat, SIT)``: toggle sitting out / sitting in (T-5). The sit button acts
  only when held for ``hold_time`` seconds, so a bumped button never sits a player out.
- ``ConsoleButtonPressed(START)``: start the next hand; ``PAUSE``: pause or resume the
  table; ``CONFIRM``: a person confirms the current fault (``fault`` in docs/state.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class SeatButton(StrEnum):
    """A seat's buttons; the values are the pin-map keys in ``[gpio.seats.N]``."""

    FOLD = "fold"
    CHECK_CALL = "check_call"
    BET_RAISE = "bet_raise"
    SIT = "sit"


class ConsoleButton(StrEnum):
    """The dealer console's buttons; the values are the keys in ``[gpio.console]``."""

    START = "start"
    PAUSE = "pause"
    CONFIRM = "confirm"


@dataclass(frozen=True, slots=True)
class SeatButtonPressed:
    """A legal press of a seat's action button.

    ``seat`` is 1..N, ``at`` the Unix time (float seconds, from the panel's clock) of the
    press, ``seq`` the public state ``seq`` the press was judged legal against (``None``
    before any state was seen).
    """

    seat: int
    button: SeatButton
    at: float
    seq: int | None = None


@dataclass(frozen=True, slots=True)
class SeatButtonHeld:
    """A seat's button held down for ``hold_time`` seconds (only ``SIT`` is held: T-5).

    Fields as in :class:`SeatButtonPressed`; ``at`` is when the hold was recognised.
    """

    seat: int
    button: SeatButton
    at: float
    seq: int | None = None


@dataclass(frozen=True, slots=True)
class ConsoleButtonPressed:
    """A legal press of a dealer console button (``name``), at Unix time ``at``."""

    name: ConsoleButton
    at: float
    seq: int | None = None


#: Every event type the seat panel posts.
PanelEvent = SeatButtonPressed | SeatButtonHeld | ConsoleButtonPressed
