"""The repo's mosquitto/livetable.conf and how tests and the bench run it (issue 7)."""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from drivers.mqtt.broker import CONFIG, MOSQUITTO, REPO, BrokerError, BrokerProcess, render_config


def settings(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def test_the_repo_config_has_mqtt_and_websockets_listeners_auth_acl_and_persistence() -> None:
    lines = settings(CONFIG.read_text())
    keys = {line[0]: line[1:] for line in lines}
    listeners = [(line, nxt) for line, nxt in zip(lines, lines[1:]) if line[0] == "listener"]
    assert [nxt for _, nxt in listeners] == [["protocol", "mqtt"], ["protocol", "websockets"]]
    assert keys["per_listener_settings"] == ["false"] and keys["persistence"] == ["true"]
    assert "password_file" in keys and "acl_file" in keys


def listener_blocks(text: str) -> list[list[list[str]]]:
    """The settings of each ``listener`` block, in order (each starts with its listener line)."""
    blocks: list[list[list[str]]] = []
    for line in settings(text):
        if line[0] == "listener":
            blocks.append([])
        if blocks:
            blocks[-1].append(line)
    return blocks


def test_every_listener_ties_client_ids_to_logins_and_refuses_anonymous_clients(tmp_path: Path) -> None:
    """Issue 16: ``use_username_as_clientid`` is a listener setting in Mosquitto 2.0 (set
    before the first listener it configures a default listener on 1883 instead), so each
    listener must carry it, also as rendered for the tests and the bench."""
    rendered = render_config(CONFIG.read_text(), mqtt_port=1111, ws_port=2222, passwd=tmp_path / "pw",
                             acl=tmp_path / "acl", data_dir=tmp_path / "data", log_file=tmp_path / "log")
    for text in (CONFIG.read_text(), rendered):
        blocks = listener_blocks(text)
        assert len(blocks) == 2
        assert all(["use_username_as_clientid", "true"] in block for block in blocks)
        keys = {line[0]: line[1:] for line in settings(text)}
        assert keys["allow_anonymous"] == ["false"]


def test_render_swaps_only_ports_paths_and_log(tmp_path: Path) -> None:
    text = CONFIG.read_text()
    out = render_config(text, mqtt_port=1111, ws_port=2222, passwd=tmp_path / "pw", acl=tmp_path / "acl",
                        data_dir=tmp_path / "data", log_file=tmp_path / "log")
    rendered = settings(out)
    assert ["listener", "1111", "127.0.0.1"] in rendered and ["listener", "2222", "127.0.0.1"] in rendered
    assert ["acl_file", str(tmp_path / "acl")] in rendered
    assert ["persistence_location", str(tmp_path / "data") + "/"] in rendered
    kept = [line for line in settings(text) if line[0] not in
            ("listener", "password_file", "acl_file", "persistence_location", "log_dest")]
    assert all(line in rendered for line in kept)


def test_render_refuses_a_config_without_both_listeners(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        render_config("listener 1883\nprotocol mqtt\n", mqtt_port=1, ws_port=2, passwd=tmp_path, acl=tmp_path,
                      data_dir=tmp_path, log_file=tmp_path / "log")


def test_a_broker_that_cannot_start_says_why(tmp_path: Path) -> None:
    bad = tmp_path / "bad.conf"
    bad.write_text(CONFIG.read_text() + "no_such_option 1\n")
    with pytest.raises(BrokerError):
        BrokerProcess(tmp_path, config=bad).start(timeout=5)


OWNER = """
import sys
from pathlib import Path
from drivers.mqtt.provision import provision
from drivers.mqtt.broker import BrokerProcess
d = Path(sys.argv[1]); provision(d, 't1', 2)
b = BrokerProcess(d, own_session=True).start()
print(b._proc.pid, flush=True)
sys.stdin.read()
"""


@pytest.mark.broker
@pytest.mark.skipif(not hasattr(os, "pidfd_open") or shutil.which("mosquitto") is None and not Path(MOSQUITTO).exists(),
                    reason="needs Linux pidfd_open and mosquitto")
def test_a_broker_in_its_own_session_misses_the_terminals_ctrl_c_and_dies_with_its_owner(tmp_path: Path) -> None:
    """``livetable try-tablet`` stops its table before its broker, so a terminal's Ctrl-C
    must not reach the broker; and an owner killed with SIGKILL leaves no broker behind."""
    owner = subprocess.Popen([sys.executable, "-c", OWNER, str(tmp_path)], cwd=REPO, text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert owner.stdout is not None
        pid = int(owner.stdout.readline())
        assert os.getsid(pid) == pid != os.getsid(owner.pid)  # not in the terminal's process group
        fd = os.pidfd_open(pid)
        try:
            owner.kill()
            owner.wait(10)
            readable, _, _ = select.select([fd], [], [], 10)  # readable once the broker has exited
            if not readable:
                os.kill(pid, signal.SIGTERM)  # leave no broker behind when failing
            assert readable, "the broker outlived its SIGKILLed owner"
        finally:
            os.close(fd)
    finally:
        if owner.poll() is None:
            owner.kill()
            owner.wait(10)
