"""What the seat panel knows of the table, which presses are legal, and what each light shows.

Everything here is pure (no pins, no clock, no threads), so tests check it without gpiozero:

- :func:`project` turns the docs/state.md views (public state + private seat views) into a
  small :class:`PanelView`: whose turn and its timer (A-2), each seat's status and which of
  its buttons are legal now (A-1), paused / fault for the console.
- :func:`seat_light` / :func:`console_light` / :func:`lights` map a view and a time (Unix
  seconds) to a :class:`LightPattern` per light; :func:`next_change` says when the pattern
  would next change with no new state (a timer threshold, the end of an error blink), so the
  panel knows when to look again.

The seat light (A-2 "shrinking bar" made physical):

=========================================  ==============================================
situation                                  pattern
=========================================  ==============================================
no player / not this seat's turn           off
this seat's turn, more than 50% time left  steady on
this seat's turn, 50% .. 20% left          slow blink, 0.5 s on / 0.5 s off
this seat's turn, 20% or less left         fast blink, 0.125 s on / 0.125 s off
this seat's turn, table paused or faulted  steady on (the timer is stopped)
seat sitting out (T-5)                     on/off LED: 0.1 s blip every 2 s; PWM: breathing
an illegal press just now                  error: three 0.05 s flashes (0.3 s), then back
=========================================  ==============================================

Console light (optional): fault waiting for a person -> fast blink; paused -> steady on;
otherwise off; error flashes after an illegal console press.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from drivers.seats.events import ConsoleButton, SeatButton

#: Key of the console light in :func:`lights` results and error maps.
CONSOLE = "console"
#: Fraction of the action time left above which the turn light is steady.
STEADY_ABOVE = 0.5
#: Fraction of the action time left at or below which the turn light blinks fast.
FAST_AT_OR_BELOW = 0.2

LightKey = int | str  # a seat number, or CONSOLE


class PatternKind(StrEnum):
    """How a light is driven: ``off``, ``on``, ``blink`` (on/off times), ``pulse`` (PWM fade)."""

    OFF = "off"
    ON = "on"
    BLINK = "blink"
    PULSE = "pulse"


@dataclass(frozen=True, slots=True)
class LightPattern:
    """One light's pattern.

    ``on_time``/``off_time`` are seconds: the on and off phases of a blink, or the fade-in and
    fade-out of a pulse. ``count`` is how many blinks (``None``: until changed). ``name`` is a
    label for logs and tests, not part of equality.
    """

    kind: PatternKind
    on_time: float = 0.0
    off_time: float = 0.0
    count: int | None = None
    name: str = field(default="", compare=False)

    @property
    def period(self) -> float:
        """Seconds of one blink or pulse cycle (0 for steady patterns)."""
        return self.on_time + self.off_time

    @property
    def duration(self) -> float | None:
        """Seconds until a counted pattern ends; ``None`` when it lasts until changed."""
        return None if self.count is None else self.count * self.period


OFF = LightPattern(PatternKind.OFF, name="off")
TURN = LightPattern(PatternKind.ON, name="turn")
TURN_SLOW = LightPattern(PatternKind.BLINK, 0.5, 0.5, name="turn-slow")
TURN_FAST = LightPattern(PatternKind.BLINK, 0.125, 0.125, name="turn-fast")
SAT_OUT = LightPattern(PatternKind.BLINK, 0.1, 1.9, name="sat-out")
SAT_OUT_PWM = LightPattern(PatternKind.PULSE, 1.0, 1.0, name="sat-out")
ERROR = LightPattern(PatternKind.BLINK, 0.05, 0.05, count=3, name="error")
CONSOLE_PAUSED = LightPattern(PatternKind.ON, name="paused")
CONSOLE_FAULT = LightPattern(PatternKind.BLINK, 0.25, 0.25, name="fault")

#: Seconds an error blink lasts.
ERROR_SECONDS: float = ERROR.duration or 0.0

#: Seat statuses (docs/state.md) in which the seat is dealt in this hand.
IN_HAND = frozenset({"active", "acting"})


@dataclass(frozen=True, slots=True)
class Turn:
    """Whose turn it is (``seat``) and the action timer (A-2): ``deadline`` Unix seconds,
    ``seconds`` the whole time allowed; either may be ``None`` (no timer)."""

    seat: int
    deadline: float | None = None
    seconds: float | None = None

    def fraction_left(self, now: float) -> float | None:
        """Share of the action time left at ``now`` (may go below 0), or ``None`` (no timer)."""
        if self.deadline is None or not self.seconds or self.seconds <= 0:
            return None
        return (self.deadline - now) / self.seconds


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat as the panel sees it: ``status`` from docs/state.md and the buttons legal now."""

    seat: int
    status: str = "empty"
    legal: frozenset[SeatButton] = frozenset()


