"""A forged hand file must not outlive the journal when nothing forces a replay (issue 21).

Compaction replays the journal only when something forces it (a missing or torn file, a
show after a hand): a whole JSON hand file edited to move 500 chips between two seats, its
PHH file left as the table wrote it, was kept as the hand's only record once its events
left the journal. Without replaying every range (about 3 ms a hand), compaction now checks
the files against each other, each hand's chips (starts = ends + rake), the chain of stacks
from hand to hand (a seat held by the same player never starts with fewer chips than it
last had) and the table's between-hands snapshots; a doubt replays the range and a file the
replay does not give is written again from the journal. A genuine journal with buy-ins,
top-ups, stand-ups and seats taken again between and during hands raises no doubt (no
replay at all).
"""

from __future__ import annotations

import json
import logging
import re

import pytest

from controller import compaction
from controller.compaction import JournalKeeper, history_files
from controller.devices import HistoryWriter
from controller.engine.table import events as ev
from controller.engine.table.settings import TableSettings
from controller.journal import Journal

from tests.controller.test_compaction import _table
from tests.controller.test_compaction_forged_file import _forge
from tests.controller.test_history_support import Table


def _played(tmp_path, hands: int = 6, *, twice: bool = False):
    """Play ``hands`` hands with their files written; ``twice``: the first start is asked for
    three times (two make no hand: the chain tells them from the one that did)."""
    t, _ = _table(tmp_path, writer=True)
    if twice:
        for _ in range(2):
            t.orch.post(ev.HandStartRequested(at=t.clock()))
    t.play(hands)
    t.close()
    with Journal(tmp_path / "j.sqlite") as j:
        starts = [e for e in j.entries(kinds=("table",)) if e.payload["kind"] == "hand-start-requested"]
    assert (len(starts) > hands) == twice


def _compact(tmp_path, monkeypatch, keep: int = 2) -> tuple[object, list[int]]:
    """Compact the journal in ``tmp_path`` to its last ``keep`` hands; return what was done
    and the ranges the journal's replay was run for (none: the files were trusted)."""
    replays: list[int] = []
    real = JournalKeeper._records

    def counted(self, base_upto, upto, journal=None):
        replays.append(upto)
        return real(self, base_upto, upto, journal)

    monkeypatch.setattr(JournalKeeper, "_records", counted)
    with Journal(tmp_path / "j.sqlite") as j:
        keeper = JournalKeeper(j, keep_hands=keep, history_dir=tmp_path / "hands", every=1)
        assert not keeper._shown_after(0, j.last_seq)  # noqa: SLF001 - nothing else forces a replay
        done = keeper.run()
    return done, replays


def _phh_stacks(phh, record: dict) -> None:
    """Write ``record``'s seats' end stacks and rake paid into the PHH file ``phh`` (a forger
    who makes both files tell the same story)."""
    text = phh.read_text()
    seats = [int(x) for x in re.search(r"^seats = \[(.*)\]$", text, re.M).group(1).split(",")]
    ends = {s["seat"]: s["end"] for s in record["seats"]}
    line = "finishing_stacks = [" + ", ".join(str(ends[s]) for s in seats) + "]"
    phh.write_text(re.sub(r"^finishing_stacks = \[.*\]$", line, text, flags=re.M))


def test_a_forged_json_beside_its_intact_phh_is_written_again_from_the_journal(tmp_path, monkeypatch, caplog):
    _played(tmp_path)
    js, phh = history_files(tmp_path / "hands", 2)
    phh_before = phh.read_text()
    table_wrote = _forge(js)
    with caplog.at_level(logging.WARNING, logger="livetable.compaction"):
        done, replays = _compact(tmp_path, monkeypatch)
    assert done is not None and done.first <= 2 <= done.last and 2 in done.rewritten, done
    assert replays, "the journal was not replayed"
    assert json.loads(js.read_text()) == table_wrote  # the journal's hand, not the forged one
    assert phh.read_text() == phh_before
    assert any("hand 2: the PHH file's finishing_stacks" in r.getMessage() for r in caplog.records), caplog.text


@pytest.mark.parametrize("twice", [False, True])
@pytest.mark.parametrize("by_number", [False, True])  # the journal's starts not told apart: hands by number
@pytest.mark.parametrize("hand", [2, 4])  # inside the range (1..4); its last hand (the snapshot after it)
def test_both_files_forged_alike_break_the_chain_of_stacks(tmp_path, monkeypatch, caplog, hand, twice, by_number):
    _played(tmp_path, twice=twice)
    if by_number:
        real = compaction._table_events
        monkeypatch.setattr(compaction, "_table_events", lambda *a: [e for e in real(*a)
                                                                      if e[1] != "hand-start-requested"])
    js, phh = history_files(tmp_path / "hands", hand)
    table_wrote = _forge(js)
    _phh_stacks(phh, json.loads(js.read_text()))
    with caplog.at_level(logging.WARNING, logger="livetable.compaction"):
        done, replays = _compact(tmp_path, monkeypatch)
    assert done is not None and (done.first, done.last) == (1, 4) and hand in done.rewritten, done
    assert replays
    assert json.loads(js.read_text()) == table_wrote
    assert "fewer, and no one left the seat" in caplog.text, caplog.text


