"""S-8 all-in equity and tabled hands as a property of the whole published state stream.

Simulated tables (the orchestrator, the internal dealer, simulated players who re-buy when
they bust, no broker) play hundreds of hands in each game; every public state the
orchestrator publishes (docs/state.md) is kept and checked:

- no state carries both a player to act (``turn`` set, a seat ``acting``, or a seat's private
  view of the same ``seq`` with ``to_act``) and equities;
- no state shows a live hand face up while a player has a betting or draw decision (P-2
  showdown turns are the only turns with hands face up);
- equities, when shown, are one share per live seat, adding up to 1, next to that seat's
  cards face up;
- every hand that ends in an all-in run-out (board cards dealt after the last player's
  decision, told from the hand's own record, not from the predicate under test) shows the
  equities on each street of the run-out, while that street is being dealt;
- five card draw never shows equities (an all-in player still draws, G-3: docs/state.md).

No limit and short stacks (the T-2 minimum buy-in, re-bought at once) make all-in run-outs
common: about 95 of 320 hands in Hold'em and in Omaha with seed 15.
"""

from __future__ import annotations

from typing import Any

import pytest

from controller.bots import SimPlayers
from controller.clock import ManualClock
from controller.dealer import InternalDealer
from controller.engine.table import events as ev
from controller.engine.table.audit import audit
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import TableState
from controller.orchestrator import Orchestrator, Ports
from controller.runtime import HandPacer, all_in_equity

HANDS = 320
ACTIONS = {"fold", "check", "call", "bet", "all_in", "draw"}
STREET_OF_BOARD = {0: "flop", 3: "turn", 4: "river"}  # board cards before the street is dealt


class Stream(Ports):
    """Keep every public state and every finished hand's record."""

    def __init__(self) -> None:
        self.public: list[dict[str, Any]] = []
        self.deciding: set[int] = set()  # seqs of states a seat's private view says it acts in
        self.records: dict[int, dict[str, Any]] = {}

    def publish_public(self, view: dict[str, Any]) -> None:
        self.public.append(view)

    def publish_private(self, seat: int, view: dict[str, Any] | None) -> None:
        if view is not None and view["to_act"]:
            self.deciding.add(view["seq"])

    def hand_finished(self, hand: int, record: dict[str, Any]) -> None:
        self.records[hand] = record


def play(game: str, hands: int, seed: int) -> tuple[Stream, Orchestrator]:
    """Play ``hands`` hands of ``game`` with simulated players in every seat."""
    clock = ManualClock()
    seats = 5 if game == "draw" else 6
    settings = TableSettings(id=f"eq-stream-{game}", game=game, seats=seats, action_seconds=30)
    stream = Stream()
    orch = Orchestrator(TableState.new(settings), journal=None, clock=clock, ports=stream)
    orch.equity_fn = all_in_equity
    stream.dealer = InternalDealer(orch.post, clock, seed=seed)
    for s in range(1, seats + 1):
        orch.post(ev.PlayerSatDown(at=clock(), seat=s, player=f"p{s}", name=f"P{s}"))
        orch.post(ev.BoughtIn(at=clock(), seat=s, amount=settings.buy_in_min))
    orch.pump()
    pacer = HandPacer(orch.post, clock, rebuy=set(range(1, seats + 1)), max_hands=hands)
    orch.listeners.append(SimPlayers(range(1, seats + 1), orch.post, clock, seed=seed))
    orch.listeners.append(pacer)
    pacer.kick(orch)
    for _ in range(hands * 400):
        if orch.hands_finished >= hands and orch.state.hand is None:
            break
        if orch.pump() == 0:
            clock.advance(1.0)  # nothing queued: a player's clock runs, the pacer waits
            pacer.kick(orch)
    assert orch.hands_finished >= hands, f"only {orch.hands_finished} of {hands} hands were played"
    assert audit(orch.state) == []
    return stream, orch


def deciding(view: dict[str, Any]) -> bool:
    """A player has to act in ``view``: a turn runs or a seat is ``acting``."""
    return view["turn"] is not None or any(s["status"] == "acting" for s in view["seats"])


def runout_streets(record: dict[str, Any]) -> list[tuple[str, int]]:
    """Return ``(street, board cards before it)`` for each street dealt after the last
    player's decision of a hand that went to a showdown between two or more players."""
    events = record["hand_record"]["events"]
    last = max((k for k, e in enumerate(events) if e["t"] in ACTIONS), default=-1)
    if len(record["result"]["showdown_order"]) < 2 and len(record["result"]["shown"]) < 2:
        return []
    out, board = [], 0
    for k, e in enumerate(events):
        if e["t"] == "deal_board":
            if k > last:
                out.append((STREET_OF_BOARD[board], board))
            board += len(e["cards"].split())
    return out


def check_stream(game: str, stream: Stream) -> dict[str, int]:
    """Assert the properties of the module docstring; return counts for the report."""
    counts = {"states": len(stream.public), "with_equity": 0, "runouts": 0, "runout_streets": 0}
    seen: dict[tuple[int, str, int], bool] = {}
    for view in stream.public:
        eq = view["all_in_equity"]
        if view["turn"] is not None and not view["turn"]["showdown"]:
            shown = [s["seat"] for s in view["seats"] if s["shown"] and s["status"] != "folded"]
            assert shown == [], f"S-8: hands {shown} face up while seat {view['turn']['seat']} decides: {view}"
        if eq is None:
            continue
        counts["with_equity"] += 1
        assert game != "draw", f"draw shows no equity (G-3): {view}"
        assert not deciding(view), f"S-8: equities while a player is to act: {view}"
        assert view["seq"] not in stream.deciding, f"S-8: a tablet deciding on state {view['seq']} saw equities"
        live = {str(s["seat"]) for s in view["seats"] if s["cards"] > 0 and s["status"] != "folded"}
        assert set(eq) == live, (eq, live)
        assert abs(sum(eq.values()) - 1) < 1e-3, eq
        for s in view["seats"]:
            if str(s["seat"]) in eq:
                assert s["shown"] and "??" not in s["shown"], f"S-8: seat {s['seat']} not face up: {view}"
        seen[(view["hand"], view["street"], len(view["board"]))] = True
    for number, record in stream.records.items():
        if record["voided"]:
            continue
        streets = runout_streets(record)
        if streets:
            counts["runouts"] += 1
        for street, board in streets:
            counts["runout_streets"] += 1
            assert seen.get((number, street, board)), (
                f"S-8: hand {number}'s all-in run-out showed no equity while the {street} was dealt")
    return counts


@pytest.mark.parametrize("game", ["holdem", "omaha", "draw"])
def test_equity_only_when_nobody_can_act_and_on_every_street_of_the_runout_s8(game):
    stream, orch = play(game, HANDS, seed=15)
    counts = check_stream(game, stream)
    assert len([r for r in stream.records.values() if not r["voided"]]) >= 300
    if game == "draw":
        assert counts["with_equity"] == 0
    else:  # the property was exercised, not vacuously true
        assert counts["runouts"] >= 20 and counts["runout_streets"] >= 40, counts
