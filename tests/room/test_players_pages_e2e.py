"""The players' pages in Debian's Chromium (Playwright), on a real room broker (issue 18).

Three tables send their journals to the room broker with their own logins (as their bridges
do): ``t1`` a simulated table's 8 hands (No Limit Hold'em), ``t2`` a full Pot Limit Omaha table
and ``t3`` a No Limit Hold'em table at other stakes. The room service with its players' desk
stores and replays them.

- the lobby for a TV (1920x1080): every table by game, seats taken and free, waiting-list
  length, average pot, hands per hour; the lists with their lengths;
- the phone page (390x844, portrait): anna signs in with her own room login over MQTT over
  WebSockets, joins the Omaha list, is called when a player stands up at ``t2`` (the seat,
  a countdown), accepts and is shown her seat, then asks for a table change;
- the floor's list view (behind the floor login): the lists, the open seats with their
  calls, the log with who did what, and "why" for one player.

Screenshots go to pytest's tmp dir (``shots/``); ``docs/players-*.png`` are copies of them.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from controller.engine.table import events as ev
from controller.engine.table.settings import TableSettings
from controller.journal import payload_of
from controller.runtime import open_table
from drivers.mqtt.broker import BrokerProcess
from room.console import add_login
from room.desk import PlayersDesk, serve_desk
from room.provision import provision_player, provision_table, room_credentials
from room.service import RoomService
from room.simulate import ROOM_CONF
from room.store import open_store
from test_room_acl import Client  # tests/room is on sys.path
from tests.room.conftest import REPO, need_mosquitto
from tests.tablet.conftest import CHROMIUM, CHROMIUM_FLAGS, SKIP, sync_playwright

WAIT_MS = 15_000
#: axe-core from the tablet tests' npm packages (tests/tablet/package.json; scripts/setup.sh --test)
AXE = REPO / "tests" / "tablet" / "node_modules" / "axe-core" / "axe.min.js"
AXE_SERIOUS = """async () => (await axe.run(document, { resultTypes: ['violations'] })).violations
  .filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)"""


#: The lobby's phone address on one line, within its box (issue 18: "http://127.0.0. / 1:41303/phone" at 1280x720).
ONE_LINE = """(sel) => {
  const e = document.querySelector(sel);
  const r = document.createRange();
  r.selectNodeContents(e);
  const lines = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.bottom)));
  return lines.size === 1 && e.scrollWidth <= e.clientWidth && e.textContent.length > 0;
}"""


#: Words the browser broke across two lines (issue 18: "from you r phone" on the lobby TV),
#: and whether the page is wider than the screen.
BROKEN_WORDS = """() => {
  const bad = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const re = /\\S+/g;
    let m;
    while ((m = re.exec(n.textContent))) {
      const r = document.createRange();
      r.setStart(n, m.index);
      r.setEnd(n, m.index + m[0].length);
      const lines = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.bottom)));
      if (lines.size > 1) bad.push(m[0]);
    }
  }
  if (document.documentElement.scrollWidth > window.innerWidth) bad.push(`page ${document.documentElement.scrollWidth} px wide`);
  return bad;
}"""


def whole_words(page: Any, where: str, found: dict[str, Any]) -> None:
    """Note in ``found`` every word ``page`` shows broken across lines (none may be)."""
    bad = page.evaluate(BROKEN_WORDS)
    if bad:
        found[f"{where}: broken words"] = bad


def axe(page: Any, where: str, found: dict[str, Any]) -> None:
    """Run axe-core (contrast, labels; as the tablet's screens are checked) on ``page``."""
    if AXE.exists():
        page.add_script_tag(path=str(AXE))
        bad = page.evaluate(AXE_SERIOUS)
        if bad:
            found[where] = bad


class Table:
    """A table's journal sent to the room as its bridge would (its own login)."""

    def __init__(self, room: "Room", table: str, journal: Path, orch: Any = None) -> None:
        self.room, self.table, self.journal, self.orch, self.sent = room, table, journal, orch, 0
        self.client = Client(room.broker.mqtt_port, f"table-{table}", room.clear[f"table-{table}"])

    def send(self, *events: Any) -> None:
        for e in events:
            self.orch.handle(e)
        db = sqlite3.connect(self.journal)
        msg: dict[str, Any] = {"table": self.table, "records": [
            {"seq": s, "at": a, "kind": k, "payload": payload_of(k, a, p)}
            for s, a, k, p in db.execute("SELECT seq, at, kind, payload FROM events WHERE seq > ? ORDER BY seq",
                                         (self.sent,))]}
        if self.sent == 0:
            upto, state = db.execute("SELECT upto, state FROM snapshots ORDER BY upto LIMIT 1").fetchone()
            msg["base"] = {"upto": upto, "state": json.loads(state)}
        db.close()
        for i in range(0, len(msg["records"]), 500):
            part = dict(msg, records=msg["records"][i:i + 500]) if i == 0 else {
                "table": self.table, "records": msg["records"][i:i + 500]}
            self.client.publish(f"room/tables/{self.table}/records", json.dumps(part))
        self.sent = msg["records"][-1]["seq"]
        assert self.room.service.wait_applied(self.table, self.sent, 30)


class Room:
    def __init__(self, tmp: Path) -> None:
        pdir = tmp / "prov"
        self.broker = BrokerProcess(tmp / "broker", passwd=pdir / "passwd", acl=pdir / "acl", config=ROOM_CONF)
        creds = room_credentials(pdir)
        for t in ("t1", "t2", "t3"):
            provision_table(pdir, t, host="127.0.0.1", port=self.broker.mqtt_port)
        self.anna = provision_player(pdir, "anna")
        self.clear = json.loads((pdir / "credentials" / "room.json").read_text())
        self.broker.start()
        self.store = open_store(tmp / "room.sqlite")
        self.service = RoomService(self.store, host="127.0.0.1", port=self.broker.mqtt_port, **creds).start()
        self.desk = PlayersDesk(self.service, hold_seconds=150).start()
        self.floor_pw = add_login(tmp / "floor.json", "eve")
        self.http = serve_desk(self.desk, tmp / "floor.json", port=0,
                               ws_url=f"ws://127.0.0.1:{self.broker.ws_port}")
        assert self.service.wait_connected(10)

    def close(self) -> None:
        self.http.stop()
        self.desk.stop()
        self.service.stop()
        self.store.close()
        self.broker.stop()


@pytest.fixture
def room(tmp_path: Path, played: tuple[Path, dict]) -> Iterator[tuple[Room, dict[str, Table]]]:
    need_mosquitto()
    if SKIP:
        pytest.skip(SKIP)
    r = Room(tmp_path)
    tables: dict[str, Table] = {}
    try:
        t1 = Table(r, "t1", played[0] / "journal.sqlite")
        t1.send()
        now = time.time()
        for t, game, limit, sb, bb, seated in (("t2", "omaha", "pot-limit", 1, 2, 6), ("t3", "holdem", "no-limit", 2, 5, 9)):
            s = TableSettings(id=t, name=f"Table {t[1]}", game=game, limit=limit, seats=seated, small_blind=sb,
                              big_blind=bb, buy_in_min=40 * bb, buy_in_max=200 * bb)
            orch, _ = open_table(tmp_path / f"{t}.sqlite", s, clock=lambda: now)
            tables[t] = Table(r, t, tmp_path / f"{t}.sqlite", orch)
            tables[t].send(*[e for n in range(1, seated + 1)
                             for e in (ev.PlayerSatDown(at=now, seat=n, player=f"{t}p{n}", name=f"Player {n}"),
                                       ev.BoughtIn(at=now, seat=n, amount=100 * bb))])
        tables["t1"] = t1
        yield r, tables
    finally:
        for t in tables.values():
            t.client.close()
            if t.orch is not None:
                t.orch.journal.close()
        r.close()


@pytest.mark.broker
@pytest.mark.timeout(300)
def test_lobby_phone_and_floor_pages(room: tuple[Room, dict[str, Table]], tmp_path: Path) -> None:
    r, tables = room
    SHOTS = tmp_path / "shots"
    SHOTS.mkdir()
    for p in ("bo", "cy"):  # two players already on the Hold'em 2/5 list (from the floor)
        out = r.desk.request(p, {"op": "join", "game": "no-limit holdem", "stakes": "2/5"}, by="floor:eve")
        assert out["ok"], (out, r.desk.lists.table_key)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        # ---- the lobby on a TV
        tv = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="en-US").new_page()
        tv.goto(r.http.url + "lobby")
        tv.wait_for_selector("tr[data-table='t3']", timeout=WAIT_MS)
        rows = {t: tv.locator(f"tr[data-table='{t}'] td").all_inner_texts() for t in ("t1", "t2", "t3")}
        assert rows["t2"][1:5] == ["Pot Limit", "1/2", "6/6", "0"]
        # the table's name and its id (issue 18: four simulated tables were named alike)
        assert tv.locator("tr[data-table='t2'] .tname").inner_text() == "Table 2"
        assert tv.locator("tr[data-table='t2'] .tid").inner_text() == "t2"
        assert rows["t3"][3:6] == ["9/9", "0", "2"]  # full, two waiting
        # a played table's average pot, with thousands separators; 8 hands at once are no pace yet
        assert re.fullmatch(r"\d{1,3}(,\d{3})*", rows["t1"][6]) and rows["t1"][6] != "0", rows["t1"]
        assert rows["t1"][7] == "—"
        assert [h.strip() for h in tv.locator("#games h2").all_inner_texts()] == ["Hold'em", "Omaha"]
        assert "/phone" in tv.inner_text("#phone-url")
        tv.wait_for_function("document.getElementById('qr').complete && document.getElementById('qr').naturalWidth > 0",
                             timeout=WAIT_MS)
        tv.screenshot(path=str(SHOTS / "lobby-tv.png"))
        found: dict[str, Any] = {}
        axe(tv, "lobby", found)
        whole_words(tv, "lobby 1920x1080", found)
        assert tv.evaluate(ONE_LINE, "#phone-url"), "the phone's address broken at 1920x1080"
        # Hands/h is "—" for 15 minutes by design: the page says so
        assert "15 min" in tv.inner_text("#pace-note") and "Hands/h" in tv.inner_text("#pace-note")
        tv.set_viewport_size({"width": 1280, "height": 720})  # a smaller TV
        whole_words(tv, "lobby 1280x720", found)
        assert tv.evaluate(ONE_LINE, "#phone-url"), "the phone's address broken at 1280x720"
        # ---- anna's phone
        phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                    device_scale_factor=2, locale="en-US").new_page()
        phone.goto(r.http.url + "phone#" + f"u=anna&p={r.anna['password']}")
        phone.wait_for_selector("#game-lists button", timeout=WAIT_MS)
        phone.locator("#game-lists .row", has_text="PL Omaha 1/2").get_by_role("button", name="Join").click()
        phone.wait_for_selector("#my-lists .place", timeout=WAIT_MS)
        assert phone.inner_text("#my-lists .place") == "#1"
        phone.screenshot(path=str(SHOTS / "phone-waiting.png"))
        # a player stands up at t2: anna is called at once, the seat held with a countdown
        tables["t2"].send(ev.StoodUp(at=time.time(), seat=3))
        phone.wait_for_selector("#call:not([hidden])", timeout=WAIT_MS)
        assert phone.inner_text("#call-where") == "Table 2 (t2) · seat 3"
        assert re.fullmatch(r"[12]:\d\d", phone.inner_text("#countdown"))
        phone.screenshot(path=str(SHOTS / "phone-called.png"))
        # the TV marks the seat held for her (issue 18: free seats and a list, nothing said)
        tv.wait_for_selector("tr[data-table='t2'] .held", timeout=WAIT_MS)
        assert tv.inner_text("tr[data-table='t2'] .held") == "1 held"
        axe(phone, "phone called", found)
        whole_words(phone, "phone called", found)
        # ---- the floor's view while the call is out
        floor = browser.new_context(viewport={"width": 1280, "height": 900},
                                    http_credentials={"username": "eve", "password": r.floor_pw}).new_page()
        floor.goto(r.http.url + "floor")
        floor.wait_for_selector("#open td.call", timeout=WAIT_MS)
        assert "anna (list)" in floor.inner_text("#open")
        assert floor.locator("[data-list='no-limit holdem 2/5'] li").count() == 2
        floor.fill("#why-player", "anna")
        floor.click("#why button")
        floor.wait_for_selector("#why-table td", timeout=WAIT_MS)
        assert "call" in floor.inner_text("#why-table")
        r.desk.players.register("t2p1", "Player 1", "C-2001")
        floor.fill("#find-q", "C-2001")
        floor.click("#find button")
        floor.wait_for_selector("#accounts tr[data-player='t2p1']", timeout=WAIT_MS)
        cells = floor.locator("#accounts tr[data-player='t2p1'] td").all_inner_texts()
        assert cells[:4] == ["t2p1", "Player 1", "C-2001", "1"] and cells[5] == "200"  # one session, bought in 200
        floor.screenshot(path=str(SHOTS / "floor-lists.png"), full_page=True)
        axe(floor, "floor", found)
        assert found == {}, json.dumps(found, indent=1)
        # anna accepts: on her way, the seat held for her until the call's time (issue 18: the
        # phone said "You sit at" before the table had seated her)
        phone.get_by_role("button", name="I'm coming").click()
        phone.wait_for_selector("#going", timeout=WAIT_MS)
        assert re.fullmatch(r"Go to Table 2 \(t2\), seat 3 — the seat is held for you until \d\d:\d\d\.",
                            phone.inner_text("#going"))
        assert "1 held" in tv.inner_text("tr[data-table='t2']")
        phone.screenshot(path=str(SHOTS / "phone-going.png"))
        axe(phone, "phone going", found)
        whole_words(phone, "phone going", found)
        # the table reports her sitting down: seated; she asks for a table change from the phone
        tables["t2"].send(ev.PlayerSatDown(at=time.time(), seat=3, player="anna", name="Anna"))
        phone.wait_for_selector("#seated-at", timeout=WAIT_MS)
        assert phone.inner_text("#seated-at") == "You sit at Table 2 (t2), seat 3."
        phone.click("#change")
        phone.wait_for_selector("#change-asked", timeout=WAIT_MS)
        assert r.desk.lists.changes[next(iter(r.desk.lists.changes))] == ["anna"]
        # table t3's link to the room breaks: its bridge's Last Will on the room broker
        # (issue 18); the TV says since when
        tables["t3"].client.publish("livetable/t3/room/link", "0", retain=True)
        tv.set_viewport_size({"width": 1920, "height": 1080})
        tv.wait_for_selector("tr[data-table='t3'].off .offline", timeout=WAIT_MS)
        assert re.fullmatch(r"offline since \d\d:\d\d", tv.inner_text("tr[data-table='t3'] .offline"))
        tv.screenshot(path=str(SHOTS / "lobby-tv-offline.png"))
        axe(tv, "lobby offline", found)
        whole_words(tv, "lobby offline", found)
        assert found == {}, json.dumps(found, indent=1)
        # no floor login, no list view
        anon = browser.new_context()
        assert anon.request.get(r.http.url + "floor").status == 401
        assert anon.request.get(r.http.url + "api/lists").status == 401
        browser.close()


