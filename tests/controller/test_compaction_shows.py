"""Compaction keeps a show after the hand (P-2; found by a breaker).

The uncontested winner's show after the hand rewrites the hand's files. When that rewrite
fails (a full SD card) the old, show-less files are whole, yet not the table's last record:
compaction must not drop the journal events that hold the show without writing it. And a
hand whose files are missing is rebuilt with the show (``HandShown``'s record), not only
from ``HandFinished``.
"""

from __future__ import annotations

import json

from controller import compaction
from controller.compaction import JournalKeeper, history_files
from controller.engine.table import events as ev
from tests.controller.test_compaction_old_journal import as_the_table_paid
from tests.controller.test_showdown_flow import _table as showdown_table
from tests.controller.test_showdown_flow import _tablet


def _table(tmp_path):
    """test_showdown_flow's table, with the first snapshot a fresh journal gets (open_table)."""
    return showdown_table(tmp_path, first_snapshot=True)


def _fold_to_bb(orch, clock, tag: str) -> None:
    n = 0
    while orch.state.hand is not None:
        _tablet(orch, clock, orch.state.hand.seat_to_act, "fold", f"{tag}{n}")
        n += 1
        assert n < 10


def _hand1_shown_then_more_hands(tmp_path, monkeypatch, *, fail_rewrite: bool):
    orch, ports, clock = _table(tmp_path)
    _fold_to_bb(orch, clock, "f")  # hand 1: everyone folds to seat 3
    if fail_rewrite:
        def full(fd):
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(compaction.os, "fsync", full)
    # the uncontested winner of hand 1 shows after the hand (P-2); which seat won: the one
    # the table offers the show to
    offer = ports.link.private[-1]
    seat = offer[0]
    assert offer[1]["legal"]["show"]
    _tablet(orch, clock, seat, "show", "show1")
    assert (seat, "show1", True, None) in ports.link.replies
    monkeypatch.undo()
    for h in range(2, 7):
        orch.post(ev.HandStartRequested(at=clock()))
        orch.pump()
        _fold_to_bb(orch, clock, f"h{h}-")
    return orch, seat


def _shown_in_files(tmp_path, seat) -> str:
    js, _ = history_files(tmp_path / "hands", 1)
    rec = json.loads(js.read_text())
    return {s["seat"]: s["showed"] for s in rec["seats"]}[seat]


def test_a_failed_show_rewrite_is_not_compacted_away(tmp_path, monkeypatch):
    orch, seat = _hand1_shown_then_more_hands(tmp_path, monkeypatch, fail_rewrite=True)
    assert _shown_in_files(tmp_path, seat) == "folded"  # the rewrite failed: old files, whole
    keeper = JournalKeeper(orch.journal, keep_hands=2, history_dir=tmp_path / "hands", every=1)
    done = keeper.run()
    assert done is not None, "nothing compacted: the repro did not reach compaction"
    dropped = done is not None and done.first <= 1 <= done.last
    # expected: hand 1 stays in the journal, or its files are rebuilt with the show
    assert not dropped or _shown_in_files(tmp_path, seat) == "shown", (done, _shown_in_files(tmp_path, seat))


def test_a_missing_file_of_a_shown_hand_is_rebuilt_with_the_show(tmp_path, monkeypatch):
    orch, seat = _hand1_shown_then_more_hands(tmp_path, monkeypatch, fail_rewrite=False)
    assert _shown_in_files(tmp_path, seat) == "shown"
    for p in history_files(tmp_path / "hands", 1):
        p.unlink()  # the folder lost it (an SD card error, a floor person tidying up)
    keeper = JournalKeeper(orch.journal, keep_hands=2, history_dir=tmp_path / "hands", every=1)
    done = keeper.run()
    assert done is not None and 1 in done.rewritten
    assert _shown_in_files(tmp_path, seat) == "shown"


