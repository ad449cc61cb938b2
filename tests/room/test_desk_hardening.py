"""The players' desk against a breaker (issue 18): the floor's ``seat-open`` calls players
only to a free seat the table has; every name on the lists follows the phone's id rule
(room/ids.py, one validator); a phone login (or a floor login) that floods the desk is
limited by a token bucket (room/ratelimit.py): the phone hears it once, HTTP answers 429 with
Retry-After, and the refusals are logged once a second with a count, not one line each."""

from __future__ import annotations

import base64
import json
import logging
import urllib.error
import urllib.request
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from controller.engine.table import events as ev
from room.console import add_login
from room.desk import notice_topic, serve_desk
from room.ids import PlayerIdError, check_player_id, room_player
from room.provision import ProvisionError, provision_player
from room.ratelimit import RateLimit
from tests.room.test_desk import KEY, Rig, _fill


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def rig(tmp_path: Path, store_url: str) -> Any:
    r = Rig(tmp_path, store_url)
    yield r
    r.close()


def floor_client(rig: Rig, tmp_path: Path) -> tuple[Any, Any]:
    logins = tmp_path / "floor.json"
    pw = add_login(logins, "eve")
    srv = serve_desk(rig.desk, logins, port=0)

    def call(body: Any) -> tuple[int, Any, Any]:
        req = urllib.request.Request(srv.url + "api/lists", data=json.dumps(body).encode())
        req.add_header("Content-Type", "application/json")
        req.add_header("Authorization", "Basic " + base64.b64encode(f"eve:{pw}".encode()).decode())
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read()), r.headers
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read()), e.headers
    return srv, call


def test_seat_open_refuses_seats_the_table_does_not_have_or_someone_sits_in(rig: Rig, tmp_path: Path) -> None:
    """A breaker's finding: ``seat-open`` took seat -5 and 999 and called players to them."""
    _fill(rig)
    assert rig.desk.request("zed", {"op": "join", **KEY})["ok"]
    srv, call = floor_client(rig, tmp_path)
    try:
        for seat in (-5, 0, 5, 999, "3", True, 2.0, None):
            code, out, _ = call({"op": "seat-open", "player": "x", "table": "t7", "seat": seat})
            assert code == 400 and "seats 1..4" in out["error"], (seat, out)
        code, out, _ = call({"op": "seat-open", "player": "x", "table": "t9", "seat": 1})
        assert code == 400 and "no table 't9'" in out["error"]
        code, out, _ = call({"op": "seat-open", "player": "x", "table": "t7", "seat": 2})
        assert code == 400 and "taken by bob" in out["error"]
        assert rig.desk.lists.call_of("zed") is None and rig.desk.lists.openings == {}
        rig.play(ev.StoodUp(at=1100.0, seat=2))  # the table reports it free: zed is called
        assert rig.desk.lists.call_of("zed").seat == 2
        code, out, _ = call({"op": "seat-open", "player": "x", "table": "t7", "seat": 2})
        assert code == 200 and len(rig.desk.lists.calls()) == 1  # one opening, one call
    finally:
        srv.stop()


def test_names_on_the_lists_follow_the_phones_id_rule(rig: Rig, tmp_path: Path) -> None:
    _fill(rig)
    srv, call = floor_client(rig, tmp_path)
    try:
        for bad in ("Bob Smith", "../x", "a+b", "-dash", "Zed", "x" * 33):
            code, out, _ = call({"op": "join", "player": bad, **KEY})
            assert code == 400 and "a-z 0-9" in out["error"], bad
            assert not rig.desk.request(bad, {"op": "join", **KEY})["ok"]
        assert call({"op": "join", "player": "zed-2", **KEY})[0] == 200
        assert [p for lst in rig.desk.lists.lists.values() for p in lst] == ["zed-2"]
    finally:
        srv.stop()
    # the one rule: provisioning a phone's login says the same
    with pytest.raises(ProvisionError):
        provision_player(tmp_path / "m", "Bob Smith")
    with pytest.raises(PlayerIdError):
        check_player_id("Bob Smith")
    assert check_player_id("p017") == "p017"
    # a player the floor seated as "p017" is "name:p017" at the table: the same player
    assert (room_player("name:p017"), room_player("name:ann smith"), room_player("sim3")) == (
        "p017", "name:ann smith", "sim3")


