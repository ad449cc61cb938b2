"""Config files from outside (issue 16, item 8): never a traceback; accepted, or refused
with every mistake naming its key, all in one run.

The breaker's cases (`livetable run --check`, 87 tried) as tests, then a hypothesis fuzz over
config files: the example config with values replaced by anything TOML can hold (huge and
negative numbers, floats, NaN, long strings, markup, control characters, arrays, nested
tables, unknown keys), and text that is barely TOML at all.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.config import MAX_CHIPS, MAX_NAME, ConfigError, load_config
from controller.runtime import settings_from_config

REPO = Path(__file__).resolve().parents[2]
BASE = '[table]\nid = "t1"\nbig_blind = 100\n[shuffler]\nport = "/dev/null"\n'


def _load(text: str, folder: Path) -> object:
    p = folder / "table.toml"
    p.write_text(text, encoding="utf-8")
    return load_config(p)


def _refused(text: str, folder: Path) -> list[str]:
    with pytest.raises(ConfigError) as err:
        _load(text, folder)
    return err.value.errors


@pytest.mark.parametrize("text,key", [
    (BASE.replace("big_blind = 100", "big_blind = 100\nbuy_in_max = 1000000000000000"), "table.buy_in_max"),
    (BASE.replace('id = "t1"', 'id = "t1"\nname = "' + "A" * 300_000 + '"'), "table.name"),
    (BASE.replace('id = "t1"', 'id = "t1"\nname = "<b>Table</b>"'), "table.name"),
    (BASE.replace('id = "t1"', 'id = "t1"\nname = "Table\\u0007 1"'), "table.name"),
    (BASE + "[camera]\nsource = -5\n", "camera.source"),
    (BASE + "[camera]\nsource = -1\n", "camera.source"),
    (BASE + '[camera]\nsource = "-1"\n', "camera.source"),
    (BASE + "[camera]\nsource = 100000\n", "camera.source"),
    (BASE.replace("big_blind = 100", "big_blind = 100\nante = 1e3"), "table.ante"),
    (BASE + '[rake]\npercent = nan\n', "rake.percent"),
    (BASE + '[rake]\ncaps = { "2" = 100000000000 }\n', "rake.caps.2"),
])
def test_breakers_configs_are_refused_naming_the_key(text, key, tmp_path):
    errors = _refused(text, tmp_path)
    assert any(e.split(": ", 1)[1].startswith(key + ":") for e in errors), errors
    assert all(len(e) < 400 for e in errors)  # a 300 KB value is not printed back


def test_journal_path_that_is_a_folder_and_history_dir_that_is_a_file(tmp_path):
    (tmp_path / "hands").write_text("not a folder")
    (tmp_path / "journal").mkdir()
    errors = _refused(BASE + f'[journal]\npath = "{tmp_path / "journal"}"\nhistory_dir = "{tmp_path / "hands"}"\n',
                      tmp_path)
    keys = [e.split(": ")[1] for e in errors]
    assert keys == ["journal.path", "journal.history_dir"]
    # A file where a folder of the path should be is refused too.
    errors = _refused(BASE + f'[journal]\npath = "{tmp_path / "hands" / "j.sqlite"}"\n', tmp_path)
    assert "journal.path" in errors[0] and "is a file" in errors[0]


def test_every_mistake_of_a_file_in_one_run(tmp_path):
    text = ('[table]\nbig_blind = -1\nseats = 99\nname = "a<b"\nfoo = 1\n[mqtt]\nport = 0\n'
            '[camera]\nsource = -1\n[bogus]\n')
    keys = sorted(e.split(": ")[1] for e in _refused(text, tmp_path))
    assert keys == sorted(["bogus", "table.big_blind", "table.seats", "table.name", "table.foo",
                           "mqtt.port", "camera.source"])


@pytest.mark.parametrize("nesting", ["source = " + "[" * 3000 + "]" * 3000,
                                     "x = " + "[" * 100_000 + "]" * 100_000,
                                     "x = " + "{a = " * 3000 + "1" + "}" * 3000])
def test_deep_nesting_is_refused_not_a_recursion_traceback(nesting, tmp_path):
    errors = _refused(BASE + "[camera]\n" + nesting + "\n", tmp_path)
    assert len(errors) == 1
    assert "nested too deeply" in errors[0] or "camera.source: a device index" in errors[0]


def test_run_check_reports_every_mistake_and_exits_2(tmp_path):
    cfg = tmp_path / "t.toml"
    cfg.write_text(BASE + '[camera]\nsource = -1\n[mqtt]\nport = 0\n')
    res = subprocess.run([sys.executable, "-m", "controller", "run", "--check", "--config", str(cfg)],
                         cwd=REPO, capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "camera.source" in res.stderr and "mqtt.port" in res.stderr


# ---------------------------------------------------------------------- fuzz
#: after the file's name: a dotted key and its message, or what makes the file no config at all
_KEY = re.compile(r"(not valid TOML|not a table config|[a-z_]+(\.\S+)?: (?!Traceback)\S|\S+: unknown (key|section))")

scalars = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.sampled_from([0, 1, -1, 2, 100, 10**9, 10**9 + 1, 10**15, 2**53, -5, 255, 256]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=40),
    st.sampled_from(["", " ", "<script>", "A" * 70, "/tmp", "/dev/null", "holdem", "draw", "fixed-limit",
                     "confirm", "1280x720", "-1", "0"]),
)
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(["2", "3", "a", "10", "-1"]), inner, max_size=3)),
    max_leaves=8)


def _toml_value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, str):
        return json.dumps(v)  # a JSON string is a TOML basic string
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    assert isinstance(v, dict)
    return "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(x)}" for k, x in v.items()) + "}"


EXAMPLE = (REPO / "config" / "table.example.toml").read_text().split("# The default seat buttons")[0]
LINES = EXAMPLE.splitlines()
KEYED = [i for i, ln in enumerate(LINES) if re.match(r"^#? ?[a-z_]+ *=", ln)]


@st.composite
def configs(draw) -> str:
    lines = list(LINES)
    for i in draw(st.lists(st.sampled_from(KEYED), max_size=6, unique=True)):
        key = lines[i].lstrip("# ").split("=")[0].strip()
        if draw(st.booleans()) and key != "caps":
            key = draw(st.sampled_from([key, key + "x", "name", "source", "path", "history_dir"]))
        lines[i] = f"{key} = {_toml_value(draw(values))}"
    text = "\n".join(lines) + "\n"
    if draw(st.booleans()):
        text += draw(st.sampled_from(["[extra]\n", "[table.sub]\nx = 1\n", "x = 1\n", ""]))
    return text


def _property(text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        try:
            cfg = _load(text, Path(tmp))
        except ConfigError as exc:
            assert exc.errors, "a refusal says why"
            for e in exc.errors:
                prefix = str(Path(tmp) / "table.toml") + ": "
                assert e.startswith(prefix) and _KEY.match(e[len(prefix):]), f"no key named: {e!r}"
                assert len(e) < 1000
            return
    # accepted: what the table is built from is sound
    t = cfg.table
    assert 1 <= t.stakes.big_blind <= MAX_CHIPS and (t.buy_in_max is None or t.buy_in_max <= MAX_CHIPS)
    assert len(t.name) <= MAX_NAME and not set("<>&") & set(t.name)
    assert cfg.camera is None or isinstance(cfg.camera.source, str) or 0 <= cfg.camera.source <= 255
    settings_from_config(cfg)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
def test_fuzz_example_config_with_any_values(text):
    _property(text)


@settings(max_examples=200, deadline=None)
@given(st.text(st.sampled_from(list('[]{}="=.,#\n abc0123-_tx\\\'')), max_size=80))
def test_fuzz_text_that_is_barely_toml(text):
    _property(text)
