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

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any, Callable

from .cards import FULL_DECK, Card, CardError, parse_card
from .errors import HandSetupError, IllegalAction, IllegalDeal
from .handtypes import ACTIONS, DealRequest, HandResult, Legal, PotAward, PotView
from .pots import build_pots, split_pot, uncalled
from .rake import rake_amount, take_rake
from .settings import Game, HandSettings, Limit, PlayerSetup, Street

__all__ = ["Hand", "Legal", "DealRequest", "PotView", "PotAward", "HandResult", "ACTIONS"]

# phases (ints for speed)
_DEAL_HOLE, _BET, _DEAL_BOARD, _DRAW, _DEAL_DRAW, _SHOWDOWN, _COMPLETE = range(7)
_FLOP_STREETS = (Street.PREFLOP, Street.FLOP, Street.TURN, Street.RIVER)
_DRAW_STREETS = (Street.PREDRAW, Street.DRAW, Street.POSTDRAW)
_BOARD_COUNTS = (3, 1, 1)
_NL, _PL, _FL = Limit.NO_LIMIT, Limit.POT_LIMIT, Limit.FIXED_LIMIT

# cards are kept as dense indexes 0..51 (None = unknown); text and Card only at the edges
_STR = [str(c) for c in FULL_DECK]
_BY_ID = {id(c): k for k, c in enumerate(FULL_DECK)}
_BY_TEXT = {str(c): k for k, c in enumerate(FULL_DECK)}

Ranker = Callable[[Sequence[Card], Sequence[Card]], int]
_setattr = object.__setattr__


def _idx(c: Any) -> int | None:
    """Return the dense index of a card given as Card, text or index; None if unknown."""
    k = _BY_ID.get(id(c))
    if k is not None:
        return k
    if c is None or c == "??":
        return None
    if isinstance(c, str):
        k = _BY_TEXT.get(c)
        if k is not None:
            return k
    if isinstance(c, Card):
        return c.index
    if isinstance(c, int) and not isinstance(c, bool) and 0 <= c < 52:
        return c
    return _BY_ID[id(parse_card(c))]


def _parse(cards: Any) -> list[int | None]:
    """Return card indexes from ``"As Kd"``, ``"AsKd"`` or an iterable of cards.

    Raises:
        IllegalDeal: not a card (G-5).
    """
    if isinstance(cards, str):
        words = cards.replace(",", " ").split()
        if len(words) == 1 and len(words[0]) > 3:
            w = words[0]
            words = [w[k:k + 2] for k in range(0, len(w), 2)]
        cards = words
    try:
        return [_idx(c) for c in cards]
    except CardError as exc:
        raise IllegalDeal(str(exc)) from None


def _txt(cards: Iterable[int | None]) -> str:
    return " ".join("??" if c is None else _STR[c] for c in cards)


def _default_ranker(game: Game) -> Callable[[list[int], list[int]], int]:
    """Return ``rank(hole, board)`` over card indexes using the evaluator (H-1..H-5, G-2)."""
    from itertools import combinations

    from . import evaluator

    fast = evaluator.rank_indices
    if game is Game.OMAHA:
        def omaha(hole: list[int], board: list[int]) -> int:
            trios = list(combinations(board, 3))
            best = 0
            for pair in combinations(hole, 2):
                for trio in trios:
                    v = fast(pair + trio)
                    if v > best:
                        best = v
            return best
        return omaha
    return lambda hole, board: fast(hole + board)


def _default_describe(rank: int) -> str:
    from . import evaluator

    return evaluator.describe(rank)