# The show comes after the between-hands snapshot the table writes when the hand finishes:
# when that snapshot ends a compaction's range (the hand is the last one compacted), the
# show must still be seen (found by a second breaker).
def test_a_failed_show_rewrite_is_not_compacted_away_when_the_hand_ends_the_range(tmp_path, monkeypatch):
    orch, seat = _hand1_shown_then_more_hands(tmp_path, monkeypatch, fail_rewrite=True)
    assert _shown_in_files(tmp_path, seat) == "folded"  # the rewrite failed: old files, whole
    keeper = JournalKeeper(orch.journal, keep_hands=5, history_dir=tmp_path / "hands", every=1)
    done = keeper.run()
    assert done is not None and (done.first, done.last) == (1, 1), done  # the range ends at hand 1
    keeper.run()  # the next hands: the replay now holds the show, but not hand 1
    assert _shown_in_files(tmp_path, seat) == "shown" or orch.journal.compacted_upto < done.upto


def test_a_missing_file_of_a_shown_hand_that_ends_the_range_is_rebuilt_with_the_show(tmp_path, monkeypatch):
    orch, seat = _hand1_shown_then_more_hands(tmp_path, monkeypatch, fail_rewrite=False)
    for p in history_files(tmp_path / "hands", 1):
        p.unlink()
    keeper = JournalKeeper(orch.journal, keep_hands=5, history_dir=tmp_path / "hands", every=1)
    done = keeper.run()
    assert done is not None and (done.first, done.last) == (1, 1) and 1 in done.rewritten, done
    assert _shown_in_files(tmp_path, seat) == "shown"


def test_a_new_record_beside_an_old_phh_file_is_rewritten(tmp_path, monkeypatch):
    """A kill between the JSON's rename and the PHH file's leaves hand 1's new record (with
    the show) beside its old PHH text (without): both files are whole, yet the PHH file is
    not the table's last word; compaction writes it again before the hand leaves the journal."""
    orch, seat = _hand1_shown_then_more_hands(tmp_path, monkeypatch, fail_rewrite=False)
    js, phh = history_files(tmp_path / "hands", 1)
    shown_phh = phh.read_text()
    phh.write_text(shown_phh + "\n# an older copy\n")  # whole TOML, but not what the table last wrote
    keeper = JournalKeeper(orch.journal, keep_hands=2, history_dir=tmp_path / "hands", every=1)
    done = keeper.run()
    assert done is not None and done.first <= 1 <= done.last and 1 in done.rewritten, done
    assert phh.read_text() == shown_phh


def test_a_replay_that_pays_other_chips_than_the_tables_file_never_rewrites_it(tmp_path, monkeypatch):
    """A journal an older livetable wrote (before issue 21: a snapshot every hand), replayed by
    this one, can pay other chips than the table did (the rake split between pots changed
    since: 13 chips went to another seat in hand 4 of such a journal). A show after a hand
    in the range made compaction replay it and rewrite *every* hand file that differed from
    the replay: the table's own records were replaced with chips it never paid (found by
    issue 21's breaker, 90 of 150 files). A sound file whose chips differ from the replay is
    kept as the table wrote it when the table's snapshot at the hand's end has its stacks
    (else it is written from the journal: test_compaction_forged_file); one that differs
    only in the show is still rewritten."""
    orch, seat = _hand1_shown_then_more_hands(tmp_path, monkeypatch, fail_rewrite=False)
    js, phh = history_files(tmp_path / "hands", 2)
    rec = json.loads(js.read_text())
    # hand 2 as the older livetable paid it: a chip of the winner's went to the big blind's stack
    stacks = rec["result"]["stacks"]
    won, other = sorted(stacks, key=lambda s: -stacks[s])[:2]
    stacks[won] -= 1
    stacks[other] += 1
    for s in rec["seats"]:
        s["end"] = stacks.get(str(s["seat"]), s["end"])
    js.write_text(json.dumps(rec, sort_keys=True))
    as_the_table_paid(tmp_path / "j.sqlite", 2, stacks)  # the older table's snapshot after hand 2
    table_wrote, table_phh = js.read_text(), phh.read_text()
    for p in history_files(tmp_path / "hands", 1):  # hand 1's show: the replay runs
        p.unlink()
    keeper = JournalKeeper(orch.journal, keep_hands=2, history_dir=tmp_path / "hands", every=1)
    done = keeper.run()
    assert done is not None and done.first <= 2 <= done.last and 1 in done.rewritten, done
    assert 2 not in done.rewritten and js.read_text() == table_wrote and phh.read_text() == table_phh
    assert _shown_in_files(tmp_path, seat) == "shown"
