"""A table of the room's tournament whose journal is compacted (``journal.keep_hands``,
default 500; controller/compaction.py) keeps its request ids unique (breaker).

The room keys a table's rebuy, add-on and re-entry requests by ``"<table>:<request id>"``
and answers a key it has seen with the booking it made for it (a retry is never booked
twice). The table numbered its requests from the ``purchase-request`` events its journal
holds: once compaction took them all, a restart numbered the next request 1 again and the
room answered it with the old purchase (or the old re-entry's seat): the player paid the
dealer for chips that never came, or his re-entry was never registered."""

from __future__ import annotations

from pathlib import Path

from tests.room.test_room_tournament_purchases import _close, _order, _table


def test_a_request_after_compaction_and_a_restart_gets_an_id_never_used_before(tmp_path: Path) -> None:
    path = tmp_path / "t1.sqlite"
    run, link = _table(path)
    try:
        _order(link, run, 1, **{"in": [{"move": 1, "seat": 1, "player": "p1", "name": "Anna", "chips": 2000},
                                      {"move": 2, "seat": 2, "player": "p2", "name": "Bob", "chips": 2000}]})
        link.confirm_purchase(2, by="Anna", kind="rebuy")
        first = set(link.report()["requests"])
        assert first == {"1"}
        _order(link, run, 2, answers={"1": {"purchase": 7}})  # the room booked it: purchase 7
        assert link.report()["requests"] == {}
        journal = run.orch.journal
        run.orch._snapshot(run.orch.clock())  # a between-hands snapshot, as the orchestrator writes them
        assert journal.compact(journal._last_seq) > 0  # every event so far leaves the journal
        assert not [e for e in journal.entries() if e.kind == "tournament"
                    and e.payload.get("type") == "purchase-request"]
    finally:
        _close(run, link)
    run, link = _table(path)  # restarted on the compacted journal
    try:
        link.confirm_purchase(2, by="Anna", kind="addon")
        again = set(link.report()["requests"])
        assert len(again) == 1 and not again & first, "the room would answer it with purchase 7"
    finally:
        _close(run, link)
