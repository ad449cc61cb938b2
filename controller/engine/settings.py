"""Settings of one hand: game, betting structure, stakes, cap and rake (G-, S-, R-).

All amounts are integer chips in the table's chip unit. The table (issue 3) builds a
:class:`HandSettings` once per table configuration and a list of :class:`PlayerSetup`
for every hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import Any

from .errors import HandSetupError

__all__ = ["Game", "Limit", "RakeSettings", "HandSettings", "PlayerSetup", "Street"]


class Game(str, Enum):
    """The game dealt (G-1, G-2, G-3); the value is the state.md spelling."""

    HOLDEM = "holdem"
    OMAHA = "omaha"
    DRAW = "draw"

    @property
    def hole_cards(self) -> int:
        """Return how many hole cards each player gets: 2, 4 or 5."""
        return _HOLE[self]

    @property
    def max_players(self) -> int:
        """Return the most players a hand may have: 10 (flop games) or 5 (draw, G-3)."""
        return 5 if self is Game.DRAW else 10


_HOLE = {Game.HOLDEM: 2, Game.OMAHA: 4, Game.DRAW: 5}


class Limit(str, Enum):
    """The betting structure (S-4, S-5, S-6); the value is the state.md spelling."""

    NO_LIMIT = "no-limit"
    POT_LIMIT = "pot-limit"
    FIXED_LIMIT = "fixed-limit"


class Street(str, Enum):
    """Where the hand is; the value is the state.md ``street`` spelling.

    Flop games: preflop, flop, turn, river. Draw: predraw, draw, postdraw. Then
    showdown, and ``complete`` once the pots are awarded (or the hand was voided).
    """

    PREFLOP = "preflop"
    FLOP = "flop"
    TURN = "turn"
    RIVER = "river"
    PREDRAW = "predraw"
    DRAW = "draw"
    POSTDRAW = "postdraw"
    SHOWDOWN = "showdown"
    COMPLETE = "complete"


def _fraction(value: object, name: str) -> Fraction:
    try:
        return Fraction(str(value))
    except (ValueError, ZeroDivisionError) as exc:
        raise HandSetupError(f"R-1: {name} must be a number, got {value!r}") from exc


@dataclass(frozen=True, slots=True)
class RakeSettings:
    """The house rake (R-1..R-3).

    ``percent`` of each hand's pots (after uncalled bets are returned, R-3), rounded
    down to the smallest chip, at most ``cap`` chips; ``caps`` maps a number of
    players dealt in to the cap for that many players (the entry with the largest key
    not above the number dealt in applies; ``cap`` when none does; ``None`` = no cap).
    ``no_flop_no_drop`` (R-2): no rake from a flop-game hand that ends before the
    flop. ``draw_counts_as_flop`` (R-2, draw): when true, a draw hand that ends before
    the draw is not raked; when false no-flop-no-drop does not apply to draw.

    Raises:
        HandSetupError: percent outside 0..100 or a negative cap.
    """

    percent: Fraction | float | int | str = 0
    cap: int | None = None
    caps: tuple[tuple[int, int], ...] = ()
    no_flop_no_drop: bool = True
    draw_counts_as_flop: bool = True

    def __post_init__(self) -> None:
        pct = _fraction(self.percent, "rake percent")
        if not 0 <= pct <= 100:
            raise HandSetupError(f"R-1: rake percent must be 0..100, got {self.percent}")
        object.__setattr__(self, "percent", pct)
        caps = tuple(sorted((int(k), int(v)) for k, v in dict(self.caps).items()))
        object.__setattr__(self, "caps", caps)
        for _, v in caps + ((0, self.cap or 0),):
            if v < 0:
                raise HandSetupError(f"R-1: rake cap must be >= 0, got {v}")

    def cap_for(self, players_dealt: int) -> int | None:
        """Return the rake cap in chips for a hand dealt to ``players_dealt`` players (R-1)."""
        best = self.cap
        for k, v in self.caps:
            if k <= players_dealt:
                best = v
        return best


@dataclass(frozen=True, slots=True)
class HandSettings:
    """How one hand is played; the table's configuration for a hand.

    ``small_blind``/``big_blind``/``ante`` in chips (S-1; ``ante`` per player dealt in).
    Each ante is part of its poster's contribution to the pots, layered like any other
    chips (P-1, S-8): a player all-in inside the ante wins from each opponent only as much
    as they put in, and the part of an ante no opponent covers goes back uncalled (S-9).
    ``dead_antes=True`` instead puts every ante into the main pot as dead money counting
    toward no one's share: a big-blind ante posted for the whole table (PHH
    ``ante_trimming_status = false``, the PHH default). Fixed limit needs ``small_bet``
    (pre-flop and flop, or before the draw) and ``big_bet`` (default twice the small bet,
    S-6). ``cap_bets`` is the most bets per round (bet + 3 raises = 4, S-6); ``cap_lifted_heads_up`` lifts it while
    only two players are in the hand (S-6, default on; a round already capped with
    more players stays capped). ``smallest_chip`` (S-10, P-3): bets are whole
    multiples of it (except all-ins) and splits are made to it. ``rake`` is ``None``
    for an unraked game. ``burns``: whether the dealer burns before board cards and
    the draw (G-1, G-4); the burn card itself is optional information.
    ``pl_small_blind_as_big`` (pot limit, Robert's Rules PL rule 5, a house option; default
    off): pre-flop a small blind smaller than the big blind counts as a full big blind
    when the pot is measured (S-5), e.g. 5/10: maximum open 40 instead of 35.
    ``max_players`` overrides the game's player limit (G-1..G-3: 10, draw 5), e.g. for
    a house that deals six-handed draw, where the deck can run out (G-4).
    ``big_blind_first`` (TDA RP-11, tournaments' big-blind ante): each player's live post
    (the big blind) is taken from the stack before that player's ante, so a big blind too
    short for both posts the blind first and the ante from what is left (possibly
    nothing); the default posts the ante first (PHH, PokerKit, cash antes).

    Raises:
        HandSetupError: a missing or non-positive stake (message names the field).
    """

    game: Game = Game.HOLDEM
    limit: Limit = Limit.NO_LIMIT
    small_blind: int = 1
    big_blind: int = 2
    ante: int = 0
    small_bet: int | None = None
    big_bet: int | None = None
    cap_bets: int = 4
    cap_lifted_heads_up: bool = True
    smallest_chip: int = 1
    rake: RakeSettings | None = None
    burns: bool = True
    max_players: int | None = None
    pl_small_blind_as_big: bool = False
    dead_antes: bool = False
    big_blind_first: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "game", Game(self.game))
        object.__setattr__(self, "limit", Limit(self.limit))
        for name in ("small_blind", "big_blind", "ante", "smallest_chip", "cap_bets"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < 0:
                raise HandSetupError(f"S-1: {name} must be a whole number of chips >= 0, got {v!r}")
        if self.big_blind <= 0 or self.smallest_chip <= 0:
            raise HandSetupError("S-1: big_blind and smallest_chip must be > 0")
        if self.limit is Limit.FIXED_LIMIT:
            sb = self.small_bet if self.small_bet is not None else self.big_blind
            bb = self.big_bet if self.big_bet is not None else 2 * sb
            if sb <= 0 or bb <= 0:
                raise HandSetupError(f"S-6: small_bet and big_bet must be > 0, got {sb}, {bb}")
            object.__setattr__(self, "small_bet", sb)
            object.__setattr__(self, "big_bet", bb)
        if self.max_players is not None and not 2 <= self.max_players <= 10:
            raise HandSetupError(f"G-3: max_players must be 2..10, got {self.max_players}")
        if self.cap_bets < 1:
            raise HandSetupError(f"S-6: cap_bets must be >= 1, got {self.cap_bets}")

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-able dict of these settings (``from_json`` reads it back)."""
        d: dict[str, Any] = {
            "game": self.game.value,
            "limit": self.limit.value,
            "small_blind": self.small_blind,
            "big_blind": self.big_blind,
            "ante": self.ante,
            "small_bet": self.small_bet,
            "big_bet": self.big_bet,
            "cap_bets": self.cap_bets,
            "cap_lifted_heads_up": self.cap_lifted_heads_up,
            "smallest_chip": self.smallest_chip,
            "burns": self.burns,
            "max_players": self.max_players,
            "pl_small_blind_as_big": self.pl_small_blind_as_big,
            "dead_antes": self.dead_antes,
            "big_blind_first": self.big_blind_first,
            "rake": None,
        }
        if self.rake is not None:
            r = self.rake
            d["rake"] = {
                "percent": str(r.percent),
                "cap": r.cap,
                "caps": [list(x) for x in r.caps],
                "no_flop_no_drop": r.no_flop_no_drop,
                "draw_counts_as_flop": r.draw_counts_as_flop,
            }
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "HandSettings":
        """Return settings from a :meth:`to_json` dict.

        Raises:
            HandSetupError: bad values (see the class).
        """
        d = dict(d)
        rake = d.pop("rake", None)
        if rake is not None:
            rake = RakeSettings(
                percent=rake.get("percent", 0),
                cap=rake.get("cap"),
                caps=tuple(tuple(x) for x in rake.get("caps", ())),
                no_flop_no_drop=rake.get("no_flop_no_drop", True),
                draw_counts_as_flop=rake.get("draw_counts_as_flop", True),
            )
        return cls(rake=rake, **d)


@dataclass(frozen=True, slots=True)
class PlayerSetup:
    """One player dealt into a hand, as the table decided (S-1, T-4, T-6).

    ``seat`` 1..N; ``stack`` chips before any post. ``live_post``: chips posted as a
    live bet before the deal (the small blind, the big blind, or a new or returning
    player's big blind out of position); it counts as the player's bet in the first
    round. ``dead_post``: chips posted dead into the pot (a missed small blind, T-6),
    not counted as a bet. ``ante``: this player's ante, ``None`` for the table's
    ``HandSettings.ante`` (PHH files give per-seat antes, e.g. big-blind antes).
    Posts larger than the stack are posted all-in for what the player has.
    """

    seat: int
    stack: int
    live_post: int = 0
    dead_post: int = 0
    ante: int | None = None

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-able dict (``seat``, ``stack``, ``live_post``, ``dead_post``, ``ante``)."""
        return {"seat": self.seat, "stack": self.stack, "live_post": self.live_post,
                "dead_post": self.dead_post, "ante": self.ante}


