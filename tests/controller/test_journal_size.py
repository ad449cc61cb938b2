"""Issue 21: what the journal stores per hand, and what start-up reads of it."""

from __future__ import annotations

import json
import sqlite3

from controller.engine.table import events as ev
from controller.engine.table.codec import from_json, to_json
from controller.engine.table.settings import TableSettings
from controller.history import recall
from controller.journal import FORMAT_VERSION, Journal
from controller.journal_check import problems
from controller.orchestrator import SNAPSHOT_EVERY

from tests.controller.test_history_support import Table

SETTINGS = TableSettings(id="size", name="Size", seats=4, small_blind=50, big_blind=100)


def _rows(path) -> list[tuple[int, float, str, str]]:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT seq, at, kind, payload FROM events ORDER BY seq").fetchall()
    finally:
        db.close()


def test_an_event_field_at_its_default_is_left_out_and_comes_back():
    call = ev.ActionTaken(at=5.5, seat=2, action="call", seq=7)
    short = to_json(call, defaults=False)
    assert short == {"kind": "action-taken", "at": 5.5, "seat": 2, "action": "call", "seq": 7}
    assert from_json(short) == call
    # A value that only looks like the default (0 chips, not None) is kept.
    bet = ev.ActionTaken(at=5.5, seat=2, action="bet", amount=0, seq=7)
    assert to_json(bet, defaults=False)["amount"] == 0
    assert from_json(to_json(bet, defaults=False)) == bet


def test_a_table_event_is_stored_without_its_time_and_read_with_it(tmp_path):
    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        j.append("table", {"kind": "card-dealt", "card": "As", "at": 1800000000.25}, 1800000000.25)
        j.append("table", {"kind": "card-dealt", "card": "Kd", "at": 3.0}, 4.0)  # not the row's: kept
        j.append("fault-raised", {"kind": "misread", "message": "m", "at": 9.0}, 9.0)  # not a table event
        got = [(e.kind, e.payload) for e in j.entries()]
    assert got == [("table", {"kind": "card-dealt", "card": "As", "at": 1800000000.25}),
                   ("table", {"kind": "card-dealt", "card": "Kd", "at": 3.0}),
                   ("fault-raised", {"kind": "misread", "message": "m", "at": 9.0})]
    stored = [json.loads(r[3]) for r in _rows(path)]
    assert "at" not in stored[0] and stored[1]["at"] == 3.0 and stored[2]["at"] == 9.0


def test_a_format_1_journal_reads_as_it_is_and_becomes_the_current_format(tmp_path):
    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        j.append("x", {"i": 1}, 1.0)
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = '1' WHERE key = 'format'")
    db.execute("INSERT INTO events VALUES (2, 2.0, 'table', ?)",
               (json.dumps({"kind": "card-dealt", "card": "As", "at": 2.0}),))
    db.commit()
    db.close()
    with Journal(path) as j:
        assert j.meta("format") == str(FORMAT_VERSION) == "3"
        assert [e.payload for e in j.entries(after=1)] == [{"kind": "card-dealt", "card": "As", "at": 2.0}]


def test_the_table_snapshots_every_n_hands_and_recall_and_recovery_are_unchanged(tmp_path):
    hands = SNAPSHOT_EVERY + 3
    t = Table(tmp_path / "j.sqlite", SETTINGS, seats=[1, 2, 3, 4], seed=4)
    t.orch.snapshot_every = SNAPSHOT_EVERY  # what livetable run does (the test table snapshots every hand)
    t.orch._snapshot(t.clock())  # noqa: SLF001 - as open_table does on a fresh journal
    records = t.play(hands)
    index = t.journal.snapshot_index()
    assert [h for _u, h, _b in index] == [0, SNAPSHOT_EVERY]
    assert problems(t.journal) == [] and problems(t.journal, full=False) == []
    # recovery replays the hands after the newest snapshot: the live table, chip for chip
    from controller.orchestrator import Orchestrator

    again = Orchestrator.recover(t.journal, lambda: None, clock=t.clock)
    assert again.state.to_json() == t.orch.state.to_json()
    # the floor's recall rebuilds every hand from the snapshot before it
    got = recall(t.journal.path, hands=hands).hands
    assert [h.number for h in got] == list(range(1, hands + 1))
    last = {r["hand"]: r for r in records}  # a winner's show after the hand writes its record again (P-2)

    def same(r: dict) -> dict:
        return json.loads(json.dumps(r, sort_keys=True))

    assert [same(h.record) for h in got] == [same(last[n]) for n in range(1, hands + 1)]


def _journal_with_snapshots(path, hands: int = 3) -> Journal:
    j = Journal(path)
    j.snapshot({"table": {"hands": 0, "hand": None}}, 0.0)
    for h in range(1, hands + 1):
        for i in range(4):
            j.append("x", {"i": i}, float(h))
        j.snapshot({"table": {"hands": h, "hand": None}}, float(h))
    return j


