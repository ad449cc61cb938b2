"""``livetable deal`` and ``livetable floor deal`` (issue 19): the deal calculator in the
director's hands. The figures expected are the library's (controller/tournament/deal.py),
never typed in here."""

from __future__ import annotations

import json

import pytest

from controller import cli
from controller.deal_cli import compute_deal
from controller.floor import FloorDesk
from controller.floor_cli import table_deal
from controller.tournament.deal import MAX_ICM_PLAYERS, chip_chop, icm_deal
from controller.tournament.results import payout_amounts

from .helpers import sim_tournament_run

STACKS, PAYOUTS = [52000, 31000, 17000], [500, 300, 200]


@pytest.mark.parametrize("method, fn", [("icm", icm_deal), ("chip-chop", chip_chop)])
def test_deal_prints_each_players_share_as_the_library_computes_it(capsys, method, fn) -> None:
    assert cli.main(["deal", "--stacks", "52000,31000,17000", "--payouts", "500,300,200",
                     "--method", method]) == 0
    out = capsys.readouterr().out.splitlines()
    shares = fn(STACKS, PAYOUTS)
    assert sum(shares) == 1000
    assert ("ICM" if method == "icm" else "chip chop") in out[0] and "1000 in prizes" in out[0]
    for i, (stack, share) in enumerate(zip(STACKS, shares), 1):
        assert out[i].split() == [f"P{i}", "stack", str(stack), "share", str(share)]
    assert "nothing is journalled" in out[-1]


def test_deal_json_and_more_payouts_than_players(capsys) -> None:
    assert cli.main(["deal", "--stacks", "52000,31000,17000", "--payouts", "500,300,200,100,50",
                     "--json", "--names", "Ann,Bob,Cy"]) == 0
    deal = json.loads(capsys.readouterr().out)
    assert deal["prizes"] == PAYOUTS and deal["left_out"] == [100, 50] and deal["total"] == 1000
    assert [p["share"] for p in deal["players"]] == icm_deal(STACKS, PAYOUTS)
    assert [p["name"] for p in deal["players"]] == ["Ann", "Bob", "Cy"]


@pytest.mark.parametrize("args, words", [
    (["--stacks", "52000,0", "--payouts", "5"], "stack must be chips > 0"),
    (["--stacks", "5,-3", "--payouts", "5"], "stack must be chips > 0"),
    (["--stacks", "5,3", "--payouts", "5,-1"], "prizes must be money >= 0"),
    (["--stacks", "5", "--payouts", "5"], "at least 2 players"),
    (["--stacks", "5,2.5", "--payouts", "5"], "integers only"),
    (["--stacks", "5,3", "--payouts", "five"], "integers only"),
    (["--stacks", ",".join(["10"] * (MAX_ICM_PLAYERS + 1)), "--payouts", "5"], f"limited to {MAX_ICM_PLAYERS}"),
    (["--stacks", "5,3", "--payouts", "5", "--method", "coin"], "invalid choice"),
    (["--stacks", "5,3", "--payouts", "5", "--unit", "0"], "unit must be >= 1"),
    (["--payouts", "5"], "--stacks"),
])
def test_deal_bad_input_is_a_clear_usage_error(capsys, args, words) -> None:
    assert cli.main(["deal", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and words in captured.err


def test_chip_chop_has_no_player_limit() -> None:
    deal = compute_deal([10] * (MAX_ICM_PLAYERS + 1), [100, 50], "chip-chop")
    assert sum(p["share"] for p in deal["players"]) == 150


def test_floor_deal_shares_the_prizes_left_among_the_players_left(tmp_path) -> None:
    """In-process tournament table: between hands with 3..5 players left, the floor status
    carries each live seat's stack and the prizes of the places not yet taken; the deal
    computed from it is the library's over the table's own numbers."""
    ts, run, director, clock = sim_tournament_run(tmp_path / "j.sqlite", "dl", 21)
    orch = run.orch
    desk = FloorDesk(orch, lambda *a: None, clock=clock)
    deals: list[tuple[dict, dict]] = []

    def between_hands() -> None:
        alive = director.standings.alive
        if orch.state.hand is None and 2 <= len(alive) <= 5 and len(deals) < 3 and (
                not deals or deals[-1][0]["tournament"]["players_left"] != len(alive)):
            st = json.loads(json.dumps(desk.status()))  # as it travels over MQTT
            deals.append((st, table_deal(st, "icm"), {s.seat: s.name for s in orch.state.occupied()}))
        if director.finished:
            orch.stop()

    run.run(poll=0.001, on_idle=between_hands)
    run.close()
    assert len(deals) >= 2, deals
    amounts = payout_amounts(ts.payouts, 600, 6)
    for st, deal, names in deals:
        left = st["tournament"]["players_left"]
        stacks = [p["stack"] for p in deal["players"]]
        assert len(stacks) == left and sum(stacks) == 12000
        assert deal["prizes"] == list(amounts[:left])
        assert [p["share"] for p in deal["players"]] == icm_deal(stacks, list(amounts[:left]), ts.payouts.unit)
        assert sum(p["share"] for p in deal["players"]) == sum(amounts[:left])
        assert all(p["name"] == f"seat {n} {names[n]}" for p, n in
                   zip(deal["players"], sorted(int(k) for k in st["tournament"]["deal"]["stacks"])))
    final = json.loads(json.dumps(desk.status()))
    with pytest.raises(ValueError, match="over"):
        table_deal(final, "icm")


def test_floor_deal_over_mqtt_at_a_running_simulated_tournament(tmp_path, capsys) -> None:
    """``livetable simulate --tournament --speed 1`` (a real process, the machine's broker on
    127.0.0.1:1883, a table id of its own) answers ``livetable floor deal``: 6 players left,
    the prizes of the simulated tournament, the library's shares of the stacks it reports."""
    import os
    import signal
    import subprocess
    import uuid

    from controller import floor_cli
    from controller.tournament.settings import load_settings
    from controller.tournament_run import SIM_TOML

    from .tourneyrun import REPO, command

    table = f"deal{uuid.uuid4().hex[:8]}"
    cmd = command(tmp_path / "j.sqlite", seed=3, devices="all", extra=("--speed", "1"))
    cmd[cmd.index("tourney")] = table
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    proc = subprocess.Popen([c for c in cmd if c != "--quiet"], cwd=REPO, env=env, text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        assert proc.stderr is not None
        for line in proc.stderr:  # the table is up once it says where its journal is
            if f"table {table}:" in line:
                break
        code = 4
        for _ in range(3):  # the controller's link may still be subscribing: a request then goes unheard
            code = floor_cli.main(["deal", "--table", table, "--json", "--timeout", "10"])
            if code != 4:
                break
        out = capsys.readouterr().out.strip().splitlines()[-1]
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
    assert code == 0, out
    deal = json.loads(out)
    ts = load_settings(SIM_TOML)
    prizes = list(payout_amounts(ts.payouts, 600, 6))
    stacks = [p["stack"] for p in deal["players"]]
    assert len(stacks) == 6 and deal["prizes"] == prizes and deal["unit"] == ts.payouts.unit
    assert [p["share"] for p in deal["players"]] == icm_deal(stacks, prizes, ts.payouts.unit)
