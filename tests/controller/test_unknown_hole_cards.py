"""The ``hole-cards-unknown`` fault: a hand to show holds a card the shuffler could not read.

Through the orchestrator with a SQLite journal and an injected clock: the table pauses with
a fault naming the seat, the dealer's reading (one ``hole-cards-read`` event) is checked and
ends the fault by ``correction`` so the showdown goes on, or the floor voids the hand with
every wager returned. Recovery from the journal gives the same table and the same open fault.
"""

from __future__ import annotations

from controller.clock import ManualClock
from controller.engine.cards import FULL_DECK
from controller.engine.table import events as ev
from controller.engine.table.audit import audit
from controller.engine.table.play import cards_to_read
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import TableState
from controller.faults import FaultExit, FaultKind
from controller.journal import Journal
from controller.orchestrator import FloorDecision, Orchestrator, Ports

KIND = FaultKind.HOLE_CARDS_UNKNOWN.value
SETTINGS = TableSettings(id="t", seats=3, small_blind=5, big_blind=10, action_seconds=30)


class Recorder(Ports):
    def __init__(self) -> None:
        self.public: list[dict] = []
        self.replies: list[tuple] = []
        self.records: dict[int, dict] = {}

    def publish_public(self, view):
        self.public.append(view)

    def reply(self, seat, action_id, accepted, reason):
        self.replies.append((seat, action_id, accepted, reason))

    def hand_finished(self, hand, record):
        self.records[hand] = record


class UnreadDealer:
    """Deals a fixed order; the cards in ``unread`` leave the machine unread (``"??"``)."""

    def __init__(self, post, clock, order: list[str], unread: set[str]) -> None:
        rest = [str(c) for c in FULL_DECK if str(c) not in order]
        self.cards = list(order) + rest
        self.post, self.clock, self.unread = post, clock, unread

    def deal(self, *, target, count, seat, reshuffle, hand):
        for _ in range(count):
            card = self.cards.pop(0)
            self.post(ev.CardDealt(at=self.clock(), card="??" if card in self.unread else card))


def _table(tmp_path, order: list[str], unread: set[str]):
    clock = ManualClock()
    ports = Recorder()
    orch = Orchestrator(TableState.new(SETTINGS), journal=Journal(tmp_path / "j.sqlite"), clock=clock,
                        ports=ports)
    ports.dealer = UnreadDealer(orch.post, clock, order, unread)
    for s in (1, 2, 3):
        orch.post(ev.PlayerSatDown(at=clock(), seat=s, player=f"p{s}", name=f"P{s}"))
        orch.post(ev.BoughtIn(at=clock(), seat=s, amount=1000))
    orch.pump()
    return orch, ports, clock


# Button 1: hole cards go 2, 3, 1, 2, 3, 1; then burn, flop, burn, turn, burn, river.
# Seat 2 holds As Ad (the As unread), seat 3 8s 6d, seat 1 7c 2d; board Kh Qs 4c 9d 3h.
ORDER = ["As", "8s", "7c", "Ad", "6d", "2d", "Jc", "Kh", "Qs", "4c", "Tc", "9d", "5c", "3h"]


def _check_down(orch, clock) -> None:
    while orch.state.hand is not None and not orch.faults.paused and orch.state.timer is not None:
        lg = orch.state.hand.legal()
        if lg.show or lg.muck:
            return
        orch.post(ev.ActionTaken(at=clock(), seat=lg.seat, action="check" if lg.check else "call"))
        orch.pump()


def _to_reading(tmp_path):
    orch, ports, clock = _table(tmp_path, ORDER, {"As"})
    orch.post(ev.HandStartRequested(at=clock(), button=1))
    orch.pump()
    _check_down(orch, clock)
    return orch, ports, clock


