"""Fixtures for the display tests: a pygame renderer on SDL's dummy driver."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))  # display_states


@pytest.fixture(scope="session")
def renderer():
    """One Renderer (pygame fonts) for the whole session."""
    from display.render import Renderer

    return Renderer()
