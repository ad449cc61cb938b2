"""The players' desk (room/desk.py, issue 18) on a real table's journal: a player stands up,
the room's replay sees the seat open and the first player on that game's list is called on
their notice topic; accept, pass, lapse; the lobby; the floor's HTTP API."""

from __future__ import annotations

import base64
import json
import sqlite3
import urllib.error
import urllib.request
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from controller.engine.table import events as ev
from controller.engine.table.settings import TableSettings
from controller.journal import payload_of
from controller.runtime import open_table
from room.apply import Room, check_batch
from room.console import add_login
from room.desk import PlayersDesk, notice_topic, serve_desk
from room.lobby import LOBBY_TOPIC
from room.store import open_store
from room.waitlist import ListKey
from tests.room.qr import read_qr

KEY = {"game": "no-limit holdem", "stakes": "50/100"}


class Rig:
    """One table's journal, the room replaying it, the desk publishing into :attr:`sent`."""

    def __init__(self, tmp: Path, url: str) -> None:
        self.now = [1000.0]
        settings = TableSettings(id="t7", name="Table 7", game="holdem", limit="no-limit", seats=4,
                                 small_blind=50, big_blind=100)
        self.path = tmp / "j.sqlite"
        self.orch, _ = open_table(self.path, settings, clock=lambda: self.now[0])
        self.store = open_store(url)
        self.room = Room(self.store, lambda: self.now[0])
        self.sent: list[tuple[str, Any, bool]] = []
        service = SimpleNamespace(store=self.store, room=self.room)
        self.desk = PlayersDesk(service, hold_seconds=120, clock=lambda: self.now[0],
                                publish=lambda t, p, r: self.sent.append((t, json.loads(p), r)))
        self.upto = 0
        self.base_sent = False

    def play(self, *events: Any) -> None:
        for e in events:
            self.orch.handle(e)
        db = sqlite3.connect(self.path)
        msg: dict[str, Any] = {"table": "t7", "records": [
            {"seq": s, "at": a, "kind": k, "payload": payload_of(k, a, p)}
            for s, a, k, p in db.execute("SELECT seq, at, kind, payload FROM events WHERE seq > ? ORDER BY seq",
                                         (self.upto,))]}
        if not self.base_sent:
            upto, state = db.execute("SELECT upto, state FROM snapshots ORDER BY upto LIMIT 1").fetchone()
            msg["base"] = {"upto": upto, "state": json.loads(state)}
            self.base_sent = True
        db.close()
        if msg["records"]:
            self.upto = msg["records"][-1]["seq"]
        self.room.receive("t7", *check_batch("t7", msg))

    def status(self, player: str) -> dict[str, Any]:
        return [p for t, p, _ in self.sent if t == notice_topic(player)][-1]

    def close(self) -> None:
        self.orch.journal.close()
        self.store.close()


@pytest.fixture
def rig(tmp_path: Path, store_url: str) -> Any:
    r = Rig(tmp_path, store_url)
    yield r
    r.close()


def _fill(rig: Rig) -> None:
    for n, p in enumerate(("ann", "bob", "cat", "dan"), start=1):
        rig.play(ev.PlayerSatDown(at=1000.0 + n, seat=n, player=p, name=p.title()),
                 ev.BoughtIn(at=1000.5 + n, seat=n, amount=5000))


