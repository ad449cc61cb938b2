"""A tournament re-entry asked at the busted player's seat tablet (issue 19, TDA 9): the
tablet sends ``op`` reenter on its seat's own lobby topic; the table of the room's tournament
journals it asked for the player *it* saw bust from that seat (never a name the tablet gives);
the dealer takes the money and confirms it (``livetable floor confirm-buyin SEAT``, T-3), which
sends the room the request, journalled, once a seat; the room's answer is shown at the seat
(the tournament view's ``reentry_answer``) and survives a restart of the table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.devices.mqtt import MqttAdapter
from controller.devices.ports import DevicePorts
from controller.engine.table import events as ev
from controller.orchestrator import TournamentOwn
from drivers.mqtt import codec
from drivers.mqtt.codec import PayloadError
from drivers.mqtt.events import LobbyRequestReceived
from tests.controller.test_lobby_request import FakeLink
from tests.room.test_room_tournament_purchases import _close, _order, _table, buy_room

NOW = 1_800_000_000.0
PUBLIC = {"seats": [{"seat": 1, "status": "empty"}, {"seat": 2, "status": "waiting", "stack": 2000}]}
ENTRY = {"table": "t2", "table_name": "Oak", "seat": 4}


def _busted_table(path: Path) -> tuple[Any, Any, MqttAdapter, FakeLink]:
    """A room table with p1 (seat 1) and p2 (seat 2); p1 busts in hand 1 and leaves his seat."""
    run, link = _table(path)
    view = next(o for o in reversed(buy_room().sent) if o["table"] == "t1")["view"]
    _order(link, run, 1, view=dict(view, reentry={"1": {"left": 1, "until_level": 4}}), **{"in": [{"move": 1, "seat": 1, "player": "p1", "name": "Anna", "chips": 500},
                                   {"move": 2, "seat": 2, "player": "p2", "name": "Bob", "chips": 2000}]})
    link._bust(1, {"busted": {"p1": 500}, "players": {"1": {"player": "p1", "start": 500},
                                                       "2": {"player": "p2", "start": 2000}}})
    run.orch.handle(TournamentOwn(ev.StoodUp(at=run.orch.clock(), seat=1, moved=True)))
    assert run.orch.state.seat(1) is None
    ports, fake = DevicePorts(), FakeLink()
    ports.link = fake
    return run, link, MqttAdapter(run.orch, ports, clock=lambda: NOW), fake


def _confirm(run: Any, seat: int, rid: str = "f1") -> tuple[bool, str | None, str | None]:
    """The dealer took the money: ``livetable floor confirm-buyin SEAT`` (by Dee); return
    (accepted, reason, detail)."""
    from controller.floor import FloorDesk
    from drivers.mqtt.events import FloorRequestReceived

    replies: list[tuple[Any, ...]] = []
    FloorDesk(run.orch, lambda *a: replies.append(a), clock=run.orch.clock).request(
        FloorRequestReceived(rid, "confirm-buyin", "Dee", 0.0, seat=seat))
    return replies[-1][2], replies[-1][3], replies[-1][4]


def _press(adapter: MqttAdapter, fake: FakeLink, seat: int, rid: str) -> tuple[bool, str | None]:
    adapter.translate(LobbyRequestReceived(seat, "reenter", None, rid, NOW))
    s, r, ok, why = fake.replies[-1]
    assert (s, r) == (seat, rid)
    return ok, why


def test_the_table_sends_the_room_a_re_entry_for_the_player_it_saw_bust_there_once(tmp_path: Path) -> None:
    path = tmp_path / "t1.sqlite"
    run, link, adapter, fake = _busted_table(path)
    try:
        assert link.view_json(PUBLIC)["reentry"] == {"1": {"left": 1, "until_level": 4}}  # the room's offer
        assert _press(adapter, fake, 1, "r1") == (True, None)
        assert fake.forwarded == []  # not the waiting lists' desk: the room's tournament
        assert link.report()["requests"] == {}  # asked: it waits for the dealer
        assert link.view_json(PUBLIC)["asked"] == {"1": "reentry"}  # the tablet says it waits
        assert _confirm(run, 1)[0]  # the dealer took the money
        assert link.report()["requests"] == {
            "1": {"kind": "reentry", "seat": 1, "player": "p1", "by": "floor:Dee",
                  "reason": "asked at the tablet of table t1 seat 1"}}
        assert link.view_json(PUBLIC)["sent"] == {"1": "reentry"}
        ok, why = _press(adapter, fake, 1, "r2")  # a double press: one request
        assert not ok and "waits for the room's director already" in why and len(link.requests) == 1
        ok, why = _press(adapter, fake, 2, "r3")  # Bob plays on: nothing to re-enter
        assert not ok and "no busted player" in why
        ok, why = _press(adapter, fake, 3, "r4")  # nobody busted there
        assert not ok and "no busted player" in why
        _order(link, run, 2, answers={"1": {"entry": ENTRY}})
        assert link.report()["requests"] == {}
        assert link.view_json(PUBLIC)["reentry_answer"] == {"1": {"entry": ENTRY}}
        ok, why = _press(adapter, fake, 1, "r5")  # pressed again after the room's yes
        assert not ok and "booked already: Oak seat 4" in why and link.requests == {}
    finally:
        _close(run, link)
    run, link = _table(path)  # restarted: who busted where and the room's answer come back from the journal
    try:
        assert link.out_at == {1: "p1"} and link.view_json(PUBLIC)["reentry_answer"] == {"1": {"entry": ENTRY}}
        assert link.report()["requests"] == {}
    finally:
        _close(run, link)


def test_a_refusal_is_shown_at_the_seat_and_he_may_ask_again(tmp_path: Path) -> None:
    run, link, adapter, fake = _busted_table(tmp_path / "t1.sqlite")
    try:
        assert _press(adapter, fake, 1, "r1")[0] and _confirm(run, 1)[0]
        why = "TDA 9: late registration closed at the end of level 4 (level 5 now)"
        _order(link, run, 2, answers={"1": {"why": why}})
        assert link.view_json(PUBLIC)["reentry_answer"] == {"1": {"why": why}}
        assert _press(adapter, fake, 1, "r2")[0]  # asked again, the old answer cleared
        assert link.view_json(PUBLIC)["reentry_answer"] == {} and link.report()["requests"] == {}
        assert _confirm(run, 1)[0]  # sent again once the dealer confirms
        assert list(link.report()["requests"]) == ["2"]
        # someone sits in the seat: the busted player's answer is not shown to him
        _order(link, run, 3, answers={"2": {"why": why}},
               **{"in": [{"move": 3, "seat": 1, "player": "p3", "name": "Cy", "chips": 2000}]})
        seated = {"seats": [{"seat": 1, "status": "waiting", "stack": 2000}] + PUBLIC["seats"][1:]}
        assert link.view_json(seated)["reentry_answer"] == {} and link.view_json(seated)["reentry"] == {}
        ok, why = _press(adapter, fake, 1, "r3")
        assert not ok and "no busted player" in why
    finally:
        _close(run, link)


def test_a_single_table_sends_it_to_the_director_and_the_payload_names_no_player(tmp_path: Path) -> None:
    from controller.runtime import open_table
    from controller.engine.table.settings import TableSettings

    ports, fake = DevicePorts(), FakeLink()
    ports.link = fake
    s = TableSettings(id="t1", name="Birch", seats=6, small_blind=1, big_blind=2, buy_in_min=40, buy_in_max=200)
    orch, _ = open_table(tmp_path / "c.sqlite", s, clock=lambda: NOW, ports=ports)
    try:
        adapter = MqttAdapter(orch, ports, clock=lambda: NOW)
        assert _press(adapter, fake, 3, "r1") == (False, "F-3: a re-entry here is registered by the director: "
                                                         "ask the floor")
        assert fake.forwarded == []
    finally:
        orch.journal.close()
    ok = codec.lobby_request_payload(seat=3, op="reenter", list_id=None, request_id="x1")
    assert codec.decode_lobby_request(ok, seat=3).op == "reenter"
    good = json.loads(ok)
    for bad in ({**good, "player": "p1"}, {**good, "name": "Anna"}, {**good, "list": "no-limit holdem 1/2"},
                {**good, "seat": 4}):
        with pytest.raises(PayloadError):
            codec.decode_lobby_request(json.dumps(bad).encode(), seat=3)


class _Msg:
    """What the link reads of a paho message."""

    def __init__(self, topic: str, payload: bytes, retain: bool = False) -> None:
        self.topic, self.payload, self.retain = topic, payload, retain


def test_bad_flooded_or_retained_re_entry_requests_are_refused_for_that_seat_only() -> None:
    """The lobby topic's guards hold for ``reenter`` (the link, never started: its message
    handling): a retained request is cleared and refused M-10, a bad one refused, a flood
    refused M-9 after 5 in 10 s; another seat's request is taken meanwhile; a retry of an id
    taken is refused M-5 (one request reaches the table)."""
    from drivers.mqtt.link import TableLink

    got: list[object] = []
    now = [NOW]
    link = TableLink("t1", host="127.0.0.1", port=1, username="controller", password="x", post=got.append,
                     max_seats=6, clock=lambda: now[0])
    sent: list[tuple[str, bytes, bool]] = []
    link._client.publish = lambda t, p=None, *a, **k: sent.append((t, p, bool(k.get("retain"))))  # type: ignore

    def req(seat: int, rid: str, *, retain: bool = False, raw: bytes | None = None) -> None:
        payload = raw if raw is not None else codec.lobby_request_payload(seat=seat, op="reenter", list_id=None,
                                                                          request_id=rid)
        link._take_message(_Msg(f"livetable/t1/seat/{seat}/lobby", payload, retain))  # type: ignore[arg-type]

    def taken() -> list[tuple[int, str]]:
        return [(e.seat, e.request_id) for e in got if isinstance(e, LobbyRequestReceived)]

    def last_reply(seat: int) -> dict[str, Any]:
        return json.loads(next(p for t, p, _ in reversed(sent) if t == f"livetable/t1/seat/{seat}/reply"))

    req(3, "kept", retain=True)
    assert ("livetable/t1/seat/3/lobby", b"", True) in sent and taken() == []
    assert last_reply(3)["accepted"] is False and last_reply(3)["reason"].startswith("M-10")
    now[0] += 11  # one answer a flood window (M-9 damping): the next refusal in a new one
    req(3, "x", raw=json.dumps({"schema": 1, "id": "b1", "seat": 3, "op": "reenter", "list": None,
                                "player": "p9"}).encode())
    assert last_reply(3)["accepted"] is False and last_reply(3)["reason"].startswith("M-2") and taken() == []
    now[0] += 11
    for i in range(8):  # a flood from seat 3
        req(3, f"f{i}")
    req(4, "n1")  # seat 4 is heard all the same
    assert taken().count((4, "n1")) == 1 and len([s for s, _ in taken() if s == 3]) == 5
    req(4, "n1")  # a retry of a request taken: not taken twice
    assert taken().count((4, "n1")) == 1 and last_reply(4)["reason"].startswith("M-5")


def test_a_bad_reentry_offer_in_the_rooms_view_is_refused() -> None:
    from controller.tournament_link_view import decode_view

    view = next(o for o in reversed(buy_room().sent) if o["table"] == "t1")["view"]
    assert decode_view(dict(view, reentry={"3": {"left": 1, "until_level": 4}}))["reentry"] == {
        "3": {"left": 1, "until_level": 4}}
    for bad in ({"0": {"left": 1, "until_level": 4}}, {"3": {"left": -1, "until_level": 4}}, {"3": 1}, [3]):
        with pytest.raises(ValueError, match="reentry"):
            decode_view(dict(view, reentry=bad))


def test_a_player_who_re_entered_into_his_own_seat_and_busts_again_may_ask_again(tmp_path: Path) -> None:
    """Breaker: the room may seat a re-entry in the very seat he busted from (the shortest
    table, a random free seat). Busted there again (``reentry.max`` 2), his tablet was
    refused "the re-entry is booked already" and the seat showed the old "go to Birch seat
    1" while the room offered him a second re-entry: a new bust from a seat ends the room's
    earlier answer there, also over a restart."""
    path = tmp_path / "t1.sqlite"
    run, link, adapter, fake = _busted_table(path)
    here = {"table": "t1", "table_name": "Birch", "seat": 1}
    try:
        assert _press(adapter, fake, 1, "r1")[0] and _confirm(run, 1)[0]
        _order(link, run, 2, answers={"1": {"entry": here}},
               **{"in": [{"move": 3, "seat": 1, "player": "p1", "name": "Anna", "chips": 2000}]})
        assert run.orch.state.seat(1).player == "p1"
        link._bust(2, {"busted": {"p1": 2000}, "players": {"1": {"player": "p1", "start": 2000},
                                                            "2": {"player": "p2", "start": 2000}}})
        run.orch.handle(TournamentOwn(ev.StoodUp(at=run.orch.clock(), seat=1, moved=True)))
        assert link.view_json(PUBLIC)["reentry_answer"] == {}  # not the first re-entry's seat
    finally:
        _close(run, link)
    run, link = _table(path)  # restarted: the second bust still ends the first answer
    try:
        assert link.view_json(PUBLIC)["reentry_answer"] == {}
        ports, fake = DevicePorts(), FakeLink()
        ports.link = fake
        adapter = MqttAdapter(run.orch, ports, clock=lambda: NOW)
        assert _press(adapter, fake, 1, "r2") == (True, None) and _confirm(run, 1)[0]
        assert [r["player"] for r in link.requests.values()] == ["p1"]
    finally:
        _close(run, link)


@pytest.mark.parametrize("op", [[], ["reenter"], {}, {"op": "reenter"}])
def test_a_lobby_request_whose_op_is_a_list_or_object_is_refused_m2_with_an_answer(op: Any) -> None:
    """Breaker: ``op`` a list or object (JSON a hostile tablet can send) raised TypeError
    (unhashable) in the codec: the link logged a traceback and the tablet got no answer.
    It is refused M-2 like any other bad op, answered on the seat's reply topic."""
    from drivers.mqtt.link import TableLink

    raw = json.dumps({"schema": 1, "id": "o1", "seat": 3, "op": op, "list": None}).encode()
    with pytest.raises(PayloadError) as exc:
        codec.decode_lobby_request(raw, seat=3)
    assert exc.value.code == "M-2"
    got: list[object] = []
    link = TableLink("t1", host="127.0.0.1", port=1, username="controller", password="x", post=got.append,
                     max_seats=6, clock=lambda: NOW)
    sent: list[tuple[str, bytes]] = []
    link._client.publish = lambda t, p=None, *a, **k: sent.append((t, p))  # type: ignore
    link._take_message(_Msg("livetable/t1/seat/3/lobby", raw))  # type: ignore[arg-type]
    assert got == [] and link.refused == 1
    reply = json.loads(next(p for t, p in sent if t == "livetable/t1/seat/3/reply"))
    assert reply["accepted"] is False and reply["reason"].startswith("M-2")


