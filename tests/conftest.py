"""Shared test fixtures: where ../shared is, and a skip when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

REPO = Path(__file__).resolve().parents[1]
SHARED = (REPO / ".." / "shared").resolve()


def shared_path(*parts: str) -> Path:
    """Return a path inside ../shared, skipping the test when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"test data {path} is absent (../shared beside the repo holds it)")
    return path


@pytest.fixture
def shared() -> "type[Path]":
    """The ../shared folder; the test is skipped when it is absent."""
    return shared_path()


def pytest_collection_modifyitems(config, items):
    """Skip every ``slow`` test (soaks: kill loops, the 200-hand room) unless asked for
    (``-m slow`` or ``LIVETABLE_SLOW=1``): CI runs the README's test command in minutes."""
    if "slow" in (config.getoption("-m") or "") or os.environ.get("LIVETABLE_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow: run with -m slow or LIVETABLE_SLOW=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
