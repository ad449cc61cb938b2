"""What the display and tablets show; the big-blind ante posted big blind first (TDA RP-11)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from controller.tournament.clock import TournamentClock
from controller.tournament.results import Standings
from controller.tournament.view import big_blind_ante_posts, tournament_view

from .helpers import settings


def test_view_shows_level_time_next_players_average_pool_and_big_blinds():
    s = settings()
    st = Standings(s)
    for p in "abc":
        st.register(p, 1)
    st.bust({"c": 10000})
    clock = TournamentClock(s)
    clock.start(0.0)
    v = tournament_view(clock.status(30.0), st, {"a": 17525, "b": 12475})
    assert v.level.number == 1 and v.seconds_left == 1170 and v.next_level.number == 2
    assert v.players_left == 2 and v.entries == 3 and v.average_stack == 15000
    assert v.prize_pool == 150
    assert v.stacks_in_big_blinds == {"a": 3505, "b": 2495}  # 350.5 and 249.5 BB at 25/50
    on_break = tournament_view(clock.status(41 * 60.0), st, {"a": 17525, "b": 12475})
    # during the break: the level after it is shown as the level, nothing after the last
    assert on_break.on_break and on_break.level.number == 3 and on_break.next_level is None
    with pytest.raises(ValueError, match="without a live entry"):
        tournament_view(clock.status(41 * 60.0), st, {"c": 1})


@pytest.mark.parametrize(
    "stack, posts",
    [(5000, (200, 200)), (300, (200, 100)), (200, (200, 0)), (150, (150, 0)), (0, (0, 0))],
)
def test_tda_rp_11_big_blind_ante_big_blind_first_when_short(stack, posts):
    level = settings().levels[2]  # 100/200, big-blind ante 200
    assert big_blind_ante_posts(stack, level) == posts


def test_the_package_imports_only_the_standard_library_and_itself():
    pkg = Path(__file__).resolve().parents[2] / "controller" / "tournament"
    for path in pkg.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # relative: inside the package
                    continue
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names or top == "__future__", f"{path.name} imports {name}"
                assert top not in {"time", "os", "socket", "pathlib", "io", "subprocess", "datetime"}, \
                    f"{path.name} imports {name}: the package reads no clock and does no I/O"
