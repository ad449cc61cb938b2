"""``livetable room director``'s output in words (issue 19 usability): counts with their plural
(``1 player left``, not ``1 players left``), a refusal's rule code explained (``F-3: ...`` alone
said nothing to a newcomer), and the errors reaching the console or logging in naming the
options and environment variables that set them. Against a small stand-in console (the real
one is tests/room/test_room_tournament_console.py's). Also ``room simulate --tournament``'s
refusal of its entries (``1 table``)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from room import director_cli

STATUS = {"level": {"number": 9, "small_blind": 1000, "big_blind": 2000, "big_blind_ante": 2000},
          "next_level": None, "seconds_left": None, "players_left": 1, "entries": 2, "average_stack": 20000,
          "prize_pool": 200, "places_paid": 1, "finished": True,
          "tables": [{"table": "t1", "name": "t1", "players": 1, "hands": 1, "playing": False, "broken": False},
                     {"table": "t2", "name": "Birch", "players": 0, "hands": 2, "playing": False, "broken": False}]}


def test_status_counts_say_one_in_the_singular() -> None:
    head, t1, t2 = director_cli.status_lines(STATUS)
    assert "; 1 player left of 2 entries," in head and "(1 place paid)" in head
    assert t1 == "t1: 1 player, 1 hand"
    assert t2 == "t2 Birch: 0 players, 2 hands"
    many = director_cli.status_lines({**STATUS, "players_left": 12, "entries": 1, "places_paid": 3})[0]
    assert "12 players left of 1 entry," in many and "(3 places paid)" in many


def test_a_fast_clock_is_said_without_calling_real_tables_simulated() -> None:
    """Newcomer F2/F6: ``room serve --tournament-speed 60`` on real tables said "(clock x60,
    simulated)"; and an ended tournament said how much time was left."""
    head = director_cli.status_lines({**STATUS, "clock_speed": 60, "seconds_left": 209})[0]
    assert "simulated" not in head and "(the clock runs 60x real time)" in head, head
    assert " left;" not in head.split("; 1 player left")[0] and "3:29" not in head, head
    running = director_cli.status_lines({**STATUS, "finished": False, "seconds_left": 209})[0]
    assert running.startswith("level 9 (") and ", 3:29 left" in running and "real time" not in running, running


def test_a_refusals_rule_code_is_said_in_words() -> None:
    assert director_cli.refusal_words("F-3: the clock is paused already") == (
        "F-3: the clock is paused already (F-3: the tournament's present state does not allow it; "
        "nothing was changed)")
    assert director_cli.refusal_words("no tournament is running in this room") == \
        "no tournament is running in this room"


@pytest.fixture()
def console() -> Iterator[dict[str, Any]]:
    """``/login`` takes the password ``pw``; ``POST /api/tournament`` refuses with F-3."""
    class H(BaseHTTPRequestHandler):
        def log_message(self, *a: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"null")
            if self.path == "/login":
                code, answer = (200, {"ok": True}) if body.get("password") == "pw" else (
                    403, {"error": "wrong login or password"})
            else:
                code, answer = 409, {"error": "F-3: the clock is paused already", "refused": True}
            data = json.dumps(answer).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield {"url": f"http://127.0.0.1:{server.server_address[1]}/"}
    finally:
        server.shutdown()
        server.server_close()


