"""An event of the wrong shape (issue 16, c): ``livetable history --check`` decodes every
event as the table does and names the first bad one; the table's refusal names it and tells
the floor what to do (exit 3); an event inside a voided hand is refused the same way; the
floor's accept sets it aside and the table starts."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from controller.engine.table.audit import audit
from controller.engine.table.settings import TableSettings
from controller.journal import Journal, payload_of
from controller.journal_check import JournalRefused, accept
from controller.runtime import open_table

REPO = Path(__file__).resolve().parents[2]
SIM = ["--devices", "none", "--headless", "--quiet", "--seed", "5", "--seats", "4"]


def _open(path: Path, *, resume: bool = True):
    return open_table(path, TableSettings(id="sim", seats=4), clock=lambda: 2e9,
                      can_resume=None if resume else (lambda orch: (False, "test: void it")))


@pytest.fixture(scope="module")
def voided(tmp_path_factory) -> Path:
    """A table killed in a hand (at its third action after event 300), then opened again with the hand voided."""
    folder = tmp_path_factory.mktemp("voided")
    path = folder / "j.sqlite"
    code = ("import os, controller.journal as j\n"
            "real, seen = j.Journal.append, []\n"
            "def append(self, *a, **k):\n"
            "    if self.last_seq >= 300 and a[0] == 'table' and a[1].get('kind') == 'action-taken':\n"
            "        seen.append(1)\n"
            "        if len(seen) == 3: os._exit(0)  # in the middle of a hand\n"
            "    return real(self, *a, **k)\n"
            "j.Journal.append = append\n"
            "from controller.simulate import main\n"
            f"main({[*SIM, '--journal', str(path), '--hands', '50']!r})\n")
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True, timeout=120, stdout=subprocess.DEVNULL)
    orch, rec = _open(path, resume=False)
    orch.journal.close()
    assert rec.outcome == "voided", rec
    return path


def _copy(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "t"
    shutil.copytree(src.parent, dst)
    return dst / src.name


def _voided_hand_action(path: Path) -> int:
    """The seq of an action inside the voided hand."""
    db = sqlite3.connect(path)
    rows = db.execute("SELECT seq, at, payload FROM events WHERE kind = 'table' ORDER BY seq").fetchall()
    db.close()
    kinds = [(s, payload_of("table", a, p)["kind"]) for s, a, p in rows]  # format 3 stores short names
    void = max(s for s, k in kinds if k == "hand-voided")
    start = max(s for s, k in kinds if k == "hand-start-requested" and s < void)
    return max(s for s, k in kinds if start < s < void and k == "action-taken")


def _edit(path: Path, seq: int, change) -> None:
    db = sqlite3.connect(path)
    at, text = db.execute("SELECT at, payload FROM events WHERE seq = ?", (seq,)).fetchone()
    # the event as appended, edited, written back with its long names (as a format-2 journal has them)
    db.execute("UPDATE events SET payload = ? WHERE seq = ?", (json.dumps(change(payload_of("table", at, text))), seq))
    db.commit()
    db.close()


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=120)


BAD = {
    "seat-not-a-number": lambda p: {**p, "seat": "x"},
    "unknown-field": lambda p: {**p, "bogus": 1},
    "field-missing": lambda p: {k: v for k, v in p.items() if k != "seat"},
}


@pytest.mark.parametrize("bad", list(BAD))
def test_a_voided_hands_bad_event_is_named_by_check_and_refused_by_the_table(bad, voided, tmp_path):
    path = _copy(voided, tmp_path)
    seq = _voided_hand_action(path)
    _edit(path, seq, BAD[bad])
    check = _cli("history", "--journal", str(path), "--check")
    assert check.returncode == 3, check.stdout + check.stderr
    assert f"event {seq} (table: action-taken) is of the wrong shape" in check.stdout
    with pytest.raises(JournalRefused) as refused:
        _open(path)
    text = str(refused.value)
    assert f"event {seq} (table: action-taken) is of the wrong shape" in text
    assert "--accept --by NAME" in text  # the floor's way on


def test_the_floor_sets_the_bad_event_aside_and_the_table_starts(voided, tmp_path):
    path = _copy(voided, tmp_path)
    seq = _voided_hand_action(path)
    _edit(path, seq, BAD["seat-not-a-number"])
    with Journal(path) as j:
        done = accept(j, by="floor:Anna", reason="hand-edited event", at=2e9)
    assert done["set_aside"] == [seq]
    assert _cli("history", "--journal", str(path), "--check").returncode == 0
    orch, rec = _open(path)
    try:
        assert audit(orch.state) == []  # the voided hand returned every wager: no chip lost
    finally:
        orch.journal.close()


def test_the_recall_skips_the_event_the_floor_set_aside_and_says_who_and_why(voided, tmp_path, capsys):
    """After ``--accept`` sets a bad event aside (a ``rejected`` event naming it), the recall
    replays past it as recovery does, and says where it was that the floor set it aside (who,
    why, what was wrong), once."""
    from controller.history import format_hand, recall
    from controller.history_cli import main as history

    path = _copy(voided, tmp_path)
    seq = _voided_hand_action(path)
    _edit(path, seq, BAD["seat-not-a-number"])
    with Journal(path) as j:
        assert accept(j, by="floor:Anna", reason="hand-edited event", at=2e9)["set_aside"] == [seq]
    found = recall(path, hands=100)
    hits = [(h, s) for h in found.hands for s in h.steps if s.data.get("set_aside") == seq]
    assert len(hits) == 1
    hand, step_ = hits[0]
    assert (step_.kind, step_.data["by"], step_.data["reason"]) == ("set-aside", "floor:Anna", "hand-edited event")
    assert f"event {seq} (table: action-taken) is of the wrong shape" in step_.data["error"]
    assert hand.voided and not hand.in_progress  # the hand is rebuilt to its end past the event
    assert not [s for s in hand.steps if s.data.get("journal_kind") == "rejected"]  # said once
    assert history(["--journal", str(path), "--hand", str(hand.number)]) == 0
    out = capsys.readouterr().out
    assert f"Journal event {seq} set aside by floor:Anna (hand-edited event)" in out
    assert f"Journal event {seq} set aside by floor:Anna" in format_hand(hand)


@pytest.mark.parametrize("kind,payload,what", [
    ("fault-ended", {"kind": "jam", "exit": "void", "by": "", "at": 1.0}, "by (who decided)"),
    ("fault-ended", {"kind": "jam", "exit": "sideways", "by": "floor:Anna", "at": 1.0}, "sideways"),
    ("fault-raised", {"kind": "jam"}, "'message' is missing"),
    ("rejected", {"seq": "x"}, "seq is not"),
])
def test_other_kinds_of_the_wrong_shape_are_named(kind, payload, what, voided, tmp_path):
    path = _copy(voided, tmp_path)
    db = sqlite3.connect(path)
    (last,) = db.execute("SELECT MAX(seq) FROM events").fetchone()
    db.execute("UPDATE events SET kind = ?, payload = ? WHERE seq = ?", (kind, json.dumps(payload), last))
    db.commit()
    db.close()
    with pytest.raises(JournalRefused) as refused:
        _open(path)
    assert f"event {last} ({kind}) is of the wrong shape" in str(refused.value) and what in str(refused.value)
