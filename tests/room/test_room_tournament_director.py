"""The room's tournament director (issue 19, room/tournament.py) against tables played by
this test (no processes): each order is carried out here as the table's link does, each hand
ends as the test says, chips conserved. Hand-for-hand on the bubble (TDA: every table waits
for the others; busts of one hand-for-hand hand at two tables are one hand for places) and
the room's conservation check."""

from __future__ import annotations

import json
from typing import Any

from controller.tournament.balancing import Move
from controller.tournament.settings import load_settings
from room.tournament import RoomTournament
from room.tournament_sim import ROOM_TOML

STACK = 2000  # ROOM_TOML


class Journal:
    def __init__(self) -> None:
        self.rows: list[tuple[str, dict[str, Any]]] = []

    def append(self, kind: str, payload: dict[str, Any]) -> None:
        self.rows.append((kind, json.loads(json.dumps(payload))))

    def append_many(self, events: list[tuple[str, dict[str, Any]]]) -> None:
        for kind, payload in events:
            self.append(kind, payload)

    def events(self) -> list[tuple[str, dict[str, Any]]]:
        return list(self.rows)


class FakeTable:
    """A table as its link reports it: seats, ledger, moves, busts; hands played by the test."""

    def __init__(self, table: str) -> None:
        self.table = table
        self.seats: dict[int, list[Any]] = {}
        self.applied, self.hands, self.go, self.ended = 0, 0, None, False
        self.total_in = self.total_out = 0
        self.moved_out: dict[int, int] = {}
        self.moved_in: list[int] = []
        self.busts: dict[int, dict[str, int]] = {}
        self.last_bb: int | None = None

    def carry_out(self, order: dict[str, Any]) -> None:
        if order["id"] <= self.applied:
            return
        self.applied = order["id"]
        out: dict[int, int] = {}
        for m in order["out"]:
            player, stack = self.seats.pop(m["seat"])
            assert player == m["player"]
            self.moved_out[m["move"]] = out[m["move"]] = stack
            self.total_out += stack
        for m in order["in"]:
            chips = m["chips"] if m["chips"] is not None else out[m["move"]]
            assert m["seat"] not in self.seats
            self.seats[m["seat"]] = [m["player"], chips]
            self.moved_in.append(m["move"])
            self.total_in += chips
        self.go, self.ended = order["go"], order["end"]

    def play(self, busts: dict[str, int] | None = None) -> None:
        """Play the hand the room gave the go for: ``busts`` lose everything to the first
        player left (their starting stacks recorded, as the table's hand record does)."""
        assert self.go is not None and self.go["hand"] == self.hands + 1, "dealt without the room's go"
        self.go = None
        self.hands += 1
        busts = busts or {}
        winner = next(s for s, (p, _) in sorted(self.seats.items()) if p not in busts)
        for seat, (p, stack) in list(self.seats.items()):
            if p in busts:
                assert stack == busts[p]
                self.seats[winner][1] += stack
                del self.seats[seat]
        if busts:
            self.busts[self.hands] = dict(busts)
        self.last_bb = sorted(self.seats)[0]

    def report(self) -> bytes:
        return json.dumps({
            "schema": 1, "table": self.table, "applied": self.applied, "hands": self.hands, "running": False,
            "waiting": self.go is None and not self.ended,
            "seats": {str(s): v for s, v in self.seats.items()}, "last_big_blind": self.last_bb,
            "ledger": {"in": self.total_in, "out": self.total_out},
            "moved_out": {str(k): v for k, v in self.moved_out.items()}, "moved_in": self.moved_in,
            "busts": {str(k): v for k, v in self.busts.items()}, "ended": self.ended}).encode()


