"""Issue 19 hardening (a breaker's findings): one director a store, the tournament's identity
in its orders, the director's input checked, ``room serve --tournament`` options refused."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from drivers.mqtt.broker import free_port
from room.store import open_store
from room.tournament_serve import DirectorLockHeld, lock_director
from room.tournament_sim import ROOM_TOML

REPO = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(REPO))


def serve_args(store: str, tmp_path: Path, *extra: str) -> list[str]:
    conf = tmp_path / "tournament.toml"
    conf.write_text(ROOM_TOML)
    pw = tmp_path / "pw"
    pw.write_text("x")
    return [sys.executable, "-m", "controller.cli", "room", "serve", "--store", store, "--password-file", str(pw),
            "--http-port", "0", "--desk-port", "0", "--broker-port", str(free_port()),
            "--tournament", str(conf), "--tables", "t1,t2", *extra]


# ---------------------------------------------------------------- 1. one director a store
def test_the_director_lock_is_exclusive_and_let_go(store_url: str) -> None:
    first, second = open_store(store_url), open_store(store_url)
    try:
        lock = lock_director(first)
        with pytest.raises(DirectorLockHeld, match=f"pid {os.getpid()} on {socket.gethostname()}"):
            lock_director(second)
        lock.release()
        lock_director(second).release()
    finally:
        first.close()
        second.close()


def test_a_second_room_serve_on_the_store_is_refused_naming_the_first(store_url: str, tmp_path: Path) -> None:
    """The store's director lock held (here by the test's own process, as a first ``room
    serve`` holds it): ``room serve --tournament`` on that store exits 2 and names it; no
    tournament is written."""
    holder = open_store(store_url)
    try:
        lock_director(holder)
        out = subprocess.run(serve_args(store_url, tmp_path), capture_output=True, text=True, cwd=REPO, env=ENV,
                             timeout=60)
        assert out.returncode == 2, out.stderr
        assert "another room service runs this store's tournament" in out.stderr
        assert f"pid {os.getpid()} on {socket.gethostname()}" in out.stderr
        assert holder.query("SELECT COUNT(*) FROM room_tournament")[0][0] == 0
    finally:
        holder.close()


def test_a_postgresql_lock_of_a_dead_room_on_this_host_is_taken(store_url: str) -> None:
    if not store_url.startswith("postgresql"):
        pytest.skip("PostgreSQL only: an flock goes with its process")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True).stdout.strip()  # a pid that ran and is gone
    first, second = open_store(store_url), open_store(store_url)
    try:
        lock_director(first)
        first.query("SELECT set_config('application_name', ?, false)",
                    (f"livetable room serve pid {dead} on {socket.gethostname()}",))
        lock_director(second).release()
    finally:
        first.close()
        second.close()


class _Service:
    on_tournament_report = None

    def tournament_order(self, table: str, payload: bytes) -> None:
        pass


def test_a_journal_that_does_not_replay_leaves_the_records_service_serving(tmp_path: Path) -> None:
    """The stored tournament's journal is damaged: ``room serve`` keeps serving the room
    (the records, the console) instead of exiting 2 (systemd would not restart it); the
    console's ``/api/tournament`` says why (409); SIGTERM ends it with 0."""
    import signal
    import urllib.error
    import urllib.request

    from room.rig import RoomRig
    from room.tournament import StoreJournal
    from room.tournament_serve import TournamentRunner
    from tests.room.conftest import need_mosquitto

    need_mosquitto()
    db = tmp_path / "room.sqlite"
    store = open_store(db)
    TournamentRunner(store, _Service(), ROOM_TOML, ["t1", "t2"]).open(8, 3)
    StoreJournal(store).append("moved-out", {"move": 999, "chips": 5})  # no such move: restore fails
    store.close()
    rig = RoomRig(tmp_path / "rig", ["t1"]).start()
    logins = tmp_path / "floor-logins.json"
    added = subprocess.run([sys.executable, "-m", "controller.cli", "room", "serve", "--add-floor", "floor",
                            "--floor-logins", str(logins)], capture_output=True, text=True, cwd=REPO, env=ENV,
                           timeout=30, check=True)
    pw = tmp_path / "room-password"
    pw.write_text(rig.room_creds["password"])
    cmd = serve_args(str(db), tmp_path, "--http-port", str(free_port()), "--floor-logins", str(logins),
                     "--user", rig.room_creds["username"])
    cmd[cmd.index("--broker-port") + 1] = str(rig.room_broker.mqtt_port)
    cmd[cmd.index("--password-file") + 1] = str(pw)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, env=ENV)
    try:
        assert proc.stdout is not None
        serving = json.loads(proc.stdout.readline())
        assert serving["serving"] and proc.poll() is None
        url = serving["console"]
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        opener.open(urllib.request.Request(url + "login", json.dumps(
            {"name": "floor", "password": json.loads(added.stdout)["password"]}).encode(),
            {"Content-Type": "application/json"}), timeout=10)
        with pytest.raises(urllib.error.HTTPError) as got:
            opener.open(url + "api/tournament", timeout=10)
        assert got.value.code == 409
        assert "the room's tournament did not start" in json.loads(got.value.read())["error"]
        with opener.open(url + "api/tables", timeout=10) as r:  # the records service answers
            assert r.status == 200
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        rig.stop()


