"""Fixtures for the room service (issue 17): stores on both databases, simulated journals.

``store_url`` runs a test on SQLite (a file in the test's folder) and on PostgreSQL (a
database ``room_test_<random>`` made for this test session on 127.0.0.1:5432 by the
``livetable`` role ``scripts/setup.sh --test`` makes, or ``$LIVETABLE_TEST_PG``, and dropped
at its end; each test starts from an empty schema). PostgreSQL tests are skipped, with the
reason, where none answers (``scripts/setup.sh`` starts one).

Tests marked ``slow`` (the 200-hand room, 50 partitions and 50 kill -9) run only with
``-m slow`` or ``LIVETABLE_SLOW=1`` (tests/conftest.py).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
PG_ADMIN = os.environ.get("LIVETABLE_TEST_PG", "postgresql://livetable:livetable@127.0.0.1:5432/postgres")


def _pg_admin() -> Any:
    import psycopg

    return psycopg.connect(PG_ADMIN, autocommit=True, connect_timeout=3)


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str]:
    """A PostgreSQL database of this test session (its URL); dropped at the end."""
    try:
        admin = _pg_admin()
    except Exception as exc:
        pytest.skip(f"PostgreSQL does not answer at {PG_ADMIN} ({exc}); scripts/setup.sh starts one")
    name = f"room_test_{secrets.token_hex(4)}"
    admin.execute(f"CREATE DATABASE {name}")
    url = PG_ADMIN.rsplit("/", 1)[0] + "/" + name
    try:
        yield url
    finally:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.close()


def _empty_pg(url: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP SCHEMA public CASCADE")
        conn.execute("CREATE SCHEMA public")


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty room store's URL, on SQLite and on PostgreSQL."""
    if request.param == "sqlite":
        return str(tmp_path / "room.sqlite")
    url = request.getfixturevalue("pg_database")
    _empty_pg(url)
    return url


def need_mosquitto() -> None:
    """Skip when Mosquitto is not installed."""
    if shutil.which("mosquitto") is None and not Path("/usr/sbin/mosquitto").exists():
        pytest.skip("mosquitto is not installed (scripts/setup.sh installs it)")


def run_simulate(workdir: Path, *, hands: int, seed: int, table: str = "sim") -> dict[str, Any]:
    """Play ``hands`` hands with ``livetable simulate --devices none`` into ``workdir``;
    return its summary (the journal is ``workdir/journal.sqlite``, hands in ``workdir/hands``)."""
    out = subprocess.run(
        [sys.executable, "-m", "controller.cli", "simulate", "--hands", str(hands), "--headless",
         "--devices", "none", "--quiet", "--seed", str(seed), "--table", table,
         "--journal", str(workdir / "journal.sqlite"), "--history-dir", str(workdir / "hands")],
        capture_output=True, text=True, timeout=120, cwd=str(REPO), check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """One simulated table's journal of 8 hands (shared by the store tests: read only)."""
    d = tmp_path_factory.mktemp("played")
    return d, run_simulate(d, hands=8, seed=1717)
