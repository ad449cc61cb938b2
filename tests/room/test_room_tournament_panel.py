"""The floor console's tournament panel (issue 19): what the floor follows between hands —
hand-for-hand, the moves under way, the tables broken in their order, the places so far —
from ``GET /api/tournament`` (:meth:`room.tournament.RoomTournament.director_status`), and
the panel's register form (``POST /api/tournament`` ``register``).

The room's director on two tables played by this test (tests/room/test_room_tournament_director.py's
harness: each order carried out as a table's link does), behind the real console and the
desk, its calls run on a loop thread as the room's are; the page in Chromium (Playwright)
checked against the status the console answers at that moment."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.tournament.results import payout_amounts
from controller.tournament.settings import load_settings
from room.console import serve_console
from room.store import open_store
from room.tournament import RoomTournament, StoreJournal
from room.tournament_desk import TournamentDesk
from tests.room.test_room_tournament_console import Loop, Service, _login, call
from tests.room.test_room_tournament_director import FakeTable, exchange
from tests.room.test_room_tournament_register import LATE_TOML
from tests.tablet.conftest import CHROMIUM, CHROMIUM_FLAGS, SKIP, sync_playwright


@pytest.fixture
def panel(tmp_path: Path) -> Iterator[dict[str, Any]]:
    """12 entries on t1, t2 (8 seats each; 9 places paid from 12 or 13 entries: the bubble at 10
    left), late registration open through level 2; the clock held at 20 s into level 1. No seats
    kept for late entries (``late_registration_free_seats = 0``): the final table breaks as soon
    as the players fit, registration open or not (the reserve's own tests:
    tests/room/test_room_tournament_late_seats.py)."""
    toml = LATE_TOML.replace("seats_per_table = 8", "seats_per_table = 8\nlate_registration_free_seats = 0")
    sent: list[dict[str, Any]] = []
    tables = {t: FakeTable(t) for t in ("t1", "t2")}
    store = open_store(tmp_path / "room.sqlite")
    # the room's journal, as the service has it: a registration and its floor record in one transaction
    d = RoomTournament(load_settings(toml), toml, list(tables), StoreJournal(store),
                       lambda t, p: sent.append(json.loads(p)), lambda: 20.0)
    d.start(12, 4)
    exchange(d, tables, sent, "t1", "t2")
    desk = TournamentDesk(d)
    served = serve_console(Service(store), tmp_path / "floor-logins.json", tournament=desk)
    loop = Loop(desk)
    password = served.login_hint.split(" / ")[1]
    try:
        yield {"url": served.url, "password": password, "opener": _login(served.url, password), "desk": desk,
               "director": d, "tables": tables, "sent": sent, "tmp": tmp_path}
    finally:
        loop.stop.set()
        loop.thread.join(5)
        served.stop()
        store.close()


def _lose(t: FakeTable, seats: list[int], keeps: list[int]) -> dict[str, int]:
    """The players at ``seats`` go into the hand with ``keeps`` chips (the rest given to the
    first other seat, chips conserved) and bust: their starting stacks, as the hand records them."""
    win = next(s for s in sorted(t.seats) if s not in seats)
    busts = {}
    for s, keep in zip(seats, keeps):
        t.seats[win][1] += t.seats[s][1] - keep
        t.seats[s][1] = keep
        busts[t.seats[s][0]] = keep
    return busts


def bubble(c: dict[str, Any]) -> None:
    """One hand: two busts at t1, one at t2 (different stacks: 13th, 12th, 11th) -> 10 left
    of 13 entries, 9 paid: hand-for-hand. Run on the loop's thread (the desk), as the room's."""
    def run(d: RoomTournament) -> None:
        t1, t2 = c["tables"]["t1"], c["tables"]["t2"]
        t1.play(_lose(t1, sorted(t1.seats)[1:3], [700, 800]))
        t2.play(_lose(t2, sorted(t2.seats)[1:2], [900]))
        exchange(d, c["tables"], c["sent"], "t1", "t2")
    c["desk"].call(run)


def break_t2(c: dict[str, Any]) -> None:
    """The hand-for-hand hand: two busts at t2 -> 8 left: t2 breaks into t1 (the final table,
    its seats drawn again); the room orders the moves and the tables have not carried them out."""
    def run(d: RoomTournament) -> None:
        t1, t2 = c["tables"]["t1"], c["tables"]["t2"]
        t1.play()
        t2.play(_lose(t2, sorted(t2.seats)[1:3], [1000, 1100]))
        for t in ("t1", "t2"):
            d.report(t, c["tables"][t].report())
        d.step()
    c["desk"].call(run)


def register(c: dict[str, Any], body: dict[str, Any]) -> tuple[int, Any]:
    return call(c, {"command": "register", **body})


def test_the_status_shows_the_moves_the_breaks_and_the_places_as_the_room_has_them(panel: dict[str, Any]) -> None:
    code, st = call(panel)
    assert code == 200 and not st["hand_for_hand"] and st["busts"] == [] and st["broken_order"] == []
    assert st["moves"] == []  # the draw's seats were taken: nothing under way
    code, r = register(panel, {"name": "Zoe Late", "by": "Anna"})
    assert code == 200, r
    late = r["status"]["moves"]
    assert [(m["player"], m["name"], m["from"], m["from_seat"], m["reason"], m["why"], m["state"]) for m in late] == [
        ("p13", "Zoe Late", None, 0, "late", "late entry, TDA 9", "planned")]
    assert f"{late[0]['to']} seat {late[0]['to_seat']}" in r["detail"]
    panel["desk"].call(lambda d: exchange(d, panel["tables"], panel["sent"], "t1", "t2"))  # the table seats her
    bubble(panel)
    code, st = call(panel)
    assert st["hand_for_hand"] and st["players_left"] == 10 and st["entries"] == 13 and st["places_paid"] == 9
    assert [(b["place"], b["tied_to"], b["prize"]) for b in st["busts"]] == [(11, 11, 0), (12, 12, 0), (13, 13, 0)]
    d = panel["director"]
    assert [b["name"] for b in st["busts"]] == [d.names[b["player"]] for b in st["busts"]]
    break_t2(panel)
    code, st = call(panel)
    assert not st["hand_for_hand"] and st["players_left"] == 8 and st["broken_order"] == ["t2"]
    assert [t["broken"] for t in st["tables"]] == [False, True]
    busts = st["busts"]
    assert [b["place"] for b in busts] == [9, 10, 11, 12, 13]
    ninth = payout_amounts(d.settings.payouts, st["prize_pool"], st["entries"])[8]  # 3% to 5s: 35 of 1,300
    assert ninth == 35 and busts[0]["prize"] == ninth and all(b["prize"] == 0 for b in busts[1:])
    moves = st["moves"]
    from_t2 = [m for m in moves if m["from"] == "t2"]
    assert len(from_t2) == 3 and all(m["to"] == "t1" and m["reason"] == "break+redraw" for m in from_t2)
    assert all(m["why"] == "table broken, TDA 10; final table redraw" and m["state"] == "planned" for m in from_t2)
    # under way: t2's three players still sit where the moves take them from (t2 has not carried them out)
    assert {m["from_seat"]: m["player"] for m in from_t2} == {s: v[0] for s, v in panel["tables"]["t2"].seats.items()}
    assert sorted(m["to_seat"] for m in moves) == list(range(1, 9))  # the final table's eight seats, drawn again

    def carry_out(d: RoomTournament) -> None:  # the tables carry out the orders they were sent, and report
        for order in list(panel["sent"]):
            panel["tables"][order["table"]].carry_out(order)
        exchange(d, panel["tables"], panel["sent"], "t1", "t2")
    panel["desk"].call(carry_out)
    code, st = call(panel)
    assert st["moves"] == [] and st["broken_order"] == ["t2"]  # carried out: no longer under way


def test_a_register_refused_says_why_and_a_bad_name_is_a_400(panel: dict[str, Any]) -> None:
    assert register(panel, {"name": "Player 3"}) == (409, {
        "error": "F-3: Player 3 is still in the tournament (a re-entry comes after a bust)", "refused": True})
    code, body = register(panel, {"name": "two\tnames"})
    assert code == 400 and "register needs name: one line of 1..40 characters" in body["error"]
    assert call(panel)[1]["entries"] == 12


@pytest.mark.skipif(SKIP is not None, reason=SKIP or "")
@pytest.mark.timeout(120)
def test_the_console_panel_shows_hand_for_hand_moves_breaks_places_and_registers(panel: dict[str, Any]) -> None:
    shot = panel["tmp"] / "tournament-panel.png"  # the test's tmp dir: looked at, not committed
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(panel["url"])
            page.fill("#name", "floor")
            page.fill("#password", panel["password"])
            page.click("#login button")
            page.wait_for_selector("#tournament:not(.hidden)", timeout=20_000)
            assert page.text_content("#tournament .t-h4h") == "hand-for-hand off"
            assert page.text_content("#tournament .t-moves") == "none"
            assert "nobody is out yet" in (page.text_content("#tournament .t-busts") or "")
            assert page.text_content("#tournament .t-broken") == "none"
            # the register form: a late entry, then the same name again, refused with the reason
            page.fill("#tournament .t-reg-name", "Zoe Late")
            page.fill("#tournament .t-reg-by", "Anna")
            page.click("#tournament form.t-register button")
            page.wait_for_selector("#tournament .t-reg-note.ok", timeout=20_000)
            note = page.text_content("#tournament .t-reg-note") or ""
            st = call(panel)[1]
            late = st["moves"][0]
            assert note == (f"Zoe Late (p13) enters at level 1: {late['to']} seat {late['to_seat']}, 2,000 chips "
                            "(Anna)")
            assert page.text_content("#tournament .t-move[data-player='p13']") == (
                f"Zoe Late p13: enters → {late['to']} seat {late['to_seat']} (late entry, TDA 9; ordered)")
            assert page.input_value("#tournament .t-reg-name") == ""
            page.fill("#tournament .t-reg-name", "zoe late.")
            page.click("#tournament form.t-register button")
            page.wait_for_selector("#tournament .t-reg-note.err", timeout=20_000)
            # the same player again (his name as the room compares names): refused, saying where he sits
            assert page.text_content("#tournament .t-reg-note") == (
                "refused: F-3: Zoe Late is still in the tournament (a re-entry comes after a bust): his entry "
                f"at {late['to']} seat {late['to_seat']} is registered already (a retry after a lost answer "
                "changes nothing)")
            panel["desk"].call(lambda d: exchange(d, panel["tables"], panel["sent"], "t1", "t2"))
            bubble(panel)
            page.wait_for_selector("#tournament .t-h4h.on", timeout=20_000)  # the page's next refresh
            assert page.text_content("#tournament .t-h4h") == "hand-for-hand on"
            st = call(panel)[1]
            shown = [[c.strip() for c in r.split("\t")] for r in page.eval_on_selector_all(
                "#tournament tr.t-bust", "rs => rs.map(r => [...r.cells].map(c => c.textContent).join('\\t'))")]
            assert shown == [[f"{b['place']}th", f"{b['name']} {b['player']}", ""] for b in st["busts"]]
            assert len(shown) == 3
            break_t2(panel)
            page.wait_for_selector("#tournament .t-broken-table", timeout=20_000)
            page.wait_for_selector("#tournament .t-h4h.off", timeout=20_000)
            st = call(panel)[1]
            assert page.text_content("#tournament .t-broken") == "1. t2"
            lines = page.eval_on_selector_all("#tournament li.t-move", "ls => ls.map(l => l.textContent)")
            assert lines == [f"{m['name']} {m['player']}: {m['from']} seat {m['from_seat']} → {m['to']} seat "
                             f"{m['to_seat']} ({m['why']}; ordered)" for m in st["moves"]]
            assert sum("t2 seat" in x and "table broken, TDA 10" in x for x in lines) == 3
            first = page.eval_on_selector("#tournament tr.t-bust", "r => [...r.cells].map(c => c.textContent)")
            assert first[0] == "9th" and first[2] == f"{st['busts'][0]['prize']:,}" and st["busts"][0]["prize"] > 0
            assert "t2: broken" in (page.text_content("#tournament") or "")
            page.screenshot(path=str(shot), full_page=True)
            assert errors == []
        finally:
            browser.close()
    assert shot.stat().st_size > 10_000


def test_the_director_status_prints_the_moves_the_breaks_and_the_places(panel: dict[str, Any], capsys: Any,
                                                                         monkeypatch: Any) -> None:
    """``livetable room director status`` says what the console's panel shows: the moves under way
    (each player, from where to where, why, how far), the tables broken and the places so far."""
    from room import director_cli

    monkeypatch.setenv("LIVETABLE_ROOM_PASSWORD", panel["password"])

    def status() -> list[str]:
        assert director_cli.main(["--console", panel["url"], "status"]) == 0
        return capsys.readouterr().out.splitlines()

    out = status()
    assert "moves under way: none" in out and "tables broken: none" in out
    assert "places so far: nobody is out yet" in out
    bubble(panel)
    break_t2(panel)
    code, st = call(panel)
    out = status()
    d = panel["director"]
    moves = st["moves"]
    assert f"moves under way ({len(moves)}):" in out and len(moves) >= 3
    for m in moves:
        src = f"{m['from']} seat {m['from_seat']}"
        assert (f"  {d.names[m['player']]} ({m['player']}): {src} -> t1 seat {m['to_seat']} "
                f"({m['why']}; ordered)") in out, (m, out)
    assert "tables broken: 1. t2" in out
    busts = st["busts"]
    assert f"places so far ({len(busts)}):" in out
    assert len(busts) == 5 and busts[0]["prize"] > 0 and busts[-1]["prize"] == 0  # in and out of the money
    for b in busts:
        paid = f" {b['prize']:,}" if b["prize"] else ""
        assert f"  {b['place']}th {b['name']} ({b['player']}){paid}" in out, (b, out)
    # in that order: the clock, the tables, the moves, the breaks, the places
    assert out.index("tables broken: 1. t2") < out.index(f"places so far ({len(busts)}):")
