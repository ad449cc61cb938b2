"""Breaks in compaction's P-2 show handling (breaker round 2).

The uncontested winner shows after the hand, so the show event comes after the between-hands
snapshot the table writes when the hand finishes. When a compaction's target is that very
snapshot (the hand is the last one compacted), the show is outside the replayed range: a
failed show rewrite (or a lost file) is compacted away without the show, and the next
compaction, which replays the show, no longer covers that hand.
"""

from __future__ import annotations

import pytest

from controller.compaction import JournalKeeper, history_files
from tests.controller.test_compaction_shows import _hand1_shown_then_more_hands, _shown_in_files


@pytest.mark.xfail(strict=True, reason="break: the show after hand 1 lies after the snapshot that ends "
                   "the compacted range (hand 1 is its last hand): _shown_after does not see it, hand 1 "
                   "leaves the journal with its show-less files")
def test_a_failed_show_rewrite_is_not_compacted_away_when_the_hand_ends_the_range(tmp_path, monkeypatch):
    orch, seat = _hand1_shown_then_more_hands(tmp_path, monkeypatch, fail_rewrite=True)
    assert _shown_in_files(tmp_path, seat) == "folded"  # the rewrite failed: old files, whole
    keeper = JournalKeeper(orch.journal, keep_hands=5, history_dir=tmp_path / "hands", every=1)
    done = keeper.run()
    assert done is not None and (done.first, done.last) == (1, 1), done  # the range ends at hand 1
    keeper.run()  # the next hands: the replay now holds the show, but not hand 1
    assert _shown_in_files(tmp_path, seat) == "shown" or orch.journal.compacted_upto < done.upto


@pytest.mark.xfail(strict=True, reason="break: same range: hand 1's lost files are rebuilt from "
                   "HandFinished only, without the show that came after the range's snapshot")
def test_a_missing_file_of_a_shown_hand_that_ends_the_range_is_rebuilt_with_the_show(tmp_path, monkeypatch):
    orch, seat = _hand1_shown_then_more_hands(tmp_path, monkeypatch, fail_rewrite=False)
    for p in history_files(tmp_path / "hands", 1):
        p.unlink()
    keeper = JournalKeeper(orch.journal, keep_hands=5, history_dir=tmp_path / "hands", every=1)
    done = keeper.run()
    assert done is not None and (done.first, done.last) == (1, 1) and 1 in done.rewritten, done
    assert _shown_in_files(tmp_path, seat) == "shown"
