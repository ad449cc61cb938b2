"""A hole card the shuffler could not read ("??") in a hand that must be shown (P-2, S-8, G-5).

The table asks the dealer to read the hand from the felt (``ReadHoleCards``), waits, and
goes on with the cards a ``hole-cards-read`` event carries; cards that contradict the hand
or repeat a card dealt this hand are refused with the rule. Every event goes through
``step`` with the chip audit after it (the bench); each test replays its events as JSON
from the empty table and compares the state.
"""

from __future__ import annotations

from controller import views
from controller.engine.table import effects as fx
from controller.engine.table import events as ev
from controller.engine.table.play import cards_to_read
from controller.engine.table.settings import TableSettings

from .harness import Bench
from .test_showdown import _replays, _seat
from .test_showdown import _to_showdown as _check_down

NL = TableSettings(small_blind=5, big_blind=10, seats=4, action_seconds=30, showdown_seconds=8)
DRAW = TableSettings(game="draw", limit="fixed-limit", seats=5, small_blind=5, big_blind=10)
BOARD = ["Kh", "Qs", "4c", "9d", "3h"]


def _bench(*seats: int, settings: TableSettings = NL, stack: int = 1000) -> Bench:
    b = Bench(settings)
    for s in seats:
        b.seat_up(s, stack)
    return b


def _asks(effects: list, seat: int) -> fx.ReadHoleCards:
    asks = [e for e in effects if isinstance(e, fx.ReadHoleCards)]
    assert asks and asks[-1].seat == seat, effects
    return asks[-1]


def _read(b: Bench, seat: int, *cards: str, by: str = "dealer") -> list:
    return b.do(ev.HoleCardsRead, seat=seat, cards=tuple(cards), by=by)


def test_p2_an_unknown_card_in_a_hand_to_show_waits_for_the_dealer_and_then_goes_on():
    b = _bench(1, 2, 3)
    # seat 2 (first to show, left of the button) really holds As Ad; the As went unread
    b.deal({1: ["7c", "2d"], 2: ["??", "Ad"], 3: ["8s", "6d"]}, BOARD, hidden=["As"])
    b.start(1)
    _check_down(b)
    hand = b.state.hand
    assert hand.street.value == "showdown" and hand.seat_to_act == 2
    ask = _asks(b.last, 2)
    assert ask.known == ("??", "Ad")
    assert cards_to_read(b.state) == 2
    assert b.state.timer is None  # nobody's clock runs: the dealer must read the hand
    # the player's own view says nothing in words about a hand it cannot know (H-6)
    mine = views.private_view(b.state, 2)
    assert mine["cards"] == ["??", "Ad"] and mine["hand_words"] is None
    assert _seat(b, 2)["shown"] is None
    # nothing else moves the hand on
    before = b.state
    b.act(3, "muck")
    assert [r.rule for r in b.refused()] == ["A-1"] and b.state is before
    b.act(2, "show")  # the player cannot show what the table does not know
    assert [r.rule for r in b.refused()] == ["P-2"]
    assert cards_to_read(b.state) == 2 and b.state.hand.exposed == before.hand.exposed
    before = b.state
    b.tick(60)
    assert b.state is before and cards_to_read(b.state) == 2

    _read(b, 2, "As", "Ad")
    assert not b.refused()
    assert _seat(b, 2)["shown"] == ["As", "Ad"]
    assert b.state.info.auto[-1] == (2, "show", "P-2")
    assert cards_to_read(b.state) is None
    assert b.state.timer is not None and b.state.timer.seat == 3  # 8s6d cannot beat aces: asked
    b.act(3, "muck")
    b.act(1, "muck")
    assert b.state.hand is None
    rec = b.hands[-1]
    assert rec["result"]["awards"][0]["winners"] == [2]
    assert {s["seat"]: (s["showed"], s["cards"]) for s in rec["seats"]}[2] == ("shown", ["As", "Ad"])
    assert rec["auto"] == [[2, "show", "P-2"]]
    assert b.stacks() == {1: 990, 2: 1020, 3: 990}
    _replays(b)


