"""``livetable history`` (controller/history.py recall, controller/history_cli.py): game
recall from real journals, beside a running table, paused by a fault, after a restart."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from controller import history_cli
from controller.clock import ManualClock
from controller.engine.table.settings import TableSettings
from controller.history import HandRecall, HistoryError, recall
from controller.orchestrator import FloorDecision, ManualPause
from controller.runtime import open_table
from tests.controller.test_history_support import Table

REPO = Path(__file__).resolve().parents[2]


def _settings(game: str = "holdem", limit: str = "no-limit", **kw: Any) -> TableSettings:
    base: dict[str, Any] = dict(id="t3", name="Table 3", game=game, limit=limit,
                                seats=5 if game == "draw" else 6, small_blind=50, big_blind=100,
                                action_seconds=30.0, rake_percent=5, rake_caps=((2, 300),))
    base.update(kw)
    return TableSettings(**base)


def _check_against_record(h: HandRecall, rec: dict[str, Any]) -> None:
    """The recall agrees with the table's own record, and its steps account for every chip:
    start - posts - bets + returns + winnings = end, and each action's stack is the running one."""
    assert h.number == rec["hand"] and not h.in_progress
    assert h.button == rec["button"] and h.sb_seat == rec["sb_seat"] and h.bb_seat == rec["bb_seat"]
    by_seat = {s["seat"]: s for s in rec["seats"]}
    assert [s["seat"] for s in h.seats] == sorted(by_seat)
    for s in h.seats:
        r = by_seat[s["seat"]]
        assert s["cards"] == r["cards"] and "??" not in s["cards"]  # every hole card, mucked too
        assert s["start"] == r["start"] and s["end"] == r["end"]
        assert s["status"] == r["showed"] or (s["status"] == "won" and r["showed"] == "folded")
    running = {s["seat"]: s["start"] for s in h.seats}
    for st in h.steps:
        if st.kind in ("post", "action") and st.data.get("amount"):
            running[st.seat] -= st.data["amount"]  # type: ignore[index]
        if st.kind == "action":
            assert st.data["stack"] == running[st.seat], st.text
        if st.kind == "return":
            running[st.seat] += st.data["amount"]  # type: ignore[index]
        if st.kind == "pot":
            for seat, won in st.data["shares"].items():
                running[seat] += won
            if not st.data["hand"]:  # no hand compared: said shown only when the winner showed
                showed = all(by_seat[w]["showed"] == "shown" for w in st.data["shares"])
                assert st.text.endswith("(shown; no other hand contested it)" if showed
                                        else "(uncontested, not shown)"), st.text
    assert running == {s["seat"]: s["end"] for s in h.seats}
    boards = [c for st in h.steps if st.kind == "board" for c in st.data["cards"]]
    assert boards == [c for c in rec["hand_record"]["board"] if c]
    assert h.rake == rec["result"]["rake"] == sum(st.data["rake"] for st in h.steps if st.kind == "pot")


@pytest.mark.parametrize(("game", "limit"), [("holdem", "no-limit"), ("omaha", "pot-limit"),
                                             ("draw", "fixed-limit")])
def test_recall_matches_the_tables_records(tmp_path: Path, game: str, limit: str) -> None:
    """The last N hands read back from the journal match the hand-finished records."""
    path = tmp_path / "j.sqlite"
    seats = [1, 2, 3, 4, 5] if game == "draw" else [1, 2, 3, 4, 5, 6]
    table = Table(path, _settings(game, limit), seats=seats, seed=7)
    records = table.play(6)
    found = recall(path, hands=3)  # the writer still has the journal open
    assert [h.number for h in found.hands] == [4, 5, 6]
    for h, rec in zip(found.hands, records[3:6]):
        _check_against_record(h, rec)
    if game == "draw":
        assert any(st.kind == "draw" for h in found.hands for st in h.steps)
    one = recall(path, hand=2)
    assert [h.number for h in one.hands] == [2]
    _check_against_record(one.hands[0], records[1])
    first = recall(path, hand=1)  # before the first snapshot: the table's settings from it
    _check_against_record(first.hands[0], records[0])
    table.close()


def test_a_pot_won_by_a_shown_hand_the_others_mucked_is_not_called_not_shown(tmp_path: Path) -> None:
    """P-2: at the showdown one hand is shown and the others muck: the pot is won without a
    comparison, but the recall must not say the winner did not show (a newcomer saw
    "shows 2s Js" then "wins (uncontested, not shown)")."""
    path = tmp_path / "j.sqlite"
    table = Table(path, _settings(), seats=[1, 2, 3, 4, 5, 6], seed=7)
    records = table.play(20)
    found = recall(path, hands=20)
    table.close()
    for h, rec in zip(found.hands, records):
        _check_against_record(h, rec)
    said = [st.text for h in found.hands for st in h.steps if st.kind == "pot"]
    assert any(t.endswith("(shown; no other hand contested it)") for t in said), said