def test_stand_up_calls_first_on_list_then_lapse_moves_on(rig: Rig) -> None:
    _fill(rig)
    assert rig.desk.lists.openings == {}  # the four seats were offered while free, then taken
    assert rig.desk.request("zed", {"op": "join", **KEY})["ok"]
    rig.now[0] += 1
    assert rig.desk.request("yan", {"op": "join", **KEY}, by="floor:eve")["ok"]
    assert rig.status("zed")["lists"][0]["place"] == 1 and rig.status("zed")["call"] is None
    rig.now[0] = 2000.0
    rig.play(ev.StoodUp(at=2000.0, seat=2))
    call = rig.status("zed")["call"]
    assert (call["table"], call["seat"], call["until"]) == ("t7", 2, 2120.0)
    # the lobby: one seat free, two waiting
    lobby = [p for t, p, _ in rig.sent if t == LOBBY_TOPIC][-1]
    assert (lobby["tables"][0]["free"], lobby["tables"][0]["waiting"]) == (1, 2)
    # the hold ends: zed is off the list, yan is called
    rig.now[0] = 2120.0
    with rig.desk.lock:
        rig.desk._handle(rig.desk.lists.expire())
        rig.desk._flush()
    assert rig.status("zed")["call"] is None and rig.status("zed")["lists"] == []
    assert rig.status("yan")["call"]["seat"] == 2
    assert rig.desk.request("yan", {"op": "accept"})["ok"]
    rig.play(ev.PlayerSatDown(at=2130.0, seat=2, player="yan", name="Yan"), ev.BoughtIn(at=2131.0, seat=2, amount=5000))
    assert rig.status("yan")["seated"] == {"table": "t7", "seat": 2}
    # everything recorded in the store, with who did it
    log = rig.desk.players.waitlist_log()
    assert [(e["action"], e["player"], e["by"]) for e in log if e["player"] in ("zed", "yan")][:3] == [
        ("join", "zed", "zed"), ("join", "yan", "floor:eve"), ("call", "zed", "system")]
    assert any(e["action"] == "lapse" and e["player"] == "zed" for e in log)
    # and bob's session closed when he stood up
    assert [s["ended"] for s in rig.desk.players.sessions("bob")] == [2000.0]


def test_refused_requests_say_why(rig: Rig) -> None:
    _fill(rig)
    assert rig.desk.request("zed", {"op": "join", "game": "pot-limit omaha", "stakes": "1/2"})["error"].startswith(
        "no table of")
    assert not rig.desk.request("zed", {"op": "accept"})["ok"]
    assert not rig.desk.request("zed", "nonsense")["ok"]
    assert not rig.desk.request("zed", {"op": "fly"})["ok"]


def test_floor_http(rig: Rig, tmp_path: Path) -> None:
    _fill(rig)
    logins = tmp_path / "floor.json"
    pw = add_login(logins, "eve")
    srv = serve_desk(rig.desk, logins, port=0, ws_url="ws://127.0.0.1:9")
    try:
        def call(path: str, body: Any = None, auth: bool = True) -> tuple[int, Any]:
            req = urllib.request.Request(srv.url.rstrip("/") + path, data=json.dumps(body).encode() if body else None)
            if body:
                req.add_header("Content-Type", "application/json")
            if auth:
                req.add_header("Authorization", "Basic " + base64.b64encode(f"eve:{pw}".encode()).decode())
            try:
                with urllib.request.urlopen(req, timeout=10) as r:
                    return r.status, json.loads(r.read()) if "json" in r.headers["Content-Type"] else r.read()
            except urllib.error.HTTPError as e:
                return e.code, e.read()
        assert call("/api/lists", auth=False)[0] == 401
        assert call("/api/lobby", auth=False)[1]["tables"][0]["table"] == "t7"
        assert call("/api/phone-config", auth=False)[1] == {"ws": "ws://127.0.0.1:9"}
        code, out = call("/api/lists", {"op": "join", "player": "zed", **KEY})
        assert code == 200 and out["status"]["lists"][0]["place"] == 1
        assert call("/api/lists", {"op": "register", "player": "zed", "name": "Zed", "card": "C-9"})[1]["account"][
            "card"] == "C-9"
        code, out = call("/api/lists")
        assert out["lists"][0]["players"] == ["zed"] and out["log"][-1]["by"] == "floor:eve"
        assert call("/api/why?player=zed")[1]["entries"][0]["action"] == "join"
        assert call("/api/lists", {"op": "leave", "player": "nobody", **KEY})[0] == 400
        assert call("/api/lists", {"op": "must-move", "player": "t7", **KEY})[1]["ok"]  # the usual must-move game
        assert rig.desk.lists.feeds == {"t7": ListKey(KEY["game"], KEY["stakes"])}
        assert call("/api/lists", {"op": "must-move", "player": "t9", **KEY})[0] == 400
        # the TV's QR code reads back as the phone page's address (OpenCV's detectors, tests/room/qr.py): the
        # address served (no --public-url here), never the request's Host header (a client writes it)
        req = urllib.request.Request(srv.url + "phone-qr.png", headers={"Host": "room.local:8091"})
        with urllib.request.urlopen(req, timeout=10) as r:
            assert read_qr(r.read()) == srv.url + "phone"
        for page in ("/lobby", "/phone"):
            assert b"<!doctype html>" in call(page, auth=False)[1]
    finally:
        srv.stop()


