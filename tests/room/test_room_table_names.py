"""``livetable room simulate`` gives its tables distinct names (issue 18: four simulated
tables all named "Simulated holdem" read alike in the lobby)."""

from __future__ import annotations

from controller.simulate import _settings, build_parser
from room.simulate import TABLE_NAMES, table_name


def test_simulated_tables_have_distinct_names() -> None:
    names = [table_name(f"t{n}") for n in range(1, 61)]
    assert len(set(names)) == 60
    assert names[:4] == list(TABLE_NAMES[:4])
    assert table_name("t61") == "Table 61" and table_name("x") == "Table x"


def test_simulate_takes_the_table_name() -> None:
    args = build_parser().parse_args(["--table", "t2", "--name", table_name("t2")])
    assert _settings(args).name == "Birch"
    assert _settings(build_parser().parse_args([])).name == "Simulated holdem"  # the default stays
