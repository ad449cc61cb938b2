"""The differential driver against PokerKit 0.7 (a test-only oracle): one random hand in both.

Both engines get the same players, blinds, antes (PokerKit with ``ante_trimming_status=True``:
each ante is its poster's contribution, as P-1 needs), dealt cards and player actions. The
actions are drawn at random from *our* legal moves. At every decision the driver compares:

- who acts (PokerKit's ``actor_index``);
- the stacks and the pots (amounts and who is eligible, P-1) before the action;
- whether folding and checking are allowed, the chips to call;
- whether a bet or raise is allowed, and the smallest and largest bet or raise "to"
  (ours: the range, or the all-in when the stack cannot reach the minimum).

and the stacks at the end; every fourth hand is also written as PHH (``phh.dump``) and
replayed (``phh.play``) to the same stacks. Every difference is either one docs/engine.md documents
(:data:`DOCUMENTED`, with the rule id) or a :class:`Failure`. A documented difference that
makes the two hands part (a different call or a raise PokerKit refuses) ends the hand's
comparison there; one that does not (PokerKit offers a raise we do not) is counted and the
hand goes on with our legal moves, which PokerKit accepts.

Games: every one PokerKit can play that the engine has: hold'em, Omaha (high) and five card
draw (high, one draw) in no limit, pot limit and fixed limit (PokerKit's generic ``State``
with the matching streets; PHH codes NT PT FT NO PO FO N5CD P5CD F5CD).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from pokerkit import (
    Automation,
    BettingStructure,
    Deck,
    OmahaHoldemHand,
    Opening,
    StandardHighHand,
    State,
    Street as PkStreet,
)

from controller.engine import phh
from controller.engine.cards import FULL_DECK
from controller.engine.hand import Hand
from controller.engine.settings import Game, Limit

AUTO = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)

VARIANTS = ("NT", "PT", "FT", "NO", "PO", "FO", "N5CD", "P5CD", "F5CD")

#: documented differences (docs/engine.md, "Where we differ from PokerKit"): key -> rule
DOCUMENTED = {
    "odd-chips": "P-3 odd chips one each clockwise (PokerKit: remainder to one winner)",
    "merged-pots": "P-1/P-3 each pot awarded separately (PokerKit merges pots after a muck)",
    "short-bb": "S-1/S-4 short big blind: call and raise priced from the full big blind",
    "s7-reopen": "S-7 a short all-in does not reopen the betting to players who acted",
    "s7-cumulative": "S-7 short all-ins reopen once they add up to a full raise since the player acted",
    "s7-fixed": "S-7 fixed limit: half a bet or more is a full bet or raise",
    "s6-cap": "S-6 cap: bet and three raises (PokerKit: one more pre-flop)",
    "fold-free": "A-2/A-4 no fold when checking is free (PokerKit allows it)",
    "only-check": "S-8 a player who could only check is skipped (PokerKit asks)",
}


class Failure(AssertionError):
    """An undocumented difference between the engine and PokerKit."""


class Parted(Exception):
    """A documented difference made the two hands part; ``key`` is in :data:`DOCUMENTED`."""

    def __init__(self, key: str, detail: str) -> None:
        super().__init__(f"{key}: {detail}")
        self.key = key


@dataclass
class Profile:
    """How random hands are drawn: players, stacks in big blinds, antes, how wild the play.

    ``stacks`` is a list of ``(low, high)`` ranges in big blinds (one picked per player;
    fractions give stacks below the big blind or the ante); ``antes`` the ante choices as a
    fraction of the big blind (0 = none); ``aggression`` the chance a decision bets, raises
    or goes all-in rather than checking or calling; ``all_in`` the share of those that are
    all-in; ``cover_bb`` the chance the big blind gets at least a full blind and ante (a
    short big blind parts the two engines at once, S-1/S-4, so such hands compare little).
    """

    name: str
    players: tuple[int, int]
    stacks: list[tuple[float, float]]
    antes: list[float]
    fold: float = 0.12
    aggression: float = 0.25
    all_in: float = 0.25
    cover_bb: float = 0.0


PROFILES = {
    "deep": Profile("deep", (2, 10), [(20, 200)], [0.0]),
    "antes": Profile("antes", (2, 10), [(8, 60), (20, 200)], [0.1, 0.25, 0.5]),
    "short": Profile("short", (2, 10), [(0.05, 1.5), (0.5, 6), (2, 40)], [0.0, 0.25, 0.5, 1.0],
                     fold=0.08, aggression=0.35, all_in=0.5, cover_bb=0.6),
    "all-in": Profile("all-in", (2, 10), [(0.02, 1), (1, 10), (10, 100)], [0.1, 0.5, 1.0],
                      fold=0.05, aggression=0.6, all_in=0.7, cover_bb=0.6),
}


@dataclass
class Tally:
    """Counts of one run: hands, decisions compared, documented differences, failures."""

    hands: int = 0
    same: int = 0
    decisions: int = 0
    documented: Counter = field(default_factory=Counter)
    parted: Counter = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)


def pk_state(variant: str, n: int, stacks: list[int], sb: int, bb: int, ante: int) -> State:
    """Return PokerKit's state for one hand (generic ``State``; antes trimmed, P-1)."""
    game, limit = phh.VARIANTS[variant]
    small, big = bb, 2 * bb
    cap = 4 if limit is Limit.FIXED_LIMIT else None
    fl = limit is Limit.FIXED_LIMIT
    if game is Game.DRAW:
        streets = (PkStreet(False, (False,) * 5, 0, False, Opening.POSITION, small, cap),
                   PkStreet(True, (), 0, True, Opening.POSITION, big if fl else small, cap))
    else:
        k = game.hole_cards
        late = big if fl else small
        streets = (PkStreet(False, (False,) * k, 0, False, Opening.POSITION, small, cap),
                   PkStreet(True, (), 3, False, Opening.POSITION, small, cap),
                   PkStreet(True, (), 1, False, Opening.POSITION, late, cap),
                   PkStreet(True, (), 1, False, Opening.POSITION, late, cap))
    structure = {Limit.NO_LIMIT: BettingStructure.NO_LIMIT, Limit.POT_LIMIT: BettingStructure.POT_LIMIT,
                 Limit.FIXED_LIMIT: BettingStructure.FIXED_LIMIT}[limit]
    hand_types = (OmahaHoldemHand,) if game is Game.OMAHA else (StandardHighHand,)
    return State(AUTO, Deck.STANDARD, hand_types, streets, structure, True, ante, (sb, bb), 0,
                 tuple(stacks), n)


