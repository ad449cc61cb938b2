"""Seats and chips: sitting down, buying in, topping up, standing up, sitting out and in,
tablets coming and going, and settings changes (T-2..T-8, A-4, L-2).

Internal to :mod:`controller.engine.table.step`; each handler works on a
:class:`~controller.engine.table.play.Ctx`.
"""

from __future__ import annotations

import string
import unicodedata

from . import effects as fx
from . import events as ev_
from .play import (Ctx, apply_settings, auto_current, in_hand, leave, may_post_now, refuse, settle_topup,
                   smallest_chip)
from .state import RETURN_SECONDS, Departure, Seat, evolve

__all__ = ["player_for_name", "hidden_in_name", "HIDDEN_CATEGORIES",
           "sit_down", "buy_in", "join", "confirm_buy_in", "top_up", "settle_topup", "chips_raced",
           "stand_up",
           "sit_out", "sit_in", "connected", "change_settings", "apply_settings", "leave", "buy_in_range"]


def _seat(ctx: Ctx, n: int) -> Seat | None:
    s = ctx.state.seat(n)
    if s is None:
        refuse(ctx, "T-3", f"T-3: seat {n} is not taken")
    return s


def sit_down(ctx: Ctx, ev: ev_.PlayerSatDown | ev_.PlayerJoined) -> None:
    """T-3: take a free seat; chips come with a buy-in."""
    st = ctx.state
    if not 1 <= ev.seat <= len(st.seats):
        refuse(ctx, "L-2", f"L-2: this table has seats 1..{len(st.seats)}, not {ev.seat}")
        return
    if st.seats[ev.seat - 1] is not None:
        refuse(ctx, "T-3", f"T-3: seat {ev.seat} is taken")
        return
    shrink = (st.pending_settings or {}).get("seats")
    if isinstance(shrink, int) and ev.seat > shrink:
        # the table shrinks when this hand ends (L-2): a player seated here would lose the seat
        refuse(ctx, "L-2", f"L-2: the table shrinks to seats 1..{shrink} after this hand; seat {ev.seat} "
                           f"will be gone")
        return
    for s in st.seats:
        if s is not None and s.player == ev.player:
            refuse(ctx, "T-3", f"T-3: {s.name} already sits in seat {s.seat}")
            return
    # issue 19 TFIX 7: a rebuy at the bust at a tournament table is the same player at his
    # seat: not new (dealt in at once, wherever the button is)
    new = not (getattr(ev, "rebuy", False) and st.settings.tournament)
    ctx.set_seat(Seat(seat=ev.seat, player=ev.player, name=ev.name or ev.player, post=ev.post, new=new))


def buy_in_range(ctx: Ctx, player: str) -> tuple[int, int | None]:
    """Return ``(min, max)`` chips for ``player``'s buy-in now (T-2; max None: no maximum).

    A player who left with more than the maximum less than 20 minutes ago must bring at
    least what they left with.
    """
    cfg = ctx.state.settings
    lo, hi = int(cfg.buy_in_min), cfg.buy_in_max  # type: ignore[arg-type]
    for d in ctx.state.departures:
        if d.player == player and ctx.at - d.at < RETURN_SECONDS:
            lo = max(lo, d.amount)
            if hi is not None:
                hi = max(hi, d.amount)
    return lo, hi


def _returning(ctx: Ctx, player: str) -> Departure | None:
    """T-2: the player's departure with more than the maximum less than 20 minutes ago, if any."""
    for d in ctx.state.departures:
        if d.player == player and ctx.at - d.at < RETURN_SECONDS:
            return d
    return None


def _chips_ok(ctx: Ctx, ev: ev_.BoughtIn | ev_.PlayerJoined | ev_.ToppedUp, rule: str) -> bool:
    chip = smallest_chip(ctx.state.settings)
    if ev.amount % chip:
        refuse(ctx, "S-10", f"S-10: chips come in multiples of {chip}, got {ev.amount}")
        return False
    if ev.balance is not None and ev.amount > ev.balance:
        refuse(ctx, rule, f"{rule}: {ev.amount} is more than the balance {ev.balance}")
        return False
    return True


