"""Running hands at the table: start, deal, turns, timers, automation, finish (issue 3).

Internal to :mod:`controller.engine.table.step`: every function works on a :class:`Ctx`
that holds the state being built and the effects so far. The hand itself is the hand
engine's :class:`~controller.engine.hand.Hand` (mutable); the table copies it before the
first change in a step, so an old :class:`TableState` never changes (step stays pure).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .. import evaluator
from ..cards import FULL_DECK
from ..errors import HandError
from ..hand import Hand
from ..hand_base import _DEAL_BOARD
from ..settings import Game, HandSettings, PlayerSetup, RakeSettings, Street
from . import effects as fx
from . import events as ev_
from .blinds import Candidate, plan_hand
from .preselect import resolve
from .settings import TableSettings
from .state import RETURN_SECONDS, SIT_OUT_LIMIT, Dealing, Departure, HandInfo, Seat, TableState, Timer, evolve

__all__ = ["Ctx", "hand_settings", "clone_hand", "start_hand", "drive", "apply_action",
           "deal_card", "timer_expired", "void_hand", "auto_current", "refuse", "in_hand",
           "smallest_chip", "card_texts", "show_offer", "show_after_hand", "candidates",
           "may_post_now", "post_now_seats", "cards_to_read", "read_hole_cards", "all_in_runout",
           "runout", "fold_leavers", "settle_topup", "leave", "apply_settings"]



class Ctx:
    """One step in progress: ``state`` (replaced as the step goes), ``effects``, ``at``."""

    __slots__ = ("state", "effects", "at", "own_hand", "event")

    def __init__(self, state: TableState, event: ev_.Event) -> None:
        self.state = state
        self.effects: list[fx.Effect] = []
        self.at = float(event.at)
        self.own_hand = False
        self.event = event

    def emit(self, effect: fx.Effect) -> None:
        """Append one effect."""
        self.effects.append(effect)

    def hand(self) -> Hand:
        """Return the running hand, copied once per step before it is changed."""
        st = self.state
        if not self.own_hand:
            self.state = st = evolve(st, hand=clone_hand(st.hand))
            self.own_hand = True
        return st.hand  # type: ignore[no-any-return]

    def set_seat(self, seat: Seat) -> None:
        """Replace one seat in the state."""
        self.state = self.state.with_seat(seat.seat, seat)


def refuse(ctx: Ctx, rule: str, reason: str) -> None:
    """Emit a :class:`~.effects.Refuse` for the step's event; ``reason`` starts with ``rule``."""
    ev = ctx.event
    ctx.emit(fx.Refuse(event=ev.kind, rule=rule, reason=reason, seat=getattr(ev, "seat", None),
                       action_id=getattr(ev, "action_id", "")))


def smallest_chip(s: TableSettings) -> int:
    """Return the table's smallest chip (S-10)."""
    return s.smallest_chip


def hand_settings(s: TableSettings) -> HandSettings:
    """Return the hand engine's settings for table settings ``s`` (L-2, R-1..R-3, S-6)."""
    rake = None
    if s.rake_percent:
        rake = RakeSettings(percent=str(s.rake_percent), caps=s.rake_caps,
                            no_flop_no_drop=s.no_flop_no_drop,
                            draw_counts_as_flop=s.draw_counts_as_flop)
    bba = s.big_blind_ante > 0  # TDA RP-11: dead money, the big blind first
    return HandSettings(game=Game(s.game), limit=s.limit,  # type: ignore[arg-type]  # text: made a Limit
                        small_blind=s.small_blind,
                        big_blind=s.big_blind, ante=s.ante, small_bet=s.small_bet,
                        big_bet=s.big_bet, cap_lifted_heads_up=s.cap_lifted_heads_up,
                        smallest_chip=smallest_chip(s), rake=rake, dead_antes=bba,
                        big_blind_first=bba)


def clone_hand(hand: Hand) -> Hand:
    """Return an independent copy of ``hand`` (the engine's own :meth:`Hand.copy`)."""
    return hand.copy()




def card_texts(cards: Any) -> list[str | None]:
    """Return the hand engine's cards (``Card``, dense index or None) as ``"As"`` / None."""
    out: list[str | None] = []
    for c in cards:
        if c is None:
            out.append(None)
        elif type(c) is int:
            out.append(_DECK_TEXT[c])
        else:
            out.append(str(c))
    return out


_DECK_TEXT = [str(c) for c in FULL_DECK]


def in_hand(state: TableState, seat: int) -> bool:
    """Return whether ``seat`` is dealt into the running hand."""
    return state.hand is not None and seat in state.hand.index


# ---------------------------------------------------------------------------- start

def candidates(state: TableState) -> tuple[dict[int, Candidate], list[int]]:
    """Return ``(players in the game by seat, seats sitting out or without chips)`` for
    planning the next hand (T-4, T-5, T-6).

    At a tournament table everyone with chips is in the game, absent or not, and owes
    nothing (issue 19: dealt in and blinded; no missed blinds); a new (or moved) player is
    dealt in at once except on the button or between it and the big blind, where they wait
    for the button to pass, posting nothing (:func:`start_hand` drops the T-4 post)."""
    players: dict[int, Candidate] = {}
    out: list[int] = []
    tournament = state.settings.tournament
    for s in state.seats:
        if s is None:
            continue
        if tournament:
            if s.stack > 0:
                players[s.seat] = Candidate(s.seat, new=s.new, post=True)
            else:
                out.append(s.seat)
            continue
        if s.stack > 0 and not s.sitting_out and not s.leaving:
            players[s.seat] = Candidate(s.seat, s.new, s.missed_sb, s.missed_bb, s.post)
        else:
            out.append(s.seat)
    return players, out