def test_g5_a_reading_that_contradicts_the_hand_or_repeats_a_dealt_card_is_refused_with_the_reason():
    b = _bench(1, 2, 3)
    b.deal({1: ["7c", "2d"], 2: ["??", "Ad"], 3: ["8s", "6d"]}, BOARD, hidden=["As"])
    b.start(1)
    _check_down(b)
    before = b.state
    cases = [
        ((3, ("8s", "6d")), "P-2", "not asked for now"),             # another seat
        ((2, ("As", "Kd")), "P-2", "holds"),                          # the Ad it knows is missing
        ((2, ("Kh", "Ad")), "G-5", "Kh was already dealt"),           # a board card
        ((2, ("7c", "Ad")), "G-5", "7c was already dealt"),           # seat 1's hole card
        ((2, ("Ad", "Ad")), "G-5", "twice"),                          # the same card twice
        ((2, ("As",)), "P-2", "show every one"),                      # too few
        ((2, ("As", "Ad", "Ac")), "P-2", "show every one"),           # too many
    ]
    for (seat, cards), rule, words in cases:
        out = _read(b, seat, *cards, by="floor:anna")
        refused = [e for e in out if isinstance(e, fx.Refuse)]
        assert len(refused) == 1, (cards, out)
        r = refused[0]
        assert r.rule == rule and r.reason.startswith(rule) and words in r.reason, (cards, r)
        assert r.seat is None  # the floor's input: no player's tablet is told
        assert b.state is before  # nothing changed
    # the burns are cards dealt this hand too
    burn = b.state.hand.burn_cards()[0]
    r = [e for e in _read(b, 2, str(burn), "Ad") if isinstance(e, fx.Refuse)]
    assert r and r[0].rule == "G-5" and str(burn) in r[0].reason
    _read(b, 2, "As", "Ad")
    assert not b.refused() and _seat(b, 2)["shown"] == ["As", "Ad"]
    _replays(b)


def test_p2_an_unknown_hand_after_a_shown_one_is_read_not_offered_to_muck():
    """The table cannot tell that a hand it cannot rank loses: it must be shown to win."""
    b = _bench(1, 2, 3)
    b.deal({1: ["7c", "2d"], 2: ["As", "Ad"], 3: ["??", "Kc"]}, BOARD, hidden=["Kd"])
    b.start(1)
    _check_down(b)
    assert _seat(b, 2)["shown"] == ["As", "Ad"]
    assert b.state.hand.seat_to_act == 3 and cards_to_read(b.state) == 3
    _asks(b.last, 3)
    assert b.state.timer is None
    _read(b, 3, "Kd", "Kc")  # trip kings
    assert b.state.timer is not None and b.state.timer.seat == 1
    b.act(1, "muck")
    rec = b.hands[-1]
    assert rec["result"]["awards"][0]["winners"] == [3]
    assert b.stacks() == {1: 990, 2: 990, 3: 1020}
    _replays(b)


def test_two_unknown_hands_are_read_one_after_the_other():
    b = _bench(1, 2, 3)
    b.deal({1: ["7c", "??"], 2: ["??", "Ad"], 3: ["8s", "6d"]}, BOARD, hidden=["As", "2d"])
    b.start(1)
    _check_down(b)
    _asks(b.last, 2)
    _read(b, 2, "As", "Ad")
    assert b.state.hand.seat_to_act == 3 and b.state.timer.seat == 3
    b.act(3, "muck")
    _asks(b.last, 1)  # seat 1 cannot be ranked either: read it
    _read(b, 1, "2d", "7c")  # any order
    assert b.state.hand is None
    assert b.hands[-1]["result"]["awards"][0]["winners"] == [2]
    _replays(b)


def test_s8_an_all_in_hand_with_an_unknown_card_is_read_before_the_board_is_dealt():
    b = _bench(1, 2, stack=500)
    b.deal({1: ["Kc", "??"], 2: ["Qd", "Qh"]}, ["2c", "7d", "9s", "Jh", "3s"], hidden=["Kd"])
    b.start(1)
    b.act(1, "all_in")  # heads-up: the button (seat 1) acts first pre-flop (S-3)
    b.act(2, "call")
    hand = b.state.hand
    assert hand.board == [] and b.state.dealing is None  # no board card asked for yet
    ask = _asks(b.last, 1)
    assert ask.known == ("Kc", "??")
    assert _seat(b, 2)["shown"] == ["Qd", "Qh"]  # the known hand is exposed (S-8)
    r = [e for e in _read(b, 1, "Kc", "Qh") if isinstance(e, fx.Refuse)]
    assert r and r[0].rule == "G-5"  # seat 2 holds the Qh
    _read(b, 1, "Kc", "Kd")
    assert b.state.info is None or b.state.hand is None
    rec = b.hands[-1]
    assert [1, "show", "S-8"] in rec["auto"]
    assert rec["result"]["awards"][0]["winners"] == [1]
    assert b.stacks() == {1: 1000, 2: 0}
    assert rec["hand_record"]["board"] == ["2c", "7d", "9s", "Jh", "3s"]
    _replays(b)


