"""Strict table configuration: TOML into frozen dataclasses (issue 9, L-2).

Unknown sections or keys, wrong types and out-of-range values stop start-up with a
:class:`ConfigError` that names the key (``table.big_blind: must be a positive whole number
of chips, got -5``). The ``[gpio]`` section is checked by the seat-panel driver's own parser.

Sections: ``[table]`` (game and stakes), ``[rake]``, ``[shuffler]``, ``[gpio]``, ``[camera]``,
``[mqtt]``, ``[display]``, ``[journal]``. See ``config/table.example.toml`` and README.md.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "ConfigError",
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
]

GAMES = ("holdem", "omaha", "draw")
LIMITS = ("no-limit", "pot-limit", "fixed-limit")
MAX_SEATS = {"holdem": 10, "omaha": 10, "draw": 5}  # L-2
DEFAULT_JOURNAL = "/var/lib/livetable/journal.sqlite"
MAX_INT = 2**53 - 1  # the largest whole number a tablet's JavaScript holds exactly
DEFAULT_HISTORY_DIR = "/var/lib/livetable/hands"
DEFAULT_KEEP_HANDS = 500  # the live journal keeps the last 500 hands (controller/compaction.py)


class ConfigError(ValueError):
    """The configuration is wrong; the message starts with the key (``table.seats: ...``)."""


class _Section:
    """Typed reads from one TOML table, remembering which keys were used."""

    def __init__(self, name: str, data: Any) -> None:
        if not isinstance(data, dict):
            raise ConfigError(f"{name}: must be a table ([{name}])")
        self.name, self.data, self.used = name, data, set()

    def _get(self, key: str, default: Any) -> Any:
        self.used.add(key)
        return self.data.get(key, default)

    def int(self, key: str, default: Any = ..., *, lo: int | None = None, hi: int | None = None) -> Any:
        v = self._get(key, default)
        if v is ...:
            raise ConfigError(f"{self.name}.{key}: required")
        if v is None and default is None:
            return None
        if isinstance(v, bool) or not isinstance(v, int):
            raise ConfigError(f"{self.name}.{key}: must be a whole number, got {v!r}")
        if abs(v) > MAX_INT:
            raise ConfigError(f"{self.name}.{key}: {v} is too large (tablets count in JavaScript: "
                              f"at most {MAX_INT})")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            if hi is None:
                rng = f">= {lo}"
            elif lo is None:
                rng = f"<= {hi}"
            else:
                rng = f"in {lo}..{hi}"
            raise ConfigError(f"{self.name}.{key}: must be {rng}, got {v}")
        return v

    def num(self, key: str, default: Any, *, lo: float, hi: float) -> float:
        v = self._get(key, default)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ConfigError(f"{self.name}.{key}: must be a number, got {v!r}")
        if not lo <= v <= hi:
            raise ConfigError(f"{self.name}.{key}: must be in {lo}..{hi}, got {v}")
        return float(v)

    def str(self, key: str, default: Any = ..., *, choices: tuple[str, ...] = ()) -> Any:
        v = self._get(key, default)
        if v is ...:
            raise ConfigError(f"{self.name}.{key}: required")
        if v is None and default is None:
            return None
        if not isinstance(v, str) or not v.strip():
            raise ConfigError(f"{self.name}.{key}: must be a non-empty string, got {v!r}")
        if choices and v not in choices:
            raise ConfigError(f"{self.name}.{key}: must be one of {', '.join(choices)}, got {v!r}")
        return v

    def bool(self, key: str, default: bool) -> bool:
        v = self._get(key, default)
        if not isinstance(v, bool):
            raise ConfigError(f"{self.name}.{key}: must be true or false, got {v!r}")
        return v

    def raw(self, key: str, default: Any) -> Any:
        return self._get(key, default)

    def done(self) -> None:
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            raise ConfigError(f"{self.name}.{unknown[0]}: unknown key (known: {', '.join(sorted(self.used))})")


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
    cap_lifted_heads_up: bool = True
    tablet_join: str = "confirm"


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


def _table(data: Any) -> TableConfig:
    s = _Section("table", data)
    game = s.str("game", "holdem", choices=GAMES)
    limit = s.str("limit", "no-limit", choices=LIMITS)
    seats = s.int("seats", MAX_SEATS[game], lo=2, hi=MAX_SEATS[game])
    bb = s.int("big_blind", lo=1)
    sb = s.int("small_blind", bb // 2 or 1, lo=1, hi=bb)
    ante = s.int("ante", 0, lo=0, hi=bb)
    small_bet = big_bet = None
    if limit == "fixed-limit":
        small_bet = s.int("small_bet", bb, lo=1)
        big_bet = s.int("big_bet", 2 * small_bet, lo=small_bet)
        default_min, default_max = 10 * big_bet, None  # T-2
    else:
        for key in ("small_bet", "big_bet"):
            if key in s.data:
                raise ConfigError(f"table.{key}: only for fixed limit (table.limit is {limit!r})")
        default_min, default_max = 20 * bb, 100 * bb  # T-2
    buy_min = s.int("buy_in_min", default_min, lo=1)
    buy_max = s.int("buy_in_max", default_max, lo=buy_min)
    table = TableConfig(
        id=s.str("id", "t1"),
        name=s.str("name", "Table 1"),
        game=game,
        limit=limit,
        seats=seats,
        stakes=StakesConfig(sb, bb, ante, small_bet, big_bet),
        buy_in_min=buy_min,
        buy_in_max=buy_max,
        action_seconds=s.num("action_seconds", 30.0, lo=5, hi=600),
        showdown_seconds=s.num("showdown_seconds", 10.0, lo=2, hi=600),
        cap_lifted_heads_up=s.bool("cap_lifted_heads_up", True),
        tablet_join=s.str("tablet_join", "confirm", choices=("off", "direct", "confirm")),  # T-3, docs/tablet.md
    )
    from drivers.mqtt.topics import TopicError, check_table  # the id is an MQTT topic level

    try:
        check_table(table.id)
    except TopicError as exc:
        raise ConfigError(f"table.id: {exc}") from exc
    s.done()
    return table


def _rake(data: Any) -> RakeConfig:
    s = _Section("rake", data)
    percent = s.num("percent", 0.0, lo=0, hi=25)
    caps_raw = s.raw("caps", {})
    if not isinstance(caps_raw, dict):
        raise ConfigError('rake.caps: must be a table like { "2" = 100, "5" = 300 }')
    caps: list[tuple[int, int]] = []
    for k, v in caps_raw.items():
        if not (str(k).isascii() and str(k).isdigit()) or not 2 <= int(k) <= 10:
            raise ConfigError(f"rake.caps.{k}: key must be a number of players 2..10")
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ConfigError(f"rake.caps.{k}: must be a whole number of chips >= 0, got {v!r}")
        caps.append((int(k), v))
    rake = RakeConfig(
        percent=percent,
        caps=tuple(sorted(caps)),
        no_flop_no_drop=s.bool("no_flop_no_drop", True),
        draw_counts_as_flop=s.bool("draw_counts_as_flop", True),
    )
    s.done()
    return rake


def parse_config(data: dict[str, Any]) -> Config:
    """Return the :class:`Config` for a parsed TOML document.

    Raises:
        ConfigError: unknown section or key, wrong type, value out of range (names the key).
    """
    # [room] (the outbox to the room, issue 17) is read and checked by controller/roomlink.py.
    known = {"table", "rake", "shuffler", "gpio", "camera", "mqtt", "display", "journal", "room"}
    for key in data:
        if key not in known:
            raise ConfigError(f"{key}: unknown section (known: {', '.join(sorted(known))})")
    table = _table(data.get("table", {}))
    rake = _rake(data.get("rake", {}))
    shuffler = None
    if "shuffler" in data:
        s = _Section("shuffler", data["shuffler"])
        shuffler = ShufflerConfig(
            port=s.str("port"),
            baudrate=s.int("baudrate", 115200, lo=1200, hi=4_000_000),
            timeout=s.num("timeout", 0.5, lo=0.01, hi=30),
        )
        s.done()
    camera = None
    if "camera" in data:
        s = _Section("camera", data["camera"])
        src = s.raw("source", None)
        if isinstance(src, bool) or not isinstance(src, (int, str)) or src == "":
            raise ConfigError(f"camera.source: a device index, file, pattern or URL, got {src!r}")
        camera = CameraConfig(
            source=src,
            calibration=s.str("calibration", None),
            enrolment=s.str("enrolment", None),
            read_timeout=s.num("read_timeout", 5.0, lo=0.5, hi=120),
            corners=s.bool("corners", False),
            stall_timeout=s.num("stall_timeout", 5.0, lo=2, hi=120),
        )
        s.done()
    s = _Section("mqtt", data.get("mqtt", {}))
    mqtt = MqttConfig(
        host=s.str("host", "127.0.0.1"),
        port=s.int("port", 1883, lo=1, hi=65535),
        username=s.str("username", None),
        password_file=s.str("password_file", None),
    )
    s.done()
    s = _Section("display", data.get("display", {}))
    display = DisplayConfig(enabled=s.bool("enabled", True), size=s.str("size", None))
    if display.size is not None:
        from display.app import parse_size  # the display's own check (stdlib only at import)

        try:
            parse_size(display.size)
        except ValueError as exc:
            raise ConfigError(f"display.size: {exc}") from None
    s.done()
    s = _Section("journal", data.get("journal", {}))
    journal = JournalConfig(
        path=s.str("path", DEFAULT_JOURNAL),
        history_dir=s.str("history_dir", DEFAULT_HISTORY_DIR),
        keep_hands=s.int("keep_hands", DEFAULT_KEEP_HANDS, lo=0, hi=1_000_000),
    )
    s.done()
    gpio = data.get("gpio")
    if gpio is not None:
        if not isinstance(gpio, dict):
            raise ConfigError("gpio: must be a table ([gpio])")
        from drivers.seats.pinmap import parse_pin_map  # the seat panel checks its own pins

        try:
            parse_pin_map(gpio)
        except ValueError as exc:
            msg = str(exc)
            raise ConfigError(msg if msg.startswith("gpio") else f"gpio: {msg}") from exc
    return Config(table, rake, shuffler, gpio, camera, mqtt, display, journal)


def load_config(path: str | Path) -> Config:
    """Read and check a table's TOML config file.

    Raises:
        ConfigError: the file is missing, not TOML (with line and column), or wrong.
    """
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError(f"{p}: no such config file") from exc
    except IsADirectoryError as exc:
        raise ConfigError(f"{p}: is a folder, not a config file") from exc
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read it: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{p}: not UTF-8 text") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: not valid TOML: {exc}") from exc
    try:
        return parse_config(data)
    except ConfigError as exc:
        raise ConfigError(f"{p}: {exc}") from exc
