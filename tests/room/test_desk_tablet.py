"""A seated player joins and leaves a waiting list from the seat's tablet (issue 18): the
table forwards the request with the player as it knows them; the desk
(:meth:`room.desk.PlayersDesk.table_request`) applies it as a phone's request, records it with
who did it, and answers the seat with the player's lists and places."""

from __future__ import annotations

import json
from typing import Any

from controller.engine.table import events as ev
from room.desk import seat_lists_topic
from test_desk import KEY, Rig, _fill, rig  # noqa: F401 - rig is a fixture; tests/room is on sys.path

LIST = f"{KEY['game']} {KEY['stakes']}"


def _req(seat: int, player: str, op: str, lst: str | None = LIST, rid: str = "r1", **extra: Any) -> dict[str, Any]:
    return {"schema": 1, "table": "t7", "seat": seat, "player": player, "name": player.title(), "op": op,
            "list": lst, "id": rid, **extra}


def _answers(rig: Rig, seat: int) -> list[dict[str, Any]]:
    return [p for t, p, r in rig.sent if t == seat_lists_topic("t7", seat) and not r]


def test_a_seated_player_joins_and_leaves_from_the_tablet(rig: Rig) -> None:
    _fill(rig)
    assert rig.desk.request("zed", {"op": "join", **KEY})["ok"]  # a phone first
    out = rig.desk.table_request("t7", _req(1, "ann", "join"))
    assert out is not None and out["ok"] and out["error"] is None and out["id"] == "r1"
    assert out["lists"] == [{**KEY, "list": LIST, "place": 2, "waiting": 2}]
    assert _answers(rig, 1)[-1] == out  # published to the seat (bridged in to the table)
    join = [e for e in rig.desk.lists.log if e.action == "join" and e.player == "ann"]
    assert [(e.by, e.detail) for e in join] == [("ann", "place 2, via table t7 seat 1")]
    # stored with who did it, as the phone's and the floor's are
    assert any(e["action"] == "join" and e["player"] == "ann" and "via table t7 seat 1" in e["detail"]
               for e in rig.desk.players.waitlist_log())
    # zed leaves from his phone: ann's seat hears she moved up, without asking
    before = len(_answers(rig, 1))
    assert rig.desk.request("zed", {"op": "leave", **KEY})["ok"]
    moved = _answers(rig, 1)[before:]
    assert [a["lists"][0]["place"] for a in moved] == [1] and moved[0]["id"] is None
    out = rig.desk.table_request("t7", _req(1, "ann", "leave", rid="r2"))
    assert out is not None and out["ok"] and out["lists"] == []
    assert [(e.action, e.by) for e in rig.desk.lists.log if e.player == "ann"][-1] == ("leave", "ann")
    assert rig.desk.table_request("t7", _req(1, "ann", "status", None, rid="r3"))["lists"] == []  # type: ignore[index]


def test_the_desk_trusts_only_its_own_view_of_who_sits_there(rig: Rig) -> None:
    _fill(rig)
    # the room has ann in seat 1, not seat 2, and no zed at all: refused, nothing joined
    for seat, who in ((2, "ann"), (1, "zed")):
        out = rig.desk.table_request("t7", _req(seat, who, "join"))
        assert out is not None and not out["ok"] and "does not see" in out["error"]
    assert rig.desk.lists.lists.get(next(iter(rig.desk.lists.lists), None), []) == [] or \
        all(not lst for lst in rig.desk.lists.lists.values())
    # a walk-in who typed "Bob Smith" has no account: asked to see the floor
    rig.play(ev.StoodUp(at=1100.0, seat=4))
    rig.play(ev.PlayerSatDown(at=1101.0, seat=4, player="name:bob smith", name="Bob Smith"),
             ev.BoughtIn(at=1101.5, seat=4, amount=5000))
    out = rig.desk.table_request("t7", _req(4, "name:bob smith", "join"))
    assert out is not None and not out["ok"] and "no account" in out["error"]
    # a walk-in who typed "zed" is not the room's zed: he cannot take zed's place off a list
    assert rig.desk.request("zed", {"op": "join", **KEY})["ok"]
    rig.play(ev.StoodUp(at=1102.0, seat=4))
    rig.play(ev.PlayerSatDown(at=1103.0, seat=4, player="name:zed", name="zed"),
             ev.BoughtIn(at=1103.5, seat=4, amount=5000))
    out = rig.desk.table_request("t7", _req(4, "name:zed", "leave"))
    assert out is not None and not out["ok"]
    assert rig.desk.status("zed")["lists"][0]["place"] == 1


def test_bad_requests_are_refused_and_lose_nothing(rig: Rig) -> None:
    _fill(rig)
    assert rig.desk.table_request("t7", _req(1, "ann", "join"))["ok"]  # type: ignore[index]
    for bad, why in ((_req(1, "ann", "join", "pot-limit omaha 1/2"), "no list"),
                     (_req(1, "ann", "join", 7), "no list"),
                     (_req(1, "ann", "join"), "already on"),
                     (_req(1, "ann", "dance"), "unknown op")):
        out = rig.desk.table_request("t7", bad)
        assert out is not None and not out["ok"] and why in out["error"], (bad, out)
        assert out["lists"] == [{**KEY, "list": LIST, "place": 1, "waiting": 1}]  # still there
    sent = len(rig.sent)
    # not a seat of this table, another table's, extra fields: no seat to answer, nothing published
    for bad in (_req(0, "ann", "join"), _req(11, "ann", "join"), _req(True, "ann", "join"),  # type: ignore[arg-type]
                {**_req(1, "ann", "join"), "table": "t8"}, _req(1, "ann", "join", extra=1), "join", None,
                _req(1, "x" * 65, "join")):
        assert rig.desk.table_request("t7", bad) is None
    assert len(rig.sent) == sent
    # a flood from one seat: refused past the phone's bucket, never applied twice
    outs = [rig.desk.table_request("t7", _req(1, "ann", "status", None, rid=f"f{i}")) for i in range(30)]
    assert any(o is not None and not o["ok"] and "too many" in o["error"] for o in outs)
    assert rig.desk.status("ann")["lists"] == [{**KEY, "list": LIST, "place": 1, "waiting": 1}]


def test_a_table_request_message_through_the_desks_subscription(rig: Rig) -> None:
    """paho's callback: retained, oversized and non-JSON messages are dropped, a good one answered."""
    from types import SimpleNamespace

    _fill(rig)
    topic = "room/tables/t7/players/request"
    for payload, retain in ((b"{", False), (json.dumps(_req(1, "ann", "join")).encode(), True),
                            (b" " * 2000, False)):
        rig.desk._on_table_request(None, None, SimpleNamespace(topic=topic, payload=payload, retain=retain))
    assert _answers(rig, 1) == [] and rig.desk.status("ann")["lists"] == []
    rig.desk._on_table_request(None, None, SimpleNamespace(topic=topic, payload=json.dumps(_req(1, "ann", "join")).encode(),
                                                           retain=False))
    assert _answers(rig, 1)[-1]["ok"] and rig.desk.status("ann")["lists"][0]["place"] == 1
    # a table forwards only for itself: t8's bridge cannot put down a player of t7
    rig.desk._on_table_request(None, None, SimpleNamespace(topic="room/tables/t8/players/request",
                                                           payload=json.dumps(_req(2, "bob", "join")).encode(),
                                                           retain=False))
    assert rig.desk.status("bob")["lists"] == []