def test_paused_hand_is_shown_in_progress_then_voided_by_the_floor(tmp_path: Path) -> None:
    """A fault pauses the table mid-hand: the recall shows the hand so far, in progress and
    paused; the floor voids it: the recall shows the fault, who decided, and the void."""
    path = tmp_path / "j.sqlite"
    table = Table(path, _settings(), seats=[1, 2, 3, 4], seed=9)
    table.play_until(lambda o: o.hands_finished >= 2 and o.state.hand is not None
                     and len(o.state.hand.board) == 3 and o.state.dealing is None)
    number = table.orch.state.info.number
    table.orch.handle(ManualPause("dealer: a card flipped"))
    found = recall(path)
    assert [h.number for h in found.hands] == [number - 1, number]
    live = found.hands[-1]
    assert live.in_progress and live.paused is not None and live.paused["kind"] == "paused"
    assert any(st.kind == "fault" and "a card flipped" in st.text for st in live.steps)
    assert [st.kind for st in live.steps if st.kind == "board"] == ["board"]  # the flop so far
    assert all(len(s["cards"]) == 2 for s in live.seats)
    text = history_cli_text(path)
    assert f"Hand #{number} - IN PROGRESS, PAUSED by fault paused" in text

    table.orch.handle(FloorDecision(kind="paused", exit="void", by="floor: Eva", note="card flipped"))
    table.close()
    h = recall(path, hand=number).hands[0]
    assert h.voided and not h.in_progress
    ended = [st for st in h.steps if st.kind == "fault-ended"]
    assert ended and ended[0].data["by"] == "floor: Eva" and ended[0].data["exit"] == "void"
    void = [st for st in h.steps if st.kind == "void"]
    assert void and void[0].data["by"] == "floor: Eva"
    assert all(s["end"] == s["start"] for s in h.seats)  # every wager returned
    assert all(len(s["cards"]) == 2 and s["status"] == "void" for s in h.seats)
    assert recall(path).faults == []


def test_fault_between_hands_is_shown_after_the_last_hand(tmp_path: Path) -> None:
    """A fault raised while no hand runs (the table paused between hands) is listed after the
    last hand and as an open fault."""
    path = tmp_path / "j.sqlite"
    table = Table(path, _settings(), seats=[1, 2, 3], seed=3)
    table.play(2)
    assert table.orch.state.hand is None
    table.orch.handle(ManualPause("floor: chip count"))
    table.close()
    found = recall(path)
    assert [h.number for h in found.hands] == [2]
    last = found.hands[0].steps[-1]
    assert last.kind == "fault" and last.text.endswith("(after the hand)") and "chip count" in last.text
    assert [f["kind"] for f in found.faults] == ["paused"]
    # the floor ends the pause and the table plays on: both show, in order, before hand 3
    table = Table(tmp_path / "j2.sqlite", _settings(), seats=[1, 2, 3], seed=3)
    table.play(2)
    table.orch.handle(ManualPause("floor: chip count"))
    table.orch.handle(FloorDecision(kind="paused", exit="resume", by="floor: Eva"))
    table.pacer.kick(table.orch)
    table.play(3)
    table.close()
    h3 = recall(tmp_path / "j2.sqlite", hand=3).hands[0]
    assert [st.kind for st in h3.steps[:3]] == ["fault", "fault-ended", "post"]
    assert h3.steps[1].data["by"] == "floor: Eva"


