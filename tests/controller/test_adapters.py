"""The driver adapter: tablet requests answered once, board cards to the camera check,
device events to faults, lights on the mock-pin panel (issue 9)."""

from __future__ import annotations

import uuid

import pytest

from controller.devices import DevicePorts, DriverAdapter
from controller.clock import ManualClock
from controller.dealer import InternalDealer
from controller.engine.cards import parse_card
from controller.engine.table import events as ev
from controller.engine.table.audit import audit
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import TableState
from controller.faults import FaultKind
from controller.journal import Journal
from controller.orchestrator import Orchestrator, RaiseFault
from controller.simtable import SimTable
from drivers.mqtt.events import ActionReceived
from drivers.shuffler import events as SE
from drivers.shuffler.protocol import Target
from drivers.seats.lights import PatternKind


def _table(tmp_path, seats: int = 3):
    clock = ManualClock()
    ports = DevicePorts()
    settings = TableSettings(id="t", seats=seats, action_seconds=30, buy_in_max=20000)
    orch = Orchestrator(TableState.new(settings), journal=Journal(tmp_path / "j.sqlite"), clock=clock, ports=ports)
    adapter = DriverAdapter(orch, ports, clock=clock)
    orch.translate = adapter.translate
    orch.listeners.append(adapter.after_step)
    ports.dealer = InternalDealer(orch.post, clock, seed=3)
    for s in range(1, seats + 1):
        orch.post(ev.PlayerSatDown(at=clock(), seat=s, player=f"p{s}", name=f"P{s}"))
        orch.post(ev.BoughtIn(at=clock(), seat=s, amount=5000))
    orch.pump()
    return orch, adapter, ports, clock


def _request(orch, clock, seat, action, action_id, amount=None):
    orch.post(ActionReceived(seat, action, amount, action_id, orch.state.seq, clock()))
    orch.pump()


def _replies(ports, action_id):
    return [r for r in ports.replies if r[1] == action_id]


def test_seat_request_accepted_once_after_the_table_took_it(tmp_path):
    orch, adapter, ports, clock = _table(tmp_path)
    _request(orch, clock, 2, "sit_out", "r1")
    assert orch.state.seat(2).sitting_out
    assert _replies(ports, "r1") == [(2, "r1", True, None)]


def test_seat_request_refused_once_with_the_tables_rule(tmp_path):
    orch, adapter, ports, clock = _table(tmp_path)
    # T-7: a top-up past the table's maximum buy-in is refused by the table, not the adapter.
    _request(orch, clock, 1, "top_up", "r2", amount=50000)
    replies = _replies(ports, "r2")
    assert len(replies) == 1 and replies[0][2] is False
    assert replies[0][3].startswith("T-"), replies
    assert orch.state.seat(1).stack == 5000


def test_seat_request_the_table_cannot_hold_is_refused_not_lost(tmp_path):
    orch, adapter, ports, clock = _table(tmp_path)
    _request(orch, clock, 1, "top_up", "r3", amount=None)  # no amount: no ToppedUp event
    assert [r[2] for r in _replies(ports, "r3")] == [False]
    assert _replies(ports, "r3")[0][3].startswith("M-2")


def test_seat_request_during_a_paused_hand_is_refused_f1_once(tmp_path):
    orch, adapter, ports, clock = _table(tmp_path)
    orch.post(ev.HandStartRequested(at=clock()))
    orch.pump()
    assert orch.state.hand is not None
    orch.post(RaiseFault("jam", "shuffler jammed"))
    orch.pump()
    _request(orch, clock, 3, "sit_out", "r4")
    adapter.tick(clock())  # the loop's idle turn: the table never stepped it
    adapter.tick(clock())
    replies = _replies(ports, "r4")
    assert len(replies) == 1 and replies[0][2] is False and replies[0][3].startswith("F-1")
    assert not orch.state.seat(3).sitting_out


