"""A breaker's findings on the players' room (issue 18), each once a strict xfail, now closed:
the test states the behaviour the docs promise (each failed on the code before its fix).

- a room service started again between a player's accept and the table's report of their
  sit-down offers that seat again: a second player accepts it (a seat given twice);
- a restart with calls out leaves them open in the stored log: the room's own fairness
  checker then refuses the log ("called while holding another call");
- the floor's ``must-move`` accepts two tables feeding each other's games (their players are
  called back and forth; the list is never called); a table feeding its own game is the
  card rooms' usual must-move game (kept), but its players must never be called to another
  must-move table's seat;
- the desk's HTTP API drops the connection with a traceback for ``register`` with a card
  number that is not text and for JSON nested deeper than Python's recursion limit;
- an accepted seat the table never fills is lost for good (the desk keeps the player "seated");
- a walk-in typing a player's id at a tablet is taken for that player (room_player);
- a duplicate of a floor seat request: its "M-5 already received" reply replaces "accepted";
- new-player with a missing pid file: 503, yet the login and account are made (password never shown);
- register/new-player of a taken id renames the account and wipes its card, no warning;
- ``sighup_pidfile`` signals whatever number the pid file holds: ``0`` is the room service's
  own process group (the service dies of its own SIGHUP), ``-1`` every process of its user.
"""

from __future__ import annotations

import base64
import http.client
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from controller.engine.table import events as ev
from room.apply import Room
from room.console import add_login
from room.desk import PlayersDesk, serve_desk
from room.fairness import FairnessError, check_log
from room.provision import sighup_pidfile
from room.waitlist import ListKey, WaitingLists, WaitListError
from tests.room.test_desk import KEY, Rig, _fill

K = ListKey(**KEY)


@pytest.fixture
def rig(tmp_path: Path, store_url: str) -> Any:
    r = Rig(tmp_path, store_url)
    yield r
    r.close()


def _zed_accepts_seat_2(rig: Rig) -> None:
    """zed and yan join; at 2000 seat 2 opens, zed is called and accepts (the table has not seen him)."""
    _fill(rig)
    for p in ("zed", "yan"):
        assert rig.desk.request(p, {"op": "join", **KEY})["ok"]
    rig.now[0] = 2000.0
    rig.play(ev.StoodUp(at=2000.0, seat=2))
    assert rig.desk.request("zed", {"op": "accept"})["ok"]


def _serve(rig: Rig, tmp_path: Path) -> tuple[Any, str]:
    """The table's players seated, the desk's pages served with the floor login eve: (server, eve's password)."""
    _fill(rig)
    logins = tmp_path / "floor.json"
    pw = add_login(logins, "eve")
    return serve_desk(rig.desk, logins, port=0), pw


def _check(desk: PlayersDesk) -> None:
    """The independent checker over the desk's stored log (raises FairnessError)."""
    check_log(desk.players.waitlist_entries(), dict(desk.lists.table_key), dict(desk.lists.feeds))


def _restarted(rig: Rig) -> PlayersDesk:
    """The room service killed and started again on the same store (a new Room, a new desk)."""
    room = Room(rig.store, lambda: rig.now[0])
    return PlayersDesk(SimpleNamespace(store=rig.store, room=room), hold_seconds=120, clock=lambda: rig.now[0],
                       publish=lambda t, p, r: None)


def test_a_restart_between_accept_and_the_tables_report_gives_the_seat_once(rig: Rig) -> None:
    _fill(rig)
    for p in ("zed", "yan"):
        assert rig.desk.request(p, {"op": "join", **KEY})["ok"]
    rig.now[0] = 2000.0
    rig.play(ev.StoodUp(at=2000.0, seat=2))
    assert rig.desk.request("zed", {"op": "accept"})["ok"]  # on his way to seat 2; the table has not seen him
    desk = _restarted(rig)
    assert desk.lists.seated["zed"] == ("t7", 2)
    assert [c.player for c in desk.lists.calls()] == []  # seat 2 is zed's: nobody else is called for it
    assert not desk.request("yan", {"op": "accept"})["ok"]