@dataclass(frozen=True, slots=True)
class PanelView:
    """The small projection of the table the panel needs (see :func:`project`).

    ``seq`` is the public state's ``seq`` (``None``: no state yet), ``street`` as in
    docs/state.md, ``fault`` whether a fault waits for a person, ``buy_in_waiting`` whether
    a seat's buy-in waits for the dealer to confirm the chips were handed over (T-3).
    """

    seq: int | None = None
    street: str = "waiting"
    paused: bool = False
    fault: bool = False
    turn: Turn | None = None
    seats: Mapping[int, SeatView] = field(default_factory=dict)
    buy_in_waiting: bool = False

    def seat_legal(self, seat: int, button: SeatButton) -> bool:
        """Whether pressing ``button`` at ``seat`` is legal now (A-1, T-5)."""
        view = self.seats.get(seat)
        return view is not None and button in view.legal

    def console_legal(self, button: ConsoleButton) -> bool:
        """Whether a console button does something now.

        ``START`` needs no hand running, no pause and no fault; ``PAUSE`` (pause or resume) is
        always legal; ``CONFIRM`` needs a fault waiting for a person or, with none, a buy-in
        waiting for the dealer's confirmation (T-3).
        """
        if button is ConsoleButton.START:
            return self.street == "waiting" and not self.paused and not self.fault
        if button is ConsoleButton.CONFIRM:
            return self.fault or self.buy_in_waiting
        return True


