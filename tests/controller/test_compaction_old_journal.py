"""Compaction of a journal an older livetable wrote (issue 21, breaker).

Such a journal (a snapshot after every hand, before issue 21) replayed by this livetable can
drift from what the table did: the rake split between pots changed since, so a replay from
the oldest snapshot over 50 hands paid some chips to other seats, and a hand drifted far
enough never finished. Compaction rebuilds a missing hand file by that replay: the file got
chips the table never paid, or, with no record, compaction stopped there for good ("hands
[20] have no record in the journal: kept" at every hand; the journal never shrank again).
The replay now starts again from every between-hands snapshot it passes (the table as it
was). Here the drift is made by moving a chip between two seats in the base snapshot.
"""

from __future__ import annotations

import json
import sqlite3

from controller.compaction import JournalKeeper, history_files
from controller.journal import Journal

from tests.controller.test_compaction import _table


def _move_a_chip(path, upto: int) -> None:
    """Move one chip from the first seat to the second in the snapshot at ``upto`` (stacks
    and ledger both: it still balances), as a replay by other rules would have them."""
    db = sqlite3.connect(path)
    state = json.loads(db.execute("SELECT state FROM snapshots WHERE upto = ?", (upto,)).fetchone()[0])
    seats = [s for s in state["table"]["seats"] if s is not None][:2]
    accounts = {a["player"]: a for a in state["table"]["ledger"]["accounts"]}
    for s, d in zip(seats, (-1, 1)):
        s["stack"] += d
        accounts[s["player"]]["won"] += d
    with db:
        db.execute("UPDATE snapshots SET state = ? WHERE upto = ?", (json.dumps(state), upto))
    db.close()


def test_a_missing_hand_file_is_rebuilt_from_the_snapshot_before_it_not_a_drifted_replay(tmp_path):
    t, _ = _table(tmp_path, writer=True)  # a snapshot after every hand, as before issue 21
    t.play(8)
    t.close()
    path = tmp_path / "j.sqlite"
    with Journal(path) as j:  # hand 1 leaves: the base snapshot is hand 1's
        first = JournalKeeper(j, keep_hands=7, history_dir=tmp_path / "hands", every=1).run()
        assert first is not None and (first.first, first.last) == (1, 1), first
        base = j.compacted_upto
    _move_a_chip(path, base)
    js, phh = history_files(tmp_path / "hands", 4)
    table_wrote = json.loads(js.read_text())
    js.unlink()
    phh.unlink()
    with Journal(path) as j:
        done = JournalKeeper(j, keep_hands=2, history_dir=tmp_path / "hands", every=1).run()
    assert done is not None and done.first <= 4 <= done.last and 4 in done.rewritten, done
    assert json.loads(js.read_text()) == table_wrote  # the hand as the table played it
