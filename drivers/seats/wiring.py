"""``livetable wiring``: the wiring table (seat, button or light, GPIO, header pin) from a config.

Usage::

    livetable wiring [--markdown] [--config FILE]   # print the table (Markdown)
    livetable wiring --update-readme [--readme README.md] [--config FILE]
    livetable wiring --check [--readme README.md]   # exit 1 when README.md has drifted
    livetable wiring --probe [--config FILE] [--timeout 10]   # on the Pi: check the wires

The README's section between ``<!-- wiring:start -->`` and ``<!-- wiring:end -->`` is this
output for the default pin map (:data:`~drivers.seats.pinmap.DEFAULT_PIN_MAP`); a test fails
when they differ, so the document cannot drift from the code. Exit codes: 0 ok, 1 README out of
date (``--check``) or a wiring fault found (``--probe``), 2 bad arguments, config, README or no
GPIO here.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from drivers.seats.events import ConsoleButton, SeatButton
from drivers.seats.pinmap import (ALWAYS_RESERVED, BOARD, UART_PINS, DEFAULT_PIN_MAP,
                                  ConfigError, Pin, PinMap, load_pin_map)

START = "<!-- wiring:start -->"
END = "<!-- wiring:end -->"
#: The repository's README (the one the default ``--update-readme`` rewrites).
README = Path(__file__).resolve().parents[2] / "README.md"

SEAT_LABELS = {
    SeatButton.FOLD: "fold (button)",
    SeatButton.CHECK_CALL: "check / call (button)",
    SeatButton.BET_RAISE: "bet / raise (button)",
    SeatButton.SIT: "sit in / sit out, hold (button)",
}
CONSOLE_LABELS = {
    ConsoleButton.START: "start next hand (button)",
    ConsoleButton.PAUSE: "pause / resume (button)",
    ConsoleButton.CONFIRM: "confirm fault (button)",
}


@dataclass(frozen=True, slots=True)
class WiringRow:
    """One line of the wiring table: ``seat`` ("1".."10" or "console"), what is wired, the
    GPIO name (``GPIO17``) and the 40-pin header pin number."""

    seat: str
    what: str
    gpio: str
    header: int


def wiring_rows(pin_map: PinMap) -> list[WiringRow]:
    """The rows of the wiring table: console first, then each seat's buttons and light."""
    rows: list[WiringRow] = []

    def add(seat: str, what: str, pin: Pin) -> None:
        rows.append(WiringRow(seat, what, pin.name, pin.header))

    for cname, label in CONSOLE_LABELS.items():
        if cname in pin_map.console.buttons:
            add("console", label, pin_map.console.buttons[cname])
    if pin_map.console.led:
        add("console", "fault / paused light (LED)", pin_map.console.led)
    kind = "PWM LED" if pin_map.led_kind.value == "pwm" else "LED"
    for seat in pin_map.seats:
        for name, label in SEAT_LABELS.items():
            if name in seat.buttons:
                add(str(seat.seat), label, seat.buttons[name])
        if seat.led:
            add(str(seat.seat), f"turn light ({kind})", seat.led)
    return rows


def _gpio_pins() -> list[tuple[str, int]]:
    header = BOARD.headers["J8"]
    return [(info.name, number) for number, info in sorted(header.pins.items())
            if info.name.startswith("GPIO")]


def _ground_pins() -> list[int]:
    header = BOARD.headers["J8"]
    return [number for number, info in sorted(header.pins.items()) if info.name == "GND"]


def markdown(pin_map: PinMap) -> str:
    """The wiring table and its notes as Markdown (ends with a newline)."""
    lines = ["| Seat | Button or light | GPIO | Header pin |", "|---|---|---|---|"]
    lines += [f"| {r.seat} | {r.what} | {r.gpio} | {r.header} |" for r in wiring_rows(pin_map)]
    reserved = dict(ALWAYS_RESERVED)
    if pin_map.reserve_uart:
        reserved.update(UART_PINS)
    used = {p.name for p in pin_map.all_pins()}
    gpios = _gpio_pins()
    free = [f"{name} (header pin {number})" for name, number in sorted(gpios, key=lambda g: int(g[0][4:]))
            if name not in used and name not in reserved]
    held = [f"{name} (header pin {number}) for {reserved[name]}"
            for name, number in sorted(gpios, key=lambda g: int(g[0][4:])) if name in reserved]
    lines += [
        "",
        f"Buttons connect the GPIO to a ground pin (internal pull-up, pressed reads low; "
        f"debounce {pin_map.bounce_time * 1000:g} ms, sit in / sit out is held "
        f"{pin_map.hold_time:g} s). Each light: GPIO, a 330 ohm resistor, the LED's anode; "
        f"its cathode to ground. Ground pins: {', '.join(map(str, _ground_pins()))}.",
        "",
        f"Reserved: {'; '.join(held)}. Free: {', '.join(free) if free else 'none'}.",
        "",
        "Larger tables, the `[gpio]` keys and `livetable wiring --probe` (an installer's check "
        "on the Pi): see `docs/wiring.md`.",
    ]
    return "\n".join(lines) + "\n"


