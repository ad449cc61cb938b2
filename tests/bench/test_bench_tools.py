"""The benches' own tools (issue 21): bench/all.py's one-bench update of docs/performance.md,
and bench_mqtt's native anchor (bench/native/mqtt_rtt.c, built as the bench builds it, run
against a private broker from the repo's config)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

import _native  # noqa: E402
import bench_mqtt  # noqa: E402

spec = importlib.util.spec_from_file_location("bench_all", REPO / "bench" / "all.py")
assert spec is not None and spec.loader is not None
bench_all = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench_all)


def _run(name: str, last: str, out: str) -> dict:
    return {"name": name, "cmd": f".venv/bin/python bench/{name}", "out": out, "err": "", "last": last,
            "load": "1.00 1.00 1.00 -> 1.00 1.00 1.00", "seconds": 3.0}


def test_update_replaces_one_bench_and_keeps_the_others() -> None:
    old = bench_all._document([
        _run("bench_table.py", "table: anchor none; goal p99 <= 250 us; ratio 0.71", " 10 seats, 1500 hands, 10.0 players\n"
             "   cpu median 26.6 us, p99 177.5 us, max 906 us\n"),
        _run("bench_mqtt.py", "mqtt: anchor paho p99 7.87 ms; goal p99 <= 10 ms; ratio p99/goal 1.11", "old mqtt output\n"),
    ], False, ["bench_mqtt.py"])
    new = bench_all._document([_run("bench_mqtt.py", "mqtt: anchor libmosquitto p99 0.9 ms; goal p99 <= 10 ms; "
                                    "ratio p99/goal 0.95", "new mqtt output\n")], False)
    doc = bench_all.splice(old, new, ["bench_mqtt.py"])
    assert "libmosquitto p99 0.9 ms" in doc and "new mqtt output" in doc
    assert "paho p99 7.87" not in doc and "old mqtt output" not in doc
    # the other bench's row, detail table and output stay, once each
    assert doc.count("| bench_table.py |") == 1 and doc.count("| bench_mqtt.py |") == 1
    assert "| 10 | 1500 | 10.0 | cpu | 26.6 us | 177.5 us | 906 us | 0.71 |" in doc
    assert doc.count("### bench_table.py") == 1 and doc.count("### bench_mqtt.py") == 1
    assert doc.index("| bench_table.py |") < doc.index("| bench_mqtt.py |")
    assert doc.startswith(old.split("\n")[0]) and f"\n{bench_all.UPDATED}bench_mqtt.py on " in doc
    # a second update of another bench keeps the first one's note, and adds a bench not there
    again = bench_all.splice(doc, bench_all._document([_run("bench_hands.py", "hands: anchor x; goal y; ratio 2x",
                                                            "hands output\n")], False), ["bench_hands.py"])
    note = next(ln for ln in again.splitlines() if ln.startswith(bench_all.UPDATED))
    assert "bench_mqtt.py on " in note and "bench_hands.py on " in note
    assert again.count("| bench_hands.py |") == 1 and "hands output" in again and "new mqtt output" in again


def test_a_quick_run_leaves_the_record_alone_and_says_where_it_wrote(tmp_path: Path, monkeypatch, capsys) -> None:
    """``all.py --quick`` is a trial: without ``--out`` it wrote its quick figures over the
    tracked docs/performance.md (a newcomer's report). It writes a file of the system's
    temporary folder instead and names it; ``--out`` still chooses. No bench runs here
    (``--only`` with none): the repo's own record is a copy in ``tmp_path``."""
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    record = root / "docs" / "performance.md"
    record.write_text("the record\n")
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(bench_all, "ROOT", root)
    monkeypatch.setattr(bench_all.tempfile, "tempdir", str(temp))
    assert bench_all.main(["--quick", "--only"]) == 0
    assert record.read_text() == "the record\n"
    written = list(temp.glob("performance-quick-*.md"))
    assert len(written) == 1 and "bench/all.py --quick" in written[0].read_text()
    assert f"wrote {written[0]} (--quick: a trial" in capsys.readouterr().out
    mine = tmp_path / "mine.md"
    assert bench_all.main(["--quick", "--only", "--out", str(mine)]) == 0
    assert "bench/all.py --quick" in mine.read_text() and record.read_text() == "the record\n"
    assert bench_all.main(["--only"]) == 0  # not quick: the record itself
    assert "bench/all.py`" in record.read_text()


def test_bench_run_removes_its_work_folder_unless_kept(tmp_path: Path) -> None:
    """bench_run.py left /tmp/bench-run-XXXX behind (51 MB even in a quick run; a newcomer's
    report): it is removed at the end, as bench_journal's, and ``--keep`` keeps it and names
    it. Only the hand steps run here (two hands), in a temporary folder of the test's."""
    import json

    def run(*extra: str) -> dict:
        out = subprocess.run([sys.executable, str(REPO / "bench" / "bench_run.py"), "--skip-memory",
                              "--skip-ready", "--step-hands", "2", *extra], cwd=REPO, capture_output=True,
                             text=True, timeout=120, env={**os.environ, "TMPDIR": str(tmp_path)})
        assert out.returncode == 0, out.stderr[-2000:]
        return json.loads(next(ln for ln in out.stdout.splitlines() if ln.startswith("{")))

    assert run()["dir"] is None
    assert list(tmp_path.iterdir()) == []  # nothing left: neither its folder nor the steps' journal
    kept = run("--keep")["dir"]
    assert Path(kept).parent == tmp_path and Path(kept).name.startswith("bench-run-")
    assert [p.name for p in tmp_path.iterdir()] == [Path(kept).name] and (Path(kept) / "steps.sqlite").exists()


@pytest.mark.broker
def test_native_anchor_round_trips_through_the_tables_broker(tmp_path: Path) -> None:
    if not Path("/usr/include/mosquitto.h").exists():
        pytest.skip("libmosquitto-dev is not installed (bash scripts/setup.sh --bench installs it)")
    from drivers.mqtt.broker import BrokerProcess
    from drivers.mqtt.provision import provision

    exe, how = _native.build_program("mqtt_rtt.c", ("mosquitto", "pthread"), build_dir=str(tmp_path / "native"))
    assert exe.exists() and "mqtt_rtt.c" in how
    again, how = _native.build_program("mqtt_rtt.c", ("mosquitto", "pthread"), build_dir=str(tmp_path / "native"))
    assert again == exe and "built earlier" in how
    work = tmp_path / "broker"
    work.mkdir()
    provision(work, "t1", 2)
    passwords = bench_mqtt.add_bench_logins(work)
    with BrokerProcess(work) as broker:
        env = {**os.environ, "MQTT_RTT_PING_USER": "bench-nping", "MQTT_RTT_PING_PASS": passwords["bench-nping"],
               "MQTT_RTT_ECHO_USER": "bench-necho", "MQTT_RTT_ECHO_PASS": passwords["bench-necho"]}
        out = subprocess.run([str(exe), "127.0.0.1", str(broker.mqtt_port), "5", "80", "3000"], env=env,
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        lines = out.stdout.split("\n")
        assert lines[0] == "ready"
        rtts = [float(ln.split()[1]) for ln in lines[1:] if ln.startswith("rtt_us ")]
        assert len(rtts) == 5 and all(r > 0 for r in rtts)
        # a wrong password: the broker refuses it, and mqtt_rtt says so and fails
        bad = subprocess.run([str(exe), "127.0.0.1", str(broker.mqtt_port), "1", "80", "3000"],
                             env={**env, "MQTT_RTT_PING_PASS": "wrong"}, capture_output=True, text=True, timeout=60)
        assert bad.returncode == 1 and "refused" in bad.stderr


def test_build_failure_is_a_runtime_error_naming_the_cause(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="gcc (failed|could not run)"):
        _native.build_program("mqtt_rtt.c", ("no_such_library_here",), build_dir=str(tmp_path))


@pytest.mark.broker
def test_bench_mqtt_times_actions_with_each_tablet_in_a_process_of_its_own(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # issue 21: the tablets are processes of their own (the bench's own process held ten paho
    # threads and timed its GIL); a short real run through the broker, the controller and the
    # journal times every action, one anchor round trip after each; with --segments each
    # action's time is split where it went
    assert bench_mqtt.main(["--actions", "12", "--seats", "3", "--native-dir", str(tmp_path),
                            "--segments"]) == 0 or pytest.fail(capsys.readouterr().err)
    out = [ln for ln in capsys.readouterr().out.strip().split("\n") if not ln.startswith("native anchor:")]
    assert out[0].startswith("bench_mqtt: 12 actions in ") and "at 3 seats" in out[0]
    assert "a process per tablet" in out[1]
    assert out[-1].startswith("mqtt: anchor ") and "ratio p99/goal" in out[-1]
    split = next(i for i, ln in enumerate(out) if ln.startswith("  where the time went ("))
    assert out[split].startswith("  where the time went (12 of 12 actions joined")
    legs = out[split + 1:split + 1 + len(bench_mqtt.SEGMENTS)]
    assert [ln.split(":")[0].strip() for ln in legs] == list(bench_mqtt.SEGMENTS)
    lows = [float(ln.split("median ")[1].split(" ms")[0]) for ln in legs]
    assert all(m >= 0 for m in lows), legs


def test_bench_mqtt_splits_an_action_where_its_time_went() -> None:
    # the tablet's (seat, seq acted on, sent, arrived) joined with the controller's times: the
    # action read for that seat and seq, the loop step in which the first newer state was
    # handed over (an older state, another seat's action, and a state handed over before the
    # action came are not it)
    times = [["in", 2, 7, 10.0010], ["state", 7, 10.0005, 10.0006], ["step", 10.0000, 10.0007],
             ["in", 3, 7, 10.0012], ["step", 10.0020, 10.0050], ["state", 8, 10.0040, 10.0043],
             ["state", 9, 10.0060, 10.0061]]
    parts = bench_mqtt.split_segments([(3, 7, 10.0000, 10.0070), (4, 7, 10.0, 10.01)], times)
    assert len(parts) == 1  # seat 4's action never reached the controller: left out
    assert [round(x, 3) for x in parts[0]] == [1.2, 0.8, 2.0, 3.0]
    assert round(sum(parts[0]), 3) == 7.0  # the whole: sent 10.0000 -> arrived 10.0070


def test_bench_room_feeds_the_room_the_journal_as_appended(tmp_path):
    """bench_room read the journal's rows raw: since journal format 3 (short names) the room
    it measured applied no table event ("unknown kind None"), one burst for five hands (the
    second breaker). It reads them through ``payload_of``, as the room's link does."""
    import bench_room

    _base, recs = bench_room.journal(tmp_path, 3, 1)
    table = [r["payload"] for r in recs if r["kind"] == "table"]
    assert table and all(isinstance(p.get("kind"), str) for p in table)
    assert len(bench_room.bursts(recs)) == 4  # the seating, then one a hand
