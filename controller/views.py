"""Pure projections of the table state into the JSON of docs/state.md (issue 3).

- :func:`public_view`: the retained public state every tablet and the display draw.
- :func:`private_view`: one seat's hole cards, hand in words (H-6), legal actions (A-1) and
  pre-selection (A-3); ``None`` when the seat holds no cards (the topic is cleared).
- :func:`lights`: a small per-seat projection for the seat LEDs: whose turn, the fraction of
  the action time left (A-2) and who sits out (T-5).

No I/O, no clock (``now`` is passed in), no randomness; the state is never changed.
Chips are integers; times are Unix seconds.
"""

from __future__ import annotations

from typing import Any

from controller.engine import evaluator
from controller.engine.cards import RANKS
from controller.engine.settings import Street
from controller.engine.table.play import all_in_runout, button_waits, card_texts, post_now_seats, show_offer
from controller.engine.table.state import Seat, TableState

__all__ = ["SCHEMA", "public_view", "private_view", "lights", "seat_status"]

SCHEMA = 1

_NAMES = {"2": ("deuce", "deuces"), "3": ("three", "threes"), "4": ("four", "fours"),
          "5": ("five", "fives"), "6": ("six", "sixes"), "7": ("seven", "sevens"),
          "8": ("eight", "eights"), "9": ("nine", "nines"), "T": ("ten", "tens"),
          "J": ("jack", "jacks"), "Q": ("queen", "queens"), "K": ("king", "kings"),
          "A": ("ace", "aces")}


def seat_status(state: TableState, seat: Seat) -> str:
    """Return the docs/state.md status of an occupied seat.

    In the hand: ``acting`` (its turn), ``folded`` (also mucked), ``all-in`` or ``active``.
    Not in the hand: ``waiting`` (a buy-in waiting for the dealer's confirmation, T-3; a new
    player or one owing missed blinds, T-4/T-6; or any player not dealt into the running
    hand), ``sitting-out`` (T-5, A-2, busted), else ``active``.
    """
    hand = state.hand
    if hand is not None and seat.seat in hand.index:
        i = hand.index[seat.seat]
        if hand.folded[i] or hand.mucked[i]:
            return "folded"
        if hand.seat_to_act == seat.seat and state.dealing is None:
            return "acting"
        if hand.allin[i]:
            return "all-in"
        return "active"
    if seat.buy_in_pending and seat.stack == 0 and not seat.sitting_out:
        return "waiting"
    if seat.sitting_out or seat.stack == 0:
        return "sitting-out"
    if hand is not None or seat.new or seat.missed_bb or seat.missed_sb:
        return "waiting"
    return "active"


def last_actions(hand: Any) -> dict[int, dict[str, Any]]:
    """Return each seat's last action in the betting round now running (A-1), for the screens
    (issue 20: CHECK, BET 300, RAISE TO 900, ALL-IN): ``{seat: {"action": "fold" | "check" |
    "call" | "bet" | "raise" | "all_in", "to": street total in chips or None}}``. ``to`` is
    set for bet, raise and all-in. A new street (or the draw) starts the round afresh; in the
    first round the blinds opened the betting, so any bet there is a raise (S-2).
    """
    out: dict[int, dict[str, Any]] = {}
    opened = True  # the blinds (or bring-in) opened the first round
    for e in hand._log:
        kind = e[0]
        if kind in ("deal_board", "draw", "deal_draw"):  # a new betting round comes
            out, opened = {}, False
            continue
        if kind in ("fold", "check", "call"):
            out[e[1]] = {"action": kind, "to": None}
        elif kind == "bet":
            out[e[1]] = {"action": "raise" if opened else "bet", "to": e[2]}
            opened = True
        elif kind == "all_in":
            out[e[1]] = {"action": "all_in", "to": e[2]}
            opened = opened or bool(e[3])
    return out


