"""A forged or damaged hand file must not outlive the journal (issue 21, breaker 2).

Compaction keeps a whole JSON hand file "as the table wrote it" when the journal's replay
pays other chips (a journal an older livetable wrote, whose rules paid differently). On a
journal this livetable wrote, the replay *is* what the table did: a JSON file with other
chips was edited or damaged, and keeping it made it the only record of the hand once its
events left the journal (the record a floor reads in a dispute). The file is kept only
when the table's own between-hands snapshot at the hand's end has its stacks and not the
replay's; otherwise both files are written from the journal.
"""

from __future__ import annotations

import json

from controller.compaction import JournalKeeper, history_files
from controller.journal import Journal

from tests.controller.test_compaction import _table


def _forge(js, a_to_b: int = 500) -> dict:
    """Move ``a_to_b`` chips from one seat to another in hand file ``js`` (a whole, consistent
    JSON: result stacks and seat ends both); return the table's record it replaced."""
    table_wrote = json.loads(js.read_text())
    rec = json.loads(js.read_text())
    stacks = rec["result"]["stacks"]
    a, b = sorted(stacks, key=lambda s: -stacks[s])[:2]
    stacks[a] -= a_to_b
    stacks[b] += a_to_b
    for s in rec["seats"]:
        s["end"] = stacks.get(str(s["seat"]), s["end"])
    js.write_text(json.dumps(rec, sort_keys=True))
    return table_wrote


def test_a_forged_json_whose_phh_is_gone_is_written_again_from_the_journal(tmp_path):
    t, _ = _table(tmp_path, writer=True)
    t.play(6)
    t.close()
    js, phh = history_files(tmp_path / "hands", 3)
    table_wrote = _forge(js)
    phh.unlink()
    with Journal(tmp_path / "j.sqlite") as j:
        done = JournalKeeper(j, keep_hands=2, history_dir=tmp_path / "hands", every=1).run()
    assert done is not None and done.first <= 3 <= done.last and 3 in done.rewritten, done
    assert json.loads(js.read_text()) == table_wrote  # the journal's hand, not the forged one


def test_a_forged_json_is_not_kept_when_a_show_makes_compaction_replay(tmp_path):
    t, _ = _table(tmp_path, writer=True)
    t.play(6)
    t.close()
    js, _phh = history_files(tmp_path / "hands", 3)
    table_wrote = _forge(js)
    for p in history_files(tmp_path / "hands", 2):  # any file missing in the range: the replay runs
        p.unlink()
    with Journal(tmp_path / "j.sqlite") as j:
        done = JournalKeeper(j, keep_hands=2, history_dir=tmp_path / "hands", every=1).run()
    assert done is not None and done.first <= 3 <= done.last, done
    assert json.loads(js.read_text()) == table_wrote
