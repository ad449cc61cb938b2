"""The ``take_seat`` request (T-3, T-2, T-4) in the payload codec: what a tablet may send
to take its free seat, and the M- refusals of everything else (docs/mqtt.md)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.mqtt import codec
from drivers.mqtt.codec import PayloadError

RELAXED = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def take_seat(**over: object) -> bytes:
    obj = {"schema": 1, "id": "s3-x-1", "seat": 3, "seq": 10, "action": "take_seat",
           "amount": 5000, "name": "Ann", "post": False}
    obj.update(over)
    return json.dumps({k: v for k, v in obj.items() if v is not ...}).encode()


def test_take_seat_decodes_to_name_buy_in_and_the_t4_choice() -> None:
    req = codec.decode_action(take_seat(name="  Ann-Marie O'Neil ", post=True), seat=3)
    assert (req.action, req.amount, req.name, req.post) == ("take_seat", 5000, "Ann-Marie O'Neil", True)
    assert req.action_id == "s3-x-1" and req.seq_seen == 10
    # letters of any script, NFC: a decomposed é arrives as one character
    assert codec.decode_action(take_seat(name="Jose\u0301 Zoë 李"), seat=3).name == "Jos\u00e9 Zoë 李"


def test_the_tablet_simulator_encodes_what_the_codec_decodes() -> None:
    raw = codec.action_payload(seat=2, seq=4, action="take_seat", action_id="a.1", amount=800,
                               name="Bo", post=True)
    req = codec.decode_action(raw, seat=2)
    assert (req.name, req.post, req.amount) == ("Bo", True, 800)


@pytest.mark.parametrize("payload, code, words", [
    (take_seat(name=...), "M-2", "name"),
    (take_seat(name=""), "M-2", "empty"),
    (take_seat(name="   "), "M-2", "empty"),
    (take_seat(name="A" * 21), "M-2", "over 20"),
    (take_seat(name="Ann\nBob"), "M-2", "U+000A"),
    (take_seat(name="Ann\u202eBob"), "M-2", "U+202E"),  # bidi override
    (take_seat(name="Ann  Bob"), "M-2", "two spaces"),
    (take_seat(name="\u0301\u0301"), "M-2", "letter or digit"),  # combining marks alone look blank
    (take_seat(name="._-"), "M-2", "letter or digit"),
    (take_seat(name="<b>Ann</b>"), "M-2", "U+003C"),
    (take_seat(name="Ann \U0001F600"), "M-2", "U+1F600"),
    (take_seat(name=42), "M-2", "text"),
    (take_seat(name=["Ann"]), "M-2", "text"),
    (take_seat(amount=...), "M-2", "amount"),
    (take_seat(amount=None), "M-2", "amount"),
    (take_seat(amount=0), "M-2", "at least 1"),
    (take_seat(amount=-100), "M-2", "amount"),
    (take_seat(amount=50.5), "M-2", "amount"),
    (take_seat(amount="5000"), "M-2", "amount"),
    (take_seat(amount=True), "M-2", "amount"),
    (take_seat(amount=10**13), "M-2", "amount"),
    (take_seat(post=...), "M-2", "post"),
    (take_seat(post=None), "M-2", "post"),
    (take_seat(post=1), "M-2", "post"),
    (take_seat(post="yes"), "M-2", "post"),
    (take_seat(seat=4), "M-6", "seat 4"),
    (take_seat(choice="call"), "M-2", "choice"),
    (take_seat(cards=[]), "M-2", "cards"),
    (take_seat(extra=1), "M-2", "unknown"),
    (json.dumps({"schema": 1, "id": "a-1", "seat": 3, "seq": 10, "action": "sit_in", "amount": None,
                 "name": "Ann"}).encode(), "M-2", "only for action 'take_seat'"),
    (json.dumps({"schema": 1, "id": "a-1", "seat": 3, "seq": 10, "action": "top_up", "amount": 100,
                 "post": True}).encode(), "M-2", "only for action 'take_seat'"),
])
def test_malformed_take_seat_requests_are_refused_with_their_rule(payload: bytes, code: str, words: str) -> None:
    with pytest.raises(PayloadError) as err:
        codec.decode_action(payload, seat=3)
    assert err.value.code == code
    assert str(err.value).startswith(f"{code}: ") and words in str(err.value)


def test_a_refused_name_keeps_the_request_id_for_the_reply() -> None:
    with pytest.raises(PayloadError) as err:
        codec.decode_action(take_seat(name="x" * 30, id="keep-me"), seat=3)
    assert err.value.action_id == "keep-me"


@settings(RELAXED, max_examples=300)
@given(name=st.text(max_size=30))
def test_any_name_is_taken_as_printable_text_or_refused_m2(name: str) -> None:
    try:
        got = codec.clean_name(name)
    except PayloadError as exc:
        assert exc.code == "M-2"
        return
    assert 1 <= len(got) <= codec.MAX_NAME_CHARS and got == got.strip()
    assert all(c.isprintable() for c in got) and "\n" not in got
