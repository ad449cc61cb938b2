"""``livetable history`` while the running table compacts its journal (issue 21, breaker).

The recall reads the journal in several statements (the snapshot index, the base snapshot,
the set-aside events, the notes, then the events). A compaction committed and purged by the
table between them (the table never waits for a reader) made the recall replay the events
after the new ``compacted_upto`` on the state of the old base snapshot: ``history --hands
12`` printed no hand at all, and said nothing. The recall reads one moment of the journal.

The compaction is run at the point between the recall's statements (no sleeps, no timing).
"""

from __future__ import annotations

from controller import history
from controller.history import recall

from tests.controller.test_compaction import _table


def test_a_compaction_between_the_recalls_reads_does_not_change_what_it_recalls(tmp_path, monkeypatch):
    t, keeper = _table(tmp_path, keep=3, every=10**6)  # nothing compacted while the hands are played
    assert keeper is not None
    t.play(12)
    assert t.journal.compacted_upto == 0
    real = history._set_aside
    done = []

    def compaction_meanwhile(db, after):
        keeper.every = 1
        done.append(keeper.run())  # commits and purges, as the table's loop does between two events
        return real(db, after)

    monkeypatch.setattr(history, "_set_aside", compaction_meanwhile)
    hands = recall(t.journal.path, hands=12).hands
    assert done and done[0] is not None and done[0].last >= 9, done  # hands 1..9 left the journal meanwhile
    assert [h.number for h in hands] == list(range(1, 13))  # the journal as it was when the recall began
    monkeypatch.setattr(history, "_set_aside", real)
    assert [h.number for h in recall(t.journal.path, hands=12).hands] == list(range(done[0].last + 1, 13))
    t.close()
