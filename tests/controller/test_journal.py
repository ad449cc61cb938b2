"""The journal: durable appends, snapshots, replay order, checks (issue 9)."""

from __future__ import annotations

import sqlite3

import pytest

from controller.journal import Journal, JournalError


def test_appends_survive_reopen_in_order(tmp_path):
    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        for i in range(5):
            assert j.append("action", {"i": i}, at=100.0 + i) == i + 1
    with Journal(path) as j:
        entries = list(j.entries())
        assert [e.payload["i"] for e in entries] == [0, 1, 2, 3, 4]
        assert [e.seq for e in entries] == [1, 2, 3, 4, 5]
        assert j.last_seq == 5
        assert j.append("action", {"i": 5}, at=0) == 6


def test_snapshot_and_events_after(tmp_path):
    with Journal(tmp_path / "j.sqlite") as j:
        j.append("a", {}, 1)
        j.append("b", {}, 2)
        j.snapshot({"hand": 1}, at=2)
        j.append("c", {}, 3)
        upto, state = j.latest_snapshot()
        assert (upto, state) == (2, {"hand": 1})
        assert [e.kind for e in j.entries(after=upto)] == ["c"]
        assert [e.kind for e in j.entries(kinds=("a", "c"))] == ["a", "c"]


def test_check_reports_gap_and_bad_payload(tmp_path):
    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        for i in range(3):
            j.append("x", {"i": i}, i)
        assert j.check() == []
    db = sqlite3.connect(path)
    db.execute("DELETE FROM events WHERE seq = 2")
    db.execute("UPDATE events SET payload = 'not json' WHERE seq = 3")
    db.commit()
    db.close()
    with Journal(path) as j:
        problems = j.check()
    assert any("seq 2 missing" in p for p in problems)
    assert any("event 3" in p for p in problems)


def test_not_a_journal_is_a_clear_error(tmp_path):
    path = tmp_path / "garbage.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(JournalError, match="garbage.sqlite"):
        Journal(path)


def test_unserialisable_payload_is_refused_and_not_recorded(tmp_path):
    with Journal(tmp_path / "j.sqlite") as j:
        with pytest.raises(TypeError):
            j.append("x", {"bad": object()}, 0)
        assert j.last_seq == 0
        assert list(j.entries()) == []


def test_one_controller_per_journal(tmp_path):
    path = tmp_path / "j.sqlite"
    with Journal(path):
        with pytest.raises(JournalError, match="in use by pid"):
            Journal(path)
    with Journal(path) as again:  # released on close
        assert again.last_seq == 0


def test_an_empty_file_is_not_a_fresh_table(tmp_path):
    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        j.append("x", {}, 0)
    path.write_bytes(b"")
    with pytest.raises(JournalError, match="empty file"):
        Journal(path)


def test_unwritable_folder_is_a_journal_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(JournalError):
        Journal(blocker / "sub" / "j.sqlite")
