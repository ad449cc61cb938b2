"""Strict table configuration: TOML into frozen dataclasses (issue 9, L-2).

Unknown sections or keys, wrong types and out-of-range values stop start-up with a
:class:`ConfigError` that names the key (``table.big_blind: must be a positive whole number
of chips, got -5``); every mistake of a file is reported at once, one line each
(:attr:`ConfigError.errors`). The ``[gpio]`` section is checked by the seat-panel driver's
own parser.

Beyond types and ranges (issue 16, item 8): chip amounts are at most :data:`MAX_CHIPS`;
strings have a length limit and no control or format characters (Unicode Cc, Cf, Cs, Co,
Zl, Zp: U+202E's bidi override, zero-width characters, line separators); the table's name, shown on tablets
and the display and sent in every public state, is at most 64 characters with no markup
(``<``, ``>``, ``&``); ``journal.path`` that is a folder and ``journal.history_dir`` that is
a file are refused; ``camera.source`` as a device index is 0..255 (OpenCV takes -1 as "any
camera" and crashes on other negatives). A file the table reads (``mqtt.password_file``,
``camera.calibration``, ``camera.enrolment``, ``camera.source`` as a path, ``shuffler.port``)
that is a folder is refused; so is one that is not the kind of file the table needs there
(issue 16 round 2): a FIFO, a socket or a device where a regular file is read (a FIFO blocks
the reader for ever, ``/dev/zero`` never ends), ``/dev/null`` or a FIFO as ``journal.path``,
anything but a character device as ``shuffler.port`` (a Pi's ``/dev/ttyUSB0``, ``/dev/serial0``
through its symlink, the emulator's pty), anything but a regular file or a V4L2 device as a
``camera.source`` path. Files are read only by :func:`read_small_text` (regular files only,
size-limited, never blocking); the config itself too, a leading UTF-8 BOM left out.
A key of the wrong type is reported once: the checks that
depend on it (``small_blind`` against ``big_blind`` ...) are not made.

Sections: ``[table]`` (game and stakes), ``[rake]``, ``[shuffler]``, ``[gpio]``, ``[camera]``,
``[mqtt]``, ``[display]``, ``[journal]``. See ``config/table.example.toml`` and README.md.
"""

from __future__ import annotations

import builtins
import os
import stat
import tomllib
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.engine.table.settings import LANGUAGES

__all__ = [
    "ConfigError",
    "RESULT_SECONDS",
    "TableConfig",
    "StakesConfig",
    "RakeConfig",
    "ShufflerConfig",
    "CameraConfig",
    "MqttConfig",
    "DisplayConfig",
    "JournalConfig",
    "Config",
    "load_config",
    "parse_config",
    "read_small_text",
]

GAMES = ("holdem", "omaha", "draw")
LIMITS = ("no-limit", "pot-limit", "fixed-limit")
MAX_SEATS = {"holdem": 10, "omaha": 10, "draw": 5}  # L-2
DEFAULT_JOURNAL = "/var/lib/livetable/journal.sqlite"
MAX_INT = 2**53 - 1  # the largest whole number a tablet's JavaScript holds exactly
DEFAULT_HISTORY_DIR = "/var/lib/livetable/hands"
DEFAULT_KEEP_HANDS = 500  # the live journal keeps the last 500 hands (controller/compaction.py)
#: The most chips any amount of the config may name (blinds, antes, bets, buy-ins, rake
#: caps): a billion, more than any live table holds (a 10,000,000 buy-in counted in cents),
#: so that ten full stacks and their pots stay exact in a tablet's JavaScript (MAX_INT).
MAX_CHIPS = 10**9
MAX_NAME = 64  # table.name: a tablet's header and the display's title; sent in every state
MAX_TEXT = 4096  # any other string (paths: Linux's PATH_MAX)
MAX_CAMERA_INDEX = 255  # /dev/video0 .. /dev/video255


#: issue 20: how long a finished hand's result (shown hands, awards) stays on the table before
#: the next deal while a player's tablet is online (``[table] result_seconds``'s default;
#: seconds). A live dealer pushes the pot and gathers the cards before the next shuffle: about
#: 5 s. The one place this default is written (``controller.runtime`` and ``livetable
#: simulate`` take it from here).
RESULT_SECONDS = 5.0