def test_the_table_pauses_with_a_fault_naming_the_seat_and_the_reading_lets_the_showdown_go_on(tmp_path):
    orch, ports, clock = _to_reading(tmp_path)
    fault = orch.faults.current
    assert fault is not None and fault.kind.value == KIND
    assert fault.message.startswith("dealer: read seat 2's hole cards") and "?? Ad" in fault.message
    assert ports.public[-1]["paused"] is True and ports.public[-1]["fault"]["kind"] == KIND
    # no internal error: the step did not fail
    assert not list(orch.journal.entries(kinds=("rejected",)))
    assert [f.kind.value for f in orch.faults.open] == [KIND]
    # the players wait: an action is refused (F-1) and no clock runs
    orch.post(ev.ActionTaken(at=clock(), seat=3, action="muck", action_id="m1"))
    clock.advance(600)
    orch.pump()
    assert ports.replies[-1][:3] == (3, "m1", False) and ports.replies[-1][3].startswith("F-1")
    # a bare confirm (the dealer's console) does not end it: the cards must be entered
    orch.post(FloorDecision(KIND, "correction", "dealer"))
    orch.pump()
    assert orch.faults.current.kind.value == KIND and cards_to_read(orch.state) == 2
    # a reading that repeats a dealt card is refused; the fault stays
    orch.post(ev.HoleCardsRead(at=clock(), seat=2, cards=("Kh", "Ad"), by="dealer"))
    orch.pump()
    assert orch.faults.current.kind.value == KIND and cards_to_read(orch.state) == 2
    # the right one: the fault ends by correction, decided by who read them
    orch.post(ev.HoleCardsRead(at=clock(), seat=2, cards=("As", "Ad"), by="floor:anna"))
    orch.pump()
    assert not orch.faults.paused
    ending = orch.faults.endings[-1]
    assert (ending.kind.value, ending.exit, ending.by) == (KIND, FaultExit.CORRECTION, "floor:anna")
    assert "seat 2 read as As Ad" in ending.note
    seat2 = next(s for s in ports.public[-1]["seats"] if s["seat"] == 2)
    assert seat2["shown"] == ["As", "Ad"] and ports.public[-1]["paused"] is False
    # the showdown goes on: seats 3 and 1 cannot beat aces and choose (here: muck)
    for seat in (3, 1):
        assert orch.state.timer.seat == seat
        orch.post(ev.ActionTaken(at=clock(), seat=seat, action="muck"))
        orch.pump()
    assert orch.state.hand is None
    rec = ports.records[1]
    assert rec["result"]["awards"][0]["winners"] == [2]
    assert {s["seat"]: s["end"] for s in rec["seats"]} == {1: 990, 2: 1020, 3: 990}
    assert audit(orch.state) == []
    kinds = [e.payload["kind"] for e in orch.journal.entries(kinds=("fault-ended", "fault-raised"))]
    assert kinds == [KIND, KIND]
    # the journal replays to the very same table
    again = Orchestrator.recover(orch.journal, lambda: TableState.new(SETTINGS), clock=clock)
    assert again.state.to_json() == orch.state.to_json() and not again.faults.paused


def test_the_floor_voids_the_hand_and_every_wager_goes_back(tmp_path):
    orch, ports, clock = _to_reading(tmp_path)
    assert orch.faults.current.kind.value == KIND
    orch.post(FloorDecision(KIND, "resume", "floor:anna"))  # not an exit of this fault
    orch.pump()
    assert orch.faults.current.kind.value == KIND
    orch.post(FloorDecision(KIND, "void", "floor:anna"))
    orch.pump()
    assert not orch.faults.paused and orch.state.hand is None
    rec = ports.records[1]
    assert rec["voided"] is True
    assert [orch.state.seat(s).stack for s in (1, 2, 3)] == [1000, 1000, 1000]
    assert audit(orch.state) == []
    ending = orch.faults.endings[-1]
    assert (ending.exit, ending.by) == (FaultExit.VOID, "floor:anna")
    # a late reading is refused and changes nothing
    before = orch.state.to_json()
    orch.post(ev.HoleCardsRead(at=clock(), seat=2, cards=("As", "Ad")))
    orch.pump()
    assert orch.state.to_json() == before and not orch.faults.paused


def test_recovery_keeps_the_table_waiting_for_the_reading(tmp_path):
    orch, ports, clock = _to_reading(tmp_path)
    again = Orchestrator.recover(orch.journal, lambda: TableState.new(SETTINGS), clock=clock, ports=Recorder())
    assert again.state.to_json() == orch.state.to_json()
    assert again.faults.current.kind.value == KIND and cards_to_read(again.state) == 2
    again.resume_after_recovery()
    assert len(again.faults.open) == 1
    again.post(ev.HoleCardsRead(at=clock(), seat=2, cards=("As", "Ad")))
    again.pump()
    assert not again.faults.paused and again.faults.endings[-1].by == "dealer"


