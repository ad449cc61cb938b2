"""Table settings: the game, stakes, buy-in range, timer and rake of one table (L-2, T-2).

:class:`TableSettings` is a frozen value; the table session changes it only between hands
(a change asked for during a hand waits for the hand to end) and records every change.
Field names follow ``[table]`` and ``[rake]`` of ``config/table.example.toml`` so the
composition root maps its config 1:1 (``TableSettings(**fields)`` or ``from_json``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

__all__ = ["GAMES", "LIMITS", "MAX_SEATS", "HOLE_CARDS", "TABLET_JOIN", "LANGUAGES", "SettingsError", "TableSettings"]

GAMES = ("holdem", "omaha", "draw")
LIMITS = ("no-limit", "pot-limit", "fixed-limit")
#: L-2: the most seats per game (Hold'em and Omaha 2-10, draw 2-5).
MAX_SEATS = {"holdem": 10, "omaha": 10, "draw": 5}
#: G-1..G-3: hole cards per player.
HOLE_CARDS = {"holdem": 2, "omaha": 4, "draw": 5}
#: T-3 from the seat's tablet: ``off`` (only the floor seats players), ``direct`` (the
#: tablet seats its player and the buy-in is taken at once: simulation, trusted rooms) or
#: ``confirm`` (the tablet reserves the seat; the chips come to the table when the dealer
#: confirms they were handed over, ``BuyInConfirmed``).
TABLET_JOIN = ("off", "direct", "confirm")
#: the table's language for the words on its screens (issue 20): the tablets' default (a
#: player may choose their own) and the display's, unless its own config says otherwise
LANGUAGES = ("en", "nl")


class SettingsError(ValueError):
    """A table setting is out of range; the message starts with the rule id (L-2, T-2...)."""


def _whole(name: str, value: Any, lo: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < lo:
        raise SettingsError(f"L-2: {name} must be a whole number of chips >= {lo}, got {value!r}")


@dataclass(frozen=True, slots=True)
class TableSettings:
    """The settings of one table (L-2, T-2, A-2, R-1..R-3, S-6).

    Chips are integers; ``action_seconds`` is seconds, ``showdown_seconds`` the (shorter)
    clock of a player's show-or-muck turn at the showdown (P-2, A-2). ``buy_in_min``/``buy_in_max`` left
    ``None`` take the T-2 defaults: no/pot limit 20..100 big blinds; fixed limit at least ten
    big bets and no maximum (``buy_in_max`` stays ``None``). ``big_bet`` defaults to twice
    ``small_bet``, which defaults to the big blind. ``rake_caps`` is a sorted tuple of
    ``(players dealt in at least, cap in chips)``; the cap for a hand is the entry with the
    largest player count not above the number dealt in (no entry: no cap).
    ``smallest_chip`` (S-10, P-3): bets, buy-ins and splits are whole multiples of it; the
    blinds and ante must be multiples of it. ``tablet_join`` (one of :data:`TABLET_JOIN`)
    says whether a player may take a free seat and buy in from that seat's tablet (T-3).
    ``big_blind_ante`` (chips, TDA RP-11): one ante posted by the big blind for the table,
    blind first, dead money for the main pot; not together with ``ante``.
    ``tournament`` (issue 19, docs/tournament.md): a tournament table: everyone with chips is
    dealt in and blinded, also when absent (sitting out: the hand is killed at its first
    turn); nobody owes missed blinds or posts to come in, a new or moved player waits only
    when on the button or between it and the big blind; no cash-out (a player with chips
    cannot stand up); a player whose
    stack reaches 0 leaves the table when the hand ends and is listed in the hand's record
    (``busted``, with the stack the hand started with); chips come to a seat without the
    T-2 buy-in range (the tournament sets the starting stack and rebuys). The button and
    blinds move as at a cash table: the big blind moves forward one player, the small blind
    and the button may be dead (TDA dead button), heads-up the button posts the small blind
    and nobody posts the big blind twice in a row.
    ``language`` (one of :data:`LANGUAGES`): the words on the table's screens (issue 20); no
    rule depends on it.

    Raises:
        SettingsError: (a ``ValueError``) an unknown game or limit, a seat count outside
            L-2, non-positive blinds, a small blind above the big blind, a buy-in range that
            is empty, a rake percent outside 0..100, an unknown ``tablet_join``, or both an
            ante and a big-blind ante.
    """

    game: str = "holdem"
    limit: str = "no-limit"
    seats: int = 9
    small_blind: int = 50
    big_blind: int = 100
    ante: int = 0
    small_bet: int | None = None
    big_bet: int | None = None
    buy_in_min: int | None = None
    buy_in_max: int | None = None
    action_seconds: float = 30.0
    showdown_seconds: float = 10.0
    cap_lifted_heads_up: bool = True
    rake_percent: float = 0.0
    rake_caps: tuple[tuple[int, int], ...] = ()
    no_flop_no_drop: bool = True
    draw_counts_as_flop: bool = True
    smallest_chip: int = 1
    id: str = "t1"
    name: str = "Table 1"
    tablet_join: str = "off"
    big_blind_ante: int = 0
    tournament: bool = False
    language: str = "en"

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise SettingsError(f"L-2: game must be one of {GAMES}, got {self.game!r}")
        if self.limit not in LIMITS:
            raise SettingsError(f"L-2: limit must be one of {LIMITS}, got {self.limit!r}")
        if isinstance(self.seats, bool) or not isinstance(self.seats, int):
            raise SettingsError(f"L-2: seats must be a whole number, got {self.seats!r}")
        if not 2 <= self.seats <= MAX_SEATS[self.game]:
            raise SettingsError(f"L-2: {self.game} seats 2..{MAX_SEATS[self.game]}, got {self.seats}")
        _whole("big_blind", self.big_blind, 1)
        _whole("small_blind", self.small_blind, 1)
        _whole("ante", self.ante, 0)
        _whole("smallest_chip", self.smallest_chip, 1)
        _whole("big_blind_ante", self.big_blind_ante, 0)
        if self.ante and self.big_blind_ante:
            raise SettingsError("RP-11: an ante per player or a big-blind ante, not both")
        if not isinstance(self.tournament, bool):
            raise SettingsError(f"L-2: tournament must be true or false, got {self.tournament!r}")
        for name in ("small_blind", "big_blind", "ante", "big_blind_ante"):
            if getattr(self, name) % self.smallest_chip:
                raise SettingsError(f"S-10: {name} must be a multiple of the smallest chip {self.smallest_chip}")
        if self.small_blind > self.big_blind:
            raise SettingsError(f"S-1: small blind {self.small_blind} above big blind {self.big_blind}")
        if self.limit == "fixed-limit":
            if self.small_bet is None:
                object.__setattr__(self, "small_bet", self.big_blind)
            _whole("small_bet", self.small_bet, 1)
            if self.big_bet is None:
                object.__setattr__(self, "big_bet", 2 * self.small_bet)  # type: ignore[operator]
            _whole("big_bet", self.big_bet, 1)
        if self.buy_in_min is None:
            object.__setattr__(self, "buy_in_min", self._default_min())
        _whole("buy_in_min", self.buy_in_min, 1)
        if self.buy_in_max is None and self.limit != "fixed-limit":
            object.__setattr__(self, "buy_in_max", 100 * self.big_blind)
        if self.buy_in_max is not None:
            _whole("buy_in_max", self.buy_in_max, 1)
            if self.buy_in_max < self.buy_in_min:  # type: ignore[operator]
                raise SettingsError(f"T-2: buy_in_max {self.buy_in_max} below buy_in_min {self.buy_in_min}")
        if not isinstance(self.action_seconds, (int, float)) or not 1 <= self.action_seconds <= 3600:
            raise SettingsError(f"A-2: action_seconds must be 1..3600, got {self.action_seconds!r}")
        if (isinstance(self.showdown_seconds, bool) or not isinstance(self.showdown_seconds, (int, float))
                or not 1 <= self.showdown_seconds <= 3600):
            raise SettingsError(f"P-2: showdown_seconds must be 1..3600, got {self.showdown_seconds!r}")
        if not isinstance(self.rake_percent, (int, float)) or not 0 <= self.rake_percent <= 100:
            raise SettingsError(f"R-1: rake_percent must be 0..100, got {self.rake_percent!r}")
        caps = tuple(sorted((int(n), int(c)) for n, c in self.rake_caps))
        for n, c in caps:
            if not 2 <= n <= 10 or c < 0:
                raise SettingsError(f"R-1: rake cap ({n} players, {c} chips) out of range")
        object.__setattr__(self, "rake_caps", caps)
        if self.tablet_join not in TABLET_JOIN:
            raise SettingsError(f"T-3: tablet_join must be one of {TABLET_JOIN}, got {self.tablet_join!r}")
        if self.language not in LANGUAGES:
            raise SettingsError(f"L-2: language must be one of {LANGUAGES}, got {self.language!r}")

    def _default_min(self) -> int:
        if self.limit == "fixed-limit":
            return 10 * int(self.big_bet)  # type: ignore[arg-type]
        return 20 * self.big_blind

    @property
    def hole_cards(self) -> int:
        """Return how many hole cards each player gets (G-1..G-3)."""
        return HOLE_CARDS[self.game]

    def rake_cap(self, dealt_in: int) -> int | None:
        """Return the rake cap in chips for a hand with ``dealt_in`` players, or None (R-1)."""
        cap = None
        for n, c in self.rake_caps:
            if n <= dealt_in:
                cap = c
        return cap

    def changed(self, **changes: Any) -> "TableSettings":
        """Return a copy with ``changes``; buy-in defaults are recomputed when stakes change.

        A buy-in bound that was the T-2 default follows new stakes unless it is given.

        Raises:
            SettingsError: unknown field, or the result is out of range.
        """
        names = {f.name for f in fields(self)}
        for key in changes:
            if key not in names:
                raise SettingsError(f"L-2: unknown setting {key!r}")
        base: dict[str, Any] = {}
        fixed_now = self.limit == "fixed-limit"
        if "buy_in_min" not in changes and self.buy_in_min == self._default_min():
            base["buy_in_min"] = None
        if "buy_in_max" not in changes and self.buy_in_max == (None if fixed_now else 100 * self.big_blind):
            base["buy_in_max"] = None
        if changes.get("limit", self.limit) != "fixed-limit":
            base["small_bet"] = base["big_bet"] = None
        elif not fixed_now or (self.small_bet == self.big_blind and self.big_bet == 2 * self.big_blind):
            base["small_bet"] = base["big_bet"] = None
        if "rake_caps" in changes:
            caps = changes["rake_caps"]
            if isinstance(caps, dict):
                changes = {**changes, "rake_caps": tuple((int(k), int(v)) for k, v in caps.items())}
        return replace(self, **{**base, **changes})

    def to_json(self) -> dict[str, Any]:
        """Return the settings as a JSON-ready dict (``rake_caps`` as ``[[n, cap], ...]``)."""
        d = asdict(self)
        d["rake_caps"] = [list(x) for x in self.rake_caps]
        return d

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "TableSettings":
        """Return settings from :meth:`to_json` output (``rake_caps`` may also be a dict).

        Raises:
            SettingsError: unknown key or out-of-range value.
        """
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise SettingsError(f"L-2: unknown setting {unknown[0]!r}")
        d = dict(data)
        caps = d.get("rake_caps", ())
        if isinstance(caps, dict):
            caps = caps.items()
        d["rake_caps"] = tuple((int(n), int(c)) for n, c in caps)
        return cls(**d)