def _seat_json(state: TableState, n: int, waits: tuple[int, ...] = ()) -> dict[str, Any]:
    s = state.seats[n - 1]
    if s is None:
        return {"seat": n, "name": None, "stack": 0, "bet": 0, "status": "empty",
                "missed": {"sb": False, "bb": False}, "cards": 0, "shown": None, "drew": None,
                "connected": False, "posted_dead": 0, "auto_muck": False, "buy_in_pending": 0,
                "last_action": None, "out_reason": "", "waits_for_button": False}
    hand = state.hand
    status = seat_status(state, s)
    out = {"seat": n, "name": s.name, "stack": s.stack, "bet": 0,
           "status": status, "missed": {"sb": s.missed_sb, "bb": s.missed_bb},
           "cards": 0, "shown": None, "drew": None, "connected": s.connected, "posted_dead": 0,
           "auto_muck": s.auto_muck, "buy_in_pending": s.buy_in_pending, "last_action": None,
           # why the seat sits out (issue 20: a missed turn sat a player out without saying so)
           "out_reason": s.out_reason if s.sitting_out else "",
           # T-4 (issue 19): not dealt in until the button passes (the hand's plan, or the next one's)
           "waits_for_button": status == "waiting" and n in waits}
    if hand is None and state.last_result is not None:
        # between hands: the hands shown in the last one stay face up (P-2), mucked ones never
        rec = state.last_result
        shown = rec["result"]["shown"].get(str(n))
        if shown and rec["players"].get(str(n), {}).get("player") == s.player:
            out["shown"] = list(shown)
    if hand is not None and n in hand.index:
        i = hand.index[n]
        out["stack"] = hand.stack[i]
        out["bet"] = hand.bet[i]
        out["cards"] = 0 if (hand.folded[i] or hand.mucked[i]) else len(hand.hole[i])
        if hand.exposed[i] and not hand.mucked[i] and _tabled(state):
            out["shown"] = [c or "??" for c in card_texts(hand.hole[i])]
        out["drew"] = hand.drew[i]
        out["posted_dead"] = hand.setup[i].dead_post
        out["last_action"] = last_actions(hand).get(n)
    return out


def _tabled(state: TableState) -> bool:
    """S-8/P-2: whether the running hand's exposed hands may be seen now: in an all-in
    run-out (:func:`~controller.engine.table.play.all_in_runout`) or at the showdown.

    The hand engine exposes all-in hands as soon as no more *betting* is possible; in five
    card draw that comes before the draw, while the players still choose their discards,
    so those hands stay face down until the showdown.
    """
    hand = state.hand
    return hand is not None and (hand.street is Street.SHOWDOWN or all_in_runout(state))


def _join_json(state: TableState) -> dict[str, Any]:
    """T-3/T-4: whether a seat's tablet may take its free seat, and at which free seats a
    new player may post the big blind now (elsewhere they wait for the button to pass)."""
    mode = state.settings.tablet_join
    free = tuple(n for n, s in enumerate(state.seats, 1) if s is None)
    post = [] if mode == "off" or not free else list(post_now_seats(state, free))
    return {"mode": mode, "post_now": post}