def may_post_now(state: TableState, seat: int) -> bool:
    """T-4: return whether a new player taking the free ``seat`` now and posting one big
    blind would be dealt into the next hand.

    False when the seat lies between the big blind and the button of the next hand (the
    button must pass first). True when the seat would be the big blind anyway, or when the
    table would start fresh (fewer than two players could be dealt in otherwise).
    """
    return seat in post_now_seats(state, (seat,))


def post_now_seats(state: TableState, free: tuple[int, ...]) -> tuple[int, ...]:
    """Return those of the free seats ``free`` where :func:`may_post_now` holds (T-4).

    The answer depends only on who is in the game, the last rotation and the stakes, which
    change between hands, not with every bet: it is memoised on them (the public view asks
    on every change of the table).
    """
    players, out = candidates(state)
    cfg = state.settings
    return _post_now(cfg.seats, cfg.small_blind, cfg.big_blind, state.rotation,
                     tuple(players.values()), tuple(out), free)


@lru_cache(maxsize=256)
def _post_now(seats: int, sb: int, bb: int, last: Any, players: tuple[Candidate, ...],
              out: tuple[int, ...], free: tuple[int, ...]) -> tuple[int, ...]:
    ok = []
    for seat in free:
        trial = {c.seat: c for c in players}
        trial[seat] = Candidate(seat, new=True, post=True)
        plan = plan_hand(seats=seats, players=trial, sitting_out=out, last=last,
                         small_blind=sb, big_blind=bb)
        if plan is None or seat in plan.dealt:
            ok.append(seat)
    return tuple(ok)


def button_waits(state: TableState) -> tuple[int, ...]:
    """T-4 (issue 19: the screens say it): the seats in the game that wait for the button to
    pass, not dealt in (on the button or between it and the big blind): while a hand runs,
    those its plan left out (:attr:`HandInfo.button_waits`); between hands, those the next
    hand's plan would leave out now (a forecast: it changes as players come and go; a redrawn
    final table's fresh rotation is not foreseen). Memoised as :func:`post_now_seats` is."""
    if state.hand is not None:
        return state.info.button_waits if state.info is not None else ()
    players, out = candidates(state)
    cfg = state.settings
    return _button_waits(cfg.seats, cfg.small_blind, cfg.big_blind, state.rotation,
                         tuple(players.values()), tuple(out))


@lru_cache(maxsize=256)
def _button_waits(seats: int, sb: int, bb: int, last: Any, players: tuple[Candidate, ...],
                  out: tuple[int, ...]) -> tuple[int, ...]:
    plan = plan_hand(seats=seats, players={c.seat: c for c in players}, sitting_out=out, last=last,
                     small_blind=sb, big_blind=bb)
    return () if plan is None else plan.button_waits


#: The settings a tournament level sets (TDA 23, docs/tournament.md).
LEVEL_FIELDS = ("small_blind", "big_blind", "ante", "big_blind_ante")


def start_hand(ctx: Ctx, button_hint: int | None, level: dict[str, int] | None = None,
               redraw: bool = False) -> None:
    """Plan and start the next hand (T-1, T-4, T-5, T-6), or refuse (T-3).

    ``button_hint``: the button seat of the table's first hand; with ``redraw`` at a
    tournament table, of this hand too: the rotation starts afresh there, as at a new table
    (the room's redrawn final table, its button drawn again: docs/tournament.md); ignored
    otherwise (T-1 moves the button).

    ``level``: the blinds and antes this hand plays (keys of :data:`LEVEL_FIELDS`, chips),
    as the tournament clock gives them at the deal (TDA 23: a new level applies from the
    next hand); they are applied and recorded in the settings log before the hand is
    planned, and the hand plays them to its end. Refused with the state unchanged (L-2,
    S-10, RP-11) when they are not valid stakes.
    """
    st = ctx.state
    if st.hand is not None:
        refuse(ctx, "T-3", "T-3: a hand is already running")
        return
    if level:
        changes = {k: v for k, v in level.items() if getattr(st.settings, k) != v}
        if changes:
            try:
                st.settings.changed(**changes)
            except (ValueError, TypeError) as exc:
                msg = str(exc)
                refuse(ctx, msg.split(":", 1)[0] if ":" in msg[:6] else "L-2", msg)
                return
            apply_settings(ctx, changes, by="level")
            st = ctx.state
    players, out = candidates(st)
    cfg = st.settings
    last = None if redraw and cfg.tournament else st.rotation  # a redrawn table: a fresh rotation
    plan = plan_hand(seats=cfg.seats, players=players, sitting_out=out, last=last,
                     small_blind=cfg.small_blind, big_blind=cfg.big_blind, button_hint=button_hint)
    if plan is None:
        refuse(ctx, "T-3", f"T-3: a hand needs two players in the game, {len(players)} ready")
        return
    setups = []
    for seat in plan.dealt:
        live, dead = plan.posts.get(seat, (0, 0))
        if cfg.tournament and seat not in (plan.sb_seat, plan.bb_seat):
            live, dead = 0, 0  # issue 19: a new player in a tournament posts no blind to come in
        bba = cfg.big_blind_ante if seat == plan.bb_seat and cfg.big_blind_ante else None  # RP-11
        setups.append(PlayerSetup(seat, st.seats[seat - 1].stack, live, dead, bba))  # type: ignore[union-attr]
    try:
        hand = Hand(hand_settings(cfg), setups, button=plan.button, sb_seat=plan.sb_seat,
                    bb_seat=plan.bb_seat)
    except HandError as exc:
        refuse(ctx, exc.rule or "T-3", str(exc))
        return
    prior = {}
    seats = list(st.seats)
    dealt = set(plan.dealt)
    for i, s in enumerate(seats):
        if s is None:
            continue
        prior[s.seat] = (s.player, s.missed_sb, s.missed_bb, s.new, s.post, s.hands_out)
        if s.seat in dealt:
            if (s.new or s.post or s.missed_sb or s.missed_bb or s.hands_out
                    or s.preselect is not None):  # issue 21: no copy of a seat that is as it was
                s = evolve(s, new=False, post=False, missed_sb=False, missed_bb=False,
                           hands_out=0, preselect=None)
        else:
            if s.seat in plan.missed_sb:
                s = evolve(s, missed_sb=True)
            if s.seat in plan.missed_bb:
                s = evolve(s, missed_bb=True)
            if s.sitting_out or s.stack == 0:
                s = evolve(s, hands_out=s.hands_out + 1)
        seats[i] = s
    number = st.hands + 1
    info = HandInfo(
        number=number, button=plan.button, sb_seat=plan.sb_seat, bb_seat=plan.bb_seat,
        dealt=plan.dealt, start_stacks={p.seat: p.stack for p in setups},
        players={seat: seats[seat - 1].player for seat in plan.dealt},  # type: ignore[union-attr]
        started_at=ctx.at, turn_seq=0, prior_rotation=st.rotation, prior_marks=prior,
        button_waits=plan.button_waits,
    )
    ctx.state = evolve(st, seats=tuple(seats), hands=number, hand=hand, info=info,
                        rotation=plan.rotation, last_result=None, dealing=None, timer=None)
    ctx.own_hand = True
    drive(ctx)