def test_board_cards_from_the_shuffler_reach_the_board_check(tmp_path):
    from vision.boardcheck import BoardCheck

    orch, adapter, ports, clock = _table(tmp_path)
    adapter.boardcheck = BoardCheck(clock, timeout=5.0)
    for card, target in (("Jh", Target("board")), ("9c", Target("seat", 2)), ("8c", Target("board"))):
        adapter.translate(orch, SE.CardDelivered(clock(), 1, target, parse_card(card), 1, 1, False))
    assert [str(c) for c in adapter.boardcheck.board] == ["Jh", "8c"]
    assert adapter.boardcheck.state == "waiting"


@pytest.mark.parametrize("event, kind", [
    (SE.Jammed(0.0, 1, Target("seat", 1), 1, 2), "jam"),
    (SE.Empty(0.0, 1, Target("board"), 1, 1), "jam"),
    (SE.DoorOpened(0.0), "jam"),
    (SE.Misread(0.0, 1, Target("seat", 1), 1, 3), "misread"),
    (SE.DeckCheckFailed(0.0, 1, 1, 52, (parse_card("As"),), (parse_card("Kd"),), 0), "deck-check"),
    (SE.LinkLost(0.0, "cable"), "shuffler-lost"),
    (SE.RequestFailed(0.0, 4, "deal", "link-down", "down"), "shuffler-lost"),
    (SE.RequestFailed(0.0, 4, "shuffle", "busy", "busy"), "jam"),
])
def test_shuffler_events_become_their_fault(tmp_path, event, kind):
    orch, adapter, ports, clock = _table(tmp_path)
    out = adapter.translate(orch, event)
    assert [type(o) for o in out] == [RaiseFault] and out[0].kind == kind
    assert FaultKind(kind)


def test_deck_that_fails_its_check_lets_the_pacer_ask_again(tmp_path):
    orch, adapter, ports, clock = _table(tmp_path)
    calls = []

    class Driver:
        def shuffle(self):
            calls.append("shuffle")

    adapter.shuffler = Driver()
    ready, failed = [], []
    adapter.on_deck_failed = lambda: failed.append(1)
    adapter.new_deck(on_ready=lambda: ready.append(1))
    adapter.translate(orch, SE.DeckCheckFailed(0.0, 1, 1, 51, (), (parse_card("2c"),), 0))
    # A late DeckReady for the failed deck must not start a hand.
    adapter.translate(orch, SE.DeckReady(0.0, 1, 1, 52, 0))
    assert (calls, ready, failed) == (["shuffle"], [], [1])


def test_lights_and_public_state_through_the_simulated_devices(tmp_path):
    seen: dict[str, set] = {"kinds": set()}

    def watch_lights(sim: SimTable) -> None:
        panel = sim.rig.ports.panel
        assert panel is not None, "the mock-pin seat panel was not built"

        def listener(orch, effects) -> None:
            hand = orch.state.hand
            if hand is not None and hand.seat_to_act is not None:
                seen["kinds"].add(panel.patterns()[hand.seat_to_act].kind)
        sim.orch.listeners.append(listener)

    argv = ["--headless", "--table", f"adp{uuid.uuid4().hex[:8]}", "--seats", "4", "--camera", "off"]
    sim = SimTable(argv, str(tmp_path / "j.sqlite"), max_hands=2, before_start=watch_lights).start()
    try:
        sim.wait(lambda s: s.orch.hands_finished >= 2 and s.orch.state.hand is None, 30, "two hands")
    finally:
        sim.stop()
    link = sim.rig.ports.link
    # Every public view went to the broker through the link.
    assert link is not None and link.seq == sim.views[-1]["seq"] == sim.orch.state.seq
    # In-process simulated players do not pass through the link: they play at full speed
    # under the same M-9 limit a tablet has (issue 16: simulate had lifted it to 1,000/s).
    assert link._action_rate._count == 10  # noqa: SLF001
    # The acting seat's light was lit, never left off while it was that seat's turn.
    assert seen["kinds"] and PatternKind.OFF not in seen["kinds"], seen
    assert sim.rig.adapter.decks >= 2


