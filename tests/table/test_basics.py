"""Settings (L-2, T-2), the event/effect codec and the ledger arithmetic."""

from __future__ import annotations

import json

import pytest

from controller.engine.table import effects as fx
from controller.engine.table import events as ev
from controller.engine.table.codec import KINDS, CodecError, from_json, to_json
from controller.engine.table.ledger import Ledger, LedgerError
from controller.engine.table.settings import SettingsError, TableSettings


def test_t2_buy_in_defaults_follow_limit():
    nl = TableSettings(big_blind=100, small_blind=50)
    assert (nl.buy_in_min, nl.buy_in_max) == (2000, 10000)
    fl = TableSettings(limit="fixed-limit", big_blind=10, small_blind=5)
    assert (fl.small_bet, fl.big_bet, fl.buy_in_min, fl.buy_in_max) == (10, 20, 200, None)


def test_l2_seat_limits_per_game():
    TableSettings(game="draw", seats=5)
    with pytest.raises(SettingsError, match="L-2"):
        TableSettings(game="draw", seats=6)
    with pytest.raises(ValueError, match="L-2"):
        TableSettings(game="holdem", seats=11)
    with pytest.raises(SettingsError, match="S-1"):
        TableSettings(small_blind=200, big_blind=100)


def test_changed_moves_default_buy_in_with_the_stakes_but_keeps_explicit_ones():
    s = TableSettings(big_blind=100, small_blind=50)
    t = s.changed(big_blind=200, small_blind=100)
    assert (t.buy_in_min, t.buy_in_max) == (4000, 20000)
    u = TableSettings(big_blind=100, small_blind=50, buy_in_min=1000).changed(big_blind=200)
    assert u.buy_in_min == 1000 and u.buy_in_max == 20000
    with pytest.raises(SettingsError):
        s.changed(colour="red")


def test_settings_round_trip_json():
    s = TableSettings(rake_percent=5, rake_caps=((5, 300), (2, 100)))
    assert s.rake_cap(2) == 100 and s.rake_cap(4) == 100 and s.rake_cap(7) == 300
    assert TableSettings.from_json(json.loads(json.dumps(s.to_json()))) == s


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_registered_kind_has_a_json_name(kind):
    assert KINDS[kind].kind == kind


def test_events_and_effects_round_trip_through_json():
    items = [
        ev.PlayerSatDown(at=1.5, seat=3, player="p1", name="Ann", post=True),
        ev.ActionTaken(at=2.0, seat=3, action="draw", discards=("As", "Kd"), seq=7, action_id="a1"),
        ev.SettingsChanged(at=3.0, changes={"big_blind": 200, "rake_caps": {"2": 50}}),
        ev.TimerExpired(at=4.0, timer="action", seq=9),
        fx.DealCards(target="seat", count=2, seat=4),
        fx.PublishPrivate(seats=(1, 4), clear=True),
        fx.Refuse(event="bought-in", rule="T-2", reason="T-2: too much", seat=2),
    ]
    for item in items:
        text = json.dumps(to_json(item))
        assert from_json(json.loads(text)) == item


def test_codec_refuses_bad_payloads():
    with pytest.raises(CodecError):
        from_json({"kind": "no-such-thing"})
    with pytest.raises(CodecError):
        from_json({"kind": "sat-out", "at": 1.0, "seat": 2, "colour": "red"})
    with pytest.raises(ValueError, match="A-1"):
        from_json({"kind": "action-taken", "at": 1.0, "seat": 2, "action": "dance"})
    with pytest.raises(ValueError):
        from_json({"kind": "bought-in", "at": 1.0, "seat": 2, "amount": -5})
    with pytest.raises(ValueError):
        ev.SatOut(at="noon", seat=1)  # type: ignore[arg-type]


def test_ledger_meters_balance():
    led = Ledger().buy_in("a", 1000).buy_in("b", 500).top_up("b", 200)
    led = led.hand({"a": (95, 5), "b": (-100, 0)}, rake=5)
    assert led.accounts["a"].at_table == 1095 and led.accounts["b"].at_table == 600
    led = led.cash_out("a", 1095)
    assert led.total_in == 1700 and led.total_out == 1095 and led.rake == 5
    assert led.on_table == 600 == sum(a.at_table for a in led.accounts.values())
    assert Ledger.from_json(json.loads(json.dumps(led.to_json()))) == led
    with pytest.raises(LedgerError, match="T-8"):
        led.cash_out("b", 601)
    with pytest.raises(LedgerError, match="R-1"):
        led.hand({"b": (10, 1)}, rake=2)


def test_a_refused_action_leaves_the_table_as_it_was():
    """docs/table.md: an illegal action yields one Refuse and the same state object (no new
    seq, nothing to publish); the legal action after it is taken as usual."""
    from controller.engine.table.step import step

    from .harness import Bench

    b = Bench(TableSettings(small_blind=5, big_blind=10, seats=4))
    for s in (1, 2, 3):
        b.seat_up(s, 1000)
    b.start(button=1)
    seat = b.to_act
    assert seat is not None
    before = b.state
    for bad in (ev.ActionTaken(at=b.t, seat=seat, action="raise", amount=11),  # below the minimum
                ev.ActionTaken(at=b.t, seat=seat, action="check")):  # facing the big blind
        after, out = step(before, bad)
        assert after is before and [type(e) for e in out] == [fx.Refuse]
    after, out = step(before, ev.ActionTaken(at=b.t, seat=seat, action="call"))
    assert after.seq == before.seq + 1 and isinstance(out[-1], fx.LightSeats)