def public_view(state: TableState, *, fault: dict[str, Any] | None = None, paused: bool = False,
                equity: dict[str, float] | None = None) -> dict[str, Any]:
    """Return the public state (docs/state.md, schema 1) of ``state``.

    ``fault`` / ``paused`` / ``equity`` come from the orchestrator (faults, S-8 equity);
    they are copied into ``fault``, ``paused`` and ``all_in_equity``. ``equity`` is
    published only while :func:`~controller.engine.table.play.all_in_runout` holds (no
    player can act any more, board cards to come), whatever the caller passed: never
    while a player still has a decision.
    """
    cfg = state.settings
    hand = state.hand
    info = state.info
    waits = button_waits(state) if any(s is not None for s in state.seats) else ()
    view: dict[str, Any] = {
        "schema": SCHEMA, "table": cfg.id, "name": cfg.name, "seq": state.seq,
        "hand": state.hands, "game": cfg.game, "limit": cfg.limit,
        "stakes": {"sb": cfg.small_blind, "bb": cfg.big_blind, "ante": cfg.ante, "bba": cfg.big_blind_ante,
                   "small_bet": cfg.small_bet, "big_bet": cfg.big_bet, "chip": cfg.smallest_chip},
        "max_seats": cfg.seats,
        "buy_in": {"min": cfg.buy_in_min, "max": cfg.buy_in_max},
        "join": _join_json(state),
        "street": "waiting", "button": None, "sb_seat": None, "bb_seat": None,
        "board": [], "pots": [],
        "seats": [_seat_json(state, n, waits) for n in range(1, cfg.seats + 1)],
        "turn": None, "showdown": None,
        "all_in_equity": equity if equity and all_in_runout(state) else None,  # S-8
        "fault": fault, "paused": paused, "rake": 0,
        "language": cfg.language,  # the table's language: the tablets' default (issue 20)
        "holds": [],  # the seats the room holds for called players: the orchestrator's (issue 18)
    }
    if hand is not None and info is not None:
        view["street"] = hand.street.value
        view["button"] = info.button
        view["sb_seat"] = info.sb_seat
        view["bb_seat"] = info.bb_seat
        view["board"] = [c or "??" for c in card_texts(hand.board)]
        view["pots"] = [{"amount": p.amount, "eligible": list(p.eligible)} for p in hand.pots()]
        t = state.timer
        if t is not None:
            view["turn"] = {"seat": t.seat, "started": t.started, "deadline": t.deadline,
                            "seconds": t.deadline - t.started,
                            "showdown": hand.street.value == "showdown"}
    elif state.last_result is not None:
        res = state.last_result["result"]
        if not res.get("voided"):
            board = [c for c in state.last_result["hand_record"]["board"] if c]
            view["showdown"] = [
                {"pot": a["pot"], "amount": a["amount"], "winners": a["winners"],
                 "shares": a["shares"], "hand": a["hand"], "rake": a.get("rake", 0),
                 "best": _best_fives(cfg.game, res, board, a)}
                for a in res["awards"]]
            view["rake"] = res["rake"]
            view["board"] = board
    return view


def _best_fives(game: str, res: dict[str, Any], board: list[str], award: dict[str, Any]) -> dict[str, list[str]]:
    """The five cards that won ``award`` for each winner whose hand was shown (H-1, G-2, G-3),
    for the screens to highlight (issue 20); empty for a pot won uncontested."""
    out: dict[str, list[str]] = {}
    if not award.get("hand"):
        return out
    for w in award.get("winners") or []:
        hole = [c for c in (res.get("shown") or {}).get(str(w)) or [] if c and c != "??"]
        try:
            if game == "omaha":
                five = evaluator.best_five_omaha(hole, board)
            else:
                five = evaluator.best_five(hole if game == "draw" else hole + board)
        except ValueError:  # cards not all known: nothing to highlight
            continue
        out[str(w)] = [str(c) for c in five]
    return out


def _words(game: str, hole: list[str], board: list[str]) -> str | None:
    """H-6: the player's hand in words, or None when it cannot be said yet."""
    try:
        if game == "draw":
            return evaluator.describe(evaluator.rank_hand(hole)) if len(hole) == 5 else None
        if len(board) >= 3:
            if game == "omaha":
                return evaluator.describe(evaluator.rank_omaha(hole, board))
            return evaluator.describe(evaluator.rank_hand(hole + board))
    except ValueError:
        return None
    if game == "holdem" and len(hole) == 2:
        a, b = sorted((h[0] for h in hole), key=RANKS.index, reverse=True)
        if a == b:
            return f"Pair of {_NAMES[a][1]}"
        return f"High card, {_NAMES[a][0]}"
    return None


