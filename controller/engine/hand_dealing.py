"""Dealing facts into a hand: hole cards, board, the draw and its replacements (G-1..G-5).

A mixin of :class:`controller.engine.hand.Hand` (it uses the hand's state); every method
is all-or-nothing like the rest of the hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .errors import IllegalAction, IllegalDeal
from .hand_base import _BOARD_COUNTS, _DEAL_BOARD, _DEAL_DRAW, _DEAL_HOLE, _DRAW, _STR, _parse, _txt
from .hand_fields import HandFields
from .settings import Street


class DealingMixin(HandFields):
    """Dealt cards as facts (G-1..G-5): ``deal_hole``, ``deal_board``, ``draw``, ``deal_draw``."""

    __slots__ = ()

    def _check_new(self, cards: Sequence[int | None], allowed: set[int] | None = None) -> None:
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

