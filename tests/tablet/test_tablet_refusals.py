"""The table's refusals as a player reads them on the seat tablet (issue 20): the real table
(orchestrator, journal, the MQTT adapter's seat requests) is driven into each refusal a
tablet can meet — out of turn, a raise under the minimum, over the stack, a check facing a
bet, a buy-in outside the range, a taken seat, a top-up over the maximum, no chips, a buy-in
waiting for the dealer, ... — and the page's own translation
(``tablet/js/logic.js`` ``refusalText``, in node) must know every reason: in English and in
Dutch, numbers formatted for the language (12,345 / 12.345), no rule id in what the player
reads (the ids stay in the reply, for the logs and the floor)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from controller.clock import ManualClock
from controller.dealer import InternalDealer
from controller.devices import DevicePorts, DriverAdapter
from controller.engine.table import events as ev
from controller.engine.table.settings import TableSettings
from controller.engine.table.state import TableState
from controller.journal import Journal
from controller.orchestrator import Orchestrator
from drivers.mqtt.events import ActionReceived

from .test_tablet_rebuy import _busted_table

REPO = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")


class Table:
    """A table with the MQTT adapter; :meth:`ask` sends a tablet request, returns its reply."""

    def __init__(self, tmp_path: Path, *, seats: int = 5, limit: str = "no-limit", tablet_join: str = "direct",
                 players: tuple[int, ...] = (1, 2, 3), stack: int = 5000) -> None:
        self.clock = ManualClock()
        self.ports = DevicePorts()
        self.settings = TableSettings(id="t", seats=seats, limit=limit, action_seconds=30, tablet_join=tablet_join)
        self.orch = Orchestrator(TableState.new(self.settings), journal=Journal(tmp_path / f"{limit}-{tablet_join}.sqlite"),
                                 clock=self.clock, ports=self.ports)
        adapter = DriverAdapter(self.orch, self.ports, clock=self.clock)
        self.orch.translate = adapter.translate
        self.orch.listeners.append(adapter.after_step)
        self.ports.dealer = InternalDealer(self.orch.post, self.clock, seed=5)
        for s in players:
            self.orch.post(ev.PlayerSatDown(at=self.clock(), seat=s, player=f"p{s}", name=f"P{s}"))
            self.orch.post(ev.BoughtIn(at=self.clock(), seat=s, amount=stack))
        self.orch.pump()
        self.n = 0

    def ask(self, seat: int, action: str, amount: int | None = None, *, seq: int | None = None, **kw) -> str | None:
        self.n += 1
        aid = f"r{self.n}"
        self.orch.post(ActionReceived(seat, action, amount, aid, self.orch.state.seq if seq is None else seq,
                                      self.clock(), **kw))
        self.orch.pump()
        got = [r for r in self.ports.replies if r[1] == aid]
        return None if not got or got[-1][2] else got[-1][3]

    def start(self) -> int:
        self.orch.post(ev.HandStartRequested(at=self.clock()))
        self.orch.pump()
        assert self.orch.state.hand is not None
        return self.orch.state.hand.seat_to_act


def _reasons(tmp_path: Path) -> list[str]:
    out: list[str] = []

    def add(reason: str | None) -> None:
        assert reason is not None, "the table took what should have been refused"
        out.append(reason)

    t = Table(tmp_path)
    to_act = t.start()
    other = next(s for s in (1, 2, 3) if s != to_act)
    add(t.ask(other, "check"))                                   # not your turn
    add(t.ask(to_act, "check"))                                  # facing the big blind
    add(t.ask(to_act, "raise", 150))                             # under the minimum raise
    add(t.ask(to_act, "raise", 100))                             # not more than the bet
    add(t.ask(to_act, "raise", 60_000))                          # over the stack
    add(t.ask(to_act, "preselect", choice="fold"))               # pre-select on one's own turn
    add(t.ask(other, "preselect", 7, choice="call"))             # the call changed
    add(t.ask(other, "top_up", 900_000))                         # over the maximum
    assert t.ask(other, "sit_out") is None
    add(t.ask(other, "sit_out"))                                 # already
    add(t.ask(4, "take_seat", 1, name="Ann", post=False))        # under the buy-in range
    add(t.ask(1, "take_seat", 2000, name="Bea", post=False))     # a taken seat
    assert t.ask(4, "take_seat", 2000, name="Ann", post=False) is None
    add(t.ask(5, "take_seat", 2000, name="ann", post=False))     # the name sits here already

    fl = Table(tmp_path, limit="fixed-limit")
    add(fl.ask(4, "take_seat", 1, name="Ann", post=False))       # no maximum in fixed limit

    off = Table(tmp_path, tablet_join="off")
    add(off.ask(4, "take_seat", 2000, name="Ann", post=False))   # the floor seats players here

    orch, clock, seat = _busted_table(tmp_path / "busted", tablet_join="confirm")
    n = 0

    def ask(action: str, amount: int | None) -> str | None:
        nonlocal n
        n += 1
        orch.post(ActionReceived(seat, action, amount, f"b{n}", orch.state.seq, clock()))
        orch.pump()
        got = [r for r in orch.ports.replies if r[1] == f"b{n}"]
        return None if got[-1][2] else got[-1][3]

    add(ask("top_up", 3000))                                     # no chips
    add(ask("buy_in", 3000) or "accepted")                       # waits for the dealer now
    out.pop()
    add(ask("buy_in", 3000))                                     # a buy-in already waits
    return out


def _in_node(reasons: list[str]) -> dict[str, list[dict]]:
    """Each reason as the page reads it (``refusalText``) in English and in Dutch."""
    script = """