# ---------------------------------------------------------------------------- flow

def drive(ctx: Ctx) -> None:
    """Move the hand on until it needs a card or a person: deal requests, automatic
    actions (A-2, A-3, A-4, T-8, P-2), the action timer, and the end of the hand."""
    for _ in range(200):
        st = ctx.state
        hand = st.hand
        if hand is None:
            return
        if st.dealing is None and not hand.is_complete:
            fold_leavers(ctx)
            st = ctx.state
            hand = st.hand
            assert hand is not None
        if hand.is_complete:
            finish_hand(ctx)
            return
        reading = cards_to_read(st)
        if reading is not None:
            # P-2 / S-8: a hand that must be shown holds a card the shuffler could not read:
            # nothing moves until the dealer reads it from the felt (or the floor voids)
            known = tuple(c or "??" for c in card_texts(hand.hole[hand.index[reading]]))
            ctx.emit(fx.ReadHoleCards(seat=reading, known=known))
            return
        req = hand.pending_deal()
        if req is not None:
            if st.dealing is None:
                _ask_cards(ctx, req)
            return
        seat = hand.seat_to_act
        if seat is None or st.timer is not None:
            return
        legal = hand.legal()
        auto = _auto(ctx, seat, legal)
        if auto is None:
            _start_timer(ctx, seat)
            return
        name, amount, why = auto
        if not _act(ctx, seat, name, amount, (), why=why):
            _start_timer(ctx, seat)  # a pre-selection the hand refused is dropped
            return
    raise RuntimeError("table: the hand did not settle")  # pragma: no cover - a bug guard


def fold_leavers(ctx: Ctx) -> bool:
    """T-8: fold now the hand of every player who stood up mid-hand and can be folded.

    "Mid-hand, the hand is folded first": in turn or not, the moment no card is on its way
    (a leaver's hand is folded once the cards being dealt are out). Not folded, and played
    to the showdown, is the hand of a leaver with no decision left (S-8): all-in, or in an
    all-in run-out; the table still stands pat for an all-in leaver in the draw and mucks
    for a leaver at the showdown when the hand cannot win (T-8 in ``auto``). Each fold is
    recorded in ``auto`` as ``[seat, "fold", "T-8"]``. Return whether a hand was folded.
    """
    st = ctx.state
    hand = st.hand
    if hand is None or st.dealing is not None or hand.is_complete:
        return False
    leavers = [s.seat for s in st.seats
               if s is not None and s.leaving and s.seat in hand.index and hand.can_fold_leaving(s.seat)]
    if not leavers:
        return False
    street, turn, level = hand.street, hand.seat_to_act, hand.current
    hand = ctx.hand()
    for seat in leavers:
        if hand.is_complete or not hand.can_fold_leaving(seat):
            continue
        hand.fold_leaving(seat)
        info = ctx.state.info
        assert info is not None
        ctx.state = evolve(ctx.state, info=evolve(info, auto=info.auto + ((seat, "fold", "T-8"),)))
    if hand.is_complete or hand.seat_to_act != turn or hand.street is not street or hand.current != level:
        # the turn moved on (or the hand is over), or the leaver's bet was the level and the
        # price dropped to the live players' bets: the turn starts again with its clock
        _stop_timer(ctx)
    _refresh_preselects(ctx, street)
    return True


def _ask_cards(ctx: Ctx, req: Any) -> None:
    if req.kind == "hole":
        # one card at a time around the table, as a dealer pitches them (G-1..G-3)
        batches: tuple[tuple[str, int], ...] = (("seat", 1),)
        reshuffle_at = None
    elif req.kind == "board":
        batches = ((("burn", 1),) if req.burn else ()) + (("board", req.count),)
        reshuffle_at = None
    else:  # draw (G-3, G-4)
        head = (("burn", 1),) if req.burn else ()
        if req.reshuffle_after is not None:
            first = req.reshuffle_after
            parts = ((("draw", first),) if first else ()) + (("draw", req.count - first),)
            batches = head + parts
            reshuffle_at = len(batches) - 1
        else:
            batches = head + (("draw", req.count),)
            reshuffle_at = None
    ctx.state = evolve(ctx.state, dealing=Dealing(req.kind, req.seat, batches, reshuffle_at))
    _announce(ctx, 0)


