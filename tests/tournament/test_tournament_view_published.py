"""The public state of a tournament table carries ``tournament_view`` (issue 19): level,
time left, next level, players left, average stack, prize pool, each seat's stack in big
blinds. Played in-process through :class:`controller.composition.TableRun` (the internal
dealer, simulated players), the view checked after every table event against the
standings and the table."""

from __future__ import annotations

from .helpers import collecting, sim_tournament_run


def test_public_state_carries_the_tournament_view_after_every_event(tmp_path) -> None:
    ts, run, director, clock = sim_tournament_run(tmp_path / "j.sqlite", "tv", 21)
    orch = run.orch
    seen: list[dict] = []
    failures: list[str] = []  # the orchestrator logs a listener's exception and carries on

    def check(o, effects) -> None:
        if not effects:
            return
        tv = o.public_view()["tournament_view"]
        seen.append(tv)
        alive = director.standings.alive
        assert tv["players_left"] == len(alive) and tv["entries"] == 6
        assert tv["prize_pool"] == 600 == director.standings.prize_pool()
        assert tv["average_stack"] == 12000 // len(alive)
        bb = tv["level"]["big_blind"]
        public = {s["seat"]: s for s in o.public_view()["seats"]}
        for seat, tenths in tv["seats_bb"].items():
            assert tenths == public[int(seat)]["stack"] * 10 // bb
        if o.state.hand is not None:  # TDA 23: the hand's blinds are the level shown at its deal
            assert o.state.hand.settings.big_blind == o.state.settings.big_blind

    orch.listeners.append(collecting(check, failures))
    run.run(poll=0.001, on_idle=lambda: orch.stop() if director.finished and orch.state.hand is None else None)
    run.close()
    assert failures == [], failures[:3]
    assert director.finished and not director.problems
    levels = [tv["level"]["number"] for tv in seen]
    assert levels == sorted(levels) and len(set(levels)) >= 2
    assert any(tv["next_level"] and tv["next_level"]["number"] == tv["level"]["number"] + 1 for tv in seen)
    assert all(tv["seconds_left"] is None or 0 <= tv["seconds_left"] <= 600 for tv in seen)
    assert seen[-1]["finished"] and seen[-1]["players_left"] == 1


def test_busted_seats_show_their_place_and_prize_and_players_are_named_by_their_seat(tmp_path) -> None:
    """Newcomer findings (issue 19): the tablet at seat 3 read "Player 1 (you)"; a busted
    seat showed no place or prize (the view's ``out``, TDA simultaneous eliminations for
    ties); the simulated clock's speed was not said (``clock_speed``)."""
    ts, run, director, clock = sim_tournament_run(tmp_path / "j.sqlite", "tvo", 5)
    orch = run.orch
    outs: dict[str, dict] = {}
    failures: list[str] = []  # the orchestrator logs a listener's exception and carries on

    def check(o, effects) -> None:
        if not effects:
            return
        view = o.public_view()
        tv = view["tournament_view"]
        occupied = {s["seat"]: s for s in view["seats"] if s["status"] != "empty"}
        for seat, s in occupied.items():
            assert s["name"] == f"Player {seat}"
        places = {f.player: f for f in director.standings.finishes()}
        for seat, out in tv["out"].items():
            assert int(seat) not in occupied
            player = next(p for p, n in director.draw.items() if n == int(seat))
            assert out["place"] == places[player].place and out["name"] == f"Player {seat}"
            outs[seat] = out
        assert isinstance(tv["clock_speed"], int) and tv["clock_speed"] >= 1

    orch.listeners.append(collecting(check, failures))

    def idle() -> None:  # the table's clock moves on between events (a show window ends: P-2)
        clock.advance(1.0)
        if director.finished and orch.state.hand is None:
            orch.stop()

    run.run(poll=0.001, on_idle=idle)
    run.close()
    assert failures == [], failures[:3]
    assert director.finished and not director.problems
    assert sorted(o["place"] for o in outs.values()) == [2, 3, 4, 5, 6]
    result = director.result
    assert result is not None
    for out in outs.values():  # the prize shown is the one paid
        assert out["prize"] == result["payouts"][out["place"] - 1]
