"""Any well-formed event, in any order, is either applied or refused: the step never raises
and the books always balance (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.engine.table import events as ev
from controller.engine.table.settings import TableSettings

from .harness import Bench

SEATS = st.integers(min_value=1, max_value=8)
CHIPS = st.integers(min_value=1, max_value=3000)
CARDS = st.sampled_from(["As", "Kd", "7h", "2c", "Ts", "??"])

EVENT = st.one_of(
    st.builds(lambda s, p, post: ("sit", dict(seat=s, player=f"p{p}", name="x", post=post)),
              SEATS, st.integers(1, 9), st.booleans()),
    st.builds(lambda s, a: ("buy", dict(seat=s, amount=a)), SEATS, CHIPS),
    st.builds(lambda s, a: ("top", dict(seat=s, amount=a)), SEATS, CHIPS),
    st.builds(lambda s: ("leave", dict(seat=s)), SEATS),
    st.builds(lambda s: ("out", dict(seat=s)), SEATS),
    st.builds(lambda s, p: ("in", dict(seat=s, post=p)), SEATS, st.booleans()),
    st.builds(lambda s, a, amt, d: ("act", dict(seat=s, action=a, amount=amt, discards=d)),
              SEATS, st.sampled_from(ev.ACTIONS), st.none() | st.integers(0, 3000),
              st.lists(CARDS.filter(lambda c: c != "??"), max_size=3).map(tuple)),
    st.builds(lambda s, c, a: ("pre", dict(seat=s, choice=c, amount=a)), SEATS,
              st.sampled_from(ev.PRESELECTS), st.integers(0, 500)),
    st.builds(lambda c: ("card", dict(card=c)), CARDS),
    st.builds(lambda q: ("timer", dict(timer="action", seq=q)), st.integers(0, 40)),
    st.builds(lambda s, on: ("net", dict(seat=s, on=on)), SEATS, st.booleans()),
    st.builds(lambda ch: ("settings", dict(changes=ch)), st.dictionaries(
        st.sampled_from(["big_blind", "small_blind", "seats", "ante", "game", "buy_in_max",
                         "rake_caps", "colour"]),
        st.one_of(st.integers(-5, 400), st.sampled_from(["draw", "omaha", "x"]),
                  st.just([[2, 5]]), st.just([["a", 1]])), min_size=1, max_size=2)),
    st.just(("start", {})),
    st.just(("void", {})),
    st.just(("auto", {})),
)

KINDS = {"sit": ev.PlayerSatDown, "buy": ev.BoughtIn, "top": ev.ToppedUp, "leave": ev.StoodUp,
         "out": ev.SatOut, "in": ev.SatIn, "act": ev.ActionTaken, "pre": ev.PreselectSet,
         "card": ev.CardDealt, "timer": ev.TimerExpired, "settings": ev.SettingsChanged,
         "void": ev.HandVoided}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(EVENT, min_size=1, max_size=60))
def test_random_events_never_break_the_table(script):
    b = Bench(TableSettings(seats=8, small_blind=5, big_blind=10, buy_in_min=100,
                            buy_in_max=2000))
    for p in range(1, 4):  # a few players so hands can run
        b.seat_up(p, 500)
    for kind, kw in script:
        if kind == "start":
            b.start(1 if b.state.hands == 0 else None)
        elif kind == "net":
            b.do(ev.TabletConnected if kw["on"] else ev.TabletDisconnected, seat=kw["seat"])
        elif kind == "auto":  # the player to act does something legal
            if b.to_act is not None:
                lg = b.state.hand.legal()
                b.act(b.to_act, "check" if lg.check else "call" if lg.call else "fold")
        else:
            try:
                event = KINDS[kind](at=b.t, **kw)
            except ValueError:
                continue  # not well-formed: the codec refuses it before the table sees it
            b.send(event)  # must not raise; the bench audits the books