@pytest.mark.parametrize("bad", [{"action": ["deal_accept"]}, {"action": {}},
                                 {"action": "preselect", "choice": []}, {"action": "auto_muck", "choice": {}}])
def test_a_seat_action_whose_action_or_choice_is_a_list_or_object_is_refused_m2(bad: dict[str, Any]) -> None:
    """Breaker: the deal answers' topic (seat actions) had the same TypeError as the lobby's op."""
    raw = json.dumps({"schema": 1, "id": "d1", "seat": 3, "seq": 0, "amount": 1, **bad}).encode()
    with pytest.raises(PayloadError) as exc:
        codec.decode_action(raw, seat=3)
    assert exc.value.code == "M-2"


def test_a_floor_request_whose_command_is_a_list_is_refused_m2() -> None:
    """Breaker: ``livetable floor deal-offer``'s topic: a command that is a list raised TypeError."""
    with pytest.raises(PayloadError) as exc:
        codec.decode_floor_request(json.dumps({"schema": 1, "id": "f1", "command": ["deal-offer"],
                                               "by": "Anna"}).encode())
    assert exc.value.code == "M-2"


def test_a_request_the_room_never_answers_before_it_ends_the_table_is_refused_at_the_seat(tmp_path: Path) -> None:
    """Breaker: a re-entry pressed as the room's order ending the table (broken, TDA 10) is on
    its way: the table takes no order after that one, so the room's answer can never come and
    the seat said "Re-entry sent: the director registers it" for good. The end refuses what
    it left unanswered, at the seat, also over a restart."""
    path = tmp_path / "t1.sqlite"
    run, link, adapter, fake = _busted_table(path)
    try:
        assert _press(adapter, fake, 1, "r1")[0] and _confirm(run, 1)[0]
        assert list(link.report()["requests"]) == ["1"]
        _order(link, run, 2, end=True, **{"out": [{"move": 9, "seat": 2, "player": "p2"}]})
        assert link.ended and link.report()["requests"] == {}
        why = link.view_json(PUBLIC)["reentry_answer"]["1"]["why"]
        assert "over" in why and "director" in why
    finally:
        _close(run, link)
    run, link = _table(path)
    try:
        assert link.report()["requests"] == {} and "over" in link.view_json(PUBLIC)["reentry_answer"]["1"]["why"]
    finally:
        _close(run, link)


