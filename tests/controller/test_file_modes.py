"""Hole cards on disk are for the livetable user and group only (issue 16, 7).

The journal, its ``-wal`` and the hand files hold every hand's hole cards. Before issue 16
they were 0644 (no ``UMask=`` in the unit) and ``scripts/install-pi.sh`` made
``/var/lib/livetable`` 0751. Now: files 0640 or tighter, folders 0750 or tighter, the unit's
``StateDirectoryMode`` and the installer agree, and Mosquitto still reaches its password
and ACL files and its store (moved out of ``/var/lib/livetable`` to its own folder).

The installer is run for real, as an upgrade of an older install, with its absolute paths
moved into a temporary folder and the commands that need root or systemd replaced by stubs
that record their arguments (``install`` runs, without its owner and group). Who may read
what is then worked out from the modes on disk and the owners the installer asked for.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
UNITS = sorted((REPO / "systemd").glob("*.service"))
CONTROLLER_UNIT = REPO / "systemd" / "livetable.service"
INSTALLER = REPO / "scripts" / "install-pi.sh"

# A file may be at most rw-r----- and a folder rwxr-x---: no bit outside these.
FILE_FORBIDDEN, DIR_FORBIDDEN = 0o137, 0o027


def unit_settings(unit: Path) -> dict[str, str]:
    """The unit's ``Key=value`` settings (the last one wins, as systemd reads them)."""
    out = {}
    for line in unit.read_text().splitlines():
        if "=" in line and not line.lstrip().startswith(("#", ";", "[")):
            key, _, value = line.partition("=")
            out[key.strip()] = value.strip()
    return out


def unit_umask(unit: Path) -> int:
    """The unit's ``UMask=`` (systemd's default 0022 when it sets none)."""
    return int(unit_settings(unit).get("UMask", "0022"), 8)


@pytest.mark.parametrize("unit", UNITS, ids=[u.name for u in UNITS])
def test_every_unit_creates_files_0640_and_folders_0750_at_most(unit: Path) -> None:
    assert unit_umask(unit) & 0o027 == 0o027


def test_the_controllers_state_folder_is_0750_in_the_unit_and_the_installer() -> None:
    mode = int(unit_settings(CONTROLLER_UNIT)["StateDirectoryMode"], 8)
    assert mode & DIR_FORBIDDEN == 0
    assert f"-m {mode:04o} /var/lib/livetable " in INSTALLER.read_text()
    assert "chmod 0751" not in INSTALLER.read_text()


WRITE = textwrap.dedent("""
    import json, os, sys
    from pathlib import Path
    os.umask(int(sys.argv[2], 8))
    from controller.journal import Journal
    from controller.compaction import write_hand_files
    state = Path(sys.argv[1])
    journal = Journal(state / "journal.sqlite")  # kept open: its -wal and -shm exist
    journal.append("hand_started", {"hand": 1, "cards": {"3": ["As", "Kd"]}}, 1.0)
    hands = state / "hands"
    hands.mkdir(parents=True, exist_ok=True)  # as the history writer makes it
    write_hand_files(hands, 1, {"hand": 1, "seats": [{"seat": 3, "cards": ["As", "Kd"]}]})
    modes = {str(p.relative_to(state)): [p.is_dir(), p.stat().st_mode & 0o777] for p in state.rglob("*")}
    print(json.dumps(modes))
""")


