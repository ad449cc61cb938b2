"""A table of the room's tournament started again with a config whose stakes differ from its
journal's (newcomer finding F7 side note): its stakes come from the room's orders ("required,
not used", docs/tournament.md), so it neither logs "the config changed [...]: applied between
hands" nor journals the config's stakes; a cash table still applies them."""

from __future__ import annotations

import logging

import pytest

from controller.clock import ManualClock
from controller.composition import TableRun
from controller.devices import DeviceChoice
from controller.engine.table import events as ev
from controller.engine.table.settings import TableSettings
from controller.tournament_link import RoomTournamentSeat


def _open(tmp_path, big_blind: int, room: bool) -> TableRun:
    extras = [RoomTournamentSeat("t1", host="127.0.0.1", port=1)] if room else []
    run = TableRun(TableSettings(id="t1", seats=8, small_blind=big_blind // 2, big_blind=big_blind),
                   tmp_path / "j.sqlite", DeviceChoice(table="t1", seats=8, shuffler=None, internal_seed=1, mqtt=False),
                   clock=ManualClock(), extras=extras)
    run.open()
    return run


@pytest.mark.parametrize("room", [True, False])
def test_a_changed_configs_stakes(tmp_path, caplog: pytest.LogCaptureFixture, room: bool) -> None:
    first = _open(tmp_path, 100, room)
    # one journalled event (a journal with none is a fresh start, which takes the config as it is)
    first.orch.handle(ev.SettingsChanged(at=0.0, changes={"action_seconds": 30.0}, by="test"))
    first.close()
    with caplog.at_level(logging.WARNING):
        run = _open(tmp_path, 1000, room)
    try:
        said = [r.getMessage() for r in caplog.records if "since the journal's table was set up" in r.getMessage()]
        if room:
            assert said == [] and run.orch.state.settings.big_blind == 100
        else:
            assert len(said) == 1 and "'big_blind'" in said[0] and run.orch.state.settings.big_blind == 1000
    finally:
        run.close()