def _announce(ctx: Ctx, index: int) -> None:
    d = ctx.state.dealing
    assert d is not None
    target, count = d.batches[index]
    seat = d.seat if target in ("seat", "draw") else None
    ctx.emit(fx.DealCards(target=target, count=count, seat=seat,
                          reshuffle=d.reshuffle_at == index))


def deal_card(ctx: Ctx, card: str) -> None:
    """Take one card from the shuffler for the deal in progress (G-1..G-5)."""
    st = ctx.state
    d = st.dealing
    if st.hand is None or d is None:
        refuse(ctx, "G-5", f"G-5: no card is due now, got {card}")
        return
    cards = d.cards + (card,)
    total = sum(c for _, c in d.batches)
    if len(cards) < total:
        ctx.state = evolve(st, dealing=evolve(d, cards=cards))
        done = 0
        for i, (_, c) in enumerate(d.batches):
            done += c
            if len(cards) == done:
                _announce(ctx, i + 1)
        return
    has_burn = d.batches[0][0] == "burn"
    burn = cards[0] if has_burn else None
    body = list(cards[1:] if has_burn else cards)
    hand = ctx.hand()
    try:
        if d.kind == "hole":
            hand.deal_hole(d.seat, body)  # type: ignore[arg-type]  # a hole-card request names its seat
        elif d.kind == "board":
            hand.deal_board(body, burn=burn)
        else:
            hand.deal_draw(d.seat, body, burn=burn)  # type: ignore[arg-type]  # a draw names its seat
    except ValueError as exc:  # IllegalDeal (a HandError), or a card the engine cannot read
        # the cards already asked for are kept; the floor decides (void or fix the deck)
        refuse(ctx, getattr(exc, "rule", "") or "G-5", str(exc))
        ctx.state = st  # nothing else changed in this step
        ctx.own_hand = False
        return
    ctx.state = evolve(ctx.state, dealing=None)
    drive(ctx)


def _auto(ctx: Ctx, seat: int, legal: Any) -> tuple[str, int | None, str] | None:
    """Return the action the table takes for ``seat`` now, or None to wait for the player."""
    st = ctx.state
    s = st.seats[seat - 1]
    assert s is not None
    if legal.show or legal.muck:
        # P-2: a hand that can still win must be shown to win, so it is tabled; one that
        # cannot beat a hand already shown is the player's choice, unless they are gone
        if _can_win(st.hand, seat):
            return ("show", None, "P-2")
        if s.leaving:
            return ("muck", None, "T-8")
        if not s.connected:
            return ("muck", None, "A-4")
        if s.auto_muck:
            return ("muck", None, "P-2")
        return None
    if legal.draw is not None:
        if s.leaving or not s.connected:
            return ("draw", None, "T-8" if s.leaving else "A-4")
        return None
    if s.sitting_out and st.settings.tournament:
        # issue 19: an absent tournament player is dealt in and blinded, and the hand is
        # killed at its first turn, also when checking is free (TDA: away from the table)
        return ("fold", None, "absent")
    if s.leaving:  # not reached: fold_leavers folds the hand before any turn of a leaver
        return ("check", None, "T-8") if legal.check else ("fold", None, "T-8")
    if s.preselect is not None:
        choice, amount = s.preselect
        ctx.set_seat(evolve(s, preselect=None))
        picked = resolve(choice, amount, legal)
        if picked is not None:
            return (picked[0], picked[1], "A-3")
    if not s.connected and legal.check:
        return ("check", None, "A-4")
    return None


def runout(hand: Hand | None) -> bool:
    """S-8: return whether ``hand``'s action is complete with board cards still to come.

    True from the moment no player can act any more (at most one live player has chips
    behind and nobody faces a bet: the betting round that made it so is closed) until the
    last board card is dealt, including while the dealer is dealing a street; False when a
    player has a decision (a bet to face, a draw, a show or muck at the showdown), when
    fewer than two players hold live cards, once the hand is complete, and always in five
    card draw (G-3): there an all-in player still chooses their discards, so the action is
    complete only after the last draw, when no card is left to come.
    """
    if hand is None or hand.phase != _DEAL_BOARD or hand.n_able >= 2:
        return False
    live = 0
    for i in range(hand.n):
        if not hand.folded[i] and not hand.mucked[i]:
            live += 1
    return live >= 2


def all_in_runout(state: TableState) -> bool:
    """S-8: return whether the running hand of ``state`` is in an all-in run-out
    (:func:`runout`): nobody can act any more and board cards are to come.

    This is when the hands are turned face up and each player's equity is shown on the
    display and the tablets (docs/state.md ``all_in_equity``), and never a moment earlier.
    """
    return runout(state.hand)


def cards_to_read(state: TableState) -> int | None:
    """Return the seat whose hole cards the dealer must read from the felt now, or None.

    A hand must be shown but holds a card the shuffler reported unreadable (``"??"``):

    - at the showdown (P-2), the seat whose turn it is: its hand cannot be ranked, so the
      table cannot tell that it cannot win (:func:`_can_win`), and it must be shown to win;
    - in Hold'em and Omaha once no more betting is possible (S-8, all-in): every live hand
      is exposed before the rest of the board is dealt; the first such hand clockwise from
      the first seat left of the button.

    The table then waits for a :class:`~.events.HoleCardsRead` (or the floor voids the hand).
    """
    hand: Hand | None = state.hand
    if hand is None or state.dealing is not None or hand.is_complete:
        return None
    if hand.street is Street.SHOWDOWN:
        seat = hand.seat_to_act
        if seat is not None and None in hand.hole[hand.index[seat]]:
            return seat
        return None
    if runout(hand):
        for i in hand._order:  # noqa: SLF001 - the engine's clockwise order from the button
            if (not hand.folded[i] and not hand.mucked[i] and not hand.exposed[i]
                    and None in hand.hole[i]):
                return hand.seats[i]
    return None


