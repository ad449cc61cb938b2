"""Late registration through the room, hardened after breaker 2's findings (issue 19, TDA 9):
names that look alike are one player (H1: format characters, NFC/NFD, full-width forms),
invisible or unencodable names are refused (M1, H4), a re-entry by id keeps the player's name
(M2), and a table keeps publishing its state whatever name reaches it (H4). The harness is
test_room_tournament_register.py's: the room's real RoomTournament against tables played by
the test."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from controller.devices.ports import DevicePorts
from controller.engine.table import events as ev
from controller.engine.table.seating import player_for_name
from controller.engine.table.settings import TableSettings
from controller.runtime import open_table
from controller.tournament.errors import TournamentError
from drivers.mqtt.link import TableLink
from tests.room.test_room_tournament_console import call
from tests.room.test_room_tournament_director import FakeTable
from tests.room.test_room_tournament_register import TABLES, Room, console  # noqa: F401 - fixture
from tests.tournament.test_director import _table


def _table_of(r: Room, player: str) -> str:
    return next(t for t, ft in r.tables.items() if any(v[0] == player for v in ft.seats.values()))


@pytest.mark.parametrize("name", ["\u200b", "\u2060", "\ufeff", "\u200e\u200f", "\u202eAnn", "Ann\u2066",
                                  "Lena \ud800", "Ann \ue000", "Ann \u0378"])
def test_m1_h4_an_invisible_or_unencodable_name_is_refused_and_nothing_is_journalled(name: str) -> None:
    r = Room(21)
    r.exchange(*TABLES)
    rows, entries = len(r.journal.rows), len(r.d.standings.entries)
    with pytest.raises(TournamentError, match="TDA 9: a player's name .* invisible"):
        r.d.register(name, by="Anna")
    assert (len(r.journal.rows), len(r.d.standings.entries)) == (rows, entries)


@pytest.mark.parametrize("suffix", ["\u200b", "\u200d", "\u2060"])
def test_h1_a_format_character_does_not_make_a_second_live_player_of_one_name(suffix: str) -> None:
    r = Room(21)
    r.exchange(*TABLES)
    p = next(iter(r.tables["t1"].seats.values()))[0]
    with pytest.raises(TournamentError):
        r.d.register(r.d.names[p] + suffix, by="Anna")
    assert len(r.d.standings.entries) == 21


def test_h1_the_reentry_limit_cannot_be_dodged_with_a_zero_width_character() -> None:
    r = Room(21)
    r.exchange(*TABLES)
    p = next(iter(r.tables["t2"].seats.values()))[0]
    name = r.d.names[p]
    r.bust("t2", p)
    r.d.register(name, by="Anna")  # reentry.max = 1: his one re-entry
    r.hand(*TABLES)
    r.bust(_table_of(r, p), p)
    entries, pool = len(r.d.standings.entries), r.d.standings.prize_pool()
    for variant in (name, "\u200b" + name, name.upper() + "\ufeff"):
        with pytest.raises(TournamentError):
            r.d.register(variant, by="Anna")
    assert (len(r.d.standings.entries), r.d.standings.prize_pool()) == (entries, pool)


@pytest.mark.parametrize("first, again", [("Zo\u00eb Martin", "Zoe\u0308 Martin"), ("Zoe\u0308 Martin", "ZO\u00cb MARTIN"),
                                          ("Ann Lee", "\uff21nn Lee")])
def test_h1_one_name_in_another_unicode_form_is_the_same_player(first: str, again: str) -> None:
    r = Room(21)
    r.exchange(*TABLES)
    said = r.d.register(first, by="Anna")
    player = said.split("(")[1].split(")")[0]
    assert r.d.names[player] == __import__("unicodedata").normalize("NFC", first)  # stored NFC
    with pytest.raises(TournamentError, match="still in the tournament"):
        r.d.register(again, by="Anna")
    assert player_for_name(first) == player_for_name(again)


def test_m2_a_reentry_by_player_id_under_another_name_is_refused_and_the_name_kept() -> None:
    r = Room(21)
    r.exchange(*TABLES)
    p = next(iter(r.tables["t3"].seats.values()))[0]
    name = r.d.names[p]
    r.bust("t3", p)
    rows = len(r.journal.rows)
    with pytest.raises(TournamentError, match=f"player {p} is registered as {name}, not Totally Different"):
        r.d.register("Totally Different", by="Anna", player=p)
    assert r.d.names[p] == name and len(r.journal.rows) == rows
    assert "re-enters" in r.d.register(name.lower(), by="Anna", player=p)  # his own name: a re-entry
    assert r.d.names[p] == name


def test_h4_the_console_refuses_a_lone_surrogate_with_a_400(console: dict[str, Any]) -> None:  # noqa: F811
    got, answer = call(console, {"command": "register", "name": "Lena \ud800", "by": "Anna"})
    assert got == 400 and "invisible" in answer["error"], (got, answer)


def test_h4_a_table_keeps_publishing_its_state_after_an_unencodable_name_arrives(tmp_path: Path) -> None:
    """Whatever path brings the name (an older room, a journal replayed): the table's state
    goes on being published, the name sent with a replacement character."""
    ports = DevicePorts()
    link = TableLink("t1", host="127.0.0.1", port=1, username="controller", password="x", post=lambda e: None,
                     max_seats=8)  # not connected: publish_state encodes, then keeps the retained view
    ports.link = link
    s = TableSettings(id="t1", name="Birch", seats=8, small_blind=25, big_blind=50, buy_in_min=40,
                      buy_in_max=200000)
    orch, _ = open_table(tmp_path / "t1.sqlite", s, clock=time.time, ports=ports)
    try:
        orch.handle(ev.PlayerSatDown(at=time.time(), seat=1, player="p1", name="Player 1"))
        orch.handle(ev.PlayerSatDown(at=time.time(), seat=3, player="p22", name="Lena \ud800"))  # a move-in
        state = link._retained.get("livetable/t1/state")
        assert state is not None and "Lena ?".encode() in state
        orch.handle(ev.PlayerSatDown(at=time.time(), seat=5, player="p2", name="Player 2"))
        state = link._retained.get("livetable/t1/state")
        assert state is not None and b"Player 2" in state, "the table's state stopped being published"
    finally:
        orch.journal.close()


def test_h1_the_single_tables_floor_register_follows_the_same_name_rule(tmp_path: Path) -> None:
    run, _director, _clock, ask = _table(tmp_path)
    try:
        ok, reason, _ = ask("register", player="Zo\u00eb")
        assert ok, reason
        assert ask("register", player="Zoe\u0308")[1].startswith("F-3: Zoe\u0308 is still in the tournament")
        ok, reason, _ = ask("register", player="Yan\u200b")
        assert not ok and reason is not None and "U+200B ZERO WIDTH SPACE" in reason, reason
    finally:
        run.close()


@pytest.mark.parametrize("field, value", [("by", "Anna\x00"), ("by", "Anna\x1b[2J"), ("by", "Anna\u2028Bob"),
                                          ("by", "\u200b"), ("reason", "late\u202e"), ("reason", "late \ud800")])
def test_h2_m3_by_and_reason_with_control_or_invisible_characters_get_a_400_before_anything(
        console: dict[str, Any], field: str, value: str) -> None:  # noqa: F811
    r = console["room"]
    got, answer = call(console, {"command": "register", "name": "Odd Fellow", "by": "Anna", field: value})
    assert got == 400 and "characters" in answer["error"], (got, answer)
    assert len(r.d.standings.entries) == 21 and "Odd Fellow" not in r.d.names.values()
    assert not console["store"].query("SELECT id FROM room_floor_actions")
    assert not [k for k, _ in r.d.journal.events() if k == "register"]


def test_h2_an_entry_and_its_floor_record_are_written_together_or_not_at_all(console: dict[str, Any]) -> None:  # noqa: F811
    """The floor record cannot be written (a store failure between the two writes): the
    director hears 503 and nothing was entered, so his retry enters the player once."""
    r, store = console["room"], console["store"]
    with store.transaction() as tx:
        tx.execute("CREATE TRIGGER no_floor BEFORE INSERT ON room_floor_actions BEGIN SELECT RAISE(ABORT, 'full'); END")
    got, answer = call(console, {"command": "register", "name": "Ann Smith", "by": "Anna"})
    assert got == 503, (got, answer)
    assert (len(r.d.standings.entries), r.d.standings.prize_pool()) == (21, 2100)
    assert not [k for k, _ in r.d.journal.events() if k == "register"] and "Ann Smith" not in r.d.names.values()
    with store.transaction() as tx:
        tx.execute("DROP TRIGGER no_floor")
    got, answer = call(console, {"command": "register", "name": "Ann Smith", "by": "Anna"})
    assert got == 200 and answer["detail"].startswith("Ann Smith (p22) enters"), answer
    rows = store.query("SELECT action, outcome FROM room_floor_actions")
    assert [(a, json.loads(o)["detail"]) for a, o in rows] == [("register", answer["detail"])]
    assert [p["player"] for k, p in r.d.journal.events() if k == "register"] == ["p22"]


class SeatRefusingTable(FakeTable):
    """A table that refuses a move-in to a taken seat, or to a seat in ``broken``, as the real
    link does (controller/tournament_link.py ``_move_in``: ``refused_in`` in its report)."""

    def __init__(self, table: str) -> None:
        super().__init__(table)
        self.refused_in: dict[int, int] = {}
        self.broken: set[int] = set()

    def carry_out(self, order: dict[str, Any]) -> None:
        if order["id"] <= self.applied:
            return
        ins = order["in"]
        super().carry_out(dict(order, **{"in": []}))
        for m in ins:
            if m["seat"] in self.seats or m["seat"] in self.broken:
                self.refused_in[m["move"]] = m["seat"]
                continue
            self.refused_in.pop(m["move"], None)
            self.seats[m["seat"]] = [m["player"], m["chips"]]
            self.moved_in.append(m["move"])
            self.total_in += m["chips"]

    def report(self) -> bytes:
        rep = json.loads(super().report())
        rep["refused_in"] = {str(k): v for k, v in self.refused_in.items()}
        return json.dumps(rep).encode()


def _restarted(*reporting: str) -> Room:
    """21 players 7/7/7 at three tables of 8; the room killed and restored; ``reporting`` report."""
    r = Room(0)
    r.tables = {t: SeatRefusingTable(t) for t in TABLES}
    r.d.start(21, 7)
    r.exchange(*TABLES)
    r.d = r.director()
    assert r.d.restore()
    for t in reporting:
        r.d.report(t, r.tables[t].report())
    return r


def test_h3_after_a_restart_late_entries_go_only_to_tables_heard_from_and_wait_for_the_others() -> None:
    r = _restarted("t1", "t2")  # t3 is late: its 7 players are not an empty table
    for name in ("L1", "L2"):
        r.d.register(name, by="Anna")
    late = [m for m in r.d.moves.values() if m["reason"] == "late"]
    assert sorted(m["to"] for m in late) == ["t1", "t2"]
    assert all(m["to_seat"] not in r.tables[m["to"]].seats for m in late)
    rows, entries = len(r.journal.rows), len(r.d.standings.entries)
    with pytest.raises(TournamentError, match="F-3: no seat is known to be free: wait until t3 reports"):
        r.d.register("L3", by="Anna")  # t1 and t2 are full now
    assert (len(r.journal.rows), len(r.d.standings.entries)) == (rows, entries)
    r.exchange("t3")
    assert "t3 seat" in r.d.register("L3", by="Anna")
    for _ in range(3):
        r.hand(*TABLES)
    assert [len(r.tables[t].seats) for t in TABLES] == [8, 8, 8] and not r.d.problems, r.d.problems
    assert all(m["state"] == "in" for m in r.d.moves.values() if m["reason"] == "late")
    assert all(ft.hands >= 3 for ft in r.tables.values()), {t: ft.hands for t, ft in r.tables.items()}
    r.d.check()
    assert not r.d.problems and r.d.standings.chips_in_play() == 24 * 2000


def test_h3_a_late_entry_refused_at_a_full_table_is_replanned_at_another_table_with_a_free_seat() -> None:
    r = _restarted(*TABLES)
    said = r.d.register("Late Lou", by="Anna")
    mid = max(r.d.moves)
    first, seat = r.d.moves[mid]["to"], r.d.moves[mid]["to_seat"]
    r.tables[first].broken.add(seat)  # its one free seat cannot take him (the room's view was wrong)
    r.hand(*TABLES)
    m = r.d.moves[mid]
    assert m["to"] != first and m["to_seat"] not in r.tables[m["to"]].seats, (said, m, r.d.problems)
    assert not r.d.problems, r.d.problems
    r.hand(*TABLES)
    assert r.d.moves[mid]["state"] == "in" and r.tables[m["to"]].seats[m["to_seat"]][0] == m["player"]
    assert sorted(len(ft.seats) for ft in r.tables.values()) == [7, 7, 8] and not r.d.problems
    again = r.director()  # the re-plan is journalled: a restart keeps it
    assert again.restore() and (again.moves[mid]["to"], again.moves[mid]["to_seat"]) == (m["to"], m["to_seat"])


def test_h2_a_retry_after_a_lost_answer_says_the_entry_is_registered_already() -> None:
    """The director's answer was lost (the room killed after the journal, a connection error):
    his retry is refused and says the entry was made, with its seat; nothing is entered twice."""
    r = Room(21)
    r.exchange(*TABLES)
    said = r.d.register("Ann Smith", by="Anna")
    m = r.d.moves[max(r.d.moves)]
    again = r.director()
    assert again.restore()
    with pytest.raises(TournamentError, match="registered already") as exc:
        again.register("ann smith", by="Anna")
    assert f"{m['to']} seat {m['to_seat']}" in str(exc.value) and f"{m['to']} seat {m['to_seat']}" in said
    assert len(again.standings.entries) == 22
