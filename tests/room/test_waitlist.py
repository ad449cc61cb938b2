"""The waiting lists (room/waitlist.py, issue 18): calls, holds, passes, lapses, must-move,
table changes, and the fairness invariants under random operations (hypothesis), checked by
an oracle that reads only the lists' log (room/fairness.py)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from room.waitlist import Entry, ListKey, WaitingLists, WaitListError
from room.fairness import FairnessError, check_log

NL12 = ListKey("nlhe", "1/2")
NL25 = ListKey("nlhe", "2/5")


class Clock:
    """A fake clock (seconds)."""

    def __init__(self, t: float = 1_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def room(hold: float = 120) -> tuple[WaitingLists, Clock]:
    c = Clock()
    w = WaitingLists(c, hold_seconds=hold)
    w.table("t1", NL12)
    w.table("t2", NL12)
    w.table("t3", NL25)
    return w, c


def test_open_seat_calls_first_on_list_and_holds_it() -> None:
    w, c = room()
    w.join(NL12, "ann", "ann")
    c.t += 1
    w.join(NL12, "bob", "floor:eve")
    calls = w.seat_opened("t1", 4, "table:t1", player="zed")
    assert [(k.player, k.table, k.seat, k.until - k.at) for k in calls] == [("ann", "t1", 4, 120)]
    # a second report of the same opening offers it to nobody else
    assert w.seat_opened("t1", 4, "table:t1") == []
    assert w.accept("ann", "ann") == []
    assert w.seated["ann"] == ("t1", 4) and w.lists[NL12] == ["bob"]


def test_lapse_moves_to_next_and_takes_the_no_show_off() -> None:
    w, c = room(hold=60)
    for p in ("ann", "bob", "cat"):
        w.join(NL12, p, p)
    w.seat_opened("t1", 2, "table:t1")
    c.t += 59.9
    assert w.expire() == []
    c.t += 0.1
    calls = w.expire()
    assert [k.player for k in calls] == ["bob"]
    assert w.lists[NL12] == ["bob", "cat"]
    with pytest.raises(WaitListError, match="no call"):
        w.accept("ann", "ann")
    check_log(w.log, w.table_key)


def test_pass_keeps_the_place() -> None:
    w, c = room()
    for p in ("ann", "bob"):
        w.join(NL12, p, p)
    w.seat_opened("t2", 1, "table:t2")
    assert [k.player for k in w.pass_("ann", "ann")] == ["bob"]
    assert w.lists[NL12] == ["ann", "bob"]
    # the next opening goes to ann again
    assert [k.player for k in w.seat_opened("t1", 3, "table:t1")] == ["ann"]
    check_log(w.log, w.table_key)


def test_seat_waits_for_next_join_and_other_stakes_do_not_count() -> None:
    w, c = room()
    w.join(NL25, "ann", "ann")
    assert w.seat_opened("t1", 5, "table:t1") == []
    assert [k.player for k in w.join(NL12, "bob", "bob")] == ["bob"]


def test_no_player_holds_two_calls_and_table_mate_skipped() -> None:
    w, c = room()
    w.sat("t1", 1, "ann", "table:t1")
    w.join(NL12, "ann", "ann")  # seated at t1, waiting for... a list of her own game (allowed)
    w.join(NL12, "bob", "bob")
    calls = w.seat_opened("t1", 2, "table:t1") + w.seat_opened("t2", 2, "table:t2")
    # ann sits at t1: t1's seat goes to bob; t2's to ann
    assert sorted((k.table, k.player) for k in calls) == [("t1", "bob"), ("t2", "ann")]
    check_log(w.log, w.table_key)


def test_table_change_first_then_old_seat_called() -> None:
    w, c = room()
    w.sat("t1", 3, "ann", "table:t1")
    w.join(NL12, "bob", "bob")
    w.request_change("ann", "ann")
    calls = w.seat_opened("t2", 6, "table:t2")
    assert [(k.player, k.source) for k in calls] == [("ann", "change")]
    calls = w.accept("ann", "ann")
    assert [(k.player, k.table, k.seat) for k in calls] == [("bob", "t1", 3)]
    check_log(w.log, w.table_key)


def test_must_move_feeds_main_game_in_order_of_sitting() -> None:
    c = Clock()
    w = WaitingLists(c, hold_seconds=60)
    w.table("main", NL12)
    w.table("mm", NL25)  # a must-move table plays its own list's game (never the one it feeds)
    w.feed("mm", NL12)
    w.sat("mm", 1, "ann", "table:mm")
    c.t += 1
    w.sat("mm", 2, "bob", "table:mm")
    w.join(NL25, "cat", "cat")
    calls = w.seat_opened("main", 9, "table:main")
    assert [(k.player, k.source) for k in calls] == [("ann", "must-move")]
    calls = w.accept("ann", "ann")
    # her must-move seat opens: the list (cat) fills it; bob is next for the main game
    assert [(k.player, k.table) for k in calls] == [("cat", "mm")]
    assert w.must_move[NL12] == ["bob"]
    check_log(w.log, w.table_key, w.feeds)


def test_why_answers_the_floor() -> None:
    w, c = room()
    w.join(NL12, "ann", "ann")
    c.t += 10
    w.join(NL12, "bob", "bob")
    w.seat_opened("t1", 1, "table:t1")
    w.accept("ann", "ann")
    story = [(e.action, e.player) for e in w.why("bob")]
    assert ("call", "ann") in story and ("seat", "ann") in story and story[0] == ("join", "bob")


def test_refusals() -> None:
    w, c = room()
    with pytest.raises(WaitListError):
        w.seat_opened("nowhere", 1, "table:nowhere")
    w.join(NL12, "ann", "ann")
    with pytest.raises(WaitListError, match="already"):
        w.join(NL12, "ann", "ann")
    with pytest.raises(WaitListError):
        w.leave(NL25, "ann", "ann")
    with pytest.raises(WaitListError):
        w.request_change("ann", "ann")
    with pytest.raises(WaitListError):
        WaitingLists(c, hold_seconds=0)


def test_oracle_catches_an_unfair_call() -> None:
    """The oracle itself: a log where the second player was called first fails it."""
    w, c = room()
    w.join(NL12, "ann", "ann")
    w.join(NL12, "bob", "bob")
    w.seat_opened("t1", 1, "table:t1")
    log = list(w.log)
    call = log[-1]
    log[-1] = type(call)(call.at, "call", "bob", call.key, call.by, call.table, call.seat, call.detail)
    with pytest.raises(FairnessError, match="first eligible"):
        check_log(log, w.table_key)


class TickingClock(Clock):
    """A wall clock's way: every read is a little later (the room service's lists)."""

    def __call__(self) -> float:
        self.t += 0.001
        return self.t


def test_oracle_reads_a_wall_clock_log_and_still_catches_a_pass_not_moved_on() -> None:
    """Issue 18 (``room simulate --players``): with a wall clock the pass and the next call
    carry different times; the oracle took that for a pass nobody moved on from. It ends an
    operation where the next begins (an entry not by ``system``), and still finds a pass or
    lapse after which the eligible next player was not called."""
    c = TickingClock()
    w = WaitingLists(c, hold_seconds=5)
    w.table("t1", NL12)
    for p in ("ann", "bob", "cat", "dan"):
        w.join(NL12, p, p)
    w.seat_opened("t1", 3, "table:t1", player="zed")
    w.pass_("ann", "ann")  # -> bob
    c.t += 10
    w.expire()  # bob lapses -> cat
    w.join(NL12, "eve", "eve")
    assert [e.action for e in w.log[-6:]] == ["pass", "call", "lapse", "remove", "call", "join"]
    assert check_log(w.log, w.table_key)["lapses"] == 1
    for gone in ("bob", "cat"):  # the call after the pass, or after the lapse, left out
        log = [e for e in w.log if not (e.action == "call" and e.player == gone)]
        with pytest.raises(FairnessError, match="eligible but not called"):
            check_log(log, w.table_key)


PLAYERS = [f"p{i}" for i in range(8)]
TABLES = [("t1", NL12), ("t2", NL12), ("mm", NL25), ("t3", NL25)]  # mm: a must-move table of 2/5 feeding 1/2
ops = st.one_of(
    st.tuples(st.just("join"), st.sampled_from(PLAYERS), st.sampled_from([NL12, NL25])),
    st.tuples(st.just("leave"), st.sampled_from(PLAYERS), st.sampled_from([NL12, NL25])),
    st.tuples(st.just("open"), st.sampled_from(TABLES), st.integers(1, 4)),
    st.tuples(st.just("sat"), st.sampled_from(TABLES), st.integers(1, 4), st.sampled_from(PLAYERS)),
    st.tuples(st.just("accept"), st.sampled_from(PLAYERS)),
    st.tuples(st.just("pass"), st.sampled_from(PLAYERS)),
    st.tuples(st.just("change"), st.sampled_from(PLAYERS)),
    st.tuples(st.just("wait"), st.floats(0, 200)),
    st.tuples(st.just("closed"), st.sampled_from(TABLES), st.integers(1, 4)),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ops, max_size=60))
def test_fairness_invariants_under_random_operations(seq: list[tuple]) -> None:
    """An open seat goes to the first eligible player; no seat to two players at once; no
    player two calls; a lapsed or passed call moves to the next — whatever happens."""
    c = Clock()
    w = WaitingLists(c, hold_seconds=90)
    for t, k in TABLES:
        w.table(t, k)
    w.feed("mm", NL12)
    for op in seq:
        c.t += 1
        try:
            if op[0] == "join":
                w.join(op[2], op[1], op[1])
            elif op[0] == "leave":
                w.leave(op[2], op[1], "floor:eve")
            elif op[0] == "open":
                sitter = next((p for p, where in w.seated.items() if where == (op[1][0], op[2])), None)
                w.seat_opened(op[1][0], op[2], f"table:{op[1][0]}", player=sitter)
            elif op[0] == "sat":
                if any(where == (op[1][0], op[2]) for where in w.seated.values()):
                    continue  # the table refuses a taken seat (T-3)
                w.sat(op[1][0], op[2], op[3], f"table:{op[1][0]}")
            elif op[0] == "accept":
                w.accept(op[1], op[1])
            elif op[0] == "pass":
                w.pass_(op[1], op[1])
            elif op[0] == "change":
                w.request_change(op[1], op[1])
            elif op[0] == "wait":
                c.t += op[1]
                w.expire()
            elif op[0] == "closed":
                w.seat_closed(op[1][0], op[2], "floor:eve")
        except WaitListError:
            pass
        # live invariants on the model itself
        held = [k for k in w.calls()]
        assert len({k.player for k in held}) == len(held), "a player holds two calls"
        assert len({(k.table, k.seat) for k in held}) == len(held), "a seat offered twice"
    check_log(w.log, {t: k for t, k in TABLES}, {"mm": NL12})
    # a room service started again rebuilds the same lists from the log alone
    again = WaitingLists(c, hold_seconds=90)
    again.restore(w.log)
    norm = lambda d: {k: v for k, v in d.items() if v}  # noqa: E731
    assert norm(again.lists) == norm(w.lists)
    assert norm(again.changes) == norm(w.changes)
    assert norm(again.must_move) == norm(w.must_move)
    assert again.seated == w.seated and again.feeds == w.feeds


def test_the_floor_moves_a_player_between_lists_and_marks_a_must_move_list() -> None:
    """Issue 18 (the floor's must-move control): a move is recorded with who and why, the
    moved player's call goes to the next player; a list marked must-move feeds the main game
    from every table of it."""
    w, c = room()
    for p in ("ann", "bob"):
        w.join(NL25, p, p)
    w.seat_opened("t3", 2, "table:t3")
    assert w.call_of("ann").seat == 2
    with pytest.raises(WaitListError, match="reason"):
        w.move("ann", NL25, NL12, "floor:eve", " ")
    c.t += 1
    calls = w.move("ann", NL25, NL12, "floor:eve", "asked for the smaller game")
    assert [k.player for k in calls] == ["bob"] and w.lists[NL12] == ["ann"] and w.lists[NL25] == ["bob"]
    moved = [(e.action, e.by, e.detail) for e in w.log if e.player == "ann"][-2:]
    assert moved == [("remove", "floor:eve", "moved to nlhe 1/2: asked for the smaller game"),
                     ("join", "floor:eve", "place 1")]
    with pytest.raises(WaitListError, match="already"):
        w.move("ann", NL25, NL12, "floor:eve", "again")
    with pytest.raises(WaitListError, match="feed itself"):
        w.feed_list(NL12, NL12, "floor:eve", "x")
    assert w.feed_list(NL25, NL12, "floor:eve", "the 2/5 game feeds 1/2 tonight") == ["t3"]
    assert w.feeds == {"t3": NL12} and w.log[-2].detail == "must-move table: the 2/5 game feeds 1/2 tonight"
    # the list itself is recorded: a room started again feeds the list's tables that open later
    assert (w.log[-1].action, w.log[-1].key, w.log[-1].by) == ("feed-list", NL25, "floor:eve")
    again = WaitingLists(c, hold_seconds=120)
    again.restore(w.log)
    assert again.list_feeds == {NL25: NL12} and again.feeds == {"t3": NL12}
    w.sat("t3", 4, "cat", "table:t3")  # cat sits at the must-move table: first for a seat of 1/2
    w.seat_opened("t1", 1, "table:t1")
    assert w.call_of("cat").table == "t1" and w.call_of("cat").source == "must-move"
    check_log(w.log, w.table_key)


def test_a_damaged_feed_list_entry_is_skipped_at_a_restart() -> None:
    """Breaker's finding: a stored ``feed-list`` entry nested 100,000 deep raised RecursionError
    in restore, so the room service could not start again; damaged entries are skipped."""
    w, c = room()
    bad = [Entry(c.t, "feed-list", "", NL25, "floor:eve", None, None, "feeds " + "[" * 100_000),
           Entry(c.t, "feed-list", "", NL25, "floor:eve", None, None, "feeds {\"game\": 1}")]
    again = WaitingLists(c, hold_seconds=120)
    again.restore(bad)
    assert again.list_feeds == {}