_NO_LEGAL = {"fold": False, "check": False, "call": None, "bet": None, "raise": None,
             "all_in": None, "draw": None, "show": False, "muck": False}


def private_view(state: TableState, seat: int) -> dict[str, Any] | None:
    """Return seat ``seat``'s private view (docs/state.md), or None when it holds no cards.

    ``legal`` is set only on the seat's turn (betting: fold/check/call/bet/raise/all_in;
    draw: the most cards it may discard; showdown: ``show`` and ``muck`` true, P-2), and
    between hands for the uncontested winner of the last one, who may still show
    (``show`` true, ``muck`` false, ``to_act`` false; :func:`~controller.engine.table.play.show_offer`).
    ``preselect`` is ``{"choice", "amount"}`` or None.
    """
    hand = state.hand
    s = state.seat(seat)
    if hand is None and s is not None and show_offer(state) == seat:
        return _offer_view(state, seat)
    if hand is None or s is None or seat not in hand.index:
        return None
    i = hand.index[seat]
    hole = [c or "??" for c in card_texts(hand.hole[i])]
    known = [h for h in hole if h != "??"]
    board = [c for c in card_texts(hand.board) if c is not None]
    to_act = hand.seat_to_act == seat and state.dealing is None
    legal = None
    if to_act:
        lg = hand.legal()
        if lg.draw is not None:
            legal = {**_NO_LEGAL, "draw": lg.draw}
        elif lg.show or lg.muck:
            legal = {**_NO_LEGAL, "show": lg.show, "muck": lg.muck}
        else:
            legal = {"fold": lg.fold, "check": lg.check, "call": lg.call or None,
                     "bet": None if lg.bet is None else {"min": lg.bet[0], "max": lg.bet[1]},
                     "raise": None if lg.raise_ is None else {"min": lg.raise_[0], "max": lg.raise_[1]},
                     "all_in": lg.all_in, "draw": None, "show": False, "muck": False}
    pre = None if s.preselect is None else {"choice": s.preselect[0], "amount": s.preselect[1]}
    words = None
    if len(known) == len(hole) and not hand.folded[i]:
        words = _words(state.settings.game, known, board)
    return {"schema": SCHEMA, "table": state.settings.id, "seat": seat, "seq": state.seq,
            "hand": state.hands, "cards": hole, "hand_words": words, "to_act": to_act,
            "legal": legal, "preselect": pre}


def _offer_view(state: TableState, seat: int) -> dict[str, Any]:
    """The uncontested winner's view between hands: their cards and the offer to show (P-2)."""
    rec = state.last_result
    assert rec is not None
    mine = next(x for x in rec["seats"] if x["seat"] == seat)
    hole = [c or "??" for c in mine["cards"]]
    board = [c for c in rec["hand_record"]["board"] if c]
    words = None if "??" in hole else _words(state.settings.game, hole, board)
    return {"schema": SCHEMA, "table": state.settings.id, "seat": seat, "seq": state.seq,
            "hand": rec["hand"], "cards": hole, "hand_words": words, "to_act": False,
            "legal": {**_NO_LEGAL, "show": True}, "preselect": None}


def lights(state: TableState, now: float) -> dict[int, dict[str, Any]]:
    """Return ``{seat: {"turn": bool, "fraction_left": float | None, "sitting_out": bool}}``
    for every occupied seat; ``fraction_left`` is 1.0 .. 0.0 of the action time on the
    seat's turn (A-2), else None."""
    t = state.timer
    out: dict[int, dict[str, Any]] = {}
    for s in state.seats:
        if s is None:
            continue
        turn = t is not None and t.seat == s.seat
        frac = None
        if turn:
            span = t.deadline - t.started  # type: ignore[union-attr]
            left = t.deadline - now  # type: ignore[union-attr]
            frac = 0.0 if span <= 0 else max(0.0, min(1.0, left / span))
        out[s.seat] = {"turn": turn, "fraction_left": frac, "sitting_out": s.sitting_out}
    return out