def test_the_floor_voids_a_hand_waiting_for_a_reading_and_every_wager_goes_back():
    b = _bench(1, 2, 3)
    b.deal({1: ["7c", "2d"], 2: ["??", "Ad"], 3: ["8s", "6d"]}, BOARD, hidden=["As"])
    b.start(1)
    b.act(2, "raise", 40)
    b.act(3, "call")
    b.act(1, "call")
    _check_down(b)
    assert cards_to_read(b.state) == 2
    b.do(ev.HandVoided, reason="void: dealer: read seat 2's hole cards", by="floor:anna")
    assert b.state.hand is None
    assert b.hands[-1]["voided"] is True
    assert b.stacks() == {1: 1000, 2: 1000, 3: 1000}
    r = [e for e in _read(b, 2, "As", "Ad") if isinstance(e, fx.Refuse)]
    assert r and r[0].rule == "P-2"  # too late: no hand waits
    _replays(b)


def test_g3_draw_an_unknown_card_is_read_at_the_showdown_and_a_discard_is_refused():
    b = _bench(1, 2, 3, settings=DRAW)
    b.deal({1: ["Ah", "Ac", "??", "7d", "2s"], 2: ["3c", "Kc", "Kh", "9d", "8d"],
            3: ["4c", "5c", "6h", "Js", "Td"]}, hidden=["As"])
    b.start(1)
    b.act(1, "call")
    b.act(2, "call")
    b.act(3, "check")
    assert b.state.hand.street.value == "draw" and b.to_act == 2
    b.act(2, "draw", discards=("3c",))
    b.act(3, "draw", discards=())
    b.act(1, "draw", discards=())  # stands pat on the unread card
    _check_down(b)
    # seat 2 shows first (left of the button: kings, tabled by the table); seat 3 cannot
    # beat them and mucks; seat 1 cannot be ranked: the dealer reads it
    assert b.state.info.auto[-1] == (2, "show", "P-2") and b.state.timer.seat == 3
    b.act(3, "muck")
    ask = _asks(b.last, 1)
    assert ask.known == ("Ah", "Ac", "??", "7d", "2s")
    r = [e for e in _read(b, 1, "Ah", "Ac", "3c", "7d", "2s") if isinstance(e, fx.Refuse)]
    assert r and r[0].rule == "G-5" and "3c" in r[0].reason  # seat 2 threw the 3c
    _read(b, 1, "Ah", "Ac", "As", "7d", "2s")
    assert b.state.hand is None
    rec = b.hands[-1]
    assert rec["result"]["awards"][0]["winners"] == [1]  # three aces
    shown = {s["seat"]: s["cards"] for s in rec["seats"] if s["showed"] == "shown"}
    assert shown[1] == ["Ah", "Ac", "As", "7d", "2s"]
    total = sum(b.stacks().values())
    assert total == 3000
    _replays(b)


def test_s8_omaha_all_in_reading_needs_all_four_cards():
    b = _bench(1, 2, settings=TableSettings(game="omaha", limit="pot-limit", seats=4, small_blind=5,
                                              big_blind=10), stack=200)
    b.deal({1: ["Ac", "??", "Kc", "Kd"], 2: ["Qd", "Qh", "Jd", "Jh"]}, ["2c", "7d", "9s", "Ks", "3s"],
           hidden=["Ad"])
    b.start(1)
    while b.to_act is not None:  # pot-size raises until both are all-in (S-5)
        lg = b.state.hand.legal()
        if lg.raise_:
            b.act(b.to_act, "raise", lg.raise_[1])
        else:
            b.act(b.to_act, "call")
    assert cards_to_read(b.state) == 1 and b.state.hand.board == []
    r = [e for e in _read(b, 1, "Ac", "Ad", "Kc") if isinstance(e, fx.Refuse)]
    assert r and r[0].rule == "P-2" and "show every one" in r[0].reason
    _read(b, 1, "Kd", "Ad", "Kc", "Ac")
    assert b.state.hand is None
    rec = b.hands[-1]
    assert rec["result"]["awards"][0]["winners"] == [1]  # three kings (Kc Kd + Ks)
    assert sum(b.stacks().values()) == 400
    _replays(b)
