"""The [gpio] pin map: parsing, resolution of gpiozero pin names, and start-up checks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.seats.events import ConsoleButton, SeatButton
from drivers.seats.factory import MOCK_REVISION
from drivers.seats.pinmap import (DEFAULT_PIN_MAP, ConfigError, LedKind, load_pin_map,
                                  parse_pin_map, pin_map_from_toml, resolve_pin)

REPO = Path(__file__).resolve().parents[2]
BOARD_INFO = MockFactory(revision=MOCK_REVISION).board_info
FREE_GPIOS = [f"GPIO{n}" for n in range(2, 28) if n not in (14, 15)]


def test_default_map_fits_the_header_without_reserved_or_shared_pins() -> None:
    pins = DEFAULT_PIN_MAP.all_pins()
    names = [p.name for p in pins]
    assert len(names) == len(set(names))
    assert not {"GPIO0", "GPIO1", "GPIO14", "GPIO15"} & set(names)
    assert [s.seat for s in DEFAULT_PIN_MAP.seats] == [1, 2, 3, 4]
    for seat in DEFAULT_PIN_MAP.seats:
        assert set(seat.buttons) == set(SeatButton) and seat.led is not None
    assert set(DEFAULT_PIN_MAP.console.buttons) == set(ConsoleButton)
    for pin in pins:  # header numbers agree with gpiozero's own board data
        [(header, info)] = list(BOARD_INFO.find_pin(pin.name))
        assert (header.name, info.number) == ("J8", pin.header)


@pytest.mark.parametrize("given_name", ["GPIO17", "BCM17", "BOARD11", "J8:11", 17, "17"])
def test_every_gpiozero_name_of_a_pin_resolves_to_its_broadcom_name(given_name) -> None:
    pin = resolve_pin(given_name, "gpio.seats.1.fold")
    assert (pin.name, pin.header, pin.bcm, pin.given) == ("GPIO17", 11, 17, given_name)


def test_the_same_pin_under_two_names_is_used_twice() -> None:
    with pytest.raises(ConfigError) as err:
        parse_pin_map({"seats": {"1": {"fold": "GPIO17", "led": "BOARD11"}}})
    assert err.value.key == "gpio.seats.1.led"
    assert "GPIO17 (header pin 11) is already used by gpio.seats.1.fold" in str(err.value)


def test_a_pin_shared_between_console_and_seat_names_both_keys() -> None:
    with pytest.raises(ConfigError, match=r"^gpio\.seats\.3\.sit: .*gpio\.console\.pause"):
        parse_pin_map({"console": {"pause": "GPIO21"}, "seats": {"3": {"sit": "J8:40"}}})


@pytest.mark.parametrize("value, words", [
    ("gpio17", "'GPIO17'"),          # case hint
    ("GPIO 17", "'GPIO17'"),
    ("GPIO28", "not a pin"),
    ("BOARD41", "not a pin"),
    ("BOARD1", "3V3, not a GPIO"),
    ("BOARD6", "GND, not a GPIO"),
    (True, "a pin is a name"),
    (3.5, "a pin is a name"),
    ("", "not a pin"),
])
def test_an_invalid_pin_name_is_refused_naming_the_key(value, words) -> None:
    with pytest.raises(ValueError) as err:  # ConfigError is a ValueError
        parse_pin_map({"seats": {"2": {"check_call": value}}})
    assert isinstance(err.value, ConfigError)
    assert str(err.value).startswith("gpio.seats.2.check_call: ")
    assert words in str(err.value)


@pytest.mark.parametrize("name", ["GPIO0", "GPIO1", "BOARD27", "GPIO14", "GPIO15", "BOARD10"])
def test_reserved_pins_are_refused(name) -> None:
    with pytest.raises(ConfigError, match=r"^gpio\.console\.confirm: GPIO\d+ .*reserved for"):
        parse_pin_map({"console": {"confirm": name}})


def test_uart_pins_can_be_released_but_the_hat_eeprom_cannot() -> None:
    pin_map = parse_pin_map({"reserve_uart": False, "console": {"start": "GPIO14"}})
    assert pin_map.console.buttons[ConsoleButton.START].name == "GPIO14"
    with pytest.raises(ConfigError, match="HAT ID EEPROM"):
        parse_pin_map({"reserve_uart": False, "console": {"start": "GPIO0"}})


@pytest.mark.parametrize("section, key", [
    ({"bounce": 0.01}, "gpio.bounce"),
    ({"console": {"stop": "GPIO5"}}, "gpio.console.stop"),
    ({"seats": {"1": {"foldd": "GPIO5"}}}, "gpio.seats.1.foldd"),
    ({"seats": {"1": {"call": "GPIO5"}}}, "gpio.seats.1.call"),
])
def test_unknown_keys_are_refused_naming_the_key(section, key) -> None:
    with pytest.raises(ConfigError) as err:
        parse_pin_map(section)
    assert err.value.key == key and "unknown key" in str(err.value)


@pytest.mark.parametrize("section, key", [
    ({"seats": {"0": {"led": "GPIO5"}}}, "gpio.seats.0"),
    ({"seats": {"11": {"led": "GPIO5"}}}, "gpio.seats.11"),
    ({"seats": {"one": {"led": "GPIO5"}}}, "gpio.seats.one"),
    ({"seats": {"1": {}}}, "gpio.seats.1"),
    ({"seats": {"1": "GPIO5"}}, "gpio.seats.1"),
    ({"seats": {"1": {"led": "GPIO5"}, "01": {"led": "GPIO6"}}}, "gpio.seats"),
    ({"bounce_time": -0.01}, "gpio.bounce_time"),
    ({"bounce_time": 0.6}, "gpio.bounce_time"),
    ({"bounce_time": "fast"}, "gpio.bounce_time"),
    ({"hold_time": 0}, "gpio.hold_time"),
    ({"hold_time": True}, "gpio.hold_time"),
    ({"led_kind": "rgb"}, "gpio.led_kind"),
    ({"reserve_uart": "yes"}, "gpio.reserve_uart"),
    ({"console": ["GPIO5"]}, "gpio.console"),
])
def test_bad_values_are_refused_naming_the_key(section, key) -> None:
    with pytest.raises(ConfigError) as err:
        parse_pin_map(section)
    assert err.value.key == key
    assert str(err.value).startswith(f"{key}: ")


def test_an_empty_section_wires_nothing_and_partial_seats_are_fine() -> None:
    assert parse_pin_map({}).all_pins() == []
    pin_map = parse_pin_map({"led_kind": "pwm", "hold_time": 2,
                             "seats": {"7": {"led": "GPIO5"}, "2": {"fold": 6}}})
    assert [s.seat for s in pin_map.seats] == [2, 7]
    assert pin_map.seat(7).buttons == {} and pin_map.seat(7).led.name == "GPIO5"
    assert pin_map.seat(2).led is None and pin_map.seat(3) is None
    assert pin_map.led_kind is LedKind.PWM and pin_map.hold_time == 2.0


def test_toml_files_are_read_with_tomllib(tmp_path) -> None:
    path = tmp_path / "table.toml"
    path.write_text('[table]\nname = "x"\n[gpio.seats.1]\nled = "BOARD12"\n')
    assert load_pin_map(path).seat(1).led.name == "GPIO18"
    path.write_text('[gpio.seats.1]\nled = "GPIO18\n')
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_pin_map(path)


def _toml_blocks(text: str) -> list[str]:
    return re.findall(r"```toml\n(.*?)```", text, flags=re.S)


def test_the_pin_maps_in_docs_wiring_md_are_valid() -> None:
    blocks = _toml_blocks((REPO / "docs" / "wiring.md").read_text(encoding="utf-8"))
    assert blocks, "docs/wiring.md shows at least one [gpio] example"
    for block in blocks:
        pin_map = pin_map_from_toml(block, source="docs/wiring.md")
        assert pin_map.all_pins()
    shown = pin_map_from_toml(blocks[0], source="docs/wiring.md")  # "The default" block
    assert [(p.key, p.name) for p in shown.all_pins()] == [
        (p.key, p.name) for p in DEFAULT_PIN_MAP.all_pins()]


def test_the_example_config_gpio_section_is_valid() -> None:
    path = REPO / "config" / "table.example.toml"
    if not path.exists():
        pytest.skip("config/table.example.toml is not written yet (issue 9)")
    load_pin_map(path)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_distinct_valid_pins_always_parse_and_a_repeat_always_fails(data) -> None:
    keys = [(str(seat), b) for seat in range(1, 5)
            for b in ("fold", "check_call", "bet_raise", "sit", "led")]
    chosen = data.draw(st.lists(st.sampled_from(keys), min_size=2, max_size=12, unique=True))
    pins = data.draw(st.lists(st.sampled_from(FREE_GPIOS), min_size=len(chosen),
                              max_size=len(chosen), unique=True))
    seats: dict[str, dict[str, str]] = {}
    for (seat, key), pin in zip(chosen, pins):
        seats.setdefault(seat, {})[key] = pin
    pin_map = parse_pin_map({"seats": seats})
    assert sorted(p.name for p in pin_map.all_pins()) == sorted(pins)
    # Re-use the first pin for the last key: refused, naming whichever key parses second.
    (seat, key) = chosen[-1]
    seats[seat][key] = pins[0]
    with pytest.raises(ConfigError, match="is already used by"):
        parse_pin_map({"seats": seats})
