"""Run ``livetable simulate --tournament`` as a process and check its journal (issue 19).

:func:`simulate` starts ``python -m controller simulate --tournament --headless`` on a journal
file; :func:`replay` reads that journal afterwards, independently of the process: it steps
the table from its first snapshot through every table event and applies the tournament's
events to fresh :class:`~controller.tournament.results.Standings`, checking after every
event that the chips brought to the table (plus starting stacks journalled but not yet
bought in) equal the chips in play and that the table audits clean; it counts each
player's seatings, busts and the levels the hands played.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.engine.table.audit import audit
from controller.engine.table.codec import from_json as event_from_json
from controller.engine.table.state import TableState
from controller.engine.table.step import step
from controller.journal import payload_of
from controller.tournament.results import Standings
from controller.tournament.settings import load_settings

REPO = Path(__file__).resolve().parents[2]


def command(journal: Path, *, game: str = "holdem", seed: int = 1, seats: int | None = None,
            devices: str = "none", extra: tuple[str, ...] = ()) -> list[str]:
    """The ``livetable simulate --tournament`` command line for ``journal``."""
    limit = {"holdem": "no-limit", "omaha": "pot-limit", "draw": "fixed-limit"}[game]
    cmd = [sys.executable, "-m", "controller", "simulate", "--tournament", "--headless", "--quiet",
           "--devices", devices, "--game", game, "--limit", limit, "--seed", str(seed),
           "--journal", str(journal), "--table", "tourney", *extra]
    if seats is not None:
        cmd += ["--seats", str(seats)]
    return cmd


def simulate(journal: Path, *, crash: str | None = None, timeout: float = 120.0,
             **kw: Any) -> subprocess.CompletedProcess:
    """Run the simulation to its end (or to the ``crash`` point, ``"point:n"``)."""
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    env.pop("LIVETABLE_TOURNAMENT_CRASH", None)
    if crash:
        env["LIVETABLE_TOURNAMENT_CRASH"] = crash
    return subprocess.run(command(journal, **kw), cwd=REPO, capture_output=True, text=True,
                          timeout=timeout, env=env)


def summary_of(proc: subprocess.CompletedProcess) -> dict[str, Any]:
    """The JSON summary on the process's last line of output."""
    lines = proc.stdout.strip().splitlines()
    assert lines, f"no output (rc {proc.returncode}): {proc.stderr[-2000:]}"
    return json.loads(lines[-1])


@dataclass
class Replay:
    """What :func:`replay` found."""

    events: int = 0
    problems: list[str] = field(default_factory=list)
    seatings: Counter = field(default_factory=Counter)
    entries: Counter = field(default_factory=Counter)
    busts: list[dict[str, int]] = field(default_factory=list)
    levels: list[int] = field(default_factory=list)  # the big blind of every hand dealt
    result: dict[str, Any] | None = None
    standings: Standings | None = None
    hands: int = 0
    races: list[dict[str, Any]] = field(default_factory=list)
    compacted: bool = False  # the journal began at a clock snapshot's history (compaction)


