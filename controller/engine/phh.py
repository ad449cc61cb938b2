"""Read and write Poker Hand History (PHH) files: the TOML format of PokerKit and the PHH dataset.

Supported variants: ``NT`` (no-limit hold'em), ``PO`` (pot-limit Omaha), ``FT``
(fixed-limit hold'em), plus this project's five card draw high extension ``N5CD``,
``P5CD``, ``F5CD`` (see ``docs/phh-draw.md``). Other variants (``FO/8``, ``N2L1D``,
``F2L3D``, stud...) are refused with :class:`~controller.engine.errors.NotSupported`
("G-5: variant not supported: FO/8") rather than played wrongly.

Seat order (PHH): ``p1`` is the first player dealt, left of the button: the small blind
with three or more players, the big blind heads-up (where ``blinds_or_straddles =
[sb, bb]`` and ``antes`` are reversed: ``p2`` is the button and posts the small blind).
``ante_trimming_status = true`` makes each ante its poster's contribution (P-1); without
it (PHH's default, and big-blind antes) antes are dead money. Amounts may be
decimals (Antonius-Blom): they are scaled to integer chips by the file's smallest
decimal unit (``HandHistory.scale``) and scaled back for output.
"""

from __future__ import annotations

import datetime
import os
import re
import stat
import tomllib
import unicodedata
import zoneinfo
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from .errors import HandError, NotSupported
from .hand import Hand
from .rake import rake_paid
from .settings import Game, HandSettings, Limit, PlayerSetup, RakeSettings

__all__ = ["PHHError", "actions", "HandHistory", "VARIANTS", "load", "load_file", "new_hand", "play",
           "finishing_stacks", "dump"]

#: PHH variant code -> (game, limit); the ``*5CD`` codes are this project's draw extension
VARIANTS: dict[str, tuple[Game, Limit]] = {
    "NT": (Game.HOLDEM, Limit.NO_LIMIT),
    "PT": (Game.HOLDEM, Limit.POT_LIMIT),
    "FT": (Game.HOLDEM, Limit.FIXED_LIMIT),
    "NO": (Game.OMAHA, Limit.NO_LIMIT),
    "PO": (Game.OMAHA, Limit.POT_LIMIT),
    "FO": (Game.OMAHA, Limit.FIXED_LIMIT),
    "N5CD": (Game.DRAW, Limit.NO_LIMIT),
    "P5CD": (Game.DRAW, Limit.POT_LIMIT),
    "F5CD": (Game.DRAW, Limit.FIXED_LIMIT),
}
_CODE = {v: k for k, v in VARIANTS.items()}

#: The largest amount a file may give (in its own units): far above any real stack
#: (the WSOP's are ~10^8), far below the nonsense of a 10^100 stack.
MAX_AMOUNT = 10**12
#: The most decimal places an amount may have (Antonius-Blom has 2; 1e-300 is nonsense).
MAX_PLACES = 6
#: The largest hand-history file read (a hand is a few kilobytes).
MAX_FILE_BYTES = 1 << 20


class PHHError(HandError):
    """A hand history that cannot be read or played: broken TOML, missing key, bad action.

    Messages start with ``"PHH: "`` for format problems; rule errors raised while
    playing keep their rule id (``"S-4: ..."``).
    """


@dataclass(slots=True)
class HandHistory:
    """One PHH hand, amounts already scaled to integer chips (``value * scale``).

    ``variant`` the PHH code; ``antes``, ``blinds`` (``blinds_or_straddles``) and
    ``starting_stacks`` per player p1..pN; ``min_bet`` (NL/PL), ``small_bet``/``big_bet``
    (FL); ``actions`` the action strings (comments stripped); ``finishing_stacks``
    (in the file's own units, not scaled: the Pluribus logs have half chips) or ``None``;
    ``scale`` the factor from file units to chips; ``extra`` every other key.
    """

    variant: str
    antes: list[int]
    blinds: list[int]
    starting_stacks: list[int]
    actions: list[str]
    min_bet: int | None = None
    small_bet: int | None = None
    big_bet: int | None = None
    finishing_stacks: list[int | float] | None = None
    dead_posts: list[int] | None = None
    scale: int = 1
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def players(self) -> int:
        """Return the number of players (p1..pN)."""
        return len(self.starting_stacks)

    def unscale(self, chips: int) -> int | float:
        """Return ``chips`` in the file's own units (an int when whole)."""
        if self.scale == 1:
            return chips
        d = Decimal(chips) / self.scale
        return int(d) if d == d.to_integral_value() else float(d)


def _decimals(v: Any) -> int:
    if isinstance(v, Decimal):
        exp = v.normalize().as_tuple().exponent
        return -exp if isinstance(exp, int) and exp < 0 else 0
    return 0


def _num(v: Any, key: str) -> Decimal:
    if isinstance(v, bool) or not isinstance(v, (int, Decimal)):
        raise PHHError(f"PHH: {key} must be a number, got {_short(v)}")
    d = Decimal(v)
    if not d.is_finite():
        raise PHHError(f"PHH: {key} must be a finite number, got {v}")
    if abs(d) > MAX_AMOUNT:
        raise PHHError(f"PHH: {key} {_short(v)} is not a real amount (at most {MAX_AMOUNT:,})")
    if _decimals(d) > MAX_PLACES:
        raise PHHError(f"PHH: {key} {_short(v)} has more than {MAX_PLACES} decimal places")
    return d