V4L2_MAJOR = 81  # Linux's video4linux devices (/dev/video0 ..)
MAX_CONFIG_BYTES = 1 << 20  # a table's config is a few KB; a 1 MiB one is not a config
MAX_SMALL_FILE = 64 * 1024  # a password file: one line


def _what(mode: int) -> str:
    """The kind of file ``mode`` (``os.stat``'s ``st_mode``) names, in words."""
    for test, words in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                        (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                        (stat.S_ISBLK, "a block device"), (stat.S_ISREG, "a regular file")):
        if test(mode):
            return words
    return "not a regular file"


def _refuse_kind(value: str, need: str) -> str | None:
    """Why the path ``value`` cannot be what the table needs there (None: it can, or there is
    nothing there yet). ``need``: ``"file"`` a regular file (a FIFO would block the reader
    for ever, ``/dev/zero`` would be read without end); ``"serial"`` a character device (a
    Pi's ``/dev/ttyUSB0``, ``/dev/serial0`` via its symlink, the emulator's pty
    ``/dev/pts/N``), not a FIFO or a regular file, which pyserial opens but which are no
    port; ``"video"`` a regular video file or a V4L2 device (major 81, ``/dev/videoN``);
    ``"journal"`` a regular file or nothing yet (SQLite creates it)."""
    if need == "serial" and "://" in value:  # a pyserial URL (socket://, rfc2217://, loop://)
        return None
    try:
        mode = os.stat(value).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:  # a name too long, a folder not readable, a symlink loop
        return f"{value}: {exc.strerror or exc}"
    what = _what(mode)
    if stat.S_ISDIR(mode):
        if need == "journal":
            return None  # _path says it with the file name to give
        return f"{value} is a folder, not a file"
    if need == "serial":
        if stat.S_ISCHR(mode):
            return None
        return f"{value} is {what}, not a serial port (a character device such as /dev/ttyUSB0 or /dev/serial0)"
    if need == "video":
        if stat.S_ISREG(mode) or (stat.S_ISCHR(mode) and os.major(os.stat(value).st_rdev) == V4L2_MAJOR):
            return None
        return f"{value} is {what}, not a video file or a camera (/dev/videoN)"
    if stat.S_ISREG(mode):
        return None
    return f"{value} is {what}, not a regular file"