def room(entries: int = 12) -> tuple[RoomTournament, dict[str, FakeTable], list[dict[str, Any]], Journal]:
    sent: list[dict[str, Any]] = []
    journal = Journal()
    tables = {t: FakeTable(t) for t in ("t1", "t2")}
    clock = [0.0]
    d = RoomTournament(load_settings(ROOM_TOML), ROOM_TOML, list(tables), journal,
                       lambda t, p: sent.append(json.loads(p)), lambda: clock[0])
    d.start(entries, 4)
    return d, tables, sent, journal


def exchange(d: RoomTournament, tables: dict[str, FakeTable], sent: list[dict[str, Any]], *names: str) -> None:
    """``names`` report; the room steps; each table carries out its new orders and reports again."""
    for t in names:
        d.report(t, tables[t].report())
    for _ in range(3):
        n = len(sent)
        d.step()
        for order in sent[n:]:
            tables[order["table"]].carry_out(order)
            d.report(order["table"], tables[order["table"]].report())


def test_tda_hand_for_hand_every_table_waits_and_busts_at_two_tables_are_one_hand() -> None:
    d, tables, sent, journal = room()
    exchange(d, tables, sent, "t1", "t2")
    t1, t2 = tables["t1"], tables["t2"]
    assert len(t1.seats) == len(t2.seats) == 6 and t1.go and t2.go  # the draw, then the first deal
    # hand 1: one bust at each table (12 -> 10 left, nine paid: the bubble, hand-for-hand)
    p1, s1 = next(iter(t1.seats.values()))
    p2, s2 = next(iter(t2.seats.values()))
    t1.play({p1: s1})
    t2.play({p2: s2})
    exchange(d, tables, sent, "t1", "t2")
    assert len(d.standings.alive) == 10 and d.hand_for_hand()
    assert t1.go and t2.go
    # hand 2, hand-for-hand: t1 finishes first with a bust; it waits, nothing is placed yet
    s1_, s1_win = sorted(t1.seats)[1], sorted(t1.seats)[0]
    s2_, s2_win = sorted(t2.seats)[1], sorted(t2.seats)[0]
    a, b = t1.seats[s1_][0], t2.seats[s2_][0]
    t1.seats[s1_win][1] += t1.seats[s1_][1] - 700  # stacks that decide the places, chips kept
    t2.seats[s2_win][1] += t2.seats[s2_][1] - 1500
    t1.seats[s1_][1], t2.seats[s2_][1] = a_stack, b_stack = 700, 1500
    t1.play({a: a_stack})
    n = len(sent)
    exchange(d, tables, sent, "t1")
    assert not [o for o in sent[n:] if o["table"] == "t1" and o["go"]], "t1 dealt before t2 finished its hand"
    assert len(d.standings.alive) == 10
    t2.play({b: b_stack})
    exchange(d, tables, sent, "t2")
    busts = [p for k, p in journal.rows if k == "bust"]
    assert busts[-1]["busted"] == {a: 700, b: 1500} and sorted(h for _, h in busts[-1]["hands"]) == [2, 2]
    places = {f.player: f.place for f in d.standings.finishes(registration_closed=True)}
    assert places[a] == 10 and places[b] == 9  # one hand: fewer chips at its start, the worse place
    assert not d.problems and d.checks > 0


def test_the_room_finds_chips_that_went_missing_between_two_tables() -> None:
    d, tables, sent, _ = room()
    exchange(d, tables, sent, "t1", "t2")
    assert not d.problems
    tables["t1"].total_in += 25  # chips brought to t1 that no entry, rebuy or move paid for
    d.report("t1", tables["t1"].report())
    assert d.problems and d.problems[-1].startswith("chips: tables 24025")


def test_a_malformed_report_is_refused_and_changes_nothing() -> None:
    d, tables, sent, journal = room()
    exchange(d, tables, sent, "t1", "t2")
    before = (dict(d.reports), len(journal.rows), len(sent))
    good = json.loads(tables["t1"].report())
    for bad in (b"not json", b"[]", json.dumps(dict(good, table="t2")).encode(),
                json.dumps(dict(good, seats={"1": "p1"})).encode(),
                json.dumps(dict(good, moved_out={"x": 5})).encode(),
                json.dumps(dict(good, busts={"3": {"p1": -1}})).encode(),
                json.dumps(dict(good, ledger={"in": "many", "out": 0})).encode()):
        d.report("t1", bad)
    assert (dict(d.reports), len(journal.rows), len(sent)) == before and not d.problems


