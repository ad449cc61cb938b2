"""Plain-text table scenarios (docs/table.md, "Scenario scripts"): parse and run one file.

One command per line (``;`` separates several; ``repeat N: ...`` runs the rest N times);
``#`` starts a comment. Every event goes through the real step function with the audit
after each; ``expect`` lines compare the table with what the script says.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controller.engine.table import events as ev
from controller.engine.table.settings import TableSettings
from controller.views import seat_status

from .harness import Bench

_SETTING_ALIASES = {"sb": "small_blind", "bb": "big_blind", "min": "buy_in_min",
                    "max": "buy_in_max", "chip": "smallest_chip", "rake": "rake_percent",
                    "time": "action_seconds"}


class ScenarioError(AssertionError):
    """A scenario line failed; the message names the file and line."""


def _value(text: str) -> Any:
    if text in ("true", "false"):
        return text == "true"
    if text == "none":
        return None
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def _settings(words: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for w in words:
        k, _, v = w.partition("=")
        key = _SETTING_ALIASES.get(k, k)
        if key == "rake_caps":
            out[key] = tuple(tuple(int(x) for x in pair.split(":")) for pair in v.split(","))
        else:
            out[key] = _value(v)
    return out


def _pairs(words: list[str]) -> dict[int, str]:
    out = {}
    for w in words:
        seat, _, val = w.partition(":")
        out[int(seat)] = val
    return out


class Scenario:
    """Run one scenario file; :meth:`run` raises :class:`ScenarioError` on the first miss."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.bench: Bench | None = None
        self.line = 0

    def fail(self, message: str) -> None:
        """Stop with the file and line number."""
        raise ScenarioError(f"{self.path.name}:{self.line}: {message}")

    def run(self) -> Bench:
        """Run every line; return the bench for further checks."""
        for n, raw in enumerate(self.path.read_text().splitlines(), 1):
            self.line = n
            text = raw.split("#", 1)[0].strip()
            if not text:
                continue
            times = 1
            if text.startswith("repeat "):
                head, _, text = text.partition(":")
                times = int(head.split()[1])
            for _ in range(times):
                for cmd in text.split(";"):
                    if cmd.strip():
                        self.command(cmd.split())
        assert self.bench is not None
        return self.bench

    # ------------------------------------------------------------------ commands
    def command(self, w: list[str]) -> None:
        """Run one command (see docs/table.md)."""
        if w[0] == "table":
            self.bench = Bench(TableSettings(**_settings(w[1:])))
            return
        b = self.bench
        if b is None:
            self.fail("the first command must be 'table ...'")
        assert b is not None
        head = w[0]
        if head.isdigit():
            seat = int(head)
            if b.to_act != seat:
                self.fail(f"seat {seat} cannot act: it is {b.to_act}'s turn")
            amount = int(w[2]) if len(w) > 2 else None
            b.act(seat, w[1], amount)
            self._no_refusal(w)
        elif head == "sit":
            post = "post" in w[4:]
            b.do(ev.PlayerSatDown, seat=int(w[1]), player=w[2], name=w[2].capitalize(), post=post)
            if len(w) > 3 and w[3].isdigit():
                b.do(ev.BoughtIn, seat=int(w[1]), amount=int(w[3]))
        elif head == "buyin":
            b.do(ev.BoughtIn, seat=int(w[1]), amount=int(w[2]))
        elif head == "topup":
            b.do(ev.ToppedUp, seat=int(w[1]), amount=int(w[2]))
        elif head == "leave":
            b.do(ev.StoodUp, seat=int(w[1]))
        elif head == "sitout":
            b.do(ev.SatOut, seat=int(w[1]))
        elif head == "sitin":
            b.do(ev.SatIn, seat=int(w[1]), post=len(w) > 2 and w[2] == "post")
        elif head in ("disconnect", "connect"):
            cls = ev.TabletDisconnected if head == "disconnect" else ev.TabletConnected
            b.do(cls, seat=int(w[1]))
        elif head == "preselect":
            amount = int(w[3]) if len(w) > 3 else None
            b.do(ev.PreselectSet, seat=int(w[1]), choice=w[2], amount=amount)
        elif head == "settings":
            b.do(ev.SettingsChanged, changes=_settings(w[1:]), by="script")
        elif head == "cards":  # cards 1:AsAd 3:7c2d board:KhQs4c9dJh
            holes: dict[int, list[str]] = {}
            board: list[str] = []
            for word in w[1:]:
                k, _, v = word.partition(":")
                cards = [v[i:i + 2] for i in range(0, len(v), 2)]
                if k == "board":
                    board = cards
                else:
                    holes[int(k)] = cards
            b.deal(holes, board)
        elif head == "hand":
            button = None
            for x in w[1:]:
                if x.startswith("button="):
                    button = int(x.split("=")[1])
            b.start(button)
        elif head == "wait":
            b.tick(float(w[1]))
        elif head == "timeout":
            if b.state.timer is None:
                self.fail("no timer is running")
            b.expire()
        elif head == "void":
            b.do(ev.HandVoided, reason="script")
        elif head == "folds":
            while b.state.hand is not None:
                b.act(b.to_act, "fold")
                self._no_refusal(w)
        elif head == "checks":  # a hand that cannot win at the showdown is mucked (P-2)
            while b.state.hand is not None:
                lg = b.state.hand.legal()
                b.act(b.to_act, "muck" if lg.muck else "check" if lg.check else "call")
                self._no_refusal(w)
        elif head == "automuck":  # automuck 3 on|off (P-2)
            b.do(ev.AutoMuckSet, seat=int(w[1]), on=w[2] == "on")
        elif head == "expect":
            self.expect(w[1], w[2:])
        else:
            self.fail(f"unknown command {head!r}")

    def _no_refusal(self, w: list[str]) -> None:
        assert self.bench is not None
        r = self.bench.refused()
        if r:
            self.fail(f"{' '.join(w)} was refused: {r[0].reason}")

    # ------------------------------------------------------------------ expectations
    def expect(self, what: str, w: list[str]) -> None:
        """Compare one aspect of the table with the script."""
        b = self.bench
        assert b is not None
        st = b.state
        info = st.info
        if what == "hand":  # expect hand button=1 sb=2 bb=3 dealt=1,2,3
            if info is None:
                self.fail("no hand has been dealt")
            assert info is not None
            got = {"button": str(info.button), "sb": str(info.sb_seat or "-"),
                   "bb": str(info.bb_seat),
                   "dealt": ",".join(str(s) for s in info.dealt)}
            for x in w:
                k, _, v = x.partition("=")
                if got[k] != v:
                    self.fail(f"hand {info.number}: {k} is {got[k]}, expected {v}")
        elif what == "posts":  # expect posts 4:2+1 2:1
            hand = st.hand
            if hand is None:
                self.fail("no hand is running")
            posts = {p.seat: f"{p.live_post}+{p.dead_post}" for p in hand.setup}
            for seat, v in _pairs(w).items():
                v = v if "+" in v else v + "+0"
                if posts.get(seat, "none") != v:
                    self.fail(f"seat {seat} posted {posts.get(seat, 'nothing')}, expected {v}")
        elif what == "stacks":
            got = b.stacks()
            for seat, v in _pairs(w).items():
                if got.get(seat) != int(v):
                    self.fail(f"seat {seat} has {got.get(seat)}, expected {v} (all: {got})")
        elif what == "marks":  # expect marks 4:sb,bb 3:-
            for seat, v in _pairs(w).items():
                s = st.seat(seat)
                if s is None:
                    self.fail(f"seat {seat} is empty")
                assert s is not None
                have = ",".join(m for m, on in (("sb", s.missed_sb), ("bb", s.missed_bb)) if on) or "-"
                if have != v:
                    self.fail(f"seat {seat} marks are {have}, expected {v}")
        elif what == "status":
            for seat, v in _pairs(w).items():
                s = st.seat(seat)
                have = "empty" if s is None else seat_status(st, s)
                if have != v:
                    self.fail(f"seat {seat} is {have}, expected {v}")
        elif what == "refused":
            r = b.refused()
            if not r or r[0].rule != w[0]:
                self.fail(f"expected a refusal {w[0]}, got {[x.reason for x in r]}")
        elif what == "showed":  # expect showed 1:mucked 2:shown (the last hand's record, P-4)
            if not b.hands:
                self.fail("no hand has finished")
            got = {str(x["seat"]): x["showed"] for x in b.hands[-1]["seats"]}
            for x in w:
                k, _, v = x.partition(":")
                if got.get(k) != v:
                    self.fail(f"seat {k} {got.get(k)}, expected {v}")
        elif what == "to_act":
            if str(b.to_act) != w[0]:
                self.fail(f"to act: {b.to_act}, expected {w[0]}")
        elif what == "street":
            have = "waiting" if st.hand is None else st.hand.street.value
            if have != w[0]:
                self.fail(f"street is {have}, expected {w[0]}")
        elif what == "rake":
            if st.ledger.rake != int(w[0]):
                self.fail(f"rake is {st.ledger.rake}, expected {w[0]}")
        elif what == "ledger":  # expect ledger in=3000 out=1000
            got = {"in": st.ledger.total_in, "out": st.ledger.total_out, "rake": st.ledger.rake}
            for x in w:
                k, _, v = x.partition("=")
                if got[k] != int(v):
                    self.fail(f"ledger {k} is {got[k]}, expected {v}")
        elif what == "hands":
            if st.hands != int(w[0]):
                self.fail(f"{st.hands} hands dealt, expected {w[0]}")
        else:
            self.fail(f"unknown expectation {what!r}")
