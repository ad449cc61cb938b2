"""``scripts/run-room`` (issue 19 usability): its options go to ``livetable room simulate`` as
before, and ``--tournament SETTINGS`` (a file after it) runs the room's tournament on real tables,
``livetable room serve`` with every option passed on. The script runs in a copy of the tree whose
``scripts/setup.sh`` and ``.venv/bin/livetable`` only write down how they were called."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    (root / ".venv" / "bin").mkdir(parents=True)
    shutil.copy(REPO / "scripts" / "run-room", root / "scripts" / "run-room")
    log = root / "calls"
    (root / "scripts" / "setup.sh").write_text(f'echo "setup $*" >> {log}\n')
    fake = root / ".venv" / "bin" / "livetable"
    fake.write_text(f'#!/usr/bin/env bash\nfor a in "$@"; do printf "%s|" "$a"; done >> {log}\necho >> {log}\n')
    fake.chmod(0o755)
    return root


def _run(tree: Path, cwd: Path, *argv: str) -> list[str]:
    subprocess.run(["bash", str(tree / "scripts" / "run-room"), *argv], cwd=cwd, check=True, timeout=30)
    return (tree / "calls").read_text().splitlines()


def test_options_still_go_to_room_simulate(tree: Path, tmp_path: Path) -> None:
    assert _run(tree, tmp_path, "--tables", "4", "--hands", "20") == ["setup ", "room|simulate|--tables|4|--hands|20|"]


def test_no_options_run_room_simulate(tree: Path, tmp_path: Path) -> None:
    assert _run(tree, tmp_path) == ["setup ", "room|simulate|"]


def test_the_simulations_tournament_flag_stays_the_simulations(tree: Path, tmp_path: Path) -> None:
    assert _run(tree, tmp_path, "--tournament", "--tables", "2")[-1] == "room|simulate|--tournament|--tables|2|"
    assert _run(tree, tmp_path, "--tables", "2", "--tournament")[-1] == "room|simulate|--tables|2|--tournament|"


def test_tournament_with_a_settings_file_runs_room_serve(tree: Path, tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text("[tournament]\n")
    calls = _run(tree, tmp_path, "--tournament", "t.toml", "--tables", "t1,t2", "--store", "postgresql://room@db/room")
    assert calls == ["setup --room", f"room|serve|--tournament|{tmp_path / 't.toml'}|--tables|t1,t2|--store|"
                               "postgresql://room@db/room|"]  # the file where the caller is
    assert _run(tree, tmp_path, "--tournament=/etc/t.toml", "--tables", "t1,t2", "--store=postgresql://x")[-2:] == [
        "setup --room", "room|serve|--tournament=/etc/t.toml|--tables|t1,t2|--store=postgresql://x|"]


def test_every_path_option_is_taken_from_where_the_caller_is(tree: Path, tmp_path: Path) -> None:
    """Newcomer finding F4: not only --tournament FILE; also files that do not exist yet (a new
    store), in both the ``--opt FILE`` and ``--opt=FILE`` forms; absolute paths, URLs and other
    options' values are passed on as given."""
    here = tmp_path / "myroom"
    here.mkdir()
    calls = _run(tree, here, "--tournament", "t.toml", "--tables", "t1,t2", "--store", "rel.sqlite",
                 "--provision-dir", "room", "--floor-logins=floor-logins.json", "--password-file", "pw/room.pw",
                 "--broker-pid-file", "/run/m.pid", "--entries-file=entries.csv", "--entries", "10")
    assert calls == ["setup ", "|".join([
        "room", "serve", "--tournament", f"{here}/t.toml", "--tables", "t1,t2", "--store", f"{here}/rel.sqlite",
        "--provision-dir", f"{here}/room", f"--floor-logins={here}/floor-logins.json", "--password-file",
        f"{here}/pw/room.pw", "--broker-pid-file", "/run/m.pid", f"--entries-file={here}/entries.csv",
        "--entries", "10", ""])]
    assert _run(tree, here, "--tournament=t.toml", "--tables", "t1", "--store", "postgresql://r@db/room")[-2:] == [
        "setup --room", f"room|serve|--tournament={here}/t.toml|--tables|t1|--store|postgresql://r@db/room|"]
    assert _run(tree, here, "--tournament", "--tournament-config", "c.toml", "--dir", "run", "--tables", "2")[-1] == (
        f"room|simulate|--tournament|--tournament-config|{here}/c.toml|--dir|{here}/run|--tables|2|")


def test_local_runs_room_serve_local_with_the_other_options(tree: Path, tmp_path: Path) -> None:
    """Newcomer finding F2: ``--local`` (anywhere) runs ``livetable room serve-local``: brokers,
    room and tables on this machine; the flag itself is not passed on."""
    calls = _run(tree, tmp_path, "--tournament", "t.toml", "--local", "--tables", "t1,t2", "--dir", "run")
    assert calls[-1] == f"room|serve-local|--tournament|{tmp_path}/t.toml|--tables|t1,t2|--dir|{tmp_path}/run|"


def test_local_without_a_settings_file_is_refused(tree: Path, tmp_path: Path) -> None:
    out = subprocess.run(["bash", str(tree / "scripts" / "run-room"), "--tournament", "--local", "--tables", "2"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert out.returncode == 2 and "--local goes with --tournament SETTINGS.toml" in out.stderr
    assert not (tree / "calls").exists()  # refused before setting up or running anything


def test_help_says_which_files_a_run_without_local_creates_and_points_to_local(tree: Path, tmp_path: Path) -> None:
    """Newcomer finding: ``--tournament FILE --tables t1,t2`` without ``--local``, as root, makes
    /etc/livetable/room/floor-logins.json and /var/lib/livetable/room.sqlite; ``--help`` says so
    before anything is set up or run."""
    for flag in ("--help", "-h"):
        out = subprocess.run(["bash", str(tree / "scripts" / "run-room"), "--tournament", "t.toml", flag],
                             cwd=tmp_path, capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out
        words = " ".join(out.stdout.split())
        for said in ("/etc/livetable/room/floor-logins.json", "/var/lib/livetable/room.sqlite", "add --local",
                     "--floor-logins FILE and --store FILE"):
            assert said in words, out.stdout
        assert not out.stdout.startswith("#!") and "set -euo" not in out.stdout
        assert not (tree / "calls").exists()  # nothing set up or run