def _short(v: Any) -> str:
    text = repr(v) if not isinstance(v, Decimal) else str(v)
    return text if len(text) <= 40 else text[:30] + f"... ({len(text)} characters)"


def load(text: str) -> HandHistory:
    """Return the :class:`HandHistory` in PHH TOML ``text``.

    Amounts must be finite, at most :data:`MAX_AMOUNT` with at most :data:`MAX_PLACES`
    decimal places; stacks, antes, blinds and dead posts >= 0; ``min_bet``, ``small_bet``,
    ``big_bet`` and ``_smallest_chip`` > 0.

    Raises:
        PHHError: broken TOML, a missing or malformed key, an amount that is nonsense.
        NotSupported: a variant the engine does not play (G-5).
    """
    try:
        data = tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError as exc:
        raise PHHError(f"PHH: broken TOML: {exc}") from None
    except RecursionError:
        raise PHHError("PHH: broken TOML: arrays or tables nested too deeply") from None
    variant = data.get("variant")
    if not isinstance(variant, str):
        raise PHHError("PHH: missing key 'variant'")
    if variant not in VARIANTS:
        raise NotSupported(f"G-5: variant not supported: {variant}")
    for key in ("starting_stacks", "actions", "blinds_or_straddles"):
        if not isinstance(data.get(key), list):
            raise PHHError(f"PHH: missing or malformed key {key!r} (a list)")
    n = len(data["starting_stacks"])
    if not 2 <= n <= 10:
        raise PHHError(f"PHH: starting_stacks must list 2..10 players, got {n}")
    antes = data.get("antes", [0] * n)
    if isinstance(antes, (int, Decimal)) and not isinstance(antes, bool):
        antes = [antes] * n
    lists = {"antes": antes, "blinds_or_straddles": data["blinds_or_straddles"],
             "starting_stacks": data["starting_stacks"]}
    if "finishing_stacks" in data:
        lists["finishing_stacks"] = data["finishing_stacks"]
    if "dead_posts" in data:
        lists["dead_posts"] = data["dead_posts"]
    for k, v in lists.items():
        if not isinstance(v, list) or len(v) != n:
            raise PHHError(f"PHH: {k} must list {n} numbers, got {v!r}")
    nums: dict[str, list[Decimal]] = {k: [_num(x, k) for x in v] for k, v in lists.items()}
    singles: dict[str, Decimal] = {k: _num(data[k], k) for k in ("min_bet", "small_bet", "big_bet") if k in data}
    actions = []
    for a in data["actions"]:
        if not isinstance(a, str):
            raise PHHError(f"PHH: an action must be a string, got {a!r}")
        a = a.split("#", 1)[0].strip()
        if a:
            actions.append(a)
    amounts: list[Decimal] = []
    for a in actions:
        w = a.split()
        if len(w) == 3 and w[1] == "cbr":
            try:
                amounts.append(_num(Decimal(w[2]), f"the amount in action {a!r}"))
            except InvalidOperation:
                raise PHHError(f"PHH: bad amount in action {a!r}") from None
    places = max([_decimals(x) for k, v in nums.items() if k != "finishing_stacks" for x in v]
                 + [_decimals(x) for x in singles.values()] + [_decimals(x) for x in amounts] + [0])
    scale = 10 ** places

    def sc(x: Decimal) -> int:
        return int(x * scale)

    hh = HandHistory(
        variant=variant,
        antes=[sc(x) for x in nums["antes"]],
        blinds=[sc(x) for x in nums["blinds_or_straddles"]],
        starting_stacks=[sc(x) for x in nums["starting_stacks"]],
        actions=actions,
        min_bet=sc(singles["min_bet"]) if "min_bet" in singles else None,
        small_bet=sc(singles["small_bet"]) if "small_bet" in singles else None,
        big_bet=sc(singles["big_bet"]) if "big_bet" in singles else None,
        finishing_stacks=([_plain(x) for x in nums["finishing_stacks"]]
                          if "finishing_stacks" in nums else None),
        dead_posts=[sc(x) for x in nums["dead_posts"]] if "dead_posts" in nums else None,
        scale=scale,
        extra={k: v for k, v in data.items() if k not in (
            "variant", "antes", "blinds_or_straddles", "starting_stacks", "actions", "min_bet",
            "small_bet", "big_bet", "finishing_stacks", "dead_posts")},
    )
    if any(x < 0 for x in hh.antes + hh.blinds + hh.starting_stacks + (hh.dead_posts or [])):
        raise PHHError("PHH: stacks, antes, blinds and dead posts must be >= 0")
    for key in ("min_bet", "small_bet", "big_bet"):
        if getattr(hh, key) is not None and getattr(hh, key) <= 0:
            raise PHHError(f"PHH: {key} must be more than 0, got {_plain(singles[key])}")
    if "_smallest_chip" in hh.extra:
        chip = hh.extra["_smallest_chip"]
        if isinstance(chip, bool) or not isinstance(chip, (int, Decimal)) or not _num(chip, "_smallest_chip") > 0:
            raise PHHError(f"PHH: _smallest_chip must be a number more than 0, got {_short(chip)}")
    if VARIANTS[variant][1] is Limit.FIXED_LIMIT and (hh.small_bet is None or hh.big_bet is None):
        raise PHHError(f"PHH: fixed-limit variant {variant} needs small_bet and big_bet")
    _check_table_keys(hh, n, nums, singles, amounts)
    return hh