# ---------------------------------------------------------------- 2. the tournament's identity
def _order(oid: int, tournament: str | None) -> bytes:
    o: dict[str, Any] = {"schema": 1, "table": "t1", "id": oid, "out": [], "in": [], "go": None, "end": False}
    if tournament is not None:
        o["tournament"] = tournament
    return json.dumps(o).encode()


def _seat(journal: Any) -> Any:
    """A :class:`RoomTournamentSeat` attached to a stand-in table run on ``journal`` (its
    broker a closed port: nothing is sent)."""
    from types import SimpleNamespace

    from controller.tournament_link import RoomTournamentSeat

    pacer = SimpleNamespace(hand_start=None, rebuy=None)
    orch = SimpleNamespace(journal=journal, state=SimpleNamespace(seats=[None] * 8, last_result=None, hand=None),
                           listeners=[pacer], tournament_view_fn=None, clock=lambda: 1000.0)
    seat = RoomTournamentSeat("t1", host="127.0.0.1", port=free_port())
    seat.attach(SimpleNamespace(orch=orch, pacer=pacer))
    seat._client.loop_stop()  # noqa: SLF001 - no broker here
    return seat


def test_a_table_on_another_tournaments_journal_refuses_the_new_rooms_orders_and_says_so(tmp_path: Path) -> None:
    from controller.journal import Journal
    from controller.tournament_link import JOURNAL_KIND, TOURNAMENT_META

    path = tmp_path / "journal.sqlite"
    j = Journal(path)
    first = _seat(j)
    first._take(_order(1, "aaaa"))  # noqa: SLF001
    first._journal({"type": "order-done", "id": 1})  # noqa: SLF001 - carried out (it has no moves)
    assert first.tournament == "aaaa" and j.meta(TOURNAMENT_META) == "aaaa" and first.applied == 1
    j.close()

    j = Journal(path)  # the table started again on that journal; a new room's tournament
    seat = _seat(j)
    assert seat.tournament == "aaaa"
    for _ in range(2):
        seat._take(_order(1, "bbbb"))  # noqa: SLF001
    assert seat.applied == 1 and seat._pending is None  # noqa: SLF001 - nothing taken
    assert len(seat.problems) == 1 and "start the table on a new journal" in seat.problems[0]
    assert "bbbb" in seat.problems[0] and "aaaa" in seat.problems[0]
    assert [e.payload["id"] for e in j.entries() if e.kind == JOURNAL_KIND and e.payload["type"] == "room-order"] == [1]
    seat._take(_order(2, "aaaa"))  # noqa: SLF001 - its own tournament's next order is taken
    assert seat.applied == 2
    j.close()

    j = Journal(tmp_path / "older.sqlite")  # a journal of an older room (orders without identity)
    old = _seat(j)
    old._take(_order(1, None))  # noqa: SLF001
    old._journal({"type": "order-done", "id": 1})  # noqa: SLF001
    old._pending = None  # noqa: SLF001 - carried out
    old._take(_order(2, "cccc"))  # noqa: SLF001
    assert old.tournament == "cccc" and old.applied == 2 and not old.problems
    j.close()