class Hand:
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
    ``bet`` (this round), ``committed`` (bets this hand), ``folded``, ``allin``,
    ``current`` (the bet to match), ``street``; cards through :meth:`hole_cards`,
    :meth:`board_cards`.

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
        "_limit", "_others",
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
            if min(p.stack, p.live_post, p.dead_post, p.ante or 0) < 0:
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
        self._log: list[tuple] = []
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
        # forced posts: ante, then the live post, then the dead post (S-1, T-6, P-1)
        self.dead_in = [0] * n
        stack = self.stack
        for i, p in enumerate(ps):
            a = min(settings.ante if p.ante is None else p.ante, stack[i])
            stack[i] -= a
            live = min(p.live_post, stack[i])
            stack[i] -= live
            self.bet[i] = live
            self.committed[i] = live
            d = min(p.dead_post, stack[i])
            stack[i] -= d
            self.dead += a + d  # antes and dead blinds go to the main pot (P-1)
            self.dead_in[i] = a + d
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
        new = object.__new__(Hand)
        for name in Hand.__slots__:
            v = getattr(self, name)
            t = type(v)
            if t is list:
                v = [x[:] for x in v] if v and type(v[0]) is list else v[:]
            elif t is set or t is dict:
                v = v.copy()
            _setattr(new, name, v)
        return new

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

    @property
    def events(self) -> list[dict]:
        """Return every input applied so far as JSON-able dicts (see :meth:`apply`)."""
        return [_event_dict(e) for e in self._log]

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

    def _legal_bet(self, i: int) -> Legal:
        stack = self.stack[i]
        bet = self.bet[i]
        cur = self.current
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
        if self.bet[i] >= self.current and not when_check_is_free:
            raise IllegalAction(f"A-1: seat {seat} may check; folding is not offered when checking is free")
        self._log.append(("fold", seat) if self.bet[i] < self.current else ("fold", seat, True))
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
        to_call = self.current - self.bet[i]
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
        to_call = self.current - self.bet[i]
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
            if bet[j] < cur or (others and not acted[j]):
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
                if not folded[j] and not allin[j] and self.bet[j] < self.current:
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
        """Close the betting round: return the uncalled bet (S-9), then move on."""
        who, amount = uncalled(self.bet)
        if amount:
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

    # ------------------------------------------------------------------ dealing
    def _check_new(self, cards: list[int | None], allowed: set[int] | None = None) -> None:
        seen = self.seen
        got: set[int] = set()
        for c in cards:
            if c is None:
                continue
            if (c in seen and not (allowed and c in allowed)) or c in got:
                raise IllegalDeal(f"G-5: card {_STR[c]} was already dealt in this hand")
            got.add(c)

    def deal_hole(self, seat: int, cards: Any) -> None:
        """Record hole cards dealt to ``seat`` (G-1..G-3); ``None`` / ``"??"`` = unknown card.

        When every player has all their cards the first betting round starts, left
        of the big blind (S-2; heads-up the button, S-3).

        Raises:
            IllegalDeal: hole cards are not being dealt, the seat is not in the hand,
                more cards than the game gives, or a card already dealt (G-5).
        """
        cs = _parse(cards)
        if self.phase != _DEAL_HOLE:
            raise IllegalDeal(f"G-1: hole cards are not being dealt now ({self._phase_words()})")
        i = self.index.get(seat, -1)
        if i < 0:
            raise IllegalDeal(f"G-1: seat {seat} is not dealt in")
        hole = self.hole[i]
        room = self._n_hole - len(hole)
        if not 1 <= len(cs) <= room:
            raise IllegalDeal(f"G-1: seat {seat} may receive 1..{room} more hole cards, got {len(cs)}")
        self._check_new(cs)
        self._log.append(("deal_hole", seat, tuple(cs)))
        hole.extend(cs)
        self.seen.update(c for c in cs if c is not None)
        self._stub -= len(cs)
        if len(cs) == room:
            self._dealt += 1
            if self._dealt == self.n:
                self._start_round((self.index[self.bb_seat] + 1) % self.n)

    def deal_board(self, cards: Any, burn: Any = None) -> None:
        """Record board cards: the flop (3), turn (1) or river (1), and the burn card if known (G-1).

        Raises:
            IllegalDeal: no board cards are due, wrong count, or a card already dealt.
        """
        cs = _parse(cards)
        b = _parse([burn])[0] if burn is not None else None
        if self.phase != _DEAL_BOARD:
            raise IllegalDeal(f"G-1: no board cards are due now ({self._phase_words()})")
        need = _BOARD_COUNTS[self._street_no - 1]
        if len(cs) != need:
            raise IllegalDeal(f"G-1: the {self.street.value} is {need} card(s), got {len(cs)}")
        if b is not None:
            cs.append(b)
        self._check_new(cs)
        if b is not None:
            cs.pop()
        self._log.append(("deal_board", tuple(cs), b))
        if self.settings.burns:
            self.burns.append(b)
            if b is not None:
                self.seen.add(b)
        self.board.extend(cs)
        self.seen.update(c for c in cs if c is not None)
        self._flop_seen = True
        if self.n_able < 2:
            self._expose_all()
            self._next_street()
        else:
            self._begin_betting()

    def draw(self, seat: int, discards: Any = ()) -> None:
        """Discard 0..5 cards in the draw (G-3); no cards = stand pat.

        ``discards`` are the cards thrown (they must be in the hand when the engine
        knows it) or, when the engine does not know the hand, their number.

        Raises:
            IllegalAction: not this seat's turn to draw, more cards than held, or a
                card that is not in the hand.
        """
        i = self._turn(seat, _DRAW)
        hole = self.hole[i]
        if isinstance(discards, int) and not isinstance(discards, bool):
            k = discards
            if not 0 <= k <= len(hole):
                raise IllegalAction(f"G-3: seat {seat} may discard 0..{len(hole)} cards, got {k}")
            unknown = [j for j, c in enumerate(hole) if c is None]
            idx = unknown[:k] if len(unknown) >= k else list(range(len(hole) - k, len(hole)))
            thrown = [hole[j] for j in idx]
        else:
            try:
                thrown = _parse(discards)
            except IllegalDeal as exc:
                raise IllegalAction(str(exc)) from None
            k = len(thrown)
            if k > len(hole):
                raise IllegalAction(f"G-3: seat {seat} may discard 0..{len(hole)} cards, got {k}")
            idx = []
            for c in thrown:
                pos = next((j for j, h in enumerate(hole) if j not in idx and
                            (h == c or (h is None and (c is None or c not in self.seen)))), -1)
                if pos < 0:
                    raise IllegalAction(f"G-3: seat {seat} does not hold {_txt([c])}")
                idx.append(pos)
        self._log.append(("draw", seat, tuple(thrown)))
        for j in sorted(idx, reverse=True):
            del hole[j]
        self.discards[i] = list(thrown)
        self._muck.extend((i, c) for c in thrown)
        self.seen.update(c for c in thrown if c is not None)
        self.drew[i] = k
        if k:
            self.phase = _DEAL_DRAW
            self._draw_need = k
        else:
            self._draw_pos += 1
            self._next_drawer()

    def _next_drawer(self) -> None:
        """Give the draw to the next live player clockwise from the button (G-3)."""
        order = self._order
        while self._draw_pos < self.n:
            j = order[self._draw_pos]
            if not self.folded[j]:
                self.to_act = j
                self.phase = _DRAW
                return
            self._draw_pos += 1
        self.to_act = -1
        self._street_no = 2
        self.street = Street.POSTDRAW
        self._begin_betting()

    def deal_draw(self, seat: int, cards: Any, burn: Any = None) -> None:
        """Record the replacement cards dealt to ``seat`` after its discard (G-3, G-4).

        The first draw of the hand may come with the burn card. When the stub cannot
        cover the draw (G-4, :attr:`DealRequest.reshuffle_after`), the first cards come
        from the stub and the rest from a new stub made of the discards and burn cards
        so far, except this seat's own discards, which it can never receive.

        Raises:
            IllegalDeal: no draw cards are due to this seat, wrong count, its own
                discard (G-4), a card that cannot be in the stub now (G-5), or a stub
                and discards that cannot cover the draw (G-4).
        """
        cs = _parse(cards)
        b = _parse([burn])[0] if burn is not None else None
        if self.phase != _DEAL_DRAW or self.seats[self.to_act] != seat:
            raise IllegalDeal(f"G-3: no draw cards are due to seat {seat} now")
        i = self.to_act
        if len(cs) != self._draw_need:
            raise IllegalDeal(f"G-3: seat {seat} discarded {self._draw_need}, got {len(cs)} cards")
        own = {c for c in self.discards[i] if c is not None}
        for c in cs:
            if c is not None and c in own:
                raise IllegalDeal(f"G-4: seat {seat} cannot receive its own discard {_STR[c]}")
        burn_now = self.settings.burns and not self.burns
        stub = self._stub - (1 if burn_now else 0)
        first, rest = (cs[:stub], cs[stub:]) if len(cs) > stub else (cs, [])
        pool = self._stub_cards
        self._check_stub(first + ([b] if burn_now and b is not None else []), pool)
        new_pool: list[int | None] = []
        if rest:
            new_pool = [c for o, c in self._muck if o != i] + ([b] if burn_now else [])
            if len(new_pool) < len(rest):
                raise IllegalDeal(f"G-4: the stub and the discards cannot cover seat {seat}'s draw of {len(cs)}")
            self._check_stub(rest, {c for c in new_pool if c is not None})
        self._log.append(("deal_draw", seat, tuple(cs), b))
        if burn_now:
            self.burns.append(b)
            self._muck.append((-1, b))
            if b is not None:
                self.seen.add(b)
                if pool is not None:
                    pool.discard(b)
        for c in first:
            if c is not None:
                self.seen.add(c)
                if pool is not None:
                    pool.discard(c)
        self._stub = stub - len(first)
        if rest:
            self._reshuffles += 1
            self._muck = [(o, c) for o, c in self._muck if o == i]
            known = {c for c in new_pool if c is not None}
            known.difference_update(c for c in rest if c is not None)
            self._stub_cards = known
            self._stub = len(new_pool) - len(rest)
            self.seen.update(c for c in rest if c is not None)
        self.hole[i].extend(cs)
        self._draw_pos += 1
        self._next_drawer()

    def _check_stub(self, cards: list[int | None], pool: set[int] | None) -> None:
        """G-4/G-5: cards come from the deck (unseen) or from the reshuffled ``pool``."""
        if pool is None:
            self._check_new(cards)
            return
        got: set[int] = set()
        for c in cards:
            if c is None:
                continue
            if c not in pool or c in got:
                raise IllegalDeal(f"G-4: card {_STR[c]} is not in the reshuffled stub")
            got.add(c)

    # ------------------------------------------------------------------ showdown
    def _start_showdown(self) -> None:
        """P-2: the last to bet or raise on the final round shows first, else the first
        live player left of the button; then clockwise."""
        self.street = Street.SHOWDOWN
        n = self.n
        la = self.last_aggr
        start = la if la >= 0 and not self.folded[la] else self._first_left
        self._sd_order = [j for j in ((start + k) % n for k in range(n)) if not self.folded[j]]
        self._sd_pos = 0
        self.phase = _SHOWDOWN
        self._next_shower()

    def _next_shower(self) -> None:
        order = self._sd_order
        while self._sd_pos < len(order):
            j = order[self._sd_pos]
            if self.exposed[j] or self.mucked[j] or self._uncontested(j):
                self._sd_pos += 1
                continue
            self.to_act = j
            return
        self.to_act = -1
        self._award()

    def _uncontested(self, j: int) -> bool:
        """Return whether no other live player still claims a pot (all live players are
        eligible for the main pot), so j wins without showing (P-2)."""
        folded, mucked = self.folded, self.mucked
        for k in self._others[j]:
            if not folded[k] and not mucked[k]:
                return False
        return True

    def show(self, seat: int, cards: Any = None) -> None:
        """Show ``seat``'s hand at the showdown (P-2) or once no more betting is possible (S-8).

        ``cards`` may be omitted when the engine knows the hand; when given they must
        match what it knows (unknown cards are filled in). A player may show before
        their P-2 turn, and a player who won without showing may show afterwards (P-2).

        Raises:
            IllegalAction: the betting is not over, the seat has no live hand, or the
                cards do not match.
        """
        i = self.index.get(seat, -1)
        if i < 0 or self.folded[i] or self.mucked[i] or self.voided:
            raise IllegalAction(f"P-2: seat {seat} has no live hand to show")
        over = self.phase in (_SHOWDOWN, _COMPLETE) or (self.n_able < 2 and self.phase != _BET)
        if not over:
            raise IllegalAction(f"P-2: seat {seat} shows at the showdown, not during the betting")
        hole = self.hole[i]
        if cards is None:
            if None in hole:
                raise IllegalAction(f"P-2: seat {seat}'s cards are not known to the engine; say which")
            new = list(hole)
        else:
            try:
                new = _parse(cards)
            except IllegalDeal as exc:
                raise IllegalAction(str(exc)) from None
            if len(new) != len(hole) or None in new:
                raise IllegalAction(f"P-2: seat {seat} holds {len(hole)} cards; show every one")
            known = [c for c in hole if c is not None]
            if any(c not in new for c in known):
                raise IllegalAction(f"P-2: seat {seat} showed {_txt(new)} but holds {_txt(hole)}")
            extra = [c for c in new if c not in known]
            try:
                self._check_new(extra)
            except IllegalDeal as exc:
                raise IllegalAction(str(exc)) from None
            self.seen.update(extra)
        self._log.append(("show", seat, tuple(new)))
        self.hole[i] = new
        self.exposed[i] = True
        if self.phase == _COMPLETE and self._result is not None:  # a winner may show (P-2)
            shown = dict(self._result.shown)
            shown[seat] = tuple(_STR[c] for c in new)  # type: ignore[index]
            hole = dict(self._result.hole)
            hole[seat] = shown[seat]
            self._result = replace(self._result, shown=shown, hole=hole)
            return
        if self.phase == _SHOWDOWN:
            if self.to_act == i:
                self._sd_pos += 1
            self._next_shower()

    def muck(self, seat: int) -> None:
        """Muck ``seat``'s hand at its P-2 turn: it gives up every pot it could still win
        (P-2; the cards stay in the history, P-4).

        Raises:
            IllegalAction: not this seat's turn to show or muck.
        """
        i = self._turn(seat, _SHOWDOWN)
        self._log.append(("muck", seat))
        self.mucked[i] = True
        self._muck_order.append(i)
        self._sd_pos += 1
        self._next_shower()

    # ------------------------------------------------------------------ awarding
    def _rank_all(self, live: list[bool]) -> dict[int, int]:
        board = [c for c in self.board if c is not None]
        ranks: dict[int, int] = {}
        if self._ranker is not None:
            custom = self._ranker
            bcards = [FULL_DECK[c] for c in board]
            for j in range(self.n):
                if live[j] and self.exposed[j]:
                    ranks[j] = custom([FULL_DECK[c] for c in self.hole[j]], bcards)  # type: ignore[index]
            return ranks
        rank = _default_ranker(self.settings.game)
        for j in range(self.n):
            if live[j] and self.exposed[j]:
                ranks[j] = rank(self.hole[j], board)  # type: ignore[arg-type]
        return ranks

    def _award(self) -> None:
        """Award every pot (P-1, P-3) after rake (R-1..R-3) and finish the hand."""
        s = self.settings
        n = self.n
        live = [not f and not m for f, m in zip(self.folded, self.mucked)]
        pots = build_pots(self.committed, [not f for f in self.folded], self.dead)
        flop = self._flop_seen
        if s.game is Game.DRAW and s.rake is not None and not s.rake.draw_counts_as_flop:
            flop = True
        rk = rake_amount(s.rake, sum(p[0] for p in pots), players_dealt=n, flop_seen=flop,
                         chip=s.smallest_chip) if s.rake is not None else 0
        rakes = take_rake([p[0] for p in pots], rk)
        showdown = self.n_live > 1
        ranks = self._rank_all(live) if showdown else {}
        pos = {j: k for k, j in enumerate(self._order)}
        seats = self.seats
        awards = []
        for k, (amount, elig) in enumerate(pots):
            contenders = [j for j in elig if live[j]]
            if not contenders:  # everyone eligible mucked: the last to muck was left standing
                contenders = [next(j for j in reversed(self._muck_order) if j in elig)]
            words = ""
            if len(contenders) > 1:
                best = max(ranks.get(j, -1) for j in contenders)
                winners = sorted((j for j in contenders if ranks.get(j, -1) == best), key=pos.__getitem__)
                if best >= 0:
                    words = (self._describe or _default_describe)(best)
            else:
                winners = contenders
            shares = split_pot(amount - rakes[k], winners, s.smallest_chip)
            share_map = {}
            for j, sh in zip(winners, shares):
                self.stack[j] += sh
                share_map[seats[j]] = sh
            awards.append(PotAward(k, amount, rakes[k], tuple(seats[j] for j in elig),
                                   tuple(seats[j] for j in winners), share_map, words))
        self._result = HandResult(
            tuple(awards), dict(self.returned), rk,
            {seats[j]: self.stack[j] for j in range(n)},
            tuple(seats[j] for j in self._sd_order) if showdown else (),
            {seats[j]: tuple(_STR[c] for c in self.hole[j]) for j in range(n) if self.exposed[j]},  # type: ignore[index]
            tuple(seats[j] for j in range(n) if self.mucked[j]),
            {seats[j]: tuple(None if c is None else _STR[c] for c in self.hole[j]) for j in range(n)},
        )
        self.committed = [0] * n
        self.dead = 0
        self.phase = _COMPLETE
        self.street = Street.COMPLETE
        self.to_act = -1

    def void(self, reason: str = "misdeal") -> None:
        """Void the hand (misdeal, malfunction): every chip goes back where it came from.

        Stacks return to their values before the posts; no rake. Allowed at any
        moment before the pots are awarded.

        Raises:
            IllegalAction: the hand is already over.
        """
        if self.phase == _COMPLETE:
            raise IllegalAction("A-1: the hand is already over; it cannot be voided")
        self._log.append(("void", str(reason)))
        self.stack = list(self.start)
        self.bet = [0] * self.n
        self.committed = [0] * self.n
        self.dead = 0
        self.voided = True
        self.returned = {}
        self._result = HandResult((), {}, 0, {self.seats[j]: self.stack[j] for j in range(self.n)},
                                  (), {}, (), {}, voided=True)
        self.phase = _COMPLETE
        self.street = Street.COMPLETE
        self.to_act = -1

    def result(self) -> HandResult:
        """Return the outcome of the finished hand.

        Raises:
            IllegalAction: the hand is not over yet.
        """
        if self._result is None:
            raise IllegalAction("A-1: the hand is not over yet")
        return self._result

    # ------------------------------------------------------------------ views
    def pots(self) -> list[PotView]:
        """Return the pots now (P-1), main pot first, not counting this round's bets."""
        if self.phase == _COMPLETE:
            return []
        contrib = [c - b for c, b in zip(self.committed, self.bet)]
        return [PotView(a, tuple(self.seats[j] for j in e))
                for a, e in build_pots(contrib, [not f for f in self.folded], self.dead)]

    def total_chips(self) -> int:
        """Return stacks + chips in the middle + rake: the same at every moment of the hand."""
        return sum(self.stack) + sum(self.committed) + self.dead + (self._result.rake if self._result else 0)

    def player(self, seat: int) -> dict:
        """Return one seat's public state: ``stack``, ``bet``, ``committed`` (this hand,
        antes and dead posts included), ``folded``, ``all_in``, ``cards`` (count),
        ``shown`` (cards or None), ``mucked``, ``drew`` (G-3)."""
        i = self.index[seat]
        done = self.phase == _COMPLETE
        return {
            "seat": seat, "stack": self.stack[i], "bet": self.bet[i],
            "committed": 0 if done else self.committed[i] + self.dead_in[i],
            "folded": self.folded[i], "all_in": self.allin[i], "cards": len(self.hole[i]),
            "shown": [_txt([c]) for c in self.hole[i]] if self.exposed[i] else None,
            "mucked": self.mucked[i], "drew": self.drew[i],
        }

    def snapshot(self) -> dict:
        """Return a JSON-able dict of the hand: its inputs, events and derived state.

        :meth:`from_snapshot` rebuilds an identical hand by replaying ``events`` (as
        the table's journal does after a power cut).
        """
        d = self.pending_deal()
        return {
            "settings": self.settings.to_json(),
            "players": [p.to_json() for p in self.setup],
            "button": self.button, "sb_seat": self.sb_seat, "bb_seat": self.bb_seat,
            "events": self.events,
            "street": self.street.value,
            "to_act": self.seat_to_act,
            "pending_deal": None if d is None else d._asdict(),
            "board": [_txt([c]) for c in self.board],
            "current_bet": self.current,
            "players_state": [self.player(s) for s in self.seats],
            "pots": [{"amount": p.amount, "eligible": list(p.eligible)} for p in self.pots()],
            "result": None if self._result is None else self._result.to_json(),
        }

    @classmethod
    def from_snapshot(cls, snap: dict, **kw: Any) -> "Hand":
        """Rebuild a hand from :meth:`snapshot` output by replaying its events.

        Raises:
            HandSetupError / IllegalAction / IllegalDeal: an inconsistent snapshot.
        """
        settings = HandSettings.from_json(snap["settings"])
        players = [PlayerSetup(**p) for p in snap["players"]]
        return cls.replay(settings, players, snap["events"], button=snap["button"],
                          sb_seat=snap["sb_seat"], bb_seat=snap["bb_seat"], **kw)

    @classmethod
    def replay(cls, settings: HandSettings, players: Sequence[PlayerSetup], events: Iterable[dict],
               *, button: int, sb_seat: int | None, bb_seat: int, **kw: Any) -> "Hand":
        """Return a new hand with ``events`` (as from :attr:`events`) applied in order.

        Raises:
            HandSetupError / IllegalAction / IllegalDeal: as the constructor and :meth:`apply`.
        """
        h = cls(settings, players, button=button, sb_seat=sb_seat, bb_seat=bb_seat, **kw)
        for e in events:
            h.apply(e)
        return h

    def apply(self, event: dict) -> None:
        """Apply one recorded event (an item of :attr:`events`); all-or-nothing.

        Shapes: ``{"t": "fold"|"check"|"call"|"all_in"|"muck", "seat": s}``,
        ``{"t": "bet", "seat": s, "to": chips}``, ``{"t": "draw", "seat": s, "cards": "7h 2c"}``,
        ``{"t": "show", "seat": s, "cards": "As Kd"}``, ``{"t": "deal_hole", "seat": s,
        "cards": "As Kd"}``, ``{"t": "deal_board", "cards": "Jh 8c 3d", "burn": "2c"|None}``,
        ``{"t": "deal_draw", "seat": s, "cards": ..., "burn": ...}``, ``{"t": "void", "reason": ...}``.

        Raises:
            IllegalAction / IllegalDeal: as the matching method, or an unknown event type.
        """
        t = event.get("t")
        seat = event.get("seat")
        if t == "fold":
            self.fold(seat, when_check_is_free=bool(event.get("check_was_free")))  # type: ignore[arg-type]
        elif t == "check":
            self.check(seat)  # type: ignore[arg-type]
        elif t == "call":
            self.call(seat)  # type: ignore[arg-type]
        elif t == "bet":
            self.raise_to(seat, event["to"])  # type: ignore[arg-type]
        elif t == "all_in":
            self.all_in(seat)  # type: ignore[arg-type]
        elif t == "draw":
            self.draw(seat, _parse(event.get("cards", "")))  # type: ignore[arg-type]
        elif t == "show":
            self.show(seat, event.get("cards") or None)  # type: ignore[arg-type]
        elif t == "muck":
            self.muck(seat)  # type: ignore[arg-type]
        elif t == "deal_hole":
            self.deal_hole(seat, event["cards"])  # type: ignore[arg-type]
        elif t == "deal_board":
            self.deal_board(event["cards"], event.get("burn"))
        elif t == "deal_draw":
            self.deal_draw(seat, event["cards"], event.get("burn"))  # type: ignore[arg-type]
        elif t == "void":
            self.void(event.get("reason", "misdeal"))
        else:
            raise IllegalAction(f"A-1: unknown event type {t!r}")


def _event_dict(e: tuple) -> dict:
    """Return the JSON-able dict of one logged event tuple."""
    t = e[0]
    if t == "fold" and len(e) > 2:
        return {"t": t, "seat": e[1], "check_was_free": True}
    if t in ("fold", "check", "call", "muck"):
        return {"t": t, "seat": e[1]}
    if t == "bet":
        return {"t": t, "seat": e[1], "to": e[2]}
    if t == "all_in":
        return {"t": t, "seat": e[1], "to": e[2], "raise": e[3]}
    if t in ("draw", "show", "deal_hole"):
        return {"t": t, "seat": e[1], "cards": _txt(e[2])}
    if t == "deal_board":
        return {"t": t, "cards": _txt(e[1]), "burn": None if e[2] is None else _STR[e[2]]}
    if t == "deal_draw":
        return {"t": t, "seat": e[1], "cards": _txt(e[2]), "burn": None if e[3] is None else _STR[e[3]]}
    return {"t": t, "reason": e[1]}