def replace_section(text: str, body: str) -> str:
    """Return ``text`` with the part between the wiring markers replaced by ``body``.

    Raises ``ValueError`` when the markers are missing or out of order.
    """
    start = text.find(START)
    end = text.find(END)
    if start < 0 or end < 0 or end < start:
        raise ValueError(f"README has no {START} ... {END} section")
    return text[: start + len(START)] + "\n" + body + text[end:]


def readme_section(text: str) -> str:
    """The current text between the wiring markers (without the markers).

    Raises ``ValueError`` when the markers are missing or out of order.
    """
    start = text.find(START)
    end = text.find(END)
    if start < 0 or end < 0 or end < start:
        raise ValueError(f"README has no {START} ... {END} section")
    return text[start + len(START): end].removeprefix("\n")


def main(argv: list[str]) -> int:
    """Run ``livetable wiring``; see the module docstring for options and exit codes."""
    parser = argparse.ArgumentParser(prog="livetable wiring",
                                     description="Print the GPIO wiring table of a pin map.")
    parser.add_argument("--markdown", action="store_true",
                        help="print the table as Markdown (the default output)")
    parser.add_argument("--config", type=Path,
                        help="a table TOML config; its [gpio] section (default: built-in map)")
    parser.add_argument("--update-readme", action="store_true",
                        help="rewrite the README's wiring section")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when the README's wiring section is out of date")
    parser.add_argument("--readme", type=Path, default=README, help="README to update/check")
    parser.add_argument("--probe", action="store_true",
                        help="on the Pi: light each light, ask for each button, report faults")
    parser.add_argument("--timeout", type=float, default=10.0,
                        help="seconds to wait for each button with --probe")
    args = parser.parse_args(argv)
    try:
        pin_map = load_pin_map(args.config) if args.config else DEFAULT_PIN_MAP
    except (ConfigError, OSError) as exc:
        print(f"livetable wiring: {exc}", file=sys.stderr)
        return 2
    if args.probe:
        return _probe(pin_map, args.timeout)
    body = markdown(pin_map)
    if not (args.update_readme or args.check):
        sys.stdout.write(body)
        return 0
    try:
        text = args.readme.read_text(encoding="utf-8")
        current = readme_section(text)
    except (OSError, ValueError) as exc:
        print(f"livetable wiring: {args.readme}: {exc}", file=sys.stderr)
        return 2
    if current == body:
        print(f"{args.readme}: wiring section up to date")
        return 0
    if args.check:
        print(f"{args.readme}: wiring section out of date; run `livetable wiring "
              f"--update-readme`", file=sys.stderr)
        return 1
    args.readme.write_text(replace_section(text, body), encoding="utf-8")
    print(f"{args.readme}: wiring section updated")
    return 0


def _probe(pin_map: PinMap, timeout: float) -> int:
    from drivers.seats.factory import GpioUnavailable, real_pin_factory
    from drivers.seats.probe import probe

    try:
        factory = real_pin_factory()
    except GpioUnavailable as exc:
        print(f"livetable wiring --probe: {exc}", file=sys.stderr)
        return 2
    results = probe(pin_map, factory, lambda step: print(step.prompt(), flush=True),
                    press_timeout=timeout)
    faults = [r for r in results if r.ok is False]
    for r in results:
        mark = {True: "ok  ", False: "FAIL", None: "seen"}[r.ok]
        print(f"{mark} {r.key:<24} {r.pin:<7} {r.detail}")
    print(f"{len(faults)} fault(s) in {len(results)} pins")
    return 1 if faults else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