def test_a_hand_that_pays_more_than_it_took_in_is_written_again(tmp_path, monkeypatch, caplog):
    _played(tmp_path)
    js, phh = history_files(tmp_path / "hands", 1)
    table_wrote = json.loads(js.read_text())
    forged = json.loads(js.read_text())
    seat = min(forged["seats"], key=lambda s: s["end"])  # a seat whose chips the next hands need not show
    seat["end"] += 500
    forged["result"]["stacks"][str(seat["seat"])] = seat["end"]
    js.write_text(json.dumps(forged, sort_keys=True))
    _phh_stacks(phh, forged)
    with caplog.at_level(logging.WARNING, logger="livetable.compaction"):
        done, replays = _compact(tmp_path, monkeypatch)
    assert done is not None and 1 in done.rewritten and replays, done
    assert json.loads(js.read_text()) == table_wrote
    assert "start with" in caplog.text and "+ rake" in caplog.text, caplog.text


def test_chips_hidden_in_the_rake_show_as_chips_that_came_from_nowhere(tmp_path, monkeypatch, caplog):
    """The losing side of a forgery: 500 chips taken from a seat's end and added to the
    rake, in both files (the hand still balances, the files agree, no seat ends with more):
    the seat starts the next hand with 500 chips more than it ended with, and no top-up or
    buy-in came between."""
    _played(tmp_path)
    js, phh = history_files(tmp_path / "hands", 2)
    table_wrote = json.loads(js.read_text())
    forged = json.loads(js.read_text())
    seat = max(forged["seats"], key=lambda s: s["end"])
    seat["end"] -= 500
    forged["result"]["stacks"][str(seat["seat"])] = seat["end"]
    forged["result"]["rake"] += 500
    js.write_text(json.dumps(forged, sort_keys=True))
    _phh_stacks(phh, forged)
    phh.write_text(re.sub(r"^_rake = (\d+)$", lambda m: f"_rake = {int(m.group(1)) + 500}", phh.read_text(),
                          flags=re.M))
    with caplog.at_level(logging.WARNING, logger="livetable.compaction"):
        done, replays = _compact(tmp_path, monkeypatch)
    assert done is not None and 2 in done.rewritten and replays, done
    assert json.loads(js.read_text()) == table_wrote
    assert "more, and no buy-in or top-up came" in caplog.text, caplog.text


SETTINGS = TableSettings(id="chain", name="Chain", seats=6, small_blind=50, big_blind=100, rake_percent=5,
                         rake_caps=((2, 300),), buy_in_min=2000, buy_in_max=10000)