def test_the_rate_limit_refuses_past_the_burst_and_logs_once_a_second(caplog: Any) -> None:
    clock = FakeClock()
    limit = RateLimit(rate=1.0, burst=3, clock=clock)
    assert [limit.allow("p1") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limit.allow("p2") == 0.0  # each login its own bucket
    with caplog.at_level(logging.WARNING, logger="livetable.room.ratelimit"):
        assert limit.allow("p1") == pytest.approx(1.0) and limit.first
        for _ in range(99):
            clock.t += 0.005
            assert limit.allow("p1") > 0 and not limit.first
        assert len(caplog.records) == 1  # not a line per request
        clock.t += 1.0
        assert limit.allow("p1") == 0.0
        clock.t += 0.1
        assert limit.allow("p1") > 0 and limit.first  # dry again: told again
        assert len(caplog.records) == 2 and "100 request(s) refused (p1 100)" in caplog.records[1].getMessage()
    assert limit.refused == 101


def test_a_flooding_phone_is_limited_and_told_once(rig: Rig) -> None:
    """A breaker wrote 1,351 rows of the room's log in 8 s from one phone login."""
    _fill(rig)
    clock = FakeClock()
    rig.desk.limit = RateLimit(rate=1.0, burst=10, clock=clock)
    rows = len(rig.desk.players.waitlist_log())
    ops = [{"op": "join", **KEY}, {"op": "leave", **KEY}]
    for i in range(400):
        msg = SimpleNamespace(topic="room/players/zed/requests", payload=json.dumps(ops[i % 2]).encode())
        rig.desk._on_request(None, None, msg)
    assert rig.desk.stats["limited"] == 390
    assert len(rig.desk.players.waitlist_log()) - rows == 10
    told = [p for t, p, _ in rig.sent if t == notice_topic("zed") and "retry_after" in p]
    assert len(told) == 1 and told[0]["retry_after"] == 1 and "too many requests" in told[0]["error"]
    clock.t += 5  # the bucket fills again: the phone is served
    rig.desk._on_request(None, None, SimpleNamespace(topic="room/players/zed/requests",
                                                     payload=json.dumps(ops[0]).encode()))
    assert rig.desk.lists.position(next(iter(rig.desk.lists.lists)), "zed") == 1


def test_the_floor_api_answers_429_with_retry_after(rig: Rig, tmp_path: Path) -> None:
    _fill(rig)
    clock = FakeClock()
    rig.desk.floor_limit = RateLimit(rate=0.5, burst=2, clock=clock)
    srv, call = floor_client(rig, tmp_path)
    try:
        assert call({"op": "join", "player": "zed", **KEY})[0] == 200
        assert call({"op": "leave", "player": "zed", **KEY})[0] == 200
        code, out, headers = call({"op": "join", "player": "zed", **KEY})
        assert code == 429 and headers["Retry-After"] == "2" and out["retry_after"] == 2
        clock.t += 2
        assert call({"op": "join", "player": "zed", **KEY})[0] == 200
    finally:
        srv.stop()


def test_the_floor_marks_a_must_move_list_and_moves_players_with_a_reason(rig: Rig, tmp_path: Path) -> None:
    from room.waitlist import ListKey

    _fill(rig)
    plo = {"game": "pot-limit omaha", "stakes": "50/100"}
    rig.desk.lists.table("t8", ListKey(**plo))  # a second game of the room (the main game)
    assert rig.desk.request("zed", {"op": "join", **KEY})["ok"]
    srv, call = floor_client(rig, tmp_path)
    try:
        mm = {"op": "must-move-list", **KEY, "main_game": plo["game"], "main_stakes": plo["stakes"]}
        code, out, _ = call(mm)
        assert code == 400 and "reason" in out["error"]
        code, out, _ = call(dict(mm, main_game="stud", reason="x"))
        assert code == 400 and "no table of stud" in out["error"]
        code, out, _ = call(dict(mm, reason="PLO main game tonight"))
        assert code == 200 and out["tables"] == ["t7"] and rig.desk.lists.feeds == {"t7": ListKey(**plo)}
        move = {"op": "move", "player": "zed", **KEY, "to_game": plo["game"], "to_stakes": plo["stakes"]}
        assert call(move)[0] == 400  # no reason
        code, out, _ = call(dict(move, reason="wants Omaha"))
        assert code == 200 and out["status"]["lists"][0]["list"] == "pot-limit omaha 50/100"
        story = [(e["action"], e["by"], e["detail"]) for e in rig.desk.players.waitlist_log("zed")]
        assert story[-2:] == [("remove", "floor:eve", "moved to pot-limit omaha 50/100: wants Omaha"),
                              ("join", "floor:eve", "place 1")]
        assert any(e["action"] == "feed" and e["by"] == "floor:eve" and "PLO main game tonight" in e["detail"]
                   for e in rig.desk.players.waitlist_log())
        assert call(dict(move, reason="again"))[0] == 400  # not on that list any more
    finally:
        srv.stop()
