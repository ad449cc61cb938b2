"""Hand histories from outside (issue 16, item 9): ``livetable replay`` never hangs, reports
an incomplete hand as incomplete and refuses nonsense; a fuzz over PHH input.

The breaker's findings (349 files tried): a FIFO named ``.phh`` hung for ever; hands that
stop before the showdown's show or muck replayed with ``"error": null`` and 200 chips missing
from the stacks; stacks of 10^100 or floats, ``min_bet`` 0 or negative and a smallest chip of
0 were accepted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.engine.phh import PHHError, load, load_file, play
from controller.engine.replay import main, replay_file

REPO = Path(__file__).resolve().parents[2]

HU = """variant = "NT"
antes = [0, 0]
blinds_or_straddles = [50, 100]
min_bet = 100
starting_stacks = [1000, 1000]
actions = [{actions}]
"""
TO_RIVER = ['"d dh p1 AsKs"', '"d dh p2 QdQc"', '"p2 cc"', '"p1 cc"', '"d db 2c3c4d"', '"p1 cc"', '"p2 cc"',
            '"d db 5h"', '"p1 cc"', '"p2 cc"', '"d db 9s"', '"p1 cc"', '"p2 cc"']


def _write(tmp_path: Path, text: str, name: str = "h.phh") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_a_fifo_named_phh_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "hand.phh"
    os.mkfifo(fifo)
    good = _write(tmp_path, HU.format(actions=", ".join(TO_RIVER + ['"p1 sm AsKs"', '"p2 sm"'])), "good.phh")
    # The command line, on the FIFO itself and on its folder: no writer ever comes.
    res = subprocess.run([sys.executable, "-m", "controller", "replay", str(fifo), str(tmp_path)],
                         cwd=REPO, capture_output=True, text=True, timeout=60)
    lines = [json.loads(x) for x in res.stdout.splitlines()]
    assert res.returncode == 1
    assert [x["file"] for x in lines] == [str(fifo), str(good), str(fifo)]
    assert "a FIFO" in lines[0]["error"] and lines[1]["error"] is None and "a FIFO" in lines[2]["error"]


def test_a_folder_or_a_huge_file_is_refused(tmp_path):
    with pytest.raises(PHHError, match="a folder"):
        load_file(tmp_path)
    big = _write(tmp_path, HU.format(actions="") + "# " + "x" * (1 << 20) + "\n")
    with pytest.raises(PHHError, match="larger than"):
        load_file(big)


@pytest.mark.parametrize("actions,what", [
    (TO_RIVER, "at the showdown: p1 has neither shown nor mucked (P-2); 200 chips are still in the pot"),
    (TO_RIVER + ['"p1 sm AsKs"'], "at the showdown: p2 has neither shown nor mucked (P-2); 200 chips"),
    (TO_RIVER[:4], "before the board cards are dealt; 200 chips"),
    (TO_RIVER[:5], "on the flop: p1 is still to act; 200 chips"),
    (TO_RIVER[:1], "before the hole cards are dealt; 150 chips"),
])
def test_an_incomplete_hand_is_reported_as_incomplete(actions, what, tmp_path, capsys):
    f = _write(tmp_path, HU.format(actions=", ".join(actions)))
    rec = replay_file(f)
    assert rec["finishing_stacks"] is None and rec["complete"] is False
    assert rec["error"].startswith("incomplete: the actions stop " + what), rec["error"]
    assert main([str(f)]) == 1
    line = json.loads(capsys.readouterr().out)
    assert line["error"].startswith("incomplete:") and line["complete"] is False


def test_the_complete_hand_still_replays(tmp_path):
    f = _write(tmp_path, HU.format(actions=", ".join(TO_RIVER + ['"p1 sm AsKs"', '"p2 sm"'])))
    rec = replay_file(f)
    assert rec["error"] is None and rec["finishing_stacks"] == [1100, 900]


def test_a_voided_table_hand_finishes_on_its_starting_stacks(tmp_path):
    text = HU.format(actions=", ".join(TO_RIVER[:5])) + '_void = true\n_void_reason = "misdeal"\n'
    rec = replay_file(_write(tmp_path, text))
    assert rec["error"] is None and rec["voided"] is True and rec["finishing_stacks"] == [1000, 1000]


@pytest.mark.parametrize("change,match", [
    (("starting_stacks = [1000, 1000]", "starting_stacks = [1" + "0" * 100 + ", 1000]"), "not a real amount"),
    (("starting_stacks = [1000, 1000]", "starting_stacks = [1e100, 1000]"), "not a real amount"),
    (("starting_stacks = [1000, 1000]", "starting_stacks = [nan, 1000]"), "finite"),
    (("starting_stacks = [1000, 1000]", "starting_stacks = [inf, 1000]"), "finite"),
    (("starting_stacks = [1000, 1000]", "starting_stacks = [1000.0000001, 1000]"), "decimal places"),
    (("starting_stacks = [1000, 1000]", "starting_stacks = [1e-300, 1000]"), "decimal places"),
    (("min_bet = 100", "min_bet = 0"), "min_bet must be more than 0"),
    (("min_bet = 100", "min_bet = -100"), "min_bet must be more than 0"),
    (("min_bet = 100", "min_bet = 100\n_smallest_chip = 0"), "_smallest_chip"),
    (("min_bet = 100", "min_bet = 100\n_smallest_chip = -1"), "_smallest_chip"),
    (("min_bet = 100", 'min_bet = 100\n_smallest_chip = "x"'), "_smallest_chip"),
    (("min_bet = 100", "min_bet = 100\n_rake_percent = 5\n_rake_cap = -inf"), "bad rake keys"),
])
def test_nonsense_is_refused(change, match):
    text = HU.format(actions=", ".join(TO_RIVER)).replace(*change)
    with pytest.raises(PHHError, match=match):
        play(load(text))


def test_deep_nesting_is_a_phh_error():
    with pytest.raises(PHHError, match="nested too deeply"):
        load("x = " + "[" * 100_000 + "]" * 100_000)


# ---------------------------------------------------------------------- fuzz
AMOUNTS = st.one_of(st.integers(1000, 3000), st.integers(-5, 3000), st.sampled_from(["0.5", "1e3", "1e100", "nan", "-inf", "12.345",
                                                            "0.0000001", "10000000000000", "1.5e2"]))
ACTIONS = st.lists(st.one_of(
    st.sampled_from(TO_RIVER + ['"p1 sm AsKs"', '"p2 sm"', '"p2 sm QdQc"', '"p1 f"', '"p2 f"', '"p3 cc"',
                                '"p1 cbr 300"', '"p2 cbr 1000"', '"p1 cbr -5"', '"p1 cbr 1e999"', '"d db AsAs"',
                                '"p1 sd"', '"p1 pb"', '"x"', '""', '"p1"', '"d dh p1 ??"', '"p1 cc # note"']),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=12).map(
        lambda t: json.dumps(t, ensure_ascii=False))), max_size=8)


PREFIXES = [TO_RIVER + ['"p1 sm AsKs"', '"p2 sm"'], TO_RIVER + ['"p1 sm AsKs"', '"p2 sm QdQc"'],
            TO_RIVER[:3] + ['"p1 cbr 400"', '"p2 f"'], TO_RIVER, TO_RIVER[:5], []]


@st.composite
def hands(draw) -> str:
    n = draw(st.integers(2, 3))
    stacks = [str(draw(AMOUNTS)) for _ in range(n)]
    blinds = draw(st.one_of(st.just(["50", "100", "0"][:n]), st.lists(
        st.sampled_from(["0", "50", "100", "-1", "0.5", "1e300"]), min_size=n, max_size=n)))
    variant = draw(st.sampled_from(["NT", "NT", "NT", "PO", "FT", "N5CD", "FO/8", "XX"]))
    lines = [f'variant = "{variant}"', f"antes = [{', '.join('0' for _ in range(n))}]",
             f"blinds_or_straddles = [{', '.join(blinds)}]", f"starting_stacks = [{', '.join(stacks)}]",
             f"actions = [{', '.join(draw(st.sampled_from(PREFIXES)) + draw(st.one_of(st.just([]), ACTIONS)))}]"]
    for key in draw(st.lists(st.sampled_from(["min_bet", "small_bet", "big_bet", "_smallest_chip",
                                              "_cap_bets", "_rake_percent", "_rake_cap"]), unique=True,
                             max_size=4)):
        lines.append(f"{key} = {draw(AMOUNTS)}")
    if draw(st.booleans()):
        lines.append("_void = true")
    return "\n".join(lines) + "\n"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hands())
def test_fuzz_phh_replay_is_a_result_or_a_clear_error(text):
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        rec = replay_file(_write(Path(tmp), text))
    if rec["error"] is not None:
        assert not rec["error"].startswith("internal error"), (rec["error"], text)
        assert rec["finishing_stacks"] is None
        return
    assert rec["complete"] or rec.get("voided"), text
    hh = load(text)
    start = sum(Decimal(str(hh.unscale(x))) for x in hh.starting_stacks)  # as the output is read
    end = sum(Decimal(str(x)) for x in rec["finishing_stacks"])
    assert end <= start and all(Decimal(str(x)) >= 0 for x in rec["finishing_stacks"])
    if "_rake_percent" not in text:
        assert end == start, text  # chips are conserved (R-1: only rake leaves the table)
