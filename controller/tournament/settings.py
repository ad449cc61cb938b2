"""A tournament's settings: stack, levels and breaks, colour-ups, entries, payouts (issue 19).

Everything is an integer: chips for stacks, blinds and antes; the room's money unit for
prices, fees and prizes; minutes for levels and breaks. Settings are frozen and validated
when built; :func:`load_settings` reads them from a TOML table and reports every problem of
the file at once (:class:`~controller.tournament.errors.SettingsError`).

The TOML shape (the table is ``[tournament]``; every key is documented in docs/tournament.md)::

    [tournament]
    starting_stack = 20000
    chips = [25, 100, 500, 1000, 5000]     # denominations in play at the start
    seats_per_table = 9
    late_registration_until_level = 1      # entries accepted until level 1 ends
    late_registration_free_seats = 9       # seats kept free for them (no table breaks below it)
    entry = { price = 50, fee = 5 }        # price to the prize pool, fee to the house
    reentry = { max = 1 }                  # re-entries per player (0: a freezeout)
    rebuy = { price = 50, fee = 0, chips = 20000, max = 2, until_level = 1, max_stack = 20000 }
    addon = { price = 50, fee = 0, chips = 30000, max = 1, at_break = 1 }

    [[tournament.levels]]
    small_blind = 100
    big_blind = 200
    ante = 0                               # ante per player dealt in, or
    big_blind_ante = 0                     # one ante posted by the big blind (TDA RP-11)
    minutes = 20

    [[tournament.levels]]
    break = 10                             # a 10-minute break ...
    colour_up = [25]                       # ... at which the 25 chips are raced off

    [[tournament.levels]]
    small_blind = 200
    big_blind = 400
    big_blind_ante = 400
    minutes = 20

    [tournament.payouts]
    unit = 1                               # prizes are multiples of this
    [[tournament.payouts.brackets]]
    min_entries = 2
    percent = [65, 35]
    [[tournament.payouts.brackets]]
    min_entries = 10
    percent = [50, 30, 20]
    # or: fixed = [500, 300, 200]
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from typing import Any, Mapping

from .errors import SettingsError

__all__ = [
    "Level",
    "Break",
    "Purchase",
    "Payouts",
    "TournamentSettings",
    "load_settings",
    "settings_from_mapping",
]


@dataclass(frozen=True, slots=True)
class Level:
    """One blind level: ``small_blind``/``big_blind`` chips, an ante, ``minutes`` long.

    ``ante`` is posted by every player dealt in; ``big_blind_ante`` is one ante posted by
    the big blind for the table (TDA RP-11, big-blind-first when short; the table's
    ``big_blind_ante`` setting, docs/tournament.md). At most one of them is non-zero. ``number`` is the
    level's number as players see it (1, 2, ...; breaks have none).
    """

    number: int
    small_blind: int
    big_blind: int
    minutes: int
    ante: int = 0
    big_blind_ante: int = 0

    @property
    def seconds(self) -> int:
        """Return the level's length in seconds."""
        return self.minutes * 60

    @property
    def is_break(self) -> bool:
        """Return False: a level is not a break."""
        return False


@dataclass(frozen=True, slots=True)
class Break:
    """A break of ``minutes`` after level ``after_level``; ``colour_up`` lists the
    denominations raced off during it (chip race, :func:`controller.tournament.chiprace.chip_race`)."""

    after_level: int
    minutes: int
    colour_up: tuple[int, ...] = ()

    @property
    def seconds(self) -> int:
        """Return the break's length in seconds."""
        return self.minutes * 60

    @property
    def is_break(self) -> bool:
        """Return True."""
        return True


@dataclass(frozen=True, slots=True)
class Purchase:
    """A rebuy or add-on: ``price`` (money, to the prize pool) + ``fee`` (money, to the
    house) buys ``chips``. ``max`` purchases per player (0 = none offered).

    Rebuy: allowed until the end of level ``until_level`` while the player's stack is at
    most ``max_stack`` chips. Add-on: offered once, at the break after level ``at_break``.
    """

    price: int = 0
    fee: int = 0
    chips: int = 0
    max: int = 0
    until_level: int = 0
    max_stack: int = 0
    at_break: int = 0


