"""The room store's schema, as numbered migrations applied in order (issue 17).

Why not Alembic: the room store speaks plain SQL through the DB-API drivers the project
already uses (``sqlite3`` and psycopg 3), and Alembic needs SQLAlchemy's engine and its
migration environment to run. The part of Alembic the room needs is small and standard:
a version table, numbered steps applied once, in order, each in its own transaction (both
PostgreSQL and SQLite have transactional DDL, so a step that fails leaves no half-made
schema), and a refusal to open a store newer than the code. That is what :func:`migrate`
does, with the same steps on both databases (a step may give each dialect its own text
where their SQL differs).

Each :data:`MIGRATIONS` entry is ``(version, name, {"common"|"sqlite"|"postgresql": sql})``;
never edit a released step, add a new one.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "MigrationError", "migrate"]


class MigrationError(RuntimeError):
    """The store's schema is newer than this code, or a step failed (nothing of it applied)."""


_V1 = """
CREATE TABLE room_tables (
    table_id     TEXT PRIMARY KEY,
    base_upto    BIGINT,
    base_state   TEXT,
    applied_upto BIGINT NOT NULL DEFAULT 0,
    state        TEXT,
    faults       TEXT NOT NULL DEFAULT '[]',
    total_in     BIGINT NOT NULL DEFAULT 0,
    total_out    BIGINT NOT NULL DEFAULT 0,
    rake         BIGINT NOT NULL DEFAULT 0,
    hands        BIGINT NOT NULL DEFAULT 0,
    first_at     DOUBLE PRECISION,
    last_at      DOUBLE PRECISION,
    name         TEXT,
    game         TEXT,
    stakes       TEXT
);
CREATE TABLE room_records (
    table_id    TEXT NOT NULL,
    seq         BIGINT NOT NULL,
    at          DOUBLE PRECISION NOT NULL,
    kind        TEXT NOT NULL,
    payload     TEXT NOT NULL,
    received_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (table_id, seq)
);
CREATE TABLE room_hands (
    table_id   TEXT NOT NULL,
    number     BIGINT NOT NULL,
    seq        BIGINT NOT NULL,
    started_at DOUBLE PRECISION,
    ended_at   DOUBLE PRECISION NOT NULL,
    voided     INTEGER NOT NULL,
    pot        BIGINT NOT NULL,
    rake       BIGINT NOT NULL,
    record     TEXT NOT NULL,
    PRIMARY KEY (table_id, number)
);
CREATE INDEX room_hands_ended ON room_hands (ended_at);
CREATE TABLE room_hand_players (
    table_id TEXT NOT NULL,
    number   BIGINT NOT NULL,
    seat     INTEGER NOT NULL,
    player   TEXT NOT NULL,
    name     TEXT NOT NULL,
    PRIMARY KEY (table_id, number, seat)
);
CREATE INDEX room_hand_players_player ON room_hand_players (player);
CREATE INDEX room_hand_players_name ON room_hand_players (name);
CREATE TABLE room_movements (
    table_id TEXT NOT NULL,
    seq      BIGINT NOT NULL,
    player   TEXT NOT NULL,
    at       DOUBLE PRECISION NOT NULL,
    chips_in  BIGINT NOT NULL,
    chips_out BIGINT NOT NULL,
    PRIMARY KEY (table_id, seq, player)
);
CREATE INDEX room_movements_at ON room_movements (at);
CREATE TABLE room_faults (
    table_id TEXT NOT NULL,
    seq      BIGINT NOT NULL,
    at       DOUBLE PRECISION NOT NULL,
    event    TEXT NOT NULL,
    kind     TEXT NOT NULL,
    detail   TEXT NOT NULL,
    PRIMARY KEY (table_id, seq)
);
"""

_V2_SQLITE = """
CREATE TABLE room_floor_actions (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    at       DOUBLE PRECISION NOT NULL,
    table_id TEXT NOT NULL,
    action   TEXT NOT NULL,
    by_name  TEXT NOT NULL,
    reason   TEXT NOT NULL,
    request_id TEXT NOT NULL,
    request  TEXT NOT NULL,
    outcome  TEXT
);
CREATE INDEX room_floor_actions_request ON room_floor_actions (request_id);
"""

