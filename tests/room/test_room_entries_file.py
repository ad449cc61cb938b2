"""``livetable room serve --tournament ... --entries-file FILE`` (issue 19): the tournament's
entries by name, one player a line (room/tournament_serve.py :func:`read_entries`).

Checked: what a file reads as (comments, ids given or made, a byte order mark, Windows line
ends), every bad line refused with its number, a file that cannot be read; the director's
start with those players; a store holding a tournament of one file resumed with it and
refused with another (exit 2, nothing written), as ``--entries`` is; and a real ``room
serve`` (real brokers and tables, as tests/room/test_room_serve_tournament.py) playing the
file's players to a winner, killed (-9) after the first bust and resumed with the same file.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from drivers.mqtt.broker import free_port
from room.store import open_store
from room.tournament_serve import EntriesFileError, StoredTournamentMismatch, TournamentRunner, read_entries
from room.tournament_sim import ROOM_TOML  # 8 seats a table, entry 100
from tests.room.test_room_serve_tournament import (ENV, PRICE, REPO, check_store_holds_every_hand, events, room,
                                                   serve, start_tables, status)

__all__ = ["room"]  # the fixture, imported for the real room serve below

class Service:
    """What the runner needs of a room service when no table plays."""

    on_tournament_report = None

    def tournament_order(self, table: str, payload: bytes) -> None:
        pass


def write(tmp: Path, text: str | bytes, name: str = "entries.txt") -> Path:
    p = tmp / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


def test_the_file_s_players_keep_their_order_and_given_ids(tmp_path: Path) -> None:
    # a byte order mark, Windows line ends, comments (spaces before #), spaces around ids and names;
    # made ids skip the given p1
    text = "\ufeff# a comment\r\n  Ann Smith  \r\n  # late\r\nbob , Bob Jones\r\np1,Chloé Ødegaard\r\nDan\r\n"
    got = read_entries(write(tmp_path, text.encode("utf-8")))
    assert list(got.items()) == [("p2", "Ann Smith"), ("bob", "Bob Jones"), ("p1", "Chloé Ødegaard"),
                                 ("p3", "Dan")]


@pytest.mark.parametrize("text, said", [
    ("Ann\n\nBob\n", "line 2: empty"),
    ("Ann\n   \nBob\n", "line 2: empty"),
    ("Ann\nBo\tb\n", "line 2: a player's name is one line of 1..40 characters, no control characters"),
    ("Ann\nBo\x0bb\n", "line 2: a player's name is one line"),  # not split as a line break
    ("Ann\nBob\u2028Smith\n", "line 2: a player's name is one line"),
    ("Ann\n" + "x" * 41 + "\n", "line 2: a player's name is one line of 1..40 characters"),
    ("Ann\nbob,\n", "line 2: a player's name is one line of 1..40 characters"),
    ("Ann\nSmith, John\n", "line 2: player id 'Smith': 1..32 of a-z 0-9 _ -"),
    ("Ann\n,Bob\n", "line 2: player id ''"),
    ("Ann Smith\nBob\n ann  smith. \n", "line 3: the name 'ann  smith.' is on line 1 already"),
    ("bob,Bob\nann,Ann\nbob,Robert\n", "line 3: the player id 'bob' is on line 1 already"),
    ("# only a comment\n", "no player in it"),
    ("", "no player in it"),
])
def test_a_bad_line_is_refused_with_its_number(tmp_path: Path, text: str, said: str) -> None:
    with pytest.raises(EntriesFileError, match="the entries file .*entries.txt: ") as err:
        read_entries(write(tmp_path, text))
    assert said in str(err.value), str(err.value)


def test_every_bad_line_is_said_at_once(tmp_path: Path) -> None:
    with pytest.raises(EntriesFileError) as err:
        read_entries(write(tmp_path, "Ann\n\nAnn\nX,Y\n"))
    assert "line 2: empty" in str(err.value) and "line 3: the name 'Ann' is on line 1" in str(err.value)
    assert "line 4: player id 'X'" in str(err.value)


@pytest.mark.parametrize("make, said", [
    (lambda tmp: tmp / "missing.txt", "No such file"),
    (lambda tmp: tmp, "Is a directory"),
    (lambda tmp: write(tmp, b"Ann\nBj\xf6rn\n"), "not UTF-8 text"),
    (lambda tmp: write(tmp, b"x" * 2_000_000), "too large"),
])
def test_a_file_that_cannot_be_read_is_refused(tmp_path: Path, make: Any, said: str) -> None:
    with pytest.raises(EntriesFileError, match="the entries file ") as err:
        read_entries(make(tmp_path))
    assert said in str(err.value), str(err.value)


def test_the_director_draws_the_file_s_players_and_a_restart_resumes_only_with_the_same(tmp_path: Path) -> None:
    names = read_entries(write(tmp_path, "Ann Smith\nbob,Bob Jones\nChloé\n"))
    store = open_store(tmp_path / "room.sqlite")
    try:
        runner = TournamentRunner(store, Service(), ROOM_TOML, ["t1", "t2"])
        assert runner.open(None, 3, names=names) is False
        d = runner.director
        assert d.names == {"p1": "Ann Smith", "bob": "Bob Jones", "p2": "Chloé"}
        assert sorted(e.player for e in d.standings.entries) == ["bob", "p1", "p2"] and d.director_status()["entries"] == 3
        seated = {m["player"] for m in d.moves.values() if m["reason"] == "draw"}
        assert seated == {"p1", "bob", "p2"}
        start = [p for k, p in runner.director.journal.events() if k == "start"][0]
        assert start["entries"] == 3 and start["names"] == names
        again = TournamentRunner(store, Service(), ROOM_TOML, ["t1", "t2"])
        assert again.open(None, 99, names=dict(reversed(list(names.items())))) is True  # the same players
        assert again.director.names == names and again.director.seed == 3
        other = dict(names, bob="Robert Jones")
        with pytest.raises(StoredTournamentMismatch, match="other entries than the entries file's .*player bob: "
                                                           "'Bob Jones' stored, 'Robert Jones' in the file"):
            TournamentRunner(store, Service(), ROOM_TOML, ["t1", "t2"]).open(None, 3, names=other)
        fewer = {"p1": "Ann Smith", "bob": "Bob Jones"}
        with pytest.raises(StoredTournamentMismatch, match=r"\(3 stored, 2 in the file; player p2: 'Chloé' stored, "
                                                           "none in the file\\)"):
            TournamentRunner(store, Service(), ROOM_TOML, ["t1", "t2"]).open(None, 3, names=fewer)
    finally:
        store.close()


def test_room_serve_refuses_a_bad_or_other_entries_file_with_exit_2_before_anything_starts(tmp_path: Path) -> None:
    db = tmp_path / "room.sqlite"
    store = open_store(db)
    first = write(tmp_path, "Ann\nBob\nChloé\n", "first.txt")
    TournamentRunner(store, Service(), ROOM_TOML, ["t1", "t2"]).open(None, 3, names=read_entries(first))
    store.close()
    before = events(db)
    conf = write(tmp_path, ROOM_TOML, "t.toml")
    pw = write(tmp_path, "x", "pw")
    base = [sys.executable, "-m", "controller.cli", "room", "serve", "--store", str(db), "--password-file", str(pw),
            "--http-port", "0", "--desk-port", "0", "--broker-port", str(free_port())]
    tour = ["--tournament", str(conf), "--tables", "t1,t2"]
    other = write(tmp_path, "Ann\nBob\nChloe\n", "other.txt")
    bad = write(tmp_path, "Ann\nBob\n\nAnn\n", "bad.txt")
    many = write(tmp_path, "".join(f"Player {n}\n" for n in range(1, 18)), "many.txt")
    for args, said in [
            (tour + ["--entries-file", str(other)], "other entries than the entries file's (3 stored, 3 in the file; "
                                                    "player p3: 'Chloé' stored, 'Chloe' in the file)"),
            (tour + ["--entries-file", str(bad)], "bad.txt: line 3: empty (one player a line: name or "
                                                  "player_id,name; # starts a comment); line 4: the name 'Ann' is "
                                                  "on line 1 already"),
            (tour + ["--entries-file", str(first), "--entries", "3"], "--entries and --entries-file: one or the other"),
            (["--entries-file", str(first)], "--entries-file goes with --tournament"),
            (tour + ["--entries-file", str(tmp_path / "nope.txt")], "nope.txt: [Errno 2] No such file")]:
        out = subprocess.run(base + args, capture_output=True, text=True, cwd=REPO, env=ENV, timeout=30)
        assert out.returncode == 2 and said in out.stderr, (args, out.stderr)
        assert "serving" not in out.stdout
    assert events(db) == before
    # a new store: more players than the tables seat (2 x 8) is refused before anything starts
    fresh = tmp_path / "fresh.sqlite"
    out = subprocess.run([*base[:6], str(fresh), *base[7:], *tour, "--entries-file", str(many)],
                         capture_output=True, text=True, cwd=REPO, env=ENV, timeout=30)
    assert out.returncode == 2 and "--entries-file: 17 players; a tournament on 2 tables of 8 seats takes 2..16" \
        in out.stderr, out.stderr
    assert events(fresh) == []


@pytest.mark.timeout(180)
def test_room_serve_plays_the_file_s_players_and_resumes_them_after_a_kill(room: dict[str, Any]) -> None:
    """The file's players through real tables to a winner; a kill -9 of the room after the
    first bust and ``room serve`` again with the same file resumes (the same players, once)."""
    names = ["Ann Smith", "Bob Jones", "Chloé Ødegaard", "Dan", "Eve", "Frank", "Gus", "Hana", "Ivo", "Jo"]
    ids = ["p1", "bob", *(f"p{n}" for n in range(2, 10))]
    text = "# tonight\n" + "".join(f"{'bob,' if n == 'Bob Jones' else ''}{n}\n" for n in names)
    path = write(room["tmp"], text)
    cmd = room["cmd"]
    i = cmd.index("--entries")
    room["cmd"] = cmd[:i] + ["--entries-file", str(path)] + cmd[i + 2:]
    s = serve(room, free_port())
    url = s.line("serving", 30)["console"]
    start_tables(room)
    code, st = status(url, room["floor_password"])
    assert code == 200 and st["entries"] == len(names), st
    deadline = time.monotonic() + 60
    while not any(k == "bust" for k, _ in events(room["store"])):
        assert time.monotonic() < deadline and s.proc.poll() is None, s.log.read_text()[-3000:]
        time.sleep(0.05)  # polling another process's store, as test_room_serve_tournament.py does
    s.proc.kill()
    s.proc.wait()
    again = serve(room, free_port())
    again.line("serving", 30)
    result = again.line("tournament", 60)["tournament"]
    assert result["ok"] and result["resumed"], result
    assert sorted(result["places"]) == sorted(ids) and dict(zip(result["places"], result["names"])) == dict(
        zip(ids, names))
    assert result["prize_pool"] == len(names) * PRICE == sum(result["payouts"])
    kinds = [k for k, _ in events(room["store"])]
    assert kinds.count("start") == 1 and kinds.count("entry") == len(names)  # nobody registered twice
    start = next(p for k, p in events(room["store"]) if k == "start")
    assert list(start["names"].items()) == list(zip(ids, names))
    assert "resumed from the store" in again.log.read_text()
    check_store_holds_every_hand(room)
    assert again.stop() == 0
