"""Taking a free seat from the seat's tablet (T-3, T-2, T-4) through the adapter and the
orchestrator: one reply per request with the table's reason, and against the real broker
on ``livetable simulate``'s composition, joining, buying in, being dealt in and acting."""

from __future__ import annotations

import uuid

from controller.devices import DevicePorts, DriverAdapter, player_for_name
from controller.clock import ManualClock
from controller.dealer import InternalDealer
from controller.engine.table import events as ev
from controller.engine.table.audit import audit
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import TableState
from controller.journal import Journal
from controller.orchestrator import Orchestrator
from controller.simtable import SimTable
from drivers.mqtt.events import ActionReceived


def _table(tmp_path, *, tablet_join: str = "direct"):
    """A 4-seat table (buy-in 2000..10000) with players in seats 1 and 2; 3 and 4 free."""
    clock = ManualClock()
    ports = DevicePorts()
    settings = TableSettings(id="t", seats=4, action_seconds=30, tablet_join=tablet_join)
    orch = Orchestrator(TableState.new(settings), journal=Journal(tmp_path / "j.sqlite"), clock=clock, ports=ports)
    adapter = DriverAdapter(orch, ports, clock=clock)
    orch.translate = adapter.translate
    orch.listeners.append(adapter.after_step)
    ports.dealer = InternalDealer(orch.post, clock, seed=3)
    for s in (1, 2):
        orch.post(ev.PlayerSatDown(at=clock(), seat=s, player=f"p{s}", name=f"P{s}"))
        orch.post(ev.BoughtIn(at=clock(), seat=s, amount=5000))
    orch.pump()
    return orch, ports, clock


def _take_seat(orch, clock, seat, action_id, *, name="Ann", amount=4000, post=False):
    orch.post(ActionReceived(seat, "take_seat", amount, action_id, orch.state.seq, clock(), name=name, post=post))
    orch.pump()
    return [r for r in orch.ports.replies if r[1] == action_id]


def test_take_seat_is_accepted_once_and_seats_the_player_with_the_buy_in(tmp_path):
    orch, ports, clock = _table(tmp_path)
    total_before = orch.state.ledger.total_in
    assert _take_seat(orch, clock, 3, "j1", name="Ann Lee") == [(3, "j1", True, None)]
    seat = orch.state.seat(3)
    assert (seat.name, seat.stack, seat.player) == ("Ann Lee", 4000, player_for_name("ann  LEE"))
    assert orch.state.ledger.total_in == total_before + 4000
    assert audit(orch.state) == []
    # the journal holds it: a restart would seat her again
    kinds = [e.payload.get("kind") for e in orch.journal.entries()]
    assert kinds.count("player-joined") == 1


def test_take_seat_refusals_carry_the_tables_rule_and_change_nothing(tmp_path):
    orch, ports, clock = _table(tmp_path)
    assert _take_seat(orch, clock, 4, "ok", name="Ann")[0][2] is True
    before = orch.state.to_json()
    cases = [
        ("r1", 1, dict(name="Bob"), "T-3:"),                # seat 1 is taken
        ("r2", 3, dict(name="Cy", amount=1999), "T-2:"),    # under the minimum (20 BB)
        ("r3", 3, dict(name="Cy", amount=10001), "T-2:"),   # over the maximum (100 BB)
        ("r4", 3, dict(name=" ANN "), "T-3:"),              # no account: the name is the player
    ]
    for aid, seat, kw, rule in cases:
        replies = _take_seat(orch, clock, seat, aid, **kw)
        assert len(replies) == 1 and replies[0][2] is False, (aid, replies)
        assert replies[0][3].startswith(rule), (aid, replies)
    after = orch.state.to_json()
    assert after["seats"] == before["seats"] and after["ledger"] == before["ledger"]
    assert audit(orch.state) == []


