"""The installer's wiring check (`livetable wiring --probe`) on gpiozero's mock pins."""

from __future__ import annotations

from drivers.seats.pinmap import parse_pin_map
from drivers.seats.probe import ProbeStep, probe

PIN_MAP = parse_pin_map({"console": {"start": "GPIO20"},
                         "seats": {"1": {"fold": "GPIO4", "check_call": "GPIO17",
                                         "led": "GPIO18"}}})


def test_probe_reports_right_swapped_missing_and_stuck_buttons(factory) -> None:
    # The "installer": presses the asked button, except that seat 1's fold and check/call
    # wires are swapped, and start is never pressed.
    swapped = {"GPIO4": "GPIO17", "GPIO17": "GPIO4"}
    asked: list[ProbeStep] = []

    def installer(step: ProbeStep) -> None:
        asked.append(step)
        if step.kind == "button" and step.pin.name != "GPIO20":
            pin = factory.pin(swapped[step.pin.name])
            pin.drive_low()
            pin.drive_high()

    results = probe(PIN_MAP, factory, installer, press_timeout=0.05, light_seconds=0)
    assert [(s.kind, s.pin.key) for s in asked] == [
        ("light", "gpio.seats.1.led"), ("button", "gpio.console.start"),
        ("button", "gpio.seats.1.fold"),
        ("button", "gpio.seats.1.check_call")]
    assert "press gpio.seats.1.fold (GPIO4, header pin 7)" == asked[2].prompt()
    by_key = {r.key: r for r in results}
    assert by_key["gpio.seats.1.led"].ok is None
    assert by_key["gpio.console.start"].ok is False
    assert "no press" in by_key["gpio.console.start"].detail
    assert by_key["gpio.seats.1.fold"].ok is False
    assert "gpio.seats.1.check_call (GPIO17, header pin 11) instead" in (
        by_key["gpio.seats.1.fold"].detail)
    assert by_key["gpio.seats.1.check_call"].ok is False
    assert len(results) == 4


def test_probe_passes_a_correct_wiring_and_flags_a_stuck_button(factory) -> None:
    def installer(step: ProbeStep) -> None:
        pin = factory.pin(step.pin.name)
        if step.kind == "light":
            factory.pin("GPIO17").drive_low()  # check/call's wire touches ground
        elif step.pin.name != "GPIO17":
            pin.drive_low()
            pin.drive_high()

    results = probe(PIN_MAP, factory, installer, press_timeout=0.05, light_seconds=0)
    by_key = {r.key: (r.ok, r.detail) for r in results}
    assert by_key["gpio.console.start"] == (True, "ok")
    assert by_key["gpio.seats.1.fold"] == (True, "ok")
    assert by_key["gpio.seats.1.check_call"][0] is False
    assert "shorted to ground" in by_key["gpio.seats.1.check_call"][1]
    assert factory.pin("GPIO18").states[-1].state == 0  # the light is off again
    assert [s.state for s in factory.pin("GPIO18").states].count(1.0) == 1  # lit once


def test_probe_cli_exit_codes(tmp_path, capsys, monkeypatch, factory) -> None:
    from drivers.seats import factory as factories
    from drivers.seats.wiring import main

    config = tmp_path / "table.toml"
    config.write_text('[gpio.seats.1]\nfold = "GPIO4"\nled = "GPIO18"\n')

    def no_gpio():
        raise factories.GpioUnavailable("not a Pi")

    monkeypatch.setattr(factories, "real_pin_factory", no_gpio)
    assert main(["--probe", "--config", str(config)]) == 2
    assert "not a Pi" in capsys.readouterr().err

    monkeypatch.setattr(factories, "real_pin_factory", lambda: factory)
    assert main(["--probe", "--config", str(config), "--timeout", "0.01"]) == 1
    out = capsys.readouterr().out
    assert "press gpio.seats.1.fold (GPIO4, header pin 7)" in out
    assert "FAIL gpio.seats.1.fold" in out and "1 fault(s) in 2 pins" in out
