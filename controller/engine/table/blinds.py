"""Button, blinds and who is dealt in: the dead-button rule (T-1, T-4, T-6, S-1, S-3).

Pure functions over seat numbers 1..N (clockwise). The big blind moves forward to the
next player who is in the game; the small blind is the seat that had the big blind last
hand (dead when that player is gone or sitting out); the button goes to the small blind's
seat of the last hand (dead when that seat is now empty or sitting out). Heads-up the
button posts the small blind (S-3) and nobody pays the big blind twice in a row.
A new player, or a returning player who owes missed blinds, may not be dealt in on the
button or between the button and the big blind (T-4); elsewhere they post (live big
blind, plus the small blind dead when the big blind was missed, T-6) or wait for the big
blind. When fewer than two players could be dealt in that way, the table starts fresh:
everyone in the game is dealt in, no one owes anything.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Rotation", "Candidate", "Plan", "plan_hand", "after", "between"]


@dataclass(frozen=True, slots=True)
class Rotation:
    """Where the button and blinds were for a hand (kept for the next one, T-1).

    ``sb`` is the small blind's seat even when the small blind was dead; ``heads_up`` when
    the hand was dealt to two players (the button was the small blind, S-3).
    """

    button: int
    sb: int
    bb: int
    heads_up: bool = False


@dataclass(frozen=True, slots=True)
class Candidate:
    """One seated player who is in the game (has chips, not sitting out, not leaving).

    ``new``: not dealt a hand at this table since sitting down (T-4). ``missed_sb`` /
    ``missed_bb``: the seat's missed-blind marks (T-6). ``post``: pay now rather than wait
    for the big blind.
    """

    seat: int
    new: bool = False
    missed_sb: bool = False
    missed_bb: bool = False
    post: bool = False

    @property
    def owes(self) -> bool:
        """Return whether the player must post or wait before being dealt in (T-4, T-6)."""
        return self.new or self.missed_sb or self.missed_bb


@dataclass(frozen=True, slots=True)
class Plan:
    """Who plays the next hand and what each posts.

    ``button``: the button's seat (may be an empty or sat-out seat: dead button, T-1);
    ``sb_seat``: ``None`` for a dead small blind; ``dealt``: seats dealt in, clockwise from
    seat 1; ``posts``: seat -> ``(live, dead)`` chips (blinds and T-4/T-6 posts);
    ``waiting``: seated players in the game who are not dealt in (T-4); ``missed_sb`` /
    ``missed_bb``: sitting-out seats that this hand marks (T-6); ``fresh``: the table
    (re)started and nobody owed anything; ``button_waits``: those of ``waiting`` who wait for
    the button to pass (on the button or between it and the big blind, T-4; issue 19: what
    the screens say of them), not for the big blind.
    """

    button: int
    sb_seat: int | None
    bb_seat: int
    dealt: tuple[int, ...]
    posts: dict[int, tuple[int, int]]
    waiting: tuple[int, ...]
    missed_sb: tuple[int, ...]
    missed_bb: tuple[int, ...]
    rotation: Rotation
    fresh: bool = False
    button_waits: tuple[int, ...] = ()


def after(seat: int, seats: int) -> int:
    """Return the seat clockwise after ``seat`` at a table of ``seats`` seats (1..N)."""
    return seat % seats + 1


def between(a: int, b: int, seats: int) -> list[int]:
    """Return the seats strictly clockwise after ``a`` and before ``b`` (``a == b``: all others)."""
    out = []
    s = after(a, seats)
    while s != b:
        out.append(s)
        s = after(s, seats)
        if len(out) > seats:
            break
    return out


def _next_in(seat: int, members: Iterable[int], seats: int) -> int | None:
    """Return the first seat of ``members`` strictly clockwise after ``seat`` (may wrap to it)."""
    pool = set(members)
    s = seat
    for _ in range(seats):
        s = after(s, seats)
        if s in pool:
            return s
    return None


def plan_hand(
    *,
    seats: int,
    players: dict[int, Candidate],
    sitting_out: Iterable[int],
    last: Rotation | None,
    small_blind: int,
    big_blind: int,
    button_hint: int | None = None,
) -> Plan | None:
    """Return who is dealt in, the button and the blinds for the next hand, or None.

    Args:
        seats: the number of seats, N (seats are 1..N clockwise).
        players: seat -> :class:`Candidate` for every player in the game.
        sitting_out: seats of seated players not in the game (sitting out or busted);
            they collect missed-blind marks (T-6).
        last: the last hand's :class:`Rotation`, or None for the table's first hand.
        small_blind, big_blind: chips (S-1).
        button_hint: the button seat for a fresh start (first hand), if the floor chose.

    Returns:
        A :class:`Plan`, or None when fewer than two players are in the game.
    """
    if len(players) < 2:
        return None
    if last is not None:
        plan = _rotate(seats, players, set(sitting_out), last, small_blind, big_blind)
        if plan is not None:
            return plan
    return _fresh(seats, players, last, small_blind, big_blind, button_hint)


def _rotate(
    seats: int,
    players: dict[int, Candidate],
    sitting_out: set[int],
    last: Rotation,
    sb: int,
    bb: int,
) -> Plan | None:
    bb_seat = _next_in(last.bb, players, seats)
    if bb_seat is None or bb_seat == last.bb:
        return None
    sb_pos = last.bb
    # the small blind is due from the player who had the big blind, not a newcomer in that seat
    sb_seat = sb_pos if sb_pos in players and sb_pos != bb_seat and not players[sb_pos].new else None
    button = last.sb
    if button in (bb_seat, sb_pos):
        # after heads-up (the button was the small blind): the seat before the small blind
        button = sb_pos - 1 if sb_pos > 1 else seats
    # no place for a button: only heads-up can be dealt (S-3 fixes the button below)
    conflict = button == bb_seat
    zone = set(range(1, seats + 1)) if conflict else {button, *between(button, bb_seat, seats)}
    dealt: list[int] = []
    posts: dict[int, tuple[int, int]] = {}
    waiting: list[int] = []
    button_waits: list[int] = []
    for seat in sorted(players):
        cand = players[seat]
        if seat == bb_seat:
            dealt.append(seat)
            posts[seat] = (bb, 0)
        elif seat == sb_seat:
            dealt.append(seat)
            posts[seat] = (sb, 0)
        elif not cand.owes:
            dealt.append(seat)
        elif seat in zone or not cand.post:
            waiting.append(seat)
            if seat in zone:
                button_waits.append(seat)
        else:
            dealt.append(seat)
            live = bb if (cand.new or cand.missed_bb) else 0
            dead = sb if (not cand.new and (cand.missed_sb or cand.missed_bb)) else 0
            posts[seat] = (live, dead)
    if len(dealt) < 2 or (conflict and len(dealt) > 2):
        return None
    missed_sb = (sb_pos,) if sb_pos in sitting_out else ()
    missed_bb = tuple(s for s in between(last.bb, bb_seat, seats) if s in sitting_out)
    if len(dealt) == 2:
        # S-3 heads-up: the other player has the button and posts the small blind
        other = dealt[0] if dealt[1] == bb_seat else dealt[1]
        posts = {bb_seat: (bb, 0), other: (sb, 0)}
        waiting = sorted(set(waiting))
        return Plan(
            button=other, sb_seat=other, bb_seat=bb_seat, dealt=tuple(dealt), posts=posts,
            waiting=tuple(waiting), missed_sb=missed_sb if sb_pos != other else (),
            missed_bb=missed_bb, rotation=Rotation(other, other, bb_seat, True), button_waits=tuple(button_waits),
        )
    return Plan(
        button=button, sb_seat=sb_seat, bb_seat=bb_seat, dealt=tuple(dealt), posts=posts,
        waiting=tuple(waiting), missed_sb=missed_sb, missed_bb=missed_bb,
        rotation=Rotation(button, sb_pos, bb_seat, False), button_waits=tuple(button_waits),
    )


def _fresh(
    seats: int,
    players: dict[int, Candidate],
    last: Rotation | None,
    sb: int,
    bb: int,
    button_hint: int | None,
) -> Plan:
    if last is None and button_hint in players:
        button = int(button_hint)
    elif last is not None:
        button = _next_in(last.button, players, seats)  # type: ignore[assignment]
    else:
        button = min(players)
    dealt = tuple(sorted(players))
    if len(dealt) == 2:
        bb_seat = _next_in(button, players, seats)
        assert bb_seat is not None
        if last is not None and bb_seat == last.bb:  # nobody pays the big blind twice running
            button, bb_seat = bb_seat, button
        rot = Rotation(button, button, bb_seat, True)
        return Plan(button, button, bb_seat, dealt, {button: (sb, 0), bb_seat: (bb, 0)},
                    (), (), (), rot, fresh=True)
    sb_seat = _next_in(button, players, seats)
    assert sb_seat is not None
    bb_seat = _next_in(sb_seat, players, seats)
    assert bb_seat is not None
    rot = Rotation(button, sb_seat, bb_seat, False)
    return Plan(button, sb_seat, bb_seat, dealt, {sb_seat: (sb, 0), bb_seat: (bb, 0)},
                (), (), (), rot, fresh=True)
