"""``livetable simulate --devices all``: hands through the simulated devices (issue 9).

The production drivers on simulated hardware: the shuffler driver on the emulator's pty
(shuffle + deck check before every hand, G-5), the seat panel on gpiozero's MockFactory, the
MQTT link on the local Mosquitto (127.0.0.1:1883), the simulated camera read by the real
recognizer and checked against the shuffler's board cards. Every game x limit is played
through the CLI; the books must balance (chips conserved, room meters: total_in - total_out
== chips on the table + rake) and every hand's deck must have been proved.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest
from localbroker import needs_broker  # tests/controller is on sys.path

from controller.engine.table.audit import audit, chips_on_table
from controller.engine.table.state import TableState
from controller.journal import Journal
from controller.orchestrator import Orchestrator

REPO = Path(__file__).resolve().parents[2]


pytestmark = needs_broker

# The camera (a render and a read per street, ~1 s a hand on this machine) checks the boards
# of the no-limit board games; the other runs play more hands with the camera off.
CAMERA = {("holdem", "no-limit"), ("omaha", "no-limit")}


def _hands(game: str, limit: str) -> int:
    return 8 if (game, limit) in CAMERA else 30


class StateWatcher:
    """Subscribe to ``livetable/<table>/state`` on the local broker and keep every message."""

    def __init__(self, table: str) -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self.topic = f"livetable/{table}/state"
        self.states: list[dict] = []
        self.subscribed = threading.Event()
        self.cond = threading.Condition()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"watch-{uuid.uuid4().hex[:8]}")
        self.client.on_connect = lambda c, *_: c.subscribe(self.topic, qos=1)
        self.client.on_subscribe = lambda *_: self.subscribed.set()
        self.client.on_message = self._message
        self.client.connect("127.0.0.1", 1883)
        self.client.loop_start()
        assert self.subscribed.wait(10), "could not subscribe to the local broker"

    def _message(self, client, userdata, msg) -> None:
        if msg.payload:
            with self.cond:
                self.states.append(json.loads(msg.payload))
                self.cond.notify_all()

    def wait_for(self, predicate, timeout: float) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: predicate(self.states), timeout)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def _simulate(tmp_path: Path, game: str, limit: str, hands: int, table: str) -> dict:
    journal = tmp_path / f"{table}.sqlite"
    camera = "on" if (game, limit) in CAMERA else "off"
    cmd = [sys.executable, "-m", "controller", "simulate", "--devices", "all", "--headless", "--quiet",
           "--camera", camera,
           "--game", game, "--limit", limit, "--hands", str(hands), "--table", table,
           "--journal", str(journal), "--seed", str(abs(hash(table)) % 1000)]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=150,
                          env=dict(os.environ, SDL_VIDEODRIVER="dummy"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _final_state(journal: str, settings_table: str) -> TableState:
    """Replay the run's journal: the state the table ended in."""
    with Journal(journal) as j:
        assert j.check() == []
        orch = Orchestrator.recover(j, lambda: pytest.fail("the journal is empty"), clock=lambda: 0.0)
        return orch.state


@pytest.mark.parametrize("game", ["holdem", "omaha", "draw"])
@pytest.mark.parametrize("limit", ["no-limit", "pot-limit", "fixed-limit"])
def test_every_game_and_limit_through_the_simulated_devices(tmp_path, game, limit):
    table = f"simdev-{game}-{limit}-{uuid.uuid4().hex[:6]}"
    hands = _hands(game, limit)
    watcher = StateWatcher(table)
    try:
        out = _simulate(tmp_path, game, limit, hands, table)
        # The public state reached the real broker while the hands were played.
        assert watcher.wait_for(lambda st: any(s.get("hand", 0) >= hands for s in st), 10)
    finally:
        watcher.close()
    states = watcher.states
    assert {s["table"] for s in states} == {table}
    assert all(a["seq"] < b["seq"] for a, b in zip(states, states[1:])), "seq must rise (docs/state.md)"
    assert any(s["street"] in ("preflop", "predraw") for s in states)
    assert all(s["game"] == game and s["limit"] == limit for s in states)

    assert out["invariant_errors"] == []
    assert out["hands"] + out["voided"] >= hands
    assert out["voided"] == 0 and [f for f in out["faults"]] == [], out["faults"]
    # Every hand was dealt from a deck the shuffler proved (G-5); board cards were read.
    dev = out["devices"]
    assert dev["decks"] >= out["hands"], dev
    if (game, limit) in CAMERA:
        # Players wait for the camera's read of each street: every board dealt was checked.
        assert dev["board_checks"] >= 1 and dev["camera_frames"] > 0, dev
        assert dev["boards"] >= 1 and dev["boards_matched"] == dev["boards"], dev

    # The room meters balance against the table replayed from the journal.
    room = out["room"]
    state = _final_state(out["journal"], table)
    assert audit(state) == []
    assert room["total_in"] - room["total_out"] == chips_on_table(state) + room["rake"]
    assert (state.ledger.total_in, state.ledger.total_out, state.ledger.rake) == (
        room["total_in"], room["total_out"], room["rake"])
    assert state.hands >= hands


