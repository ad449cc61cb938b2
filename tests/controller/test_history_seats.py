"""``livetable history`` shows buy-ins, top-ups, seat changes (T-2..T-8) in time order with
who decided, so that each hand's stacks follow from the last one's; and names the kickers
(H-4) where they decide a showdown. Production path: orchestrator, journal, floor desk,
internal dealer, simulated players; the recall reads the journal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controller.engine import evaluator
from controller.engine.table import events as ev
from controller.engine.table.settings import TableSettings
from controller.floor import FloorDesk
from controller.history import HandRecall, recall
from drivers.mqtt.events import FloorRequestReceived
from tests.controller.test_history_recall import _check_against_record, history_cli_text
from tests.controller.test_history_support import Table


def _settings(**kw: Any) -> TableSettings:
    base: dict[str, Any] = dict(id="t3", name="Table 3", game="holdem", limit="no-limit", seats=6,
                                small_blind=50, big_blind=100, action_seconds=30.0, rake_percent=5,
                                rake_caps=((2, 300),), buy_in_min=2000, buy_in_max=10000)
    base.update(kw)
    return TableSettings(**base)


def _check_chips_follow(hands: list[HandRecall]) -> int:
    """Follow every seat's stack through the hands and the seat lines between and during
    them: each chip line starts from the stack the seat last had, and each hand starts every
    seat at the stack it last had (the end of its last hand, plus buy-ins and top-ups, less
    cash-outs). Return how many chip lines there were."""
    last: dict[int, int] = {}
    lines = 0

    def chips(steps: list[Any]) -> None:
        nonlocal lines
        for st in steps:
            if "stack_before" not in st.data:
                continue
            lines += 1
            assert st.data["stack"] - st.data["stack_before"] == st.data["amount"], st.text
            if st.seat in last:
                assert st.data["stack_before"] == last[st.seat], st.text
            last[st.seat] = st.data["stack"]

    for h in hands:
        chips([st for st in h.steps if st.data.get("between")])
        for s in h.seats:
            if s["seat"] in last:
                assert last[s["seat"]] == s["start"], (h.number, s["seat"], last[s["seat"]], s["start"])
        chips([st for st in h.steps if not st.data.get("between")])
        last.update({s["seat"]: s["end"] for s in h.seats})
    return lines


def test_rebuys_after_busting_are_shown_and_the_stacks_add_up(tmp_path: Path) -> None:
    """T-2: a busted simulated player buys in again between hands; the recall says so
    before the next hand, and every hand's starting stacks follow from the hand before."""
    path = tmp_path / "j.sqlite"
    table = Table(path, _settings(), seats=[1, 2, 3, 4, 5, 6], seed=3, stack=2000)
    records = table.play(20)
    table.close()
    found = recall(path, hands=20)
    assert [h.number for h in found.hands] == list(range(1, 21))
    for h, rec in zip(found.hands, records):
        _check_against_record(h, rec)
    assert _check_chips_follow(found.hands) > 0
    rebuys = [st for h in found.hands for st in h.steps if st.data.get("event") == "bought-in"
              and "again" in st.text]
    assert rebuys, "no player busted and bought in again: pick another seed"
    for st in rebuys:
        assert st.kind == "seat" and st.data["between"] and st.data["stack_before"] == 0
        assert f"buys in again for {st.data['amount']} (T-2), stack 0 -> {st.data['amount']}" in st.text
    # the text: a "Between hands:" block before the seats of the next hand
    number = next(h.number for h in found.hands if any(st in rebuys for st in h.steps))
    text = history_cli_text(path, "--hand", str(number))
    block = text[text.index("Between hands:"):text.index("Seats:")]
    assert "buys in again for" in block


