"""A small valid tournament for the tournament tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.tournament.settings import load_settings

TOML = """
[tournament]
starting_stack = 10000
chips = [25, 100, 500, 1000]
seats_per_table = 9
late_registration_until_level = 2
entry = { price = 50, fee = 5 }
reentry = { max = 1 }
rebuy = { price = 50, fee = 0, chips = 10000, max = 2, until_level = 2, max_stack = 10000 }
addon = { price = 40, fee = 0, chips = 15000, max = 1, at_break = 2 }

[[tournament.levels]]
small_blind = 25
big_blind = 50
minutes = 20

[[tournament.levels]]
small_blind = 50
big_blind = 100
ante = 25
minutes = 20

[[tournament.levels]]
break = 10
colour_up = [25]

[[tournament.levels]]
small_blind = 100
big_blind = 200
big_blind_ante = 200
minutes = 20

[tournament.payouts]
unit = 5
[[tournament.payouts.brackets]]
min_entries = 2
percent = [100]
[[tournament.payouts.brackets]]
min_entries = 6
percent = [65, 35]
[[tournament.payouts.brackets]]
min_entries = 10
percent = [50, 30, 20]
"""


def settings(text: str = TOML):
    """Return the settings of ``text`` (default: the small tournament above)."""
    return load_settings(text)


def collecting(check: Callable[[Any, list[Any]], None], failures: list[str]) -> Callable[[Any, list[Any]], None]:
    """Return an orchestrator listener that runs ``check(orch, effects)`` and records what
    it raises in ``failures`` (``"event N: AssertionError(...)"``): the orchestrator logs
    and swallows a listener's exception (the table keeps running), so a test's assertion
    made inside a listener (or a hook a listener calls, such as the pacer's ``post``) must
    be collected and asserted on after the run (``assert failures == []``)."""

    def listener(orch: Any, effects: list[Any]) -> None:
        try:
            check(orch, effects)
        except Exception as exc:  # noqa: BLE001 - every failure is the test's to report
            failures.append(f"event {orch.events_handled}: {exc!r}")

    return listener


def sim_tournament_run(journal: Any, table_id: str, seed: int) -> tuple[Any, Any, Any, Any]:
    """Return ``(settings, run, director, clock)``: the simulated 6-player tournament
    (``SIM_TOML``) at an opened in-process :class:`controller.composition.TableRun` with
    the internal dealer, simulated players (no think time) and a manual clock; ``journal``
    is the journal's path. The caller runs it (``run.run(...)``) and closes it."""
    from controller.clock import ManualClock
    from controller.composition import TableRun
    from controller.devices import DeviceChoice
    from controller.simdevices import SimulatedPlayers
    from controller.tournament_run import SIM_TOML, TournamentTable, table_settings

    ts = load_settings(SIM_TOML)
    table = table_settings(ts, table_id=table_id, game="holdem", limit="no-limit", seats=6)
    clock = ManualClock()
    director = TournamentTable(ts, SIM_TOML, players=6, seed=seed)
    players = SimulatedPlayers(list(range(1, 7)), seed=seed, clock=clock, speed=0)
    choice = DeviceChoice(table=table_id, seats=6, shuffler=None, internal_seed=seed, mqtt=False)
    run = TableRun(table, journal, choice, clock=clock, extras=[players, director])
    run.open()
    return ts, run, director, clock
