"""The seat buttons' and lights' pin map: the ``[gpio]`` section of the table's TOML config.

Layout (all keys optional; see ``default_pins.toml`` and docs/wiring.md)::

    [gpio]
    bounce_time = 0.02     # seconds, 0..0.5: debounce (gpiozero ``bounce_time``)
    hold_time = 1.0        # seconds, 0.05..10: how long ``sit`` is held (T-5)
    led_kind = "led"       # "led" (gpiozero LED) or "pwm" (gpiozero PWMLED)
    reserve_uart = true    # refuse GPIO14/GPIO15 (the UART, for the shuffler)
    [gpio.console]         # start, pause, confirm, led
    start = "GPIO20"
    [gpio.seats.1]         # seats 1..10 (L-2); fold, check_call, bet_raise, sit, led
    fold = "GPIO4"
    led = "BOARD12"

Pin names are those gpiozero accepts for the 40-pin header: ``"GPIO17"``, ``"BCM17"``,
``"BOARD11"``, ``"J8:11"`` or the integer ``17`` (Broadcom numbering). Every pin is resolved
to its Broadcom name and header pin number with gpiozero's own board data, so the wiring table
and the devices agree.

Checked at start-up (Klipper's "unknown option is a hard error"), each failure raising
:class:`ConfigError` naming the TOML key: unknown keys, wrong types, out-of-range times,
names that are not pins, pins that are not GPIOs (``BOARD1`` is 3V3), reserved pins, and a
pin used twice.

Reserved pins and why:

- GPIO0 / GPIO1 (header 27/28) are ID_SD/ID_SC: the firmware reads a HAT's ID EEPROM on
  them at boot; a button there can corrupt HAT detection. Always reserved.
- GPIO14 / GPIO15 (header 8/10) are the Pi's UART TXD/RXD, where the card shuffler's serial
  line goes when it is not on USB. Reserved unless ``reserve_uart = false``.
- GPIO2 / GPIO3 (I2C1, fixed 1.8 kOhm pull-ups) are allowed: they suit buttons to ground. A
  table that adds an I2C I/O expander must keep them free (docs/wiring.md).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from importlib import resources
from pathlib import Path
from typing import Any

from gpiozero.pins.pi import PiBoardInfo

from drivers.seats.events import ConsoleButton, SeatButton

#: Board data used to check names: a Raspberry Pi 5 Model B (its 40-pin header has the same
#: GPIO numbering as every 40-pin Pi since the B+; gpiozero's data, not ours).
BOARD = PiBoardInfo.from_revision(0xC04170)

#: Most seats at a table (L-2: Hold'em and Omaha 2..10 players).
MAX_SEATS = 10

#: Always reserved: the HAT ID EEPROM pins.
ALWAYS_RESERVED = {"GPIO0": "the HAT ID EEPROM (ID_SD)", "GPIO1": "the HAT ID EEPROM (ID_SC)"}
#: Reserved while ``reserve_uart`` is true: the UART a shuffler may use.
UART_PINS = {"GPIO14": "the UART TXD (shuffler serial line)",
             "GPIO15": "the UART RXD (shuffler serial line)"}

#: Limits for the timing keys, seconds (inclusive).
BOUNCE_RANGE = (0.0, 0.5)
HOLD_RANGE = (0.05, 10.0)

LED_KEY = "led"
SEAT_KEYS = tuple(b.value for b in SeatButton) + (LED_KEY,)
CONSOLE_KEYS = tuple(b.value for b in ConsoleButton) + (LED_KEY,)
TOP_KEYS = ("bounce_time", "hold_time", "led_kind", "reserve_uart", "console", "seats")


class ConfigError(ValueError):
    """A bad ``[gpio]`` section; the message starts with the TOML key, e.g. ``gpio.seats.2.fold``."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}")
        self.key = key


class LedKind(StrEnum):
    """What drives each light: ``led`` (gpiozero LED, on/off) or ``pwm`` (gpiozero PWMLED)."""

    LED = "led"
    PWM = "pwm"


@dataclass(frozen=True, slots=True)
class Pin:
    """One pin: ``name`` as gpiozero's Broadcom name (``"GPIO17"``), ``header`` the 40-pin
    header pin number (``11``), ``key`` the TOML key it came from, ``given`` as written."""

    name: str
    header: int
    key: str
    given: str | int

    @property
    def bcm(self) -> int:
        """The Broadcom GPIO number (``17`` for ``GPIO17``)."""
        return int(self.name.removeprefix("GPIO"))


