"""Public states and private views that put the seat tablet's screen through what a hand
shows (docs/state.md, schema 1), for the layout checks at phone, tablet and seat-screen
sizes (issue 20). Each function returns ``(state, private)`` for seat ``ME``; ``private`` None
means no private view (cleared)."""

from __future__ import annotations

import copy
import time
from typing import Any

ME = 3
NAMES = ["Annemarie", "Bob", "Chris", "Dolores-Maria", "Eve", "Frank van Dijk", "Gert", "Hanneke", "Ivo", "Jan-Willem"]


def _seat(n: int, **over: Any) -> dict[str, Any]:
    s = {"seat": n, "name": NAMES[n - 1], "stack": 12_345 * n, "bet": 0, "status": "active",
         "missed": {"sb": False, "bb": False}, "cards": 2, "shown": None, "drew": None,
         "connected": True, "posted_dead": 0, "auto_muck": False, "buy_in_pending": 0}
    s.update(over)
    return s


def base(seats: int = 10, **over: Any) -> dict[str, Any]:
    """A ten-handed no-limit hold'em table on the flop, seat 5 to act, big chip counts."""
    now = time.time()
    state = {
        "schema": 1, "table": "t1", "name": "Table 1", "seq": 100, "hand": 1234, "game": "holdem",
        "limit": "no-limit", "stakes": {"sb": 50, "bb": 100, "ante": 0, "small_bet": None, "big_bet": None},
        "max_seats": seats, "buy_in": {"min": 2000, "max": 10000}, "join": {"mode": "direct", "post_now": []},
        "street": "flop", "button": 1, "sb_seat": 2, "bb_seat": ME, "board": ["Jh", "Tc", "3d"],
        "pots": [{"amount": 123_400, "eligible": list(range(1, seats + 1))}],
        "seats": [_seat(n, bet=[0, 1200, 9900, 0, 25_000][n % 5]) for n in range(1, seats + 1)],
        "turn": {"seat": 5, "started": now, "deadline": now + 30, "seconds": 30, "showdown": False},
        "showdown": None, "all_in_equity": None, "fault": None, "paused": False, "rake": 0,
    }
    state["seats"][4]["status"] = "acting"
    for n, act in ((1, {"action": "raise", "to": 1200}), (2, {"action": "call", "to": None}),
                   (4, {"action": "raise", "to": 25_000}), (10, {"action": "check", "to": None})):
        state["seats"][n - 1]["last_action"] = act
    state["seats"][6]["status"] = "folded"
    state["seats"][6]["cards"] = 0
    state["seats"][8]["missed"] = {"sb": False, "bb": True}
    state["seats"][8]["status"] = "sitting-out"
    state["seats"][8]["cards"] = 0
    state["seats"][8]["bet"] = 0  # sitting out: no chips in this hand
    state.update(over)
    return state


def private(state: dict[str, Any], **over: Any) -> dict[str, Any]:
    view = {"schema": 1, "table": "t1", "seat": ME, "seq": state["seq"], "hand": state["hand"],
            "cards": ["As", "Kd"], "hand_words": "High card, ace", "to_act": False, "legal": None,
            "preselect": None}
    view.update(over)
    return view


def my_turn() -> tuple[dict[str, Any], dict[str, Any]]:
    """Our turn facing a bet: fold, call, raise with the slider, all-in."""
    s = base()
    now = time.time()
    s["turn"] = {"seat": ME, "started": now, "deadline": now + 30, "seconds": 30, "showdown": False}
    s["seats"][4]["status"] = "active"
    s["seats"][ME - 1]["status"] = "acting"
    me = s["seats"][ME - 1]
    me["stack"] = 150_000  # deep enough to raise: the slider and its shortcuts show
    legal = {"fold": True, "check": False, "call": 25_000 - me["bet"], "bet": None,
             "raise": {"min": 50_000, "max": me["stack"] + me["bet"]}, "all_in": me["stack"] + me["bet"],
             "draw": None, "show": False, "muck": False}
    return s, private(s, to_act=True, legal=legal)


def call_all_in() -> tuple[dict[str, Any], dict[str, Any]]:
    """Our turn, and calling takes every chip (issue 20: "Call 9,900" beside "All-in 9,900")."""
    s, p = my_turn()
    me = s["seats"][ME - 1]
    me["stack"], me["bet"] = 9900, 0
    p["legal"] = {"fold": True, "check": False, "call": 9900, "bet": None, "raise": None, "all_in": 9900,
                  "draw": None, "show": False, "muck": False}
    return s, p


def preselect() -> tuple[dict[str, Any], dict[str, Any]]:
    """Someone else acts; our pre-selections show (A-3)."""
    s = base()
    return s, private(s)


