"""The table session's single writer: ``step(state, event) -> (state, effects)`` (issue 3).

Every change to a table is one event in, a new :class:`~.state.TableState` and a list of
effects out. The step never reads a clock or a random source (time comes in ``event.at``),
never raises for a well-formed event (an illegal one is answered with a ``Refuse`` effect
naming the rule, and the state is unchanged), and never changes the state it was given.
Replaying the same events from the same start gives the same state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from . import effects as fx
from . import events as ev
from . import play, seating
from .play import Ctx
from .state import TableState, evolve

__all__ = ["step", "run"]


def _preselect(ctx: Ctx, e: ev.PreselectSet) -> None:
    st = ctx.state
    s = st.seat(e.seat)
    hand = st.hand
    if s is None or hand is None or e.seat not in hand.index:
        play.refuse(ctx, "A-3", f"A-3: seat {e.seat} is not in the hand")
        return
    i = hand.index[e.seat]
    if hand.folded[i] or hand.allin[i] or hand.is_complete or hand.street.value == "showdown":
        play.refuse(ctx, "A-3", f"A-3: seat {e.seat} has no decision left in this hand")
        return
    if hand.seat_to_act == e.seat and st.dealing is None:
        play.refuse(ctx, "A-3", f"A-3: it is seat {e.seat}'s turn; act now")
        return
    chip = st.settings.smallest_chip
    if e.amount is not None and e.amount % chip:
        play.refuse(ctx, "S-10", f"S-10: amounts are multiples of {chip}, got {e.amount}")
        return
    if e.choice == "call" and play.to_call(hand, i) != e.amount:
        play.refuse(ctx, "A-3", f"A-3: the call is {play.to_call(hand, i)}, not {e.amount}")
        return
    ctx.set_seat(evolve(s, preselect=(e.choice, e.amount)))


def _preselect_clear(ctx: Ctx, e: ev.PreselectCleared) -> None:
    s = ctx.state.seat(e.seat)
    if s is None:
        play.refuse(ctx, "A-3", f"A-3: seat {e.seat} is not taken")
        return
    if s.preselect is not None:
        ctx.set_seat(evolve(s, preselect=None))


def _auto_muck(ctx: Ctx, e: ev.AutoMuckSet) -> None:
    s = ctx.state.seat(e.seat)
    if s is None:
        play.refuse(ctx, "T-3", f"T-3: seat {e.seat} is not taken")
        return
    if s.auto_muck != e.on:
        ctx.set_seat(evolve(s, auto_muck=e.on))
        if e.on:
            play.auto_current(ctx)  # P-2: a losing hand waiting on its show-or-muck turn goes


_HANDLERS: dict[type, Callable[[Ctx, Any], None]] = {
    ev.PlayerSatDown: seating.sit_down,
    ev.BoughtIn: seating.buy_in,
    ev.PlayerJoined: seating.join,
    ev.BuyInConfirmed: seating.confirm_buy_in,
    ev.ToppedUp: seating.top_up,
    ev.ChipsRaced: seating.chips_raced,
    ev.StoodUp: seating.stand_up,
    ev.SatOut: seating.sit_out,
    ev.SatIn: seating.sit_in,
    ev.ActionTaken: play.apply_action,
    ev.PreselectSet: _preselect,
    ev.PreselectCleared: _preselect_clear,
    ev.AutoMuckSet: _auto_muck,
    ev.CardDealt: lambda ctx, e: play.deal_card(ctx, e.card),
    ev.TimerExpired: play.timer_expired,
    ev.TabletConnected: lambda ctx, e: seating.connected(ctx, e, True),
    ev.TabletDisconnected: lambda ctx, e: seating.connected(ctx, e, False),
    ev.SettingsChanged: seating.change_settings,
    ev.HandStartRequested: lambda ctx, e: play.start_hand(ctx, e.button, e.level, e.redraw),
    ev.HandVoided: lambda ctx, e: play.void_hand(ctx, e.reason),
    ev.HoleCardsRead: play.read_hole_cards,
}


def step(state: TableState, event: ev.Event) -> tuple[TableState, list[fx.Effect]]:
    """Apply one event; return the new state and the effects to carry out, in order.

    When the state changes its ``seq`` rises by one and the effects end with
    ``PublishPublic``, ``PublishPrivate`` (seats dealt in, when a hand runs) and
    ``LightSeats``. A refused event leaves the state as it was (same object) and yields
    only ``Refuse``. A stale timer leaves everything as it was and yields nothing.

    Raises:
        TypeError: ``event`` is not a table event (a programming error, not bad input).
    """
    handler = _HANDLERS.get(type(event))
    if handler is None:
        raise TypeError(f"not a table event: {type(event).__name__}")
    ctx = Ctx(state, event)
    handler(ctx, event)
    new = ctx.state
    if new is state:
        return state, ctx.effects
    new = evolve(new, seq=state.seq + 1)
    out = ctx.effects
    out.append(fx.PublishPublic())
    offer = play.show_offer(state)
    if offer is not None and play.show_offer(new) != offer and not play.in_hand(new, offer):
        out.append(fx.PublishPrivate(seats=(offer,), clear=True))  # the P-2 offer to show is gone
    if new.hand is not None:
        out.append(fx.PublishPrivate(seats=new.info.dealt))  # type: ignore[union-attr]  # a hand has its info
    out.append(fx.LightSeats())
    return new, out


def run(state: TableState, events: Iterable[ev.Event]) -> tuple[TableState, list[fx.Effect]]:
    """Apply ``events`` in order (a replay); return the final state and all effects."""
    out: list[fx.Effect] = []
    for e in events:
        state, effects = step(state, e)
        out.extend(effects)
    return state, out