def test_the_log_stays_checkable_across_a_restart_with_calls_out(rig: Rig) -> None:
    _fill(rig)
    for p in ("zed", "yan"):
        assert rig.desk.request(p, {"op": "join", **KEY})["ok"]
    rig.now[0] = 2000.0
    rig.play(ev.StoodUp(at=2000.0, seat=3))
    rig.play(ev.StoodUp(at=2001.0, seat=2))  # zed called for 3, yan for 2
    desk = _restarted(rig)  # offered again in seat order: zed called for 2 while his call for 3 is open
    assert len(desk.lists.calls()) == 2
    _check(desk)


def test_a_must_move_table_of_the_main_game_feeds_its_other_tables_never_another_must_move_table(
        rig: Rig, tmp_path: Path) -> None:
    """The breaker took a table feeding its own game for a hole; it is the card rooms' usual
    must-move game (a second table of the main game). What must not happen: its players
    called for a seat of another must-move table of that game (moved from one must-move table
    to another, never nearer the main game, while the list waits)."""
    srv, pw = _serve(rig, tmp_path)
    try:
        code, _ = _post(srv, pw, json.dumps({"op": "must-move", "player": "t7", **KEY, "reason": "x"}).encode())
    finally:
        srv.stop()
    assert code == 200 and rig.desk.lists.feeds == {"t7": K}
    now = [0.0]
    w = WaitingLists(lambda: now[0], 60)
    for t in ("main", "mm1", "mm2"):
        w.table(t, K)
    w.feed("mm1", K, "floor:eve")
    w.feed("mm2", K, "floor:eve")
    w.sat("mm1", 1, "m1", "table:mm1")
    w.sat("mm2", 1, "m2", "table:mm2")
    w.join(K, "lk", "lk")
    w.seat_opened("mm2", 2, "table:mm2")
    assert [(c.player, c.table) for c in w.calls()] == [("lk", "mm2")]  # the list, not m1
    w.seat_opened("main", 3, "table:main")
    assert ("m1", "main") in [(c.player, c.table) for c in w.calls()]  # must-move first for the main game
    check_log(w.log, w.table_key)


def test_must_move_tables_feeding_each_other_do_not_starve_the_lists() -> None:
    k2 = ListKey("pot-limit omaha", "50/100")
    now = [0.0]
    w = WaitingLists(lambda: now[0], 60)
    w.table("t1", K)
    w.table("t2", k2)
    w.feed("t1", k2, "floor:eve")
    with pytest.raises(WaitListError, match="loop"):
        w.feed("t2", K, "floor:eve")  # A feeds B feeds A: refused (it was accepted)
    w.sat("t1", 1, "a1", "table:t1")
    w.sat("t2", 1, "b1", "table:t2")
    w.join(K, "lk", "lk")
    w.join(k2, "lk2", "lk2")
    w.seat_opened("t2", 2, "table:t2")
    called = []
    for _ in range(6):
        calls = w.calls()
        if not calls:
            break
        called.append(calls[0].player)
        w.accept(calls[0].player, calls[0].player)
    assert "lk" in called or "lk2" in called, called  # today: a1, b1, b1, a1, a1, b1


def _post(srv: Any, pw: str, raw: bytes) -> tuple[int | str, bytes]:
    host, port = srv.server.server_address[:2]
    c = http.client.HTTPConnection(host, port, timeout=10)
    try:
        c.request("POST", "/api/lists", raw, {"Content-Type": "application/json", "Authorization":
                                              "Basic " + base64.b64encode(f"eve:{pw}".encode()).decode()})
        r = c.getresponse()
        return r.status, r.read()
    except (http.client.HTTPException, OSError) as exc:  # the handler died: no answer at all
        return type(exc).__name__, b""
    finally:
        c.close()


@pytest.mark.parametrize("raw", [
    pytest.param(json.dumps({"op": "register", "player": "zz", "card": 5}).encode(), id="card-not-text"),
    pytest.param(b"[" * 2040 + b"]" * 2040, id="nested-4kB"),
])
def test_the_floor_api_answers_400_to_odd_bodies(rig: Rig, tmp_path: Path, raw: bytes) -> None:
    srv, pw = _serve(rig, tmp_path)
    try:
        assert _post(srv, pw, raw)[0] == 400
    finally:
        srv.stop()


