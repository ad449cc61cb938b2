"""Button, blinds and who is dealt in (T-1, T-4, T-6, S-3): controller/engine/table/blinds.py."""

from __future__ import annotations

from controller.engine.table.blinds import Candidate, Rotation, between, plan_hand


def _players(*seats: int, **flags: dict) -> dict[int, Candidate]:
    out = {s: Candidate(s, new=False) for s in seats}
    for key, value in flags.items():
        seat = int(key[1:])
        out[seat] = Candidate(seat, **value)
    return out


def _plan(players, last, *, out=(), seats=9, hint=None):
    return plan_hand(seats=seats, players=players, sitting_out=out, last=last,
                     small_blind=1, big_blind=2, button_hint=hint)


def test_between_wraps_clockwise():
    assert between(8, 2, 9) == [9, 1]
    assert between(3, 3, 4) == [4, 1, 2]


def test_first_hand_uses_the_floor_button_and_blinds_follow():
    plan = _plan(_players(2, 4, 7), None, hint=4)
    assert (plan.button, plan.sb_seat, plan.bb_seat) == (4, 7, 2)
    assert plan.posts == {7: (1, 0), 2: (2, 0)} and plan.fresh


def test_first_hand_heads_up_button_posts_small_blind_s3():
    plan = _plan(_players(3, 8), None, hint=8)
    assert (plan.button, plan.sb_seat, plan.bb_seat) == (8, 8, 3)


def test_t1_big_blind_moves_one_and_button_follows_small_blind():
    last = Rotation(button=1, sb=2, bb=3)
    plan = _plan(_players(1, 2, 3, 4), last)
    assert (plan.button, plan.sb_seat, plan.bb_seat) == (2, 3, 4)
    assert plan.dealt == (1, 2, 3, 4)


def test_t1_dead_small_blind_when_last_big_blind_left():
    last = Rotation(button=1, sb=2, bb=3)
    plan = _plan(_players(1, 2, 4, 5), last)  # seat 3 left
    assert (plan.button, plan.sb_seat, plan.bb_seat) == (2, None, 4)
    assert plan.posts == {4: (2, 0)}
    # next hand: the button goes to the dead small blind's seat (dead button)
    plan2 = _plan(_players(1, 2, 4, 5), plan.rotation)
    assert (plan2.button, plan2.sb_seat, plan2.bb_seat) == (3, 4, 5)


def test_t6_sat_out_small_blind_gets_the_mark_and_small_blind_is_dead():
    last = Rotation(button=1, sb=2, bb=3)
    plan = _plan(_players(1, 2, 4, 5), last, out=(3,))
    assert plan.sb_seat is None and plan.missed_sb == (3,) and plan.missed_bb == ()


def test_t6_sitting_out_seat_passed_by_the_big_blind_is_marked():
    last = Rotation(button=1, sb=2, bb=3)
    plan = _plan(_players(1, 2, 3, 5), last, out=(4,))
    assert plan.bb_seat == 5 and plan.missed_bb == (4,)


def test_three_to_two_no_one_pays_big_blind_twice():
    # 3-handed: 1 button, 2 SB, 3 BB; seat 2 leaves
    plan = _plan(_players(1, 3), Rotation(1, 2, 3))
    assert (plan.button, plan.sb_seat, plan.bb_seat) == (3, 3, 1)
    # heads-up goes on alternating
    plan2 = _plan(_players(1, 3), plan.rotation)
    assert (plan2.button, plan2.sb_seat, plan2.bb_seat) == (1, 1, 3)


def test_two_to_three_new_player_waiting_for_big_blind_gets_it():
    last = Rotation(5, 5, 2, heads_up=True)  # heads-up: 5 button/SB, 2 BB
    players = _players(2, 5, s3={"new": True})
    plan = _plan(players, last)
    assert (plan.button, plan.sb_seat, plan.bb_seat) == (5, 2, 3)
    assert plan.dealt == (2, 3, 5)


def test_two_to_three_new_player_under_the_gun_may_post():
    last = Rotation(2, 2, 5, heads_up=True)  # 2 button/SB, 5 BB; newcomer in 3
    plan = _plan(_players(2, 5, s3={"new": True, "post": True}), last)
    # the big blind goes to 2, the small blind to 5, the button before it (dead, seat 4)
    assert (plan.button, plan.sb_seat, plan.bb_seat) == (4, 5, 2)
    assert plan.dealt == (2, 3, 5) and plan.posts[3] == (2, 0)


def test_two_to_three_newcomer_waiting_gets_the_next_big_blind():
    last = Rotation(2, 2, 5, heads_up=True)
    players = _players(2, 5, s3={"new": True})
    plan = _plan(players, last)
    assert (plan.button, plan.sb_seat, plan.bb_seat) == (5, 5, 2) and plan.waiting == (3,)
    plan2 = _plan(players, plan.rotation)
    assert (plan2.button, plan2.sb_seat, plan2.bb_seat) == (5, 2, 3)
    assert plan2.dealt == (2, 3, 5)


def test_t4_new_player_may_post_now_outside_the_blinds():
    last = Rotation(1, 2, 3)
    players = _players(1, 2, 3, 4, 5, s7={"new": True, "post": True}, s8={"new": True})
    plan = _plan(players, last)
    assert plan.bb_seat == 4
    assert plan.posts[7] == (2, 0) and 7 in plan.dealt
    assert 8 in plan.waiting


def test_t4_new_player_on_the_dead_button_waits():
    last = Rotation(1, 2, 3)
    players = _players(1, 3, 4, 5, s2={"new": True, "post": True})  # seat 2 changed hands
    plan = _plan(players, last)
    assert plan.button == 2 and plan.waiting == (2,)