def test_one_shuffle_per_hand_however_often_the_deck_is_asked_for(tmp_path):
    """The no-verified-deck race: a second shuffle asked for while the first is on its way,
    or while its proven deck is unused (the hand start still queued), is not sent (G-5)."""
    orch, adapter, ports, clock = _table(tmp_path)
    calls = []

    class Driver:
        def shuffle(self):
            calls.append("shuffle")

    adapter.shuffler = Driver()
    ready = []
    adapter.new_deck(on_ready=lambda: ready.append("first"))
    adapter.new_deck(on_ready=lambda: ready.append("second"))  # while shuffling
    assert calls == ["shuffle"]
    adapter.translate(orch, SE.DeckReady(0.0, 1, 1, 52, 0))
    assert ready == ["second"]
    adapter.new_deck(on_ready=lambda: ready.append("third"))  # proven deck, nothing dealt yet
    assert calls == ["shuffle"] and ready == ["second", "third"]
    adapter.translate(orch, SE.CardDelivered(0.0, 2, Target("seat", 1), parse_card("As"), 1, 1, False))
    adapter.new_deck(on_ready=lambda: ready.append("fourth"))  # the deck was used: a new one
    assert calls == ["shuffle", "shuffle"] and ready == ["second", "third"]


def test_seat_buttons_and_dealer_console_through_mock_pins(tmp_path):
    """Seat 1 is played by pressing its buttons (gpiozero MockFactory, SimulatedHands);
    the console's pause pauses the hand and, pressed again, resumes it (by the dealer)."""
    from drivers.seats import ConsoleButton, SeatButton
    from drivers.seats.simulated import SimulatedHands

    argv = ["--headless", "--table", f"btn{uuid.uuid4().hex[:8]}", "--seats", "3", "--camera", "off",
            "--tablet-seats", "1"]

    def seat_player_one(s: SimTable) -> None:
        s.orch.post(ev.PlayerSatDown(at=s.orch.clock(), seat=1, player="ann", name="Ann"))
        s.orch.post(ev.BoughtIn(at=s.orch.clock(), seat=1, amount=10000))

    sim = SimTable(argv, str(tmp_path / "j.sqlite"), max_hands=1, before_start=seat_player_one).start()
    try:
        fingers = SimulatedHands(sim.rig.ports.panel)
        sim.wait(lambda s: s.orch.state.hand is not None and s.orch.state.dealing is None, 20, "a hand")
        pressed = sim.orch.clock()
        fingers.press("console", ConsoleButton.PAUSE)
        sim.wait(lambda s: s.views and s.views[-1]["paused"] and s.views[-1]["fault"]["kind"] == "paused",
                 20, "the dealer's pause")
        # A second edge within the bounce time is bounce, not a press: press again after it.
        bounce = sim.rig.ports.panel.pin_map.bounce_time
        sim.wait(lambda s: s.orch.clock() > pressed + 2 * bounce, 5, "the bounce time")
        fingers.press("console", ConsoleButton.PAUSE)
        pressed = sim.orch.clock()
        sim.wait(lambda s: not s.orch.faults.paused, 20, "the dealer's resume")
        ending = sim.orch.faults.endings[-1]
        assert (ending.kind, ending.exit.value, ending.by) == (FaultKind.PAUSED, "resume", "dealer")
        presses = 0
        while sim.orch.state.hand is not None or sim.orch.hands_finished < 1:
            sim.wait(lambda s: s.orch.state.hand is None or s.orch.state.hand.seat_to_act == 1, 20, "seat 1's turn")
            if sim.orch.state.hand is None:
                break
            seq = sim.orch.state.seq
            # The panel judges the press against the lights it was last given.
            sim.wait(lambda s: s.rig.ports.panel.view.seq >= seq and not s.rig.ports.panel.view.paused,
                     20, "the panel's view")
            # A finger cannot press again within the bounce time of its last release.
            sim.wait(lambda s: s.orch.clock() > pressed + 2 * bounce, 5, "the bounce time")
            fingers.press(1, SeatButton.CHECK_CALL)
            pressed = sim.orch.clock()
            sim.wait(lambda s: s.orch.state.seq > seq, 20, "the press taken")
            presses += 1
            assert presses < 20
    finally:
        sim.stop()
    assert presses >= 1
    assert audit(sim.orch.state) == []