def restored(journal: Journal, clock: float = 0.0) -> tuple[RoomTournament, list[dict[str, Any]]]:
    """A room started again on ``journal`` (its director restored, nothing reported yet)."""
    sent: list[dict[str, Any]] = []
    d = RoomTournament(load_settings(ROOM_TOML), ROOM_TOML, ["t1", "t2"], journal,
                       lambda t, p: sent.append(json.loads(p)), lambda: clock)
    assert d.restore()
    return d, sent


def test_a_room_killed_before_its_clock_first_event_starts_the_clock_on_restore() -> None:
    """The start, the entries and the draw are one transaction, the clock's first event the
    next one: a room killed between the two came back with a clock never started, and its
    first ``go`` raised (``clock: the tournament has not started``)."""
    d, tables, sent, journal = room()
    assert [k for k, _ in journal.rows][-1] == "clock"
    journal.rows = [(k, p) for k, p in journal.rows if k != "clock"]  # killed before it
    d2, sent2 = restored(journal, 5.0)
    assert d2.clock.status(5.0).started and d2.clock.status(5.0).running
    assert [k for k, _ in journal.rows][-1] == "clock" and journal.rows[-1][1]["clock"]["started"]
    exchange(d2, tables, sent2, "t1", "t2")
    t1, t2 = tables["t1"], tables["t2"]
    assert len(t1.seats) == len(t2.seats) == 6 and t1.go and t2.go  # the draw carried out, the first deal
    assert t1.go["stakes"]["big_blind"] == 50 and not d2.problems


class TxJournal(Journal):
    """A journal that keeps its transactions apart (``append``: one; ``append_many``: one)."""

    def __init__(self) -> None:
        super().__init__()
        self.tx: list[list[str]] = []

    def append(self, kind: str, payload: dict[str, Any]) -> None:
        super().append(kind, payload)
        self.tx.append([kind])

    def append_many(self, events: list[tuple[str, dict[str, Any]]]) -> None:
        for kind, payload in events:
            Journal.append(self, kind, payload)
        self.tx.append([k for k, _ in events])


def test_a_bust_and_the_calling_off_of_that_player_s_move_are_one_transaction() -> None:
    """A room killed between the two came back with the bust but the move still planned."""
    sent: list[dict[str, Any]] = []
    journal = TxJournal()
    tables = {t: FakeTable(t) for t in ("t1", "t2")}
    d = RoomTournament(load_settings(ROOM_TOML), ROOM_TOML, list(tables), journal,
                       lambda t, p: sent.append(json.loads(p)), lambda: 0.0)
    d.start(12, 4)
    exchange(d, tables, sent, "t1", "t2")
    t1, t2 = tables["t1"], tables["t2"]
    assert t1.go and t2.go
    seat, (player, stack) = sorted(t1.seats.items())[-1]
    free = min(n for n in range(1, 9) if n not in t2.seats)
    mid = max(d.moves) + 1  # a move decided (journalled as a round) while t1 plays its hand
    d._round([], [Move(player, "t1", seat, "t2", free, "balance")])
    assert d.moves[mid]["state"] == "planned"
    t1.play({player: stack})
    d.report("t1", t1.report())
    d.step()
    assert d.moves[mid]["state"] == "cancelled" and player not in d.standings.alive
    tx = next(t for t in journal.tx if "bust" in t)
    assert tx == ["bust", "cancelled"], journal.tx
    d2, _ = restored(journal)  # and the room restored from it holds the move called off
    assert d2.moves[mid]["state"] == "cancelled"


