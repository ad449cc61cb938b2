"""kill -9 ``livetable run`` (the emulator and four tablets outlive it): nothing lost, nothing
left waiting for the floor (issue 16 item 3). See ``tests/controller/killrun.py``.

On the landed main every resumed hand that needed another card paused with
``no-verified-deck`` (the restarted driver had no proven deck) and waited for the floor.
"""

from __future__ import annotations

import os

import pytest
from killrun import kill_loop  # tests/controller is on sys.path (no __init__.py: pytest prepends it)
from localbroker import needs_broker


def _check(report) -> None:
    print("\n" + report.line())
    assert report.problems == [], report.problems[:5]
    assert report.stuck == [], report.stuck
    assert report.floor_faults == [], report.floor_faults[:5]
    assert sum(report.recoveries.values()) >= report.kills // 2


@needs_broker
def test_kill_loop_on_run_resumes_or_voids_and_loses_nothing(tmp_path):
    report = kill_loop(tmp_path, int(os.environ.get("LIVETABLE_RUN_KILLS", "8")), seed=16)
    _check(report)
    assert report.hands >= 1


@pytest.mark.slow
@pytest.mark.timeout(3600)
@needs_broker
@pytest.mark.skipif(not os.environ.get("LIVETABLE_RUN_KILLS_SLOW"),
                    reason="100+ kills take 10 minutes: LIVETABLE_RUN_KILLS_SLOW=100 runs them "
                           "(or bench/bench_kill_run.py)")
def test_kill_loop_on_run_many_times(tmp_path):
    report = kill_loop(tmp_path, int(os.environ["LIVETABLE_RUN_KILLS_SLOW"]), seed=1616)
    _check(report)
    assert report.resumed > 0, "no kill landed in a hand that could resume: the test proves little"