@pytest.mark.parametrize("text", ["0", "-1", "1"])
def test_a_wrong_pid_file_signals_no_group_and_not_init(tmp_path: Path, monkeypatch: Any, text: str) -> None:
    import os

    killed: list[int] = []
    monkeypatch.setattr(os, "kill", lambda pid, sig: killed.append(pid))
    (tmp_path / "pid").write_text(text + "\n")
    with pytest.raises(OSError):
        sighup_pidfile(tmp_path / "pid")()
    assert killed == []


def test_a_seat_accepted_but_never_taken_is_not_lost(rig: Rig) -> None:
    _zed_accepts_seat_2(rig)
    rig.now[0] = 5000.0  # an hour on: the table never saw zed sit down and plays on
    rig.play(ev.StoodUp(at=5000.0, seat=3))
    with rig.desk.lock:
        rig.desk._handle(rig.desk.lists.expire())
    assert ("t7", 2) in rig.desk.lists.openings or rig.desk.check_seat("t7", 2) == ("t7", 2)


def test_a_walk_in_typing_a_players_id_neither_seats_her_nor_frees_his_seat(rig: Rig) -> None:
    _fill(rig)
    for p in ("zoe", "yan"):
        assert rig.desk.request(p, {"op": "join", **KEY})["ok"]
    rig.now[0] = 2000.0
    rig.play(ev.StoodUp(at=2000.0, seat=2))  # zoe called for 2
    rig.play(ev.StoodUp(at=2001.0, seat=3))  # yan called for 3
    rig.play(ev.PlayerSatDown(at=2002.0, seat=3, player="name:zoe", name="ZOE"),  # a stranger at seat 3's tablet
             ev.BoughtIn(at=2003.0, seat=3, amount=5000))
    assert rig.desk.request("zoe", {"op": "accept"})["ok"]
    assert ("t7", 3) not in rig.desk.lists.openings  # the stranger sits there


def test_a_duplicate_floor_reply_does_not_replace_the_tables_answer(tmp_path: Path) -> None:
    from room.service import RoomService
    from room.store import open_store

    store = open_store(str(tmp_path / "room.sqlite"))
    try:
        svc = RoomService(store, host="127.0.0.1", port=1, username="room", password="x")
        rid = "room-6a66106e20115375"
        svc._asked.add(rid)
        svc._floor_reply("t1", json.dumps({"table": "t1", "id": rid, "accepted": True}).encode())
        svc._floor_reply("t1", json.dumps({"table": "t1", "id": rid, "accepted": False,
                                           "reason": f"M-5: request id {rid!r} was already received"}).encode())
        assert svc.floor_replies[rid]["accepted"] is True
    finally:
        store.close()


def test_new_player_with_a_missing_pid_file_shows_the_password_or_changes_nothing(rig: Rig, tmp_path: Path) -> None:
    from room.provision import login_maker, room_credentials

    pdir = tmp_path / "prov"
    room_credentials(pdir)
    rig.desk.logins = login_maker(pdir, sighup_pidfile(tmp_path / "no-such.pid"))
    srv, pw = _serve(rig, tmp_path)
    try:
        code, out = _post(srv, pw, json.dumps({"op": "new-player", "player": "zoe", "name": "Zoe"}).encode())
    finally:
        srv.stop()
    shown = code == 200 and "password" in json.loads(out)
    untouched = "player-zoe" not in (pdir / "passwd").read_text() and rig.desk.players.account("zoe") is None
    assert shown or untouched
    assert code == 503 and b"pid file" in out and b"Errno" not in out  # says why, no raw errno


def test_a_second_player_under_a_taken_id_is_refused_not_merged(rig: Rig, tmp_path: Path) -> None:
    srv, pw = _serve(rig, tmp_path)
    try:
        first = {"op": "register", "player": "zoe", "name": "Zoe Ng", "card": "C-77"}
        assert _post(srv, pw, json.dumps(first).encode())[0] == 200
        code, _ = _post(srv, pw, json.dumps({"op": "register", "player": "zoe", "name": "Zoe Other"}).encode())
    finally:
        srv.stop()
    account = rig.desk.players.account("zoe")
    assert code == 400 or account is not None and account["card"] == "C-77" and account["name"] == "Zoe Ng"