def history_cli_text(path: Path, *args: str) -> str:
    """Run ``livetable history`` in a subprocess (the real command) and return stdout."""
    out = subprocess.run([sys.executable, "-m", "controller", "history", "--journal", str(path), *args],
                         cwd=REPO, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_timeout_and_restart_are_in_the_recall(tmp_path: Path) -> None:
    """A-2: the table acting for a player whose time ran out is marked; a restart mid-hand
    (recovery) is in the hand with its outcome."""
    path = tmp_path / "j.sqlite"
    table = Table(path, _settings(), seats=[1, 2], humans=[3], seed=4)
    table.play_until(lambda o: o.state.hand is not None and o.state.hand.seat_to_act == 3
                     and o.state.timer is not None)
    table.clock.advance(31)
    table.orch.fire_timers()
    table.journal.close()
    # the controller restarts on the same journal (between two events of the running hand)
    settings = _settings()
    orch, rec = open_table(path, settings, clock=ManualClock(table.clock() + 5))
    orch.journal.close()
    h = recall(path, hand=rec.hand).hands[0]
    timed = [st for st in h.steps if st.seat == 3 and st.data.get("rule") == "A-2"]
    assert timed and "time ran out (A-2)" in timed[0].text
    restarts = [st for st in h.steps if st.kind == "recovery"]
    assert restarts and restarts[0].data["outcome"] == rec.outcome
    if rec.outcome == "resumed":
        assert h.in_progress
    else:  # a card was on its way: the system voided the hand
        assert rec.outcome == "voided" and h.voided
        assert [st.data["by"] for st in h.steps if st.kind == "void"] == ["system: recovery"]


def test_cli_on_a_simulated_table_journal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``livetable simulate`` writes the journal; ``livetable history`` (journal from
    $LIVETABLE_JOURNAL) prints the last hands as text and JSON."""
    path = tmp_path / "sim.sqlite"
    sim = subprocess.run([sys.executable, "-m", "controller", "simulate", "--devices", "none", "--headless",
                          "--hands", "4", "--journal", str(path), "--quiet", "--game", "omaha",
                          "--limit", "pot-limit"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert sim.returncode == 0, sim.stderr
    env = dict(os.environ, LIVETABLE_JOURNAL=str(path))
    out = subprocess.run([sys.executable, "-m", "controller", "history", "--hands", "2", "--json"],
                         cwd=REPO, capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    finished = [h for h in data["hands"] if not h["in_progress"]]
    assert [h["hand"] for h in finished] == [3, 4]
    for h in finished:
        assert h["game"] == "omaha" and all(len(s["cards"]) == 4 for s in h["seats"])
        assert any(st["kind"] == "pot" for st in h["steps"])
    assert history_cli.main(["--journal", str(path), "--hand", "3"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Hand #3\nTable sim - Omaha Pot Limit 50/100")
    # the seed is random: the small blind may be dead this hand (T-1), the big blind never is
    posts = [st for st in finished[0]["steps"] if st["kind"] == "post"]
    assert any(st["post"] == "big blind" and st["amount"] == 100 for st in posts)
    assert posts and all(st["text"] in text for st in posts)
    assert "posts the big blind 100" in text
    assert "Main pot" in text and "Rake" in text


def _snapshots(path: Path) -> int:
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)
        try:
            return db.execute("SELECT COUNT(*) FROM snapshots").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error:
        return 0


def test_reads_while_another_process_writes_the_journal(tmp_path: Path) -> None:
    """The table keeps running in its own process while ``livetable history`` reads its
    journal (read-only; WAL): every finished hand is whole, the file is never changed by us."""
    path = tmp_path / "live.sqlite"
    proc = subprocess.Popen([sys.executable, "-m", "controller", "simulate", "--devices", "none",
                             "--headless", "--quiet", "--journal", str(path), "--seats", "4"],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while _snapshots(path) < 1:  # the table has started and written its first snapshot
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "the table never started"
            time.sleep(0.01)
        seen = []
        for _ in range(2):
            target = _snapshots(path) + 2
            deadline = time.monotonic() + 60
            while _snapshots(path) < target:  # polling the file for progress, not a timing assumption
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                assert time.monotonic() < deadline, "the table made no progress"
                time.sleep(0.01)
            out = subprocess.run([sys.executable, "-m", "controller", "history", "--journal", str(path),
                                  "--hands", "2", "--json"], cwd=REPO, capture_output=True, text=True,
                                 timeout=60)
            assert out.returncode == 0, out.stderr
            hands = json.loads(out.stdout)["hands"]
            done = [h for h in hands if not h["in_progress"]]
            assert len(done) == 2 and done[1]["hand"] == done[0]["hand"] + 1
            for h in done:
                assert sum(s["end"] for s in h["seats"]) + h["rake"] == sum(s["start"] for s in h["seats"])
            seen.append(done[-1]["hand"])
        assert seen == sorted(seen) and seen[0] < seen[-1]  # the table moved on meanwhile
    finally:
        proc.kill()
        proc.wait(10)


@pytest.mark.parametrize("kind", ["missing", "garbage", "empty-db", "other-db"])
def test_bad_or_missing_journal_exits_2_with_a_message(tmp_path: Path, kind: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.sqlite"
    if kind == "garbage":
        path.write_bytes(b"this is not a database" * 100)
    elif kind == "empty-db":
        path.write_bytes(b"")
    elif kind == "other-db":
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE t(x)")
        db.commit()
        db.close()
    rc = history_cli.main(["--journal", str(path)])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.startswith("livetable history: ") and str(path) in err
    assert "Traceback" not in err


def test_broken_event_and_unknown_hand_are_clear_errors(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "j.sqlite"
    table = Table(path, _settings(), seats=[1, 2, 3], seed=1)
    table.play(2)
    table.close()
    with pytest.raises(HistoryError, match="hand 9 is not in the journal") as raised:
        recall(path, hand=9)
    assert str(raised.value).endswith("(the last hand is 2)"), str(raised.value)
    db = sqlite3.connect(path)
    last = db.execute("SELECT MAX(seq) FROM events").fetchone()[0]
    db.execute("INSERT INTO events(seq, at, kind, payload) VALUES(?, 0, 'table', '{\"kind\": \"no-such\"}')",
               (last + 1,))
    db.commit()
    db.close()
    assert history_cli.main(["--journal", str(path)]) == 2
    assert f"journal event {last + 1}" in capsys.readouterr().err
    assert history_cli.main(["--journal", str(path), "--hands", "0"]) == 2


def test_recall_never_changes_the_journal(tmp_path: Path) -> None:
    """The journal is opened read-only: its bytes are the same after the recall and the CLI."""
    path = tmp_path / "room 7 #2?.sqlite"  # characters a SQLite URI must escape
    table = Table(path, _settings(), seats=[1, 2, 3], seed=2)
    table.play(3)
    table.close()
    before = path.read_bytes()
    assert [h.number for h in recall(path, hands=5).hands] == [1, 2, 3]
    assert history_cli.main(["--journal", str(path), "--hands", "3"]) == 0
    assert path.read_bytes() == before


def test_first_hand_in_progress_needs_the_settings(tmp_path: Path) -> None:
    """A journal still in its first hand has no snapshot: the settings must be given."""
    path = tmp_path / "j.sqlite"
    settings = _settings()
    table = Table(path, settings, seats=[1, 2, 3], seed=1)
    table.play_until(lambda o: o.state.hand is not None and len(o.state.hand.events) > 6)
    with pytest.raises(HistoryError, match="--config"):
        recall(path)
    h = recall(path, settings=settings).hands[0]
    assert h.number == 1 and h.in_progress and h.paused is None
    table.close()


def test_refused_actions_and_seat_changes_are_noted(tmp_path: Path) -> None:
    """A player's refused action (with its rule) and a lost tablet are in the hand's steps."""
    from controller.engine.table import events as ev

    path = tmp_path / "j.sqlite"
    table = Table(path, _settings(), seats=[1, 2], humans=[3], seed=8)
    table.play_until(lambda o: o.state.hand is not None and o.state.hand.seat_to_act == 3
                     and o.state.timer is not None and o.state.hand.legal().raise_ is not None)
    low = table.orch.state.hand.legal().raise_[0] - 1
    table.orch.handle(ev.ActionTaken(at=table.clock(), seat=3, action="raise", amount=low, seq=None))
    table.orch.handle(ev.TabletDisconnected(at=table.clock(), seat=3))
    h = recall(path, settings=_settings()).hands[-1]
    refused = [st for st in h.steps if st.kind == "note" and st.data.get("event") == "action-taken"]
    assert refused and refused[0].seat == 3 and refused[0].data["rule"] == "S-4"
    assert f"tried to raise {low}: refused (S-4" in refused[0].text
    assert any(st.data.get("event") == "tablet-disconnected" and st.seat == 3 for st in h.steps)
    table.close()


def test_text_times_are_local_or_utc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The floor reads the card room's clock (the machine's zone, named); ``--utc`` gives UTC."""
    import time as _time

    from controller.history import format_hand

    path = tmp_path / "j.sqlite"
    table = Table(path, _settings(), seats=[1, 2, 3], seed=2)
    table.play(1)
    table.close()
    h = recall(path).hands[0]
    monkeypatch.setenv("TZ", "Europe/Oslo")
    _time.tzset()
    try:
        local = format_hand(h).splitlines()
        utc = format_hand(h, utc=True).splitlines()
    finally:
        monkeypatch.undo()
        _time.tzset()
    assert local[1].endswith("2027-01-15 09:00:00 CET")  # ManualClock starts 2027-01-15 08:00:00 UTC
    assert utc[1].endswith("2027-01-15 08:00:00 UTC")
    first_step = next(line for line in utc if "posts the small blind" in line)
    assert first_step.strip().startswith("08:00:")