def _one_move_t1_to_t2(d: Any, tables: dict[str, Any], sent: list[dict[str, Any]]) -> tuple[Any, Any, str, int, int]:
    """Both tables play a hand; the room then plans one balance move of t1's last seat to t2's
    lowest free seat. Return (t1, t2, the player, that seat, the move's id)."""
    exchange(d, tables, sent, "t1", "t2")
    t1, t2 = tables["t1"], tables["t2"]
    t1.play()
    t2.play()
    seat, (player, _) = sorted(t1.seats.items())[-1]
    free = min(n for n in range(1, 9) if n not in t2.seats)
    d._round([], [Move(player, "t1", seat, "t2", free, "balance")])
    return t1, t2, player, free, max(d.moves)


def test_a_move_in_reported_late_after_the_player_busted_there_is_no_problem() -> None:
    """The target carried out the move-in and dealt the ``go`` of the same order; the player
    busted in that hand before the room took the report (a room killed and started again hears
    it only then): the move is settled, the player is not missing from his seat."""
    d, tables, sent, journal = room()
    t1, t2, player, free, mid = _one_move_t1_to_t2(d, tables, sent)
    exchange(d, tables, sent, "t1")  # t1 carries out the move-out
    assert d.moves[mid]["state"] == "out"
    n = len(sent)
    d.report("t2", t2.report())
    d.step()
    order = next(o for o in sent[n:] if o["table"] == "t2")
    assert [m["move"] for m in order["in"]] == [mid] and order["go"]
    t2.carry_out(order)
    t2.play({player: t2.seats[free][1]})  # the room never took the report in between
    d.report("t2", t2.report())
    assert d.moves[mid]["state"] == "in" and not d.problems, d.problems
    d.step()
    assert player not in d.standings.alive and not d.problems


def test_a_room_killed_just_after_the_last_bust_declares_the_winner_when_started_again() -> None:
    d, tables, sent, journal = room()
    exchange(d, tables, sent, "t1", "t2")
    alive = sorted(d.standings.alive)
    journal.append("bust", {"busted": {p: STACK for p in alive[1:]}, "hands": [["t1", 1]]})  # killed here
    d2, _ = restored(journal)
    d2.step()
    assert d2.result is not None and d2.result["places"][0] == alive[0]
    assert [k for k, _ in journal.rows].count("payouts") == 1


def test_a_report_of_a_table_process_the_room_replaced_is_stale_not_a_problem() -> None:
    """t1's process was killed while it carried out a move-out (its report still seated the
    player); the process that replaced it carried the move out. The dead one's report, on its
    way meanwhile, comes last: its ``pid`` says it is stale."""
    d, tables, sent, journal = room()
    t1, t2, player, free, mid = _one_move_t1_to_t2(d, tables, sent)
    d.table_pids["t1"] = 2002  # the room started t1 again: process 2002 replaced 1001
    d.report("t1", t1.report())
    n = len(sent)
    d.step()
    order = next(o for o in sent[n:] if o["table"] == "t1")
    dead = dict(json.loads(t1.report()), applied=order["id"], pid=1001)  # took the order, player still seated
    t1.carry_out(order)
    d.report("t1", json.dumps(dict(json.loads(t1.report()), pid=2002)).encode())
    assert d.moves[mid]["state"] == "out"
    refused = d.refused
    d.report("t1", json.dumps(dead).encode())  # the dead process's report, late
    assert d.refused == refused + 1 and not d.problems, d.problems
    assert int(d.reports["t1"]["pid"]) == 2002


def test_a_table_report_carries_its_process_id() -> None:
    import os
    from unittest import mock

    from controller.tournament_link import RoomTournamentSeat

    seat = RoomTournamentSeat("t1", host="127.0.0.1", port=1)
    state = mock.Mock(hands=0, hand=None, rotation=None, ledger=mock.Mock(total_in=0, total_out=0))
    state.occupied.return_value = []
    seat.orch = mock.Mock(state=state)
    assert seat.report()["pid"] == os.getpid()
