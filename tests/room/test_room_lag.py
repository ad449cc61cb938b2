"""A room that lags behind its tables (issue 17): it must catch up, not fall further behind.

One 50-blocked-links run on PostgreSQL at a load average of 20–30 showed the room service's
inbox growing to some 570 messages and its lag to 40 s (its progress lines, docs/room.md):
it stored each message of a few records in a transaction of its own, and every table whose
acknowledgement waited longer than its ``resend_seconds`` sent its whole backlog again,
which the room stored once more, transaction by transaction. The room now stores what
waits in its inbox in one transaction per table and answers a resend of what it holds
without a transaction; the outbox's resend for want of an acknowledgement backs off
(tests/room/test_roomlink_outbox.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from room.apply import Room
from room.service import RoomService
from room.store import open_store
from tests.room.test_room_store import assert_archive_equals_table, feed, journal_messages


class CountingStore:
    """A store whose transactions are counted (everything else is the real store's)."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.transactions = 0

    def transaction(self) -> Any:
        self.transactions += 1
        return self._store.transaction()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def test_a_resend_of_what_the_room_holds_costs_no_transaction(store_url: str, played: Any) -> None:
    store = open_store(store_url)
    counting = CountingStore(store)
    base, recs = journal_messages(played[0] / "journal.sqlite")
    room = Room(counting, lambda: 1.0)  # type: ignore[arg-type]
    acks: list[int] = []
    room.on_applied = lambda t, ack: acks.append(ack.upto)
    feed(room, base, recs)
    assert room.ack("sim").upto == recs[-1]["seq"] and counting.transactions == 1
    for i in range(0, len(recs), 40):  # the table's whole backlog again, as a resend sends it
        feed(room, None, recs[i:i + 40])
    assert counting.transactions == 1, "a resend of records the room holds opened a transaction"
    assert acks[-1] == recs[-1]["seq"] and len(acks) == 1 + (len(recs) + 39) // 40  # each answered
    assert room.stats["records_dup"] == len(recs)
    # a resend reaching past what the room holds stores only the new part
    room2 = Room(counting, lambda: 1.0)  # type: ignore[arg-type]
    feed(room2, base, recs[:-5], table="sim2")
    feed(room2, None, recs[-30:], table="sim2")
    assert store.record_count("sim2") == len(recs) and room2.ack("sim2").upto == recs[-1]["seq"]
    assert room2.stats["records_dup"] == 25 and room2.stats["records_new"] == len(recs)
    assert_archive_equals_table(store, played)
    assert_archive_equals_table(store, played, "sim2")
    store.close()


def test_the_worker_stores_what_waits_in_one_transaction_per_table(store_url: str, played: Any) -> None:
    # Two tables' messages of a few records each, interleaved, waiting in the service's inbox
    # (as under load): stored in one transaction per table, everything applied.
    store = open_store(store_url)
    counting = CountingStore(store)
    base, recs = journal_messages(played[0] / "journal.sqlite")
    service = RoomService(counting, host="127.0.0.1", port=1)  # type: ignore[arg-type]  # never connects
    messages = 0
    for i in range(0, len(recs), 3):
        for table in ("sim", "sim2"):
            msg: dict[str, Any] = {"table": table, "records": recs[i:i + 3]}
            if i == 0:
                msg["base"] = base
            service._inbox.put(("records", table, json.dumps(msg).encode(), 0.0))  # noqa: SLF001
            messages += 1
    service._inbox.put(("records", "sim", b"not json", 0.0))  # noqa: SLF001  # refused, nothing else stops
    service._inbox.put(None)  # noqa: SLF001
    service._work()  # noqa: SLF001  # in this thread: returns at the None
    assert service.stats["messages"] == messages + 1 and service.stats["refused"] == 1
    assert service.stats["store_errors"] == 0
    for table in ("sim", "sim2"):
        assert service.room.ack(table).upto == recs[-1]["seq"]
        assert store.record_count(table) == len(recs)
        assert_archive_equals_table(store, played, table)
    assert counting.transactions <= 2 * (1 + messages // service.merge_messages), counting.transactions
    store.close()


def test_a_batch_too_big_for_one_transaction_is_split(tmp_path: Path, played: Any) -> None:
    # More waiting records of one table than one message may carry (room.apply.MAX_BATCH):
    # stored in more than one transaction, in order, everything applied.
    from room import service as service_module

    store = open_store(tmp_path / "room.sqlite")
    base, recs = journal_messages(played[0] / "journal.sqlite")
    service = RoomService(store, host="127.0.0.1", port=1)
    limit = service_module.MAX_BATCH
    service_module.MAX_BATCH = 50
    try:
        for i in range(0, len(recs), 20):
            msg: dict[str, Any] = {"table": "sim", "records": recs[i:i + 20], **({"base": base} if i == 0 else {})}
            service._inbox.put(("records", "sim", json.dumps(msg).encode(), 0.0))  # noqa: SLF001
        service._inbox.put(None)  # noqa: SLF001
        service._work()  # noqa: SLF001
    finally:
        service_module.MAX_BATCH = limit
    assert service.room.ack("sim").upto == recs[-1]["seq"]
    # at most 50 records (two messages of 20) a transaction
    assert -(-len(recs) // 50) <= service.room.stats["batches"] <= -(-len(recs) // 40)
    assert_archive_equals_table(store, played)
    store.close()
