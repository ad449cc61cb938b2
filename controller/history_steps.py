"""The words of the recall inside a hand (issue 9): :class:`Step`, :class:`HandRecall`,
:class:`Recall`, and the builder that follows one hand's engine events with a replica hand
engine (posts, actions with amounts and stacks, board, shows and mucks, pots, winners with
their kickers: H-4, rake).

Part of :mod:`controller.history` (which re-exports the public names).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.engine import evaluator
from controller.engine.hand import Hand
from controller.engine.settings import HandSettings
from controller.engine.table import effects as fx
from controller.engine.table.state import TableState

__all__ = ["Step", "HandRecall", "Recall"]


@dataclass
class Step:
    """One line of a hand's recall.

    ``at`` Unix seconds (None when unknown); ``kind``: ``post``, ``deal`` (draw cards),
    ``board``, ``action``, ``draw``, ``show``, ``muck``, ``return`` (uncalled bet, S-9),
    ``pot`` (an award), ``rake``, ``void``, ``fault``, ``fault-ended``, ``recovery``,
    ``set-aside`` (a journal event not replayed: a ``rejected`` event names it),
    ``seat`` (seats and chips, T-2..T-8: see
    :func:`controller.history_seats._seat_steps`), ``note``;
    ``seat`` the seat concerned or None; ``text`` the readable line; ``data`` the facts
    (``amount``/``to``/``stack`` in chips, ``cards``, ``rule``, ``by``...; ``between``
    True for what happened between the previous hand and this one).
    """

    at: float | None
    kind: str
    text: str
    seat: int | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Return ``{"at", "kind", "seat", "text", **data}``."""
        return {"at": self.at, "kind": self.kind, "seat": self.seat, "text": self.text, **self.data}


