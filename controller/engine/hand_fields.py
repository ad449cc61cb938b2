"""What one hand holds: the attributes of :class:`controller.engine.hand.Hand` with their types.

:class:`HandFields` is the common base of the hand's mixins (dealing, showdown, journal,
leaving), so that each of them, checked on its own by mypy (``--strict``, issue 22), knows
the fields it reads and writes. It holds nothing (``__slots__ = ()``: the storage is
``Hand.__slots__``) and runs no code; the methods the mixins call on one another are
declared under ``TYPE_CHECKING`` only. A field added to ``Hand.__slots__`` is declared here.
Cards are dense indexes 0..51 (``None``: a card the engine was not told); chips are integers;
lists are indexed like ``seats`` (ascending seat order).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from .hand_base import Ranker
    from .handtypes import DealRequest, HandResult
    from .settings import HandSettings, Limit, PlayerSetup, Street


class HandFields:
    """The fields of one hand (see the module docstring); no storage, no behaviour."""

    if not TYPE_CHECKING:  # mypy would read an empty __slots__ as "these fields cannot be set"
        __slots__ = ()

    settings: HandSettings
    _limit: Limit
    setup: tuple[PlayerSetup, ...]
    button: int
    sb_seat: int | None
    bb_seat: int
    n: int  # players dealt in
    seats: list[int]
    index: dict[int, int]  # seat -> index into the lists below
    _ranker: Ranker | None
    _describe: Callable[[int], str] | None
    stack: list[int]
    start: list[int]  # stacks when the hand began
    bet: list[int]  # this betting round
    committed: list[int]  # this hand's contribution to the pots (P-1)
    folded: list[bool]
    allin: list[bool]
    acted: list[bool]
    acted_at: list[int]
    hole: list[list[int | None]]
    exposed: list[bool]
    mucked: list[bool]
    _muck_order: list[int]
    drew: list[int | None]
    discards: list[list[int | None]]
    board: list[int | None]
    burns: list[int | None]
    seen: set[int]
    dead: int  # dead money for the main pot
    returned: dict[int, int]  # seat -> uncalled chips given back (S-9)
    _log: list[tuple[Any, ...]]  # the hand's events, as Hand.events gives them
    _events: list[dict[str, Any]]  # _log's first entries as Hand.events dicts (a cache)
    _result: HandResult | None
    _streets: tuple[Street, ...]
    _street_no: int
    street: Street
    _n_hole: int
    _dealt: int
    _flop_seen: bool
    _stub: int
    _stub_cards: set[int] | None
    _muck: list[tuple[int, int | None]]
    _reshuffles: int
    voided: bool
    _first_left: int
    _order: list[int]
    _others: list[list[int]]
    n_live: int
    n_able: int
    dead_in: list[int]
    current: int  # the bet to match
    min_inc: int
    full_level: int
    bet_count: int
    capped: bool
    last_aggr: int
    to_act: int
    _sd_order: list[int]
    _sd_pos: int
    _draw_pos: int
    _draw_need: int
    phase: int

    if TYPE_CHECKING:  # what the mixins call on one another (defined in hand.py and the mixins)
        @property
        def seat_to_act(self) -> int | None: ...
        def pending_deal(self) -> DealRequest | None: ...
        def fold(self, seat: int, *, when_check_is_free: bool = False) -> None: ...
        def check(self, seat: int) -> None: ...
        def call(self, seat: int) -> None: ...
        def all_in(self, seat: int) -> None: ...
        def raise_to(self, seat: int, to: int) -> None: ...
        def draw(self, seat: int, discards: Any = ()) -> None: ...
        def show(self, seat: int, cards: Any = None) -> None: ...
        def muck(self, seat: int) -> None: ...
        def deal_hole(self, seat: int, cards: Any) -> None: ...
        def deal_board(self, cards: Any, burn: Any = None) -> None: ...
        def deal_draw(self, seat: int, cards: Any, burn: Any = None) -> None: ...
        def void(self, reason: str = "misdeal") -> None: ...
        def fold_leaving(self, seat: int) -> None: ...
        def _phase_words(self) -> str: ...
        def _bet_size(self) -> int: ...
        def _price(self, i: int) -> int: ...
        def _turn(self, seat: int, phase: int) -> int: ...
        def _advance(self, i: int) -> None: ...
        def _start_round(self, first: int) -> None: ...
        def _end_round(self) -> None: ...
        def _next_street(self) -> None: ...
        def _begin_betting(self) -> None: ...
        def _expose_all(self) -> None: ...
        def _check_new(self, cards: Sequence[int | None], allowed: set[int] | None = None) -> None: ...
        def _next_drawer(self) -> None: ...
