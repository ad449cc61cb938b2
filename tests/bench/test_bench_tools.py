"""The benches' own tools (issue 21): bench_mqtt's native anchor (bench/native/mqtt_rtt.c,
built as the bench builds it, run against a private broker from the repo's config)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

import _native  # noqa: E402
import bench_mqtt  # noqa: E402



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