@pytest.mark.broker
@pytest.mark.timeout(180)
def test_two_phones_of_one_player(room: tuple[Room, dict[str, Table]], tmp_path: Path) -> None:
    """Issue 18: the broker gives a login one session, so two phones signed in as anna ended
    each other's every 2 s, for ever. Now the second says so, stops (no reconnect storm) and
    can take the list back."""
    r, _ = room
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)

        def phone() -> Any:  # a device of its own: its own storage, so its own device id
            page = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                       locale="en-US").new_page()
            page.goto(r.http.url + "phone#" + f"u=anna&p={r.anna['password']}")
            page.wait_for_selector("#game-lists button", timeout=WAIT_MS)
            return page

        first = phone()
        second = phone()  # signs in as anna too: the first one's session ends
        first.wait_for_selector("#elsewhere:not([hidden])", timeout=WAIT_MS)
        assert "open on another device" in first.inner_text("#elsewhere")
        first.wait_for_function("window.phone.ended", timeout=WAIT_MS)  # it will not reconnect
        assert first.evaluate("window.phone.device") != second.evaluate("window.phone.device")
        second.wait_for_function("document.getElementById('conn').textContent === 'online'", timeout=WAIT_MS)
        assert second.evaluate("window.phone.replaced") is False
        assert second.is_visible("#game-lists button")
        found: dict[str, Any] = {}
        first.screenshot(path=str(tmp_path / "phone-elsewhere.png"))
        axe(first, "phone on another device", found)
        whole_words(first, "phone on another device", found)
        assert found == {}, json.dumps(found, indent=1)
        # the player takes the list back on the first phone: now the second one says so
        first.get_by_role("button", name="Use it on this phone").click()
        second.wait_for_selector("#elsewhere:not([hidden])", timeout=WAIT_MS)
        second.wait_for_function("window.phone.ended", timeout=WAIT_MS)
        first.wait_for_function("document.getElementById('conn').textContent === 'online'", timeout=WAIT_MS)
        assert first.evaluate("window.phone.replaced") is False and first.is_visible("#game-lists button")
        # a reload on the same device is the same device: it simply signs in again
        first.reload()
        first.wait_for_selector("#game-lists button", timeout=WAIT_MS)
        assert first.evaluate("window.phone.replaced") is False
        browser.close()