#: The most seats a table has (S-1; every game the engine plays seats at most 10).
MAX_SEATS = 10
#: Keys only a hand written by a livetable table has (controller/history.py): its amounts are
#: whole chips.
_TABLE_KEYS = ("_smallest_chip", "_rake", "_rake_paid", "_player_ids")


def _whole(v: Any, key: str, *, lo: int = 0, hi: int = MAX_AMOUNT, strict: bool = False,
           unit: str = "whole chips") -> int:
    """Return ``v`` as a whole number in ``lo..hi``, or raise :class:`PHHError` naming ``key``.

    ``strict``: a number written with a decimal point (``10000.0``) is refused too (a table
    writes whole numbers as integers); ``unit``: the words for what ``v`` counts ("whole
    chips", "a whole number")."""
    if isinstance(v, Decimal) and v.is_finite() and v == v.to_integral_value():
        # A TOML float (or an action's "221.0") keeps its written exponent; an integer has 0.
        if not strict or v.as_tuple().exponent == 0:
            v = int(v)
    if isinstance(v, bool) or not isinstance(v, int):
        raise PHHError(f"PHH: {key} must be {unit}, got {_short(v)}")
    if not lo <= v <= hi:
        raise PHHError(f"PHH: {key} must be {lo:,}..{hi:,}, got {_short(v)}")
    return v


#: Unicode categories a player's name in a table's hand may not hold (controller/config.py's
#: rule): control, format (U+202E's bidi override), surrogates, private use, line separators.
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})
_TABLE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
MAX_HAND_NO = 10**12  # hand numbers a table writes: 1.. (controller/history.py)


def _check_table_meta(ext: dict[str, Any], n: int, top: int) -> None:
    """Refuse nonsense in the descriptive keys of a table's own hand (issue 16 round 2):
    ``hand`` 1..10^12; ``table`` a table id (letters, digits, ``-``, ``_``; PHH from
    elsewhere may give a number); ``_button``, ``_small_blind_seat`` (0 = dead),
    ``_big_blind_seat`` seats 1..``top``; ``players`` ``n`` names with no control or format
    characters, ``_player_ids`` ``n`` different players (two players may share a name: the
    table seats by id, T-3; without ids the names must differ); ``_started``/``_ended``
    finite Unix seconds, the end not before
    the start; ``day``/``month``/``year`` a real date; ``_shown``, ``_mucked`` lists of
    different players ``p1``..``pN``."""
    if "hand" in ext:
        _whole(ext["hand"], "hand", lo=1, hi=MAX_HAND_NO, strict=True, unit="a whole number")
    if "table" in ext:
        t = ext["table"]
        if not isinstance(t, str) or not _TABLE_ID.fullmatch(t):
            raise PHHError(f"PHH: table must be the table's id (letters, digits, - or _), got {_short(t)}")
    for key, lo in (("_button", 1), ("_small_blind_seat", 0), ("_big_blind_seat", 1)):
        if ext.get(key) is not None:
            _whole(ext[key], key, lo=lo, hi=top, strict=True, unit="a seat number")
    if "players" in ext:
        names = ext["players"]
        if not isinstance(names, list) or len(names) != n or not all(isinstance(x, str) and x for x in names):
            raise PHHError(f"PHH: players must list {n} names, got {_short(names)}")
        for x in names:
            hidden = sorted({f"U+{ord(c):04X}" for c in x if unicodedata.category(c) in _HIDDEN})
            if hidden or len(x) > 64:
                raise PHHError(f"PHH: players: {x!r} holds control or format characters ({', '.join(hidden)})"
                               if hidden else f"PHH: players: a name is at most 64 characters, got {len(x)}")
    ids = ext.get("_player_ids")
    if ids is not None:
        if not isinstance(ids, list) or len(ids) != n or not all(isinstance(x, str) and len(x) <= 256 for x in ids):
            raise PHHError(f"PHH: _player_ids must list {n} ids, got {_short(ids)}")
        known = [x for x in ids if x]
        if len(set(known)) != len(known):
            raise PHHError(f"PHH: _player_ids must be different players, got {_short(ids)}")
    elif isinstance(ext.get("players"), list) and len(set(ext["players"])) != n:
        # A table seats players by id (T-3): two may share a name; without ids, nobody can tell.
        raise PHHError(f"PHH: players must be {n} different names (or have different _player_ids), "
                       f"got {_short(ext['players'])}")
    times = {}
    for key in ("_started", "_ended"):
        if ext.get(key) is not None:
            v = ext[key]
            if isinstance(v, bool) or not isinstance(v, (int, Decimal)) or not Decimal(v).is_finite() or v < 0:
                raise PHHError(f"PHH: {key} must be Unix seconds (a finite number >= 0), got {_short(v)}")
            times[key] = Decimal(v)
    if len(times) == 2 and times["_ended"] < times["_started"]:
        raise PHHError(f"PHH: _ended ({times['_ended']}) is before _started ({times['_started']})")
    date = {}
    for key, lo, hi in (("day", 1, 31), ("month", 1, 12), ("year", 1970, 9999)):
        if key in ext:
            date[key] = _whole(ext[key], key, lo=lo, hi=hi, strict=True, unit="a whole number")
    if len(date) == 3:
        try:
            datetime.date(date["year"], date["month"], date["day"])
        except ValueError as exc:
            raise PHHError(f"PHH: day/month/year is not a date: {exc}") from None
    for key in ("_shown", "_mucked"):
        if key in ext:
            who = ext[key]
            ok = isinstance(who, list) and all(isinstance(x, str) and re.fullmatch(r"p[1-9][0-9]?", x)
                                               and 1 <= int(x[1:]) <= n for x in who)
            if not ok or len(set(who)) != len(who):
                raise PHHError(f"PHH: {key} must list different players p1..p{n}, got {_short(who)}")
    both = sorted(set(ext.get("_shown") or []) & set(ext.get("_mucked") or []), key=lambda x: int(x[1:]))
    if both:  # P-2: a hand at the showdown is shown or mucked, never both
        raise PHHError(f"PHH: _mucked names {', '.join(both)}, whom _shown lists too (a hand is shown or "
                       "mucked, P-2)")
    if "_auto" in ext:
        _check_auto(ext["_auto"], n)
    if "time_zone" in ext:
        _check_time_zone(ext["time_zone"])