def test_tablet_join_floor_confirm_topups_and_standing_up_in_time_order(tmp_path: Path) -> None:
    """T-3: a player joins from the tablet, the floor (floor:Anna) confirms the buy-in;
    T-7 top-ups between hands and during a hand (added when it ends); T-8 standing up
    during a hand (paid out when it ends) and T-5 sitting out: each is in the recall where
    it happened, with who decided, and the stacks add up from hand to hand."""
    path = tmp_path / "j.sqlite"
    table = Table(path, _settings(tablet_join="confirm"), seats=[1, 2, 3, 4], seed=5, stack=5000)
    answers: list[tuple[Any, ...]] = []
    desk = FloorDesk(table.orch, lambda *a: answers.append(a), clock=table.clock)
    table.orch.listeners.append(desk.after_step)
    table.play(2)
    assert table.orch.state.hand is None
    # between hands 2 and 3
    table.orch.post(ev.PlayerJoined(at=table.clock(), seat=5, player="t-ann", name="Ann", amount=3000))
    table.orch.pump()
    desk.request(FloorRequestReceived(request_id="r1", command="confirm-buyin", by="Anna",
                                      at=table.clock(), seat=5))
    table.orch.pump()
    assert answers and answers[-1][2] is True, answers
    table.orch.post(ev.ToppedUp(at=table.clock(), seat=1, amount=1000))
    table.orch.post(ev.SatOut(at=table.clock(), seat=2))
    table.orch.pump()
    # during hand 3: a top-up (added at the end) and seat 3 standing up
    table.play_until(lambda o: o.state.hand is not None and o.state.info.number == 3)
    table.orch.handle(ev.ToppedUp(at=table.clock(), seat=1, amount=500))
    table.orch.handle(ev.StoodUp(at=table.clock(), seat=3))
    table.play(3)
    table.orch.post(ev.SatIn(at=table.clock(), seat=2, post=False))
    table.play(4)
    table.close()

    found = recall(path, hands=3)
    h2, h3, h4 = found.hands[:3]
    assert [h2.number, h3.number, h4.number] == [2, 3, 4]
    between3 = [st for st in h3.steps if st.data.get("between")]
    assert [st.data["event"] for st in between3] == ["player-joined", "player-joined", "buy-in-confirmed",
                                                      "topped-up", "sat-out"]
    joined, waiting, confirmed, topped, out = between3
    assert "sits down from the seat's tablet, player t-ann (T-3)" in joined.text
    assert waiting.data.get("pending") and "3000" in waiting.text and "stack" not in waiting.data
    assert confirmed.data["by"] == "floor:Anna" and confirmed.data["amount"] == 3000
    assert "buy-in of 3000 confirmed by floor:Anna" in confirmed.text and confirmed.text.endswith("stack 0 -> 3000")
    assert topped.seat == 1 and topped.data["amount"] == 1000 and "tops up 1000 (T-7)" in topped.text
    assert out.seat == 2 and "sits out" in out.text
    assert h3.steps.index(out) < next(k for k, st in enumerate(h3.steps) if st.kind == "post")
    # during the hand, at the moment it happened
    asked = [st for st in h3.steps if not st.data.get("between") and st.data.get("event") == "topped-up"]
    assert asked and "asks to top up 500 (T-7: added when the hand ends)" in asked[0].text
    stood = [st for st in h3.steps if st.data.get("event") == "stood-up" and st.seat == 3]
    assert len(stood) == 1 and not stood[0].data.get("between")
    # T-8: the hand is folded first (not played on by the table "check when free, else fold")
    assert "(T-8: the hand is folded" in stood[0].text and "acts for the player" not in stood[0].text
    folded = [st for st in h3.steps if st.seat == 3 and st.data.get("action") == "leave"]
    assert len(folded) == 1 and "folds: the player stood up (T-8)" in folded[0].text
    assert h3.steps.index(stood[0]) < h3.steps.index(folded[0])
    assert not any(st.seat == 3 and st.data.get("action") in ("check", "call", "bet", "all_in")
                   for st in h3.steps[h3.steps.index(folded[0]):])
    # after hand 3, before hand 4: the top-up added and seat 3 paid out, then seat 2 back
    between4 = [st for st in h4.steps if st.data.get("between")]
    added = [st for st in between4 if st.data["event"] == "topped-up"]
    assert added and added[0].data["amount"] == 500 and "added after the hand (T-7)" in added[0].text
    end3 = {s["seat"]: s["end"] for s in h3.seats}
    left = [st for st in between4 if st.data["event"] == "seat-freed"]
    assert left and left[0].seat == 3 and left[0].data["amount"] == -end3[3]
    assert f"leaves the table with {end3[3]} (T-8)" in left[0].text
    assert any(st.data["event"] == "sat-in" and st.seat == 2 for st in between4)
    assert 3 not in {s["seat"] for s in h4.seats} and 5 in {s["seat"] for s in h3.seats}
    assert _check_chips_follow([h2, h3, h4]) >= 4
    text = history_cli_text(path, "--hand", "3")
    assert text.index("Between hands:") < text.index("confirmed by floor:Anna") < text.index("Seats:")


def test_the_kickers_that_decide_a_showdown_are_named(tmp_path: Path) -> None:
    """H-4: where two shown hands have the same call (``Pair of queens``), the recall's show
    lines and the pot name every kicker, and the pot says the kickers decided it."""
    path = tmp_path / "j.sqlite"
    table = Table(path, _settings(), seats=[1, 2, 3, 4, 5, 6], seed=3)
    table.play(40)
    table.close()
    found = recall(path, hands=40)
    decided = 0
    for h in found.hands:
        shows = {st.seat: st for st in h.steps if st.kind == "show"}
        hole = {s["seat"]: s["cards"] for s in h.seats}
        for st in shows.values():  # each show names the kickers of its best five
            full = evaluator.describe_hand(st.data["cards"], h.board, kickers=True)
            assert f"({full})" in st.text, st.text
        for st in (x for x in h.steps if x.kind == "pot" and x.data["hand"]):
            award = h.record["result"]["awards"][st.data["pot"]]  # type: ignore[index]
            winner = award["winners"][0]
            mine = evaluator.describe_hand(hole[winner], h.board, kickers=True)
            assert f" with {mine}" in st.text, st.text
            same = [s for s in award["eligible"] if s not in award["winners"] and s in shows
                    and evaluator.describe_hand(hole[s], h.board) == award["hand"]]
            for s in same:
                theirs = evaluator.describe_hand(hole[s], h.board, kickers=True)
                assert theirs != mine
                assert f"beats Seat {s} ({shows[s].text.split('(')[1].split(')')[0]})'s {theirs} " \
                       "on the kickers (H-4)" in st.text, st.text
                decided += 1
    assert decided, "no showdown was decided by kickers in these hands: pick another seed"