@dataclass(frozen=True, slots=True)
class Payouts:
    """The payout table: ``brackets`` of ``(min_entries, percents)`` (percent of the prize
    pool for 1st, 2nd, ...; each bracket sums to 100; the bracket with the largest
    ``min_entries`` not above the number of entries applies) or ``fixed`` prizes (money,
    1st first; the prize pool is then their sum). Prizes are multiples of ``unit``.
    """

    unit: int = 1
    brackets: tuple[tuple[int, tuple[int, ...]], ...] = ()
    fixed: tuple[int, ...] = ()

    def percents_for(self, entries: int) -> tuple[int, ...]:
        """Return the percents that apply to ``entries`` entries (``()`` when none does)."""
        best: tuple[int, ...] = ()
        for min_entries, percents in self.brackets:
            if min_entries <= entries:
                best = percents
        return best

    def places_paid(self, entries: int) -> int:
        """Return how many places are paid with ``entries`` entries (never more than entries)."""
        n = len(self.fixed) if self.fixed else len(self.percents_for(entries))
        return min(n, entries)


@dataclass(frozen=True, slots=True)
class TournamentSettings:
    """A tournament's settings (issue 19); build with :func:`load_settings` or directly.

    ``schedule`` is the levels and breaks in the order they are played; ``chips`` the
    denominations in play at the start (smallest first). ``late_registration_until_level``:
    entries and re-entries are accepted until that level ends (0: only before the start).
    ``late_registration_free_seats``: while late registration is open, no table is broken
    if the tables left would have fewer free seats than this (seats; ``None``: one table's,
    ``seats_per_table``; 0: break as soon as the players fit, TDA 10);
    :attr:`late_free_seats` gives the number in force.
    ``entry`` is the buy-in (price to the pool, fee to the house); ``reentries`` is how many
    times a busted player may buy a new entry.

    Raises:
        SettingsError: every problem found, each message naming its field.
    """

    starting_stack: int
    schedule: tuple[Level | Break, ...]
    entry: Purchase
    payouts: Payouts
    chips: tuple[int, ...] = (1,)
    seats_per_table: int = 9
    late_registration_until_level: int = 0
    reentries: int = 0
    late_registration_free_seats: int | None = None
    rebuy: Purchase = field(default_factory=Purchase)
    addon: Purchase = field(default_factory=Purchase)

    def __post_init__(self) -> None:
        problems = _validate(self)
        if problems:
            raise SettingsError(problems)

    @property
    def late_free_seats(self) -> int:
        """Return the seats kept free for late entries while late registration is open
        (TDA 9, 10): ``late_registration_free_seats``, or one table's seats when not set."""
        if self.late_registration_free_seats is None:
            return self.seats_per_table
        return self.late_registration_free_seats

    @property
    def levels(self) -> tuple[Level, ...]:
        """Return the levels only, in order (breaks left out)."""
        return tuple(x for x in self.schedule if isinstance(x, Level))

    def level(self, number: int) -> Level:
        """Return level ``number`` (1-based); the last level for any later number.

        Raises:
            ValueError: ``number`` < 1.
        """
        if number < 1:
            raise ValueError(f"level number must be >= 1, got {number}")
        levels = self.levels
        return levels[min(number, len(levels)) - 1]

    def chips_in_play_at(self, index: int) -> tuple[int, ...]:
        """Return the denominations still in play once ``schedule[index]`` starts
        (colour-ups at breaks before ``index`` removed)."""
        removed: set[int] = set()
        for item in self.schedule[:index]:
            if isinstance(item, Break):
                removed.update(item.colour_up)
        return tuple(c for c in self.chips if c not in removed)


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