def test_the_rooms_orders_carry_its_tournament_and_a_table_of_another_is_refused() -> None:
    from tests.room.test_room_tournament_director import exchange, room

    d, tables, sent, journal = room()
    start = next(p for k, p in journal.events() if k == "start")
    assert len(d.tournament_id) == 16 and start["tournament"] == d.tournament_id
    exchange(d, tables, sent, "t1", "t2")
    assert sent and all(o["tournament"] == d.tournament_id for o in sent)
    before = dict(d.reports["t1"])
    stale = json.loads(tables["t1"].report())
    stale.update(tournament="0123456789abcdef", applied=99)
    for _ in range(2):
        d.report("t1", json.dumps(stale).encode())
    assert d.reports["t1"] == before
    said = [p for p in d.problems if "another tournament" in p]
    assert len(said) == 1 and "t1" in said[0] and "start it on a new journal" in said[0]
    assert d.director_status()["problems"] == d.problems[-5:]

    from room.tournament import RoomTournament

    again = RoomTournament(d.settings, d.toml, d.tables, journal, lambda t, p: None, lambda: 0.0)
    assert again.restore() and again.tournament_id == d.tournament_id


# ---------------------------------------------------------------- 4, 5, 9. room serve's options
@pytest.mark.parametrize("extra, said", [
    (["--tournament-speed", "nan"], "--tournament-speed"),
    (["--tournament-speed", "inf"], "--tournament-speed"),
    (["--tournament-speed", "0"], "--tournament-speed"),
    (["--tournament-speed", "-1"], "--tournament-speed"),
    (["--tables", "t1,,t2"], "an empty table name"),
    (["--tables", "t1,t2,"], "an empty table name"),
    (["--tables", "t1,t2,t1"], "t1 named twice"),
])
def test_room_serve_refuses_bad_tournament_options(tmp_path: Path, extra: list[str], said: str) -> None:
    cmd = serve_args(str(tmp_path / "room.sqlite"), tmp_path)
    if extra[0] == "--tables":
        cmd[cmd.index("--tables") + 1] = extra[1]
    else:
        cmd += extra
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env=ENV, timeout=30)
    assert out.returncode == 2 and said in out.stderr, out.stderr
    assert not (tmp_path / "room.sqlite").exists()  # refused before the store is opened


@pytest.mark.parametrize("kind, said", [("fifo", "not a regular file"), ("latin1", "not UTF-8"),
                                        ("huge", "too large")])
def test_room_serve_refuses_a_settings_file_that_is_no_small_text(tmp_path: Path, kind: str, said: str) -> None:
    cmd = serve_args(str(tmp_path / "room.sqlite"), tmp_path)
    conf = Path(cmd[cmd.index("--tournament") + 1])
    conf.unlink()
    if kind == "fifo":
        os.mkfifo(conf)  # read_text would wait for a writer for ever
    elif kind == "latin1":
        conf.write_bytes(ROOM_TOML.encode() + "# caf\u00e9\n".encode("latin-1"))
    else:
        conf.write_text(ROOM_TOML + "#" * 2_000_000)
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env=ENV, timeout=30)
    assert out.returncode == 2 and said in out.stderr and "--tournament" in out.stderr, out.stderr


# ---------------------------------------------------------------- 3, 7, 8. the director at the console
from tests.room.test_room_tournament_console import call, console  # noqa: E402, F401 - the console's fixture


def _floor_rows(c: dict[str, Any]) -> list[tuple[Any, ...]]:
    return c["store"].query("SELECT action, by_name, reason, outcome FROM room_floor_actions ORDER BY id")


@pytest.mark.parametrize("body, words", [
    ({"command": "clock-pause", "reason": "dispute\x00at t1"}, "no control characters"),
    ({"command": "clock-pause", "reason": "ruled\x1b[2J"}, "no control characters"),
    ({"command": "clock-pause", "reason": "tab\there"}, "no control characters"),
    ({"command": "clock-pause", "reason": "r", "by": "An\x00na"}, "no control characters"),
    ({"command": "clock-pause", "reason": "r", "by": 42}, "a text, not int"),
    ({"command": "clock-pause", "reason": ["dispute"]}, "a text, not list"),
    ({"command": "clock-pause", "reason": {"a": 1}}, "a text, not dict"),
    ({"command": "clock-pause", "reason": True}, "a text, not bool"),
])
def test_control_characters_and_non_text_by_or_reason_are_refused_before_the_clock_changes(
        console: dict[str, Any], body: dict[str, Any], words: str) -> None:  # noqa: F811
    rows = len(console["journal"].rows)
    code, answer = call(console, body)
    assert code == 400 and words in answer["error"], answer
    assert len(console["journal"].rows) == rows and not console["director"].director_status()["paused"]
    assert _floor_rows(console) == []


