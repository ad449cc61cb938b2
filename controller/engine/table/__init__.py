"""The table session (issue 3): seats, button and blinds, timers and the chip ledger.

The single writer of a table's state is :func:`step` (``step(state, event) -> (state,
effects)``); events are in :mod:`.events`, effects in :mod:`.effects`, both encoded by
:mod:`.codec`. See docs/table.md.
"""

from . import effects, events
from .codec import from_json, to_json
from .settings import TableSettings
from .state import TableState
from .step import run, step

__all__ = ["step", "run", "TableState", "TableSettings", "events", "effects", "to_json", "from_json"]
