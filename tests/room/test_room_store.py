"""The room's store and replay on SQLite and PostgreSQL alike (issue 17).

A real table's journal (``livetable simulate``) is fed to :class:`room.apply.Room` the ways
the network can deliver it: in order, twice, out of order with gaps, across a restart of
the room. The archive must equal the table's hand histories file for file, the meters the
table's to the chip, and nothing may be stored twice.
"""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from controller.history import record_to_phh
from controller.journal import payload_of
from room.apply import RecordError, Room, check_batch
from room.migrations import SCHEMA_VERSION
from room.store import StoreError, open_store


def journal_messages(path: Path, table: str = "sim") -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Return the journal's oldest snapshot (as the outbox's base) and its records."""
    db = sqlite3.connect(path)
    upto, state = db.execute("SELECT upto, state FROM snapshots ORDER BY upto LIMIT 1").fetchone()
    recs = [{"seq": s, "at": a, "kind": k, "payload": payload_of(k, a, p)}
            for s, a, k, p in db.execute("SELECT seq, at, kind, payload FROM events ORDER BY seq")]
    db.close()
    return {"upto": upto, "state": json.loads(state)}, recs


def feed(room: Room, base: dict[str, Any] | None, recs: list[dict[str, Any]], table: str = "sim") -> Any:
    msg: dict[str, Any] = {"table": table, "records": recs}
    if base is not None:
        msg["base"] = base
    return room.receive(table, *check_batch(table, msg))


def assert_archive_equals_table(store: Any, played: tuple[Path, dict[str, Any]], table: str = "sim") -> None:
    d, summary = played
    files = sorted((d / "hands").glob("hand-*.json"))
    assert files and store.hand_count(table) == len(files)
    for f in files:
        record = json.loads(f.read_text())
        assert store.hand(table, record["hand"]) == record
        assert record_to_phh(store.hand(table, record["hand"])) == f.with_suffix(".phh").read_text()
    row = store.table_row(table)
    for k in ("total_in", "total_out", "rake"):
        assert row[k] == summary["room"][k], k


def test_in_order_delivery_gives_the_tables_hands_and_meters(store_url: str, played: Any) -> None:
    store = open_store(store_url)
    base, recs = journal_messages(played[0] / "journal.sqlite")
    room = Room(store, lambda: 1.0)
    for i in range(0, len(recs), 50):
        ack = feed(room, base if i == 0 else None, recs[i:i + 50])
        assert ack.upto == recs[min(i + 50, len(recs)) - 1]["seq"] and ack.base
    assert_archive_equals_table(store, played)
    assert store.record_count("sim") == len(recs)
    store.close()


def test_duplicates_gaps_and_disorder_store_each_record_once(store_url: str, played: Any) -> None:
    store = open_store(store_url)
    base, recs = journal_messages(played[0] / "journal.sqlite")
    rng = random.Random(17)
    chunks = [recs[i:i + rng.randint(1, 40)] for i in range(0, len(recs), 20)]  # overlapping
    rng.shuffle(chunks)
    room = Room(store, lambda: 1.0)
    assert feed(room, None, chunks[0]).base is False  # no base yet: nothing applied, all kept
    for c in chunks:
        feed(room, base, c)
    # what was never delivered comes with the resend from the acknowledged one
    while (ack := room.ack("sim")).upto < recs[-1]["seq"]:
        feed(room, None, [r for r in recs if r["seq"] > ack.upto][:30])
    for c in chunks[:5]:  # late duplicates change nothing
        feed(room, None, c)
    assert store.record_count("sim") == len(recs)
    assert room.stats["records_dup"] > 0
    assert_archive_equals_table(store, played)
    store.close()


def test_a_restarted_room_goes_on_from_its_last_commit(store_url: str, played: Any) -> None:
    base, recs = journal_messages(played[0] / "journal.sqlite")
    half = len(recs) // 2
    store = open_store(store_url)
    feed(Room(store, lambda: 1.0), base, recs[:half])
    store.close()
    store = open_store(store_url)  # a new process: nothing in memory, schema already there
    room = Room(store, lambda: 2.0)
    assert room.ack("sim").upto == recs[half - 1]["seq"]
    feed(room, base, recs[half - 10:])  # the table resends a little of what the room had
    assert_archive_equals_table(store, played)
    store.close()


def test_hand_search_by_player_table_time_and_number(store_url: str, played: Any) -> None:
    store = open_store(store_url)
    base, recs = journal_messages(played[0] / "journal.sqlite")
    feed(Room(store, lambda: 1.0), base, recs)
    everyone = store.search_hands(table="sim")
    assert len(everyone) == store.hand_count("sim")
    assert [h["hand"] for h in everyone] == sorted((h["hand"] for h in everyone), reverse=True)
    assert store.search_hands(table="other") == []
    one = store.search_hands(table="sim", number=3)
    assert [h["hand"] for h in one] == [3]
    assert {h["hand"] for h in store.search_hands(player="player 2")} <= {h["hand"] for h in everyone}
    assert store.search_hands(player="nobody-here") == []
    mid = sorted(h["ended"] for h in everyone)[len(everyone) // 2]
    later = store.search_hands(since=mid)
    assert later and all(h["ended"] >= mid for h in later) and len(later) < len(everyone)
    store.close()


@pytest.mark.parametrize("message, what", [
    ([], "JSON object"),
    ({"table": "other", "records": []}, "names table"),
    ({"table": "sim", "records": [{"seq": 0, "at": 1.0, "kind": "table", "payload": {}}]}, "seq"),
    ({"table": "sim", "records": [{"seq": True, "at": 1.0, "kind": "table", "payload": {}}]}, "seq"),
    ({"table": "sim", "records": [{"seq": 1, "at": "x", "kind": "table", "payload": {}}]}, "at"),
    ({"table": "sim", "records": [{"seq": 1, "at": 1.0, "kind": "", "payload": {}}]}, "kind"),
    ({"table": "sim", "records": [{"seq": 1, "at": 1.0, "kind": "table", "payload": []}]}, "payload"),
    ({"table": "sim", "records": "nope"}, "list"),
    ({"table": "sim", "base": {"upto": -1, "state": {}}, "records": []}, "base"),
])
def test_a_malformed_message_is_refused_naming_what_is_wrong(message: Any, what: str) -> None:
    with pytest.raises(RecordError, match=what):
        check_batch("sim", message)


def test_a_store_newer_than_the_code_is_refused(store_url: str) -> None:
    open_store(store_url).close()
    store = open_store(store_url)
    with store.transaction() as tx:
        tx.execute("INSERT INTO room_schema(version, name, applied_at) VALUES (?, ?, ?)",
                   (SCHEMA_VERSION + 1, "from the future", 0.0))
    store.close()
    with pytest.raises(StoreError, match="upgrade livetable"):
        open_store(store_url)


def test_migrations_run_once(store_url: str) -> None:
    open_store(store_url).close()
    store = open_store(store_url)
    rows = store.query("SELECT version FROM room_schema ORDER BY version")
    assert [r[0] for r in rows] == list(range(1, SCHEMA_VERSION + 1))
    store.close()


def test_an_unreachable_database_is_a_clear_error() -> None:
    with pytest.raises(StoreError, match="cannot connect"):
        open_store("postgresql://nobody@127.0.0.1:1/none")


def test_a_hand_replayed_step_by_step_reads_as_livetable_history_at_the_table(store_url: str, played: Any) -> None:
    from controller.history import format_hand, recall
    from room.archive import hand_steps

    store = open_store(store_url)
    base, recs = journal_messages(played[0] / "journal.sqlite")
    feed(Room(store, lambda: 1.0), base, recs)
    for number in (1, 4, store.hand_count("sim")):
        at_table = format_hand(recall(played[0] / "journal.sqlite", hand=number).hands[0])
        assert hand_steps(store, "sim", number)["text"] == at_table
    assert hand_steps(store, "sim", 999) is None
    assert hand_steps(store, "other", 1) is None
    store.close()