def read_small_text(path: str | Path, *, limit: int = MAX_SMALL_FILE, what: str = "file") -> str:
    """The UTF-8 text of the regular file ``path``, at most ``limit`` bytes, a leading UTF-8
    byte order mark left out (Windows editors write one).

    Never blocks or reads without end: the file is opened non-blocking and checked with
    ``fstat`` on the open descriptor (no race with a rename), so a FIFO, ``/dev/zero`` or any
    device is refused before a byte is read.

    Raises:
        FileNotFoundError, IsADirectoryError, PermissionError, OSError: it cannot be opened.
        ValueError: not a regular file, over ``limit`` bytes, or not UTF-8 (the message names
            ``path`` and ``what`` it was to be).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(21, "Is a directory", str(path))
        if not stat.S_ISREG(mode):
            raise ValueError(f"{path} is {_what(mode)}, not a regular file: not read as the {what}")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(65536, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > limit:
        raise ValueError(f"{path} is over {limit} bytes: too large for a {what}")
    data = b"".join(chunks)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text (a {what})") from None


class ConfigError(ValueError):
    """The configuration is wrong; the message starts with the key (``table.seats: ...``).

    ``errors`` lists every mistake found (one message each, each starting with its key);
    the message is those lines joined.
    """

    def __init__(self, message: str, errors: list[str] | None = None) -> None:
        super().__init__(message)
        self.errors = list(errors) if errors else [message]


def _show(v: Any) -> str:
    """``repr(v)`` cut to 80 characters (a 300 KB value is not printed back whole)."""
    text = repr(v)
    return text if len(text) <= 80 else f"{text[:60]}... ({len(text)} characters)"


#: Unicode categories a config string may not hold: control (Cc), format (Cf: U+202E's bidi
#: override, zero-width joiners), surrogates (Cs), private use (Co), line and paragraph
#: separators (Zl, Zp). They reorder or hide what the tablets and the display show.
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})


class _Section:
    """Typed reads from one TOML table, remembering which keys were used; each mistake is
    added to ``errors`` and a harmless value returned, so that one run reports them all."""

    def __init__(self, name: str, data: Any, errors: list[str]) -> None:
        self.name, self.used, self.errors = name, set[str](), errors
        self.failed: set[str] = set()  # keys refused: what depends on them is not checked
        if not isinstance(data, dict):
            errors.append(f"{name}: must be a table ([{name}])")
            data = {}
        self.data = data

    def fail(self, key: str, message: str, fallback: Any = None) -> Any:
        """Record ``<section>.<key>: message``; return ``fallback``."""
        self.errors.append(f"{self.name}.{key}: {message}")
        self.failed.add(key)
        return fallback

    def ok(self, *keys: str) -> bool:
        """True when none of ``keys`` was refused (a check that depends on them can be made)."""
        return not self.failed.intersection(keys)

    def file(self, key: str, value: Any, need: str = "file") -> Any:
        """``value`` (a path the table reads, already checked as a string) refused when what is
        there is not what the table can read (:func:`_refuse_kind`: a folder, a FIFO, a
        device where a file is needed...); returned as it is otherwise (a missing file is the
        device's to report). ``need``: ``"file"`` (a regular file), ``"serial"`` (a serial
        port: a character device), ``"video"`` (a video file or a V4L2 device)."""
        if not isinstance(value, str) or key in self.failed:
            return value
        why = _refuse_kind(value, need)
        return value if why is None else self.fail(key, why, None)
        try:
            if Path(value).is_dir():
                return self.fail(key, f"{value} is a folder, not a file", None)
        except OSError as exc:  # a name too long
            return self.fail(key, f"{value}: {exc.strerror or exc}", None)
        return value

    def _get(self, key: str, default: Any) -> Any:
        self.used.add(key)
        return self.data.get(key, default)

    def int(self, key: str, default: Any = ..., *, lo: int | None = None, hi: int | None = None) -> Any:
        v = self._get(key, default)
        fallback = default if default is not ... else (lo if lo is not None else 1)
        if v is ...:
            return self.fail(key, "required", fallback)
        if v is None and default is None:
            return None
        if isinstance(v, bool) or not isinstance(v, int):
            return self.fail(key, f"must be a whole number, got {_show(v)}", fallback)
        if abs(v) > MAX_INT:
            return self.fail(key, f"{_show(v)} is too large (tablets count in JavaScript: at most {MAX_INT})",
                             fallback)
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            if hi is None:
                rng = f">= {lo}"
            elif lo is None:
                rng = f"<= {hi}"
            else:
                rng = f"in {lo}..{hi}"
            return self.fail(key, f"must be {rng}, got {v}", fallback)
        return v

    def chips(self, key: str, default: Any = ..., *, lo: builtins.int = 0, hi: builtins.int = MAX_CHIPS) -> Any:
        """A whole number of chips in ``lo..hi`` (at most :data:`MAX_CHIPS`)."""
        v = self._get(key, default)
        self.used.discard(key)
        if isinstance(v, int) and not isinstance(v, bool) and v > MAX_CHIPS:
            self.used.add(key)
            return self.fail(key, f"{v} chips is more than any table holds (at most {MAX_CHIPS:,})",
                             default if default is not ... else max(lo, 1))
        return self.int(key, default, lo=lo, hi=max(lo, hi))

    def num(self, key: str, default: Any, *, lo: float, hi: float) -> float:
        v = self._get(key, default)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return self.fail(key, f"must be a number, got {_show(v)}", float(default))
        if not lo <= v <= hi:  # NaN is refused here too
            return self.fail(key, f"must be in {lo}..{hi}, got {v}", float(default))
        return float(v)

    def str(self, key: str, default: Any = ..., *, choices: tuple[str, ...] = (),
            most: builtins.int = MAX_TEXT) -> Any:
        v = self._get(key, default)
        fallback = default if default is not ... else "?"
        if v is ...:
            return self.fail(key, "required", fallback)
        if v is None and default is None:
            return None
        if not isinstance(v, str) or not v.strip():
            return self.fail(key, f"must be a non-empty string, got {_show(v)}", fallback)
        if choices and v not in choices:
            return self.fail(key, f"must be one of {', '.join(choices)}, got {_show(v)}", fallback)
        if len(v) > most:
            return self.fail(key, f"at most {most} characters, got {len(v)}", fallback)
        bad = [c for c in v if unicodedata.category(c) in _HIDDEN]
        if bad:
            return self.fail(key, f"control or format characters are not allowed (U+{ord(bad[0]):04X} "
                                  f"{unicodedata.name(bad[0], unicodedata.category(bad[0]))})", fallback)
        return v

    def bool(self, key: builtins.str, default: bool) -> bool:
        v = self._get(key, default)
        if not isinstance(v, bool):
            return self.fail(key, f"must be true or false, got {_show(v)}", default)
        return v

    def raw(self, key: builtins.str, default: Any) -> Any:
        return self._get(key, default)

    def done(self) -> None:
        """Record every key of the section that was not read (unknown keys)."""
        for key in sorted(set(self.data) - self.used, key=str):
            self.fail(key, f"unknown key (known: {', '.join(sorted(self.used))})")


@dataclass(frozen=True, slots=True)
class StakesConfig:
    """Blinds, ante and fixed-limit bet sizes in chips (S-1, S-6)."""

    small_blind: int
    big_blind: int
    ante: int = 0
    small_bet: int | None = None
    big_bet: int | None = None


@dataclass(frozen=True, slots=True)
class RakeConfig:
    """Rake (R-1..R-3): percent of each pot, cap per number of players dealt in."""

    percent: float = 0.0
    caps: tuple[tuple[int, int], ...] = ()  # (players dealt in at least, cap in chips)
    no_flop_no_drop: bool = True
    draw_counts_as_flop: bool = True


@dataclass(frozen=True, slots=True)
class TableConfig:
    """The table's game settings (L-2, T-2, A-2); ``tablet_join`` (T-3): a seat's tablet
    takes the seat and the dealer confirms the chips (``confirm``), takes seat and chips at
    once (``direct``), or only the floor seats players (``off``)."""

    id: str
    name: str
    game: str
    limit: str
    seats: int
    stakes: StakesConfig
    buy_in_min: int
    buy_in_max: int | None
    action_seconds: float = 30.0
    showdown_seconds: float = 10.0
    result_seconds: float = RESULT_SECONDS  # issue 20: a hand's result stays this long before the next deal
    cap_lifted_heads_up: bool = True
    tablet_join: str = "confirm"
    language: str = "en"  # the tablets' default and the display's (issue 20)


@dataclass(frozen=True, slots=True)
class ShufflerConfig:
    """The shuffler's serial line: a tty path or a pyserial URL (``socket://``, ``loop://``)."""

    port: str
    baudrate: int = 115200
    timeout: float = 0.5


