"""``livetable run --check`` refuses what the breaker's second attack passed (issue 16, e):
control and format characters (U+202E's bidi override ...) in ``table.name``, a folder given
for a file the table reads, and a key of the wrong type reported once, with no follow-on
errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller import app
from controller.config import ConfigError, load_config

BASE = '[table]\nid = "t1"\nseats = 6\nbig_blind = 100\nsmall_blind = 50\n[shuffler]\nport = "/dev/ttyUSB0"\n'


def _errors(tmp_path: Path, text: str) -> list[str]:
    cfg = tmp_path / "table.toml"
    cfg.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_config(cfg)
    return [e.removeprefix(f"{cfg}: ") for e in err.value.errors]


@pytest.mark.parametrize("char", ["\u202e", "\u202d", "\u2066", "\u200b", "\u200f", "\ufeff", "\u2028",
                                  "\u0085", "\ue000"])
def test_control_and_format_characters_in_the_name_are_refused(char, tmp_path):
    name = f"Table{char}1"
    errors = _errors(tmp_path, BASE.replace('id = "t1"', f'id = "t1"\nname = "{name}"'))
    assert len(errors) == 1 and errors[0].startswith("table.name: control or format characters")
    assert f"U+{ord(char):04X}" in errors[0]


def test_a_plain_name_with_accents_and_emoji_is_fine(tmp_path):
    cfg = tmp_path / "table.toml"
    cfg.write_text(BASE.replace('id = "t1"', 'id = "t1"\nname = "Table Éé 🂡 1"'), encoding="utf-8")
    assert load_config(cfg).table.name == "Table Éé 🂡 1"


@pytest.mark.parametrize("section,key,extra", [
    ("mqtt", "password_file", ""),
    ("camera", "calibration", 'source = 0\n'),
    ("camera", "enrolment", 'source = 0\n'),
    ("camera", "source", ""),
    ("shuffler", "port", ""),
])
def test_a_folder_given_for_a_file_is_refused(section, key, extra, tmp_path):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    text = BASE if section != "shuffler" else BASE.replace('port = "/dev/ttyUSB0"', f'port = "{folder}"')
    if section != "shuffler":
        text += f'[{section}]\n{extra}{key} = "{folder}"\n'
    errors = _errors(tmp_path, text)
    assert errors == [f"{section}.{key}: {folder} is a folder, not a file"]


@pytest.mark.parametrize("key,value", [("big_blind", '"100"'), ("big_blind", "100.0"), ("big_blind", "true")])
def test_a_wrong_type_is_reported_once_with_its_key(key, value, tmp_path):
    text = BASE.replace("big_blind = 100", f"{key} = {value}")
    text = text.replace("small_blind = 50", "small_blind = 50\nante = 25\nbuy_in_min = 2000\nbuy_in_max = 10000")
    errors = _errors(tmp_path, text)
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"table.{key}: must be a whole number")


def test_run_check_exits_2_naming_each_key(tmp_path, capsys):
    folder = tmp_path / "f"
    folder.mkdir()
    cfg = tmp_path / "table.toml"
    cfg.write_text(BASE.replace('id = "t1"', 'id = "t1"\nname = "Evil\u202eelbaT"').replace("big_blind = 100", 'big_blind = "100"')
                   + f'[mqtt]\npassword_file = "{folder}"\n', encoding="utf-8")
    assert app.main(["--config", str(cfg), "--check"]) == 2
    err = capsys.readouterr().err
    assert "table.name: control or format characters" in err and "table.big_blind: must be a whole number" in err
    assert f"mqtt.password_file: {folder} is a folder" in err and "small_blind" not in err