# ---------------------------------------------------------------------- the fixes' own tests
def test_the_checker_catches_a_seat_given_twice() -> None:
    """The breaker's seed-8 log, cut down: p4 accepted t1/6, a duplicate's refusal made the room
    open it again (naming p4), p12 accepted it, then the table reported p4 sitting there."""
    from room.waitlist import Entry

    k = K
    log = [Entry(1.0, "join", "p4", k, "p4"), Entry(1.1, "join", "p12", k, "p12"),
           Entry(2.0, "open", "", k, "system", "t1", 6), Entry(2.0, "call", "p4", k, "system", "t1", 6, "list; x"),
           Entry(2.1, "seat", "p4", k, "p4", "t1", 6, "accepted (list)"),
           Entry(2.2, "open", "p4", k, "room-sim", "t1", 6),
           Entry(2.2, "call", "p12", k, "system", "t1", 6, "list; x"),
           Entry(2.3, "seat", "p12", k, "p12", "t1", 6, "accepted (list)")]
    assert check_log(log, {"t1": k})["seated"] == 2  # so far the log cannot tell
    with pytest.raises(FairnessError, match="given twice"):
        check_log([*log, Entry(2.4, "seat", "p4", k, "table:t1", "t1", 6)], {"t1": k})
    with pytest.raises(FairnessError, match="two players"):  # called while the table says p4 sits there
        check_log([*log[:5], Entry(2.15, "seat", "p4", k, "table:t1", "t1", 6), *log[5:]], {"t1": k})


def test_a_duplicates_refusal_before_the_answer_is_not_the_answer(tmp_path: Path) -> None:
    from room.service import RoomService
    from room.store import open_store

    store = open_store(str(tmp_path / "room.sqlite"))
    try:
        svc = RoomService(store, host="127.0.0.1", port=1, username="room", password="x")
        rid = svc.floor_request("t1", "seat", by="room-sim", seat=3, player="zoe", amount=5000, reason="called")
        assert svc.seating[("t1", 3)] == ("zoe", rid)
        svc._floor_reply("t1", json.dumps({"table": "t1", "id": rid, "accepted": False,
                                           "reason": f"M-5: request id {rid!r} was already received"}).encode())
        assert rid not in svc.floor_replies  # the duplicate's refusal says nothing of the request
        svc._floor_reply("t1", json.dumps({"table": "t1", "id": rid, "accepted": False,
                                           "reason": "T-3: seat 3 is taken"}).encode())
        assert svc.floor_replies[rid]["accepted"] is False and ("t1", 3) not in svc.seating
    finally:
        store.close()


def test_the_rooms_own_seat_request_seats_its_player(rig: Rig) -> None:
    """The floor console's seat (no call): the room's seat request for zoe in seat 3 makes the
    table's ``name:zoe`` there the room's zoe, off her list; the request is then done."""
    _fill(rig)
    rig.desk.service.seating = {("t7", 3): ("zoe", "room-1")}
    assert rig.desk.request("zoe", {"op": "join", **KEY})["ok"]
    rig.play(ev.StoodUp(at=1500.0, seat=3))
    rig.play(ev.PlayerSatDown(at=1501.0, seat=3, player="name:zoe", name="zoe"),
             ev.BoughtIn(at=1502.0, seat=3, amount=5000))
    assert rig.desk.lists.seated["zoe"] == ("t7", 3) and rig.desk.lists.position(K, "zoe") is None
    assert rig.desk.service.seating == {}


def test_an_acceptance_lapses_after_seat_seconds_and_a_restart_keeps_its_clock(rig: Rig) -> None:
    _zed_accepts_seat_2(rig)
    rig.now[0] = 2000.0 + rig.desk.lists.seat_seconds - 1
    desk = _restarted(rig)  # the acceptance's time comes back from the log
    assert desk.lists.accepted == {("t7", 2): ("zed", 2000.0)} and desk.lists.expire() == []
    rig.now[0] += 1
    calls = desk.lists.expire()
    assert [(c.player, c.seat) for c in calls] == [("yan", 2)] and "zed" not in desk.lists.seated
    opened = [e for e in desk.lists.log if e.action == "open"][-1]
    assert opened.player == "zed" and "not seen seated" in opened.detail
    _check(desk)


