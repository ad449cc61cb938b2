"""The emulated machine without a pty: the protocol's device-side rules, frame by frame."""

from __future__ import annotations

import time

from drivers.shuffler import protocol as P
from drivers.shuffler.codec import Decoder, Frame
from drivers.shuffler.device import Faults, Machine


class Wire:
    """Collects what the machine sends, decoded."""

    def __init__(self, machine: Machine) -> None:
        self.dec = Decoder()
        self.frames: list[Frame] = []
        machine.line = lambda raw: self.frames.extend(self.dec.feed(raw))

    def take(self) -> list[Frame]:
        out, self.frames = self.frames, []
        return out


def session(**kw: object) -> tuple[Machine, Wire]:
    m = Machine(seed=3, **kw)
    w = Wire(m)
    m.on_frame(Frame(1, P.Cmd.HELLO, P.pack_hello_request(resume=False)))
    assert w.take()[0].type == P.Rsp.HELLO
    return m, w



def test_requests_before_hello_are_refused() -> None:
    m = Machine()
    w = Wire(m)
    m.on_frame(Frame(4, P.Cmd.SHUFFLE))
    (nak,) = w.take()
    assert (nak.type, nak.seq, nak.payload) == (P.Rsp.NAK, 4, bytes((P.ErrorCode.NO_SESSION,)))


def test_a_repeated_seq_is_answered_but_not_executed_again() -> None:
    m, w = session()
    m.on_frame(Frame(2, P.Cmd.SHUFFLE))
    m.run_due(float("inf"))
    m.on_frame(Frame(3, P.Cmd.DEAL, bytes((1, 2))))
    m.run_due(float("inf"))
    first = [f for f in w.take() if f.type == P.Rsp.ACK]
    m.on_frame(Frame(3, P.Cmd.DEAL, bytes((1, 2))))  # the same request again (a resend)
    m.run_due(float("inf"))
    again = [f for f in w.take() if f.type in (P.Rsp.ACK, P.Rsp.NAK)]
    assert [f.seq for f in first] == [2, 3] and [f.seq for f in again] == [3]
    assert len(m.physical_log()) == 2 and m.status().last_seq == 3
    m.on_frame(Frame(4, P.Cmd.DEAL, bytes((1, 2))))  # a new SEQ is a new deal
    m.run_due(float("inf"))
    assert len(m.physical_log()) == 4


def test_status_reports_the_last_executed_request_and_its_result() -> None:
    m, w = session()
    m.on_frame(Frame(5, P.Cmd.DEAL, bytes((1, 1))))  # no deck yet
    m.on_frame(Frame(6, P.Cmd.STATUS))
    nak, status = w.take()
    assert nak.payload == bytes((P.ErrorCode.NO_DECK,))
    st = P.unpack_status(status.payload)
    assert (st.last_seq, st.last_code, st.state) == (5, P.ErrorCode.NO_DECK, P.DeviceState.NO_DECK)


def test_events_are_resent_until_acknowledged() -> None:
    m, w = session(faults=Faults(drop_events=1))
    m.on_frame(Frame(2, P.Cmd.SHUFFLE))
    m.run_due(time.monotonic())  # the shuffle completes; its DECK event is lost on the wire
    assert [f.type for f in w.take()] == [P.Rsp.ACK]
    m.run_due(float("inf"))  # retry time: the DECK event again
    (deck,) = w.take()
    assert deck.type == P.Evt.DECK and P.unpack_deck_event(deck.payload).event_no == 1
    m.on_frame(Frame(0, P.Cmd.EVENT_ACK, (1).to_bytes(4, "big")))
    m.run_due(float("inf"))
    assert w.take() == [] and m.next_deadline() is None


def test_deck_check_reports_sorted_identities_never_the_order() -> None:
    m, w = session()
    m.on_frame(Frame(2, P.Cmd.SHUFFLE))
    m.run_due(time.monotonic())
    deck = P.unpack_deck_event(w.take()[1].payload)
    assert [c.index for c in deck.cards] == list(range(52)) and deck.cmd_seq == 2
    assert [c.index for _, c in m.physical_log()] == []


def test_unknown_commands_and_bad_payloads_are_refused() -> None:
    m, w = session()
    m.on_frame(Frame(2, 0x3F))
    m.on_frame(Frame(3, P.Cmd.DEAL, b"\x01"))
    m.on_frame(Frame(4, P.Cmd.DRAW, bytes((P.TARGET_BOARD, 1))))
    codes = [f.payload[0] for f in w.take()]
    assert codes == [P.ErrorCode.UNKNOWN_COMMAND, P.ErrorCode.BAD_PAYLOAD, P.ErrorCode.BAD_TARGET]
