"""The table's language in its TOML config (issue 20): ``[display] language`` for the
dealer display, ``[table] language`` for the table's screens (the tablets' default, carried
in the public state), both checked by ``livetable run --check`` with the key named."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from controller.config import load_config
from controller.engine.table.state import TableState
from controller.runtime import settings_from_config
from controller.views import public_view
from display.app import _language, _parser

REPO = Path(__file__).resolve().parents[2]
BASE = '[table]\nid = "t1"\nbig_blind = 100\n{table}\n[display]\nenabled = true\n{display}\n'


def _config(tmp_path: Path, *, table: str = "", display: str = "") -> Path:
    path = tmp_path / f"table{len(list(tmp_path.glob('*.toml')))}.toml"
    path.write_text(BASE.format(table=table, display=display))
    return path


def _lang(*argv: str) -> str:
    return _language(_parser().parse_args(list(argv)))


def test_the_display_speaks_the_language_its_config_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LIVETABLE_LANGUAGE", raising=False)
    cfg = _config(tmp_path, display='language = "nl"')
    assert load_config(cfg).display.language == "nl"
    assert _lang("--config", str(cfg)) == "nl"
    assert _lang("--config", str(cfg), "--language", "en") == "en"  # the option wins
    monkeypatch.setenv("LIVETABLE_LANGUAGE", "en")
    assert _lang("--config", str(cfg)) == "nl"  # the config's display.language beats the environment


def test_the_tables_language_is_the_displays_default_and_the_tablets(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LIVETABLE_LANGUAGE", raising=False)
    cfg = _config(tmp_path, table='language = "nl"\ntablet_join = "confirm"')
    assert _lang("--config", str(cfg)) == "nl"
    assert _lang("--config", str(_config(tmp_path))) == "en"
    settings = settings_from_config(load_config(cfg))
    assert settings.language == "nl"
    assert public_view(TableState(settings=settings, seats=(None,) * settings.seats))["language"] == "nl"  # what the tablets read
    # a journal written before the field opens with English (the default)
    assert type(settings).from_json({k: v for k, v in settings.to_json().items() if k != "language"}).language == "en"


@pytest.mark.parametrize(("table", "display", "key"), [
    ("", 'language = "fr"', "display.language"),
    ('language = "de"', "", "table.language"),
    ("", "language = 1", "display.language"),
])
def test_run_check_names_a_wrong_language(tmp_path: Path, table: str, display: str, key: str) -> None:
    cfg = _config(tmp_path, table=table, display=display)
    res = subprocess.run([sys.executable, "-m", "controller", "run", "--check", "--config", str(cfg)],
                         cwd=REPO, capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert key in res.stderr, res.stderr
    if '"' in table + display:  # a word that is no language: the choices are named
        assert "one of en, nl" in res.stderr, res.stderr
