"""A test bench for the table session: an injected clock, a dealer that answers DealCards
from a chosen deck, and the chip/ledger audit after every event."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

from controller.engine.cards import FULL_DECK
from controller.engine.table import effects as fx
from controller.engine.table import events as ev
from controller.engine.table.audit import audit
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import TableState
from controller.engine.table.step import step

ALL_CARDS = [str(c) for c in FULL_DECK]


class Bench:
    """Drive one table: ``bench.do(ev.SatOut, seat=3)`` stamps the time and steps.

    ``deal(holes, board)`` sets the cards of the next hand (seat -> cards, board list);
    other cards come from a deck in a fixed (or ``rng``-shuffled) order. Every event is
    kept in ``log`` (for replays), every effect in ``effects``, finished hands in
    ``hands`` (their records), refusals in ``refusals`` (``keep=False``: none of these
    are kept, for long benchmarks; ``refused_count`` still counts).
    """

    def __init__(self, settings: TableSettings, *, rng: random.Random | None = None,
                 check: bool = True, t0: float = 1_700_000_000.0,
                 clock: Callable[[], float] | None = None, keep: bool = True) -> None:
        self.state = TableState.new(settings)
        self.initial = self.state
        self.t = t0
        self.rng = rng
        self.check = check
        self.log: list[ev.Event] = []
        self.effects: list[fx.Effect] = []
        self.last: list[fx.Effect] = []
        self.hands: list[dict[str, Any]] = []
        self.refusals: list[fx.Refuse] = []
        self._holes: dict[int, list[str]] = {}
        self._board: list[str] = []
        self._spare: list[str] = []
        self.clock = clock
        self.durations: list[float] = []
        self.keep = keep
        self.refused_count = 0
        self.sent = 0

    # -- time and events
    def tick(self, seconds: float = 1.0) -> None:
        """Move the injected clock on."""
        self.t += seconds

    def send(self, event: ev.Event) -> list[fx.Effect]:
        """Step one event, audit, answer deal requests; return this event's effects."""
        self.sent += 1
        if self.keep:
            self.log.append(event)
        if self.clock is not None:
            t0 = self.clock()
            self.state, out = step(self.state, event)
            self.durations.append(self.clock() - t0)
        else:
            self.state, out = step(self.state, event)
        if self.keep:
            self.effects.extend(out)
        for e in out:
            if isinstance(e, fx.HandFinished):
                if self.keep:
                    self.hands.append(e.record)
            elif isinstance(e, fx.Refuse):
                self.refused_count += 1
                if self.keep:
                    self.refusals.append(e)
        if self.check:
            problems = audit(self.state)
            assert not problems, (event, problems)
        self.last = list(out)
        self.tick(0.5)
        if self.state.dealing is not None:
            self.last += self._answer()
        return self.last

    def do(self, cls: type, **kw: Any) -> list[fx.Effect]:
        """Build ``cls(at=now, **kw)`` and :meth:`send` it."""
        return self.send(cls(at=self.t, **kw))

    # -- dealing
    def deal(self, holes: dict[int, Iterable[str]] | None = None, board: Iterable[str] = (),
             *, hidden: Iterable[str] = ()) -> None:
        """Choose the hole cards and board of the next hand (others from the deck).

        ``"??"`` deals a card the shuffler could not read; ``hidden`` names the cards really
        dealt there, kept out of the rest of the deck.
        """
        self._holes = {s: list(c) for s, c in (holes or {}).items()}
        self._board = list(board)
        self._hidden = set(hidden)

    _hidden: set[str] = set()

    def _fresh_deck(self) -> None:
        used = {c for cs in self._holes.values() for c in cs} | set(self._board) | self._hidden
        spare = [c for c in ALL_CARDS if c not in used]
        if self.rng is not None:
            self.rng.shuffle(spare)
        self._spare = spare

    def _answer(self) -> list[fx.Effect]:
        out: list[fx.Effect] = []
        while self.state.dealing is not None:
            d = self.state.dealing
            if self._dealt_hand != self.state.hands:
                self._fresh_deck()
                self._dealt_hand = self.state.hands
            done = len(d.cards)
            acc = 0
            target = None
            for t, c in d.batches:
                acc += c
                if done < acc:
                    target = t
                    break
            if target == "seat" and self._holes.get(d.seat):
                card = self._holes[d.seat].pop(0)
            elif target == "board" and self._board:
                card = self._board.pop(0)
            else:
                card = self._spare.pop(0)
            out += self.send(ev.CardDealt(at=self.t, card=card))
        return out

    _dealt_hand = -1

    # -- helpers
    def seat_up(self, seat: int, stack: int, *, player: str | None = None, post: bool = False) -> None:
        """Sit a player in ``seat`` and buy in for ``stack``."""
        pid = player or f"p{seat}"
        self.do(ev.PlayerSatDown, seat=seat, player=pid, name=pid.upper(), post=post)
        self.do(ev.BoughtIn, seat=seat, amount=stack)

    def act(self, seat: int, action: str, amount: int | None = None, **kw: Any) -> list[fx.Effect]:
        """The player in ``seat`` acts."""
        return self.do(ev.ActionTaken, seat=seat, action=action, amount=amount, **kw)

    def expire(self) -> list[fx.Effect]:
        """The running action timer runs out (A-2)."""
        t = self.state.timer
        assert t is not None, "no timer is running"
        self.t = max(self.t, t.deadline)
        return self.do(ev.TimerExpired, timer="action", seq=t.seq)

    def start(self, button: int | None = None) -> list[fx.Effect]:
        """Ask for the next hand."""
        return self.do(ev.HandStartRequested, button=button)

    @property
    def to_act(self) -> int | None:
        """Return the seat whose turn it is (None while dealing or between hands)."""
        h = self.state.hand
        return None if h is None or self.state.dealing is not None else h.seat_to_act

    def stacks(self) -> dict[int, int]:
        """Return seat -> chips behind (live stacks during a hand)."""
        out = {}
        h = self.state.hand
        for s in self.state.seats:
            if s is None:
                continue
            out[s.seat] = h.stack[h.index[s.seat]] if h is not None and s.seat in h.index else s.stack
        return out

    def refused(self) -> list[fx.Refuse]:
        """Return the refusals among the last event's effects."""
        return [e for e in self.last if isinstance(e, fx.Refuse)]