def _check_auto(auto: Any, n: int) -> None:
    """Refuse an ``_auto`` key (what the table did for a player, docs/history.md) that is not a
    list of ``[player, action, why]`` with the player one of ``p1``..``pN`` and the action and
    why (a rule id, or ``absent`` in a tournament) short words: ``["p3", "fold", "A-2"]``."""
    if not isinstance(auto, list):
        raise PHHError(f"PHH: _auto must list [player, action, rule] entries, got {_short(auto)}")
    for a in auto:
        if not (isinstance(a, list) and len(a) == 3 and all(isinstance(x, str) for x in a)):
            raise PHHError(f"PHH: _auto must list [player, action, rule] entries, got {_short(a)}")
        who, action, rule = a
        if not (re.fullmatch(r"p[1-9][0-9]?", who) and 1 <= int(who[1:]) <= n):
            raise PHHError(f"PHH: _auto names {_short(who)}, not one of the players p1..p{n}")
        if not all(re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}", x) for x in (action, rule)):
            raise PHHError(f"PHH: _auto entry {_short(a)} must give an action word and a rule id (A-2)")


def _check_time_zone(zone: Any) -> None:
    """Refuse a ``time_zone`` (PHH: the zone of ``time``) that is not a time zone of the IANA
    database (``"UTC"``, ``"Europe/Amsterdam"``): ``"Mars/Olympus"`` is refused with the key named."""
    if zone == "UTC":  # what a table writes (controller/history_phh.py): known without tzdata
        return
    try:
        ok = isinstance(zone, str) and bool(zone) and len(zone) <= 64 and zoneinfo.ZoneInfo(zone) is not None
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        ok = False
    if not ok:
        raise PHHError(f"PHH: time_zone must be a time zone of the IANA database (UTC, Europe/Amsterdam), "
                       f"got {_short(zone)}")


def _check_table_keys(hh: HandHistory, n: int, nums: dict[str, list[Decimal]], singles: dict[str, Decimal],
                      amounts: list[Decimal]) -> None:
    """Refuse nonsense in the keys a table reads (issue 16 d), each with its key named:

    - ``seats`` (PHH: each player's seat) lists ``n`` different seats 1..``seat_count``
      (at most :data:`MAX_SEATS`); ``seat_count`` is 2..:data:`MAX_SEATS`;
    - a table's hand (:data:`_TABLE_KEYS`) is in whole chips: every stack, blind, ante, bet
      and ``_smallest_chip`` (decimal amounts are for hand histories from elsewhere, which
      PHH writes in currency units: Antonius-Blom's);
    - ``_rake`` (rake taken) is whole chips within the pot: at most what the players brought
      (the starting stacks); ``_rake_paid`` lists ``n`` whole amounts adding up to ``_rake``;
      ``_rake_cap`` and ``_rake_caps`` amounts are whole chips, at most :data:`MAX_AMOUNT`.
    """
    ext = hh.extra
    table = is_table_hand(hh)  # a table writes whole numbers as integers: 10000.0 is refused
    count = ext.get("seat_count")
    if count is not None:
        count = _whole(count, "seat_count", lo=2, hi=MAX_SEATS, strict=table, unit="a whole number")
    if "seats" in ext:
        seats = ext["seats"]
        if not isinstance(seats, list) or len(seats) != n:
            raise PHHError(f"PHH: seats must list {n} seats (one per player), got "
                           f"{_short(seats) if not isinstance(seats, list) else f'{len(seats):,} entries'}")
        top = count or MAX_SEATS
        got = [_whole(x, "seats", lo=1, hi=top, strict=table, unit="seat numbers") for x in seats]
        if len(set(got)) != n:
            raise PHHError(f"PHH: seats must be {n} different seats, got {got}")
    if not table:
        return
    for key, values in nums.items():
        for x in values:
            _whole(x, key, strict=True)
    for key, x in singles.items():
        _whole(x, key, strict=True)
    for x in amounts:
        _whole(x, "an action's amount", strict=True)
    if "_smallest_chip" in ext:
        _whole(ext["_smallest_chip"], "_smallest_chip", lo=1, strict=True)
    brought = sum(hh.starting_stacks)
    if "_rake" in ext:
        rake = _whole(ext["_rake"], "_rake", hi=min(brought, MAX_AMOUNT), strict=True)
        paid = ext.get("_rake_paid")
        if paid is not None:
            if not isinstance(paid, list) or len(paid) != n:
                raise PHHError(f"PHH: _rake_paid must list {n} amounts, got {_short(paid)}")
            if sum(_whole(x, "_rake_paid", strict=True) for x in paid) != rake:
                raise PHHError(f"PHH: _rake_paid adds up to {sum(paid):,}, not the _rake {rake:,}")
    if ext.get("_rake_cap") is not None:
        _whole(ext["_rake_cap"], "_rake_cap", strict=True)
    caps = ext.get("_rake_caps")
    if caps is not None:
        if not isinstance(caps, list) or not all(isinstance(c, list) and len(c) == 2 for c in caps):
            raise PHHError(f"PHH: _rake_caps must list [players, cap] pairs, got {_short(caps)}")
        for players, cap in caps:
            _whole(players, "_rake_caps (players)", lo=1, hi=MAX_SEATS, strict=True, unit="a whole number")
            _whole(cap, "_rake_caps (cap)", strict=True)
    _check_table_meta(ext, n, count or MAX_SEATS)
    _check_blind_seats(hh)