def replay(journal: Path) -> Replay:
    """Replay ``journal`` (see the module docstring)."""
    out = Replay()
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        snap = db.execute("SELECT state FROM snapshots ORDER BY upto LIMIT 1").fetchone()
        rows = db.execute("SELECT seq, at, kind, payload FROM events ORDER BY seq").fetchall()
    finally:
        db.close()
    state = TableState.from_json(json.loads(snap[0])["table"])
    rejected = {int(payload_of(k, a, p)["seq"]) for _, a, k, p in rows if k == "rejected"}
    standings: Standings | None = None
    starting = 0
    held: tuple[dict[str, int], set[str]] | None = None  # a rebuy at the bust: busts, who may rebuy

    def unhold(player: str) -> None:
        """``player`` no longer waits to rebuy at the bust: once nobody does, place the hand."""
        nonlocal held
        assert held is not None and player in held[1], f"{player} did not wait to rebuy at the bust"
        held[1].discard(player)
        if not held[1]:
            busted, held = held[0], None
            if busted:
                standings.bust(busted)  # type: ignore[union-attr]
                out.busts.append(busted)

    def tournament_event(p: dict[str, Any]) -> None:
        """One tournament event, journalled or held in a compacted journal's history."""
        nonlocal standings, starting, held
        t = p["type"]
        if t == "start":
            ts = load_settings(p["settings"])
            standings, starting, held = Standings(ts), ts.starting_stack, None
            return
        if t == "payouts":
            out.result = p
        if standings is None or t not in ("entry", "bust", "race", "rebuy", "addon", "refund", "declined"):
            return
        if t == "entry":
            standings.register(p["player"], p["level"])
            out.entries[p["player"]] += 1
        elif t == "bust" and p.get("pending"):  # TFIX 7: placed once nobody of the hand may rebuy
            assert held is None, "a second hand held while one waits"
            held = (dict(p["busted"]), set(p["pending"]))
        elif t == "declined":
            unhold(p["player"])
        elif t == "bust":
            standings.bust(p["busted"])
            out.busts.append(p["busted"])
        elif t == "race":  # a colour-up's chip race: chips added or removed
            standings.adjust_chips(p["delta"])
            out.races.append(p)
        elif t == "rebuy":
            standings.rebuy(p["player"], int(p["level"]), int(p["stack"]))
            if p.get("bust") is not None:  # a rebuy at the bust: not placed
                assert held is not None
                held[0].pop(p["player"], None)
                unhold(p["player"])
        elif t == "addon":
            standings.addon(p["player"], int(p["after_level"]))
        else:
            standings.refund(p["player"], p["kind"])

    for seq, at, kind, text in rows:
        payload = payload_of(kind, at, text)
        if kind == "tournament":
            if payload["type"] == "clock":
                if standings is None and "history" in payload:
                    # a compacted journal: the clock snapshot holds the tournament so far
                    for h in payload["history"]:
                        tournament_event(h)
                    out.compacted = True
            else:
                tournament_event(payload)
        elif kind == "table" and seq not in rejected:
            event = event_from_json(payload)
            state, effects = step(state, event)
            out.events += 1
            if payload.get("kind") == "player-sat-down" and not any(
                    type(e).__name__ == "Refuse" for e in effects):
                out.seatings[payload["player"]] += 1
            if payload.get("kind") == "hand-start-requested" and state.hand is not None:
                out.levels.append(state.settings.big_blind)
                out.hands += 1
        else:
            continue
        if standings is not None:
            led = state.ledger
            waiting = sum(1 for p in standings.alive
                          if (a := led.accounts.get(p)) is None or a.bought_in == 0)
            if led.total_in + waiting * starting != standings.chips_in_play() or led.total_out or led.rake:
                out.problems.append(f"event {seq}: in {led.total_in} (+{waiting} stacks to come), out "
                                    f"{led.total_out}, rake {led.rake}; chips in play {standings.chips_in_play()}")
        out.problems.extend(f"event {seq}: {p}" for p in audit(state))
    out.standings = standings
    return out


def check_finished(journal: Path, summary: dict[str, Any], players: int) -> Replay:
    """Check a tournament that ended: every player entered, seated and placed once (a
    compacted journal: entered from its history, seated at most once), the payouts sum to the prize pool, busts of one hand placed by their starting stacks, the
    chips checked after every journalled event. Return the replay."""
    r = replay(journal)
    assert r.problems == [], r.problems[:5]
    everyone = {f"p{n}" for n in range(1, players + 1)}
    assert dict(r.entries) == {p: 1 for p in everyone}, r.entries  # nobody entered twice or dropped
    if r.compacted:  # the seatings before the compaction left the journal (its table snapshot holds them)
        assert set(r.seatings) <= everyone and set(r.seatings.values()) <= {1}, r.seatings
    else:
        assert dict(r.seatings) == {p: 1 for p in everyone}, r.seatings  # nobody seated twice
    assert summary["tournament"]["problems"] == [] and summary["invariant_errors"] == []
    assert sorted(summary["places"]) == sorted(everyone) and len(summary["places"]) == players
    assert len(summary["payouts"]) == players
    assert sum(summary["payouts"]) == summary["prize_pool"] == players * 100
    assert summary["payouts"] == sorted(summary["payouts"], reverse=True)
    assert r.result is not None and r.result["places"] == summary["places"]
    assert r.result["payouts"] == summary["payouts"]
    # busts: everyone but the winner once; one hand's busts placed by their starting stacks
    assert sorted(p for b in r.busts for p in b) == sorted(summary["places"][1:])
    place = {p: n for n, p in enumerate(summary["places"], 1)}
    for b in r.busts:
        for p in b:
            for q in b:
                if b[p] > b[q]:
                    assert place[p] < place[q], (b, summary["places"])
    return r
