"""The seat tablet's pure logic (tablet/js/logic.js), unit tested with node's own test runner.

``node --test tablet/tests/`` holds the tests (A-1 buttons, S-4/S-5 slider and pot-size
amounts, A-3 pre-selections, G-3 discards, formatting); this test runs them so CI does.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed (Debian: apt-get install nodejs); "
                    "the tablet's logic tests need node >= 18 for `node --test`")
def test_tablet_logic_node_tests_pass() -> None:
    """Every test in tablet/tests/ passes under `node --test` (and there are some)."""
    proc = subprocess.run([NODE, "--test", "tablet/tests/"], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    passed = [line for line in out.splitlines() if line.startswith("# pass ")]
    assert passed and int(passed[-1].split()[-1]) >= 20, out[-2000:]


def test_vendored_mqtt_bundle_and_licence_present() -> None:
    """The tablet needs no internet: MQTT.js is vendored with its licence (tablet/vendor)."""
    vendor = REPO / "tablet" / "vendor"
    bundle = (vendor / "mqtt.min.js").read_text(encoding="utf-8")
    assert bundle.startswith('"use strict";var mqtt=')  # the IIFE that defines window.mqtt
    assert "MIT License" in (vendor / "LICENSE-mqtt.md").read_text(encoding="utf-8")
    html = (REPO / "tablet" / "index.html").read_text(encoding="utf-8")
    assert 'src="vendor/mqtt.min.js"' in html
    assert "http://" not in html.replace("http://www.w3.org", "") and "https://" not in html


def test_every_element_app_js_looks_up_exists_in_index_html() -> None:
    """app.js's `$('#id')` look-ups all name an element of index.html (a renamed id fails here)."""
    import re

    app = (REPO / "tablet" / "js" / "app.js").read_text(encoding="utf-8")
    html = (REPO / "tablet" / "index.html").read_text(encoding="utf-8")
    wanted = set(re.findall(r"\$\('#([A-Za-z][\w-]*)", app))
    ids = set(re.findall(r'\sid="([^"]+)"', html))
    assert len(wanted) > 30
    assert wanted - ids == set()