#: upper bounds of a sane tournament (a config beyond them is a typo): chips (stacks, blinds,
#: denominations, purchases), money (prices, fees, prizes), minutes (a level or a break: a day),
#: counts (purchases per player, re-entries, entries of a payout bracket)
MAX_CHIPS = 10**9
MAX_MONEY = 10**12
MAX_MINUTES = 1440
MAX_COUNT = 10**6


def _validate(s: TournamentSettings) -> list[str]:
    p: list[str] = []

    def whole(path: str, v: object, minimum: int = 0, maximum: int = MAX_COUNT) -> bool:
        if not _is_int(v):
            p.append(f"{path}: must be a whole number, got {v!r}")
            return False
        if v < minimum:  # type: ignore[operator]
            p.append(f"{path}: must be >= {minimum}, got {v}")
            return False
        if v > maximum:  # type: ignore[operator]
            p.append(f"{path}: must be <= {maximum}, got {v}")
            return False
        return True

    whole("starting_stack", s.starting_stack, 1, MAX_CHIPS)
    whole("seats_per_table", s.seats_per_table, 2)
    if _is_int(s.seats_per_table) and s.seats_per_table > 10:
        p.append(f"seats_per_table: must be 2..10 (G-1), got {s.seats_per_table}")
    whole("late_registration_until_level", s.late_registration_until_level)
    free = s.late_registration_free_seats
    if free is not None and (not _is_int(free) or not 0 <= free <= MAX_COUNT):
        p.append(f"late_registration_free_seats: the seats kept free for late entries (no table breaks below "
                 f"them while late registration is open), a whole number 0..{MAX_COUNT}, got {free!r}")
    whole("reentry.max", s.reentries)
    chips_ok = bool(s.chips) and all(_is_int(c) and 0 < c <= MAX_CHIPS for c in s.chips)
    if not chips_ok:
        p.append(f"chips: must be whole denominations 1..{MAX_CHIPS}, got {list(s.chips)!r}")
    elif list(s.chips) != sorted(set(s.chips)):
        p.append(f"chips: must be distinct and smallest first, got {list(s.chips)}")
        chips_ok = False
    if chips_ok and _is_int(s.starting_stack) and s.starting_stack % s.chips[0]:
        p.append(f"starting_stack: must be a multiple of the smallest chip {s.chips[0]}, got {s.starting_stack}")

    levels = [x for x in s.schedule if isinstance(x, Level)]
    if not levels:
        p.append("levels: at least one level is needed")
    seen_level = False
    for i, item in enumerate(s.schedule):
        path = f"levels[{i}]"
        if isinstance(item, Break):
            whole(f"{path}.break", item.minutes, 1, MAX_MINUTES)
            if not seen_level:
                p.append(f"{path}: a break cannot come before the first level")
            in_play = s.chips_in_play_at(i) if chips_ok else ()
            for c in item.colour_up:
                if chips_ok and c not in in_play:
                    p.append(f"{path}.colour_up: {c} is not a denomination in play then {list(in_play)}")
            if list(item.colour_up) != sorted(set(item.colour_up)):
                p.append(f"{path}.colour_up: must be distinct and smallest first, got {list(item.colour_up)}")
            elif chips_ok and set(item.colour_up) <= set(in_play) and \
                    list(item.colour_up) != list(in_play[:len(item.colour_up)]):
                p.append(f"{path}.colour_up: a colour-up races off the smallest chips in play "
                         f"{list(in_play)}, got {list(item.colour_up)}")
            if chips_ok and in_play and len(set(item.colour_up) & set(in_play)) == len(in_play):
                p.append(f"{path}.colour_up: cannot race off every denomination in play")
            continue
        if not isinstance(item, Level):
            p.append(f"{path}: not a level or a break: {item!r}")
            continue
        seen_level = True
        fields_ok = all(
            whole(f"{path}.{name}", getattr(item, name), 0, MAX_CHIPS)
            for name in ("small_blind", "big_blind", "ante", "big_blind_ante")
        )
        whole(f"{path}.minutes", item.minutes, 1, MAX_MINUTES)
        if not fields_ok:
            continue
        if item.big_blind <= 0:
            p.append(f"{path}.big_blind: must be > 0, got {item.big_blind}")
        if item.small_blind > item.big_blind:
            p.append(f"{path}.small_blind: must not exceed the big blind {item.big_blind}, got {item.small_blind}")
        if item.ante and item.big_blind_ante:
            p.append(f"{path}: give an ante or a big_blind_ante, not both")
        if chips_ok:
            smallest = s.chips_in_play_at(i)[0] if s.chips_in_play_at(i) else s.chips[0]
            for name in ("small_blind", "big_blind", "ante", "big_blind_ante"):
                v = getattr(item, name)
                if v % smallest:
                    p.append(f"{path}.{name}: {v} is not a multiple of the smallest chip in play ({smallest})")
    numbers = [lv.number for lv in levels]
    if numbers != list(range(1, len(levels) + 1)):
        p.append(f"levels: numbered 1.. in order, got {numbers}")

    _validate_purchase(p, "entry", s.entry, whole)
    _validate_purchase(p, "rebuy", s.rebuy, whole)
    _validate_purchase(p, "addon", s.addon, whole)
    if s.rebuy.max and _is_int(s.rebuy.chips) and s.rebuy.chips <= 0:
        p.append("rebuy.chips: must be > 0 when rebuys are offered")
    if s.addon.max and _is_int(s.addon.chips) and s.addon.chips <= 0:
        p.append("addon.chips: must be > 0 when an add-on is offered")
    if s.addon.max and _is_int(s.addon.at_break):
        breaks_after = {b.after_level for b in s.schedule if isinstance(b, Break)}
        if s.addon.at_break not in breaks_after:
            p.append(f"addon.at_break: there is no break after level {s.addon.at_break}")
    if _is_int(s.late_registration_until_level) and s.late_registration_until_level >= max(1, len(levels)):
        p.append(f"late_registration_until_level: only {len(levels)} levels, the last never ends (registration "
                 f"must close): at most {len(levels) - 1}, got {s.late_registration_until_level}")
    if chips_ok:
        _validate_purchase_chips(p, s, len(levels))
    if s.rebuy.max and _is_int(s.rebuy.until_level) and not 1 <= s.rebuy.until_level <= len(levels):
        p.append(f"rebuy.until_level: must be a level 1..{len(levels)}, got {s.rebuy.until_level}")

    pay = s.payouts
    whole("payouts.unit", pay.unit, 1, MAX_MONEY)
    if bool(pay.brackets) == bool(pay.fixed):
        p.append("payouts: give either brackets of percents or fixed prizes")
    last_min = 0
    for j, (min_entries, percents) in enumerate(pay.brackets):
        path = f"payouts.brackets[{j}]"
        if whole(f"{path}.min_entries", min_entries, 1):
            if min_entries <= last_min:
                p.append(f"{path}.min_entries: must grow from bracket to bracket, got {min_entries} after {last_min}")
            last_min = min_entries
        if not percents or not all(_is_int(x) and x > 0 for x in percents):
            p.append(f"{path}.percent: must be whole percents > 0, got {list(percents)!r}")
        elif sum(percents) != 100:
            p.append(f"{path}.percent: must sum to 100, got {sum(percents)}")
        elif list(percents) != sorted(percents, reverse=True):
            p.append(f"{path}.percent: a place must not pay more than a better one, got {list(percents)}")
        if _is_int(min_entries) and min_entries > 0 and len(percents) > min_entries:
            p.append(f"{path}: pays {len(percents)} places with only {min_entries} "
                     f"{'entry' if min_entries == 1 else 'entries'}")
    for j, prize in enumerate(pay.fixed):
        if whole(f"payouts.fixed[{j}]", prize, 1, MAX_MONEY) and _is_int(pay.unit) and pay.unit > 0 \
                and prize % pay.unit:
            p.append(f"payouts.fixed[{j}]: {prize} is not a multiple of the unit {pay.unit}")
    if pay.fixed and list(pay.fixed) != sorted(pay.fixed, reverse=True):
        p.append(f"payouts.fixed: a place must not pay more than a better one, got {list(pay.fixed)}")
    return p


