"""The table session (issue 3): seats, button and blinds, timers and the chip ledger.

The single writer of a table's state is :func:`step` (``step(state, event) -> (state,
effects)``); events are in :mod:`.events`, effects in :mod:`.effects`, both encoded by
:mod:`.codec`. See docs/table.md.
"""