def test_a_refusal_prints_the_code_in_words(console: dict[str, Any], capsys: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("LIVETABLE_ROOM_PASSWORD", "pw")
    assert director_cli.main(["--console", console["url"], "clock-pause", "--reason", "again"]) == 1
    err = capsys.readouterr().err
    assert "refused: F-3: the clock is paused already (F-3: the tournament's present state does not allow it" in err


def test_a_refused_login_names_the_options_and_variables(console: dict[str, Any], capsys: Any,
                                                         monkeypatch: Any) -> None:
    monkeypatch.setenv("LIVETABLE_ROOM_PASSWORD", "wrong")
    assert director_cli.main(["--console", console["url"], "status"]) == 2
    err = capsys.readouterr().err
    assert "refused the login 'floor': wrong login or password" in err
    for words in ("--login NAME", "$LIVETABLE_ROOM_LOGIN", "--password-file FILE", "$LIVETABLE_ROOM_PASSWORD"):
        assert words in err, err


def test_an_unreachable_console_names_the_option_and_variable(capsys: Any, monkeypatch: Any) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("LIVETABLE_ROOM_PASSWORD", "x")
    assert director_cli.main(["--console", f"http://127.0.0.1:{port}/", "status"]) == 2
    err = capsys.readouterr().err
    assert "cannot reach the floor console at" in err
    assert "--console URL" in err and "$LIVETABLE_ROOM_CONSOLE" in err, err


def test_room_simulate_says_one_table_in_the_singular(tmp_path: Any, capsys: Any) -> None:
    from room.simulate import main

    assert main(["--tournament", "--tables", "1", "--entries", "20", "--dir", str(tmp_path / "run")]) == 2
    assert "--entries must be 2..8 (1 table of 8 seats)" in capsys.readouterr().err


def test_the_floor_password_file_room_serve_writes_logs_the_director_in(tmp_path: Any, capsys: Any,
                                                                         monkeypatch: Any) -> None:
    """The file ``room serve`` writes for the first floor login (``first_floor_login``) is the
    director's ``--password-file`` as it is (it held ``floor PASSWORD``: the login was refused)."""
    from room.console import serve_console
    from room.serve import first_floor_login

    logins = tmp_path / "floor-logins.json"
    assert first_floor_login(logins) is None
    note = tmp_path / "floor-logins.json.floor-password"
    assert "director status --login floor --password-file " + str(note) in capsys.readouterr().err
    from types import SimpleNamespace

    console = serve_console(SimpleNamespace(store=None), logins)  # no tournament here: the status is refused
    again = tmp_path / "other" / "floor-logins.json"  # another port than the director's default: named
    assert first_floor_login(again, console.url) is None
    assert f"director status --console {console.url} --login floor" in capsys.readouterr().err
    monkeypatch.delenv("LIVETABLE_ROOM_PASSWORD", raising=False)
    try:
        code = director_cli.main(["--console", console.url, "--password-file", str(note), "status"])
    finally:
        console.stop()
    err = capsys.readouterr().err
    assert "refused the login" not in err, err
    assert code == 1, err
    assert note.read_text().count(" ") == 0  # the password alone, as docs/room.md says


def test_a_password_file_of_login_and_password_still_logs_in(console: dict[str, Any], tmp_path: Any,
                                                             monkeypatch: Any) -> None:
    """A ``.floor-password`` file written by an older ``room serve`` (``floor PASSWORD``) is read."""
    monkeypatch.delenv("LIVETABLE_ROOM_PASSWORD", raising=False)
    old = tmp_path / "old.floor-password"
    old.write_text("floor pw\n")
    assert director_cli.main(["--console", console["url"], "--password-file", str(old), "clock-pause",
                              "--reason", "x"]) == 1  # logged in; the fixture's console refuses with F-3
    assert director_cli.main(["--console", console["url"], "--login", "ann", "--password-file", str(old),
                              "status"]) == 2  # another login: the whole line is its password


def test_the_usage_line_says_register_needs_by(capsys: Any, monkeypatch: Any) -> None:
    """``register`` without ``--by`` is refused; the usage line it prints shows ``--by`` as needed."""
    monkeypatch.setenv("LIVETABLE_ROOM_PASSWORD", "pw")
    assert director_cli.main(["register", "Ann"]) == 2
    err = capsys.readouterr().err
    assert "register needs --by" in err
    assert "register NAME [--player ID] --by NAME [--reason TEXT]" in err, err
    assert "[--by NAME]|rebuy" not in err
