"""Public states (docs/state.md, schema 1) for the display tests, built from the contract.

Each builder returns a fresh dict; chips are integers and every state keeps the chips it
shows consistent (stacks + bets + pots + rake = what the players brought).
"""

from __future__ import annotations

import copy
from typing import Any

NAMES = ["Ann", "Bob", "Carla", "Dmitri", "Eve", "Farouk", "Gwendolyn", "Hiro", "Ines", "Jo"]
T0 = 1732900000.0


def seat(n: int, name: str | None = None, *, stack: int = 10_000, bet: int = 0,
         status: str = "active", cards: int = 2, shown: list[str] | None = None,
         missed: tuple[bool, bool] = (False, False), drew: int | None = None) -> dict[str, Any]:
    """Return one seat entry of the public state."""
    return {
        "seat": n, "name": name if name is not None else NAMES[(n - 1) % len(NAMES)],
        "stack": stack, "bet": bet, "status": status,
        "missed": {"sb": missed[0], "bb": missed[1]},
        "cards": cards if status in ("active", "acting", "all-in") else 0,
        "shown": shown, "drew": drew, "connected": True, "posted_dead": 0,
    }


def empty(n: int) -> dict[str, Any]:
    """Return an empty seat entry."""
    return {"seat": n, "name": None, "stack": 0, "bet": 0, "status": "empty",
            "missed": {"sb": False, "bb": False}, "cards": 0, "shown": None, "drew": None,
            "connected": False, "posted_dead": 0}


def base(**over: Any) -> dict[str, Any]:
    """Return a state skeleton; keyword arguments replace top-level fields."""
    state: dict[str, Any] = {
        "schema": 1, "table": "t1", "name": "Table 1", "seq": 100, "hand": 57,
        "game": "holdem", "limit": "no-limit",
        "stakes": {"sb": 50, "bb": 100, "ante": 0, "small_bet": None, "big_bet": None},
        "max_seats": 9, "street": "preflop", "button": None, "sb_seat": None, "bb_seat": None,
        "board": [], "pots": [], "seats": [], "turn": None, "showdown": None,
        "all_in_equity": None, "fault": None, "paused": False, "rake": 0,
    }
    state.update(over)
    return copy.deepcopy(state)


def preflop_blinds() -> dict[str, Any]:
    """Six players, 9-max: button 3, blinds 4 and 5 posted, seat 6 to act; 7 missed BB."""
    seats = [seat(1, stack=9_800), seat(2, status="folded"), seat(3),
             seat(4, stack=9_950, bet=50), seat(5, stack=9_900, bet=100),
             seat(6, status="acting"),
             seat(7, stack=4_000, status="sitting-out", missed=(False, True)),
             empty(8), seat(9, stack=12_500, status="waiting")]
    return base(seq=201, street="preflop", button=3, sb_seat=4, bb_seat=5, seats=seats,
                turn={"seat": 6, "started": T0, "deadline": T0 + 30, "seconds": 30})


def three_way_all_in() -> dict[str, Any]:
    """Three all-in for 1,000 / 3,000 / 6,000 against one caller: main and two side pots (P-1, S-8)."""
    seats = [seat(1, "Ann", stack=0, status="all-in", shown=["As", "Ah"]),
             seat(2, "Bob", stack=0, status="all-in", shown=["Kd", "Kc"]),
             seat(3, "Carla", stack=0, status="all-in", shown=["Qs", "Jd"]),
             seat(4, "Dmitri", stack=4_000, status="active", shown=["9c", "9h"]),
             seat(5, "Eve", stack=9_950, status="folded"), seat(6, "Farouk", status="folded")]
    pots = [{"amount": 4_050, "eligible": [1, 2, 3, 4]},
            {"amount": 6_000, "eligible": [2, 3, 4]},
            {"amount": 6_000, "eligible": [3, 4]}]
    equity = {"1": 0.4621, "2": 0.2512, "3": 0.1843, "4": 0.1024}
    return base(seq=310, max_seats=6, street="flop", button=6, sb_seat=1, bb_seat=2,
                board=["Jh", "8c", "3d"], pots=pots, seats=seats, all_in_equity=equity)


