"""Strict configuration: every mistake names its key (issue 9, L-2, T-2)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.config import ConfigError, load_config, parse_config

REPO = Path(__file__).resolve().parents[2]


def test_example_config_loads():
    cfg = load_config(REPO / "config" / "table.example.toml")
    assert cfg.table.stakes.big_blind == 100
    assert cfg.rake.caps == ((2, 100), (3, 200), (5, 300))
    assert cfg.shuffler is not None and cfg.shuffler.port == "/dev/ttyUSB0"
    assert (cfg.table.action_seconds, cfg.table.showdown_seconds) == (30, 10)


def test_p2_showdown_clock_reaches_the_table():
    from controller.runtime import settings_from_config

    cfg = parse_config({"table": {"big_blind": 100, "showdown_seconds": 7}})
    assert settings_from_config(cfg).showdown_seconds == 7
    assert settings_from_config(parse_config({"table": {"big_blind": 100}})).showdown_seconds == 10


def test_t2_default_buy_ins():
    nl = parse_config({"table": {"big_blind": 100}}).table
    assert (nl.buy_in_min, nl.buy_in_max) == (2000, 10000)
    fl = parse_config({"table": {"big_blind": 100, "limit": "fixed-limit", "small_bet": 100}}).table
    assert (fl.buy_in_min, fl.buy_in_max) == (2000, None)
    assert fl.stakes.big_bet == 200


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"table": {"big_blind": 100, "bigblind": 5}}, "table.bigblind"),
        ({"table": {"big_blind": -5}}, "table.big_blind"),
        ({"table": {"big_blind": "100"}}, "table.big_blind"),
        ({"table": {"big_blind": 100, "game": "draw", "seats": 9}}, "table.seats"),
        ({"table": {"big_blind": 100, "game": "stud"}}, "table.game"),
        ({"table": {"big_blind": 100, "small_blind": 200}}, "table.small_blind"),
        ({"table": {"big_blind": 100, "id": "t/1"}}, "table.id"),
        ({"table": {"big_blind": 100, "showdown_seconds": 0}}, "table.showdown_seconds"),
        ({"table": {"big_blind": 100}, "rake": {"caps": {"1": 5}}}, "rake.caps.1"),
        ({"table": {"big_blind": 100}, "mqtt": {"port": 70000}}, "mqtt.port"),
        ({"table": {"big_blind": 100}, "shuffler": {}}, "shuffler.port"),
        ({"table": {"big_blind": 100}, "camera": {"source": True}}, "camera.source"),
        ({"table": {"big_blind": 100}, "tabel": {}}, "tabel"),
        ({"table": {}}, "table.big_blind"),
        ({"table": {"big_blind": 100}, "journal": {"keep_hands": -1}}, "journal.keep_hands"),
        ({"table": {"big_blind": 100}, "journal": {"keep_hands": "500"}}, "journal.keep_hands"),
        ({"table": {"big_blind": 100}, "journal": {"keep_days": 3}}, "journal.keep_days"),
    ],
)
def test_mistakes_name_the_key(data, key):
    with pytest.raises(ConfigError) as err:
        parse_config(data)
    assert str(err.value).startswith(key + ":")


def test_broken_toml_names_file_and_line(tmp_path):
    p = tmp_path / "t.toml"
    p.write_text("[table]\nbig_blind = = 3\n")
    with pytest.raises(ConfigError, match=r"t\.toml: not valid TOML.*line 2"):
        load_config(p)
    with pytest.raises(ConfigError, match="no such config file"):
        load_config(tmp_path / "missing.toml")


def test_gpio_pin_map_is_checked_at_load():
    ok = parse_config({"table": {"big_blind": 100}, "gpio": {"seats": {"1": {"fold": "GPIO4", "led": "GPIO18"}}}})
    assert ok.gpio is not None
    with pytest.raises(ConfigError) as err:
        parse_config({"table": {"big_blind": 100},
                      "gpio": {"seats": {"1": {"fold": "GPIO4", "led": "GPIO4"}}}})
    assert str(err.value).startswith("gpio.seats.1.")


def test_journal_keep_hands_default_and_off():
    assert parse_config({"table": {"big_blind": 100}}).journal.keep_hands == 500
    assert parse_config({"table": {"big_blind": 100}, "journal": {"keep_hands": 0}}).journal.keep_hands == 0
    assert load_config(REPO / "config" / "table.example.toml").journal.keep_hands == 500
def test_t3_tablet_join_defaults_to_the_dealers_confirmation_and_refuses_unknown_modes():
    from controller.runtime import settings_from_config

    cfg = parse_config({"table": {"big_blind": 100}})
    assert cfg.table.tablet_join == "confirm" and settings_from_config(cfg).tablet_join == "confirm"
    cfg = parse_config({"table": {"big_blind": 100, "tablet_join": "direct"}})
    assert settings_from_config(cfg).tablet_join == "direct"
    with pytest.raises(ConfigError, match="table.tablet_join"):
        parse_config({"table": {"big_blind": 100, "tablet_join": "yes"}})


def test_camera_corner_reader_is_off_unless_asked_and_must_be_a_boolean():
    cfg = parse_config({"table": {"big_blind": 100}, "camera": {"source": 0}})
    assert cfg.camera.corners is False and cfg.camera.stall_timeout == 5.0
    assert parse_config({"table": {"big_blind": 100},
                         "camera": {"source": 0, "stall_timeout": 12}}).camera.stall_timeout == 12.0
    for bad in (0, 1.5, "5", float("nan")):  # under 2 s the watchdog would take a slow camera for a stalled one
        with pytest.raises(ConfigError, match="camera.stall_timeout"):
            parse_config({"table": {"big_blind": 100}, "camera": {"source": 0, "stall_timeout": bad}})
    assert parse_config({"table": {"big_blind": 100}, "camera": {"source": 0, "corners": True}}).camera.corners
    with pytest.raises(ConfigError, match="camera.corners"):
        parse_config({"table": {"big_blind": 100}, "camera": {"source": 0, "corners": "yes"}})


@pytest.mark.parametrize("data, words", [
    ({"table": {"big_blind": 100, "small_bet": 100}}, "table.small_bet: only for fixed limit"),
    ({"table": {"big_blind": 100}, "display": {"size": "huge"}}, "display.size: size must be WIDTHxHEIGHT"),
    ({"table": {"big_blind": 100}, "display": {"size": "200x100"}}, "display.size: size 200x100 is too small"),
    ({"table": {"big_blind": 100, "id": "a" * 33}}, "1..32"),
])
def test_config_mistakes_name_their_key_and_the_rule(data, words):
    with pytest.raises(ConfigError, match=re.escape(words)):
        parse_config(data)
    assert parse_config({"table": {"big_blind": 100}, "display": {"size": "1280x720"}}).display.size == "1280x720"


def test_run_check_refuses_a_password_file_it_cannot_read(tmp_path, capsys):
    from controller import app

    cfg = tmp_path / "t.toml"
    cfg.write_text('[table]\nbig_blind = 100\n[shuffler]\nport = "loop://"\n'
                   f'[mqtt]\nusername = "controller"\npassword_file = "{tmp_path / "nope"}"\n')
    assert app.main(["--config", str(cfg), "--check"]) == 2
    assert "mqtt.password_file" in capsys.readouterr().err
    (tmp_path / "nope").write_text("secret\n")
    assert app.main(["--config", str(cfg), "--check"]) == 0


def test_result_seconds_is_checked(tmp_path):
    """``[table] result_seconds`` (issue 20, the pacer's hold of a hand's result): 5 s by
    default, 0..60, refused otherwise (``livetable run --check``)."""
    assert parse_config({"table": {"big_blind": 100}}).table.result_seconds == 5
    assert parse_config({"table": {"big_blind": 100, "result_seconds": 0}}).table.result_seconds == 0
    for bad in (61, -1, "5", True):
        with pytest.raises(ConfigError, match="table.result_seconds"):
            parse_config({"table": {"big_blind": 100, "result_seconds": bad}})


def test_result_seconds_default_is_written_once() -> None:
    """Brief L item 6: ``[table] result_seconds``'s default stood in controller/runtime.py and
    twice in controller/config.py; one constant now, the config's, which the runtime re-exports."""
    import dataclasses
    import inspect

    from controller import config, runtime

    assert runtime.RESULT_SECONDS is config.RESULT_SECONDS
    field = {f.name: f for f in dataclasses.fields(config.TableConfig)}["result_seconds"]
    assert field.default is config.RESULT_SECONDS
    src = inspect.getsource(config) + inspect.getsource(runtime)
    assert src.count("RESULT_SECONDS = ") == 1
