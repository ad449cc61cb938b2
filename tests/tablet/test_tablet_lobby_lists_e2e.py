"""The Lobby tab's waiting lists in Chromium (issue 18): seat 3's page, logged in with its own
seat login on a private broker, shows the room's lists with Join; a tap sends the request on
the seat's own lobby topic (the test, as the table's controller, reads it there), and the
table's answer on ``seat/3/lists`` shows "You are 3rd on NL Hold'em 1/2" with Leave; a refusal
from the room is said to the player. No controller: the test plays the table's part (its
forwarding is tests/controller/test_lobby_request.py and tests/room/test_desk_tablet_broker.py)."""

from __future__ import annotations

import json
import queue
from typing import Any, Iterator

import pytest

from . import screen_states as ss
from .conftest import SKIP, TABLE, TableRig, open_tablet, shot, wait_js
from .test_tablet_screens_e2e import Publisher

pytestmark = [pytest.mark.broker, pytest.mark.skipif(SKIP is not None, reason=SKIP or "")]

LIST = "no-limit holdem 1/2"
LOBBY = {"schema": 1, "at": 0, "tables": [
    {"table": "t1", "name": "Table 1", "game": "holdem", "limit": "no-limit",
     "stakes": {"sb": 1, "bb": 2, "ante": 0, "small_bet": None, "big_bet": None}, "seated": 10, "max_seats": 10,
     "players": [], "online": True, "waiting": 4}],
    "lists": [{"game": "no-limit holdem", "stakes": "1/2", "list": LIST, "waiting": 4, "open_seats": 0,
               "tables": ["t1"]}]}


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TableRig]:
    r = TableRig(tmp_path_factory.mktemp("tablet-lists"), seats=10, tablet_seats=(ss.ME,))
    try:
        yield r.start(table=False)
    finally:
        r.stop()


def _request(q: "queue.Queue[dict[str, Any]]", op: str) -> dict[str, Any]:
    while True:
        try:
            got = q.get(timeout=15)
        except queue.Empty:
            pytest.fail(f"no {op} request from the page within 15 s")
        if got.get("op") == op:
            return got


def _answer(pub: Publisher, rid: str | None, *, ok: bool = True, error: str | None = None,
            place: int | None = None) -> None:
    lists = [] if place is None else [{"list": LIST, "game": "no-limit holdem", "stakes": "1/2", "place": place,
                                       "waiting": 5}]
    pub.publish(f"seat/{ss.ME}/lists", {"schema": 1, "table": TABLE, "seat": ss.ME, "name": ss.NAMES[ss.ME - 1],
                                        "id": rid, "ok": ok, "error": error, "lists": lists}, retain=True)


def test_join_and_leave_a_list_from_the_lobby_tab(browser: Any, rig: TableRig) -> None:
    pub = Publisher(rig)
    requests: "queue.Queue[dict[str, Any]]" = queue.Queue()
    pub.client.on_message = lambda c, u, m: requests.put(json.loads(m.payload))
    pub.client.subscribe(f"livetable/{TABLE}/seat/{ss.ME}/lobby", qos=1)
    try:
        pub.publish("presence/controller", {"schema": 1, "online": True}, retain=True)
        pub.client.publish("livetable/lobby/lobby", json.dumps(LOBBY), qos=1, retain=True).wait_for_publish(10)
        page = open_tablet(browser, rig.url(ss.ME))
        wait_js(page, "(t) => window.livetable.received.includes(t)", f"livetable/{TABLE}/presence/controller",
                timeout=15_000)
        state, _ = ss.preflop()
        seq = pub.show(state, None)
        wait_js(page, "(seq) => window.livetable.state && window.livetable.state.seq === seq", seq, timeout=15_000)
        page.click("button[data-tab=lobby]")
        asked = _request(requests, "status")  # the tab asks for the seated player's lists
        assert asked["seat"] == ss.ME and asked["list"] is None
        _answer(pub, asked["id"])
        join = page.locator("#lobby .wait-list button[data-op=join]")
        join.wait_for(timeout=15_000)
        assert "NL Hold'em 1/2" in page.inner_text("#lobby .wait-list")
        join.click()
        req = _request(requests, "join")
        assert (req["seat"], req["list"], req["schema"]) == (ss.ME, LIST, 1) and set(req) == {
            "schema", "id", "seat", "op", "list"}  # the page never says who the player is
        pub.publish(f"seat/{ss.ME}/reply", {"schema": 1, "table": TABLE, "seat": ss.ME, "id": req["id"],
                                            "accepted": True, "reason": None, "seq": seq})
        _answer(pub, req["id"], place=3)
        page.locator("#lobby .wait-list button[data-op=leave]").wait_for(timeout=15_000)
        assert "You are 3rd on NL Hold'em 1/2" in page.inner_text("#lobby .wait-list .place")
        shot(page, "lobby-lists-joined")
        # the room refuses a leave: the player reads why, the place stays
        page.click("#lobby .wait-list button[data-op=leave]")
        leave = _request(requests, "leave")
        _answer(pub, leave["id"], ok=False, error="the room does not see Chris in seat 3 of t1 yet: try again",
                place=3)
        wait_js(page, "() => !document.querySelector('#notice').hidden && "
                      "document.querySelector('#notice').textContent.includes('does not see Chris')", timeout=15_000)
        assert "You are 3rd" in page.inner_text("#lobby .wait-list .place")
        assert page.errors == []  # type: ignore[attr-defined]
    finally:
        pub.publish(f"seat/{ss.ME}/lists", None, retain=True)
        pub.client.publish("livetable/lobby/lobby", b"", qos=1, retain=True).wait_for_publish(10)
        pub.close()