_V3_SQLITE = """
CREATE TABLE room_tournament (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    at       DOUBLE PRECISION NOT NULL,
    type     TEXT NOT NULL,
    payload  TEXT NOT NULL
);
"""

MIGRATIONS: list[tuple[int, str, dict[str, str]]] = [
    (1, "tables, records, hands, players, movements, faults", {"common": _V1}),
    (2, "the floor's decisions from the console", {
        "sqlite": _V2_SQLITE,
        "postgresql": _V2_SQLITE.replace("INTEGER PRIMARY KEY AUTOINCREMENT",
                                         "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"),
    }),
    (3, "the room's multi-table tournament journal (issue 19)", {
        "sqlite": _V3_SQLITE,
        "postgresql": _V3_SQLITE.replace("INTEGER PRIMARY KEY AUTOINCREMENT",
                                         "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"),
    }),
]

#: The newest schema this code knows.
SCHEMA_VERSION = MIGRATIONS[-1][0]


def _statements(sql: str) -> list[str]:
    return [s.strip() for s in sql.split(";") if s.strip()]


def migrate(conn: Any, dialect: str, *, now: float,
            steps: list[tuple[int, str, dict[str, str]]] | None = None,
            version_table: str = "room_schema") -> list[int]:
    """Bring the store's schema to :data:`SCHEMA_VERSION`; return the versions applied.

    ``steps`` and ``version_table``: another track of steps with its own version table (the
    players' side, :mod:`room.players_schema`, numbers its steps apart from these), applied
    the same way.

    Args:
        conn: an open DB-API connection in autocommit mode (``sqlite3`` with
            ``isolation_level=None``, or a psycopg 3 connection with ``autocommit=True``).
        dialect: ``"sqlite"`` or ``"postgresql"``.
        now: the time recorded with each step (Unix seconds).

    Raises:
        MigrationError: the store is newer than this code, or a step failed (rolled back).
    """
    ph = "?" if dialect == "sqlite" else "%s"
    steps = MIGRATIONS if steps is None else steps
    newest = steps[-1][0]
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE IF NOT EXISTS {version_table} ("
                "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at DOUBLE PRECISION NOT NULL)")
    if dialect == "postgresql":
        # Two room services starting on one database: the second waits for the first's steps.
        cur.execute("BEGIN")
        cur.execute(f"LOCK TABLE {version_table} IN EXCLUSIVE MODE")
    cur.execute(f"SELECT COALESCE(MAX(version), 0) FROM {version_table}")
    have = int(cur.fetchone()[0])
    if dialect == "postgresql":
        cur.execute("COMMIT")
    if have > newest:
        raise MigrationError(f"the room store has schema {have} ({version_table}), this livetable knows up to "
                             f"{newest}: upgrade livetable")
    done = []
    for version, name, sql in steps:
        if version <= have:
            continue
        text = sql.get(dialect, sql.get("common"))
        if text is None:
            raise MigrationError(f"migration {version} has no {dialect} text")
        try:
            cur.execute("BEGIN")
            if dialect == "postgresql":
                cur.execute(f"LOCK TABLE {version_table} IN EXCLUSIVE MODE")
                cur.execute(f"SELECT COALESCE(MAX(version), 0) FROM {version_table}")
                if int(cur.fetchone()[0]) >= version:  # another service applied it meanwhile
                    cur.execute("COMMIT")
                    continue
            for stmt in _statements(text):
                cur.execute(stmt)
            cur.execute(f"INSERT INTO {version_table}(version, name, applied_at) VALUES ({ph}, {ph}, {ph})",
                        (version, name, now))
            cur.execute("COMMIT")
        except Exception as exc:
            try:
                cur.execute("ROLLBACK")
            except Exception:  # the connection itself is gone: nothing was committed
                pass
            raise MigrationError(f"room store migration {version} ({name}) failed: {exc}") from exc
        done.append(version)
    return done