def test_tablet_seat_request_gets_one_reply_over_the_broker(tmp_path):
    """docs/mqtt.md: a tablet ignores a second reply to an id, so the table answers a seat
    request once, after deciding it (accepted, or refused with the table's rule id)."""
    from drivers.mqtt.tablet import Tablet

    table = f"req{uuid.uuid4().hex[:8]}"

    argv = ["--headless", "--table", table, "--seats", "3", "--camera", "off"]
    tablet = Tablet(table, 1, host="127.0.0.1", port=1883, username=None, password=None).start()
    sim = SimTable(argv, str(tmp_path / "j.sqlite"), max_hands=1).start()
    try:
        tablet.wait_connected(10)
        # The hand's end is in the state before its view is published: wait for both.
        sim.wait(lambda s: s.orch.hands_finished >= 1 and s.orch.state.hand is None and s.views
                 and s.views[-1]["seq"] == s.orch.state.seq, 30, "the hand's end published")
        seq = sim.views[-1]["seq"]
        tablet.wait_seq(seq, 10)
        refused = tablet.send_action("top_up", 10**6)          # T-7: over the table's maximum
        # A request the table will take: seat 1 may already sit out (a simulated player can
        # time out during the hand, A-2, or bust): then it stands up (T-8).
        out = sim.orch.state.seat(1).sitting_out
        taken = tablet.send_action("stand_up" if out else "sit_out")  # newest state's seq (M-4)
        tablet.wait_for(lambda t: refused in t.replies and taken in t.replies, 10)
        if not out:
            sim.wait(lambda s: s.orch.state.seat(1).sitting_out, 10, "seat 1 sitting out")
        # Anything else the table sends about those ids would arrive behind this state.
        state = sim.orch.state.seq
        tablet.wait_seq(state, 10)
        answers = [r for r in tablet.all_replies if r.get("id") in (refused, taken)]
    finally:
        sim.stop()
        tablet.stop()
    assert len(answers) == 2, answers
    by_id = {r["id"]: r for r in answers}
    assert by_id[taken]["accepted"] is True, by_id[taken]["reason"]
    assert by_id[refused]["accepted"] is False and by_id[refused]["reason"].startswith("T-")


def test_run_camera_reads_with_the_rooms_enrolment_and_corner_setting(tmp_path, caplog):
    """``livetable run``: the [camera] section's enrolment and ``corners`` reach the camera's
    recognizer; a missing or damaged calibration or enrolment file is reported and the table
    runs on (the whole frame, the synthetic glyphs), never stops."""
    import logging

    import cv2

    from controller.config import parse_config
    from vision.enroll import Enrollment, enroll_image
    from vision.render import render_board

    frame = render_board(["2c", "7d", "Ks"], (1280, 720), "green")
    cv2.imwrite(str(tmp_path / "board.png"), frame)
    enr = Enrollment.empty()
    assert enroll_image(enr, frame, "2c 7d Ks") == 6
    enr.save(tmp_path / "deck.npz")
    (tmp_path / "broken.npz").write_bytes(b"not an enrolment")
    for enrolment, corners, used in (("deck.npz", True, 6), ("broken.npz", False, None),
                                     ("missing.npz", False, None)):
        (tmp_path / f"table-{enrolment}").mkdir()
        orch, adapter, ports, clock = _table(tmp_path / f"table-{enrolment}")
        cfg = parse_config({"table": {"id": "t", "big_blind": 100}, "mqtt": {"port": 1},
                            "camera": {"source": str(tmp_path / "board.png"), "corners": corners,
                                       "enrolment": str(tmp_path / enrolment), "stall_timeout": 7.5,
                                       "calibration": str(tmp_path / "missing.json")}})
        caplog.clear()
        with caplog.at_level(logging.ERROR, logger="livetable.adapters"):
            adapter.build_real(cfg)
        try:
            rec = adapter.camera.recognizer
            assert rec.corners is corners and adapter.camera.stall_timeout == 7.5
            assert (rec.enrollment.count if rec.enrollment is not None else None) == used
            assert "camera.calibration" in caplog.text
            assert ("camera.enrolment" in caplog.text) is (used is None)
        finally:
            adapter.close()