def read_hole_cards(ctx: Ctx, ev: ev_.HoleCardsRead) -> None:
    """The dealer read seat ``ev.seat``'s hole cards from the felt (P-2, S-8, G-5).

    Accepted only for the seat :func:`cards_to_read` names; the cards must hold every card
    the table knows of that hand and no card dealt elsewhere this hand (hole cards, board,
    burns, discards). The hand is then shown with them (``auto`` records
    ``[seat, "show", "P-2"]``, or ``"S-8"`` when exposed all-in) and the hand goes on.
    A refusal is a :class:`~.effects.Refuse` with ``seat`` None (the floor's input, not
    the player's) whose reason names the rule (``G-5: card As was already dealt ...``).
    """
    st = ctx.state
    waiting = cards_to_read(st)
    if waiting != ev.seat:
        why = f"the table waits for seat {waiting}'s" if waiting is not None else "no hand waits for a reading"
        ctx.emit(fx.Refuse(event=ev.kind, rule="P-2", reason=f"P-2: seat {ev.seat}'s hole cards are "
                           f"not asked for now ({why})"))
        return
    rule = "P-2" if st.hand.street is Street.SHOWDOWN else "S-8"
    hand = ctx.hand()
    try:
        hand.show(ev.seat, list(ev.cards))
    except ValueError as exc:  # IllegalAction: wrong count, not the cards known, a duplicate
        ctx.state = st
        ctx.own_hand = False
        ctx.emit(fx.Refuse(event=ev.kind, rule=getattr(exc, "rule", "") or "G-5",
                           reason=f"{exc} (read by {ev.by})"))
        return
    info = ctx.state.info
    assert info is not None
    ctx.state = evolve(ctx.state, info=evolve(info, auto=info.auto + ((ev.seat, "show", rule),)))
    drive(ctx)


def _can_win(hand: Hand, seat: int) -> bool:
    """P-2: whether ``seat`` beats or ties every hand already shown in some pot it can win.

    A hand with a card the engine does not know (``"??"``) cannot be ranked: it may win,
    so it is True (and :func:`cards_to_read` asks the dealer to read it first).
    Each hand is ranked once however many pots it is in (issue 21: at a ten-handed
    showdown this runs for every player in turn, in the step that may also end the hand).
    """
    i = hand.index[seat]
    board = [c for c in hand.board if c is not None]
    omaha = hand.settings.game is Game.OMAHA
    mine = _rank(hand.hole[i], board, omaha)
    if mine is None:
        return True
    exposed, mucked, folded, index = hand.exposed, hand.mucked, hand.folded, hand.index
    ranks: dict[int, int | None] = {}
    for pot in hand.pots() or [None]:  # type: ignore[list-item]  # None: no pot yet
        elig = pot.eligible if pot is not None else tuple(hand.seats)
        if seat not in elig:
            continue
        best = -1
        for other in elig:
            j = index[other]
            if j != i and exposed[j] and not mucked[j] and not folded[j]:
                if j in ranks:
                    r = ranks[j]
                else:
                    r = ranks[j] = _rank(hand.hole[j], board, omaha)
                if r is not None and r > best:
                    best = r
        if mine >= best:
            return True
    return False


def _rank(hole: list[int | None], board: list[int], omaha: bool) -> int | None:
    """Return the evaluator's rank of hole cards ``hole`` with ``board`` (the hand engine's
    dense card indexes), or None when it cannot be ranked (an unknown card, not a hand)."""
    if None in hole:
        return None
    known = [c for c in hole if c is not None]  # all of them (above)
    if not omaha:
        cards = known + board
        if 5 <= len(cards) <= 7 and len(set(cards)) == len(cards):
            return evaluator.rank_indices(cards)  # rank_hand's own fast path
    hole_texts = [c for c in card_texts(known) if c is not None]
    board_texts = [c for c in card_texts(board) if c is not None]
    try:
        if omaha:
            return evaluator.rank_omaha(hole_texts, board_texts)
        return evaluator.rank_hand(hole_texts + board_texts)
    except ValueError:
        return None


def _start_timer(ctx: Ctx, seat: int) -> None:
    st = ctx.state
    seq = st.timer_seq + 1
    showdown = st.hand is not None and st.hand.street is Street.SHOWDOWN
    secs = float(st.settings.showdown_seconds if showdown else st.settings.action_seconds)
    ctx.state = evolve(st, timer_seq=seq, timer=Timer(seq, seat, ctx.at, ctx.at + secs),
                        info=evolve(st.info, turn_seq=st.seq + 1))
    ctx.emit(fx.StartTimer(timer="action", seq=seq, seconds=secs, seat=seat))


def _stop_timer(ctx: Ctx) -> None:
    st = ctx.state
    if st.timer is not None:
        ctx.emit(fx.CancelTimer(timer="action", seq=st.timer.seq))
        ctx.state = evolve(st, timer=None)


