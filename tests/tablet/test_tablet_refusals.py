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


@pytest.mark.skipif(NODE is None, reason="node is not installed (the tablet's logic runs in node)")
def test_every_refusal_a_tablet_meets_reads_in_the_players_language(tmp_path: Path) -> None:
    (tmp_path / "busted").mkdir()
    reasons = _reasons(tmp_path)
    assert all(re.match(r"[A-Z]-\d+: ", r) for r in reasons), reasons  # the ids stay in the replies
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
    got = json.loads(res.stdout)
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
    texts = dict(zip(reasons, (e["text"] for e in got["en"])))
    assert any(t == "It is not your turn" for t in texts.values()), texts
    assert any(t.startswith("Raise to at least ") for t in texts.values()), texts
    assert any(t == "The buy-in is 2,000 to 10,000" for t in texts.values()), texts
