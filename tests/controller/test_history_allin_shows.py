"""The recall names every hand turned up, also those exposed at an all-in (S-8) without a
show action (issue 20: the history showed no "shows" line for them)."""

from __future__ import annotations

from pathlib import Path

from controller.history import recall
from tests.controller.test_history_recall import _settings
from tests.controller.test_history_support import Table


def test_every_hand_turned_up_has_a_shows_line(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    table = Table(path, _settings(), seats=[1, 2, 3, 4, 5, 6], seed=7)
    records = table.play(40)
    found = recall(path, hands=40)
    table.close()
    exposed = 0
    for h, rec in zip(found.hands, records):
        shown = {int(s) for s in (rec.get("result") or {}).get("shown") or {}}
        said = {st.seat for st in h.steps if st.kind == "show"}
        assert shown <= said, (rec["hand"], sorted(shown - said), [st.text for st in h.steps][-8:])
        exposed += bool(shown)
    assert exposed, "no hand was turned up in 40: the test shows nothing"