def test_a_re_entry_pressed_at_the_tablet_waits_for_the_dealer_who_takes_the_money_before_the_room_books_it(
        tmp_path: Path) -> None:
    """Breaker (high, money): a re-entry press at an empty seat's tablet went straight to the
    room, which registered the busted player and put his entry price in the prize pool with
    ``by="player via table t1 seat 5"``: anyone at that tablet booked it and nobody took the
    money. As a rebuy at the room's tables (T-3): the press only journals an ``asked`` of kind
    ``reentry`` for the player the table saw bust there; the dealer takes the money and
    confirms (``livetable floor confirm-buyin SEAT``), which sends the room the request, by
    him. A kill -9 keeps it asked, and never sends it twice."""
    from controller.floor import FloorDesk
    from drivers.mqtt.events import FloorRequestReceived

    path = tmp_path / "t1.sqlite"
    run, link, adapter, fake = _busted_table(path)
    try:
        assert _press(adapter, fake, 1, "r1") == (True, None)
        assert link.report()["requests"] == {}  # nothing goes to the room before the dealer
        shown = link.view_json(PUBLIC)
        assert shown["asked"] == {"1": "reentry"} and shown["sent"] == {}
        ok, why = _press(adapter, fake, 1, "r2")  # a second press while asked
        assert not ok and "waits for the dealer already" in why
    finally:
        _close(run, link)
    run, link = _table(path)  # killed and restarted: still asked, still nothing sent
    try:
        assert link.asked == {1: "reentry"} and link.report()["requests"] == {}
        replies: list[tuple[Any, ...]] = []
        desk = FloorDesk(run.orch, lambda *a: replies.append(a), clock=run.orch.clock)
        assert desk.status()["tournament"]["asked"] == {"1": "reentry"}  # the floor sees it waiting
        desk.request(FloorRequestReceived("f1", "confirm-buyin", "Dee", 0.0, seat=1))
        assert replies[-1][2] is True and "sent to the room's director" in str(replies[-1][4]), replies
        assert link.report()["requests"] == {"1": {"kind": "reentry", "seat": 1, "player": "p1", "by": "floor:Dee",
                                                   "reason": "asked at the tablet of table t1 seat 1"}}
        assert link.view_json(PUBLIC)["sent"] == {"1": "reentry"} and link.asked == {}
        desk.request(FloorRequestReceived("f2", "confirm-buyin", "Dee", 0.0, seat=1))  # confirmed twice: once
        assert replies[-1][2] is False and len(link.requests) == 1
    finally:
        _close(run, link)
    run, link = _table(path)  # restarted again: the one request, never a second
    try:
        assert list(link.report()["requests"]) == ["1"] and link.asked == {}
    finally:
        _close(run, link)