def buy_in(ctx: Ctx, ev: ev_.BoughtIn | ev_.PlayerJoined) -> None:
    """T-2/T-3: bring chips to an empty stack (first buy-in, or again after busting).

    ``ev.pending`` (asked from the tablet where the dealer confirms chips): the same checks,
    then the amount waits in ``Seat.buy_in_pending`` for :func:`confirm_buy_in`; nothing is
    booked. Refused ``T-2`` while another buy-in of the seat waits for the dealer.
    """
    s = _seat(ctx, ev.seat)
    if s is None:
        return
    if s.stack > 0 or in_hand(ctx.state, s.seat):
        refuse(ctx, "T-7", f"T-7: seat {s.seat} has chips; add more with a top-up between hands")
        return
    if getattr(ev, "pending", False) and s.buy_in_pending:
        refuse(ctx, "T-2", _no_chips(s, "buy in again"))
        return
    lo, hi = buy_in_range(ctx, s.player)
    if ctx.state.settings.tournament:
        lo, hi = 1, None  # issue 19: the tournament sets the starting stack and the rebuys
    back = None if ctx.state.settings.tournament else _returning(ctx, s.player)
    if back is not None and ev.amount < back.amount:
        mins = max(1, int((ctx.at - back.at) // 60))
        refuse(ctx, "T-2", f"T-2: {s.name} left this table {mins} min ago with {back.amount}: coming "
                           f"back within 20 minutes, the buy-in is at least {back.amount}, got {ev.amount}")
        return
    if ev.amount < lo or (hi is not None and ev.amount > hi):
        top = "no maximum" if hi is None else f"at most {hi}"
        refuse(ctx, "T-2", f"T-2: buy-in must be at least {lo} and {top}, got {ev.amount}")
        return
    if not _chips_ok(ctx, ev, "T-2"):
        return
    if getattr(ev, "pending", False):  # the dealer confirms the chips (T-3); the seat sits out till then
        ctx.set_seat(evolve(s, buy_in_pending=ev.amount, pending_at=ctx.at))
        return
    if s.out_reason == "busted":
        s = evolve(s, sitting_out=False, out_reason="", hands_out=0)
    # a buy-in booked here supersedes one still waiting for the dealer's confirmation (T-3)
    ctx.set_seat(evolve(s, stack=ev.amount, buy_in_pending=0, pending_at=0.0))
    ctx.state = evolve(ctx.state, ledger=ctx.state.ledger.buy_in(s.player, ev.amount))
    ctx.emit(fx.TakeChips(player=s.player, amount=ev.amount, seat=s.seat))


def join(ctx: Ctx, ev: ev_.PlayerJoined) -> None:
    """T-3/T-2/T-4: take the free seat and buy in from the seat's tablet, all or nothing.

    Refused with the state unchanged: ``T-3`` the table does not let tablets seat players
    (``tablet_join`` off), the seat is taken, or the player already sits here; ``T-2`` the
    buy-in is outside the range or below what the player left with less than 20 minutes
    ago; ``S-10`` not whole chips; ``T-4`` posting now is asked for a seat between the big
    blind and the button (:func:`~.play.may_post_now`). With ``tablet_join`` ``confirm``
    the seat is taken with no chips and the buy-in waits for :func:`confirm_buy_in`.
    """
    before, n = ctx.state, len(ctx.effects)
    if before.settings.tablet_join == "off":
        refuse(ctx, "T-3", "T-3: this table seats players through the floor, not from the tablet")
        return
    free = 1 <= ev.seat <= len(before.seats) and before.seats[ev.seat - 1] is None
    if ev.post and free and not may_post_now(before, ev.seat):
        refuse(ctx, "T-4", f"T-4: seat {ev.seat} is between the big blind and the button: a new player "
                           f"there waits for the button to pass (choose to wait for the big blind)")
        return
    sit_down(ctx, ev)
    if len(ctx.effects) == n:
        buy_in(ctx, ev)
    if any(isinstance(e, fx.Refuse) for e in ctx.effects[n:]):
        ctx.state = before  # all or nothing: no seat without its chips
        return
    if before.settings.tablet_join == "confirm":
        # the seat is reserved; the chips come when the dealer confirms them (books untouched)
        s = ctx.state.seats[ev.seat - 1]
        ctx.state = before.with_seat(ev.seat, evolve(s, stack=0, buy_in_pending=ev.amount, pending_at=ctx.at))
        ctx.effects[n:] = [e for e in ctx.effects[n:] if not isinstance(e, fx.TakeChips)]


def confirm_buy_in(ctx: Ctx, ev: ev_.BuyInConfirmed) -> None:
    """T-3 (``tablet_join`` ``confirm``): the dealer saw the chips handed over; the buy-in
    the player asked for from the tablet comes to the table (ledger, ``TakeChips``).

    A busted player's buy-in again (``BoughtIn`` ``pending``) also ends the sitting out the
    bust began, as a booked buy-in does. Refused ``T-3`` when the seat has no buy-in waiting.
    """
    s = _seat(ctx, ev.seat)
    if s is None:
        return
    if not s.buy_in_pending:
        refuse(ctx, "T-3", f"T-3: seat {s.seat} has no buy-in waiting for the dealer")
        return
    amount = s.buy_in_pending
    if s.out_reason == "busted":  # a buy-in again after busting (issue 20): dealt in from now on
        s = evolve(s, sitting_out=False, out_reason="", hands_out=0)
    ctx.set_seat(evolve(s, stack=s.stack + amount, buy_in_pending=0, pending_at=0.0))
    ctx.state = evolve(ctx.state, ledger=ctx.state.ledger.buy_in(s.player, amount))
    ctx.emit(fx.TakeChips(player=s.player, amount=amount, seat=s.seat))


def top_up(ctx: Ctx, ev: ev_.ToppedUp) -> None:
    """T-7: add chips between hands, up to the buy-in maximum (T-2; none at a tournament
    table, where the chips are a rebuy or an add-on the tournament allowed: issue 19).

    Asked for during a hand the player is in, the chips wait for the hand to end (then
    the maximum is checked again against the stack the player has then, and what would
    pass it is refused). A top-up that would pass the maximum already on the stack behind
    when asked (with the top-ups already waiting) is refused at once, as between hands:
    the player is told when asking, not at the end of the hand.
    """
    s = _seat(ctx, ev.seat)
    if s is None:
        return
    # issue 19: a tournament's rebuys and add-ons come as top-ups, outside any cash range
    hi = None if ctx.state.settings.tournament else ctx.state.settings.buy_in_max
    if in_hand(ctx.state, s.seat):
        if s.leaving:
            refuse(ctx, "T-8", f"T-8: seat {s.seat} is leaving")
            return
        if hi is not None and s.stack + s.topup + ev.amount > hi:
            refuse(ctx, "T-7", f"T-7: at most {hi} on the table; seat {s.seat} has {s.stack}"
                               + (f" and {s.topup} to come" if s.topup else "")
                               + f", may add {max(0, hi - s.stack - s.topup)}")
            return
        if _chips_ok(ctx, ev, "T-7"):
            ctx.set_seat(evolve(s, topup=s.topup + ev.amount))
        return
    if s.stack == 0:
        refuse(ctx, "T-2", _no_chips(s, "buy in again"))
        return
    if hi is not None and s.stack + ev.amount > hi:
        refuse(ctx, "T-7", f"T-7: at most {hi} on the table; seat {s.seat} has {s.stack}, "
                           f"may add {max(0, hi - s.stack)}")
        return
    if not _chips_ok(ctx, ev, "T-7"):
        return
    ctx.set_seat(evolve(s, stack=s.stack + ev.amount))
    ctx.state = evolve(ctx.state, ledger=ctx.state.ledger.top_up(s.player, ev.amount))
    ctx.emit(fx.TakeChips(player=s.player, amount=ev.amount, seat=s.seat))


def chips_raced(ctx: Ctx, ev: ev_.ChipsRaced) -> None:
    """Issue 19 (TDA chip race): set the stacks a tournament's colour-up left, between hands.

    Refused (``L-2``) at a cash table or while a hand runs; (``T-3``) a seat not taken;
    (``S-10``) a player with chips raced out (a stack of 0: the TDA races nobody out).
    """
    st = ctx.state
    if not st.settings.tournament:
        refuse(ctx, "L-2", "L-2: a chip race is a tournament's")
        return
    if st.hand is not None:
        refuse(ctx, "L-2", "L-2: a chip race is run between hands")
        return
    seats = [st.seat(n) for n in ev.seats]
    for n, s, new in zip(ev.seats, seats, ev.stacks):
        if s is None:
            refuse(ctx, "T-3", f"T-3: seat {n} is not taken")
            return
        if s.stack > 0 and new == 0:
            refuse(ctx, "S-10", f"S-10: the chip race would race seat {n} out of the tournament")
            return
    ledger = st.ledger
    for s, new in zip(seats, ev.stacks):
        assert s is not None  # checked above
        if new != s.stack:
            ledger = ledger.raced(s.player, new - s.stack)
            ctx.set_seat(evolve(s, stack=new))
    ctx.state = evolve(ctx.state, ledger=ledger)


def stand_up(ctx: Ctx, ev: ev_.StoodUp) -> None:
    """T-8: give up the seat; the stack goes back to the player's balance.

    At a tournament table refused (T-8) while the player has chips or is in the hand: no
    cash-out, the chips stay in play until the player busts (issue 19).

    Not in the running hand: the seat is freed at once. Mid-hand the hand is folded first,
    at once, whoever's turn it is (:func:`~.play.fold_leavers`; when cards are on their way,
    as soon as they are out), and the seat is freed when the hand ends. A leaver's hand with
    no decision left (all-in, or in an all-in run-out: S-8) is not folded: it plays to the
    showdown and what it wins is paid out with the stack.
    """
    s = _seat(ctx, ev.seat)
    if s is None:
        return
    if ev.moved:
        if not ctx.state.settings.tournament or ctx.state.hand is not None:
            refuse(ctx, "T-8", "T-8: a player is moved to another table at a tournament table between hands only")
            return
        leave(ctx, s.seat, "moved")  # issue 19: the stack goes with the player (TDA 10, 11)
        return
    if ctx.state.settings.tournament and (s.stack > 0 or in_hand(ctx.state, s.seat)):
        # issue 19: no cash-out; an absent player is still dealt in and blinded (sit out)
        refuse(ctx, "T-8", f"T-8: a tournament has no cash-out: {s.name}'s chips stay in play "
                           f"until they bust")
        return
    if in_hand(ctx.state, s.seat):
        ctx.set_seat(evolve(s, leaving=True, preselect=None))
        auto_current(ctx)
        return
    leave(ctx, s.seat, "T-8")


def sit_out(ctx: Ctx, ev: ev_.SatOut) -> None:
    """T-5: skip hands from the next one on."""
    s = _seat(ctx, ev.seat)
    if s is None:
        return
    if s.sitting_out:
        refuse(ctx, "T-5", f"T-5: seat {s.seat} is already sitting out")
        return
    ctx.set_seat(evolve(s, sitting_out=True, out_reason="request"))


def _no_chips(s: Seat, then: str) -> str:
    """The T-2 reason for a seat with no chips: its buy-in may still wait for the dealer."""
    if s.buy_in_pending:
        return f"T-2: seat {s.seat}'s buy-in of {s.buy_in_pending} waits for the dealer to confirm the chips"
    return f"T-2: seat {s.seat} has no chips; {then}"


def sit_in(ctx: Ctx, ev: ev_.SatIn) -> None:
    """T-4/T-6/A-2: play again; ``post`` pays what is owed now, else wait for the big blind."""
    s = _seat(ctx, ev.seat)
    if s is None:
        return
    if s.stack == 0 and not in_hand(ctx.state, s.seat):
        refuse(ctx, "T-2", _no_chips(s, "buy in first"))
        return
    ctx.set_seat(evolve(s, sitting_out=False, out_reason="", hands_out=0, post=ev.post))


def connected(ctx: Ctx, ev: ev_.TabletConnected | ev_.TabletDisconnected, online: bool) -> None:
    """A-4: the seat's tablet came or went; a gone player is checked for when possible."""
    s = _seat(ctx, ev.seat)
    if s is None:
        return
    if s.connected == online:
        return
    ctx.set_seat(evolve(s, connected=online))
    if not online:
        auto_current(ctx)


def change_settings(ctx: Ctx, ev: ev_.SettingsChanged) -> None:
    """L-2: validate a settings change; apply it now or when the running hand ends.

    Refused (L-2) when the table would shrink below a taken seat, or switch between cash and
    tournament play while anyone is seated (issue 19).
    """
    st = ctx.state
    merged = {**(st.pending_settings or {}), **ev.changes}
    try:
        new = st.settings.changed(**merged)
    except (ValueError, TypeError) as exc:
        msg = str(exc)
        refuse(ctx, msg.split(":", 1)[0] if ":" in msg[:6] else "L-2", msg)
        return
    taken = max((s.seat for s in st.occupied()), default=0)
    if new.seats < taken:
        refuse(ctx, "L-2", f"L-2: seat {taken} is taken; cannot shrink the table to {new.seats}")
        return
    if new.tournament != st.settings.tournament and taken:
        # issue 19: cash chips would lose their cash-out, tournament chips would gain one
        refuse(ctx, "L-2", "L-2: a table with players cannot switch between cash and tournament play")
        return
    if st.hand is not None:
        ctx.state = evolve(st, pending_settings=merged)
        return
    apply_settings(ctx, ev.changes, by=ev.by)


#: what is trimmed around a name before it is compared (whitespace and ASCII punctuation)
_NAME_TRIM = string.whitespace + string.punctuation

#: Unicode categories no player's name may hold (H1/H4, breaker 2): control (Cc), format (Cf:
#: zero-width spaces and joiners, LRM/RLM, U+2060, BOM, bidi embeddings, overrides and isolates),
#: lone surrogates (Cs: no UTF-8 encoder takes them), private use (Co), unassigned (Cn), line
#: and paragraph separators (Zl, Zp). They are invisible or unprintable, so a name holding
#: one looks like another name (a second player, or a re-entry past the limit) or breaks output.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def hidden_in_name(name: str) -> str | None:
    """Return the first character of ``name`` that no player's name may hold (a category of
    :data:`HIDDEN_CATEGORIES`), described as ``"U+200B ZERO WIDTH SPACE"``; None: none.

    The one rule for names entered by the floor (the room's late entries,
    ``room.tournament.entry_name``; the single table's, ``drivers.mqtt.codec.clean_name``, T-3).
    """
    for c in name:
        cat = unicodedata.category(c)
        if cat in HIDDEN_CATEGORIES:
            return f"U+{ord(c):04X} {unicodedata.name(c, cat)}"
    return None


def _fold(name: str) -> str:
    """``name`` as names are compared: format characters dropped (a name journalled before
    they were refused still matches), NFKC (NFC/NFD and full-width forms are one name) and
    casefolded, NFKC again (casefolding can leave a non-normalised string)."""
    name = "".join(c for c in name if unicodedata.category(c) != "Cf")
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def player_for_name(name: str) -> str:
    """Return the table's player id for a player who joins from a tablet under ``name`` (T-3).

    The controller has no room accounts: the name (case, spacing and punctuation around it
    ignored: "Ann", " ann. " and "ANN!" are one player; Unicode forms too: NFKC, so "Zoë" typed
    precomposed or decomposed and a full-width "Ａnn" are "zoë" and "ann", and format characters
    such as a zero-width space are dropped) is the player's identity at this table,
    so the T-2 20-minute return rule knows "Ann" coming back, and two players cannot sit under
    the same name. Ids of tablet players start ``name:``.

    Raises:
        ValueError: ``name`` is empty (or only whitespace).
    """
    key = " ".join(_fold(str(name)).split())
    key = " ".join(key.strip(_NAME_TRIM).split()) or key  # a name of punctuation only is kept as it is
    if not key:
        raise ValueError("T-3: a player needs a name")
    return f"name:{key}"