def _act(ctx: Ctx, seat: int, name: str, amount: int | None, discards: tuple[str, ...],
         *, why: str = "") -> bool:
    """Apply one action to the hand; return False (and refuse) when it is illegal."""
    old = ctx.state.hand
    street = old.street
    before, owned = ctx.state, ctx.own_hand
    hand = ctx.hand()
    try:
        if name == "draw":
            hand.act(seat, "draw", cards=discards if discards else (amount or 0))
        elif name == "fold" and why == "absent":
            hand.fold(seat, when_check_is_free=True)
        else:
            hand.act(seat, name, amount)
    except ValueError as exc:  # IllegalAction (a HandError), or cards the engine cannot read
        # the engine checks before it changes anything: the step goes on from the state as it
        # was, so a refused action leaves the table (and its seq) untouched
        ctx.state, ctx.own_hand = before, owned
        if why == "A-3":
            return False
        if why:  # pragma: no cover - the other automation only picks legal moves
            raise
        refuse(ctx, getattr(exc, "rule", "") or "A-1", str(exc))
        return False
    _stop_timer(ctx)
    st = ctx.state
    s = st.seats[seat - 1]
    if s is not None and s.preselect is not None:
        ctx.set_seat(evolve(s, preselect=None))
    if why:
        info = ctx.state.info
        ctx.state = evolve(ctx.state, info=evolve(info, auto=info.auto + ((seat, name, why),)))  # type: ignore[union-attr]
    _refresh_preselects(ctx, street)
    return True


def _refresh_preselects(ctx: Ctx, street: Any) -> None:
    """A-3: drop every pre-selection when the round ends, and a "call X" whose X changed."""
    st = ctx.state
    hand = st.hand
    new_round = hand.street is not street or hand.is_complete
    for s in st.seats:
        if s is None or s.preselect is None:
            continue
        if new_round:
            ctx.set_seat(evolve(s, preselect=None))
        elif s.preselect[0] == "call":
            i = hand.index.get(s.seat)
            if i is None or to_call(hand, i) != s.preselect[1]:
                ctx.set_seat(evolve(s, preselect=None))


def to_call(hand: Hand, i: int) -> int:
    """Return the chips player index ``i`` needs to call now (capped at the stack)."""
    c = hand.current - hand.bet[i]
    if c < 0:
        c = 0
    st = hand.stack[i]
    return c if c < st else st


def apply_action(ctx: Ctx, ev: ev_.ActionTaken) -> None:
    """A player's own action (A-1); refused when not their turn or stale."""
    st = ctx.state
    hand = st.hand
    if hand is None and ev.action == "show":
        show_after_hand(ctx, ev)
        return
    if hand is None:
        refuse(ctx, "A-1", "A-1: no hand is running")
        return
    # Stale first: a decision made before the current turn began (its copy already taken, the
    # table moved on) is told so, not "not your turn" (it was the seat's turn when it decided).
    if ev.seq is not None and st.info is not None and ev.seq < st.info.turn_seq:
        refuse(ctx, "A-1", f"A-1: stale action: decided on state {ev.seq}, the turn began at "
                           f"{st.info.turn_seq}")
        return
    if hand.seat_to_act != ev.seat or st.dealing is not None:
        refuse(ctx, "A-1", f"A-1: it is not seat {ev.seat}'s turn")
        return
    if _act(ctx, ev.seat, ev.action, ev.amount, ev.discards):
        drive(ctx)


def timer_expired(ctx: Ctx, ev: ev_.TimerExpired) -> None:
    """A-2: on time out check if possible, else fold (draw: stand pat); sit the player out.

    At the showdown (P-2) the hand is mucked and the player is not sat out: letting the
    show-or-muck clock run is how a player at a live table lets the dealer take a losing hand.
    """
    st = ctx.state
    t = st.timer
    if ev.timer != "action" or t is None or t.seq != ev.seq or st.hand is None:
        return  # stale: ignored, not refused
    seat = t.seat
    legal = st.hand.legal()
    if legal.show or legal.muck:
        _act(ctx, seat, "muck", None, (), why="A-2")
        drive(ctx)
        return
    if legal.draw is not None:
        name = "draw"
    else:
        name = "check" if legal.check else "fold"
    _act(ctx, seat, name, None, (), why="A-2")
    s = ctx.state.seats[seat - 1]
    if s is not None and not s.sitting_out:
        ctx.set_seat(evolve(s, sitting_out=True, out_reason="timeout"))
    drive(ctx)


def auto_current(ctx: Ctx) -> None:
    """Re-decide the current turn after a seat change (disconnect A-4, stand up T-8).

    A player who stood up has the hand folded first, whoever's turn it is
    (:func:`fold_leavers`); the hand then moves on.
    """
    st = ctx.state
    hand = st.hand
    if hand is not None and fold_leavers(ctx):
        drive(ctx)
        return
    if hand is None or st.dealing is not None or st.timer is None:
        return
    seat = hand.seat_to_act
    if seat is None:
        return
    auto = _auto(ctx, seat, hand.legal())
    if auto is not None and _act(ctx, seat, auto[0], auto[1], (), why=auto[2]):
        drive(ctx)


# ---------------------------------------------------------------------------- finish

def void_hand(ctx: Ctx, reason: str) -> None:
    """The floor voids the running hand: chips back, rotation and marks as before it."""
    st = ctx.state
    if st.hand is None:
        refuse(ctx, "A-1", "A-1: no hand is running")
        return
    ctx.hand().void(reason or "misdeal")
    info = st.info
    assert info is not None
    seats = list(ctx.state.seats)
    for i, s in enumerate(seats):
        if s is None:
            continue
        p = info.prior_marks.get(s.seat)
        if p is not None and p[0] == s.player:
            seats[i] = evolve(s, missed_sb=p[1], missed_bb=p[2], new=p[3], post=p[4], hands_out=p[5])
    ctx.state = evolve(ctx.state, seats=tuple(seats), rotation=info.prior_rotation, dealing=None)
    finish_hand(ctx)


def _rake_shares(res: Any) -> dict[int, int]:
    out: dict[int, int] = {}
    for award in res.awards:
        r = award.rake
        if not r:
            continue
        winners = list(award.winners) or list(award.shares)
        total = sum(award.shares.get(w, 0) for w in winners)
        given = 0
        for w in winners:
            part = (r * award.shares.get(w, 0)) // total if total else 0
            out[w] = out.get(w, 0) + part
            given += part
        if winners:
            out[winners[0]] = out.get(winners[0], 0) + r - given
    return out