def test_a_register_of_the_same_person_is_recorded_and_keeps_the_card(rig: Rig, tmp_path: Path) -> None:
    srv, pw = _serve(rig, tmp_path)
    try:
        assert _post(srv, pw, json.dumps({"op": "register", "player": "zoe", "name": "Zoe", "card": "C-77"}).encode()
                     )[0] == 200
        code, out = _post(srv, pw, json.dumps({"op": "register", "player": "zoe", "name": "Zoe Ng"}).encode())
        assert code == 409 and b"same_person" in out
        code, out = _post(srv, pw, json.dumps({"op": "register", "player": "zoe", "name": "Zoe Ng",
                                               "same_person": True}).encode())
        assert code == 200 and json.loads(out)["account"]["card"] == "C-77"
    finally:
        srv.stop()
    note = [e for e in rig.desk.players.waitlist_log() if e["action"] == "account"]
    assert [(e["player"], e["by"]) for e in note] == [("zoe", "floor:eve")] and "Zoe Ng" in note[0]["detail"]


def test_the_pid_file_names_a_running_mosquitto_or_nothing_is_signalled(tmp_path: Path, monkeypatch: Any) -> None:
    import os
    import signal
    import subprocess

    pidfile = tmp_path / "pid"
    pidfile.write_text(f"{os.getppid()}\n")  # a running process, not a mosquitto (never signalled, even by old code)
    killed: list[int] = []
    with monkeypatch.context() as m:
        m.setattr(os, "kill", lambda pid, sig: killed.append(pid))
        with pytest.raises(OSError, match="not a mosquitto"):
            sighup_pidfile(pidfile)()
    assert killed == []
    with pytest.raises(OSError, match="does not exist") as missing:
        sighup_pidfile(tmp_path / "none")()
    assert "Errno" not in str(missing.value)
    fake = tmp_path / "mosquitto"  # a process named mosquitto: a shell script waiting on its stdin
    fake.write_text("#!/bin/sh\necho ready\nread x\n")
    fake.chmod(0o755)
    proc = subprocess.Popen([str(fake)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"  # running under its name
        pidfile.write_text(f"{proc.pid}\n")
        sighup_pidfile(pidfile)()
        assert proc.wait(10) == -signal.SIGHUP
    finally:
        proc.kill()
        proc.communicate()  # closes its pipes


def test_a_retained_phone_request_is_ignored(rig: Rig) -> None:
    _fill(rig)
    msg = SimpleNamespace(topic="room/players/zed/requests", payload=json.dumps({"op": "join", **KEY}).encode(),
                          retain=True)
    rig.desk._on_request(None, None, msg)
    assert rig.desk.lists.position(K, "zed") is None
    rig.desk._on_request(None, None, SimpleNamespace(topic=msg.topic, payload=msg.payload, retain=False))
    assert rig.desk.lists.position(K, "zed") == 1


def test_a_restart_just_after_a_lapse_keeps_the_log_checkable(rig: Rig) -> None:
    """The seed-8 run ended on a lapse nobody could take (yan held the other call): the
    restart's closing of yan's call is an operation of its own, not the lapse's."""
    _fill(rig)
    for p in ("zed", "yan"):
        assert rig.desk.request(p, {"op": "join", **KEY})["ok"]
    rig.now[0] = 2000.0
    rig.play(ev.StoodUp(at=2000.0, seat=3))  # zed called for 3
    rig.now[0] = 2001.0
    rig.play(ev.StoodUp(at=2001.0, seat=2))  # yan called for 2
    rig.now[0] = 2000.0 + 120
    with rig.desk.lock:
        assert rig.desk.lists.expire() == []  # zed lapses; yan holds the other call: nobody to call
    desk = _restarted(rig)
    assert [(c.player, c.seat) for c in desk.lists.calls()] == [("yan", 2)]
    _check(desk)