def _seat_number(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return None


def _float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return None


def _chips(value: Any) -> int:
    return _seat_number(value) or 0


def _legal_from_private(legal: Any) -> frozenset[SeatButton]:
    if not isinstance(legal, Mapping):
        return frozenset()
    buttons = set()
    if legal.get("fold") or legal.get("muck"):  # P-2: fold mucks at the showdown
        buttons.add(SeatButton.FOLD)
    if legal.get("check") or legal.get("call") is not None or legal.get("show"):  # show
        buttons.add(SeatButton.CHECK_CALL)
    if legal.get("bet") is not None or legal.get("raise") is not None:
        buttons.add(SeatButton.BET_RAISE)
    return frozenset(buttons)


def _legal_from_public(seat: Mapping[str, Any], seats: list[Mapping[str, Any]]) -> frozenset[SeatButton]:
    # No private view: fold and check/call are always possible for the player to act; a
    # bet/raise needs chips beyond the call. The orchestrator re-checks every press anyway.
    top = max((_chips(s.get("bet")) for s in seats), default=0)
    to_call = top - _chips(seat.get("bet"))
    buttons = {SeatButton.FOLD, SeatButton.CHECK_CALL}
    if _chips(seat.get("stack")) > to_call:
        buttons.add(SeatButton.BET_RAISE)
    return frozenset(buttons)


def project(public: Mapping[str, Any] | None,
            private: Mapping[int | str, Mapping[str, Any] | None] | None = None) -> PanelView:
    """Project docs/state.md views onto a :class:`PanelView`.

    ``public`` is the public state dict (``None``: nothing known, nothing legal);
    ``private`` maps seat numbers (int or str) to private seat views (``None`` or missing:
    judge from the public state alone). Action buttons are legal only for the seat whose
    ``turn`` it is, while the table is neither paused nor faulted, and as its private view's
    ``legal`` says (A-1): fold if ``fold`` (or ``muck``, P-2); check/call if ``check`` or
    ``call`` (or ``show``, P-2); bet/raise if ``bet`` or ``raise``. Between hands (no turn),
    check/call is legal for a seat whose private view offers ``show`` (the uncalled winner,
    P-2). The sit button is legal for any seated player (T-5).
    Missing or malformed values are read as empty; it never raises on a partial state.
    """
    if not public:
        return PanelView()
    by_seat = {_seat_number(k): v for k, v in (private or {}).items()}
    paused = bool(public.get("paused"))
    fault = public.get("fault") is not None
    raw_turn = public.get("turn") or None
    turn = None
    if isinstance(raw_turn, Mapping) and _seat_number(raw_turn.get("seat")) is not None:
        deadline = _float(raw_turn.get("deadline"))
        seconds = _float(raw_turn.get("seconds"))
        started = _float(raw_turn.get("started"))
        if seconds is None and deadline is not None and started is not None:
            seconds = deadline - started
        turn = Turn(seat=int(raw_turn["seat"]), deadline=deadline, seconds=seconds)
    listed = public.get("seats")
    raw_seats = [s for s in listed if isinstance(s, Mapping)] if isinstance(
        listed, (list, tuple)) else []
    seats: dict[int, SeatView] = {}
    for raw in raw_seats:
        number = _seat_number(raw.get("seat"))
        if number is None:
            continue
        status = str(raw.get("status") or "empty")
        legal: set[SeatButton] = set()
        if status != "empty":
            legal.add(SeatButton.SIT)
        acting = (turn is not None and turn.seat == number and not paused and not fault
                  and status in IN_HAND)
        if acting:
            view = by_seat.get(number)
            if isinstance(view, Mapping):
                legal |= _legal_from_private(view.get("legal"))
            else:
                legal |= _legal_from_public(raw, raw_seats)
        elif turn is None and not paused and not fault and status != "empty":
            # P-2: between hands the player who won uncalled may still show (check/call)
            view = by_seat.get(number)
            offer = view.get("legal") if isinstance(view, Mapping) else None
            if isinstance(offer, Mapping) and offer.get("show"):
                legal.add(SeatButton.CHECK_CALL)
        seats[number] = SeatView(seat=number, status=status, legal=frozenset(legal))
    street = str(public.get("street") or "waiting")
    waiting = any(isinstance(s.get("buy_in_pending"), int) and s["buy_in_pending"] > 0 for s in raw_seats)
    return PanelView(seq=_seat_number(public.get("seq")), street=street, paused=paused,
                     fault=fault, turn=turn, seats=seats, buy_in_waiting=waiting)


def _active(errors: Mapping[LightKey, float] | None, key: LightKey, now: float) -> bool:
    until = (errors or {}).get(key)
    return until is not None and now < until


def seat_light(view: PanelView, seat: int, now: float, *, pwm: bool = False,
               errors: Mapping[LightKey, float] | None = None) -> LightPattern:
    """The pattern of ``seat``'s light at Unix time ``now`` (see the module table).

    ``pwm`` selects the breathing sat-out pattern for PWM lights; ``errors`` maps light keys
    to the Unix time their error blink ends.
    """
    if _active(errors, seat, now):
        return ERROR
    seat_view = view.seats.get(seat)
    if seat_view is None or seat_view.status == "empty":
        return OFF
    if seat_view.status == "sitting-out":
        return SAT_OUT_PWM if pwm else SAT_OUT
    turn = view.turn
    if turn is None or turn.seat != seat:
        return OFF
    fraction = turn.fraction_left(now)
    if view.paused or view.fault or fraction is None or fraction > STEADY_ABOVE:
        return TURN
    return TURN_SLOW if fraction > FAST_AT_OR_BELOW else TURN_FAST


def console_light(view: PanelView, now: float, *,
                  errors: Mapping[LightKey, float] | None = None) -> LightPattern:
    """The console light at ``now``: error, fault (fast blink), paused (on) or off."""
    if _active(errors, CONSOLE, now):
        return ERROR
    if view.fault:
        return CONSOLE_FAULT
    return CONSOLE_PAUSED if view.paused else OFF


def lights(view: PanelView, now: float, seats: Iterable[int], *, console: bool = False,
           pwm: bool = False, errors: Mapping[LightKey, float] | None = None
           ) -> dict[LightKey, LightPattern]:
    """Every wired light's pattern: ``{seat: pattern, ..., CONSOLE: pattern}`` (console only
    when ``console`` is true)."""
    result: dict[LightKey, LightPattern] = {
        seat: seat_light(view, seat, now, pwm=pwm, errors=errors) for seat in seats}
    if console:
        result[CONSOLE] = console_light(view, now, errors=errors)
    return result


def next_change(view: PanelView, now: float,
                errors: Mapping[LightKey, float] | None = None) -> float | None:
    """The earliest Unix time after ``now`` at which a pattern may change with no new state:
    the turn timer crossing 50% or 20% left, or an error blink ending. ``None``: never."""
    times = [until for until in (errors or {}).values() if until > now]
    turn = view.turn
    if turn is not None and turn.deadline is not None and turn.seconds and not (
            view.paused or view.fault):
        for share in (STEADY_ABOVE, FAST_AT_OR_BELOW):
            at = turn.deadline - share * turn.seconds
            if at > now:
                times.append(at)
    return min(times, default=None)