def _validate_purchase(p: list[str], name: str, pur: Purchase, whole) -> None:
    for f in ("price", "fee"):
        whole(f"{name}.{f}", getattr(pur, f), 0, MAX_MONEY)
    for f in ("chips", "max_stack"):
        whole(f"{name}.{f}", getattr(pur, f), 0, MAX_CHIPS)
    for f in ("max", "until_level", "at_break"):
        whole(f"{name}.{f}", getattr(pur, f), 0)


def _validate_purchase_chips(p: list[str], s: TournamentSettings, levels: int) -> None:
    """Rebuy and add-on chips the table can give: a multiple of the smallest chip in play
    all the time they are sold (the smallest grows at each colour-up)."""
    for name, pur in (("rebuy", s.rebuy), ("addon", s.addon)):
        if not pur.max or not _is_int(pur.chips) or pur.chips <= 0:
            continue
        if name == "rebuy":  # sold from the start until level until_level ends
            last = next((i for i, x in enumerate(s.schedule) if isinstance(x, Level)
                         and x.number == min(pur.until_level, levels)), 0) if _is_int(pur.until_level) else 0
        else:  # sold at the break after level at_break, once its colour-up is raced
            last = next((i + 1 for i, x in enumerate(s.schedule) if isinstance(x, Break)
                         and x.after_level == pur.at_break), 0)
        smallest = {c[0] for c in (s.chips_in_play_at(i) for i in range(last + 1)) if c}
        bad = sorted(c for c in smallest if pur.chips % c)
        if bad:
            p.append(f"{name}.chips: {pur.chips} is not a multiple of the smallest chip in play ({bad[-1]})")