@pytest.mark.parametrize("snapshot_every", [1, 7])  # the tests' tables; a few hands apart, as production (20)
def test_buy_ins_top_ups_and_seats_changing_hands_raise_no_doubt(tmp_path, monkeypatch, caplog, snapshot_every):
    """T-2, T-5..T-8 between and during hands: chips come (buy-ins, top-ups), leave with
    the player, a seat is taken again by another player and by the one who left it, for
    fewer chips than they left with; rebuys after busting; a player sitting out, back with
    a post; a hand voided by the floor; a start asked for twice. No doubt on any range: no warning, every file stays as the table
    wrote it."""

    gone: list[tuple[int, str, str, int]] = []  # (seat, player, name, stack) of who left at hand 8

    def between(t: Table, hand: int) -> None:
        at = t.clock()
        if hand == 3:
            t.orch.post(ev.ToppedUp(at=at, seat=1, amount=1500))
            t.orch.post(ev.StoodUp(at=at, seat=5))
        elif hand == 4:  # sits out, back with a post (T-5, T-6)
            t.orch.post(ev.SatOut(at=at, seat=4))
        elif hand == 5:
            t.orch.post(ev.PlayerSatDown(at=at, seat=5, player="p9", name="Newcomer"))
            t.orch.post(ev.BoughtIn(at=at, seat=5, amount=2000))
        elif hand == 7:
            t.orch.post(ev.SatIn(at=at, seat=4, post=True))
        elif hand == 6:  # a second start asked for: one of the two makes no hand (the chain then
            t.orch.post(ev.HandStartRequested(at=at))  # leaves out the range's seats that changed)
            t.orch.post(ev.HandStartRequested(at=at))
        elif hand == 8:  # the biggest stack the buy-in maximum lets come back for less (T-2)
            s = max((s for s in t.orch.state.seats if s is not None and 2000 < s.stack <= 10000),
                    key=lambda s: s.stack)
            gone.append((s.seat, s.player, s.name, s.stack))
            t.orch.post(ev.StoodUp(at=at, seat=s.seat))
        elif hand == 10:  # the same player back in the same seat, with fewer chips
            seat, player, name, _ = gone[0]
            t.orch.post(ev.PlayerSatDown(at=at, seat=seat, player=player, name=name))
            t.orch.post(ev.BoughtIn(at=at, seat=seat, amount=2000))

    t = Table(tmp_path / "j.sqlite", SETTINGS, seats=[1, 2, 3, 4, 5, 6], seed=3, stack=4000, between=between)
    t.orch.snapshot_every = snapshot_every
    t.orch._snapshot(t.clock())  # noqa: SLF001 - as open_table does on a fresh journal
    hw = HistoryWriter(tmp_path / "hands")
    t.orch.listeners.insert(0, lambda orch, effects: [hw.write(e.hand, e.record) for e in effects
                                                     if type(e).__name__ == "HandFinished"])
    during: list[int] = []  # the hands something happened during
    topped: list[int] = []  # the seat topped up during hand 12

    def mid_hand(orch, effects) -> None:  # during hands 12, 14, 17: a top-up and a stand-up wait for the end; a void
        n, hand = orch.state.hands, orch.state.hand
        if hand is None or n not in (12, 14, 17) or n in during or not hand.events \
                or hand.events[-1].get("t") not in ("call", "fold", "check"):  # a card on its way: later
            return
        at = t.clock()
        if n == 12:  # a seat that folded this hand, with room under the buy-in maximum (T-7)
            folded = {e["seat"] for e in hand.events if e.get("t") == "fold"}
            fits = [s.seat for s in orch.state.seats if s is not None and s.seat in folded and s.stack < 9000]
            if not fits:
                return  # no one folded yet: at a later action
            topped.append(fits[0])
            orch.post(ev.ToppedUp(at=at, seat=topped[0], amount=700))
        during.append(n)
        if n == 14:
            orch.post(ev.StoodUp(at=at, seat=3))
        elif n == 17:
            orch.post(ev.HandVoided(at=at, reason="misdeal", by="floor:Anna"))

    t.orch.listeners.append(mid_hand)
    records = t.play(24)
    t.close()
    assert during == [12, 14, 17]
    by_hand = {r["hand"]: r for r in records}
    assert by_hand[17]["voided"] and not any(r["voided"] for n, r in by_hand.items() if n != 17)
    seat = {n: {s["seat"]: s for s in r["seats"]}.get(topped[0]) for n, r in by_hand.items()}
    assert seat[13]["start"] == seat[12]["end"] + 700  # the top-up asked during hand 12 came after it (T-7)
    assert 3 not in {s["seat"] for s in by_hand[15]["seats"]}  # seat 3 stood up during hand 14 (T-8)
    played4 = [n for n, r in sorted(by_hand.items()) if 4 in {s["seat"] for s in r["seats"]}]
    assert 5 not in played4 and 6 not in played4 and any(n > 7 for n in played4), played4  # out, then back
    assert any(p["live_post"] or p["dead_post"] for n, r in by_hand.items() if n > 7
               for p in r["hand_record"]["players"] if p["seat"] == 4), "seat 4 came back and never posted"
    seat, player, _name, left = gone[0]
    back = [s for n, r in sorted(by_hand.items()) if n > 10 for s in r["seats"] if s["seat"] == seat]
    assert back and back[0]["player"] == player and back[0]["start"] == 2000 < left, (gone, back[:1])
    files = {p.name: p.read_bytes() for p in (tmp_path / "hands").iterdir()}
    with Journal(tmp_path / "j.sqlite") as j, caplog.at_level(logging.WARNING, logger="livetable.compaction"):
        keeper = JournalKeeper(j, keep_hands=2, history_dir=tmp_path / "hands", every=1)
        ends = [(u, h) for u, h, between in j.snapshot_index() if between]
        ranges = [(ends[0], ends[-1])] + list(zip(ends, ends[1:]))  # the whole journal; each snapshot's
        for (base_upto, base_hands), (upto, hands) in ranges:
            numbers = range(base_hands + 1, hands + 1)
            assert all(keeper._sound(n) for n in numbers)  # noqa: SLF001
            assert keeper._doubts(numbers, base_upto, upto, j) == [], (numbers, caplog.text)  # noqa: SLF001
        assert [h for _u, h in ends] == list(range(0, 25, snapshot_every)), ends
        starts = [e.seq for e in j.entries(kinds=("table",)) if e.payload["kind"] == "hand-start-requested"]
        assert len(starts) > 24  # a start that made no hand
        done = keeper.run()
    assert done is not None and done.last >= 14 and done.rewritten == (), done
    assert "journal compaction:" not in caplog.text, caplog.text
    assert {p.name: p.read_bytes() for p in (tmp_path / "hands").iterdir()} == files