def test_the_start_up_check_reads_what_start_up_replays_and_the_full_check_everything(tmp_path):
    path = tmp_path / "j.sqlite"
    _journal_with_snapshots(path).close()  # events 1..12, snapshots at 0, 4, 8, 12
    db = sqlite3.connect(path)
    db.execute("UPDATE events SET payload = 'not json' WHERE seq = 2")  # an old hand's event
    db.commit()
    db.close()
    with Journal(path) as j:
        assert j.check(full=False) == []  # start-up replays from the snapshot at 8 on
        assert any("event 2" in p for p in j.check())
    db = sqlite3.connect(path)
    db.execute("UPDATE events SET payload = '[1]' WHERE seq = 10")
    db.execute("DELETE FROM events WHERE seq = 11")
    db.commit()
    db.close()
    with Journal(path) as j:
        found = j.check(full=False)
        assert any("event 10" in p for p in found) and any("seq 11 missing" in p for p in found)
    db = sqlite3.connect(path)
    db.execute("DELETE FROM events WHERE seq = 1")  # the journal's first event: checked whatever the window
    db.commit()
    db.close()
    with Journal(path) as j:
        assert any("seq 1 missing" in p for p in j.check(full=False))


def test_a_compacted_journal_gives_its_pages_back_in_steps_and_the_file_shrinks(tmp_path):
    from controller.compaction import JournalKeeper
    from controller.orchestrator import Orchestrator

    t = Table(tmp_path / "j.sqlite", SETTINGS, seats=[1, 2, 3, 4], seed=4)
    t.orch._snapshot(t.clock())  # noqa: SLF001 - as open_table does on a fresh journal
    t.play(40)
    j = t.journal
    j._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # noqa: SLF001 - the file as the disk holds it
    before = (tmp_path / "j.sqlite").stat().st_size
    keeper = JournalKeeper(j, keep_hands=5, history_dir=tmp_path / "hands", max_hands_per_run=1000)
    assert keeper.run() is not None
    free, _ = j.free_pages()
    assert free > 20, "compaction freed no pages: the test proves nothing"
    keeper.vacuum_pages = 8
    left = [keeper.shrink() for _ in range(free // 8 + 2)]
    assert left[0] == free - 8 and left[-1] == 0 and left == sorted(left, reverse=True)
    j._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # noqa: SLF001
    assert (tmp_path / "j.sqlite").stat().st_size <= before - free * 4096 * 0.9
    assert j.check() == []
    again = Orchestrator.recover(j, lambda: None, clock=t.clock)
    assert again.state.to_json() == t.orch.state.to_json()  # chips and all, as before


def test_compaction_reaches_the_next_snapshot_when_snapshots_are_farther_apart_than_a_run(tmp_path):
    from controller.compaction import JournalKeeper

    t = Table(tmp_path / "j.sqlite", SETTINGS, seats=[1, 2, 3, 4], seed=4)
    t.orch.snapshot_every = 20
    t.orch._snapshot(t.clock())  # noqa: SLF001 - as open_table does on a fresh journal
    t.play(40)
    keeper = JournalKeeper(t.journal, keep_hands=5, history_dir=tmp_path / "hands", every=5, max_hands_per_run=5)
    done = keeper.run()
    assert done is not None and (done.first, done.last) == (1, 20)
    assert keeper.run() is None  # the next snapshot (40) is within the last 5 hands


def test_a_restart_does_not_put_the_next_snapshot_off(tmp_path):
    t = Table(tmp_path / "j.sqlite", SETTINGS, seats=[1, 2, 3, 4], seed=4)
    t.orch.snapshot_every = 20
    t.orch._snapshot(t.clock())  # noqa: SLF001 - as open_table does on a fresh journal
    t.play(15)
    t.orch.hands_finished = 0  # a restart: the process counts its hands from 0 again
    t.play(15)
    assert t.orch.state.hands >= 30
    assert [h for _u, h, _b in t.journal.snapshot_index()] == [0, 20]


def test_every_short_name_of_format_3_is_no_long_name_and_no_two_alike():
    """Issue 21, format 3: a short key or kind could otherwise be read as another field."""
    import controller.engine.table.effects  # noqa: F401 - every event and effect registered
    from controller.engine.table.codec import (_FIELDS, KINDS, SHORT_ACTIONS, SHORT_KEYS, SHORT_KINDS,
                                               SHORT_UNNAMED)

    names = {n for f in _FIELDS.values() for n in f}
    assert not set(SHORT_KEYS.values()) & (names | {"kind"}) and len(set(SHORT_KEYS.values())) == len(SHORT_KEYS)
    assert not set(SHORT_KINDS.values()) & set(KINDS) and len(set(SHORT_KINDS.values())) == len(SHORT_KINDS)
    assert set(SHORT_KINDS) <= set(KINDS) and set(SHORT_UNNAMED) <= set(KINDS)
    assert not set(SHORT_UNNAMED) & set(SHORT_KINDS)
    # each kind stored without "k" has a field only it has among them (how lengthen tells them apart)
    assert {k: SHORT_KEYS[n] for k, n in (("action-taken", "action"), ("card-dealt", "card"))} == SHORT_UNNAMED
    assert "card" not in _FIELDS[KINDS["action-taken"]] and "action" not in _FIELDS[KINDS["card-dealt"]]
    assert set(SHORT_ACTIONS) == set(ev.ACTIONS) and len(set(SHORT_ACTIONS.values())) == len(ev.ACTIONS)


EVENTS = [ev.ActionTaken(at=5.5, seat=10, action="call", seq=199),
          ev.ActionTaken(at=5.5, seat=2, action="draw", discards=("As", "Kd"), seq=3, action_id="t-1"),
          ev.ActionTaken(at=6.0, seat=3, action="raise", amount=600),
          ev.CardDealt(at=5.5, card="As"), ev.BoughtIn(at=5.5, seat=1, amount=2000),
          ev.HandStartRequested(at=5.5), ev.PlayerSatDown(at=5.5, seat=4, player="p4"),
          ev.TimerExpired(at=5.5, timer="action", seq=9)]


def test_a_table_event_is_stored_with_short_names_and_read_with_the_long_ones(tmp_path):
    """Issue 21, format 3: {"a":"c","q":199,"s":10} for a call (60 bytes in format 2), {"c":"As"}
    for a card (33)."""
    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        for e in EVENTS:
            j.append("table", to_json(e, defaults=False), 5.5)
        got = [from_json(e.payload) for e in j.entries()]
    assert got == EVENTS
    stored = [r[3] for r in _rows(path)]
    assert stored[0] == '{"a":"c","q":199,"s":10}'
    assert stored[3] == '{"c":"As"}'
    assert all('"kind"' not in text for text in stored)
    assert sum(map(len, stored)) < 220  # 408 bytes in format 2


def test_a_format_2_journal_reads_as_it_is_beside_format_3_rows_for_recall_and_compaction(tmp_path):
    """An older journal's rows keep their long names; the rows appended after its first open
    by this livetable have the short ones: every reader sees the same events (recovery, the
    compaction's chain check by SQL)."""
    from controller.compaction import _table_events

    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        j.append("x", {"i": 1}, 1.0)
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = '2' WHERE key = 'format'")
    for seq, e in enumerate(EVENTS, 2):
        old = to_json(e, defaults=False)
        if old["at"] == 5.5:  # as format 2 stored it: without the row's time
            del old["at"]
        db.execute("INSERT INTO events VALUES (?, 5.5, 'table', ?)", (seq, json.dumps(old)))
    db.commit()
    db.close()
    with Journal(path) as j:
        assert j.meta("format") == "3"
        for e in EVENTS:
            j.append("table", to_json(e, defaults=False), 5.5)
        got = [from_json(e.payload) for e in j.entries(kinds=("table",))]
        assert got == EVENTS + EVENTS
        picked = _table_events(j, 0, j.last_seq, ("action-taken", "bought-in", "player-sat-down"))
    n = len(EVENTS)
    want = [(s, e.kind, getattr(e, "seat", None)) for s, e in enumerate(EVENTS, 2)
            if e.kind in ("action-taken", "bought-in", "player-sat-down")]
    assert picked == want + [(s + n, k, seat) for s, k, seat in want]


def test_a_full_table_journals_its_hands_in_fewer_bytes(tmp_path):
    """Issue 21: the table events a hand at 10 seats stores, every seat in every hand (the
    bench's table, seeded: the same hands every run). Format 2 stored 3,330 bytes of payload a
    hand here (and some 1,650 bytes of rows around it), format 3 some 1,300."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import bench_journal

    path = tmp_path / "j.sqlite"
    hands = 30
    bench_journal.build(path, hands, None, seats=10)
    db = sqlite3.connect(path)
    try:
        rows, payload = db.execute("SELECT COUNT(*), SUM(LENGTH(payload)) FROM events WHERE kind = 'table'").fetchone()
    finally:
        db.close()
    assert rows / hands > 60  # ten players in every hand: the test measures a full table
    assert payload / hands < 1800


def test_a_new_journal_keeps_its_meta_without_a_page_of_index(tmp_path):
    """Issue 21: ``meta`` WITHOUT ROWID: a new journal's file is 5 pages, not 6 (the schema,
    auto_vacuum's pointer map, meta, events, snapshots; a short tournament's journal is a few
    dozen pages); an older journal's ``meta`` reads as before."""
    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        j.append("x", {"i": 1}, 1.0)
    db = sqlite3.connect(path)
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master")]
        pages = db.execute("PRAGMA page_count").fetchone()[0]
    finally:
        db.close()
    assert "sqlite_autoindex_meta_1" not in names and pages == 5, (names, pages)
    old = tmp_path / "old.sqlite"
    db = sqlite3.connect(old)
    db.executescript("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                     "INSERT INTO meta VALUES ('format', '2');")
    db.close()
    with Journal(old) as j:
        j.set_meta("x", "1")
        assert (j.meta("format"), j.meta("x")) == ("3", "1")
