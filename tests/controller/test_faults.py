"""The fault state machine: pause, allowed exits, who decided (issue 9)."""

from __future__ import annotations

import pytest

from controller.faults import ALLOWED_EXITS, FaultBook, FaultError, FaultExit, FaultKind


def test_fault_pauses_until_its_exit():
    book = FaultBook().raise_fault("jam", "card jammed at seat 4", at=10.0)
    assert book.paused and book.current.kind is FaultKind.JAM
    book, ending = book.end("jam", "misdeal", by="dealer", at=12.5)
    assert not book.paused
    assert ending.to_json() == {
        "kind": "jam", "message": "card jammed at seat 4", "since": 10.0,
        "exit": "misdeal", "by": "dealer", "at": 12.5, "note": "",
    }


def test_same_kind_twice_keeps_first_and_oldest_is_shown():
    book = FaultBook().raise_fault("camera-lost", "a", 1).raise_fault("jam", "b", 2)
    book = book.raise_fault("camera-lost", "c", 3)
    assert [f.message for f in book.open] == ["a", "b"]
    book, _ = book.end("camera-lost", "resume", by="system", at=4)
    assert book.current.kind is FaultKind.JAM and book.paused


@pytest.mark.parametrize("kind", list(FaultKind))
def test_every_kind_has_exits_and_refuses_others(kind):
    book = FaultBook().raise_fault(kind, "x", 0)
    for exit in FaultExit:
        if exit in ALLOWED_EXITS[kind]:
            assert not book.end(kind, exit, by="floor", at=1)[0].paused
        else:
            with pytest.raises(FaultError, match=kind.value):
                book.end(kind, exit, by="floor", at=1)


def test_board_mismatch_needs_a_person():
    book = FaultBook().raise_fault("board-mismatch", "shuffler Jh 8c 3d, camera Jh 8c 3s", 0)
    with pytest.raises(FaultError, match="only a person"):
        book.end("board-mismatch", "correction", by="system", at=1)
    with pytest.raises(FaultError, match="who decided"):
        book.end("board-mismatch", "correction", by="", at=1)
    with pytest.raises(FaultError, match="no jam fault"):
        book.end("jam", "resume", by="dealer", at=1)
