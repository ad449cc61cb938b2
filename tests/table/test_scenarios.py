"""Scenario scripts (tests/table/scenarios/*.txt, format in docs/table.md), one test each."""

from __future__ import annotations

from pathlib import Path

import pytest

from .scenario import Scenario

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*.txt"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario(path: Path) -> None:
    Scenario(path).run()