def our_hand(variant: str, n: int, stacks: list[int], sb: int, bb: int, ante: int) -> Hand:
    """Return our hand for the same table, built through PHH (p1..pN = seats 1..N)."""
    game, limit = phh.VARIANTS[variant]
    fl = limit is Limit.FIXED_LIMIT
    hh = phh.HandHistory(
        variant=variant, antes=[ante] * n, blinds=[sb, bb] + [0] * (n - 2), starting_stacks=list(stacks),
        actions=[], min_bet=bb, small_bet=bb if fl else None, big_bet=2 * bb if fl else None,
        # S-6: PokerKit never lifts the cap heads-up; P-1: antes are contributions
        extra={"ante_trimming_status": True, "_cap_lifted_heads_up": False})
    return phh.new_hand(hh)


def _our_raise(hand: Hand, lg) -> tuple[int, int] | None:
    """Return the smallest and largest bet or raise "to" we allow, or None."""
    rng = lg.bet or lg.raise_
    if rng is not None:
        hi = rng[1]
        if lg.all_in is not None and lg.all_in > hi:
            hi = lg.all_in
        return rng[0], hi
    if lg.all_in is not None and lg.all_in > hand.current:
        return lg.all_in, lg.all_in
    return None


def _pk_raise(pk: State) -> tuple[int, int] | None:
    if not pk.can_complete_bet_or_raise_to():
        return None
    return pk.min_completion_betting_or_raising_to_amount, pk.max_completion_betting_or_raising_to_amount


def _pots_ours(hand: Hand) -> list[tuple[int, tuple[int, ...]]]:
    return [(p.amount, tuple(s - 1 for s in p.eligible)) for p in hand.pots()]


def _pots_pk(pk: State) -> list[tuple[int, tuple[int, ...]]]:
    return [(p.amount, tuple(p.player_indices)) for p in pk.pots]


class Round:
    """What the driver knows about the betting round under way (for classifying)."""

    def __init__(self) -> None:
        self.short_all_in = False  # an all-in for less than a full bet or raise this round


