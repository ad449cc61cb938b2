"""Views and the journal of a hand: pots, player state, snapshot, events, replay.

A mixin of :class:`controller.engine.hand.Hand`; a hand is rebuilt exactly by replaying
its events (the table's journal does this after a power cut).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from .errors import IllegalAction
from .hand_base import _COMPLETE, _STR, _parse, _txt
from .hand_fields import HandFields
from collections.abc import Iterable, Sequence

from .handtypes import PotView
from .pots import build_pots
from .settings import HandSettings, PlayerSetup

if TYPE_CHECKING:
    from .hand import Hand  # the class this mixin is part of (hand.py imports this module)


class JournalMixin(HandFields):
    """``events``, ``pots``, ``player``, ``total_chips``, ``snapshot``, ``replay``, ``apply``."""

    __slots__ = ()

    @property
    def events(self) -> list[dict[str, Any]]:
        """Return every input applied so far as JSON-able dicts (see :meth:`apply`).

        The dicts are the caller's own (fresh copies each call).
        """
        done = self._events
        if len(done) < len(self._log):  # the dicts of the first events are kept (issue 21)
            done = self._events = done + list(map(_event_dict, self._log[len(done):]))
        return [d.copy() for d in done]

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

    def player(self, seat: int) -> dict[str, Any]:
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

    def snapshot(self) -> dict[str, Any]:
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
    def from_snapshot(cls, snap: dict[str, Any], **kw: Any) -> "Hand":
        """Rebuild a hand from :meth:`snapshot` output by replaying its events.

        Raises:
            HandSetupError / IllegalAction / IllegalDeal: an inconsistent snapshot.
        """
        settings = HandSettings.from_json(snap["settings"])
        players = [PlayerSetup(**p) for p in snap["players"]]
        return cls.replay(settings, players, snap["events"], button=snap["button"],
                          sb_seat=snap["sb_seat"], bb_seat=snap["bb_seat"], **kw)

    @classmethod
    def replay(cls, settings: HandSettings, players: Sequence[PlayerSetup], events: Iterable[dict[str, Any]],
               *, button: int, sb_seat: int | None, bb_seat: int, **kw: Any) -> "Hand":
        """Return a new hand with ``events`` (as from :attr:`events`) applied in order.

        Raises:
            HandSetupError / IllegalAction / IllegalDeal: as the constructor and :meth:`apply`.
        """
        make: Any = cls  # Hand (this mixin has no constructor of its own)
        h: Hand = make(settings, players, button=button, sb_seat=sb_seat, bb_seat=bb_seat, **kw)
        for e in events:
            h.apply(e)
        return h

    def apply(self, event: dict[str, Any]) -> None:
        """Apply one recorded event (an item of :attr:`events`); all-or-nothing.

        Shapes: ``{"t": "fold"|"check"|"call"|"all_in"|"muck", "seat": s}``, ``{"t": "leave",
        "seat": s}`` (T-8: the player left the table; folded in turn or not),
        ``{"t": "bet", "seat": s, "to": chips}``, ``{"t": "draw", "seat": s, "cards": "7h 2c"}``,
        ``{"t": "show", "seat": s, "cards": "As Kd"}``, ``{"t": "deal_hole", "seat": s,
        "cards": "As Kd"}``, ``{"t": "deal_board", "cards": "Jh 8c 3d", "burn": "2c"|None}``,
        ``{"t": "deal_draw", "seat": s, "cards": ..., "burn": ...}``, ``{"t": "void", "reason": ...}``.

        Raises:
            IllegalAction / IllegalDeal: as the matching method, or an unknown event type.
        """
        t = event.get("t")
        seat: Any = event.get("seat")  # an int for the events that name a seat
        if t == "fold":
            self.fold(seat, when_check_is_free=bool(event.get("check_was_free")))
        elif t == "check":
            self.check(seat)
        elif t == "call":
            self.call(seat)
        elif t == "bet":
            self.raise_to(seat, event["to"])
        elif t == "all_in":
            self.all_in(seat)
        elif t == "draw":
            self.draw(seat, _parse(event.get("cards", "")))
        elif t == "show":
            self.show(seat, event.get("cards") or None)
        elif t == "muck":
            self.muck(seat)
        elif t == "leave":
            self.fold_leaving(seat)  # T-8: the leaver's hand is folded, its chips stay in the pots
        elif t == "deal_hole":
            self.deal_hole(seat, event["cards"])
        elif t == "deal_board":
            self.deal_board(event["cards"], event.get("burn"))
        elif t == "deal_draw":
            self.deal_draw(seat, event["cards"], event.get("burn"))
        elif t == "void":
            self.void(event.get("reason", "misdeal"))
        else:
            raise IllegalAction(f"A-1: unknown event type {t!r}")



def _event_dict(e: tuple[Any, ...]) -> dict[str, Any]:
    """Return the JSON-able dict of one logged event tuple."""
    shape = _SHAPES.get(e[0])
    if shape is None:
        return {"t": e[0], "reason": e[1]}
    return shape(e)


def _fold(e: tuple[Any, ...]) -> dict[str, Any]:
    if len(e) > 2:
        return {"t": "fold", "seat": e[1], "check_was_free": True}
    return {"t": "fold", "seat": e[1]}


def _seat_only(e: tuple[Any, ...]) -> dict[str, Any]:
    return {"t": e[0], "seat": e[1]}


def _seat_cards(e: tuple[Any, ...]) -> dict[str, Any]:
    return {"t": e[0], "seat": e[1], "cards": _txt(e[2])}


# one function per event type (issue 21: a hand's fifty-odd events are turned into dicts in
# the step that ends it, for its record); any other type is a void with its reason
_SHAPES: dict[str, Callable[[tuple[Any, ...]], dict[str, Any]]] = {
    "fold": _fold, "check": _seat_only, "call": _seat_only, "muck": _seat_only, "leave": _seat_only,
    "bet": lambda e: {"t": "bet", "seat": e[1], "to": e[2]},
    "all_in": lambda e: {"t": "all_in", "seat": e[1], "to": e[2], "raise": e[3]},
    "draw": _seat_cards, "show": _seat_cards, "deal_hole": _seat_cards,
    "deal_board": lambda e: {"t": "deal_board", "cards": _txt(e[1]),
                             "burn": None if e[2] is None else _STR[e[2]]},
    "deal_draw": lambda e: {"t": "deal_draw", "seat": e[1], "cards": _txt(e[2]),
                            "burn": None if e[3] is None else _STR[e[3]]},
}
