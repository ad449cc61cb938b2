"""The multi-table tournament through the room (issue 19): ``livetable room simulate --tournament``.

Real brokers (the room's and each table's, bridged), the room service and its store, each
table a real ``livetable simulate --tournament --tournament-room`` process at full speed.
Every move the room journalled is checked here against the TDA rules with this file's own
reading of them (not balancing.py's): TDA 11A/11C for balancing, TDA 10 for breaks in the set
order, the final table redraw; every move's chips against both tables' journals; TDA 23 (each
hand played the stakes of its ``go``); places, payouts and the prize pool; and the tables'
ledgers in the room's store against the chips in play. Kill -9 of a table in a move and of the
room mid-tournament; the soak (100+ kills) is ``slow``.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from room.store import open_store
from tests.room.conftest import _empty_pg

REPO = Path(__file__).resolve().parents[2]
STACK, PRICE = 2000, 100  # room/tournament_sim.py ROOM_TOML


def run_room(tmp_path: Path, tables: int, entries: int, seed: int, *, store: str | None = None,
             env: dict[str, str] | None = None, timeout: float = 400) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "controller.cli", "room", "simulate", "--tournament", "--tables", str(tables),
           "--entries", str(entries), "--headless", "--seed", str(seed), "--dir", str(tmp_path / "room"),
           "--speed", "30", "--tournament-timeout", str(timeout - 60)]
    if store:
        cmd += ["--store", store]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=REPO,
                         env=dict(os.environ, PYTHONPATH=str(REPO), **(env or {})))
    assert out.stdout.strip(), out.stderr[-3000:]
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    summary["_stderr"] = out.stdout + out.stderr
    return summary


def room_events(store_url: str) -> list[tuple[str, dict[str, Any]]]:
    store = open_store(store_url)
    try:
        return [(k, json.loads(p)) for k, p in store.query("SELECT type, payload FROM room_tournament ORDER BY id")]
    finally:
        store.close()


def table_events(journal: Path) -> list[dict[str, Any]]:
    with sqlite3.connect(journal) as db:
        return [json.loads(p) for (p,) in db.execute("SELECT payload FROM events WHERE kind = 'tournament' "
                                                      "ORDER BY seq")]


# ---------------------------------------------------------------------- the TDA rules, read here
def clockwise(seats: list[str | None], last_bb: int | None) -> list[int]:
    """Seats in the order they reach the big blind: after the last big blind, that seat last."""
    n = len(seats)
    start = last_bb or n
    return [(start + d - 1) % n + 1 for d in range(1, n + 1)]


def check_balance_move(views: dict[str, dict[str, Any]], m: dict[str, Any], break_order: list[str]) -> None:
    """TDA 11A: the player to be the big blind next leaves; he takes the empty seat that will be
    the big blind soonest (never the next small blind's while another is open). TDA 11C: from
    the fullest table (first to break among them) to the shortest (last to break among them)."""
    counts = {t: sum(p is not None for p in v["seats"]) for t, v in views.items()}
    src, dst = views[m["from"]], views[m["to"]]
    assert counts[m["from"]] == max(counts.values()), (m, counts)
    assert counts[m["to"]] == min(counts.values()), (m, counts)
    fullest = [t for t in break_order if t in counts and counts[t] == max(counts.values())]
    shortest = [t for t in break_order if t in counts and counts[t] == min(counts.values())]
    assert m["from"] == fullest[0] and m["to"] == shortest[-1], (m, counts)
    next_bb = next(s for s in clockwise(src["seats"], src["last_big_blind"]) if src["seats"][s - 1] is not None)
    assert m["from_seat"] == next_bb and src["seats"][next_bb - 1] == m["player"], (m, src)
    empty = [s for s in clockwise(dst["seats"], dst["last_big_blind"]) if dst["seats"][s - 1] is None]
    assert m["to_seat"] == empty[0], (m, dst)


def apply_move(views: dict[str, dict[str, Any]], m: dict[str, Any]) -> None:
    if m["from"]:
        assert views[m["from"]]["seats"][m["from_seat"] - 1] == m["player"]
        views[m["from"]]["seats"][m["from_seat"] - 1] = None
    assert views[m["to"]]["seats"][m["to_seat"] - 1] in (None, m["player"]) or m["reason"].endswith("redraw")
    views[m["to"]]["seats"][m["to_seat"] - 1] = m["player"]


def check_rounds(events: list[tuple[str, dict[str, Any]]], tables: list[str]) -> dict[str, int]:
    """Every round of moves against TDA 10, 11 and the final redraw; return counts by reason."""
    break_order = list(reversed(tables))
    broken: list[str] = []
    counts: dict[str, int] = {}
    for kind, p in events:
        if kind != "round":
            continue
        if not p["tables"]:  # TDA 7: the random draw, tables within one player of each other
            sizes = [sum(m["to"] == t for m in p["moves"]) for t in tables]
            assert max(sizes) - min(sizes) <= 1 and all(m["reason"] == "draw" for m in p["moves"])
            assert len({(m["to"], m["to_seat"]) for m in p["moves"]}) == len(p["moves"])
            counts["draw"] = len(p["moves"])
            continue
        views = {v["table"]: {"seats": list(v["seats"]), "last_big_blind": v["last_big_blind"]} for v in p["tables"]}
        players = {x for v in views.values() for x in v["seats"] if x}
        moves = p["moves"]
        assert len({m["player"] for m in moves}) == len(moves), "a player moved twice in one round"
        for m in moves:
            counts[m["reason"]] = counts.get(m["reason"], 0) + 1
        breaking = sorted({m["from"] for m in moves if m["reason"].startswith("break")}, key=break_order.index)
        for t in breaking:  # TDA 10: tables break in the set order, every player of it moves
            live = [x for x in break_order if x in views and x not in broken]
            assert t == live[0], f"table {t} broke before {live[0]} (order {break_order})"
            broken.append(t)
            assert {m["player"] for m in moves if m["from"] == t} == {x for x in views[t]["seats"] if x}
        if any(m["reason"].endswith("redraw") for m in moves):  # the final table, redrawn
            assert {m["player"] for m in moves} == players and {m["to"] for m in moves} == {tables[0]}
            assert len({m["to_seat"] for m in moves}) == len(moves)
            continue
        before = [sum(x is not None for x in v["seats"]) for t, v in views.items() if t not in breaking]
        for m in moves:
            if m["reason"] == "balance":
                check_balance_move({t: v for t, v in views.items() if t not in breaking}, m, break_order)
            apply_move(views, m)
        after = [sum(x is not None for x in v["seats"]) for t, v in views.items() if t not in breaking]
        # the moves of tables still in a hand follow when they wait: the spread never grows
        assert max(after) - min(after) <= max(1, max(before) - min(before)), (before, after)
    return counts


def check_chips_of_moves(events: list[tuple[str, dict[str, Any]]], workdir: Path, tables: list[str]) -> int:
    """Every completed move: the chips its table journalled leaving = the chips the other
    journalled arriving = what the room journalled; return how many moves were checked."""
    out_chips: dict[int, int] = {}
    in_chips: dict[int, int] = {}
    for t in tables:
        for e in table_events(workdir / t / "journal.sqlite"):
            if e["type"] == "move-out":
                assert out_chips.setdefault(e["move"], e["chips"]) == e["chips"]
            elif e["type"] == "move-in":
                assert in_chips.setdefault(e["move"], e["chips"]) == e["chips"], "a move arrived twice"
    room = {p["move"]: p["chips"] for k, p in events if k == "moved-out"}
    arrived = {p["move"] for k, p in events if k == "moved-in"}
    moves = {m["id"]: m for k, p in events if k == "round" for m in p["moves"]}
    n = 0
    for mid in arrived:
        m = moves[mid]
        if not m["from"]:
            assert in_chips[mid] == STACK  # an entry: the starting stack (TDA 9)
            continue
        assert out_chips[mid] == in_chips[mid] == room[mid] > 0, (mid, out_chips.get(mid), in_chips.get(mid))
        n += 1
    cancelled = {p["move"] for k, p in events if k == "cancelled"}
    assert set(moves) == arrived | cancelled, "a move neither completed nor called off"
    return n


def check_levels(workdir: Path, tables: list[str]) -> int:
    """TDA 23: every hand played the stakes of the room's ``go`` for it."""
    n = 0
    for t in tables:
        given = {}
        for e in table_events(workdir / t / "journal.sqlite"):
            if e["type"] == "room-order" and e["order"]["go"]:
                given[e["order"]["go"]["hand"]] = e["order"]["go"]["stakes"]
        for f in (workdir / t / "hands").glob("hand-*.json"):
            rec = json.loads(f.read_text())
            if rec.get("voided"):
                continue
            want = dict(given[rec["hand"]])
            assert {k: rec["level"].get(k, 0) for k in want} == want, (t, rec["hand"])
            n += 1
    return n


def check_result(summary: dict[str, Any], entries: int, workdir: Path, tables: list[str], store_url: str) -> None:
    assert summary["ok"], (summary["problems"], summary["balanced"], summary["per_table"], summary["_stderr"][-3000:])
    assert sorted(summary["places"]) == sorted(f"p{n}" for n in range(1, entries + 1))
    assert summary["prize_pool"] == entries * PRICE == sum(summary["payouts"])
    assert summary["payouts"] == sorted(summary["payouts"], reverse=True) and summary["payouts"][0] > 0
    assert summary["checks"] > 0 and not summary["problems"]
    store = open_store(store_url)
    try:
        chips = {t: (store.table_row(t) or {}) for t in tables}
    finally:
        store.close()
    # the room's store replayed every table's journal: all the chips at the winner's table
    assert sum(r["total_in"] - r["total_out"] for r in chips.values()) == entries * STACK
    events = room_events(store_url)
    assert [k for k, _ in events].count("start") == 1
    assert [p["busted"] for k, p in events if k == "bust"]
    busted = [x for k, p in events if k == "bust" for x in p["busted"]]
    assert len(busted) == len(set(busted)) == entries - 1, "a player busted twice or never"
    assert summary["places"][0] not in busted


def test_tda_10_11_forty_entries_on_five_tables_through_the_room_to_a_winner(tmp_path: Path, pg_database: str) -> None:
    tables = [f"t{i}" for i in range(1, 6)]
    _empty_pg(pg_database)  # the session's database: another test's tournament (store_url) would be refused here
    summary = run_room(tmp_path, 5, 40, 5, store=pg_database)
    workdir = tmp_path / "room"
    check_result(summary, 40, workdir, tables, pg_database)
    assert summary["tables_broken"] == 4 and summary["moves"] > 0
    events = room_events(pg_database)
    reasons = check_rounds(events, tables)
    assert reasons.get("draw") == 40 and any(r.startswith("break") for r in reasons), reasons
    assert any(r.endswith("redraw") for r in reasons), reasons
    decided = [m["from"] for k, p in events if k == "round" for m in p["moves"] if m["reason"].startswith("break")]
    assert list(dict.fromkeys(decided)) == ["t5", "t4", "t3", "t2"]  # TDA 10: the set order
    assert sorted(p["table"] for k, p in events if k == "broken") == ["t2", "t3", "t4", "t5"]
    assert check_chips_of_moves(events, workdir, tables) == summary["moves"]
    assert check_levels(workdir, tables) == summary["hands"]


def test_twelve_entries_on_two_tables_through_the_room_to_a_winner(tmp_path: Path) -> None:
    """The normal suite's small tournament (the bubble with two tables left: hand-for-hand;
    tests/room/test_room_tournament_director.py checks its rule without processes)."""
    tables = ["t1", "t2"]
    summary = run_room(tmp_path, 2, 12, 3)
    check_result(summary, 12, tmp_path / "room", tables, str(tmp_path / "room" / "room.sqlite"))
    events = room_events(str(tmp_path / "room" / "room.sqlite"))
    check_rounds(events, tables)
    assert check_chips_of_moves(events, tmp_path / "room", tables) == summary["moves"]
    assert check_levels(tmp_path / "room", tables) == summary["hands"]


@pytest.mark.parametrize("point", ["move-out", "move-in"])
def test_a_table_killed_during_a_move_starts_again_with_nothing_lost_or_doubled(tmp_path: Path, point: str) -> None:
    tables = ["t1", "t2", "t3"]
    summary = run_room(tmp_path, 3, 20, 7, env={"LIVETABLE_TOURNAMENT_LINK_CRASH": f"{point}:1"})
    assert summary["table_restarts"], summary["_stderr"][-2000:]
    workdir = tmp_path / "room"
    check_result(summary, 20, workdir, tables, str(workdir / "room.sqlite"))
    events = room_events(str(workdir / "room.sqlite"))
    check_rounds(events, tables)
    assert check_chips_of_moves(events, workdir, tables) == summary["moves"]


def _children(pid: int) -> list[int]:
    kids: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids += [int(x) for x in (task / "children").read_text().split()]
        except OSError:
            pass
    return kids


def _wait_gone(pids: list[int], timeout: float) -> None:
    end = time.monotonic() + timeout
    for pid in pids:
        while Path(f"/proc/{pid}").exists() and time.monotonic() < end:
            try:
                if Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z":
                    break
            except OSError:
                break
            time.sleep(0.1)  # waiting for other processes to end, not synchronising the code under test


def kill_room_and_resume(tmp_path: Path, kill_at: str, seed: int) -> dict[str, Any]:
    """Start the room (12 entries, two tables), kill -9 it right after its store holds a
    ``kill_at`` event, wait for its tables and brokers to stop, start it again on the same
    folder; check the resumed tournament and return its summary."""
    tables = ["t1", "t2"]
    workdir = tmp_path / "room"
    db = workdir / "room.sqlite"
    cmd = [sys.executable, "-m", "controller.cli", "room", "simulate", "--tournament", "--tables", "2",
           "--entries", "12", "--headless", "--seed", str(seed), "--dir", str(workdir), "--speed", "30"]
    room = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO,
                            env=dict(os.environ, PYTHONPATH=str(REPO)))
    kids: list[int] = []
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and room.poll() is None:
            kids = sorted(set(kids) | set(_children(room.pid)))
            try:
                with sqlite3.connect(db, timeout=5) as c:
                    n = c.execute("SELECT COUNT(*) FROM room_tournament WHERE type = ?", (kill_at,)).fetchone()[0]
            except sqlite3.Error:
                n = 0
            if n >= 1:
                break
            time.sleep(0.05)  # polling another process's store
        assert room.poll() is None, "the room ended before it could be killed"
        kids = sorted(set(kids) | set(_children(room.pid)))
        room.send_signal(signal.SIGKILL)
        room.wait()
    finally:
        if room.poll() is None:
            room.kill()
    _wait_gone(kids, 90)  # its tables and brokers stop when their parent dies
    summary = run_room(tmp_path, 2, 12, seed)
    assert "resumed from the store" in summary["_stderr"]
    check_result(summary, 12, workdir, tables, str(db))
    events = room_events(str(db))
    assert [k for k, _ in events].count("entry") == 12  # nobody registered twice
    check_rounds(events, tables)
    assert check_chips_of_moves(events, workdir, tables) == summary["moves"]
    return summary