def _short_bb(hand: Hand) -> bool:
    """S-1/S-4: pre-flop (or before the draw), the big blind posted less than a full big blind."""
    if hand._street_no != 0:
        return False
    p = next(p for p in hand.setup if p.seat == hand.bb_seat)
    return p.stack - (hand.settings.ante if p.ante is None else p.ante) < hand.settings.big_blind


def _pk_only_checks(pk: State) -> None:
    """PokerKit asks a player who can only check (every opponent all-in); we skip them (S-8)."""
    while pk.actor_index is not None and pk.checking_or_calling_amount == 0 \
            and not pk.can_complete_bet_or_raise_to():
        pk.check_or_call()


def compare(hand: Hand, pk: State, rnd: Round, notes: set[str], where: str) -> None:
    """Compare one decision; raise :class:`Failure` or :class:`Parted`, or note a documented one."""
    lg = hand.legal()
    seat = lg.seat
    i = hand.index[seat]
    if pk.actor_index != i:
        raise Failure(f"{where}: seat {seat} to act here, PokerKit player {pk.actor_index}")
    if list(pk.stacks) != hand.stack:
        raise Failure(f"{where}: stacks {hand.stack} vs PokerKit {list(pk.stacks)}")
    if _pots_ours(hand) != _pots_pk(pk):
        raise Failure(f"{where}: pots {_pots_ours(hand)} vs PokerKit {_pots_pk(pk)}")
    call = pk.checking_or_calling_amount
    ours, theirs = _our_raise(hand, lg), _pk_raise(pk)
    if (lg.call != call or ours != theirs) and _short_bb(hand):
        raise Parted("short-bb", f"{where}: call {lg.call} raise {ours} vs PokerKit {call} {theirs}")
    if lg.call != call:
        raise Failure(f"{where}: call {lg.call} vs PokerKit {call}")
    if lg.check != (call == 0):
        raise Failure(f"{where}: check {lg.check} vs PokerKit call {call}")
    pk_fold = pk.can_fold()
    if lg.fold != pk_fold:
        if lg.check and pk_fold:
            notes.add("fold-free")
        else:
            raise Failure(f"{where}: fold {lg.fold} vs PokerKit {pk_fold}")
    if ours == theirs:
        return
    fl = hand.settings.limit is Limit.FIXED_LIMIT
    what = f"{where}: seat {seat} raise {ours} vs PokerKit {theirs}"
    if fl and ours is None and hand.bet_count >= hand.settings.cap_bets and theirs is not None:
        notes.add("s6-cap")
        return
    if fl and rnd.short_all_in:
        notes.add("s7-fixed")
        return
    if not fl and ours is None and theirs is not None and hand.acted[i] \
            and hand.current - hand.acted_at[i] < hand.min_inc:
        notes.add("s7-reopen")
        return
    if not fl and ours is not None and theirs is None and hand.acted[i] \
            and hand.current - hand.acted_at[i] >= hand.min_inc \
            and _pk_why(pk).startswith("The player already acted"):
        notes.add("s7-cumulative")
        return
    raise Failure(what)


def _pk_why(pk: State) -> str:
    """Return PokerKit's reason for refusing a bet or raise now ("" if it allows one)."""
    try:
        pk.verify_completion_betting_or_raising_to()
    except ValueError as exc:
        return str(exc)
    return ""


def _choose(rng: random.Random, hand: Hand, lg, prof: Profile) -> tuple[str, int | None]:
    """Return one of our legal moves at random: ("fold"|"call"|"raise", to)."""
    r = rng.random()
    if lg.fold and r < prof.fold:
        return "fold", None
    span = _our_raise(hand, lg)
    if span is not None and rng.random() < prof.aggression:
        if lg.all_in is not None and (rng.random() < prof.all_in or (lg.bet or lg.raise_) is None):
            return ("raise", lg.all_in) if lg.all_in > hand.current else ("call", None)
        lo, hi = (lg.bet or lg.raise_)  # type: ignore[misc]
        x = rng.random()
        return "raise", (lo if x < 0.5 else (hi if x < 0.6 else rng.randint(lo, hi)))
    if lg.all_in is not None and lg.all_in <= hand.current and rng.random() < prof.all_in * prof.aggression:
        return "call", None
    return "call", None