def split_showdown() -> dict[str, Any]:
    """River showdown: main pot split between Ann and Bob (P-3), side pot to Bob."""
    seats = [seat(1, "Ann", stack=1_300, status="active", shown=["Ac", "Td"]),
             seat(2, "Bob", stack=5_700, status="active", shown=["As", "Tc"]),
             seat(3, "Carla", stack=0, status="all-in", shown=["Kh", "Kd"]),
             seat(4, "Dmitri", stack=7_000, status="folded"), empty(5)]
    showdown = [
        {"pot": 0, "amount": 2_400, "winners": [1, 2], "shares": {"1": 1_200, "2": 1_200},
         "hand": "Straight, ace high"},
        {"pot": 1, "amount": 800, "winners": [2], "shares": {"2": 800},
         "hand": "Straight, ace high"},
    ]
    return base(seq=420, max_seats=5, street="showdown", button=4, sb_seat=1, bb_seat=2,
                board=["Kc", "Qd", "Js", "2h", "7c"], pots=[], seats=seats, showdown=showdown)


def fault_banner() -> dict[str, Any]:
    """A shuffler jam mid-hand: the table is paused with the turn frozen."""
    state = preflop_blinds()
    state.update(seq=202, paused=True, turn=None,
                 fault={"kind": "jam", "message": "Card jam in the shuffler: open the lid and clear it",
                        "since": T0 + 5})
    return state


def ten_seats() -> dict[str, Any]:
    """Ten seats, long names and big stacks: the crowded case for 800x480."""
    long_names = ["Alexandra-Maria", "Bartholomew", "Christopher", "Dominika", "Evangeline",
                  "Fitzgerald", "Guinevere", "Hieronymus", "Isambard", "Jacqueline"]
    seats = [seat(i, long_names[i - 1], stack=1_234_567 if i % 2 else 88_000,
                  bet=12_500 if i in (4, 5) else 0,
                  status="acting" if i == 6 else "active") for i in range(1, 11)]
    return base(seq=500, max_seats=10, street="turn", button=3, sb_seat=4, bb_seat=5,
                board=["Tc", "Td", "9s", "8h"],
                pots=[{"amount": 1_250_000, "eligible": list(range(1, 11))}], seats=seats,
                turn={"seat": 6, "started": T0, "deadline": T0 + 45, "seconds": 45})


def with_seats(n: int, *, long_names: bool = True) -> dict[str, Any]:
    """A flop state with ``n`` seats, all playing, seat 1 to act."""
    names = ["Maximilian-Alexander", "Bo", "Wwwwwwwwwwww", "Christopher"]
    seats = [seat(i, (names[i % len(names)] if long_names else None), stack=999_999,
                  bet=10_000 if i % 3 == 0 else 0,
                  status="acting" if i == 1 else "active", missed=(True, True))
             for i in range(1, n + 1)]
    return base(seq=600 + n, max_seats=n, street="flop", button=n, sb_seat=1,
                bb_seat=2 if n > 2 else 1, board=["Ah", "Kh", "Qh"],
                pots=[{"amount": 123_456, "eligible": list(range(1, n + 1))},
                      {"amount": 7_000, "eligible": [1, 2]}],
                seats=seats, turn={"seat": 1, "started": T0, "deadline": T0 + 30, "seconds": 30},
                all_in_equity={str(i): 1 / n for i in range(1, n + 1)})


def held_seats() -> dict[str, Any]:
    """Issue 18: between hands, seats 8 and 2 free and held by the room for players it called
    from the waiting list (a long name at seat 8), seat 9 free and open."""
    s = preflop_blinds()
    s["seats"][1] = empty(2)
    s["seats"][8] = empty(9)
    s["holds"] = [{"seat": 8, "name": "Maximilian-Alexander", "until": T0 + 161},
                  {"seat": 2, "name": "Bo", "until": T0 + 59}]
    return s


def draw_game() -> dict[str, Any]:
    """Five card draw after the draw: drew counts, no board."""
    seats = [seat(1, "Ann", cards=5, drew=2), seat(2, "Bob", cards=5, drew=0, status="acting"),
             seat(3, "Carla", status="folded")]
    return base(seq=700, game="draw", limit="fixed-limit", max_seats=5, street="postdraw",
                stakes={"sb": 50, "bb": 100, "ante": 0, "small_bet": 100, "big_bet": 200},
                pots=[{"amount": 600, "eligible": [1, 2]}], seats=seats, button=3, sb_seat=1,
                bb_seat=2, turn={"seat": 2, "started": T0, "deadline": T0 + 20, "seconds": 20})