def all_in_showdown() -> tuple[dict[str, Any], dict[str, Any] | None]:
    """After the hand: three pots with a split side pot, hands shown, rake taken."""
    s = base(street="waiting", turn=None, board=["Jh", "Tc", "3d", "Qs", "2c"], pots=[], rake=300)
    for x in s["seats"]:
        x["bet"] = 0
        x["cards"] = 0
        x["status"] = "active" if x["status"] == "acting" else x["status"]
        x["last_action"] = None  # the hand is over
    for n, cards in ((1, ["Ah", "Ad"]), (2, ["Kc", "Ks"]), (ME, ["As", "Kd"]), (4, ["9h", "8h"])):
        s["seats"][n - 1]["shown"] = cards
    s["seats"][3]["stack"] = 0
    s["showdown"] = [
        {"pot": 0, "amount": 40_000, "winners": [1], "shares": {"1": 39_700}, "hand": "Three of a kind, aces",
         "rake": 300,
         "best": {"1": ["Ah", "Ad", "Qs", "Jh", "Tc"]}},
        {"pot": 1, "amount": 23_538, "winners": [1, ME], "shares": {"1": 11_769, str(ME): 11_769},
         "hand": "Straight, ace high"},
        {"pot": 2, "amount": 3_538, "winners": [2], "shares": {"2": 3_538}, "hand": "Three of a kind, kings"},
    ]
    return s, None


def busted() -> tuple[dict[str, Any], dict[str, Any] | None]:
    """We lost every chip: the seat is kept, sitting out, and may buy in again (T-2)."""
    s, _ = all_in_showdown()
    me = s["seats"][ME - 1]
    me.update(stack=0, status="sitting-out", shown=None)
    return s, None


def rebuy_waits() -> tuple[dict[str, Any], dict[str, Any] | None]:
    """At a table where the dealer confirms chips, our buy-in again waits for the dealer
    (T-3, issue 20): still sitting out, the amount on the seat."""
    s, _ = busted()
    s["join"] = {"mode": "confirm", "post_now": []}
    s["seats"][ME - 1]["buy_in_pending"] = 10_000
    return s, None


def bought_in_again() -> tuple[dict[str, Any], dict[str, Any] | None]:
    """We bought in again after busting (T-2) and are seated with the chips, between hands
    and not yet dealt in: nothing for us to do or read, so nothing of our area shows (the
    bust/rebuy e2e: an empty bar stayed where the "Buy in again" form was)."""
    s, _ = busted()
    s["seats"][ME - 1].update(stack=10_000, status="active")
    return s, None


def timed_out() -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Our action clock ran out last hand: sat out with chips, owing the small blind (issue
    20: "Sitting out · missed SB" with no word why and Sit in only under My seat)."""
    s, _ = preselect()
    me = s["seats"][ME - 1]
    me.update(status="sitting-out", bet=0, cards=0, out_reason="timeout", missed={"sb": True, "bb": False})
    return s, None


def preflop() -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Before the flop at ``livetable simulate``'s table: the blinds and a raise are bets, no
    pot yet (issue 20: no total showed; the phone's header cut the stakes off)."""
    s = base(name="Simulated holdem", street="preflop", board=[], pots=[])
    for x in s["seats"]:
        x.update(bet=0, status="active", missed={"sb": False, "bb": False}, cards=2, last_action=None)
    s["seats"][1]["bet"], s["seats"][ME - 1]["bet"], s["seats"][3]["bet"] = 50, 100, 650
    s["seats"][4]["status"] = "acting"
    s["turn"]["seat"] = 5
    return s, private(s)


def join_free_seat() -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Our seat is free: Take this seat."""
    s = base()
    s["seats"][ME - 1] = {"seat": ME, "name": None, "stack": 0, "bet": 0, "status": "empty",
                          "missed": {"sb": False, "bb": False}, "cards": 0, "shown": None, "drew": None,
                          "connected": False, "posted_dead": 0, "auto_muck": False, "buy_in_pending": 0}
    s["bb_seat"] = 4
    s["join"] = {"mode": "direct", "post_now": [ME]}
    return s, None


def join_between_blinds() -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Our seat is free between the big blind and the button: Take this seat without Post the
    big blind now (T-4), the hint saying why; the next hand may offer it again (the buttons
    must not move between the two)."""
    s, _ = join_free_seat()
    s["join"] = {"mode": "direct", "post_now": []}
    return s, None