def play(rng: random.Random, variant: str, prof: Profile, tally: Tally) -> None:
    """Play one random hand in both engines and record what was found in ``tally``."""
    game, limit = phh.VARIANTS[variant]
    lo, hi = prof.players
    n = rng.randint(lo, min(hi, 5 if game is Game.DRAW else 10))
    bb = rng.choice([2, 10, 100])
    sb = bb // 2
    ante = int(rng.choice(prof.antes) * bb)
    stacks = []
    for _ in range(n):
        a, b = rng.choice(prof.stacks)
        stacks.append(max(1, int(rng.uniform(a, b) * bb)))
    if prof.cover_bb and rng.random() < prof.cover_bb:
        k = 1 if n > 2 else 0  # p2 posts the big blind, p1 heads-up
        stacks[k] = max(stacks[k], bb + ante + rng.randint(0, 5 * bb))
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    pk = pk_state(variant, n, stacks, sb, bb, ante)
    hand = our_hand(variant, n, stacks, sb, bb, ante)
    tally.hands += 1
    notes: set[str] = set()
    where = f"{variant} {prof.name} hand {tally.hands} (n={n} blinds {sb}/{bb} ante {ante} stacks {stacks})"
    try:
        _drive(rng, variant, prof, hand, pk, deck, notes, tally, where)
    except Parted as p:
        tally.parted[p.key] += 1
        for k in notes:
            tally.documented[k] += 1
        return
    except Failure as f:
        tally.failures.append(f"{f} events {hand.events}")
        return
    for k in notes:
        tally.documented[k] += 1
    ours = [hand.result().stacks[s] for s in range(1, n + 1)]
    theirs = list(pk.stacks)
    if sum(ours) != sum(theirs) or sum(ours) != sum(stacks):
        tally.failures.append(f"{where}: chips not conserved {ours} vs {theirs}")
    elif ours != theirs:
        key = _stack_difference(hand, ours, theirs)
        if key is None:
            tally.failures.append(f"{where}: stacks {ours} vs PokerKit {theirs}; events {hand.events}")
        else:
            tally.documented[key] += 1
    else:
        tally.same += 1
    if tally.hands % 4 == 0:  # our PHH of the hand (antes trimmed) replays to the same stacks
        hh = phh.load(phh.dump(hand))
        again = phh.finishing_stacks(phh.play(hh), hh)
        if again != ours:
            tally.failures.append(f"{where}: PHH replay ends in {again}, the hand in {ours}")


def _stack_difference(hand: Hand, ours: list[int], theirs: list[int]) -> str | None:
    """P-3 odd chips (or P-1 pots PokerKit merged after a muck): nobody's stack differs by more
    than the odd chips of the split pots. None: not explained."""
    awards = hand.result().awards
    odd = sum((a.amount - a.rake) % len(a.winners) for a in awards if len(a.winners) > 1)
    if odd > 0 and all(abs(x - y) <= odd for x, y in zip(ours, theirs)):
        multi = any(len(a.winners) > 2 and (a.amount - a.rake) % len(a.winners) > 1 for a in awards)
        return "odd-chips" if multi else "merged-pots"
    return None


