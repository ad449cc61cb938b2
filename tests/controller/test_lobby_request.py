"""A seat's waiting-list request at the table (issue 18): the link checks the payload, the
MQTT adapter forwards it to the room with the player seated there as the table knows them
(the tablet only names its seat), and gives the seat's tablet the room's answer only while
that player still sits there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.devices.mqtt import MqttAdapter
from controller.devices.ports import DevicePorts
from controller.engine.table import events as ev
from controller.engine.table.settings import TableSettings
from controller.runtime import open_table
from drivers.mqtt import codec
from drivers.mqtt.codec import PayloadError
from drivers.mqtt.events import LobbyRequestReceived, SeatListsReceived
from drivers.mqtt.topics import Kind, parse, topic

NOW = 1_800_000_000.0
LIST = "no-limit holdem 1/2"


class FakeLink:
    """What the adapter uses of :class:`drivers.mqtt.link.TableLink`, recorded."""

    table = "t1"

    def __init__(self) -> None:
        self.forwarded: list[dict[str, Any]] = []
        self.lists: list[tuple[int, dict[str, Any] | None]] = []
        self.replies: list[tuple[int, str, bool, str | None]] = []
        self.fail = False

    def forward_lobby_request(self, request: dict[str, Any]) -> None:
        if self.fail:
            raise OSError("broker gone")
        self.forwarded.append(request)

    def publish_seat_lists(self, seat: int, answer: dict[str, Any] | None) -> None:
        self.lists.append((seat, answer))

    def reply(self, seat: int, action_id: str, accepted: bool, reason: str | None) -> None:
        self.replies.append((seat, action_id, accepted, reason))

    def publish_state(self, view: dict[str, Any]) -> None:
        pass

    def publish_private(self, seat: int, view: Any) -> None:
        pass


@pytest.fixture
def table(tmp_path: Path) -> Any:
    ports = DevicePorts()
    link = FakeLink()
    ports.link = link
    s = TableSettings(id="t1", name="Birch", seats=6, small_blind=1, big_blind=2, buy_in_min=40, buy_in_max=200)
    orch, _ = open_table(tmp_path / "t1.sqlite", s, clock=lambda: NOW, ports=ports)
    adapter = MqttAdapter(orch, ports, clock=lambda: NOW)
    orch.listeners.append(adapter.after_step)
    orch.handle(ev.PlayerSatDown(at=NOW, seat=3, player="name:anna", name="Anna"))
    yield orch, adapter, link
    orch.journal.close()


def test_the_request_goes_to_the_room_with_the_seated_player(table: Any) -> None:
    orch, adapter, link = table
    assert adapter.translate(LobbyRequestReceived(3, "join", LIST, "l3-a", NOW)) == []
    assert link.forwarded == [{"schema": 1, "table": "t1", "seat": 3, "player": "name:anna", "name": "Anna",
                               "op": "join", "list": LIST, "id": "l3-a"}]
    assert link.replies[-1] == (3, "l3-a", True, None)  # sent on: the room's answer follows
    # an empty seat is refused at the table, nothing goes to the room
    adapter.translate(LobbyRequestReceived(4, "join", LIST, "l4-a", NOW))
    seat, rid, ok, reason = link.replies[-1]
    assert (seat, rid, ok) == (4, "l4-a", False) and reason.startswith("L-1: seat 4 is empty")
    assert len(link.forwarded) == 1
    # a link that cannot send: refused, the table goes on
    link.fail = True
    adapter.translate(LobbyRequestReceived(3, "leave", LIST, "l3-b", NOW))
    assert link.replies[-1][2] is False and "could not be sent" in link.replies[-1][3]
    assert orch.state.seat(3).name == "Anna"


def test_the_rooms_answer_reaches_only_the_player_it_is_about(table: Any) -> None:
    orch, adapter, link = table
    answer = {"schema": 1, "table": "t1", "seat": 3, "player": "name:anna", "id": "l3-a", "ok": True,
              "error": None, "lists": [{"list": LIST, "game": "no-limit holdem", "stakes": "1/2", "place": 3,
                                        "waiting": 5}]}
    adapter.translate(SeatListsReceived(3, {**answer, "player": "name:bob"}, NOW))  # not who sits there
    assert link.lists == []
    adapter.translate(SeatListsReceived(3, answer, NOW))
    seat, out = link.lists[-1]
    assert seat == 3 and out is not None and "player" not in out and out["name"] == "Anna"
    assert out["lists"][0]["place"] == 3 and out["id"] == "l3-a"
    # anna stands up: her places are cleared from the seat before anyone else sits there
    orch.handle(ev.StoodUp(at=NOW + 1, seat=3))
    assert link.lists[-1] == (3, None)
    orch.handle(ev.PlayerSatDown(at=NOW + 2, seat=3, player="name:cy", name="Cy"))
    adapter.translate(SeatListsReceived(3, answer, NOW + 3))  # late for anna: dropped
    assert link.lists[-1] == (3, None)


def test_the_tablets_payload_is_checked() -> None:
    ok = codec.lobby_request_payload(seat=3, op="join", list_id=LIST, request_id="l3-1")
    assert codec.decode_lobby_request(ok, seat=3).list == LIST
    assert codec.decode_lobby_request(codec.lobby_request_payload(seat=3, op="status", list_id=None,
                                                                  request_id="l3-2"), seat=3).op == "status"
    good = json.loads(ok)
    for bad, code in ((b"{nope", "M-1"), (b"[1]", "M-1"), (b"\xff", "M-1"),
                      (json.dumps({**good, "op": "dance"}).encode(), "M-2"),
                      (json.dumps({**good, "list": ""}).encode(), "M-2"),
                      (json.dumps({**good, "list": "x" * 101}).encode(), "M-2"),
                      (json.dumps({**good, "list": "a\nb"}).encode(), "M-2"),
                      (json.dumps({**good, "player": "anna"}).encode(), "M-2"),  # no saying who you are
                      (json.dumps({**good, "seat": 4}).encode(), "M-6"),
                      (json.dumps({**good, "list": "x" * 2000}).encode(), "M-3")):
        with pytest.raises(PayloadError) as exc:
            codec.decode_lobby_request(bad, seat=3)
        assert exc.value.code == code, bad
    assert parse("livetable/t1/seat/3/lobby").kind is Kind.SEAT_LOBBY
    assert parse("livetable/t1/room/seats/3/lists").kind is Kind.ROOM_SEAT_LISTS
    assert topic(Kind.SEAT_LISTS, "t1", 3) == "livetable/t1/seat/3/lists"
    room = {"schema": 1, "table": "t1", "seat": 3, "player": "anna", "id": None, "ok": True, "error": None,
            "lists": []}
    assert codec.decode_seat_lists(json.dumps(room).encode(), "t1", 3)["ok"] is True
    for bad_room in ({**room, "seat": 4}, {**room, "table": "t2"}, {**room, "lists": [{"list": 1}]},
                     {**room, "ok": "yes"}, {**room, "error": 5}):
        with pytest.raises(PayloadError):
            codec.decode_seat_lists(json.dumps(bad_room).encode(), "t1", 3)


def test_a_neighbours_flood_does_not_make_the_table_forget_a_seats_request_ids() -> None:
    """M-5 per seat, and only requests taken are remembered (breaker 2 L1): seat 3's flood
    (most of it refused M-9) used to push seat 4's ids out of one shared memory, so a QoS 1
    copy of seat 4's join was forwarded to the room again."""
    from drivers.mqtt.link import TableLink

    got: list[object] = []
    link = TableLink("t1", host="127.0.0.1", port=1, username="controller", password="x", post=got.append,
                     max_seats=6)  # never started: its message handling only
    join = codec.lobby_request_payload(seat=4, op="join", list_id=LIST, request_id="b4-join")
    link._take_lobby(4, join, NOW)
    refused = 0
    for i in range(600):
        try:
            link._take_lobby(3, codec.lobby_request_payload(seat=3, op="status", list_id=None, request_id=f"f{i}"),
                             NOW + 1)
        except PayloadError as exc:
            refused += exc.code == "M-9"
    assert refused >= 590
    with pytest.raises(PayloadError, match="M-5"):
        link._take_lobby(4, join, NOW + 2)
    taken = [(e.seat, e.request_id) for e in got if isinstance(e, LobbyRequestReceived)]
    assert taken.count((4, "b4-join")) == 1 and len(taken) == 1 + 600 - refused
    # a request refused M-9 was not taken: sent again after the window, it is taken once
    link._take_lobby(3, codec.lobby_request_payload(seat=3, op="status", list_id=None, request_id="f599"), NOW + 120)
    assert [e.request_id for e in got if isinstance(e, LobbyRequestReceived)][-1] == "f599"
