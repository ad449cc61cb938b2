"""The table's state: seats, rotation, the running hand, timer, ledger (issue 3).

One :class:`TableState` value is the whole truth about a table; only
:func:`controller.engine.table.step.step` makes a new one. Everything is immutable by
convention (frozen dataclasses; the dicts and tuples inside are never changed in place) and
JSON-serialisable with :meth:`TableState.to_json` / :meth:`TableState.from_json` (the
running hand is stored as its start and the facts applied to it, and rebuilt by replaying
them through the hand engine).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

from .blinds import Rotation
from .ledger import Ledger
from .settings import TableSettings

__all__ = ["Seat", "Timer", "Departure", "Dealing", "HandInfo", "TableState", "SIT_OUT_LIMIT",
           "state_to_json", "state_from_json", "evolve",
           "RETURN_SECONDS"]

_set = object.__setattr__


_T = TypeVar("_T")


def evolve(obj: _T, **changes: Any) -> _T:
    """Return a copy of the frozen slotted dataclass ``obj`` with ``changes``.

    A fast ``dataclasses.replace`` for the table's own state types (no ``__post_init__``
    to re-run): the step function makes many small copies per event.
    """
    copy = _COPIERS.get(type(obj))
    if copy is None:
        copy = _COPIERS[type(obj)] = _copier(type(obj))
    new: _T = copy(obj)
    for name, value in changes.items():
        _set(new, name, value)
    return new


_COPIERS: dict[type, Any] = {}


def _copier(cls: type) -> Any:
    """Return ``copy(obj)`` for the slotted class ``cls``: straight-line code over its slots
    (issue 21: :func:`evolve` runs a few times in every table step; a loop of ``getattr``
    over the slots took a third longer)."""
    body = ["def copy(obj):", "    new = _new(cls)"]
    body += [f"    _set(new, {name!r}, obj.{name})" for name in cls.__slots__]  # type: ignore[attr-defined]
    body.append("    return new")
    ns: dict[str, Any] = {"_new": object.__new__, "_set": _set, "cls": cls}
    exec("\n".join(body), ns)  # noqa: S102 - code built from the class's own slot names
    return ns["copy"]


#: T-5: a player is stood up after this many consecutive hands sat out.
SIT_OUT_LIMIT = 10
#: T-2: a player who left with more than the maximum and returns within this many seconds
#: must buy in for at least what they left with.
RETURN_SECONDS = 20 * 60


@dataclass(frozen=True, slots=True)
class Seat:
    """One occupied seat.

    ``stack`` chips behind (not counting bets in the running hand). ``sitting_out`` with
    ``out_reason`` ``"request"`` (T-5), ``"timeout"`` (A-2) or ``"busted"`` (no chips);
    ``hands_out`` counts consecutive hands dealt while sitting out (T-5). ``missed_sb`` /
    ``missed_bb`` are the T-6 marks; ``new`` the T-4 state (not dealt in since sitting
    down); ``post``: pay what is owed now instead of waiting for the big blind.
    ``connected``: the seat's tablet is online (A-4). ``leaving``: stand up when the hand
    ends (T-8). ``preselect``: ``(choice, amount)`` for this betting round (A-3).
    ``topup``: chips asked for during a hand the player is in, added when it ends (T-7).
    ``auto_muck``: the player's standing choice to muck at the showdown a hand that cannot
    beat one already shown, without being asked (P-2).
    ``buy_in_pending``: chips a player who joined from the tablet asked to buy in for, not
    yet on the table: they come when the dealer confirms the chips were handed over
    (T-3, ``tablet_join`` ``confirm``); ``pending_at`` when that was asked (Unix seconds).
    """

    seat: int
    player: str
    name: str
    stack: int = 0
    sitting_out: bool = False
    out_reason: str = ""
    hands_out: int = 0
    missed_sb: bool = False
    missed_bb: bool = False
    new: bool = True
    post: bool = False
    connected: bool = True
    leaving: bool = False
    preselect: tuple[str, int | None] | None = None
    topup: int = 0
    auto_muck: bool = False
    buy_in_pending: int = 0
    pending_at: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """Return a JSON-ready dict of the seat."""
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["preselect"] = list(self.preselect) if self.preselect else None
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Seat":
        """Return the seat from :meth:`to_json` output."""
        d = dict(d)
        if d.get("preselect") is not None:
            d["preselect"] = tuple(d["preselect"])
        return cls(**d)


@dataclass(frozen=True, slots=True)
class Timer:
    """The running action timer (A-2): number ``seq`` for ``seat``, from ``started`` to
    ``deadline`` (Unix seconds)."""

    seq: int
    seat: int
    started: float
    deadline: float


@dataclass(frozen=True, slots=True)
class Departure:
    """A player who left with ``amount`` chips at ``at`` (T-2 20-minute return rule)."""

    player: str
    at: float
    amount: int


@dataclass(frozen=True, slots=True)
class Dealing:
    """Cards the table asked the shuffler for and is collecting (one hand ``DealRequest``).

    ``kind`` is the hand's request kind (``hole``, ``board``, ``draw``) for ``seat``;
    ``batches`` the ``(target, count)`` steps announced one by one with ``DealCards``
    (e.g. ``(("burn", 1), ("board", 3))``); ``reshuffle_at`` the batch index before
    which the stub is rebuilt (G-4); ``cards`` what arrived so far.
    """

    kind: str
    seat: int | None
    batches: tuple[tuple[str, int], ...]
    reshuffle_at: int | None = None
    cards: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class HandInfo:
    """The running (or last) hand as the table set it up.

    ``number`` counts hands at this table from 1; ``button``/``sb_seat``/``bb_seat`` are
    seat numbers (``sb_seat`` None when dead); ``dealt`` seats dealt in; ``start_stacks``
    seat -> stack before posting; ``players`` seat -> player id; ``turn_seq`` the state
    ``seq`` when the current turn began (A-1 stale actions); ``auto`` how the table acted
    for players (``[seat, action, why]``). ``prior_rotation`` / ``prior_marks`` (seat ->
    ``(player, missed_sb, missed_bb, new, post, hands_out)``) undo the hand's seat
    bookkeeping when the floor voids it. ``button_waits``: the seats in the game not dealt
    in because they wait for the button to pass (:attr:`~controller.engine.table.blinds.Plan.button_waits`,
    T-4; the screens say so, issue 19).
    """

    number: int
    button: int
    sb_seat: int | None
    bb_seat: int
    dealt: tuple[int, ...]
    start_stacks: dict[int, int]
    players: dict[int, str]
    started_at: float
    turn_seq: int = 0
    auto: tuple[tuple[int, str, str], ...] = ()
    prior_rotation: Rotation | None = None
    prior_marks: dict[int, tuple[str, bool, bool, bool, bool, int]] = field(default_factory=dict)
    button_waits: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class TableState:
    """The whole table.

    ``seats`` has one entry per seat 1..N (index ``seat - 1``), ``None`` when free.
    ``seq`` rises by one with every change (docs/state.md). ``hand`` is the hand engine's
    running hand or None; ``info`` describes it (or the last hand while none runs).
    ``rotation`` is the last hand's button and blinds (T-1). ``timer_seq`` numbers every
    timer ever started; ``timer`` is the running one. ``pending_settings`` are changes
    waiting for the hand to end; ``settings_log`` records each applied change as
    ``{"hand": n, "at": t, "by": who, "changes": {...}}``. ``last_result`` is the last
    finished hand's record (for the showdown view).
    """

    settings: TableSettings
    seats: tuple[Seat | None, ...]
    seq: int = 0
    hands: int = 0
    hand: Any = None
    info: HandInfo | None = None
    rotation: Rotation | None = None
    timer_seq: int = 0
    timer: Timer | None = None
    dealing: Dealing | None = None
    ledger: Ledger = field(default_factory=Ledger)
    departures: tuple[Departure, ...] = ()
    pending_settings: dict[str, Any] | None = None
    settings_log: tuple[dict[str, Any], ...] = ()
    last_result: dict[str, Any] | None = None

    @classmethod
    def new(cls, settings: TableSettings) -> "TableState":
        """Return an empty table with ``settings`` (no one seated, no hand)."""
        return cls(settings=settings, seats=(None,) * settings.seats)

    def seat(self, n: int) -> Seat | None:
        """Return seat ``n`` (1..N) or None when free or out of range."""
        if 1 <= n <= len(self.seats):
            return self.seats[n - 1]
        return None

    def with_seat(self, n: int, seat: Seat | None) -> "TableState":
        """Return a copy with seat ``n`` replaced."""
        seats = list(self.seats)
        seats[n - 1] = seat
        return evolve(self, seats=tuple(seats))

    def occupied(self) -> list[Seat]:
        """Return the occupied seats, seat 1 first."""
        return [s for s in self.seats if s is not None]

    def to_json(self) -> dict[str, Any]:
        """Return the state as JSON-ready data (see :func:`state_to_json`)."""
        return state_to_json(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "TableState":
        """Return the state saved by :meth:`to_json` (see :func:`state_from_json`)."""
        return state_from_json(data)


def _rotation_json(r: Rotation | None) -> list[Any] | None:
    return None if r is None else [r.button, r.sb, r.bb, r.heads_up]


def _rotation(d: Any) -> Rotation | None:
    return None if d is None else Rotation(d[0], d[1], d[2], bool(d[3]))


def _info_json(i: HandInfo | None) -> dict[str, Any] | None:
    if i is None:
        return None
    return {
        "number": i.number, "button": i.button, "sb_seat": i.sb_seat, "bb_seat": i.bb_seat,
        "dealt": list(i.dealt), "start_stacks": {str(k): v for k, v in i.start_stacks.items()},
        "players": {str(k): v for k, v in i.players.items()}, "started_at": i.started_at,
        "turn_seq": i.turn_seq, "auto": [list(a) for a in i.auto],
        "prior_rotation": _rotation_json(i.prior_rotation),
        "prior_marks": {str(k): list(v) for k, v in i.prior_marks.items()},
        "button_waits": list(i.button_waits),
    }


def _info(d: dict[str, Any] | None) -> HandInfo | None:
    if d is None:
        return None
    return HandInfo(
        number=d["number"], button=d["button"], sb_seat=d["sb_seat"], bb_seat=d["bb_seat"],
        dealt=tuple(d["dealt"]), start_stacks={int(k): v for k, v in d["start_stacks"].items()},
        players={int(k): v for k, v in d["players"].items()}, started_at=d["started_at"],
        turn_seq=d["turn_seq"], auto=tuple(tuple(a) for a in d["auto"]),
        prior_rotation=_rotation(d["prior_rotation"]),
        prior_marks={int(k): tuple(v) for k, v in d["prior_marks"].items()},
        button_waits=tuple(int(x) for x in d.get("button_waits", ())),  # none in an older state
    )


def state_to_json(state: TableState) -> dict[str, Any]:
    """Return the whole table state as JSON-ready data (the running hand as its record).

    :func:`state_from_json` rebuilds an equal state; the hand is rebuilt by replaying its
    recorded facts through the hand engine.
    """
    t = state.timer
    d = state.dealing
    return {
        "settings": state.settings.to_json(),
        "seats": [None if s is None else s.to_json() for s in state.seats],
        "seq": state.seq, "hands": state.hands,
        "hand": None if state.hand is None else state.hand.snapshot(),
        "info": _info_json(state.info),
        "rotation": _rotation_json(state.rotation),
        "timer_seq": state.timer_seq,
        "timer": None if t is None else [t.seq, t.seat, t.started, t.deadline],
        "dealing": None if d is None else {
            "kind": d.kind, "seat": d.seat, "batches": [list(b) for b in d.batches],
            "reshuffle_at": d.reshuffle_at, "cards": list(d.cards)},
        "ledger": state.ledger.to_json(),
        "departures": [[x.player, x.at, x.amount] for x in state.departures],
        "pending_settings": state.pending_settings,
        "settings_log": list(state.settings_log),
        "last_result": state.last_result,
    }


def state_from_json(data: dict[str, Any]) -> TableState:
    """Return the :class:`TableState` saved by :func:`state_to_json`.

    Raises:
        ValueError: the data is not a saved table state (SettingsError, HandError, KeyError
            wrapped), e.g. a hand record the hand engine cannot replay.
    """
    from ..hand import Hand

    try:
        t = data["timer"]
        d = data["dealing"]
        return TableState(
            settings=TableSettings.from_json(data["settings"]),
            seats=tuple(None if s is None else Seat.from_json(s) for s in data["seats"]),
            seq=data["seq"], hands=data["hands"],
            hand=None if data["hand"] is None else Hand.from_snapshot(data["hand"]),
            info=_info(data["info"]), rotation=_rotation(data["rotation"]),
            timer_seq=data["timer_seq"],
            timer=None if t is None else Timer(t[0], t[1], t[2], t[3]),
            dealing=None if d is None else Dealing(
                d["kind"], d["seat"], tuple((b[0], b[1]) for b in d["batches"]),
                d["reshuffle_at"], tuple(d["cards"])),
            ledger=Ledger.from_json(data["ledger"]),
            departures=tuple(Departure(p, a, m) for p, a, m in data["departures"]),
            pending_settings=data["pending_settings"],
            settings_log=tuple(data["settings_log"]),
            last_result=data["last_result"],
        )
    except (KeyError, TypeError, IndexError) as exc:
        raise ValueError(f"not a saved table state: {exc!r}") from exc