def written_modes(state: Path, umask: int) -> dict[str, tuple[bool, int]]:
    """Write a journal event and a hand's files under ``umask`` (a process of their own:
    the umask is the whole process's); return ``{path: (is_dir, mode)}`` below ``state``."""
    res = subprocess.run([sys.executable, "-c", WRITE, str(state), f"{umask:o}"], cwd=REPO,
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return {k: (v[0], v[1]) for k, v in json.loads(res.stdout.splitlines()[-1]).items()}


def test_the_journal_its_wal_and_the_hand_files_are_0640_under_the_units_umask(tmp_path: Path) -> None:
    modes = written_modes(tmp_path / "state", unit_umask(CONTROLLER_UNIT))
    assert {"journal.sqlite", "journal.sqlite-wal", "hands", "hands/hand-000001.json"} <= set(modes)
    loose = {p: f"{m:o}" for p, (is_dir, m) in modes.items() if m & (DIR_FORBIDDEN if is_dir else FILE_FORBIDDEN)}
    assert loose == {}


def test_hand_files_are_0640_whatever_the_umask(tmp_path: Path) -> None:
    modes = written_modes(tmp_path / "state", 0o022)
    hand_files = {p: m for p, (is_dir, m) in modes.items() if p.startswith("hands/") and not is_dir}
    assert hand_files and all(m == 0o640 for m in hand_files.values()), hand_files


def test_the_journal_its_wal_and_mark_are_0640_whatever_the_umask(tmp_path: Path) -> None:
    modes = written_modes(tmp_path / "state", 0o022)
    journal = {p: m for p, (is_dir, m) in modes.items() if p.startswith("journal.sqlite")}
    assert {"journal.sqlite", "journal.sqlite-wal"} <= set(journal)
    assert all(m & FILE_FORBIDDEN == 0 for m in journal.values()), {p: f"{m:o}" for p, m in journal.items()}


# -- the installer --------------------------------------------------------------------------

STUB = """#!/bin/bash
echo "$(basename "$0") $*" >> "$STUB_LOG"
case "$(basename "$0")" in
  id) [ "$1" = -u ] && echo 0; exit 0 ;;
  install)
    args=()
    while [ $# -gt 0 ]; do case "$1" in -o|-g) shift 2 ;; *) args+=("$1"); shift ;; esac; done
    exec /usr/bin/install "${args[@]}" ;;
esac
exit 0
"""
STUBBED = ("id", "getent", "groupadd", "useradd", "usermod", "systemctl", "chgrp", "chown", "install")


def relocate(text: str, root: Path) -> str:
    return (text.replace("/opt/livetable", f"{root}/opt/livetable")
                .replace("/etc/", f"{root}/etc/").replace("/var/lib/", f"{root}/var/lib/"))


#: The project's packages (pyproject.toml's packages.find): the installer compiles their bytecode.
PACKAGES = ("controller", "drivers", "display", "vision", "room")


def run_installer(root: Path) -> list[list[str]]:
    """Run the installer with its paths under ``root``; return the stubbed commands it ran."""
    here = root / "opt" / "livetable"
    (here / "scripts").mkdir(parents=True)
    (here / "scripts" / "install-pi.sh").write_text(relocate(INSTALLER.read_text(), root))
    (here / "scripts" / "setup.sh").write_text("exit 0\n")
    for package in PACKAGES:  # a module in each of the project's packages, for its bytecode
        (here / package).mkdir()
        (here / package / "__init__.py").write_text(f'"""{package}"""\n')
    (here / "config").mkdir()
    (here / "config" / "table.example.toml").write_bytes((REPO / "config" / "table.example.toml").read_bytes())
    (here / "systemd").mkdir()
    for unit in UNITS:
        (here / "systemd" / unit.name).write_bytes(unit.read_bytes())
    (here / ".venv" / "bin").mkdir(parents=True)
    (here / ".venv" / "bin" / "python").symlink_to(sys.executable)
    (here / ".venv" / "bin" / "livetable").symlink_to(Path(sys.executable).with_name("livetable"))
    stubs = root / "stubs"
    stubs.mkdir()
    for name in STUBBED:
        (stubs / name).write_text(STUB)
        (stubs / name).chmod(0o755)
    log = root / "commands.log"
    env = {**os.environ, "PATH": f"{stubs}:{os.environ['PATH']}", "STUB_LOG": str(log)}
    res = subprocess.run(["bash", str(here / "scripts" / "install-pi.sh")], env=env, capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    return [line.split() for line in log.read_text().splitlines()]


def owners(commands: list[list[str]], known: dict[Path, tuple[str, str]]) -> dict[Path, tuple[str, str]]:
    """``{path: (owner, group)}`` as the installer's install/chown/chgrp calls left them."""
    out = dict(known)

    def paths_of(args: list[str], recursive: bool) -> list[Path]:
        found = []
        for a in args:
            p = Path(a)
            found.append(p)
            if recursive and p.is_dir():
                found += list(p.rglob("*"))
        return found

    for cmd in commands:
        name, args = cmd[0], cmd[1:]
        if name == "install":
            user = args[args.index("-o") + 1] if "-o" in args else "root"
            group = args[args.index("-g") + 1] if "-g" in args else "root"
            rest, skip = [], False
            for a in args:
                if skip:
                    skip = False
                elif a in ("-o", "-g", "-m"):
                    skip = True
                elif not a.startswith("-"):
                    rest.append(a)
            targets = rest if "-d" in args else rest[-1:]
            for p in targets:
                out[Path(p)] = (user, group)
        elif name in ("chgrp", "chown"):
            recursive = "-R" in args
            args = [a for a in args if a != "-R"]
            who, files = args[0], args[1:]
            for p in paths_of(files, recursive):
                user, group = out.get(p, ("root", "root"))
                if name == "chgrp":
                    group = who
                else:
                    user, _, g = who.partition(":")
                    group = g or group
                out[p] = (user, group)
    return out


def can(user: str, path: Path, want: int, root: Path, own: dict[Path, tuple[str, str]]) -> bool:
    """Whether ``user`` (in the group of its own name only) may reach ``path`` and have the
    ``want`` bits (4 read, 2 write) on it: x on every folder below ``root`` (the fake /)."""

    def allowed(p: Path, bits: int) -> bool:
        mode = p.stat().st_mode & 0o777
        o, g = own.get(p, ("root", "root"))
        shift = 6 if o == user else 3 if g == user else 0
        return (mode >> shift) & bits == bits

    chain = [p for p in [*reversed(path.parents), path] if root in p.parents]  # below the fake /
    return all(allowed(p, 1) for p in chain[:-1]) and allowed(path, want)


def test_the_installer_keeps_hole_cards_from_other_accounts_and_mosquitto_reaches_its_files(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    state = root / "var" / "lib" / "livetable"
    # An older install: 0751, files 0644, the broker's store inside.
    (state / "hands").mkdir(parents=True)
    (state / "mosquitto").mkdir()
    state.chmod(0o751)
    for name in ("journal.sqlite", "journal.sqlite-wal", "hands/hand-1.json", "hands/hand-1.phh"):
        (state / name).write_text("hole cards")
        (state / name).chmod(0o644)
    (state / "mosquitto" / "mosquitto.db").write_text("retained private views")
    (state / "mosquitto" / "mosquitto.db").chmod(0o600)
    known = {p: ("livetable", "livetable") for p in [state, *state.rglob("*")]}
    known[state / "mosquitto" / "mosquitto.db"] = ("mosquitto", "mosquitto")

    commands = run_installer(root)
    own = owners(commands, known)
    own[root / "var" / "lib" / "mosquitto" / "mosquitto.db"] = ("mosquitto", "mosquitto")  # moved, kept

    unit_mode = int(unit_settings(CONTROLLER_UNIT)["StateDirectoryMode"], 8)
    assert state.stat().st_mode & 0o777 == unit_mode
    loose = {str(p): f"{p.stat().st_mode & 0o777:o}" for p in state.rglob("*")
             if p.stat().st_mode & (DIR_FORBIDDEN if p.is_dir() else FILE_FORBIDDEN)}
    assert loose == {}
    secrets = [state / n for n in ("journal.sqlite", "journal.sqlite-wal", "hands/hand-1.json", "hands/hand-1.phh")]
    for f in secrets:
        assert can("livetable", f, 6, root, own)
        assert not can("guest", f, 4, root, own) and not can("mosquitto", f, 4, root, own)

    # The broker: its store moved to its own folder, the one its config names.
    conf = {ln.split()[0]: ln.split()[1:] for ln in (REPO / "mosquitto" / "livetable.conf").read_text().splitlines()
            if ln.strip() and not ln.startswith("#")}
    store = Path(relocate(conf["persistence_location"][0], root))
    assert not (state / "mosquitto").exists() and (store / "mosquitto.db").read_text() == "retained private views"
    assert can("mosquitto", store, 7, root, own) and can("mosquitto", store / "mosquitto.db", 6, root, own)
    assert not can("guest", store / "mosquitto.db", 4, root, own)
    assert not can("livetable", store / "mosquitto.db", 4, root, own)
    logins = root / "etc" / "livetable" / "mosquitto"
    for f in ("passwd", "acl"):
        assert can("mosquitto", logins / f, 4, root, own), f
    assert not can("guest", logins / "passwd", 4, root, own)
    assert not can("guest", logins / "credentials" / "t1.json", 4, root, own)
    assert can("livetable", root / "etc" / "livetable" / "mqtt-password", 4, root, own)
    assert not can("guest", root / "etc" / "livetable" / "mqtt-password", 4, root, own)
    assert oct(stat.S_IMODE((root / "etc" / "livetable" / "mqtt-password").stat().st_mode)) == "0o640"


def test_the_installer_compiles_the_projects_bytecode(tmp_path: Path) -> None:
    """The service runs as `livetable` with /opt read-only (ProtectSystem=strict): Python
    cannot write its bytecode there, so without the installer's compile every start compiled
    every module from source (READY 0.78 s instead of 0.50 s at 1k hands, issue 21)."""
    unit = (REPO / "systemd" / "livetable.service").read_text()
    assert "ProtectSystem=strict" in unit and "/opt/livetable" in unit  # why it must be done at install
    run_installer(tmp_path)
    here = tmp_path / "opt" / "livetable"
    tag = sys.implementation.cache_tag
    missing = [p for p in PACKAGES if not (here / p / "__pycache__" / f"__init__.{tag}.pyc").is_file()]
    assert not missing, f"no bytecode compiled for {missing}"