@dataclass(frozen=True, slots=True)
class CameraConfig:
    """The overhead camera: a device index, video file, image pattern, stream URL or one photo.

    ``read_timeout``: seconds before an unread board card asks the dealer (s);
    ``stall_timeout``: seconds one frame read may hang before the camera counts as lost
    and is opened again (``vision.camera.Camera``; at least 2: its watchdog looks every
    0.5 s and a stall must be seen twice); ``corners``: also read partly covered
    cards from their corner index.
    """

    source: str | int
    calibration: str | None = None
    enrolment: str | None = None
    read_timeout: float = 5.0
    corners: bool = False
    stall_timeout: float = 5.0


@dataclass(frozen=True, slots=True)
class MqttConfig:
    """The broker the tablets and the display use."""

    host: str = "127.0.0.1"
    port: int = 1883
    username: str | None = None
    password_file: str | None = None


@dataclass(frozen=True, slots=True)
class DisplayConfig:
    """The overhead dealer display (its own process, fed over MQTT)."""

    enabled: bool = True
    size: str | None = None
    language: str | None = None  # None: the table's (table.language); issue 20, docs/display.md


@dataclass(frozen=True, slots=True)
class JournalConfig:
    """Where the journal and the hand histories are written, and how many hands the live
    journal keeps (``keep_hands``; 0 keeps every event: no compaction,
    :mod:`controller.compaction`)."""

    path: str = DEFAULT_JOURNAL
    history_dir: str = DEFAULT_HISTORY_DIR
    keep_hands: int = DEFAULT_KEEP_HANDS


