"""The pure topic tree and payload codec (docs/mqtt.md): M- refusals, L-3 chat text, P-4, L-1."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.mqtt import codec
from drivers.mqtt.codec import PayloadError
from drivers.mqtt.topics import Kind, TopicError, parse, seat_filter, topic

from .conftest import state_view

# The machine is shared: a scheduling stall must not fail a deadline or a health check.
RELAXED = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def action(**over: object) -> bytes:
    obj = {"schema": 1, "id": "a-1", "seat": 3, "seq": 10, "action": "raise", "amount": 600}
    obj.update(over)
    return json.dumps({k: v for k, v in obj.items() if v is not ...}).encode()


# -- topics ----------------------------------------------------------------------------------
TABLE_IDS = st.builds(lambda head, tail: head + tail, st.sampled_from("abcxyz0189"),
                      st.text(alphabet="abz09_-", max_size=31))


@settings(RELAXED, max_examples=150)
@given(kind=st.sampled_from(list(Kind)), table=TABLE_IDS, seat=st.integers(1, 10))
def test_every_topic_parses_back_to_what_built_it(kind: Kind, table: str, seat: int) -> None:
    if table == "lobby":
        return
    built = topic(kind, table, seat)
    ref = parse(built)
    assert (ref.kind, ref.table) == (kind, table)
    assert ref.seat == (seat if "{n}" in kind.value else None)


@pytest.mark.parametrize("bad", [
    "livetable/t1/seat/03/action", "livetable/t1/seat/11/action", "livetable/t1/seat/0/action",
    "livetable/t1/seat/+/action", "livetable/t1/seat/3/other", "livetable/lobby/x/state",
    "livetable/T1/state", "other/t1/state", "livetable/t1", "livetable/t1/state/extra",
])
def test_topics_outside_the_tree_are_refused_m6(bad: str) -> None:
    with pytest.raises(TopicError, match="M-6"):
        parse(bad)


def test_table_id_lobby_is_reserved_and_seat_topics_need_a_seat() -> None:
    with pytest.raises(TopicError):
        topic(Kind.STATE, "lobby")
    with pytest.raises(TopicError):
        topic(Kind.PRIVATE, "t1")
    assert seat_filter(Kind.ACTION, "t1") == "livetable/t1/seat/+/action"
    assert parse("livetable/t1/seat/10/private", max_seats=10).seat == 10
    with pytest.raises(TopicError):
        parse("livetable/t1/seat/10/private", max_seats=9)


# -- actions ---------------------------------------------------------------------------------
def test_a_well_formed_raise_decodes_to_its_fields() -> None:
    req = codec.decode_action(action(), seat=3)
    assert (req.action_id, req.seat, req.seq_seen, req.action, req.amount) == ("a-1", 3, 10, "raise", 600)


def test_draw_and_preselect_carry_their_cards_and_choice() -> None:
    req = codec.decode_action(action(action="draw", amount=None, cards=["As", "Td"]), seat=3)
    assert req.cards == ("As", "Td")
    req = codec.decode_action(action(action="preselect", choice="call", amount=200), seat=3)
    assert (req.choice, req.amount) == ("call", 200)


def test_show_muck_and_the_auto_muck_choice_decode_p2() -> None:
    for name in ("show", "muck"):
        req = codec.decode_action(action(action=name, amount=None), seat=3)
        assert (req.action, req.amount, req.choice, req.cards) == (name, None, None, ())
    for choice in ("on", "off"):
        req = codec.decode_action(action(action="auto_muck", amount=None, choice=choice), seat=3)
        assert (req.action, req.choice) == ("auto_muck", choice)


@pytest.mark.parametrize(("payload", "code"), [
    (b"not json", "M-1"),
    (b"\xff\xfe{}", "M-1"),
    (b"[1, 2]", "M-1"),
    (b'{"schema": 1, "id": "a", "seat": 3, "seq": NaN, "action": "fold"}', "M-1"),
    (b"[" * 500 + b"]" * 500, "M-1"),
    (action(schema=2), "M-2"),
    (action(schema=True), "M-2"),
    (action(schema=1.0), "M-2"),  # JSON 1.0 is not the integer schema
    (action(id=...), "M-2"),
    (action(id="has space"), "M-2"),
    (action(id="x" * 65), "M-2"),
    (action(seq=-1), "M-2"),
    (action(seq="10"), "M-2"),
    (action(seq=True), "M-2"),
    (action(action="steal"), "M-2"),
    (action(amount=1.5), "M-2"),
    (action(amount=-100), "M-2"),
    (action(amount=None), "M-2"),
    (action(extra=1), "M-2"),
    (action(action="fold", choice="call"), "M-2"),
    (action(action="preselect", choice="call", amount=None), "M-2"),
    (action(action="draw", amount=None, cards=["As", "As"]), "M-2"),
    (action(action="draw", amount=None, cards=["Xx"]), "M-2"),
    (action(action="draw", amount=None), "M-2"),
    (action(action="fold", cards=[]), "M-2"),
    (action(action="show", amount=None, cards=["As", "Td"]), "M-2"),
    (action(action="muck", amount=None, choice="on"), "M-2"),
    (action(action="auto_muck", amount=None), "M-2"),
    (action(action="auto_muck", amount=None, choice="yes"), "M-2"),
    (action(id="a" * 60, action="fold", amount=None, pad="x" * 2000), "M-3"),
    (action(seat=5), "M-6"),
])
def test_malformed_actions_are_refused_with_their_rule(payload: bytes, code: str) -> None:
    with pytest.raises(PayloadError) as info:
        codec.decode_action(payload, seat=3)
    assert info.value.code == code
    assert str(info.value).startswith(code + ": ")
    assert isinstance(info.value, ValueError)


def test_a_refusal_keeps_the_action_id_when_it_could_be_read() -> None:
    with pytest.raises(PayloadError) as info:
        codec.decode_action(action(seat=5, id="keep-me"), seat=3)
    assert info.value.action_id == "keep-me"


@settings(RELAXED)
@given(st.binary(max_size=300))
def test_random_bytes_never_escape_as_anything_but_a_payload_error(data: bytes) -> None:
    try:
        codec.decode_action(data, seat=3)
    except PayloadError:
        pass


# -- chat (L-3) ------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["gl", "  nice hand  ", "Ça va? 🂡", "x" * 200])
def test_chat_text_is_accepted_and_stripped(text: str) -> None:
    assert codec.clean_chat_text(text) == text.strip()


@pytest.mark.parametrize("text", ["", "   ", "x" * 201, "line\nbreak", "bell\x07", "rtl\u202eoverride",
                                  "lone \ud800 surrogate", 42, None, ["gl"]])
def test_chat_that_is_not_one_line_of_valid_text_is_refused_m7(text: object) -> None:
    with pytest.raises(PayloadError) as info:
        codec.clean_chat_text(text)
    assert info.value.code == "M-7"


def test_chat_payload_with_an_escaped_lone_surrogate_is_refused() -> None:
    payload = b'{"schema": 1, "id": "c1", "seat": 3, "text": "\\ud83d"}'
    with pytest.raises(PayloadError) as info:
        codec.decode_chat(payload, seat=3)
    assert (info.value.code, info.value.action_id) == ("M-7", "c1")


# -- views -----------------------------------------------------------------------------------
def test_a_public_state_carrying_hole_cards_is_never_published() -> None:
    view = state_view(5)
    assert codec.check_state(view, "t1") == 5
    view["seats"][2]["cards"] = ["As", "Kd"]
    with pytest.raises(codec.ViewError):
        codec.check_state(view, "t1")
    with pytest.raises(codec.ViewError):
        codec.check_state(state_view(5, table="t2"), "t1")


def test_a_private_view_for_another_seat_is_refused() -> None:
    with pytest.raises(codec.ViewError):
        codec.check_private({"schema": 1, "table": "t1", "seat": 5}, "t1", 3)


def test_lobby_summary_lists_seated_players_and_stakes_l1() -> None:
    view = state_view(5)
    view["seats"][1]["status"] = "empty"
    view["seats"][1]["name"] = None
    summary = codec.lobby_summary(view)
    assert summary["seated"] == 8 and {"seat": 2, "name": None} not in summary["players"]
    assert (summary["game"], summary["limit"], summary["stakes"]["bb"], summary["max_seats"]) == \
        ("holdem", "no-limit", 100, 9)


def test_history_shows_mucked_hands_only_to_seated_players_p4() -> None:
    hand = {"hand": 56, "board": ["Jh", "8c", "3d", "2s", "Kc"], "seats": [
        {"seat": 1, "name": "Ann", "cards": ["As", "Ad"], "showed": "shown"},
        {"seat": 2, "name": "Bob", "cards": ["Qs", "Qd"], "showed": "mucked"},
        {"seat": 3, "name": "Cy", "cards": ["7s", "2d"], "showed": "folded"}]}
    public, seated = codec.history_views([hand])
    by_seat = lambda view: {s["seat"]: s["cards"] for s in view["hands"][0]["seats"]}  # noqa: E731
    assert by_seat(public) == {1: ["As", "Ad"], 2: None, 3: None}
    assert by_seat(seated) == {1: ["As", "Ad"], 2: ["Qs", "Qd"], 3: None}
    assert hand["seats"][1]["cards"] == ["Qs", "Qd"]  # the input is not changed


def test_history_keeps_the_last_hands_and_refuses_unknown_showed() -> None:
    hands = [{"hand": n, "seats": []} for n in range(1, 16)]
    public, _ = codec.history_views(hands, keep=10)
    assert [h["hand"] for h in public["hands"]] == list(range(6, 16))
    with pytest.raises(ValueError, match="P-4"):
        codec.history_views([{"hand": 1, "seats": [{"seat": 1, "cards": ["As", "Ad"], "showed": "?"}]}])


def test_reply_needs_a_reason_exactly_when_refused() -> None:
    ok = json.loads(codec.reply_payload(table="t1", seat=3, action_id="a", accepted=True, reason=None, seq=4))
    assert ok["accepted"] is True and ok["reason"] is None
    with pytest.raises(ValueError):
        codec.reply_payload(table="t1", seat=3, action_id="a", accepted=False, reason=None, seq=4)


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                    max_leaves=5)

FIELDS = st.fixed_dictionaries({}, optional={
    "schema": st.sampled_from([1, 2, "1", True]), "id": st.sampled_from(["a-1", "", "x y", 7]),
    "seat": st.sampled_from([3, 5, "3", None]), "seq": st.sampled_from([0, 10, -1, 2**60, 1.5]),
    "action": st.sampled_from(sorted(codec.ACTIONS) + ["", "FOLD"]), "amount": JSON, "choice": JSON,
    "cards": JSON, "text": JSON, "extra": JSON})


@settings(RELAXED, max_examples=150)
@given(FIELDS)
def test_any_json_object_is_decoded_or_refused_with_a_rule_never_crashes(obj: dict) -> None:
    payload = json.dumps(obj).encode()
    for decode in (codec.decode_action, codec.decode_chat):
        try:
            req = decode(payload, seat=3)
        except PayloadError as exc:
            assert exc.code in {"M-1", "M-2", "M-3", "M-6", "M-7"}
        else:
            assert req.seat == 3 and obj["seat"] == 3 and obj["schema"] == 1


def test_history_views_keep_only_the_summary_fields_so_no_hole_card_leaks():
    """P-4: whatever a caller hands in (here a table record with every hole card in its
    ``result`` and the engine's events), only the summary's fields reach the topics."""
    hand = {"hand": 7, "board": ["Jh", "8c", "3d"], "pots": [{"amount": 300, "winners": [1], "hand": None}],
            "result": {"hole": {"1": ["As", "Ad"], "2": ["Kc", "Qh"]}},
            "hand_record": {"events": [{"t": "deal_hole", "seat": 2, "cards": "Kc"}]},
            "seats": [{"seat": 1, "name": "Ann", "cards": ["As", "Ad"], "showed": "folded", "net": 150,
                       "player": "ann-id"},
                      {"seat": 2, "name": "Bob", "cards": ["Kc", "Qh"], "showed": "folded", "net": -150}]}
    for view in codec.history_views([hand]):
        text = json.dumps(view)
        assert not any(c in text for c in ("As", "Ad", "Kc", "Qh", "ann-id")), text
        (h,) = view["hands"]
        assert h["board"] == ["Jh", "8c", "3d"] and h["pots"] == hand["pots"]
        assert [(s["seat"], s["name"], s["net"], s["cards"]) for s in h["seats"]] == [
            (1, "Ann", 150, None), (2, "Bob", -150, None)]


@pytest.mark.parametrize(("payload", "expected"), [
    (b'{"schema": 1, "id": "c-17", "seat": 3, "text": "gl"}', "c-17"),
    (b'{"schema": 2, "id": "c-17"}', "c-17"),        # a wrong schema still names its id
    (b'{"schema": 1, "id": "bad id!"}', None),
    (b'{"schema": 1, "id": 17}', None),
    (b'[1, 2]', None), (b'\xff\xfe', None), (b'', None),
    (b'{"schema": 1, "id": "x", "pad": "' + b"a" * 5000 + b'"}', None),  # over the limit: not read
])
def test_payload_id_names_what_a_refusal_can_answer_and_never_raises(payload: bytes, expected: str | None) -> None:
    """M-10: a retained input is refused before it is decoded; the answer carries its id when readable."""
    assert codec.payload_id(payload) == expected