def _check_blind_seats(hh: HandHistory) -> None:
    """Refuse a table's ``_small_blind_seat`` (0 = dead, T-1) or ``_big_blind_seat`` that is not
    the table seat (``seats``) of the player who posted that blind in the file (p1/p2,
    heads-up p2/p1, or ``small_blind_player``/``big_blind_player``): the key is named with
    both seats. Without ``seats`` nothing is compared."""
    ext, seats = hh.extra, hh.extra.get("seats")
    if not isinstance(seats, list):
        return
    _, _, where = _positions(hh)
    blinds = (("_small_blind_seat", where["sb_seat"], "small"), ("_big_blind_seat", where["bb_seat"], "big"))
    for key, who, blind in blinds:
        if ext.get(key) is None:
            continue
        posted = int(seats[who - 1]) if who else 0
        if int(ext[key]) != posted:
            by = f"seat {posted} (p{who}) posted the {blind} blind" if who else "the small blind is dead (T-1)"
            raise PHHError(f"PHH: {key} = {ext[key]} disagrees with the blinds posted: {by}")


def is_table_hand(hh: HandHistory) -> bool:
    """True for a hand a livetable table wrote (it has one of :data:`_TABLE_KEYS`): held to
    whole chips and checked against its replay (:func:`check_table_result`)."""
    return any(k in hh.extra for k in _TABLE_KEYS)


def check_table_result(hand: Hand, hh: HandHistory) -> None:
    """Check a table's finished (or voided) hand against what its file says (issue 16 round 2).

    The rake the replay takes (R-1..R-3, from the file's rake settings) must be the file's
    ``_rake`` (so stacks + rake = the chips brought in, as the table booked it), its
    ``_rake_paid`` the winners' shares of it (as the table's ledger books them), and the
    file's ``finishing_stacks`` must be the replay's. A hand from elsewhere is not checked
    (``livetable replay --check`` compares its finishing stacks).

    Raises:
        PHHError: naming ``_rake`` or ``finishing_stacks``, with both figures.
    """
    if not is_table_hand(hh):
        return
    voided = not hand.is_complete
    taken = 0 if voided else hand.result().rake
    if "_rake" in hh.extra and int(hh.extra["_rake"]) * hh.scale != taken:
        raise PHHError(f"PHH: _rake {hh.extra['_rake']} disagrees with the replay, which takes {hh.unscale(taken)} "
                       f"(stacks + rake must equal the {hh.unscale(sum(hh.starting_stacks))} chips brought in)")
    paid = hh.extra.get("_rake_paid")
    if isinstance(paid, list) and not voided:
        # Who paid it: the winners of each raked pot, as the table's ledger books it (one rule,
        # rake.rake_paid, which the history writer used for the file)
        by_seat = rake_paid({"result": hand.result().to_json()})
        want = [hh.unscale(by_seat.get(k + 1, 0)) for k in range(hh.players)]  # p1..pN = seats 1..N
        if list(paid) != want:
            raise PHHError(f"PHH: _rake_paid {paid} disagrees with the replay, whose pots' winners paid {want}")
    if hh.finishing_stacks is not None:
        got = [hh.unscale(x) for x in hh.starting_stacks] if voided else finishing_stacks(hand, hh)
        if list(hh.finishing_stacks) != got:
            raise PHHError(f"PHH: finishing_stacks {hh.finishing_stacks} disagree with the replay's {got}")


def _plain(x: Decimal) -> int | float:
    return int(x) if x == x.to_integral_value() else float(x)


