"""The floor request codec (docs/mqtt.md "Floor"): strict, every refusal with its M- rule."""

from __future__ import annotations

import json

import pytest

from drivers.mqtt import codec
from drivers.mqtt.codec import PayloadError, decode_floor_request, floor_request_payload
from drivers.mqtt.topics import Kind, TopicRef, parse, topic


def _raw(**fields) -> bytes:
    obj = {"schema": 1, "id": "f-1", "command": "void", "by": "Anna", "fault": "jam"}
    obj.update(fields)
    return json.dumps({k: v for k, v in obj.items() if v is not ...}).encode()


def test_floor_topics_are_table_wide_and_parse_back():
    assert topic(Kind.FLOOR_REQUEST, "t1") == "livetable/t1/floor/request"
    assert parse("livetable/t1/floor/reply") == TopicRef(Kind.FLOOR_REPLY, "t1")


@pytest.mark.parametrize("command,extra,want", [
    ("status", {"by": None, "fault": None}, (None, None, None, ())),
    ("void", {"fault": "jam"}, ("Anna", "jam", None, ())),
    ("resume", {"fault": "2"}, ("Anna", "2", None, ())),
    ("read", {"fault": None, "seat": 3, "cards": ["As", "Ad"]}, ("Anna", None, 3, ("As", "Ad"))),
    ("confirm-buyin", {"fault": None, "seat": 4}, ("Anna", None, 4, ())),
    ("pause", {"fault": None, "reason": " cards on the floor "}, ("Anna", None, None, ())),
])
def test_each_command_decodes_with_its_fields(command, extra, want):
    req = decode_floor_request(_raw(command=command, **extra))
    assert (req.request_id, req.command) == ("f-1", command)
    assert (req.by, req.fault, req.seat, req.cards) == want
    if command == "pause":
        assert req.reason == "cards on the floor"


def test_the_payload_the_command_sends_decodes_to_the_same_request():
    payload = floor_request_payload(request_id="f-9", command="read", by="Anna Lee", seat=2, cards=["Kh", "Td"])
    req = decode_floor_request(payload)
    assert (req.request_id, req.by, req.seat, req.cards, req.reason) == ("f-9", "Anna Lee", 2, ("Kh", "Td"), None)


@pytest.mark.parametrize("payload,code,fragment", [
    (b"\xff\xfe", "M-1", "UTF-8"),
    (b"[1]", "M-1", "object"),
    (_raw(schema=2), "M-2", "schema"),
    (b"{" + b" " * 1100 + b"}", "M-3", "1024"),
    (_raw(id="bad id!"), "M-2", "'id'"),
    (_raw(command="fold"), "M-2", "'command'"),
    (_raw(extra=1), "M-2", "unknown fields"),
    (_raw(by=...), "M-2", "'by'"),
    (_raw(by="Anna\nLee"), "M-2", "'by'"),
    (_raw(by="x" * 21), "M-2", "'by'"),
    (_raw(fault=None), "M-2", "'fault'"),
    (_raw(fault="JAM; rm"), "M-2", "'fault'"),
    (_raw(fault="0"), "M-2", "'fault'"),
    (_raw(command="status", by=None, fault="jam"), "M-2", "'fault' is only"),
    (_raw(seat=3), "M-2", "'seat' is only"),
    (_raw(command="read", fault=None, cards=["As"]), "M-2", "'seat'"),
    (_raw(command="read", fault=None, seat=11, cards=["As"]), "M-2", "'seat'"),
    (_raw(command="read", fault=None, seat=True, cards=["As"]), "M-2", "'seat'"),
    (_raw(command="read", fault=None, seat=3), "M-2", "'cards'"),
    (_raw(command="read", fault=None, seat=3, cards=[]), "M-2", "'cards'"),
    (_raw(command="read", fault=None, seat=3, cards=["As", "As"]), "M-2", "'cards'"),
    (_raw(command="read", fault=None, seat=3, cards=["as"]), "M-2", "'cards'"),
    (_raw(command="read", fault=None, seat=3, cards=["??"]), "M-2", "'cards'"),
    (_raw(cards=["As"]), "M-2", "'cards' is only"),
    (_raw(reason="a\u202eb"), "M-2", "'reason'"),
    (_raw(reason="x" * 201), "M-2", "'reason'"),
])
def test_malformed_requests_are_refused_with_their_rule(payload, code, fragment):
    with pytest.raises(PayloadError) as exc:
        decode_floor_request(payload)
    assert exc.value.code == code
    assert str(exc.value).startswith(code + ": ") and fragment in str(exc.value)


def test_a_refusal_keeps_the_request_id_when_it_could_be_read():
    with pytest.raises(PayloadError) as exc:
        decode_floor_request(_raw(id="f-77", command="explode"))
    assert exc.value.action_id == "f-77"


def test_the_reply_says_accepted_or_refused_with_a_reason_never_both():
    ok = json.loads(codec.floor_reply_payload(table="t1", request_id="f-1", command="void", accepted=True,
                                              reason=None, detail="jam ended", status={"hand": 3}, seq=9))
    assert ok == {"schema": 1, "table": "t1", "id": "f-1", "command": "void", "accepted": True,
                  "reason": None, "detail": "jam ended", "status": {"hand": 3}, "seq": 9}
    with pytest.raises(ValueError):
        codec.floor_reply_payload(table="t1", request_id="f-1", command="void", accepted=False, reason=None)
    with pytest.raises(ValueError):
        codec.floor_reply_payload(table="t1", request_id="f-1", command="void", accepted=True, reason="F-2: x")


@pytest.mark.parametrize("stakes, fragment", [
    ({"big_blind": 200, "ante": 10**9}, "S-1: the ante (1,000,000,000) must be at most the big blind (200)"),
    ({"big_blind": 200, "small_blind": 201}, "S-1: the small blind (201) must be at most the big blind (200)"),
    ({"big_blind": 200, "small_blind": 0}, "'small_blind' must be an integer in 1.."),
])
def test_stakes_that_are_no_stakes_are_refused_s1(stakes, fragment):
    """Brief L item 3: any ante (10^9) and a small blind of 0 were taken."""
    with pytest.raises(PayloadError) as exc:
        decode_floor_request(json.dumps({"schema": 1, "id": "x", "command": "stakes", "by": "Anna",
                                         "stakes": stakes}).encode())
    assert exc.value.code == "M-2" and fragment in exc.value.detail, exc.value.detail
    ok = decode_floor_request(json.dumps({"schema": 1, "id": "x", "command": "stakes", "by": "Anna",
                                          "stakes": {"big_blind": 200, "small_blind": 200, "ante": 200}}).encode())
    assert ok.stakes == {"big_blind": 200, "small_blind": 200, "ante": 200}