@pytest.mark.parametrize("kill_at", ["moved-out", "broken"])
def test_the_room_killed_mid_tournament_resumes_from_its_store(tmp_path: Path, kill_at: str) -> None:
    """kill -9 of the room right after it journalled a move's chips (the target not told yet),
    and after a table broke (that table's process, started again, has nothing left to deal)."""
    kill_room_and_resume(tmp_path, kill_at, 21)


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_soak_a_hundred_kills_of_tables_in_moves_and_of_the_room(tmp_path: Path) -> None:
    """kill -9 of tables at their n-th move-out or move-in (balances, breaks, the final redraw)
    until 100 kills, then of the room after each kind of its journal's events."""
    kills = 0
    tables = ["t1", "t2", "t3"]
    for n in range(1, 120):
        point = ("move-out", "move-in")[n % 2]
        root = tmp_path / str(n)
        summary = run_room(root, 3, 20, 100 + n, env={"LIVETABLE_TOURNAMENT_LINK_CRASH": f"{point}:{1 + n % 2}"})
        kills += len(summary["table_restarts"])
        check_result(summary, 20, root / "room", tables, str(root / "room" / "room.sqlite"))
        events = room_events(str(root / "room" / "room.sqlite"))
        check_rounds(events, tables)
        check_chips_of_moves(events, root / "room", tables)
        if kills >= 93:
            break
    for n, kill_at in enumerate(("entry", "round", "moved-out", "moved-in", "bust", "broken", "payouts")):
        kill_room_and_resume(tmp_path / f"room{n}", kill_at, 200 + n)
        kills += 1
    assert kills >= 100
