"""A tournament re-entry asked at the busted player's seat tablet in Chromium (issue 19, TDA 9):
seat 3's page, logged in with its own seat login on a private broker, shows its finish and
"Re-enter (1 left, until end of level 4)" while the room's view offers it at the empty seat;
a tap sends ``op`` reenter on the seat's own lobby topic with no list and no name (the test,
as the table's controller, reads it there); then the seat says it waits for the dealer, who
takes the money and confirms it (T-3), then for the room's director, and where the room
seats him. No controller: the test plays the table's part (its side is
tests/controller/test_reentry_request.py, the room's tests/room/test_room_tournament_reentry_request.py)."""

from __future__ import annotations

import json
import queue
from typing import Any, Iterator

import pytest

from . import screen_states as ss
from .conftest import SKIP, TABLE, TableRig, open_tablet, shot, wait_js
from .test_tablet_screens_e2e import Publisher

pytestmark = [pytest.mark.broker, pytest.mark.skipif(SKIP is not None, reason=SKIP or "")]


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TableRig]:
    r = TableRig(tmp_path_factory.mktemp("tablet-reentry"), seats=10, tablet_seats=(ss.ME,))
    try:
        yield r.start(table=False)
    finally:
        r.stop()


def busted_state(**over: Any) -> dict[str, Any]:
    """Between hands at a table of the room's tournament; our seat is empty: its player busted 21st."""
    s, _ = ss.join_free_seat()
    s.pop("join", None)
    for x in s["seats"]:
        if x["status"] != "empty":
            x.update(status="waiting", bet=0, cards=0)
    s.update(street="waiting", hand=None, turn=None, board=[], pots=[])
    s["tournament_view"] = {
        "level": {"number": 2, "small_blind": 50, "big_blind": 100, "ante": 0, "big_blind_ante": 0},
        "next_level": {"number": 3, "small_blind": 100, "big_blind": 200, "ante": 0, "big_blind_ante": 0},
        "seconds_left": 600, "running": True, "at": 0, "on_break": False, "players_left": 20, "entries": 21,
        "average_stack": 2100, "prize_pool": 2100, "finished": False, "seats_bb": {},
        "out": {str(ss.ME): {"name": "Chris", "place": 21, "tied_to": 21, "prize": 0}},
        "reentry": {str(ss.ME): {"left": 1, "until_level": 4}}, **over}
    return s


def test_the_busted_player_asks_his_re_entry_from_his_seat(browser: Any, rig: TableRig) -> None:
    pub = Publisher(rig)
    requests: "queue.Queue[dict[str, Any]]" = queue.Queue()
    pub.client.on_message = lambda c, u, m: requests.put(json.loads(m.payload))
    pub.client.subscribe(f"livetable/{TABLE}/seat/{ss.ME}/lobby", qos=1)
    try:
        pub.publish("presence/controller", {"schema": 1, "online": True}, retain=True)
        page = open_tablet(browser, rig.url(ss.ME))
        wait_js(page, "(t) => window.livetable.received.includes(t)", f"livetable/{TABLE}/presence/controller",
                timeout=15_000)
        seq = pub.show(busted_state(), None)
        wait_js(page, "(seq) => window.livetable.state && window.livetable.state.seq === seq", seq, timeout=15_000)
        button = page.locator("#actions button[data-act=reenter]")
        button.wait_for(timeout=15_000)
        assert button.inner_text() == "Re-enter (1 left, until end of level 4)"
        assert "You finished 21st" in page.inner_text("#hand-words")
        shot(page, "reentry-offered")
        button.click()
        try:
            req = requests.get(timeout=15)
        except queue.Empty:
            pytest.fail("no re-entry request from the page within 15 s")
        assert set(req) == {"schema", "id", "seat", "op", "list"}  # the page never says who the player is
        assert (req["op"], req["seat"], req["list"]) == ("reenter", ss.ME, None)
        pub.publish(f"seat/{ss.ME}/reply", {"schema": 1, "table": TABLE, "seat": ss.ME, "id": req["id"],
                                            "accepted": True, "reason": None, "seq": seq})
        seq = pub.show(busted_state(asked={str(ss.ME): "reentry"}), None)  # asked: the dealer takes the money
        wait_js(page, "() => document.querySelector('#hand-words').textContent"
                      ".includes('Re-entry asked: pay the dealer, who confirms it')", timeout=15_000)
        assert page.locator("#actions button[data-act=reenter]").count() == 0  # no second press while it waits
        shot(page, "reentry-asked")
        # the dealer confirmed (livetable floor confirm-buyin SEAT): sent to the room's director
        seq = pub.show(busted_state(asked={str(ss.ME): "reentry"}, sent={str(ss.ME): "reentry"}), None)
        wait_js(page, "() => document.querySelector('#hand-words').textContent"
                      ".includes('Re-entry sent: the director registers it')", timeout=15_000)
        assert page.locator("#actions button[data-act=reenter]").count() == 0
        entry = {"entry": {"table": "t2", "table_name": "Oak", "seat": 4}}
        pub.show(busted_state(reentry={}, reentry_answer={str(ss.ME): entry}), None)
        wait_js(page, "() => document.querySelector('#hand-words').textContent"
                      ".includes('Re-entry booked: go to Oak seat 4')", timeout=15_000)
        shot(page, "reentry-booked")
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        pub.close()