def test_places_move_up_on_every_phone_when_one_ahead_leaves(rig: Rig) -> None:
    """Regression: only the player who left got a new status; the one behind still read #2."""
    _fill(rig)
    rig.desk.request("zed", {"op": "join", **KEY})
    rig.desk.request("yan", {"op": "join", **KEY})
    assert rig.status("yan")["lists"][0]["place"] == 2
    rig.desk.request("zed", {"op": "leave", **KEY})
    assert rig.status("yan")["lists"][0]["place"] == 1


def test_a_restarted_desk_keeps_every_place(rig: Rig) -> None:
    """Regression: the lists lived only in memory; a room service restart emptied them."""
    _fill(rig)
    for p in ("zed", "yan", "xi"):
        rig.desk.request(p, {"op": "join", **KEY})
    rig.desk.request("yan", {"op": "leave", **KEY})
    rig.desk.request("bob", {"op": "change"})
    again = PlayersDesk(SimpleNamespace(store=rig.store, room=Room(rig.store, lambda: rig.now[0])),
                        clock=lambda: rig.now[0], publish=lambda *a: None)
    key = ListKey(KEY["game"], KEY["stakes"])
    assert again.lists.lists[key] == ["zed", "xi"] and again.lists.changes[key] == ["bob"]
    assert again.lists.seated["ann"] == ("t7", 1)
    # a seat free when the room stopped (zed's call with it) is offered again at the start
    rig.play(ev.StoodUp(at=1100.0, seat=3))
    assert rig.desk.lists.call_of("zed").seat == 3
    third = PlayersDesk(SimpleNamespace(store=rig.store, room=Room(rig.store, lambda: rig.now[0])),
                        clock=lambda: rig.now[0], publish=lambda *a: None)
    assert (third.lists.call_of("zed").table, third.lists.call_of("zed").seat) == ("t7", 3)


def test_a_must_move_list_still_feeds_its_new_tables_after_a_restart(rig: Rig) -> None:
    """Regression (issue 18): the floor's must-move list lived only in the desk's memory; after
    a room restart a table of that list opening later was no must-move table."""
    from controller.engine.table.state import TableState

    _fill(rig)
    plo = ListKey("pot-limit omaha", "50/100")
    rig.desk.lists.table("t8", plo)  # the main game
    out = rig.desk.floor_lists({"op": "must-move-list", **KEY, "main_game": plo.game, "main_stakes": plo.stakes,
                                "reason": "PLO main game tonight"}, "", "floor:eve")
    assert out["tables"] == ["t7"]
    again = PlayersDesk(SimpleNamespace(store=rig.store, room=Room(rig.store, lambda: rig.now[0])),
                        clock=lambda: rig.now[0], publish=lambda *a: None)
    key = ListKey(KEY["game"], KEY["stakes"])
    assert again.lists.list_feeds == {key: plo} and again.lists.feeds == {"t7": plo}
    settings = TableSettings(id="t9", name="Table 9", game="holdem", limit="no-limit", seats=4,
                             small_blind=50, big_blind=100)
    again._table_state("t9", TableState.new(settings), opening=True)  # a table of the list opens
    assert again.lists.feeds["t9"] == plo


def test_a_player_id_that_is_no_topic_level_gets_no_notice_and_breaks_nothing(rig: Rig) -> None:
    """Regression: a table's player id with '/', '+' or a space went into a notice topic
    (paho refuses '+': the exception ended the desk's work on that batch)."""
    rig.play(*[e for n, p in ((1, "Ann Smith/+1"), (2, "bob"), (3, "cat"), (4, "dan"))
               for e in (ev.PlayerSatDown(at=1001.0, seat=n, player=p, name=p[:3]),
                         ev.BoughtIn(at=1001.5, seat=n, amount=5000))])
    rig.desk.request("zed", {"op": "join", **KEY})
    rig.play(ev.StoodUp(at=1002.0, seat=1))
    assert rig.status("zed")["call"]["seat"] == 1
    assert all("Ann" not in t for t, _, _ in rig.sent)