def held_seats() -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Issue 18: our seat and seat 7 are free and held by the room for players it called from
    the waiting list (``holds``): "Held for <name> (m:ss)" instead of a free seat."""
    s, _ = join_free_seat()
    s["seats"][6] = dict(s["seats"][ME - 1], seat=7)
    now = time.time()
    s["holds"] = [{"seat": ME, "name": "Annemarie", "until": now + 161}, {"seat": 7, "name": "Bo", "until": now + 95}]
    return s, None


def paused() -> tuple[dict[str, Any], dict[str, Any]]:
    """A fault paused the table mid-hand."""
    s = base(paused=True, fault={"kind": "paused", "message": "Paused by the floor", "since": time.time()})
    return s, private(s)


def waits_missed_sb() -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Seen from our busted seat: seat 2 bought in again after missing the small blind, and
    waits for the button (T-4, T-6): "Waits for the button · missed SB" ("Wacht op de button
    · SB gemist" needed three lines of the 10" tablet's portrait seat and had two)."""
    s, _ = busted()
    s["seats"][1].update(status="waiting", waits_for_button=True, missed={"sb": True, "bb": False},
                         shown=None, cards=0, stack=10_000)
    return s, None


def longest_statuses() -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The longest status lines a seat shows, during a hand: waiting for the button with a
    missed big blind and its tablet offline (seat 2), sitting out owing the big blind and
    offline (seat 6), a buy-in waiting for the dealer with a missed big blind and offline
    (seat 8), and a dealt-in seat whose raise and "tablet offline" share the line (seat 4)."""
    s, _ = preselect()
    s["join"] = {"mode": "confirm", "post_now": []}
    s["seats"][1].update(status="waiting", waits_for_button=True, missed={"sb": True, "bb": True}, bet=0, cards=0,
                         connected=False, last_action=None)
    s["seats"][5].update(status="sitting-out", missed={"sb": True, "bb": True}, bet=0, cards=0, connected=False)
    s["seats"][7].update(status="sitting-out", missed={"sb": False, "bb": True}, bet=0, cards=0, stack=0,
                         buy_in_pending=10_000, connected=False)
    s["seats"][3]["connected"] = False
    return s, private(s)


def missed_both() -> tuple[dict[str, Any], dict[str, Any] | None]:
    """T-6: we sat out through both blinds and owe both (the big blind live, the small one
    dead): our seat and seat 6 read "missed SB+BB" ("SB+BB gemist"; it read "missed BB"),
    seat 9 "missed BB", and My seat offers Post the big blind now / Wait for the big blind."""
    s, _ = preselect()
    s["seats"][ME - 1].update(status="sitting-out", bet=0, cards=0, last_action=None, missed={"sb": True, "bb": True})
    s["seats"][5].update(status="sitting-out", bet=0, cards=0, last_action=None, missed={"sb": True, "bb": True})
    return s, None


def tournament_out() -> tuple[dict[str, Any], dict[str, Any] | None]:
    """At a tournament, after the hand we busted in: our seat has no chips (sitting out until
    the room stands us up), seat 4 lost every chip at the showdown, and seat 7's player busted
    earlier, "Out — 5th" (the view's ``out``). None of the three shows a stack in big blinds
    (each read "0 BB"). ``tournament_view`` holds the view's fields of this screen (``out``);
    the tournament tests add the level and every seat's ``seats_bb``, 0 for a seat with none."""
    s, _ = busted()
    s["seats"][6] = {"seat": 7, "name": None, "stack": 0, "bet": 0, "status": "empty",
                     "missed": {"sb": False, "bb": False}, "cards": 0, "shown": None, "drew": None,
                     "connected": False, "posted_dead": 0, "auto_muck": False, "buy_in_pending": 0}
    s["tournament_view"] = {"out": {"7": {"name": NAMES[6], "place": 5, "tied_to": None, "prize": 0}}}
    return s, None


SCREENS = {
    "turn": my_turn, "call-all-in": call_all_in, "preselect": preselect, "showdown": all_in_showdown,
    "busted": busted, "bought-in-again": bought_in_again, "rebuy-waits": rebuy_waits, "timed-out": timed_out,
    "preflop": preflop, "join": join_free_seat,
    "held": held_seats, "paused": paused, "waits-missed-sb": waits_missed_sb, "longest-statuses": longest_statuses,
    "missed-both": missed_both,
}

#: screens only a tournament shows (test_tablet_tournament_e2e.py, with its level and stacks)
TOURNAMENT_SCREENS = {"tournament-out": tournament_out}

#: screens the tournament's screens test leaves out: their seat lines (waiting for the button
#: and owing a missed blind with a buy-in to confirm, cash-table rules T-3, T-4, T-6) never
#: show at a tournament, whose seats give a line to the stack in big blinds; nor does a
#: cash table's buy-in again (T-2: a tournament has its rebuys)
CASH_ONLY = frozenset({"longest-statuses", "missed-both", "bought-in-again"})


def numbered(state: dict[str, Any], seq: int) -> dict[str, Any]:
    """A copy of ``state`` with ``seq`` (the page drops an older seq unless retained)."""
    out = copy.deepcopy(state)
    out["seq"] = seq
    return out
