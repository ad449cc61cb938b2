"""``die_with_parent()`` (drivers/mqtt/broker.py): a child whose parent died *before* the child
set ``PR_SET_PDEATHSIG`` still stops.

Linux sends the parent-death signal only for a parent that dies after the ``prctl``; the room
killed (-9) while it spawned its tables left such a table running for good, its journal held
(the room started again could not open it: ``journal ... is in use by pid``). Here a middle
process forks a child that runs the ``preexec_fn`` only once the middle process is gone; the
child must end by SIGTERM at once instead of living on under another parent.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from drivers.mqtt.broker import die_with_parent

REPO = Path(__file__).resolve().parents[2]

# The middle process: fork a child that waits for the middle to be gone (its pipe closes), then
# runs die_with_parent()'s preexec (made in the middle: the expected parent is the middle) and
# sleeps as a table would run; the middle prints the child's pid and exits at once.
MIDDLE = """
import os, sys, time
from drivers.mqtt.broker import die_with_parent
preexec = die_with_parent()
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(w)
    os.read(r, 1)  # EOF: the middle process is gone
    preexec()
    time.sleep(120)
    os._exit(0)
print(pid, flush=True)
os._exit(0)
"""


@pytest.mark.skipif(die_with_parent() is None, reason="no prctl here")
def test_a_child_whose_parent_died_before_its_prctl_stops() -> None:
    out = subprocess.run([sys.executable, "-c", MIDDLE], capture_output=True, text=True, timeout=60, cwd=REPO,
                         env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert out.returncode == 0, out.stderr
    child = int(out.stdout.split()[0])
    try:
        fd = os.pidfd_open(child)
    except ProcessLookupError:
        return  # already gone
    try:
        gone, _, _ = select.select([fd], [], [], 30)  # readable once the process has ended
        assert gone, "the orphaned child never learnt its parent had died"
    finally:
        os.close(fd)
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_the_expected_parent_alive_the_child_runs(tmp_path: Path) -> None:
    preexec = die_with_parent()
    if preexec is None:
        pytest.skip("no prctl here")
    out = subprocess.run([sys.executable, "-c", "print('ran')"], capture_output=True, text=True, timeout=60,
                         preexec_fn=preexec)
    assert out.returncode == 0 and out.stdout.strip() == "ran"


def test_another_expected_parent_stops_the_child_by_sigterm() -> None:
    preexec = die_with_parent(parent=os.getpid() + 10**6)  # never our pid: "the parent changed"
    if preexec is None:
        pytest.skip("no prctl here")
    out = subprocess.run([sys.executable, "-c", "print('ran')"], capture_output=True, text=True, timeout=60,
                         preexec_fn=preexec)
    assert out.returncode == -signal.SIGTERM and not out.stdout
