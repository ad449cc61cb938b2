"""Simulated players for empty seats (``livetable simulate``, tests, the crash test).

A :class:`SimPlayers` listens to the orchestrator: whenever the seat to act is one of its
seats, it posts a random *legal* action (A-1) taken from the seat's private view, the same
view a tablet gets. Its randomness comes from its own seeded generator, never the engine's.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

from controller import views
from controller.engine.table import events as ev

__all__ = ["SimPlayers", "choose_action", "choose_call", "STYLES"]

#: how simulated players play (``livetable simulate --players-style``): ``random`` (mostly
#: check and call, sometimes bet, raise or fold: :func:`choose_action`) or ``call`` (check or
#: call every bet, all-in only to call: :func:`choose_call`)
STYLES = ("random", "call")


def choose_action(legal: dict[str, Any], cards: list[str], rng: random.Random) -> dict[str, Any]:
    """Return a random legal action ``{"action", "amount", "discards"}`` for a private view.

    Betting: fold rarely (never when checking is free), check/call most often, bet or raise
    sometimes (between the minimum and the maximum, weighted to small), all-in seldom.
    Draw: discard 0..3 random cards (stand pat included). Showdown (P-2, a hand that
    cannot beat one already shown): muck most often, show sometimes.
    """
    if legal.get("show") or legal.get("muck"):
        if legal.get("muck") and (not legal.get("show") or rng.random() < 0.8):
            return {"action": "muck", "amount": None, "discards": ()}
        return {"action": "show", "amount": None, "discards": ()}
    if legal.get("draw") is not None:
        n = rng.choice([0, 0, 1, 2, 3][: legal["draw"] + 2])
        n = min(n, legal["draw"], len(cards))
        return {"action": "draw", "amount": None, "discards": tuple(rng.sample(cards, n))}
    r = rng.random()
    can_check = bool(legal.get("check"))
    call = legal.get("call")
    aggressive = legal.get("raise") or legal.get("bet")
    if r < 0.12 and not can_check and legal.get("fold"):
        return {"action": "fold", "amount": None, "discards": ()}
    if r < 0.30 and aggressive:
        lo, hi = aggressive["min"], aggressive["max"]
        amount = lo if rng.random() < 0.6 else rng.randint(lo, max(lo, min(hi, lo * 3)))
        name = "raise" if legal.get("raise") else "bet"
        return {"action": name, "amount": amount, "discards": ()}
    if r < 0.32 and legal.get("all_in"):
        return {"action": "all_in", "amount": None, "discards": ()}
    if can_check:
        return {"action": "check", "amount": None, "discards": ()}
    if call:
        return {"action": "call", "amount": None, "discards": ()}
    if legal.get("all_in"):
        return {"action": "all_in", "amount": None, "discards": ()}
    return {"action": "fold", "amount": None, "discards": ()}


def choose_call(legal: dict[str, Any], cards: list[str], rng: random.Random) -> dict[str, Any]:
    """Return a calling station's legal action ``{"action", "amount", "discards"}`` (A-1):
    check when it is free, else call whatever is bet (all-in when the call takes every
    chip and the table offers it as all-in), fold only when neither is legal; never bet or
    raise. Draw: as :func:`choose_action`. Showdown (P-2, a hand that cannot beat one
    already shown): muck when allowed, else show. So a player's all-in is always called by
    every such player still in the hand (``livetable simulate --players-style call``: a
    tablet's all-in, its bust and its buy-in again in seconds, not minutes of luck)."""
    if legal.get("show") or legal.get("muck"):
        return {"action": "muck" if legal.get("muck") else "show", "amount": None, "discards": ()}
    if legal.get("draw") is not None:
        return choose_action(legal, cards, rng)
    for action in ("check", "call", "all_in"):
        if legal.get(action):
            return {"action": action, "amount": None, "discards": ()}
    return {"action": "fold", "amount": None, "discards": ()}


class SimPlayers:
    """Random players in ``seats``; attach with ``orchestrator.listeners.append(players)``.

    A player keeps one decision in flight: once it has posted an action it waits until the
    table has handled it (``post``'s ``done``) before deciding again, so a state published
    meanwhile for another reason (another seat's tablet lost, A-4) never makes it act twice
    on one turn. A decision refused (stale, raced a card) or dropped unseen (a pause) is
    made again on the state as it is.

    Args:
        seats: the seat numbers these players own.
        post: where their actions go: ``post(event, done=callback)`` as
            :meth:`controller.orchestrator.Orchestrator.post` (``done`` called on the loop
            thread once the table has handled the event, whatever became of it).
        clock: stamps each action.
        seed: the generator's seed (same seed, same decisions for the same states).
        style: one of :data:`STYLES`: ``random`` (:func:`choose_action`) or ``call``
            (:func:`choose_call`). ValueError for another.
    """

    def __init__(self, seats: Iterable[int], post: Callable[..., None], clock: Callable[[], float],
                 seed: int = 0, style: str = "random") -> None:
        if style not in STYLES:
            raise ValueError(f"simulated players' style must be one of {', '.join(STYLES)}, got {style!r}")
        self.seats = set(seats)
        self.choose = choose_call if style == "call" else choose_action
        self.post, self.clock = post, clock
        self.rng = random.Random(f"players:{seed}")
        self._asked: tuple[int, int] | None = None  # (state seq, seat) already answered
        self._in_flight: set[int] = set()  # seats whose decision the table has not handled yet

    def forget(self, orch: Any) -> None:
        """Forget the decisions in flight (their poster dropped them: a pause, a restart)
        and decide again on ``orch``'s state as it is."""
        self._in_flight.clear()
        self._asked = None
        self(orch, [])

    def _handled(self, orch: Any, seat: int) -> None:
        self._in_flight.discard(seat)
        self._asked = None  # taken: a new state; refused or dropped: decide again
        self(orch, [])

    def __call__(self, orch: Any, effects: list[Any]) -> None:
        state = orch.state
        hand = state.hand
        if hand is None or state.dealing is not None or orch.faults.paused:
            return
        seat = hand.seat_to_act
        if seat not in self.seats or seat in self._in_flight or self._asked == (state.seq, seat):
            return
        view = views.private_view(state, seat)
        if view is None or view.get("legal") is None:
            return
        self._asked = (state.seq, seat)
        choice = self.choose(view["legal"], [c for c in view["cards"] if c != "??"], self.rng)
        self._in_flight.add(seat)
        self.post(ev.ActionTaken(at=self.clock(), seat=seat, action=choice["action"],
                                 amount=choice["amount"], discards=choice["discards"],
                                 seq=state.seq),
                  done=lambda: self._handled(orch, seat))