def _drive(rng: random.Random, variant: str, prof: Profile, hand: Hand, pk: State, deck: list,
           notes: set[str], tally: Tally, where: str) -> None:
    k = hand.settings.game.hole_cards
    n = hand.n
    for p in range(n):
        cards = [deck.pop() for _ in range(k)]
        pk.deal_hole("".join(map(str, cards)), p)
        hand.deal_hole(p + 1, cards)
    rnd = Round()
    street = hand.street
    pending_pk_draws: list[tuple[int, list]] = []
    while not hand.is_complete:
        if hand.street is not street:
            street, rnd = hand.street, Round()
        need = hand.pending_deal()
        if need is not None and need.kind == "board":
            if pk.actor_index is not None:
                before = pk.actor_index
                _pk_only_checks(pk)
                if pk.actor_index is None:
                    notes.add("only-check")
                else:
                    raise Failure(f"{where}: board due here, PokerKit still asks player {before}")
            burn = deck.pop()
            cards = [deck.pop() for _ in range(need.count)]
            pk.burn_card(str(burn))
            pk.deal_board("".join(map(str, cards)))
            hand.deal_board(cards, burn=burn)
            continue
        if need is not None and need.kind == "draw":
            seat, count = need.seat, need.count
            burn = deck.pop() if need.burn else None
            cards = [deck.pop() for _ in range(count)]
            if burn is not None:
                pending_pk_draws.append((-1, [burn]))
            pending_pk_draws.append((seat - 1, cards))
            hand.deal_draw(seat, cards, burn=burn)
            continue
        lg = hand.legal()
        if lg.show:
            hand.show(lg.seat)
            continue
        if lg.draw is not None and lg.draw:
            seat = lg.seat
            if pk.actor_index is not None:
                _pk_only_checks(pk)
                if pk.actor_index is not None:
                    raise Failure(f"{where}: draw due here, PokerKit still asks player {pk.actor_index}")
                notes.add("only-check")
            if pk.stand_patter_or_discarder_index != seat - 1:
                who = pk.stand_patter_or_discarder_index
                raise Failure(f"{where}: seat {seat} draws here, PokerKit player {who}")
            hole = list(hand.hole_cards(seat))
            m = rng.choice([0, 0, 1, 2, 3, 3, 4, 5])
            discards = rng.sample(hole, m)
            pk.stand_pat_or_discard("".join(map(str, discards)))
            hand.draw(seat, discards)
            continue
        _flush_pk_draws(pk, pending_pk_draws, deck)
        tally.decisions += 1
        compare(hand, pk, rnd, notes, where)
        seat = lg.seat
        i = hand.index[seat]
        action, to = _choose(rng, hand, lg, prof)
        cur = hand.current
        if action == "fold":
            hand.fold(seat)
            pk.fold()
        elif action == "call":
            if lg.check:
                hand.check(seat)
            else:
                hand.call(seat)
            pk.check_or_call()
        else:
            assert to is not None
            full = to - cur >= hand.min_inc if hand.settings.limit is not Limit.FIXED_LIMIT else \
                2 * (to - (hand.full_level if cur else 0)) >= hand._bet_size()
            if to == hand.bet[i] + hand.stack[i] and to > cur and not (to >= (lg.min_raise_to or 0)):
                rnd.short_all_in = True
            hand.raise_to(seat, to) if to != hand.bet[i] + hand.stack[i] else hand.all_in(seat)
            try:
                pk.complete_bet_or_raise_to(to)
            except ValueError as exc:
                if hand.settings.limit is Limit.FIXED_LIMIT and (rnd.short_all_in or not full):
                    raise Parted("s7-fixed", f"{where}: PokerKit refuses {to}: {exc}") from None
                raise Failure(f"{where}: PokerKit refuses our raise to {to}: {exc}") from None
    _flush_pk_draws(pk, pending_pk_draws, deck)
    _pk_only_checks(pk)
    if pk.status:
        raise Failure(f"{where}: our hand is over, PokerKit's is still running")


def _flush_pk_draws(pk: State, pending: list[tuple[int, list]], deck: list) -> None:
    """Deal PokerKit the draw cards we dealt, once every player has discarded (PokerKit burns
    and deals after all the discards; we deal each player's right after their discard). When
    everyone stood pat we deal nothing and burn nothing; PokerKit still burns a card."""
    if pk.stand_patter_or_discarder_index is not None:
        return
    if not pending:
        if pk.can_burn_card():
            pk.burn_card(str(deck.pop()))
        return
    for who, cards in pending:
        if who < 0:
            pk.burn_card(str(cards[0]))
        else:
            pk.deal_hole("".join(map(str, cards)), who)
    pending.clear()


def run(variant: str, prof: Profile, hands: int, seed: str | None = None,
        by_game: dict[str, Tally] | None = None) -> Tally:
    """Play ``hands`` random hands of ``variant`` under ``prof``; return the tally.

    ``variant="all"`` takes the games in turn (hand k plays ``VARIANTS[k % 9]``); ``by_game``
    then receives one tally per game as well.
    """
    rng = random.Random(seed or f"diff-{variant}-{prof.name}")
    tally = Tally()
    for k in range(hands):
        if variant != "all":
            play(rng, variant, prof, tally)
            continue
        g = VARIANTS[k % len(VARIANTS)]
        one = Tally()
        one.hands = tally.hands
        play(rng, g, prof, one)
        _add(tally, one, 1)
        if by_game is not None:
            _add(by_game.setdefault(g, Tally()), one, 1)
    return tally


def _add(total: Tally, one: Tally, hands: int) -> None:
    total.hands += hands
    total.same += one.same
    total.decisions += one.decisions
    total.documented.update(one.documented)
    total.parted.update(one.parted)
    total.failures += one.failures
