"""A journal written by an older livetable opens (issue 21, breaker).

An older livetable's snapshots lack the state fields added since (issue 19's
``info.button_waits``, ``settings.big_blind_ante``, ``settings.language``, the last hand's record's
``settings.big_blind_first``). The start-up check replays the events
between the two newest snapshots from the older one, through this livetable's state, which
writes those fields at their defaults; compared field by field with the newest snapshot as
stored, every such field "disagreed": a journal written before the upgrade (a snapshot
after every hand, before issue 21) was refused at start (exit 3) and the table stayed
closed. The newest snapshot is now read through this livetable's state, as the replay is
(the fields it lacks take their defaults), and a field of the last hand's record (kept as
written) that it lacks and the replay has at an empty value (0, false, [], ...) is a field
added since; any other difference is still reported.
"""

from __future__ import annotations

import json
import sqlite3

from controller.journal import Journal
from controller.journal_check import snapshot_problems

from tests.controller.test_compaction import SETTINGS
from tests.controller.test_history_support import Table

#: Fields this livetable writes that an older one's snapshots did not have (all at their
#: defaults in these hands): the paths of SQLite's json_remove.
NEWER_FIELDS = ("$.table.settings.big_blind_ante", "$.table.info.button_waits", "$.table.settings.language",
                "$.table.last_result.hand_record.settings.big_blind_first")


def _as_an_older_livetable_wrote_it(path) -> None:
    db = sqlite3.connect(path)
    with db:
        for field in NEWER_FIELDS:
            db.execute("UPDATE snapshots SET state = json_remove(state, ?)", (field,))
    db.close()


def test_snapshots_without_the_fields_added_since_agree_with_their_replay(tmp_path):
    t = Table(tmp_path / "j.sqlite", SETTINGS, seats=[1, 2, 3, 4], seed=11)
    t.orch._snapshot(t.clock())  # noqa: SLF001 - as open_table does on a fresh journal
    t.play(3)
    t.close()
    db = sqlite3.connect(tmp_path / "j.sqlite")
    newest = json.loads(db.execute("SELECT state FROM snapshots ORDER BY upto DESC LIMIT 1").fetchone()[0])
    db.close()
    assert newest["table"]["settings"]["big_blind_ante"] == 0 and newest["table"]["info"]["button_waits"] == []
    assert newest["table"]["last_result"]["hand_record"]["settings"]["big_blind_first"] is False
    assert newest["table"]["settings"]["language"] == "en"
    _as_an_older_livetable_wrote_it(tmp_path / "j.sqlite")
    with Journal(tmp_path / "j.sqlite") as j:
        assert snapshot_problems(j) == []
    # A real disagreement is still found: a name the events never gave.
    db = sqlite3.connect(tmp_path / "j.sqlite")
    with db:
        db.execute("UPDATE snapshots SET state = json_set(state, '$.table.seats[0].name', 'Mallory') "
                   "WHERE upto = (SELECT MAX(upto) FROM snapshots)")
    db.close()
    with Journal(tmp_path / "j.sqlite") as j:
        found = snapshot_problems(j)
    assert len(found) == 1 and "disagrees with the replay" in found[0] and "Mallory" in found[0], found
