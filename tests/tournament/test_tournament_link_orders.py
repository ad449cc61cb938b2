"""The room's orders to a tournament table (issue 19, controller/tournament_link.py): every
malformed order is refused with a reason and changes nothing."""

from __future__ import annotations

import json

import pytest

from controller.tournament_link import OrderError, decode_order


def order(**kw: object) -> bytes:
    base: dict[str, object] = {"schema": 1, "table": "t1", "id": 3, "out": [], "in": [], "go": None, "end": False}
    base.update(kw)
    return json.dumps(base).encode()


def test_an_order_decodes_with_its_moves_and_its_go() -> None:
    o = decode_order(order(out=[{"move": 4, "seat": 2, "player": "p7"}],
                           **{"in": [{"move": 5, "seat": 6, "player": "p1", "name": "Player 1", "chips": 4200},
                                     {"move": 4, "seat": 1, "player": "p7", "name": "Player 7", "chips": None}]},
                           go={"hand": 12, "stakes": {"small_blind": 100, "big_blind": 200, "big_blind_ante": 200}}),
                     "t1", 8)
    assert o["id"] == 3 and o["out"] == [{"move": 4, "seat": 2, "player": "p7"}]
    assert [m["chips"] for m in o["in"]] == [4200, None]
    assert o["go"] == {"hand": 12, "stakes": {"small_blind": 100, "big_blind": 200, "big_blind_ante": 200}}


@pytest.mark.parametrize("raw, why", [
    (b"not json", "not JSON"),
    (b"[1]", "schema 1"),
    (order(table="t2"), "table 't2'"),
    (order(id=0), "'id'"),
    (order(out=[{"move": 1, "seat": 9, "player": "p1"}]), "'seat'"),
    (order(**{"in": [{"move": 1, "seat": 2, "player": "p1", "name": "P", "chips": -5}]}), "'chips'"),
    (order(**{"in": [{"move": 1, "seat": 2, "player": "", "name": "P", "chips": 5}]}), "'player'"),
    (order(go={"hand": 1, "stakes": {"big_blind": 0}}), "big_blind"),
    (order(go={"hand": 1}), "'go'"),
    (b"x" * 20_000, "at most"),
])
def test_a_malformed_order_is_refused_with_its_reason(raw: bytes, why: str) -> None:
    with pytest.raises(OrderError, match=why):
        decode_order(raw, "t1", 8)


def test_a_name_the_screens_cannot_show_is_seated_with_a_replacement_character() -> None:
    """An older room's order naming "Lena \\ud800" (a lone surrogate: no UTF-8 encoder, no font
    takes it) or a zero-width character: the move is carried out, the name shown with U+FFFD
    (breaker 2 H4: the table's state publishing and its display must not stop on one name)."""
    raw = order(**{"in": [{"move": 5, "seat": 6, "player": "p22", "name": "Lena \ud800", "chips": 2000},
                          {"move": 6, "seat": 7, "player": "p23", "name": "Ann\u200b Lee\u202e", "chips": 2000,
                           "from": "t2", "from_name": "Birch\udfff"}]})
    o = decode_order(raw, "t1", 8)
    assert [m["name"] for m in o["in"]] == ["Lena \ufffd", "Ann\ufffd Lee\ufffd"]
    assert o["in"][1]["from_name"] == "Birch\ufffd"  # the screens' notice too
    assert all(m["name"].encode() for m in o["in"])
