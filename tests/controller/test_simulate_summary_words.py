"""What ``livetable simulate`` tells a reader (issue 20, a newcomer's findings): the per-hand
log line names each hand in words once when several pots go to the same hand, and the
summary's faults carry readable times, not Unix epoch floats."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

from controller.engine.table import effects as fx
from controller.faults import FaultEnding, FaultExit, FaultKind
from controller.simulate import pots_line, readable_fault


def test_pots_won_by_the_same_hand_share_its_words_once() -> None:
    awards = [{"pot": 0, "amount": 900, "winners": [2], "hand": "Flush, ace high"},
              {"pot": 1, "amount": 400, "winners": [2], "hand": "Flush, ace high"},
              {"pot": 2, "amount": 200, "winners": [5], "hand": "Two pair, kings and eights"}]
    line = pots_line(awards)
    assert line == ("main pot 900, side pot 1 400 to seat 2 (Flush, ace high); "
                    "side pot 2 200 to seat 5 (Two pair, kings and eights)")
    assert line.count("Flush, ace high") == 1
    # a split main pot and an uncontested side pot: no words where there are none
    assert pots_line([{"pot": 0, "amount": 600, "winners": [1, 3], "hand": "Straight, ten high"},
                      {"pot": 1, "amount": 300, "winners": [3], "hand": None}]) == \
        "main pot 600 to seat 1, 3 (Straight, ten high); side pot 1 300 to seat 3"


def test_a_fault_in_the_summary_reads_as_times_and_seconds_into_the_run() -> None:
    started = datetime(2026, 12, 2, 6, 0, 0, tzinfo=timezone.utc).timestamp()
    ending = FaultEnding(kind=next(iter(FaultKind)), message="jam", since=started + 12.25,
                         exit=next(iter(FaultExit)), by="dealer", at=started + 40.5)
    out = readable_fault(ending.to_json(), started)
    assert out["since"] == "2026-12-02T06:00:12.250Z" and out["at"] == "2026-12-02T06:00:40.500Z"
    assert out["since_s"] == 12.25 and out["at_s"] == 40.5
    assert out["kind"] == ending.kind.value and out["by"] == "dealer"
    assert not any(isinstance(v, float) and v > 1e9 for v in out.values()), out  # no epoch floats
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", readable_fault({"since": 0.0}, None)["since"])


def test_no_screen_hint_gives_what_makes_full_speed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    """Newcomer finding: at a live pace without a screen the hint said ``--headless --speed 0``
    though ``--headless`` alone defaults to speed 0; at speed 0 it said "a live pace"."""
    import logging

    from controller.simulate import main, no_screen_words

    live = no_screen_words(1.0)
    assert "live pace" in live and "(--headless or --speed 0 for full speed)" in live
    assert "--headless --speed 0" not in live
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    with caplog.at_level(logging.INFO, logger="livetable.simulate"):
        assert main(["--hands", "1", "--speed", "0", "--players", "2", "--devices", "none",
                     "--journal", str(tmp_path / "j.sqlite")]) == 0
    said = [r.getMessage() for r in caplog.records if "no screen here" in r.getMessage()]
    assert said == [no_screen_words(0.0)], said
    assert "full speed" in said[0] and "live pace" not in said[0] and "--headless --speed 0" not in said[0]


def test_the_summary_shows_the_chips_on_the_table_so_a_reader_can_check_they_balance(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a newcomer could not see from the summary that chips are conserved: it gave the meters
    # (in, out, rake) but not the chips on the table
    import json

    from controller import simulate

    journal = tmp_path / "j.sqlite"
    assert simulate.main(["--devices", "none", "--headless", "--quiet", "--journal", str(journal),
                          "--hands", "4", "--seed", "3"]) == 0
    room = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["room"]
    assert room["on_table"] > 0 and room["rake"] > 0, room
    assert room["total_in"] - room["total_out"] == room["on_table"] + room["rake"], room


def test_the_per_hand_line_names_the_kickers_that_split_pots_between_like_hands(caplog) -> None:
    """A newcomer read ``main pot 12000 to Player 3 (Two pair, queens and threes); side pot 1
    10380 to Player 6 (Two pair, queens and threes)`` as equal hands taking separate pots: the
    kickers that decided it (H-4) are in the line, as ``livetable history`` gives them."""
    import logging
    from types import SimpleNamespace

    from controller.engine.table.settings import TableSettings
    from controller.engine.table.state import TableState
    from controller.simulate import Summary

    record = {"game": "holdem", "hand_record": {"board": ["Qs", "Qd", "3c", "3h", "8s"]},
              "result": {"rake": 0, "hole": {"3": ["Kh", "2c"], "6": ["Jh", "4c"], "1": ["9h", "5c"],
                                             "2": [None, None]},
                         "awards": [{"pot": 0, "amount": 12000, "winners": [3], "eligible": [1, 3, 6],
                                     "hand": "Two pair, queens and threes"},
                                    {"pot": 1, "amount": 10380, "winners": [6], "eligible": [1, 6],
                                     "hand": "Two pair, queens and threes"},
                                    {"pot": 2, "amount": 500, "winners": [2], "eligible": [2], "hand": None}]}}
    orch = SimpleNamespace(state=TableState.new(TableSettings(id="t", seats=6)), events_handled=1)
    with caplog.at_level(logging.INFO, logger="livetable.simulate"):
        Summary()(orch, [fx.HandFinished(hand=7, record=record)])
    line = next(r.getMessage() for r in caplog.records if r.getMessage().startswith("hand 7:"))
    assert line == ("hand 7: main pot 12000 to seat 3 (Two pair, queens and threes, king kicker); "
                    "side pot 1 10380 to seat 6 (Two pair, queens and threes, jack kicker); "
                    "side pot 2 500 to seat 2")
    assert record["result"]["awards"][0]["hand"] == "Two pair, queens and threes"  # the record is not changed


def test_every_key_of_the_summary_is_described_in_the_readme(tmp_path, capsys) -> None:
    """README "Two commands" describes the one-line JSON summary: a newcomer found keys it left
    out (``events``, ``seconds``, ``invariant_errors``, ``journal``, ``devices``,
    ``room.on_table``). Every key of a plain run's summary, and of its ``room``, is named there."""
    import json

    from controller import simulate

    assert simulate.main(["--devices", "none", "--headless", "--quiet", "--hands", "1", "--seats", "3",
                          "--journal", str(tmp_path / "j.sqlite")]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    part = readme[readme.index("one-line JSON summary"):readme.index("bash scripts/run-table --journal")]
    missing = [k for k in [*summary, *summary["room"]] if f"`{k}`" not in part]
    assert not missing, missing