def test_no_such_level_is_refused_and_recorded(console: dict[str, Any]) -> None:  # noqa: F811
    code, answer = call(console, {"command": "clock-level", "level": 99, "reason": "typo", "by": "Anna"})
    assert code == 400 and "F-3: no level 99 (levels 1..8)" in answer["error"], answer
    [(action, by, reason, outcome)] = _floor_rows(console)
    assert (action, by, reason) == ("clock-level", "Anna", "typo")
    assert json.loads(outcome) == {"accepted": False, "reason": "F-3: no level 99 (levels 1..8)"}


def test_the_clock_and_its_floor_record_are_one_step(console: dict[str, Any]) -> None:  # noqa: F811
    """The floor record cannot be written (its table gone): the clock is not paused either (503)."""
    console["store"].query("ALTER TABLE room_floor_actions RENAME TO gone")
    rows = len(console["journal"].rows)
    code, answer = call(console, {"command": "clock-pause", "reason": "dispute"})
    assert code == 503, answer
    assert not console["director"].director_status()["paused"] and len(console["journal"].rows) == rows
    assert not [k for k, p in console["journal"].events() if "director" in p]


@pytest.mark.parametrize("headers, code", [({"Content-Type": "text/plain"}, 415),
                                           ({"Content-Type": "application/json", "Origin": "http://evil.example"},
                                            403)])
def test_a_post_from_another_site_is_refused(console: dict[str, Any], headers: dict[str, str],  # noqa: F811
                                             code: int) -> None:
    import urllib.error
    import urllib.request

    req = urllib.request.Request(console["url"] + "api/tournament",
                                 json.dumps({"command": "clock-pause", "reason": "r"}).encode(), headers)
    with pytest.raises(urllib.error.HTTPError) as err:
        console["opener"].open(req, timeout=10)
    assert err.value.code == code
    assert not console["director"].director_status()["paused"] and _floor_rows(console) == []


# ---------------------------------------------------------------- 6. the floor's deal checks the table's money
def _final_three(**deal: Any) -> dict[str, Any]:
    tv = {"players_left": 3, "prize_pool": 1000, "finished": False,
          "deal": {"stacks": {"2": 9000, "5": 20000, "7": 7000}, "names": {}, "prizes_left": [500, 300, 200],
                   "unit": 10}}
    tv["deal"].update(deal)
    return {"table": "t1", "tournament": tv, "street": None}


@pytest.mark.parametrize("deal, words", [
    ({"prizes_left": [900, 300, 200]}, "more than the prize pool 1,000"),
    ({"prizes_left": [200, 300, 500]}, "not 1st first"),
    ({"prizes_left": [500, 300, 100, 50, 50]}, "5 prizes left for 3 players left"),
    ({"prizes_left": [500, "300", 200]}, "not amounts of money"),
    ({"prizes_left": [500, True, 200]}, "not amounts of money"),
    ({"prizes_left": "lots"}, "not amounts of money"),
    ({"unit": 0}, "payout unit"),
    ({"unit": 5000}, "payout unit"),
    ({"unit": 2.5}, "payout unit"),
    ({"stacks": {"2": "9000", "5": 20000}}, "not chips by seat"),
    ({"stacks": {"x": 9000, "5": 20000}}, "not chips by seat"),
])
def test_the_floor_deal_refuses_prizes_and_units_that_do_not_add_up(deal: dict[str, Any], words: str) -> None:
    from controller.deal_cli import DealError
    from controller.floor_cli import table_deal

    assert table_deal(_final_three(), "chip-chop")["total"] == 1000  # the good one is dealt
    with pytest.raises(DealError, match=words):
        table_deal(_final_three(**deal), "chip-chop")