@pytest.mark.broker
@pytest.mark.timeout(180)
def test_phone_says_a_call_lapsed(room: tuple[Room, dict[str, Table]], tmp_path: Path) -> None:
    """Issue 18: a call that lapsed took anna off the list and her phone then said only "You
    are on no list yet"; it now says which call lapsed, when, and to join again."""
    r, tables = room
    assert r.desk.request("anna", {"op": "join", "game": "pot-limit omaha", "stakes": "1/2"})["ok"]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                    locale="en-US").new_page()
        phone.goto(r.http.url + "phone#" + f"u=anna&p={r.anna['password']}")
        phone.wait_for_selector("#my-lists .place", timeout=WAIT_MS)
        tables["t2"].send(ev.StoodUp(at=time.time(), seat=3))
        phone.wait_for_selector("#call:not([hidden])", timeout=WAIT_MS)
        with r.desk.lock:  # the hold ends: the lists' clock past the call's time (no waiting)
            until = r.desk.lists.call_of("anna").until
            r.desk.lists.clock = lambda: until
            r.desk._handle(r.desk.lists.expire())
            r.desk._flush()
        phone.wait_for_selector("#call[hidden]", state="attached", timeout=WAIT_MS)
        phone.wait_for_function("document.querySelector('#no-list') && "
                                "document.querySelector('#no-list').textContent.includes('lapsed')", timeout=WAIT_MS)
        assert re.fullmatch(r"Your call for Table 2 \(t2\), seat 3 lapsed at \d\d:\d\d; you are off the "
                            r"PL Omaha 1/2 list: join again\.", phone.inner_text("#no-list"))
        found: dict[str, Any] = {}
        axe(phone, "phone lapsed", found)
        whole_words(phone, "phone lapsed", found)
        phone.screenshot(path=str(tmp_path / "phone-lapsed.png"))
        assert found == {}, json.dumps(found, indent=1)
        browser.close()
