"""`livetable wiring`: the README wiring table is generated from the default pin map."""

from __future__ import annotations

from pathlib import Path

from controller.cli import main as livetable
from drivers.seats.pinmap import DEFAULT_PIN_MAP, parse_pin_map
from drivers.seats.wiring import (END, README, START, main, markdown, readme_section,
                                  replace_section, wiring_rows)

REPO = Path(__file__).resolve().parents[2]


def test_readme_wiring_section_matches_the_default_pin_map() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert readme_section(text) == markdown(DEFAULT_PIN_MAP), (
        "README.md's wiring table is out of date: run `livetable wiring --update-readme`")
    assert README == REPO / "README.md"


def test_every_pin_of_the_map_is_one_row_with_its_header_pin() -> None:
    rows = wiring_rows(DEFAULT_PIN_MAP)
    assert len(rows) == len(DEFAULT_PIN_MAP.all_pins())
    by_gpio = {r.gpio: r for r in rows}
    assert (by_gpio["GPIO17"].seat, by_gpio["GPIO17"].header) == ("1", 11)
    assert by_gpio["GPIO17"].what.startswith("check / call")
    assert by_gpio["GPIO20"].seat == "console"
    table = markdown(DEFAULT_PIN_MAP)
    assert "| 1 | check / call (button) | GPIO17 | 11 |" in table
    assert "GPIO14 (header pin 8)" in table.split("Reserved:")[1]


def test_markdown_cli_prints_the_table_for_a_config(tmp_path, capsys) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[gpio]\nled_kind = "pwm"\n[gpio.seats.9]\nled = "BOARD12"\n')
    assert livetable(["wiring", "--markdown", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert out == markdown(parse_pin_map({"led_kind": "pwm", "seats": {"9": {"led": 18}}}))
    assert "| 9 | turn light (PWM LED) | GPIO18 | 12 |" in out


def test_a_bad_config_exits_2_naming_the_key(tmp_path, capsys) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[gpio.seats.1]\nfold = "GPIO4"\nled = "BOARD7"\n')
    assert main(["--config", str(config)]) == 2
    assert "gpio.seats.1.led: GPIO4 (header pin 7) is already used by gpio.seats.1.fold" in (
        capsys.readouterr().err)
    assert main(["--config", str(tmp_path / "missing.toml")]) == 2


def test_update_readme_rewrites_only_the_marked_section(tmp_path, capsys) -> None:
    readme = tmp_path / "README.md"
    before, after = "# Title\n\nintro\n", "\n## Later\ntext\n"
    readme.write_text(f"{before}{START}\nold table\n{END}{after}")
    assert main(["--check", "--readme", str(readme)]) == 1
    assert main(["--update-readme", "--readme", str(readme)]) == 0
    text = readme.read_text()
    assert text.startswith(before + START) and text.endswith(END + after)
    assert readme_section(text) == markdown(DEFAULT_PIN_MAP)
    assert main(["--check", "--readme", str(readme)]) == 0
    assert replace_section(text, markdown(DEFAULT_PIN_MAP)) == text  # idempotent


def test_a_readme_without_markers_is_an_error(tmp_path, capsys) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# no markers\n")
    assert main(["--update-readme", "--readme", str(readme)]) == 2
    assert "wiring:start" in capsys.readouterr().err
    assert readme.read_text() == "# no markers\n"