def load_file(path: str | Path) -> HandHistory:
    """Return the :class:`HandHistory` in the PHH file at ``path``.

    Only a regular file is read (a FIFO, a device or a folder is refused at once, never
    waited on), at most :data:`MAX_FILE_BYTES`.

    Raises:
        PHHError: unreadable file (``OSError``, not a regular file, too large, not UTF-8) or
            bad content (see :func:`load`).
        NotSupported: an unsupported variant.
    """
    try:
        # O_NONBLOCK: a FIFO named *.phh opens at once (and is refused) instead of waiting
        # for a writer for ever.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise PHHError(f"PHH: cannot read {path}: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "not a regular file"
            raise PHHError(f"PHH: cannot read {path}: {kind}, not a hand-history file")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise PHHError(f"PHH: cannot read {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        raise PHHError(f"PHH: {path} is larger than {MAX_FILE_BYTES:,} bytes: not one hand")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PHHError(f"PHH: cannot read {path}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    return load(text)


def _positions(hh: HandHistory) -> tuple[list[int], list[int], dict[str, Any]]:
    """Return the blinds and antes posted by p1..pN and where the button and blinds sit
    (``{"button", "sb_seat", "bb_seat"}`` as player numbers, ``sb_seat`` ``None`` for a dead
    small blind, T-1) as the file says: p1/p2 post the blinds, heads-up p2 the button and the
    small blind, ``big_blind_player``/``small_blind_player`` (our extension) otherwise.

    Raises:
        NotSupported: straddles (S-1); PHHError: blind players that are no players.
    """
    n = hh.players
    blinds = list(hh.blinds)
    antes = list(hh.antes)
    ext = hh.extra
    if n == 2:
        blinds = [blinds[1], blinds[0]]  # heads-up: p1 posts the big blind (README)
        antes = [antes[1], antes[0]]  # and the antes are listed the same way (PokerKit)
        button, sb_seat, bb_seat = 2, 2, 1
    else:
        if any(blinds[2:]) and "big_blind_player" not in ext:
            raise NotSupported("S-1: straddles are not supported")
        button, sb_seat, bb_seat = n, 1, 2
    if "big_blind_player" in ext:  # our extension: dead small blind, posts out of position
        try:
            bb_seat = int(ext["big_blind_player"])
            sb_seat = int(ext.get("small_blind_player", 0))
        except (TypeError, ValueError):
            raise PHHError("PHH: big_blind_player and small_blind_player must be player numbers") from None
        if not 1 <= bb_seat <= n or not 0 <= sb_seat <= n:
            raise PHHError(f"PHH: blind players must be 1..{n} (0 = dead small blind)")
    sb = blinds[sb_seat - 1] if sb_seat else 0
    return blinds, antes, {"button": button, "sb_seat": sb_seat if sb else None, "bb_seat": bb_seat}


def _setup(hh: HandHistory) -> tuple[HandSettings, list[PlayerSetup], dict[str, Any]]:
    game, limit = VARIANTS[hh.variant]
    n = hh.players
    ext = hh.extra
    blinds, antes, where = _positions(hh)
    sb_seat = where["sb_seat"]
    bb = max(blinds) if any(blinds) else (hh.min_bet or 1)
    sb = blinds[sb_seat - 1] if sb_seat else 0
    big = hh.min_bet if (limit is not Limit.FIXED_LIMIT and hh.min_bet) else bb
    # The table's own keys (controller.history): smallest chip (S-10, P-3) and the cap (S-6).
    try:
        chip = max(1, round(float(ext["_smallest_chip"]) * hh.scale)) if "_smallest_chip" in ext else 1
        cap: dict[str, Any] = {}
        if "_cap_bets" in ext:
            cap["cap_bets"] = int(ext["_cap_bets"])
        if "_cap_lifted_heads_up" in ext:
            cap["cap_lifted_heads_up"] = bool(ext["_cap_lifted_heads_up"])
    except (TypeError, ValueError, ArithmeticError):
        raise PHHError("PHH: _smallest_chip and _cap_bets must be numbers") from None
    # P-1: with ante trimming each ante is its poster's contribution; without (the PHH
    # default, big-blind antes) the antes are dead money to the main pot
    trimming = ext.get("ante_trimming_status", False)
    if not isinstance(trimming, bool):
        raise PHHError(f"PHH: ante_trimming_status must be true or false, got {trimming!r}")
    # our extension: the blinds posted before the antes (TDA RP-11's big-blind ante)
    blind_first = ext.get("_big_blind_first", False)
    if not isinstance(blind_first, bool):
        raise PHHError(f"PHH: _big_blind_first must be true or false, got {blind_first!r}")
    settings = HandSettings(
        game=game, limit=limit, small_blind=sb, big_blind=max(big, 1),
        small_bet=hh.small_bet, big_bet=hh.big_bet, smallest_chip=chip, rake=_rake(hh),
        dead_antes=not trimming, big_blind_first=blind_first, **cap,
    )
    dead = hh.dead_posts or [0] * n
    players = [PlayerSetup(seat=k + 1, stack=hh.starting_stacks[k], live_post=blinds[k],
                           dead_post=dead[k], ante=antes[k]) for k in range(n)]
    return settings, players, where


def _rake(hh: HandHistory) -> RakeSettings | None:
    """Return the rake of a table hand written by ``controller.history`` (user-defined PHH
    keys ``_rake_percent``, ``_rake_cap``, ``_rake_caps``, ``_no_flop_no_drop``,
    ``_draw_counts_as_flop``; R-1, R-2), or ``None`` for an unraked hand."""
    ext = hh.extra
    if "_rake_percent" not in ext:
        return None
    try:
        cap = ext.get("_rake_cap")
        return RakeSettings(
            percent=ext["_rake_percent"],
            cap=None if cap is None else int(cap) * hh.scale,
            caps=tuple((int(k), int(v) * hh.scale) for k, v in ext.get("_rake_caps", [])),
            no_flop_no_drop=bool(ext.get("_no_flop_no_drop", True)),
            draw_counts_as_flop=bool(ext.get("_draw_counts_as_flop", True)),
        )
    except (TypeError, ValueError, ArithmeticError) as exc:  # int(-inf): OverflowError
        raise PHHError(f"PHH: bad rake keys: {type(exc).__name__}: {exc}" if isinstance(exc, ArithmeticError)
                       else f"PHH: bad rake keys: {exc}") from None


def _seat(word: str, n: int, action: str) -> int:
    if len(word) < 2 or word[0] != "p" or not word[1:].isdigit() or not 1 <= int(word[1:]) <= n:
        raise PHHError(f"PHH: bad player {word!r} in action {action!r}")
    return int(word[1:])


def new_hand(hh: HandHistory, **kw: Any) -> Hand:
    """Return a fresh :class:`Hand` set up as ``hh`` says (players p1..pN = seats 1..N).

    With three or more players seat N is the button, seat 1 the small blind and seat 2
    the big blind; heads-up seat 2 is the button and small blind, seat 1 the big blind.

    Raises:
        NotSupported: straddles; HandSetupError: impossible stakes or players.
    """
    settings, players, where = _setup(hh)
    return Hand(settings, players, **where, **kw)


def play(hh: HandHistory, **kw: Any) -> Hand:
    """Replay ``hh`` through the engine and return the (usually finished) :class:`Hand`.

    ``cc`` is a check or a call, ``cbr X`` a bet/raise to X (or an all-in to X),
    ``sd`` a discard (stand pat with no cards), ``sm`` a show (with cards) or muck.
    A show of a hand the engine already exposed (S-8) is checked and not repeated.

    Raises:
        PHHError: a malformed action; ``IllegalAction`` / ``IllegalDeal`` (rule ids)
        when an action or card breaks the rules.
    """
    hand = new_hand(hh, **kw)
    n = hh.players
    for a in hh.actions:
        w = a.split()
        if len(w) < 2:
            raise PHHError(f"PHH: bad action {a!r}")
        if w[0] == "d":
            if w[1] == "dh" and len(w) == 4:
                seat = _seat(w[2], n, a)
                pend = hand.pending_deal()
                if pend is not None and pend.kind == "draw":
                    hand.deal_draw(seat, w[3])
                else:
                    hand.deal_hole(seat, w[3])
            elif w[1] == "db" and len(w) == 3:
                hand.deal_board(w[2])
            else:
                raise PHHError(f"PHH: bad dealer action {a!r}")
            continue
        seat = _seat(w[0], n, a)
        op = w[1]
        if op == "f" and (hand.seat_to_act != seat or hand.phase != 1) and hand.can_fold_leaving(seat):
            hand.fold_leaving(seat)  # T-8: a player who left the table, folded whoever's turn it was
        elif op == "f":
            hand.fold(seat, when_check_is_free=True)  # PokerKit allows it; a history is a fact
        elif op == "cc":
            if hand.phase == 1 and hand.to_act >= 0 and hand.bet[hand.to_act] >= hand.current:
                hand.check(seat)
            else:
                hand.call(seat)
        elif op == "cbr":
            if len(w) != 3:
                raise PHHError(f"PHH: bad action {a!r}")
            try:
                amt = Decimal(w[2]) * hh.scale
            except InvalidOperation:
                raise PHHError(f"PHH: bad amount in action {a!r}") from None
            hand.raise_to(seat, int(amt))
        elif op == "sd":
            hand.draw(seat, w[2] if len(w) > 2 else ())
        elif op == "sm":
            i = hand.index[seat]
            if len(w) > 2:
                if hand.exposed[i] or (hand.is_complete and (hand.folded[i] or hand.mucked[i])):
                    # already exposed (S-8) or the hand was settled without it (P-2): check only
                    known = [str(c) for c in hand.hole_cards(seat) if c is not None]
                    if any(c not in _split_cards(w[2]) for c in known):
                        raise PHHError(f"PHH: {a!r} does not match the hand {' '.join(known)}")
                    continue
                hand.show(seat, w[2])
            elif not hand.is_complete and not hand.mucked[i]:
                hand.muck(seat)
        elif op == "pb":
            raise NotSupported("G-5: bring-in (stud) is not supported")
        else:
            raise PHHError(f"PHH: unknown action {a!r}")
    return hand


def _split_cards(text: str) -> list[str]:
    return [text[k:k + 2] for k in range(0, len(text), 2)]


def finishing_stacks(hand: Hand, hh: HandHistory) -> list[int | float]:
    """Return the stacks p1..pN in the file's units (final if the hand is over, else current)."""
    return [hh.unscale(hand.stack[hand.index[k + 1]]) for k in range(hh.players)]


def _fmt(v: int | float) -> str:
    return repr(v)


def dump(hand: Hand, **meta: Any) -> str:
    """Return ``hand`` as PHH TOML text (p1 = first seat left of the button).

    Our extension keys (docs/phh-draw.md): ``seats`` (table seat of p1..pN), ``dead_posts``
    (T-6) and, when the blinds are not the usual p1/p2 (dead small blind, a big blind
    posted out of position, T-1/T-4), ``small_blind_player`` (0 = dead) and
    ``big_blind_player``. ``meta`` adds other keys (``event``, ``players``...). A finished
    hand gets ``finishing_stacks``. A hand with antes gets PHH's ``ante_trimming_status``:
    ``true`` when each ante is its poster's contribution (P-1), ``false`` for dead antes
    (``HandSettings.dead_antes``), and ``_big_blind_first = true`` when the blinds were
    posted before the antes (``HandSettings.big_blind_first``, TDA RP-11). Heads-up the
    antes are listed like
    ``blinds_or_straddles``: p2's (the button's) first, then p1's, as PokerKit reads them.
    """
    s = hand.settings
    code = _CODE[(s.game, s.limit)]
    order = hand._order
    pno = {hand.seats[j]: k + 1 for k, j in enumerate(order)}
    setup = {p.seat: p for p in hand.setup}
    ps = [setup[hand.seats[j]] for j in order]
    n = len(ps)
    posts = [p.live_post for p in ps]  # nominal: a short stack posts what it has (as PokerKit reads it)
    antes = [s.ante if p.ante is None else p.ante for p in ps]
    if n == 2:
        posts = [posts[1], posts[0]]
        antes = [antes[1], antes[0]]
    lines = [f'variant = "{code}"']
    lines.append("antes = [" + ", ".join(map(str, antes)) + "]")
    if any(antes):  # P-1: layered antes are PHH's trimmed antes; dead ones are not
        lines.append(f"ante_trimming_status = {'false' if s.dead_antes else 'true'}")
        if s.big_blind_first:  # TDA RP-11: PokerKit posts antes first; our readers do not
            lines.append("_big_blind_first = true")
    lines.append("blinds_or_straddles = [" + ", ".join(map(str, posts)) + "]")
    if any(p.dead_post for p in ps):
        lines.append("dead_posts = [" + ", ".join(str(p.dead_post) for p in ps) + "]")
    if s.limit is Limit.FIXED_LIMIT:
        lines.append(f"small_bet = {s.small_bet}")
        lines.append(f"big_bet = {s.big_bet}")
    else:
        lines.append(f"min_bet = {s.big_blind}")
    lines.append("starting_stacks = [" + ", ".join(str(p.stack) for p in ps) + "]")
    lines.append("seats = [" + ", ".join(str(p.seat) for p in ps) + "]")
    standard = (n == 2 and pno[hand.bb_seat] == 1) or (
        n > 2 and hand.sb_seat is not None and pno[hand.sb_seat] == 1 and pno[hand.bb_seat] == 2
        and not any(p.live_post for p in ps[2:]))
    if not standard:
        lines.append(f"small_blind_player = {pno[hand.sb_seat] if hand.sb_seat is not None else 0}")
        lines.append(f"big_blind_player = {pno[hand.bb_seat]}")
    acts = actions(hand.events, pno)
    lines.append("actions = [")
    lines += [f'  "{a}",' if not a.startswith("#") else f"  {a}" for a in acts]
    lines.append("]")
    for k, v in meta.items():
        lines.append(f"{k} = {_toml(v)}")
    if hand.is_complete:
        lines.append("finishing_stacks = [" + ", ".join(str(hand.stack[hand.index[p.seat]]) for p in ps) + "]")
    return "\n".join(lines) + "\n"


def actions(events: list[dict[str, Any]], pno: dict[int, int]) -> list[str]:
    """Return the PHH ``actions`` of a hand's events (:attr:`Hand.events`, or a hand record's
    ``hand_record.events``), the players numbered ``pno`` (table seat -> N of ``pN``), as
    :func:`dump` writes them: one string each, and comment lines (``# T-8: ...``, ``# void:
    ...``) that a TOML reader leaves out.

    Raises:
        KeyError, TypeError: an event of another shape (not one the hand engine wrote).
    """
    acts: list[str] = []
    for e in events:
        t = e["t"]
        p = f"p{pno[e['seat']]}" if "seat" in e else ""
        cards = str(e.get("cards") or "").replace(" ", "")
        if t == "deal_hole" or t == "deal_draw":
            acts.append(f"d dh {p} {cards}")
        elif t == "deal_board":
            acts.append(f"d db {cards}")
        elif t == "fold":
            acts.append(f"{p} f")
        elif t == "leave":  # T-8: maybe out of turn; phh.play reads it back (PokerKit cannot)
            acts.append(f"# T-8: {p} left the table: the hand is folded, in turn or not")
            acts.append(f"{p} f")
        elif t in ("check", "call"):
            acts.append(f"{p} cc")
        elif t == "bet":
            acts.append(f"{p} cbr {e['to']}")
        elif t == "all_in":
            acts.append(f"{p} {_all_in_word(e)}")
        elif t == "draw":
            acts.append(f"{p} sd {cards}".rstrip())
        elif t == "show":
            acts.append(f"{p} sm {cards}")
        elif t == "muck":
            acts.append(f"{p} sm")
        elif t == "void":
            acts.append(f"# void: {e.get('reason', '')}")
    return acts


def _all_in_word(e: dict[str, Any]) -> str:
    """An all-in that raised is ``cbr <street total>``; one that only calls is ``cc``."""
    return f"cbr {e['to']}" if e.get("raise") else "cc"


def _toml(v: Any) -> str:
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, Sequence):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    raise PHHError(f"PHH: cannot write {v!r}")