def test_console_confirm_brings_the_oldest_waiting_buy_in_first(tmp_path):
    from drivers.seats import ConsoleButton, ConsoleButtonPressed

    orch, ports, clock = _table(tmp_path, tablet_join="confirm")
    assert _take_seat(orch, clock, 4, "a", name="Ann", amount=3000)[0][2] is True
    clock.advance(5)
    assert _take_seat(orch, clock, 3, "b", name="Bob", amount=2000)[0][2] is True
    total = orch.state.ledger.total_in
    assert (orch.state.seat(4).stack, orch.state.seat(4).buy_in_pending) == (0, 3000)
    for seat, amount in ((4, 3000), (3, 2000)):  # Ann asked first
        orch.post(ConsoleButtonPressed(ConsoleButton.CONFIRM, clock()))
        orch.pump()
        assert (orch.state.seat(seat).stack, orch.state.seat(seat).buy_in_pending) == (amount, 0)
    assert orch.state.ledger.total_in == total + 5000
    orch.post(ConsoleButtonPressed(ConsoleButton.CONFIRM, clock()))  # nothing waits: nothing happens
    before = orch.state.seq
    orch.pump()
    assert orch.state.seq == before and audit(orch.state) == []


def test_take_seat_on_a_table_that_seats_through_the_floor_is_refused_t3(tmp_path):
    orch, ports, clock = _table(tmp_path, tablet_join="off")
    replies = _take_seat(orch, clock, 3, "off1")
    assert len(replies) == 1 and replies[0][2] is False and replies[0][3].startswith("T-3:")
    assert orch.state.seat(3) is None


def _request(tablet, action, amount=None, **kw):
    """Send a seat request and return its reply. The simulated players keep the table
    moving, so the request often crosses a new state: seat requests are not refused as
    stale (M-4, docs/mqtt.md), so the first reply is the table's own answer."""
    reply = tablet.wait_reply(tablet.send_action(action, amount, **kw), 10)
    assert not (reply["reason"] or "").startswith("M-4"), reply
    return reply


def _first_hand_seen(sim: SimTable, tablet) -> None:  # noqa: ANN001 - drivers.mqtt.tablet.Tablet
    """Wait until ``tablet`` is connected and holds the view published at the end of the
    table's first hand (the table then waits: a quiet moment to join)."""
    tablet.wait_connected(10)
    sim.wait(lambda s: s.orch.hands_finished >= 1 and s.orch.state.hand is None and s.views
             and s.views[-1]["seq"] == s.orch.state.seq, 30, "the first hand's end published")
    tablet.wait_seq(sim.views[-1]["seq"], 10)