def test_r20_missed_both_blinds_posts_big_live_and_small_dead():
    last = Rotation(4, 1, 2)
    players = _players(1, 2, 3, s4={"missed_sb": True, "missed_bb": True, "post": True})
    plan = _plan(players, last, seats=4)
    assert (plan.button, plan.sb_seat, plan.bb_seat) == (1, 2, 3)
    assert plan.posts[4] == (2, 1)


def test_r20_companion_missed_only_small_blind_posts_it_dead():
    last = Rotation(4, 1, 2)
    players = _players(1, 2, 3, s4={"missed_sb": True, "post": True})
    plan = _plan(players, last, seats=4)
    assert plan.posts[4] == (0, 1)


def test_returning_player_waiting_for_big_blind_is_not_dealt_until_then():
    last = Rotation(4, 1, 2)
    players = _players(1, 2, 3, s5={"missed_bb": True, "missed_sb": True})
    plan = _plan(players, last, seats=5)
    assert plan.bb_seat == 3 and plan.waiting == (5,)
    plan2 = _plan(players, plan.rotation, seats=5)
    assert plan2.bb_seat == 5 and plan2.posts[5] == (2, 0)


def test_not_enough_players_gives_none():
    assert _plan(_players(4), None) is None


def test_newcomer_in_last_big_blind_seat_never_owes_the_small_blind():
    last = Rotation(1, 2, 3)  # seat 3's player left; a newcomer took seat 3
    plan = _plan(_players(1, 2, 5, s3={"new": True}), last)
    assert plan.sb_seat is None and plan.bb_seat == 5 and 3 in plan.waiting


def test_fresh_restart_when_rotation_cannot_deal_two():
    last = Rotation(1, 2, 3)
    plan = _plan(_players(5, s3={"new": True}), last)
    assert plan is not None and plan.fresh and plan.dealt == (3, 5)
    assert (plan.button, plan.sb_seat, plan.bb_seat) == (3, 3, 5)


def test_three_to_two_when_the_button_leaves_the_small_blind_does_not_pay_big_twice():
    # 3-handed: 3 button, 4 SB, 5 BB; the button (3) leaves
    plan = _plan(_players(4, 5), Rotation(3, 4, 5))
    assert (plan.button, plan.sb_seat, plan.bb_seat) == (5, 5, 4)


def test_dead_small_blind_hand_then_heads_up_big_blind_moves_on():
    # last hand: button 1, dead small blind at seat 2, big blind 3; now only 3 and a newcomer in 2
    plan = _plan(_players(3, s2={"new": True}), Rotation(1, 2, 3))
    assert plan.bb_seat == 2 and (plan.button, plan.sb_seat) == (3, 3)


def test_fresh_heads_up_start_does_not_give_the_last_big_blind_the_big_blind_again():
    # button 4, SB 5, BB 3 last hand; now a newcomer (waiting) in 3 and a regular in 6:
    # the rotation deals only seat 6, so the table starts fresh, and the big blind does
    # not go back to seat 3's position
    plan = _plan(_players(6, s3={"new": True}), Rotation(4, 5, 3))
    assert plan.fresh and (plan.button, plan.sb_seat, plan.bb_seat) == (3, 3, 6)


# ------------------------------------------------------------------ properties of any plan

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

N = 9
_flags = st.fixed_dictionaries({"new": st.booleans(), "missed_sb": st.booleans(),
                                "missed_bb": st.booleans(), "post": st.booleans()})


@st.composite
def _tables(draw):
    seats = draw(st.lists(st.sampled_from(range(1, N + 1)), min_size=2, max_size=N, unique=True))
    players = {}
    for s in seats:
        f = draw(_flags)
        if f["new"]:
            f["missed_sb"] = f["missed_bb"] = False
        players[s] = Candidate(s, **f)
    free = [s for s in range(1, N + 1) if s not in players]
    out = draw(st.lists(st.sampled_from(free), unique=True)) if free else []
    last = None
    if draw(st.booleans()):
        a, b, c = draw(st.lists(st.sampled_from(range(1, N + 1)), min_size=3, max_size=3, unique=True))
        last = Rotation(*sorted((a, b, c), key=lambda x: (x - a) % N))
    return players, out, last


@settings(max_examples=400, deadline=None)
@given(_tables())
def test_any_plan_keeps_the_blind_rules(table):
    players, out, last = table
    plan = plan_hand(seats=N, players=players, sitting_out=out, last=last, small_blind=1,
                     big_blind=2)
    assert plan is not None  # two players in the game always get a hand
    dealt = set(plan.dealt)
    assert len(dealt) >= 2 and dealt <= set(players)
    assert plan.bb_seat in dealt and plan.posts[plan.bb_seat] == (2, 0)
    assert plan.sb_seat is None or (plan.sb_seat in dealt and plan.posts[plan.sb_seat] == (1, 0))
    assert set(plan.posts) <= dealt and not (dealt & set(plan.waiting))
    assert dealt | set(plan.waiting) == set(players)
    if len(dealt) == 2:  # S-3
        assert plan.button == plan.sb_seat and plan.sb_seat != plan.bb_seat
    if not plan.fresh:
        assert last is not None and plan.bb_seat != last.bb  # T-1: the big blind moves
        assert plan.sb_seat is None or not players[plan.sb_seat].new or len(dealt) == 2
        for s in dealt - {plan.bb_seat, plan.sb_seat}:
            c = players[s]
            if c.new or c.missed_bb or c.missed_sb:  # T-4/T-6: only by posting, never free
                assert c.post and sum(plan.posts[s]) > 0
    assert set(plan.missed_sb) | set(plan.missed_bb) <= set(out)