def test_a_table_that_grows_or_shrinks_offers_or_takes_back_its_seats(rig: Rig) -> None:
    """L-2: seats added between hands are offered; seats taken away end their calls."""
    _fill(rig)
    rig.desk.request("zed", {"op": "join", **KEY})
    rig.play(ev.SettingsChanged(at=1100.0, changes={"seats": 6}, by="floor"))
    assert (rig.desk.lists.call_of("zed").seat, sorted(n for _, n in rig.desk.lists.openings)) == (5, [5, 6])
    rig.play(ev.SettingsChanged(at=1200.0, changes={"seats": 4}, by="floor"))
    assert rig.desk.lists.openings == {} and rig.desk.lists.call_of("zed") is None
    assert rig.status("zed")["call"] is None and rig.status("zed")["lists"][0]["place"] == 1


def test_new_stakes_move_the_open_seats_to_the_other_list(rig: Rig) -> None:
    _fill(rig)
    rig.desk.request("zed", {"op": "join", **KEY})
    rig.play(ev.StoodUp(at=1100.0, seat=4))
    assert rig.desk.lists.call_of("zed").seat == 4
    rig.desk.request("amy", {"op": "join", "game": "no-limit holdem", "stakes": "50/100"})
    rig.play(ev.SettingsChanged(at=1200.0, changes={"small_blind": 100, "big_blind": 200}, by="floor"))
    assert rig.desk.lists.call_of("zed") is None
    assert [o.key.stakes for o in rig.desk.lists.openings.values()] == ["100/200"]


def test_the_floor_api_refuses_what_another_site_or_a_bad_length_sends(rig: Rig, tmp_path: Path) -> None:
    """A breaker's findings (issue 18): basic authentication rides along with a form another web
    site submits (``text/plain`` with a JSON-looking body was taken), and a ``Content-Length`` of
    -1 read until the client closed (memory) or ``abc`` ended in a traceback."""
    import http.client

    _fill(rig)
    logins = tmp_path / "floor.json"
    pw = add_login(logins, "eve")
    srv = serve_desk(rig.desk, logins, port=0, ws_url="ws://127.0.0.1:9")
    host = srv.url.split("://", 1)[1].rstrip("/")
    auth = "Basic " + base64.b64encode(f"eve:{pw}".encode()).decode()
    body = json.dumps({"op": "join", "player": "mallory", **KEY, "x": "="}).encode()

    def post(headers: dict[str, str], data: bytes = body) -> int:
        c = http.client.HTTPConnection(host, timeout=10)
        try:
            c.putrequest("POST", "/api/lists")
            for k, v in {"Authorization": auth, **headers}.items():
                c.putheader(k, v)
            c.endheaders(data)
            return c.getresponse().status
        finally:
            c.close()

    try:
        assert post({"Content-Type": "text/plain", "Content-Length": str(len(body))}) == 415
        assert post({"Content-Type": "application/json", "Origin": "http://evil.example",
                     "Content-Length": str(len(body))}) == 403
        assert post({"Content-Type": "application/json", "Content-Length": "-1"}) == 400
        assert post({"Content-Type": "application/json", "Content-Length": "abc"}) == 400
        assert all("mallory" not in lst for lst in rig.desk.lists.lists.values())
        # the page's own request (same origin, JSON) still works
        assert post({"Content-Type": "application/json", "Origin": f"http://{host}",
                     "Content-Length": str(len(body))}) == 200
    finally:
        srv.stop()