@dataclass
class HandRecall:
    """One hand rebuilt from the journal.

    ``number`` the table's hand number; ``seats`` per seat dealt in: ``seat``, ``name``,
    ``player``, ``start`` (stack before posting), ``end`` (None while running), ``cards``
    (every hole card known, ``"??"`` unknown), ``status`` (``folded``, ``mucked``,
    ``shown``, ``won`` uncontested, ``live`` while running, ``void``); ``steps`` in order;
    ``in_progress`` True when the journal ends inside the hand; ``paused`` the open
    fault (``{"kind", "message", "since"}``) when the table is paused; ``record`` the
    ``hand-finished`` record when the hand ended.
    """

    number: int
    table: str
    game: str
    limit: str
    started: float
    button: int
    sb_seat: int | None
    bb_seat: int
    stakes: dict[str, Any]
    seats: list[dict[str, Any]]
    steps: list[Step]
    ended: float | None = None
    in_progress: bool = True
    voided: bool = False
    rake: int = 0
    board: list[str] = field(default_factory=list)
    paused: dict[str, Any] | None = None
    to_act: int | None = None
    pots: list[dict[str, Any]] = field(default_factory=list)
    record: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-able dict (``livetable history --json``)."""
        return {
            "hand": self.number, "table": self.table, "game": self.game, "limit": self.limit,
            "started": self.started, "ended": self.ended, "in_progress": self.in_progress,
            "voided": self.voided, "button": self.button, "sb_seat": self.sb_seat,
            "bb_seat": self.bb_seat, "stakes": self.stakes, "seats": self.seats,
            "board": self.board, "rake": self.rake, "paused": self.paused, "to_act": self.to_act,
            "pots": self.pots,
            "steps": [s.to_json() for s in self.steps],
        }


@dataclass
class Recall:
    """What :func:`recall` found: ``hands`` oldest first, the table's open ``faults`` at the
    end of the journal, and ``last_seq`` (the newest journal event read)."""

    hands: list[HandRecall]
    faults: list[dict[str, Any]]
    last_seq: int


_AUTO_WHY = {
    "A-2": "time ran out (A-2)", "A-3": "pre-selected (A-3)", "A-4": "tablet disconnected (A-4)",
    "T-8": "player leaving (T-8)", "P-2": "decided by the table at showdown (P-2)",
}


class _Builder:
    """Follows one hand through the journal with a replica hand engine, writing steps."""

    def __init__(self, state: TableState, at: float) -> None:
        hand, info = state.hand, state.info
        assert hand is not None and info is not None
        self.replica = Hand(hand.settings, list(hand.setup), button=hand.button,
                            sb_seat=hand.sb_seat, bb_seat=hand.bb_seat)
        self.done = 0  # engine events applied to the replica
        self.auto_done = 0
        s: HandSettings = hand.settings
        stakes: dict[str, Any] = {"small_blind": s.small_blind, "big_blind": s.big_blind,
                                  "ante": s.ante}
        if s.limit.value == "fixed-limit":
            stakes.update(small_bet=s.small_bet, big_bet=s.big_bet)
        if s.rake is not None:
            stakes["rake_percent"] = str(s.rake.percent)
        seats = []
        for p in sorted(hand.setup, key=lambda p: p.seat):
            seat = state.seat(p.seat)
            seats.append({"seat": p.seat, "name": seat.name if seat else f"Seat {p.seat}",
                          "player": info.players.get(p.seat, ""), "start": p.stack, "end": None,
                          "cards": [], "status": "live"})
        self.recall = HandRecall(
            number=info.number, table=str(state.settings.id), game=s.game.value,
            limit=s.limit.value, started=info.started_at, button=info.button,
            sb_seat=info.sb_seat, bb_seat=info.bb_seat, stakes=stakes, seats=seats, steps=[])
        self.names = {x["seat"]: x["name"] for x in seats}
        self._posts(at)

    def who(self, seat: int) -> str:
        return f"Seat {seat} ({self.names.get(seat, '?')})"

    def add(self, at: float | None, kind: str, text: str, seat: int | None = None, **data: Any) -> None:
        self.recall.steps.append(Step(at, kind, text, seat, data))

    def _posts(self, at: float) -> None:
        """Antes first, then the small blind, the big blind, other live posts, dead posts; with
        a tournament's big-blind ante (``big_blind_first``, TDA RP-11) the blinds first and the
        ante from what is left, as the hand engine takes them (issue 19: the history listed the
        ante first and a short big blind's ante in full)."""
        r, h = self.recall, self.replica
        bb_first = h.settings.big_blind_first
        posts: list[tuple[int, int, str, str, int]] = []  # (order, seat, kind, text, amount)
        for p in sorted(h.setup, key=lambda p: p.seat):
            left = p.stack
            live = min(p.live_post, left) if bb_first else 0
            left -= live
            ante = min(h.settings.ante if p.ante is None else p.ante, left)
            left -= ante
            if not bb_first:
                live = min(p.live_post, left)
                left -= live
            dead = min(p.dead_post, left)
            left -= dead
            allin = " (all-in)" if left == 0 else ""
            if ante:
                posts.append((35 if bb_first else 0, p.seat, "ante", f"posts the ante {ante}", ante))
            if live:
                if p.seat == r.sb_seat:
                    posts.append((10, p.seat, "small blind", f"posts the small blind {live}{allin}", live))
                elif p.seat == r.bb_seat:
                    posts.append((20, p.seat, "big blind", f"posts the big blind {live}{allin}", live))
                else:
                    posts.append((30, p.seat, "live", f"posts a big blind {live} to play (T-4/T-6){allin}", live))
            if dead:
                posts.append((40, p.seat, "dead", f"posts {dead} dead (missed blind, T-6){allin}", dead))
        posts.sort(key=lambda x: (x[0], (x[1] - h.button - 1) % 100))  # clockwise from the button
        for _, seat, kind, text, amount in posts:
            self.add(at, "post", f"{self.who(seat)} {text}", seat, post=kind, amount=amount)
        if r.sb_seat is None:
            self.add(at, "post", "The small blind is dead (T-1)", None, post="dead small blind")

    # -------------------------------------------------------------- engine events
    def catch_up(self, events: list[dict[str, Any]], at: float, autos: list[tuple[int, str, str]],
                 trigger: str) -> None:
        """Apply the hand engine events not yet seen; ``autos`` the table's automatic actions
        added in this step (``(seat, action, rule)``); ``trigger`` the table event kind."""
        queue = list(autos)
        for e in events[self.done:]:
            self._one(e, at, queue, trigger)
            self.done += 1

    def _one(self, e: dict[str, Any], at: float, autos: list[tuple[int, str, str]], trigger: str) -> None:
        h = self.replica
        t = e.get("t")
        seat = e.get("seat")
        i = h.index.get(seat) if seat is not None else None
        before_stack = h.stack[i] if i is not None else 0
        before_bet = h.bet[i] if i is not None else 0
        street = h.street.value
        n_board = len(h.board)
        current = h.current
        h.apply(e)
        why = ""
        rule = None
        if seat is not None and autos and autos[0][0] == seat and t not in ("deal_hole", "deal_draw"):
            rule = autos.pop(0)[2]
            why = f" [{_AUTO_WHY.get(rule, rule)}]"
        elif trigger == "timer-expired" and t in ("fold", "check", "draw"):
            rule = "A-2"
            why = f" [{_AUTO_WHY['A-2']}]"
        if t == "deal_hole":
            return  # hole cards are listed per seat
        if t == "deal_board":
            cards = e.get("cards", "")
            n = len(cards.split())
            name = {0: "Flop", 3: "Turn", 4: "River"}.get(n_board, "Board") if n_board + n <= 5 else "Board"
            burn = f" (burn {e['burn']})" if e.get("burn") else ""
            self.add(at, "board", f"{name}: {cards}{burn}", None, street=name.lower(),
                     cards=cards.split(), burn=e.get("burn"))
            return
        if t == "deal_draw":
            assert seat is not None  # the engine refuses a draw without its seat (G-3)
            cards = e.get("cards", "")
            burn = f" (burn {e['burn']})" if e.get("burn") else ""
            self.add(at, "deal", f"{self.who(seat)} receives {cards}{burn}", seat, cards=cards.split(),
                     burn=e.get("burn"))
            return
        if t == "void":
            return  # written by the table's hand-voided event with who decided it
        assert i is not None and seat is not None  # i is the seat's index
        stack = h.stack[i]
        if h.street.value == "complete" and street != "complete":
            # the action closed the hand and the engine awarded the pots in the same step (every
            # other player all-in): the stack now holds the winnings, so count from before it
            stack = before_stack - {"call": min(max(0, current - before_bet), before_stack),
                                    "all_in": before_stack,
                                    "bet": int(e.get("to") or before_bet) - before_bet}.get(str(t), 0)
        put = before_stack - stack
        to = before_bet + put
        facts: dict[str, Any] = {"street": street, "action": t, "stack": stack}
        if rule:
            facts["rule"] = rule
        if t == "fold":
            text = f"{self.who(seat)} folds"
        elif t == "leave":
            text = f"{self.who(seat)} folds: the player stood up (T-8)"
        elif t == "check":
            text = f"{self.who(seat)} checks"
        elif t == "call":
            text = f"{self.who(seat)} calls {put}" + (" (all-in)" if stack == 0 else "")
            facts.update(amount=put, to=to)
        elif t == "bet":
            verb = "bets" if current == 0 else "raises to"
            text = f"{self.who(seat)} {verb} {to}" + (" (all-in)" if stack == 0 else "")
            facts.update(amount=put, to=to)
        elif t == "all_in":
            how = (("bets" if current == 0 else "raises to") + f" {to}") if e.get("raise") else "calls"
            text = f"{self.who(seat)} goes all-in for {put} ({how})"
            facts.update(amount=put, to=to)
        elif t == "draw":
            cards = (e.get("cards") or "").split()
            text = (f"{self.who(seat)} discards {len(cards)}: {' '.join(cards)}" if cards
                    else f"{self.who(seat)} stands pat")
            facts.update(discards=cards)
            self.add(at, "draw", text + why, seat, **facts)
            return
        elif t == "show":
            cards = [c for c in (e.get("cards") or "").split()] or [
                str(c) for c in h.hole_cards(seat) if c is not None]
            words = _words(h, seat)
            full = _words(h, seat, kickers=True)  # the floor sees the kickers (H-4)
            text = f"{self.who(seat)} shows {' '.join(cards)}" + (f" ({full})" if full else "")
            self.add(at, "show", text + why, seat, cards=cards, hand=words, hand_kickers=full,
                     **({"rule": rule} if rule else {}))
            return
        elif t == "muck":
            cards = [str(c) if c is not None else "??" for c in h.hole_cards(seat)]
            self.add(at, "muck", f"{self.who(seat)} mucks [{' '.join(cards)}] (P-4: not shown publicly)" + why,
                     seat, cards=cards, **({"rule": rule} if rule else {}))
            return
        else:
            text = f"{self.who(seat)} {t}"
        if t not in ("fold", "leave"):
            text += f", stack {stack}"
        self.add(at, "action", text + why, seat, **facts)

    # -------------------------------------------------------------- end
    def finish(self, record: dict[str, Any], at: float) -> None:
        """Close the hand with its ``hand-finished`` record: returns, pots, rake, stacks."""
        r = self.recall
        r.record = record
        r.in_progress = False
        r.ended = float(record.get("ended", at))
        res = record.get("result") or {}
        r.voided = bool(record.get("voided") or res.get("voided"))
        r.rake = int(res.get("rake") or 0)
        r.board = [c for c in (record.get("hand_record") or {}).get("board") or [] if c]
        final = {int(k): v for k, v in (res.get("stacks") or {}).items()}
        shown = {int(k) for k in res.get("shown") or {}}
        mucked = {int(k) for k in res.get("mucked") or []}
        hole = {int(k): v for k, v in (res.get("hole") or {}).items()}
        winners = {int(w) for a in res.get("awards") or [] for w in a.get("winners") or []}
        for s in r.seats:
            n = s["seat"]
            s["end"] = final.get(n)
            known = hole.get(n) or [str(c) if c is not None else None for c in self.replica.hole_cards(n)]
            s["cards"] = [c or "??" for c in known]
            i = self.replica.index[n]
            s["status"] = ("void" if r.voided else "shown" if n in shown else "mucked" if n in mucked
                           else "folded" if self.replica.folded[i] else "won" if n in winners else "folded")
        if r.voided:
            return
        # hands the table turned up itself (S-8 all-in, P-2 a hand that can win) had no line
        told = {st.seat for st in r.steps if st.kind == "show"}
        for n in sorted(shown - told):
            cards = [c for c in (res.get("shown") or {}).get(str(n)) or [] if c]
            full = _words(self.replica, n, kickers=True)
            self.add(r.ended, "show", f"{self.who(n)} shows {' '.join(cards)}" + (f" ({full})" if full else ""),
                     n, cards=cards, hand=_words(self.replica, n), hand_kickers=full, by="table")
        for seat, amount in sorted((res.get("returned") or {}).items(), key=lambda x: int(x[0])):
            if amount:
                self.add(r.ended, "return", f"Uncalled {amount} returned to {self.who(int(seat))} (S-9)",
                         int(seat), amount=amount)
        awards = res.get("awards") or []
        for k, a in enumerate(awards):
            name = "Main pot" if k == 0 else (f"Side pot {k}" if len(awards) > 2 else "Side pot")
            shares = {int(x): v for x, v in (a.get("shares") or {}).items()}
            who = ", ".join(f"{self.who(w)} wins {shares.get(w, 0)}" for w in a.get("winners") or shares)
            words = a.get("hand") or ""
            full = ""
            if words:
                full, beaten = self._kickers(a, res, shown)
                how = f" with {full or words}"
                for seat, theirs in beaten:  # same call, decided by the kickers (H-4)
                    how += f"; beats {self.who(seat)}'s {theirs} on the kickers (H-4)"
            elif (a.get("winners") or shares) and all(int(w) in shown for w in a.get("winners") or shares):
                how = " (shown; no other hand contested it)"  # the others mucked, or a pot of its own
            else:
                how = " (uncontested, not shown)"
            rake = f", rake {a['rake']}" if a.get("rake") else ""
            self.add(r.ended, "pot", f"{name} {a.get('amount')}{rake}: {who}{how}", None,
                     pot=k, amount=a.get("amount"), rake=a.get("rake", 0), shares=shares, hand=words,
                     hand_kickers=full)
        self.add(r.ended, "rake", f"Rake {r.rake}" + ("" if r.rake else " (R-1/R-2: none taken)"), None,
                 amount=r.rake)

    def _kickers(self, award: dict[str, Any], res: dict[str, Any], shown: set[int]
                 ) -> tuple[str, list[tuple[int, str]]]:
        """Return the pot winner's hand in words with its kickers (H-4), and the shown hands
        it beat that have the same H-6 call (``(seat, words with kickers)``): the pots the
        kickers decided. ``("", [])`` when the winner's cards are not known."""
        board = [c for c in self.recall.board if c]
        game = self.replica.settings.game.value
        hole = {int(k): [c for c in v if c] for k, v in (res.get("hole") or {}).items()}

        def full(seat: int) -> str:
            try:
                return evaluator.describe_hand(hole.get(seat) or [], board, game=game, kickers=True)
            except ValueError:
                return ""

        winners = [int(w) for w in award.get("winners") or []]
        if not winners:
            return "", []
        mine = full(winners[0])
        beaten = []
        for seat in award.get("eligible") or []:
            seat = int(seat)
            if seat in winners or seat not in shown:
                continue
            try:
                call = evaluator.describe_hand(hole.get(seat) or [], board, game=game)
            except ValueError:
                continue
            if call == award.get("hand"):
                beaten.append((seat, full(seat)))
        return mine, beaten

    def snapshot_now(self, state: TableState) -> None:
        """Fill in the running hand's current facts (in progress)."""
        r, h = self.recall, self.replica
        r.in_progress = True
        r.board = [str(c) for c in h.board_cards() if c is not None]
        r.to_act = h.seat_to_act
        for s in r.seats:
            i = h.index[s["seat"]]
            s["cards"] = [str(c) if c is not None else "??" for c in h.hole_cards(s["seat"])]
            s["stack"] = h.stack[i]
            s["status"] = ("folded" if h.folded[i] else "mucked" if h.mucked[i]
                           else "shown" if h.exposed[i] else "live")
        pots = h.pots()
        bets = sum(h.bet)
        r.pots = [{"amount": p.amount, "eligible": list(p.eligible)} for p in pots]
        text = ", ".join(f"{'main' if k == 0 else 'side'} pot {p.amount}" for k, p in enumerate(pots)) or "no pot yet"
        if bets:
            text += f", {bets} in bets this round"
        now = f"Now: {text}; "
        if state.dealing is not None:
            now += f"waiting for cards ({state.dealing.kind})"
        elif r.to_act is not None:
            now += f"{self.who(r.to_act)} to act"
        else:
            now += "waiting"
        self.add(None, "note", now, None, pots=[p.amount for p in pots], bets=bets)


def _words(h: Hand, seat: int, *, kickers: bool = False) -> str | None:
    """The seat's hand in words (H-6), with its kickers when ``kickers`` (H-4); None when
    its cards cannot be described."""
    hole = [str(c) for c in h.hole_cards(seat) if c is not None]
    board = [str(c) for c in h.board_cards() if c is not None]
    try:
        return evaluator.describe_hand(hole, board, game=h.settings.game.value, kickers=kickers)
    except ValueError:
        return None


def _notes(cur: _Builder, data: dict[str, Any], effects: list[Any], at: float, own: list[Step]) -> None:
    """Add the table events a floor person wants to see inside a hand: seat changes
    (``own``, from :func:`_seat_steps`), and every refusal of a player's action or of a
    card."""
    cur.recall.steps += own
    for e in effects:
        if not isinstance(e, fx.Refuse):
            continue
        if e.event == "card-dealt":
            cur.add(at, "note", f"Card refused: {e.reason}", None, rule=e.rule, event=e.event)
        elif e.seat is not None and e.event == "action-taken":
            what = data.get("action", "")
            if data.get("amount") is not None:
                what += f" {data['amount']}"
            cur.add(at, "note", f"{cur.who(e.seat)} tried to {what}: refused ({e.reason})", e.seat,
                    rule=e.rule, event=e.event)