def finish_hand(ctx: Ctx) -> None:
    """Book the finished hand: stacks, ledger, busts, leavers, T-5, pending settings."""
    _stop_timer(ctx)
    st = ctx.state
    hand = st.hand
    info = st.info
    assert hand is not None and info is not None
    res = hand.result()
    rake_of = _rake_shares(res)
    results: dict[str, tuple[int, int]] = {}
    busted: dict[str, int] = {}  # tournament: player -> stack at the start of the hand
    seats = list(st.seats)
    tournament = st.settings.tournament
    for seat in info.dealt:
        s = seats[seat - 1]
        assert s is not None
        final = res.stacks[seat]
        start = info.start_stacks[seat]
        results[s.player] = (final - start, rake_of.get(seat, 0))
        # issue 19: at a tournament, chips waiting for the hand's end (a rebuy or add-on the
        # tournament booked before this hand started) keep a player who lost every chip in
        # the hand in: bought before busting, not out (the TDA's rebuy rule to 2011, FIDPA
        # "Re-buys": declared before the deal, the rebuy must be made); they come below
        rebought = tournament and s.topup > 0 and not s.leaving
        # one copy of the seat, and none when nothing changed (issue 21: ten seats at the
        # end of every hand)
        if final == 0 and not s.sitting_out and not rebought:
            s = evolve(s, stack=0, preselect=None, sitting_out=True, out_reason="busted")
        elif s.stack != final or s.preselect is not None:
            s = evolve(s, stack=final, preselect=None)
        if final == 0 and tournament and not rebought:
            busted[s.player] = start
        seats[seat - 1] = s
    summary = []
    for seat in info.dealt:
        # P-4: mucked at showdown is recorded for the seated players; a folded hand (and an
        # uncontested winner's, which was never shown) stays private
        showed = "shown" if seat in res.shown else "mucked" if seat in res.mucked else "folded"
        summary.append({"seat": seat, "name": seats[seat - 1].name,  # type: ignore[union-attr]
                        "player": info.players[seat],
                        "cards": [c or "??" for c in res.hole.get(seat, ())], "showed": showed,
                        "start": info.start_stacks[seat], "end": res.stacks[seat]})
    record = {
        "hand": info.number, "table": st.settings.id, "seats": summary, "game": st.settings.game,
        "limit": st.settings.limit, "started": info.started_at, "ended": ctx.at,
        "button": info.button, "sb_seat": info.sb_seat, "bb_seat": info.bb_seat,
        "players": {str(seat): {"player": info.players[seat], "start": info.start_stacks[seat]}
                    for seat in info.dealt},
        "auto": [list(a) for a in info.auto],
        "hand_record": {  # replayable by Hand.from_snapshot (settings, players, events)
            "settings": hand.settings.to_json(),
            "players": [p.to_json() for p in hand.setup],
            "button": hand.button, "sb_seat": hand.sb_seat, "bb_seat": hand.bb_seat,
            "events": hand.events,
            "board": card_texts(hand.board),
        },
        "result": res.to_json(),
        "voided": res.voided,
    }
    if st.settings.tournament:
        # issue 19: who busted in this hand with their starting stacks (TDA simultaneous
        # eliminations: Standings.bust places them), and the level the hand played
        record["busted"] = busted
        record["level"] = {k: getattr(st.settings, k) for k in LEVEL_FIELDS}
    ctx.state = evolve(st, seats=tuple(seats), ledger=st.ledger.hand(results, res.rake),
                        hand=None, dealing=None, timer=None, last_result=record)
    ctx.own_hand = False
    ctx.emit(fx.HandFinished(hand=info.number, record=record))
    for s in ctx.state.seats:
        if s is not None and s.topup:
            settle_topup(ctx, s)
    for s in ctx.state.seats:
        if s is None:
            continue
        if s.leaving:
            leave(ctx, s.seat, "T-8")
        elif ctx.state.settings.tournament and s.stack == 0 and not s.buy_in_pending:
            leave(ctx, s.seat, "busted")  # issue 19: out of the tournament (or to rebuy)
        elif (s.sitting_out or s.stack == 0) and s.hands_out >= SIT_OUT_LIMIT:
            leave(ctx, s.seat, "T-5")
    if ctx.state.pending_settings:
        apply_settings(ctx, ctx.state.pending_settings, by="pending")
    # the private topics are cleared, but an uncontested winner's keeps the offer to show (P-2)
    offer = show_offer(ctx.state)
    ctx.emit(fx.PublishPrivate(seats=tuple(n for n in info.dealt if n != offer), clear=True))
    if offer is not None:
        ctx.emit(fx.PublishPrivate(seats=(offer,)))


def show_offer(state: TableState) -> int | None:
    """Return the seat that may still show its hand after the hand ended, or None (P-2).

    P-2: "a player who wins uncalled need not show, but may". Between the end of a hand
    that everyone else folded and the start of the next one, its winner (the same player,
    still seated) may table the hand; once shown, the offer is gone.
    """
    rec = state.last_result
    if state.hand is not None or rec is None or rec.get("voided"):
        return None
    res = rec["result"]
    if res["showdown_order"]:
        return None
    winners = {w for a in res["awards"] for w in a["winners"]}
    if len(winners) != 1:
        return None
    seat: int = next(iter(winners))
    s = state.seat(seat)
    if s is None or s.player != rec["players"].get(str(seat), {}).get("player") or str(seat) in res["shown"]:
        return None
    return seat


