"""One hand of poker: posts, dealt cards as facts, betting, draw, showdown, pots and rake.

The rules are ``RULES.md`` sections G, H, S, P and R. A :class:`Hand` is a mutable
object whose every action method is all-or-nothing: it either raises
:class:`~controller.engine.errors.IllegalAction` / ``IllegalDeal`` (``ValueError``s whose
message starts with the rule id and states the legal range) and leaves the state
untouched, or it performs the whole step. The engine never shuffles and never reads a
clock: whoever deals tells it which card went where (``deal_hole``, ``deal_board``,
``deal_draw``), and a hand is rebuilt exactly by replaying :attr:`Hand.events`
(:meth:`Hand.replay`, :meth:`Hand.from_snapshot`).

Typical use by the table (issue 3)::

    hand = Hand(settings, [PlayerSetup(1, 1000), PlayerSetup(2, 1000, live_post=5),
                           PlayerSetup(3, 1000, live_post=10)],
                button=1, sb_seat=2, bb_seat=3)
    while not hand.is_complete:
        need = hand.pending_deal()          # DealRequest, or None when a player acts
        if need:
            ...deal: hand.deal_hole(seat, cards) / deal_board(cards, burn) / deal_draw(...)
        else:
            legal = hand.legal()            # Legal for hand.seat_to_act
            hand.act(legal.seat, "call")    # fold/check/call/bet/raise/all_in/draw/show/muck
    result = hand.result()

Seats are the table's seat numbers; players are kept in ascending seat order, which is
clockwise. Bet and raise amounts are street totals ("to"), as in PHH ``cbr``. Cards are
:class:`~controller.engine.cards.Card`, text (``"As"``) or ``None`` / ``"??"`` for a card
the engine is not told.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable

from .cards import FULL_DECK, Card
from .errors import HandSetupError, IllegalAction
from .hand_base import (
    _BET, _BOARD_COUNTS, _COMPLETE, _DEAL_BOARD, _DEAL_DRAW, _DEAL_HOLE, _DRAW, _DRAW_STREETS, _FL,
    _FLOP_STREETS, _PL, _SHOWDOWN, Ranker, _slot_copier,
)
from .hand_dealing import DealingMixin
from .hand_journal import JournalMixin, _event_dict
from .hand_leave import LeaveMixin
from .hand_showdown import ShowdownMixin
from .handtypes import ACTIONS, DealRequest, HandResult, Legal, PotAward, PotView
from .pots import uncalled
from .settings import Game, HandSettings, PlayerSetup, Street

__all__ = ["Hand", "Legal", "DealRequest", "PotView", "PotAward", "HandResult", "ACTIONS"]


class Hand(DealingMixin, ShowdownMixin, JournalMixin, LeaveMixin):
    """One hand of hold'em, Omaha or five card draw (G-1..G-3) at one table.

    Args:
        settings: the table's :class:`HandSettings`.
        players: the players dealt in, :class:`PlayerSetup` each (any order; kept in
            ascending seat order = clockwise); 2..10 players (2..5 in draw, G-3).
        button: the button seat; it may be a seat with no player (dead button, T-1).
        sb_seat: the small blind's seat, or ``None`` for a dead small blind (T-1).
        bb_seat: the big blind's seat; pre-flop action starts left of it (S-2), and the
            amount to call is the full big blind even when the big blind is all-in for
            less (RULES appendix).
        ranker / describe: optional stand-ins for the evaluator (``ranker(hole, board)``
            over :class:`Card` sequences, higher is better; ``describe(rank)`` words).

    Public state (read-only for callers; lists indexed like :attr:`seats`): ``stack``,
    ``bet`` (this round), ``committed`` (this hand's contribution to the pots: the ante and
    every bet, after uncalled chips are returned; P-1 layers the pots by it), ``dead``
    (dead money for the main pot: dead blinds, T-6, and antes with ``dead_antes``),
    ``returned`` (uncalled chips per seat, S-9: the part of an ante no opponent covers
    goes back before the blinds are posted), ``folded``, ``allin``, ``current`` (the bet
    to match), ``street``; cards through :meth:`hole_cards`, :meth:`board_cards`.

    Raises:
        HandSetupError: wrong player count, a seat twice, negative stack or post, a
            blind seat that is not a player.
    """

    __slots__ = (
        "settings", "setup", "button", "sb_seat", "bb_seat", "n", "seats", "index",
        "stack", "bet", "committed", "folded", "allin", "acted", "acted_at", "hole",
        "start", "phase", "street", "to_act", "current", "min_inc", "full_level",
        "bet_count", "capped", "last_aggr", "n_live", "n_able", "board", "burns",
        "seen", "dead", "returned", "_log", "_ranker", "_describe", "_streets",
        "_street_no", "_first_left", "_order", "exposed", "mucked", "_sd_order",
        "_sd_pos", "drew", "discards", "_draw_pos", "_draw_need", "_result", "_n_hole",
        "dead_in", "_flop_seen", "_stub", "_reshuffles", "_stub_cards", "_muck", "voided", "_muck_order", "_dealt",
        "_limit", "_others", "_events",
    )

    def __init__(
        self,
        settings: HandSettings,
        players: Sequence[PlayerSetup],
        *,
        button: int,
        sb_seat: int | None,
        bb_seat: int,
        ranker: Ranker | None = None,
        describe: Callable[[int], str] | None = None,
    ) -> None:
        game = settings.game
        ps = sorted(players, key=lambda p: p.seat)
        n = len(ps)
        most = settings.max_players or game.max_players
        if not 2 <= n <= most:
            rule = "G-3" if game is Game.DRAW else ("G-2" if game is Game.OMAHA else "G-1")
            raise HandSetupError(f"{rule}: {game.value} needs 2..{most} players, got {n}")
        seats = [p.seat for p in ps]
        if len(set(seats)) != n:
            raise HandSetupError(f"T-3: a seat appears twice in {seats}")
        for p in ps:
            amounts = (p.stack, p.live_post, p.dead_post, p.ante or 0)
            if not all(isinstance(x, int) and not isinstance(x, bool) for x in amounts):
                raise HandSetupError(f"S-10: seat {p.seat}: chips are whole numbers, got {amounts}")
            if min(amounts) < 0:
                raise HandSetupError(f"S-1: seat {p.seat}: stack and posts must be >= 0")
        if bb_seat not in seats:
            raise HandSetupError(f"S-1: big blind seat {bb_seat} has no player in the hand")
        if sb_seat is not None and sb_seat not in seats:
            raise HandSetupError(f"S-1: small blind seat {sb_seat} has no player in the hand")
        self.settings = settings
        self._limit = settings.limit
        self.setup = tuple(ps)
        self.button = button
        self.sb_seat = sb_seat
        self.bb_seat = bb_seat
        self.n = n
        self.seats = seats
        self.index = {s: i for i, s in enumerate(seats)}
        self._ranker = ranker
        self._describe = describe
        self.stack = [p.stack for p in ps]
        self.start = list(self.stack)
        self.bet = [0] * n
        self.committed = [0] * n
        self.folded = [False] * n
        self.allin = [False] * n
        self.acted = [False] * n
        self.acted_at = [0] * n
        self.hole: list[list[int | None]] = [[] for _ in range(n)]
        self.exposed = [False] * n
        self.mucked = [False] * n
        self._muck_order: list[int] = []
        self.drew: list[int | None] = [None] * n
        self.discards: list[list[int | None]] = [[] for _ in range(n)]
        self.board: list[int | None] = []
        self.burns: list[int | None] = []
        self.seen: set[int] = set()
        self.dead = 0
        self.returned: dict[int, int] = {}
        self._log: list[tuple[Any, ...]] = []
        self._events: list[dict[str, Any]] = []  # _log's first entries as :attr:`events` dicts (issue 21)
        self._result: HandResult | None = None
        self._streets = _DRAW_STREETS if game is Game.DRAW else _FLOP_STREETS
        self._street_no = 0
        self.street = self._streets[0]
        self._n_hole = game.hole_cards
        self._dealt = 0  # players holding all their hole cards
        self._flop_seen = False
        self._stub = 52  # cards left in the stub (G-4)
        self._stub_cards: set[int] | None = None  # known cards of a reshuffled stub; None = the deck
        self._muck: list[tuple[int, int | None]] = []  # (owner index or -1 for a burn, card) (G-4)
        self._reshuffles = 0
        self.voided = False
        fl = 0  # the first player left of the button (the button seat may be empty)
        for i, s in enumerate(seats):
            if s > button:
                fl = i
                break
        self._first_left = fl
        self._order = [(fl + k) % n for k in range(n)]
        self._others = [[j for j in range(n) if j != i] for i in range(n)]
        self.n_live = n
        self.n_able = n
        # forced posts: ante, then the live post, then the dead post (S-1, T-6, P-1); with
        # big_blind_first the live post comes before the ante (TDA RP-11)
        self.dead_in = [0] * n
        stack = self.stack
        first = [min(p.live_post, stack[i]) if settings.big_blind_first else 0 for i, p in enumerate(ps)]
        antes = [min(settings.ante if p.ante is None else p.ante, stack[i] - first[i])
                 for i, p in enumerate(ps)]
        if settings.dead_antes:  # a big-blind ante: dead money to the main pot
            for i, a in enumerate(antes):
                stack[i] -= a
                self.dead += a
                self.dead_in[i] = a
        else:  # P-1: each ante is its poster's contribution; what nobody covers goes back (S-9)
            second = sorted(antes)[-2]  # the largest ante some opponent covers
            for i, a in enumerate(antes):
                if a > second:
                    self.returned[ps[i].seat] = a - second
                    a = second
                stack[i] -= a
                self.committed[i] = a
        for i, p in enumerate(ps):
            live = first[i] if settings.big_blind_first else min(p.live_post, stack[i])
            stack[i] -= live
            self.bet[i] = live
            self.committed[i] += live
            d = min(p.dead_post, stack[i])
            stack[i] -= d
            self.dead += d  # a dead blind goes to the main pot, not counted as a bet (T-6, P-1)
            self.dead_in[i] += d
            if stack[i] == 0:
                self.allin[i] = True
                self.n_able -= 1
        bb = settings.big_blind
        self.current = max([bb] + self.bet)
        self.min_inc = bb
        self.full_level = self.current
        self.bet_count = 1
        self.capped = False
        self.last_aggr = -1
        self.to_act = -1
        self._sd_order: list[int] = []
        self._sd_pos = 0
        self._draw_pos = 0
        self._draw_need = 0
        self.phase = _DEAL_HOLE

    def copy(self) -> "Hand":
        """Return an independent copy (for a table that keeps old states unchanged).

        Lists (and lists of lists), sets and dicts are copied; settings, setup, the
        result and event tuples are immutable and shared. Much cheaper than replaying.
        """
        new = _copy_hand(self)
        done = len(self._events)
        if done < len(self._log):
            # issue 21: the events logged since the last copy are turned into their dicts
            # now, a few at a time, so the step that ends the hand (and builds its record
            # from :attr:`events`) does not do all of them at once
            new._events = self._events + list(map(_event_dict, self._log[done:]))
        return new  # type: ignore[no-any-return]

    # ------------------------------------------------------------------ queries
    @property
    def seat_to_act(self) -> int | None:
        """Return the seat whose turn it is, or ``None`` (the dealer's turn, or the hand is over)."""
        ph = self.phase
        if ph == _BET or ph == _DRAW or ph == _SHOWDOWN:
            return self.seats[self.to_act]
        return None

    @property
    def is_complete(self) -> bool:
        """Return whether the hand is over (pots awarded, or voided)."""
        return self.phase == _COMPLETE

    def hole_cards(self, seat: int) -> tuple[Card | None, ...]:
        """Return ``seat``'s hole cards as the engine knows them (``None`` = unknown)."""
        return tuple(None if c is None else FULL_DECK[c] for c in self.hole[self.index[seat]])

    def board_cards(self) -> tuple[Card | None, ...]:
        """Return the board cards dealt so far."""
        return tuple(None if c is None else FULL_DECK[c] for c in self.board)

    def discarded(self, seat: int) -> tuple[Card | None, ...]:
        """Return the cards ``seat`` threw in the draw (G-3)."""
        return tuple(None if c is None else FULL_DECK[c] for c in self.discards[self.index[seat]])

    def burn_cards(self) -> tuple[Card | None, ...]:
        """Return the burn cards (``None`` where the dealer did not report the card)."""
        return tuple(None if c is None else FULL_DECK[c] for c in self.burns)

    def pending_deal(self) -> DealRequest | None:
        """Return what the dealer must deal next, or ``None`` when a player must act.

        See :class:`DealRequest`. Hole cards are asked for one seat at a time in the
        dealing order (the seat with fewest cards, from the first seat left of the
        button); :meth:`deal_hole` also accepts several cards at once.
        """
        ph = self.phase
        if ph == _BET or ph == _SHOWDOWN or ph == _DRAW or ph == _COMPLETE:
            return None
        if ph == _DEAL_BOARD:
            return DealRequest("board", None, _BOARD_COUNTS[self._street_no - 1], self.settings.burns)
        if ph == _DEAL_HOLE:
            k = self._n_hole
            best, least = 0, k
            for i in self._order:
                h = len(self.hole[i])
                if h < least:
                    least, best = h, i
            return DealRequest("hole", self.seats[best], k - least)
        need = self._draw_need
        burn = self.settings.burns and not self.burns
        stub = self._stub - (1 if burn else 0)
        return DealRequest("draw", self.seats[self.to_act], need, burn, stub if need > stub else None)

    def legal(self) -> Legal:
        """Return the legal moves of the player to act (see :class:`Legal`).

        Raises:
            IllegalAction: "A-1: ..." when no player is to act (the dealer must deal,
            or the hand is over).
        """
        ph = self.phase
        if ph == _BET:
            return self._legal_bet(self.to_act)
        if ph == _DRAW:
            i = self.to_act
            return Legal(self.seats[i], self.street, draw=len(self.hole[i]))
        if ph == _SHOWDOWN:
            return Legal(self.seats[self.to_act], self.street, show=True, muck=True)
        raise IllegalAction(f"A-1: no player is to act now ({self._phase_words()})")

    def _phase_words(self) -> str:
        return {
            _DEAL_HOLE: "hole cards are being dealt", _DEAL_BOARD: "board cards are due",
            _DEAL_DRAW: "draw cards are due", _COMPLETE: "the hand is over",
        }.get(self.phase, f"it is the {self.street.value}")

    def _bet_size(self) -> int:
        s = self.settings
        return s.small_bet if self._street_no < 2 else s.big_bet  # type: ignore[return-value]

    def _price(self, i: int) -> int:
        """Return the bet player i must match: :attr:`current`, except for the last player
        with chips (every other live player all-in), who need match only the largest bet of
        the others; chips above it would come straight back uncalled (S-8, S-9). E.g. a big
        blind all-in for 3 at 5/10 heads-up: the small blind's 5 already covers it, and
        nobody is asked to call 10 (S-1's full big blind holds while an opponent with chips
        could still call it)."""
        cur = self.current
        if self.n_able > 1 or self.folded[i] or self.allin[i]:
            return cur
        top = 0
        folded, bet = self.folded, self.bet
        for j in self._others[i]:
            if not folded[j] and bet[j] > top:
                top = bet[j]
        return top if top < cur else cur

    def _legal_bet(self, i: int) -> Legal:
        stack = self.stack[i]
        bet = self.bet[i]
        cur = self._price(i)
        to_call = cur - bet if cur > bet else 0
        call = to_call if to_call < stack else stack
        allmax = bet + stack
        if self._raise_open(i):
            min_to, max_to = self._raise_bounds(i)
            rng = None
            if allmax >= min_to:
                hi = max_to if max_to < allmax else allmax
                rng = (min_to, hi)
            all_in = allmax if allmax <= max_to else (allmax if allmax <= cur else None)
            if cur:
                return Legal(self.seats[i], self.street, to_call > 0, to_call == 0, call, bet + call,
                             None, rng, all_in, min_to, max_to)
            return Legal(self.seats[i], self.street, False, True, 0, bet, rng, None, all_in, min_to, max_to)
        return Legal(self.seats[i], self.street, to_call > 0, to_call == 0, call, bet + call,
                     None, None, allmax if allmax <= cur else None)

    def _raise_bounds(self, i: int) -> tuple[int, int]:
        """Return the nominal ``(min_to, max_to)`` of a bet or raise by player i."""
        cur = self.current
        lim = self._limit
        if lim is _FL:
            to = (self.full_level if cur else 0) + self._bet_size()
            return to, to
        # S-4: over an all-in opening bet below the big blind a raise is still at least
        # one big blind (TDA; PokerKit agrees): 5 all-in at 5/10 -> raise to 15
        min_to = cur + self.min_inc if cur else self.settings.big_blind
        if lim is _PL:
            pot = sum(self.committed) + self.dead
            if self._street_no == 0 and self.settings.pl_small_blind_as_big and self.sb_seat is not None:
                pot += max(0, self.settings.big_blind - self.committed[self.index[self.sb_seat]])
            mx = cur + pot + cur - self.bet[i]
            return min_to, mx if mx > min_to else min_to
        return min_to, self.bet[i] + self.stack[i]

    def _raise_open(self, i: int) -> bool:
        """Return whether player i may bet or raise (S-6 cap, S-7 reopening, S-8)."""
        cur = self.current
        if self.stack[i] <= cur - self.bet[i]:
            return False
        if self.acted[i]:
            if self._limit is _FL:
                if self.full_level <= self.acted_at[i]:
                    return False
            elif cur - self.acted_at[i] < self.min_inc:
                return False
        if self._limit is _FL and self.bet_count >= self.settings.cap_bets:
            if self.capped or not self.settings.cap_lifted_heads_up or self.n_live > 2:
                return False
        folded, allin, bet, stack = self.folded, self.allin, self.bet, self.stack
        for j in self._others[i]:  # S-8: someone must be able to call more
            if not folded[j] and not allin[j] and bet[j] + stack[j] > cur:
                return True
        return False

    # ------------------------------------------------------------------ player actions
    def act(self, seat: int, action: str, amount: int | None = None, cards: Any = None) -> None:
        """Apply one player action by name; all-or-nothing.

        ``action`` is one of :data:`ACTIONS`: ``fold``, ``check``, ``call``,
        ``bet``/``raise`` (``amount`` = the street total "to"), ``all_in``, ``draw``
        (``cards`` = the discards, or their number when the cards are unknown; none =
        stand pat, G-3), ``show`` (``cards`` needed only when the engine does not know
        them) or ``muck`` (P-2).

        Raises:
            IllegalAction: not this seat's turn, or the move is not legal now (the
                message starts with the rule id and gives the legal range).
        """
        if action == "fold":
            self.fold(seat)
        elif action == "check":
            self.check(seat)
        elif action == "call":
            self.call(seat)
        elif action == "bet" or action == "raise":
            if amount is None:
                raise IllegalAction("S-4: a bet or raise needs an amount (the street total)")
            self.raise_to(seat, amount)
        elif action == "all_in":
            self.all_in(seat)
        elif action == "draw":
            self.draw(seat, cards if cards is not None else ())
        elif action == "show":
            self.show(seat, cards)
        elif action == "muck":
            self.muck(seat)
        else:
            raise IllegalAction(f"A-1: unknown action {action!r}; one of {', '.join(ACTIONS)}")

    def _turn(self, seat: int, phase: int) -> int:
        i = self.index.get(seat, -1)
        if self.phase != phase:
            if i < 0:
                raise IllegalAction(f"A-1: seat {seat} is not in the hand")
            what = {_BET: "bet", _DRAW: "draw", _SHOWDOWN: "show or muck"}[phase]
            raise IllegalAction(f"A-1: seat {seat} cannot {what} now: {self._phase_words()}")
        if i != self.to_act:
            raise IllegalAction(f"A-1: it is seat {self.seats[self.to_act]}'s turn, not seat {seat}'s")
        return i

    def fold(self, seat: int, *, when_check_is_free: bool = False) -> None:
        """Fold ``seat``'s hand (A-1).

        Folding is not offered when checking is free (the table never folds for a
        player who could check, A-2, A-4); ``when_check_is_free=True`` records such a
        fold anyway when the player insists (or a hand history says so, PokerKit allows it).

        Raises:
            IllegalAction: not this seat's turn, or checking is free.
        """
        i = self._turn(seat, _BET)
        if self.bet[i] >= self._price(i) and not when_check_is_free:
            raise IllegalAction(f"A-1: seat {seat} may check; folding is not offered when checking is free")
        self._log.append(("fold", seat) if self.bet[i] < self._price(i) else ("fold", seat, True))
        self.folded[i] = True
        self.n_live -= 1
        self.n_able -= 1
        self.acted[i] = True
        self._advance(i)

    def check(self, seat: int) -> None:
        """Check (A-1: impossible once someone has bet in the round).

        Raises:
            IllegalAction: not this seat's turn, or there is a bet to call.
        """
        i = self._turn(seat, _BET)
        to_call = self._price(i) - self.bet[i]
        if to_call > 0:
            raise IllegalAction(f"A-1: seat {seat} cannot check: {to_call} to call")
        self._log.append(("check", seat))
        self.acted[i] = True
        self.acted_at[i] = self.current
        self._advance(i)

    def call(self, seat: int) -> None:
        """Call the bet, or all-in for less when the stack is short (S-8).

        Raises:
            IllegalAction: not this seat's turn, or nothing to call (check instead).
        """
        i = self._turn(seat, _BET)
        to_call = self._price(i) - self.bet[i]
        if to_call <= 0:
            raise IllegalAction(f"A-1: seat {seat} has nothing to call; check")
        self._log.append(("call", seat))
        st = self.stack[i]
        self._put(i, to_call if to_call < st else st)
        self.acted[i] = True
        self.acted_at[i] = self.current
        self._advance(i)

    def all_in(self, seat: int) -> None:
        """Put the whole stack in: a call, an incomplete raise or a full raise (S-7, S-8).

        Raises:
            IllegalAction: not this seat's turn; or the stack is more than the call and
                raising is closed (S-6 cap, S-7 not reopened, S-8 nobody could call) or
                above the pot-limit (S-5) or fixed-limit (S-6) maximum.
        """
        i = self._turn(seat, _BET)
        if self.stack[i] <= 0:
            raise IllegalAction(f"S-8: seat {seat} has no chips")
        to = self.bet[i] + self.stack[i]
        if to <= self.current:
            self._log.append(("all_in", seat, to, False))
            self._put(i, self.stack[i])
            self.acted[i] = True
            self.acted_at[i] = self.current
            self._advance(i)
            return
        self._raise(i, to, True)

    def raise_to(self, seat: int, to: int) -> None:
        """Bet or raise to a street total of ``to`` chips (S-4..S-7; ``bet_to`` is the same).

        Raises:
            IllegalAction: not this seat's turn; below the minimum (S-4, S-6), above the
                maximum (S-5 pot, S-6 fixed size, S-8 stack), raising closed (S-6 cap,
                S-7 incomplete raise, S-8 nobody could call), not a multiple of the
                smallest chip (S-10). E.g. ``"S-4: minimum raise is to 600, got 450"``.
        """
        i = self._turn(seat, _BET)
        if not isinstance(to, int) or isinstance(to, bool):
            raise IllegalAction(f"S-10: a bet is a whole number of chips, got {to!r}")
        self._raise(i, to, False)

    bet_to = raise_to

    def _raise(self, i: int, to: int, all_in: bool) -> None:
        seat = self.seats[i]
        cur = self.current
        allmax = self.bet[i] + self.stack[i]
        word = "raise" if cur else "bet"
        lim = self._limit
        if to <= cur:
            raise IllegalAction(f"S-4: a {word} must be to more than {cur}, got {to}; call instead")
        if to > allmax:
            raise IllegalAction(f"S-8: seat {seat} can {word} to at most {allmax} (all-in), got {to}")
        if not self._raise_open(i):
            if self.acted[i] and not (lim is _FL and self.bet_count >= self.settings.cap_bets):
                why = "S-7: the betting was not reopened by a full raise"
            elif lim is _FL and self.bet_count >= self.settings.cap_bets:
                why = f"S-6: the betting is capped at {self.settings.cap_bets} bets"
            else:
                why = "S-8: no opponent has chips to call a raise"
            raise IllegalAction(f"{why}; seat {seat} may only call ({cur}) or fold")
        min_to, max_to = self._raise_bounds(i)
        if to == allmax:
            if to > max_to:
                rule = "S-5" if lim is _PL else "S-6"
                raise IllegalAction(f"{rule}: maximum {word} is to {max_to}, all-in would be {to}")
        else:
            if to < min_to:
                rule = "S-6" if lim is _FL else "S-4"
                raise IllegalAction(f"{rule}: minimum {word} is to {min_to}, got {to}")
            if to > max_to:
                rule = "S-5" if lim is _PL else ("S-6" if lim is _FL else "S-8")
                raise IllegalAction(f"{rule}: maximum {word} is to {max_to}, got {to}")
            chip = self.settings.smallest_chip
            if chip > 1 and to % chip:
                raise IllegalAction(f"S-10: bets are multiples of {chip}, got {to}")
        self._log.append(("all_in", seat, to, True) if all_in else ("bet", seat, to))
        if lim is _FL:  # S-7: half a bet or more is a full bet or raise
            if 2 * (to - (self.full_level if cur else 0)) >= self._bet_size():
                self.full_level = to
                self.bet_count = self.bet_count + 1 if cur else 1
                if self.bet_count >= self.settings.cap_bets and self.n_live > 2:
                    self.capped = True
        elif cur == 0:
            if to >= self.settings.big_blind:
                self.min_inc = to
                self.full_level = to
        elif to - cur >= self.min_inc:  # a full raise sets the next minimum (S-4)
            self.min_inc = to - cur
            self.full_level = to
        self._put(i, to - self.bet[i])
        self.current = to
        self.last_aggr = i
        self.acted[i] = True
        self.acted_at[i] = to
        self._advance(i)

    def _put(self, i: int, amount: int) -> None:
        st = self.stack[i] - amount
        self.stack[i] = st
        self.bet[i] += amount
        self.committed[i] += amount
        if st == 0 and not self.allin[i]:
            self.allin[i] = True
            self.n_able -= 1

    # ------------------------------------------------------------------ flow
    def _advance(self, i: int) -> None:
        """Pass the turn clockwise, or close the round (S-2, S-8)."""
        if self.n_live == 1:
            self._end_round()
            return
        n = self.n
        cur = self.current
        folded, allin, acted, bet = self.folded, self.allin, self.acted, self.bet
        others = self.n_able > 1
        j = i
        for _ in range(n - 1):
            j += 1
            if j == n:
                j = 0
            if folded[j] or allin[j]:
                continue
            if bet[j] < (cur if others else self._price(j)) or (others and not acted[j]):
                self.to_act = j
                return
        self._end_round()

    def _start_round(self, first: int) -> None:
        """Begin a betting round with the action from player index ``first`` clockwise."""
        self.phase = _BET
        n = self.n
        folded, allin = self.folded, self.allin
        if self.n_able < 2:  # at most one player with chips: acts only facing a bet (S-8)
            for k in range(n):
                j = (first + k) % n
                if not folded[j] and not allin[j] and self.bet[j] < self._price(j):
                    self.to_act = j
                    return
            self._end_round()
            return
        for k in range(n):
            j = (first + k) % n
            if not folded[j] and not allin[j]:
                self.to_act = j
                return

    def _end_round(self) -> None:
        """Close the betting round: return the uncalled bet to a live player (S-9; a folded
        player's bet, a leaver's in T-8, stays in the pots), then move on."""
        who, amount = uncalled(self.bet)
        if amount and not self.folded[who]:  # a folded bet stays in the pots (T-8, P-1)
            self.stack[who] += amount
            self.committed[who] -= amount
            seat = self.seats[who]
            self.returned[seat] = self.returned.get(seat, 0) + amount
            if self.allin[who]:
                self.allin[who] = False
                if not self.folded[who]:
                    self.n_able += 1
        self.bet = [0] * self.n
        self.to_act = -1
        if self.n_live == 1:
            self._award()
            return
        if self.n_able < 2:
            self._expose_all()
        self._next_street()

    def _next_street(self) -> None:
        no = self._street_no + 1
        if no >= len(self._streets):
            self._start_showdown()
            return
        self.current = 0
        self.min_inc = self.settings.big_blind
        self.full_level = 0
        self.bet_count = 0
        self.capped = False
        self.last_aggr = -1
        self._street_no = no
        self.street = self._streets[no]
        if self.street is Street.DRAW:
            self._flop_seen = True
            self._draw_pos = 0
            self._next_drawer()
        else:
            self.phase = _DEAL_BOARD

    def _begin_betting(self) -> None:
        self.acted = [False] * self.n
        if self.n_able < 2:
            self._end_round()
        else:
            self._start_round(self._first_left)

    def _expose_all(self) -> None:
        """S-8: when no more betting is possible every live hand is exposed."""
        for j in range(self.n):
            if not self.folded[j] and None not in self.hole[j]:
                self.exposed[j] = True


# Hand.copy as straight-line code (issue 21: once per table step). The lists of lists and
# the flat lists are named; the values that never change in place are shared; any other
# slot is copied by its type at the time.
_copy_hand = _slot_copier(
    Hand,
    nested=("hole", "discards", "_others"),
    lists=("seats", "stack", "bet", "committed", "folded", "allin", "acted", "acted_at", "start",
           "board", "burns", "_log", "_order", "exposed", "mucked", "_sd_order", "drew",
           "dead_in", "_muck", "_muck_order"),
    shared=("settings", "setup", "button", "sb_seat", "bb_seat", "n", "phase", "street",
            "to_act", "current", "min_inc", "full_level", "bet_count", "capped", "last_aggr",
            "n_live", "n_able", "dead", "_ranker", "_describe", "_streets", "_street_no",
            "_first_left", "_sd_pos", "_draw_pos", "_draw_need", "_result", "_n_hole",
            "_flop_seen", "_stub", "_reshuffles", "voided", "_dealt", "_limit",
            "_events"),  # never changed in place: replaced by a longer list
)
