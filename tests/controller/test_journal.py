"""The journal: durable appends, snapshots, replay order, checks (issue 9)."""

from __future__ import annotations

import os
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


def test_mark_follows_every_commit_and_a_mark_behind_is_caught_up(tmp_path):
    """A power cut between a commit and its mark leaves the mark behind: that is no damage."""
    from controller.journal import Mark, mark_path, read_mark

    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        for i in range(3):
            j.append("x", {"i": i}, i)
            assert read_mark(path).seq == i + 1  # written after each commit, before the next
        j.snapshot({"table": {"hands": 4}}, at=3)
        assert read_mark(path) == Mark(3, 4)
    with open(mark_path(path), "r+b") as fh:
        fh.write(Mark(2, 4).encode())
    with Journal(path) as j:
        assert j.damage == [] and j.check() == []
        assert read_mark(path) == Mark(3, 4)


def test_mark_ahead_of_the_journal_is_damage_and_nothing_is_written(tmp_path):
    from controller.journal import Mark, mark_path, read_mark

    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        j.append("x", {}, 0)
    with open(mark_path(path), "r+b") as fh:
        fh.write(Mark(9, 2).encode())
    with Journal(path) as j:
        assert any("committed events 2..9 are missing" in p for p in j.check())
        with pytest.raises(JournalError, match="until the floor accepts"):
            j.append("x", {}, 1)
        with pytest.raises(JournalError):
            j.snapshot({}, 1)
    assert read_mark(path) == Mark(9, 2)  # the evidence is kept
    with Journal(path) as j:
        with pytest.raises(ValueError):
            j.accept(by=" ", reason="", at=0)
        assert j.accept(by="floor:Anna", reason="test", at=5) == 2
        assert j.append("x", {}, 6) == 3
    assert read_mark(path).seq == 3


def test_journal_from_before_marks_gets_one_but_a_lost_mark_is_damage(tmp_path):
    from controller.journal import mark_path, read_mark

    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        j.append("x", {}, 0)
    os.remove(mark_path(path))
    db = sqlite3.connect(path)
    db.execute("DELETE FROM meta WHERE key = 'mark'")  # as an older livetable left it
    db.commit()
    db.close()
    with Journal(path) as j:
        assert j.damage == []
    assert read_mark(path).seq == 1
    os.remove(mark_path(path))
    with Journal(path) as j:
        assert any("mark" in p and "missing" in p for p in j.damage)


def test_payload_or_snapshot_not_an_object_is_reported(tmp_path):
    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        j.append("x", {}, 0)
        j.snapshot({"table": {}}, 0)
    db = sqlite3.connect(path)
    db.execute("UPDATE events SET payload = '[1]'")
    db.execute("UPDATE snapshots SET state = '\"text\"'")
    db.commit()
    db.close()
    with Journal(path) as j:
        problems = j.check()
        assert any("event 1" in p and "object" in p for p in problems)
        assert any("snapshot at event 1" in p for p in problems)
        with pytest.raises(JournalError, match="not a table state"):
            j.latest_snapshot()
        with pytest.raises(JournalError, match="not a JSON object"):
            list(j.entries())
