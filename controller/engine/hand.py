"""One hand of poker: posts, dealing facts, betting, draw, showdown, pots and rake.

The rules are ``RULES.md`` sections G, H, S, P and R. A :class:`Hand` is a mutable
object whose every ``apply``-style method is all-or-nothing: it either raises an
:class:`~controller.engine.errors.IllegalAction` / ``IllegalDeal`` (a ``ValueError``
whose message starts with the rule id and states the legal range) and leaves the
state untouched, or it performs the whole step. The engine never shuffles and never
reads a clock: whoever deals tells it which card went where (``deal_hole``,
``deal_board``, ``deal_draw``), and the hand is reconstructed exactly by replaying
its :attr:`Hand.events` (``Hand.replay`` / ``Hand.from_snapshot``).

Typical use by the table (issue 3)::

    hand = Hand(settings, [PlayerSetup(1, 1000), PlayerSetup(2, 1000, live_post=5),
                           PlayerSetup(3, 1000, live_post=10)],
                button=1, sb_seat=2, bb_seat=3)
    while hand.street is not Street.COMPLETE:
        need = hand.pending_deal()          # DealRequest or None
        if need: ...deal... hand.deal_hole(need.seat, cards) / deal_board / deal_draw
        else:
            legal = hand.legal()            # Legal for hand.to_act
            hand.act(legal.seat, "call")    # or fold/check/bet/raise/all_in/draw/show/muck
    result = hand.result()

Seats are the table's seat numbers; players are kept in clockwise (ascending seat)
order. Amounts for bets and raises are street totals ("to"), as in PHH ``cbr``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Callable, Optional

from .cards import FULL_DECK, Card, CardError, parse_card
from .errors import HandSetupError, IllegalAction, IllegalDeal
from .pots import build_pots, split_pot, uncalled
from .rake import rake_amount, take_rake
from .settings import Game, HandSettings, Limit, PlayerSetup, Street

__all__ = [
    "Hand",
    "Legal",
    "DealRequest",
    "PotView",
    "PotAward",
    "HandResult",
    "ACTIONS",
]

#: action names accepted by :meth:`Hand.act` (``raise`` and ``bet`` are the same "to" move)
ACTIONS = ("fold", "check", "call", "bet", "raise", "all_in", "draw", "show", "muck")

# phases (ints for speed)
_DEAL_HOLE, _BET, _DEAL_BOARD, _DRAW, _DEAL_DRAW, _SHOWDOWN, _COMPLETE = range(7)

_FLOP_STREETS = (Street.PREFLOP, Street.FLOP, Street.TURN, Street.RIVER)
_DRAW_STREETS = (Street.PREDRAW, Street.DRAW, Street.POSTDRAW)
_BOARD_COUNTS = (3, 1, 1)

OptCard = Optional[Card]


@dataclass(frozen=True, slots=True)
class DealRequest:
    """What the dealer must deal next (cards enter as facts).

    ``kind``: ``"hole"`` (``count`` more hole cards to ``seat``; the seat is the next
    in the usual one-at-a-time order from the first seat left of the button),
    ``"board"`` (``count`` board cards; ``burn`` says a card is burned first), or
    ``"draw"`` (``count`` replacement cards to ``seat``, G-3). ``reshuffle_after``
    (draw only, G-4): the stub holds only that many cards; serve them, then shuffle
    the other players' discards with the burn card(s) into a new stub for the rest.
    """

    kind: str
    seat: int | None
    count: int
    burn: bool = False
    reshuffle_after: int | None = None


@dataclass(frozen=True, slots=True)
class Legal:
    """The legal moves of the player to act (A-1, S-4..S-8, G-3, P-2).

    Betting (``street`` a betting round): ``fold`` (false when checking is free),
    ``check``, ``call`` chips to put in to call (capped at the stack; 0 when there is
    nothing to call) and ``call_to`` the street total after calling. ``bet`` (no bet
    faced) or ``raise_`` (a bet faced) is ``(min_to, max_to)`` street totals, or
    ``None`` when no full bet/raise is possible. ``min_raise_to`` is the rule's
    nominal minimum (S-4/S-6) even when the stack cannot reach it (then only
    ``all_in`` is offered). ``all_in`` is the street total of going all-in when that is
    legal (it may be a call, an incomplete raise or a full one), else ``None``.
    ``max_raise_to`` is the nominal maximum (pot-limit: the pot, S-5).
    Draw (``draw`` not None): the most cards the player may discard (0 = stand pat).
    Showdown (``show``/``muck`` true): show or muck in P-2 order.
    """

    seat: int
    street: Street
    fold: bool = False
    check: bool = False
    call: int = 0
    call_to: int = 0
    bet: tuple[int, int] | None = None
    raise_: tuple[int, int] | None = None
    all_in: int | None = None
    min_raise_to: int | None = None
    max_raise_to: int | None = None
    draw: int | None = None
    show: bool = False
    muck: bool = False

    @property
    def can_check(self) -> bool:
        """Return whether checking is possible (the table checks on timeout, A-2)."""
        return self.check

    def names(self) -> list[str]:
        """Return the legal action names, e.g. ``["fold", "call", "raise", "all_in"]``."""
        out = []
        for name, ok in (("fold", self.fold), ("check", self.check), ("call", self.call > 0),
                         ("bet", self.bet is not None), ("raise", self.raise_ is not None),
                         ("all_in", self.all_in is not None), ("draw", self.draw is not None),
                         ("show", self.show), ("muck", self.muck)):
            if ok:
                out.append(name)
        return out

    def to_json(self) -> dict:
        """Return the state.md ``legal`` object (plus ``seat``, ``call_to``, ``min_raise_to``)."""
        return {
            "seat": self.seat, "fold": self.fold, "check": self.check, "call": self.call,
            "call_to": self.call_to,
            "bet": None if self.bet is None else {"min": self.bet[0], "max": self.bet[1]},
            "raise": None if self.raise_ is None else {"min": self.raise_[0], "max": self.raise_[1]},
            "all_in": self.all_in, "min_raise_to": self.min_raise_to,
            "max_raise_to": self.max_raise_to, "draw": self.draw,
            "show": self.show, "muck": self.muck,
        }


@dataclass(frozen=True, slots=True)
class PotView:
    """One pot: ``amount`` chips and the seats that can win it (P-1), main pot first."""

    amount: int
    eligible: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PotAward:
    """How one pot was awarded (P-1, P-3, R-1).

    ``amount`` is the pot before rake, ``rake`` the chips the house took from it,
    ``shares`` seat -> chips won (summing to ``amount - rake``), ``winners`` in the
    P-3 order, ``hand`` the winning hand in words (H-6; ``""`` when uncontested).
    """

    pot: int
    amount: int
    rake: int
    eligible: tuple[int, ...]
    winners: tuple[int, ...]
    shares: dict[int, int]
    hand: str


@dataclass(frozen=True, slots=True)
class HandResult:
    """The outcome of a finished hand.

    ``awards`` per pot; ``returned`` seat -> uncalled chips given back (S-9); ``rake``
    total chips taken (R-1); ``stacks`` seat -> final stack; ``showdown_order`` the
    seats in P-2 order (empty when nobody had to show); ``shown`` seat -> cards shown;
    ``mucked`` seats that mucked (P-4: the cards are in ``hole``, for the history);
    ``hole`` seat -> every hole card known to the engine; ``voided`` true after a misdeal.
    """

    awards: tuple[PotAward, ...]
    returned: dict[int, int]
    rake: int
    stacks: dict[int, int]
    showdown_order: tuple[int, ...]
    shown: dict[int, tuple[str, ...]]
    mucked: tuple[int, ...]
    hole: dict[int, tuple[str | None, ...]]
    voided: bool = False

    def to_json(self) -> dict:
        """Return a JSON-able dict (seat keys become strings)."""
        return {
            "awards": [
                {"pot": a.pot, "amount": a.amount, "rake": a.rake, "eligible": list(a.eligible),
                 "winners": list(a.winners), "shares": {str(k): v for k, v in a.shares.items()},
                 "hand": a.hand}
                for a in self.awards
            ],
            "returned": {str(k): v for k, v in self.returned.items()},
            "rake": self.rake,
            "stacks": {str(k): v for k, v in self.stacks.items()},
            "showdown_order": list(self.showdown_order),
            "shown": {str(k): list(v) for k, v in self.shown.items()},
            "mucked": list(self.mucked),
            "hole": {str(k): list(v) for k, v in self.hole.items()},
            "voided": self.voided,
        }


_INDEX = {c: c.index for c in FULL_DECK}


def _default_ranker(game: Game) -> Callable[[Sequence[Card], Sequence[Card]], int]:
    from . import evaluator  # the evaluator engineer's module (H-1..H-5)

    if game is Game.OMAHA:
        return evaluator.rank_omaha
    fast = evaluator.rank_indices
    idx = _INDEX
    return lambda hole, board: fast([idx[c] for c in hole] + [idx[c] for c in board])


def _default_describe(rank: int) -> str:
    from . import evaluator

    return evaluator.describe(rank)


def _card(c: Any) -> OptCard:
    if c is None or c == "??":
        return None
    return parse_card(c)


class Hand:
    """One hand of hold'em, Omaha or five card draw (G-1..G-3) at one table.

    Args:
        settings: the table's :class:`HandSettings`.
        players: the players dealt in, each a :class:`PlayerSetup` (any order; kept in
            ascending seat order = clockwise). 2..10 players (2..5 in draw).
        button: the button seat; it may be a seat with no player (dead button, T-1).
        sb_seat: the small blind's seat, or ``None`` for a dead small blind (T-1).
        bb_seat: the big blind's seat (a player's seat); pre-flop action starts left
            of it (S-2) and the amount to call is the full big blind even when the big
            blind is all-in for less (RULES appendix).
        ranker / describe: optional stand-ins for ``evaluator.rank_hand`` /
            ``rank_omaha`` and ``evaluator.describe`` (tests, other games).

    Raises:
        HandSetupError: wrong player count, duplicate seats, negative stacks or posts,
            a blind seat that is not a player.
    """

    __slots__ = (
        "settings", "setup", "button", "sb_seat", "bb_seat", "n", "seats", "index",
        "stack", "bet", "committed", "folded", "allin", "acted", "acted_at", "hole",
        "start", "phase", "street", "to_act", "current", "min_inc", "full_level",
        "bet_count", "capped", "last_aggr", "n_live", "n_able", "board", "burns",
        "seen", "dead", "returned", "events", "_ranker", "_describe", "_streets",
        "_street_no", "_first_left", "_order", "exposed", "mucked", "_sd_order",
        "_sd_pos", "drew", "discards", "_draw_pos", "_draw_need", "_result",
        "_n_hole", "_posted", "dead_in", "_flop_seen", "_stub", "_reshuffled", "voided", "_muck_order",
    )

    def __init__(
        self,
        settings: HandSettings,
        players: Sequence[PlayerSetup],
        *,
        button: int,
        sb_seat: int | None,
        bb_seat: int,
        ranker: Callable[[Sequence[Card], Sequence[Card]], int] | None = None,
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
            if p.stack < 0 or p.live_post < 0 or p.dead_post < 0 or (p.ante or 0) < 0:
                raise HandSetupError(f"S-1: seat {p.seat}: stack and posts must be >= 0")
        if bb_seat not in seats:
            raise HandSetupError(f"S-1: big blind seat {bb_seat} has no player in the hand")
        if sb_seat is not None and sb_seat not in seats:
            raise HandSetupError(f"S-1: small blind seat {sb_seat} has no player in the hand")
        self.settings = settings
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
        self.hole: list[list[OptCard]] = [[] for _ in range(n)]
        self.exposed = [False] * n
        self.mucked = [False] * n
        self._muck_order: list[int] = []
        self.drew: list[int | None] = [None] * n
        self.discards: list[list[OptCard]] = [[] for _ in range(n)]
        self.board: list[OptCard] = []
        self.burns: list[OptCard] = []
        self.seen: set[Card] = set()
        self.dead = 0
        self.returned: dict[int, int] = {}
        self.events: list[dict] = []
        self._result: HandResult | None = None
        self._streets = _DRAW_STREETS if game is Game.DRAW else _FLOP_STREETS
        self._street_no = 0
        self.street = self._streets[0]
        self._n_hole = game.hole_cards
        self._flop_seen = False
        self._stub = 52
        self._reshuffled = False
        self.voided = False
        # first player index left of the button (dead button allowed)
        fl = 0
        for i, s in enumerate(seats):
            if s > button:
                fl = i
                break
        self._first_left = fl
        self._order = [(fl + k) % n for k in range(n)]
        self.n_live = n
        self.n_able = n
        # forced posts: antes, then live posts, then dead posts (S-1, T-6)
        self._posted: list[int] = [0] * n
        self.dead_in = [0] * n
        for i, p in enumerate(ps):
            ante = settings.ante if p.ante is None else p.ante
            a = min(ante, self.stack[i])
            self.stack[i] -= a
            self.dead += a  # P-1: antes go to the main pot
            live = min(p.live_post, self.stack[i])
            self.stack[i] -= live
            self.bet[i] = live
            self.committed[i] += live
            self._posted[i] = live
            d = min(p.dead_post, self.stack[i])
            self.stack[i] -= d
            self.dead += d
            self.dead_in[i] = a + d
            if self.stack[i] == 0 and (a or live or d or p.stack == 0):
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

    # ------------------------------------------------------------------ queries
    @property
    def seat_to_act(self) -> int | None:
        """Return the seat whose turn it is, or ``None`` (dealer's turn or hand over)."""
        if self.to_act < 0 or self.phase in (_DEAL_HOLE, _DEAL_BOARD, _DEAL_DRAW, _COMPLETE):
            return None
        return self.seats[self.to_act]

    @property
    def is_complete(self) -> bool:
        """Return whether the hand is over (pots awarded or voided)."""
        return self.phase == _COMPLETE

    def pending_deal(self) -> DealRequest | None:
        """Return what the dealer must deal next, or ``None`` when a player must act.

        See :class:`DealRequest`. Hole cards are asked for one at a time in dealing
        order (the seat with fewest cards, starting left of the button) but
        :meth:`deal_hole` accepts several at once.
        """
        ph = self.phase
        if ph == _DEAL_HOLE:
            k = self._n_hole
            best = -1
            least = k
            for i in self._order:
                h = len(self.hole[i])
                if h < least:
                    least, best = h, i
            return DealRequest("hole", self.seats[best], k - least)
        if ph == _DEAL_BOARD:
            return DealRequest("board", None, _BOARD_COUNTS[self._street_no - 1], self.settings.burns)
        if ph == _DEAL_DRAW:
            i = self.to_act
            need = self._draw_need
            burn = self.settings.burns and not self.burns
            stub = self._stub - (1 if burn else 0)
            return DealRequest("draw", self.seats[i], need, burn,
                               stub if (need > stub and not self._reshuffled) else None)
        return None

    def legal(self) -> Legal:
        """Return the legal moves of the player to act (see :class:`Legal`).

        Raises:
            IllegalAction: "A-1: ..." when no player is to act (the dealer must deal,
            or the hand is over).
        """
        ph = self.phase
        i = self.to_act
        if ph == _BET:
            return self._legal_bet(i)
        if ph == _DRAW:
            return Legal(self.seats[i], self.street, draw=len(self.hole[i]))
        if ph == _SHOWDOWN:
            return Legal(self.seats[i], self.street, show=True, muck=True)
        raise IllegalAction(f"A-1: no player is to act now ({self._phase_words()})")

    def _phase_words(self) -> str:
        return {
            _DEAL_HOLE: "hole cards are being dealt", _DEAL_BOARD: "board cards are due",
            _DEAL_DRAW: "draw cards are due", _COMPLETE: "the hand is over",
        }.get(self.phase, "")

    def _bet_size(self) -> int:
        s = self.settings
        return s.small_bet if self._street_no < 2 else s.big_bet  # type: ignore[return-value]

    def _legal_bet(self, i: int) -> Legal:
        stack = self.stack[i]
        bet = self.bet[i]
        cur = self.current
        to_call = cur - bet
        if to_call < 0:
            to_call = 0
        call = to_call if to_call < stack else stack
        check = to_call == 0
        allmax = bet + stack
        lim = self.settings.limit
        min_to, max_to = self._raise_bounds(i)
        can_raise = self._raise_open(i)
        rng = None
        all_in = None
        if allmax <= cur:
            all_in = allmax
        elif can_raise and allmax <= max_to:
            all_in = allmax
        if can_raise and allmax >= min_to:
            hi = max_to if max_to < allmax else allmax
            rng = (min_to, hi if hi >= min_to else min_to)
        opening = cur == 0
        if lim is Limit.FIXED_LIMIT:
            max_nom = min_to
        else:
            max_nom = max_to
        return Legal(
            self.seats[i], self.street, fold=not check, check=check, call=call,
            call_to=bet + call, bet=rng if opening else None, raise_=None if opening else rng,
            all_in=all_in, min_raise_to=min_to if can_raise else None,
            max_raise_to=max_nom if can_raise else None,
        )

    def _raise_bounds(self, i: int) -> tuple[int, int]:
        """Return the nominal (min_to, max_to) of a bet or raise for player i."""
        s = self.settings
        cur = self.current
        if s.limit is Limit.FIXED_LIMIT:
            to = (self.full_level if cur else 0) + self._bet_size()
            return to, to
        min_to = cur + self.min_inc if cur else s.big_blind
        if s.limit is Limit.POT_LIMIT:
            to_call = cur - self.bet[i]
            pot = sum(self.committed) + self.dead
            return min_to, max(min_to, cur + pot + to_call)
        return min_to, self.bet[i] + self.stack[i]

    def _others_can_call(self, i: int) -> bool:
        """Return whether another live player has chips beyond the current bet (S-8)."""
        cur = self.current
        folded, allin, bet, stack = self.folded, self.allin, self.bet, self.stack
        for j in range(self.n):
            if j != i and not folded[j] and not allin[j] and bet[j] + stack[j] > cur:
                return True
        return False

    def _raise_open(self, i: int) -> bool:
        """Return whether player i may bet or raise (S-6 cap, S-7 reopening, S-8)."""
        if self.stack[i] <= self.current - self.bet[i]:
            return False
        if not self._others_can_call(i):  # nobody could call a raise (S-8)
            return False
        if self.acted[i]:
            if self.settings.limit is Limit.FIXED_LIMIT:
                if self.full_level <= self.acted_at[i]:
                    return False
            elif self.current - self.acted_at[i] < self.min_inc:
                return False
        if self.settings.limit is Limit.FIXED_LIMIT and self.bet_count >= self.settings.cap_bets:
            if self.capped or not self.settings.cap_lifted_heads_up or self.n_live > 2:
                return False
        return True

    # ------------------------------------------------------------------ player actions
    def act(self, seat: int, action: str, amount: int | None = None,
            cards: Iterable[Any] | int | None = None) -> None:
        """Apply one player action; all-or-nothing.

        ``action`` is one of :data:`ACTIONS`: ``fold``, ``check``, ``call``,
        ``bet``/``raise`` (``amount`` = street total "to"), ``all_in``, ``draw``
        (``cards`` = the discards, or a count when the cards are unknown; none =
        stand pat, G-3), ``show`` (``cards`` required if the engine does not know
        them) or ``muck`` (P-2).

        Raises:
            IllegalAction: not this seat's turn, or the move is not legal now
                (message starts with the rule id and gives the legal range).
        """
        if action == "fold":
            self.fold(seat)
        elif action == "check":
            self.check(seat)
        elif action == "call":
            self.call(seat)
        elif action in ("bet", "raise"):
            if amount is None:
                raise IllegalAction("S-4: a bet or raise needs an amount (the street total)")
            self.raise_to(seat, amount)
        elif action == "all_in":
            self.all_in(seat)
        elif action == "draw":
            self.draw(seat, cards if cards is not None else ())
        elif action == "show":
            self.show(seat, None if cards is None or isinstance(cards, int) else cards)
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
            words = self._phase_words() or f"it is the {self.street.value}"
            raise IllegalAction(f"A-1: seat {seat} cannot {what} now: {words}")
        if i != self.to_act:
            raise IllegalAction(f"A-1: it is seat {self.seats[self.to_act]}'s turn, not seat {seat}'s")
        return i

    def fold(self, seat: int) -> None:
        """Fold ``seat``'s hand (A-1). Illegal when checking is free (A-2, A-4: the table
        never folds for a player who could check).

        Raises:
            IllegalAction: not this seat's turn, or checking is free.
        """
        i = self._turn(seat, _BET)
        if self.bet[i] >= self.current:
            raise IllegalAction(f"A-1: seat {seat} may check; folding is not offered when checking is free")
        self.events.append({"t": "fold", "seat": seat})
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
        self.events.append({"t": "check", "seat": seat})
        self.acted[i] = True
        self.acted_at[i] = self.current
        self._advance(i)

    def call(self, seat: int) -> None:
        """Call the current bet, or all-in for less when the stack is short (S-8).

        Raises:
            IllegalAction: not this seat's turn, or nothing to call (check instead).
        """
        i = self._turn(seat, _BET)
        to_call = self.current - self.bet[i]
        if to_call <= 0:
            raise IllegalAction(f"A-1: seat {seat} has nothing to call; check")
        self.events.append({"t": "call", "seat": seat})
        self._put(i, to_call if to_call < self.stack[i] else self.stack[i])
        self.acted[i] = True
        self.acted_at[i] = self.current
        self._advance(i)

    def all_in(self, seat: int) -> None:
        """Put the whole stack in: a call, an incomplete raise or a full raise (S-7, S-8).

        Raises:
            IllegalAction: not this seat's turn, or raising is closed (S-6 cap, S-7,
                nobody left to call) and the stack is more than the call, or the stack
                is above the pot-limit or fixed-limit maximum.
        """
        i = self._turn(seat, _BET)
        if self.stack[i] <= 0:
            raise IllegalAction(f"S-8: seat {seat} has no chips")
        to = self.bet[i] + self.stack[i]
        if to <= self.current:
            self.events.append({"t": "all_in", "seat": seat, "to": to, "raise": False})
            self._put(i, self.stack[i])
            self.acted[i] = True
            self.acted_at[i] = self.current
            self._advance(i)
            return
        self._raise(i, to, "all_in")

    def raise_to(self, seat: int, to: int) -> None:
        """Bet or raise to a street total of ``to`` chips (S-4..S-7); ``bet`` is an alias.

        Raises:
            IllegalAction: not this seat's turn; below the minimum (S-4, S-6), above
                the maximum (S-5 pot, S-6 fixed size, S-8 stack), raising closed
                (S-6 cap, S-7 incomplete raise, S-8 nobody can call), not a multiple of
                the smallest chip (S-10). Example: ``"S-4: minimum raise is to 600, got 450"``.
        """
        i = self._turn(seat, _BET)
        if not isinstance(to, int) or isinstance(to, bool):
            raise IllegalAction(f"S-10: a bet is a whole number of chips, got {to!r}")
        self._raise(i, to, "bet")

    bet_to = raise_to

    def _raise(self, i: int, to: int, kind: str) -> None:
        seat = self.seats[i]
        cur = self.current
        allmax = self.bet[i] + self.stack[i]
        word = "raise" if cur else "bet"
        if to <= cur:
            raise IllegalAction(f"S-4: a {word} must be to more than {cur}, got {to}; call instead")
        if to > allmax:
            raise IllegalAction(f"S-8: seat {seat} can {word} to at most {allmax} (all-in), got {to}")
        if not self._raise_open(i):
            if not self._others_can_call(i):
                why = "S-8: no opponent has chips to call a raise"
            elif self.acted[i] and not (self.settings.limit is Limit.FIXED_LIMIT
                                        and self.bet_count >= self.settings.cap_bets):
                why = "S-7: the betting was not reopened by a full raise"
            else:
                why = f"S-6: the betting is capped at {self.settings.cap_bets} bets"
            raise IllegalAction(f"{why}; seat {seat} may only call ({cur}) or fold")
        min_to, max_to = self._raise_bounds(i)
        lim = self.settings.limit
        if to == allmax:
            if to > max_to:
                rule = "S-5" if lim is Limit.POT_LIMIT else "S-6"
                raise IllegalAction(f"{rule}: maximum {word} is to {max_to}, all-in would be {to}")
        else:
            if to < min_to:
                rule = "S-6" if lim is Limit.FIXED_LIMIT else "S-4"
                raise IllegalAction(f"{rule}: minimum {word} is to {min_to}, got {to}")
            if to > max_to:
                rule = {Limit.POT_LIMIT: "S-5", Limit.FIXED_LIMIT: "S-6"}.get(lim, "S-8")
                raise IllegalAction(f"{rule}: maximum {word} is to {max_to}, got {to}")
            chip = self.settings.smallest_chip
            if chip > 1 and to % chip:
                raise IllegalAction(f"S-10: bets are multiples of {chip}, got {to}")
        self.events.append({"t": kind, "seat": seat, "to": to, "raise": True} if kind == "all_in"
                           else {"t": "bet", "seat": seat, "to": to})
        inc = to - cur
        if lim is Limit.FIXED_LIMIT:
            if 2 * (to - (self.full_level if cur else 0)) >= self._bet_size():
                self.full_level = to
                self.bet_count = self.bet_count + 1 if cur else 1
                if self.bet_count >= self.settings.cap_bets and self.n_live > 2:
                    self.capped = True
        else:
            if cur == 0:
                if to >= self.settings.big_blind:
                    self.min_inc = to
                    self.full_level = to
            elif inc >= self.min_inc:
                self.min_inc = inc
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
        if self.n_live == 1:
            self._end_round()
            return
        n = self.n
        cur = self.current
        folded, allin, acted, bet = self.folded, self.allin, self.acted, self.bet
        others = self.n_able - 1
        for k in range(1, n):
            j = (i + k) % n
            if folded[j] or allin[j]:
                continue
            if bet[j] < cur or (not acted[j] and others > 0):
                self.to_act = j
                return
        self._end_round()

    def _start_round(self, first: int) -> None:
        """Begin a betting round with action from index ``first`` clockwise."""
        self.phase = _BET
        n = self.n
        if self.n_able < 2:
            # at most one player with chips: they act only if facing a bet (S-8)
            for k in range(n):
                j = (first + k) % n
                if not self.folded[j] and not self.allin[j] and self.bet[j] < self.current:
                    self.to_act = j
                    return
            self._end_round()
            return
        for k in range(n):
            j = (first + k) % n
            if not self.folded[j] and not self.allin[j]:
                self.to_act = j
                return
        self._end_round()  # pragma: no cover - n_able >= 2 guarantees a player

    def _end_round(self) -> None:
        """Close the betting round: return the uncalled bet (S-9), move on."""
        who, amount = uncalled(self.bet)
        if amount:
            self.stack[who] += amount
            self.committed[who] -= amount
            seat = self.seats[who]
            self.returned[seat] = self.returned.get(seat, 0) + amount
            if self.allin[who] and self.stack[who] > 0:
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
        streets = self._streets
        if no >= len(streets):
            self._start_showdown()
            return
        self.current = 0
        self.min_inc = self.settings.big_blind
        self.full_level = 0
        self.bet_count = 0
        self.capped = False
        self.last_aggr = -1
        self._street_no = no
        self.street = streets[no]
        if self.settings.game is Game.DRAW:
            if self.street is Street.DRAW:
                self._flop_seen = True
                self.phase = _DRAW
                self._draw_pos = 0
                self._next_drawer()
            else:  # postdraw betting
                self._begin_betting()
            return
        self.phase = _DEAL_BOARD

    def _begin_betting(self) -> None:
        acted = self.acted
        for j in range(self.n):
            acted[j] = False
        if self.n_able < 2:
            self._end_round()
        else:
            self._start_round(self._first_left)

    def _expose_all(self) -> None:
        """S-8: when no more betting is possible all live hands are exposed."""
        for j in range(self.n):
            if not self.folded[j] and all(c is not None for c in self.hole[j]):
                self.exposed[j] = True

    # ------------------------------------------------------------------ dealing
    def _check_cards(self, cards: Sequence[OptCard], allowed: set[Card] | None = None) -> None:
        seen = self.seen
        got: set[Card] = set()
        for c in cards:
            if c is None:
                continue
            if (c in seen and not (allowed and c in allowed)) or c in got:
                raise IllegalDeal(f"G-5: card {c} was already dealt in this hand")
            got.add(c)

    def _parse(self, cards: Iterable[Any]) -> list[OptCard]:
        if isinstance(cards, str):
            cards = cards.replace(",", " ").split()
            if len(cards) == 1 and len(cards[0]) > 3:
                w = cards[0]
                cards = [w[k:k + 2] for k in range(0, len(w), 2)]
        try:
            return [_card(c) for c in cards]
        except CardError as exc:
            raise IllegalDeal(str(exc)) from None

    def deal_hole(self, seat: int, cards: Iterable[Any]) -> None:
        """Record hole cards dealt to ``seat`` (G-1..G-3); ``None`` / ``"??"`` = unknown card.

        Raises:
            IllegalDeal: hole cards are not being dealt, the seat is not in the hand,
                too many cards for the game, or a card already dealt (G-5).
        """
        cs = self._parse(cards)
        if self.phase != _DEAL_HOLE:
            raise IllegalDeal(f"G-1: hole cards are not being dealt now (street {self.street.value})")
        i = self.index.get(seat, -1)
        if i < 0:
            raise IllegalDeal(f"G-1: seat {seat} is not dealt in")
        room = self._n_hole - len(self.hole[i])
        if not 1 <= len(cs) <= room:
            raise IllegalDeal(f"G-1: seat {seat} may receive 1..{room} more hole cards, got {len(cs)}")
        self._check_cards(cs)
        self.events.append({"t": "deal_hole", "seat": seat, "cards": _txt(cs)})
        self.hole[i].extend(cs)
        self.seen.update(c for c in cs if c is not None)
        self._stub -= len(cs)
        for j in range(self.n):
            if len(self.hole[j]) < self._n_hole:
                return
        # everyone has cards: the first betting round (S-2: left of the big blind)
        self._start_round((self.index[self.bb_seat] + 1) % self.n)

    def deal_board(self, cards: Iterable[Any], burn: Any = None) -> None:
        """Record board cards: the flop (3), turn (1) or river (1), with the burn if known (G-1).

        Raises:
            IllegalDeal: no board cards are due, wrong count, or a card already dealt.
        """
        cs = self._parse(cards)
        b = self._parse([burn])[0] if burn is not None else None
        if self.phase != _DEAL_BOARD:
            raise IllegalDeal(f"G-1: no board cards are due now (street {self.street.value})")
        need = _BOARD_COUNTS[self._street_no - 1]
        if len(cs) != need:
            raise IllegalDeal(f"G-1: the {self.street.value} is {need} card(s), got {len(cs)}")
        self._check_cards(cs + [b])
        self.events.append({"t": "deal_board", "cards": _txt(cs), "burn": None if b is None else str(b)})
        if self.settings.burns:
            self.burns.append(b)
        self.board.extend(cs)
        self.seen.update(c for c in cs + [b] if c is not None)
        self._flop_seen = True
        if self.n_able < 2 or self.n_live < 2:
            self._expose_all()
            self._next_street()
        else:
            self._begin_betting()

    def draw(self, seat: int, discards: Iterable[Any] | int = ()) -> None:
        """Discard 0..5 cards in the draw (G-3); no cards = stand pat.

        ``discards`` are the cards thrown (which must be in the hand when the engine
        knows it) or, when the hand is unknown to the engine, their number.

        Raises:
            IllegalAction: not this seat's turn in the draw, more cards than held, or
                a card that is not in the hand.
        """
        i = self._turn(seat, _DRAW)
        hole = self.hole[i]
        if isinstance(discards, int):
            k = discards
            if not 0 <= k <= len(hole):
                raise IllegalAction(f"G-3: seat {seat} may discard 0..{len(hole)} cards, got {k}")
            idx = [j for j, c in enumerate(hole) if c is None][:k]
            if len(idx) < k:
                idx = list(range(len(hole) - k, len(hole)))
            thrown_cards = [hole[j] for j in idx]
        else:
            try:
                thrown = [_card(c) for c in (discards.split() if isinstance(discards, str) else discards)]
            except CardError as exc:
                raise IllegalAction(str(exc)) from None
            k = len(thrown)
            if k > len(hole):
                raise IllegalAction(f"G-3: seat {seat} may discard 0..{len(hole)} cards, got {k}")
            idx = []
            for c in thrown:
                pos = -1
                for j, h in enumerate(hole):
                    if j not in idx and (h == c or (h is None and c is not None and c not in self.seen)):
                        pos = j
                        break
                if pos < 0:
                    raise IllegalAction(f"G-3: seat {seat} does not hold {c}")
                idx.append(pos)
            thrown_cards = thrown
        self.events.append({"t": "draw", "seat": seat, "cards": _txt(thrown_cards)})
        for j in sorted(idx, reverse=True):
            del hole[j]
        self.discards[i] = list(thrown_cards)
        self.seen.update(c for c in thrown_cards if c is not None)
        self.drew[i] = k
        if k:
            self.phase = _DEAL_DRAW
            self._draw_need = k
        else:
            self._draw_pos += 1
            self._next_drawer()

    def _next_drawer(self) -> None:
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

    def deal_draw(self, seat: int, cards: Iterable[Any], burn: Any = None) -> None:
        """Record the replacement cards dealt to ``seat`` after its discard (G-3, G-4).

        After the stub runs out (G-4) the cards may come from the other players'
        earlier discards and the burn card(s), never from this seat's own discards.

        Raises:
            IllegalDeal: no draw cards are due to this seat, wrong count, or a card
                that cannot be in the deck now.
        """
        cs = self._parse(cards)
        b = self._parse([burn])[0] if burn is not None else None
        if self.phase != _DEAL_DRAW or self.seats[self.to_act] != seat:
            raise IllegalDeal(f"G-3: no draw cards are due to seat {seat} now")
        i = self.to_act
        if len(cs) != self._draw_need:
            raise IllegalDeal(f"G-3: seat {seat} discarded {self._draw_need}, got {len(cs)} cards")
        burn_now = self.settings.burns and not self.burns
        stub = self._stub - (1 if burn_now else 0)
        allowed: set[Card] | None = None
        if len(cs) > stub or self._reshuffled:
            allowed = {c for j in range(self.n) if j != i for c in self.discards[j] if c is not None}
            allowed.update(c for c in self.burns if c is not None)
            if b is not None:
                allowed.add(b)
        own = {c for c in self.discards[i] if c is not None}
        for c in cs:
            if c is not None and c in own:
                raise IllegalDeal(f"G-4: seat {seat} cannot receive its own discard {c}")
        self._check_cards(cs + ([b] if b is not None else []), allowed)
        self.events.append({"t": "deal_draw", "seat": seat, "cards": _txt(cs), "burn": None if b is None else str(b)})
        if burn_now:
            self.burns.append(b)
            self._stub -= 1
        if len(cs) > self._stub and not self._reshuffled:
            self._reshuffled = True
            self._stub = 0
        else:
            self._stub -= len(cs)
        self.hole[i].extend(cs)
        self.seen.update(c for c in cs if c is not None)
        if b is not None:
            self.seen.add(b)
        self._draw_pos += 1
        self._next_drawer()

    # ------------------------------------------------------------------ showdown
    def _start_showdown(self) -> None:
        """P-2: last aggressor of the final round shows first, else first left of the button."""
        self.street = Street.SHOWDOWN
        n = self.n
        start = self.last_aggr if self.last_aggr >= 0 and not self.folded[self.last_aggr] else self._first_left
        self._sd_order = [(start + k) % n for k in range(n) if not self.folded[(start + k) % n]]
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
        """Return whether no other live player still claims a pot (all are eligible for the main pot)."""
        for k in range(self.n):
            if k != j and not self.folded[k] and not self.mucked[k]:
                return False
        return True

    def show(self, seat: int, cards: Iterable[Any] | None = None) -> None:
        """Show ``seat``'s hand at showdown (P-2) or once no more betting is possible (S-8).

        ``cards`` may be omitted when the engine knows the hand; when given they must
        match the known cards (unknown ``??`` cards are filled in).

        Raises:
            IllegalAction: betting is not over, the seat is not in the hand, or the
                cards do not match its hand.
        """
        i = self.index.get(seat, -1)
        if i < 0 or self.folded[i] or self.mucked[i]:
            raise IllegalAction(f"P-2: seat {seat} has no live hand to show")
        over = self.phase == _SHOWDOWN or (self.n_able < 2 and self.phase in (_DEAL_BOARD, _DEAL_DRAW, _DRAW))
        if not over:
            raise IllegalAction(f"P-2: seat {seat} shows at the showdown, not during the betting")
        hole = self.hole[i]
        if cards is None:
            if any(c is None for c in hole):
                raise IllegalAction(f"P-2: seat {seat}'s cards are not known; show them")
            new = list(hole)
        else:
            try:
                new = self._parse(cards)
            except IllegalDeal as exc:
                raise IllegalAction(str(exc)) from None
            if len(new) != len(hole):
                raise IllegalAction(f"P-2: seat {seat} holds {len(hole)} cards, showed {len(new)}")
            known = [c for c in hole if c is not None]
            if any(c not in new for c in known):
                raise IllegalAction(f"P-2: seat {seat} showed {_txt(new)} but holds {_txt(hole)}")
            extra = [c for c in new if c is not None and c not in known]
            try:
                self._check_cards(extra)
            except IllegalDeal as exc:
                raise IllegalAction(str(exc)) from None
            if any(c is None for c in new):
                raise IllegalAction(f"P-2: seat {seat} must show every card")
            self.seen.update(extra)
        self.events.append({"t": "show", "seat": seat, "cards": _txt(new)})
        self.hole[i] = new
        self.exposed[i] = True
        if self.phase == _SHOWDOWN:
            if self.to_act == i:
                self._sd_pos += 1
            self._next_shower()

    def muck(self, seat: int) -> None:
        """Muck ``seat``'s hand at its P-2 turn: it gives up every pot (P-2, P-4).

        Raises:
            IllegalAction: not the seat's turn to show or muck.
        """
        i = self._turn(seat, _SHOWDOWN)
        self.events.append({"t": "muck", "seat": seat})
        self.mucked[i] = True
        self._muck_order.append(i)
        self._sd_pos += 1
        self._next_shower()

    # ------------------------------------------------------------------ awarding
    def _award(self) -> None:
        s = self.settings
        live = [not f and not m for f, m in zip(self.folded, self.mucked)]
        pots = build_pots(self.committed, [not f for f in self.folded], self.dead)
        total = sum(p[0] for p in pots)
        flop = self._flop_seen
        if s.game is Game.DRAW and s.rake is not None and not s.rake.draw_counts_as_flop:
            flop = True
        rk = rake_amount(s.rake, total, players_dealt=self.n, flop_seen=flop, chip=s.smallest_chip)
        rakes = take_rake([p[0] for p in pots], rk)
        pos = {j: k for k, j in enumerate(self._order)}
        awards = []
        ranks: dict[int, int] = {}
        showdown = self.n_live > 1
        if showdown:
            ranker = self._ranker or _default_ranker(s.game)
            board = [c for c in self.board if c is not None]
            for j in range(self.n):
                if live[j] and self.exposed[j]:
                    ranks[j] = ranker(self.hole[j], board)
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
            net = amount - rakes[k]
            shares = split_pot(net, winners, s.smallest_chip)
            share_map = {}
            for j, sh in zip(winners, shares):
                self.stack[j] += sh
                share_map[self.seats[j]] = sh
            awards.append(PotAward(k, amount, rakes[k], tuple(self.seats[j] for j in elig),
                                   tuple(self.seats[j] for j in winners), share_map, words))
        sd = tuple(self.seats[j] for j in self._sd_order) if showdown else ()
        self._result = HandResult(
            tuple(awards), dict(self.returned), rk,
            {self.seats[j]: self.stack[j] for j in range(self.n)}, sd,
            {self.seats[j]: tuple(str(c) for c in self.hole[j]) for j in range(self.n) if self.exposed[j]},
            tuple(self.seats[j] for j in range(self.n) if self.mucked[j]),
            {self.seats[j]: tuple(None if c is None else str(c) for c in self.hole[j]) for j in range(self.n)},
        )
        self.committed = [0] * self.n
        self.dead = 0
        self.phase = _COMPLETE
        self.street = Street.COMPLETE
        self.to_act = -1

    def void(self, reason: str = "misdeal") -> None:
        """Void the hand (misdeal, malfunction): every chip goes back where it came from.

        Stacks return to their values at the start of the hand; no rake. Allowed at
        any moment before the pots are awarded.

        Raises:
            IllegalAction: the hand is already complete.
        """
        if self.phase == _COMPLETE:
            raise IllegalAction("A-1: the hand is already over; it cannot be voided")
        self.events.append({"t": "void", "reason": str(reason)})
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
        live = [not f for f in self.folded]
        return [PotView(a, tuple(self.seats[j] for j in e)) for a, e in build_pots(contrib, live, self.dead)]

    def total_chips(self) -> int:
        """Return stacks + chips in the middle + rake: constant through the hand."""
        return sum(self.stack) + sum(self.committed) + self.dead + (self._result.rake if self._result else 0)

    def player(self, seat: int) -> dict:
        """Return one seat's public state: stack, bet, committed, folded, all_in, cards, drew."""
        i = self.index[seat]
        return {
            "seat": seat, "stack": self.stack[i], "bet": self.bet[i],
            "committed": self.committed[i] + (self.dead_in[i] if self.phase != _COMPLETE else 0),
            "folded": self.folded[i], "all_in": self.allin[i], "cards": len(self.hole[i]),
            "shown": [str(c) for c in self.hole[i]] if self.exposed[i] else None,
            "mucked": self.mucked[i], "drew": self.drew[i],
        }

    def snapshot(self) -> dict:
        """Return a JSON-able dict of the whole hand: inputs, events and the derived state.

        ``Hand.from_snapshot(snapshot)`` rebuilds an identical hand by replaying
        ``events`` (the table's journal does the same after a power cut).
        """
        return {
            "settings": self.settings.to_json(),
            "players": [p.to_json() for p in self.setup],
            "button": self.button, "sb_seat": self.sb_seat, "bb_seat": self.bb_seat,
            "events": [dict(e) for e in self.events],
            "street": self.street.value,
            "to_act": self.seat_to_act,
            "pending_deal": None if (d := self.pending_deal()) is None else {
                "kind": d.kind, "seat": d.seat, "count": d.count, "burn": d.burn,
                "reshuffle_after": d.reshuffle_after},
            "board": [str(c) if c else None for c in self.board],
            "current_bet": self.current,
            "players_state": [self.player(s) for s in self.seats],
            "pots": [{"amount": p.amount, "eligible": list(p.eligible)} for p in self.pots()],
            "result": None if self._result is None else self._result.to_json(),
        }

    @classmethod
    def from_snapshot(cls, snap: dict, **kw: Any) -> "Hand":
        """Rebuild a hand from :meth:`snapshot` output by replaying its events.

        Raises:
            HandSetupError / IllegalAction / IllegalDeal: the snapshot is inconsistent.
        """
        settings = HandSettings.from_json(snap["settings"])
        players = [PlayerSetup(**p) for p in snap["players"]]
        return cls.replay(settings, players, snap["events"], button=snap["button"],
                          sb_seat=snap["sb_seat"], bb_seat=snap["bb_seat"], **kw)

    @classmethod
    def replay(cls, settings: HandSettings, players: Sequence[PlayerSetup], events: Iterable[dict],
               *, button: int, sb_seat: int | None, bb_seat: int, **kw: Any) -> "Hand":
        """Return a new hand with ``events`` (from :attr:`events`) applied in order."""
        h = cls(settings, players, button=button, sb_seat=sb_seat, bb_seat=bb_seat, **kw)
        for e in events:
            h.apply(e)
        return h

    def apply(self, event: dict) -> None:
        """Apply one recorded event (an item of :attr:`events`); all-or-nothing.

        Event shapes: ``{"t": "fold"|"check"|"call"|"all_in"|"muck", "seat": s}``,
        ``{"t": "bet", "seat": s, "to": chips}``, ``{"t": "draw", "seat": s, "cards": "7h 2c"}``,
        ``{"t": "show", "seat": s, "cards": "As Kd"}``, ``{"t": "deal_hole", "seat": s, "cards": ...}``,
        ``{"t": "deal_board", "cards": ..., "burn": card|None}``,
        ``{"t": "deal_draw", "seat": s, "cards": ..., "burn": ...}``, ``{"t": "void", "reason": ...}``.

        Raises:
            IllegalAction / IllegalDeal: as the matching method; ``ValueError`` for an
            unknown event type.
        """
        t = event.get("t")
        seat = event.get("seat")
        if t == "fold":
            self.fold(seat)  # type: ignore[arg-type]
        elif t == "check":
            self.check(seat)  # type: ignore[arg-type]
        elif t == "call":
            self.call(seat)  # type: ignore[arg-type]
        elif t == "bet":
            self.raise_to(seat, event["to"])  # type: ignore[arg-type]
        elif t == "all_in":
            self.all_in(seat)  # type: ignore[arg-type]
        elif t == "draw":
            self.draw(seat, _untxt(event.get("cards", "")))  # type: ignore[arg-type]
        elif t == "show":
            self.show(seat, _untxt(event.get("cards", "")))  # type: ignore[arg-type]
        elif t == "muck":
            self.muck(seat)  # type: ignore[arg-type]
        elif t == "deal_hole":
            self.deal_hole(seat, _untxt(event["cards"]))  # type: ignore[arg-type]
        elif t == "deal_board":
            self.deal_board(_untxt(event["cards"]), event.get("burn"))
        elif t == "deal_draw":
            self.deal_draw(seat, _untxt(event["cards"]), event.get("burn"))  # type: ignore[arg-type]
        elif t == "void":
            self.void(event.get("reason", "misdeal"))
        else:
            raise IllegalAction(f"A-1: unknown event type {t!r}")


def _txt(cards: Iterable[OptCard]) -> str:
    return " ".join("??" if c is None else str(c) for c in cards)


def _untxt(text: str) -> list[OptCard]:
    return [_card(w) for w in text.split()]
