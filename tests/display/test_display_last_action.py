"""The last action of each seat as the screens show it (issue 20): the public state's
``seats[].last_action`` from the hand being played (controller/views.py), and the dealer
display's info line (CHECK, BET 300, RAISE TO 900, CALL 300, ALL-IN 5,000)."""

from __future__ import annotations

from controller.views import last_actions
from display.layout import layout
import display_states as S


def _info(lay, seat: int) -> str:
    return next((t.text for t in lay.seat(seat).texts if t.role == "info"), "")


def test_last_actions_follow_the_betting_round() -> None:
    class _H:  # the hand's log as the engine writes it (controller/engine/hand.py)
        _log = [("deal_hole", 1, ()), ("call", 4), ("bet", 5, 300), ("fold", 6), ("all_in", 1, 5000, True),
                ("call", 4)]
    acts = last_actions(_H())
    assert acts == {4: {"action": "call", "to": None}, 5: {"action": "raise", "to": 300},
                    6: {"action": "fold", "to": None}, 1: {"action": "all_in", "to": 5000}}
    _H._log = _H._log + [("deal_board", ("Jh", "8c", "3d"), None), ("check", 4), ("bet", 5, 200)]
    assert last_actions(_H()) == {4: {"action": "check", "to": None}, 5: {"action": "bet", "to": 200}}


def test_display_says_each_seats_last_action() -> None:
    state = S.preflop_blinds()
    seats = {s["seat"]: s for s in state["seats"]}
    seats[1].update(last_action={"action": "check", "to": None})
    seats[3].update(bet=900, last_action={"action": "raise", "to": 900})
    seats[4].update(bet=900, last_action={"action": "call", "to": None})
    seats[5].update(bet=300, last_action={"action": "bet", "to": 300})
    seats[9].update(status="all-in", bet=5000, last_action={"action": "all_in", "to": 5000})
    lay = layout(state, (1280, 720))
    assert _info(lay, 1) == "CHECK"
    assert _info(lay, 3) == "RAISE TO 900"
    assert _info(lay, 4) == "CALL 900"
    assert _info(lay, 5) == "BET 300"
    assert _info(lay, 9) == "ALL-IN 5,000"
    assert _info(lay, 2) == "FOLDED"


def test_the_five_winning_cards_are_named_and_framed_in_gold(tmp_path, renderer) -> None:
    """Issue 20: the winning five cards highlighted at the showdown (state: showdown[].best)."""
    from controller.views import _best_fives
    from display.app import render_state
    from display.render import COLOURS

    res = {"shown": {"1": ["Ac", "Td"], "3": ["Kh", "Kd"]}}
    board = ["Kc", "Qd", "Js", "2h", "7c"]
    award = {"hand": "Straight, ace high", "winners": [1]}
    assert _best_fives("holdem", res, board, award) == {"1": ["Ac", "Kc", "Qd", "Js", "Td"]}
    assert _best_fives("holdem", res, board, {"hand": None, "winners": [1]}) == {}  # uncontested
    state = S.split_showdown()
    state["showdown"] = [{"pot": 0, "amount": 3200, "winners": [1], "shares": {"1": 3200},
                          "hand": "Straight, ace high", "best": {"1": ["Ac", "Kc", "Qd", "Js", "Td"]}}]
    surface, lay = render_state(state, (1280, 720), now=0.0, renderer=renderer)
    assert [c.card for c in lay.board_cards if c.wins] == ["Kc", "Qd", "Js"]
    assert [c.card for c in lay.seat(1).cards if c.wins] == ["Ac", "Td"]
    assert not any(c.wins for c in lay.seat(3).cards)
    won = next(c for c in lay.board_cards if c.wins).box
    lost = next(c for c in lay.board_cards if not c.wins).box
    assert tuple(surface.get_at((won.x + 1, won.y + won.h // 2)))[:3] == COLOURS["winner"]
    assert tuple(surface.get_at((lost.x + 1, lost.y + lost.h // 2)))[:3] != COLOURS["winner"]