def test_a_re_entry_asked_at_the_tablet_ends_when_late_registration_closes_or_someone_sits_there(
        tmp_path: Path) -> None:
    """An asked re-entry the dealer has not confirmed ends, journalled and said at the seat,
    as the room would refuse it: the room's view offers it there no more (TDA 9: late
    registration closed), or someone sits down at the seat; the dealer's confirm then sends
    nothing (he gives the money back). Over a restart it stays ended."""
    path = tmp_path / "t1.sqlite"
    run, link, adapter, fake = _busted_table(path)
    view = next(o for o in reversed(buy_room().sent) if o["table"] == "t1")["view"]
    try:
        assert _press(adapter, fake, 1, "r1")[0]
        _order(link, run, 2, view=dict(view, reentry={}))  # level 5: the room offers it no more
        assert link.asked == {} and link.report()["requests"] == {}
        why = link.view_json(PUBLIC)["reentry_answer"]["1"]["why"]
        assert why.startswith("TDA 9: the room offers no re-entry at seat 1")
        ok, reason, _ = _confirm(run, 1)
        assert not ok and "no rebuy or add-on waiting" in str(reason) and link.requests == {}
        ok, why2 = _press(adapter, fake, 1, "r2")  # no offer: not asked
        assert not ok and why2 is not None and why2.startswith("TDA 9:")
    finally:
        _close(run, link)
    run, link = _table(path)
    try:
        assert link.asked == {} and link.report()["requests"] == {}
        assert link.view_json(PUBLIC)["reentry_answer"]["1"]["why"] == why
    finally:
        _close(run, link)
    # someone sits down at the seat while it is asked
    run, link, adapter, fake = _busted_table(tmp_path / "t2.sqlite")
    try:
        assert _press(adapter, fake, 1, "r1")[0]
        _order(link, run, 2, **{"in": [{"move": 3, "seat": 1, "player": "p3", "name": "Cy", "chips": 2000}]})
        assert link.asked == {}
        ok, reason, _ = _confirm(run, 1)
        assert not ok and link.requests == {}
    finally:
        _close(run, link)