@dataclass(frozen=True, slots=True)
class SeatPins:
    """One seat's wiring: its buttons (``SeatButton`` -> :class:`Pin`, only those wired) and
    its light (``None`` when not wired)."""

    seat: int
    buttons: Mapping[SeatButton, Pin] = field(default_factory=dict)
    led: Pin | None = None


@dataclass(frozen=True, slots=True)
class ConsolePins:
    """The dealer console: its buttons (only those wired) and an optional light."""

    buttons: Mapping[ConsoleButton, Pin] = field(default_factory=dict)
    led: Pin | None = None


@dataclass(frozen=True, slots=True)
class PinMap:
    """A checked pin map. ``seats`` is ordered by seat number; times are seconds (float)."""

    seats: tuple[SeatPins, ...] = ()
    console: ConsolePins = ConsolePins()
    bounce_time: float = 0.02
    hold_time: float = 1.0
    led_kind: LedKind = LedKind.LED
    reserve_uart: bool = True

    def seat(self, seat: int) -> SeatPins | None:
        """The pins of ``seat`` (1..N), or ``None`` when that seat has nothing wired."""
        for pins in self.seats:
            if pins.seat == seat:
                return pins
        return None

    def all_pins(self) -> list[Pin]:
        """Every pin in use, console first, then seats in order."""
        pins = [*self.console.buttons.values()]
        if self.console.led:
            pins.append(self.console.led)
        for seat in self.seats:
            pins += seat.buttons.values()
            if seat.led:
                pins.append(seat.led)
        return pins


def resolve_pin(value: object, key: str) -> Pin:
    """Resolve a pin name (``"GPIO17"``, ``"BOARD11"``, ``"J8:11"``, ``17``) to a :class:`Pin`.

    Raises :class:`ConfigError` naming ``key`` when the value is not a string or integer, is
    not a pin of the 40-pin header, or is a power/ground pin rather than a GPIO.
    """
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ConfigError(key, f"a pin is a name like 'GPIO17' or 'BOARD11', got {value!r}")
    found = [info for header, info in BOARD.find_pin(value) if header.name == "J8"]
    if not found:
        hint = ""
        if isinstance(value, str) and value.upper().replace(" ", "") != value:
            hint = f" (names are upper case without spaces: {value.upper().replace(' ', '')!r})"
        raise ConfigError(key, f"{value!r} is not a pin of the Pi's 40-pin header{hint}")
    info = found[0]
    if not info.name.startswith("GPIO"):
        raise ConfigError(key, f"{value!r} is header pin {info.number}, {info.name}, not a GPIO")
    return Pin(name=info.name, header=info.number, key=key, given=value)


def _number(section: Mapping[str, Any], name: str, default: float,
            bounds: tuple[float, float]) -> float:
    value = section.get(name, default)
    key = f"gpio.{name}"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(key, f"expected seconds as a number, got {value!r}")
    low, high = bounds
    if not low <= value <= high:
        raise ConfigError(key, f"{value!r} s is outside {low}..{high} s")
    return float(value)