@pytest.mark.parametrize("argv, words", [
    (["--hands", "-1"], "--hands must be 0 or more"),
    (["--keep-hands", "3"], "--keep-hands needs --history-dir"),
    (["--history-dir", "{file}"], "is a file, not a folder"),
])
def test_simulate_refuses_bad_options_with_a_message_not_a_traceback(tmp_path, capsys, argv, words):
    from controller import simulate

    (tmp_path / "a-file").write_text("x")
    argv = [a.replace("{file}", str(tmp_path / "a-file")) for a in argv]
    assert simulate.main(argv + ["--headless", "--devices", "none", "--journal", str(tmp_path / "j.sqlite")]) == 2
    assert words in capsys.readouterr().err


def test_a_table_opened_again_from_its_journal_shuffles_new_decks(tmp_path):
    """The emulated shuffler of a table opened from its journal goes on with new decks; it
    used to start again from its first shuffle (a newcomer saw hand 6 dealt as hand 1)."""
    table = f"simdev-again-{uuid.uuid4().hex[:6]}"
    first = _simulate(tmp_path, "holdem", "no-limit", 2, table)
    second = _simulate(tmp_path, "holdem", "no-limit", 2, table)  # the same journal, reopened
    assert first["journal"] == second["journal"] and second["recovery"]["outcome"] == "clean"
    decks: list[list[str]] = []
    with Journal(second["journal"]) as j:
        for e in j.entries(kinds=("table",)):
            kind = e.payload.get("kind")
            if kind == "hand-start-requested":
                decks.append([])
            elif kind == "card-dealt" and decks:
                decks[-1].append(e.payload["card"])
    decks = [d for d in decks if d]
    assert len(decks) >= 4, [len(d) for d in decks]
    firsts = [tuple(d[:6]) for d in decks]  # the hole cards of the first three seats
    assert len(set(firsts)) == len(firsts), firsts


def test_a_ctrl_c_while_the_table_opens_stops_it_with_its_summary(tmp_path, capsys, monkeypatch):
    """The table publishes its state while it opens (a fresh table is visible to the tablets
    at once), so a Ctrl-C may come then: it must stop the table with its summary, exit 0, not
    end in a KeyboardInterrupt (try-tablet's second Ctrl-C test saw 130 now and then)."""
    import signal

    from controller import simulate
    from controller.composition import TableRun

    opened = TableRun.open

    def open_then_ctrl_c(self):
        recovery = opened(self)
        os.kill(os.getpid(), signal.SIGINT)  # delivered here, before the table's loop runs
        return recovery

    monkeypatch.setattr(TableRun, "open", open_then_ctrl_c)
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        rc = simulate.main(["--devices", "none", "--hands", "3", "--headless", "--camera", "off",
                            "--journal", str(tmp_path / "j.sqlite")])
    finally:
        for s, h in before.items():
            signal.signal(s, h)
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert rc == 0 and summary["hands"] == 0


def test_simulate_language_is_the_tables_language(tmp_path):
    """Brief L item 4: ``livetable simulate --language nl`` is ``[table] language = "nl"``."""
    path = tmp_path / "journal.sqlite"
    res = subprocess.run([sys.executable, "-m", "controller", "simulate", "--devices", "none", "--headless",
                          "--quiet", "--seed", "3", "--hands", "1", "--language", "nl", "--journal", str(path)],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    import sqlite3

    db = sqlite3.connect(path)
    try:  # the table's settings are in its snapshots (the events change them only when they change)
        states = [json.loads(s) for (s,) in db.execute("SELECT state FROM snapshots")]
    finally:
        db.close()
    assert states and all(st["table"]["settings"]["language"] == "nl" for st in states), states[:1]
    bad = subprocess.run([sys.executable, "-m", "controller", "simulate", "--language", "fr", "--hands", "0"],
                         cwd=REPO, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "invalid choice: 'fr'" in bad.stderr