def test_why_is_one_players_story(rig: Rig, tmp_path: Path) -> None:
    """Issue 18 (a newcomer's finding): ``GET /api/why?player=yan`` also returned zed's call and
    pass. One player's story is their own entries and the seats given to others on their list
    while they waited (L-1: "why was he seated before me"); no player named is a 400."""
    _fill(rig)
    assert rig.desk.request("zed", {"op": "join", **KEY})["ok"]
    rig.now[0] += 1
    assert rig.desk.request("yan", {"op": "join", **KEY})["ok"]
    rig.now[0] = 2000.0
    rig.play(ev.StoodUp(at=2000.0, seat=2))
    assert rig.desk.request("zed", {"op": "pass"})["ok"]
    assert rig.status("yan")["call"]["seat"] == 2
    assert rig.desk.request("yan", {"op": "accept"})["ok"]
    rig.play(ev.PlayerSatDown(at=2010.0, seat=2, player="yan", name="Yan"), ev.BoughtIn(at=2011.0, seat=2, amount=5000))
    logins = tmp_path / "floor.json"
    pw = add_login(logins, "eve")
    srv = serve_desk(rig.desk, logins, port=0, ws_url="ws://127.0.0.1:9")
    try:
        def why(player: str) -> tuple[int, Any]:
            req = urllib.request.Request(srv.url.rstrip("/") + "/api/why?player=" + player)
            req.add_header("Authorization", "Basic " + base64.b64encode(f"eve:{pw}".encode()).decode())
            try:
                with urllib.request.urlopen(req, timeout=10) as r:
                    return r.status, json.loads(r.read())
            except urllib.error.HTTPError as e:
                return e.code, json.loads(e.read())
        code, out = why("yan")
        assert code == 200 and out["entries"] and {e["player"] for e in out["entries"]} == {"yan"}
        assert [e["action"] for e in out["entries"]][:2] == ["join", "call"]
        code, out = why("zed")
        story = [(e["action"], e["player"]) for e in out["entries"]]
        assert ("call", "zed") in story and ("pass", "zed") in story and ("seat", "yan") in story
        assert ("call", "yan") not in story and ("join", "yan") not in story
        code, out = why("")
        assert code == 400 and "player" in out["error"]
    finally:
        srv.stop()


def test_phone_status_says_lapsed_and_on_the_way(rig: Rig) -> None:
    """Issue 18 (a newcomer's finding): a lapsed call left the phone with "You are on no list
    yet", and after *I'm coming* it said "You sit at ..." before the table had seated the
    player. The status now says which call lapsed and when; an accepted call is ``going``
    (the seat held for them, on the table's holds too, until the call's time) until the
    table reports them in that seat."""
    _fill(rig)
    assert rig.desk.request("zed", {"op": "join", **KEY})["ok"]
    assert rig.desk.request("yan", {"op": "join", **KEY})["ok"]
    rig.now[0] = 2000.0
    rig.play(ev.StoodUp(at=2000.0, seat=2))
    assert rig.status("zed")["lapsed"] is None
    rig.now[0] = 2120.0
    with rig.desk.lock:
        rig.desk._handle(rig.desk.lists.expire())
        rig.desk._flush()
    zed = rig.status("zed")
    assert zed["lists"] == [] and zed["lapsed"] == {"table": "t7", "seat": 2, "at": 2120.0, **KEY}
    assert rig.desk.request("zed", {"op": "join", **KEY})["ok"]  # joins again: the lapse is history
    assert rig.status("zed")["lapsed"] is None
    until = rig.status("yan")["call"]["until"]
    assert rig.desk.request("yan", {"op": "accept"})["ok"]
    yan = rig.status("yan")
    assert yan["going"] == {"table": "t7", "seat": 2, "until": until} and yan["call"] is None
    assert rig.desk.holds("t7")["holds"] == [{"seat": 2, "player": "yan", "name": "yan", "until": until}]
    assert rig.desk.lobby()["tables"][0]["held"] == 1  # the lobby marks it held too
    rig.play(ev.StoodUp(at=2125.0, seat=3))  # another table state while yan is on the way
    assert rig.status("yan")["going"] is not None
    rig.play(ev.PlayerSatDown(at=2130.0, seat=2, player="yan", name="Yan"), ev.BoughtIn(at=2131.0, seat=2, amount=5000))
    yan = rig.status("yan")
    assert yan["going"] is None and yan["seated"] == {"table": "t7", "seat": 2}
    assert [h["seat"] for h in rig.desk.holds("t7")["holds"]] == [3]  # seat 3's call (zed's) only


def test_an_accepted_seat_is_held_only_until_the_calls_time(rig: Rig) -> None:
    _fill(rig)
    assert rig.desk.request("zed", {"op": "join", **KEY})["ok"]
    rig.now[0] = 2000.0
    rig.play(ev.StoodUp(at=2000.0, seat=2))
    assert rig.desk.request("zed", {"op": "accept"})["ok"]
    assert rig.status("zed")["going"]["until"] == 2120.0
    rig.now[0] = 2120.0
    with rig.desk.lock:
        rig.desk._going_ends()
        rig.desk._flush()
    assert rig.status("zed")["going"] is None and rig.desk.holds("t7")["holds"] == []