def show_after_hand(ctx: Ctx, ev: ev_.ActionTaken) -> None:
    """P-2: the uncontested winner of the last hand shows it (``show`` between hands).

    The hand is rebuilt from its record and shown by the hand engine; the record (P-4
    history) gets the show, and :class:`~.effects.HandShown` carries the new record.
    Refused (P-2) for any other seat or once the next hand has started.
    """
    st = ctx.state
    if show_offer(st) != ev.seat:
        refuse(ctx, "P-2", f"P-2: seat {ev.seat} has no hand to show now (only the winner of an "
                           "uncalled pot may show it, until the next hand)")
        return
    rec = st.last_result
    assert rec is not None
    try:
        hand = Hand.from_snapshot(rec["hand_record"])
        hand.show(ev.seat)
    except ValueError as exc:  # cards the engine does not know ("??" from the shuffler)
        refuse(ctx, getattr(exc, "rule", "") or "P-2", str(exc))
        return
    res = hand.result()
    cards = tuple(res.shown[ev.seat])
    new = dict(rec)
    new["seats"] = [{**x, "showed": "shown", "cards": list(cards)} if x["seat"] == ev.seat else x
                    for x in rec["seats"]]
    new["hand_record"] = {**rec["hand_record"], "events": hand.events}
    new["result"] = res.to_json()
    ctx.state = evolve(st, last_result=new)
    ctx.emit(fx.HandShown(hand=rec["hand"], seat=ev.seat, cards=cards, record=new))


# Between hands: what finishing or starting a hand books for the seats (seating.py
# uses these too for a player who stands up or settings changed between hands).


def settle_topup(ctx: Ctx, seat: Seat) -> None:
    """T-7: add the chips a player asked for during the hand that just ended.

    Only up to the buy-in maximum; the rest (or all of it after a bust, T-2, or when the
    player is leaving, T-8) is refused with a ``Refuse`` for the ``topped-up`` event. At a
    tournament table (no maximum) the chips come after a bust too: a rebuy or add-on booked
    before the hand started keeps the player in (issue 19; the TDA's rebuy rule to 2011:
    a rebuy declared before the deal must be made, so the player is not out).
    """
    want = seat.topup
    tournament = ctx.state.settings.tournament
    hi = None if tournament else ctx.state.settings.buy_in_max  # issue 19: no cap
    if seat.leaving:
        add, rule, why = 0, "T-8", "leaving the table"
    elif seat.stack == 0 and not tournament:
        add, rule, why = 0, "T-2", "no chips left; buy in again"
    else:
        add = want if hi is None else max(0, min(want, hi - seat.stack))
        rule, why = "T-7", f"at most {hi} on the table"
    ctx.set_seat(evolve(seat, topup=0, stack=seat.stack + add))
    if add:
        ctx.state = evolve(ctx.state, ledger=ctx.state.ledger.top_up(seat.player, add))
        ctx.emit(fx.TakeChips(player=seat.player, amount=add, seat=seat.seat))
    if add < want:
        ctx.emit(fx.Refuse(event="topped-up", rule=rule, seat=seat.seat,
                           reason=f"{rule}: {want - add} of the {want} chips not added: {why}"))


def leave(ctx: Ctx, seat: int, rule: str) -> None:
    """Free ``seat``: pay the stack back to the player's balance (T-8; T-5 after 10 hands)."""
    st = ctx.state
    s = st.seats[seat - 1]
    assert s is not None
    # T-2: the player's last departure with more than the maximum is replaced by this one,
    # unless the seat never held chips (a tablet buy-in still waiting for the dealer): giving
    # up such a seat must not wipe the amount the player left with
    keep_own = s.buy_in_pending > 0 and s.stack == 0
    deps = tuple(d for d in st.departures
                 if ctx.at - d.at < RETURN_SECONDS and (keep_own or d.player != s.player))
    hi = st.settings.buy_in_max
    if hi is not None and s.stack > hi:
        deps += (Departure(s.player, ctx.at, s.stack),)
    ledger = st.ledger.cash_out(s.player, s.stack)
    ctx.state = evolve(st.with_seat(seat, None), ledger=ledger, departures=deps)
    if s.stack:
        ctx.emit(fx.PayOut(player=s.player, amount=s.stack, seat=seat))
    ctx.emit(fx.SeatFreed(seat=seat, player=s.player, reason=rule))


def apply_settings(ctx: Ctx, changes: dict[str, Any], *, by: str) -> None:
    """Apply settings ``changes`` between hands and record them (L-2)."""
    st = ctx.state
    taken = max((s.seat for s in st.occupied()), default=0)
    if isinstance(changes.get("seats"), int) and changes["seats"] < taken:
        # checked when asked, and seats beyond it are refused since (sit_down); should a
        # player sit there all the same, the table keeps its size rather than drop them
        # (the settings log shows the change without "seats")
        changes = {k: v for k, v in changes.items() if k != "seats"}
    try:
        new = st.settings.changed(**changes)
    except (ValueError, TypeError) as exc:  # pragma: no cover - checked when asked
        refuse(ctx, "L-2", str(exc))
        ctx.state = evolve(ctx.state, pending_settings=None)
        return
    st = ctx.state
    seats = st.seats
    if new.seats != len(seats):
        seats = tuple(seats[:new.seats]) + (None,) * max(0, new.seats - len(seats))
    rotation = st.rotation
    if rotation is not None and max(rotation.button, rotation.sb, rotation.bb) > new.seats:
        rotation = None
    entry = {"hand": st.hands, "at": ctx.at, "by": by, "changes": dict(changes)}
    ctx.state = evolve(st, settings=new, seats=seats, rotation=rotation, pending_settings=None,
                        settings_log=st.settings_log + (entry,))