def _table(value: object, key: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(key, f"expected a table ([{key}]), got {value!r}")
    return value


def _check_keys(table: Mapping[str, Any], allowed: tuple[str, ...], prefix: str) -> None:
    for name in table:
        if name not in allowed:
            raise ConfigError(f"{prefix}.{name}",
                              f"unknown key (known: {', '.join(allowed)})")


def parse_pin_map(section: Mapping[str, Any]) -> PinMap:
    """Check a ``[gpio]`` section (the dict tomllib gives for it) and return a :class:`PinMap`.

    ``section`` is the value of the ``gpio`` key, not the whole config. An empty section is a
    table with nothing wired. Raises :class:`ConfigError` (a ``ValueError``) whose message
    starts with the offending TOML key, e.g. ``gpio.seats.2.fold: GPIO17 (header pin 11) is
    already used by gpio.seats.1.check_call``.
    """
    section = _table(section, "gpio")
    _check_keys(section, TOP_KEYS, "gpio")
    bounce = _number(section, "bounce_time", 0.02, BOUNCE_RANGE)
    hold = _number(section, "hold_time", 1.0, HOLD_RANGE)
    kind_text = section.get("led_kind", LedKind.LED.value)
    try:
        led_kind = LedKind(kind_text)
    except ValueError:
        raise ConfigError("gpio.led_kind", f"expected 'led' or 'pwm', got {kind_text!r}") from None
    reserve_uart = section.get("reserve_uart", True)
    if not isinstance(reserve_uart, bool):
        raise ConfigError("gpio.reserve_uart", f"expected true or false, got {reserve_uart!r}")
    reserved = dict(ALWAYS_RESERVED)
    if reserve_uart:
        reserved.update(UART_PINS)

    used: dict[str, Pin] = {}

    def take(value: object, key: str) -> Pin:
        pin = resolve_pin(value, key)
        if pin.name in reserved:
            why = reserved[pin.name]
            extra = " (set gpio.reserve_uart = false to use it)" if pin.name in UART_PINS else ""
            raise ConfigError(key, f"{pin.name} (header pin {pin.header}) is reserved for {why}{extra}")
        if pin.name in used:
            raise ConfigError(key, f"{pin.name} (header pin {pin.header}) is already used by "
                                   f"{used[pin.name].key}")
        used[pin.name] = pin
        return pin

    console_table = _table(section.get("console", {}), "gpio.console")
    _check_keys(console_table, CONSOLE_KEYS, "gpio.console")
    console = ConsolePins(
        buttons={b: take(console_table[b.value], f"gpio.console.{b.value}")
                 for b in ConsoleButton if b.value in console_table},
        led=take(console_table[LED_KEY], "gpio.console.led") if LED_KEY in console_table else None,
    )

    seats_table = _table(section.get("seats", {}), "gpio.seats")
    numbered: list[tuple[int, str]] = []
    for name in seats_table:
        key = f"gpio.seats.{name}"
        if not (isinstance(name, str) and name.isdigit() and 1 <= int(name) <= MAX_SEATS):
            raise ConfigError(key, f"seats are numbered 1..{MAX_SEATS} (L-2), got {name!r}")
        numbered.append((int(name), name))
    if len({n for n, _ in numbered}) != len(numbered):
        raise ConfigError("gpio.seats", "a seat number is given twice (e.g. '1' and '01')")
    seats: list[SeatPins] = []
    for number, name in sorted(numbered):
        prefix = f"gpio.seats.{name}"
        table = _table(seats_table[name], prefix)
        _check_keys(table, SEAT_KEYS, prefix)
        if not table:
            raise ConfigError(prefix, "a seat needs at least one of " + ", ".join(SEAT_KEYS))
        seats.append(SeatPins(
            seat=number,
            buttons={b: take(table[b.value], f"{prefix}.{b.value}")
                     for b in SeatButton if b.value in table},
            led=take(table[LED_KEY], f"{prefix}.{LED_KEY}") if LED_KEY in table else None,
        ))
    return PinMap(seats=tuple(seats), console=console, bounce_time=bounce, hold_time=hold,
                  led_kind=led_kind, reserve_uart=reserve_uart)


def pin_map_from_toml(text: str, *, source: str = "config") -> PinMap:
    """Parse a whole TOML config's ``[gpio]`` section (absent: nothing wired).

    Raises :class:`ConfigError` for bad TOML (key ``source``) or a bad section.
    """
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(source, f"not valid TOML: {exc}") from None
    return parse_pin_map(document.get("gpio", {}))


def load_pin_map(path: str | Path) -> PinMap:
    """Read a TOML config file and return its checked pin map (see :func:`parse_pin_map`).

    Raises ``OSError`` when the file cannot be read, :class:`ConfigError` when it is wrong.
    """
    path = Path(path)
    return pin_map_from_toml(path.read_text(encoding="utf-8"), source=str(path))


def default_pins_toml() -> str:
    """The default ``[gpio]`` section as TOML text (``drivers/seats/default_pins.toml``)."""
    return resources.files("drivers.seats").joinpath("default_pins.toml").read_text("utf-8")


#: The default pin map: four fully wired seats and the console on the 40-pin header.
DEFAULT_PIN_MAP: PinMap = pin_map_from_toml(default_pins_toml(), source="default_pins.toml")