def test_tablet_joins_over_the_broker_is_dealt_in_and_acts(tmp_path):
    """``livetable simulate --join-seats 3``: seat 3 stays free; its tablet (the real broker)
    takes it, buys in, waits for the next hand, is dealt in and acts on its turns until
    the hand is booked."""
    from drivers.mqtt.tablet import Tablet

    table = f"join{uuid.uuid4().hex[:8]}"
    argv = ["--headless", "--table", table, "--seats", "3", "--camera", "off", "--join-seats", "3"]
    tablet = Tablet(table, 3, host="127.0.0.1", port=1883, username=None, password=None).start()
    # One hand between the two simulated players, then the table waits (a quiet moment).
    sim = SimTable(argv, str(tmp_path / "j.sqlite"), max_hands=1).start()
    ann = player_for_name("Ann")
    try:
        _first_hand_seen(sim, tablet)
        assert tablet.state["seats"][2]["status"] == "empty"
        assert tablet.state["join"]["mode"] == "direct"
        lo, hi = tablet.state["buy_in"]["min"], tablet.state["buy_in"]["max"]
        post = 3 in tablet.state["join"]["post_now"]
        assert _request(tablet, "take_seat", hi + 1, name="Ann", post=post)["reason"].startswith("T-2:")
        assert _request(tablet, "take_seat", lo, name="Ann\tLee", post=post)["reason"].startswith("M-2:")
        assert sim.orch.state.seat(3) is None
        reply = _request(tablet, "take_seat", lo, name="Ann", post=post)
        assert reply["accepted"] is True, reply
        tablet.wait_for(lambda t: t.state["seats"][2]["name"] == "Ann", 10)
        assert tablet.state["seats"][2]["stack"] == lo
        assert tablet.state["seats"][2]["status"] == "waiting"  # T-3: from the next hand
        sim.pacer.max_hands = None  # the table plays on from its next step
        assert _request(tablet, "take_seat", lo, name="Bob", post=False)["reason"].startswith("T-3:")
        # T-3/T-4: dealt in from a following hand (at the latest when the big blind reaches
        # her); she checks or calls on each of her turns (mucks when asked to show or muck at
        # the showdown) until a hand she acted in is booked
        # (a hand where everyone folds to her big blind gives her no turn: play on).
        hands = lambda: sim.orch.state.ledger.accounts[ann].hands  # noqa: E731
        acted, booked = 0, None

        def ready(t: Tablet) -> bool:
            if booked is not None and hands() > booked:
                return True
            p = t.private
            return bool(p and p.get("to_act") and p.get("legal") and t.state["seq"] == p["seq"])

        for _ in range(40):
            tablet.wait_for(ready, 60)
            if booked is not None and hands() > booked:
                break
            with tablet.cond:
                priv = tablet.private
            assert len(priv["cards"]) == 2
            legal = priv["legal"]
            if legal.get("muck"):  # P-2: her hand cannot beat one already shown
                act = "muck"
            else:
                act = "check" if legal["check"] else "call" if legal["call"] else "fold"
            if booked is None:
                booked = hands()
            reply = tablet.wait_reply(tablet.send_action(act, seq=priv["seq"]), 10)
            assert reply["accepted"] is True, reply
            acted += 1
            tablet.wait_for(lambda t: t.state["seq"] > priv["seq"], 10)
        else:
            raise AssertionError("Ann's hand was never booked")
    finally:
        sim.stop()
        tablet.stop()
    assert acted >= 1
    assert audit(sim.orch.state) == []
    account = sim.orch.state.ledger.accounts[ann]
    assert account.bought_in == lo and account.hands >= 1


def test_confirm_mode_the_dealers_console_button_brings_the_chips(tmp_path):
    """``tablet_join = "confirm"``: the tablet takes the seat over the broker, the seat waits
    with its buy-in pending, and the dealer's confirm button (gpiozero mock pins, no fault
    open) brings the chips to the table."""
    from drivers.mqtt.tablet import Tablet
    from drivers.seats import ConsoleButton
    from drivers.seats.simulated import SimulatedHands

    table = f"conf{uuid.uuid4().hex[:8]}"
    argv = ["--headless", "--table", table, "--seats", "3", "--camera", "off", "--join-seats", "3",
            "--tablet-join", "confirm"]
    tablet = Tablet(table, 3, host="127.0.0.1", port=1883, username=None, password=None).start()
    sim = SimTable(argv, str(tmp_path / "j.sqlite"), max_hands=1).start()
    ann = player_for_name("Ann")
    try:
        _first_hand_seen(sim, tablet)
        assert tablet.state["join"]["mode"] == "confirm"
        lo = tablet.state["buy_in"]["min"]
        total = sim.orch.state.ledger.total_in
        assert _request(tablet, "take_seat", lo, name="Ann", post=False)["accepted"] is True
        tablet.wait_for(lambda t: t.state["seats"][2]["name"] == "Ann", 10)
        seat = tablet.state["seats"][2]
        assert (seat["stack"], seat["buy_in_pending"], seat["status"]) == (0, lo, "waiting")
        assert sim.orch.state.ledger.total_in == total  # no chips until the dealer says so
        fingers = SimulatedHands(sim.rig.ports.panel)
        fingers.press("console", ConsoleButton.CONFIRM)
        tablet.wait_for(lambda t: t.state["seats"][2]["stack"] == lo and t.state["seats"][2]["buy_in_pending"] == 0, 10)
    finally:
        sim.stop()
        tablet.stop()
    assert audit(sim.orch.state) == []
    assert sim.orch.state.ledger.accounts[ann].bought_in == lo
    assert sim.orch.state.ledger.total_in == total + lo