def test_a_reading_the_crash_kept_from_the_journal_is_asked_again_after_recovery(tmp_path):
    """The table event that reached the showdown was journalled, its fault was not."""
    orch, ports, clock = _to_reading(tmp_path)
    journal = orch.journal
    raised = [e.seq for e in journal.entries(kinds=("fault-raised",))]
    assert raised[-1] == journal.last_seq  # the crash came just before it was written
    journal._db.execute("DELETE FROM events WHERE seq = ?", (raised[-1],))  # noqa: SLF001
    again = Orchestrator.recover(journal, lambda: TableState.new(SETTINGS), clock=clock, ports=Recorder())
    assert not again.faults.paused and cards_to_read(again.state) == 2
    again.resume_after_recovery()
    assert again.faults.current.kind.value == KIND
    assert again.faults.current.message.startswith("dealer: read seat 2's hole cards")


class AskingDealer:
    """Records what the table asks for; the test delivers the cards itself."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, int, int | None]] = []

    def deal(self, *, target, count, seat, reshuffle, hand):
        self.asked.append((target, count, seat))


def _adapter_table(tmp_path):
    from controller.devices import DevicePorts, DriverAdapter

    clock = ManualClock()
    ports = DevicePorts()
    orch = Orchestrator(TableState.new(SETTINGS), journal=Journal(tmp_path / "j.sqlite"), clock=clock, ports=ports)
    adapter = DriverAdapter(orch, ports, clock=clock)
    adapter.shuffler = object()  # present; a misread's resume never calls it
    orch.translate = adapter.translate
    ports.dealer = AskingDealer()
    for s in (1, 2, 3):
        orch.post(ev.PlayerSatDown(at=clock(), seat=s, player=f"p{s}", name=f"P{s}"))
        orch.post(ev.BoughtIn(at=clock(), seat=s, amount=1000))
    orch.post(ev.HandStartRequested(at=clock(), button=1))
    orch.pump()
    return orch, ports.dealer, clock


def test_misread_resume_gives_a_hole_card_to_the_table_as_unknown(tmp_path):
    from drivers.shuffler import events as SE
    from drivers.shuffler.protocol import Target

    orch, dealer, clock = _adapter_table(tmp_path)
    assert dealer.asked == [("seat", 1, 2)] and orch.state.dealing is not None
    orch.post(SE.Misread(clock(), 7, Target("seat", 2), 1, 1))
    orch.pump()
    assert orch.faults.current.kind.value == "misread"
    orch.post(FloorDecision("misread", "resume", "floor:anna"))
    orch.pump()
    assert not orch.faults.paused
    hand = orch.state.hand
    assert hand.hole_cards(2) == (None,)  # recorded unknown, not guessed
    assert dealer.asked[-1] == ("seat", 1, 3)  # the deal goes on with the next seat, not again to 2


def test_misread_resume_of_a_board_card_takes_it_out_and_deals_another(tmp_path):
    from drivers.shuffler import events as SE
    from drivers.shuffler.protocol import Target

    orch, dealer, clock = _adapter_table(tmp_path)
    for card in ORDER[:6]:  # the hole cards, then everyone checks to the flop
        orch.post(ev.CardDealt(at=clock(), card=card))
        orch.pump()
    while orch.state.dealing is None:
        lg = orch.state.hand.legal()
        orch.post(ev.ActionTaken(at=clock(), seat=lg.seat, action="check" if lg.check else "call"))
        orch.pump()
    orch.post(ev.CardDealt(at=clock(), card="Jc"))  # the burn
    orch.pump()
    asked = len(dealer.asked)
    orch.post(SE.Misread(clock(), 9, Target("board"), 1, 8))
    orch.pump()
    orch.post(FloorDecision("misread", "resume", "floor:anna"))
    orch.pump()
    assert not orch.faults.paused
    assert dealer.asked[asked:] == [("board", 3, None)]  # the flop asked again: nothing played unread
    assert orch.state.dealing is not None and len(orch.state.dealing.cards) == 1  # only the burn
