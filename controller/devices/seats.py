"""The seat panel's adapter: gpiozero buttons in, table events out (issue 9).

Seat buttons act for the seat whose turn it is (fold, check/call, bet/raise at the minimum;
show/muck at the showdown, P-2; held ``sit`` sits out or in). The dealer console's
``confirm`` ends the oldest fault by ``correction`` (or ``resume`` where correction is not
an exit), decided by ``dealer``; with no fault open it confirms the oldest buy-in a tablet's
player is waiting to hand over (T-3, ``tablet_join = "confirm"``); ``pause`` pauses the
table (fault ``paused``) and, pressed again, resumes it; ``start`` asks for a hand.
"""

from __future__ import annotations

from typing import Any

from controller import views
from controller.devices.base import DeviceAdapter
from controller.engine.table import events as ev
from controller.faults import ALLOWED_EXITS, FaultExit, FaultKind
from controller.orchestrator import FloorDecision, ManualPause

__all__ = ["SeatsAdapter"]


class SeatsAdapter(DeviceAdapter):
    """Translate the seat panel's events (``drivers.seats``) for the table."""

    def translate(self, e: Any) -> list[Any]:
        """Return what seat-panel event ``e`` means for the table (see the module docstring)."""
        name = type(e).__name__
        state = self.orch.state
        if name == "ConsoleButtonPressed":
            button = str(e.name)
            if button == "pause":
                # The console's pause button toggles (drivers.seats: pause or resume).
                if any(f.kind is FaultKind.PAUSED for f in self.orch.faults.open):
                    return [FloorDecision(FaultKind.PAUSED.value, FaultExit.RESUME.value, "dealer")]
                return [ManualPause("paused by the dealer")]
            if button == "confirm":
                fault = self.orch.faults.current
                if fault is None:
                    return self._confirm_buy_in(e.at)
                allowed = ALLOWED_EXITS[fault.kind]
                exit = FaultExit.CORRECTION if FaultExit.CORRECTION in allowed else FaultExit.RESUME
                return [FloorDecision(fault.kind.value, exit.value, "dealer")]
            if button == "start" and state.hand is None:
                return [ev.HandStartRequested(at=e.at)]
            return []
        seat = e.seat
        button = str(e.button)
        if name == "SeatButtonHeld" and button == "sit":
            s = state.seat(seat)
            if s is None:
                return []
            return [ev.SatIn(at=e.at, seat=seat, post=True) if s.sitting_out else ev.SatOut(at=e.at, seat=seat)]
        if name != "SeatButtonPressed":
            return []
        view = views.private_view(state, seat)
        legal = (view or {}).get("legal")
        if not legal:
            return []  # the turn moved on: the panel's check raced a state change
        if legal.get("show") or legal.get("muck"):
            # P-2 at the showdown (or the uncontested winner after the hand): check/call
            # tables the hand, fold mucks it; bet/raise means nothing here
            if button == "check_call" and legal.get("show"):
                return [ev.ActionTaken(at=e.at, seat=seat, action="show")]
            if button == "fold" and legal.get("muck"):
                return [ev.ActionTaken(at=e.at, seat=seat, action="muck")]
            return []
        if button == "fold":
            return [ev.ActionTaken(at=e.at, seat=seat, action="fold")] if legal.get("fold") else []
        if button == "check_call":
            if legal.get("check"):
                return [ev.ActionTaken(at=e.at, seat=seat, action="check")]
            if legal.get("call"):
                return [ev.ActionTaken(at=e.at, seat=seat, action="call")]
            return []
        if button == "bet_raise":
            for kind in ("raise", "bet"):
                if legal.get(kind):
                    return [ev.ActionTaken(at=e.at, seat=seat, action=kind, amount=legal[kind]["min"])]
        return []

    def _confirm_buy_in(self, at: float) -> list[Any]:
        """The dealer's confirm with no fault open: the oldest buy-in asked for from a tablet
        has been handed over (T-3, ``tablet_join`` ``confirm``); nothing when none waits."""
        waiting = sorted((s.pending_at, s.seat) for s in self.orch.state.seats if s is not None and s.buy_in_pending)
        if not waiting:
            return []
        return [ev.BuyInConfirmed(at=at, seat=waiting[0][1], by="dealer")]