def test_run_starts_on_the_synthetic_glyphs_when_the_enrolment_file_is_damaged(tmp_path, caplog, monkeypatch):
    """``livetable run`` with a truncated, junk, ``np.save`` or wrong-shape enrolment file: the
    table starts, its camera reads with the synthetic glyphs, and the log names the file."""
    import logging

    import numpy as np

    from controller.config import parse_config
    from vision import enroll
    from vision.glyphs import FEATURE_LEN

    x = np.ones((2, FEATURE_LEN), np.float32)
    good = enroll.Enrollment(x, np.array([0, 1], np.int16), x.copy(), np.array([0, 1], np.int16))
    good.save(tmp_path / "good.npz")
    (tmp_path / "truncated.npz").write_bytes((tmp_path / "good.npz").read_bytes()[:200])
    (tmp_path / "junk.npz").write_bytes(b"garbage")
    np.save(tmp_path / "array.npz", np.zeros(3))  # np.save keeps the name it is given
    (tmp_path / "array.npz.npy").rename(tmp_path / "array.npz")
    np.savez(tmp_path / "shape.npz", format=1, rank_x=np.zeros((3, 7), np.float32), rank_y=np.zeros(3, np.int16),
             suit_x=np.zeros((3, 7), np.float32), suit_y=np.zeros(3, np.int16))
    for name in ("truncated.npz", "junk.npz", "array.npz", "shape.npz"):
        (tmp_path / name[:-4]).mkdir()
        orch, adapter, ports, clock = _table(tmp_path / name[:-4])
        cfg = parse_config({"table": {"id": "t", "big_blind": 100}, "mqtt": {"port": 1},
                            "camera": {"source": str(tmp_path / "none%03d.png"),
                                       "enrolment": str(tmp_path / name)}})
        caplog.clear()
        with caplog.at_level(logging.ERROR, logger="livetable.adapters"):
            adapter.build_real(cfg)
        try:
            assert adapter.camera is not None and adapter.camera.recognizer.enrollment is None
            assert str(tmp_path / name) in caplog.text and "synthetic glyphs" in caplog.text, caplog.text
            assert "allow_pickle" not in caplog.text
        finally:
            adapter.close()
    # an enrolment the checks let through but the recognizer cannot use: still no crash
    bad = enroll.Enrollment(np.zeros((2, 7), np.float32), np.zeros(2, np.int16), np.zeros((2, 7), np.float32),
                            np.zeros(2, np.int16))
    monkeypatch.setattr(enroll.Enrollment, "load", classmethod(lambda cls, path: bad))
    (tmp_path / "odd").mkdir()
    orch, adapter, ports, clock = _table(tmp_path / "odd")
    cfg = parse_config({"table": {"id": "t", "big_blind": 100}, "mqtt": {"port": 1},
                        "camera": {"source": str(tmp_path / "none%03d.png"), "enrolment": str(tmp_path / "good.npz")}})
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger="livetable.adapters"):
        adapter.build_real(cfg)
    try:
        assert adapter.camera.recognizer.enrollment is None and str(tmp_path / "good.npz") in caplog.text
    finally:
        adapter.close()
