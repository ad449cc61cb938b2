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


def as_the_table_paid(path, hand: int, stacks: dict[str, int]) -> None:
    """Give the between-hands snapshot at hand ``hand``'s end the end ``stacks`` (by seat, as
    a record's ``result.stacks``; the ledger's ``won`` moved with them: it still balances):
    an older livetable's journal, whose snapshot after every hand has what the table paid,
    which this livetable's replay does not pay."""
    db = sqlite3.connect(path)
    upto, text = db.execute("SELECT upto, state FROM snapshots WHERE json_extract(state, '$.table.hands') = ? "
                            "AND json_type(state, '$.table.hand') = 'null' ORDER BY upto LIMIT 1",
                            (hand,)).fetchone()
    state = json.loads(text)
    accounts = {a["player"]: a for a in state["table"]["ledger"]["accounts"]}
    for s in state["table"]["seats"]:
        if s is not None and str(s["seat"]) in stacks:
            d = stacks[str(s["seat"])] - s["stack"]
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


def test_a_missing_phh_file_is_written_from_the_tables_json_when_the_replay_pays_otherwise(tmp_path):
    """Hand 3's JSON record is whole but its PHH file is gone: the JSON is the table's own
    record. When the journal's replay pays other chips (an older livetable's rules; here a
    chip moved in the JSON and in the table's snapshot at the hand's end), both files were
    written from the replay: the table's JSON was replaced (a run of kills on such a journal
    left 40 hands whose end stacks were not the next hand's start). The PHH file is now
    written from the table's JSON, kept as it is (a JSON the snapshot does not back:
    test_compaction_forged_file)."""
    from controller.history import record_to_phh

    t, _ = _table(tmp_path, writer=True)
    t.play(6)
    t.close()
    js, phh = history_files(tmp_path / "hands", 3)
    rec = json.loads(js.read_text())
    stacks = rec["result"]["stacks"]
    a, b = sorted(stacks)[:2]
    stacks[a] -= 1
    stacks[b] += 1
    for s in rec["seats"]:
        s["end"] = stacks.get(str(s["seat"]), s["end"])
    js.write_text(json.dumps(rec, sort_keys=True))
    as_the_table_paid(tmp_path / "j.sqlite", 3, stacks)
    table_wrote = js.read_text()
    phh.unlink()
    with Journal(tmp_path / "j.sqlite") as j:
        done = JournalKeeper(j, keep_hands=2, history_dir=tmp_path / "hands", every=1).run()
    assert done is not None and done.first <= 3 <= done.last and 3 in done.rewritten, done
    assert json.loads(js.read_text()) == json.loads(table_wrote)
    assert phh.read_text() == record_to_phh(json.loads(table_wrote))


def test_the_recall_starts_again_from_each_between_hands_snapshot(tmp_path):
    """``livetable history --hands 40`` of a journal an older livetable wrote replayed 40
    hands from one snapshot with today's rules: 18 of the 27 hands it showed had other end
    stacks than the table's, and 13 hands were missing (their replay never finished). The
    recall now starts again from each between-hands snapshot it passes; here a chip moved in
    the snapshot it starts from stands for the drift: the next hands are the table's."""
    from controller.history import recall

    t, _ = _table(tmp_path)  # a snapshot after every hand, as before issue 21
    records = {r["hand"]: r for r in t.play(6)}
    t.close()
    path = tmp_path / "j.sqlite"
    db = sqlite3.connect(path)
    base = db.execute("SELECT upto FROM snapshots WHERE json_extract(state, '$.table.hands') = 2").fetchone()[0]
    db.close()
    _move_a_chip(path, base)
    hands = recall(path, hands=4).hands
    assert [h.number for h in hands] == [3, 4, 5, 6]
    for h in hands[1:]:  # hand 3 starts from the moved chip: the snapshot it is read from
        assert h.record["result"]["stacks"] == records[h.number]["result"]["stacks"], h.number