@dataclass(frozen=True, slots=True)
class Config:
    """The whole table configuration; optional devices are None when not configured."""

    table: TableConfig
    rake: RakeConfig = field(default_factory=RakeConfig)
    shuffler: ShufflerConfig | None = None
    gpio: dict[str, Any] | None = None
    camera: CameraConfig | None = None
    mqtt: MqttConfig = field(default_factory=MqttConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    journal: JournalConfig = field(default_factory=JournalConfig)


def _table(data: Any, errors: list[str]) -> TableConfig:
    s = _Section("table", data, errors)
    game = s.str("game", "holdem", choices=GAMES)
    limit = s.str("limit", "no-limit", choices=LIMITS)
    seats = s.int("seats", MAX_SEATS[game], lo=2, hi=MAX_SEATS[game])
    bb = s.chips("big_blind", lo=1)
    top = bb if s.ok("big_blind") else MAX_CHIPS  # a big blind refused: no follow-on errors
    sb = s.chips("small_blind", bb // 2 or 1, lo=1, hi=top)
    ante = s.chips("ante", 0, lo=0, hi=top)
    small_bet = big_bet = None
    if limit == "fixed-limit":
        small_bet = s.chips("small_bet", bb, lo=1)
        big_bet = s.chips("big_bet", min(2 * small_bet, MAX_CHIPS), lo=small_bet if s.ok("small_bet") else 1)
        default_min, default_max = 10 * big_bet, None  # T-2
    else:
        for key in ("small_bet", "big_bet"):
            if key in s.data:
                s.used.add(key)
                s.fail(key, f"only for fixed limit (table.limit is {limit!r})")
        default_min, default_max = 20 * bb, 100 * bb  # T-2
    buy_min = s.chips("buy_in_min", min(default_min, MAX_CHIPS), lo=1)
    buy_max = s.chips("buy_in_max", None if default_max is None else min(default_max, MAX_CHIPS),
                      lo=buy_min if s.ok("buy_in_min") else 1)
    name = s.str("name", "Table 1", most=MAX_NAME)
    if isinstance(name, str) and any(c in name for c in "<>&"):
        name = s.fail("name", f"no markup (<, >, &): it is shown on every tablet and the display, "
                              f"got {_show(name)}", "Table 1")
    table_id = s.str("id", "t1", most=64)
    table = TableConfig(
        id=table_id,
        name=name,
        game=game,
        limit=limit,
        seats=seats,
        stakes=StakesConfig(sb, bb, ante, small_bet, big_bet),
        buy_in_min=buy_min,
        buy_in_max=buy_max,
        action_seconds=s.num("action_seconds", 30.0, lo=5, hi=600),
        showdown_seconds=s.num("showdown_seconds", 10.0, lo=2, hi=600),
        result_seconds=s.num("result_seconds", RESULT_SECONDS, lo=0, hi=60),  # issue 20, HandPacer
        cap_lifted_heads_up=s.bool("cap_lifted_heads_up", True),
        tablet_join=s.str("tablet_join", "confirm", choices=("off", "direct", "confirm")),  # T-3, docs/tablet.md
        language=s.str("language", "en", choices=LANGUAGES),  # issue 20, docs/tablet.md
    )
    from drivers.mqtt.topics import TopicError, check_table  # the id is an MQTT topic level

    try:
        check_table(table.id)
    except TopicError as exc:
        s.fail("id", str(exc))
    s.done()
    return table


def _rake(data: Any, errors: list[str]) -> RakeConfig:
    s = _Section("rake", data, errors)
    percent = s.num("percent", 0.0, lo=0, hi=25)
    caps_raw = s.raw("caps", {})
    caps: list[tuple[int, int]] = []
    if not isinstance(caps_raw, dict):
        s.fail("caps", 'must be a table like { "2" = 100, "5" = 300 }')
        caps_raw = {}
    for k, v in caps_raw.items():
        if not (str(k).isascii() and str(k).isdigit() and len(str(k)) <= 2) or not 2 <= int(k) <= 10:
            s.fail(f"caps.{_show(k)[1:-1]}", "key must be a number of players 2..10")
        elif isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_CHIPS:
            s.fail(f"caps.{k}", f"must be a whole number of chips 0..{MAX_CHIPS:,}, got {_show(v)}")
        else:
            caps.append((int(k), v))
    rake = RakeConfig(
        percent=percent,
        caps=tuple(sorted(caps)),
        no_flop_no_drop=s.bool("no_flop_no_drop", True),
        draw_counts_as_flop=s.bool("draw_counts_as_flop", True),
    )
    s.done()
    return rake


def _path(s: _Section, key: str, default: str, *, folder: bool) -> str:
    """A path the table writes: a file (``folder=False``) or a folder; refused when what is
    there already is the other kind, or when its parent is a file."""
    value = s.str(key, default)
    if not isinstance(value, str) or value == "?":
        return value
    p = Path(value)
    try:
        if folder and p.exists() and not p.is_dir():
            return s.fail(key, f"{value} is a file, not a folder", default)
        if not folder and p.is_dir():
            return s.fail(key, f"{value} is a folder: give the journal's file name (e.g. {p / 'journal.sqlite'})",
                          default)
        why = None if folder else _refuse_kind(value, "journal")
        if why is not None:  # /dev/null, a FIFO: SQLite cannot keep a journal there
            return s.fail(key, f"{why}: the journal is a file the table creates and writes", default)
        for parent in p.parents:
            if parent.exists():
                if not parent.is_dir():
                    return s.fail(key, f"{parent} is a file, not a folder", default)
                break
    except OSError as exc:  # a name too long, a folder not readable
        return s.fail(key, f"{value}: {exc.strerror or exc}", default)
    return value


def _camera(data: Any, errors: list[str]) -> CameraConfig:
    s = _Section("camera", data, errors)
    src = s.raw("source", None)
    if isinstance(src, str) and src.strip().lstrip("+-").isdigit():
        index: int | None = int(src.strip())
    else:
        index = src if isinstance(src, int) and not isinstance(src, bool) else None
    if index is not None and not 0 <= index <= MAX_CAMERA_INDEX:
        src = s.fail("source", f"a device index is 0..{MAX_CAMERA_INDEX} (/dev/videoN), got {index}", 0)
    elif isinstance(src, bool) or not isinstance(src, (int, str)) or (isinstance(src, str) and not src.strip()):
        src = s.fail("source", f"a device index, file, pattern or URL, got {_show(src)}", 0)
    elif isinstance(src, str):
        src = s.str("source", 0)
        if isinstance(src, str) and "://" not in src and "%" not in src:  # a file (not a URL, a pattern)
            src = s.file("source", src, "video") or 0
    camera = CameraConfig(
        source=src,
        calibration=s.file("calibration", s.str("calibration", None)),
        enrolment=s.file("enrolment", s.str("enrolment", None)),
        read_timeout=s.num("read_timeout", 5.0, lo=0.5, hi=120),
        corners=s.bool("corners", False),
        stall_timeout=s.num("stall_timeout", 5.0, lo=2, hi=120),
    )
    s.done()
    return camera


def parse_config(data: dict[str, Any]) -> Config:
    """Return the :class:`Config` for a parsed TOML document.

    Raises:
        ConfigError: unknown sections or keys, wrong types, values out of range; every
            mistake is in ``errors`` (each names its key) and in the message, one per line.
    """
    errors: list[str] = []
    # [room] (the outbox to the room, issue 17) is read and checked by controller/roomlink.py;
    # [tournament] (a single-table tournament, issue 19) by controller/tournament_run.py.
    known = {"table", "rake", "shuffler", "gpio", "camera", "mqtt", "display", "journal", "room", "tournament"}
    for key in data:
        if key not in known:
            errors.append(f"{_show(key)[1:-1]}: unknown section (known: {', '.join(sorted(known))})")
    table = _table(data.get("table", {}), errors)
    rake = _rake(data.get("rake", {}), errors)
    shuffler = None
    if "shuffler" in data:
        s = _Section("shuffler", data["shuffler"], errors)
        shuffler = ShufflerConfig(
            port=s.file("port", s.str("port"), "serial"),
            baudrate=s.int("baudrate", 115200, lo=1200, hi=4_000_000),
            timeout=s.num("timeout", 0.5, lo=0.01, hi=30),
        )
        s.done()
    camera = _camera(data["camera"], errors) if "camera" in data else None
    s = _Section("mqtt", data.get("mqtt", {}), errors)
    mqtt = MqttConfig(
        host=s.str("host", "127.0.0.1", most=253),
        port=s.int("port", 1883, lo=1, hi=65535),
        username=s.str("username", None, most=256),
        password_file=s.file("password_file", s.str("password_file", None)),
    )
    s.done()
    s = _Section("display", data.get("display", {}), errors)
    display = DisplayConfig(enabled=s.bool("enabled", True), size=s.str("size", None, most=32),
                            language=s.str("language", None, choices=LANGUAGES))
    if display.size is not None:
        from display.geometry import parse_size  # the display's own check (stdlib only)

        try:
            parse_size(display.size)
        except ValueError as exc:
            s.fail("size", str(exc))
    s.done()
    s = _Section("journal", data.get("journal", {}), errors)
    journal = JournalConfig(
        path=_path(s, "path", DEFAULT_JOURNAL, folder=False),
        history_dir=_path(s, "history_dir", DEFAULT_HISTORY_DIR, folder=True),
        keep_hands=s.int("keep_hands", DEFAULT_KEEP_HANDS, lo=0, hi=1_000_000),
    )
    if journal.path == journal.history_dir:
        s.fail("history_dir", f"is journal.path ({journal.path}): the hand files need their own folder")
    s.done()
    gpio = data.get("gpio")
    if gpio is not None:
        if not isinstance(gpio, dict):
            errors.append("gpio: must be a table ([gpio])")
            gpio = None
        else:
            from drivers.seats.pinmap import parse_pin_map  # the seat panel checks its own pins

            try:
                parse_pin_map(gpio)
            except ValueError as exc:
                msg = str(exc)
                errors.append(msg if msg.startswith("gpio") else f"gpio: {msg}")
    if errors:
        raise ConfigError("\n".join(errors), errors)
    return Config(table, rake, shuffler, gpio, camera, mqtt, display, journal)


def load_config(path: str | Path) -> Config:
    """Read and check a table's TOML config file.

    The file must be a regular file of at most 1 MiB of UTF-8 (a FIFO or a device is refused
    before anything is read); a leading UTF-8 byte order mark is left out.

    Raises:
        ConfigError: the file is missing, not a regular file, too large, not UTF-8, not TOML
            (with line and column), nested too deeply, or wrong (every mistake, one per line,
            each with the file and key).
    """
    p = Path(path)
    try:
        data = tomllib.loads(read_small_text(p, limit=MAX_CONFIG_BYTES, what="config file"))
    except RecursionError:
        raise ConfigError(f"{p}: not a table config: arrays or tables nested too deeply") from None
    except FileNotFoundError as exc:
        raise ConfigError(f"{p}: no such config file") from exc
    except IsADirectoryError as exc:
        raise ConfigError(f"{p}: is a folder, not a config file") from exc
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read it: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: not valid TOML: {exc}") from exc
    except ValueError as exc:  # a FIFO, a device, over 1 MiB, not UTF-8 (read_small_text)
        raise ConfigError(f"{exc}") from exc
    try:
        return parse_config(data)
    except ConfigError as exc:
        lines = [f"{p}: {e}" for e in exc.errors]
        raise ConfigError("\n".join(lines), lines) from None
    except RecursionError:
        raise ConfigError(f"{p}: not a table config: arrays or tables nested too deeply") from None
