"""A compacted tournament journal whose kept events begin with a ``bust`` reopens (breaker).

Compaction keeps everything from the newest ``clock`` entry holding the tournament's whole
``history`` (``TournamentTable.state_seq``), but it cuts at a between-hands table snapshot,
which comes before that entry: a hand's ``bust`` journalled after the hand's snapshot and
before the next deal's full clock entry stayed in the journal while the ``start`` left it.
The restart applied that bust to empty standings and ended in a traceback (exit 1:
``journal event 478: a tournament 'bust' event cannot be replayed: p4 has no live entry``).
The full entry's history already holds the bust: the replay skips what comes before it.
"""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
from pathlib import Path

import pytest

from controller.journal import Journal, JournalEntry
from controller.tournament.errors import TournamentError
from controller.tournament.settings import load_settings
from controller.tournament_run import SIM_TOML, TournamentTable

from .tourneyrun import simulate, summary_of

SEATS, SEED = 8, 21


def _cut(journal: Path) -> tuple[int, int, int]:
    """(snapshot, bust, full entry): a between-hands snapshot, a bust after it and the first
    clock entry with the history after the bust, none between the snapshot and the bust."""
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        snaps = [u for (u,) in db.execute(
            "SELECT upto FROM snapshots WHERE json_type(state, '$.table.hand') IS NULL "
            "OR json_type(state, '$.table.hand') = 'null' ORDER BY upto")]
        rows = [(s, json.loads(p)) for s, p in db.execute(
            "SELECT seq, payload FROM events WHERE kind = 'tournament' ORDER BY seq")]
    finally:
        db.close()
    full = [s for s, p in rows if p["type"] == "clock" and "history" in p]
    for seq, p in rows:
        if p["type"] != "bust":
            continue
        after = [f for f in full if f > seq]
        before = [u for u in snaps if 0 < u < seq and not any(u < f < seq for f in full)]
        if after and before:
            return before[-1], seq, after[0]
    raise AssertionError(f"no bust between a snapshot and a full clock entry: snapshots {snaps}, full {full}")


def test_a_compacted_journal_beginning_with_a_bust_reopens_with_the_same_result(tmp_path: Path) -> None:
    journal, hands = tmp_path / "journal.sqlite", tmp_path / "hands"
    keep = ("--keep-hands", "3", "--history-dir", str(hands))
    killed = simulate(journal, crash="payouts:1", seed=SEED, seats=SEATS, extra=keep)
    assert killed.returncode == -signal.SIGKILL, (killed.returncode, killed.stderr[-2000:])
    snap, bust, full = _cut(journal)
    whole = tmp_path / "whole"
    whole.mkdir()
    for f in tmp_path.glob(journal.name + "*"):  # with its -wal (the kill left it) and its mark
        shutil.copy(f, whole / f.name)
    shutil.copytree(hands, whole / "hands")

    j = Journal(journal)
    try:
        j.compact(snap)  # as the keeper cuts: the start left, the bust before the full entry stays
        kinds = [e.payload["type"] for e in j.entries() if e.kind == "tournament"]
        first = next(e.seq for e in j.entries() if e.kind == "tournament")
    finally:
        j.close()
    assert "start" not in kinds and first == bust < full, (snap, bust, full, first)

    reopened = simulate(journal, seed=SEED, seats=SEATS, extra=keep)
    assert reopened.returncode == 0, reopened.stderr[-3000:]
    plain = simulate(whole / journal.name, seed=SEED, seats=SEATS,
                     extra=("--keep-hands", "3", "--history-dir", str(whole / "hands")))
    assert plain.returncode == 0, plain.stderr[-3000:]
    got, want = summary_of(reopened), summary_of(plain)
    assert got["tournament"]["finished"] and got["tournament"]["problems"] == []
    assert got["invariant_errors"] == []
    assert sorted(got["places"]) == [f"p{n}" for n in range(1, SEATS + 1)]  # nobody dropped or placed twice
    for key in ("places", "payouts", "prize_pool"):
        assert got[key] == want[key], key
    assert got["tournament"]["chips_in_play"] == want["tournament"]["chips_in_play"]


class _Journal:
    """A journal's tournament events only, as :meth:`TournamentTable._replay` reads them."""

    def __init__(self, compacted_upto: int, payloads: list[dict]) -> None:
        self.compacted_upto = compacted_upto
        self._entries = [JournalEntry(compacted_upto + n, 0.0, "tournament", p)
                         for n, p in enumerate(payloads, 1)]

    def entries(self) -> list[JournalEntry]:
        return self._entries


BUST = {"type": "bust", "hand": 4, "level": 1, "busted": {"p2": 2000}}


def test_a_bust_before_any_start_or_full_entry_is_still_a_clear_error() -> None:
    table = TournamentTable(load_settings(SIM_TOML), SIM_TOML, players=4, seed=3)
    with pytest.raises(TournamentError, match="journal event 1: a tournament 'bust' event cannot be replayed"):
        table._replay(_Journal(0, [BUST]))  # not compacted: the start must come first
    table = TournamentTable(load_settings(SIM_TOML), SIM_TOML, players=4, seed=3)
    with pytest.raises(TournamentError, match="journal event 478: the journal was compacted and holds no"):
        table._replay(_Journal(477, [BUST, {"type": "clock", "clock": {}}]))  # the full entry is missing