import * as L from './tablet/js/logic.js';
import { readFileSync } from 'node:fs';
const reasons = JSON.parse(readFileSync(0, 'utf8'));
const nl = JSON.parse(readFileSync('tablet/i18n/nl.json', 'utf8'));
const en = reasons.map((r) => L.refusalText(r));
L.setLanguage('nl', nl);
const dutch = reasons.map((r) => L.refusalText(r));
console.log(JSON.stringify({ en, nl: dutch }));
"""
    res = subprocess.run([NODE, "--input-type=module", "-e", script], input=json.dumps(reasons), cwd=REPO,
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def _read_in_both_languages(reasons: list[str]) -> dict[str, str]:
    """Every reason is known to the page, reads without rule ids, differently in Dutch, chips
    grouped as the language groups them; return reason -> its English text."""
    assert all(re.match(r"[A-Z]-\d+: ", r) for r in reasons), reasons  # the ids stay in the replies
    got = _in_node(reasons)
    unknown = [r for r, e in zip(reasons, got["en"]) if not e["known"]]
    assert unknown == [], f"reasons the tablet does not know: {unknown}"
    for reason, en, nl in zip(reasons, got["en"], got["nl"]):
        for text in (en["text"], nl["text"]):
            assert not re.search(r"\b[A-Z]-\d+\b", text), (reason, text)
        assert nl["text"] != en["text"], (reason, nl["text"])
        big = [int(x) for x in re.findall(r"\d+", reason.split(":", 1)[1]) if int(x) >= 1000]
        for x in big:  # the chips the player reads are grouped as the language groups them
            if f"{x:,}" in en["text"]:
                assert f"{x:,}".replace(",", ".") in nl["text"], (reason, nl["text"])
    return dict(zip(reasons, (e["text"] for e in got["en"])))


@pytest.mark.skipif(NODE is None, reason="node is not installed (the tablet's logic runs in node)")
def test_every_refusal_a_tablet_meets_reads_in_the_players_language(tmp_path: Path) -> None:
    (tmp_path / "busted").mkdir()
    texts = _read_in_both_languages(_reasons(tmp_path))
    assert any(t == "It is not your turn" for t in texts.values()), texts
    assert any(t.startswith("Raise to at least ") for t in texts.values()), texts
    assert any(t == "The buy-in is 2,000 to 10,000" for t in texts.values()), texts


def _link_reasons(tmp_path: Path) -> list[str]:
    """Every refusal the MQTT link itself answers (docs/mqtt.md M-1..M-10), and the adapter's
    M-2 around a table reason, as a real :class:`drivers.mqtt.link.TableLink` sends them on
    a seat's reply topic (no broker: its message handling is driven, its publishes caught)."""
    from drivers.mqtt import codec
    from drivers.mqtt.link import TableLink
    from drivers.mqtt.topics import Kind
    from tests.mqtt.conftest import TABLE, state_view

    now = [1_800_000_000.0]
    link = TableLink(TABLE, host="127.0.0.1", port=1, username=None, password=None, post=lambda e: None,
                     clock=lambda: now[0], auto_lobby=False, action_rate=(10, 1.0), chat_rate=(5, 10.0))
    link.publish_state(state_view(1))
    out: list[str] = []

    def publish(topic, payload=None, *a, **k):
        if topic.endswith("/reply") and payload:
            reply = json.loads(payload)
            if not reply["accepted"]:
                out.append(reply["reason"])

    link._client.publish = publish  # type: ignore[method-assign]

    def send(kind, payload: bytes, seat: int = 3) -> None:
        now[0] += 20.0  # each in a window of its own: the M-9 damping answers a window's first only
        link._handle(kind, seat, payload, now[0])

    act = lambda aid, **kw: codec.action_payload(**{"seat": 3, "seq": 1, "action": "check",  # noqa: E731
                                                    "action_id": aid, **kw})
    send(Kind.ACTION, b"not json")                                                     # M-1
    send(Kind.ACTION, json.dumps({"schema": 1, "id": "a1", "seat": 3, "seq": 1, "action": "dance",
                                  "amount": None}).encode())                           # M-2
    send(Kind.ACTION, json.dumps({"schema": 1, "id": "a2", "pad": "x" * 5000}).encode())  # M-3
    send(Kind.ACTION, act("a3", seq=99))                                               # M-4
    send(Kind.ACTION, act("a4"))
    send(Kind.ACTION, act("a4"))                                                       # M-5
    send(Kind.ACTION, act("a5", seat=4))                                               # M-6
    chat = lambda cid, text: codec.chat_input_payload(seat=3, text=text, chat_id=cid)  # noqa: E731
    send(Kind.SEAT_CHAT, chat("c1", "x" * 300))                                        # M-7 too long
    send(Kind.SEAT_CHAT, chat("c2", ""))                                               # M-7 empty
    send(Kind.SEAT_CHAT, chat("c3", "bell \x07"))                                      # M-7 control
    for i in range(6):                                                                 # M-8
        link._handle(Kind.SEAT_CHAT, 5, codec.chat_input_payload(seat=5, text="hi", chat_id=f"d{i}"), now[0])
    for i in range(11):                                                                # M-9
        link._handle(Kind.ACTION, 6, codec.action_payload(seat=6, seq=1, action="check", action_id=f"e{i}"),
                     now[0])
    link._refuse_retained(Kind.ACTION, 7, f"livetable/{TABLE}/seat/7/action",
                          codec.action_payload(seat=7, seq=1, action="check", action_id="f1"))  # M-10
    codes = sorted({r.split(":")[0] for r in out}, key=lambda c: int(c[2:]))
    assert codes == [f"M-{k}" for k in range(1, 11)], out
    # the adapter's M-2 around the table's own reason (a tablet's take_seat with a blank name)
    t = Table(tmp_path / "adapter", players=(1,))
    out.append(t.ask(4, "take_seat", 2000, name=" ", post=False))
    assert out[-1] == "M-2: take_seat: T-3: a player needs a name", out[-1]
    return out


@pytest.mark.skipif(NODE is None, reason="node is not installed (the tablet's logic runs in node)")
def test_the_mqtt_links_own_refusals_read_in_the_players_language(tmp_path: Path) -> None:
    """Brief L item 4: M-1..M-10 (the link's refusals, before the table sees anything) read in
    English only, rule id stripped, and the adapter's "M-2: take_seat: T-3: ..." as its M-2."""
    (tmp_path / "adapter").mkdir()
    texts = _read_in_both_languages(_link_reasons(tmp_path))
    assert texts["M-2: take_seat: T-3: a player needs a name"] == "enter your name"
    assert any(t == "A chat line is at most 200 characters" for t in texts.values()), texts
    assert any(t == "Too many actions at once: wait a moment" for t in texts.values()), texts