def test_a_re_entry_asked_but_not_confirmed_when_the_room_ends_the_table_ends_at_the_seat(tmp_path: Path) -> None:
    """The room's order ending the table (a break, TDA 10) comes while a re-entry asked at the
    tablet waits for the dealer: the ask ends, journalled and said at the seat, and a confirm
    after it sends the room nothing; so after a restart."""
    path = tmp_path / "t1.sqlite"
    run, link, adapter, fake = _busted_table(path)
    try:
        assert _press(adapter, fake, 1, "r1")[0]
        _order(link, run, 2, end=True, **{"out": [{"move": 9, "seat": 2, "player": "p2"}]})
        assert link.ended and link.asked == {}
        assert "over" in link.view_json(PUBLIC)["reentry_answer"]["1"]["why"]
        assert not _confirm(run, 1)[0] and link.requests == {}
    finally:
        _close(run, link)
    run, link = _table(path)
    try:
        assert link.asked == {} and link.report()["requests"] == {}
        assert "over" in link.view_json(PUBLIC)["reentry_answer"]["1"]["why"]
    finally:
        _close(run, link)


def test_a_rebuy_asked_before_the_bust_does_not_block_the_re_entry_asked_at_the_empty_seat(tmp_path: Path) -> None:
    """A rebuy the player asked at his tablet and the dealer never confirmed before he busted
    stayed asked at the seat: the re-entry press there was refused "waits for the dealer
    already". The re-entry ends it (journalled: never sold to anyone) and is asked."""
    path = tmp_path / "t1.sqlite"
    run, link = _table(path)
    try:
        view = next(o for o in reversed(buy_room().sent) if o["table"] == "t1")["view"]
        _order(link, run, 1, view=dict(view, reentry={"1": {"left": 1, "until_level": 4}}),
               **{"in": [{"move": 1, "seat": 1, "player": "p1", "name": "Anna", "chips": 500},
                         {"move": 2, "seat": 2, "player": "p2", "name": "Bob", "chips": 2000}]})
        link.ask_purchase("rebuy", 1)
        link._bust(1, {"busted": {"p1": 500}, "players": {"1": {"player": "p1", "start": 500},
                                                           "2": {"player": "p2", "start": 2000}}})
        run.orch.handle(TournamentOwn(ev.StoodUp(at=run.orch.clock(), seat=1, moved=True)))
        assert link.asked == {1: "rebuy"}
        assert "pay the dealer" in link.ask_reentry(1)
        assert link.asked == {1: "reentry"} and link.requests == {}
    finally:
        _close(run, link)
    run, link = _table(path)
    try:
        assert link.asked == {1: "reentry"} and link._asker == {1: "p1"}
    finally:
        _close(run, link)