# -- TOML -------------------------------------------------------------------------------

_LEVEL_KEYS = {"small_blind", "big_blind", "ante", "big_blind_ante", "minutes"}
_BREAK_KEYS = {"break", "colour_up"}
_PURCHASE_KEYS = {"price", "fee", "chips", "max", "until_level", "max_stack", "at_break"}
_TOP_KEYS = {
    "starting_stack", "chips", "seats_per_table", "late_registration_until_level", "late_registration_free_seats",
    "entry",
    "reentry", "rebuy", "addon", "levels", "payouts", "name",
}


def load_settings(text: str) -> TournamentSettings:
    """Read a tournament's settings from TOML text (its ``[tournament]`` table).

    Raises:
        SettingsError: the TOML does not parse (one problem with tomllib's line and
            column), or every problem of the table: unknown keys, missing keys, wrong
            types, values out of range, each naming its field path.
    """
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError([f"TOML: {exc}"]) from exc
    table = doc.get("tournament")
    if not isinstance(table, dict):
        raise SettingsError(["tournament: the file needs a [tournament] table"])
    return settings_from_mapping(table)


def settings_from_mapping(t: Mapping[str, Any]) -> TournamentSettings:
    """Build settings from a mapping shaped like the TOML ``[tournament]`` table.

    Raises:
        SettingsError: every problem found (see :func:`load_settings`).
    """
    p: list[str] = []
    for k in sorted(set(t) - _TOP_KEYS):
        p.append(f"{k}: unknown key (known: {', '.join(sorted(_TOP_KEYS))})")
    for k in ("starting_stack", "levels", "entry", "payouts"):
        if k not in t:
            p.append(f"{k}: missing")

    def purchase(name: str) -> Purchase:
        raw = t.get(name, {})
        if not isinstance(raw, dict):
            p.append(f"{name}: must be a table, got {raw!r}")
            return Purchase()
        for k in sorted(set(raw) - _PURCHASE_KEYS):
            p.append(f"{name}.{k}: unknown key")
        return Purchase(**{k: v for k, v in raw.items() if k in _PURCHASE_KEYS})

    schedule: list[Level | Break] = []
    raw_levels = t.get("levels", [])
    if not isinstance(raw_levels, list):
        p.append("levels: must be an array of tables ([[tournament.levels]])")
        raw_levels = []
    number = 0
    for i, raw in enumerate(raw_levels):
        path = f"levels[{i}]"
        if not isinstance(raw, dict):
            p.append(f"{path}: must be a table")
            continue
        if "break" in raw:
            for k in sorted(set(raw) - _BREAK_KEYS):
                p.append(f"{path}.{k}: unknown key for a break")
            cu = raw.get("colour_up", [])
            if not isinstance(cu, list) or not all(_is_int(c) for c in cu):
                p.append(f"{path}.colour_up: must be a list of denominations, got {cu!r}")
                cu = []
            schedule.append(Break(after_level=number, minutes=raw["break"], colour_up=tuple(cu)))
            continue
        for k in sorted(set(raw) - _LEVEL_KEYS):
            p.append(f"{path}.{k}: unknown key for a level")
        for k in ("small_blind", "big_blind", "minutes"):
            if k not in raw:
                p.append(f"{path}.{k}: missing")
        number += 1
        schedule.append(
            Level(
                number=number,
                small_blind=raw.get("small_blind", 0),
                big_blind=raw.get("big_blind", 1),
                minutes=raw.get("minutes", 1),
                ante=raw.get("ante", 0),
                big_blind_ante=raw.get("big_blind_ante", 0),
            )
        )

    raw_pay = t.get("payouts", {})
    if not isinstance(raw_pay, dict):
        p.append("payouts: must be a table")
        raw_pay = {}
    for k in sorted(set(raw_pay) - {"unit", "brackets", "fixed"}):
        p.append(f"payouts.{k}: unknown key")
    brackets = []
    for j, b in enumerate(raw_pay.get("brackets", []) or []):
        if not isinstance(b, dict):
            p.append(f"payouts.brackets[{j}]: must be a table")
            continue
        for k in sorted(set(b) - {"min_entries", "percent"}):
            p.append(f"payouts.brackets[{j}].{k}: unknown key")
        pc = b.get("percent", [])
        brackets.append((b.get("min_entries", 0), tuple(pc) if isinstance(pc, list) else (pc,)))
    fixed = raw_pay.get("fixed", [])
    payouts = Payouts(
        unit=raw_pay.get("unit", 1),
        brackets=tuple(brackets),
        fixed=tuple(fixed) if isinstance(fixed, list) else (fixed,),
    )
    reentry = t.get("reentry", {})
    if not isinstance(reentry, dict) or set(reentry) - {"max"}:
        p.append(f"reentry: must be a table with only 'max', got {reentry!r}")
        reentry = {}
    chips = t.get("chips", [1])
    if not isinstance(chips, list):
        p.append(f"chips: must be a list of denominations, got {chips!r}")
        chips = [1]

    kwargs = dict(
        starting_stack=t.get("starting_stack", 1),
        schedule=tuple(schedule),
        entry=purchase("entry"),
        payouts=payouts,
        chips=tuple(chips),
        seats_per_table=t.get("seats_per_table", 9),
        late_registration_until_level=t.get("late_registration_until_level", 0),
        reentries=reentry.get("max", 0),
        late_registration_free_seats=t.get("late_registration_free_seats"),
        rebuy=purchase("rebuy"),
        addon=purchase("addon"),
    )
    missing = tuple(k for k in ("starting_stack", "levels", "entry", "payouts") if k not in t)
    try:
        settings = TournamentSettings(**kwargs)
    except SettingsError as exc:  # a missing key is said once (not again through its default)
        raise SettingsError(p + [x for x in exc.problems if not x.startswith(missing)] if missing
                            else p + exc.problems) from None
    if p:
        raise SettingsError(p)
    return settings
