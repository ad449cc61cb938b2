"""The rules engine: pure poker rules, standard library only (no clock, randomness, I/O).

Exports, loaded lazily so that ``import controller.engine`` stays fast:

- ``equity(hole_cards, board=(), dead=())`` -- each player's share of the pot by exact
  enumeration of the remaining board (see :mod:`controller.engine.equity`).
- ``rank_hand``, ``rank_omaha``, ``best_five``, ``best_five_omaha``, ``describe``,
  ``describe_hand``, ``category`` -- hand ranking H-1..H-6 (see :mod:`controller.engine.evaluator`).
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "equity": "controller.engine.equity",
    "EquityError": "controller.engine.equity",
    "equity_fractions": "controller.engine.equity",
    "rank_hand": "controller.engine.evaluator",
    "rank_omaha": "controller.engine.evaluator",
    "best_five": "controller.engine.evaluator",
    "best_five_omaha": "controller.engine.evaluator",
    "describe": "controller.engine.evaluator",
    "describe_hand": "controller.engine.evaluator",
    "category": "controller.engine.evaluator",
    "HandError": "controller.engine.evaluator",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'controller.engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
